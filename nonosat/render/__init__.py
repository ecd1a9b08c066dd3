"""Showing puzzles and solutions: text in the terminal (:mod:`nonosat.render.text`), SVG and PNG
pictures.  Rendering uses the model and engine results; nothing here solves."""
