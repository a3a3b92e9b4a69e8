"""The riddles file of the toy workflow (tests/helpers/toy_workflow): shared
by the registry tests of storage and of the window."""

from __future__ import annotations

RIDDLES_FILE = {
    "riddles": [
        {
            "name": "r1",
            "text": "What has keys but opens no lock?",
            "answer": "A piano",
            "model": "m",
            "guess": "a piano",
        },
        {"name": "r2", "text": "What has hands but cannot clap?", "answer": "A clock", "model": "m", "guess": "a map"},
    ]
}
