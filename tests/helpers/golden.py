"""A one-prompt golden span set: shared by the export, special-file and
ownership reliability tests."""

from __future__ import annotations

GOLDEN = {
    "metadata": {"name": "tiny"},
    "prompts": [
        {
            "id": "t-001",
            "text": "A red fox jumps over a fence.",
            "groundTruth": {"spans": [{"text": "red fox", "start": 2, "end": 9, "role": "subject.identity"}]},
        }
    ],
}
