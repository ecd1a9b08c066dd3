"""nonosat studio: a local web app (FastAPI) to design, check, play and step through puzzles."""
