"""``python -m nonosat``: the ``nonosat`` command line."""

from nonosat.cli.app import main

main()
