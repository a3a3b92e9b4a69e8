"""The test-case workflow in the project database: cases, the metric set
in use and the scores of their answers (cases), and the test-case report
(report)."""
