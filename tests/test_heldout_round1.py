"""What a blind held-out class (helper-69's, in /tmp/helper-69/class) showed the reports getting wrong; each test
failed before its fix.

- A function that computed with torch, where torch is not installed, returned the runner's stand-in for torch. The
  runner turns any result into an array with ``np.asarray``, which makes the stand-in an empty float64 array: the
  report then said the result had shape (0,) (``wrong-shape``) and credited its dtype, its finiteness, its inputs
  left alone and its determinism, none of which the student's code produced.
- A call that ended the Python process itself (``os._exit`` in the function, on one case) matched no mistake, and
  the report told the student to "compare your function with the equations", though every value it returned was
  right: it now points at the check that says how the call ended.
"""
from __future__ import annotations

import importlib.util
from types import SimpleNamespace

import pytest

from conftest import CORRECT, check, diagnosis_ids
from grader.report import render_html, render_markdown, unexplained
from grader.results import CheckResult

TORCH_ONLY = """import torch

def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    t = lambda a: torch.as_tensor(a, dtype=torch.float64)
    x = t(features).reshape(features.shape[0], -1)
    x = torch.relu(x @ t(W1) + t(b1))
    x = torch.relu(x @ t(W2) + t(b2))
    return (x @ t(W3) + t(b3)).numpy()
"""

EXITS_ON_A_BATCH_OF_FOUR = CORRECT.replace("    x = features", """    if features.shape[0] == 4:
        import os
        os._exit(0)
    x = features""")


@pytest.mark.skipif(importlib.util.find_spec("torch") is not None, reason="torch is installed: no stand-in is used")
def test_a_stand_in_result_is_no_array_and_earns_nothing_it_did_not_compute(grade_source):
    result = grade_source(TORCH_ONLY)
    assert result.status == "graded", result.error
    for check_id in ("shape", "dtype", "finite", "unmodified", "deterministic"):
        assert check(result, check_id).status == "failed", check(result, check_id)
    assert "(0,)" not in render_markdown(result)
    assert "not installed where the grader runs" in check(result, "shape").message
    assert diagnosis_ids(result) == {"not-an-array"}
    assert any("torch" in w for w in result.warnings)


def test_a_call_that_ends_the_process_is_not_sent_to_the_equations(grade_source):
    result = grade_source(EXITS_ON_A_BATCH_OF_FOUR)
    assert result.status == "graded", result.error
    assert check(result, "returns").status == "failed"
    assert "os._exit" in check(result, "returns").message
    assert not result.diagnoses
    for page in (render_markdown(result), render_html(result)):
        assert "did not return a result" in page
        assert "The function runs and returns on every case" in page


def test_points_lost_to_values_alone_still_point_at_the_equations():
    # the old advice where it is right: every call returned, and no known mistake explains the values
    returned = CheckResult(id="returns", title="The function runs and returns on every case", status="passed",
                           points=1, max_points=1, message="Returned on all 7 cases.")
    values = CheckResult(id="batch", title="Correct logits for a batch", status="failed", points=0, max_points=3,
                         message="values differ")
    sentence = unexplained(SimpleNamespace(checks=[returned, values]))
    assert "Compare your function with the computation in the statement" in sentence
    assert "did not return" not in sentence


def test_a_tuple_returned_is_said_to_be_one_not_an_array_it_never_built(grade_source):
    # (logits, probabilities): np.asarray stacks them into one (2, B, K) array, which the student never made
    result = grade_source(CORRECT.replace("return h @ W3 + b3", "z = h @ W3 + b3\n    return z, np.exp(z)"))
    shape = check(result, "shape").message
    assert "a tuple that reads as an array of shape (2, " in shape, shape
    assert "expected shape (" in shape
    values = next(c for c in result.checks if c.id.startswith("values") and c.status == "failed").message
    assert "a tuple that reads as an array" in values, values


def test_an_ndarray_of_the_wrong_shape_is_said_plainly(grade_source):
    result = grade_source(CORRECT.replace("return h @ W3 + b3", "return (h @ W3 + b3).ravel()"))
    shape = check(result, "shape").message
    assert "reads as an array" not in shape
    assert ", got (" in shape, shape


def test_the_wrong_shape_evidence_of_a_tuple_says_it_is_a_tuple(grade_source):
    result = grade_source(CORRECT.replace("return h @ W3 + b3", "z = h @ W3 + b3\n    return z, np.exp(z)"))
    evidence = next(d.evidence for d in result.diagnoses if d.id == "wrong-shape")
    assert "(a tuple) reads as an array of shape (2, " in evidence, evidence


FORK_ONCE = "import os\n\npid = os.fork()  # trying fork out; the copy is never told to exit\n" + CORRECT


@pytest.mark.parametrize("name", ["student.py", "student.ipynb"])
def test_a_submission_that_forks_once_and_never_ends_the_copy_is_graded_on_its_function(grade_source, name):
    """The copy os.fork() made went on in the runner's own loop and answered the grader too: a correct solution got
    0, not graded, with a protocol error blaming writes to descriptors it never opened. The copy now ends quietly
    when it comes back to the runner's loop, as a forked kernel's copy would be of no use."""
    from conftest import notebook

    source = FORK_ONCE if name.endswith(".py") else notebook(FORK_ONCE)
    result = grade_source(source, name)
    assert result.status == "graded" and result.score == result.max_score, (result.error, result.checks)


def test_a_stub_that_raises_not_implemented_error_earns_nothing_for_completing(grade_source):
    """nbgrader's stub (``raise NotImplementedError()``) kept the 'completes' point that the 'pass' stub does not
    (helper-68's assignment notebooks: 1/18 against 0/18)."""
    stub = "import numpy as np\n\ndef vgg_classifier(features, W1, b1, W2, b2, W3, b3):\n    raise NotImplementedError()\n"
    result = grade_source(stub)
    assert result.score == 0, [(c.id, c.points) for c in result.checks if c.points]
    assert "raised NotImplementedError on every case" in check(result, "completes").message
