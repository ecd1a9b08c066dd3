"""The ``nonosat`` command line: a thin typer layer over the public API.

One module per command (or command group); :mod:`nonosat.cli.app` registers them.  Shared
options, error handling and exit codes live in :mod:`nonosat.cli.common`.
"""
