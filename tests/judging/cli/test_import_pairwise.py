"""Pairwise importers (PandaLM, LLMBar) on the real data and on small
hand-made folders."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from reviewer.core.judging.verdicts import Method, Scale
from reviewer.storage.importers import detect_format, import_source
from reviewer.storage.importers.pairwise import llmbar_final_result, pandalm_models
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.repo import items as repo_items
from reviewer.storage.repo import runs as repo_runs
from tests.helpers.paths import SAMPLES, shared


def _by_subject(project) -> dict[str, list]:
    out: dict[str, list] = {}
    for v in judging.verdicts(project):
        out.setdefault(v.subject, []).append(v)
    return out


def _runs(project) -> dict[int, dict]:
    return {r["id"]: r for r in repo_runs.run_rows(project)}


# -- PandaLM ------------------------------------------------------------------------------
def test_pandalm_models_split_and_fallback():
    assert pandalm_models("bloom-7b_llama-7b") == ("bloom-7b", "llama-7b")
    assert pandalm_models("cerebras-gpt-6.7B_opt-7b") == ("cerebras-gpt-6.7B", "opt-7b")
    assert pandalm_models("my_model_other") is None  # ambiguous: a name holds '_'
    assert pandalm_models("same_same") is None
    assert pandalm_models(None) is None


def test_pandalm_real_data(project):
    folder = shared("pairwise-pandalm")
    assert detect_format(folder) == "pairwise-pandalm"
    report = import_source(project, folder)
    assert report.added["items"] == 999
    assert report.added["runs"] == 1998
    assert report.added["verdicts"] == 999 * 5
    assert not report.skipped

    subjects = _by_subject(project)
    assert len(subjects) == 999
    assert all(len(vs) == 5 for vs in subjects.values())
    runs = _runs(project)
    testset = {r["idx"]: r for r in json.loads((folder / "testset-v1.json").read_text())}
    for subject, vs in subjects.items():
        _, a, b = subject.split(":")
        assert (vs[0].run_id, vs[0].other_run_id) == (int(a), int(b))
        assert {v.judge for v in vs} == {"annotator1", "annotator2", "annotator3", "gpt-3.5-turbo", "pandalm-7b"}
        item = runs[int(a)]["item"]
        rec = testset[int(item.removeprefix("pandalm-"))]
        assert [runs[int(a)]["model"], runs[int(b)]["model"]] == rec["cmp_key"].split("_")
        assert [runs[int(a)]["output"], runs[int(b)]["output"]] == [str(rec["response1"]), str(rec["response2"])]

    everything = judging.verdicts(project)
    humans = [v for v in everything if v.method == Method.HUMAN]
    assert len(humans) == 3 * 999 and {v.scale for v in everything} == {Scale.WINNER}
    gpt = [v for v in everything if v.judge == "gpt-3.5-turbo"]
    assert all(v.method == Method.PAIRWISE and v.answer_order == "ab" for v in gpt)
    winners = Counter(v.scores["winner"] for v in gpt)
    assert winners == {"1": 460, "2": 476, "tie": 38, None: 25}
    assert Counter(v.raw for v in gpt if v.scores["winner"] is None) == {"garbage": 25}
    assert Counter(v.raw for v in gpt if v.scores["winner"] == "tie") == {"Tie": 38}
    panda = Counter(v.scores["winner"] for v in everything if v.judge == "pandalm-7b")
    assert panda == {"1": 433, "2": 459, "tie": 107}
    assert Counter(v.scores["winner"] for v in humans if v.judge == "annotator1") == {"1": 427, "2": 475, "tie": 97}
    assert any("25 undecided" in n and "garbage" in n for n in report.notes)
    assert any("6 response(s) are JSON values" in n for n in report.notes)  # idx 157-164 hold true

    item = repo_items.item_by_name(project, "pandalm-0")
    assert item.kind == "text" and item.text.startswith("The sentence you are given might be too wordy")
    assert item.text.endswith("please let me know.") and "\n\n" in item.text
    sources = [s for s, _ in judging.references(project, item.id)]
    assert sources == ["gpt-3.5-turbo", "pandalm-7b"]
    assert report.added["references"] == 999 + 999 - 35  # 35 gpt records have no reference

    again = import_source(project, folder)
    assert again.added == {}
    assert again.existing["verdicts"] == 999 * 5


def test_pandalm_small_folder_skips_what_it_cannot_use(project, tmp_path):
    (tmp_path / "testset-v1.json").write_text(
        json.dumps(
            [
                {
                    "idx": 0,
                    "cmp_key": "a_b",
                    "instruction": "Say hi",
                    "input": "",
                    "response1": "hi",
                    "response2": "hello",
                    "annotator1": 1,
                    "annotator2": 0,
                    "annotator3": 2,
                },
                {
                    "idx": 1,
                    "cmp_key": "x",
                    "instruction": "Count",
                    "input": "1 2",
                    "response1": "3",
                    "response2": "three",
                    "annotator1": 2,
                },
                {"idx": 2, "instruction": "no responses"},
            ]
        )
    )
    (tmp_path / "judge-z-testset-v1.json").write_text(
        json.dumps(
            [
                {"idx": 0, "z_result": "Draw", "z_reason": "both fine", "z_reference": "hi"},
                {"idx": 7, "z_result": "1"},
                {"idx": 1, "z_result": "?", "z_reason": ""},
            ]
        )
    )
    report = import_source(project, tmp_path)
    assert report.format == "pairwise-pandalm"
    assert report.added["items"] == 2 and report.added["verdicts"] == 3 + 1 + 2
    reasons = dict(report.skipped)
    assert "missing response1, response2" in reasons["testset-v1.json[2]"]
    assert "idx 7" in reasons["judge-z-testset-v1.json[1]"]
    models = {r["model"] for r in repo_runs.run_rows(project)}
    assert models == {"a", "b", "response1", "response2"}
    z = {v.raw: v for v in judging.verdicts(project) if v.judge == "judge-z"}
    assert z["Draw"].scores == {"winner": "tie"} and z["Draw"].rationale == "both fine"
    assert z["?"].scores == {"winner": None}
    assert repo_items.item_by_name(project, "pandalm-1").text == "Count\n\n1 2"


# -- LLMBar -----------------------------------------------------------------------------------
def test_llmbar_real_data_both_splits(project):
    folder = shared("pairwise-llmbar")
    assert detect_format(folder) == "pairwise-llmbar"
    assert detect_format(folder / "Natural") == "pairwise-llmbar"
    report = import_source(project, folder)
    assert not report.skipped
    assert report.added["items"] == 300 and report.added["runs"] == 600
    subjects = _by_subject(project)
    runs = _runs(project)
    split_of = {s: runs[vs[0].run_id]["item"].removeprefix("llmbar-").rsplit("-", 1)[0] for s, vs in subjects.items()}
    assert Counter(split_of.values()) == {"Natural": 100, "MT-Bench": 200}
    expected = {"Natural": {"gold", "GPT-4/Vanilla", "ChatGPT/CoT"}, "MT-Bench": {"gold", "GPT-4/Vanilla_NoRules"}}
    for subject, vs in subjects.items():
        judges = Counter(v.judge for v in vs)
        assert set(judges) == expected[split_of[subject]]
        assert judges["gold"] == 1
        for v in vs:
            if v.judge == "gold":
                assert v.method == Method.HUMAN and v.answer_order is None and v.scores["winner"] in ("1", "2")
            else:
                assert judges[v.judge] == 2 and v.method == Method.PAIRWISE
                assert {w.answer_order for w in vs if w.judge == v.judge} == {"ab", "ba"}
    assert report.added["verdicts"] == 300 + 2 * 100 * 2 + 2 * 200

    # Swap convention: LLMBar stores the swapped winner in the ORIGINAL order.
    # With the answers swapped, "Output (a)" is the original output_2, so a
    # terse GPT-4 answer "Output (a)" must be winner '2' (and "(b)" -> '1').
    checked = 0
    for v in judging.verdicts(project):
        if v.judge.startswith("GPT-4/") and v.answer_order == "ba":
            said = json.loads(v.raw)["completion"][0]
            assert {"Output (a)": "2", "Output (b)": "1"}[said] == v.scores["winner"]
            assert v.rationale == said
            checked += 1
        if v.judge.startswith("GPT-4/") and v.answer_order == "ab":
            assert {"Output (a)": "1", "Output (b)": "2"}[json.loads(v.raw)["completion"][0]] == v.scores["winner"]
    assert checked == 300

    chat = [v for v in judging.verdicts(project) if v.judge == "ChatGPT/CoT"]
    undecided = [v for v in chat if v.scores["winner"] is None]
    assert len(undecided) == 1 and undecided[0].answer_order == "ab"
    assert json.loads(undecided[0].raw)["winner"] is None and undecided[0].rationale
    gold = Counter(v.scores["winner"] for v in judging.verdicts(project) if v.judge == "gold")
    assert gold == {"1": 42 + 101, "2": 58 + 99}
    first = repo_items.item_by_name(project, "llmbar-Natural-0")
    data = json.loads((folder / "Natural" / "dataset.json").read_text())
    assert first.text == data[0]["input"]

    again = import_source(project, folder)
    assert again.added == {} and again.existing["verdicts"] == report.added["verdicts"]


def _llmbar_split(folder: Path, results) -> None:
    folder.mkdir(parents=True)
    pairs = [{"input": f"q{i}", "output_1": f"a{i}", "output_2": f"b{i}", "label": 1 + i % 2} for i in range(3)]
    (folder / "dataset.json").write_text(json.dumps(pairs))
    (folder / "result_Judge-X_Swap_CoT.json").write_text(
        json.dumps(
            [{**p, "results": r} for p, r in zip(pairs, results, strict=True)]
            + [{"input": "other", "output_1": "", "output_2": "", "results": []}]
        )
    )


def test_llmbar_results_as_python_literal_string(project, tmp_path):
    literal = (
        "[['aux', 'stop'], {'swap = False': {'completion': ['Output (b)', 'stop'], 'winner': '2'}, "
        "'swap = True': {'completion': ['Output (b)', 'stop'], 'winner': '1'}}]"
    )
    _llmbar_split(
        tmp_path / "Tiny",
        [
            literal,
            "__import__('os').system('echo pwned')",
            [{"swap = False": {"completion": ["no idea", "stop"], "winner": None}}],
        ],
    )
    assert llmbar_final_result(literal)["swap = True"]["winner"] == "1"
    with pytest.raises(ValueError):
        llmbar_final_result("__import__('os')")
    report = import_source(project, tmp_path)
    assert report.format == "pairwise-llmbar"
    reasons = dict(report.skipped)
    assert "not a Python literal" in reasons["Tiny/result_Judge-X_Swap_CoT.json[1]"]
    assert "match no pair" in reasons["Tiny/result_Judge-X_Swap_CoT.json[3]"]
    judged = [v for v in judging.verdicts(project) if v.judge == "Judge-X/Swap_CoT"]
    assert [(v.answer_order, v.scores["winner"]) for v in judged] == [("ab", "2"), ("ba", "1"), ("ab", None)]
    assert judged[0].judge_model == "Judge-X" and judged[0].prompt_version == "Swap_CoT"
    assert repo_items.item_by_name(project, "llmbar-Tiny-2").text == "q2"


def test_llmbar_repository_layout_and_rating(project, tmp_path):
    split = tmp_path / "Adversarial"
    split.mkdir()
    pairs = [{"input": "q", "output_1": "a", "output_2": "b", "label": 2}]
    (split / "dataset.json").write_text(json.dumps(pairs))
    ev = split / "evaluators" / "GPT-4" / "Rating"
    ev.mkdir(parents=True)
    (ev / "result.json").write_text(
        json.dumps(
            [
                {
                    **pairs[0],
                    "results": [
                        {
                            "score_1": ["7", "stop"],
                            "score_2": ["7", "stop"],
                            "swap = False": {"winner": "2"},
                            "swap = True": {"winner": "1"},
                        }
                    ],
                }
            ]
        )
    )
    assert detect_format(split) == "pairwise-llmbar"
    import_source(project, split)
    rating = [v for v in judging.verdicts(project) if v.judge == "GPT-4/Rating"]
    assert len(rating) == 1 and rating[0].scores == {"winner": "tie"} and rating[0].answer_order == "ab"
    assert rating[0].source == "Adversarial/evaluators/GPT-4/Rating/result.json"


def test_card_folders_are_not_taken_for_pairwise():
    assert detect_format(SAMPLES) == "card-folder"
    assert detect_format(shared("go-wish-spike")) == "card-folder"


def test_cli_imports_pandalm(tmp_path):
    from click.testing import CliRunner

    from reviewer.cli import main

    folder = shared("pairwise-pandalm")
    result = CliRunner().invoke(main, ["import", str(tmp_path / "x.db"), str(folder)])
    assert result.exit_code == 0, result.output
    assert "format: pairwise-pandalm" in result.output and "4995 verdicts" in result.output
