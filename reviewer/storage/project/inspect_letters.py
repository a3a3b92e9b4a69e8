"""inspect_ai's letters put on the C/I/P scale in a project imported before
the scale existed (migration 0030; decision record
"inspect-letters-migrated").

Before C/I/P, the inspect importer put a scorer's letters on pass/fail
when the log gave it only C and I (and N), and on 0-100 (C 100, P 50, I 0)
when it also gave P; today's import puts both on C/I/P. Which scale the
import chose is decided per log file, scorer and dimension over every
sample of the log, and every stored inspect verdict keeps what it was
decided from: its source (``<log file> inspect <eval id> epoch <n>``, the
run's source after the file name) and its raw score value (``raw``:
``{"value": ..., "answer": ...}``). inspect's reader gives every sample an
id and an output, so every sample of a log is a stored run and its
scorers' values are in the stored verdicts. So the scale today's import
records is read back exactly: C/I/P when every value of the log's scorer
on the dimension is one of the letters C, P, I, N.

What changes, and what does not:

* A verdict on pass/fail or 0-100 from an inspect log whose every
  dimension is letters only by that rule is put on C/I/P, its values the
  letters' points (C 100, P 50, I 0; N undecided), as the import writes
  them. A verdict whose dimensions would part between C/I/P and 0-100 is
  left as it is (today's import would keep only the first scale's
  dimensions of it; a migration never drops a value).
* People's values of the migrated verdicts' subject and dimension, the
  adjudications and the human labels (first and final), go with them:
  'pass' becomes 100 (C) and 'fail' 0 (I), the letters pass/fail stood
  for; 0, 50 and 100 are already the letters' points. A log's scorer and
  dimension whose subjects hold a people's value its old scale reads and
  C/I/P would not (a 70 given on 0-100) are left on their old scale, so
  no label stops counting.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from reviewer.core.judging.verdicts import CIP_POINTS, Scale, normalise

__all__ = ["inspect_letters_to_cip"]

#: A verdict's source written by the inspect importer: the log file's name, then the run's source.
_SOURCE = re.compile(r"^(.+) (inspect \S+ epoch \d+)$")
#: The values a scorer's dimension may hold for today's import to put it on C/I/P.
_LETTERS = frozenset({"C", "P", "I", "N"})
#: The old scales a letter scorer could be on.
_OLD = (Scale.PASS_FAIL.value, Scale.PERCENT.value)
#: People's values as the letters' points: pass/fail's words, and the points themselves.
_PEOPLE = {"pass": CIP_POINTS["C"], "fail": CIP_POINTS["I"]}
_POINTS = frozenset(CIP_POINTS.values())

# One inspect verdict: (id, subject, log key (file, eval source without the epoch), judge, scale, dims, values).
_Row = tuple[int, str, tuple[str, str], str, str, list[str], dict[str, Any]]


def inspect_letters_to_cip(db: Any) -> int:
    """Put the inspect verdicts today's import would record on C/I/P on it
    (module doc), with the people's values of their subjects and
    dimensions; returns how many verdicts moved. ``db``: a sqlite-utils
    Database or sqlite3 connection inside the caller's transaction (the
    migration's). Reads and writes only through SQL."""
    rows = _inspect_verdicts(db)
    letters_only: dict[tuple[tuple[str, str], str, str], bool] = {}
    for _, _, log, judge, _, _, values in rows:
        for dim, value in values.items():
            key = (log, judge, dim)
            letters_only[key] = letters_only.get(key, True) and isinstance(value, str) and value in _LETTERS
    moving = [r for r in rows if r[4] in _OLD and r[5] and all(letters_only.get((r[2], r[3], d)) for d in r[5])]
    people = _people(db, {(r[1], d) for r in moving for d in r[5]})
    blocked = {
        (r[2], r[3], d) for r in moving for d in r[5] if any(_lost(v, Scale(r[4])) for v in people.get((r[1], d), []))
    }
    moved = [r for r in moving if not any((r[2], r[3], d) in blocked for d in r[5])]
    for verdict_id, _, _, _, _, dims, values in moved:
        scores = {d: CIP_POINTS.get(str(values[d]).strip().upper()) for d in dims}
        db.execute(
            "UPDATE verdicts SET scale = ?, scores = ? WHERE id = ?",
            [Scale.CIP.value, json.dumps(scores), verdict_id],
        )
    _move_people(db, {(r[1], d) for r in moved for d in r[5]})
    return len(moved)


def _inspect_verdicts(db: Any) -> list[_Row]:
    """Every verdict an inspect import wrote: its source names a log file and its run's epoch source."""
    out: list[_Row] = []
    for verdict_id, subject, judge, scale, scores, raw, source, run_source in db.execute(
        "SELECT v.id, v.subject, v.judge, v.scale, v.scores, v.raw, v.source, r.source FROM verdicts v "
        "JOIN runs r ON r.id = v.run_id WHERE v.source LIKE '% inspect % epoch %' "
        "AND r.source LIKE 'inspect % epoch %' AND v.method != 'human'"
    ).fetchall():
        m = _SOURCE.match(source or "")
        if m is None or m.group(2) != run_source:
            continue
        try:
            value = json.loads(raw)["value"]
            dims = list(json.loads(scores))
        except (TypeError, ValueError, KeyError):
            continue
        values = value if isinstance(value, dict) else {"score": value}
        eval_id = run_source.split(" ")[1]
        out.append((verdict_id, subject, (m.group(1), eval_id), judge, scale, dims, values))
    return out


def _people(db: Any, keys: set[tuple[str, str]]) -> dict[tuple[str, str], list[Any]]:
    """{(subject, dimension): every people's value stored for it}: adjudications, first and final labels."""
    out: dict[tuple[str, str], list[Any]] = {}
    for subject, dim, *values in _people_rows(db):
        if (subject, dim) in keys:
            out.setdefault((subject, dim), []).extend(json.loads(v) for v in values if v is not None)
    return out


def _people_rows(db: Any) -> Iterable[tuple]:
    yield from db.execute("SELECT subject, dimension, value FROM adjudications").fetchall()
    yield from db.execute("SELECT subject, dimension, first_value, final_value FROM human_labels").fetchall()


def _lost(value: Any, old: Scale) -> bool:
    """True for a people's value the ``old`` scale reads that C/I/P would
    not: neither a letter's points nor 'pass' or 'fail' (a 70 on 0-100)."""
    if normalise(value, old) is None:
        return False  # it never counted for a verdict on the old scale
    if isinstance(value, str):
        return value not in _PEOPLE
    return not (isinstance(value, (int, float)) and not isinstance(value, bool) and value in _POINTS)


def _move_people(db: Any, keys: set[tuple[str, str]]) -> None:
    """'pass' and 'fail' of the people's values of ``keys`` as 100 and 0."""
    for word, points in _PEOPLE.items():
        text, new = json.dumps(word), json.dumps(points)
        for subject, dim in sorted(keys):
            db.execute(
                "UPDATE adjudications SET value = ? WHERE subject = ? AND dimension = ? AND value = ?",
                [new, subject, dim, text],
            )
            for column in ("first_value", "final_value"):
                db.execute(
                    f"UPDATE human_labels SET {column} = ? WHERE subject = ? AND dimension = ? AND {column} = ?",
                    [new, subject, dim, text],
                )
