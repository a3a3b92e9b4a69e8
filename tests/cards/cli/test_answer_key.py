"""The answer-key folder: import, `reviewer fidelity`, on a folder the test
makes (one photo, two answers, a key)."""

from __future__ import annotations

import json

from click.testing import CliRunner
from PIL import Image

from reviewer.cli import main


def _folder(tmp_path, key_findings):
    root = tmp_path / "keyed"
    (root / "images").mkdir(parents=True)
    (root / "runs").mkdir()
    Image.new("RGB", (400, 300), "white").save(root / "images" / "desk_w400.jpg")
    gt = {
        "desk": {
            "image_size": {"width": 800, "height": 600},
            "piles": [{"label": "top-row", "cards": ["Wild Card", "To be kept clean"]}],
            "boxes": [
                {
                    "text": "Wild Card",
                    "pile": "top-row",
                    "bbox": {"x_min": 100, "y_min": 100, "x_max": 300, "y_max": 300},
                },
                {
                    "text": "To be kept clean",
                    "pile": "top-row",
                    "bbox": {"x_min": 400, "y_min": 100, "x_max": 600, "y_max": 300},
                },
            ],
        }
    }
    (root / "ground-truth.json").write_text(json.dumps(gt))
    piles = {"piles": [{"label": "row-1", "cards": ["Wild Card", "Tobe kept clcan"]}]}
    cards = {
        "cards": [
            {"text": "CARD", "bbox": {"x_min": 0.1, "y_min": 0.15, "x_max": 0.4, "y_max": 0.5}},
            {"text": "Tools and tasks", "bbox": {"x_min": 0.0, "y_min": 0.0, "x_max": 0.2, "y_max": 0.05}},
        ]
    }
    (root / "runs" / "desk_w400_piles.txt").write_text("Here:\n```json\n" + json.dumps(piles) + "\n```\n")
    (root / "runs" / "desk_w400_cards.txt").write_text("```json\n" + json.dumps(cards) + "\n```\n")
    (root / "expected.json").write_text(json.dumps(key_findings))
    return root


KEY = {
    "desk_w400_piles.txt": {
        "image": "desk",
        "schema": "piles",
        "text_accuracy": 0.5,
        "findings": [{"code": "OCR", "gt_card": "To be kept clean", "model_card": "Tobe kept clcan"}],
    },
    "desk_w400_cards.txt": {
        "image": "desk",
        "schema": "cards",
        "text_accuracy": 0.0,
        "findings": [
            {"code": "PARTIAL", "gt_card": "Wild Card", "model_card": "CARD"},
            {"code": "HALLUC", "gt_card": None, "model_card": "Tools and tasks"},
            {"code": "MISS", "gt_card": "To be kept clean", "model_card": None},
        ],
    },
}


def test_fidelity_command_and_import(tmp_path):
    root = _folder(tmp_path, KEY)
    out = CliRunner().invoke(main, ["fidelity", str(root), "--json"])
    assert out.exit_code == 0, out.output
    figures = json.loads(out.output)
    assert figures["f1"] == 1.0 and figures["halluc_missed"] == [] and figures["runs"] == 2
    db = tmp_path / "p.db"
    out = CliRunner().invoke(main, ["import", str(db), str(root), "--model", "reader"])
    assert out.exit_code == 0 and "format: answer-key" in out.output, out.output
    assert "1 items" in out.output and "2 runs" in out.output
    payload = json.loads(CliRunner().invoke(main, ["score", str(db), "--json"]).output)
    codes = sorted(f["code"] for r in payload["runs"] for f in r["findings"])
    assert codes == ["HALLUC", "MISS", "OCR", "PARTIAL"]


def test_fidelity_counts_a_wrong_key_and_a_missed_halluc(tmp_path):
    key = json.loads(json.dumps(KEY))
    key["desk_w400_cards.txt"]["findings"][1] = {"code": "HALLUC", "gt_card": None, "model_card": "something else"}
    out = CliRunner().invoke(main, ["fidelity", str(_folder(tmp_path, key)), "--json"])
    figures = json.loads(out.output)
    assert figures["codes"]["HALLUC"] == {"tp": 0, "fp": 1, "fn": 1, "precision": 0.0, "recall": 0.0, "f1": 0.0}
    assert figures["halluc_missed"] == [["desk_w400_cards.txt", "something else"]]


def test_fidelity_on_a_folder_without_a_key_is_one_line(tmp_path):
    out = CliRunner().invoke(main, ["fidelity", str(tmp_path)])
    assert out.exit_code != 0
    assert out.output.strip().startswith("Error:") and out.output.strip().count("\n") == 0
