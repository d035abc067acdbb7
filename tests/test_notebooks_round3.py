"""Notebooks from Jupyter, JupyterLab, Colab and course tooling that the first two rounds missed (round three of
probing real notebooks). The round3-* notebooks under submissions/notebooks were run for real (nbclient) and carry
their outputs. Each test says what a student saw before: marks lost for a cell the autograding tools skip, or a
sentence that named an exception but not the line of theirs that caused it."""
from __future__ import annotations

import pytest

from conftest import CORRECT, SUBMISSIONS, notebook
from grader.grade import grade_file

NOTEBOOKS = SUBMISSIONS / "notebooks"


def grade(session, name: str):
    return grade_file(NOTEBOOKS / f"round3-{name}", session)


def full_marks(result):
    assert result.status == "graded", result.error
    assert result.score == result.max_score, [(c.id, c.message) for c in result.checks if c.status != "passed"]


def tagged(nb: dict, index: int, *tags: str) -> dict:
    nb["cells"][index]["metadata"]["tags"] = list(tags)
    return nb


# -- the 'skip-execution' tag ----------------------------------------------------------------------------------
def test_a_cell_tagged_skip_execution_is_not_run(session):
    """A training loop tagged 'skip-execution' (nbclient, and so nbgrader, skip it; the saved notebook shows it never
    ran) was run anyway: stopped after 30 s, it cost the 'completes' point and half a minute per student."""
    result = grade(session, "skip-execution.ipynb")
    full_marks(result)
    assert any("Code cell 3 (cell 3 of the notebook) is tagged 'skip-execution', so it was not run" in w
               for w in result.warnings), result.warnings
    assert not any("time limit" in w for w in result.warnings), result.warnings


def test_a_definition_only_in_a_skipped_cell_names_the_tag(grade_source):
    result = grade_source(tagged(notebook("x = 1", CORRECT), 1, "skip-execution"), "student.ipynb")
    assert result.status == "error" and result.error.kind == "missing-function"
    message = result.error.message
    assert "defined only in cell 2 of the notebook, which is tagged 'skip-execution'" in message, message
    assert "remove that tag" in message, message


def test_a_notebook_whose_every_code_cell_is_skipped_says_so(grade_source):
    """It said the notebook had no code cell at all."""
    result = grade_source(tagged(notebook(CORRECT), 0, "hide-input", "skip-execution"), "student.ipynb")
    assert result.status == "error"
    assert "Every code cell of 'student.ipynb' is tagged 'skip-execution'" in result.error.message, result.error.message


def test_other_tags_change_nothing(grade_source):
    nb = tagged(notebook(CORRECT, "raise ValueError('on purpose')"), 1, "raises-exception", "hide-input")
    nb["cells"][0]["metadata"] = {"tags": ["skip"], "jupyter": {"source_hidden": True}, "collapsed": True}
    full_marks(grade_source(nb, "student.ipynb"))


# -- waiting for someone to type --------------------------------------------------------------------------------
def test_input_in_the_definitions_cell_is_named(session):
    """It said only 'raised EOFError: EOF when reading a line', where the student had typed their id in Jupyter."""
    result = grade(session, "input-in-definition-cell.ipynb")
    assert result.status == "error" and result.error.kind == "definition-failed"
    message = result.error.message
    assert "code cell 1 (cell 1 of the notebook), which defines it" in message, message
    assert "That is an input() or getpass() call waiting for someone to type" in message, message


@pytest.mark.parametrize("line, says", [
    ("from getpass import getpass\ntoken = getpass('token: ')", "an input() or getpass() call"),
    ("breakpoint()", "a breakpoint() or pdb.set_trace() left in the cell"),
])
def test_a_prompt_before_the_definition_is_named(grade_source, line, says):
    result = grade_source(notebook(line + "\n" + CORRECT), "student.ipynb")
    assert result.status == "error" and result.error.kind == "definition-failed"
    assert says in result.error.message, result.error.message


def test_an_eof_of_a_file_read_is_not_taken_for_a_prompt(grade_source):
    """pickle.load of an empty file raises EOFError too ('Ran out of input'): that is no input() call."""
    source = "import io, pickle\npickle.load(io.BytesIO(b''))\n" + CORRECT
    result = grade_source(notebook(source), "student.ipynb")
    assert result.error.kind == "definition-failed", result.error
    assert "Ran out of input" in result.error.message and "input()" not in result.error.message


# -- a notebook under another name --------------------------------------------------------------------------------
@pytest.mark.parametrize("name, says", [
    ("vgg.ipynb.txt", "'vgg.ipynb.txt' is named like a .ipynb file with '.txt' added after it"),
    ("vgg.py.txt", "rename it to 'vgg.py' and submit it again"),
    ("vgg.zip", "'vgg.zip' is an archive: unpack it"),
    ("vgg.html", "'vgg.html' is a web page copy of the work, which cannot be run: submit the notebook itself"),
    ("vgg.txt", "Cannot grade a '.txt' file ('vgg.txt')"),
])
def test_a_file_under_another_suffix_says_what_happened_to_its_name(grade_source, name, says):
    """'vgg.ipynb.txt', which a browser saved, got "Cannot grade a '.txt' file", as if it were not a notebook."""
    result = grade_source(notebook(CORRECT), name)
    assert result.status == "error" and result.error.kind == "unsupported-file-type"
    assert says in result.error.message, result.error.message


# -- a notebook written by a program ------------------------------------------------------------------------------
def test_lines_stored_without_line_ends_are_named(grade_source):
    """A notebook written by a script (one string per line, no '\\n') got only 'invalid syntax' on a line that read
    'import numpy as npdef vgg_classifier(...'; Jupyter joins such lines too, so the file is what to fix."""
    nb = notebook(CORRECT)
    nb["cells"][0]["source"] = CORRECT.splitlines()
    result = grade_source(nb, "student.ipynb")
    assert result.status == "error" and result.error.kind == "syntax-error"
    assert "stores this cell's lines without their line ends, so Jupyter joins them" in result.error.message


def test_a_syntax_error_of_lines_with_their_ends_gets_no_such_note(grade_source):
    result = grade_source(notebook(CORRECT.replace("):\n    x", ")\n    x")), "student.ipynb")
    assert result.error.kind == "syntax-error" and "line ends" not in result.error.message, result.error.message


# -- cells run out of order ---------------------------------------------------------------------------------------
def test_a_definition_run_last_in_jupyter_but_higher_up_is_named(session):
    """The student ran the corrected cell (above) after the first try (below): Jupyter kept the correct function and
    the saved output shows negative logits, but Restart & Run All, and the grader, keep the first try. The report
    lost points for a ReLU on the logits without a word on why the code graded was not the code that ran."""
    result = grade(session, "definitions-run-bottom-up.ipynb")
    assert result.status == "graded" and result.score < result.max_score
    assert any("vgg_classifier() is defined in code cell 1 (cell 1 of the notebook) and again in code cell 2" in w
               and "(In [2], after In [1])" in w for w in result.warnings), result.warnings


@pytest.mark.parametrize("counts", [(1, 2), (1, None), (None, None), (3, "7")])
def test_definitions_run_in_order_or_never_get_no_order_note(grade_source, counts):
    nb = notebook(CORRECT.replace("return h @ W3 + b3", "return h @ W3"), CORRECT)
    for cell, count in zip(nb["cells"], counts):
        cell["execution_count"] = count
    result = grade_source(nb, "student.ipynb")
    assert result.score == result.max_score and not any("Restart & Run All" in w for w in result.warnings)
