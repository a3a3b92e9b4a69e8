"""The card workflow's core registration (decision record
"workflow-registries"): a photo is a card item, after test cases and
spans; first of the five in menus."""

from reviewer.core.workflows import Recognition, Workflow, recognise

RECOGNITION = recognise(Recognition(Workflow.CARDS, fact="photo", rank=30, order=10))
