"""What a fourth blind held-out class (helper-78's, in /tmp/h78/class and /tmp/h78/class2: 47 correct styles, 40
notebook shapes from Jupyter, JupyterLab, VS Code and Colab, 21 mistakes) showed the reports getting wrong; each
test failed before its fix. The rest of that class (nbformat 4.0 to 4.5 with and without ids, Colab and VS Code
metadata, attachments, hidden cells, CRLF, a BOM, UTF-16, one-string sources, kept error and image outputs,
``%%time``, ``!nvidia-smi``, ``drive.mount``, ``np.vecmat``, ``np.putmask``, a dataclass with slots...) was graded
right already.

- ``%%capture captured --no-stderr`` then ``captured.show()`` in a later cell: NameError, 'captured' is not
  defined. The output's name was taken only from the line's last word, which here is a flag.
- A cell tagged 'raises-exception' (Jupyter's mark of a cell meant to fail, which nbclient runs past) was told
  "the later cells were still run (Run All would stop)", and so was the last code cell, after which nothing runs.
- ``B = features.shape[-1]`` works exactly when the batch is as long as the channel axis; the report said "The
  batch size 4 appears to be written into the code (features.reshape(4, -1) ...)", a number the code never holds.
  The evidence now names the axis the batch size was read from.
- ReLU as ``np.maximum(z, 0, where=z > 0)`` without ``out=`` leaves the entries where the condition is False as the
  new array's memory held them: the report said only that FC2 departs. A note now names the call and says why.
- ``np.reshape(features, newshape=(B, -1))``, right under the NumPy 2.0 of a Colab notebook, raised "reshape() got
  an unexpected keyword argument 'newshape'" with nothing to say NumPy 2.4 removed that keyword; ``np.trapz`` and
  ``np.in1d`` (removed the same way) were not covered by the NumPy 2.0 hint either.
"""
from __future__ import annotations

import json

import pytest

from conftest import CORRECT, grade_students, notebook
from grader import hints

_HEAD = "import numpy as np\n\ndef vgg_classifier(features, W1, b1, W2, b2, W3, b3):\n"
_REST = ("    h = np.maximum(x @ W1 + b1, 0)\n    h = np.maximum(h @ W2 + b2, 0)\n    return h @ W3 + b3\n")


def _tagged(nb: dict, index: int, tag: str) -> dict:
    nb["cells"][index]["metadata"]["tags"] = [tag]
    return nb


#: student -> (file name, text): the graded submissions of this round, graded in one batch
SUBMISSIONS = {
    "capture-flag-last": ("capture-flag-last.ipynb", json.dumps(notebook(
        "%%capture captured --no-stderr\n" + CORRECT + "print('defined')\n", "captured.show()"))),
    "raises-tagged": ("raises-tagged.ipynb", json.dumps(_tagged(notebook(
        CORRECT, "raise ValueError('a demo of the error')", "print('after')"), 1, "raises-exception"))),
    "last-cell-raises": ("last-cell-raises.ipynb", json.dumps(notebook(CORRECT, "1 / 0"))),
    "middle-cell-raises": ("middle-cell-raises.ipynb", json.dumps(notebook(CORRECT, "1 / 0", "print('after')"))),
    "batch-from-channels": ("batch-from-channels.py", _HEAD + "    B = features.shape[-1]\n"
                                                      "    x = features.reshape(B, -1)\n" + _REST),
    "where-without-out": ("where-without-out.py", _HEAD + "    x = features.reshape(features.shape[0], -1)\n"
                          "    z = x @ W1 + b1\n    h = np.maximum(z, 0, where=z > 0)\n"
                          "    z = h @ W2 + b2\n    h = np.maximum(z, 0, where=z > 0)\n    return h @ W3 + b3\n"),
    "where-with-out": ("where-with-out.py", _HEAD + "    x = features.reshape(features.shape[0], -1)\n"
                       "    z = x @ W1 + b1\n    h = np.maximum(z, 0, where=z > 0, out=np.zeros_like(z))\n"
                       "    z = h @ W2 + b2\n    h = np.maximum(z, 0, np.zeros_like(z), where=z > 0)\n"
                       "    return h @ W3 + b3\n"),
    "newshape": ("newshape.py", _HEAD + "    x = np.reshape(features, newshape=(features.shape[0], -1))\n" + _REST),
}


@pytest.fixture(scope="module")
def results(session, tmp_path_factory):
    folder = tmp_path_factory.mktemp("round4")
    for file, text in SUBMISSIONS.values():
        (folder / file).write_text(text, encoding="utf-8")
    return grade_students(folder, session, list(SUBMISSIONS))


def test_a_named_capture_with_its_flag_after_the_name_binds_the_name(results):
    result = results["capture-flag-last"]
    assert result.score == result.max_score and not result.diagnoses, result.to_json()[:800]
    assert not result.warnings, result.warnings


def test_a_cell_tagged_raises_exception_is_told_as_expected(results):
    result = results["raises-tagged"]
    assert result.score == result.max_score, result.to_json()[:800]
    assert list(result.warnings) == ["Code cell 2 (cell 2 of the notebook) raised ValueError: 'a demo of the error' (line 1 "
                               "of code cell 2), as its 'raises-exception' tag says it may; the later cells were run "
                               "after it, as Jupyter's tools do for such a cell."], result.warnings


def test_the_last_cell_raising_says_nothing_of_later_cells(results):
    last, middle = results["last-cell-raises"], results["middle-cell-raises"]
    assert last.score == last.max_score and middle.score == middle.max_score
    assert list(last.warnings) == ["Code cell 2 (cell 2 of the notebook) raised ZeroDivisionError: 'division by zero' "
                             "(line 1 of code cell 2)."], last.warnings
    assert middle.warnings[0].endswith("the later cells were still run (Run All would stop)."), middle.warnings


def test_a_batch_size_read_from_the_channel_axis_is_not_called_a_number_in_the_code(results):
    result = results["batch-from-channels"]
    found = {d.id: d.evidence for d in result.diagnoses}
    assert set(found) == {"hardcoded-shape"}, found
    evidence = found["hardcoded-shape"]
    assert "read from the channel axis, features.shape[3]" in evidence and "features.shape[0]" in evidence
    assert "written into the code" not in evidence and "range(" not in evidence, evidence


def test_a_keyword_a_later_numpy_removed_is_named(results):
    result = results["newshape"]
    raised = next(d for d in result.diagnoses if d.id == "raises-error")
    assert "unexpected keyword argument 'newshape'" in raised.evidence
    assert "newshape= keyword is gone from NumPy" in raised.evidence and "shape=(B, -1)" in raised.evidence


def test_names_removed_after_numpy_2_0_are_named():
    trapz = hints.error_hint("AttributeError", "module 'numpy' has no attribute 'trapz'")
    assert "np.trapezoid" in trapz and "deprecated since NumPy 2.0" in trapz
    assert "method=" in hints.error_hint("TypeError", "percentile() got an unexpected keyword argument "
                                                      "'interpolation'")
    assert hints.error_hint("TypeError", "f() got an unexpected keyword argument 'newshape'") == ""


def test_a_package_the_sandbox_lacks_is_named_as_missing_here():
    """``import einops`` at the top of a .py file said only "No module named 'einops'" and that the code after it did
    not run; a notebook's function got a note, a file nothing about what the grader has installed."""
    said = hints.error_hint("ModuleNotFoundError", "No module named 'einops'")
    assert "only numpy and Python's standard library are installed" in said
    assert "only numpy" in hints.error_hint("ModuleNotFoundError", "No module named 'torch.nn'")
    for inside in ("numpy.linalg.lapack_lite2", "json.nothing", "os.path2"):
        assert hints.error_hint("ModuleNotFoundError", f"No module named '{inside}'") == ""
    assert hints.error_hint("ImportError", "No module named 'einops'") == ""


def test_a_ufunc_given_where_but_no_out_is_named(results):
    result = results["where-without-out"]
    assert result.score < result.max_score
    notes = [w for w in result.warnings if "where=" in w]
    assert notes == ["np.maximum(..., where=...) at line 6 has no out= array: where the condition is False, NumPy "
                     "leaves those entries of the result as the newly allocated memory happened to hold them, "
                     "neither 0 nor the input. Give it a filled array to write into (out=np.zeros_like(z)), or "
                     "write np.where(condition, z, 0)."], result.warnings
    right = results["where-with-out"]
    assert right.score == right.max_score and not right.warnings and not right.diagnoses, right.to_json()[:800]
