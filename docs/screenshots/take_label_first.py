"""Take docs/screenshots/label-first.png and label-first-revealed.png: the
label-first page of the adjudication mode (docs/alignment.md#label-first)
on a small constructed project (30 short texts summarised by a model,
scored 1-5 on faithfulness by two judges; ten already labelled by bob, so
the label budget can be sized).

Run under a real X server, e.g.:

    xvfb-run -a -s "-screen 0 1600x1000x24" env QT_QPA_PLATFORM=xcb \\
        python docs/screenshots/take_label_first.py /tmp/shots

The first PNG is the page before any label (no judge in view); the second
after 4 and Enter committed a first label (the judges are shown). Look at
both before committing them.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

ROOT = Path(__file__).resolve().parents[2]
TOPICS = ["battery", "screen", "delivery", "price", "keyboard", "camera", "support", "sound", "size", "software"]


def _project(db: Path) -> None:
    from reviewer.core.commands import UndoStack
    from reviewer.core.judging.verdicts import Scale, Verdict
    from reviewer.core.label_commands import CommitFirstLabel, SetFinalValue
    from reviewer.core.models import AnswerSchema, Item, Prompt
    from reviewer.storage.judging import labels
    from reviewer.storage.judging import verdicts as judging
    from reviewer.storage.project.db import open_project
    from reviewer.storage.repo import items as repo_items
    from reviewer.storage.repo import runs as repo_runs

    p = open_project(db, create=True)
    prompt, _ = repo_items.upsert_prompt(
        p, Prompt(name="summary", text="Summarise the review", schema=AnswerSchema.FREE)
    )
    subjects = []
    for i in range(30):
        topic, other = TOPICS[i % 10], TOPICS[(i + 3) % 10]
        text = (
            f"Review {i + 1}: I bought this laptop for work. The {topic} is better than I expected and the "
            f"{other} is fine. After two weeks the {topic} still impresses me, but I would not pay more."
        )
        item, _ = repo_items.upsert_item(p, Item(name=f"review-{i + 1:02d}", kind="text", text=text))
        output = f"The reviewer praises the {topic}" + (f" and dislikes the {other}." if i % 4 == 0 else ".")
        run, _ = repo_runs.add_run(p, item, prompt, "summariser-1", output)
        subjects.append(f"run:{run}")
        for judge, model, score in (
            ("strict", "judge-model-a", 2.0 if i % 4 == 0 else 5.0),
            ("lenient", "judge-model-b", 4.0),
        ):
            judging.add_verdict(
                p,
                Verdict(
                    subject=f"run:{run}",
                    run_id=run,
                    judge=judge,
                    judge_model=model,
                    scale=Scale.ORDINAL5,
                    scores={"faithfulness": score},
                    rationale=f"{judge}: the summary {'adds a complaint' if score < 3 else 'matches the review'}.",
                    confidences={"stated": {"faithfulness": 0.55 + (i % 9) / 20}},
                ),
            )
    labels.refresh_queue(p, "strict", "faithfulness")
    store, stack = labels.LabelStore(p, "bob"), UndoStack()
    for n, s in enumerate(subjects[:10]):
        stack.push(CommitFirstLabel(s, "faithfulness", 2.0 if n % 4 == 0 else 4.0, "bob", judge="strict"), store)
        stack.push(SetFinalValue(s, "faithfulness", "bob"), store)
    p.close()


def main(out: Path) -> int:
    os.environ.setdefault("REVIEWER_CONFIG_DIR", tempfile.mkdtemp())
    os.environ.setdefault("REVIEWER_NAME", "ann")
    from reviewer.qt.app import build

    out.mkdir(parents=True, exist_ok=True)
    db = Path(tempfile.mkdtemp()) / "label-first.db"
    _project(db)
    app = QApplication.instance() or QApplication(sys.argv)
    window = build(db, ask_name=False, mode="adjudication")
    window.resize(1600, 1000)
    window.show()
    window.activateWindow()
    view = window.adjudication
    view.show_labels(True)
    page = view.label_page
    page.judge_combo.setCurrentIndex(page.judge_combo.findData("strict"))
    for _ in range(40):
        app.processEvents()
        QTest.qWait(25)
    print(f"label-first.png: {window.grab().save(str(out / 'label-first.png'))}")
    for key in (Qt.Key_4, Qt.Key_Return):
        QTest.keyClick(page.list, key)
        app.processEvents()
    for _ in range(20):
        app.processEvents()
        QTest.qWait(25)
    print(f"label-first-revealed.png: {window.grab().save(str(out / 'label-first-revealed.png'))}")
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "screenshots"))
