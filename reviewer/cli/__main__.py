"""``python -m reviewer.cli``: the command line."""

from reviewer.cli import main

main()
