"""Read what a prompt expects from its own text (docs/formats.md, importer (a))."""

from __future__ import annotations

import re
from typing import Any

from reviewer.core.cards.boxes import requested_convention
from reviewer.core.cards.parsing import json_objects
from reviewer.core.models import AnswerSchema, BoxConvention, Prompt

_KEY_OPEN = re.compile(r'\{\s*"(piles|cards)"\s*:')


def prompt_example(text: str) -> Any:
    """The first JSON object written in a prompt (its schema example), or None."""
    objects = json_objects(text)
    return objects[0][2] if objects else None


def infer_schema(text: str) -> AnswerSchema:
    """The answer schema a prompt asks for: ``piles`` or ``cards`` when its
    JSON example has that top-level field, else ``free`` (not scored)."""
    example = prompt_example(text)
    if isinstance(example, dict):
        if "piles" in example:
            return AnswerSchema.PILES
        if "cards" in example:
            return AnswerSchema.CARDS
    # a pseudo-JSON example such as {"cards": [{"text": string}]} still says it
    m = _KEY_OPEN.search(text)
    if m:
        return AnswerSchema(m.group(1))
    return AnswerSchema.FREE


def prompt_from_text(
    name: str,
    text: str,
    schema: AnswerSchema | None = None,
    box_convention: BoxConvention | None = None,
) -> Prompt:
    """A Prompt whose schema and box convention are read from ``text`` unless
    given (an override). The convention is only read for the cards schema."""
    schema = schema or infer_schema(text)
    if box_convention is None and schema == AnswerSchema.CARDS:
        box_convention = requested_convention(text)
    return Prompt(name=name, text=text, schema=schema, box_convention=box_convention)
