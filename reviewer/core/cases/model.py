"""Test cases and datasets (test-case-evaluation-framework.md, "Test Case
Format").

A *test case* is a text item with a query, a context (free JSON; the seed
uses ``userId`` and ``episodeScope``), an *expected behaviour*
(``shouldCite``, ``citationCount``, ``episodeReferences``,
``shouldMentionCharacters``, ``shouldAvoidSpoilers``, or more: it is kept as
written) and metadata (category, difficulty, description). A *dataset* is a
named set of cases, one file per dataset.

``parse_dataset`` turns one file's JSON into cases and one-line problems
(no id, a duplicate id, an unknown category, a number that is not finite
anywhere in the case, a ``citationCount`` that is not a count), each naming
the file and the case, so an import can add the good cases and report the
bad ones (values validated at the door, reviewer.core.bounds).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, Field

from reviewer.core.bounds import BadValue, count, first_non_finite

#: The seed's four categories (EvaluationCase.metadata.category).
SEED_CATEGORIES = ("citation", "theory", "story", "general")


class TestCase(BaseModel):
    """One test case (seed: EvaluationCase): query, context, expected
    behaviour and metadata, and the dataset it came from."""

    __test__ = False  # not a pytest class

    id: str
    query: str
    context: dict[str, Any] = Field(default_factory=dict)
    expected: dict[str, Any] = Field(default_factory=dict)
    metadata: dict[str, Any] = Field(default_factory=dict)
    dataset: str = ""

    @property
    def category(self) -> str:
        """seed: metadata.category (citation, theory, story, general)."""
        return str(self.metadata.get("category") or "")

    @property
    def difficulty(self) -> str:
        """seed: metadata.difficulty (easy, medium, hard)."""
        return str(self.metadata.get("difficulty") or "")

    def lookup(self, path: str) -> Any:
        """The value at ``path`` ('expected.citationCount',
        'context.episodeScope', 'metadata.difficulty', 'query'), or None when
        absent; the rule metrics' conditions and tests read the case through
        it (docs/test-cases.md: a condition on the expected behaviour or context)."""
        head, _, rest = path.partition(".")
        roots = {
            "expected": self.expected,
            "expectedBehavior": self.expected,
            "context": self.context,
            "metadata": self.metadata,
            "query": self.query,
            "id": self.id,
            "dataset": self.dataset,
        }
        value: Any = roots.get(head)
        for part in rest.split(".") if rest else []:
            value = value.get(part) if isinstance(value, dict) else None
        return value


def query_of(case: TestCase) -> str:
    """The text a model is asked for ``case`` (seed: runner invokes the
    model with testCase.query; the context goes beside it)."""
    return case.query


Problem = tuple[str, str]


def _one(raw: Any, dataset: str, where: str, categories: Iterable[str]) -> tuple[TestCase | None, Problem | None]:
    """One case of a dataset file, or (None, (where, why))."""
    if not isinstance(raw, dict):
        return None, (where, "not an object")
    case_id = raw.get("id")
    if not isinstance(case_id, str) or not case_id.strip():
        return None, (where, "the case has no id")
    where = f"{where} ('{case_id}')"
    query = raw.get("query")
    if not isinstance(query, str) or not query.strip():
        return None, (where, "the case has no query")
    expected = raw.get("expectedBehavior", raw.get("expected_behavior", raw.get("expected", {})))
    context, metadata = raw.get("context", {}), raw.get("metadata", {})
    for name, value in (("context", context), ("expectedBehavior", expected), ("metadata", metadata)):
        if not isinstance(value, dict):
            return None, (where, f"{name} is not an object")
    assert isinstance(expected, dict)  # checked in the loop above
    bad = first_non_finite({"context": context, "expectedBehavior": expected, "metadata": metadata})
    if bad:
        return None, (where, f"{bad} is not a finite number (NaN, Infinity or past 2^63)")
    if expected.get("citationCount") is not None:
        try:
            count(expected["citationCount"], "expectedBehavior.citationCount")
        except BadValue as exc:
            return None, (where, str(exc))
    known = tuple(categories)
    category = metadata.get("category")
    if category not in known:
        return None, (where, f"unknown category '{category}' (known: {', '.join(known)})")
    return TestCase(
        id=case_id.strip(), query=query, context=context, expected=expected, metadata=metadata, dataset=dataset
    ), None


def cases_of(data: Any) -> list | None:
    """The list of raw cases in a dataset file's JSON (a list, or an object
    with 'cases' / 'testCases'), or None when it holds none."""
    if isinstance(data, dict):
        data = data.get("cases", data.get("testCases"))
    if (
        isinstance(data, list)
        and data
        and all(isinstance(c, dict) for c in data)
        and any(
            "query" in c and any(k in c for k in ("expectedBehavior", "expected_behavior", "expected")) for c in data
        )
    ):
        return data
    return None


def parse_dataset(
    data: Any, dataset: str, file_name: str, categories: Iterable[str] = SEED_CATEGORIES
) -> tuple[list[TestCase], list[Problem]]:
    """The cases of one dataset file and the problems found as (where,
    why): where names ``file_name`` and the case ("citation-accuracy.json
    case 3 ('cite-003')"), why is one line (docs/test-cases.md: no id, a duplicate
    id, an unknown category). A case whose id repeats within the file is
    kept once (the first); the others are problems."""
    raw_cases = cases_of(data)
    if raw_cases is None:
        return [], [(file_name, "no test cases (a JSON list of objects with query and expectedBehavior)")]
    categories = tuple(categories)
    cases: list[TestCase] = []
    problems: list[Problem] = []
    seen: set[str] = set()
    for n, raw in enumerate(raw_cases, 1):
        case, problem = _one(raw, dataset, f"{file_name} case {n}", categories)
        if problem:
            problems.append(problem)
            continue
        assert case is not None  # _one gives a case or a problem
        if case.id in seen:
            problems.append(
                (
                    f"{file_name} case {n} ('{case.id}')",
                    f"duplicate id '{case.id}' (an earlier case of the file has it)",
                )
            )
            continue
        seen.add(case.id)
        cases.append(case)
    return cases, problems
