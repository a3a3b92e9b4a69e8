"""``python -m reviewer``: the command line (reviewer.cli)."""

from reviewer.cli import main

if __name__ == "__main__":  # pragma: no cover
    main(prog_name="reviewer")
