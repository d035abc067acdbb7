"""The four fully-connected-layer exercises, round four: what a held-out grader's probes (some fifty correct and
fifty buggy submissions per exercise, and a class of assignment notebooks) found misnamed, unnamed or wrongly
graded.

Graded tests run real files (tests/submissions/...) in the sandbox and assert what the student sees: the score and
the names the report gives. In-process tests call an exercise's diagnosis on the runs of small functions, to cover
variants that have no file of their own.
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


def in_process(exercise_id: str, fn, seed: int = 11) -> list:
    """The findings of the exercise's diagnosis for ``fn`` on a set of hidden cases and the probes."""
    ex = exercise_mod.load(exercise_id)
    cases = ex.hidden_cases(seed) + ex.diagnosis_module.probe_cases()
    return ex.diagnosis_module.diagnose(helpers.case_runs(ex, fn, cases), ex)


def ids(found) -> list[str]:
    return [f.id for f in found]


# -- linear: the bias added while the samples ran along the last axis, before turning them back into rows -------------
def test_a_bias_added_before_the_final_transpose_is_bias_wrong_axis(sessions):
    """``(weight @ x.T + bias).T`` with the vector path right: it used to get wrong-shape and raises-error, although
    the catalog's bias-wrong-axis names this very code ("adding it before a final transpose")."""
    result = graded(sessions, "linear", "bias-wrong-axis--before-transpose")
    assert result.score < result.max_score
    assert names(result) == {"bias-wrong-axis"}, helpers.findings(result)
    assert "single vector" in result.diagnoses[0].evidence


@pytest.mark.parametrize("seed", [3, 11, 29])
def test_the_transpose_form_of_the_same_mistake_is_named_alike(seed):
    found = in_process("linear", _before_transpose, seed)
    assert ids(found) == ["bias-wrong-axis"], [(f.id, f.evidence) for f in found]


def _before_transpose(x, weight, bias=None):
    """``(weight @ x^T + bias)^T`` written with moveaxis: the bias lines up with the samples."""
    if x.ndim == 1:
        return weight @ x if bias is None else weight @ x + bias
    y = np.moveaxis(np.tensordot(weight, x, axes=(1, -1)), 0, -1)  # right, (*, out)
    y = np.swapaxes(y, -1, -2)
    return np.swapaxes(y if bias is None else y + bias, -1, -2)


def test_a_bias_added_right_after_the_final_transpose_gets_no_finding():
    def linear(x, weight, bias=None):
        y = np.swapaxes(weight @ np.swapaxes(np.atleast_2d(x), -1, -2), -1, -2)
        y = y if bias is None else y + bias
        return y[0] if x.ndim == 1 else y
    assert in_process("linear", linear) == []


# -- to_channels_last: the right columns, the rows moved -------------------------------------------------------------
def test_rows_flipped_after_a_right_port_is_rows_reordered(sessions):
    result = graded(sessions, "to_channels_last", "rows-reordered")
    assert result.score < result.max_score
    assert names(result) == {"rows-reordered"}, helpers.findings(result)
    assert "reverse order" in result.diagnoses[0].evidence


def _port(weight, C, H, W):
    return weight.reshape(weight.shape[0], C, H, W).transpose(0, 2, 3, 1).reshape(weight.shape[0], -1)


def test_rows_rolled_after_a_right_port_is_rows_reordered_and_says_by_how_much():
    found = in_process("to_channels_last", lambda w, C, H, W: np.roll(_port(w, C, H, W), 1, axis=0))
    assert ids(found) == ["rows-reordered"]
    assert "np.roll(..., 1, axis=0)" in found[0].evidence


def test_rows_moved_on_top_of_a_wrong_column_order_is_not_rows_reordered():
    """Its columns are not channels-last, so the name's first claim would be false."""
    def both(weight, C, H, W):
        wrong = weight.reshape(weight.shape[0], C, H, W).transpose(0, 3, 2, 1).reshape(weight.shape[0], -1)
        return wrong[::-1].copy()
    assert "rows-reordered" not in ids(in_process("to_channels_last", both))


def test_only_some_rows_moved_is_rows_reordered_too():
    def swapped(weight, C, H, W):
        out = _port(weight, C, H, W)
        if out.shape[0] > 1:
            out[[0, 1]] = out[[1, 0]]
        return out
    found = in_process("to_channels_last", swapped)
    assert ids(found) == ["rows-reordered"]
    assert "row 0 of your result is row 1" in found[0].evidence


# -- gap_head: V reshaped to (C, K) where it had to be transposed ----------------------------------------------------
def test_v_reshaped_instead_of_transposed_is_transposed_weights(sessions):
    """It runs on every size (unlike V used as it is), and used to get no name at all."""
    result = graded(sessions, "gap_head", "transposed-weights--reshaped")
    assert result.score < result.max_score
    assert names(result) == {"transposed-weights"}, helpers.findings(result)
    assert "reshaped to (C, K)" in result.diagnoses[0].evidence


def test_v_reshaped_in_the_class_map_alone_is_named_for_the_class_map():
    def cam_only(F, V, c):
        return V @ F.mean(axis=(0, 1)) + c, F @ V.reshape(V.shape[1], V.shape[0]) + c
    found = in_process("gap_head", cam_only)
    assert ids(found) == ["transposed-weights"]
    assert "class map" in found[0].evidence and "logits are" not in found[0].evidence


# -- dense_scores: the window averaged over its k*k positions -------------------------------------------------------
def test_a_window_averaged_over_its_positions_is_mean_not_sum(sessions):
    """Divided by k*k rather than k*k*C: it had no name at all."""
    result = graded(sessions, "dense_scores", "mean-not-sum--window-averaged")
    assert result.score < result.max_score
    assert names(result) == {"mean-not-sum"}, helpers.findings(result)
    assert "divided by k*k," in result.diagnoses[0].evidence


# -- to_channels_last: rows moved where no probe shows it; a port cast to integers -----------------------------------
def test_rows_sorted_by_their_first_weight_is_rows_reordered_on_a_graded_case():
    """The labelled probes' rows are already sorted, so only the graded cases show the move: the evidence names the
    case and the rows, never a hidden value."""
    found = in_process("to_channels_last", lambda w, C, H, W: _port(w, C, H, W)[np.argsort(w[:, 0])])
    assert ids(found) == ["rows-reordered"]
    assert "graded case" in found[0].evidence


def test_a_port_cast_to_integers_is_not_left_unfilled():
    """astype(int) cuts every weight below 1 in size to 0, which looked like entries never written; the generic
    wrong-dtype finding is the true one."""
    found = in_process("to_channels_last", lambda w, C, H, W: _port(w, C, H, W).astype(int))
    assert "left-unfilled" not in ids(found), [(f.id, f.evidence) for f in found]
