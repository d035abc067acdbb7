"""Round seventeen: 31 wrong VGG heads of the kinds code assistants write, none tried before in these forms (a
reshape with order='F', W1 or W3 used as (out, in) through np.dot or np.einsum, np.maximum(x, 0, out=x) on a view of
the features, ReLU6 through np.clip, leaky ReLUs written as masks, a softmax without keepdims or over axis 0, the
logits rounded to 4 decimals or cast to float32, features.swapaxes(1, 3), b3 added twice, z2 returned, a stray
``break`` or ``out[i:] +=`` in a per-sample loop, an int32 buffer, the samples reversed, the logits L2-normalised,
divided by a temperature or summed down the batch, the features centred or standardised per sample, per-position
channel means, thresholded, floored, SiLU and min(z, 0) activations, b1 halved...). Graded through the grader's
sandbox in one batch; each report must name what EXPECTED gives it and never give full marks, and a product written
as a broadcast multiply and sum keeps full marks.

What changed: a softmax divided by ``e.sum(axis=1)`` without keepdims raised on every batch of several samples,
and the reading of that error said a bias of B values had been added as a row and must be a column,
``b[:, None]``; no argument holds B values, so the reading now says one value per sample lost its axis and needs
keepdims=True (``structure._broadcast``).

Partial in this round and named since round eighteen: the per-position channel means fed to W1's first rows were
a generic ``features-changed`` (now it says what FC1 received, ``featuremaps.py``);
``(h2[:, :, None] * W3).sum(axis=2) + b3`` (the sum over the wrong axis) was ``missing-layer`` reading the failed
bias as b3 added to FC2's output (now ``wrong-sum-axis``, ``wrongaxis.py``).
"""
from __future__ import annotations

import exercise_helpers as helpers

body, raw = helpers.vgg_head, helpers.vgg_raw

LOOP = ("B = features.shape[0]\nout = np.zeros((B, W3.shape[1]){dt})\nfor i in range(B):\n"
        "    x = features[i].reshape(-1)\n    h = np.maximum(x @ W1 + b1, 0)\n    h = np.maximum(h @ W2 + b2, 0)\n"
        "    {store}\nreturn out")

SOURCES: dict[str, str] = {}
SOURCES["reshape-order-f"] = body(x="x = features.reshape(features.shape[0], -1, order='F')")
SOURCES["dot-w1-out-in"] = body(z1="np.dot(W1, x.T).T + b1")
SOURCES["dot-w3-out-in"] = body(z3="np.dot(W3, h2.T).T + b3")
SOURCES["relu-out-x-view"] = body(x="x = features.reshape(features.shape[0], -1)\nnp.maximum(x, 0, out=x)")
SOURCES["relu6-clip-fc1"] = body(a1="np.clip(z1, 0, 6)")
SOURCES["leaky-mask-fc2"] = body(a2="z2 * (z2 > 0) + 0.01 * z2 * (z2 <= 0)")
SOURCES["leaky-mask-both-01"] = body(a1="z1 * (z1 > 0) + 0.1 * z1 * (z1 <= 0)",
                                     a2="z2 * (z2 > 0) + 0.1 * z2 * (z2 <= 0)")
SOURCES["softmax-no-keepdims"] = body(out="e = np.exp(z3 - z3.max(axis=1, keepdims=True))\nreturn e / e.sum(axis=1)")
SOURCES["softmax-axis0-no-shift"] = body(out="return np.exp(z3) / np.exp(z3).sum(axis=0, keepdims=True)")
SOURCES["logits-round-4"] = body(out="return np.round(z3, 4)")
SOURCES["logits-float32-only"] = body(out="return z3.astype(np.float32)")
SOURCES["swapaxes-1-3"] = body(x="x = features.swapaxes(1, 3).reshape(features.shape[0], -1)")
SOURCES["b3-twice"] = body(z3="h2 @ W3 + b3 + b3")
SOURCES["return-z2"] = body(out="return z2")
SOURCES["loop-break"] = raw(LOOP.format(dt="", store="out[i] = h @ W3 + b3\n    break"))
SOURCES["loop-out-int32"] = raw(LOOP.format(dt=", dtype=np.int32", store="out[i] = h @ W3 + b3"))
SOURCES["samples-reversed"] = body(out="return z3[::-1]")
SOURCES["logits-l2-normalised"] = body(out="return z3 / np.linalg.norm(z3, axis=1, keepdims=True)")
SOURCES["features-centred-per-sample"] = body(
    x="x = features.reshape(features.shape[0], -1)\nx = x - x.mean(axis=1, keepdims=True)")
SOURCES["features-standardised-per-sample"] = body(
    x="x = features.reshape(features.shape[0], -1)\n"
      "x = (x - x.mean(axis=1, keepdims=True)) / x.std(axis=1, keepdims=True)")
SOURCES["channel-mean-w1-rows"] = body(x="x = features.mean(axis=-1).reshape(features.shape[0], -1)",
                                       z1="x @ W1[:x.shape[1]] + b1")
SOURCES["logits-temperature-2"] = body(out="return z3 / 2.0")
SOURCES["relu-threshold-05"] = body(a1="np.where(z1 > 0.5, z1, 0)")
SOURCES["relu-floor-001"] = body(a1="np.maximum(z1, 0.01)")
SOURCES["silu-fc2"] = body(a2="z2 / (1 + np.exp(-z2))")
SOURCES["elementwise-fc3"] = body(z3="(h2[:, :, None] * W3).sum(axis=2) + b3")
SOURCES["einsum-w1-out-in"] = body(z1="np.einsum('bi,ji->bj', x, W1) + b1")
SOURCES["loop-cumulative-rows"] = raw(LOOP.format(dt="", store="out[i:] += h @ W3 + b3"))
SOURCES["logits-cumsum-batch"] = body(out="return np.cumsum(z3, axis=0)")
SOURCES["b1-scaled-half"] = body(z1="x @ W1 + 0.5 * b1")
SOURCES["relu-min-fc2"] = body(a2="np.minimum(z2, 0)")


#: the mistakes each report names
EXPECTED = {
    "b1-scaled-half": {"bias-sign-or-scale"},
    "b3-twice": {"bias-sign-or-scale"},
    "channel-mean-w1-rows": {"features-changed"},
    "dot-w1-out-in": {"transposed-weights"},
    "dot-w3-out-in": {"transposed-weights"},
    "einsum-w1-out-in": {"transposed-weights"},
    "elementwise-fc3": {"wrong-sum-axis"},
    "features-centred-per-sample": {"features-changed"},
    "features-standardised-per-sample": {"features-changed"},
    "leaky-mask-both-01": {"wrong-activation"},
    "leaky-mask-fc2": {"wrong-activation"},
    "logits-cumsum-batch": {"samples-mixed"},
    "logits-float32-only": {"wrong-dtype"},
    "logits-l2-normalised": {"logits-changed"},
    "logits-round-4": {"rounded-output"},
    "logits-temperature-2": {"logits-changed"},
    "loop-break": {"samples-dropped"},
    "loop-cumulative-rows": {"samples-mixed"},
    "loop-out-int32": {"rounded-output", "wrong-dtype"},
    "relu-floor-001": {"wrong-activation"},
    "relu-min-fc2": {"wrong-activation"},
    "relu-out-x-view": {"extra-activation", "mutates-input"},
    "relu-threshold-05": {"wrong-activation"},
    "relu6-clip-fc1": {"wrong-activation"},
    "reshape-order-f": {"flatten-order"},
    "return-z2": {"missing-layer", "missing-relu"},
    "samples-reversed": {"samples-dropped"},
    "silu-fc2": {"wrong-activation"},
    "softmax-axis0-no-shift": {"softmax-output"},
    "softmax-no-keepdims": {"raises-error", "softmax-output"},
    "swapaxes-1-3": {"flatten-order"},
}

#: words each report must hold
WORDS = {
    "softmax-no-keepdims": ("raises-error", "without keepdims=True"),
    "b3-twice": ("bias-sign-or-scale", "b3 added twice"),
    "features-centred-per-sample": ("features-changed", "minus the mean of its sample"),
    "logits-round-4": ("rounded-output", "np.round(y, 4)"),
    "loop-break": ("samples-dropped", "which hold only zeros"),
    "channel-mean-w1-rows": ("features-changed", "multiplied by W1's first H x W rows only"),
}

#: a right head in an unusual form: full marks, no finding
RIGHT = {"x-times-w1-sum": body(z1="(x[:, :, None] * W1[None]).sum(axis=1) + b1[None, :]")}


def test_round_seventeen_mistakes_are_named_and_never_get_full_marks(tmp_path, session):
    helpers.assert_round(tmp_path, session, SOURCES, RIGHT, EXPECTED, WORDS)
