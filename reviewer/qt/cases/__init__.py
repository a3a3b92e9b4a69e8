"""The review window's part for test cases (issue 11 §3): the case panel."""
