"""A synthetic twin of a test-case folder (test-case-evaluation-framework.md,
"Test Case Format"), written for these tests: nine cases in four datasets
(three citation, two theory, two story, two general), some with an episode
scope and some without, about an invented series ("The Lantern Coast",
episodes tidewatch, saltmarsh, beaconfall). It has the shape of the real
folder (../shared/data/cicada-test-cases, whose licence forbids copying it)
and none of its text."""

from __future__ import annotations

import json
from pathlib import Path


def _case(
    case_id: str, category: str, query: str, scope: list[str] | None, expected: dict, difficulty: str = "medium"
) -> dict:
    context: dict = {"userId": "twin-user"}
    if scope is not None:
        context["episodeScope"] = scope
    return {
        "id": case_id,
        "query": query,
        "context": context,
        "expectedBehavior": expected,
        "metadata": {"category": category, "difficulty": difficulty, "description": f"twin {category} case"},
    }


DATASETS: dict[str, list[dict]] = {
    "citation-twin": [
        _case(
            "lc-cite-1",
            "citation",
            "What does the harbour master tell Ines on her first night?",
            ["tidewatch"],
            {
                "shouldCite": True,
                "citationCount": 1,
                "episodeReferences": ["tidewatch"],
                "shouldMentionCharacters": ["Ines"],
            },
            "easy",
        ),
        _case(
            "lc-cite-2",
            "citation",
            "How does Tomas treat the lamp keeper in Tidewatch and in Saltmarsh?",
            ["tidewatch", "saltmarsh"],
            {
                "shouldCite": True,
                "citationCount": 2,
                "episodeReferences": ["tidewatch", "saltmarsh"],
                "shouldMentionCharacters": ["Tomas"],
            },
        ),
        _case(
            "lc-cite-3",
            "citation",
            "Why does the lighthouse matter to the whole coast?",
            None,
            {"shouldCite": True, "citationCount": 3, "shouldMentionCharacters": []},
            "hard",
        ),
    ],
    "theory-twin": [
        _case(
            "lc-theory-1",
            "theory",
            "Are the two lamp keepers the same person in disguise?",
            ["saltmarsh"],
            {"shouldCite": True, "shouldMentionCharacters": ["Ines", "Tomas"]},
            "hard",
        ),
        _case(
            "lc-theory-2",
            "theory",
            "Could the fog be caused by the old beacon?",
            None,
            {"shouldCite": True, "shouldMentionCharacters": []},
        ),
    ],
    "story-twin": [
        _case(
            "lc-story-1",
            "story",
            "What kind of person is Ines at the start?",
            ["tidewatch"],
            {
                "shouldCite": True,
                "episodeReferences": ["tidewatch"],
                "shouldMentionCharacters": ["Ines"],
                "shouldAvoidSpoilers": True,
            },
            "easy",
        ),
        _case(
            "lc-story-2",
            "story",
            "What happens at the net-mending festival?",
            ["saltmarsh"],
            {
                "shouldCite": True,
                "episodeReferences": ["saltmarsh"],
                "shouldMentionCharacters": ["Tomas"],
                "shouldAvoidSpoilers": True,
            },
        ),
    ],
    "general-twin": [
        _case(
            "lc-general-1",
            "general",
            "Who are the main characters of The Lantern Coast?",
            None,
            {"shouldCite": False, "shouldMentionCharacters": ["Ines", "Tomas"]},
            "easy",
        ),
        _case(
            "lc-general-2",
            "general",
            "Where and when is The Lantern Coast set?",
            None,
            {"shouldCite": False, "shouldMentionCharacters": []},
            "easy",
        ),
    ],
}


def write_twin(folder: Path, system_prompts: dict[str, str] | None = None) -> Path:
    """Write the four datasets into ``folder`` (made if missing), one JSON
    file each; a dataset named in ``system_prompts`` is written as an object
    ``{"systemPrompt", "cases"}``. Returns ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, cases in DATASETS.items():
        prompt = (system_prompts or {}).get(name)
        data = {"systemPrompt": prompt, "cases": cases} if prompt else cases
        (folder / f"{name}.json").write_text(json.dumps(data, indent=2), encoding="utf-8")
    return folder


def read_cases(folder: Path) -> dict[str, tuple[str, dict]]:
    """{case id: (dataset, case)} of every dataset file in ``folder``."""
    out = {}
    for path in sorted(folder.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for case in data["cases"] if isinstance(data, dict) else data:
            out[case["id"]] = (path.stem, case)
    return out
