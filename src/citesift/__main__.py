"""``python -m citesift``: the command line, as the ``citesift`` script runs it."""

from citesift.cli import main

main()
