"""The fully-connected-layer exercises, round seven: mistakes of helper-90's blind class (45 assignment notebooks
graded with `grader grade --assignment fc-layers`) that round six left without a name.

* linear: the bias multiplied by in_features (bias-scaled), the bias folded in as a weight column at one end while
  the ones column of x sits at the other (bias-column-misplaced), the weight's rows divided by their sums
  (weight-normalised), x scaled to unit length (input-normalised), np.abs(weight) (weight-sign-dropped);
* dense_scores: the kernel reversed along its rows only (kernel-flipped), windows k apart along the columns only
  (non-overlapping-windows), the bias added as bias[:, None, None] (bias-channels-first, which raised or had the
  wrong shape and was named only that);
* gap_head: the maximum over the rows, then the mean over the columns (max-pooling).

Checked in process on the hidden cases and probes of three students; the sandboxed per-exercise tests grade the
new buggy files too (and check that the public cases alone name no other mistake).
"""
from __future__ import annotations

import numpy as np
import pytest

import exercise_helpers as helpers

NAMED = [
    ("linear", "bias-scaled"), ("linear", "bias-column-misplaced"), ("linear", "weight-normalised"),
    ("linear", "input-normalised"), ("linear", "weight-sign-dropped"),
    ("dense_scores", "kernel-flipped--rows-only"), ("dense_scores", "non-overlapping-windows--column-stride"),
    ("dense_scores", "bias-channels-first"), ("gap_head", "max-pooling--rows-then-columns"),
]


@pytest.mark.parametrize("exercise_id, stem", NAMED, ids=lambda v: v)
def test_the_round_s_mistakes_lose_points_and_are_named_alone_for_every_student(exercise_id, stem):
    helpers.assert_buggy_file_named_alone_over_seeds(exercise_id, stem)


@pytest.mark.parametrize("exercise_id, stem, said", [
    ("linear", "bias-scaled", "bias * in"),
    ("linear", "bias-column-misplaced", "the ones column first in x and the bias column last"),
    ("linear", "weight-normalised", "weight.sum(axis=1"),
    ("linear", "input-normalised", "np.linalg.norm(x, axis=-1"),
    ("linear", "weight-sign-dropped", "np.abs(weight)"),
    ("dense_scores", "kernel-flipped--rows-only", "[:, ::-1]"),
    ("dense_scores", "non-overlapping-windows--column-stride", "column j * k"),
    ("dense_scores", "bias-channels-first", "bias[:, None, None]"),
    ("gap_head", "max-pooling--rows-then-columns", "fmap.max(axis=0).mean(axis=0)"),
])
def test_the_evidence_says_what_was_done(exercise_id, stem, said):
    assert said in helpers.buggy_evidence(exercise_id, stem)


def test_right_layers_that_fold_the_bias_in_or_reshape_it_are_not_read_as_the_new_patterns():
    """The bias folded into the weight with its ones at the same end, and a bias added as bias[None, None, :],
    are right: no pattern may fire on them."""
    def folded(x, weight, bias=None):
        if bias is None:
            return x @ weight.T
        ones = np.ones(x.shape[:-1] + (1,))
        return np.concatenate([x, ones], axis=-1) @ np.hstack([weight, bias[:, None]]).T

    def reshaped_bias(fmap, weight, bias, k):
        windows = np.lib.stride_tricks.sliding_window_view(fmap, (k, k), axis=(0, 1)).transpose(0, 1, 3, 4, 2)
        scores = windows.reshape(windows.shape[0], windows.shape[1], -1) @ weight.T
        return scores + bias[None, None, :]

    assert helpers.exercise_findings("linear", folded) == []
    assert helpers.exercise_findings("dense_scores", reshaped_bias) == []
