"""``reviewer judge``: ask a judge model about the runs of a project and
store its verdicts where imported ones go (docs/runner.md#judges), so disputes,
agreement and calibration use them at once.

Judges (``--judge KIND``; templates in resources/judges). A verdict's
prompt_version is its rubric version, '<template folder>@<hash of the
template files' text and the dimension list>'
(reviewer.core.judging.rubrics.rubric_version), beside its judge_model:

* ``failter``: Failter's rules-based judge on every selected run (item text
  = original input, prompt text = template, run output = generated
  output). Judge 'rules-judge/<model>', method rules-based, scale A-F, or
  0-100 when the judge answers a number (the reply's own scale wins:
  llm_judges.read_failter_reply).
* ``failter-gt``: Path A, the ground-truth judge ('gt-judge/<model>',
  method ground-truth) where the item has a reference from 'ground-truth',
  else the rules-based one. With ``dual`` (Path B) both: the rules-based
  judge everywhere and the hybrid ground-truth judge where there is a
  ground truth; the report weighs them (--weights).
* ``tarot-rubric``: the calibrated rubric judge ('tarot-rubric/<model>',
  method rubric, 1-5) with the structural metrics the project holds for
  the reading (subject metrics).
* ``span``: the enhanced span judge ('span-judge/<model>', method rubric)
  on runs whose output is {"text", "spans"} JSON; the judge's error lists
  become findings of the run, tied to the verdict; ``totalScore`` is kept
  as the judge's 0-25 sum (as the snapshot importer keeps it).
* ``pairwise``: every pair of models' first runs of the same item and
  prompt ('pairwise/<model>', method pairwise), asked in both orders
  ('ab', 'ba'; winners stored in the original order).

A verdict already stored (subject, judge, method, answer order,
repetition) is not asked again, nor one another run asks at the same time
(each request is reserved first: reviewer.storage.repo.reservations); a
read-only project is refused before any request. A reply that cannot be read is stored as
an undecided verdict (values None) with the raw reply.
"""

from __future__ import annotations

import dataclasses
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from itertools import combinations
from typing import TYPE_CHECKING

from reviewer.clients.chat import ChatAnswer, ChatError, ChatRequest, public_url
from reviewer.core.judging import llm_judges as lj
from reviewer.core.judging import replies
from reviewer.core.judging.rubrics import rubric_version
from reviewer.core.judging.verdict_confidence import value_token_confidences
from reviewer.core.judging.verdicts import Method, Scale, Verdict, normalise
from reviewer.core.models import Item, Prompt
from reviewer.core.spans import judge as span_judge
from reviewer.core.spans.snapshots import issue_lines
from reviewer.core.workflows import asked_source
from reviewer.pipeline.ask import user_content
from reviewer.pipeline.execute import Job, Progress, RunSummary, Settings, answer_facts, execute
from reviewer.storage.judging import calls
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.project.db import Project
from reviewer.storage.repo import items as repo_items
from reviewer.storage.repo import runs as repo_runs
from reviewer.storage.repo.reservations import Reservations, verdict_key
from reviewer.storage.spans.judge_findings import store_judge_findings

if TYPE_CHECKING:
    from reviewer.pipeline.batch_out import BatchOut

#: The template files of the chat judges (system and user message).
_TWO = ("system.md", "user.md")
KINDS = ("failter", "failter-gt", "tarot-rubric", "span", "pairwise")
GT_SOURCE = "ground-truth"


@dataclass(frozen=True)
class JudgeOptions:
    """``kind`` (KINDS), judge ``model``, ``dual`` (Path B), runs selected
    by ``prompts`` / ``items`` / ``run_models`` names (empty: all),
    ``repetitions`` of each verdict, sampling parameters; ``top_logprobs``:
    logprobs are asked for (with this many alternatives a token; None: not),
    and each dimension's value token's probability is stored as its
    'logprob' confidence; ``ask_confidence``: the judge is asked to state
    its confidence (llm_judges.ask_confidence), stored as 'stated'."""

    kind: str
    model: str
    dual: bool = False
    prompts: tuple[str, ...] = ()
    items: tuple[str, ...] = ()
    run_models: tuple[str, ...] = ()
    repetitions: int = 1
    temperature: float | None = None
    max_tokens: int | None = None
    seed: int | None = None
    top_logprobs: int | None = 1  # ask for logprobs (None: do not)
    ask_confidence: bool = False  # ask the judge to state its confidence (prompt version gets '+stated-confidence-v1')


#: Keys a reply may give a dimension's value under (Failter's score comes as a grade or a score).
VALUE_KEYS = {"score": ("grade", "score")}


def confidences_of(reading: lj.Reading, answer: ChatAnswer, scores: dict) -> dict[str, dict[str, float]]:
    """{source: {dimension: confidence}} of a verdict just read: 'logprob',
    exp(logprob) of the token carrying each decided dimension's value where
    the endpoint returned logprobs (verdict_confidence.value_token_confidences),
    and 'stated', what the reply says (reviewer.core.judging.replies)."""
    dims = [d for d, v in scores.items() if v is not None]
    out: dict[str, dict[str, float]] = {}
    logprob = value_token_confidences(answer.content, answer.tokens, dims, VALUE_KEYS)
    if logprob:
        out["logprob"] = logprob
    stated = {d: c for d, c in reading.confidence.items() if d in dims}
    if stated:
        out["stated"] = stated
    return out


@dataclass
class _Ask:
    """One verdict to ask for: its identity, messages and how to read the reply."""

    verdict: Verdict
    messages: list[dict]
    read: Callable[[str], lj.Reading]
    after: Callable[[int, str], None] | None = None  # (verdict id, raw reply) -> extra writes
    own_range: frozenset = frozenset()  # scores kept as read, not on the verdict's scale (span totalScore 0-25)


def _runs(
    project: Project, options: JudgeOptions, default_prompt: str | None = None, run_ids: set | None = None
) -> list[dict]:
    rows = [r for r in repo_runs.run_rows(project) if run_ids is None or r["id"] in run_ids]
    prompts = set(options.prompts) or (
        {default_prompt} if default_prompt and any(r["prompt"] == default_prompt for r in rows) else set()
    )
    return [
        r
        for r in rows
        if (not prompts or r["prompt"] in prompts)
        and (not options.items or r["item"] in options.items)
        and (not options.run_models or r["model"] in options.run_models)
    ]


def _base(
    run: dict,
    judge: str,
    model: str,
    method: Method,
    scale: Scale,
    version: str,
    rep: int,
    order: str | None = None,
    other: dict | None = None,
) -> Verdict:
    subject = f"pair:{run['id']}:{other['id']}" if other else f"run:{run['id']}"
    return Verdict(
        subject=subject,
        run_id=run["id"],
        other_run_id=other["id"] if other else None,
        judge=judge,
        judge_model=model,
        prompt_version=version,
        method=method,
        scale=scale,
        answer_order=order,
        repetition=rep,
        source=asked_source(judge),
    )


def plan(project: Project, options: JudgeOptions, run_ids: set | None = None) -> list[_Ask]:
    """Every verdict the options ask for (stored ones included), about the
    runs ``run_ids`` only when given. Raises ValueError for an unknown kind."""
    if options.kind not in KINDS:
        raise ValueError(f"unknown judge '{options.kind}' (known: {', '.join(KINDS)})")
    items = {i.id: i for i in repo_items.items(project)}
    prompts = {p.id: p for p in repo_items.prompts(project)}
    if options.kind in ("failter", "failter-gt"):
        return _failter_asks(project, options, items, prompts, run_ids)
    if options.kind == "tarot-rubric":
        return _tarot_asks(project, options, items, run_ids)
    if options.kind == "span":
        return _span_asks(project, options, items, run_ids)
    return _pairwise_asks(project, options, items, prompts, run_ids)


#: The project's items and prompts by id, as plan reads them.
_Items = dict[int | None, Item]
_Prompts = dict[int | None, Prompt]


def _failter_asks(
    project: Project, options: JudgeOptions, items: _Items, prompts: _Prompts, run_ids: set | None
) -> list[_Ask]:
    """The Failter judge's letter grades of each run, per repetition: by the rules, or
    ('failter-gt') against the item's ground-truth reference when it has one (with
    ``dual``, by the rules and the hybrid template both)."""
    m, out = options.model, []
    reps = range(1, options.repetitions + 1)
    for run in _runs(project, options, run_ids=run_ids):
        item, prompt = items[run["item_id"]], prompts[run["prompt_id"]]
        gt = next((t for s, t in judging.references(project, run["item_id"]) if s == GT_SOURCE), None)
        which = []
        if options.kind == "failter-gt" and gt is not None:
            which = (
                [("rules", Method.RULES), ("gt-hybrid", Method.GROUND_TRUTH)]
                if options.dual
                else [("gt", Method.GROUND_TRUTH)]
            )
        else:
            which = [("rules", Method.RULES)]
        for template, method in which:
            name = ("rules-judge/" if method == Method.RULES else "gt-judge/") + m
            text = lj.failter_prompt(template, item.text or "", prompt.text, run["output"], gt or "")
            for rep in reps:
                version = rubric_version(lj.FAILTER, (f"{template}.md", "letter-grade.md"), ("score",))
                out.append(
                    _Ask(
                        _base(run, name, m, method, Scale.GRADE, version, rep),
                        [{"role": "user", "content": text}],
                        lj.read_failter_reply,
                    )
                )
    return out


def _tarot_asks(project: Project, options: JudgeOptions, items: _Items, run_ids: set | None) -> list[_Ask]:
    """The tarot rubric's verdicts (1-5 per dimension) of each tarot reading, per repetition,
    the case holding the reading's stored metrics."""
    m, out = options.model, []
    reps = range(1, options.repetitions + 1)
    metrics = judging.subject_metrics(project)
    for run in _runs(project, options, "tarot-reading", run_ids):
        case = lj.tarot_case(items[run["item_id"]].text or "", run["output"], metrics.get(f"run:{run['id']}"))
        for rep in reps:
            version = rubric_version(lj.TAROT, _TWO, lj.TAROT_DIMENSIONS)
            out.append(
                _Ask(
                    _base(run, f"tarot-rubric/{m}", m, Method.RUBRIC, Scale.ORDINAL5, version, rep),
                    lj.tarot_messages(case),
                    lj.read_tarot_reply,
                )
            )
    return out


def _span_asks(project: Project, options: JudgeOptions, items: _Items, run_ids: set | None) -> list[_Ask]:
    """The span judge's verdicts (``_span_ask``) of each span-labeling run whose output is a
    JSON object with a list of spans, per repetition; other runs are left out."""
    out = []
    reps = range(1, options.repetitions + 1)
    for run in _runs(project, options, "span-labeling", run_ids):
        try:
            labeled = json.loads(run["output"])
            spans = labeled["spans"] if isinstance(labeled, dict) and isinstance(labeled.get("spans"), list) else None
        except ValueError:
            spans = None
        if spans is None:
            continue
        for rep in reps:
            out.append(_span_ask(project, run, items[run["item_id"]].text or "", spans, options.model, rep))
    return out


def _pairwise_asks(
    project: Project, options: JudgeOptions, items: _Items, prompts: _Prompts, run_ids: set | None
) -> list[_Ask]:
    """The pairwise winners of every two models' first repetitions of one item and prompt,
    in both answer orders ('ab', 'ba'), per repetition. Items with photos are left out
    (pairwise judging is text-only)."""
    m, out = options.model, []
    reps = range(1, options.repetitions + 1)
    groups: dict[tuple[int, int], dict[str, dict]] = {}
    for run in _runs(project, options, run_ids=run_ids):
        if run["repetition"] == 1:
            groups.setdefault((run["item_id"], run["prompt_id"]), {})[run["model"]] = run
    for (item_id, prompt_id), by_model in groups.items():
        instruction = user_content(prompts[prompt_id], items[item_id])
        if not isinstance(instruction, str):
            continue  # photos: pairwise judging is text-only here
        for a, b in combinations(sorted(by_model), 2):
            ra, rb = by_model[a], by_model[b]
            for order, first, second in (("ab", ra, rb), ("ba", rb, ra)):
                swapped = order == "ba"
                for rep in reps:
                    out.append(
                        _Ask(
                            _base(
                                ra,
                                f"pairwise/{m}",
                                m,
                                Method.PAIRWISE,
                                Scale.WINNER,
                                rubric_version(lj.PAIRWISE, _TWO, ("winner",)),
                                rep,
                                order,
                                rb,
                            ),
                            lj.pairwise_messages(instruction, first["output"], second["output"]),
                            partial(lj.read_pairwise_reply, swapped=swapped),
                        )
                    )
    return out


def _span_ask(project: Project, run: dict, prompt_text: str, spans: list, model: str, rep: int) -> _Ask:
    holder: dict = {}

    def read(text: str) -> lj.Reading:
        result, how = span_judge.read_span_reply(lj.last_json_object(text), len(spans))
        holder["result"] = result
        if result is None:
            return lj.Reading(scores=span_judge.span_scores(None), rationale=how, decided=False)
        scores = span_judge.span_scores(result)
        return lj.Reading(
            scores=scores,
            issues=issue_lines(result),
            rationale=f"{result.get('notes') or ''} [{how}]".strip(),
            confidence=replies.stated_confidence(lj.last_json_object(text) or {}, list(scores)),
        )

    def after(verdict_id: int, raw: str) -> None:
        store_judge_findings(project, run["id"], verdict_id, holder.get("result"), "judge")

    version = rubric_version(span_judge.SPAN, _TWO, (*span_judge.SCORE_KEYS, "totalScore"))
    return _Ask(
        _base(run, f"span-judge/{model}", model, Method.RUBRIC, Scale.ORDINAL5, version, rep),
        span_judge.span_messages(prompt_text, spans),
        read,
        after,
        frozenset({"totalScore"}),
    )


def _stored_keys(project: Project) -> set[tuple]:
    return {
        tuple(r)
        for r in project.db.execute(
            "SELECT subject, judge, method, coalesce(answer_order, ''), repetition FROM verdicts"
        )
    }


def judge_runs(
    project: Project,
    settings: Settings,
    options: JudgeOptions,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
    actor: str | None = None,
    on_stored: Callable[[list[int]], None] | None = None,
    batch: BatchOut | None = None,
) -> RunSummary:
    """Ask the judge for every verdict of :func:`plan` not yet stored and
    store each as it arrives (module doc). ``on_stored([verdict id])`` is
    called in the calling thread after each new verdict is stored (the
    window shows them as they come). With ``batch``
    (reviewer.pipeline.batch_out.BatchOut), nothing is sent: the requests are
    added to the batch file to write. Returns the summary. Raises
    ReadOnlyProject (before any request) for a read-only project."""
    project.require_writable("ask a judge")
    asks = plan(project, options)
    stored = _stored_keys(project)
    endpoint = public_url(settings.endpoint)
    summary = RunSummary(planned=len(asks))
    jobs = []
    for ask in asks:
        v = ask.verdict
        if (v.subject, v.judge, v.method.value, v.answer_order or "", v.repetition) in stored:
            summary.skipped += 1
            continue
        jobs.append(verdict_job(project, ask, options, endpoint, actor, on_stored))
    if batch is not None:
        batch.add(project, jobs, summary)
        return summary
    execute(jobs, settings, summary, progress, cancel, reservations=Reservations(project))
    return summary


def verdict_job(
    project: Project,
    ask: _Ask,
    options: JudgeOptions,
    endpoint: str,
    actor: str | None = None,
    on_stored: Callable[[list[int]], None] | None = None,
) -> Job:
    """The job asking the judge for ``ask``'s verdict (with the stated
    confidence asked for when ``options.ask_confidence``): its reply is read
    and stored as a verdict, a failure as a failed attempt; keyed by its
    reservation key, with ``what`` it stands for (the batch file's
    reservation, from which :func:`job_for` makes the same job again)."""
    v = ask.verdict
    if options.ask_confidence:
        v = v.model_copy(update={"prompt_version": f"{v.prompt_version}+{lj.STATED_CONFIDENCE}"})
        ask = dataclasses.replace(ask, verdict=v, messages=lj.ask_confidence(ask.messages))
    seed = None if options.seed is None else options.seed + v.repetition - 1
    request = ChatRequest(
        model=options.model,
        messages=ask.messages,
        temperature=options.temperature,
        max_tokens=options.max_tokens,
        seed=seed,
        top_logprobs=options.top_logprobs,
        tag=f"judge|{options.kind}|{v.subject}|{v.answer_order or ''}|{v.repetition}",
    )
    label = f"{v.judge} on {v.subject}" + (f" ({v.answer_order})" if v.answer_order else "")
    what = {
        "kind": "judge",
        "options": {
            "kind": options.kind,
            "model": options.model,
            "dual": options.dual,
            "ask_confidence": options.ask_confidence,
            "top_logprobs": options.top_logprobs,
            "repetitions": options.repetitions,
        },
        "runs": [r for r in (v.run_id, v.other_run_id) if r is not None],
        "verdict": [v.subject, v.judge, v.method.value, v.answer_order or "", v.repetition],
        "endpoint": endpoint,
        "params": request.params(),
    }
    return Job(
        request,
        _store(project, ask, endpoint, actor, on_stored),
        _fail(project, ask, endpoint),
        label,
        key=verdict_key(v.subject, v.judge, v.method.value, v.answer_order, v.repetition),
        stored=_verdict_stored(project, v),
        what=what,
    )


def job_for(project: Project, what: dict, actor: str | None = None) -> Job:
    """The job a batch reservation's ``what`` (:func:`verdict_job`) stands
    for: the judge's plan made again for its runs, so the reply is read as
    the live run reads it. Raises ValueError when the plan no longer holds
    the verdict (its runs are gone)."""
    options = JudgeOptions(**what["options"])
    wanted = tuple(what["verdict"])
    for ask in plan(project, options, run_ids=set(what["runs"])):
        v = ask.verdict
        if (v.subject, v.judge, v.method.value, v.answer_order or "", v.repetition) == wanted:
            return verdict_job(project, ask, options, what["endpoint"], actor)
    raise ValueError("the judge no longer asks for this verdict (its runs are gone)")


def _verdict_stored(project: Project, v: Verdict) -> Callable[[], bool]:
    def stored() -> bool:
        return (
            project.db.execute(
                "SELECT 1 FROM verdicts WHERE subject = ? AND judge = ? AND method = ? "
                "AND coalesce(answer_order, '') = ? AND repetition = ?",
                [v.subject, v.judge, v.method.value, v.answer_order or "", v.repetition],
            ).fetchone()
            is not None
        )

    return stored


def _store(
    project: Project,
    ask: _Ask,
    endpoint: str,
    actor: str | None,
    on_stored: Callable[[list[int]], None] | None = None,
):
    def store(answer: ChatAnswer) -> None:
        reading = ask.read(answer.content)
        scale = reading.scale or ask.verdict.scale
        scores = {
            k: (None if v is None else v if k in ask.own_range else normalise(v, scale))
            for k, v in reading.scores.items()
        }
        verdict = ask.verdict.model_copy(
            update={
                "scale": scale,
                "scores": scores,
                "flags": reading.flags,
                "issues_found": reading.issues,
                "rationale": reading.rationale if reading.decided else f"undecided: {reading.rationale}".strip(),
                "raw": answer.content,
                "confidences": confidences_of(reading, answer, scores),
            }
        )
        with project.transaction():
            verdict_id, created = calls.record_verdict(project, verdict, endpoint, answer_facts(answer), actor)
            if created and ask.after is not None:
                ask.after(verdict_id, answer.content)
        if created and on_stored is not None:
            on_stored([verdict_id])

    return store


def _fail(project: Project, ask: _Ask, endpoint: str):
    v = ask.verdict

    def store(exc: ChatError) -> None:
        calls.record_failure(
            project,
            "judge",
            endpoint,
            str(exc),
            {
                "judge": v.judge,
                "subject": v.subject,
                "answer_order": v.answer_order,
                "repetition": v.repetition,
                "model": v.judge_model,
            },
            attempts=exc.attempts,
            retry_errors=getattr(exc, "retry_errors", None),
        )

    return store


def judged(project: Project, options: JudgeOptions) -> list[tuple[Verdict, str, str]]:
    """(verdict, prompt, model of its run) of every stored verdict the
    options ask for (asked now or before), for the judge gate
    (reviewer.core.judging.gates)."""
    wanted = {(a.verdict.subject, a.verdict.judge, a.verdict.method.value) for a in plan(project, options)}
    runs = {r["id"]: r for r in repo_runs.run_rows(project)}
    out = []
    for v in judging.verdicts(project):
        if (v.subject, v.judge, v.method.value) in wanted and v.run_id in runs:
            out.append((v, runs[v.run_id]["prompt"], runs[v.run_id]["model"]))
    return out
