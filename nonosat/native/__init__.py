"""The native solver, one module per stage in the order a puzzle flows through them.

- :mod:`nonosat.native.line` -- the complete line solver (bit-parallel kernels on one word,
  :mod:`~nonosat.native.line_bits`, or several, :mod:`~nonosat.native.line_words`; the dynamic
  programme, :mod:`~nonosat.native.line_dp`);
- :mod:`nonosat.native.propagate` -- propagation to a fixpoint over a work queue of changed lines;
- :mod:`nonosat.native.implications` -- the implication graph of cell literals (networkx);
- :mod:`nonosat.native.probe` -- failed-literal probing and the branching rule;
- :mod:`nonosat.native.search` -- the fork search counting solutions up to a limit.

The stages build only on :mod:`nonosat.puzzle`, never on :mod:`nonosat.encodings`, so that a
cross-check compares independent engines.  Importing this package imports no stage (and so
neither numba nor networkx): import the stage module you need.
"""
