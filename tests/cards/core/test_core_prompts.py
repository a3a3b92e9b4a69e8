"""reviewer.core.cards.prompts: schema and box convention read from a prompt's text.

The prompt texts are written for these tests (in the style of card-reading
prompts), not copied from any data set.
"""

from __future__ import annotations

import pytest

from reviewer.core.cards.prompts import infer_schema, prompt_example, prompt_from_text
from reviewer.core.models import AnswerSchema, BoxConvention

PILES_PROMPT = (
    "These cards lie on a table in a few groups. Read each card and say which "
    "group it is in (left, middle or right). Answer only with JSON like "
    '{"piles": [{"label": "left", "cards": ["first card", "second card"]}]}'
)

CARDS_UNIT_PROMPT = (
    "Find every card in the picture. For each one give its text and its box "
    "(x_min, y_min, x_max, y_max, 0-1 normalized). Answer with JSON: "
    '{"cards": [{"text": "the card", "bbox": {"x_min": 0.1, "y_min": 0.2, "x_max": 0.3, "y_max": 0.4}}]}'
)

CARDS_GRID_PROMPT = (
    "List the cards with boxes on a 0-1000 grid. "
    '{"cards": [{"text": "...", "bbox": {"x_min": 0, "y_min": 0, "x_max": 0, "y_max": 0}}]}'
)

CARDS_PIXEL_PROMPT = (
    "List each card with its row and its box in pixels. "
    '{"cards": [{"text": "...", "row": 1, "bbox": {"x_min": 0, "y_min": 0, "x_max": 0, "y_max": 0}}]}'
)

CARDS_NO_BOX_PROMPT = 'Read the cards. Reply as {"cards": [{"text": "card"}]}'

FREE_PROMPT = "What is in this photo? Describe it in two sentences."


@pytest.mark.parametrize(
    "text, schema",
    [
        (PILES_PROMPT, AnswerSchema.PILES),
        (CARDS_UNIT_PROMPT, AnswerSchema.CARDS),
        (CARDS_GRID_PROMPT, AnswerSchema.CARDS),
        (CARDS_PIXEL_PROMPT, AnswerSchema.CARDS),
        (CARDS_NO_BOX_PROMPT, AnswerSchema.CARDS),
        (FREE_PROMPT, AnswerSchema.FREE),
        ('Answer with {"answer": "yes or no"}.', AnswerSchema.FREE),
        ("Reply with a {curly} thing that is not JSON.", AnswerSchema.FREE),
        ("", AnswerSchema.FREE),
    ],
)
def test_infer_schema(text: str, schema: AnswerSchema) -> None:
    assert infer_schema(text) == schema


def test_prompt_example_is_the_first_json_object() -> None:
    assert prompt_example(PILES_PROMPT) == {"piles": [{"label": "left", "cards": ["first card", "second card"]}]}
    text = 'First {"cards": [{"text": "a"}]} then {"piles": []}'
    assert prompt_example(text) == {"cards": [{"text": "a"}]}
    assert infer_schema(text) == AnswerSchema.CARDS
    assert prompt_example(FREE_PROMPT) is None


@pytest.mark.parametrize(
    "text, schema, convention",
    [
        (CARDS_UNIT_PROMPT, AnswerSchema.CARDS, BoxConvention.UNIT),
        (CARDS_GRID_PROMPT, AnswerSchema.CARDS, BoxConvention.GRID1000),
        (CARDS_PIXEL_PROMPT, AnswerSchema.CARDS, BoxConvention.PIXELS),
        (CARDS_NO_BOX_PROMPT, AnswerSchema.CARDS, None),
        (PILES_PROMPT, AnswerSchema.PILES, None),
        (FREE_PROMPT, AnswerSchema.FREE, None),
    ],
)
def test_prompt_from_text(text, schema, convention) -> None:
    p = prompt_from_text("p1", text)
    assert p.name == "p1"
    assert p.text == text
    assert p.schema_ == schema
    assert p.box_convention == convention


def test_convention_is_only_read_for_the_cards_schema() -> None:
    text = PILES_PROMPT + " Positions in pixels are not needed."
    assert prompt_from_text("p", text).box_convention is None


def test_overrides_win() -> None:
    p = prompt_from_text("p", FREE_PROMPT, schema=AnswerSchema.PILES)
    assert p.schema_ == AnswerSchema.PILES
    p = prompt_from_text("p", CARDS_UNIT_PROMPT, box_convention=BoxConvention.PIXELS)
    assert p.schema_ == AnswerSchema.CARDS
    assert p.box_convention == BoxConvention.PIXELS
    # A schema override to cards reads the convention from the text.
    p = prompt_from_text("p", "Boxes in 0-1 normalized coordinates.", schema=AnswerSchema.CARDS)
    assert p.box_convention == BoxConvention.UNIT
