"""What a third blind held-out class (helper-72's, in /tmp/h72/class: 29 correct styles, 33 mistakes, 13 broken or
odd submissions, .py files and Jupyter and Colab notebooks) showed the reports getting wrong; each test failed
before its fix.

- A right function written under ``if __name__ == "__main__":`` (or indented one level too deep, inside a helper)
  was "No function named 'vgg_classifier' is defined", with advice about spelling: the student wrote the function
  under its right name. The sentence now names the block that kept the ``def`` from running and says to move it to
  the top level. A notebook runs as ``__main__``, so the same cell there is graded as usual.
- A right function followed by ``del np`` (tidying the namespace) raised "NameError: name 'np' is not defined" on
  every call beside the file's own ``import numpy as np``, and nothing said why; a warning now names the ``del``.
- ReLU written as ``z + abs(z)`` (the halving forgotten) doubles every hidden activation, which is what inverted
  dropout left on at inference does too: the report named dropout alone, which that code has none of. The evidence
  now says that z + |z| gives the same numbers (a factor of 0.5 stays dropout alone).
- Logits "stabilised" on the wrong axis, ``y - y.max(axis=0)``, got a bare wrong-stage ('with every weight zero,
  your logits are 0, 0, 0, ...'): each class's largest over the batch subtracted is now a variant, named
  samples-mixed with what was done, as the batch mean subtracted already was.
- A notebook whose only cell is a raw cell holding the whole solution was "a notebook without any code cell", true
  but no help: the sentence now names the raw cell and says to change its type to Code.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

import exercise_helpers as helpers
from conftest import CORRECT, grade_students, notebook
from grader.exercise import load

_BODY = CORRECT.split("\n", 2)[2]  # the solution's 'def', without its import
_INDENTED = "".join("    " + line if line else line for line in _BODY.splitlines(True))

#: student -> (file name, text): the graded submissions of this round, graded in one batch
SUBMISSIONS = {
    "main-guard": ("main-guard.py", "import numpy as np\n\nif __name__ == '__main__':\n" + _INDENTED),
    "inside-helper": ("inside-helper.py", "import numpy as np\n\ndef relu(z):\n    return np.maximum(z, 0)\n\n"
                                          + _INDENTED),
    "del-np": ("del-np.py", CORRECT + "\ndel np  # keep the namespace clean\n"),
    "raw-only": ("raw-only.ipynb", json.dumps({**notebook(), "cells": [
        {"cell_type": "raw", "id": "r0", "metadata": {}, "source": CORRECT}]})),
    "markdown-only": ("markdown-only.ipynb", json.dumps(notebook("# MDI ran out of time."))),
    "main-guard-notebook": ("main-guard-notebook.ipynb", json.dumps(notebook(
        "import numpy as np\n\nif __name__ == '__main__':\n" + _INDENTED))),
}


@pytest.fixture(scope="module")
def results(session, tmp_path_factory):
    folder = tmp_path_factory.mktemp("round3")
    for file, text in SUBMISSIONS.values():
        (folder / file).write_text(text, encoding="utf-8")
    return grade_students(folder, session, list(SUBMISSIONS))


def test_a_def_under_the_main_guard_is_said_to_be_there_not_misspelt(results):
    result = results["main-guard"]
    assert result.status == "error" and result.error.kind == "missing-function"
    assert "if __name__ == \"__main__\":" in result.error.message and "line 3" in result.error.message
    assert "top level" in result.error.message and "No function named" not in result.error.message


def test_a_def_indented_inside_a_helper_names_the_helper(results):
    message = results["inside-helper"].error.message
    assert "inside the function relu() (line 3)" in message and "top level" in message


def test_a_notebook_runs_its_main_guard_as_jupyter_does(results):
    result = results["main-guard-notebook"]
    assert result.status == "graded" and result.score == result.max_score


def test_a_name_deleted_after_the_definition_is_named_with_its_del(results):
    result = results["del-np"]
    assert result.status == "graded" and "raises-error" in {d.id for d in result.diagnoses}
    assert any("'del np' at line 9" in w for w in result.warnings), result.warnings


def test_a_name_error_without_a_del_gets_no_such_warning(results):
    assert not any("'del " in w for r in results.values() for w in r.warnings if r.student != "del-np")


def _head_with(act):
    def head(f, W1, b1, W2, b2, W3, b3):
        h = act(f.reshape(f.shape[0], -1) @ W1 + b1)
        return act(h @ W2 + b2) @ W3 + b3
    return head


def _diagnosed(function) -> list:
    ex = load("vgg_classifier")
    cases = ex.hidden_cases(11) + ex.diagnosis_module.probe_cases()
    runs = helpers.case_runs(ex, function, cases, [ex.expected(c) for c in cases])
    return ex.diagnosis_module.diagnose(runs, ex)


def test_logits_shifted_by_their_largest_over_the_batch_are_samples_mixed():
    def head(f, W1, b1, W2, b2, W3, b3):
        y = _head_with(lambda z: np.maximum(z, 0))(f, W1, b1, W2, b2, W3, b3)
        return y - y.max(axis=0)  # numerical stability, on the wrong axis
    findings = _diagnosed(head)
    assert [f.id for f in findings] == ["samples-mixed"], [(f.id, f.evidence) for f in findings]
    assert "y - y.max(axis=0)" in findings[0].evidence


@pytest.mark.parametrize("act, said", [(lambda z: z + np.abs(z), True),
                                       (lambda z: np.maximum(z, 0) * 0.5, False)])
def test_doubled_activations_say_that_a_relu_without_its_halving_gives_them(act, said):
    findings = _diagnosed(_head_with(act))
    evidence = " ".join(f.evidence for f in findings if f.id == "inference-dropout")
    assert evidence, [(f.id, f.evidence) for f in findings]
    assert ("z + |z|" in evidence) is said, evidence


def test_a_solution_in_a_raw_cell_alone_is_told_to_become_code(results):
    assert results["raw-only"].status == "error"
    assert "Cell 1 holds Python code, but it is a raw cell" in results["raw-only"].error.message
    assert "without any code cell" in results["markdown-only"].error.message
    assert "raw cell" not in results["markdown-only"].error.message
