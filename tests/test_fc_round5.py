"""The fully-connected-layer exercises, round five: blind submissions (fifteen wrong and a few correct per exercise,
written before reading the detectors) that lost points with no name.

gap_head: logits whose pooling divides by another count than h*w (h*w - 1, the first side squared, the columns
alone after a sum over the rows) or whose bias is folded into V are now read as ``s * (V @ p) + t * c`` and the
count is named (exercises/gap_head/rescaled.py); a (K, h*w) score array reshaped to (h, w, K) is a class-map
layout. linear: ``x @ (weight.T + bias)`` is a bias combined by another operation than addition. Each file is
graded in the sandbox, one session per exercise; each named mistake was checked to score the same for the first
100 students of a class (exercise_helpers.grades_over_seeds).
"""
from __future__ import annotations

import numpy as np
import pytest

import exercise_helpers as helpers
from conftest import SUBMISSIONS
from grader import exercise as exercise_mod
from grader.grade import grade_file


def graded(sessions, exercise_id: str, kind: str, stem: str):
    path = SUBMISSIONS / exercise_id / kind / f"{stem}.py"
    return grade_file(path, sessions(exercise_id), student=path.stem)


def evidence(result, finding_id: str) -> str:
    return next(d.evidence for d in result.diagnoses if d.id == finding_id)


# -- gap_head: the pooling divided by a wrong count, named with the count ---------------------------------------
@pytest.mark.parametrize("stem, said", [
    ("wrong-divisor--hw-minus-1", "divided by h*w - 1,"),
    ("wrong-divisor--square-side", "divided by h*h (as if the map were square)"),
])
def test_a_pooling_divided_by_another_count_names_the_count(sessions, stem, said):
    result = graded(sessions, "gap_head", "buggy", stem)
    assert result.score < result.max_score
    assert "wrong-divisor" in {d.id for d in result.diagnoses}, helpers.findings(result)
    assert said in evidence(result, "wrong-divisor")


def test_the_square_divisor_is_shown_where_the_map_is_not_square(sessions):
    """The first probe is a cube, where h*h is h*w: the evidence must show a probe where the two differ."""
    result = graded(sessions, "gap_head", "buggy", "wrong-divisor--square-side")
    assert "probe 'distinct'" in evidence(result, "wrong-divisor")


def test_a_sum_over_rows_then_a_mean_over_columns_names_both_counts(sessions):
    result = graded(sessions, "gap_head", "buggy", "wrong-divisor--rows-summed")
    assert {d.id for d in result.diagnoses} == {"wrong-divisor", "bias-count"}, helpers.findings(result)
    assert "divided by w, the number of columns" in evidence(result, "wrong-divisor")
    assert "which is h, the number of rows" in evidence(result, "bias-count")


def test_a_bias_folded_into_v_is_bias_count_with_how(sessions):
    result = graded(sessions, "gap_head", "buggy", "bias-count--folded-into-v")
    assert {d.id for d in result.diagnoses} == {"bias-count"}, helpers.findings(result)
    assert "V + c[:, None]" in evidence(result, "bias-count")


def test_scores_reshaped_from_k_rows_is_class_map_layout(sessions):
    result = graded(sessions, "gap_head", "buggy", "class-map-layout--k-rows-reshaped")
    assert {d.id for d in result.diagnoses} == {"class-map-layout"}, helpers.findings(result)
    assert "(K, h*w) order" in evidence(result, "class-map-layout")


def test_logits_a_relu_or_float32_changed_are_not_read_as_a_divisor():
    """The fit asks for an exact line: a ReLU on the logits or float32 arithmetic is never a count."""
    ex = exercise_mod.load("gap_head")
    cases = ex.hidden_cases(7) + ex.diagnosis_module.probe_cases()

    def relu(F, V, c):
        return np.maximum(V @ F.mean(axis=(0, 1)) + c, 0), F @ V.T + c

    def single(F, V, c):
        F, V, c = (a.astype(np.float32) for a in (F, V, c))
        return (V @ F.mean(axis=(0, 1)) + c).astype(np.float64), (F @ V.T + c).astype(np.float64)

    for fn in (relu, single):
        found = ex.diagnosis_module.diagnose(helpers.case_runs(ex, fn, cases), ex)
        assert not {"wrong-divisor", "bias-count"} & {f.id for f in found}, [(f.id, f.evidence) for f in found]


# -- linear: the bias folded into the weight ------------------------------------------------------------------------
def test_a_bias_added_to_the_transposed_weight_is_bias_wrong_operation(sessions):
    result = graded(sessions, "linear", "buggy", "bias-wrong-operation--in-weight")
    assert result.score < result.max_score
    assert {d.id for d in result.diagnoses} == {"bias-wrong-operation"}, helpers.findings(result)
    assert "x @ (weight.T + bias)" in evidence(result, "bias-wrong-operation")


# -- correct styles found in the round --------------------------------------------------------------------------------
@pytest.mark.parametrize("exercise_id, stem", [
    ("linear", "multi-dot-pair"), ("linear", "homogeneous-coordinates"),
    ("to_channels_last", "positions-read-w-by-h"), ("gap_head", "apply-over-axes"),
])
def test_unusual_correct_styles_get_full_marks(sessions, exercise_id, stem):
    result = graded(sessions, exercise_id, "correct", stem)
    assert result.score == result.max_score, helpers.failed_checks(result)
    assert result.diagnoses == ()
