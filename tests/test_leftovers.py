"""Small cases found by probing: %%cython cells, empty submissions, a name bound to another exercise's function."""
from __future__ import annotations

from conftest import CORRECT, notebook


def test_a_cython_cell_whose_body_is_python_runs_as_python_and_says_so(grade_source):
    result = grade_source(notebook("%load_ext Cython", "%%cython\n" + CORRECT), "student.ipynb")
    assert result.status == "graded", result.error
    assert result.score == result.max_score
    assert any("%%cython" in w and "ran as plain Python" in w for w in result.warnings), result.warnings


def test_a_cython_cell_in_real_cython_is_not_run_and_is_no_syntax_error(grade_source):
    cython = "%%cython\ncimport numpy as cnp\ncdef double first(double[:] x):\n    return x[0]\n"
    result = grade_source(notebook("%load_ext Cython", cython, CORRECT), "student.ipynb")
    assert result.status == "graded", result.error
    assert result.score == result.max_score
    assert any("%%cython" in w and "not run" in w and "not plain Python" in w for w in result.warnings)


def test_a_solution_only_in_real_cython_reads_as_missing_not_as_a_syntax_error(grade_source):
    result = grade_source(notebook("%%cython\ncdef int n = 3\n" + CORRECT), "student.ipynb")
    assert result.status == "error" and result.error.kind != "syntax", result.error
    assert any("%%cython" in w and "not run" in w for w in result.warnings), result.warnings


def test_an_empty_py_file_says_it_is_empty(grade_source):
    for source in ("", "\n  \n\t\n"):
        result = grade_source(source)
        assert result.status == "error" and result.error.kind == "missing-function"
        assert result.error.message.startswith("The file is empty"), result.error.message


def test_a_py_file_of_only_comments_says_it_holds_no_code(grade_source):
    result = grade_source("# TODO: write vgg_classifier here\n\n    # later\n")
    assert result.error.message.startswith("The file holds only comments, no code"), result.error.message


def test_a_notebook_whose_code_cells_are_empty_says_so(grade_source):
    result = grade_source(notebook("# MD# The head", "", "# my answer\n", "\n"), "student.ipynb")
    assert result.error.message.startswith("The notebook's code cells are all empty"), result.error.message


def test_a_file_with_code_but_not_the_function_still_reads_as_a_missing_name(grade_source):
    result = grade_source("# the head\nimport numpy as np\n")
    assert result.error.message.startswith("No function named 'vgg_classifier'"), result.error.message
