"""nonosat: a nonogram solver and uniqueness certifier (see README.md).

Kept empty of imports so that ``nonosat --help`` loads nothing heavy.
"""

__version__ = "0.1.0"

#: The version of the JSON contract (``docs/cli.md``, ``docs/schema/``): the ``schema`` field of
#: every JSON object nonosat prints or writes to a results file.
JSON_SCHEMA = "nonosat/1"
