"""The adjudication mode (docs/window.md#adjudication-mode): settle disputed judge verdicts.

* ``view.AdjudicationView``: the mode's widget (queue, dispute screen,
  decision bar, agreement and calibration) and its keys;
* ``queue.DisputeQueue``: the disputes, most severe first, with filters and
  progress;
* ``screen.DisputeScreen`` and ``compare.VerdictColumns``: one dispute with
  its input, outputs, references, metrics and verdicts side by side;
* ``bar.DecisionBar``: the current dimension, the keys, the inline
  rationale and 0-100 value edits;
* ``controller.AdjudicationController``: what the keys do (every decision
  is a core ``Adjudicate`` command through ``Session.execute``);
* ``calibration.CalibrationPanel``: score distribution chart, confusion
  matrix heatmap and agreement table;
* ``label_first.LabelFirstPage`` and ``label_keys.LabelFirstController``
  (F4): label a judge's fair queue before seeing the judge, in the label
  budget's order, with the budget and the progress.

Like the panels, the widgets keep no domain state: they read the Session
and rebuild on its signals. Judge and model text is shown as plain text.
"""

from reviewer.qt.judging.view import ADJUDICATION_SHORTCUTS, AdjudicationView

__all__ = ["ADJUDICATION_SHORTCUTS", "AdjudicationView"]
