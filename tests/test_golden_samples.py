"""Every sample on every target gives the committed analysis and checklist, byte for byte.

This guards refactors: moving code must not move a number.  A change meant to move
numbers regenerates the golden file (``tests/golden_samples.py --write``).
"""

from __future__ import annotations

import difflib

import golden_samples


def test_samples_match_golden_documents():
    expected = golden_samples.load()
    actual = golden_samples.compute()
    assert sorted(actual) == sorted(expected), "sample/target pairs differ from the golden file"
    changed = [k for k in sorted(actual) if actual[k] != expected[k]]
    if changed:
        k = changed[0]
        diff = "".join(list(difflib.unified_diff(expected[k].splitlines(True), actual[k].splitlines(True),
                                                 "golden", "now", n=2))[:60])
        raise AssertionError(f"{len(changed)} of {len(actual)} documents changed, first {k}:\n{diff}")
