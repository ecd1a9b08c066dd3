"""The ``nonosat`` command line: a thin typer layer over the public API.

One module per command (or command group); :mod:`nonosat.cli.app` registers them.  Shared
options live in :mod:`nonosat.cli.options`, printers in :mod:`nonosat.cli.output`, exit codes in
:mod:`nonosat.cli.exits`, reading a command's puzzle in :mod:`nonosat.cli.inputs`, error handling
and the time limit in :mod:`nonosat.cli.running`, and the help style in
:mod:`nonosat.cli.click_style`.
"""
