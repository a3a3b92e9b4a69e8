"""The toy workflow's core layer: how its items are recognised and the scorer."""

from __future__ import annotations

from reviewer.core.workflows import RegisteredWorkflow, register

#: The riddle workflow: an item with a riddle answer is a riddle.
RIDDLES = RegisteredWorkflow("riddles", fact="riddle", title="Riddles")


def correct(guess: str, answer: str) -> bool:
    """The guess is the answer, case and spaces aside."""
    return " ".join(guess.split()).casefold() == " ".join(answer.split()).casefold()


def register_core() -> None:
    """The core registration."""
    register(RIDDLES)
