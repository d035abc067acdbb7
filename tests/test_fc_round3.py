"""The four fully-connected-layer exercises, round three: the mistakes the third round of probes left unnamed.

Graded tests run real submission files (tests/submissions/<exercise>/buggy/...) in the sandbox and assert what the
student sees: the score and the names the report gives. In-process tests call the exercise's diagnosis on the
runs of small functions, to cover variants that have no file of their own.
"""
from __future__ import annotations

import numpy as np
import pytest

import exercise_helpers as helpers
from conftest import SUBMISSIONS
from grader import exercise as exercise_mod
from grader.grade import grade_file




def graded(sessions, exercise_id: str, stem: str):
    path = SUBMISSIONS / exercise_id / "buggy" / f"{stem}.py"
    return grade_file(path, sessions(exercise_id), student=path.stem)


def names(result) -> set[str]:
    return {d.id for d in result.diagnoses}


def in_process(exercise_id: str, fn) -> list:
    """The findings of the exercise's diagnosis for ``fn`` on a set of hidden cases and the probes."""
    ex = exercise_mod.load(exercise_id)
    cases = ex.hidden_cases(11) + ex.diagnosis_module.probe_cases()
    return ex.diagnosis_module.diagnose(helpers.case_runs(ex, fn, cases), ex)


# -- linear: an output allocated with np.empty_like(x) ---------------------------------------------------------------
def test_an_output_allocated_with_empty_like_is_named_for_its_shape_and_nothing_else(sessions):
    """The unwritten entries hold leftover memory: NaN now and then, other values on a second call. That used to
    bring four generic names (wrong-shape, non-finite, nondeterministic, raises-error) and not the mistake."""
    result = graded(sessions, "linear", "output-shaped-like-input--empty-like")
    assert result.score < result.max_score
    assert names(result) == {"output-shaped-like-input"}, helpers.findings(result)
    assert "np.empty_like" in result.diagnoses[0].evidence


def _like_x(fill):
    """A loop over the outputs writing into an array shaped like x, whose other entries hold ``fill(shape)``."""
    def linear(x, weight, bias=None):
        y = fill(x.shape)
        for j in range(min(weight.shape[0], x.shape[-1])):
            y[..., j] = x @ weight[j] + (0.0 if bias is None else bias[j])
        if weight.shape[0] > x.shape[-1]:
            raise IndexError(f"index {x.shape[-1]} is out of bounds for axis 0 with size {x.shape[-1]}")
        return y
    return linear


@pytest.mark.parametrize("fill", [
    lambda shape: np.full(shape, np.nan),
    lambda shape: np.full(shape, 1e300),
    lambda shape: np.random.default_rng(0).normal(size=shape),
], ids=["nan", "huge", "noise"])
def test_whatever_the_unwritten_entries_hold_the_mistake_is_named(fill):
    assert [f.id for f in in_process("linear", _like_x(fill))] == ["output-shaped-like-input"]


def test_an_output_shaped_like_x_with_wrong_written_entries_is_not_given_that_name():
    """The unwritten entries are free, the written ones are not: doubled scores in them match no model."""
    doubled = _like_x(np.zeros)
    found = in_process("linear", lambda x, w, b=None: 2 * doubled(x, w, b))
    assert found == [], [(f.id, f.evidence) for f in found]


# -- gap_head: a divisor fixed at GoogLeNet's 49, and a partial mean patched with [0] -----------------------------
def test_a_divisor_fixed_at_49_is_named_and_right_only_on_the_seven_by_seven_map(sessions):
    result = graded(sessions, "gap_head", "wrong-divisor--fixed-49")
    assert result.score < result.max_score
    assert names(result) == {"wrong-divisor"}, helpers.findings(result)
    assert "49" in result.diagnoses[0].evidence
    status = {c.id: c.status for c in result.checks}
    assert status["values-googlenet"] == "passed" and status["values-square"] != "passed", status


def test_rows_averaged_then_the_first_column_kept_is_partial_pooling(sessions):
    """``fmap.mean(axis=0)[0]``: the (w, C) partial mean, its shape mended by keeping its first row."""
    result = graded(sessions, "gap_head", "partial-pooling--first-column")
    assert result.score < result.max_score
    assert names(result) == {"partial-pooling"}, helpers.findings(result)
    assert "[0]" in result.diagnoses[0].evidence


def test_columns_averaged_then_the_first_row_kept_is_partial_pooling_too():
    found = in_process("gap_head", lambda F, V, c: (V @ F.mean(axis=1)[0] + c, F @ V.T + c))
    assert [f.id for f in found] == ["partial-pooling"]
    assert "first row" in found[0].evidence


# -- to_channels_last: the right columns, the rows reversed ---------------------------------------------------------
def test_rows_reversed_after_a_right_reordering_gets_no_wrong_name():
    """Reversing the outputs after reordering the columns right is not rows-permuted (the permutation applied to
    the rows instead of the columns), nor any other column mistake: a wrong name is worse than none. Round four
    catalogued it as rows-reordered (tests/test_fc_round4.py), its one true name."""
    def flipped(weight, C, H, W):
        right = weight.reshape(-1, C, H, W).transpose(0, 2, 3, 1).reshape(weight.shape[0], -1)
        return right[::-1].copy()
    assert [f.id for f in in_process("to_channels_last", flipped)] == ["rows-reordered"]
