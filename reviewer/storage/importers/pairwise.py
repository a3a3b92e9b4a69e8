"""Importers of pairwise-judging benchmarks: PandaLM and LLMBar.

Both give, per pair, an instruction (a text item), two answers (two runs of
one free-text prompt) and verdicts on the pair: its subject is
``f"pair:{run_a}:{run_b}"`` with the run ids in the source's original order,
and every winner is stored normalised (``core.judging.verdicts.normalise`` on scale
'winner': '1' = the first answer won, '2', 'tie', or None when the judge gave
no usable answer -- the judge's own text stays in ``Verdict.raw``).

**pairwise-pandalm** (github.com/WeOpenML/PandaLM ``data/``), a folder with

    testset-v1.json             [{idx, cmp_key 'modelA_modelB', instruction, input,
                                  response1, response2, annotator1..3: 0=tie|1|2, ...}]
    <judge>-testset-v1.json     [{idx, <p>_result, <p>_reason, <p>_reference}]
                                e.g. gpt-3.5-turbo ('1'|'2'|'Tie'|'garbage'),
                                pandalm-7b (0|1|2 as ints)

Item ``pandalm-<idx>`` (text: instruction, a blank line, input), prompt
'pandalm-testset', runs of the two models named by ``cmp_key`` (split on '_';
when that does not give two different names, 'response1'/'response2').
Verdicts: annotator1..3 (method human) and each judge file (method pairwise,
judge = file name before '-testset-v1.json', rationale = reason, answer order
'ab'); a judge's reference answer becomes an item reference (source = judge).

**pairwise-llmbar** (github.com/princeton-nlp/LLMBar), a *split* folder

    dataset.json                [{input, output_1, output_2, label: 1|2}]  gold label
    result_<Judge>_<Strategy>.json   the same records plus 'results'
    (or evaluators/<Judge>/<Strategy>/result.json, the repository's layout)

or a folder whose subfolders are splits (e.g. Natural and MT-Bench). Item
``llmbar-<split>-<i>`` (i: 0-based position in dataset.json, text: input),
prompt 'llmbar-<split>', runs of models 'output_1' and 'output_2' (LLMBar does not
name the answering models). The gold label is a verdict of judge 'gold'
(method human, no answer order). ``results`` is a list (or a string holding a
Python literal list, read with ``ast.literal_eval``); its last element holds
``{'swap = False': {'completion': [text, finish], 'winner': '1'|'2'|None},
'swap = True': {...}}`` -- LLMBar's own statistics read ``results[-1]`` too.
Each becomes a verdict of judge '<Judge>/<Strategy>' (method pairwise),
answer order 'ab' (swap = False) and 'ba' (swap = True). LLMBar's
``evaluate.py`` already maps the swapped winner back to the original order
(``"winner": winner if not swap else reverse_label(winner)``) and the data
agree (GPT-4 answering "Output (a)" with the answers swapped is stored as
winner '2'), so winners are stored as given, never swapped again. Rating
evaluators (``score_1``/``score_2`` instead of a real swap) give one verdict,
'ab', from the two scores ('tie' when equal).
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

from reviewer.core.judging.rubrics import with_version
from reviewer.core.judging.verdicts import Method, Scale, Verdict, normalise
from reviewer.core.models import AnswerSchema, Item, Prompt
from reviewer.storage.importers.base import ImportOptions, ImportReport, load_json
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.project.db import Project
from reviewer.storage.repo import items as repo_items
from reviewer.storage.repo import runs as repo_runs
from reviewer.storage.repo.item_metadata import add_item_metadata

PANDALM_TESTSET = "testset-v1.json"
_PANDALM_JUDGE_SUFFIX = "-" + PANDALM_TESTSET
PANDALM_PROMPT = "pandalm-testset"
PANDALM_ANNOTATORS = ("annotator1", "annotator2", "annotator3")
LLMBAR_PROMPT = "llmbar"
LLMBAR_MODELS = ("output_1", "output_2")
#: Run "models" that only name an answer's position, where the dataset names
#: no answering model (LLMBar; a PandaLM record without a usable cmp_key):
#: never shown as models in win rates.
UNNAMED_MODELS = frozenset({*LLMBAR_MODELS, "response1", "response2"})
_LLMBAR_RESULT = re.compile(r"^result_(?P<judge>[^_]+)_(?P<strategy>.+)\.json$")


# -- shared helpers (also used by the failter and jsonl-verdicts importers) ----
def text_item(project: Project, name: str, text: str, report: ImportReport, actor: str | None = None) -> int:
    """The id of the text item ``name``, made with ``text`` when missing
    (an existing item keeps its text). Counts 'items' in ``report``."""
    existing = repo_items.item_by_name(project, name)
    if existing:
        report.count("items", False)
        assert existing.id is not None  # read from the database
        return existing.id
    item_id, created = repo_items.upsert_item(project, Item(name=name, kind="text", text=text), actor)
    report.count("items", created)
    return item_id


def free_prompt(project: Project, name: str, text: str, report: ImportReport, actor: str | None = None) -> int:
    """The id of prompt ``name`` (answer schema 'free' when it is made here:
    free text is shown, not scored). Counts 'prompts' in ``report``."""
    prompt_id, created = repo_items.upsert_prompt(
        project, Prompt(name=name, text=text, schema=AnswerSchema.FREE), actor=actor
    )
    report.count("prompts", created)
    return prompt_id


def answer_run(
    project: Project,
    item_id: int,
    prompt_id: int,
    model: str,
    output: str,
    source: str,
    report: ImportReport,
    what: str,
    actor: str | None = None,
) -> int | None:
    """The run of ``model``'s ``output`` (added unless the same output is
    there). None, with a skip naming ``what``, when the run conflicts."""
    run_id, status = repo_runs.add_run(project, item_id, prompt_id, model, output, source=source, actor=actor)
    if run_id is None:
        report.skip(what, status)
        return None
    report.count("runs", status == "added")
    return run_id


def store_verdict(project: Project, verdict: Verdict, report: ImportReport, actor: str | None = None) -> int:
    """Add ``verdict`` unless the same one is there (a judge naming no
    rubric version gets rubrics.imported_version); counts 'verdicts'."""
    verdict_id, created = judging.add_verdict(project, with_version(verdict), actor)
    report.count("verdicts", created)
    return verdict_id


def store_pair_verdict(
    project: Project,
    run_a: int,
    run_b: int,
    winner: Any,
    report: ImportReport,
    actor: str | None = None,
    **fields: Any,
) -> int:
    """``store_verdict`` of a verdict on the pair (run_a, run_b) in its
    original order: its subject, runs, the winner scale and ``winner``
    (normalised: '1', '2', 'tie' or None), with ``fields`` (judge, method,
    raw, ...) as given."""
    verdict = Verdict(
        subject=pair_subject(run_a, run_b),
        run_id=run_a,
        other_run_id=run_b,
        scale=Scale.WINNER,
        scores={"winner": winner},
        **fields,
    )
    return store_verdict(project, verdict, report, actor)


def store_reference(project: Project, item_id: int, text: Any, source: str, report: ImportReport) -> bool:
    """Store a reference answer of an item; empty or non-text references are
    not stored (False). Counts 'references'."""
    if not isinstance(text, str) or not text.strip():
        return False
    report.count("references", judging.set_reference(project, item_id, text, source))
    return True


def as_text(value: Any) -> str:
    """A source value as run or item text: text as is, None as '', other
    JSON values (true, 3) as Python prints them ('True', '3')."""
    if value is None:
        return ""
    return value if isinstance(value, str) else str(value)


def pair_subject(run_a: int, run_b: int) -> str:
    """The subject key of a pair of runs, in the original order."""
    return f"pair:{run_a}:{run_b}"


def _load_json(path: Path, report: ImportReport) -> Any:
    try:
        return load_json(path)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        why = str(exc) if str(exc).startswith("nested") else f"cannot read JSON ({exc})"
        report.skip(path.name, why)
        return None


# -- PandaLM -------------------------------------------------------------------------
def detect_pandalm(source: Path) -> bool:
    """A folder holding PandaLM's testset-v1.json."""
    return source.is_dir() and (source / PANDALM_TESTSET).is_file()


def pandalm_models(cmp_key: Any) -> tuple[str, str] | None:
    """The two model names of a PandaLM ``cmp_key`` ('bloom-7b_llama-7b'),
    or None when it does not split on '_' into two different names (a model
    name holding '_' would make the split ambiguous)."""
    if not isinstance(cmp_key, str):
        return None
    parts = cmp_key.split("_")
    if len(parts) != 2 or not all(p.strip() for p in parts) or parts[0] == parts[1]:
        return None
    return parts[0].strip(), parts[1].strip()


def _pandalm_judges(folder: Path) -> list[tuple[str, Path]]:
    return [
        (p.name[: -len(_PANDALM_JUDGE_SUFFIX)], p)
        for p in sorted(folder.glob("*" + _PANDALM_JUDGE_SUFFIX))
        if p.is_file() and p.name != PANDALM_TESTSET and len(p.name) > len(_PANDALM_JUDGE_SUFFIX)
    ]


def import_pandalm(project: Project, folder: Path, options: ImportOptions) -> ImportReport:
    """Import a PandaLM test set folder (see module doc): 999 pairs with
    three human annotators and one verdict per judge file. Records that are
    not objects or lack fields are skipped with the reason. Idempotent."""
    report = ImportReport(format="pairwise-pandalm")
    actor = options.actor
    data = _load_json(folder / PANDALM_TESTSET, report)
    if data is None:
        return report
    if not isinstance(data, list):
        report.skip(PANDALM_TESTSET, "expected a list of records")
        return report
    pairs: dict[Any, tuple[int, int, int]] = {}  # idx -> (item id, run a, run b)
    fallback = not_text = 0
    with project.batched(auto=True):
        prompt_id = free_prompt(project, PANDALM_PROMPT, "", report, actor)
        for pos, rec in enumerate(data):
            where = f"{PANDALM_TESTSET}[{pos}]"
            problem = _pandalm_problem(rec, pairs)
            if problem:
                report.skip(where, problem)
                continue
            idx = rec["idx"]
            item_id = _pandalm_item(project, rec, report, actor)
            models = pandalm_models(rec.get("cmp_key"))
            if models is None:
                fallback += 1
                models = ("response1", "response2")
            outputs = [rec["response1"], rec["response2"]]
            not_text += sum(not isinstance(o, str) for o in outputs)
            runs = [
                answer_run(
                    project,
                    item_id,
                    prompt_id,
                    model,
                    as_text(output),
                    PANDALM_TESTSET,
                    report,
                    f"{where} {key}",
                    actor,
                )
                for model, key, output in zip(models, ("response1", "response2"), outputs, strict=True)
            ]
            run_a, run_b = runs
            if run_a is None or run_b is None:
                continue
            pairs[idx] = (item_id, run_a, run_b)
            _pandalm_annotators(project, rec, run_a, run_b, report, actor)
        if not_text:
            report.notes.append(
                f"{not_text} response(s) are JSON values, not text (e.g. true): stored as their Python text ('True')"
            )
        if fallback:
            report.notes.append(f"{fallback} cmp_key(s) did not name two models: runs are 'response1'/'response2'")
        for judge, path in _pandalm_judges(folder):
            _pandalm_judge(project, judge, path, pairs, report, actor)
    return report


def _pandalm_problem(rec: Any, pairs: dict) -> str:
    """Why a PandaLM test set record cannot be imported ('' when it can): not an object,
    a missing field, an idx that is neither a number nor a text, or one already in ``pairs``."""
    missing = [k for k in ("idx", "instruction", "response1", "response2") if not isinstance(rec, dict) or k not in rec]
    if missing:
        return f"missing {', '.join(missing)}" if isinstance(rec, dict) else "not an object"
    idx = rec["idx"]
    if not isinstance(idx, (int, str)):
        return f"idx {idx!r} is neither a number nor a text"
    if idx in pairs:
        return f"idx {idx} appears twice; the first is kept"
    return ""


def _pandalm_item(project: Project, rec: dict, report: ImportReport, actor: str | None) -> int:
    """The text item 'pandalm-<idx>' of a record: its instruction, then its input after a
    blank line; its motivation_app kept as metadata. Returns the item id."""
    text = as_text(rec["instruction"])
    if rec.get("input"):
        text += "\n\n" + as_text(rec["input"])
    item_id = text_item(project, f"pandalm-{rec['idx']}", text, report, actor)
    if isinstance(rec.get("motivation_app"), str) and rec["motivation_app"]:
        add_item_metadata(project, item_id, {"motivation_app": rec["motivation_app"]})
    return item_id


def _pandalm_annotators(
    project: Project, rec: dict, run_a: int, run_b: int, report: ImportReport, actor: str | None
) -> None:
    """The human annotators' verdicts of a record on the pair (``run_a``, ``run_b``), answer order 'ab'."""
    for annotator in PANDALM_ANNOTATORS:
        if annotator not in rec:
            continue
        raw = rec[annotator]
        store_pair_verdict(
            project,
            run_a,
            run_b,
            normalise(raw, Scale.WINNER),
            report,
            actor,
            judge=annotator,
            method=Method.HUMAN,
            raw="" if raw is None else str(raw),
            answer_order="ab",
            source=PANDALM_TESTSET,
        )


def _pandalm_judge(
    project: Project, judge: str, path: Path, pairs: dict, report: ImportReport, actor: str | None
) -> None:
    data = _load_json(path, report)
    if data is None:
        return
    if not isinstance(data, list):
        report.skip(path.name, "expected a list of records")
        return
    undecided: dict[str, int] = {}
    no_reference = 0
    for pos, rec in enumerate(data):
        where = f"{path.name}[{pos}]"
        if not isinstance(rec, dict) or "idx" not in rec:
            report.skip(where, "not an object with 'idx'")
            continue
        result_keys = [k for k in rec if k.endswith("_result")]
        if len(result_keys) != 1:
            report.skip(where, "expected exactly one '<judge>_result' field")
            continue
        prefix = result_keys[0][: -len("_result")]
        if not isinstance(rec["idx"], (int, str)) or rec["idx"] not in pairs:
            report.skip(where, f"idx {rec['idx']} is not a pair of {PANDALM_TESTSET}")
            continue
        item_id, run_a, run_b = pairs[rec["idx"]]
        raw = rec[result_keys[0]]
        winner = normalise(raw, Scale.WINNER)
        if winner is None:
            undecided[str(raw)] = undecided.get(str(raw), 0) + 1
        reason = rec.get(f"{prefix}_reason")
        store_pair_verdict(
            project,
            run_a,
            run_b,
            winner,
            report,
            actor,
            judge=judge,
            judge_model=judge,
            method=Method.PAIRWISE,
            rationale=reason if isinstance(reason, str) else "",
            raw="" if raw is None else str(raw),
            answer_order="ab",
            source=path.name,
        )
        if not store_reference(project, item_id, rec.get(f"{prefix}_reference"), judge, report):
            no_reference += 1
    if undecided:
        shown = ", ".join(f"{n} x {raw!r}" for raw, n in sorted(undecided.items()))
        report.notes.append(
            f"{judge}: {sum(undecided.values())} undecided verdict(s) stored as winner None (raw kept): {shown}"
        )
    if no_reference:
        report.notes.append(f"{judge}: {no_reference} records without a reference answer")


# -- LLMBar --------------------------------------------------------------------------
def _llmbar_result_files(folder: Path) -> list[tuple[str, Path]]:
    """(judge name, path) of a split's result files, in both layouts."""
    found = []
    for path in sorted(folder.glob("result_*.json")):
        m = _LLMBAR_RESULT.match(path.name)
        if m and path.is_file():
            found.append((f"{m['judge']}/{m['strategy']}", path))
    evaluators = folder / "evaluators"
    if evaluators.is_dir():
        for path in sorted(evaluators.glob("*/*/result.json")):
            found.append((f"{path.parent.parent.name}/{path.parent.name}", path))
    return found


def _is_llmbar_split(folder: Path) -> bool:
    return folder.is_dir() and (folder / "dataset.json").is_file() and bool(_llmbar_result_files(folder))


def _llmbar_splits(source: Path) -> list[Path]:
    if _is_llmbar_split(source):
        return [source]
    if not source.is_dir():
        return []
    return [p for p in sorted(source.iterdir()) if _is_llmbar_split(p)]


def detect_llmbar(source: Path) -> bool:
    """A folder with dataset.json and LLMBar result files (result_*.json or
    evaluators/*/*/result.json), or a folder with such subfolders."""
    return bool(_llmbar_splits(source))


def llmbar_final_result(results: Any) -> dict:
    """The final result entry of an LLMBar record's ``results`` (a list, or a
    string holding a Python literal list, parsed with ``ast.literal_eval``,
    never ``eval``). Raises ValueError when it cannot be read."""
    if isinstance(results, str):
        try:
            results = ast.literal_eval(results)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError) as exc:
            raise ValueError(f"'results' is not a Python literal ({type(exc).__name__})") from None
    if not isinstance(results, list) or not results or not isinstance(results[-1], dict):
        raise ValueError("'results' is not a list ending in an object")
    return results[-1]


def _completion_text(entry: dict) -> str:
    completion = entry.get("completion")
    if isinstance(completion, (list, tuple)) and completion:
        completion = completion[0]
    return completion if isinstance(completion, str) else ""


def llmbar_verdicts(final: dict) -> list[tuple[str, Any, str, str]]:
    """(answer order, raw winner, rationale, raw) of each verdict in a final
    result entry: 'ab' from 'swap = False', 'ba' from 'swap = True' (the
    winner already in the original order, as LLMBar stores it); for a rating
    evaluator one 'ab' verdict from score_1 and score_2. Raises ValueError
    when the entry has neither."""
    if "score_1" in final and "score_2" in final:
        texts = [_completion_text({"completion": final[k]}) for k in ("score_1", "score_2")]
        try:
            s1, s2 = (float(t.strip()) for t in texts)
            winner: Any = "1" if s1 > s2 else "2" if s2 > s1 else "tie"
        except ValueError:
            winner = None
        raw = json.dumps({"score_1": final["score_1"], "score_2": final["score_2"]}, ensure_ascii=False)
        return [("ab", winner, f"score 1: {texts[0]}; score 2: {texts[1]}", raw)]
    out = []
    for key, order in (("swap = False", "ab"), ("swap = True", "ba")):
        entry = final.get(key)
        if isinstance(entry, dict):
            out.append((order, entry.get("winner"), _completion_text(entry), json.dumps(entry, ensure_ascii=False)))
    if not out:
        raise ValueError("the final result has neither 'swap = False' nor 'swap = True'")
    return out


def import_llmbar(project: Project, source: Path, options: ImportOptions) -> ImportReport:
    """Import LLMBar split folders (see module doc): pairs with the gold
    label and, per result file, both answer orders of the judge. Result
    records that match no dataset pair, or whose results cannot be read, are
    skipped with the reason. Idempotent."""
    report = ImportReport(format="pairwise-llmbar")
    with project.batched(auto=True):
        for split in _llmbar_splits(source):
            # one prompt per split: Natural and MT-Bench pairs are different tasks
            prompt_id = free_prompt(project, f"{LLMBAR_PROMPT}-{split.name}", "", report, options.actor)
            _llmbar_split(project, split, prompt_id, report, options.actor)
    return report


def _llmbar_split(project: Project, folder: Path, prompt_id: int, report: ImportReport, actor: str | None) -> None:
    split = folder.name
    data = _load_json(folder / "dataset.json", report)
    if not isinstance(data, list):
        if data is not None:
            report.skip(f"{split}/dataset.json", "expected a list of pairs")
        return
    pairs: dict[tuple, tuple[int, int]] = {}
    for i, rec in enumerate(data):
        where = f"{split}/dataset.json[{i}]"
        if not isinstance(rec, dict) or not all(isinstance(rec.get(k), str) for k in ("input", "output_1", "output_2")):
            report.skip(where, "needs text 'input', 'output_1' and 'output_2'")
            continue
        item_id = text_item(project, f"llmbar-{split}-{i}", rec["input"], report, actor)
        add_item_metadata(project, item_id, {"subset": split})
        runs = [
            answer_run(
                project,
                item_id,
                prompt_id,
                model,
                rec[model],
                f"{split}/dataset.json",
                report,
                f"{where} {model}",
                actor,
            )
            for model in LLMBAR_MODELS
        ]
        run_a, run_b = runs
        if run_a is None or run_b is None:
            continue
        pairs.setdefault((rec["input"], rec["output_1"], rec["output_2"]), (run_a, run_b))
        if "label" in rec:
            label = rec["label"]
            store_pair_verdict(
                project,
                run_a,
                run_b,
                normalise(label, Scale.WINNER),
                report,
                actor,
                judge="gold",
                method=Method.HUMAN,
                raw=str(label),
                source=f"{split}/dataset.json",
            )
    for judge, path in _llmbar_result_files(folder):
        _llmbar_results(
            project, split, judge, f"{split}/{path.relative_to(folder).as_posix()}", path, pairs, report, actor
        )


def _llmbar_results(
    project: Project,
    split: str,
    judge: str,
    name: str,
    path: Path,
    pairs: dict,
    report: ImportReport,
    actor: str | None,
) -> None:
    data = _load_json(path, report)
    if not isinstance(data, list):
        if data is not None:
            report.skip(name, "expected a list of records")
        return
    undecided = 0
    for i, rec in enumerate(data):
        where = f"{name}[{i}]"
        if not isinstance(rec, dict):
            report.skip(where, "not an object")
            continue
        key = (rec.get("input"), rec.get("output_1"), rec.get("output_2"))
        if key not in pairs:
            report.skip(where, "input and outputs match no pair of dataset.json")
            continue
        try:
            found = llmbar_verdicts(llmbar_final_result(rec.get("results")))
        except ValueError as exc:
            report.skip(where, str(exc))
            continue
        run_a, run_b = pairs[key]
        for order, raw_winner, rationale, raw in found:
            winner = normalise(raw_winner, Scale.WINNER)
            undecided += winner is None
            store_pair_verdict(
                project,
                run_a,
                run_b,
                winner,
                report,
                actor,
                judge=judge,
                judge_model=judge.split("/")[0],
                prompt_version=judge.split("/", 1)[-1],
                method=Method.PAIRWISE,
                rationale=rationale,
                raw=raw,
                answer_order=order,
                source=name,
            )
    if undecided:
        report.notes.append(f"{split} {judge}: {undecided} undecided verdict(s) stored as winner None (raw kept)")
