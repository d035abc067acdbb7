"""The shipped notebook as students really hand it in: filled in, run in a Jupyter kernel (nbclient), saved with
its outputs, execution counts and the self-check's verdict. The notebooks under submissions/notebooks/executed-*
were made that way (the statement's markdown cells left out to keep them small). Each mistake here is about where
the code sits in the notebook or what only the student's kernel had, not about the computation, so the sentence the
student reads must say where."""
from __future__ import annotations

import json

import pytest

from conftest import SUBMISSIONS, notebook
from grader import missing, submission
from grader.grade import grade_file
from grader.outcomes import Execution

NOTEBOOKS = SUBMISSIONS / "notebooks"


def grade(session, name: str):
    return grade_file(NOTEBOOKS / f"executed-{name}.ipynb", session)


def test_the_files_are_executed_notebooks():
    """Every code cell that ran carries its count, and the self-check's output is saved: these are real runs."""
    for path in sorted(NOTEBOOKS.glob("executed-*.ipynb")):
        cells = [c for c in json.loads(path.read_text(encoding="utf-8"))["cells"] if c["cell_type"] == "code"]
        assert all(isinstance(c["execution_count"], int) for c in cells), path.name
        assert any("public" in "".join(o.get("text", "")) or "vgg_classifier" in "".join(o.get("text", ""))
                   for c in cells for o in c["outputs"]), path.name


@pytest.mark.parametrize("name", ["correct-rerun", "starter-then-code-below"])
def test_correct_runs_get_full_marks_and_no_note_on_definitions(session, name):
    """A rerun solution cell, a %timeit scratch cell, a last cell that raised, and a starter left above the solution
    (the later definition wins, as in the kernel) cost nothing, and nothing is said about where the code is."""
    result = grade(session, name)
    assert result.status == "graded", result.error
    assert result.score == result.max_score
    assert not any("placeholder" in w or "markdown" in w for w in result.warnings), result.warnings


def test_code_pasted_into_the_markdown_cell_is_named(session):
    """The solution typed into the 'Your solution' text cell: the starter's pass is graded (0 points), and the
    warning says which cell holds the code and which code cell it belongs in (it said only 'returns None')."""
    result = grade(session, "code-in-markdown")
    assert result.status == "graded" and result.score == 0
    note = next(w for w in result.warnings if "markdown" in w)
    assert "Cell 1 of the notebook" in note and "code cell 1 (cell 2 of the notebook)" in note, note


def test_no_note_when_the_function_graded_answers(grade_source):
    """A starter left last but rebound afterwards ('vgg_classifier = mine') is not what is graded: no note."""
    real = (NOTEBOOKS / "executed-starter-then-code-below.ipynb").read_text(encoding="utf-8")
    code = next("".join(c["source"]) for c in json.loads(real)["cells"]
                if c["cell_type"] == "code" and "h2 @ W3" in "".join(c["source"]))
    result = grade_source(notebook("import numpy as np\n" + code, "mine = vgg_classifier",
                                   "def vgg_classifier(features, W1, b1, W2, b2, W3, b3):\n    pass",
                                   "vgg_classifier = mine"), "student.ipynb")
    assert result.score == result.max_score
    assert not any("placeholder" in w for w in result.warnings), result.warnings


def test_code_pasted_into_a_raw_cell_names_its_kind(session):
    """A raw cell is not a markdown cell: the sentence names the kind the student sees in Jupyter's menu."""
    result = grade(session, "code-in-raw-cell")
    assert result.score == 0
    note = next(w for w in result.warnings if "never runs" in w)
    assert "Cell 3 of the notebook" in note and "a raw cell" in note and "markdown" not in note, note


def test_the_starter_pasted_under_the_solution_in_one_cell_is_named(session):
    """The starter's definition pasted back below the student's own, in the same cell: the later one wins."""
    result = grade(session, "stub-below-in-same-cell")
    assert result.score == 0
    note = next(w for w in result.warnings if "placeholder" in w)
    assert "defined twice in code cell 1 (cell 2 of the notebook)" in note, note


def test_code_above_the_starter_names_both_definitions(session):
    """The solution in a new cell above the untouched starter: run top to bottom, the starter's 'pass' replaces it.
    The student's own kernel ran them in another order (its self-check passed once); the note says why it fails."""
    result = grade(session, "code-above-starter")
    assert result.score == 0
    note = next(w for w in result.warnings if "placeholder" in w)
    assert "code cell 1 (cell 2 of the notebook)" in note and "code cell 2 (cell 3 of the notebook)" in note, note
    assert "top to bottom" in note


def test_a_renamed_function_with_the_same_parameters_is_suggested(session):
    """'vgg_head' is too far from the name for a spelling hint; it takes the seven parameters, so it is named."""
    result = grade(session, "renamed")
    assert result.status == "error" and result.error.kind == "missing-function"
    assert "'vgg_head'" in result.error.message and "rename it to 'vgg_classifier'" in result.error.message


def test_a_function_deleted_by_a_later_cell_is_not_called_undefined(session):
    """A tidy-up cell ran 'del vgg_classifier': the error said no such function was defined, which the student can
    see is false; it now names the cell that defines it and says a later cell removed it."""
    result = grade(session, "deleted")
    assert result.status == "error" and result.error.kind == "missing-function"
    message = result.error.message
    assert "code cell 1 (cell 2 of the notebook)" in message and "del vgg_classifier" in message, message
    assert "No function named" not in message


def test_a_helper_from_a_deleted_cell_is_explained(session):
    """The helper's cell ran, the self-check passed (its output is saved), then the cell was deleted: the function
    raises NameError in a fresh run. The note says no cell defines the name and why the student's kernel had it."""
    result = grade(session, "helper-cell-deleted")
    assert result.score < result.max_score
    note = next(w for w in result.warnings if "'relu'" in w)
    assert "no cell of the notebook defines it" in note and "Restart Kernel and Run All Cells" in note, note


def test_a_misspelt_helper_gets_the_spelling_not_the_deleted_cell_story(session):
    result = grade(session, "helper-misspelt")
    note = next(w for w in result.warnings if "'reul'" in w)
    assert "did you mean 'relu'?" in note and "kernel" not in note, note


def test_a_name_error_in_a_scratch_cell_adds_no_note(session):
    """'features' in a last scratch cell (defined in no cell) costs nothing: the cell's own warning is enough."""
    result = grade(session, "correct-rerun")
    assert not any("no cell of the notebook defines" in w for w in result.warnings), result.warnings


def test_a_broken_emoji_is_named_as_such(session):
    """Run and passed, then a comment edited in a browser frontend, which saved half an emoji as '\\ud83d'
    (JSON.stringify escapes a lone surrogate). The error was "'utf-8' codec can't encode character ... surrogates
    not allowed"."""
    result = grade(session, "broken-emoji")
    assert result.status == "error" and result.error.kind == "syntax-error"
    message = result.error.message
    assert "code cell 1 (cell 2 of the notebook), line 1" in message and "U+D83D" in message, message
    assert "emoji" in message and "surrogates" not in message


def test_definitions_are_parsed_under_the_grader_lock(exercise, monkeypatch):
    """A batch grades on threads, and CPython 3.11's AST constructor fails when two threads build trees at once
    (a probe class got 'SystemError: AST constructor recursion depth mismatch' as one student's internal error):
    the notes parse the cells only while holding pysource's lock."""
    from grader import pysource

    held: list[bool] = []
    real = pysource.ast.parse

    def parse(*args, **kwargs):
        held.append(pysource._LOCK.locked())
        return real(*args, **kwargs)

    loaded = submission.load(NOTEBOOKS / "executed-code-above-starter.ipynb")
    monkeypatch.setattr(pysource.ast, "parse", parse)
    notes = missing.definition_notes(loaded, exercise, Execution(function_found=True, function_callable=True))
    assert notes and held and all(held), (notes, held)
