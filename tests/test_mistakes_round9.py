"""What a ninth blind class (helper-87's, in /tmp/h87/class: 75 wrong VGG heads written with students' PyTorch and
Keras habits, .py files and notebooks) showed the reports getting wrong; each test says what the report said before.
The rest of that class (NCHW and order='F' flattens, x @ W.T, softmax and log-softmax at the end, ReLU on the
logits, clip, leaky, abs, normalisations, dropout scaled, unscaled, seeded and folded into the weights in place,
(x + b) W, swapped biases and weights, global average and max pooling, first sample only, features.flatten(),
reshape(-1, B).T, off-by-one loops, astype(int), float32, in-place changes of the inputs, a cache keyed on the
shapes, globals from another cell, (K, B) results, pairs of these) was named right already.

Diagnosed in process (hidden cases of one student and the probes, both halves of the diagnosis, after superseding),
except the sentence for a function that prints, which needs what the child reads of the function's code.
"""
from __future__ import annotations

import numpy as np
import pytest

import exercise_helpers as helpers
from grader import checks
from grader.facts import establish
from grader.grade import grade_file
from grader.outcomes import Declared, Execution

_findings = helpers.vgg_findings


def _relu(z):
    return np.maximum(z, 0.0)


def _flat(f):
    return f.reshape(len(f), -1)


# -- a mean where the product sums ----------------------------------------------------------------------------------
def _fc1_mean(f, W1, b1, W2, b2, W3, b3):
    h1 = _relu(np.mean(_flat(f)[:, :, None] * W1, axis=1) + b1)
    return _relu(h1 @ W2 + b2) @ W3 + b3


def _fc2_mean(f, W1, b1, W2, b2, W3, b3):
    h1 = _relu(_flat(f) @ W1 + b1)
    return _relu((h1[:, :, None] * W2[None]).mean(axis=1) + b2) @ W3 + b3


def _fc2_einsum_over_rows(f, W1, b1, W2, b2, W3, b3):
    h1 = _relu(_flat(f) @ W1 + b1)
    return _relu(np.einsum("bi,io->bo", h1, W2) / W2.shape[0] + b2) @ W3 + b3


def _fc3_sum_over_len(f, W1, b1, W2, b2, W3, b3):
    h2 = _relu(_relu(_flat(f) @ W1 + b1) @ W2 + b2)
    return np.sum(h2[:, :, None] * W3, axis=1) / len(W3) + b3


MEANS = {  # what the report said before
    "fc1": (_fc1_mean, "FC1"),  # features-changed, "each is the feature divided by 12"
    "fc2": (_fc2_mean, "FC2"),  # a bare wrong-stage pointed at the first activation
    "fc2-einsum": (_fc2_einsum_over_rows, "FC2"),  # the same
    "fc3": (_fc3_sum_over_len, "FC3"),  # named in no way that says a mean
}


@pytest.mark.parametrize("name", sorted(MEANS))
def test_a_mean_in_place_of_the_product_s_sum_is_named_with_its_layer(name):
    fn, layer = MEANS[name]
    assert helpers.vgg_loses_points(fn)
    found = _findings(fn)
    assert [f.id for f in found] == ["mean-not-sum"], found
    assert found[0].evidence.startswith(f"{layer} averages the products of its inputs"), found


def test_a_mean_in_fc2_beside_a_softmax_names_both():
    def fn(*p):
        z = _fc2_mean(*p)
        e = np.exp(z - z.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)
    assert {f.id for f in _findings(fn)} == {"mean-not-sum", "softmax-output"}


def test_a_fan_in_scaling_of_fc1_stays_a_change_of_the_features():
    """(x @ W1) / sqrt(d_in) is no mean: the catalogued variant keeps its name."""
    def fn(f, W1, b1, W2, b2, W3, b3):
        h1 = _relu(_flat(f) @ W1 / np.sqrt(W1.shape[0]) + b1)
        return _relu(h1 @ W2 + b2) @ W3 + b3
    assert [f.id for f in _findings(fn)] == ["features-changed"]


# -- a batch loop that writes every sample into row 0 -----------------------------------------------------------------
def test_a_loop_that_overwrites_one_row_is_samples_dropped_and_says_which_row_holds_what():
    """Before: samples-mixed ('the logits of a sample depend on the rest of its batch'), which sends the student
    looking for a mean over the batch; the loop wrote out[0] where it meant out[i]."""
    def fn(f, W1, b1, W2, b2, W3, b3):
        out = np.zeros((len(f), W3.shape[1]))
        for i in range(len(f)):
            out[0] = _relu(_relu(f[i].reshape(-1) @ W1 + b1) @ W2 + b2) @ W3 + b3
        return out
    found = _findings(fn)
    assert [f.id for f in found] == ["samples-dropped"], found
    assert "row 1 holds sample 3's logits and rows 2, 3 hold only zeros" in found[0].evidence, found


# -- a cache keyed on the shapes --------------------------------------------------------------------------------------
def test_a_cache_keyed_on_shapes_is_stale_result_alone():
    """Before: stale-result and, beside it, a wrong-stage saying 'no catalogued mistake reproduces them' about the
    very case the stale answer was given on."""
    cache: dict = {}

    def fn(f, W1, b1, W2, b2, W3, b3):
        key = (f.shape, W1.shape, W2.shape, W3.shape)
        if key not in cache:
            cache[key] = _relu(_relu(_flat(f) @ W1 + b1) @ W2 + b2) @ W3 + b3
        return cache[key]
    assert [f.id for f in _findings(fn)] == ["stale-result"]


# -- what a tuple or a list holds -------------------------------------------------------------------------------------
def _right(f, W1, b1, W2, b2, W3, b3):
    return _relu(_relu(_flat(f) @ W1 + b1) @ W2 + b2) @ W3 + b3


def test_logits_returned_with_probabilities_say_the_first_item_is_the_answer():
    """Before: 'It returned a tuple instead of a numpy.ndarray.' and nothing about what the tuple held."""
    def fn(*p):
        y = _right(*p)
        e = np.exp(y - y.max(axis=1, keepdims=True))
        return y, e / e.sum(axis=1, keepdims=True)
    found = {f.id: f.evidence for f in _findings(fn)}
    assert "Its first item is the expected result, followed by 1 more value" in found["not-an-array"], found


def test_a_list_of_right_rows_says_only_the_container_is_wrong():
    found = {f.id: f.evidence for f in _findings(lambda *p: list(_right(*p)))}
    assert "Its values are the right ones: only the container is wrong, a list" in found["not-an-array"], found


# -- a function that prints its logits and returns nothing ------------------------------------------------------------
PRINTS = """import numpy as np

def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(np.maximum(x @ W1 + b1, 0) @ W2 + b2, 0)
    print(h @ W3 + b3)
"""


def test_a_function_that_prints_instead_of_returning_is_told_so(session, tmp_path):
    """Before: 'The function returned None on every case.' and 'it has no return statement (or still ends in the
    starter's pass)', to a student who saw the right logits printed on the screen. Graded for real: the child reads
    that the body calls print from the function's code."""
    path = tmp_path / "prints.py"
    path.write_text(PRINTS)
    result = grade_file(path, session)
    assert [(d.id, "Its body calls print, but what it returns is None" in d.evidence) for d in result.diagnoses] \
        == [("not-implemented", True)], result.diagnoses
    messages = {c.id: c.message for c in result.checks}
    assert "its body calls print" in messages["returns"], messages
    assert "calls print" in messages["completes"], messages


def test_a_function_without_print_keeps_the_starter_sentence():
    ex = helpers.exercise_mod.load("vgg_classifier")
    runs = helpers.case_runs(ex, lambda *p: None, ex.hidden_cases(7))
    execution = Execution(function_found=True, function_callable=True, declared=Declared(parameters=(), count=7),
                          calls=tuple(r.outcome for r in runs))
    assert "still ends in the starter's 'pass'" in checks.check_returns(runs, execution, establish(
        runs, execution, ex)).message
    found = _findings(lambda *p: None, declared=Declared(parameters=(), count=7))
    assert [f.evidence for f in found] == ["The function returned None on every case."]


FAKE_CODE = """class Code:
    co_names = ("print",)

class Head:
    __code__ = Code()

    def __call__(self, features, W1, b1, W2, b2, W3, b3):
        return None

vgg_classifier = Head()
"""


def test_a_code_object_the_student_made_up_does_not_claim_a_print(grade_source):
    """'prints' is read only from a real code object: a callable whose __code__ says print is taken at its call."""
    result = grade_source(FAKE_CODE)
    assert [d.evidence for d in result.diagnoses if d.id == "not-implemented"] \
        == ["The function returned None on every case."], result.diagnoses


def test_a_forged_prints_field_is_a_protocol_error():
    from grader import answers
    from grader.channel import ProtocolError

    with pytest.raises(ProtocolError, match="'prints' is not true or false"):
        answers.declared({"count": 0, "parameters": [], "own_name": "", "prints": "yes"})
