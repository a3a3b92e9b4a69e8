"""The test-case workflow's core registration (decision record
"workflow-registries"): a test case (query, context, expected behaviour)
is a case, before anything else, as its checks are its own findings."""

from reviewer.core.workflows import Recognition, Workflow, recognise

RECOGNITION = recognise(Recognition(Workflow.CASE, fact="case", rank=10, order=30))
