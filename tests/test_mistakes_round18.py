"""Round eighteen: 68 wrong VGG heads and 9 right ones in forms no round had tried, graded through the grader's sandbox
in one batch. Tried: the last session's partial heads in new forms (per-position channel means, sums or maxima fed to
W1 repeated, tiled, through W1's first or every C-th rows; a product reduced over the wrong axis in any layer, by sum
or mean, or through np.einsum; a running mean of the features in three update rules; the first or last class cut, or
a zero class added), then a softmax or log-softmax over the batch or the whole array, argmax as floats, one-hot
argmax, np.tensordot with W1 reshaped to (H, W, C, D1) and the axes paired wrong, NCHW flattens, the batch flattened,
biases made columns, ReLU before the bias, a ReLU on the logits behind a ``training`` flag, dropout's 0.5, leaky
ReLUs, ReLU6 through min/max, FC2 and FC3 (or FC1 and FC2) applied in the wrong order, W2.T, float32 products cast
back, np.round on the logits, a ReLU on a weight matrix, integer divisions (features // 255, ``(x @ W1) // 1``,
``1 // 2`` as dropout, ``z3 // 2``), np.dot with W on the left, a bias added to W or multiplied, loops that stop early
or step by two, per-channel feature statistics, a horizontal flip and test-time augmentation, a float128 output.

What the report said before this round's changes, where it fell short:

- Channel means (or sums, maxima) per position: a generic ``features-changed``; now it says what FC1 received
  (``featuremaps.py``). ``features // 255``: no finding at all, as the reading of what FC1 passed on divided by a
  factor of 0 and the diagnosis raised (``passedon.py``).
- ``(h[:, :, None] * W).sum(axis=2)`` or ``axis=0``: ``missing-layer`` or a bare ``wrong-shape``; now
  ``wrong-sum-axis`` (``wrongaxis.py``).
- ``z3[:, :-1]``, ``z3[:, 1:]``, ``W3[:, :-1]``, a zero column stacked on: a bare ``wrong-shape``; now
  ``classes-dropped`` (``classcolumns.py``).
- A running mean of the features: ``nondeterministic`` beside a ``wrong-stage``, or a ``wrong-stage`` alone when
  the mean restarts with each new shape; now the update rule is named (``runningmean.py``).
- FC2 and FC3 applied in the wrong order: ``raises-error`` beside a ``wrong-stage`` about b3; now ``missing-layer``
  (``variants.RARE_SEQUENCES``).
- A loop in steps of two that drops the last sample of odd batches: a ``wrong-stage`` blaming b3; now
  ``samples-dropped`` naming the batch sizes (``unfilled.py``).
- np.tensordot's 'shape-mismatch for sum': the bare error; now read (``structure.read_error``).
- Per-channel centring or standardising over the batch, each position's largest channel, test-time augmentation
  with a flip: generic readings or a bare ``wrong-stage``; now ``features-changed`` saying which.

- b1 added to W1's rows, ``x @ (W1 + b1)``, or b2 multiplied, ``h1 @ W2 * b2``: a generic ``wrong-stage``; now
  ``bias-misplaced`` naming the form (``biasforms.py``).
- ``z3 // 2``: ``rounded-output`` saying only that the values are whole numbers; now the floor division is named
  (``floordiv:Q`` among the finals tried when every probe returned whole numbers, ``probework._rounding``).

Still partial, asserted as they are: ``(x @ W1) // 1 + b1`` reads as the features truncated (on the identity
probes the two agree); FC1's activations divided by ``W1.shape[1] // 2`` are a ``wrong-stage`` that shows the ramp;
a class cut beside a missing b3 is a bare ``wrong-shape`` and channel means beside a missing b1 a ``wrong-stage``
(``classes-dropped`` and the feature maps read only heads that are otherwise right).
"""
from __future__ import annotations

import exercise_helpers as helpers

body, raw = helpers.vgg_head, helpers.vgg_raw

B, H, W, C = "features.shape[0]", "features.shape[1]", "features.shape[2]", "features.shape[3]"
FLAT = f"x = features.reshape({B}, -1)"
CHANNEL_MEAN = f"x = features.mean(axis=3).reshape({B}, -1)"
HEAD = "np.maximum(np.maximum(x @ W1 + b1, 0) @ W2 + b2, 0) @ W3 + b3"
LOOP = (f"B = {B}\nout = np.zeros((B, W3.shape[1]))\nfor i in {{rng}}:\n    x = {{x}}\n    out[{{rows}}] = {HEAD}\n"
        "return out")

SOURCES: dict[str, str] = {}
# per-position channel reductions
SOURCES["chmean-repeat"] = body(x=f"x = np.repeat(features.mean(axis=3).reshape({B}, -1), {C}, axis=1)")
SOURCES["chmean-w1-summed"] = body(x=CHANNEL_MEAN, z1=f"x @ W1.reshape(x.shape[1], {C}, -1).sum(axis=1) + b1")
SOURCES["chmean-w1-mean"] = body(x=CHANNEL_MEAN, z1=f"x @ W1.reshape(x.shape[1], {C}, -1).mean(axis=1) + b1")
SOURCES["chmean-tile"] = body(x=f"x = np.tile(features.mean(axis=3).reshape({B}, -1), {C})")
SOURCES["chmean-w1-strided"] = body(x=CHANNEL_MEAN, z1=f"x @ W1[::{C}] + b1")
SOURCES["chmax-repeat"] = body(x=f"x = np.repeat(features.max(axis=3).reshape({B}, -1), {C}, axis=1)")
# a product reduced over the wrong axis
SOURCES["fc3-sum-outputs"] = body(z3="(h2[:, :, None] * W3).sum(axis=2) + b3")
SOURCES["fc3-sum-samples"] = body(z3="(h2[:, :, None] * W3[None]).sum(axis=0) + b3")
SOURCES["fc2-sum-outputs"] = body(z2="(h1[:, :, None] * W2).sum(axis=2) + b2")
SOURCES["fc3-mean-outputs"] = body(z3="(h2[:, :, None] * W3).mean(axis=2) + b3")
SOURCES["fc1-sum-samples"] = body(z1="(x[:, :, None] * W1[None]).sum(axis=0) + b1")
SOURCES["einsum-bi-ij-bi"] = body(z3="np.einsum('bi,ij->bi', h2, W3) + b3")
SOURCES["einsum-bi-ij-ij"] = body(z3="np.einsum('bi,ij->ij', h2, W3) + b3")
SOURCES["inner-w2"] = body(z2="np.inner(h1, W2) + b2")
# classes cut or added
SOURCES["last-class-dropped"] = body(out="return z3[:, :-1]")
SOURCES["first-class-dropped"] = body(out="return z3[:, 1:]")
SOURCES["w3-last-col-dropped"] = body(z3="h2 @ W3[:, :-1] + b3[:-1]")
SOURCES["extra-zero-class"] = body(out="return np.hstack([z3, np.zeros((z3.shape[0], 1))])")
# a running mean of the features
SOURCES["running-mean-one-slot"] = body(
    mod="_mean = [None]\n\n",
    pre="m = features.mean(axis=0)\n_mean[0] = m if _mean[0] is None or _mean[0].shape != m.shape "
        "else 0.9 * _mean[0] + 0.1 * m", x=f"x = (features - _mean[0]).reshape({B}, -1)")
SOURCES["running-mean-cumulative"] = body(
    mod="_s = {}\n\n",
    pre="key = features.shape[1:]\ntot, n = _s.get(key, (0, 0))\n_s[key] = (tot + features.mean(axis=0), n + 1)",
    x=f"x = (features - _s[key][0] / _s[key][1]).reshape({B}, -1)")
# layers in the wrong order
SOURCES["fc2-fc3-swapped"] = body(z2="h1 @ W3 + b3", z3="h2 @ W2 + b2")
SOURCES["fc1-fc2-swapped"] = body(z1="x @ W2 + b2", z2="h1 @ W1 + b1")
# loops
SOURCES["chunks-drop-last"] = raw(LOOP.format(rng="range(0, B - 1, 2)", rows="i:i + 2",
                                              x="features[i:i + 2].reshape(len(features[i:i + 2]), -1)"))
SOURCES["loop-stops-early"] = raw(LOOP.format(rng="range(B - 1)", x="features[i].reshape(-1)", rows="i"))
# features changed
SOURCES["features-floordiv-255"] = body(x=f"{FLAT} // 255")
SOURCES["features-channel-centred"] = body(x=f"x = (features - features.mean(axis=(0, 1, 2))).reshape({B}, -1)")
SOURCES["features-channel-standardised"] = body(
    x=f"x = ((features - features.mean(axis=(0, 1, 2))) / features.std(axis=(0, 1, 2))).reshape({B}, -1)")
SOURCES["tta-flip-mean"] = raw(f"def head(f):\n    x = f.reshape(f.shape[0], -1)\n    return {HEAD}\n"
                               "return (head(features) + head(features[:, :, ::-1])) / 2")
SOURCES["hflip"] = body(x=f"x = features[:, :, ::-1].reshape({B}, -1)")
SOURCES["features-global-norm"] = body(x=f"{FLAT} / np.linalg.norm(features)")
SOURCES["features-global-centred"] = body(x=f"{FLAT} - features.mean()")
SOURCES["gap-w1-first-rows"] = body(x="x = features.mean(axis=(1, 2))", z1="x @ W1[:x.shape[1]] + b1")
# np.tensordot, np.dot and transposes
SOURCES["tensordot-hw-swapped"] = body(
    x="x = features", z1=f"np.tensordot(features, W1.reshape({H}, {W}, {C}, -1), axes=([2, 1, 3], [0, 1, 2])) + b1")
SOURCES["tensordot-c-first"] = body(
    x="x = features", z1=f"np.tensordot(features, W1.reshape({C}, {H}, {W}, -1), axes=([3, 1, 2], [0, 1, 2])) + b1")
SOURCES["w1-from-chw"] = body(
    z1=f"x @ W1.reshape({C}, {H}, {W}, -1).transpose(1, 2, 0, 3).reshape(x.shape[1], -1) + b1")
SOURCES["dot-w2-left"] = body(z2="np.dot(W2, h1.T).T + b2")
SOURCES["dot-w2T"] = body(z2="np.dot(h1, W2.T) + b2")
SOURCES["nchw-flatten"] = body(x=f"x = features.transpose(0, 3, 1, 2).reshape({B}, -1)")
SOURCES["reshape-minus1"] = body(x="x = features.reshape(-1)")
# biases and activations
SOURCES["b1-column"] = body(z1="x @ W1 + b1[:, None]")
SOURCES["b3-column"] = body(z3="h2 @ W3 + b3[:, None]")
SOURCES["relu-before-bias-both"] = body(z1="x @ W1", a1="np.maximum(z1, 0) + b1", z2="h1 @ W2",
                                        a2="np.maximum(z2, 0) + b2")
SOURCES["relu-fc3-inference"] = raw(f"training = False\n{FLAT}\nz3 = {HEAD}\nif not training:\n"
                                    "    z3 = np.maximum(z3, 0)\nreturn z3")
SOURCES["leaky-001-both"] = body(a1="np.where(z1 > 0, z1, 0.01 * z1)", a2="np.where(z2 > 0, z2, 0.01 * z2)")
SOURCES["leaky-02-fc1"] = body(a1="np.maximum(z1, 0.2 * z1)")
SOURCES["relu6-minmax"] = body(a1="np.minimum(np.maximum(z1, 0), 6)", a2="np.minimum(np.maximum(z2, 0), 6)")
SOURCES["relu-on-w2"] = body(z2="h1 @ np.maximum(0, W2) + b2")
SOURCES["bias-in-weights"] = body(z1="x @ (W1 + b1)")
SOURCES["bias-multiplied"] = body(z2="h1 @ W2 * b2")
SOURCES["bias-first-sample"] = body(z1="x @ W1\nz1[0] += b1")
SOURCES["dropout-int-div"] = body(a1="np.maximum(z1, 0) * (1 // 2)")
SOURCES["relu-on-x-no-relu2"] = body(x=f"x = np.maximum(features.reshape({B}, -1), 0)", a2="z2")
# integer division and precision
SOURCES["fc1-floordiv"] = body(z1="(x @ W1) // 1 + b1")
SOURCES["logits-floordiv-2"] = body(out="return z3 // 2")
SOURCES["hidden-over-half-width"] = body(a1="np.maximum(z1, 0) / (W1.shape[1] // 2)")
SOURCES["float32-accumulate"] = body(
    x=f"{FLAT}.astype(np.float32)", z1="x @ W1.astype(np.float32) + b1.astype(np.float32)",
    out="return (h2 @ W3 + b3).astype(np.float64)")
SOURCES["matmul-dtype-f32"] = body(z1="np.matmul(x, W1, dtype=np.float32) + b1")
SOURCES["round-end"] = body(out="return np.round(z3)")
SOURCES["longdouble-out"] = body(out="return z3.astype(np.longdouble)")
# after FC3
SOURCES["softmax-batch-axis"] = body(out="e = np.exp(z3 - z3.max(axis=0, keepdims=True))\n"
                                         "return e / e.sum(axis=0, keepdims=True)")
SOURCES["softmax-whole-array"] = body(out="return np.exp(z3) / np.sum(np.exp(z3))")
SOURCES["log-softmax-whole"] = body(out="return z3 - np.log(np.sum(np.exp(z3)))")
SOURCES["argmax-float"] = body(out="return np.argmax(z3, axis=1).astype(np.float64)")
SOURCES["onehot-argmax"] = body(out="return np.eye(z3.shape[1])[np.argmax(z3, axis=1)]")
SOURCES["class-mean-subtracted"] = body(out="return z3 - z3.mean(axis=1, keepdims=True)")
SOURCES["logits-T"] = body(out="return z3.T")
# two mistakes at once, beside this round's readings
SOURCES["last-class-dropped-no-b3"] = body(z3="h2 @ W3", out="return z3[:, :-1]")
SOURCES["chmean-no-b1"] = body(x=f"x = np.repeat(features.mean(axis=3).reshape({B}, -1), {C}, axis=1)", z1="x @ W1")

FEATURES = {"features-changed"}
#: the mistakes each report names
EXPECTED = {
    **{name: FEATURES for name in ("chmean-repeat", "chmean-w1-summed", "chmean-w1-mean", "chmean-tile",
                                   "chmean-w1-strided", "chmax-repeat", "features-floordiv-255",
                                   "features-channel-centred", "features-channel-standardised", "tta-flip-mean",
                                   "hflip", "features-global-norm", "features-global-centred", "fc1-floordiv")},
    **{name: {"wrong-sum-axis"} for name in ("fc3-sum-outputs", "fc3-sum-samples", "fc2-sum-outputs",
                                             "fc3-mean-outputs", "fc1-sum-samples", "einsum-bi-ij-bi",
                                             "einsum-bi-ij-ij")},
    "inner-w2": {"transposed-weights"},
    **{name: {"classes-dropped"} for name in ("last-class-dropped", "first-class-dropped", "w3-last-col-dropped",
                                              "extra-zero-class")},
    "running-mean-one-slot": {"stale-result"},  # every repeated call agreed with its first
    "running-mean-cumulative": {"nondeterministic"},
    "fc2-fc3-swapped": {"missing-layer"},
    "fc1-fc2-swapped": {"missing-layer"},
    "chunks-drop-last": {"samples-dropped"},
    "loop-stops-early": {"samples-dropped"},
    "gap-w1-first-rows": {"spatial-pooling"},
    "tensordot-hw-swapped": {"raises-error"},
    "tensordot-c-first": {"flatten-order"},
    "w1-from-chw": {"flatten-order"},
    "dot-w2-left": {"transposed-weights"},
    "dot-w2T": {"transposed-weights"},
    "nchw-flatten": {"flatten-order"},
    "reshape-minus1": {"batch-flattened"},
    "b1-column": {"raises-error", "wrong-shape"},
    "b3-column": {"raises-error", "wrong-shape"},
    "relu-before-bias-both": {"relu-before-bias"},
    "relu-fc3-inference": {"relu-after-fc3"},
    "leaky-001-both": {"wrong-activation"},
    "leaky-02-fc1": {"wrong-activation"},
    "relu6-minmax": {"wrong-activation"},
    "relu-on-w2": {"activation-on-weights"},
    "bias-in-weights": {"bias-misplaced"},
    "bias-multiplied": {"bias-misplaced"},
    "bias-first-sample": {"missing-bias"},
    "dropout-int-div": {"wrong-activation"},
    "relu-on-x-no-relu2": {"missing-relu", "extra-activation"},
    "logits-floordiv-2": {"rounded-output"},
    "hidden-over-half-width": {"wrong-stage"},  # partial: reads the ramp only
    "float32-accumulate": {"precision-loss"},
    "matmul-dtype-f32": {"precision-loss"},
    "round-end": {"rounded-output"},
    "longdouble-out": {"wrong-dtype"},
    "softmax-batch-axis": {"softmax-output"},
    "softmax-whole-array": {"softmax-output"},
    "log-softmax-whole": {"softmax-output"},
    "argmax-float": {"class-predictions"},
    "onehot-argmax": {"class-predictions"},
    "class-mean-subtracted": {"logits-changed"},
    "logits-T": {"wrong-shape"},
    "last-class-dropped-no-b3": {"wrong-shape"},  # partial: the reading needs the kept columns right
    "chmean-no-b1": {"wrong-stage"},  # partial: the feature maps are fitted on the reference head only
}

#: words each report must hold
WORDS = {
    "chmean-w1-summed": ("features-changed", "features.mean(axis=3)"),
    "chmean-tile": ("features-changed", "np.tile(m, C)"),
    "chmean-w1-strided": ("features-changed", "W1[::C]"),
    "chmax-repeat": ("features-changed", "features.max(axis=3)"),
    "features-floordiv-255": ("features-changed", "features // 255"),
    "features-channel-standardised": ("features-changed", "standardised per channel"),
    "tta-flip-mean": ("features-changed", "test-time augmentation"),
    "fc3-sum-outputs": ("wrong-sum-axis", "FC3 multiplies FC2's activations by W3 elementwise and reduces with "
                                          ".sum(axis=2)"),
    "fc1-sum-samples": ("wrong-sum-axis", "sums over the samples of the batch"),
    "einsum-bi-ij-bi": ("wrong-sum-axis", "np.einsum('bi,ij->bi', h, W)"),
    "last-class-dropped": ("classes-dropped", "the logits of the last class are missing"),
    "first-class-dropped": ("classes-dropped", "the logits of the first class are missing"),
    "extra-zero-class": ("classes-dropped", "the last column belongs to no class"),
    "running-mean-one-slot": ("stale-result", "started again whenever the features' shape changes"),
    "running-mean-cumulative": ("nondeterministic", "the mean of the batch means of every call so far"),
    "fc2-fc3-swapped": ("missing-layer", "FC2 and FC3 are applied in the wrong order"),
    "chunks-drop-last": ("samples-dropped", "Batches of 1, 3 or 5 sample(s)"),
    "tensordot-hw-swapped": ("raises-error", "np.tensordot sums over the axes it is given in pairs"),
    "logits-floordiv-2": ("rounded-output", "A floor division by 2 (y // 2"),
    "bias-in-weights": ("bias-misplaced", "FC1 computes h @ (W1 + b1)"),
    "bias-multiplied": ("bias-misplaced", "FC2 computes h @ W2 * b2"),
}

#: right heads in unusual forms: full marks, no finding
RIGHT = {
    "ok-dot-T-T": body(z2="np.dot(W2.T, h1.T).T + b2"),
    "ok-tensordot": body(x="x = features", z1=f"np.tensordot(features, W1.reshape({H}, {W}, {C}, -1), "
                                              "axes=([1, 2, 3], [0, 1, 2])) + b1"),
    "ok-einsum-4d": body(x="x = features",
                         z1=f"np.einsum('bhwc,hwcj->bj', features, W1.reshape({H}, {W}, {C}, -1)) + b1"),
    "ok-relu-abs": body(a1="(z1 + np.abs(z1)) / 2", a2="z2 * (z2 > 0)"),
    "ok-clip-min": body(a1="z1.clip(min=0)", a2="np.where(z2 > 0, z2, 0.0)"),
    "ok-reshape-w1rows": body(x="x = features.reshape(-1, W1.shape[0])"),
    "ok-column-layout": body(z1="(W1.T @ x.T + b1.reshape(-1, 1)).T"),
    "ok-loop-step-2": raw(LOOP.format(rng="range(0, B, 2)", rows="i:i + 2",
                                      x="features[i:i + 2].reshape(len(features[i:i + 2]), -1)")),
    "ok-hstack": body(out="return np.hstack([z3])"),
}


def test_round_eighteen_mistakes_are_named_and_never_get_full_marks(tmp_path, session):
    helpers.assert_round(tmp_path, session, SOURCES, RIGHT, EXPECTED, WORDS)
