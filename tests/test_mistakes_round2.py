"""Mistakes outside the VGG catalog's own examples, second round: each graded end to end must lose points and get
the right name, or an honest generic one, never a wrong name.

Every file here was written as a student would and graded before the diagnosis changed; each test says what the
report said then. The single mistakes live in ``tests/submissions/buggy/variants/`` (``test_catalog.py`` checks
that each is named by its file name); the tests below add what a name alone does not show: the names that must not
appear and the words the evidence must hold. Pairs of mistakes live in ``tests/submissions/buggy/pairs/``, named
``<id>+<id>-<detail>.py``, and both ids must be named.
"""
from __future__ import annotations

import re

import numpy as np
import pytest

import exercise_helpers as helpers
from conftest import SUBMISSIONS, diagnosis_ids
from grader.exercise import load
from grader.grade import grade_file

VARIANTS = SUBMISSIONS / "buggy" / "variants"
PAIRS = SUBMISSIONS / "buggy" / "pairs"

#: pair file -> a pattern each named mistake's evidence must match (the layer, the precision, the decimals...)
PAIR_WORDS = {
    "missing-bias+rounded-output-b3-round3": {"missing-bias": r"\bb3\b", "rounded-output": r"3 decimals"},
    "missing-bias+precision-loss-float32-b3": {"missing-bias": r"\bb3\b", "precision-loss": r"float32"},
    "missing-relu+precision-loss-float32-fc1": {"missing-relu": r"FC1", "precision-loss": r"float32"},
    "flatten-order+precision-loss-float16": {"flatten-order": r"order='F'", "precision-loss": r"float16"},
    "missing-bias+wrong-activation-leaky-b2": {"missing-bias": r"\bb2\b", "wrong-activation": r"leaky.*0\.1"},
}


def _evidence(result, finding_id: str) -> str:
    return " ".join(d.evidence for d in result.diagnoses if d.id == finding_id)


def _shown(result) -> list[tuple[str, str]]:
    return [(d.id, d.evidence) for d in result.diagnoses]


def test_every_pair_has_its_expectation():
    assert {p.stem for p in PAIRS.glob("*.py")} == set(PAIR_WORDS)


@pytest.mark.parametrize("name", sorted(PAIR_WORDS))
def test_both_mistakes_of_a_pair_are_named(session, name):
    """Before: the rounding, the reduced precision or the leaky slope hid the other mistake (only rounded-output,
    only the missing bias or missing ReLU, or a bare 'FC2's activation departs')."""
    result = grade_file(PAIRS / f"{name}.py", session)
    assert result.score < result.max_score
    ids = diagnosis_ids(result)
    for finding_id, pattern in PAIR_WORDS[name].items():
        assert finding_id in ids, _shown(result)
        assert re.search(pattern, _evidence(result, finding_id)), _shown(result)


@pytest.mark.parametrize("name", ["wrong-stage--logits-times-1e300", "wrong-stage--logits-times-1e-310"])
def test_scaled_logits_are_not_called_rounded_or_clipped(session, name):
    """Logits times 1e300 are all whole numbers and logits times 1e-310 all round to 0: both were reported as
    'rounded to 0 decimals', and the second also as a clip between -8e-310 and 8e-310."""
    result = grade_file(VARIANTS / f"{name}.py", session)
    assert result.score < result.max_score
    ids = diagnosis_ids(result)
    assert not ids & {"rounded-output", "relu-after-fc3", "missing-bias", "wrong-activation"}, _shown(result)
    assert re.search(r"e[+-]?3\d\d", _evidence(result, "wrong-stage")), _shown(result)


def test_logits_summed_over_the_batch_are_not_a_flattened_batch(session):
    """Before: 'batch-flattened', whose advice (keep the batch axis while flattening) does not apply."""
    result = grade_file(VARIANTS / "samples-mixed--summed-over-batch.py", session)
    assert "batch-flattened" not in diagnosis_ids(result), _shown(result)
    assert re.search(r"sum over the batch", _evidence(result, "samples-mixed")), _shown(result)


def test_a_branch_on_a_single_sample_is_named_with_its_order(session):
    """Before: 14 of 17 points and no diagnosis at all (only the B = 1 cases are wrong)."""
    result = grade_file(VARIANTS / "flatten-order--transpose-if-single.py", session)
    assert result.score < result.max_score
    text = _evidence(result, "flatten-order")
    assert "B = 1" in text and "channels-first" in text, _shown(result)


@pytest.mark.parametrize("name", ["features-changed--standardised", "features-changed--standardised-per-sample"])
def test_standardised_features_are_named_and_the_nan_probes_explained(session, name):
    """Before: 8 of 17 points and no diagnosis: the ramp probes' constant features have no spread, so they
    returned NaN and no stage could be read."""
    result = grade_file(VARIANTS / f"{name}.py", session)
    text = _evidence(result, "features-changed")
    assert "standardised" in text and "0/0" in text, _shown(result)


def test_dropout_scale_on_one_layer_only(session):
    """Before: a bare 'first activation departs' for FC1's activations times 0.8 (FC2 untouched)."""
    result = grade_file(VARIANTS / "inference-dropout--fc1-keep-0.8.py", session)
    assert diagnosis_ids(result) == {"inference-dropout"}, _shown(result)
    assert re.search(r"FC1.*0\.8", _evidence(result, "inference-dropout")), _shown(result)


def test_a_transpose_of_a_one_dimensional_bias_costs_nothing(session):
    result = grade_file(SUBMISSIONS / "correct" / "bias-transposed.py", session)
    assert result.score == result.max_score and result.diagnoses == ()


def test_a_stage_sentence_shows_enough_digits_to_differ(session, tmp_path):
    """W1 scaled in place by 1 + 1e-7: the probe sentence said '4.5 where the statement gives 4.5'."""
    path = tmp_path / "scaled.py"
    path.write_text("import numpy as np\n\n\ndef vgg_classifier(features, W1, b1, W2, b2, W3, b3):\n"
                    "    W1 = W1 * 1.0000001\n"
                    "    h1 = np.maximum(features.reshape(len(features), -1) @ W1 + b1, 0)\n"
                    "    return np.maximum(h1 @ W2 + b2, 0) @ W3 + b3\n")
    result = grade_file(path, session)
    assert result.score < result.max_score
    pairs = [pair for d in result.diagnoses
             for pair in re.findall(r"is (-?[\d.]+(?:e[+-]?\d+)?) where the statement gives (-?[\d.]+(?:e[+-]?\d+)?)",
                                    d.evidence)]
    assert pairs, _shown(result)
    assert all(got != want for got, want in pairs), _shown(result)


# -- in-process: what only the VGG16-scale case costs points for --------------------------------------------------
def _relu(z):
    return np.maximum(z, 0.0)


def w2_transposed_when_square(f, W1, b1, W2, b2, W3, b3):
    """Transposes W2 'to be safe' only where the shapes allow it: every small graded case is right."""
    h1 = _relu(f.reshape(len(f), -1) @ W1 + b1)
    h2 = _relu(h1 @ (W2.T if W2.shape[0] == W2.shape[1] else W2) + b2)
    return h2 @ W3 + b3


def test_a_transpose_only_on_square_weights_is_named_from_the_probes():
    """Before: 17 of 19 points at full scale (VGG16's W2 is square) and no diagnosis, since the transposed variant
    does not fit the graded cases' non-square W2, where the code is right."""
    ex = load("vgg_classifier")
    cases = ex.hidden_cases(7) + ex.diagnosis_module.probe_cases()
    runs = helpers.case_runs(ex, w2_transposed_when_square, cases, [ex.expected(c) for c in cases])
    findings = ex.diagnosis_module.diagnose(runs, ex)
    assert [f.id for f in findings] == ["transposed-weights"], findings
    assert "W2" in findings[0].evidence and "square" in findings[0].evidence


def test_an_array_of_python_objects_is_named_a_wrong_dtype(session, tmp_path):
    """np.array(logits, dtype=object): the values are never sent, so every value check failed (4 of 17 points)
    and the report named no mistake."""
    path = tmp_path / "objects.py"
    path.write_text("import numpy as np\n\n\ndef vgg_classifier(features, W1, b1, W2, b2, W3, b3):\n"
                    "    h1 = np.maximum(features.reshape(len(features), -1) @ W1 + b1, 0)\n"
                    "    logits = np.maximum(h1 @ W2 + b2, 0) @ W3 + b3\n"
                    "    return np.array(logits, dtype=object)\n")
    result = grade_file(path, session)
    assert result.score < result.max_score
    assert "object" in _evidence(result, "wrong-dtype"), _shown(result)


def rows_per_position_dot(f, W1, b1, W2, b2, W3, b3):
    """features.reshape(-1, C): one row per position; np.dot's error then names the (B*H*W, C) operand."""
    x = f.reshape(-1, f.shape[-1])
    h1 = _relu(np.dot(x, W1) + b1)
    return np.dot(_relu(np.dot(h1, W2) + b2), W3) + b3


def test_features_reshaped_to_channel_rows_are_not_called_pooled():
    """Before: spatial-pooling ('averaged the feature maps over height and width'), which this code never does."""
    ex = load("vgg_classifier")
    cases = ex.hidden_cases(7) + ex.diagnosis_module.probe_cases()
    runs = helpers.case_runs(ex, rows_per_position_dot, cases, [ex.expected(c) for c in cases])
    findings = ex.diagnosis_module.diagnose(runs, ex)
    assert "spatial-pooling" not in {f.id for f in findings}, findings
    assert any("one row per position" in f.evidence and "probe" in f.evidence for f in findings), findings


def test_logits_cast_to_int_are_named_truncated(session, tmp_path):
    """y.astype(int): before, wrong-dtype and a bare 'after FC3 departs'; the cast also truncates every logit."""
    path = tmp_path / "ints.py"
    path.write_text("import numpy as np\n\n\ndef vgg_classifier(features, W1, b1, W2, b2, W3, b3):\n"
                    "    h1 = np.maximum(features.reshape(len(features), -1) @ W1 + b1, 0)\n"
                    "    return (np.maximum(h1 @ W2 + b2, 0) @ W3 + b3).astype(int)\n")
    result = grade_file(path, session)
    assert {"wrong-dtype", "rounded-output"} <= diagnosis_ids(result), _shown(result)
    assert "wrong-stage" not in diagnosis_ids(result)
    assert "astype(int)" in _evidence(result, "rounded-output"), _shown(result)


def _diagnose(fn):
    ex = load("vgg_classifier")
    cases = ex.hidden_cases(7) + ex.diagnosis_module.probe_cases()
    return ex.diagnosis_module.diagnose(helpers.case_runs(ex, fn, cases, [ex.expected(c) for c in cases]), ex)


def _head(f, W1, b1, W2, b2, W3, b3, act=_relu):
    return act(act(f.reshape(len(f), -1) @ W1 + b1) @ W2 + b2) @ W3 + b3


def log_of_logits(f, *params):
    return np.log(np.abs(_head(f, *params)) + 1e-9)


def sigmoid_hidden_relu_logits(f, *params):
    return _relu(_head(f, *params, act=lambda z: 1.0 / (1.0 + np.exp(-z))))


def test_a_function_that_scrambles_the_logits_order_is_still_placed_after_fc3():
    """np.log(|y|): 8 of 17 points and no finding, since a ramp whose order is lost read as noise; every probe's
    output is one function of its logits, which noise is not."""
    findings = _diagnose(log_of_logits)
    assert [f.id for f in findings] == ["wrong-stage"], findings
    assert "after FC3" in findings[0].evidence


def test_a_relu_on_the_logits_is_not_called_a_clip_at_the_ramps_end():
    """Sigmoid hidden layers and a ReLU on the logits: the ReLU was reported as 'Clip(y, 0, 8)', 8 being only the
    ramp's largest value."""
    findings = _diagnose(sigmoid_hidden_relu_logits)
    assert {f.id for f in findings} == {"wrong-activation", "relu-after-fc3"}, findings
    text = " ".join(f.evidence for f in findings if f.id == "relu-after-fc3")
    assert "ReLU" in text and "lip" not in text, text


@pytest.mark.parametrize("change,words,other,fn", [
    ("255", "divided by 255", "relu-after-fc3", lambda f, *p: _relu(_head(f.reshape(len(f), -1) / 255.0, *p))),
    ("l2", "L2 norm", "missing-bias",
     lambda f, W1, b1, W2, b2, W3, b3: _head(f / np.linalg.norm(f.reshape(len(f), -1), axis=1)[:, None, None, None],
                                             W1, 0 * b1, W2, b2, W3, b3)),
    ("int", "astype(int)", "missing-bias",
     lambda f, W1, b1, W2, b2, W3, b3: _head(f.astype(np.int64).astype(np.float64), W1, b1, W2, 0 * b2, W3, b3)),
], ids=["255", "l2", "int"])
def test_changed_features_beside_another_mistake_are_both_named(change, words, other, fn):
    """Before: the features' change was not named (a bare 'first activation departs', or only the ReLU on the
    logits with 'something else departs as well')."""
    findings = _diagnose(fn)
    assert {f.id for f in findings} == {"features-changed", other}, findings
    assert words in " ".join(f.evidence for f in findings if f.id == "features-changed")
