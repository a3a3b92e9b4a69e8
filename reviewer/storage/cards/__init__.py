"""The card-reading workflow in the project database: scoring runs and
storing their findings (scores), reading scored runs (scored) and their
metric rows (metric_rows), the overview of every run (overview) and the
answer key of a tarot reading (answer_key)."""
