"""The fc-layers assignment against a held-out class (helper-76's blind round: 59 notebooks, .py exports and odd
files written before reading the detectors, graded with `grader grade --assignment fc-layers`).

What it found, each pinned here on a small notebook built from the generated one:

* A function written twice with different code (a draft of `linear` pasted again into the dense_scores cell, an
  older `dense_scores` kept in the gap_head cell) was told twice in a row in its section: once by the assignment's
  own sentence, once by the more precise note of the single-exercise grader. It is told once now.
* `linear` keeping a transposed copy of the weight in a global, keyed by its shape ("transpose once, reuse"), lost
  3 points with no finding: its output is new (this call's x through the first call's weight), not a repeated one,
  so the generic stale-result test did not see it. It is named stale-result, saying which array was kept.
* When no known mistake matched, the report told a student whose linear layer or column reordering was wrong to
  compare it with the statement "one layer at a time", words for the VGG head's three layers.
* A gap_head returning a dict (or a generator) was told it returned "one dict of shape ()" and, beside that, that
  "the result is an array that holds object values", which it is not. It is told it returned one dict, alone.

The four notebooks are graded in one module-scoped session without the large case; the report's sentence is
checked in process.
"""
from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from conftest import ROOT
import exercise_helpers as helpers
from grader import report

NAME = "fc-layers"
IDS = ("linear", "to_channels_last", "dense_scores", "gap_head")
NOTEBOOK = ROOT / "notebooks" / f"{NAME}.ipynb"

LINEAR_DRAFT = '''

# a quick 2-D helper for the windows, pasted from an earlier attempt
def linear(x, W, b):
    return x @ W.T + b
'''
DENSE_DRAFT = '''

def dense_scores(fmap, weight, bias, k):   # an older attempt, pasted again
    return fmap[:fmap.shape[0] - k + 1, :fmap.shape[1] - k + 1] @ weight[:, :fmap.shape[2]].T + bias
'''
AS_DICT = '''import numpy as np


def gap_head(fmap, V, c):
    return {"logits": V @ fmap.mean(axis=(0, 1)) + c, "class_map": fmap @ V.T + c}
'''
CACHED_WEIGHT = '''import numpy as np

_WT = None


def linear(x, weight, bias=None):
    global _WT
    if _WT is None or _WT.shape != weight.T.shape:   # transpose once, reuse
        _WT = weight.T.copy()
    y = x @ _WT
    return y if bias is None else y + bias
'''


def solution(exercise_id: str) -> str:
    return (ROOT / "solutions" / f"{exercise_id}.py").read_text(encoding="utf-8")


def notebook(tmp: Path, name: str, **sources: str) -> Path:
    """The generated notebook with every solution cell holding the reference, or the source given for it."""
    nb = nbformat.read(NOTEBOOK, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code" and cell.id.endswith("-solution"):
            exercise_id = cell.id.removesuffix("-solution")
            cell.source = sources.get(exercise_id, solution(exercise_id))
    path = tmp / f"{name}.ipynb"
    nbformat.write(nb, path)
    return path


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("heldout-assignment")
    students = {
        "linear-twice": notebook(tmp, "linear-twice", dense_scores=solution("dense_scores") + LINEAR_DRAFT),
        "dense-twice": notebook(tmp, "dense-twice", gap_head=solution("gap_head") + DENSE_DRAFT),
        "cached-weight": notebook(tmp, "cached-weight", linear=CACHED_WEIGHT),
        "as-dict": notebook(tmp, "as-dict", gap_head=AS_DICT),
    }
    with helpers.assignment_session(NAME) as grading:
        return {name: grading.grade(path, name) for name, path in students.items()}


def section(result, exercise_id: str):
    return next(s for s in result.sections if s.exercise == exercise_id)


@pytest.mark.parametrize("student, function, cell", [("linear-twice", "linear", "code cell 5"),
                                                     ("dense-twice", "dense_scores", "code cell 7")])
def test_a_function_defined_twice_is_told_once(graded, student, function, cell):
    part = section(graded[student], function)
    told = [w for w in part.warnings if "is defined" in w]
    assert len(told) == 1, part.warnings
    assert told[0].startswith(f"{function}() is defined in ") and f"the one graded is the last, in {cell}" in told[0]
    others = [s for s in graded[student].sections if s.exercise != function]
    assert all(s.score == s.max_score and not s.warnings for s in others), [(s.exercise, s.warnings) for s in others]


def test_a_weight_kept_from_an_earlier_call_is_named(graded):
    result = graded["cached-weight"]
    part = section(result, "linear")
    assert part.score < part.max_score
    found = {d.id: d.evidence for d in part.diagnoses}
    assert set(found) == {"stale-result"}, found
    assert "the weight of the case 'batch'" in found["stale-result"], found
    assert "the case 'batch-again'" in found["stale-result"], found
    assert all(s.score == s.max_score for s in result.sections if s.exercise != "linear")


def test_the_advice_without_a_finding_fits_every_exercise():
    said = report.unexplained(object())
    assert "layer at a time" not in said and said.startswith("No known mistake matched your results.")


def test_a_dict_returned_is_not_called_an_array(graded):
    part = section(graded["as-dict"], "gap_head")
    found = {d.id: d.evidence for d in part.diagnoses}
    assert set(found) == {"not-a-pair"}, found
    assert "returned one dict on probe" in found["not-a-pair"], found
