"""Making puzzles: from a picture (:mod:`nonosat.generate.from_image`: decode, scale, threshold or
quantise) and made unique with the fewest cell changes found (:mod:`nonosat.generate.unique`),
or random (:mod:`nonosat.generate.random`).

This package sits above :mod:`nonosat.engines` and :mod:`nonosat.analysis` (it checks every
candidate with their uniqueness checks and grades); it never prints or exits.
"""

from __future__ import annotations

from nonosat.generate.unique import Generated, make_unique

__all__ = ["Generated", "make_unique"]
