"""Random puzzles with a unique solution, of a requested grade, reproducible from a seed.

:func:`random_puzzle` draws a random picture (each cell filled with probability ``density``;
colour: a filled cell takes one of the colours uniformly), then changes cells until the puzzle
is unique and, for grade 1-3, solved by the logic of that grade (:func:`nonosat.generate.unique.
make_unique`, with few candidates per step and no pruning: a random picture has no shape to
keep).  With a target grade the puzzle must have exactly that grade; a draw that ends easier or
harder is redrawn (from the same seeded generator), up to ``attempts`` draws, and the closest one
is returned otherwise (``reached`` false).  As Tatham's *Pattern* does, only puzzles that the
checks solve are kept; unlike it, the picture is repaired rather than redrawn from scratch.

The same ``(width, height, density, colours, grade, seed)`` always gives the same puzzle (NumPy's
PCG64 generator; the engines are deterministic).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from nonosat.generate.unique import Generated, make_unique
from nonosat.puzzle import Colour, Palette

#: The colours of random colour puzzles, in order (background first).
RANDOM_COLOURS = (
    Colour("white", (255, 255, 255), "."), Colour("black", (0, 0, 0), "k"),
    Colour("red", (220, 30, 30), "r"), Colour("blue", (30, 60, 220), "b"),
    Colour("green", (30, 160, 60), "g"), Colour("yellow", (240, 200, 20), "y"),
    Colour("orange", (245, 130, 20), "o"), Colour("purple", (130, 40, 160), "p"),
    Colour("brown", (130, 80, 30), "n"), Colour("grey", (128, 128, 128), "e"),
    Colour("pink", (240, 140, 180), "i"), Colour("cyan", (20, 200, 210), "c"),
)
#: Draws tried for an exact grade before giving the closest.
ATTEMPTS = 30


def random_palette(colours: int) -> Palette | None:
    """``None`` for 1 (black-and-white), else the background and the first ``colours`` of
    :data:`RANDOM_COLOURS` after it.

    Raises
    ------
    ValueError
        More colours than :data:`RANDOM_COLOURS` holds.
    """
    if colours <= 1:
        return None
    if colours > len(RANDOM_COLOURS) - 1:
        raise ValueError(f"at most {len(RANDOM_COLOURS) - 1} colours for random puzzles")
    return Palette(RANDOM_COLOURS[: colours + 1])


def random_picture(rng: np.random.Generator, width: int, height: int, density: float,
                   colours: int = 1) -> np.ndarray:
    """A random picture: bool (filled with probability ``density``) or, for 2 or more colours,
    int8 colour indices (0 with probability ``1 - density``, else uniform over 1..colours)."""
    filled = rng.random((height, width)) < density
    if colours <= 1:
        return filled
    hue = rng.integers(1, colours + 1, size=(height, width))
    return np.where(filled, hue, 0).astype(np.int8)


def random_puzzle(
    width: int,
    height: int,
    *,
    density: float = 0.5,
    colours: int = 1,
    grade: int | None = None,
    seed: int = 0,
    timeout: float | None = 60.0,
    attempts: int = ATTEMPTS,
    engine: str = "auto",
    should_stop: Callable[[], bool] = lambda: False,
) -> Generated:
    """A random unique puzzle (module docstring).

    Parameters
    ----------
    width, height : int
        Cells, at least 1.
    density : float
        Probability a cell is filled (0 < density < 1).
    colours : int
        1 = black-and-white; 2 or more colours besides the background.
    grade : int, optional
        Exact grade wanted (1-5); ``None``: any grade.
    seed : int
        Seed of the generator.
    timeout : float, optional
        Seconds for all the draws together.
    attempts : int
        Draws at most, for an exact grade.

    Returns
    -------
    Generated
        ``original`` is the random picture drawn, ``picture`` the repaired one; ``reached`` is
        unique and (with ``grade``) exactly that grade.

    Raises
    ------
    ValueError
        A size, density, colour count or grade out of range.
    """
    if width < 1 or height < 1:
        raise ValueError("the size must be at least 1x1")
    if not 0.0 < density < 1.0:
        raise ValueError(f"density {density}: use a probability between 0 and 1")
    palette = random_palette(colours)
    if palette is not None and grade == 2:
        raise ValueError("grade 2 (implications) does not exist for colour puzzles")
    start = time.perf_counter()
    rng = np.random.default_rng(seed)
    best: Generated | None = None
    drawn = 0
    for attempt in range(max(1, attempts)):
        left = None if timeout is None else timeout - (time.perf_counter() - start)
        if (left is not None and left <= 0) or should_stop():
            break
        picture = random_picture(rng, width, height, density, colours)
        drawn += 1
        got = make_unique(picture, palette, grade=grade, timeout=left, engine=engine,
                          seed=int(rng.integers(1 << 31)),
                          # grade 4-5 (search) must stay hard: random changes, no scoring
                          candidates=1 if grade is not None and grade >= 4 else 4, prune=False,
                          title=f"random {width}x{height} seed {seed}", should_stop=should_stop)
        got.info["attempts"] = attempt + 1
        got.info["seed"] = seed
        exact = got.grade is not None and (grade is None or got.grade == grade)
        got.reached = exact
        if exact:
            got.reason = ""
            best = got
            break
        if got.grade is not None and (best is None or best.grade is None or (
                grade is not None and abs(got.grade - grade) < abs(best.grade - grade))):
            best = got
        elif best is None:
            best = got
    if best is None:
        raise TimeoutError("no draw finished within the time limit")
    best.info["draws"] = drawn
    if not best.reached and (not best.reason or best.grade is not None):
        best.reason = (f"grade {grade} not drawn in {drawn} draws (closest: grade {best.grade})"
                       if best.grade is not None else best.reason or "not unique")
    best.time_s = time.perf_counter() - start
    return best
