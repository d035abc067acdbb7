"""The fully-connected-layer exercises, round eight: mistakes of helper-94's blind class (43 assignment notebooks
graded with `grader grade --assignment fc-layers`, 33 of them wrong in one exercise) that lost points with no name,
or with a misleading one.

* linear: the loop over the vectors stopping one short (samples-left-unfilled), bias[j - 1] or weight[(j + 1) % out]
  in a loop over the outputs (index-shifted), the weight centred on its mean (weight-normalised);
* dense_scores: bias[0] for every score (bias-one-value), the products scaled by 1/sqrt(k*k*C) (output-scaled),
  np.abs(weight) (weight-sign-dropped), a loop stepping by 2 into a grid of the right size (grid-stride), the bias
  added inside the loop over the kernel, k * k times (bias-added-twice, which only knew two), and the bias added at
  the first window only (missing-bias: it was called bias-added-twice, 'from 0 to 1 times');
* gap_head: fmap.sum(axis=(0, 1)) // (h*w) (floor-division), c.sum() added to every logit (bias-one-value), V's rows
  scaled to unit length (weight-normalised: it was called normalised-map), fmap[::2, ::2] pooled (partial-pooling),
  a class map of the products divided by h*w before the bias (sum-pooling: it was normalised-map, 'multiplied by
  0.1111').

Checked in process on the hidden cases and probes of three students; the sandboxed per-exercise tests grade the
new buggy files too.
"""
from __future__ import annotations

import numpy as np
import pytest

import exercise_helpers as helpers

NAMED = [
    ("linear", "samples-left-unfilled"), ("linear", "index-shifted"), ("linear", "index-shifted--weight-row"),
    ("linear", "weight-normalised--centred"),
    ("dense_scores", "bias-one-value"), ("dense_scores", "output-scaled"), ("dense_scores", "weight-sign-dropped"),
    ("dense_scores", "grid-stride"), ("dense_scores", "bias-added-twice--per-kernel-position"),
    ("dense_scores", "missing-bias--first-window-only"),
    ("gap_head", "floor-division"), ("gap_head", "bias-one-value"), ("gap_head", "weight-normalised"),
    ("gap_head", "partial-pooling--strided"), ("gap_head", "sum-pooling--map-share"),
]


@pytest.mark.parametrize("exercise_id, stem", NAMED, ids=lambda v: v)
def test_the_round_s_mistakes_lose_points_and_are_named_alone_for_every_student(exercise_id, stem):
    helpers.assert_buggy_file_named_alone_over_seeds(exercise_id, stem)


@pytest.mark.parametrize("exercise_id, stem, said", [
    ("linear", "samples-left-unfilled", "range(N - 1)"),
    ("linear", "index-shifted", "bias[j - 1]"),
    ("linear", "index-shifted--weight-row", "weight[(j + 1) % out]"),
    ("linear", "weight-normalised--centred", "weight - weight.mean()"),
    ("dense_scores", "bias-one-value", "bias[0]"),
    ("dense_scores", "output-scaled", "divided by sqrt(k*k*C)"),
    ("dense_scores", "weight-sign-dropped", "np.abs(weight)"),
    ("dense_scores", "grid-stride", "range(0, H - k + 1, 2)"),
    ("dense_scores", "bias-added-twice--per-kernel-position", "once per kernel position"),
    ("dense_scores", "missing-bias--first-window-only", "at some positions only"),
    ("gap_head", "floor-division", "// (h*w)"),
    ("gap_head", "bias-one-value", "the sum of c"),
    ("gap_head", "weight-normalised", "np.linalg.norm(V, axis=1"),
    ("gap_head", "partial-pooling--strided", "fmap[::2, ::2]"),
    ("gap_head", "sum-pooling--map-share", "divided by h*w before the bias"),
])
def test_the_evidence_says_what_was_done(exercise_id, stem, said):
    assert said in helpers.buggy_evidence(exercise_id, stem)


def test_right_layers_written_with_loops_over_the_outputs_and_the_kernel_get_no_finding():
    """A loop over the outputs with the same j for the row and the bias, and a sum over the kernel's positions with
    the bias added once after it, are right: none of the new patterns may fire on them."""
    def per_output(x, weight, bias=None):
        y = np.zeros(x.shape[:-1] + (weight.shape[0],))
        for j in range(weight.shape[0]):
            y[..., j] = x @ weight[j] + (0.0 if bias is None else bias[j])
        return y

    def per_offset(fmap, weight, bias, k):
        H, W, C = fmap.shape
        kernel = weight.reshape(-1, k, k, C)
        out = np.zeros((H - k + 1, W - k + 1, weight.shape[0]))
        for u in range(k):
            for v in range(k):
                out += fmap[u:u + H - k + 1, v:v + W - k + 1] @ kernel[:, u, v].T
        return out + bias

    def strided_right(fmap, V, c):
        return V @ fmap.reshape(-1, fmap.shape[2]).mean(axis=0) + c, np.einsum("hwc,kc->hwk", fmap, V) + c

    assert helpers.exercise_findings("linear", per_output) == []
    assert helpers.exercise_findings("dense_scores", per_offset) == []
    assert helpers.exercise_findings("gap_head", strided_right) == []
