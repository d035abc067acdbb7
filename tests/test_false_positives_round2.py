"""Correct work as real notebook tools save it keeps full marks, no finding, and only notes that say what happened.

Round two of the false-positive hunt (``tests/submissions/false-positives-round2/``, listed in its README): Colab
notebooks (a GPU runtime, Drive mounted unguarded, ``%cd`` into it, widget state, forms), JupyterLab 4 and VS Code
metadata, nbgrader's solution markers, attachments, raw cells, display and shell cell magics, nbformat 4.0 to 4.5
with every count null, a BOM and CRLF inside and around the JSON, data loaded from files only the student had,
helpers defined below the function; .py files from Jupytext (percent and light), nbconvert (``run_cell_magic``),
Colab's download and Notepad; and less usual numpy (``np.inner``, ``np.vectorize`` with a signature, ``multi_dot``
of augmented matrices, recursion over the batch, ``out=`` into fresh buffers, a star import).

Two kinds of file lost everything before this round:

- a JupyterLite notebook (``import piplite; await piplite.install("numpy")``): the import failed, ``np`` was never
  bound and every call raised NameError (1 / 17). ``piplite``, ``micropip``, ``pyodide`` and ``js`` now get stand-ins,
  and a stand-in can be awaited;
- a marimo notebook (a .py of ``@app.cell`` functions): "vgg_classifier() was never defined ... No module named
  'marimo'" (0 / 17). It is now read cell by cell as marimo runs it (``grader/marimo.py``).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import SUBMISSIONS, grade_students
import exercise_helpers as helpers
from grader.grade import grade_file

FOLDER = SUBMISSIONS / "false-positives-round2"
VGG = sorted(p.stem for p in (FOLDER / "vgg_classifier").iterdir() if p.suffix in (".py", ".ipynb"))
FC = sorted(p.stem for p in (FOLDER / "fc-layers").iterdir() if p.suffix in (".py", ".ipynb"))

STAND_IN = "is not available while grading; a stand-in that does nothing was used for it"
NOT_RUN = "was not run during grading"
#: the notes each file gets, every one of them true of what happened (a file not listed gets none)
NOTES = {
    "colab-drive-cd-gpu": ["raised FileNotFoundError", "'google.colab' " + STAND_IN, "'%cd' " + NOT_RUN,
                           "'!ls' " + NOT_RUN, "'!pip install -q numpy==1.26.4' " + NOT_RUN],
    "colab-export-drive-unguarded": ["The cell at line 19 raised FileNotFoundError", "line 30 raised NameError",
                                     "'google.colab' " + STAND_IN, "'!pip install -q numpy' " + NOT_RUN],
    "colab-output-widgets": ["'google.colab' " + STAND_IN],
    "colab-widget-state-tqdm": ["'tqdm.auto' " + STAND_IN],
    "display-cell-magics": [f"A '%%{magic}' cell {NOT_RUN}" for magic in
                            ("html", "javascript", "js", "latex", "markdown", "svg")],
    "display-html-markdown": ["as its 'raises-exception' tag says it may", "'IPython.display' " + STAND_IN],
    "jupyterlite-piplite-await": ["'piplite' " + STAND_IN, "'micropip' " + STAND_IN],
    "jupytext-percent-commented-magics": ["'!pip install -q numpy' " + NOT_RUN],
    "marimo-app": ["'marimo' " + STAND_IN],
    "marimo-out-of-order-unparsable": ["'!pip install numpy' " + NOT_RUN],
    "marimo-setup-function": ["The cell at line 44 raised FileNotFoundError", "line 50 raised NameError",
                              "'marimo' " + STAND_IN],
    "matplotlib-seaborn-plots": ["'matplotlib.pyplot' " + STAND_IN, "'seaborn' " + STAND_IN],
    "nbconvert-run-cell-magic-time": ["'!pip install -q numpy' " + NOT_RUN, "'%timeit' " + NOT_RUN],
    "plots-at-import": ["'matplotlib.pyplot' " + STAND_IN],
    "reloads-missing-data-file": ["Code cell 2 (cell 2 of the notebook) raised FileNotFoundError",
                                  "Code cell 4 (cell 4 of the notebook) raised NameError"],
    "shell-cell-magics": [f"A '%%{magic}' cell {NOT_RUN}" for magic in ("shell", "sh", "sx", "script")],
    "time-timeit-on-own-data": ["'%timeit' " + NOT_RUN, "A '%%timeit' cell " + NOT_RUN],
    "s02-einsum-perm-swv-mapmean": ["'%pip' " + NOT_RUN],
    "s04-recursive-einsum-im2col-loop": ["The cell at line 56 raised FileNotFoundError", "'google.colab' " + STAND_IN],
}


def _faults(result, name: str) -> list:
    """What keeps ``result`` from a clean full mark, the notes listed for ``name`` allowed (and required)."""
    return helpers.clean_mark_faults(result, NOTES.get(name, []))


@pytest.fixture(scope="module")
def vgg_results(session):
    return grade_students(FOLDER / "vgg_classifier", session, VGG)


@pytest.fixture(scope="module")
def fc_results():
    with helpers.assignment_session() as grading:
        yield grade_students(FOLDER / "fc-layers", grading, FC)


def test_the_folder_holds_the_styles_its_readme_lists():
    readme = (FOLDER / "README.md").read_text(encoding="utf-8")
    assert len(VGG) >= 50 and len(FC) >= 6
    for folder in ("vgg_classifier", "fc-layers"):
        for path in (FOLDER / folder).iterdir():
            assert f"`{path.name}`" in readme, path.name
    assert set(NOTES) <= set(VGG) | set(FC)


@pytest.mark.parametrize("name", VGG)
def test_a_correct_vgg_head_as_a_notebook_tool_saved_it_keeps_full_marks(vgg_results, name):
    assert not _faults(vgg_results[name], name), _faults(vgg_results[name], name)


@pytest.mark.parametrize("name", FC)
def test_a_correct_fc_layers_submission_keeps_full_marks_in_every_exercise(fc_results, name):
    result = fc_results[name]
    assert [s.exercise for s in result.sections] == ["linear", "to_channels_last", "dense_scores", "gap_head"]
    assert not _faults(result, name), _faults(result, name)


def test_a_notebook_with_megabytes_of_saved_output_and_images_keeps_full_marks(session, tmp_path):
    """Outputs are never run: a 3 MB printout and a 450 kB figure saved with the notebook cost nothing."""
    printout = "".join(f"[{i:6d}] " + " ".join("%8.3f" % ((i * 7 + j) % 997 / 10) for j in range(12)) + "\n"
                       for i in range(30000))
    figure = {"data": {"image/png": "iVBORw0KGgo" + "A" * 600_000, "text/plain": ["<Figure size 640x480>"]},
              "metadata": {"needs_background": "light"}, "output_type": "display_data"}
    source = (FOLDER / "vgg_classifier" / "nbformat-4.4-cleared.ipynb").read_text(encoding="utf-8")
    notebook = json.loads(source)
    notebook["cells"][-1]["outputs"] = [{"name": "stdout", "output_type": "stream", "text": printout}, figure]
    path = tmp_path / "huge-outputs.ipynb"
    path.write_text(json.dumps(notebook), encoding="utf-8")
    result = grade_file(Path(path), session)
    assert not _faults(result, "huge-outputs"), _faults(result, "huge-outputs")


def test_marimo_cells_run_in_marimo_s_order_and_an_unparsable_cell_keeps_its_text():
    """The function's cell reads helpers a later cell defines: it runs after it; the saved unparsable cell (IPython
    syntax, which marimo refuses) is a cell of its own, translated as Jupyter would."""
    from grader import marimo

    text = (FOLDER / "vgg_classifier" / "marimo-out-of-order-unparsable.py").read_text(encoding="utf-8")
    cells, prose = marimo.sources(text, 100)
    assert prose == []
    order = [source.split("\n", 1)[0] for source, *_ in cells]
    assert order == ["!pip install numpy", "import numpy as np", "def dense(x, W, b):",
                     "def vgg_classifier(features, W1, b1, W2, b2, W3, b3):"], order
    assert all(label == f"the cell at line {offset + 1}" for _, _, _, label, offset in cells)
    assert marimo.sources("import marimo\nprint('not a notebook')\n", 100) is None
