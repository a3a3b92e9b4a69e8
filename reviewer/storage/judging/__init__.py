"""The judging workflow in the project database: verdicts, subject metrics
and stored disputes (verdicts), the disputes and agreement of the verdicts
(disputes), judge calls (calls), rubric rules and their report section,
validation against people, and the judge and Failter reports."""
