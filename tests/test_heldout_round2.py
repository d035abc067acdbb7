"""What a second blind held-out class (helper-71's, in /tmp/helper-71/class: 35 executed notebooks, 33 .py files
with mistakes, 15 correct solutions in unusual styles) showed the reports getting wrong; each test failed before
its fix.

- Dropout left on: the evidence counted over the whole 12-value ramp ("1 of the 6 positive values come out
  multiplied by 2") but listed only six of its values, all of them 0, so the sentence contradicted the numbers it
  showed. It now lists every value it counts over.
- A right function whose notebook set ``np = None`` in a later cell (tidying the namespace) failed every call with
  "'NoneType' object has no attribute 'maximum'"; the report named ``helper-result`` and told the student a helper
  had no return statement, though it had no helper. An attribute that only the NumPy module has (not an array) read
  on None now says the name of the module was rebound after the definition.
- A notebook whose solution cell was right, with a second attempt below it (channels first), was graded on the
  second one, as Jupyter would, but nothing said which definition was graded: the student saw 'flatten-order' and a
  right solution cell. A note now names both cells and says the last one is graded.
- A function with its whole body written but no ``return`` lost 'completes' with "the function is not written yet",
  which the student had plainly written; the sentence now names the missing return statement as well.
- ReLU as ``np.vectorize(lambda v: max(v, 0))`` (Python's max gives the int 0 for a negative value, and vectorize
  takes its dtype from its first result) truncates the hidden values to whole numbers wherever a layer's first value
  is negative: the report said only 'wrong-stage'. It is now 'rounded-output', naming np.vectorize.
"""
from __future__ import annotations

import re

import numpy as np

import exercise_helpers as helpers
from conftest import CORRECT, check, diagnosis_ids
from grader.exercise import load

EX = load("vgg_classifier")
D = EX.diagnosis_module
CASES = EX.hidden_cases(11) + D.probe_cases()
EXPECTED = [EX.expected(c) for c in CASES]


def _relu(z):
    return np.maximum(z, 0.0)


def _dropout_keeping_unit_8(f, W1, b1, W2, b2, W3, b3):
    """Inverted dropout with a mask that, on a 12-wide layer, keeps only unit 8: on the ramp probes that unit holds
    the value 1, which is not among the handful of values a ramp sentence usually shows."""
    def drop(z):
        keep = (np.arange(z.shape[1]) % 12) == 8
        return _relu(z) * keep * 2.0
    x = f.reshape(f.shape[0], -1)
    h = drop(x @ W1 + b1)
    h = drop(h @ W2 + b2)
    return h @ W3 + b3


def _numbers(text: str) -> list[float]:
    return [float(t) for t in re.findall(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", text)]


def test_dropout_evidence_shows_every_value_it_counts():
    findings = D.diagnose(helpers.case_runs(EX, _dropout_keeping_unit_8, CASES, EXPECTED), EX)
    text = " ".join(f.evidence for f in findings if f.id == "inference-dropout")
    assert text, [(f.id, f.evidence) for f in findings]
    assert "1 of the 6 positive values comes out multiplied by 2" in text, text
    # the value that was kept (1, doubled to 2) is among those listed, so the count can be checked by the reader
    sentence = text.split(":")[0]
    turned = sentence.split(" into ")[1].split(";")[0]
    assert _numbers(turned).count(2.0) == 1, sentence
    assert len(_numbers(turned)) == 12, sentence


NP_REBOUND_LATER = CORRECT + "\nnp = None  # tidy up the namespace\n"

HELPER_WITHOUT_RETURN = """import numpy as np

def dense(x, W, b):
    y = x @ W + b

def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(dense(x, W1, b1), 0)
    h = np.maximum(dense(h, W2, b2), 0)
    return dense(h, W3, b3).copy()
"""


def _evidence(result) -> str:
    return " ".join(d.evidence for d in result.diagnoses)


def test_numpy_rebound_to_none_later_is_not_called_a_helper_without_return(grade_source):
    result = grade_source(NP_REBOUND_LATER)
    assert result.status == "graded", result.error
    assert "helper-result" not in diagnosis_ids(result), _evidence(result)
    assert "raises-error" in diagnosis_ids(result)
    assert "maximum()" in _evidence(result) and "np = None" in _evidence(result), _evidence(result)


def test_a_helper_without_return_is_still_named_so(grade_source):
    result = grade_source(HELPER_WITHOUT_RETURN)
    assert diagnosis_ids(result) == {"helper-result"}, _evidence(result)
    assert "np = None" not in _evidence(result)


NCHW = CORRECT.replace("features.reshape(", "features.transpose(0, 3, 1, 2).reshape(")


def _notebook(*sources: str) -> dict:
    cells = [{"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": src}
             for src in sources]
    return {"nbformat": 4, "nbformat_minor": 5, "cells": cells,
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}}


def test_a_second_definition_in_a_later_cell_is_said_to_be_the_one_graded(grade_source):
    result = grade_source(_notebook(CORRECT, "# attempt 2, faster?\n" + NCHW), name="student.ipynb")
    assert diagnosis_ids(result) == {"flatten-order"}
    said = [w for w in result.warnings if "defined in code cell 1" in w]
    assert said and "code cell 2" in said[0] and "the last, in code cell 2" in said[0], result.warnings


def test_the_same_definition_twice_or_one_definition_gets_no_such_note(grade_source):
    for notebook in (_notebook(CORRECT, CORRECT), _notebook(CORRECT, "print(1)")):
        result = grade_source(notebook, name="student.ipynb")
        assert result.score == result.max_score
        assert not [w for w in result.warnings if "the one graded is the last" in w], result.warnings


NO_RETURN = CORRECT.replace("    return h @ W3 + b3", "    logits = h @ W3 + b3")


def test_a_written_function_without_return_is_not_only_called_unwritten(grade_source):
    result = grade_source(NO_RETURN)
    assert NO_RETURN != CORRECT
    assert diagnosis_ids(result) == {"not-implemented"}
    message = check(result, "completes").message
    assert "no return statement" in message, message


def _vectorized_relu(f, W1, b1, W2, b2, W3, b3):
    relu = np.vectorize(lambda v: max(v, 0))
    x = f.reshape(f.shape[0], -1)
    return relu(relu(x @ W1 + b1) @ W2 + b2) @ W3 + b3


def test_np_vectorize_of_python_max_is_named_as_truncation():
    findings = D.diagnose(helpers.case_runs(EX, _vectorized_relu, CASES, EXPECTED), EX)
    assert {f.id for f in findings} == {"rounded-output"}, [(f.id, f.evidence) for f in findings]
    text = " ".join(f.evidence for f in findings)
    assert "np.vectorize" in text and "whole number" in text, text


def test_a_right_relu_through_np_vectorize_with_float_output_gets_no_finding():
    def head(f, W1, b1, W2, b2, W3, b3):
        relu = np.vectorize(lambda v: max(v, 0.0), otypes=[float])
        x = f.reshape(f.shape[0], -1)
        return relu(relu(x @ W1 + b1) @ W2 + b2) @ W3 + b3
    assert not D.diagnose(helpers.case_runs(EX, head, CASES, EXPECTED), EX)
