"""Fairness of the VGG diagnosis, seventh round: what a report blamed on the grader that the student's code did, a
placeholder that got no finding at all, and readings that no input can tell apart, which the report named as if it
could. Each test says what the report said before. Diagnosed in process (hidden cases of one student and the
probes), except the memory test, whose evidence only a sandboxed run has.
"""
from __future__ import annotations

import numpy as np
import pytest

import exercise_helpers as helpers
from grader import diagnose as grader_diagnose
from grader import exercise as exercise_mod
from grader.memory import MemoryLimits, memory_error_sentence
from grader.outcomes import CallError, Execution

EX = exercise_mod.load("vgg_classifier")


def _cases():
    return EX.hidden_cases(7) + EX.diagnosis_module.probe_cases()


_findings = helpers.vgg_findings


def _relu(z):
    return np.maximum(z, 0.0)


# -- a MemoryError under a limit the submission set itself ------------------------------------------------------------
LOWERED = '''
import resource
import numpy as np

GRADERS = resource.getrlimit(resource.RLIMIT_AS)
resource.setrlimit(resource.RLIMIT_AS, (GRADERS[0] // 2, GRADERS[1]))


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    scratch = np.empty(GRADERS[0] * 3 // 4 // 8)  # under the grader's limit, over the one set above
    x = features.reshape(features.shape[0], -1)
    return np.maximum(np.maximum(x @ W1 + b1, 0) @ W2 + b2, 0) @ W3 + b3
'''


def test_a_memory_error_under_the_submission_s_own_rlimit_is_said_to_be_its_own(grade_source):
    """Before: 'already reserved close to 8.5 GiB of address space, the most a run may reserve', and the finding
    told the student to use less memory, when the submission had lowered RLIMIT_AS itself (to 1.2 GiB in
    /tmp/h75/rl.py). The child now reports its limit with the error, and the parent compares it with its own."""
    result = grade_source(LOWERED)
    completes = next(c for c in result.checks if c.id == "returns")
    assert "lowered its own address-space limit" in completes.message, completes.message
    assert "resource.setrlimit(RLIMIT_AS, ...)" in completes.message and "the most a run may" not in completes.message
    memory = next(d for d in result.diagnoses if d.id == "out-of-memory")
    assert "the submission's own code had lowered its address-space limit" in memory.evidence, memory.evidence


def test_the_memory_sentence_blames_the_grader_only_when_its_limit_was_the_one_in_force():
    limits = MemoryLimits.of(2048)
    message = "Unable to allocate 1.00 GiB for an array with shape (134217728,) and data type float64"
    own = memory_error_sentence(message, limits, None, 1200 * 2**20)
    assert "lowered its own address-space limit to 1.2 GiB" in own and "not the grader's" in own, own
    for untouched in (None, -1, limits.address_space_bytes):  # not reported, no limit, the grader's own
        assert "lowered" not in memory_error_sentence(message, limits, None, untouched)
    huge = memory_error_sentence(message.replace("1.00 GiB", "90.0 GiB"), limits, None, 1200 * 2**20)
    assert "the grader's would have refused that much too" in huge, huge


def test_an_error_without_the_child_s_limit_reads_as_before():
    """An old child, or a forged message, that sends no limit: the generic finding says nothing of a setrlimit."""
    case = _cases()[0]
    from grader.outcomes import CallOutcome, CaseRun
    error = CallError("MemoryError", "Unable to allocate 1.00 GiB for an array with shape (134217728,) and data "
                                     "type float64")
    run = CaseRun(case=case, expected=EX.expected(case),
                  outcome=CallOutcome(case=case.name, status="raised", exception=error))
    execution = Execution(function_found=True, function_callable=True, calls=(run.outcome,),
                          memory=MemoryLimits.of(2048))
    found = {d.id: d.evidence for d in grader_diagnose.diagnose([run], execution, EX)[0]}
    assert "out-of-memory" in found and "setrlimit" not in found["out-of-memory"], found


# -- random numbers from a fixed seed --------------------------------------------------------------------------------
def seeded_rng(f, W1, b1, W2, b2, W3, b3):
    return np.random.default_rng(0).standard_normal((f.shape[0], W3.shape[1]))


def seeded_legacy(f, W1, b1, W2, b2, W3, b3):
    np.random.seed(42)
    return np.random.randn(f.shape[0], b3.shape[0])


def seeded_per_size(f, W1, b1, W2, b2, W3, b3):
    return np.random.default_rng(f.shape[0] * 100 + W3.shape[1]).uniform(size=(f.shape[0], W3.shape[1]))


@pytest.mark.parametrize("fn", [seeded_rng, seeded_legacy, seeded_per_size], ids=lambda f: f.__name__)
def test_a_placeholder_drawing_from_a_fixed_seed_is_named(fn):
    """Before: no finding at all ('No known mistake matched your results'). The same draw comes back for every call
    of one output size, whatever the features and weights: the result does not depend on the inputs."""
    found = _findings(fn)
    assert [f.id for f in found] == ["constant-output"], found
    assert "follows only the size of the output" in found[0].evidence, found
    one_stream = fn is not seeded_per_size  # a seed per size draws no common sequence, and is not said to
    assert ("seeded with a fixed number" in found[0].evidence) == one_stream, found


def test_a_function_that_reads_its_inputs_is_never_called_shape_only():
    """The guard: an answer computed from the weights alone (features ignored) differs between calls of one size,
    so it is not read as a seeded draw."""
    def biases_only(f, W1, b1, W2, b2, W3, b3):
        return np.tile(_relu(_relu(b1) @ W2 + b2) @ W3 + b3, (len(f), 1))
    assert "follows only the size of the output" not in " ".join(f.evidence for f in _findings(biases_only))


# -- a factor on h2 or on the logits, with b3 left out ---------------------------------------------------------------
def _no_b3(h2_factor=1.0, logit_factor=1.0):
    def fn(f, W1, b1, W2, b2, W3, b3):
        h2 = _relu(_relu(f.reshape(len(f), -1) @ W1 + b1) @ W2 + b2) * h2_factor
        return (h2 @ W3) * logit_factor
    return fn


@pytest.mark.parametrize("h2_factor, logit_factor, factor", [(0.5, 1.0, "0.5"), (1.0, 0.5, "0.5"), (2.0, 1.0, "2"),
                                                              (1.0, 2.0, "2")])
def test_a_factor_that_could_be_dropout_or_on_the_logits_is_not_guessed(h2_factor, logit_factor, factor):
    """Before: h2 * 0.5 with b3 left out was 'the logits are divided by 2 (y / 2, a temperature of 2)', and h2 * 2
    was inference-dropout even when the code doubled the logits. Without b3 the two are one function: the report
    names the missing b3, says the factor, and says it cannot tell where it is applied."""
    found = _findings(_no_b3(h2_factor, logit_factor))
    assert sorted(f.id for f in found) == ["missing-bias", "wrong-stage"], found
    text = next(f.evidence for f in found if f.id == "wrong-stage")
    assert f"multiplied by {factor}" in text and "no input can tell" in text, text


def test_with_b3_added_the_factor_keeps_its_name():
    found = _findings(lambda f, W1, b1, W2, b2, W3, b3: _no_b3(0.5)(f, W1, b1, W2, b2, W3, b3) + b3)
    assert [f.id for f in found] == ["inference-dropout"], found


# -- pairs of catalogued mistakes (all 306 pairs of 26 single mutations were graded; see the commit messages) ---------
def _head(f, W1, b1, W2, b2, W3, b3, x_factor=1.0, h1_factor=1.0, act1=_relu, act2=_relu, out=lambda y: y,
          biases=(True, True, True), relu_first=False):
    b1, b2, b3 = (b if keep else 0 * b for b, keep in zip((b1, b2, b3), biases))
    x = f.reshape(len(f), -1) * x_factor
    h1 = (_relu(x @ W1) + b1 if relu_first else act1(x @ W1 + b1)) * h1_factor
    return out(act2(h1 @ W2 + b2) @ W3 + b3)


def _pair(**change):
    return lambda *p: _head(*p, **change)


NAMED_NOW = {  # what each got before -> what it gets now
    "x2-no-relu1": (dict(x_factor=2.0, act1=lambda z: z), {"features-changed", "missing-relu"}),  # wrong-stage
    "x2-no-relu2": (dict(x_factor=2.0, act2=lambda z: z), {"features-changed", "missing-relu"}),  # wrong-stage
    "x2-relu-before-b1": (dict(x_factor=2.0, relu_first=True), {"features-changed", "relu-before-bias"}),  # ditto
    "x2-no-b3": (dict(x_factor=2.0, biases=(True, True, False)), {"features-changed", "missing-bias"}),  # ditto
    "h1-half-y-half": (dict(h1_factor=0.5, out=lambda y: y / 2), {"inference-dropout", "logits-changed"}),  # b3 halved
    "y-half-rounded": (dict(out=lambda y: np.round(y / 2, 2)), {"logits-changed", "rounded-output"}),  # b2, b3 halved
    "h1-half-no-b3": (dict(h1_factor=0.5, biases=(True, True, False)), {"inference-dropout", "missing-bias"}),
    "x2-relu-logits": (dict(x_factor=2.0, out=_relu), {"features-changed", "relu-after-fc3"}),  # relu-after-fc3
}


@pytest.mark.parametrize("name", sorted(NAMED_NOW))
def test_pairs_the_probes_can_tell_are_named_for_what_the_code_does(name):
    """Before: a wrong-stage finding alone (the features' factor was dropped as 'explained' by a ramp that showed
    no factor at all: a missing ReLU passes its positive values unchanged, a missing b3 gives zeros), or a reading
    with more changes than the code has (y / 2 told as h2 halved and b3 halved)."""
    change, expected = NAMED_NOW[name]
    fn = _pair(**change)
    assert helpers.vgg_loses_points(fn)
    found = _findings(fn)
    assert {f.id for f in found} == expected, found


@pytest.mark.parametrize("change", [dict(h1_factor=0.5), dict(x_factor=0.5)], ids=["h1-halved", "x-halved"])
def test_a_factor_beside_a_missing_b1_is_not_pinned_on_the_features(change):
    """Before: 'the features are divided by 2 (x / 2)' for h1 * 0.5 beside a missing b1 too; the two are one
    function once b1 is left out."""
    found = _findings(_pair(biases=(False, True, True), **change))
    assert sorted(f.id for f in found) == ["missing-bias", "wrong-stage"], found
    text = next(f.evidence for f in found if f.id == "wrong-stage")
    assert "no input can tell" in text and "multiplied by 0.5" in text, text


def test_dropout_on_h1_beside_a_subtracted_b2_is_not_called_a_change_of_the_features():
    """Before: bias-sign-or-scale ('b1 halved' and 'b2 subtracted') and features-changed ('x / 2'): three changes
    for two, and two of them not in the code."""
    found = _findings(lambda f, W1, b1, W2, b2, W3, b3: _head(f, W1, b1, W2, -b2, W3, b3, h1_factor=0.5))
    ids = [f.id for f in found]
    assert "bias-sign-or-scale" in ids and "features-changed" not in ids, found
    text = next(f.evidence for f in found if f.id == "bias-sign-or-scale")
    assert "b2 subtracted" in text and "b1" not in text, found


ARGMAX_PAIRS = {
    "no-b1": lambda f, W1, b1, W2, b2, W3, b3: np.argmax(_head(f, W1, 0 * b1, W2, b2, W3, b3), axis=1),
    "no-relu1": lambda *p: np.argmax(_head(*p, act1=lambda z: z), axis=1),
    "one-hot-sigmoid": lambda *p: np.eye(p[5].shape[1])[np.argmax(_head(*p, act1=lambda z: 1 / (1 + np.exp(-z))),
                                                                  axis=1)],
}


@pytest.mark.parametrize("name", sorted(ARGMAX_PAIRS))
def test_class_indices_of_wrong_logits_are_still_called_class_predictions(name):
    """Before: wrong-dtype and wrong-shape (true, but the cause unnamed): class-predictions asked every index to be
    the right class, which a second mistake in the logits breaks for some samples."""
    found = _findings(ARGMAX_PAIRS[name])
    assert [f.id for f in found] == ["class-predictions"], found
    assert "the logits computed before the argmax are wrong too" in found[0].evidence, found


@pytest.mark.parametrize("fn", [
    lambda f, W1, b1, W2, b2, W3, b3: np.zeros(len(f), dtype=np.int64),
    lambda f, W1, b1, W2, b2, W3, b3: np.random.default_rng(len(f)).integers(0, W3.shape[1], len(f)),
], ids=["zeros", "random-indices"])
def test_whole_numbers_that_are_no_argmax_are_not_called_class_predictions(fn):
    assert "class-predictions" not in {f.id for f in _findings(fn)}


def _centred(change):
    def fn(f, W1, b1, W2, b2, W3, b3):
        x = f.reshape(len(f), -1)
        return _head((x - x.mean(axis=0)).reshape(f.shape), W1, b1, W2, b2, W3, b3, **change)
    return fn


CENTRED_PAIRS = {  # each got a wrong-stage finding alone before
    "no-b1": (dict(biases=(False, True, True)), "missing-bias"),
    "no-b3": (dict(biases=(True, True, False)), "missing-bias"),
    "no-relu1": (dict(act1=lambda z: z), "missing-relu"),
    "relu-before-b1": (dict(relu_first=True), "relu-before-bias"),
    "h1-halved": (dict(h1_factor=0.5), "inference-dropout"),
    "y-halved": (dict(out=lambda y: y / 2), "logits-changed"),
}


@pytest.mark.parametrize("name", sorted(CENTRED_PAIRS))
def test_features_centred_over_the_batch_are_named_beside_another_mistake(name):
    """x - x.mean(axis=0) alone is named by the flatten stage's reading, which needs every later stage right; beside
    a mistake of a later stage the report said only that a stage departs. Probe 'flatten-order' shows the centring
    (times the factor a ramp explains), and the search now models it."""
    change, other = CENTRED_PAIRS[name]
    found = _findings(_centred(change))
    assert {f.id for f in found} == {"features-changed", other}, found
    assert "x - x.mean(axis=0)" in next(f.evidence for f in found if f.id == "features-changed"), found


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


THROUGH = {  # each got a wrong-stage finding alone before
    "x2-sigmoid1": (lambda *p: _head(*p, x_factor=2.0, act1=_sigmoid), "multiplied by 2 (x * 2)"),
    "x2-tanh2": (lambda *p: _head(*p, x_factor=2.0, act2=np.tanh), "multiplied by 2 (x * 2)"),
    "centred-sigmoid1": (_centred(dict(act1=_sigmoid)), "x - x.mean(axis=0)"),
}


@pytest.mark.parametrize("name", sorted(THROUGH))
def test_a_change_of_the_features_is_read_through_a_sigmoid_or_tanh(name):
    """Probe 'flatten-order' returns the features after both activations: with a sigmoid or tanh there, the factor
    (or the centring) shows only once they are undone."""
    fn, words = THROUGH[name]
    found = _findings(fn)
    assert {f.id for f in found} == {"features-changed", "wrong-activation"}, found
    assert words in next(f.evidence for f in found if f.id == "features-changed"), found
