"""Encodings of a puzzle for external solvers: CNF (DIMACS), CP-SAT, certificates."""
