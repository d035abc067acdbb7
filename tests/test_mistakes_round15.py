"""Round fifteen: 34 wrong VGG heads nobody had tried, graded through the grader's sandbox in one batch (a bias added
after one layer's ReLU, weights put back in shape by a reshape, a flatten of an (N, C, H, W) view, float32
products, W1's rows off by one, the last class dropped, the classes reversed, a loop that skips the first or the
last sample, the first row duplicated, np.squeeze on a single sample, H used for W, the channels forgotten, ReLU's
derivative, np.max(z, 0) for the ReLU, |z|, b2 in FC1, FC3 fed from h1, the features reversed or cast to uint8,
hidden layers rescaled, the logits centred over the batch, clipped or softmaxed over axis 0...). Each report must
name what EXPECTED gives it and never give full marks. Round fourteen's partial heads (a hidden layer divided by
its batch maximum or each sample's norm, np.round(sigmoid(y)), np.maximum(z2, h1), W1 normalised in place) are
named since this round and asserted with their words in ``tests/test_mistakes_round14.py``. What the report said
of this round's heads before its changes:

- A hidden layer divided by each sample's largest value (plus an epsilon) or by the square root of its width: a
  generic ``wrong-stage`` reading the ramp. Now a ``wrong-stage`` saying what was divided by what
  (``hidden._rescaled``, which also names round fourteen's two: the calls that give NaN are left out, every other
  call fits exactly).
- np.max(z2, 0) written for the ReLU: ``missing-relu`` and ``wrong-shape``. Now ``samples-mixed`` names the
  np.max (``shapefailures.MAX_TYPOS``), beside ``wrong-shape``.

Still partial, and asserted as they are (the last class dropped, a bare ``wrong-shape`` here, is ``classes-dropped``
since round eighteen): features.reshape(B,
H * H * C) and a flatten without C are a ``raises-error`` that reads the impossible reshape without naming the axis;
np.squeeze on the features fails on B = 1 only, and the error's reading says the batch size was taken from H.
"""
from __future__ import annotations

import exercise_helpers as helpers
from conftest import grade_students

body, raw = helpers.vgg_head, helpers.vgg_raw


LOOP = ("B = features.shape[0]\nout = np.zeros((B, W3.shape[1]))\nfor i in {rng}:\n"
        "    x = features[i].reshape(-1)\n    h = np.maximum(x @ W1 + b1, 0)\n    h = np.maximum(h @ W2 + b2, 0)\n"
        "    out[i] = h @ W3 + b3\nreturn out")

SOURCES: dict[str, str] = {}
SOURCES["bias-after-relu-fc2"] = body(z2="h1 @ W2", a2="np.maximum(z2, 0) + b2")
SOURCES["bias-after-relu-fc1"] = body(z1="x @ W1", a1="np.maximum(z1, 0) + b1")
SOURCES["w3-reshape-no-T"] = body(z3="h2 @ W3.reshape(W3.shape[1], W3.shape[0]).T + b3")
SOURCES["w2-T-reshaped-back"] = body(z2="h1 @ W2.T.reshape(W2.shape) + b2")
SOURCES["nchw-view-flatten"] = body(
    x="B = features.shape[0]\nx = features.reshape(B, features.shape[3], -1).transpose(0, 2, 1).reshape(B, -1)")
SOURCES["per-sample-f-T-flatten"] = body(x="x = np.array([f.T.flatten() for f in features])")
SOURCES["fc1-float32-accum"] = body(z1="(x.astype(np.float32) @ W1.astype(np.float32)).astype(np.float64) + b1")
SOURCES["w1-rows-off-by-one"] = body(z1="x[:, 1:] @ W1[:-1] + b1")
SOURCES["w1-last-row-dropped"] = body(z1="x[:, :-1] @ W1[:-1] + b1")
SOURCES["last-class-dropped"] = body(out="return z3[:, :-1]")
SOURCES["classes-reversed"] = body(out="return z3[:, ::-1]")
SOURCES["loop-skips-first"] = raw(LOOP.format(rng="range(1, B)"))
SOURCES["loop-skips-last"] = raw(LOOP.format(rng="range(B - 1)"))
SOURCES["first-row-duplicated"] = body(out="return np.vstack([z3[:1], z3[:-1]])")
SOURCES["squeeze-features-b1"] = body(x="features = features.squeeze()\nx = features.reshape(features.shape[0], -1)")
SOURCES["flatten-h-h-c"] = body(x="B, H, W, C = features.shape\nx = features.reshape(B, H * H * C)")
SOURCES["flatten-forgets-channels"] = body(
    x="x = features.reshape(features.shape[0], features.shape[1] * features.shape[2])")
SOURCES["relu-derivative-fc1"] = body(a1="(z1 > 0).astype(float)")
SOURCES["np-max-typo-both"] = body(a1="np.max(z1, 0)", a2="np.max(z2, 0)")
SOURCES["np-max-typo-fc2"] = body(a2="np.max(z2, 0)")
SOURCES["abs-fc2"] = body(a2="np.abs(z2)")
SOURCES["b2-in-fc1"] = body(z1="x @ W1 + b2")
SOURCES["fc3-from-h1-typo"] = body(z3="h1 @ W3 + b3")
SOURCES["features-reversed"] = body(x="x = features.reshape(features.shape[0], -1)[:, ::-1]")
SOURCES["features-uint8"] = body(x="x = features.astype(np.uint8).reshape(features.shape[0], -1)")
SOURCES["hidden-scaled-by-width"] = body(a1="np.maximum(z1, 0) / np.sqrt(z1.shape[1])")
SOURCES["logits-centred-over-batch"] = body(out="return z3 - z3.mean(axis=0)")
SOURCES["b3-summed"] = body(z3="h2 @ W3 + b3.sum()")
SOURCES["relu-float32-dtype"] = body(a1="np.maximum(z1, 0, dtype=np.float32)")
SOURCES["python-max-raises"] = body(a1="max(0, z1)")
SOURCES["einsum-nchw-weights"] = body(
    x="B, H, W, C = features.shape\nx = np.einsum('bhwc,chwk->bk', features, W1.reshape(C, H, W, -1))", z1="x + b1")
SOURCES["softmax-axis0"] = body(out="e = np.exp(z3 - z3.max(axis=0))\nreturn e / e.sum(axis=0)")
SOURCES["hidden-per-sample-max-div"] = body(a2="np.maximum(z2, 0)\nh2 = h2 / (h2.max(axis=1, keepdims=True) + 1e-8)")
SOURCES["logits-clipped-pm1"] = body(out="return np.clip(z3, -1, 1)")

#: the mistakes each report names
EXPECTED = {
    "abs-fc2": {"wrong-activation"},
    "b2-in-fc1": {"missing-layer"},
    "b3-summed": {"bias-one-value"},
    "bias-after-relu-fc1": {"relu-before-bias"},
    "bias-after-relu-fc2": {"relu-before-bias"},
    "classes-reversed": {"logits-changed"},
    "einsum-nchw-weights": {"flatten-order"},
    "fc1-float32-accum": {"precision-loss"},
    "fc3-from-h1-typo": {"missing-layer"},
    "features-reversed": {"flatten-order"},
    "features-uint8": {"features-changed"},
    "first-row-duplicated": {"samples-dropped"},
    "flatten-forgets-channels": {"raises-error"},
    "flatten-h-h-c": {"raises-error"},
    "hidden-per-sample-max-div": {"wrong-stage"},
    "hidden-scaled-by-width": {"wrong-stage"},
    "last-class-dropped": {"classes-dropped"},
    "logits-centred-over-batch": {"samples-mixed"},
    "logits-clipped-pm1": {"relu-after-fc3"},
    "loop-skips-first": {"samples-dropped"},
    "loop-skips-last": {"samples-dropped"},
    "nchw-view-flatten": {"flatten-order"},
    "np-max-typo-both": {"helper-result"},
    "np-max-typo-fc2": {"wrong-shape", "samples-mixed"},
    "per-sample-f-T-flatten": {"flatten-order"},
    "python-max-raises": {"raises-error"},
    "relu-derivative-fc1": {"wrong-activation"},
    "relu-float32-dtype": {"precision-loss"},
    "softmax-axis0": {"softmax-output"},
    "squeeze-features-b1": {"raises-error"},
    "w1-last-row-dropped": {"features-changed"},
    "w1-rows-off-by-one": {"features-changed"},
    "w2-T-reshaped-back": {"transposed-weights"},
    "w3-reshape-no-T": {"transposed-weights"},
}

#: words each fixed report must hold
WORDS = {
    "hidden-per-sample-max-div": ("wrong-stage", "h2 / (h2.max(axis=1, keepdims=True) + eps"),
    "hidden-scaled-by-width": ("wrong-stage", "h1 / np.sqrt(h1.shape[1])"),
    "np-max-typo-fc2": ("samples-mixed", "np.max(z2, 0)"),
}


def test_round_fifteen_mistakes_are_named_and_never_get_full_marks(tmp_path, session):
    for name, source in SOURCES.items():
        (tmp_path / f"{name}.py").write_text(source)
    assert set(SOURCES) == set(EXPECTED)
    helpers.assert_reports_name(grade_students(tmp_path, session, list(SOURCES)), EXPECTED, WORDS)
