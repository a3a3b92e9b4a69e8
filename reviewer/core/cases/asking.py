"""What a model is asked for a test case (test-case-evaluation-framework.md,
"Running Evaluations": the runner calls ``invokeModel(query, context)`` once
per case, so the model gets the case's query *and* its context, whose
``episodeScope`` the citation and story metrics check).

One chat request per case, model and repetition:

* a system message with the dataset's system prompt, when the dataset file
  gives one (``systemPrompt``; kept as the text of the dataset's prompt);
* a user message stating the case: the case template filled in. The
  default template is ``resources/case-prompt-v1.md``: the query, the
  episode scope and the whole context as JSON.

Placeholders (``{{NAME}}``, filled in one pass, in the system prompt too):
``QUERY``, ``EPISODE_SCOPE`` (the scope's episodes joined by ", ", or
``NO_SCOPE`` when the case has none), ``USER_ID``, ``CONTEXT`` (the context
as JSON), ``DATASET``, ``CATEGORY``.

Pure: no I/O (the template's text is given).
"""

from __future__ import annotations

import json
from typing import Any

from reviewer.core.cases.model import TestCase
from reviewer.core.templates import render

#: The default case template (resources/), the user message of every case.
DEFAULT_TEMPLATE = "case-prompt-v1.md"
#: EPISODE_SCOPE of a case whose context names no episode scope.
NO_SCOPE = "not limited (any episode)"
#: The keys of a dataset file (an object with its cases) that hold its system prompt.
SYSTEM_PROMPT_KEYS = ("systemPrompt", "system_prompt", "system")


def episode_scope(case: TestCase) -> list[str] | None:
    """seed: context.episodeScope as a list of episode ids (a single string
    is one episode), None when the case has none."""
    scope: Any = case.context.get("episodeScope")
    if isinstance(scope, str) and scope.strip():
        return [scope.strip()]
    if isinstance(scope, list):
        found = [str(s).strip() for s in scope if str(s).strip()]
        return found or None
    return None


def case_values(case: TestCase) -> dict[str, str]:
    """The placeholder values of ``case`` (module doc)."""
    scope = episode_scope(case)
    return {
        "QUERY": case.query,
        "EPISODE_SCOPE": ", ".join(scope) if scope else NO_SCOPE,
        "USER_ID": str(case.context.get("userId") or ""),
        "CONTEXT": json.dumps(case.context, ensure_ascii=False, sort_keys=True),
        "DATASET": case.dataset,
        "CATEGORY": case.category,
    }


def case_messages(case: TestCase, template: str, system_prompt: str = "") -> list[dict]:
    """The chat messages of one request for ``case`` (module doc):
    [system: ``system_prompt`` filled in] when it is not blank, then
    [user: ``template`` filled in, surrounding white space removed]."""
    values = case_values(case)
    out = []
    if system_prompt.strip():
        out.append({"role": "system", "content": render(system_prompt, values).strip()})
    out.append({"role": "user", "content": render(template, values).strip()})
    return out


def system_prompt_of(data: Any) -> str:
    """The system prompt a dataset file gives (an object with its cases and
    one of SYSTEM_PROMPT_KEYS as text), '' when none."""
    if isinstance(data, dict):
        for key in SYSTEM_PROMPT_KEYS:
            value = data.get(key)
            if isinstance(value, str) and value.strip():
                return value
    return ""
