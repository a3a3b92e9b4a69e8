"""Write docs/cli.md, the command-line reference, from the click commands.

Run ``python docs/gen_cli.py`` after changing a command, an argument, an
option or a help text; ``tests/project/test_docs.py`` fails while docs/cli.md is
stale or misses a command or option. ``render()`` returns the page as text
(no file written), so the test can compare it with the file.
"""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

import click

OUT = Path(__file__).resolve().parent / "cli.md"

HEADER = """# Command-line reference

Generated from the click commands by `python docs/gen_cli.py`; do not edit by
hand (`tests/project/test_docs.py` fails when this page is stale). Every command exits
0 on success and prints one line `Error: ...` with a non-zero status on bad
input. What the commands do in practice: [commands.md](commands.md).
"""


def _cell(text: str) -> str:
    """One Markdown table cell: ``text`` on one line, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _metavar(param: click.Parameter, ctx: click.Context) -> str:
    """How a parameter is written on the command line, e.g. ``--model NAME``."""
    if isinstance(param, click.Argument):
        return param.make_metavar(ctx) if _takes_ctx(param) else param.make_metavar()
    names = ", ".join(param.opts + param.secondary_opts)
    if param.is_flag or param.count:
        return names
    return f"{names} {param.make_metavar(ctx) if _takes_ctx(param) else param.make_metavar()}"


def _takes_ctx(param: click.Parameter) -> bool:
    """Whether this click's make_metavar takes a context (click 8.2 and later)."""
    return "ctx" in inspect.signature(param.make_metavar).parameters


def _default(param: click.Parameter) -> str:
    """The default shown in the reference ('' when none worth showing)."""
    if isinstance(param, click.Argument) or param.default is None:
        return ""
    if param.is_flag:
        if param.secondary_opts:  # --x/--no-x: name the one in force
            return f"`{param.opts[0] if param.default else param.secondary_opts[0]}`"
        return ""
    if param.multiple and not param.default:
        return ""
    default = param.default
    if callable(default) or type(default).__name__ == "Sentinel" or default in ("", ()):
        return ""
    if isinstance(default, (tuple, list)):
        default = " ".join(map(str, default))
    return f"`{default}`"


def _command(name: str, cmd: click.Command, parent: click.Context) -> list[str]:
    """The section of one command: usage, help, arguments and options."""
    ctx = click.Context(cmd, info_name=name, parent=parent)
    lines = [
        f"## reviewer {name}",
        "",
        "```",
        " ".join(cmd.collect_usage_pieces(ctx)).join([f"reviewer {name} ", ""]),
        "```",
        "",
    ]
    lines += [inspect.cleandoc(cmd.help or ""), ""]
    params = [p for p in cmd.params if not getattr(p, "hidden", False)]
    if params:
        lines += ["| argument or option | default | help |", "|---|---|---|"]
        for p in params:
            help_text = getattr(p, "help", None) or (
                ("required" if p.required else "optional") + " argument" if isinstance(p, click.Argument) else ""
            )
            lines.append(f"| `{_cell(_metavar(p, ctx))}` | {_default(p)} | {_cell(help_text)} |")
        lines.append("| `--help` | | Show the command's help and exit. |")
        lines.append("")
    return lines


def render() -> str:
    """docs/cli.md as text: the header, a command index and one section per
    command of ``reviewer.cli.main`` in name order."""
    from reviewer.cli import main

    root = click.Context(main, info_name="reviewer")
    names = sorted(main.list_commands(root))
    lines = [HEADER, inspect.cleandoc(main.help or ""), "", "| command | what it does |", "|---|---|"]
    for name in names:
        cmd = main.get_command(root, name)
        lines.append(f"| [`reviewer {name}`](#reviewer-{name}) | {_cell(cmd.get_short_help_str(1000))} |")
    lines.append("")
    for name in names:
        lines += _command(name, main.get_command(root, name), root)
    return "\n".join(lines).rstrip() + "\n"


def main() -> int:
    """Write docs/cli.md; print where."""
    OUT.write_text(render(), encoding="utf-8")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
