"""Puzzle analysis: how a puzzle is solved, how hard it is, where it is ambiguous, hints.

One pipeline for every puzzle, on the model's general form (black-and-white is the two-colour
case; it keeps its bit-parallel kernels):

* :mod:`nonosat.analysis.logic` -- the general form and each logic stage's kernels;
* :mod:`nonosat.analysis.staged` -- the staged solver (line -> implications -> probing)
  recording which stage made each deduction; :mod:`nonosat.analysis.implied` -- the
  implication graph as arrays; :mod:`nonosat.analysis.fork` -- a counting search;
* :mod:`nonosat.analysis.difficulty` -- :func:`~nonosat.analysis.difficulty.analyse`, the whole
  report; :mod:`nonosat.analysis.grade` -- classification and grade;
  :mod:`nonosat.analysis.report` -- what an analysis found and its JSON;
* :mod:`nonosat.analysis.backbone`, :mod:`~nonosat.analysis.extra_givens`,
  :mod:`~nonosat.analysis.edits` (and :mod:`~nonosat.analysis.ambiguity`, the map as text) --
  puzzles with several solutions; :mod:`nonosat.analysis.backdoor`,
  :mod:`nonosat.analysis.structure` -- backdoors, independent parts, graph export;
* :mod:`nonosat.analysis.overlap`, :mod:`nonosat.analysis.hints`,
  :mod:`nonosat.analysis.walkthrough`, :mod:`nonosat.analysis.steps` -- the next human-style
  deduction, whole-solve explanations and the step-through search.

This package sits above the native solver and the engines; nothing here prints.
"""
