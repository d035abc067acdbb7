"""Notebooks and exports as real tools save them (Databricks, IPython 1-2, VS Code, Jupytext, Colab), and the files
students submit by mistake in their place (a web page, a PDF, a zip, a merge conflict, a hand-edited JSON): the
correct ones get full marks, the broken ones a sentence that says what happened."""
from __future__ import annotations

import json
import sys

import pytest

from conftest import CORRECT, notebook

DEF = CORRECT.replace("import numpy as np\n\n", "")
HELPER = "import numpy as np\ndef relu(x):\n    return np.maximum(0.0, x)\n"
USES_HELPER = "from helpers import relu\n" + DEF.replace("np.maximum(0.0, x @ W1 + b1)", "relu(x @ W1 + b1)")


def full_marks(result):
    assert result.status == "graded", result.error
    assert result.score == result.max_score, [(c.id, c.message) for c in result.checks if c.status != "passed"]


# -- exports whose cells must run one by one -------------------------------------------------------------------
def test_a_databricks_source_export_runs_command_by_command(grade_source):
    """Databricks separates its cells with '# COMMAND ----------'; a cell that uses dbutils fails alone."""
    source = ("# Databricks notebook source\nimport numpy as np\n\n# COMMAND ----------\n\n# MAGIC %md\n# MAGIC # Head\n"
              "\n# COMMAND ----------\n\ndbutils.widgets.text('x', '1')\n\n# COMMAND ----------\n\n" + DEF)
    result = grade_source(source)
    full_marks(result)
    assert any("NameError" in w and "dbutils" in w and "(line 11)" in w for w in result.warnings)


def test_an_ipython_2_script_runs_codecell_by_codecell(grade_source):
    source = ("# -*- coding: utf-8 -*-\n# <nbformat>3.0</nbformat>\n\n# <codecell>\n\nimport numpy as np\n\n"
              "# <codecell>\n\nundefined()\n\n# <codecell>\n\n" + DEF)
    result = grade_source(source)
    full_marks(result)
    assert any("NameError" in w and "(line 10)" in w for w in result.warnings)


@pytest.mark.parametrize("marker", ["# %%", "# In[2]:", "#%% solution"])
def test_a_cell_magic_right_after_a_cell_marker_is_that_cells_magic(grade_source, marker):
    """VS Code and Jupytext run what follows the marker line: '%%writefile' there writes the file."""
    source = (f"import numpy as np\n{marker}\n%%writefile helpers.py\n{HELPER}\n{marker}\n%%time\n"
              f"%matplotlib inline\n{USES_HELPER}\n{marker}\nundefined_name\n")
    result = grade_source(source)
    full_marks(result)
    assert not any("%%writefile" in w or "%%time" in w for w in result.warnings), result.warnings
    assert any("undefined_name" in w and f"(line {source.count(chr(10))})" in w for w in result.warnings)


# -- cell magics as IPython reads them ---------------------------------------------------------------------
def test_blank_lines_before_a_time_cell_magic_are_dropped_as_ipython_drops_them(grade_source):
    nb = notebook("import numpy as np", "  \n\n%%time\n%matplotlib inline\n" + DEF)
    result = grade_source(nb, "student.ipynb")
    full_marks(result)
    assert not result.warnings


def test_a_time_cell_inside_a_capture_cell_has_its_ipython_syntax_translated(grade_source):
    nb = notebook("import numpy as np", "%%capture out\n%%time\n%matplotlib inline\n!pip install numpy\n" + DEF)
    full_marks(grade_source(nb, "student.ipynb"))


def test_a_syntax_error_inside_nested_cell_magics_names_its_line_in_the_cell(grade_source):
    nb = notebook("import numpy as np", "\n%%capture\n%%time\n" + DEF.replace("return h @ W3 + b3", "return (h @ W3"))
    result = grade_source(nb, "student.ipynb")
    assert result.error.kind == "syntax-error"
    assert "code cell 2 (cell 2 of the notebook), line 8:" in result.error.message  # the return line


def test_time_magic_of_an_expression_gives_its_value(grade_source):
    """``y = %time f(x)`` binds f(x) in IPython; the solution scales by a value computed so."""
    nb = notebook("import numpy as np", "ones = %time np.ones(3)\nscale = ones.sum() / 3\n"
                  + DEF.replace("return h @ W3 + b3", "return (h @ W3 + b3) * scale"))
    result = grade_source(nb, "student.ipynb")
    full_marks(result)
    assert not result.warnings


# -- files that are not a notebook's JSON ----------------------------------------------------------------------
def _error(grade_source, raw: bytes):
    result = grade_source(raw, "student.ipynb")
    assert result.status == "error"
    return result.error


def test_a_saved_web_page_is_named_as_such(grade_source):
    error = _error(grade_source, b'\n<!DOCTYPE html>\n<html lang="en"><head><title>vgg.ipynb - Colab</title></head>')
    assert error.kind == "not-json" and "is a web page (HTML)" in error.message and "Download" in error.message


@pytest.mark.parametrize("raw, says", [(b"%PDF-1.7\n\x93\x8c\x8b\x9e binary", "is a PDF document"),
                                       (b"PK\x03\x04\x14\x00\x00\x00\x08\x00", "is a zip archive")])
def test_a_renamed_pdf_or_zip_is_named_as_such(grade_source, raw, says):
    assert says in _error(grade_source, raw).message


def test_a_merge_conflict_is_named_with_its_line(grade_source):
    text = json.dumps(notebook(CORRECT), indent=1).replace(
        '   "execution_count": null,\n',
        '<<<<<<< HEAD\n   "execution_count": 3,\n=======\n   "execution_count": 5,\n>>>>>>> origin/main\n', 1)
    error = _error(grade_source, text.encode())
    line = text.split("\n").index("<<<<<<< HEAD") + 1
    assert f"merge conflict markers ('<<<<<<<', '=======', '>>>>>>>', the first at line {line})" in error.message


def test_a_trailing_comma_is_named_where_it_is_and_not_taken_for_python(grade_source):
    """A notebook's JSON compiles as a Python dict: the old hint said to save it as .py."""
    text = ('{\n "cells": [\n  {\n   "cell_type": "code",\n   "metadata": {},\n   "outputs": [],\n'
            '   "source": ["x = 1\\n"],\n  }\n ],\n "metadata": {},\n "nbformat": 4,\n "nbformat_minor": 5\n}\n')
    error = _error(grade_source, text.encode())
    assert "a comma before the closing '}' at line 8, column 3 (a trailing comma" in error.message
    assert ".py extension" not in error.message


def test_a_notebook_in_a_legacy_encoding_says_it_is_not_utf8(grade_source):
    raw = json.dumps(notebook("# r\u00e9sum\u00e9\n" + CORRECT), ensure_ascii=False).encode("cp1252")
    error = _error(grade_source, raw)
    assert "not saved as UTF-8" in error.message and "0xe9" in error.message
    assert ".py extension" not in error.message


def test_a_notebook_cut_off_part_way_says_so(grade_source):
    text = json.dumps(notebook(CORRECT), indent=1)
    error = _error(grade_source, text[: len(text) // 2].encode())
    assert "it ends part-way through" in error.message and "cut off" in error.message


def test_python_source_saved_as_ipynb_still_gets_its_hint(grade_source):
    assert ".py extension" in _error(grade_source, CORRECT.encode()).message


def test_a_notebook_whose_outputs_hold_too_many_values_says_to_clear_them(grade_source):
    """A plotly figure saves its data as JSON numbers in the output: over the cap, the student learns what to do."""
    figure = {"data": {"application/vnd.plotly.v1+json": {"data": [{"x": [0.5] * 2_100_000}]}},
              "metadata": {}, "output_type": "display_data"}
    nb = notebook(CORRECT)
    nb["cells"][0]["outputs"] = [figure]
    result = grade_source(nb, "student.ipynb")
    assert result.error.kind == "too-many-cells" and "Clear All Outputs" in result.error.message


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="the grader's own Python reads 3.12's f-strings")
def test_a_syntax_error_from_a_newer_python_says_which_python_ran_the_notebook(grade_source):
    """Colab runs Python 3.12: an f-string that reuses its quotes ran there and is a syntax error here (in a debug
    field, whose text 3.12 prints as written, so the grader cannot switch its quotes: ``grader/fstrings.py``)."""
    nb = notebook(CORRECT + 'sizes = {"K": 3}\nprint(f"{sizes["K"]=} classes")\n')
    nb["metadata"]["language_info"] = {"name": "python", "version": "3.12.11"}
    result = grade_source(nb, "student.ipynb")
    assert result.error.kind == "syntax-error"
    assert "(the notebook last ran on Python 3.12; the grader runs Python 3.11" in result.error.message
    del nb["metadata"]["language_info"]
    assert "last ran on" not in grade_source(nb, "student.ipynb").error.message
