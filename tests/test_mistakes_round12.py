"""What round eleven left over, and new mistakes of the VGG head that no earlier round wrote, named in round twelve;
each case says what the report said before. The search's last, rarer departures (``variants._rare_neighbours``)
gain a skip added before the activation, the absolute value of a weight matrix, a ReLU on a bias and a bias added
once per input unit, and start from the reference with one bias left out as well as from the reference alone (a
skip connection beside a missing b3 changes every output, so neither one alone brought the descent closer). A softmax
over a hidden layer's units and a ReLU followed by each sample's mean subtracted are read from the activation ramps;
the logits shifted by their first class, rescaled to [0, 1], or divided by the largest absolute logit of the whole
batch are changes after FC3.

Diagnosed in process (hidden cases of one student and the probes, both halves of the diagnosis, after superseding),
which is what grading does minus the sandbox; the whole file takes a few seconds.
"""
from __future__ import annotations

import numpy as np
import pytest

import exercise_helpers as helpers


def _relu(z):
    return np.maximum(z, 0.0)


def _flat(f):
    return f.reshape(len(f), -1)


def _softmax_units(z):
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _residual_no_b3(f, W1, b1, W2, b2, W3, b3):
    h1 = _relu(_flat(f) @ W1 + b1)
    return (_relu(h1 @ W2 + b2) + h1) @ W3


def _skip_before_relu(f, W1, b1, W2, b2, W3, b3):
    h1 = _relu(_flat(f) @ W1 + b1)
    return _relu(h1 @ W2 + b2 + h1) @ W3 + b3


def _skip_before_relu_no_b3(f, W1, b1, W2, b2, W3, b3):
    h1 = _relu(_flat(f) @ W1 + b1)
    return _relu(h1 + h1 @ W2 + b2) @ W3


def _abs_w1(f, W1, b1, W2, b2, W3, b3):
    return _relu(_relu(_flat(f) @ np.abs(W1) + b1) @ W2 + b2) @ W3 + b3


def _abs_w3(f, W1, b1, W2, b2, W3, b3):
    return _relu(_relu(_flat(f) @ W1 + b1) @ W2 + b2) @ np.abs(W3) + b3


def _relu_b2(f, W1, b1, W2, b2, W3, b3):
    return _relu(_relu(_flat(f) @ W1 + b1) @ W2 + np.maximum(b2, 0)) @ W3 + b3


def _softmax_fc1(f, W1, b1, W2, b2, W3, b3):
    return _relu(_softmax_units(_flat(f) @ W1 + b1) @ W2 + b2) @ W3 + b3


def _softmax_fc2(f, W1, b1, W2, b2, W3, b3):
    return _softmax_units(_relu(_flat(f) @ W1 + b1) @ W2 + b2) @ W3 + b3


def _h1_centred(f, W1, b1, W2, b2, W3, b3):
    h1 = _relu(_flat(f) @ W1 + b1)
    return _relu((h1 - h1.mean(axis=1, keepdims=True)) @ W2 + b2) @ W3 + b3


def _logits(f, W1, b1, W2, b2, W3, b3):
    return _relu(_relu(_flat(f) @ W1 + b1) @ W2 + b2) @ W3 + b3


def _minus_first(*args):
    y = _logits(*args)
    return y - y[:, [0]]


def _min_max(*args):
    y = _logits(*args)
    lo, hi = y.min(axis=1, keepdims=True), y.max(axis=1, keepdims=True)
    return (y - lo) / (hi - lo)


def _batch_abs_max(*args):
    y = _logits(*args)
    return y / np.abs(y).max()


NAMED = {  # function: (the findings now, words of the evidence, what the report said before)
    "residual-without-b3": (_residual_no_b3, ["missing-bias", "residual-connection"],
                            "h2 = ReLU(h1 W2 + b2) + h1", "raises-error and a wrong-stage at b3"),
    "skip-before-the-relu": (_skip_before_relu, ["residual-connection"],
                             "h2 = ReLU(h1 W2 + b2 + h1) (a skip connection added before the ReLU instead of after",
                             "raises-error and a wrong-stage at the first activation"),
    "skip-before-the-relu-without-b3": (_skip_before_relu_no_b3, ["missing-bias", "residual-connection"],
                                        "h2 = ReLU(h1 W2 + b2 + h1)", "raises-error and a wrong-stage at b3"),
    "abs-of-W1": (_abs_w1, ["activation-on-weights"], "FC1 multiplies by np.abs(W1), the absolute value of the "
                                                      "weight matrix W1", "a wrong-stage at FC1"),
    "abs-of-W3": (_abs_w3, ["activation-on-weights"], "FC3 multiplies by np.abs(W3)", "a wrong-stage at FC3"),
    "relu-on-b2": (_relu_b2, ["activation-on-weights"], "FC2 adds np.maximum(b2, 0), a ReLU applied to the bias b2",
                   "a wrong-stage at FC2"),
    "softmax-in-fc1": (_softmax_fc1, ["wrong-activation"], "FC1 uses a softmax over the layer's units",
                       "a wrong-stage at the first activation"),
    "softmax-in-fc2": (_softmax_fc2, ["wrong-activation"], "FC2 uses a softmax over the layer's units",
                       "a wrong-stage at the second activation"),
    "h1-centred": (_h1_centred, ["wrong-activation"], "each sample's mean over the units subtracted",
                   "a wrong-stage at the first activation"),
    "minus-first-logit": (_minus_first, ["logits-changed"], "shifted by each sample's first logit (y - y[:, :1])",
                          "a wrong-stage after FC3"),
    "min-max": (_min_max, ["logits-changed"], "rescaled to [0, 1] within each sample", "a wrong-stage after FC3"),
    "batch-abs-max": (_batch_abs_max, ["logits-changed"], "divided by the largest absolute logit of the whole batch",
                      "a wrong-stage after FC3"),
}


def _loses_points(fn) -> bool:
    """Wrong logits on some hidden case, or an error there (a skip connection fails wherever the widths differ)."""
    try:
        return helpers.vgg_loses_points(fn)
    except ValueError:
        return True


@pytest.mark.parametrize("name", sorted(NAMED))
def test_round_twelve_mistakes_lose_points_and_are_named_for_what_the_code_does(name):
    fn, ids, words, _before = NAMED[name]
    assert _loses_points(fn)
    found = helpers.vgg_findings(fn)
    assert sorted(f.id for f in found) == ids, [(f.id, f.evidence) for f in found]
    assert any(words in f.evidence for f in found), [(f.id, f.evidence) for f in found]


def test_the_new_departures_leave_a_right_head_and_round_eleven_s_names_alone():
    """The rare search's new starts (one bias left out) and departures never stand in for what was named before."""
    def relu_w1(f, W1, b1, W2, b2, W3, b3):
        return _relu(_relu(_flat(f) @ _relu(W1) + b1) @ W2 + b2) @ W3 + b3

    def b1_mean(f, W1, b1, W2, b2, W3, b3):
        return _relu(_relu(_flat(f) @ W1 + b1.mean()) @ W2 + b2) @ W3 + b3

    def no_b2(f, W1, b1, W2, b2, W3, b3):
        return _relu(_relu(_flat(f) @ W1 + b1) @ W2) @ W3 + b3
    assert helpers.vgg_findings(_logits) == []
    assert [f.id for f in helpers.vgg_findings(relu_w1)] == ["activation-on-weights"]
    assert "np.maximum(W1, 0)" in helpers.vgg_findings(relu_w1)[0].evidence
    assert [f.id for f in helpers.vgg_findings(b1_mean)] == ["bias-one-value"]
    assert [f.id for f in helpers.vgg_findings(no_b2)] == ["missing-bias"]
