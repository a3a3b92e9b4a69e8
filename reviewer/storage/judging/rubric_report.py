"""The rubric-rules part of ``reviewer report`` (reviewer.core.judging.rubric_rules):
the judge gate measured against the readings' expectations, the
judge-vs-metrics disputes with the rules each verdict broke, the
expectations no verdict can show, and every field of the rubric verdicts
(scores, flags such as safety_flag, issues_found, notes) of the rubric the
rules are about.

Readings are named by their item (and the run's model when an item has
several judged runs). Every untrusted text goes through md_text.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from reviewer.core.judging.dispute_common import is_human, primary_verdicts, rater_key, rater_labels
from reviewer.core.judging.rubric_rules import (
    GateTally,
    RubricRules,
    describe_value,
    gate_tallies,
    rule_targets,
    unchecked_expectations,
)
from reviewer.core.judging.verdicts import Dispute, DisputeKind, Verdict
from reviewer.core.tables import csv_row, markdown_cell, markdown_rows, md_text
from reviewer.core.text import natural_key

__all__ = [
    "RubricSection",
    "build_rubric_section",
    "rubric_csv",
    "rubric_markdown",
    "rubric_objects",
    "rubric_tables",
    "rubric_verdicts_markdown",
]

#: Longest notes or issue list shown in the rubric verdicts table (characters).
TEXT_LIMIT = 1000


@dataclass
class RubricSection:
    """What the rubric-rules sections show (module docstring)."""

    rules: RubricRules
    source: str
    names: dict[str, str]  # subject -> reading name
    gate: list[GateTally] = field(default_factory=list)
    disputes: list[Dispute] = field(default_factory=list)  # judge-vs-metrics
    unchecked: list[tuple[str, str, Any, bool]] = field(default_factory=list)  # subject, key, value, listed
    verdicts: list[Verdict] = field(default_factory=list)  # verdicts of the rules' rubric
    labels: dict = field(default_factory=dict)  # rater key -> display name

    def name(self, subject: str) -> str:
        """The reading a subject is about (its item), else the subject."""
        return self.names.get(subject, subject)

    @property
    def shown(self) -> bool:
        """True when the rules found anything to say (a gate, a dispute, an
        expectation no rule reads)."""
        return bool(self.gate or self.disputes or self.unchecked)


def _names(subjects: Sequence[str], runs: Mapping[int, Mapping[str, Any]]) -> dict[str, str]:
    out: dict[str, str] = {}
    items: dict[str, int] = {}
    for s in subjects:
        run = runs.get(int(s[4:])) if s.startswith("run:") and s[4:].isdigit() else None
        if run:
            out[s] = str(run["item"])
            items[out[s]] = items.get(out[s], 0) + 1
    for s, name in list(out.items()):
        if items[name] > 1:
            out[s] = f"{name} ({runs[int(s[4:])]['model']})"
    return out


def build_rubric_section(
    rules: RubricRules,
    source: str,
    verdicts: Sequence[Verdict],
    metrics: Mapping[str, Mapping[str, Any]],
    disputes: Sequence[Dispute],
    runs: Mapping[int, Mapping[str, Any]],
) -> RubricSection:
    """The rubric-rules section of a project's verdicts.

    Args:
        rules: the project's rules; source: where they come from (shown).
        verdicts: every verdict; metrics: {subject: metrics}; disputes: the
            refreshed disputes; runs: {run id: run row with item, model}.
    """
    judges = [v for v in verdicts if not is_human(v) and v.other_run_id is None]
    labels = rater_labels(verdicts)
    primary = {(s, labels[r]): v for (s, r), v in primary_verdicts(judges).items()}
    gate = gate_tallies(rules.gate, primary, metrics)
    unchecked = [
        (s, key, value, listed)
        for s in sorted(metrics, key=natural_key)
        for key, value, listed in unchecked_expectations(rules, metrics[s])
    ]
    own = [d for d in disputes if d.kind == DisputeKind.METRICS]
    targets = set(rule_targets(rules))
    said = [v for v in verdicts if v.flags or targets & set(v.scores)]
    subjects = list(
        dict.fromkeys(
            [s for (s, _) in primary]
            + [s for s, *_ in unchecked]
            + [d.subject for d in own]
            + [v.subject for v in said]
        )
    )
    return RubricSection(
        rules=rules,
        source=source,
        names=_names(subjects, runs),
        gate=gate,
        disputes=own,
        unchecked=unchecked,
        verdicts=said,
        labels=labels,
    )


def _listing(section: RubricSection, subjects: Sequence[str]) -> str:
    return ", ".join(md_text(section.name(s), line_start=False) for s in subjects) or "none"


def rubric_markdown(section: RubricSection) -> str:
    """The '## Rubric rules' section: the rules used, the judge gate per
    judge, the judge-vs-metrics disputes in full, the expectations not
    checkable from verdicts. '' when there is nothing to show."""
    if not section.shown:
        return ""
    r = section.rules
    out = [
        "## Rubric rules",
        "",
        f"Rules {md_text(r.name)} from {md_text(section.source)} (reviewer report P --rules FILE uses another "
        f"file): {len(r.rules)} rules over the verdicts and the readings' metrics. A verdict breaking one is a "
        "judge-vs-metrics dispute per reading and dimension; dimensions no rule checks keep the top-score rule.",
    ]
    if section.gate:
        out += [
            "",
            "### Judge gate",
            "",
            md_text(r.gate.says or "the gate")
            + (f"; should a reading be blocked: {md_text(r.gate.expected)}." if r.gate.expected else "."),
            "",
        ]
        for t in section.gate:
            out.append(f"- {md_text(t.rater)}: {t.line()}")
            out.append(f"  - should be blocked, blocked: {_listing(section, t.blocked)}")
            out.append(f"  - should be blocked, not blocked: {_listing(section, t.missed)}")
            out.append(f"  - should not be blocked, blocked: {_listing(section, t.wrongly_blocked)}")
            passed = [s for s in t.should_pass if s not in t.wrongly_blocked]
            out.append(f"  - should not be blocked, not blocked: {_listing(section, passed)}")
            if t.undecided:
                out.append(f"  - undecided (no safety flag or scores): {_listing(section, t.undecided)}")
    if section.disputes:
        out += ["", "### Judge-vs-metrics disputes", ""]
        for d in sorted(section.disputes, key=lambda d: (natural_key(section.name(d.subject)), d.dimension)):
            out.append(
                f"- {md_text(section.name(d.subject))} / {md_text(d.dimension, line_start=False)} "
                f"(dispute {d.id}): {md_text(d.detail, line_start=False)}"
            )
    listed = [u for u in section.unchecked if u[3]]
    unknown = [u for u in section.unchecked if not u[3]]
    if listed:
        out += [
            "",
            "### Not checkable from verdicts",
            "",
            md_text(r.not_checkable.says or "expectations no verdict can show") + ":",
            "",
        ]
        out += [
            f"- {md_text(section.name(s))}: {md_text(key, line_start=False)} = "
            f"{md_text(describe_value(value), line_start=False)}"
            for s, key, value, _ in listed
        ]
    if unknown:
        out += [
            "",
            "Expectations no rule reads (not checked): "
            + "; ".join(
                f"{md_text(section.name(s), line_start=False)}: {md_text(key, line_start=False)}"
                for s, key, _, _ in unknown
            ),
        ]
    return "\n".join(out) + "\n"


def _cell(text: Any, limit: int = 120) -> str:
    return markdown_cell(text, limit)


def rubric_verdicts_markdown(section: RubricSection) -> str:
    """'## Rubric verdicts': every verdict of the rules' rubric (it has a
    flag, or scores a dimension a rule checks), one row each: reading,
    rater, every score, every flag, issues_found and notes (long texts cut
    at TEXT_LIMIT characters). '' when none."""
    vs = section.verdicts
    if not vs:
        return ""
    dims = list(dict.fromkeys(d for v in vs for d in v.scores))
    flags = list(dict.fromkeys(f for v in vs for f in v.flags))
    header = ["reading", "rater", *dims, *flags, "issues_found", "notes"]
    out = [
        "## Rubric verdicts",
        "",
        "Everything the rubric judges (and hand labels) said: scores, flags, issues_found and notes.",
        "",
    ]
    rows = sorted(vs, key=lambda v: (natural_key(section.name(v.subject)), natural_key(v.judge), v.repetition))
    table = []
    for v in rows:
        scores = [
            "-" if v.scores.get(d) is None else describe_value(v.scores[d]) if d in v.scores else "" for d in dims
        ]
        flag_cells = [describe_value(v.flags[f]) if f in v.flags else "" for f in flags]
        cells = [_cell(section.name(v.subject)), _cell(section.labels.get(rater_key(v), v.judge))]
        cells += [_cell(c) for c in scores + flag_cells]
        cells += [_cell("; ".join(v.issues_found) or "none", TEXT_LIMIT), _cell(v.rationale, TEXT_LIMIT)]
        table.append(cells)
    return "\n".join(out + markdown_rows([_cell(h) for h in header], table)) + "\n"


#: The columns of the judge gate table in the CSV report and the JSON's ``rubric.gate`` objects.
GATE_COLUMNS = (
    "rater",
    "should_block",
    "blocked",
    "missed",
    "should_pass",
    "wrongly_blocked",
    "undecided",
)
#: The columns of the judge-vs-metrics dispute table (CSV) and the JSON's ``rubric.disputes`` objects.
DISPUTE_COLUMNS = ("reading", "dimension", "dispute", "detail")


def _gate_rows(section: RubricSection) -> list[list[Any]]:
    """One row per judge: its name and how many readings fall in each part
    of the gate tally (rubric_rules.GateTally; counts of readings)."""
    return [
        [
            t.rater,
            len(t.should_block),
            len(t.blocked),
            len(t.missed),
            len(t.should_pass),
            len(t.wrongly_blocked),
            len(t.undecided),
        ]
        for t in section.gate
    ]


def _dispute_rows(section: RubricSection) -> list[list[Any]]:
    """One row per judge-vs-metrics dispute, in the Markdown's order."""
    ordered = sorted(section.disputes, key=lambda d: (natural_key(section.name(d.subject)), d.dimension))
    return [[section.name(d.subject), d.dimension, d.id, d.detail] for d in ordered]


def rubric_objects(section: RubricSection) -> Any:
    """The rubric rules section as JSON: {"rules": name, "source": file,
    "rule_count": n, "gate": [{GATE_COLUMNS: counts of readings}...],
    "disputes": [{DISPUTE_COLUMNS}...]}; None when rubric_markdown shows
    nothing. The same figures as the Markdown section."""
    if not section.shown:
        return None
    return {
        "rules": section.rules.name,
        "source": section.source,
        "rule_count": len(section.rules.rules),
        "gate": [dict(zip(GATE_COLUMNS, row)) for row in _gate_rows(section)],
        "disputes": [dict(zip(DISPUTE_COLUMNS, row)) for row in _dispute_rows(section)],
    }


def rubric_csv(section: RubricSection) -> str:
    """The rubric rules section as CSV: the table ``rubric_gate`` (a first
    column ``table``, then GATE_COLUMNS) and, after a blank line, the table
    ``rubric_disputes`` (``table``, then DISPUTE_COLUMNS); a table without
    rows is left out, '' when rubric_markdown shows nothing. Text cells are
    made visible and formula-safe (core.tables.csv_row)."""
    if not section.shown:
        return ""
    parts = []
    for name, columns, rows in (
        ("rubric_gate", GATE_COLUMNS, _gate_rows(section)),
        ("rubric_disputes", DISPUTE_COLUMNS, _dispute_rows(section)),
    ):
        if not rows:
            continue
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(["table", *columns])
        for row in rows:
            writer.writerow(csv_row([name, *row]))
        parts.append(buf.getvalue())
    return "\n".join(parts)


def rubric_tables(section: RubricSection | None) -> list[tuple[str, dict, None, list[tuple]]]:
    """The analysts' export tables rubric_gate (GATE_COLUMNS: a judge and
    counts of readings) and rubric_disputes (DISPUTE_COLUMNS), the rows of
    the CSV report's tables of the same names; empty tables without a
    section or when rubric_markdown shows nothing."""
    shown = section is not None and section.shown
    gate = [tuple(r) for r in _gate_rows(section)] if section is not None and shown else []
    disputes = [tuple(r) for r in _dispute_rows(section)] if section is not None and shown else []
    return [
        ("rubric_gate", {c: (str if c == "rater" else int) for c in GATE_COLUMNS}, None, gate),
        ("rubric_disputes", {"reading": str, "dimension": str, "dispute": int, "detail": str}, None, disputes),
    ]
