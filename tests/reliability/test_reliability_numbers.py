"""Every number at the door (reviewer.cli.numbers, reviewer.pipeline.limits).

Every numeric option and argument of every command declares its range and
is checked by one rule: finite, within the range, whole where it must be;
else a usage error (exit code 2) with one line naming the option. The test
walks click's own parameter lists, so a new numeric option of another type
fails here, and feeds NaN, +inf, -inf and a value just outside its range to
each, and to the numbers inside text options (``--weights``). A Failter
spec's numbers obey the same bounds."""

from __future__ import annotations

import click
from click.testing import CliRunner

from reviewer.cli import main
from reviewer.cli.numbers import Finite
from reviewer.pipeline import limits

#: Text options that hold numbers: (command, option, a value with the bad number in place of {})
NUMBERS_IN_TEXT = [
    ("report", "--weights", "{}:0.5"),
    ("report", "--weights", "0.5:{}"),
    ("run", "--weights", "{}:0.5"),
]
#: The range of each number in a text option.
TEXT_RANGES = {"--weights": (0, 1_000_000)}


def numeric_params():
    """(command name, click parameter) of every parameter whose type is numeric."""
    out = []
    for name, command in main.commands.items():
        for param in command.params:
            t = param.type
            numeric = isinstance(t, (click.types._NumberParamTypeBase, Finite)) or t.name in (
                "integer",
                "float",
                "integer range",
                "float range",
            )
            if numeric:
                out.append((name, param))
    return out


def args_for(command: str, param: click.Parameter, value: str) -> list[str]:
    """The command line giving ``value`` to ``param`` alone (first, so it is converted before any other)."""
    if isinstance(param, click.Argument):
        before = ["p.db"] if command == "adjudicate-gt" else []
        return [command, *before, "--", value]  # '--': '-inf' is a value, not an option
    return [command, param.opts[0], value]


def outside(t: Finite) -> list[str]:
    b = t.bound
    step = 1 if b.whole else max(abs(b.most) * 1e-3, 1e-3)
    return [repr(b.most + step), repr(b.least - step)]


def test_every_numeric_option_declares_its_range():
    params = numeric_params()
    assert len(params) >= 30  # run, judge, label, score, adjudicate-gt, calibration, alignment, gate
    wrong = [(c, p.name, type(p.type).__name__) for c, p in params if not isinstance(p.type, Finite)]
    assert wrong == [], f"numeric options without a declared range (use reviewer.cli.numbers): {wrong}"
    seeds = [p for _, p in params if p.name == "seed"]
    assert seeds and all((p.type.bound.least, p.type.bound.most) == (0, 2**32 - 1) for p in seeds)


def test_nan_infinity_and_out_of_range_values_are_refused_in_one_line_naming_the_option():
    runner = CliRunner()
    checked = 0
    for command, param in numeric_params():
        assert isinstance(param.type, Finite)
        for value in ("nan", "inf", "-inf", "NaN", *outside(param.type)):
            result = runner.invoke(main, args_for(command, param, value))
            assert result.exit_code == 2, (command, param.name, value, result.output)
            errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
            assert len(errors) == 1, result.output
            shown = param.opts[0] if isinstance(param, click.Option) else param.name.upper()
            assert f"'{shown}'" in errors[0] and "Traceback" not in result.output, (command, value, result.output)
            checked += 1
    assert checked >= 30 * 6


def test_numbers_inside_text_options_obey_the_same_rule():
    runner = CliRunner()
    for command, option, shape in NUMBERS_IN_TEXT:
        least, most = TEXT_RANGES[option]
        for bad in ("nan", "inf", "-inf", str(most * 10), str(least - 1), "1e308"):
            result = runner.invoke(main, [command, "p.db", option, shape.format(bad)])
            assert result.exit_code == 2, (command, option, bad, result.output)
            errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
            assert len(errors) == 1 and f"'{option}'" in errors[0], result.output


def test_the_gate_refuses_nan_and_infinite_bounds_before_reading_the_project(tmp_path):
    runner = CliRunner()
    for option, value in (("--min-tpr", "nan"), ("--min-kappa-lower", "-inf"), ("--min-tnr", "inf")):
        result = runner.invoke(
            main, ["gate", str(tmp_path / "p.db"), "--judge", "j", "--dimension", "d", option, value]
        )
        assert result.exit_code == 2 and f"Invalid value for '{option}'" in result.output, result.output
    assert not (tmp_path / "p.db").exists()


def test_a_spec_uses_the_command_lines_bounds(tmp_path):
    import pytest

    from reviewer.pipeline.failter_spec import SpecError, load_spec
    from tests.helpers.failter import failter_spec

    by_name = {p.name: p.type for p in main.commands["run"].params}
    for bound in (limits.RETRIES, limits.TIMEOUT_S, limits.CONCURRENCY):
        assert by_name[bound.name].bound is bound  # the same object: the same range and message
        for k, bad in enumerate((".nan", ".inf", "-.inf", str(bound.most * 10))):
            spec = failter_spec(tmp_path / f"{bound.name}{k}", f"{bound.name}: {bad}\n")
            with pytest.raises(SpecError, match=f"{bound.name} must be a .*number from"):
                load_spec(spec)
