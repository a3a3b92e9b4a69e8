"""Test-case workflow (not written yet): this package will hold the pure logic
for evaluating prompts against test cases, following the seed document
test-case-evaluation-framework.md. It is empty for now; like its siblings
``cards``, ``judging`` and ``spans`` it stays independent of the other
workflows and re-exports nothing.
"""
