"""Right code in notebooks as students hand them in keeps full marks, no finding and no misleading note (round six).

``tests/submissions/false-positives-round6/`` (its README lists each notebook) holds 39 VGG-head notebooks and 10
fc-layers notebooks, each run cell by cell with nbclient in a Python 3 kernel and saved as Jupyter, JupyterLab,
Colab or VS Code saves it: the right function among cells that fail, plot, time, print, read missing files, ask
for input, set ``np.seterr(all='raise')``, ``warnings.filterwarnings('error')`` or print options, define the
function twice or after its test, and so on. Each warning a notebook gets is listed below: it is accurate (the cell
failed in Jupyter too, or the magic or module is missing while grading) and says so plainly.

Two things were wrong before this round:

* ``from __future__ import annotations`` in a first cell was forgotten by the cells after it, which IPython's
  compiler remembers: ``def vgg_classifier(features: Tensor, ...)`` in a later cell raised NameError on its
  annotations, and a function Jupyter ran was said never to be defined (0 / 17). The runner now compiles each
  cell with the future imports of the cells before it (``grader/runner/cells.py``).
* a student's own check against a library missing while grading (``np.testing.assert_allclose(mine,
  torch_head(x).numpy())``) failed on the stand-in, and the warning quoted numpy's "Not equal to tolerance ...
  DESIRED: array([], dtype=float64)" as if the function disagreed with PyTorch. The sentence now says the cell
  used the stand-in (``grader/standinerrors.py``).
"""
from __future__ import annotations

import pytest

import exercise_helpers as helpers
from conftest import SUBMISSIONS, grade_students

FOLDER = SUBMISSIONS / "false-positives-round6"
VGG = sorted(p.stem for p in (FOLDER / "vgg_classifier").iterdir() if p.suffix == ".ipynb")
FC = sorted(p.stem for p in (FOLDER / "fc-layers").iterdir() if p.suffix == ".ipynb")
NOT_RUN = "was not run during grading"
STAND_IN = "is not available while grading; a stand-in that does nothing was used for it"
TWICE = "with different code; the cells run from top to bottom, so the one graded is the last"

#: the warnings each notebook gets (a substring each); a notebook not listed gets none
NOTES = {
    "colab-drive-chdir-files": ["raised FileNotFoundError", f"'google.colab' {STAND_IN}", f"'%cd' {NOT_RUN}"],
    "def-cell-then-failing-call-same-cell": ["raised NameError: \"name 'x_test' is not defined\""],
    "display-markdown-clear-output": [f"'IPython.display' {STAND_IN}"],
    "input-loop-with-default": ["raised EOFError: 'EOF when reading a line' (line 1 of code cell 5); the later cells were still run (Run All would stop). That is an input()"],
    "ipython-run-line-magic-export": [f"'%timeit' {NOT_RUN}", f"'!nvidia-smi' {NOT_RUN}"],
    "ipywidgets-interact": [f"'ipywidgets' {STAND_IN}"],
    "matplotlib-plots": [f"'matplotlib.pyplot' {STAND_IN}"],
    "missing-data-files": ["'vgg16_fc_weights.npz'", "'imagenet_class_index.json'", "features.npy'"],
    "own-assert-wrong-expectation": ["'logits should be positive after ReLU??'", "'rows should sum to 1'",
                                     "'vgg_clasifier' is not defined", "'ouput' is not defined"],
    "pdb-trace-in-cell-not-function": ["raised BdbQuit"],
    "precision-xmode-config": ["'undefined_thing' is not defined"],
    "right-then-never-run-loop-draft": [TWICE],
    "right-then-never-run-unfinished": ["Code that could not be compiled: SyntaxError in code cell 4"],
    "seterr-raise-first-cell": ["raised FloatingPointError: 'overflow encountered in exp'"],
    "shape-mismatch-exploration": ["Code cell 3 (cell 3 of the notebook) raised ValueError",
                                   "Code cell 4 (cell 4 of the notebook) raised ValueError"],
    "sklearn-pandas-report": [f"'pandas' {STAND_IN}", f"'sklearn.metrics' {STAND_IN}"],
    "test-cell-above-definition": ["raised NameError: \"name 'vgg_classifier' is not defined\""],
    "timeit-and-time-cells": [f"'%timeit' {NOT_RUN}"],
    "torch-comparison-cell": ["That cell uses 'torch', which is only a stand-in while grading, so this error most "
                              "likely comes from the stand-in, not from your code.", f"'torch' {STAND_IN}"],
    "tqdm-in-function": [f"'tqdm.auto' {STAND_IN}"],
    "tqdm-notebook-loop-outside": [f"'tqdm.notebook' {STAND_IN}"],
    "warnings-as-errors": ["raised RuntimeWarning: 'Mean of empty slice'"],
    "wrong-draft-above-right": [TWICE],
    # fc-layers: the run's own warnings (a section's are in SECTION_NOTES)
    "fc-cells-out-of-order-tqdm": [f"'tqdm' {STAND_IN}"],
    "fc-colab-timeit-input": ["an input() or getpass() call waiting for someone to type", f"'%timeit' {NOT_RUN}"],
    "fc-failing-exploration": ["Code cell 3 (cell 3 of the notebook) raised ValueError",
                               "Code cell 5 (cell 5 of the notebook) raised AssertionError",
                               "Code cell 7 (cell 7 of the notebook) raised ValueError", "raised AssertionError: '(2, 2, 5)'",
                               "raised NameError: \"name 'undefined_variable' is not defined\" (line 1 of code cell 14)."],
    "fc-logging-and-stdout": [f"'IPython' {STAND_IN}"],
    "fc-seterr-warnings-errors-plots": [f"'matplotlib.pyplot' {STAND_IN}"],
}
#: fc-layers sections that warn: the section, and what its one warning says
SECTION_NOTES = {"fc-drafts-and-never-run": {"linear": TWICE, "gap_head": TWICE}}


@pytest.fixture(scope="module")
def vgg(session):
    return grade_students(FOLDER / "vgg_classifier", session, VGG)


@pytest.fixture(scope="module")
def fc():
    with helpers.assignment_session() as grading:
        yield grade_students(FOLDER / "fc-layers", grading, FC)


def test_every_notebook_is_listed_in_the_readme():
    readme = (FOLDER / "README.md").read_text(encoding="utf-8")
    assert len(VGG) + len(FC) >= 40
    assert [n for n in VGG + FC if f"`{n}.ipynb`" not in readme] == []
    assert set(NOTES) <= set(VGG + FC)


def _faults(result, name):
    """What keeps a result from full marks with exactly its listed notes, each note said once."""
    faults = helpers.clean_mark_faults(result, NOTES.get(name, ()))
    if len(result.warnings) != len(NOTES.get(name, ())):
        faults.append(("notes", result.warnings))
    return faults


@pytest.mark.parametrize("name", VGG)
def test_a_right_vgg_head_in_a_real_notebook_keeps_full_marks(vgg, name):
    assert not _faults(vgg[name], name), _faults(vgg[name], name)


@pytest.mark.parametrize("name", FC)
def test_right_fc_layers_functions_in_a_real_notebook_keep_full_marks(fc, name):
    result = fc[name]
    assert result.max_score == 70 and not _faults(result, name), _faults(result, name)
    said = {s.exercise: list(s.warnings) for s in result.sections if s.warnings}
    expected = SECTION_NOTES.get(name, {})
    assert set(said) == set(expected), said
    assert all(len(said[e]) == 1 and expected[e] in said[e][0] for e in expected), said


def test_a_future_import_holds_for_the_cells_after_it(grade_source):
    """The smallest case of the first fix: the annotations name nothing that exists."""
    from conftest import CORRECT, notebook

    source = notebook("from __future__ import annotations",
                      CORRECT.replace("(features, W1,", "(features: Tensor, W1: Tensor,"))
    result = grade_source(source, "future.ipynb")
    assert not helpers.clean_mark_faults(result), helpers.clean_mark_faults(result)


def test_a_cell_error_is_tied_to_a_stand_in_only_when_the_cell_uses_one():
    from grader import standinerrors
    from grader.submission import Cell

    class Notebook:
        cells = [Cell(1, 1, "import torch\nimport numpy as np"), Cell(2, 2, "np.testing.assert_allclose(1, torch.ones(1))"),
                 Cell(3, 3, "print(torch_out)"), Cell(4, 4, "assert np.all(np.ones(2) < 0)")]

        def cell(self, number):
            return self.cells[number - 1]

    note = f"The module 'torch' {STAND_IN}."
    told = standinerrors.cell_errors(Notebook(), (2, 3, 4), ("C2 raised AssertionError", "C3 raised NameError: x",
                                                             "C4 raised AssertionError"), (note,))
    assert "stand-in" in told[0] and told[1:] == ["C3 raised NameError: x", "C4 raised AssertionError"]
    assert standinerrors.cell_errors(Notebook(), (2,), ("C2 raised AssertionError",), ()) == ["C2 raised AssertionError"]
