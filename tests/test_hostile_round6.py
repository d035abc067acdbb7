"""Sixth round of hostile submissions: what the queued calls, the sealed inputs memory and the cpu groups opened.

A call's inline inputs sit in memory the parent shares with the child. Each call had a place of its own there, so
an answer kept by the inputs' address (``features.ctypes.data``, which a real caller's next batch often reuses, as
the allocator hands back the memory the last one was freed from) was never asked twice: it got full marks although
the hidden cases claim to catch an answer kept "by anything but their values".
"""
from __future__ import annotations

from conftest import CORRECT

#: answers kept by where the features lie in memory, not by what they hold
BY_ADDRESS = CORRECT.replace("def vgg_classifier(", "def _right(") + """
_kept = {}

def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    key = features.ctypes.data
    if key not in _kept:
        _kept[key] = _right(features, W1, b1, W2, b2, W3, b3)
    return _kept[key]
"""


def test_an_answer_kept_by_the_inputs_address_loses_the_batch_points(grade_source):
    result = grade_source(BY_ADDRESS)
    checks = {c.id: c for c in result.checks}
    assert checks["values-batch"].status == "failed", checks["values-batch"].message
    assert "batch-same-sizes" in checks["values-batch"].message
    assert "stale-result" in {d.id for d in result.diagnoses}, [(d.id, d.evidence) for d in result.diagnoses]
    # the cases of other sizes are each called once: only the twin pair shares a place
    assert checks["values-single"].status == checks["values-shapes"].status == "passed"
    assert result.score < result.max_score
