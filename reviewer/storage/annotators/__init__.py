"""Ground truth of several annotators in the project database: each
annotator's ground truth, their agreement and their differences as
disputes (ground_truth). Filing those disputes in the queue and
adjudicating one are compositions above this package
(reviewer.storage.dispute_queue, reviewer.storage.gt_adjudication)."""
