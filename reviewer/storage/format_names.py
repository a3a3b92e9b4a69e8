"""The names of the import formats, in detection order, without importing
the importers (the command line's help text and a fast start-up need the
names only). reviewer.storage.importers.FORMATS has the same keys in the
same order (tests/test_cli.py checks it)."""

FORMAT_NAMES = (
    "labelme", "coco", "label-studio", "test-cases", "pairwise-pandalm", "pairwise-llmbar", "failter",
    "answer-key", "card-folder", "tarot-readings", "span-snapshot", "span-golden-set", "span-golden-results",
    "rubric-verdicts", "jsonl-verdicts", "jsonl-runs",
)
