"""Round fourteen: 85 wrong VGG heads of the kinds students and code assistants write, none tried before in these
exact forms (a bias made a column, features reshaped to one row per position, H and W or W and C swapped, one
weight matrix transposed, W2 and W3 or b2 and b3 swapped, a log-softmax, an argmax made one-hot, the first sample's
logits, a squeeze, integer and float32 casts, leaky, ReLU6, clipped, sigmoid and tanh activations, dropout left on
in four forms, hidden units batch-normalised, features divided by their maximum, pooled or summed over the batch,
printing instead of returning, a list, a dict, a tuple, an np.matrix, a trailing axis, inputs changed in place, state
kept between calls...). Graded through the grader's sandbox in one batch; each report must name what it names below
and never give full marks. What the report said before this round's changes:

- The logits divided by each sample's sum (probabilities without the exponential), shifted by the whole batch's
  largest logit (a softmax's stabilising shift left in, with no axis) or standardised over the whole batch: a bare
  ``wrong-stage`` ("the departure is in how b3 is added or in what is done to the logits after FC3"). Now
  ``softmax-output`` and ``logits-changed`` with what was done (``finals.py``).
- Each sample's largest logit returned alone, logits.max(axis=1): ``wrong-shape`` only. Now ``class-predictions``
  (``predictions.py``).
- The features summed over the batch before FC1, one row for a batch: ``wrong-shape`` only. Now ``samples-mixed``
  saying the row is the logits of the features' sum (``shapefailures.py``).
- An ELU with alpha 0.5: a bare ``wrong-stage`` (only alpha 1 was known). Now ``wrong-activation`` with its alpha
  (``stages.fit_activation``).

Partial in this round and named since (round fifteen): a hidden layer divided by its largest value or by each
sample's norm, a sigmoid on the logits rounded to 0 or 1, np.maximum(z2, h1) and a W1 normalised in place (whose
``wrong-stage`` now says which change). State kept between calls (a counter, a bias accumulated per shape, a weight
kept per shape) is named since round sixteen: ``nondeterministic`` says what
drifts, with no ``wrong-stage`` beside. A running mean of the features, which spoils the first call too, was
``nondeterministic`` beside a ``wrong-stage`` until round eighteen replayed the calls under the usual update rules
(``runningmean.py``): now ``nondeterministic`` names the running mean alone.
"""
from __future__ import annotations

import exercise_helpers as helpers
from conftest import grade_students

body, raw = helpers.vgg_head, helpers.vgg_raw


LOOP = ("B = features.shape[0]\nout = np.zeros((B, W3.shape[1]){dt})\nfor i in range(B):\n"
        "    x = features[i].reshape(-1)\n    h = np.maximum(x @ W1 + b1, 0)\n    h = np.maximum(h @ W2 + b2, 0)\n"
        "    out[i] = h @ W3 + b3\nreturn out")


SOURCES: dict[str, str] = {}
# bias broadcast along the batch axis (only shape-compatible when B == K, or B == 1)
SOURCES["bias-col-b3"] = body(z3="h2 @ W3 + b3[:, None]")
SOURCES["bias-col-b1"] = body(z1="x @ W1 + b1.reshape(-1, 1)")
SOURCES["bias-col-b3-transposed"] = body(z3="(h2 @ W3).T + b3[:, None]", out="return z3")  # (K,B) returned
# flatten only H and W into the batch
SOURCES["reshape-last-axis"] = body(x="x = features.reshape(-1, features.shape[-1])")
SOURCES["reshape-last-axis-w1-cut"] = body(
    x="x = features.reshape(-1, features.shape[-1])", z1="x @ W1[:x.shape[1]] + b1",
    out="return z3.reshape(features.shape[0], -1, z3.shape[-1]).mean(axis=1)")
# Fortran order on one axis only: H and W transposed; swapaxes(2,3)
SOURCES["hw-swapped-swapaxes"] = body(x="x = np.swapaxes(features, 1, 2).reshape(len(features), -1)")
SOURCES["w-c-swapped"] = body(x="x = np.swapaxes(features, 2, 3).reshape(len(features), -1)")
# W1.T where square
SOURCES["w1-transposed-only"] = body(z1="x @ W1.T + b1")
SOURCES["w3-transposed-only"] = body(z3="h2 @ W3.T + b3")
# W2/W3 mixed up
SOURCES["w2-w3-swapped"] = body(z2="h1 @ W3 + b2", z3="h2 @ W2 + b3")
SOURCES["b2-b3-swapped"] = body(z2="h1 @ W2 + b3", z3="h2 @ W3 + b2")
# outputs
SOURCES["log-softmax-logsumexp"] = body(
    out="m = z3.max(axis=1, keepdims=True)\nreturn z3 - m - np.log(np.exp(z3 - m).sum(axis=1, keepdims=True))")
SOURCES["argmax-one-hot-eye"] = body(out="return np.eye(z3.shape[1])[z3.argmax(axis=1)]")
SOURCES["first-sample-logits"] = body(out="return z3[0]")
SOURCES["first-sample-keepdims"] = body(out="return z3[:1]")
SOURCES["squeezed"] = body(out="return np.squeeze(z3)")
SOURCES["max-logit"] = body(out="return z3.max(axis=1)")
# integer division / casts
SOURCES["features-floordiv"] = body(x="x = (features // 1).reshape(features.shape[0], -1)")
SOURCES["features-int-div-255"] = body(x="x = (features.astype(np.int32) / 255).reshape(features.shape[0], -1)")
SOURCES["weights-float32"] = body(pre="W1, W2, W3 = np.float32(W1), np.float32(W2), np.float32(W3)")
# activations
SOURCES["leaky-001-both"] = body(a1="np.where(z1 > 0, z1, 0.01 * z1)", a2="np.where(z2 > 0, z2, 0.01 * z2)")
SOURCES["relu6-minimum"] = body(a1="np.minimum(np.maximum(z1, 0), 6)", a2="np.minimum(np.maximum(z2, 0), 6)")
SOURCES["clip-at-1"] = body(a1="np.clip(z1, 0, 1)", a2="np.clip(z2, 0, 1)")
SOURCES["sigmoid-fc1-only"] = body(a1="1 / (1 + np.exp(-z1))")
SOURCES["tanh-both"] = body(a1="np.tanh(z1)", a2="np.tanh(z2)")
SOURCES["relu-doubled-abs"] = body(a1="z1 + np.abs(z1)", a2="z2 + np.abs(z2)")
# dropout at test time
SOURCES["dropout-inverted-scale"] = body(a1="np.maximum(z1, 0) / 0.5", a2="np.maximum(z2, 0) / 0.5")
SOURCES["dropout-random-mask"] = body(a1="np.maximum(z1, 0) * (np.random.rand(*z1.shape) > 0.5)",
                               a2="np.maximum(z2, 0) * (np.random.rand(*z2.shape) > 0.5)")
SOURCES["dropout-seeded-mask-scaled"] = body(pre="rng = np.random.default_rng(0)",
    a1="np.maximum(z1, 0) * (rng.random(z1.shape) > 0.5) / 0.5",
    a2="np.maximum(z2, 0) * (rng.random(z2.shape) > 0.5) / 0.5")
# normalisation of hidden units / features
SOURCES["bn-hidden-no-eps"] = body(a1="np.maximum(z1, 0)\nh1 = (h1 - h1.mean(axis=0)) / (h1.std(axis=0) + 1e-5)")
SOURCES["features-div-max"] = body(x="x = (features / features.max()).reshape(features.shape[0], -1)")
SOURCES["features-div-abs-max-per-sample"] = body(
    x="x = features.reshape(features.shape[0], -1)\nx = x / np.abs(x).max(axis=1, keepdims=True)")
# batch axis
SOURCES["sum-over-batch"] = body(x="x = features.reshape(features.shape[0], -1).sum(axis=0, keepdims=True)")
SOURCES["gap-then-w1-rows"] = body(x="x = features.mean(axis=(1, 2))", z1="x @ W1[:x.shape[1]] + b1")
SOURCES["gap-raises"] = body(x="x = features.mean(axis=(1, 2))")
SOURCES["max-pool-tile"] = body(x="x = np.tile(features.max(axis=(1, 2)), features.shape[1] * features.shape[2])")
SOURCES["features0-only"] = body(x="x = features[0].reshape(1, -1)")
SOURCES["features0-broadcast"] = body(x="x = np.repeat(features[0].reshape(1, -1), features.shape[0], axis=0)")
# return plumbing
SOURCES["prints-logits"] = body(out="print(z3)")
SOURCES["list-of-lists"] = body(out="return z3.tolist()")
SOURCES["trailing-axis"] = body(out="return z3[:, :, None]")
SOURCES["tuple-logits-probs"] = body(out="p = np.exp(z3) / np.exp(z3).sum(axis=1, keepdims=True)\nreturn z3, p")
SOURCES["dict-logits"] = body(out="return {'logits': z3}")
SOURCES["asmatrix"] = body(out="return np.asmatrix(z3)")
# in place
SOURCES["features-centred-inplace"] = body(pre="features -= features.mean()")
SOURCES["w1-normalised-inplace"] = body(pre="W1 /= np.linalg.norm(W1, axis=0)")
SOURCES["b1-accumulate-inplace"] = body(z1="x @ W1", a1="np.maximum(np.add(z1, b1, out=z1), 0)\nb1 += 0.1")
# state between calls
SOURCES["global-counter-scale"] = body(mod="_calls = 0\n\n", pre="global _calls\n_calls += 1", out="return z3 / _calls")
SOURCES["accumulating-bias"] = body(mod="_acc = {}\n\n", pre="key = b3.shape\n_acc[key] = _acc.get(key, 0) + b3",
                              z3="h2 @ W3 + _acc[key]")
SOURCES["running-mean-features"] = body(mod="_mu = {}\n\n",
    pre="key = features.shape[1:]\n_mu[key] = 0.9 * _mu.get(key, 0) + 0.1 * features.mean(axis=0)",
    x="x = (features - _mu[key]).reshape(features.shape[0], -1)")
# other plausible slips
SOURCES["batch-from-last-axis"] = body(x="x = features.reshape(features.shape[-1], -1)")
SOURCES["reshape-hwc-by-b-T"] = body(x="x = features.reshape(W1.shape[0], -1).T")
SOURCES["transpose-all-reshape"] = body(x="x = features.T.reshape(features.shape[0], -1)")
SOURCES["relu-on-b-only-fc2"] = body(z2="h1 @ W2 + np.maximum(b2, 0)")
SOURCES["bias-mean-added"] = body(z1="x @ W1 + b1.mean()")
SOURCES["h1-reused-fc3"] = body(z3="h1 @ W2 @ W3 + b3")
SOURCES["relu-on-x"] = body(x="x = np.maximum(features.reshape(features.shape[0], -1), 0)", a1="z1")
SOURCES["loop-int-buffer"] = raw(LOOP.format(dt=", dtype=int"))
SOURCES["loop-float32-buffer"] = raw(LOOP.format(dt=", dtype=np.float32"))
SOURCES["loop-extra-axis"] = raw("outs = []\nfor f in features:\n    x = f.reshape(1, -1)\n"
                                 "    h = np.maximum(x @ W1 + b1, 0)\n"
                                 "    h = np.maximum(h @ W2 + b2, 0)\n    outs.append(h @ W3 + b3)\n"
                                 "return np.array(outs)")
SOURCES["loop-return-inside"] = raw("for f in features:\n    x = f.reshape(1, -1)\n"
                                    "    h = np.maximum(x @ W1 + b1, 0)\n"
                                    "    h = np.maximum(h @ W2 + b2, 0)\n    return h @ W3 + b3")
SOURCES["softmax-whole-batch"] = body(out="return np.exp(z3) / np.sum(np.exp(z3))")
SOURCES["shift-global-max"] = body(out="return z3 - z3.max()")
SOURCES["relu-inplace-on-features-view"] = body(x="x = features.reshape(features.shape[0], -1)\nx[x < 0] = 0")
SOURCES["he-scaled-w1"] = body(pre="W1 = W1 * np.sqrt(2.0 / W1.shape[0])")
SOURCES["hidden-div-batch-max"] = body(a1="np.maximum(z1, 0)\nh1 = h1 / h1.max()")
SOURCES["hidden-l2-per-sample"] = body(a1="np.maximum(z1, 0)\nh1 = h1 / np.linalg.norm(h1, axis=1, keepdims=True)")
SOURCES["w1-reshape-scrambled"] = body(z1="x @ W1.reshape(W1.shape[1], -1).T + b1")
SOURCES["floor-previous-layer"] = body(a2="np.maximum(z2, h1)")
SOURCES["h2-from-z1-typo"] = body(a2="np.maximum(z1, 0)")
SOURCES["normalise-by-row-sum"] = body(out="return z3 / z3.sum(axis=1, keepdims=True)")
SOURCES["standardise-output-batch"] = body(out="return (z3 - z3.mean()) / z3.std()")
SOURCES["output-int-cast"] = body(out="return z3.astype(int)")
SOURCES["output-flattened"] = body(out="return z3.flatten()")
SOURCES["hidden-int-trunc"] = body(a1="np.maximum(z1, 0).astype(int)")
SOURCES["stale-weights-by-shape"] = body(mod="_W = {}\n\n", pre="W1 = _W.setdefault(W1.shape, W1)")
SOURCES["input-dropout-fixed-mask"] = body(pre="mask = np.random.default_rng(0).random(features.shape) > 0.2",
                                     x="x = (features * mask / 0.8).reshape(features.shape[0], -1)")
SOURCES["features-only-float32"] = body(pre="features = np.asarray(features, dtype=np.float32)")
SOURCES["relu-on-logits-and-no-relu-fc2"] = body(a2="z2", out="return np.maximum(z3, 0)")
SOURCES["x-standardised-per-feature-batch"] = body(
    x="x = features.reshape(features.shape[0], -1)\nx = (x - x.mean(axis=0)) / (x.std(axis=0) + 1e-8)")
SOURCES["weights-shared-w2-for-fc3-slice"] = body(z3="h2 @ W2[:, :W3.shape[1]] + b3")
SOURCES["sigmoid-output-then-round"] = body(out="return np.round(1 / (1 + np.exp(-z3)))")
SOURCES["leaky-02-fc2"] = body(a2="np.maximum(z2, 0.2 * z2)")
SOURCES["elu-alpha-fc1"] = body(a1="np.where(z1 > 0, z1, 0.5 * (np.exp(z1) - 1))")
SOURCES["bias-broadcast-via-outer"] = body(z1="x @ W1 + np.outer(np.ones(len(x)), b1).T[:, :1].T * 0 + b1[0]")

#: the mistakes each report names
EXPECTED = {
    "accumulating-bias": {"nondeterministic"},
    "argmax-one-hot-eye": {"class-predictions"},
    "asmatrix": {"not-an-array"},
    "b1-accumulate-inplace": {"mutates-input"},
    "b2-b3-swapped": {"missing-layer"},
    "batch-from-last-axis": {"hardcoded-shape"},
    "bias-broadcast-via-outer": {"bias-one-value"},
    "bias-col-b1": {"wrong-shape", "raises-error"},
    "bias-col-b3": {"wrong-shape", "raises-error"},
    "bias-col-b3-transposed": {"wrong-shape"},
    "bias-mean-added": {"bias-one-value"},
    "bn-hidden-no-eps": {"samples-mixed"},
    "clip-at-1": {"wrong-activation"},
    "dict-logits": {"not-an-array", "wrong-shape"},
    "dropout-inverted-scale": {"inference-dropout"},
    "dropout-random-mask": {"inference-dropout", "nondeterministic"},
    "dropout-seeded-mask-scaled": {"inference-dropout"},
    "elu-alpha-fc1": {"wrong-activation"},
    "features-centred-inplace": {"mutates-input", "features-changed"},
    "features-div-abs-max-per-sample": {"features-changed"},
    "features-div-max": {"features-changed"},
    "features-floordiv": {"features-changed"},
    "features-int-div-255": {"features-changed"},
    "features-only-float32": {"precision-loss"},
    "features0-broadcast": {"samples-dropped"},
    "features0-only": {"samples-dropped"},
    "first-sample-keepdims": {"samples-dropped"},
    "first-sample-logits": {"samples-dropped"},
    "floor-previous-layer": {"wrong-activation", "raises-error"},
    "gap-raises": {"raises-error"},
    "gap-then-w1-rows": {"spatial-pooling"},
    "global-counter-scale": {"nondeterministic"},
    "h1-reused-fc3": {"missing-relu", "missing-bias"},
    "h2-from-z1-typo": {"missing-layer"},
    "he-scaled-w1": {"features-changed"},
    "hidden-div-batch-max": {"samples-mixed"},
    "hidden-int-trunc": {"rounded-output"},
    "hidden-l2-per-sample": {"wrong-stage"},
    "hw-swapped-swapaxes": {"flatten-order"},
    "input-dropout-fixed-mask": {"features-changed"},
    "leaky-001-both": {"wrong-activation"},
    "leaky-02-fc2": {"wrong-activation"},
    "list-of-lists": {"not-an-array"},
    "log-softmax-logsumexp": {"softmax-output"},
    "loop-extra-axis": {"wrong-shape"},
    "loop-float32-buffer": {"wrong-dtype"},
    "loop-int-buffer": {"wrong-dtype", "rounded-output"},
    "loop-return-inside": {"samples-dropped"},
    "max-logit": {"class-predictions"},
    "max-pool-tile": {"spatial-pooling"},
    "normalise-by-row-sum": {"softmax-output"},
    "output-flattened": {"wrong-shape"},
    "output-int-cast": {"wrong-dtype", "rounded-output"},
    "prints-logits": {"not-implemented"},
    "relu-doubled-abs": {"inference-dropout"},
    "relu-inplace-on-features-view": {"extra-activation", "mutates-input"},
    "relu-on-b-only-fc2": {"activation-on-weights"},
    "relu-on-logits-and-no-relu-fc2": {"relu-after-fc3", "missing-relu"},
    "relu-on-x": {"extra-activation", "missing-relu"},
    "relu6-minimum": {"wrong-activation"},
    "reshape-hwc-by-b-T": {"samples-mixed"},
    "reshape-last-axis": {"raises-error"},
    "reshape-last-axis-w1-cut": {"spatial-pooling"},
    "running-mean-features": {"nondeterministic"},
    "shift-global-max": {"logits-changed"},
    "sigmoid-fc1-only": {"wrong-activation"},
    "sigmoid-output-then-round": {"relu-after-fc3", "rounded-output"},
    "softmax-whole-batch": {"softmax-output"},
    "squeezed": {"wrong-shape"},
    "stale-weights-by-shape": {"nondeterministic"},  # a view of the shared inputs: its repeat disagrees
    "standardise-output-batch": {"logits-changed"},
    "sum-over-batch": {"samples-mixed", "wrong-shape"},
    "tanh-both": {"wrong-activation"},
    "trailing-axis": {"wrong-shape"},
    "transpose-all-reshape": {"samples-mixed"},
    "tuple-logits-probs": {"not-an-array", "wrong-shape"},
    "w-c-swapped": {"flatten-order"},
    "w1-normalised-inplace": {"mutates-input", "wrong-stage"},
    "w1-reshape-scrambled": {"transposed-weights"},
    "w1-transposed-only": {"transposed-weights"},
    "w2-w3-swapped": {"missing-layer"},
    "w3-transposed-only": {"transposed-weights"},
    "weights-float32": {"precision-loss"},
    "weights-shared-w2-for-fc3-slice": {"missing-layer"},
    "x-standardised-per-feature-batch": {"features-changed"},
}

#: words each fixed report must hold
WORDS = {
    "normalise-by-row-sum": ("softmax-output", "y / y.sum(axis=1, keepdims=True)"),
    "shift-global-max": ("logits-changed", "shifted down by the largest logit of the whole batch"),
    "standardise-output-batch": ("logits-changed", "standardised over the whole batch"),
    "max-logit": ("class-predictions", "its largest logit"),
    "sum-over-batch": ("samples-mixed", "the logits of the sum of its samples' features over the batch"),
    "elu-alpha-fc1": ("wrong-activation", "an ELU with alpha = 0.5"),
    # named in round fifteen
    "hidden-div-batch-max": ("samples-mixed", "(h1 / h1.max(), no axis)"),
    "hidden-l2-per-sample": ("wrong-stage", "divided by each sample's Euclidean norm"),
    "sigmoid-output-then-round": ("relu-after-fc3", "A sigmoid"),
    "floor-previous-layer": ("wrong-activation", "np.maximum(z2, h1)"),
    "w1-normalised-inplace": ("wrong-stage", "W1 /= np.linalg.norm(W1, axis=0)"),
    # named in round sixteen
    "global-counter-scale": ("nondeterministic", "divided by the number of calls made so far"),
    "accumulating-bias": ("nondeterministic", "b3 is summed over the calls"),
    "stale-weights-by-shape": ("nondeterministic", "W1 is kept from an earlier call of the same size"),
}


def test_round_fourteen_mistakes_are_named_and_never_get_full_marks(tmp_path, session):
    for name, source in SOURCES.items():
        (tmp_path / f"{name}.py").write_text(source)
    assert set(SOURCES) == set(EXPECTED)
    helpers.assert_reports_name(grade_students(tmp_path, session, list(SOURCES)), EXPECTED, WORDS)
