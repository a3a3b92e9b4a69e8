"""``reviewer run``: ask a model every selected item x prompt, repetitions
1..N, and store each answer as a run (docs/runner.md).

* Resumable: a run already stored (item, prompt, model, repetition) is
  never asked again, so the same command twice sends nothing the second
  time and an interrupted job continues where it stopped.
* A request that still fails after its retries is a failed attempt (calls
  table, with the error); it is asked again next time.
* Runs at once do not ask twice: each request is reserved in the project
  right before it is sent (reviewer.storage.repo.reservations); a read-only
  project is refused before any request.
* What is sent: the prompt's text as the user message. For a photo, the
  text and the upright photo downscaled to ``max_side`` as an image_url
  part; for a text item, the prompt with ``{{INPUT_TEXT}}`` replaced by the
  item's text, or the prompt, a blank line and the item's text when the
  prompt has no placeholder.
* A test case (reviewer.storage.cases.cases) is asked once per model and
  repetition, of its own dataset's prompt only (other prompts are not
  asked for it, and a dataset's prompt is asked of that dataset's cases
  only), as the design's runner does (``invokeModel(query, context)``): the
  dataset's system prompt, if any, as the system message and the case
  template (query, episode scope, context) as the user message
  (reviewer.core.cases.asking).
* ``seed`` N sends N + repetition - 1, so repetitions are different
  samples that can be reproduced.
* New runs are scored at once (T-P5 for card prompts; free text is kept).
  With ``on_stored`` (the window), they are scored in batches as they
  arrive, at most every ``SCORE_EVERY_S`` seconds, and ``on_stored`` gets
  the ids of each scored batch, so the runs appear while the job goes on.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from reviewer.clients.chat import ChatAnswer, ChatError, ChatRequest, public_url
from reviewer.clients.images import DEFAULT_MAX_SIDE, image_data_url
from reviewer.core.cases.asking import case_messages
from reviewer.core.models import Item, Prompt
from reviewer.pipeline.execute import Job, Progress, RunSummary, Settings, answer_facts, execute
from reviewer.storage.cases import cases as case_store
from reviewer.storage.judging import calls
from reviewer.storage.project.db import Project
from reviewer.storage.repo import items as repo_items
from reviewer.storage.repo.reservations import Reservations, answer_key
from reviewer.storage.scoring import score_project

if TYPE_CHECKING:
    from reviewer.pipeline.batch_out import BatchOut

PLACEHOLDER = "{{INPUT_TEXT}}"
#: With ``on_stored``: the shortest time between two scoring batches (seconds).
SCORE_EVERY_S = 0.25


@dataclass(frozen=True)
class RunOptions:
    """What to ask: ``model``; ``prompts`` / ``items``: names (empty: all);
    ``repetitions`` (>= 1); sampling ``temperature``, ``max_tokens``,
    ``seed``; ``max_side``: longest side of a photo sent (pixels)."""

    model: str
    prompts: tuple[str, ...] = ()
    items: tuple[str, ...] = ()
    repetitions: int = 1
    temperature: float | None = None
    max_tokens: int | None = None
    seed: int | None = None
    max_side: int = DEFAULT_MAX_SIDE


def _select(found: Sequence, names: Sequence[str], what: str) -> list:
    if not names:
        return list(found)
    by_name = {x.name: x for x in found}
    missing = [n for n in names if n not in by_name]
    if missing:
        known = ", ".join(sorted(by_name)) or "none"
        raise ValueError(f"no {what} {', '.join(repr(m) for m in missing)} in the project (known: {known})")
    return [by_name[n] for n in dict.fromkeys(names)]


def user_content(prompt: Prompt, item: Item, image_url: str | None = None) -> str | list[dict]:
    """The user message content for ``prompt`` about ``item`` (module doc):
    text, or text and image_url parts for a photo (``image_url`` given)."""
    text = prompt.text
    if image_url is not None:
        return [{"type": "text", "text": text}, {"type": "image_url", "image_url": {"url": image_url}}]
    body = item.text or ""
    if PLACEHOLDER in text:
        return text.replace(PLACEHOLDER, body)
    return f"{text}\n\n{body}" if body else text


def run_models(
    project: Project,
    settings: Settings,
    options: RunOptions,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
    actor: str | None = None,
    on_stored: Callable[[list[int]], None] | None = None,
    batch: BatchOut | None = None,
) -> tuple[RunSummary, list[int]]:
    """Ask ``options.model`` every selected item x prompt x repetition not
    yet stored (module doc). Returns the summary and the ids of the new
    runs (already scored). ``on_stored(run ids)``: called in the calling
    thread with each batch of new runs once they are scored (module doc),
    the last batch before returning. Raises ValueError for an unknown
    prompt or item name or repetitions < 1, ReadOnlyProject (before any
    request) for a read-only project."""
    project.require_writable("ask a model")
    if options.repetitions < 1:
        raise ValueError("repetitions must be at least 1")
    prompts = [p for p in _select(repo_items.prompts(project), options.prompts, "prompt")]
    items = _select(repo_items.items(project), options.items, "item")
    endpoint = public_url(settings.endpoint)
    stored = calls.stored_repetitions(project, options.model)
    summary = RunSummary()
    new_runs: list[int] = []
    images: dict[int, str] = {}
    jobs: list[Job] = []
    batches = _Batches(project, on_stored)
    the_cases = case_store.cases(project)
    datasets = {c.dataset for c in the_cases.values()}
    template = case_store.case_template() if the_cases else ""
    for item in items:
        case = the_cases.get(item.id)
        for prompt in prompts:
            if (prompt.name != case.dataset) if case is not None else (prompt.name in datasets):
                continue  # a case is asked of its own dataset only (module doc)
            for rep in range(1, options.repetitions + 1):
                summary.planned += 1
                if (item.id, prompt.id, rep) in stored:
                    summary.skipped += 1
                    continue
                labels = {"item": item.name, "prompt": prompt.name, "model": options.model, "repetition": rep}
                image = None
                if item.kind == "photo":
                    if item.id not in images:
                        try:
                            images[item.id] = image_data_url(project.resolve(item.path or ""), options.max_side)[0]
                        except (OSError, ValueError) as exc:
                            error = f"cannot read the photo {item.path}: {exc}"
                            calls.record_failure(project, "answer", endpoint, error, labels, attempts=0)
                            summary.failed += 1
                            summary.errors.append((f"{item.name} / {prompt.name} / repetition {rep}", error))
                            continue
                    image = images[item.id]
                seed = None if options.seed is None else options.seed + rep - 1
                messages = (
                    case_messages(case, template, prompt.text)
                    if case is not None
                    else [{"role": "user", "content": user_content(prompt, item, image)}]
                )
                request = ChatRequest(
                    model=options.model,
                    messages=messages,
                    temperature=options.temperature,
                    max_tokens=options.max_tokens,
                    seed=seed,
                    tag=f"{item.name}|{prompt.name}|{options.model}|{rep}",
                )
                jobs.append(
                    answer_job(project, item, prompt, options.model, rep, endpoint, request, new_runs, actor, batches)
                )
    if batch is not None:
        batch.add(project, jobs, summary)
        return summary, new_runs
    execute(jobs, settings, summary, progress, cancel, reservations=Reservations(project))
    if on_stored is not None:
        batches.flush()
    elif new_runs:
        score_project(project, run_ids=new_runs)
    return summary, new_runs


def answer_job(
    project: Project,
    item: Item,
    prompt: Prompt,
    model: str,
    rep: int,
    endpoint: str,
    request: ChatRequest,
    new_runs: list[int],
    actor: str | None = None,
    batches: _Batches | None = None,
) -> Job:
    """The job asking ``model`` about ``item`` x ``prompt``, repetition
    ``rep``: its answer is stored as a run (``new_runs`` gets its id), a
    failure as a failed attempt; keyed by its reservation key, and with
    ``what`` it stands for (the batch file's reservation, from which
    :func:`job_for` makes the same job again)."""
    assert item.id is not None and prompt.id is not None, "a stored item and prompt"
    labels = {"item": item.name, "prompt": prompt.name, "model": model, "repetition": rep}
    what = {
        "kind": "answer",
        "item_id": item.id,
        "prompt_id": prompt.id,
        "model": model,
        "repetition": rep,
        "endpoint": endpoint,
        "params": request.params(),
    }
    return Job(
        request,
        _on_answer(
            project, item, prompt, model, rep, endpoint, labels, new_runs, actor, batches or _Batches(project, None)
        ),
        _on_failure(project, endpoint, labels),
        f"{item.name} / {prompt.name} / repetition {rep}",
        key=answer_key(item.id, prompt.id, model, rep),
        stored=_stored(project, item.id, prompt.id, model, rep),
        what=what,
    )


def job_for(project: Project, what: dict, new_runs: list[int], actor: str | None = None) -> Job:
    """The job a batch reservation's ``what`` (:func:`answer_job`) stands
    for, to store its answer as the live run would. Raises ValueError when
    its item or prompt is no longer in the project."""
    items = {i.id: i for i in repo_items.items(project)}
    prompts = {p.id: p for p in repo_items.prompts(project)}
    item, prompt = items.get(what["item_id"]), prompts.get(what["prompt_id"])
    if item is None or prompt is None:
        raise ValueError("its item or prompt is no longer in the project")
    request = ChatRequest(model=what["model"], messages=[], **what.get("params", {}))
    return answer_job(
        project, item, prompt, what["model"], what["repetition"], what["endpoint"], request, new_runs, actor
    )


class _Batches:
    """New runs scored in batches as they arrive (module doc); a no-op
    without ``on_stored``."""

    def __init__(self, project: Project, on_stored: Callable[[list[int]], None] | None):
        self.project, self.on_stored = project, on_stored
        self.waiting: list[int] = []
        self.last = 0.0

    def add(self, run_id: int) -> None:
        """A run just stored: score the waiting ones when the last batch is old enough."""
        if self.on_stored is None:
            return
        self.waiting.append(run_id)
        if time.monotonic() - self.last >= SCORE_EVERY_S:
            self.flush()

    def flush(self) -> None:
        """Score the waiting runs and hand their ids to ``on_stored``."""
        self.last = time.monotonic()
        if self.waiting and self.on_stored is not None:
            batch, self.waiting = self.waiting, []
            score_project(self.project, run_ids=batch)
            self.on_stored(batch)


def _on_answer(project, item, prompt, model, rep, endpoint, labels, new_runs, actor, batches):
    def store(answer: ChatAnswer) -> None:
        run_id, status = calls.record_answer(
            project, item.id, prompt.id, model, rep, answer.content, endpoint, answer_facts(answer), labels, actor
        )
        if status == "added" and run_id is not None:
            new_runs.append(run_id)
            batches.add(run_id)

    return store


def _stored(project: Project, item_id: int, prompt_id: int, model: str, rep: int) -> Callable[[], bool]:
    def stored() -> bool:
        return (
            project.db.execute(
                "SELECT 1 FROM runs WHERE item_id = ? AND prompt_id = ? AND model = ? AND repetition = ?",
                [item_id, prompt_id, model, rep],
            ).fetchone()
            is not None
        )

    return stored


def _on_failure(project, endpoint, labels):
    def store(exc: ChatError) -> None:
        calls.record_failure(
            project,
            "answer",
            endpoint,
            str(exc),
            labels,
            attempts=exc.attempts,
            retry_errors=getattr(exc, "retry_errors", None),
        )

    return store
