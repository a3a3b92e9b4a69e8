"""The core registrations of the two judging workflows (decision record
"workflow-registries"): an item holding an imported pair of outputs to
compare is pairwise; any other item is judged output, the last rule."""

from reviewer.core.workflows import Recognition, Workflow, recognise

PAIRWISE = recognise(Recognition(Workflow.PAIRWISE, fact="pair", rank=40, order=50))
JUDGED = recognise(Recognition(Workflow.JUDGED, fact="", rank=1000, order=40))
