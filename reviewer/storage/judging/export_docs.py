"""What the analysts' export says about the judged-output and pairwise tables:
judges' verdicts, their confidences, disputes, adjudications, people's
labels, Failter, the rubric gate and agreement (decision record
"workflow-registries"): {table: (description, {column: description})},
written as ``_tables`` and ``_columns``, and the foreign keys of those
tables. docs/export-schema.md says the same in prose."""

#: {table: (description, {column: description})}
TABLES: dict[str, tuple[str, dict[str, str]]] = {
    "verdicts": (
        "One row per dimension of a judge's or a person's verdict.",
        {
            "verdict_id": "Verdict id.",
            "subject": "run:<run_id> or pair:<run_id>:<other_run_id>.",
            "run_id": "The run judged (runs.run_id).",
            "other_run_id": "The second run of a pairwise verdict.",
            "judge": "Judge name.",
            "judge_model": "Model behind the judge.",
            "prompt_version": "Version of the judge's prompt; for judges run by reviewer the rubric version, "
            "'<template folder>@<hash of the template text and dimension list>'.",
            "method": "rules-based, ground-truth, rubric, pairwise or human.",
            "scale": "1-5, A-F, 0-100, pass/fail or winner.",
            "dimension": "Scored dimension (null without scores).",
            "value": "Numeric value (1-5, grade points, 0-100).",
            "value_text": "Text value (pass/fail, winner 1, 2 or tie).",
            "rationale": "The judge's rationale.",
            "answer_order": "ab, ba or null (winners are in the original order).",
            "repetition": "Repetition number.",
            "flags": 'The verdict\'s flags as JSON, e.g. {"safety_flag": true}.',
            "issues_found": "The issues the judge listed, as a JSON list.",
            "source": "Where the verdict came from (the imported file, or the judge run).",
            "raw": "The judge's reply as it came, for verdicts read from a reply.",
        },
    ),
    "verdict_confidences": (
        "A judge's confidence per verdict, dimension and source (join verdicts on verdict_id and dimension).",
        {
            "verdict_id": "Verdict id (verdicts.verdict_id).",
            "dimension": "Dimension of the verdict.",
            "source": "logprob (exp of the value token's logprob from the endpoint), stated (the judge's reply "
            "said it) or imported (the imported file gave it).",
            "confidence": "The judge's probability that its value is right, 0-1.",
        },
    ),
    "disputes": (
        "Disagreements among judges and people (refreshed by the export).",
        {
            "dispute_id": "Dispute id.",
            "kind": "Kind of dispute.",
            "subject": "What is disputed.",
            "dimension": "Dimension.",
            "verdict_ids": "The verdicts involved (JSON list).",
            "severity": "0-1.",
            "detail": "What disagrees.",
        },
    ),
    "adjudications": (
        "A reviewer's settlement of a disputed subject and dimension.",
        {
            "subject": "What was settled.",
            "dimension": "Dimension.",
            "value": "Value as text ('4', 'tie').",
            "rationale": "Why.",
            "reviewer": "Who.",
            "decided_at": "When (ISO 8601).",
            "sided_with": "The judge sided with, if any.",
            "dispute_id": "The dispute settled (disputes.dispute_id).",
        },
    ),
    "human_labels": (
        "People's labels: the first label (made before any judge verdict was shown) and the "
        "final value (kept or changed after), per subject, dimension, reviewer and queue.",
        {
            "subject": "What was labelled.",
            "dimension": "Dimension.",
            "reviewer": "Who labelled.",
            "queue": "Where: 'label-first' (the fair sample) or 'dispute' (made while settling a dispute, "
            "with the judges in view; not a fair sample).",
            "judge": "The judge whose verdicts were shown after the first label.",
            "rubric_version": "The rubric version the label was made under (the judge's prompt_version).",
            "answer_order": "How a pair was shown: 'ab' or 'ba' (seeded per subject); null for one output.",
            "split": "The subject's split (train, dev, test by a seeded hash of its id), set once.",
            "first_value": "First label as text ('4', 'pass', '1' = the pair's first run won).",
            "first_at": "When the first label was committed (ISO 8601).",
            "final_value": "Final value as text (null until kept or changed).",
            "final_at": "When the final value was set (ISO 8601).",
        },
    ),
    "failter": (
        "The Failter table, as `reviewer report` gives it: one row per model and prompt (docs/failter.md).",
        {
            "model": "The model that filtered the texts.",
            "prompt": "The prompt (Failter's template).",
            "eval_method": "Which judges scored the trials; the scales when the scores came on several.",
            "trials": "Every trial: answered or failed, judged or not.",
            "errors": "Trials that failed at the model, plus answered trials whose judge failed.",
            "model_errors": "Trials whose request to the model still failed after its retries.",
            "judge_errors": "Answered trials whose judge failed or gave no readable score.",
            "avg_score": "Mean score per trial in points 0-100 (one map per scale; every error counts 0).",
            "rules_score": "Mean of the rules-based judge's scores, in points 0-100 (errors left out).",
            "gt_score": "Mean of the ground-truth judge's scores, in points 0-100 (errors left out).",
            "avg_time_s": "Seconds per answered trial (its last attempt).",
            "avg_tokens": "Total tokens per answered trial.",
            "avg_cost": "Cost per answered trial, from --prices or as recorded.",
        },
    ),
    "rubric_gate": (
        "The judge gate of the rubric rules, as `reviewer report` gives it: one row per judge (docs/tarot-rubric.md).",
        {
            "rater": "The judge (or person) whose verdicts the gate read.",
            "should_block": "Readings the expectations say the gate should block.",
            "blocked": "Of those, the readings the gate blocked.",
            "missed": "Of those, the readings the gate did not block (or could not decide).",
            "should_pass": "Readings the expectations say the gate should let through.",
            "wrongly_blocked": "Of those, the readings the gate blocked.",
            "undecided": "Readings the gate could not decide (no safety flag or scores).",
        },
    ),
    "rubric_disputes": (
        "The judge-vs-metrics disputes of the rubric rules, as `reviewer report` gives them: one row per reading "
        "and dimension whose verdicts broke a rule (docs/tarot-rubric.md).",
        {
            "reading": "The reading (its item; with the model when an item has several judged runs).",
            "dimension": "The dimension (or flag) a rule checks.",
            "dispute": "The dispute's id (disputes.id).",
            "detail": "Which judges broke which rules, with the metrics' values.",
        },
    ),
    "agreement": (
        "Agreement statistics among judges, people and annotators.",
        {
            "raters": "Who is compared.",
            "dimension": "Dimension.",
            "statistic": "Statistic name.",
            "value": "Value (null when undefined).",
            "n": "Cases compared.",
            "note": "Note.",
            "ci_low": "Lower end of the 95 % interval (null when undefined or too few subjects).",
            "ci_high": "Upper end of the 95 % interval (null when undefined or too few subjects).",
            "ci_method": "How the interval was made: Wilson or Clopper-Pearson (a share of independent subjects), BCa or percentile bootstrap over subjects (pairs for a pooled [ab+ba] figure); empty with a note 'too few' when there is none.",
            "prevalence": "Class prevalence among the compared values, as 'class share; ...'.",
        },
    ),
}

#: {table: [(column, other table, other column)]}
FOREIGN_KEYS: dict[str, list[tuple[str, str, str]]] = {
    "verdicts": [("run_id", "runs", "run_id"), ("other_run_id", "runs", "run_id")],
    "adjudications": [("dispute_id", "disputes", "dispute_id")],
}
