"""Notebooks and exports from Jupyter, Colab, VS Code and PyCharm that the first rounds missed (round two of probing
real notebooks). The notebooks under submissions/notebooks/round2-* that a Python kernel can run were run for real
(nbclient) and carry their outputs; the R and Python 2 notebooks carry the metadata those kernels write. Each test
says what a student saw before: a wrong or empty sentence, or no marks for work that ran in Colab."""
from __future__ import annotations

import dataclasses
import json

import pytest

from conftest import CORRECT, SUBMISSIONS, notebook
from grader.grade import Session, grade_file
from grader.sandbox import Sandbox

NOTEBOOKS = SUBMISSIONS / "notebooks"
DEF = CORRECT.replace("import numpy as np\n\n", "")


def grade(session, name: str):
    return grade_file(NOTEBOOKS / f"round2-{name}", session)


def full_marks(result):
    assert result.status == "graded", result.error
    assert result.score == result.max_score, [(c.id, c.message) for c in result.checks if c.status != "passed"]


def with_kernel(nb: dict, language: str, display: str, version: str) -> dict:
    nb["metadata"] = {"kernelspec": {"display_name": display, "language": language, "name": display.lower()},
                      "language_info": {"name": language, "version": version}}
    return nb


# -- notebooks of another kernel -------------------------------------------------------------------------------
def test_an_r_notebook_is_named_as_such_not_as_a_newer_python(session):
    """It said 'SyntaxError ... (the notebook last ran on Python 4.3 ...)': R's version read as Python's."""
    result = grade(session, "r-kernel.ipynb")
    assert result.status == "error" and result.error.kind == "unsupported-file-type"
    message = result.error.message
    assert "is an R notebook" in message and "code cell 1 (cell 2 of the notebook), line 2" in message, message
    assert "Python 3 notebook" in message and "Python 4" not in message, message


def test_a_julia_notebook_names_its_kernel(grade_source):
    nb = with_kernel(notebook("function vgg_classifier(x)\n    return x'\nend"), "julia", "Julia 1.10.0", "1.10.0")
    result = grade_source(nb, "julia.ipynb")
    assert result.status == "error" and result.error.kind == "unsupported-file-type"
    assert "is a Julia notebook (its kernel is 'Julia 1.10.0')" in result.error.message, result.error.message


@pytest.mark.parametrize("metadata", [
    {"kernelspec": {"display_name": "R", "language": "R", "name": "ir"}, "language_info": {"name": "R"}},
    {"kernelspec": "R", "language_info": 5},  # hand-edited: neither is an object
])
def test_python_code_under_another_kernels_metadata_is_graded(grade_source, metadata):
    """Colab's R runtime chosen by mistake, then Python typed: the code is Python, so it is graded as such."""
    nb = notebook(CORRECT)
    nb["metadata"] = metadata
    full_marks(grade_source(nb, "student.ipynb"))


def test_a_python_2_notebook_says_which_python_ran_it(session):
    """The syntax error of 'print x' now says the notebook last ran on Python 2.7."""
    result = grade(session, "python2-kernel.ipynb")
    assert result.status == "error" and result.error.kind == "syntax-error"
    assert "Missing parentheses" in result.error.message
    assert "the notebook last ran on Python 2.7" in result.error.message, result.error.message


# -- definitions in cell magics that do not define them --------------------------------------------------------
def test_a_definition_inside_timeit_names_the_magic(session):
    """IPython runs a %%timeit body inside a function (the saved self-check said there was no function): it said
    only "No function named 'vgg_classifier' is defined in the submission"."""
    result = grade(session, "timeit-definition.ipynb")
    assert result.status == "error" and result.error.kind == "missing-function"
    message = result.error.message
    assert "inside the %%timeit cell, code cell 2 (cell 2 of the notebook)" in message, message
    assert "remove the '%%timeit' line" in message and "No function named" not in message, message


def test_a_written_file_never_imported_says_how_to_import_it(session):
    result = grade(session, "writefile-not-imported.ipynb")
    assert result.status == "error" and result.error.kind == "missing-function"
    assert "'from vgg_solution import vgg_classifier'" in result.error.message, result.error.message


@pytest.mark.parametrize("magic", ["%%bash", "%%script false --no-raise-error", "%%script python3"])
def test_a_definition_in_a_cell_of_another_program_names_that_cell(grade_source, magic):
    """'%%script false' is the usual way to switch a cell off; '%%script python3' runs it in another process."""
    result = grade_source(notebook("import numpy as np", f"{magic}\n" + DEF), "student.ipynb")
    assert result.status == "error"
    name = magic.split()[0]
    assert f"inside the {name} cell, code cell 2" in result.error.message, result.error.message
    assert "nothing it defines is kept" in result.error.message, result.error.message


def test_a_named_capture_cell_binds_its_name(session):
    """'%%capture setup' then 'setup.show()': the next cell raised NameError: name 'setup' is not defined."""
    result = grade(session, "capture-named.ipynb")
    full_marks(result)
    assert not any("NameError" in w for w in result.warnings), result.warnings


def test_an_error_inside_a_time_cell_names_its_cell_and_line(session):
    """The function, defined in a %%time cell after a blank line, calls an undefined relu on the cell's 5th line:
    the message said '(line 4)' of no cell (the body's own count, after IPython dropped its blank first line)."""
    result = grade(session, "time-cell-error-line.ipynb")
    returns = next(c for c in result.checks if c.id == "returns")
    assert "NameError: \"name 'relu' is not defined\" (line 5 of code cell 2)" in returns.message, returns.message


def test_an_error_inside_nested_cell_magics_of_a_script_names_its_file_line(grade_source):
    source = "import numpy as np\n" + DEF + "# %%\n%%capture out\n%%time\n\nz = undefined_b\n"
    result = grade_source(source, "student.py")
    full_marks(result)
    line = source.count("\n")
    assert any(f"'undefined_b' is not defined\" (line {line})" in w for w in result.warnings), result.warnings


# -- %reset --------------------------------------------------------------------------------------------------
def test_reset_after_the_definition_deletes_it_as_in_jupyter(session):
    """It was ignored (full marks, 'The line magic %reset was not run'), though the notebook's own self-check, run
    after it, said there was no function: now it runs, as 'del' does, and the sentence names it."""
    result = grade(session, "reset-after-definition.ipynb")
    assert result.status == "error" and result.error.kind == "missing-function"
    message = result.error.message
    assert "defined in code cell 1 (cell 1 of the notebook), but '%reset' in code cell 2" in message, message


@pytest.mark.parametrize("cells", [("%reset -f\nimport numpy as np", DEF),
                                   (CORRECT, "%reset -f", CORRECT),
                                   (CORRECT, "x = 1", "%reset_selective -f ^x$\n%xdel x")])
def test_a_reset_that_leaves_the_function_costs_nothing(grade_source, cells):
    full_marks(grade_source(notebook(*cells), "student.ipynb"))


# -- exported scripts ------------------------------------------------------------------------------------------
def test_a_colab_export_runs_cell_by_cell(session):
    """Colab's .py export has no cell markers: a file read from Drive before the solution stopped the whole file
    (0 points, 'definition-failed'); as in Colab, the later cells now run, and a broken scratch cell at the end and
    a %%time cell in the middle are each their own cell."""
    result = grade(session, "colab-export.py")
    full_marks(result)
    assert any("FileNotFoundError" in w and "(line 20)" in w for w in result.warnings), result.warnings
    assert any("SyntaxError at line 39" in w for w in result.warnings), result.warnings


def test_a_script_without_colabs_header_stays_one_module(grade_source):
    """The same text without the export's opening docstring is a plain script: its first error stops it."""
    text = (NOTEBOOKS / "round2-colab-export.py").read_text(encoding="utf-8")
    plain = text[text.index("!pip"):].replace("for name in names\n  print(name)\n", "")
    result = grade_source(plain, "student.py")
    assert result.status == "error" and result.error.kind == "definition-failed", result.error


def test_text_cells_of_a_percent_script_are_not_run(session):
    """'#%% md' (PyCharm) with its markdown as plain text was compiled as code: 'Code that could not be
    compiled: SyntaxError at line 9'."""
    result = grade(session, "percent-text-cells.py")
    full_marks(result)
    assert not any("could not be compiled" in w for w in result.warnings), result.warnings


def test_a_definition_in_a_markdown_marked_cell_is_named(grade_source):
    source = "# %%\nimport numpy as np\n\n# %% [markdown]\n" + DEF + "\n# %%\nprint(1)\n"
    result = grade_source(source, "student.py")
    assert result.status == "error" and result.error.kind == "missing-function"
    assert ("The cell at line 4 contains 'def vgg_classifier', but it is marked as a text (markdown) cell"
            in result.error.message), result.error.message


# -- a cell stopped for memory --------------------------------------------------------------------------------
def test_a_cell_killed_for_memory_says_what_was_done(exercise, tmp_path):
    """It said the cell 'was skipped and the rest was run', though the cell did run until it was killed; the
    grader then ran the other cells again without it."""
    limits = dataclasses.replace(exercise.limits, memory_mib=256, cell_seconds=20.0, submission_seconds=60.0)
    box = Sandbox(limits)
    if not box.cgroups:
        pytest.skip("no cgroup here: the allocation fails with MemoryError instead of a kill")
    path = tmp_path / "student.ipynb"
    path.write_text(json.dumps(notebook(CORRECT, "big = np.ones(96_000_000)", "print('after')")), encoding="utf-8")
    with Session(exercise, full_scale=False, sandbox=box) as session:
        result = grade_file(path, session)
    note = next(w for w in result.warnings if "code cell 2" in w.lower())
    assert "ran out of memory" in note and "the other cells were then run again without it" in note, note
    assert "skipped" not in note
    assert result.status == "graded" and result.score == result.max_score - 1  # only 'completes' is lost


# -- characters and files that copying and converting bring ----------------------------------------------------
@pytest.mark.parametrize("old, new, says", [
    ("    h = np.maximum(0.0, x", "\u00a0\u00a0\u00a0\u00a0h = np.maximum(0.0, x", "a no-break space"),
    ("return h @ W3 + b3", "return h @ W3 + b3  # \u201clogits\u201d\n    print(\u201cdone\u201d)", "a curly quote"),
    ("h = np.maximum(0.0, h @", "h\u200b = np.maximum(0.0, h @", "an invisible zero-width character"),
    ("x @ W1 + b1", "x @ W1 \u2013 (-b1)", "a dash, not the minus sign"),
    ("np.maximum(0.0, x @ W1 + b1)", "np.maximum\uff080.0, x @ W1 + b1)", "a full-width character"),
])
def test_a_pasted_character_is_named_for_what_it_is(grade_source, old, new, says):
    """Python says only 'invalid non-printable character U+00A0': the sentence now says what the character is."""
    result = grade_source(notebook(CORRECT.replace(old, new)), "student.ipynb")
    assert result.status == "error" and result.error.kind == "syntax-error"
    assert says in result.error.message and "code cell 1" in result.error.message, result.error.message


@pytest.mark.parametrize("raw, says", [
    (b"version https://git-lfs.github.com/spec/v1\noid sha256:" + b"4d" * 32 + b"\nsize 12345\n", "a Git LFS pointer"),
    (b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03" + bytes(20), "is a gzip-compressed file"),
    (b"---\njupyter:\n  kernelspec:\n    name: python3\n---\n\n# Head\n\n```python\nx = 1\n```\n",
     "is a Jupytext Markdown file"),
    (json.dumps(notebook(CORRECT)).encode() * 2, "a complete JSON document ends before line 1, column "),
])
def test_a_file_that_is_not_a_notebooks_json_says_what_it_is(grade_source, raw, says):
    """Each said only 'not valid JSON (Expecting value: line 1 column 1 (char 0))' or '(Extra data ...)'."""
    result = grade_source(raw, "student.ipynb")
    assert result.status == "error" and result.error.kind == "not-json"
    assert says in result.error.message, result.error.message


# -- the function in a file beside the notebook ----------------------------------------------------------------
@pytest.mark.parametrize("cells, says", [
    (("%run solution.py", "print(vgg_classifier)"), "was to come from '%run solution.py', in code cell 1"),
    (("%load solution.py",), "was to come from '%load solution.py', in code cell 1"),
    (("import numpy as np", "from google.colab import drive\ndrive.mount('/content/drive')\nimport sys\n"
      "sys.path.append('/content/drive/MyDrive/hw3')\nfrom hw3_solution import vgg_classifier"),
     "was to come from the module 'hw3_solution', in code cell 2"),
    (("import vgg_solution\nvgg_classifier = vgg_solution.vgg_classifier",),
     "was to come from the module 'vgg_solution', in code cell 1"),
    (("exec(open('solution.py').read())",), "was to come from the file 'solution.py', in code cell 1"),
])
def test_a_function_from_a_file_not_submitted_says_so(grade_source, cells, says):
    """It said "No function named 'vgg_classifier' is defined in the submission. Some cells raised errors", though
    the notebook names where the function was to come from."""
    result = grade_source(notebook(*cells), "student.ipynb")
    assert result.status == "error" and result.error.kind == "missing-function"
    assert says in result.error.message and "not part of the submission" in result.error.message, result.error.message


def test_an_import_of_another_module_is_not_blamed(grade_source):
    """A failed import of helpers, beside a function that is simply not there: the usual sentence, not 'was to
    come from'."""
    result = grade_source(notebook("from my_layers import dense", "def vgg_head(x):\n    return x"), "student.ipynb")
    assert result.status == "error" and "was to come from" not in result.error.message, result.error.message


def test_a_helper_imported_from_a_file_not_submitted_is_named(grade_source):
    code = DEF.replace("h = np.maximum(0.0, x @ W1 + b1)", "h = dense(x, W1, b1)")
    result = grade_source(notebook("import numpy as np\nfrom my_layers import dense, relu", code), "student.ipynb")
    assert result.status == "graded" and result.score < result.max_score
    assert any("needs 'dense', imported in code cell 1 (cell 1 of the notebook) from the module 'my_layers'" in w
               for w in result.warnings), result.warnings


# -- the format's number and keys as hand conversions leave them ------------------------------------------------
@pytest.mark.parametrize("version", [4.0, "4"])
def test_a_format_number_written_as_a_float_or_text_is_read(grade_source, version):
    """'"nbformat": 4.0' opens in Jupyter (it compares the value with 4); it said the file had no nbformat version."""
    nb = notebook(CORRECT)
    nb["nbformat"] = version
    full_marks(grade_source(nb, "student.ipynb"))


@pytest.mark.parametrize("version", [True, 4.5, "four", None])
def test_a_format_number_that_is_not_one_is_refused(grade_source, version):
    nb = notebook(CORRECT)
    nb["nbformat"] = version
    result = grade_source(nb, "student.ipynb")
    assert result.status == "error" and result.error.kind == "not-a-notebook"
    assert "no 'nbformat' version number" in result.error.message, result.error.message


def test_a_format_3_cell_with_its_code_under_source_is_read(grade_source):
    """A hand conversion left format 3's cells with 'source' instead of 'input': 'the code cells are all empty'."""
    nb = {"nbformat": 3, "nbformat_minor": 0, "metadata": {"name": ""}, "worksheets": [{"metadata": {}, "cells": [
        {"cell_type": "code", "language": "python", "metadata": {}, "outputs": [], "source": CORRECT}]}]}
    full_marks(grade_source(nb, "student.ipynb"))


def test_the_shipped_notebook_exported_by_colab_gets_full_marks(grade_source):
    """Colab writes each text cell as a triple-quoted string, unescaped: the statement's LaTeX ('\\xrightarrow')
    is then no valid string literal, and the whole export was one syntax error (0 points, 'vgg_classifier() was
    never defined'). Text cells are now left out, as Colab never runs them."""
    shipped = json.loads((NOTEBOOKS.parent.parent.parent / "notebooks" / "vgg_classifier.ipynb").read_text("utf-8"))
    parts = []
    for cell in shipped["cells"]:
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell.get("id") == "solution":
            source = CORRECT
        parts.append(f'"""{source}"""' if cell["cell_type"] == "markdown" else source)
    text = ('# -*- coding: utf-8 -*-\n"""vgg_classifier.ipynb\n\nAutomatically generated by Colab.\n\nOriginal file is '
            'located at\n    https://colab.research.google.com/drive/1abc\n"""\n\n' + "\n\n".join(parts) + "\n")
    assert "\\x" in text  # the statement still has the LaTeX this is about
    result = grade_source(text, "vgg_classifier.py")
    full_marks(result)
    assert not any("could not be compiled" in w for w in result.warnings), result.warnings


def test_the_statement_in_a_scripts_text_cells_is_not_taken_for_pasted_code(grade_source):
    """The shipped notebook exported by VS Code untouched: its text cells, commented line by line, hold the
    statement's signature; the note said that code was pasted into a text cell. Only the starter's 0 is left."""
    shipped = json.loads((NOTEBOOKS.parent.parent.parent / "notebooks" / "vgg_classifier.ipynb").read_text("utf-8"))
    parts = []
    for cell in shipped["cells"]:
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] == "markdown":
            parts.append("# %% [markdown]\n" + "\n".join(f"# {line}" if line else "#" for line in source.split("\n")))
        else:
            parts.append("# %%\n" + source)
    result = grade_source("\n\n".join(parts) + "\n", "vgg_classifier.py")
    assert result.status == "graded" and result.score == 0
    assert not any("marked as a text" in w for w in result.warnings), result.warnings
