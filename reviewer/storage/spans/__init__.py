"""The span-labeling workflow in the project database: snapshots, golden
sets and golden spans, span runs and their F1 (spans), the findings of a
span judge (judge_findings) and the span report (report)."""
