"""Mistakes of the VGG head left unnamed after round three, fourth round: each must lose points and be named with
where it happens and what was done, never a bare 'this stage departs'.

Each test says what the report said before. The functions are diagnosed in process on the hidden cases and the
probes (as ``test_mistakes_round3.py`` does), which is what grading does minus the sandbox.
"""
from __future__ import annotations

import numpy as np
import pytest

import exercise_helpers as helpers


def _relu(z):
    return np.maximum(z, 0.0)


_diagnose = helpers.diagnose_vgg
_loses_points = helpers.vgg_loses_points


def _head(f, W1, b1, W2, b2, W3, b3, h1_then=lambda h: h, h2_then=lambda h: h, out=lambda y: y):
    h1 = h1_then(_relu(f.reshape(len(f), -1) @ W1 + b1))
    return out(_relu(h1 @ W2 + b2) @ W3 + b3)


def _scaled_bias(which: int, factor: float):
    def fn(f, W1, b1, W2, b2, W3, b3):
        biases = [b1, b2, b3]
        biases[which] = factor * biases[which]
        return _head(f, W1, biases[0], W2, biases[1], W3, biases[2])
    return fn


BIASES = {f"b{i + 1}-{name}": (i, factor, words)
          for i in range(3)
          for name, factor, words in (("subtracted", -1.0, "subtracted"), ("halved", 0.5, "halved"),
                                      ("doubled", 2.0, "added twice"))}


@pytest.mark.parametrize("name", sorted(BIASES))
def test_a_bias_subtracted_halved_or_doubled_is_named_with_the_bias_and_the_factor(name):
    """Before: wrong-stage, 'With W1 zero, FC1 and the first activation turn b1 = ... into ...' (b1, b2) or 'your
    logits are ... where b3 = ... should come out unchanged' (b3), which never said it was the bias."""
    which, factor, words = BIASES[name]
    fn = _scaled_bias(which, factor)
    assert _loses_points(fn)
    findings = _diagnose(fn)
    assert [f.id for f in findings] == ["bias-sign-or-scale"], findings
    assert f"b{which + 1} {words}" in findings[0].evidence, findings


def test_every_bias_subtracted_is_one_finding():
    """x W1 - b1, h1 W2 - b2, h2 W3 - b3: before, wrong-stage on the logits only."""
    fn = lambda f, W1, b1, W2, b2, W3, b3: _head(f, W1, -b1, W2, -b2, W3, -b3)  # noqa: E731
    assert _loses_points(fn)
    findings = _diagnose(fn)
    assert [f.id for f in findings] == ["bias-sign-or-scale"], findings
    assert "every bias is subtracted" in findings[0].evidence.lower(), findings


def _layer_norm(h):
    return (h - h.mean(1, keepdims=True)) / (h.std(1, keepdims=True) + 1e-5)


def _batch_norm(h):
    return (h - h.mean(0)) / (h.std(0) + 1e-5)


def test_a_batch_norm_on_h1_is_said_to_mix_the_samples():
    """Before: wrong-stage, 'FC1 and the first activation turn b1 = ... into 0, 0, 0, 0, 0, 0'."""
    fn = lambda *p: _head(*p, h1_then=_batch_norm)  # noqa: E731
    assert _loses_points(fn)
    findings = _diagnose(fn)
    assert [f.id for f in findings] == ["samples-mixed"], findings
    assert "In FC1" in findings[0].evidence and "batch norm" in findings[0].evidence, findings


def test_a_layer_norm_on_h1_names_the_layer_and_the_normalisation():
    """Before: wrong-stage with only the ramp's numbers (-0.5422, -0.5422, -0.3198, ...)."""
    fn = lambda *p: _head(*p, h1_then=_layer_norm)  # noqa: E731
    assert _loses_points(fn)
    findings = _diagnose(fn)
    assert [f.id for f in findings] == ["wrong-stage"], findings
    assert "In FC1" in findings[0].evidence and "layer norm" in findings[0].evidence, findings


INT_CASTS = {
    "h1": (lambda *p: _head(*p, h1_then=lambda h: h.astype(int)), "In FC1", "(h1)"),
    "h2": (lambda f, W1, b1, W2, b2, W3, b3: _relu(_relu(f.reshape(len(f), -1) @ W1 + b1) @ W2 + b2).astype(int)
           @ W3 + b3, "In FC2", "(h2)"),
    "z1": (lambda f, W1, b1, W2, b2, W3, b3: _relu(_relu((f.reshape(len(f), -1) @ W1 + b1).astype(int)) @ W2 + b2)
           @ W3 + b3, "In FC1", "(h1)"),
}


@pytest.mark.parametrize("name", sorted(INT_CASTS))
def test_an_int_cast_inside_the_head_says_where(name):
    """Before: wrong-stage, 'FC1 and the first activation turn b1 = ... into 0, 0, 0, 0, 2, 3'. A cast of z1 before
    the ReLU gives the same values as one after it (truncation toward 0 leaves negatives at or below 0)."""
    fn, layer, values = INT_CASTS[name]
    assert _loses_points(fn)
    findings = _diagnose(fn)
    assert [f.id for f in findings] == ["rounded-output"], findings
    assert layer in findings[0].evidence and values in findings[0].evidence, findings
    assert "whole numbers" in findings[0].evidence, findings


LOGITS = {
    "unit-norm": (lambda y: y / np.linalg.norm(y, axis=1, keepdims=True), "divided by each sample's Euclidean norm"),
    "minus-max": (lambda y: y - y.max(axis=1, keepdims=True), "largest logit"),
    "minus-mean": (lambda y: y - y.mean(axis=1, keepdims=True), "mean logit"),
    "class-sum": (lambda y: np.repeat(y.sum(axis=1, keepdims=True), y.shape[1], axis=1), "sum over the classes"),
    "plus-one": (lambda y: y + 1, "increased by 1"),
    "double": (lambda y: 2 * y, "multiplied by 2"),
    "reversed": (lambda y: y[:, ::-1], "reverse class order"),
}


@pytest.mark.parametrize("name", sorted(LOGITS))
def test_logits_changed_after_fc3_are_named_with_the_change(name):
    """Before: wrong-stage, 'your logits are ... where b3 = ... should come out unchanged', which left open whether
    b3 or what follows FC3 was wrong. Doubled logits are not a doubled b3: the other probes tell them apart."""
    change, words = LOGITS[name]
    fn = lambda *p: _head(*p, out=change)  # noqa: E731
    assert _loses_points(fn)
    findings = _diagnose(fn)
    assert [f.id for f in findings] == ["logits-changed"], findings  # relu-after-fc3 before round 8
    assert "After FC3 the logits are" in findings[0].evidence and words in findings[0].evidence, findings


def _softmax(y):
    e = np.exp(y - y.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


SOFTMAX_AND = {
    "b1-subtracted": (lambda f, W1, b1, W2, b2, W3, b3: _head(f, W1, -b1, W2, b2, W3, b3, out=_softmax),
                      {"bias-sign-or-scale"}, "b1 subtracted"),
    "b2-twice-sigmoid": (lambda f, W1, b1, W2, b2, W3, b3: _softmax(
        (1 / (1 + np.exp(-(_relu(f.reshape(len(f), -1) @ W1 + b1) @ W2 + 2 * b2)))) @ W3 + b3),
        {"bias-sign-or-scale", "wrong-activation"}, "b2 added twice"),
    "int-h1": (lambda *p: _head(*p, h1_then=lambda h: h.astype(int), out=_softmax), {"rounded-output"}, "(h1)"),
    "layer-norm": (lambda *p: _head(*p, h1_then=_layer_norm, out=_softmax), {"wrong-stage"}, "layer norm"),
}


@pytest.mark.parametrize("name", sorted(SOFTMAX_AND))
def test_a_softmax_beside_another_mistake_names_the_other_one(name):
    """Before: softmax-output alone, 'Something else departs as well, in a way no catalogued mistake explains' (with
    a sigmoid on FC2 as well, the sigmoid was named and the doubled b2 was not)."""
    fn, others, words = SOFTMAX_AND[name]
    assert _loses_points(fn)
    findings = _diagnose(fn)
    assert {f.id for f in findings} == {"softmax-output", *others}, findings
    assert words in " ".join(f.evidence for f in findings if f.id in others), findings
    assert "Something else departs" not in " ".join(f.evidence for f in findings), findings


def test_a_halved_w1_is_not_told_as_a_doubled_bias_and_dropout():
    """x @ (0.5 W1) is the features halved; the rescaled biases must not let the search tell it as two mistakes
    (b1 added twice and FC1's activations times 0.5, the same function), which it did before that was ruled out."""
    fn = lambda f, W1, b1, W2, b2, W3, b3: _head(f, 0.5 * W1, b1, W2, b2, W3, b3)  # noqa: E731
    assert _loses_points(fn)
    findings = _diagnose(fn)
    assert [f.id for f in findings] == ["features-changed"], findings


@pytest.fixture(scope="module")
def scale_session(exercise):
    from grader.grade import Session

    with Session(exercise, full_scale=True) as s:
        yield s


SQUARE_ONLY = ("import numpy as np\n\n\ndef vgg_classifier(features, W1, b1, W2, b2, W3, b3):\n"
               "    h1 = np.maximum(features.reshape(len(features), -1) @ W1 + b1, 0)\n{body}")


def test_shape_branches_at_vgg16_scale(scale_session, tmp_path):
    """Round three's probes kept full marks at small scale for both. A transpose of W2 only when it is square loses
    the VGG16-scale points (VGG16's W2 is 4,096 x 4,096) and is named. A bias moved before W3 only when W3 is square
    is named from the square probes, but keeps full marks: no graded W3 is square (VGG16's is 4,096 x 1,000), and
    on every other shape the code computes the statement's logits, so no graded value can tell."""
    from grader.grade import grade_file

    w2 = tmp_path / "w2-square.py"
    w2.write_text(SQUARE_ONLY.format(body="    W = W2.T if W2.shape[0] == W2.shape[1] else W2\n"
                                          "    return np.maximum(np.dot(h1, W) + b2, 0) @ W3 + b3\n"))
    result = grade_file(w2, scale_session)
    failed = [c.id for c in result.checks if c.status != "passed"]
    assert failed == ["values-full-scale"] and result.score < result.max_score, failed
    assert [d.id for d in result.diagnoses] == ["transposed-weights"], result.diagnoses
    b3 = tmp_path / "b3-square.py"
    b3.write_text(SQUARE_ONLY.format(body="    h2 = np.maximum(h1 @ W2 + b2, 0)\n"
                                          "    return (h2 + b3) @ W3 if W3.shape[0] == W3.shape[1] else h2 @ W3 + b3\n"))
    result = grade_file(b3, scale_session)
    assert result.score == result.max_score
    assert [d.id for d in result.diagnoses] == ["bias-misplaced"], result.diagnoses
