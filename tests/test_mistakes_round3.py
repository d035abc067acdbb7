"""Mistakes outside the VGG catalog's own examples, third round: each must lose points and get the right name, or an
honest generic finding that says what departs where, never a wrong name.

Each test says what the report said before the diagnosis changed. The functions are diagnosed in process on the
hidden cases and the probes (as ``test_mistakes_round2.py`` does), which is what grading does minus the sandbox.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import exercise_helpers as helpers


def _relu(z):
    return np.maximum(z, 0.0)


_diagnose = helpers.diagnose_vgg
_loses_points = helpers.vgg_loses_points


def _head(f, W1, b1, W2, b2, W3, b3, act1=_relu, act2=_relu):
    return act2(act1(f.reshape(len(f), -1) @ W1 + b1) @ W2 + b2) @ W3 + b3


def _gelu_tanh(z):
    return 0.5 * z * (1 + np.tanh(np.sqrt(2 / np.pi) * (z + 0.044715 * z * z * z)))


def _gelu_erf(z):
    return 0.5 * z * (1 + np.vectorize(math.erf)(z / math.sqrt(2)))


def _elu(z):
    return np.where(z > 0, z, np.exp(np.minimum(z, 0)) - 1)


ACTIVATIONS = {
    "gelu-both": (lambda *p: _head(*p, act1=_gelu_tanh, act2=_gelu_tanh), ("FC1 and FC2", "GELU")),
    "gelu-erf-fc1": (lambda *p: _head(*p, act1=_gelu_erf), ("FC1 uses", "GELU")),
    "elu-fc2": (lambda *p: _head(*p, act2=_elu), ("FC2 uses", "ELU")),
    "silu-fc1": (lambda *p: _head(*p, act1=lambda z: z / (1 + np.exp(-z))), ("FC1 uses", "SiLU")),
    "softplus-fc1": (lambda *p: _head(*p, act1=lambda z: np.log1p(np.exp(z))), ("FC1 uses", "softplus")),
    "floor-minus-one-fc1": (lambda *p: _head(*p, act1=lambda z: np.maximum(z, -1)), ("FC1 uses", "floor of -1")),
}


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_smooth_and_floored_activations_are_named(name):
    """Before: a bare 'FC1 and the first activation turn b1 = ... into ...' (wrong-stage): GELU, ELU on one layer,
    SiLU, softplus on one layer and a floor of -1 were read on the ramp but never tried. (A squared ReLU, the
    catalog's wrong-stage example then, is named too since round ten; the example is now log1p of a ReLU.)"""
    fn, words = ACTIVATIONS[name]
    assert _loses_points(fn)
    findings = _diagnose(fn)
    assert [f.id for f in findings] == ["wrong-activation"], findings
    for word in words:
        assert word in findings[0].evidence, findings


def test_a_relu_then_rounding_on_the_logits_names_both():
    """np.round(relu(y), 2): before, only rounded-output (the ReLU went unnamed, no variant held both)."""
    fn = lambda *p: np.round(_relu(_head(*p)), 2)  # noqa: E731
    assert _loses_points(fn)
    findings = _diagnose(fn)
    assert {f.id for f in findings} == {"relu-after-fc3", "rounded-output"}, findings
    text = {f.id: f.evidence for f in findings}
    assert "ReLU" in text["relu-after-fc3"] and "2 decimals" in text["rounded-output"], findings


def test_a_bias_added_twice_is_not_called_dropout():
    """ReLU(h1 W2 + 2 b2): before, inference-dropout ('FC1's activations are multiplied by 0.5' and FC2's by 2),
    which is the same function but not what the code does. Round four names it bias-sign-or-scale."""
    fn = lambda f, W1, b1, W2, b2, W3, b3: _head(f, W1, b1, W2, b2 + b2, W3, b3)  # noqa: E731
    assert _loses_points(fn)
    findings = _diagnose(fn)
    assert [f.id for f in findings] == ["bias-sign-or-scale"], findings
    assert "b2 added twice" in findings[0].evidence, findings


def test_a_scaled_weight_matrix_is_said_to_be_the_same_as_a_scaled_activation():
    """W2 * 0.5: the report said only that FC1's activations are multiplied by 0.5."""
    fn = lambda f, W1, b1, W2, b2, W3, b3: _head(f, W1, b1, W2 * 0.5, b2, W3, b3)  # noqa: E731
    findings = _diagnose(fn)
    assert [f.id for f in findings] == ["inference-dropout"], findings
    assert "W2 is" in findings[0].evidence, findings


def _pool2(f, reduce):
    B, H, W, C = f.shape
    h, w = H // 2 * 2, W // 2 * 2
    return reduce(f[:, :h, :w].reshape(B, h // 2, 2, w // 2, 2, C), axis=(2, 4))


@pytest.mark.parametrize("reduce", [np.max, np.mean], ids=["max", "mean"])
def test_a_two_by_two_pooling_before_the_flatten_is_named(reduce):
    """Before: raises-error, whose reading said the features 'were reshaped into 12 rows of 10 values'."""
    fn = lambda f, *p: _head(_pool2(f, reduce), *p)  # noqa: E731
    findings = _diagnose(fn)
    assert [f.id for f in findings] == ["spatial-pooling"], findings
    assert "2x2 windows" in findings[0].evidence and "reshaped into" not in findings[0].evidence, findings


def test_rows_per_position_through_matmul_are_not_called_pooled():
    """features.reshape(-1, C) @ W1: before, spatial-pooling; matmul's message cannot tell it from pooled features,
    so the finding says both, and the pooled catalog example (np.dot names its operand) keeps its name."""
    fn = lambda f, W1, b1, W2, b2, W3, b3: _head(f.reshape(-1, f.shape[-1]), W1, b1, W2, b2, W3, b3)  # noqa: E731
    findings = _diagnose(fn)
    assert [f.id for f in findings] == ["raises-error"], findings
    assert "reshape(-1, C)" in findings[0].evidence and "pooled" in findings[0].evidence, findings


def test_a_zeroed_first_row_beside_a_missing_bias_names_both():
    """y[0] = 0 with b1 never added: before, a bare 'with every weight zero, your logits are 0, ...' (wrong-stage),
    since the lost row is named only when the other rows are right."""
    def fn(f, W1, b1, W2, b2, W3, b3):
        y = _head(f, W1, 0 * b1, W2, b2, W3, b3)
        y[0] = 0
        return y
    assert _loses_points(fn)
    findings = _diagnose(fn)
    assert {f.id for f in findings} == {"samples-dropped", "missing-bias"}, findings
    assert "b1" in " ".join(f.evidence for f in findings if f.id == "missing-bias"), findings


@pytest.fixture(scope="module")
def scale_session(exercise):
    from grader.grade import Session

    with Session(exercise, full_scale=True) as s:
        yield s


def test_a_transpose_of_h_and_w_only_for_square_maps_is_not_called_precision_loss(scale_session, tmp_path):
    """A transpose of H and W only when H = W: right on every small case (none is square), wrong at VGG16 scale.
    Before: precision-loss, 'off by at most about 1e-300' (the large case's error is never compared, so every
    compared case looked exact); now a stage-free finding that says only the VGG16-scale case departs and why."""
    from grader.grade import grade_file

    path = tmp_path / "square-only.py"
    path.write_text("import numpy as np\n\n\ndef vgg_classifier(features, W1, b1, W2, b2, W3, b3):\n"
                    "    if features.shape[1] == features.shape[2]:\n"
                    "        features = features.transpose(0, 2, 1, 3)\n"
                    "    h1 = np.maximum(features.reshape(len(features), -1) @ W1 + b1, 0)\n"
                    "    return np.maximum(h1 @ W2 + b2, 0) @ W3 + b3\n")
    result = grade_file(path, scale_session)
    assert result.score < result.max_score
    assert [d.id for d in result.diagnoses] == ["wrong-stage"], result.diagnoses
    assert "VGG16-scale" in result.diagnoses[0].evidence and "H = W" in result.diagnoses[0].evidence
