"""Test-case workflow: evaluating prompts against test cases, following the
seed document test-case-evaluation-framework.md (docs/test-cases.md). ``model``
holds test cases and datasets, ``asking`` what a model is asked for a case,
``metrics`` the rule metrics as data, ``scoring`` the automatic and reviewed
scores of an answer, ``report`` the reports per model and their comparison.
Like its siblings ``cards``, ``judging`` and ``spans`` it stays independent of
the other workflows; import from the modules themselves, this package
re-exports nothing.
"""
