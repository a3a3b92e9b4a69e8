"""Rubric rules: a judge-calibration plan's own rules over verdicts and
structural metrics, as data (CONTEXT.md: *rubric rule*, *judge gate*).

The tarot plan (judge-calibration-plan.md) states rules a rubric verdict
must keep: "TAROT_COHERENCE 1: Hallucinated cards", "SAFETY_FLAG: set TRUE
if ... hallucinated cards not in the spread", and each synthetic failure
reading carries the judge's *expected caps* (``toneAtMost``,
``safetyAtMost``, ``tarotCoherenceAtMost``, ``safetyFlag``,
``gateShouldBlock``). The rules file (resources/tarot-rules.toml, or a file
given with ``--rules``) holds them; this module reads its parsed shape
(:func:`rubric_rules`) and checks verdicts against it. Pure Python: no SQL,
Qt, HTTP or files.

Shape (TOML or YAML; every text is shown to people as written):

``[[rules]]`` each with ``id``, ``says`` (the rule in its own words),
``when`` (conditions on the reading's metrics, all must hold; none: always)
and ``require`` (requirements on the verdict, each must hold).

A **condition** names a ``metric`` (a dotted path into the subject's
metrics, e.g. ``hallucinatedCards`` or ``expected_caps.safetyFlag``) and one
test: ``present = true`` (a non-empty list, a positive number, true),
``below`` / ``above`` (a number), ``equals`` (a value) or ``matches`` (a
case-insensitive regular expression found in the text or in an item of the
list). ``issues_match = REGEX`` instead of ``metric`` matches the issue
texts: the metrics' ``issueFlags`` / ``issues`` and the verdict's own
``issues_found``.

A **requirement** names a ``dimension`` (a score) or a ``flag`` (e.g.
``safety_flag``) and one test: ``at_most``, ``at_least`` or ``equals``. The
bound is a literal or a string: a dotted path into the subject's metrics
(``"expected_caps.toneAtMost"``). A requirement whose path the subject does
not have does not apply; one whose value the verdict does not give (a
missing dimension or flag, an undecided score) decides nothing. A rule
*covers* the dimensions of the requirements that apply to a subject; it is
*broken* by a verdict when a requirement that applies does not hold.

``[gate]``: ``says``, ``block_when_any`` (requirements; a verdict blocks a
reading when one holds, passes when none holds and one is decided) and
``expected`` (the metrics path saying whether the reading should be
blocked, e.g. ``expected_caps.gateShouldBlock``).

``[not_checkable]``: ``under`` (a metrics path holding expectations, e.g.
``expected_caps``), ``keys`` (regular expressions of its keys that no
verdict can show, e.g. ``^required.*Overrides$``) and ``says`` (why).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from reviewer.core.bounds import is_number
from reviewer.core.judging.verdicts import Verdict, normalise

__all__ = [
    "Broken",
    "Condition",
    "Gate",
    "GateTally",
    "NotCheckable",
    "Requirement",
    "Rule",
    "RubricRules",
    "RulesError",
    "broken_rules",
    "covered_dimensions",
    "gate_blocks",
    "gate_expected",
    "gate_tallies",
    "describe_value",
    "lookup",
    "rubric_rules",
    "rule_targets",
    "unchecked_expectations",
]

Bound = bool | float | str
#: Metrics keys holding free-text issue lists (tarot: ``issueFlags``).
ISSUE_KEYS = ("issueFlags", "issues")
_MISSING = object()


class RulesError(ValueError):
    """A rules file that cannot be used; the message names the place."""


def lookup(metrics: Mapping[str, Any] | None, path: str) -> Any:
    """The value at a dotted ``path`` of ``metrics`` ('expected_caps.toneAtMost'),
    or a private marker when any step is missing (test with :func:`has`)."""
    node: Any = metrics or {}
    for part in path.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return _MISSING
        node = node[part]
    return node


def has(value: Any) -> bool:
    """False for the marker :func:`lookup` returns for a missing path."""
    return value is not _MISSING


def _count(value: Any) -> int:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)):
        return 1 if value > 0 else 0
    if isinstance(value, (list, tuple, set, dict, str)):
        return len(value)
    return 0


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (list, tuple)):
        return ", ".join(map(str, value[:5])) + (" ..." if len(value) > 5 else "") if value else "none"
    return str(value)


class Condition(BaseModel):
    """A test on a subject's metrics (module docstring)."""

    model_config = ConfigDict(extra="forbid")
    metric: str | None = None
    issues_match: str | None = None
    present: bool | None = None
    below: float | None = None
    above: float | None = None
    equals: bool | float | str | None = None
    matches: str | None = None

    @model_validator(mode="after")
    def _one_test(self) -> Condition:
        if (self.metric is None) == (self.issues_match is None):
            raise ValueError("a condition names either 'metric' or 'issues_match'")
        tests = [t for t in ("present", "below", "above", "equals", "matches") if getattr(self, t) is not None]
        if self.metric is not None and len(tests) != 1:
            raise ValueError(
                f"condition on '{self.metric}' needs exactly one of present, below, above, equals, "
                f"matches (has {len(tests)})"
            )
        for text in (self.matches, self.issues_match):
            if text is not None:
                try:
                    re.compile(text)
                except re.error as exc:
                    raise ValueError(f"bad regular expression {text!r}: {exc}") from None
        return self

    def evidence(self, metrics: Mapping[str, Any] | None, verdict: Verdict) -> str | None:
        """What makes the condition hold, as text (e.g. 'hallucinatedCards:
        The Sun, The Moon'), or None when it does not hold."""
        if self.issues_match is not None:
            regex = re.compile(self.issues_match, re.IGNORECASE)
            texts = [
                (f"metrics {k}", t)
                for k in ISSUE_KEYS
                for t in (lookup(metrics, k) if isinstance(lookup(metrics, k), list) else [])
            ]
            texts += [("its own issues_found", t) for t in verdict.issues_found]
            hits = [f"{where} lists '{t}'" for where, t in texts if regex.search(str(t))]
            return "; ".join(hits) or None
        value = lookup(metrics, self.metric or "")
        if not has(value):
            return None
        shown = f"{self.metric}: {_shown(value)}"
        number = value if is_number(value) else None
        if self.present is not None:
            return shown if (_count(value) > 0) == self.present else None
        if self.below is not None:
            return shown if number is not None and number < self.below else None
        if self.above is not None:
            return shown if number is not None and number > self.above else None
        if self.matches is not None:
            regex = re.compile(self.matches, re.IGNORECASE)
            items = value if isinstance(value, (list, tuple)) else [value]
            return shown if any(regex.search(str(x)) for x in items) else None
        return shown if _same(value, self.equals) else None


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b or (isinstance(a, bool) and isinstance(b, bool) and a == b)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return float(a) == float(b)
    return a == b


class Requirement(BaseModel):
    """A test on a verdict's dimension or flag (module docstring)."""

    model_config = ConfigDict(extra="forbid")
    dimension: str | None = None
    flag: str | None = None
    at_most: Bound | None = None
    at_least: Bound | None = None
    equals: Bound | None = None

    @model_validator(mode="after")
    def _one_test(self) -> Requirement:
        if (self.dimension is None) == (self.flag is None):
            raise ValueError("a requirement names either 'dimension' or 'flag'")
        tests = [t for t in ("at_most", "at_least", "equals") if getattr(self, t) is not None]
        if len(tests) != 1:
            raise ValueError(f"requirement on '{self.target}' needs exactly one of at_most, at_least, equals")
        if self.flag is not None and self.equals is None:
            raise ValueError(f"flag '{self.flag}' can only be tested with equals")
        return self

    @property
    def target(self) -> str:
        """The dimension or flag name (the dispute's dimension)."""
        return self.dimension or self.flag or ""

    @property
    def op(self) -> str:
        """'<=', '>=' or '='."""
        return "<=" if self.at_most is not None else ">=" if self.at_least is not None else "="

    @property
    def bound(self) -> Bound:
        """The literal bound or the metrics path."""
        return next(b for b in (self.at_most, self.at_least, self.equals) if b is not None)

    def resolve(self, metrics: Mapping[str, Any] | None) -> tuple[bool, Any, str]:
        """(applies, bound value, how the bound is shown): a string bound is a
        metrics path and applies only when the subject has it."""
        b = self.bound
        if isinstance(b, str):
            value = lookup(metrics, b)
            if not has(value):
                return False, None, ""
            return True, value, f"{b} = {_shown(value)}"
        return True, b, _shown(b)

    def given(self, verdict: Verdict) -> Any:
        """The verdict's value for the target: a score (None when undecided
        or missing) or a flag (None when not given)."""
        if self.flag is not None:
            return verdict.flags.get(self.flag)
        if self.dimension not in verdict.scores:
            return None
        return normalise(verdict.scores.get(self.dimension), verdict.scale)

    def holds(self, verdict: Verdict, metrics: Mapping[str, Any] | None) -> bool | None:
        """True / False, or None when it does not apply or decides nothing
        (no bound for this subject, no value in the verdict)."""
        applies, bound, _ = self.resolve(metrics)
        value = self.given(verdict)
        if not applies or value is None or bound is None:
            return None
        if self.flag is not None:
            return bool(value) == bool(bound) if isinstance(bound, bool) else None
        if isinstance(value, str):
            return None  # nominal values have no order
        try:
            number = float(bound)
        except (TypeError, ValueError):
            return None
        if self.op == "<=":
            return float(value) <= number
        if self.op == ">=":
            return float(value) >= number
        return float(value) == number

    def describe(self, verdict: Verdict, metrics: Mapping[str, Any] | None) -> str:
        """'tone = 4, expected <= expected_caps.toneAtMost = 3'."""
        _, _, shown = self.resolve(metrics)
        return f"{self.target} = {_shown(self.given(verdict))}, required {self.op} {shown}"


class Rule(BaseModel):
    """One rule: conditions on the reading, requirements on the verdict."""

    model_config = ConfigDict(extra="forbid")
    id: str
    says: str
    when: list[Condition] = Field(default_factory=list)
    require: list[Requirement]

    @field_validator("require")
    @classmethod
    def _some(cls, value: list[Requirement]) -> list[Requirement]:
        if not value:
            raise ValueError("a rule needs at least one requirement")
        return value


class Gate(BaseModel):
    """The judge's gate: when a verdict blocks a reading, and where the
    reading says whether it should be blocked."""

    model_config = ConfigDict(extra="forbid")
    says: str = ""
    expected: str | None = None
    block_when_any: list[Requirement] = Field(default_factory=list)


class NotCheckable(BaseModel):
    """Expectations a verdict cannot show (module docstring)."""

    model_config = ConfigDict(extra="forbid")
    under: str = "expected_caps"
    keys: list[str] = Field(default_factory=list)
    says: str = ""


class RubricRules(BaseModel):
    """A whole rules file."""

    model_config = ConfigDict(extra="forbid")
    name: str = "rules"
    rules: list[Rule] = Field(default_factory=list)
    gate: Gate = Field(default_factory=Gate)
    not_checkable: NotCheckable = Field(default_factory=NotCheckable)

    @model_validator(mode="after")
    def _unique(self) -> RubricRules:
        ids = [r.id for r in self.rules]
        twice = sorted({i for i in ids if ids.count(i) > 1})
        if twice:
            raise ValueError(f"rule ids must be unique: {', '.join(twice)}")
        return self


def rubric_rules(data: Any, where: str = "rules") -> RubricRules:
    """The parsed rules file ``data`` (a dict from TOML or YAML) as
    RubricRules. Raises RulesError with one line naming ``where`` and the
    first problem (path of the bad entry and why)."""
    try:
        return RubricRules.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        place = ".".join(str(p) for p in err.get("loc", ()))
        raise RulesError(f"{where}: {place + ': ' if place else ''}{err.get('msg', 'invalid')}") from None


# ---------------------------------------------------------------------------
# checking verdicts


@dataclass(frozen=True)
class Broken:
    """A rule a verdict breaks on one dimension (or flag): ``evidence`` is
    the conditions that made it apply and the values that break it."""

    rule: Rule
    dimension: str
    evidence: str

    def text(self) -> str:
        """'[id] says (evidence)'."""
        return f"[{self.rule.id}] {self.rule.says} ({self.evidence})"


def _applies(rule: Rule, verdict: Verdict, metrics: Mapping[str, Any] | None) -> list[str] | None:
    found = []
    for c in rule.when:
        e = c.evidence(metrics, verdict)
        if e is None:
            return None
        found.append(e)
    return found


def broken_rules(rules: RubricRules, verdict: Verdict, metrics: Mapping[str, Any] | None) -> list[Broken]:
    """Every (rule, dimension) the verdict breaks on this subject, in file
    order. A rule breaks on each target whose requirement applies, is
    decided and does not hold."""
    out = []
    for rule in rules.rules:
        why = _applies(rule, verdict, metrics)
        if why is None:
            continue
        for req in rule.require:
            if req.holds(verdict, metrics) is False:
                out.append(Broken(rule, req.target, "; ".join([*why, req.describe(verdict, metrics)])))
    return out


def covered_dimensions(rules: RubricRules, verdict: Verdict, metrics: Mapping[str, Any] | None) -> set[str]:
    """The dimensions and flags some rule checks on this subject (its
    conditions hold and its requirement's bound exists): the top-score rule
    is left to the others."""
    out = set()
    for rule in rules.rules:
        if _applies(rule, verdict, metrics) is None:
            continue
        out |= {r.target for r in rule.require if r.resolve(metrics)[0]}
    return out


def gate_blocks(gate: Gate, verdict: Verdict) -> bool | None:
    """True when a gate requirement holds for the verdict, False when none
    holds and one is decided, None when the verdict decides none (no flag,
    undecided scores). Requirements with metric paths are read against no
    metrics (the gate is the judge's own)."""
    results = [r.holds(verdict, None) for r in gate.block_when_any]
    if any(r is True for r in results):
        return True
    return False if any(r is False for r in results) else None


def gate_expected(gate: Gate, metrics: Mapping[str, Any] | None) -> bool | None:
    """Whether the subject should be blocked (its ``gate.expected`` value as
    a boolean), None when it does not say."""
    if not gate.expected:
        return None
    value = lookup(metrics, gate.expected)
    return value if isinstance(value, bool) else None


@dataclass
class GateTally:
    """One rater's gate against the expectations. Lists hold subjects."""

    rater: str
    should_block: list[str]
    blocked: list[str]  # of should_block
    should_pass: list[str]
    wrongly_blocked: list[str]  # of should_pass
    undecided: list[str]

    @property
    def missed(self) -> list[str]:
        """Readings that should be blocked and were not (or undecided)."""
        return [s for s in self.should_block if s not in self.blocked]

    def line(self) -> str:
        """'gate blocked N of M readings that should be blocked, and K of J
        that should not'."""
        return (
            f"gate blocked {len(self.blocked)} of {len(self.should_block)} readings that should be blocked, "
            f"and {len(self.wrongly_blocked)} of {len(self.should_pass)} that should not"
        )


def gate_tallies(
    gate: Gate, primary: Mapping[tuple[str, str], Verdict], metrics: Mapping[str, Mapping[str, Any]]
) -> list[GateTally]:
    """Per rater (the keys' second part, a display name), the gate of its
    verdicts on the subjects that say whether they should be blocked.

    Args:
        gate: the rules' gate.
        primary: {(subject, rater name): the rater's verdict} (one per
            subject; e.g. the primary verdicts of non-human judges).
        metrics: {subject: metrics}.

    Returns:
        Tallies sorted by rater; raters without a subject with an
        expectation are left out; each list in subject order of ``primary``.
    """
    out: dict[str, GateTally] = {}
    for (subject, rater), v in primary.items():
        expected = gate_expected(gate, metrics.get(subject))
        if expected is None:
            continue
        t = out.setdefault(rater, GateTally(rater, [], [], [], [], []))
        blocks = gate_blocks(gate, v)
        (t.should_block if expected else t.should_pass).append(subject)
        if blocks is None:
            t.undecided.append(subject)
        elif blocks and expected:
            t.blocked.append(subject)
        elif blocks:
            t.wrongly_blocked.append(subject)
    return [out[k] for k in sorted(out)]


def _used_paths(rules: RubricRules) -> set[str]:
    paths = {c.metric for r in rules.rules for c in r.when if c.metric}
    paths |= {str(q.bound) for r in rules.rules for q in r.require if isinstance(q.bound, str)}
    paths |= {str(q.bound) for q in rules.gate.block_when_any if isinstance(q.bound, str)}
    if rules.gate.expected:
        paths.add(rules.gate.expected)
    return paths


def unchecked_expectations(rules: RubricRules, metrics: Mapping[str, Any] | None) -> list[tuple[str, Any, bool]]:
    """The expectations under ``not_checkable.under`` that no rule reads:
    [(key, value, listed)] where ``listed`` is True for the keys the file
    names as not checkable from verdicts and False for keys no rule knows."""
    under = rules.not_checkable.under
    block = lookup(metrics, under) if under else _MISSING
    if not has(block) or not isinstance(block, Mapping):
        return []
    used = _used_paths(rules)
    patterns = [re.compile(k) for k in rules.not_checkable.keys]
    out = []
    for key, value in block.items():
        if f"{under}.{key}" in used:
            continue
        out.append((str(key), value, any(p.search(str(key)) for p in patterns)))
    return out


def rule_targets(rules: RubricRules) -> list[str]:
    """Every dimension and flag a rule of the file checks, in file order."""
    return list(dict.fromkeys(q.target for r in rules.rules for q in r.require))


def describe_value(value: Any) -> str:
    """A metrics value as shown in the report (lists joined, true/false)."""
    return _shown(value)
