"""What a submission's answers cost the grader's own process after the child has answered.

The child is sandboxed, but its results are checked and diagnosed in the grader's process: hostile values there
must neither slow it down nor leak noise onto the instructor's terminal, and the verdict must still be right.
"""
from __future__ import annotations

import warnings

import pytest

from grader import batch
from grader.classfolder import Entry

_REFERENCE = """import numpy as np

def _head(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h1 = np.maximum(x @ W1 + b1, 0.0)
    return np.maximum(h1 @ W2 + b2, 0.0) @ W3 + b3

def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    logits = _head(features, W1, b1, W2, b2, W3, b3)
"""

#: returned values at the edge of float64 and of integers: each once made numpy warn inside the grader's process
HOSTILE = {
    "huge": "    return logits * 1e308\n",
    "overflowed-ints": "    return (logits * 1e30).astype(np.int64)\n",
    "inf-and-nan": "    logits[::2] = -np.inf\n    logits[1::2] = np.nan\n    return logits\n",
}
#: the check each of them must fail
FAILS = {"huge": "finite", "overflowed-ints": "dtype", "inf-and-nan": "finite"}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_values_leave_no_numpy_warning_in_the_grader(session, tmp_path, name):
    """Grading 1e308-scaled logits printed 'RuntimeWarning: overflow encountered in cast' (and 'invalid value
    encountered in subtract') from the exercise's diagnosis on the instructor's terminal, once per batch."""
    path = tmp_path / f"{name}.py"
    path.write_text(_REFERENCE + HOSTILE[name], encoding="utf-8")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = batch.grade_entry(Entry(path, name, None), session)
    assert [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)] == []
    assert result.status == "graded" and result.error is None
    failed = {c.id for c in result.checks if c.status != "passed"}
    assert FAILS[name] in failed
    assert result.score < result.max_score
