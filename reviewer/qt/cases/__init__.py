"""The review window's part for test cases (docs/test-cases.md): the case panel."""
