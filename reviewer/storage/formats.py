"""The import formats: the one list of them, in detection order (the first
format whose detector accepts a source is used). Each names its module under
reviewer.storage and its detector and importer functions, so the names are
known without importing the importers (the command line's help text and a
fast start-up need the names only); reviewer.storage.importers imports a
format's module when it is first asked (decision record "one-list-of-formats").
"""

from __future__ import annotations

from importlib import import_module
from typing import Callable

from reviewer.storage import registry

#: format name -> (module under reviewer.storage, detector, importer), in detection order.
#: The ground-truth formats come before card-folder, which takes any photo folder.
IMPORT_FORMATS: dict[str, tuple[str, str, str]] = {
    "labelme": ("gt_formats.labelme", "detect", "import_labelme"),
    "coco": ("gt_formats.coco", "detect", "import_coco"),
    "label-studio": ("gt_formats.label_studio", "detect", "import_label_studio"),
    "inspect-log": ("importers.inspect_log", "detect", "import_inspect"),
    "promptfoo-results": ("importers.promptfoo", "detect", "import_promptfoo"),
    "test-cases": ("importers.cases", "detect", "import_cases"),
    "pairwise-pandalm": ("importers.pairwise", "detect_pandalm", "import_pandalm"),
    "pairwise-llmbar": ("importers.pairwise", "detect_llmbar", "import_llmbar"),
    "failter": ("importers.failter", "detect", "import_failter"),
    "answer-key": ("importers.answer_key", "detect", "import_answer_key"),
    "card-folder": ("importers.card_folder", "detect", "import_folder"),
    "tarot-readings": ("importers.rubric", "detect_folder", "import_readings"),
    "span-snapshot": ("importers.span_snapshots", "detect", "import_snapshot"),
    "span-golden-set": ("importers.span_golden", "detect_golden_set", "import_golden_set"),
    "span-golden-results": ("importers.span_golden", "detect_golden_results", "import_golden_results"),
    "rubric-verdicts": ("importers.rubric", "detect_verdicts", "import_verdicts"),
    "batch-output": ("importers.batch_output", "detect", "import_batch_output"),
    "jsonl-verdicts": ("importers.jsonl_verdicts", "detect", "import_jsonl_verdicts"),
    "jsonl-runs": ("importers.jsonl_runs", "detect", "import_jsonl"),
}

#: The format names, in detection order.
FORMAT_NAMES = tuple(IMPORT_FORMATS)


def import_formats() -> dict[str, tuple[str, str, str]]:
    """Every import format, in detection order: IMPORT_FORMATS with the
    registered workflows' formats (reviewer.storage.registry) before the
    card folder, their modules named in full."""
    out: dict[str, tuple[str, str, str]] = {}
    extra = {name: (module, detect, load) for w in registry.registered() for name, module, detect, load in w.formats}
    for name, entry in IMPORT_FORMATS.items():
        if name == "card-folder":
            out.update(extra)
        out[name] = (f"reviewer.storage.{entry[0]}", entry[1], entry[2])
    return out


def format_function(name: str, role: str) -> Callable:
    """The ``role`` function ('detect' or 'import') of import format
    ``name`` (a registered workflow's too), its module imported at the first
    call. KeyError for an unknown name."""
    module, detector, importer = import_formats()[name]
    return getattr(import_module(module), detector if role == "detect" else importer)


__all__ = ["FORMAT_NAMES", "IMPORT_FORMATS", "format_function", "import_formats"]
