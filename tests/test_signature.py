"""A function declared with a signature other than the exercise's is named for what it is.

The grader calls the function by position, as the statement defines it. The child reads the function's declared
parameters and the parent compares them with the exercise's: parameters declared in another order are named
``parameters-reordered`` with both orders shown, a call Python refused shows the declared signature against the
expected one, and what the signature says never costs or earns a point by itself. A ``__signature__`` is the
student's code: one that raises, loops, claims a million parameters or names them with control characters changes
nothing but its own text, shown escaped. Each submission is graded end to end through the sandbox.
"""
from __future__ import annotations

import time

import pytest

from conftest import diagnosis_ids
from grader import report

FULL_HEAD = '''
    x = features.reshape(features.shape[0], -1)
    h1 = np.maximum(x @ W1 + b1, 0.0)
    h2 = np.maximum(h1 @ W2 + b2, 0.0)
    return h2 @ W3 + b3
'''


def _source(parameters: str, body: str = FULL_HEAD, before: str = "") -> str:
    return f"import numpy as np\n{before}\n\ndef vgg_classifier({parameters}):{body}"


def _by_meaning(parameters: str, meaning: str) -> str:
    """A correct head that uses each declared parameter for what ``meaning`` (the statement's names, in the declared
    order) says it is: a student who mixed up the order, or one who renamed the parameters."""
    return (f"\n    a = dict(zip({meaning.split()!r}, ({parameters},)))"
            "\n    x = a['features'].reshape(a['features'].shape[0], -1)"
            "\n    h1 = np.maximum(x @ a['W1'] + a['b1'], 0.0)"
            "\n    h2 = np.maximum(h1 @ a['W2'] + a['b2'], 0.0)"
            "\n    return h2 @ a['W3'] + a['b3']\n")


def _evidence(result, finding: str) -> str:
    return " ".join(d.evidence for d in result.diagnoses if d.id == finding)


def _control_free(result) -> None:
    """No control or direction character of the student's reaches what the instructor and the student read."""
    for text in (result.to_json(), report.render_markdown(result), report.render_html(result)):
        assert not any(c in text for c in "\x1b\x07\x00\x9b\u202e"), text[:300]


# -- parameters in another order ------------------------------------------------------------------------------
STATEMENT = ("features", "W1", "b1", "W2", "b2", "W3", "b3")


@pytest.mark.parametrize("parameters,meaning,pairs", [
    ("features, W1, W2, W3, b1, b2, b3", "features W1 W2 W3 b1 b2 b3",
     ["W2 receives b1", "W3 receives W2", "b1 receives b2", "b2 receives W3"]),
    ("features, weights_1, weights_2, weights_3, bias_1, bias_2, bias_3", "features W1 W2 W3 b1 b2 b3",
     ["weights_2 receives b1"]),
    ("features, w1, w2, w3, b1, b2, b3", "features W1 W2 W3 b1 b2 b3", ["w2 receives b1"]),
    ("x, W1, W2, W3, b1, b2, b3", "features W1 W2 W3 b1 b2 b3", ["W2 receives b1"]),  # one renamed, in place
    ("features, b1, W1, b2, W2, b3, W3", "features b1 W1 b2 W2 b3 W3", ["b1 receives W1", "W1 receives b1"]),
], ids=["weights-first", "long-names", "lowercase", "x-in-place", "bias-first"])
def test_parameters_declared_in_another_order_are_named_with_both_orders(grade_source, parameters, meaning, pairs):
    """Each declared parameter is used for what its name says, as a student who mixed up the order would."""
    body = _by_meaning(parameters, meaning)
    result = grade_source(_source(parameters, body))
    assert result.score < result.max_score
    assert "parameters-reordered" in diagnosis_ids(result), result.diagnoses
    assert not {"missing-layer", "raises-error", "bias-misplaced"} & diagnosis_ids(result), result.diagnoses
    text = _evidence(result, "parameters-reordered")
    assert f"vgg_classifier({parameters})" in text, text
    assert f"vgg_classifier({', '.join(STATEMENT)})" in text, text
    for pair in pairs:
        assert pair in text, text


def test_a_reordered_declaration_that_computes_the_right_logits_keeps_full_marks(grade_source):
    """The names are only a claim: a function whose parameters are in another order but which uses each position
    for what the grader passes there is right, and nothing is said about its names."""
    body = '''
    x = features.reshape(features.shape[0], -1)
    h1 = np.maximum(x @ W1 + W2, 0.0)   # W2 holds b1, as the grader passes it
    h2 = np.maximum(h1 @ W3 + b1, 0.0)
    return h2 @ b2 + b3
'''
    result = grade_source(_source("features, W1, W2, W3, b1, b2, b3", body))
    assert result.score == result.max_score and result.diagnoses == (), result.diagnoses


@pytest.mark.parametrize("parameters", [
    "x, w1, bias1, w2, bias2, w3, bias3",
    "features, W1, b1, W2, b2, W3, b3=np.zeros(1000)",
    "features, W1, b1, W2, b2, W3, b3, *, training=False",
    "features, W1, b1, W2, b2, W3, b3, /",
    "features, W1, b1, W2, b2, W3, b3, **options",
], ids=["renamed-in-order", "default-shadows", "keyword-only-default", "positional-only", "var-keyword"])
def test_signatures_that_take_the_seven_arguments_in_order_keep_full_marks(grade_source, parameters):
    renamed = parameters.startswith("x,")
    result = grade_source(_source(parameters, _by_meaning(parameters, " ".join(STATEMENT)) if renamed else FULL_HEAD))
    assert result.score == result.max_score, [(c.id, c.message) for c in result.checks if c.status != "passed"]
    assert result.diagnoses == ()


# -- a call Python refused --------------------------------------------------------------------------------------
@pytest.mark.parametrize("parameters,shown", [
    ("x, weights, biases", "vgg_classifier(x, weights, biases)"),
    ("features, params", "vgg_classifier(features, params)"),
    ("self, features, W1, b1, W2, b2, W3, b3", "vgg_classifier(self, features, W1, b1, W2, b2, W3, b3)"),
    ("features, W1, b1, W2, b2, W3, b3, training", "vgg_classifier(features, W1, b1, W2, b2, W3, b3, training)"),
    ("features, *, W1, b1, W2, b2, W3, b3", "vgg_classifier(features, *, W1, b1, W2, b2, W3, b3)"),
], ids=["lists", "params", "self", "extra-required", "keyword-only"])
def test_a_refused_call_shows_the_declared_signature_against_the_expected_one(grade_source, parameters, shown):
    result = grade_source(_source(parameters, "\n    return None\n"))
    assert diagnosis_ids(result) == {"wrong-signature"}, result.diagnoses
    text = _evidence(result, "wrong-signature")
    assert f"declared as {shown}" in text, text
    assert "vgg_classifier(features, W1, b1, W2, b2, W3, b3) with these 7 arguments by position" in text, text
    assert "TypeError" in text and text.count(". ") == 0 and text.endswith(")."), text  # one sentence
    assert ("'self' is the first parameter of a method" in text) == parameters.startswith("self")


# -- hostile signatures -------------------------------------------------------------------------------------------
CALLABLE = '''
import inspect
import numpy as np


def head(features, W1, b1, W2, b2, W3, b3):{head}


class Head:
    {signature}

    def __call__(self, *args):
        return head(*args){refuse}


vgg_classifier = Head()
'''


def _hostile(signature: str, refuse: bool = False) -> str:
    # ``refuse``: the call itself takes two arguments, so Python refuses it and the signature is shown
    return CALLABLE.format(head=FULL_HEAD, signature=signature,
                           refuse="\n\n    __call__ = lambda self, a, b: None" if refuse else "")


@pytest.mark.parametrize("signature", [
    "__signature__ = property(lambda self: 1 / 0)",
    "@property\n    def __signature__(self):\n        while True:\n            pass",
    "__signature__ = property(lambda self: 'not a signature')",
    "@property\n    def __signature__(self):\n        raise SystemExit(3)",
], ids=["raises", "loops", "not-a-signature", "system-exit"])
def test_a_signature_that_raises_or_loops_changes_nothing(grade_source, signature):
    started = time.monotonic()
    result = grade_source(_hostile(signature))
    assert result.status == "graded", result.error
    assert result.score == result.max_score and result.diagnoses == (), result.diagnoses
    assert time.monotonic() - started < 10  # the loop costs the child's 2 s alarm, not the parent's deadline


def test_a_signature_of_a_million_parameters_is_shown_cut_short(grade_source):
    signature = ("__signature__ = inspect.Signature([inspect.Parameter(f'p{i}', "
                 "inspect.Parameter.POSITIONAL_OR_KEYWORD) for i in range(10**6)])")
    started = time.monotonic()
    result = grade_source(_hostile(signature, refuse=True))
    assert time.monotonic() - started < 40
    text = _evidence(result, "wrong-signature")
    assert "vgg_classifier(p0, p1, p2" in text and "p11, ... 999,988 more)" in text, text
    assert len(text) < 1000, len(text)


def test_parameter_names_with_control_characters_are_shown_escaped(grade_source, tmp_path):
    """Names a real ``def`` cannot have (an escape sequence, a bell, a line break, a right-to-left override) reach
    no file raw: they are written as escapes where the signature is shown."""
    signature = '''@property
    def __signature__(self):
        names = ["\\x1b[2J\\x1b[31mred", "bell\\x07", "two\\nlines", "\\u202eright-to-left", "x" * 5000]
        made = []
        for name in names:
            parameter = inspect.Parameter("p", inspect.Parameter.POSITIONAL_OR_KEYWORD)
            parameter._name = name
            made.append(parameter)
        return inspect.Signature(made, __validate_parameters__=False)'''
    result = grade_source(_hostile(signature, refuse=True))
    text = _evidence(result, "wrong-signature")
    assert "\\x1b[2J\\x1b[31mred" in text and "bell\\x07" in text and "two\\nlines" in text, text
    assert "\\u202eright-to-left" in text, text
    assert not any(c in text for c in "\x1b\x07\n\u202e"), text
    assert len(text) < 1200, len(text)
    _control_free(result)


def test_names_are_read_as_loosely_as_the_exercises_own_names_allow():
    """``weights_2`` is W2 for the VGG head; where an exercise has both ``weight`` and ``W`` (to_channels_last), the
    spellings would make them one name, so names are compared by case and underscores only."""
    from grader.diagnose import _reordered
    from grader.outcomes import Declared, Parameter

    def declared(*names):
        return Declared(tuple(Parameter(n, "positional") for n in names), len(names))

    assert _reordered(declared("features", "weights_1", "Bias1", "W2", "b2", "W3", "b3"), STATEMENT) == []
    assert _reordered(declared("weight", "H", "W", "C"), ("weight", "C", "H", "W")) == [
        ("H", "C"), ("W", "H"), ("C", "W")]
    assert _reordered(declared("x", "y", "W1", "b1", "W2", "b2", "W3"), STATEMENT) == []  # two renamed
    assert _reordered(declared("features", "W1", "W1", "W2", "b2", "W3", "b3"), STATEMENT) == []
    starred = Declared((Parameter("features", "positional"), Parameter("W1", "var-positional")), 7)
    assert _reordered(starred, STATEMENT) == []


# -- a name bound to another function ---------------------------------------------------------------------------
def test_a_name_bound_to_another_function_names_that_function(grade_source):
    """``vgg_classifier = dense_scores``: the signature shown is dense_scores', and the sentence says whose it is."""
    source = "import numpy as np\n\ndef dense_scores(fmap, weight, bias, k):\n    return None\n\n" \
             "vgg_classifier = dense_scores\n"
    text = _evidence(grade_source(source), "wrong-signature")
    assert "'vgg_classifier' is bound to a function named 'dense_scores', declared as " \
           "dense_scores(fmap, weight, bias, k)" in text, text
    assert "vgg_classifier(features, W1, b1, W2, b2, W3, b3) with these 7 arguments by position" in text, text


@pytest.mark.parametrize("own", ["<lambda>", "\x1b[31mred", "vgg_classifier"], ids=["lambda", "escape", "same"])
def test_a_function_name_that_is_no_plain_other_identifier_is_not_shown(grade_source, own):
    source = f"import numpy as np\n\ndef f(x, weights, biases):\n    return None\n\nf.__name__ = {own!r}\n" \
             "vgg_classifier = f\n"
    result = grade_source(source)
    text = _evidence(result, "wrong-signature")
    assert "declared as vgg_classifier(x, weights, biases)" in text and "bound to" not in text, text
    _control_free(result)


@pytest.mark.parametrize("own,why", [(["f"], "'own_name' is not text"),
                                     ("f" * 101, "own name is longer than the protocol allows")])
def test_a_forged_function_name_is_a_protocol_error(own, why):
    from grader import answers
    from grader.channel import ProtocolError

    with pytest.raises(ProtocolError, match=why):
        answers.declared({"count": 0, "parameters": [], "own_name": own})
