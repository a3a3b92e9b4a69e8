"""Several annotators (docs/cards.md#several-annotators): two annotators' ground truth of the
sample, one with 2 cards read differently and 1 box moved, give the
hand-computed IoU-F1, CER and kappa and 3 ground-truth disputes in the
judges' queue; adjudicating them writes the consensus, which scoring uses."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from reviewer.cli import main
from reviewer.core.commands import UndoStack
from reviewer.core.judging.verdicts import DisputeKind
from reviewer.storage.annotators.ground_truth import annotators
from reviewer.storage.dispute_queue import agreement_table, refresh_disputes
from reviewer.storage.gt_adjudication import adjudicate
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.project.db import ProjectError, open_project
from reviewer.storage.repo import findings as repo_findings
from reviewer.storage.repo import ground_truth as repo_ground_truth
from reviewer.storage.repo import items as repo_items
from reviewer.storage.store import ProjectStore

# y 1001.6..1194.4; the overlap is 1054.4 - 1001.6 = 52.8 high, so
# IoU = 52.8 / (2 x 192.8 - 52.8) = 52.8 / 332.8
MOVED_IOU = 52.8 / 332.8


def stats(project):
    return {(r.dimension, r.statistic): (r.value, r.n) for r in agreement_table(project) if r.raters == "alice vs bob"}


def test_two_annotators_agreement_figures(two):
    assert annotators(two) == ["alice", "bob"]
    s = stats(two)
    # table-01: 10 cards each; 9 pairs with IoU >= 0.5 (Wild Card moved to IoU 0.16): F1 = 2 x 9 / 20
    assert s[("ground truth: table-01", "iou_f1")] == (pytest.approx(0.9), 20)
    # 7 of the 9 matched texts equal
    assert s[("ground truth: table-01", "text_agreement")] == (pytest.approx(7 / 9), 9)
    # CER: 1 edit each (pray/prey, clean/clear) over alice's 9 matched texts:
    # 14 + 20 + 19 + 25 + 20 + 37 + 7 + 16 + 14 = 172 characters
    assert s[("ground truth: table-01", "cer")] == (pytest.approx(2 / 172), 9)
    # every matched card in the same pile (left 5, right 4 for both): kappa 1, alpha 1
    assert s[("ground truth: table-01", "cohen_kappa_pile")] == (pytest.approx(1.0), 9)
    assert s[("ground truth: table-01", "krippendorff_alpha_pile")] == (pytest.approx(1.0), 18)
    assert s[("ground truth: table-02", "iou_f1")] == (pytest.approx(1.0), 12)
    assert s[("ground truth: table-02", "cer")] == (pytest.approx(0.0), 6)
    # pooled: 15 matched of 16 + 16 cards; table-02's texts add 25 + 18 + 16 + 35 + 18 + 14 = 126 characters
    assert s[("ground truth", "iou_f1")] == (pytest.approx(30 / 32), 32)
    assert s[("ground truth", "text_agreement")] == (pytest.approx(13 / 15), 15)
    assert s[("ground truth", "cer")] == (pytest.approx(2 / 298), 15)
    assert s[("ground truth", "cohen_kappa_pile")] == (pytest.approx(1.0), 15)


def test_three_ground_truth_disputes_in_the_judges_queue(two):
    found = refresh_disputes(two)
    assert [(d.kind, d.severity) for d in found] == [  # most severe first
        (DisputeKind.GT_BOX, pytest.approx(1 - MOVED_IOU)),
        (DisputeKind.GT_TEXT, pytest.approx(1 / 7)),  # one edit in 'To pray'
        (DisputeKind.GT_TEXT, pytest.approx(1 / 16)),  # one edit in 'To be kept clean'
    ]
    assert [d.id for d in judging.disputes(two)] == [d.id for d in found]  # stored, most severe first
    box = found[0]
    assert box.subject == "gt:table-01" and box.dimension == "box: alice #10 / bob #10"
    assert "Wild Card" in box.detail and "IoU 0.16" in box.detail
    assert [d.id for d in refresh_disputes(two)] == [d.id for d in found]  # ids kept on refresh


def test_adjudication_writes_the_consensus_that_scoring_uses(two):
    found = {d.detail.split("'")[1]: d for d in refresh_disputes(two)}  # by alice's text
    table = repo_items.item_by_name(two, "table-01")
    runs = [r[0] for r in two.db.execute("SELECT id FROM runs WHERE item_id = ?", [table.id])]
    gt_cards = lambda: {f.gt_card for f in repo_findings.findings_of_runs(two, runs)}  # noqa: E731
    assert "To be kept clear" not in gt_cards()
    stack = UndoStack()
    adjudicate(two, found["To be kept clean"].id, "bob", "ann", "the card says clear", stack=stack)
    adjudicate(two, found["To pray"].id, "alice", "ann", stack=stack)
    adjudicate(two, found["Wild Card"].id, "bob", "ann", stack=stack)
    consensus = {c.text: c.bbox for c in repo_ground_truth.ground_truth(two, table.id).cards}
    assert "To be kept clear" in consensus and "To be kept clean" not in consensus
    assert "To pray" in consensus and "To prey" not in consensus
    assert (consensus["Wild Card"].y_min, consensus["Wild Card"].y_max) == (
        pytest.approx(1001.6),
        pytest.approx(1194.4),
    )
    adj = {a.dimension: a for a in judging.adjudications(two)}
    assert len(adj) == 3
    text = adj[found["To be kept clean"].dimension]
    assert (text.value, text.sided_with, text.reviewer, text.dispute_id) == (
        "To be kept clear",
        "bob",
        "ann",
        found["To be kept clean"].id,
    )
    # scoring reads the consensus: every run of table-01 is now scored against 'To be kept clear'
    assert "To be kept clear" in gt_cards()
    # one undo takes the last adjudication and its consensus edit back
    stack.undo(ProjectStore(two))
    wild = next(c for c in repo_ground_truth.ground_truth(two, table.id).cards if c.text == "Wild Card")
    assert wild.bbox.y_min == pytest.approx(861.6) and len(judging.adjudications(two)) == 2


def test_only_a_side_can_win(two):
    d = refresh_disputes(two)[0]
    with pytest.raises(ProjectError):
        adjudicate(two, d.id, "carol")
    with pytest.raises(ProjectError):
        adjudicate(two, d.id, "consensus")


def test_agreement_and_report_show_the_figures(two, tmp_path):
    two.close()
    runner = CliRunner()
    result = runner.invoke(main, ["agreement", str(tmp_path / "p.db"), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["disputes"]["by_kind"]["gt-text-differs"] == 2 and data["disputes"]["by_kind"]["gt-box-differs"] == 1
    f1 = next(r for r in data["agreement"] if (r["dimension"], r["statistic"]) == ("ground truth", "iou_f1"))
    assert f1["raters"] == "alice vs bob" and f1["value"] == pytest.approx(0.9375)
    result = runner.invoke(main, ["report", str(tmp_path / "p.db")])
    assert result.exit_code == 0, result.output
    assert "## Ground-truth agreement" in result.output and "iou_f1" in result.output
    p = open_project(tmp_path / "p.db")
    text = next(d for d in judging.disputes(p) if d.kind == DisputeKind.GT_TEXT)
    p.close()
    result = runner.invoke(
        main, ["adjudicate-gt", str(tmp_path / "p.db"), str(text.id), "--side", "bob", "--rationale", "as printed"]
    )
    assert result.exit_code == 0, result.output
    assert "consensus" in result.output
    result = runner.invoke(main, ["adjudicate-gt", str(tmp_path / "p.db"), str(text.id), "--side", "carol"])
    assert result.exit_code != 0 and "not a side" in result.output
