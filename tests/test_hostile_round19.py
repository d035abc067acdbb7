"""Nineteenth round of hostile submissions: the parsers that read a submission's text in the grader's own process.

Loading runs before any sandbox or limit, so whatever a file holds within its size limits (8 MiB of .py, 64 MiB of
notebook, 10,000 cells, 2,000,000 JSON values, 128 KiB of code compiled per cell) must load in bounded time and
memory, and fail, if it fails, with a sentence rather than an internal error. This round timed every reader
(``fstrings``, ``pysource``, ``scriptcells``, ``jupytext``, ``marimo``, ``colabexport``, ``ipython``, the notebook
and JSON readers, ``choose.defined_functions`` and the similarity tokeniser) on generated text at those limits:
nested and unclosed f-strings, runs of '{{', backslashes, '#' and '\\r', 100,000 magic lines, 10,000 cells,
marimo cells depending on each other in reverse, a Colab export cut into 50,000 statements, JSON nested to the
limit. What it found:

- ``pysource.newer_syntax`` (which says a syntax error is Python 3.12's) searched the error's line with a pattern
  that, where no '}' followed, read to the end of the line once for every 'f"{' before it: a 128 KiB cell of
  'f"{' took 14 s to load (a notebook of two such cells, 28 s). Each line is now searched only up to its last '}'.
"""
from __future__ import annotations

import json
import time
from pathlib import Path

from grader.submission import MAX_CHECKED_CELL, load

#: generous: each case below took from 3 to 28 s before its fix, and takes a fraction of a second now
BOUND = 4.0


def loaded(path: Path, text: str):
    """The submission ``text`` loads into from ``path``, and the processor time that took."""
    path.write_text(text, encoding="utf-8")
    started = time.process_time()
    submission = load(path)
    return submission, time.process_time() - started


def code_notebook(*sources: str) -> str:
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {},
                       "cells": [{"cell_type": "code", "metadata": {}, "source": s, "outputs": [],
                                  "execution_count": None} for s in sources]})


def test_a_line_of_opened_fstrings_is_named_in_linear_time(tmp_path):
    line = 'f"{' * ((MAX_CHECKED_CELL - 16) // 3)
    submission, seconds = loaded(tmp_path / "opened.ipynb", code_notebook(line, line + '}"'))
    assert seconds < BOUND
    errors = submission.syntax_errors()
    assert len(errors) == 2
    assert "Python 3.12 syntax" not in errors[0]  # no field closes: nothing there is 3.12's
    assert "an f-string whose {...} holds its own quotes, a backslash or a comment is Python 3.12 syntax" in errors[1]
