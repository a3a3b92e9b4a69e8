"""Real inspect_ai logs for the tests: a task of three questions run by a
mock model over 2 epochs and scored by match and model_graded_qa (partial
credit) with a mock grader; only the tokenizer is stubbed (its download is
out of reach), never inspect's own writer or reader."""

from __future__ import annotations

import re

import pytest

#: The questions, their targets and the model's answers in epochs 1 and 2 (in
#: the order asked; inspect may run the epochs of a sample in either order, so
#: the tests find a run by its answer). q2: the scorers disagree (match says I,
#: the grader P); q3: the epochs disagree (Jupiter is C, Saturn I, for both).
QUESTIONS = {
    "2+2?": ("q1", "4", ["4", "4"]),
    "Capital of France?": ("q2", "Paris", ["Lyon", "Lyon"]),
    "Largest planet?": ("q3", "Jupiter", ["Jupiter", "Saturn"]),
}
#: What the mock grader says of each answer.
GRADES = {"4": "C", "Lyon": "P", "Jupiter": "C", "Saturn": "I", "Paris": "C", "5": "I"}
#: What people say of each answer (the truth).
TRUTH = {"4": "c", "Lyon": "i", "Jupiter": "c", "Saturn": "i"}


class _Words:
    """A stand-in tokenizer: words (tiktoken would download its encoding)."""

    def encode(self, text, **_):
        return text.split()


@pytest.fixture
def no_tokenizer_download(monkeypatch):
    import tiktoken

    monkeypatch.setattr(tiktoken, "get_encoding", lambda name: _Words())
    monkeypatch.setattr(tiktoken, "encoding_for_model", lambda name: _Words())


def make_log(folder, answers=None, grades=GRADES, name="arith"):
    """Run a real inspect eval: 3 samples x 2 epochs, answered by a mock model
    saying ``answers`` ({question: [answer per epoch]}) and scored by match
    and model_graded_qa (partial credit) with a mock grader saying
    ``grades`` ({answer: C, P or I}). Returns the log's location."""
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, get_model
    from inspect_ai.scorer import match, model_graded_qa
    from inspect_ai.solver import generate

    answers = {q: list(a) for q, a in (answers or {q: a for q, (_, _, a) in QUESTIONS.items()}).items()}

    def answer(messages, *_):
        question = messages[-1].text.strip()
        return ModelOutput.from_content("mockllm/model", answers[question].pop(0))

    def grade(messages, *_):
        submission = re.search(r"\[Submission\]: (.*)", messages[-1].text).group(1).strip()
        return ModelOutput.from_content("mockllm/model", f"GRADE: {grades[submission]}")

    task = Task(
        dataset=[
            Sample(input=q, target=target, id=sid, metadata={"topic": f"topic of {sid}", "level": i})
            for i, (q, (sid, target, _)) in enumerate(QUESTIONS.items(), 1)
        ],
        solver=generate(),
        scorer=[match(), model_graded_qa(model=get_model("mockllm/model", custom_outputs=grade), partial_credit=True)],
        epochs=2,
        name=name,
    )
    (log,) = inspect_eval(
        task, model=get_model("mockllm/model", custom_outputs=answer), log_dir=str(folder), display="none"
    )
    assert log.status == "success", log.error
    return log.location
