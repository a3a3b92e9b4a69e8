"""Fill the runner's form and read the runs it made: shared by the runner
window and reliability tests."""

from __future__ import annotations


def model_runs(window, model):
    return sorted((x.item, x.repetition) for x in window.session.run_lines() if x.model == model)


def fill(form, endpoint, model, **extra):
    form.endpoint.setText(endpoint)
    form.model.setText(model)
    for name, value in extra.items():
        getattr(form, name).setValue(value)
