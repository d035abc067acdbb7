"""Mistakes of the VGG head left generic or unnamed after round four, fifth round: each must lose points and be
named with where it happens and what was done, or, where nothing in the catalog fits, get an honest generic
finding instead of an empty report.

Each test says what the report said before. The functions are diagnosed in process on the hidden cases and the
probes (as ``test_mistakes_round4.py`` does), which is what grading does minus the sandbox.
"""
from __future__ import annotations

import numpy as np
import pytest

import exercise_helpers as helpers

_diagnose = helpers.diagnose_vgg
_loses_points = helpers.vgg_loses_points


def _relu(z):
    return np.maximum(z, 0.0)


def _head(f, W1, b1, W2, b2, W3, b3, z1=_relu, z2=_relu, out=lambda y: y, weights=lambda w: w):
    h1 = z1(f.reshape(len(f), -1) @ weights(W1) + b1)
    return out(z2(h1 @ W2 + b2) @ W3 + b3)


def _norm(axis, eps, form):
    def change(z):
        spread = np.sqrt(z.var(axis, keepdims=True) + eps) if form == "var" else z.std(axis, keepdims=True) + eps
        return (z - z.mean(axis, keepdims=True)) / spread
    return change


NORMS = {  # name -> (layer, axis, eps, form, before the ReLU?)
    "bn-fc1-before-relu-var": (1, 0, 1e-5, "var", True),
    "bn-fc2-before-relu-var-1e-3": (2, 0, 1e-3, "var", True),
    "bn-fc1-after-relu-var": (1, 0, 1e-5, "var", False),
    "ln-fc1-before-relu-var": (1, 1, 1e-5, "var", True),
    "ln-fc2-after-relu-std-1e-8": (2, 1, 1e-8, "std", False),
}


@pytest.mark.parametrize("name", sorted(NORMS))
def test_a_batch_or_layer_norm_in_any_of_its_forms_is_named_with_the_layer(name):
    """Before: wrong-stage, 'FC1 and the first activation turn b1 = -2, -0.5, ... into 0, 0, 0, 0, 0, 0' (only the
    post-ReLU form with std + 1e-5 was modelled): a batch norm is samples-mixed, a layer norm a wrong-stage, and
    both say the layer, the kind of normalisation and where it sits."""
    layer, axis, eps, form, before = NORMS[name]
    norm = _norm(axis, eps, form)
    act = (lambda z: _relu(norm(z))) if before else (lambda z: norm(_relu(z)))
    fn = lambda *p: _head(*p, **{f"z{layer}": act})  # noqa: E731
    assert _loses_points(fn)
    findings = _diagnose(fn)
    assert [f.id for f in findings] == ["samples-mixed" if axis == 0 else "wrong-stage"], findings
    evidence = findings[0].evidence
    assert f"In FC{layer}" in evidence and ("batch norm" if axis == 0 else "layer norm") in evidence, findings
    assert ("before the ReLU" in evidence) == before, findings
    assert f"{eps:g}" in evidence or "h.std(axis=1)" in evidence, findings  # the search's model says no eps


def _softmax(y):
    e = np.exp(y - y.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


LOGITS = {
    "softmax-sum-without-axis": (lambda y: np.exp(y) / np.sum(np.exp(y), keepdims=True), {"softmax-output"},
                                 "over the whole batch"),
    "relu-then-softmax": (lambda y: _softmax(_relu(y)), {"relu-after-fc3", "softmax-output"}, "A ReLU"),
    "standardised": (lambda y: (y - y.mean(1, keepdims=True)) / y.std(1, keepdims=True), {"logits-changed"},
                     "standardised per sample"),
    "minus-min": (lambda y: y - y.min(1, keepdims=True), {"logits-changed"}, "smallest logit"),
    "divided-by-abs-max": (lambda y: y / np.abs(y).max(1, keepdims=True), {"logits-changed"},
                           "largest absolute logit"),
    "stray-epsilon": (lambda y: y + 1e-8, {"logits-changed"}, "constant 1e-08"),
}


@pytest.mark.parametrize("name", sorted(LOGITS))
def test_logits_changed_after_fc3_are_named(name):
    """Before: wrong-stage, 'your logits are ... where b3 = ... should come out unchanged' (a softmax over the whole
    array also said 'Something else departs as well')."""
    change, ids, words = LOGITS[name]
    fn = lambda *p: _head(*p, out=change)  # noqa: E731
    assert _loses_points(fn)
    findings = _diagnose(fn)
    assert {f.id for f in findings} == ids, findings
    assert words in " ".join(f.evidence for f in findings), findings
    assert "Something else departs" not in " ".join(f.evidence for f in findings), findings


def test_hidden_values_rounded_are_named_with_the_layer_and_the_decimals():
    """Before: no finding at all (every probe's short binary fractions survive np.round(h1, 4)), only failed checks."""
    fn = lambda *p: _head(*p, z1=lambda z: _relu(z).round(4))  # noqa: E731
    assert _loses_points(fn)
    findings = _diagnose(fn)
    assert [f.id for f in findings] == ["rounded-output"], findings
    assert "In FC1" in findings[0].evidence and "4 decimals" in findings[0].evidence, findings


def test_a_stray_epsilon_inside_the_head_is_not_called_rounding():
    """relu(z) + 1e-8 moves the logits by about as much as rounding h1 to 6 decimals: it must not be named that."""
    fn = lambda *p: _head(*p, z1=lambda z: _relu(z) + 1e-8)  # noqa: E731
    assert _loses_points(fn)
    findings = _diagnose(fn)
    assert "rounded-output" not in {f.id for f in findings}, findings
    assert findings, "a report without any finding"


RESHAPED = {
    "W1.T.reshape": (lambda w: w.T.reshape(w.shape), "W1.T.reshape(W1.shape)"),
    "W1.reshape(out, in).T": (lambda w: w.reshape(w.shape[1], w.shape[0]).T, "W1.reshape(W1.shape[1], W1.shape[0]).T"),
}


@pytest.mark.parametrize("name", sorted(RESHAPED))
def test_weights_transposed_and_reshaped_to_fit_are_named(name):
    """Before: no finding at all. The square probes see a plain transpose, every other size a scrambled matrix, so
    the search's variant (W1 transposed) never held on the graded cases."""
    fix, words = RESHAPED[name]
    fn = lambda *p: _head(*p, weights=fix)  # noqa: E731
    assert _loses_points(fn)
    findings = _diagnose(fn)
    assert [f.id for f in findings] == ["transposed-weights"], findings
    assert words in findings[0].evidence, findings


def test_float32_in_one_layer_is_left_to_the_precision_reading():
    """The harness names a head computed in float32 precision-loss; the exercise's diagnosis must add no finding of
    its own (a wrong-stage here would supersede it)."""
    def fn(f, W1, b1, W2, b2, W3, b3):
        h1 = (f.reshape(len(f), -1).astype(np.float32) @ W1.astype(np.float32) + b1.astype(np.float32))
        return _relu(_relu(h1.astype(np.float64)) @ W2 + b2) @ W3 + b3
    assert _loses_points(fn)
    assert _diagnose(fn) == []


def test_wrong_values_nothing_explains_get_a_generic_finding():
    """Before: an empty report beside the failed value checks. h1 clipped at 20 changes only the 'large' case (no
    probe's hidden value comes near 20); no catalogued mistake models it, so the report must say which cases are
    wrong and that every probe is right, as a wrong-stage."""
    fn = lambda *p: _head(*p, z1=lambda z: np.clip(z, 0, 20))  # noqa: E731
    assert _loses_points(fn)
    findings = _diagnose(fn)
    assert [f.id for f in findings] == ["wrong-stage"], findings
    assert "graded cases returned logits" in findings[0].evidence and "Every probe" in findings[0].evidence

