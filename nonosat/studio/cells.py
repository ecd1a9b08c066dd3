"""How the studio's API writes colour cells: one character per colour index.

Kept apart from :mod:`nonosat.studio.schemas` (the request models) so that the solving side
(:mod:`nonosat.studio.quick`) can write colour grids without importing the request models,
which import it back.
"""

from __future__ import annotations

import numpy as np

#: The cell character of each colour index of a colour puzzle in the API (``.`` = background).
INDEX_CHARS = ".abcdefghijklmnopqrstuvwxyzABCD"


def colour_grid_rows(grid: np.ndarray) -> list[str]:
    """Rows of a colour solution or picture (colour indices, shape ``(height, width)``) over
    :data:`INDEX_CHARS`."""
    return ["".join(INDEX_CHARS[int(v)] for v in row) for row in np.asarray(grid)]
