"""Project database, importers, scoring with review decisions, export."""

from __future__ import annotations

import json
import sqlite3

import pytest

from reviewer.core.models import Code, ScoringConfig, Status
from reviewer.storage.cards.scores import scored_runs, verdicts
from reviewer.storage.export import export_project
from reviewer.storage.importers import ImportOptions, import_source
from reviewer.storage.project.db import NewerProjectError, ProjectError, open_project
from reviewer.storage.repo import findings as repo_findings
from reviewer.storage.repo import ground_truth as repo_ground_truth
from reviewer.storage.repo import items as repo_items
from reviewer.storage.scoring import score_project
from tests.helpers.paths import SAMPLES


@pytest.fixture
def sample(project):
    report = import_source(project, SAMPLES, options=ImportOptions(model="vlm"))
    assert not report.skipped, report.skipped
    score_project(project)
    return project


def _run(project, item, prompt, repetition):
    return next(
        r
        for r in scored_runs(project)
        if (r.run["item"], r.run["prompt"], r.run["repetition"]) == (item, prompt, repetition)
    )


def test_project_settings(project):
    mode = project.db.execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"
    assert project.db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert project.db.execute("PRAGMA busy_timeout").fetchone()[0] >= 1000


def test_sample_import_reads_exif_and_relative_paths(sample):
    items = {i.name: i for i in repo_items.items(sample)}
    t2 = items["table-02"]
    assert t2.orientation == 6
    assert (t2.width, t2.height) == (1600, 1200)  # upright after EXIF
    assert not t2.path.startswith("/")
    assert sample.resolve(t2.path).is_file()
    gt = repo_ground_truth.ground_truth(sample, t2.id)
    assert len(gt.cards) == 6 and all(c.bbox is not None for c in gt.cards)
    assert {p.label for p in gt.piles} == {"left", "center", "right"}


def test_sample_shows_every_code(sample):
    codes = {f.code for r in scored_runs(sample) for f in r.findings}
    assert codes == set(Code)
    truncated = _run(sample, "table-01", "bounding-boxes", 3)
    assert truncated.facts.repaired and not truncated.facts.json_valid
    assert truncated.auto.cards_correct > 0  # salvaged cards are scored


def test_strict_turns_salvage_off(sample):
    run = _run(sample, "table-01", "bounding-boxes", 3)
    score_project(sample, strict=True, run_ids=[run.run["id"]])
    strict = _run(sample, "table-01", "bounding-boxes", 3)
    assert not strict.facts.repaired and strict.auto.cards_correct == 0
    assert [f.code for f in strict.findings] == [Code.FORMAT]


def test_import_is_idempotent(project):
    first = import_source(project, SAMPLES, options=ImportOptions(model="vlm"))
    second = import_source(project, SAMPLES, options=ImportOptions(model="vlm"))
    assert first.added["runs"] == 14
    assert "runs" not in second.added and second.existing["runs"] == 14
    assert project.db.execute("select count(*) from runs").fetchone()[0] == 14


def test_review_changes_reviewed_metrics_only(sample):
    run = _run(sample, "table-01", "spatial-grouping", 2)
    ocr = next(f for f in run.findings if f.code == Code.OCR)
    assert run.auto.cards_correct == run.reviewed.cards_correct == 8
    repo_findings.update_finding(sample, ocr.id, status=Status.REJECTED, reviewer="ann", reason="legible")
    after = _run(sample, "table-01", "spatial-grouping", 2)
    assert after.auto.cards_correct == 8 and after.reviewed.cards_correct == 9
    audit = sample.db.execute(
        "select actor, before, after from audit where table_name='findings' and row_id=?", [str(ocr.id)]
    ).fetchall()
    actor, before, after_json = audit[-1]
    assert json.loads(before)["status"] == "proposed" and json.loads(after_json)["status"] == "rejected"


def test_rescoring_keeps_decisions(sample):
    run = _run(sample, "table-01", "spatial-grouping", 2)
    partial = next(f for f in run.findings if f.code == Code.PARTIAL)
    repo_findings.update_finding(sample, partial.id, status=Status.CONFIRMED, final_code=Code.OCR, reviewer="ann")
    score_project(sample, ScoringConfig(version="test-2", partial_threshold=91.0))
    again = _run(sample, "table-01", "spatial-grouping", 2)
    kept = next(f for f in again.findings if f.id == partial.id)
    assert kept.status == Status.CONFIRMED and kept.final_code == Code.OCR
    assert again.facts.config_version == "test-2"


def test_rescoring_drops_findings_that_no_longer_arise(sample):
    run = _run(sample, "table-01", "spatial-grouping", 2)
    assert any(f.code == Code.OCR for f in run.findings)
    # a config that recognises no misreading relates the misread card to nothing
    score_project(sample, ScoringConfig(version="no-misreadings", misread_min_letters=99, length_slack=0))
    again = _run(sample, "table-01", "spatial-grouping", 2)
    assert not any(f.code == Code.OCR for f in again.findings)


def test_verdicts_per_item_and_overall(sample):
    vs = {(v.prompt, v.item): v for v in verdicts(sample)}
    assert ("sanity-check", "*") not in vs
    overall = vs[("spatial-grouping", "*")]
    assert overall.runs == 6 and overall.hallucination_runs == 2
    assert overall.verdict.value == "fail"


def test_export_tables_and_views(sample, tmp_path):
    out = tmp_path / "out.db"
    counts = export_project(sample, out)
    con = sqlite3.connect(out)
    assert counts["runs"] == con.execute("select count(*) from runs").fetchone()[0] == 14
    cols = {r[1] for r in con.execute("pragma table_info(findings)")}
    assert {"run_id", "code", "final_code", "status", "source", "gt_card", "model_card", "detail"} <= cols
    views = {r[0] for r in con.execute("select name from sqlite_master where type='view'")}
    assert {"code_counts", "auto_code_counts"} <= views
    assert con.execute("select count(distinct code) from code_counts").fetchone()[0] == 6
    assert not (tmp_path / "out.db.part").exists()


def test_corrupt_and_missing_projects(tmp_path):
    with pytest.raises(ProjectError, match="no project"):
        open_project(tmp_path / "missing.db")
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(ProjectError, match="not a reviewer project"):
        open_project(bad)
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("create table x (a)").connection.commit()
    with pytest.raises(ProjectError, match="not a reviewer project"):
        open_project(other)


def test_newer_project_is_refused(tmp_path):
    p = open_project(tmp_path / "p.db", create=True)
    p.db.execute(
        "insert into _sqlite_migrations (migration_set, name, applied_at) values ('reviewer', '9999_future', 'x')"
    )
    p.db.conn.commit()
    p.close()
    with pytest.raises(NewerProjectError, match="newer version"):
        open_project(tmp_path / "p.db")


def test_jsonl_import_reports_bad_lines(project, tmp_path):
    src = tmp_path / "runs.jsonl"
    good = {
        "item": "doc-1",
        "prompt": "p",
        "model": "m",
        "repetition": 1,
        "output": '{"cards": [{"text": "a"}]}',
        "prompt_text": 'Answer {"cards": [{"text": "t"}]}',
    }
    src.write_text(
        "\n".join(
            [json.dumps(good), "{not json", json.dumps({"item": "x"}), json.dumps({**good, "output": "different"})]
        )
        + "\n"
    )
    report = import_source(project, src)
    assert report.added["runs"] == 1
    reasons = dict(report.skipped)
    assert "not JSON" in reasons["line 2"]
    assert "output" in reasons["line 3"]  # the prompt may be left out (a test case's dataset), the output not
    assert "conflict" in reasons["line 4"]
    again = import_source(project, src)
    assert "runs" not in again.added
    prompt = repo_items.prompts(project)[0]
    assert prompt.schema_.value == "cards"


def test_ground_truth_for_unknown_image_is_skipped(project, tmp_path):
    folder = tmp_path / "f"
    (folder / "prompts").mkdir(parents=True)
    (folder / "runs").mkdir()
    (folder / "ground-truth.json").write_text(json.dumps({"ghost": {"piles": []}}))
    report = import_source(project, folder)
    assert ("ground truth 'ghost'", "no image with that name") in report.skipped


def test_corrupt_image_is_imported_with_a_note(project, tmp_path):
    folder = tmp_path / "f"
    (folder / "test-images").mkdir(parents=True)
    (folder / "test-images" / "broken.jpg").write_bytes(b"\xff\xd8 not really a jpeg")
    (folder / "test-images" / "ground-truth.json").write_text(
        json.dumps({"broken": {"piles": [{"label": "a", "cards": ["x"]}]}})
    )
    report = import_source(project, folder)
    assert any("broken.jpg: cannot read image" in n for n in report.notes)
    assert repo_items.item_by_name(project, "broken").width is None


def test_large_photos_get_an_upright_preview(project, tmp_path):
    import io

    from PIL import Image

    from reviewer.storage.files.previews import PREVIEW_SIDE, preview

    folder = tmp_path / "f"
    (folder / "test-images").mkdir(parents=True)
    big = Image.new("RGB", (3000, 2000), "white")  # stored landscape, shown portrait
    exif = Image.Exif()
    exif[274] = 6
    big.save(folder / "test-images" / "big.jpg", exif=exif)
    Image.new("RGB", (800, 600), "white").save(folder / "test-images" / "small.jpg")
    report = import_source(project, folder)
    assert report.added.get("previews") == 1
    item = repo_items.item_by_name(project, "big")
    data = preview(project, item.sha256)
    with Image.open(io.BytesIO(data)) as im:
        assert max(im.size) == PREVIEW_SIDE and im.size[1] > im.size[0]  # upright
    assert preview(project, repo_items.item_by_name(project, "small").sha256) is None
    again = import_source(project, folder)
    assert "previews" not in again.added


def test_a_locked_database_is_retried_then_reported(tmp_path, monkeypatch):
    """Another process holding the write lock: the busy timeout retries,
    then the user gets a one-line 'locked' error (no crash, nothing half
    written)."""
    import reviewer.storage.project.db as dbmod

    monkeypatch.setattr(dbmod, "BUSY_TIMEOUT_S", 0.3)
    p = open_project(tmp_path / "p.db", create=True)
    import_source(p, SAMPLES, options=ImportOptions(model="m"))
    score_project(p)
    finding = repo_findings.findings(p)[0]
    other = sqlite3.connect(tmp_path / "p.db")
    other.execute("BEGIN IMMEDIATE")  # the other process's write lock
    with pytest.raises(ProjectError, match="locked"):
        repo_findings.update_finding(p, finding.id, status=Status.REJECTED)
    other.rollback()
    other.close()
    assert repo_findings.finding(p, finding.id).status == Status.PROPOSED
    repo_findings.update_finding(p, finding.id, status=Status.REJECTED)  # works once the lock is gone
    assert repo_findings.finding(p, finding.id).status == Status.REJECTED
    p.close()


def test_export_never_overwrites_a_project(sample, tmp_path):
    with pytest.raises(ProjectError, match="project itself"):
        export_project(sample, sample.path)
    other = open_project(tmp_path / "other.db", create=True)
    other.close()
    with pytest.raises(ProjectError, match="is a reviewer project"):
        export_project(sample, tmp_path / "other.db")
    text = tmp_path / "notes.txt"
    text.write_text("precious")
    with pytest.raises(ProjectError, match="not"):
        export_project(sample, text)
    assert text.read_text() == "precious"
    out = tmp_path / "out.db"
    export_project(sample, out)
    export_project(sample, out)  # an earlier export is replaced
    assert repo_findings.findings(sample)  # the project is intact


def test_reimport_under_another_model_name_adds_nothing(project):
    import_source(project, SAMPLES, options=ImportOptions(model="vlm"))
    again = import_source(project, SAMPLES)  # no --model: would be 'unknown'
    assert "runs" not in again.added
    assert any("exists as model 'vlm'" in n for n in again.notes)
    assert project.db.execute("select count(*) from runs").fetchone()[0] == 14


def test_odd_run_names_and_huge_images_do_not_stop_an_import(project, tmp_path):
    from PIL import Image

    folder = tmp_path / "f"
    for sub in ("test-images", "prompts", "runs"):
        (folder / sub).mkdir(parents=True)
    Image.new("RGB", (20, 10)).save(folder / "test-images" / "x.png")
    (folder / "prompts" / "p.md").write_text('Answer {"cards": [{"text": "t"}]}')
    (folder / "runs" / "x_p_20251399-101200.txt").write_text('{"cards": []}')  # month 13: no date
    bomb = folder / "test-images" / "bomb.png"
    Image.new("1", (1, 1)).save(bomb)
    data = bytearray(bomb.read_bytes())
    data[16:24] = (60000).to_bytes(4, "big") + (60000).to_bytes(4, "big")  # a header claiming 3.6 gigapixels
    bomb.write_bytes(bytes(data))
    report = import_source(project, folder)
    assert (
        "x_p_20251399-101200.txt",
        "name is not <image>_<prompt>_<timestamp> with a known image and prompt",
    ) in report.skipped
    assert any(n.startswith("bomb.png: cannot read image") for n in report.notes)


def test_naming_the_model_later_renames_the_unknown_runs(project):
    import_source(project, SAMPLES)  # no model: 'unknown'
    again = import_source(project, SAMPLES, options=ImportOptions(model="vlm"))
    assert "runs" not in again.added
    models = {r[0] for r in project.db.execute("select distinct model from runs")}
    assert models == {"vlm"}


def test_summary_in_chunks_equals_the_verdicts_of_all_runs(sample, monkeypatch):
    """summarize and iter_scored_runs read the runs a chunk at a time; with
    chunks of 2 runs, decisions made and a free-text prompt, they give what
    the whole list of scored runs gives."""
    from reviewer.core.cards.report import code_count_table, findings_per_code
    from reviewer.storage.cards import scores

    runs = scored_runs(sample)
    found = [f for r in runs for f in r.findings]
    repo_findings.update_finding(sample, found[0].id, status=Status.REJECTED, reviewer="ann", reason="legible")
    repo_findings.update_finding(sample, found[1].id, status=Status.CONFIRMED, final_code=Code.PARTIAL, reviewer="ann")
    runs = scored_runs(sample)
    from reviewer.storage.cards import metric_rows, scored

    monkeypatch.setattr(scored, "CHUNK", 2)  # the readers' chunks
    monkeypatch.setattr(metric_rows, "CHUNK", 2)
    chunked = list(scores.iter_scored_runs(sample))
    assert [(r.run, r.findings, r.auto, r.reviewed, r.cards) for r in chunked] == [
        (r.run, r.findings, r.auto, r.reviewed, r.cards) for r in runs
    ]
    summary = scores.summarize(sample)
    assert summary.runs == len(runs)
    assert summary.auto == verdicts(sample, runs=runs)
    assert summary.reviewed == verdicts(sample, reviewed=True, runs=runs)
    assert summary.auto == verdicts(sample)  # verdicts without runs reads them in chunks too
    assert code_count_table(summary.code_counts) == findings_per_code((r.run["prompt"], r.findings) for r in runs)
    assert summary.free_prompts == sorted({r.run["prompt"] for r in runs if r.run["schema"] == "free"})
