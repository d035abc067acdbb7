"""Correct code in the styles today's new findings look for keeps full marks, with no finding and no note.

The afternoon taught the grader to name a function that returns the same memory twice (shared-result, which costs
the unmodified point), extra rows, a skip connection, one bias value for every unit, an activation on the weights,
flips before the flatten, a helper that prints its result, and, in the fc-layers assignment, loops that leave a row
unfilled or step by two, shifted indices, floor division, partial or summed pooling and rescaled weights. Each of
these reads memory addresses, bytecode or the shape of a departure, so correct code that merely looks like one of
them is the case to guard: a module cache or scratch buffer whose result is returned as a copy, a slice of a wider
fresh array, np.empty filled row by row, per-sample rows stacked, a skip added and removed again, a bias added in a
loop over the classes, activations named like weights, flips applied twice, helpers that print and return, a
callable object, a fresh bytearray as the result's buffer, strides of one written out, means taken in float.

The submissions are in ``tests/submissions/false-positives-round1/`` (its README lists them). helper-100's blind
class of 61 such files (29 of them notebooks executed with nbclient) got full marks with no finding, with and without the VGG16-scale
case; this file grades a sample of them, two as notebooks, and the assignment's files through one session.
"""
from __future__ import annotations

import copy
import re
from pathlib import Path

import nbformat
import pytest

from conftest import ROOT, SUBMISSIONS, notebook
import exercise_helpers as helpers
from grader.grade import grade_file
from grader.grade_assignment import grade_assignment

FOLDER = SUBMISSIONS / "false-positives-round1"
VGG = sorted((FOLDER / "vgg_classifier").glob("*.py"))
FC = sorted((FOLDER / "fc-layers").glob("*.py"))
FC_IDS = ("linear", "to_channels_last", "dense_scores", "gap_head")


#: the one note a file here should get: numba-guarded-by-try's import fails in its try, as the student expects
GUARDED_NUMBA = "The module 'numba' is not available while grading; its import, guarded"


def _faults(result) -> list:
    """Everything that keeps a result from being a clean full mark: checks not passed, findings, notes (but the
    guarded import's, which says what happened and costs nothing)."""
    faults = [(c.id, c.message) for c in result.checks if c.status != "passed"]
    faults += [(d.id, d.evidence) for d in result.diagnoses]
    faults += [("note", w) for w in result.warnings if not w.startswith(GUARDED_NUMBA)]
    for section in getattr(result, "sections", None) or []:
        faults += [(section.exercise, fault) for fault in _faults(section)]
    if result.status != "graded" or result.score != result.max_score:
        faults.append((result.status, f"{result.score} / {result.max_score}"))
    return faults


@pytest.fixture(scope="module")
def fc_grading():
    with helpers.assignment_session() as grading:
        yield grading


def test_the_folder_holds_the_styles_the_readme_lists():
    readme = (FOLDER / "README.md").read_text(encoding="utf-8")
    assert len(VGG) >= 20 and len(FC) >= 8
    for path in VGG + FC:
        assert f"`{path.name}`" in readme, path.name


@pytest.mark.parametrize("path", VGG, ids=lambda p: p.stem)
def test_a_correct_vgg_head_in_a_style_the_new_findings_read_keeps_full_marks(path, sessions):
    result = grade_file(path, sessions("vgg_classifier"), student=path.stem)
    assert not _faults(result), _faults(result)


@pytest.mark.parametrize("stem", ["helper-chain-prints-and-returns", "scratch-filled-then-copied"])
def test_the_same_styles_in_a_notebook_with_a_cell_that_prints_keep_full_marks(stem, sessions, tmp_path):
    source = (FOLDER / "vgg_classifier" / f"{stem}.py").read_text(encoding="utf-8")
    path = tmp_path / f"{stem}.ipynb"
    path.write_text(nbformat.writes(nbformat.from_dict(notebook(
        "# MD ## Your solution", source, "import numpy as np\nprint(vgg_classifier.__name__)"))), encoding="utf-8")
    result = grade_file(path, sessions("vgg_classifier"), student=stem)
    assert not _faults(result), _faults(result)


@pytest.mark.parametrize("path", FC, ids=lambda p: p.stem)
def test_a_correct_fc_layers_file_in_those_styles_keeps_full_marks_in_every_exercise(path, fc_grading):
    result = grade_assignment(path, fc_grading, path.stem)
    assert [s.exercise for s in result.sections] == list(FC_IDS)
    assert not _faults(result), _faults(result)


def test_the_assignment_notebook_with_those_functions_in_its_cells_keeps_full_marks(fc_grading, tmp_path):
    """The student notebook itself, its self-check cells included, with one file's four functions in its cells."""
    parts = re.split(r"\n\n\n(?=import )", FC[0].read_text(encoding="utf-8"))
    assert len(parts) == len(FC_IDS), "the file holds the four functions, one after the other"
    nb = copy.deepcopy(nbformat.read(str(ROOT / "notebooks" / "fc-layers.ipynb"), as_version=4))
    for exercise_id, part in zip(FC_IDS, parts):
        cell = next(c for c in nb.cells if c.get("id") == f"{exercise_id}-solution")
        cell.source = part
    path = tmp_path / "fc-layers.ipynb"
    nbformat.write(nb, str(path))
    result = grade_assignment(Path(path), fc_grading, "nb")
    assert not _faults(result), _faults(result)
