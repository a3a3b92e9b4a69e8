"""The span workflow's core registration (decision record
"workflow-registries"): an item with golden spans or span runs is a span
item, before the photo, as a span item's runs are its content."""

from reviewer.core.workflows import Recognition, Workflow, recognise

RECOGNITION = recognise(Recognition(Workflow.SPANS, fact="spans", rank=20, order=20))
