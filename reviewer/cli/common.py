"""Shared pieces of the command line: the `reviewer` group, one-line errors,
output that makes control characters visible, the --fail-on gates."""

from __future__ import annotations

import functools
import sqlite3
import sys

import click

from reviewer import __version__
from reviewer.core.cards.gates import FAIL_LEVELS, failing, gate_message
from reviewer.core.judging.gates import JUDGE_LEVELS
from reviewer.core.text import visible
from reviewer.storage.project.db import Project, ProjectError

# Scoring (scipy), export, reports and the pipeline are imported by the
# commands that use them: `reviewer import` and `--help` start without them.

#: reviewer.pipeline.judge.KINDS and reviewer.clients.chat.DEFAULT_KEY_ENV,
#: without importing them (tests/shared/cli/test_cli.py checks they agree)
JUDGE_KINDS = ("failter", "failter-gt", "tarot-rubric", "span", "pairwise")
DEFAULT_KEY_ENV = "OPENAI_API_KEY"


def one_line(text: object) -> str:
    """``text`` on one line, control and bidi characters made visible (reviewer.core.text.visible)."""
    return visible(text, keep_newlines=False)


FAIL_ON = click.option(
    "--fail-on",
    type=click.Choice(sorted(FAIL_LEVELS)),
    default=None,
    help="CI gate: exit 1 when any prompt's T-P1 verdict is at or below this level.",
)
JUDGE_FAIL_ON = click.option(
    "--fail-on",
    type=click.Choice(sorted(JUDGE_LEVELS)),
    default=None,
    help="CI gate: exit 1 when any judged prompt's average verdict (this judge's verdicts on one prompt's runs "
    "of one model) is at or below the level: fail = D / 40 / 2 / 40 points, ambiguous = C / 60 / 3 / 60 points "
    "on A-F (A=100 ... F=20) / 0-100 / 1-5 / C/I/P (inspect's letters, C=100, P=50, I=0: an average of all P is "
    "ambiguous). Pairwise and pass/fail verdicts are not gated.",
)


def gate_verdicts(vs, fail_on: str | None) -> None:
    """Exit 1 (naming the prompts) when a verdict is at or below ``fail_on``."""
    if fail_on is None:
        return
    bad = failing(vs, fail_on)
    if bad:
        click.echo(f"Error: {visible(gate_message(bad, fail_on))}", err=True)
        sys.exit(1)


def friendly_errors(func):
    """Turn expected failures into a one-line error and exit status 1
    (control and bidi characters in it made visible)."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except click.ClickException as exc:
            exc.message = one_line(exc.message)
            raise
        except ProjectError as exc:
            raise click.ClickException(one_line(exc)) from None
        except sqlite3.DatabaseError as exc:
            raise click.ClickException(one_line(f"database error: {exc}")) from None
        except (FileNotFoundError, PermissionError, IsADirectoryError) as exc:
            raise click.ClickException(one_line(f"{exc.strerror}: {exc.filename}")) from None

    return wrapper


def echo(text: object = "", err: bool = False, nl: bool = True) -> None:
    """Print text that may hold names from files (models, judges, items):
    control and bidi characters are made visible (core.text.visible), so
    they cannot drive the terminal or reorder what is shown."""
    click.echo(visible(text), err=err, nl=nl)


def read_only_note(p: Project) -> None:
    """Say on stderr that a read-only project's scores and disputes are computed but not saved."""
    if p.read_only:
        echo(f"note: {p.path} is read-only ({p.read_only}): scores and disputes are computed but not saved", err=True)


def parse_pairs(values: tuple[str, ...], kind, what: str) -> dict:
    """``NAME=VALUE`` options as {name: kind(value)}; a bad pair raises click.BadParameter naming ``what``."""
    out = {}
    for v in values:
        name, sep, val = v.partition("=")
        if not sep:
            raise click.BadParameter(f"expected PROMPT={what}, got '{v}'")
        try:
            out[name] = kind(val)
        except ValueError:
            choices = ", ".join(k.value for k in kind)
            raise click.BadParameter(f"'{val}' is not one of {choices}") from None
    return out


def weights_option(ctx, param, value: str) -> tuple[float, float]:
    """--weights RULES:GT: each number checked by the rule of every number
    (reviewer.cli.numbers: finite, 0 to 1,000,000), then normalised."""
    from reviewer.cli.numbers import WEIGHT, check_number
    from reviewer.storage.judging.verdict_table import parse_weights

    try:
        parts = str(value).split(":")
        if len(parts) == 2:
            for part in parts:
                check_number(part, WEIGHT)
        return parse_weights(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


@click.group(invoke_without_command=True)
@click.version_option(__version__, prog_name="reviewer")
@click.pass_context
def main(ctx: click.Context) -> None:
    """reviewer: check how well language and vision-language models did
    their job. Without a command, opens the window on the bundled sample."""
    if ctx.invoked_subcommand is None:
        # the 'open' command registers on this group (reviewer.cli.projects): found by name, not imported
        ctx.invoke(main.commands["open"], project=None, screenshot=None)
