"""Real notebooks, round six: what rounds five and six left unfinished. The files under submissions/notebooks-round6/
are described in its README; they are graded in one batch (and the one that prints past the output limit in a
second, under the tight limits).

What a student got before this round:

* ``%%capture cap`` bound ``cap`` to a stand-in that had captured nothing, so a later ``assert 'defined' in
  cap.stdout`` raised AssertionError and a warning blamed a cell that worked in Jupyter. The cell's output is now
  kept, as IPython keeps it (``stdout``, ``stderr``, ``outputs``, ``show()``), and still counted as printed text.
* a Databricks source export whose ``def vgg_classifier`` was written in a ``# MAGIC %md`` command (text to
  Databricks, a comment to Python) got only "No function named 'vgg_classifier' is defined".
* a placeholder ``def vgg_classifier(...): ...`` below the right function, in a cell the saved notebook never ran,
  scores 0 (every cell runs, as Restart & Run All would), but the warning did not say why the student saw it work.
* a cell indented as a whole ('  %matplotlib inline' first) with a real syntax error further down was said to fail
  on the magic's line ('unexpected indent'), where Jupyter dedents the cell and names the student's line.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import exercise_helpers as helpers
from conftest import SUBMISSIONS, diagnosis_ids, grade_students
from grader import submission

FOLDER = SUBMISSIONS / "notebooks-round6"
NAMES = sorted(p.stem for p in FOLDER.iterdir() if p.suffix in (".ipynb", ".py"))
NEVER_RUN = ("Code cell 4 (cell 4 of the notebook) was never run in the saved notebook (it has no execution count), "
             "but the grader runs every cell, as Restart & Run All would.")
IN_MARKDOWN = ("contains 'def vgg_classifier', but it is a markdown command ('%md'), which Databricks shows as text, so "
               "it never runs: move the code into a code cell.")

#: right code: full marks and exactly these warnings (a substring each, in order)
FULL = {
    "capture-flags": [],
    "capture-nested-time": [],
    "capture-failing-body": ["Code cell 2 (cell 2 of the notebook) raised NameError: \"name 'not_defined_yet'"],
}
#: no function to grade, or a syntax error: the error's kind and a substring of its sentence
ERRORS = {
    "databricks-md-only": ("missing-function", f"The cell at line 2 {IN_MARKDOWN}"),
    "databricks-md-later": ("missing-function", f"The cell at line 6 {IN_MARKDOWN}"),
    "indented-cell-syntax-error": ("syntax-error", "SyntaxError in code cell 2 (cell 2 of the notebook), line 7: '(' "
                                                   "was never closed"),
}


@pytest.fixture(scope="module")
def results(session):
    return grade_students(FOLDER, session, NAMES)


def test_every_file_is_described():
    readme = (FOLDER / "README.md").read_text(encoding="utf-8")
    assert [n for n in NAMES if f"`{n}." not in readme] == [] and "`output-limit/capture-over-limit.ipynb`" in readme
    assert set(NAMES) == {*FULL, *ERRORS, "placeholder-never-run", "placeholder-never-run-cleared"}


def test_each_notebook_gets_its_score_and_its_sentences(results):
    """One test for the batch, so that a failure lists every file that went wrong, not the first."""
    assert helpers.class_faults(results, FULL, ERRORS) == {}


def test_a_placeholder_in_a_cell_never_run_still_replaces_the_function_and_the_warning_says_it_never_ran(results):
    """Restart & Run All runs it, so the score stays; the sentence now explains why the student saw full output."""
    never, cleared = results["placeholder-never-run"], results["placeholder-never-run-cleared"]
    assert never.score == cleared.score == 0 and diagnosis_ids(never) == diagnosis_ids(cleared) == {"not-implemented"}
    assert [w for w in never.warnings if "starter's placeholder" in w][0].endswith(NEVER_RUN)
    # every cell without a count (outputs cleared, or never run at all): nothing tells the placeholder's cell apart
    assert [w for w in cleared.warnings if "was never run in the saved notebook" in w] == []


def test_captured_text_counts_against_the_output_limit_and_no_more_of_it_is_kept(quick_session):
    """3 MiB printed inside '%%capture cap' under a 1 MiB limit: the flood is told, as for printed text, and the
    capture keeps at most the limit (the next cell's assertion checks it in the child)."""
    result = grade_students(FOLDER / "output-limit", quick_session, ["capture-over-limit"])["capture-over-limit"]
    assert result.score == result.max_score, [(c.id, c.message) for c in result.checks if c.status != "passed"]
    assert [w for w in result.warnings if "raised" in w] == []
    assert any("printed more than 1 MiB" in w and "code cell 2" in w for w in result.warnings), result.warnings


@pytest.mark.parametrize("cell, line, says", [
    ("  %matplotlib inline\n  import numpy as np\n  def f(x):\n      return (x\n", 4, "'(' was never closed"),
    ("\n\t!pip install numpy\n\n\tx = (1,\n", 4, "'(' was never closed"),
    ("    files = !ls\n    print(files\n", 2, "'(' was never closed"),
    # only the magic indented: IPython 9 dedents nothing, and Jupyter's own error is this line's
    ("  %matplotlib inline\nx = (1,\n", 1, "unexpected indent -> '%matplotlib inline'"),
])
def test_a_syntax_error_in_an_indented_cell_is_named_on_its_own_line(cell, line, says):
    """IPython removes the indentation common to a cell's lines before it compiles it: the student's line is the one
    it names, in a notebook and in a script's '# %%' cell alike."""
    notebook = {"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": cell}], "metadata": {},
                "nbformat": 4, "nbformat_minor": 5}
    for name, raw, where in (("a.ipynb", json.dumps(notebook).encode(), f"cell 1 of the notebook), line {line}"),
                             ("a.py", f"x = 0\n# %%\n{cell}".encode(), f"at line {line + 2}")):
        error = next(c.syntax_error for c in submission.parse(Path(name), raw).cells if c.syntax_error)
        assert f"{where}: {says}" in error, error


def test_a_databricks_markdown_command_is_text_and_other_magic_commands_stay_cells():
    """Only a '%md' command whose every line is behind '# MAGIC' is a text cell; '%sql' or a cell that mixes in code
    stays a cell as before (a comment to Python, or code that runs)."""
    text = ("# Databricks notebook source\n# MAGIC %md\n# MAGIC # Title\n\n# COMMAND ----------\n\n# MAGIC %sql\n"
            "# MAGIC SELECT 1\n\n# COMMAND ----------\n\n# MAGIC %md\nx = 1\n")
    loaded = submission.parse(Path("export.py"), text.encode())
    assert [number for number, _ in loaded.prose] == [2]
    assert [c.label for c in loaded.cells] == ["the cell at line 5", "the cell at line 10"]
