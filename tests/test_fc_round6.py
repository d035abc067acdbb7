"""The fully-connected-layer exercises, round six: a blind class of 45 assignment notebooks (helper-90; 53 wrong
exercises, one or two per notebook) graded with `grader grade --assignment fc-layers`. What lost points with no
name, or with a wrong one, is named now:

* linear: a row buffer appended to a list (every row the last vector's), one number added for the whole bias
  (np.sum(bias), bias[0]), the product scaled by 1/sqrt(in), an ``int`` cast (rounded-output), a loop over
  range(out - 1) (the last output never written). These are whole-result patterns tried when the switch model
  explains nothing (exercises/linear/unmodelled.py).
* dense_scores: the same row buffer over the grid's rows, and a ReLU on the products before the bias
  (activation-applied; exercises/dense_scores/unmodelled.py).
* gap_head: median pooling, the centre position's scores taken as the logits, the logits broadcast as the class
  map; a class map centred on its mean was called bias-count (a per-class shift) and is normalised-map.
* to_channels_last: a reshape to (out, C, s, s), one side for both (int(sqrt(H*W)), or H twice), was raises-error
  alone; it is square-map-assumed, with the shape numpy refused (exercises/to_channels_last/square.py). The old
  raises-error example was that very mistake; raises-error's example is now a transpose with an axis left out.

Each is checked in process on the hidden cases and probes of three students (the same checks and diagnosis the
sandbox runs), with what the evidence says; the sandboxed per-exercise tests grade the new buggy files too.
"""
from __future__ import annotations

import numpy as np
import pytest

import exercise_helpers as helpers
from grader import exercise as exercise_mod

NAMED = [
    ("linear", "buffer-reused"), ("linear", "bias-one-value"), ("linear", "bias-one-value--first-entry"),
    ("linear", "output-scaled"), ("linear", "outputs-left-unfilled"), ("linear", "rounded-output--int-cast"),
    ("dense_scores", "buffer-reused"), ("dense_scores", "activation-applied--relu-before-bias"),
    ("gap_head", "median-pooling"), ("gap_head", "centre-position"), ("gap_head", "class-map-constant"),
    ("gap_head", "normalised-map--centred"), ("to_channels_last", "square-map-assumed"),
    ("to_channels_last", "square-map-assumed--height-twice"),
]


@pytest.mark.parametrize("exercise_id, stem", NAMED, ids=lambda v: v)
def test_the_round_s_mistakes_lose_points_and_are_named_alone_for_every_student(exercise_id, stem):
    helpers.assert_buggy_file_named_alone_over_seeds(exercise_id, stem)


@pytest.mark.parametrize("exercise_id, stem, said", [
    ("linear", "bias-one-value", "np.sum(bias)"),
    ("linear", "bias-one-value--first-entry", "bias[0]"),
    ("linear", "output-scaled", "divided by sqrt(in)"),
    ("linear", "outputs-left-unfilled", "range(out - 1)"),
    ("linear", "rounded-output--int-cast", "whole numbers"),
    ("linear", "buffer-reused", "one buffer"),
    ("dense_scores", "buffer-reused", "last row of windows"),
    ("dense_scores", "activation-applied--relu-before-bias", "before the bias"),
    ("gap_head", "median-pooling", "median"),
    ("gap_head", "centre-position", "[h // 2, w // 2]"),
    ("gap_head", "normalised-map--centred", "centred"),
    ("to_channels_last", "square-map-assumed--height-twice", "(5,2,3,3), one side used for both"),
])
def test_the_evidence_says_what_was_done(exercise_id, stem, said):
    assert said in helpers.buggy_evidence(exercise_id, stem)


def test_right_layers_in_unusual_forms_are_not_read_as_the_new_patterns():
    """A layer computed row by row into fresh arrays, and one whose bias is a single output's (out = 1), are
    right: the patterns must not fire where they change nothing."""
    ex = exercise_mod.load("linear")
    cases = ex.hidden_cases(5) + ex.probe_cases()

    def fresh_rows(x, weight, bias=None):
        rows = [weight @ v + (0 if bias is None else bias) for v in x.reshape(-1, x.shape[-1])]
        return np.array(rows).reshape(x.shape[:-1] + (weight.shape[0],))

    assert ex.diagnosis_module.diagnose(helpers.case_runs(ex, fresh_rows, cases), ex) == []
