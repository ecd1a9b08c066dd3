"""``python -m nonosat``: the ``nonosat`` command line."""

from nonosat.cli import signals

signals.install()  # Ctrl-C and SIGTERM handled before anything else is imported

from nonosat.cli.app import main  # noqa: E402

main()
