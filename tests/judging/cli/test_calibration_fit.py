"""Calibration fitted on dev, reported on test (reviewer.core.judging.calibration_fit):
Platt and isotonic pinned against scikit-learn, temperature scaling lowers
ECE on an over-confident judge, and `reviewer calibration --fit`."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner
from sklearn.isotonic import IsotonicRegression
from sklearn.linear_model import LogisticRegression

from reviewer.cli import main
from reviewer.core.judging.calibration_fit import fit_map
from reviewer.core.judging.confidence import ece
from reviewer.core.judging.splits import hash_split
from reviewer.core.judging.verdicts import Method, Scale, Verdict
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.project.db import open_project


def overconfident(n: int, seed: int):
    """A judge that says 0.75-0.99 while it is right with probability c - 0.25."""
    rng = np.random.default_rng(seed)
    c = rng.uniform(0.75, 0.99, n)
    right = rng.random(n) < (c - 0.25)
    return c, right


def test_platt_and_isotonic_equal_scikit_learns():
    c, y = overconfident(400, 1)
    grid = np.linspace(0.7, 1.0, 31)
    z = np.log(np.clip(c, 1e-6, 1 - 1e-6) / (1 - np.clip(c, 1e-6, 1 - 1e-6)))
    zg = np.log(grid / (1 - np.clip(grid, 0, 1 - 1e-6)))
    platt = fit_map("platt", c, y)
    ref = LogisticRegression(C=np.inf).fit(z.reshape(-1, 1), y.astype(int))
    np.testing.assert_allclose(platt.apply(grid), ref.predict_proba(zg.reshape(-1, 1))[:, 1], atol=1e-4)
    iso = fit_map("isotonic", c, y)
    ref_iso = IsotonicRegression(y_min=0, y_max=1, out_of_bounds="clip").fit(c, y.astype(float))
    np.testing.assert_allclose(iso.apply(grid), ref_iso.predict(grid), atol=1e-12)


def test_temperature_lowers_ece_of_an_overconfident_judge():
    c_dev, y_dev = overconfident(500, 2)
    c_test, y_test = overconfident(500, 3)
    t = fit_map("temperature", c_dev, y_dev)
    assert t.params["T"] > 1  # softened
    assert ece(t.apply(c_test), y_test) < ece(c_test, y_test) / 2


def test_nothing_to_fit_is_one_clear_error():
    with pytest.raises(ValueError, match="nothing to fit: all 3 dev verdicts are right"):
        fit_map("temperature", [0.9, 0.8, 0.7], [True, True, True])
    with pytest.raises(ValueError, match="unknown calibration method"):
        fit_map("beta", [0.9], [True])


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "p.db"
    p = open_project(path, create=True)
    c, right = overconfident(600, 4)
    for i, (conf, ok) in enumerate(zip(c, right)):
        people = "pass" if i % 2 else "fail"
        judged = people if ok else ("fail" if people == "pass" else "pass")
        s = f"run:{i}"
        judging.add_verdict(
            p,
            Verdict(
                subject=s,
                judge="j",
                method=Method.RUBRIC,
                scale=Scale.PASS_FAIL,
                scores={"ok": judged},
                prompt_version="r1",
                confidences={"stated": {"ok": float(conf)}},
            ),
        )
        judging.add_verdict(
            p, Verdict(subject=s, judge="gold", method=Method.HUMAN, scale=Scale.PASS_FAIL, scores={"ok": people})
        )
    p.close()
    return path


def test_calibration_fit_command_fits_on_dev_reports_on_test_and_counts_the_read(db):
    out = CliRunner().invoke(main, ["calibration", str(db), "--fit", "temperature", "--json"])
    assert out.exit_code == 0, out.output
    (f,) = json.loads(out.stdout)["fits"]
    dev = sum(hash_split(f"run:{i}", seed=0) == "dev" for i in range(600))
    test = sum(hash_split(f"run:{i}", seed=0) == "test" for i in range(600))
    assert (f["dev"], f["test"], f["rubric_version"]) == (dev, test, "r1")
    assert f["map"]["method"] == "temperature" and f["map"]["n"] == dev
    assert f["after"]["ece"] < f["before"]["ece"] and f["after"]["brier"] < f["before"]["brier"]
    assert f["test_split_reads"].startswith("test split read once for rubric r1")
    p = open_project(db)
    try:
        assert p.db.execute("SELECT method, rubric_version, n FROM calibration_maps").fetchall() == [
            ("temperature", "r1", dev)
        ]
    finally:
        p.close()
    out = CliRunner().invoke(main, ["calibration", str(db), "--fit", "isotonic"])
    assert "isotonic fitted on" in out.output and "test split read 2 times for rubric r1" in out.output
    # alignment reads the count and does not add to it
    data = json.loads(CliRunner().invoke(main, ["alignment", str(db), "--json", "--resamples", "200"]).stdout)
    assert data["alignments"][0]["test_split_reads"]["count"] == 2


def test_selective_judging_and_low_confidence_disputes_use_the_stored_map_and_say_so(db):
    from reviewer.storage.judging.calibration_maps import stored_map
    from reviewer.storage.judging.calibration_report import CalibrationSettings, calibration_rows
    from reviewer.storage.judging.low_confidence import project_low_confidence

    p = open_project(db)
    try:
        (raw,) = calibration_rows(p, CalibrationSettings(calibrated=True))  # no map stored yet: raw
        assert raw.confidence_used == "raw"
    finally:
        p.close()
    out = CliRunner().invoke(main, ["calibration", str(db), "--fit", "temperature", "--json"])
    assert out.exit_code == 0, out.output
    p = open_project(db)
    try:
        m = stored_map(p, "j", "ok", "stated")
        assert m is not None and m.method == "temperature"
        used = f"calibrated (temperature, fitted on {m.n} dev verdicts)"
        (cal,) = calibration_rows(p, CalibrationSettings(calibrated=True))
        assert cal.confidence_used == used
        assert np.allclose(cal.confidence, m.apply(list(raw.confidence)))
        assert cal.confidence != raw.confidence and cal.correct == raw.correct
        assert cal.calibration.ece < raw.calibration.ece  # the over-confident judge is honest after the map
        raw_disputes = project_low_confidence(p, CalibrationSettings(target=0.6))
        cal_disputes = project_low_confidence(p, CalibrationSettings(target=0.6, calibrated=True))
    finally:
        p.close()
    assert raw_disputes and cal_disputes
    assert all(d.detail.endswith("(raw)") for d in raw_disputes)
    assert all(d.detail.endswith(f"({used})") for d in cal_disputes)
    raw_conf = dict(zip(raw.subjects, raw.confidence))
    for d in cal_disputes:
        assert f"stated confidence {float(m.apply([raw_conf[d.subject]])[0]):.2f} below" in d.detail
    # the command line says which confidence it used
    out = CliRunner().invoke(main, ["calibration", str(db), "--calibrated", "--json"])
    assert json.loads(out.stdout)["calibrations"][0]["confidence_used"] == used
    out = CliRunner().invoke(main, ["calibration", str(db)])
    assert "confidence used: raw" in out.output
    out = CliRunner().invoke(main, ["calibration", str(db), "--calibrated"])
    assert f"j / ok / stated: {used}" in out.output
