"""A synthetic span-labeling snapshot (span-labeling-evaluation-design.md,
"Snapshot Types"), written for these tests: five judged prompts labelled by
two pipeline versions (meta.version twin-a and twin-b, no extractionModel),
one failed prompt, known latencies (tier latencies for twin-a only), missed
elements of known severities and categories, and known scores. Its figures,
worked out by hand, are in EXPECTED."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from reviewer.core.spans.snapshots import CATEGORIES

#: (promptId, input, version, latencyMs, tier1, tier2, totalScore, missed [(text, category, severity)])
_PROMPTS = [
    (
        "tw-1",
        "a heron standing in shallow water",
        "twin-a",
        300,
        2,
        40,
        20,
        [("morning mist", "lighting", "important"), ("ripples", "environment", "minor")],
    ),
    (
        "tw-2",
        "a cyclist climbing a hill at dusk",
        "twin-a",
        100,
        1,
        20,
        15,
        [("climbing", "action", "critical"), ("dusk glow", "lighting", "important")],
    ),
    ("tw-3", "two cats asleep on a windowsill", "twin-a", 500, 3, 60, 22, [("purring", "audio", "minor")]),
    (
        "tw-4",
        "a chef flipping a pancake",
        "twin-b",
        900,
        None,
        None,
        15,
        [("flipping", "action", "important"), ("warm kitchen light", "lighting", "unknown-severity")],
    ),
    ("tw-5", "a lighthouse in a storm", "twin-b", 700, None, None, 24, []),
]

EXPECTED = {
    "latency": [  # (model, stage, n, avg, p50, p95, p99)
        ("twin-a", "total", 3, 300, 300, 500, 500),
        ("twin-a", "tier 1", 3, 2, 2, 3, 3),
        ("twin-a", "tier 2", 3, 40, 40, 60, 60),
        ("twin-b", "total", 2, 800, 900, 900, 900),
    ],
    "severity": {"critical": 1, "important": 3, "minor": 2},
    "categories": [("lighting", 3), ("action", 2), ("environment", 1), ("audio", 1)],
    "worst": [("tw-2", 15), ("tw-4", 15), ("tw-1", 20)],
}


def _result(
    prompt_id: str,
    text: str,
    version: str,
    latency: int,
    tier1: int | None,
    tier2: int | None,
    total: int,
    missed: list,
) -> dict:
    output = f"{text.capitalize()}, filmed in a wide shot."
    meta: dict = {"version": version, "notes": "twin"}
    if tier1 is not None:
        meta.update(tier1Latency=tier1, tier2Latency=tier2)
    word = text.split()[1]
    start = output.lower().index(word)
    return {
        "promptId": prompt_id,
        "input": text,
        "output": output,
        "spanCount": 1,
        "spans": [
            {
                "text": output[start : start + len(word)],
                "role": "subject.identity",
                "confidence": 0.9,
                "start": start,
                "end": start + len(word),
            }
        ],
        "meta": meta,
        "error": None,
        "latencyMs": latency,
        "judgeResult": {
            "scores": {"coverage": 4, "precision": 4, "granularity": 4, "taxonomy": 4, "technicalSpecs": 4},
            "totalScore": total,
            "missedElements": [
                {"text": t, "expectedRole": f"{c}.detail", "category": c, "severity": s} for t, c, s in missed
            ],
            "falsePositives": [],
            "taxonomyErrors": [],
            "granularityErrors": [],
            "categoryScores": {c: {"coverage": 4, "precision": 4} for c in CATEGORIES},
            "notes": f"twin notes for {prompt_id}",
        },
    }


def snapshot(prefix: str = "") -> dict:
    """The twin snapshot; ``prefix`` is put before every promptId and input
    (another prefix: a snapshot sharing no prompt with this one)."""
    results = [_result(*p) for p in copy.deepcopy(_PROMPTS)]
    results.append(
        {
            "promptId": "tw-failed",
            "input": "a prompt whose labelling failed",
            "output": "",
            "spans": [],
            "spanCount": 0,
            "meta": None,
            "judgeResult": None,
            "error": "timeout",
            "latencyMs": None,
        }
    )
    for r in results:
        r["promptId"], r["input"] = prefix + r["promptId"], prefix + r["input"]
    return {
        "timestamp": "2026-01-01T00:00:00.000Z",
        "promptCount": len(results),
        "sourceFile": None,
        "judgeModel": "twin-judge",
        "results": results,
    }


def write(path: Path, data: dict) -> Path:
    """Write a snapshot as JSON; returns ``path``."""
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path
