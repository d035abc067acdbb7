"""Notebooks as Jupyter, Colab, VS Code, Kaggle, Deepnote, Databricks, Jupytext and Spyder save them (round five of
probing real notebooks). The files under submissions/notebooks-round5/ are described in its README; the folder is
graded once, as a class (about 4 s).

What a student got before this round: a cell opening with a magic ('%matplotlib inline', '!pip install') and holding
a real syntax error further down was said to fail on its magic line ("line 1: invalid syntax -> '%matplotlib
inline'"), where Jupyter names the student's own line; Colab's '%%writefile /content/helpers.py' (Colab's working
folder) and Kaggle's '/kaggle/working/' were refused, so a right function using its helper lost 16 of 17 points;
'display(x, display_id=True).update(...)' raised AttributeError, 'get_ipython().ex(...)' defined nothing, and a
function from a Databricks '# MAGIC %run ./solution' got only "No function named 'vgg_classifier' is defined".
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import exercise_helpers as helpers
from conftest import SUBMISSIONS, diagnosis_ids, grade_students
from grader import submission

FOLDER = SUBMISSIONS / "notebooks-round5"
NAMES = sorted(p.stem for p in FOLDER.iterdir() if p.suffix in (".ipynb", ".py"))
NOT_RUN = "was not run during grading"
STAND_IN = "is not available while grading; a stand-in that does nothing was used for it"

#: right code: full marks, and exactly these warnings (a substring each, in order)
FULL = {
    "attachments-large-image": [f"'matplotlib.pyplot' {STAND_IN}"],
    "capture-then-use": [],  # '%%capture cap' keeps what it printed since round six
    "colab-full-meta": [f"'!pip install -q numpy==1.26.4' {NOT_RUN}", f"'google.colab' {STAND_IN}"],
    "colab-tf-version": [f"'%tensorflow_version' {NOT_RUN}", f"'google.colab' {STAND_IN}"],
    "colab-writefile-content": [],
    "counts-odd": [],
    "cr-only-lines": [],
    "crlf-cells-bom-file": [],
    "databricks": ["The cell at line 34 raised NameError: \"name 'spark' is not defined\" (line 36)"],
    "databricks-export": [f"'%pip' {NOT_RUN}", "%run './helpers' was not run", f"'%md' {NOT_RUN}",
                          "SyntaxError in code cell 4 (cell 5 of the notebook), line 2: invalid syntax -> 'SELECT 1'"],
    "deepnote": [],
    "display-handle": [],
    "empty-cells": [],
    "env-cd-store": [f"'%{m}' {NOT_RUN}" for m in ("cd", "pwd", "pdb", "store")],  # %env runs (round 8),
    "error-in-last-cell-right": ["Code cell 2 (cell 2 of the notebook) raised ValueError: 'matmul"],
    "heading-v4": [],
    "help-lines": [],
    "indented-magic-cell": [],
    "ipython-ex": [],
    "ipython-shell-ns": [],
    "jupytext-paired": [],
    "kaggle": ["raised FileNotFoundError: \"[Errno 2] No such file or directory: '/kaggle/input/vgg-weights/fc.npz'\"",
               "Code cell 4 (cell 4 of the notebook) raised NameError: \"name 'W1' is not defined\"",
               f"'pandas' {STAND_IN}"],
    "kaggle-writefile-working": [],
    "light-script": ["The cell at line 20 raised NameError", f"'!pip install numpy' {NOT_RUN}"],
    "load-magic": [],
    "magics-mix": [f"'!pip install numpy' {NOT_RUN}", f"'%pip' {NOT_RUN}", f"'!ls' {NOT_RUN}",
                   f"'IPython.display' {STAND_IN}", "%run 'other.ipynb' was not run"],
    "main-guard": [],
    "markdown-writefile": [],
    "nbconvert-script-style": [f"'!pip install numpy' {NOT_RUN}", f"'!ls' {NOT_RUN}"],
    "prose-in-code-cell": ["SyntaxError in code cell 3 (cell 3 of the notebook), line 1: invalid syntax -> 'My answer"],
    # run since notebooks round 7 with its inner quotes switched (grader/fstrings.py), and told so
    "py312-scratch": ["The f-strings at code cell 3 (cell 3 of the notebook), line 2 reuse their own quotes"],
    "raw-and-fences-right": [],
    "run-content-py": [],
    "saved-running": [],
    "script-false-skip": [f"A '%%{m}' cell {NOT_RUN}" for m in ("script", "bash", "sh")],
    "shell-assignments": [f"'!ls' {NOT_RUN}", f"'%sx' {NOT_RUN}"],
    "shell-continuation": [f"'!pip install numpy      scipy' {NOT_RUN}"],
    "source-one-string": [],
    "spyder": ["The cell at line 18 raised NameError: \"name 'undefined_call' is not defined\" (line 19)"],
    "sql-cell": ["SyntaxError in code cell 2 (cell 2 of the notebook), line 2: invalid syntax -> 'SELECT * FROM t'"],
    "tabs-def": [],
    "time-line-assign": [f"'%timeit' {NOT_RUN}"],
    "v3-two-worksheets-string-input": [],
    "v3-worksheets": [],
    **{f"v4{minor}-no-ids": [] for minor in range(5)},
    "v44-with-ids": [],
    "v45-duplicate-ids": [],
    "v45-missing-ids": [],
    "vscode": [],
    "vscode-hash-percent": [],
    "vscode-languageid": ["Code cell 3 (cell 3 of the notebook) raised NameError: \"name 'ls' is not defined\"",
                          "SyntaxError in code cell 4 (cell 4 of the notebook), line 1: invalid syntax -> 'SELECT 1'"],
    "writefile-append": [],
    "writefile-exec-open": [],
    "writefile-quoted-name": [],
    "writefile-reload": [],
    "writefile-run-i": [],
    "writefile-star-import": [],
    "writefile-subfolder": [],
}
#: wrong code or a function that cannot run: the score and the one finding
WRONG = {
    "v4-wrong": (8, "missing-relu"),
    "error-in-last-cell-wrong": (8, "missing-relu"),
    "bom-in-cell": (1, "raises-error"),
    "sys-path-drive": (1, "raises-error"),
}
#: no function to grade: the error's kind and a substring of its sentence
ERRORS = {
    "fence-only": ("missing-function", "Cell 2 of the notebook contains 'def vgg_classifier', but it is a text "
                                       "(markdown) cell, so it never runs"),
    "run-notebook-only": ("missing-function", "vgg_classifier() was to come from '%run ./solution.ipynb'"),
    "databricks-run-only": ("missing-function", "vgg_classifier() was to come from '%run ./solution', in the cell "
                                                "at line 1, but './solution' is not part of the submission"),
    "py312-in-def": ("syntax-error", "a 'type' statement is Python 3.12 syntax"),
    "syntax-in-def-with-magic": ("syntax-error", "SyntaxError in code cell 1 (cell 1 of the notebook), line 7: '(' "
                                                 "was never closed -> 'return (h @ W3 + b3'"),
}


@pytest.fixture(scope="module")
def results(session):
    return grade_students(FOLDER, session, NAMES)


def test_every_file_is_described_and_expected():
    readme = (FOLDER / "README.md").read_text(encoding="utf-8")
    assert [n for n in NAMES if f"`{n}." not in readme] == []
    assert sorted(NAMES) == sorted([*FULL, *WRONG, *ERRORS])


def test_each_notebook_gets_its_score_and_its_sentences(results):
    """One test for the class, so that a failure lists every file that went wrong, not the first."""
    wrong = helpers.class_faults(results, FULL, ERRORS)
    for name, (points, finding) in WRONG.items():
        result = results[name]
        if result.status != "graded" or result.score != points or diagnosis_ids(result) != {finding}:
            wrong[name] = (result.score, diagnosis_ids(result))
    assert wrong == {}


@pytest.mark.parametrize("cell, line, says", [
    ("%matplotlib inline\nimport numpy as np\ndef f(x):\n    return (x\n", 4, "'(' was never closed"),
    ("\n\n!pip install numpy\nx = (1,\n", 4, "'(' was never closed"),
    ("files = !ls\nprint(files\n", 2, "'(' was never closed"),
    ("import numpy as np\nnp?\ndef f(:\n    pass\n", 3, "invalid syntax -> 'def f(:'"),
    ("%sql\nSELECT 1\n", 2, "invalid syntax -> 'SELECT 1'"),
    ("!ls \\\n  -la\nx = (\n", 1, "invalid syntax -> '!ls \\'"),  # the lines moved: the first error stands
])
def test_a_syntax_error_below_a_magic_is_named_on_its_own_line_as_jupyter_does(cell, line, says):
    """Jupyter compiles the cell once its magics are rewritten, so its error is the student's line; the grader named
    the first magic, which Python alone cannot read. The same in a notebook and in a script's '# %%' cell."""
    notebook = {"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": cell}], "metadata": {},
                "nbformat": 4, "nbformat_minor": 5}
    for name, raw, where in (("a.ipynb", json.dumps(notebook).encode(), f"cell 1 of the notebook), line {line}"),
                             ("a.py", f"x = 0\n# %%\n{cell}".encode(), f"at line {line + 2}")):
        error = next(c.syntax_error for c in submission.parse(Path(name), raw).cells if c.syntax_error)
        assert f"{where}: {says}" in error, error
