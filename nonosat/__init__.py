"""nonosat: a nonogram solver and uniqueness certifier (see README.md).

Kept empty of imports so that ``nonosat --help`` loads nothing heavy.
"""

__version__ = "0.1.0"
