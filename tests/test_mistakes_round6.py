"""Wrong names of the VGG head found in the sixth round, by mutating a correct solution (each operator, constant,
axis, index, slice, dtype, order and activation, and pairs of them) and asking of each finding whether its claim is
true of the code. A wrong name misleads the student more than a generic finding does: each test says what the
report said before, and checks what it says now (diagnosed in process on the hidden cases and the probes, plus the
harness's generic half where it speaks too).
"""
from __future__ import annotations

import numpy as np
import pytest

import exercise_helpers as helpers
from grader import exercise as exercise_mod

_loses_points = helpers.vgg_loses_points
EX = exercise_mod.load("vgg_classifier")


def _cases():
    return EX.hidden_cases(7) + EX.diagnosis_module.probe_cases()


_findings = helpers.vgg_findings


def _relu(z):
    return np.maximum(z, 0.0)


def _head(f, W1, b1, W2, b2, W3, b3, features=lambda f: f, rows=lambda x: x, out=lambda y: y):
    x = rows(features(f).reshape(len(f), -1))
    return out(_relu(_relu(x @ W1 + b1) @ W2 + b2) @ W3 + b3)


CLIPS = {"symmetric-3": ((-3, 3), "np.clip(features, -3, 3)"), "upper-4": ((None, 4), "np.clip(features, None, 4)"),
         "symmetric-1": ((-1, 1), "np.clip(features, -1, 1)")}


@pytest.mark.parametrize("name", sorted(CLIPS))
def test_features_clipped_are_named_as_a_change_of_the_features_not_as_mixed_samples(name):
    """Before: samples-mixed, 'the logits of a sample depend on the rest of its batch' (np.clip(features, -3, 3)
    bites only on probe 'flatten-order', whose last sample reaches 4.5, and on the graded case with large features;
    every single-sample call stays inside the bounds). A clip treats each sample on its own."""
    (lo, hi), call = CLIPS[name]
    fn = lambda *p: _head(*p, features=lambda f: np.clip(f, lo, hi))  # noqa: E731
    assert _loses_points(fn)
    found = _findings(fn)
    assert [f.id for f in found] == ["features-changed"], found
    assert call in found[0].evidence and "probe 'flatten-order'" in found[0].evidence, found


def test_a_change_of_large_features_alone_is_not_called_mixing():
    """Before: samples-mixed. Features above 3 set to 0: only rows with values that no single-sample call reached
    are wrong, so nothing shows that a sample depends on its batch; the generic finding says what was seen."""
    fn = lambda *p: _head(*p, features=lambda f: np.where(np.abs(f) > 3, 0.0, f))  # noqa: E731
    assert _loses_points(fn)
    found = _findings(fn)
    assert [f.id for f in found] == ["wrong-stage"], found
    assert "more than any single sample's" in found[0].evidence and "sample 3" in found[0].evidence, found


def test_a_batch_norm_is_still_mixing_when_single_samples_are_right():
    """The guard above must not excuse a real mixing: a mean over the batch subtracted in FC1 is wrong on rows whose
    values stay small."""
    fn = lambda *p: _head(*p, rows=lambda x: x - x.mean(axis=0) if len(x) > 1 else x)  # noqa: E731
    assert _loses_points(fn)
    assert [f.id for f in _findings(fn)] == ["samples-mixed"]


MOVED = {
    "previous-sample": (lambda x: np.stack([x[i - 1] for i in range(len(x))]), "row 1 holds sample 3's"),
    "reversed-batch": (lambda x: x[::-1], "row 1 holds sample 3's, row 3 holds sample 1's"),
    "first-repeated": (lambda x: np.vstack([x[:1], x[:-1]]), "row 2 holds sample 1's, row 3 holds sample 2's"),
    "first-two-swapped": (lambda x: x[[1, 0, *range(2, len(x))]] if len(x) > 1 else x,
                          "row 1 holds sample 2's, row 2 holds sample 1's"),
}


@pytest.mark.parametrize("name", sorted(MOVED))
def test_rows_that_hold_another_sample_s_logits_are_samples_dropped(name):
    """Before: samples-mixed for features[i - 1] in a list comprehension, the batch reversed or rolled: true in a way
    (a sample's row depends on its place), but every row is a sample's own right logits, in the wrong row. The
    report now says which row holds which sample's."""
    move, words = MOVED[name]
    fn = lambda *p: _head(*p, rows=move)  # noqa: E731
    assert _loses_points(fn)
    found = _findings(fn)
    assert [f.id for f in found] == ["samples-dropped"], found
    assert words in found[0].evidence, found


FIXED = {
    "reshape-2": (lambda f, *p: _head(f.reshape(2, -1).reshape((2,) + f.shape[1:]), *p), 2),
    "loop-range-3": (lambda f, *p: _head(np.stack([f[i] for i in range(3)]), *p), 3),
}


@pytest.mark.parametrize("name", sorted(FIXED))
def test_a_batch_size_written_into_the_code_is_named_with_the_size(name):
    """Before: raises-error reading one error (or a generic wrong-shape), though every call with that batch size was
    right and every other one failed."""
    fn, size = FIXED[name]
    found = _findings(fn)
    assert [f.id for f in found] == ["hardcoded-shape"], found
    assert f"Every call with a batch of {size} samples" in found[0].evidence, found


LOGITS = {"rolled": (lambda y: np.roll(y, 1, axis=1), "np.roll(y, 1, axis=1)"),
          "running-sum": (lambda y: np.cumsum(y, axis=1), "np.cumsum(y, axis=1)"),
          "negated": (lambda y: -y, "negated (-y)")}


@pytest.mark.parametrize("name", sorted(LOGITS))
def test_logits_moved_summed_or_negated_after_fc3_are_named(name):
    """Before: np.roll and np.cumsum over the classes got no finding at all (no probe is right, so the generic
    finding stayed silent); -y got a bare wrong-stage on the logits ramp."""
    change, words = LOGITS[name]
    fn = lambda *p: _head(*p, out=change)  # noqa: E731
    assert _loses_points(fn)
    found = _findings(fn)
    assert [f.id for f in found] == ["logits-changed"], found
    assert words in found[0].evidence, found


SCALED_PAIRS = {
    "halved-without-b2": (lambda f, W1, b1, W2, b2, W3, b3: _head(f / 2, W1, b1, W2, 0 * b2, W3, b3), "b2 (FC2)"),
    "halved-without-b1": (lambda f, W1, b1, W2, b2, W3, b3: _head(f / 2, W1, 0 * b1, W2, b2, W3, b3), "b1 (FC1)"),
}


@pytest.mark.parametrize("name", sorted(SCALED_PAIRS))
def test_features_scaled_beside_a_missing_bias_are_not_called_a_scaled_bias_or_dropout(name):
    """Before: x / 2 with b2 left out was named missing-bias, 'FC1 adds 2 b1' and 'FC2's activations are multiplied
    by 0.5' (a ReLU passes a positive factor through, so that variant gives the same numbers), and with b1 left out
    'FC1's activations are multiplied by 0.5' with the ramp reading of the missing b1 as its evidence. Neither is in
    the code; the features scaled by the factor probe 'flatten-order' shows is."""
    fn, bias = SCALED_PAIRS[name]
    assert _loses_points(fn)
    found = _findings(fn)
    text = " ".join(f.evidence for f in found)
    if name == "halved-without-b1":
        # round 7: with b1 left out, x / 2 and FC1's activations halved are one function, and h1 * 0.5 beside a
        # missing b1 was then told 'the features are divided by 2': the report now says it cannot tell them apart
        assert sorted(f.id for f in found) == ["missing-bias", "wrong-stage"], found
        assert "the features (or W1) multiplied by 0.5" in text and bias in text, found
        return
    assert sorted(f.id for f in found) == ["features-changed", "missing-bias"], found
    assert "divided by 2 (x / 2)" in text and bias in text, found
    assert "dropout" not in text and "2 b1" not in text, found


def test_the_inverted_relu_mask_in_fc1_is_named_as_in_fc2():
    """Before: np.minimum(z1, 0) got a bare wrong-stage (the ramp fit knew no min(z, 0)), while the same mistake in
    FC2 was named wrong-activation."""
    def fn(f, W1, b1, W2, b2, W3, b3):
        h1 = np.minimum(f.reshape(len(f), -1) @ W1 + b1, 0.0)
        return _relu(h1 @ W2 + b2) @ W3 + b3
    assert _loses_points(fn)
    found = _findings(fn)
    assert [f.id for f in found] == ["wrong-activation"], found
    assert "FC1 uses min(z, 0)" in found[0].evidence, found


def test_a_ramp_reading_says_which_later_products_it_passes_through():
    """W3 with its rows reversed departs only on probe 'act2-ramp' (W3 the identity there): the report blamed the
    second activation alone. It still names the first stage found to depart, and now says that the reading passes
    through FC3's product too."""
    fn = lambda f, W1, b1, W2, b2, W3, b3: _head(f, W1, b1, W2, b2, W3[::-1], b3)  # noqa: E731
    assert _loses_points(fn)
    found = _findings(fn)
    assert [f.id for f in found] == ["wrong-stage"], found
    assert "a mistake in the product by W3 shows here too" in found[0].evidence, found


def test_a_relu_on_b3_alone_is_not_called_a_relu_on_the_logits():
    """Before: relu-after-fc3, 'A ReLU is applied to the logits after FC3' (np.maximum(b3, 0) gives a ReLU of the
    ramp on probe 'logits-ramp', where the logits are b3), though other probes return negative logits, which no ReLU
    on the logits could."""
    fn = lambda f, W1, b1, W2, b2, W3, b3: _head(f, W1, b1, W2, b2, W3, _relu(b3))  # noqa: E731
    assert _loses_points(fn)
    found = _findings(fn)
    assert [f.id for f in found] == ["wrong-stage"], found
    assert "how b3 is added" in found[0].evidence, found


def test_logits_times_a_factor_are_named_with_it():
    """Before: wrong-stage, 'your logits are -24, -6, ...' (only 2 * y and y / 2 were modelled)."""
    fn = lambda *p: _head(*p, out=lambda y: 3 * y)  # noqa: E731
    found = _findings(fn)
    assert [f.id for f in found] == ["logits-changed"], found
    assert "multiplied by 3 (3 * y)" in found[0].evidence, found


@pytest.mark.parametrize("change", [lambda y: np.roll(y, 1, axis=1) / 2, lambda y: np.log(np.abs(y))],
                         ids=["rolled-and-halved", "log-of-abs"])
def test_logits_that_no_variant_explains_and_no_call_gets_right_still_get_a_finding(change):
    """Before: an empty report beside the failed value checks (no call was right, so the generic finding stayed
    silent, and the logits ramp alone was taken for noise). The finding says what probe 'logits-ramp' showed and
    that nothing catalogued reproduces the outputs."""
    fn = lambda *p: _head(*p, out=change)  # noqa: E731
    assert _loses_points(fn)
    found = _findings(fn)
    assert [f.id for f in found] == ["wrong-stage"], found
    assert "no catalogued mistake reproduces them" in found[0].evidence and "'logits-ramp'" in found[0].evidence


def test_numbers_drawn_at_a_fixed_seed_are_not_pointed_at_a_stage():
    """The same numbers for every probe of one shape: no stage computed them, so the generic finding above must not
    send the student to b3 or to what follows FC3. (``test_diagnosis_vgg`` wants no exercise finding here at all.)"""
    fn = lambda f, *p: np.random.default_rng(0).standard_normal((len(f), p[-1].shape[0]))  # noqa: E731
    assert "wrong-stage" not in {f.id for f in _findings(fn)}


def test_the_flatten_line_of_the_trace_shows_a_sample_that_changed():
    """Before: the trace's flatten line showed sample 1 ('gives 0.125, 0.25, ... where its flattened features are
    0.125, 0.25, ...'), unchanged, as the departure: the sample shown was the one with the fewest zeros, changed or
    not. With features above 3 set to 0, only sample 3 of probe 'flatten-order' changes."""
    fn = lambda *p: _head(*p, features=lambda f: np.where(np.abs(f) > 3, 0.0, f))  # noqa: E731
    runs = helpers.case_runs(EX, fn, _cases())
    lines = EX.diagnosis_module.stage_trace(runs)
    flatten = next(line for line in lines if line.strip().startswith("flatten:"))
    assert "sample 3 gives 0, 0, 0" in flatten, lines


def test_a_factor_on_h2_beside_a_missing_b3_shows_true_evidence_and_says_the_two_are_the_same():
    """Before: 'After FC3 the logits are divided by 2', shown with probe 'logits-ramp' turning b3 into 0, 0, 0 (that
    is the missing b3, not a factor). Without b3, 0.5 * h2 @ W3 and (h2 @ W3) / 2 are the same numbers: the finding
    says so, and its example is an output the factor does explain."""
    def fn(f, W1, b1, W2, b2, W3, b3):
        h2 = _relu(_relu(f.reshape(len(f), -1) @ W1 + b1) @ W2 + b2) * 0.5
        return h2 @ W3
    found = _findings(fn)
    # round 7: naming the factor a change after FC3 was a guess (the code scales h2); it is named for what is sure
    assert sorted(f.id for f in found) == ["missing-bias", "wrong-stage"], found
    text = next(f.evidence for f in found if f.id == "wrong-stage")
    assert "FC2's activations (or W3) multiplied by 0.5" in text and "into 0, 0, 0" not in text, found


@pytest.mark.parametrize("other", ["b1-subtracted", "relu6-in-fc2"])
def test_features_halved_beside_another_mistake_are_both_named(other):
    """Before: a bare wrong-stage (no variant without the scale explained the probes, and the stages stop at the
    first one that departs)."""
    def fn(f, W1, b1, W2, b2, W3, b3):
        z1 = f.reshape(len(f), -1) / 2 @ W1 + (-b1 if other == "b1-subtracted" else b1)
        z2 = _relu(z1) @ W2 + b2
        return (np.clip(z2, 0, 6) if other == "relu6-in-fc2" else _relu(z2)) @ W3 + b3
    found = _findings(fn)
    assert "features-changed" in {f.id for f in found}, found
    assert {f.id for f in found} - {"features-changed"} == {"bias-sign-or-scale" if other == "b1-subtracted"
                                                             else "wrong-activation"}, found


def test_an_inverted_relu_mask_under_rolled_logits_gets_a_finding():
    """Before: no finding at all: zeros on two different probes (min(z, 0) on positive values) were taken for an
    output that ignores its inputs."""
    def fn(f, W1, b1, W2, b2, W3, b3):
        h1 = np.minimum(f.reshape(len(f), -1) @ W1 + b1, 0.0)
        return np.roll(_relu(h1 @ W2 + b2) @ W3 + b3, 1, axis=1)
    assert [f.id for f in _findings(fn)] == ["wrong-stage"]


@pytest.mark.parametrize("other", ["b3-left-out", "b1-subtracted"])
def test_features_clipped_beside_another_mistake_are_both_named(other):
    """Before: a bare wrong-stage (the search had no clip of the features, and ``ranges`` reads the clip alone)."""
    def fn(f, W1, b1, W2, b2, W3, b3):
        z1 = np.clip(f, -3, 3).reshape(len(f), -1) @ W1 + (-b1 if other == "b1-subtracted" else b1)
        return _relu(_relu(z1) @ W2 + b2) @ W3 + (0 * b3 if other == "b3-left-out" else b3)
    found = _findings(fn)
    assert {f.id for f in found} == {"features-changed", "missing-bias" if other == "b3-left-out"
                                     else "bias-sign-or-scale"}, found
    assert "np.clip(features, -3, 3)" in " ".join(f.evidence for f in found), found


@pytest.mark.parametrize("change,words", [(lambda y: np.sort(y, axis=1), "np.sort(y, axis=1)"),
                                          (lambda y: -np.sort(-y, axis=1), "-np.sort(-y, axis=1)"),
                                          (lambda y: y[:, ::-1], "reverse class order")],
                         ids=["sorted", "sorted-largest-first", "reversed"])
def test_logits_reordered_within_each_sample_are_named_after_fc3(change, words):
    """Before: np.sort(y, axis=1) was 'FC3 (h2 W3 + b3), or a stage before it ..., departs' (the logits ramp is
    sorted already, so what follows FC3 looked as stated), and largest first was a bare wrong-stage."""
    fn = lambda *p: _head(*p, out=change)  # noqa: E731
    found = _findings(fn)
    assert [f.id for f in found] == ["logits-changed"], found
    assert words in found[0].evidence, found


def test_the_last_hidden_unit_left_at_zero_is_not_called_dropout():
    """Before: inference-dropout, '5 of the 6 positive values come out unchanged ..., as a dropout mask does' (the
    act1 ramp's largest value sits at the last unit). The same unit is 0 at every size, which no dropout mask does."""
    def fn(f, W1, b1, W2, b2, W3, b3):
        h1 = _relu(f.reshape(len(f), -1) @ W1 + b1)
        h1[:, -1] = 0.0
        return _relu(h1 @ W2 + b2) @ W3 + b3
    found = _findings(fn)
    assert [f.id for f in found] == ["wrong-stage"], found
    assert "In FC1 the last unit's activation is 0 on every call" in found[0].evidence, found


@pytest.mark.parametrize("other", ["b1-left-out", "tanh-in-fc1", "softmax-on-the-logits"])
def test_rows_moved_beside_another_mistake_are_both_named(other):
    """Before: a bare wrong-stage (no variant moved the samples between rows, and the rows' own reading needs every
    row to be some sample's right logits)."""
    def fn(f, W1, b1, W2, b2, W3, b3):
        x = np.stack([f[i - 1].ravel() for i in range(len(f))])
        z1 = x @ W1 + (0 * b1 if other == "b1-left-out" else b1)
        y = _relu((np.tanh(z1) if other == "tanh-in-fc1" else _relu(z1)) @ W2 + b2) @ W3 + b3
        return np.exp(y) / np.exp(y).sum(1, keepdims=True) if other == "softmax-on-the-logits" else y
    found = _findings(fn)
    named = {"b1-left-out": "missing-bias", "tanh-in-fc1": "wrong-activation", "softmax-on-the-logits": "softmax-output"}
    assert {f.id for f in found} == {"samples-dropped", named[other]}, found
    assert "features[i - 1]" in next(f.evidence for f in found if f.id == "samples-dropped"), found


def test_class_ranks_returned_as_floats_are_not_said_to_be_the_logits_rounded():
    """np.argsort of the logits, as floats: whole numbers, but not the logits rounded; the harness said 'the outputs
    are rounded to 0 decimals'. It now says only what it sees."""
    def ranks(f, W1, b1, W2, b2, W3, b3):
        return np.argsort(_head(f, W1, b1, W2, b2, W3, b3), axis=1).astype(np.float64)

    found = {d.id: d.evidence for d in _findings(ranks)}
    assert _loses_points(ranks)
    rounded = found.get("rounded-output", "")
    assert "rounded to 0 decimals" not in rounded and "rounding accounts" not in rounded, found
    if rounded:
        assert "multiple of 1" in rounded and "further from them than rounding" in rounded, rounded


def test_logits_rounded_to_two_decimals_are_still_said_to_be_rounded():
    def rounded(f, W1, b1, W2, b2, W3, b3):
        return np.round(_head(f, W1, b1, W2, b2, W3, b3), 2)

    found = {d.id: d.evidence for d in _findings(rounded)}
    assert "rounded to 2 decimals" in found.get("rounded-output", ""), found
