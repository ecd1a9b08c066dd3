"""Puzzle analysis: how a puzzle is solved, how hard it is, where it is ambiguous, hints.

* :mod:`nonosat.analysis.staged` -- the staged solver (line -> implications -> probing -> fork)
  recording which stage made each deduction;
* :mod:`nonosat.analysis.ambiguity` -- backbone, ambiguity map, extra givens for uniqueness;
* :mod:`nonosat.analysis.difficulty` -- the full report and the difficulty grade;
* :mod:`nonosat.analysis.overlap` -- the simple overlap technique people use first;
* :mod:`nonosat.analysis.hints` -- the next human-style deduction and whole-solve explanations.

This package sits above the native solver and the engines; nothing here prints.
"""
