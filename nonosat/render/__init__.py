"""Showing puzzles and solutions: text in the terminal (:mod:`nonosat.render.clue_grid`), SVG and PNG
pictures.  Rendering uses the model and engine results; nothing here solves."""
