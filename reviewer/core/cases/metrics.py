"""Rule metrics as data (docs/test-cases.md; test-case-evaluation-framework.md,
"Metrics").

A *metric set* is what a metrics file (TOML or YAML; the built-in CICADA
preset is resources/cicada-metrics.toml) holds once read:

- ``patterns``: named regular expressions the checks refer to (the seed's
  citation ``[Episode: <id>, Chapter: <n>, Speaker: <name>]``);
- ``metrics``: each a name, its *scoring* (``start``, ``on_error``: the
  score when any error fires, ``per_warning``: the deduction per warning,
  ``floor``) and its *checks*;
- ``scoring``: how a case's score is made of metric scores per category,
  and the pass mark.

A *check* has an id, a message, a severity (error or warning), an optional
condition ``when`` on the case (expected behaviour, context, metadata) that
turns it on, and a *test* on the answer. A check *fires* when it is on and
its test fails; a fired check is a finding (ERROR or WARNING).

Tests (``kind``): ``present`` (the regex must match), ``absent`` (must not
match), ``count`` (matches >= n, n given or read from the case),
``captured_within`` (every captured value in a set from the case),
``captured_cover`` (every value of a set among the captured values),
``mentions`` (share of a list from the case mentioned >= min_share, or at
least min_count mentioned), ``length`` (answer length >= n, surrounding
white space not counted), ``query_overlap`` (share of the query's words of
at least ``min_word_length`` letters found in the answer >= min_share).

Answers are untrusted text and a regex can backtrack for minutes on one
(the lookaheads of the shipped presets, which RE2 lacks, or ``(a+)+$`` in a
user's file), so every regex on an answer runs through the ``regex``
package with a time limit: the set's ``regex_timeout``, CPU seconds per
check and answer (``REGEX_TIMEOUT_S`` by default). A check that runs out of
it is *not run* on that answer (``ran`` false, a one-line ``note``): it does
not fire, and scoring goes on.
"""

from __future__ import annotations

import re
import time
from typing import Any, Literal

import regex as timed_re
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from reviewer.core.bounds import is_number
from reviewer.core.cases.model import TestCase

#: CPU seconds the regexes of one check may take on one answer (a metric set's default regex_timeout)
REGEX_TIMEOUT_S = 1.0


class MetricsError(ValueError):
    """A metrics file that cannot be used; the message is one line naming
    the metric and the check."""


class Condition(BaseModel):
    """``when`` of a check, parsed: ``PATH`` (truthy), ``not PATH``,
    ``PATH == VALUE`` or ``PATH != VALUE``."""

    path: str
    op: Literal["truthy", "falsy", "eq", "ne"] = "truthy"
    value: str | None = None

    @classmethod
    def parse(cls, text: str) -> Condition:
        """The condition on the expected behaviour or context that turns a check on."""
        text = text.strip()
        for sign, op in (("==", "eq"), ("!=", "ne")):
            if sign in text:
                path, _, value = text.partition(sign)
                return cls(path=path.strip(), op=op, value=value.strip().strip("'\""))
        if text.startswith("not "):
            return cls(path=text[4:].strip(), op="falsy")
        return cls(path=text)

    def holds(self, case: TestCase) -> bool:
        """Whether the check is on for ``case`` (values compared as text, case-insensitive)."""
        value = case.lookup(self.path)
        if self.op == "truthy":
            return bool(value)
        if self.op == "falsy":
            return not value
        same = str(value).casefold() == str(self.value).casefold() if value is not None else False
        return same if self.op == "eq" else not same


class Test(BaseModel):
    """The test of a check on the answer (see module doc for the kinds)."""

    __test__ = False
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)  # nan or inf: refused, one line

    kind: Literal[
        "present", "absent", "count", "captured_within", "captured_cover", "mentions", "length", "query_overlap"
    ]
    #: a regex, or '@name' for a named pattern of the set
    regex: str | None = None
    #: the capture group whose values are compared (captured_*)
    group: str | int | None = None
    #: a number (count, length, mentions min_count)
    n: int | None = None
    #: where a number or a list comes from in the case ('expected.citationCount')
    source: str | None = None
    min_share: float | None = None
    min_count: int | None = None
    min_word_length: int = 4
    ignore_case: bool = True


class Check(BaseModel):
    """One check of a metric: id, message (placeholders {n}, {count},
    {missing}, {outside}, {share}), severity, condition, test."""

    model_config = ConfigDict(extra="forbid")

    id: str
    message: str
    severity: Literal["error", "warning"]
    when: str | list[str] | None = None
    test: Test
    #: what the check is about, for people (shown in the window)
    about: str = ""

    def conditions(self) -> list[Condition]:
        """The parsed ``when`` (all must hold; none: always on)."""
        if self.when is None:
            return []
        whens = [self.when] if isinstance(self.when, str) else self.when
        return [Condition.parse(w) for w in whens]


class Metric(BaseModel):
    """A rule metric: its checks and its scoring (seed: 1.0 when all checks
    pass, ``on_error`` when an error fires, minus ``per_warning`` per
    warning, never below ``floor``)."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    name: str
    description: str = ""
    start: float = 1.0
    on_error: float = 0.0
    per_warning: float = 0.2
    floor: float = 0.0
    checks: list[Check] = Field(default_factory=list)

    def score(self, errors: int, warnings: int) -> float:
        """seed: a metric's score from its fired errors and warnings:
        (on_error if any error else start) - per_warning x warnings, at least floor."""
        base = self.on_error if errors else self.start
        return round(max(self.floor, base - self.per_warning * warnings), 10)


class CaseScoring(BaseModel):
    """How a case's score is made (seed evaluator, default CICADA): per
    category, weights of metric scores; a case passes at score >= pass_mark."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, allow_inf_nan=False)

    pass_mark: float = Field(0.7, alias="pass")
    categories: dict[str, dict[str, float]] = Field(default_factory=dict)


class MetricSet(BaseModel):
    """A metrics file, read (see module doc)."""

    model_config = ConfigDict(extra="forbid")

    name: str = "metrics"
    patterns: dict[str, str] = Field(default_factory=dict)
    #: the named pattern of a citation and its episode group, for the
    #: report's citationsFound / episodesReferenced
    citation: str | None = None
    episode_group: str = "episode"
    metrics: list[Metric]
    scoring: CaseScoring = Field(default_factory=CaseScoring)
    #: CPU seconds a check's regexes may take on one answer; past it the check is not run (module doc)
    regex_timeout: float = Field(REGEX_TIMEOUT_S, gt=0, le=60)

    @field_validator("metrics")
    @classmethod
    def _unique(cls, metrics: list[Metric]) -> list[Metric]:
        names = [m.name for m in metrics]
        if len(set(names)) != len(names):
            raise ValueError(f"metric names repeat: {', '.join(sorted({n for n in names if names.count(n) > 1}))}")
        return metrics

    @model_validator(mode="after")
    def _compile(self) -> MetricSet:
        for metric in self.metrics:
            ids = [c.id for c in metric.checks]
            if len(set(ids)) != len(ids):
                raise ValueError(f"metric {metric.name}: check ids repeat")
            for check in metric.checks:
                self._regex_of(metric, check)
        for category, weights in self.scoring.categories.items():
            unknown = set(weights) - {m.name for m in self.metrics}
            if unknown:
                raise ValueError(f"scoring.categories.{category}: unknown metric {', '.join(sorted(unknown))}")
        for name, text in self.patterns.items():
            try:
                timed_re.compile(text)
            except timed_re.error as exc:
                raise ValueError(f"pattern '{name}': broken regex: {exc}") from None
        return self

    def _regex_of(self, metric: Metric, check: Check) -> timed_re.Pattern | None:
        test = check.test
        needs = test.kind in ("present", "absent", "count", "captured_within", "captured_cover")
        if test.regex is None:
            if needs:
                raise ValueError(f"metric {metric.name}, check {check.id}: test {test.kind} needs a regex")
            return None
        text = test.regex
        if text.startswith("@"):
            if text[1:] not in self.patterns:
                raise ValueError(f"metric {metric.name}, check {check.id}: no pattern named '{text[1:]}'")
            text = self.patterns[text[1:]]
        try:
            return timed_re.compile(text, timed_re.IGNORECASE if test.ignore_case else 0)
        except timed_re.error as exc:
            raise ValueError(f"metric {metric.name}, check {check.id}: broken regex {test.regex!r}: {exc}") from None

    def regex(self, metric: Metric, check: Check) -> timed_re.Pattern | None:
        """The compiled regex of a check (named patterns resolved; the
        ``regex`` package's, so that it runs with a time limit)."""
        return self._regex_of(metric, check)

    def metric(self, name: str) -> Metric:
        """The metric called ``name``; KeyError when there is none."""
        for m in self.metrics:
            if m.name == name:
                return m
        raise KeyError(name)

    @property
    def categories(self) -> list[str]:
        """The categories a case may have (those the case scoring knows)."""
        return list(self.scoring.categories)

    def primary_metric(self, category: str) -> str:
        """The metric of ``category`` with the largest weight (the first on a
        tie; the first metric for an unknown category): where a check a
        person adds counts (docs/test-cases.md: adds checks)."""
        weights = self.scoring.categories.get(category) or {}
        if not weights:
            return self.metrics[0].name
        return max(weights, key=lambda m: weights[m])


def metric_set(data: dict, where: str = "metrics") -> MetricSet:
    """A MetricSet from a metrics file's data; MetricsError with one line
    naming ``where`` and the metric and check at fault (docs/test-cases.md: a
    metrics file with a broken regex)."""
    try:
        return MetricSet.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err["loc"])
        msg = err["msg"].removeprefix("Value error, ")
        if loc:
            loc = _readable_loc(data, err["loc"])
        raise MetricsError(f"{where}: {loc + ': ' if loc else ''}{msg}") from None


def _readable_loc(data: Any, loc: tuple) -> str:
    """'metrics.0.checks.2.severity' as 'metric citationAccuracy, check x, severity'."""
    parts, node = [], data
    for key in loc:
        try:
            node = node[key]
        except (KeyError, IndexError, TypeError):
            parts.append(str(key))
            node = None
            continue
        if isinstance(key, int) and isinstance(node, dict) and ("name" in node or "id" in node):
            parts[-1:] = [f"{'metric' if 'name' in node else 'check'} {node.get('name', node.get('id'))}"]
        else:
            parts.append(str(key))
    return ", ".join(parts)


# -- evaluation ------------------------------------------------------------------------------
class CheckOutcome(BaseModel):
    """What one check found in one answer: whether it was on and fired, its
    message (placeholders filled), and the spans of the answer it matched
    (start, end offsets; what the window highlights)."""

    metric: str
    check: str
    severity: Literal["error", "warning"]
    on: bool
    fired: bool
    message: str
    spans: list[tuple[int, int]] = Field(default_factory=list)
    #: False when the check was on but not run: its regexes ran out of the time limit (``note`` says so)
    ran: bool = True
    note: str = ""


def _fill(message: str, values: dict[str, Any]) -> str:
    """Fill {name} placeholders (plain names only: no attribute access)."""
    return re.sub(r"\{(\w+)\}", lambda m: str(values.get(m.group(1), m.group(0))), message)


def _norm(value: Any) -> str:
    return " ".join(str(value).split()).casefold()


def _as_list(value: Any) -> list:
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


class _Clock:
    """The CPU time left to one check on one answer (the ``regex`` package
    counts its ``timeout=`` in CPU seconds too)."""

    def __init__(self, limit: float):
        self.end = time.process_time() + limit

    def left(self) -> float:
        """Seconds left; TimeoutError when none are."""
        left = self.end - time.process_time()
        if left <= 0:
            raise TimeoutError("regex time limit")
        return left


def _captured(rx: timed_re.Pattern, answer: str, group, clock: _Clock) -> list[tuple[str, tuple[int, int]]]:
    out = []
    for m in rx.finditer(answer, timeout=clock.left()):
        g = group if group is not None else (1 if rx.groups else 0)
        value = m.group(g)
        if value is not None:
            out.append((value.strip(), m.span()))
    return out


def _mention_spans(name: str, answer: str, clock: _Clock) -> list[tuple[int, int]]:
    rx = timed_re.compile(r"(?<!\w)" + timed_re.escape(str(name)) + r"(?!\w)", timed_re.IGNORECASE)
    return [m.span() for m in rx.finditer(answer, timeout=clock.left())]


_WORD = timed_re.compile(r"\w+", timed_re.UNICODE)


def run_test(
    metric_set_: MetricSet, metric: Metric, check: Check, case: TestCase, answer: str, timeout: float | None = None
) -> tuple[bool, dict[str, Any], list[tuple[int, int]]]:
    """Run one check's test on ``answer``; returns (passed,
    values for the message, matched spans). Its regexes together may take
    ``timeout`` CPU seconds (the set's ``regex_timeout`` by default);
    TimeoutError past that."""
    clock = _Clock(metric_set_.regex_timeout if timeout is None else timeout)
    test = check.test
    rx = metric_set_.regex(metric, check)
    if test.kind in ("present", "absent", "count"):
        assert rx is not None  # _regex_of raises for these kinds without a regex
        spans = [m.span() for m in rx.finditer(answer, timeout=clock.left())]
        if test.kind == "present":
            return bool(spans), {"count": len(spans)}, spans
        if test.kind == "absent":
            return not spans, {"count": len(spans)}, spans
        n = test.n if test.n is not None else case.lookup(test.source or "")
        n = int(n) if is_number(n) else 0
        return len(spans) >= n, {"n": n, "count": len(spans)}, spans
    if test.kind in ("captured_within", "captured_cover"):
        found = _captured(rx, answer, test.group, clock)
        allowed = {_norm(v) for v in _as_list(case.lookup(test.source or ""))}
        if test.kind == "captured_within":
            outside = [(v, s) for v, s in found if _norm(v) not in allowed]
            names = list(dict.fromkeys(v for v, _ in outside))
            return not outside, {"outside": ", ".join(names), "count": len(found)}, [s for _, s in outside]
        have = {_norm(v) for v, _ in found}
        wanted = [str(v) for v in _as_list(case.lookup(test.source or ""))]
        missing = [v for v in wanted if _norm(v) not in have]
        return not missing, {"missing": ", ".join(missing), "count": len(found)}, [s for _, s in found]
    if test.kind == "mentions":
        names = [str(v) for v in _as_list(case.lookup(test.source or ""))]
        spans, mentioned = [], []
        for name in names:
            hits = _mention_spans(name, answer, clock)
            spans += hits
            if hits:
                mentioned.append(name)
        missing = [n for n in names if n not in mentioned]
        share = len(mentioned) / len(names) if names else 1.0
        ok = True
        if test.min_share is not None:
            ok = share >= test.min_share - 1e-9
        if test.min_count is not None:
            ok = ok and len(mentioned) >= min(test.min_count, len(names))
        return ok, {"missing": ", ".join(missing), "count": len(mentioned), "share": f"{share:.0%}"}, sorted(spans)
    if test.kind == "length":
        length = len(answer.strip())
        n = test.n or 0
        return length >= n, {"n": n, "count": length}, []
    # query_overlap
    query_words = {w.casefold() for w in _WORD.findall(case.query) if len(w) >= test.min_word_length}
    spans = [m.span() for m in _WORD.finditer(answer, timeout=clock.left()) if m.group().casefold() in query_words]
    words = {answer[a:b].casefold() for a, b in spans}
    share = len(words) / len(query_words) if query_words else 1.0
    return share >= (test.min_share or 0) - 1e-9, {"share": f"{share:.0%}", "count": len(words)}, spans


def not_run_note(metric_set_: MetricSet) -> str:
    """The one-line note of a check that ran out of its time limit."""
    return (
        f"not run: its regex took over {metric_set_.regex_timeout:g} s of CPU on this answer "
        f"(the metric set's regex_timeout)"
    )


def evaluate(metric_set_: MetricSet, case: TestCase, answer: str) -> list[CheckOutcome]:
    """Every check of every metric (all four run on every case)
    on one answer, in the set's order: on (its condition holds), fired (on
    and its test failed), the message filled in, the matched spans; a check
    whose regexes run out of the set's time limit is not run (``ran`` false,
    its ``note``) and does not fire."""
    out = []
    for metric in metric_set_.metrics:
        for check in metric.checks:
            on = all(c.holds(case) for c in check.conditions())
            try:
                passed, values, spans = run_test(metric_set_, metric, check, case, answer) if on else (True, {}, [])
            except TimeoutError:  # not run: no finding, the other checks go on (module doc)
                out.append(
                    CheckOutcome(
                        metric=metric.name,
                        check=check.id,
                        severity=check.severity,
                        on=on,
                        fired=False,
                        message=_fill(check.message, {}),
                        ran=False,
                        note=not_run_note(metric_set_),
                    )
                )
                continue
            out.append(
                CheckOutcome(
                    metric=metric.name,
                    check=check.id,
                    severity=check.severity,
                    on=on,
                    fired=on and not passed,
                    message=_fill(check.message, values),
                    spans=spans,
                )
            )
    return out
