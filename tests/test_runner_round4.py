"""What real notebooks and unusual correct code did in the sandbox, round four: each case failed before its fix.

The submissions are in ``tests/submissions/runner-round4/`` (listed in its README), graded once as a class folder:

- ``from IPython import get_ipython`` gave a stand-in that did nothing, so ``get_ipython().run_cell_magic('time',
  '', "def ...")`` lost the function ("No function named ..."): IPython's ``get_ipython`` is now the notebook's shell;
- Colab's restart after ``!pip install`` (``os.kill(os.getpid(), 9)``, or the older ``os._exit(00)``) ended the
  run, which cost the 'completes' point: in a notebook's cell it is now a kernel restart, said in a note;
- a submission that lowered its own address-space limit (``resource.setrlimit(RLIMIT_AS, ...)``) made the large
  case's inputs unmappable, and the report blamed it for breaking the grader's code ("replacing a builtin");
- ``threadpoolctl``, ``icecream`` and ``loguru`` beside a solution were not stood in: a NameError in every call;
- Python 3.12 syntax and ``itertools.batched`` in a .py file got a bare SyntaxError or ImportError, with no word of
  the grader's older Python (a notebook's metadata gave one);
- a ``spawn`` process pool got 1/17 "too slow": its workers import the module from its file, which was not on disk;
- joblib's ``Parallel(...)(delayed(f)(x) for ...)`` was missing (1/17); ``from einops import rearrange`` was said to
  need an ``einops.py`` beside the notebook, where it is a package the grader does not have.
"""
from __future__ import annotations

import sys

import pytest

from conftest import SUBMISSIONS, grade_students
from grader.grade import Session

FOLDER = SUBMISSIONS / "runner-round4"
WORKING = ["ipython-get-ipython-time", "ipython-core-getipython", "time-cell-from-ipython-import", "colab-restart-kill",
           "kill-restart-sigkill-const", "colab-os-exit-restart", "fork-child-exits", "threadpoolctl-limit",
           "helper-imports", "spawn-pool", "spawn-pool-script-cells", "joblib-parallel-rows"]
GRADER = f"the grader runs Python {sys.version_info[0]}.{sys.version_info[1]}"
OLD_PYTHON = pytest.mark.skipif(sys.version_info >= (3, 12), reason="the grader's Python compiles 3.12 syntax")


def _graded(session, names: list[str]) -> dict:
    return grade_students(FOLDER, session, names)


@pytest.fixture(scope="module")
def results(session):
    names = sorted(p.stem for p in FOLDER.iterdir() if p.suffix in (".py", ".ipynb") and p.stem != "rlimit-as-self")
    return _graded(session, names)


@pytest.mark.parametrize("name", WORKING)
def test_working_notebooks_and_files_get_full_marks(results, name):
    result = results[name]
    assert result.status == "graded", result.error
    assert result.score == result.max_score, [(c.id, c.message) for c in result.checks if c.status != "passed"]
    assert not [w for w in result.warnings if "raised" in w], result.warnings


@pytest.mark.parametrize("name, call", [("colab-restart-kill", "os.kill(os.getpid(), ...)"),
                                        ("kill-restart-sigkill-const", "os.kill(os.getpid(), ...)"),
                                        ("colab-os-exit-restart", "os._exit()")])
def test_a_restart_after_pip_install_is_named_a_kernel_restart(results, name, call):
    warnings = results[name].warnings
    assert any("Code cell 2 restarts the kernel" in w and call in w for w in warnings), warnings
    assert not any("killed" in w or "ended the Python process" in w for w in warnings), warnings


def test_a_forked_process_that_exits_is_no_restart(results):
    """The kernel's own process restarts; a process it forked still ends (else it would run the cells twice)."""
    assert not any("restarts the kernel" in w for w in results["fork-child-exits"].warnings)


def test_a_kill_inside_the_graded_function_still_ends_the_call(results):
    result = results["kill-in-call"]
    returns = next(c for c in result.checks if c.id == "returns")
    assert returns.status != "passed" and "killed (SIGKILL)" in returns.message, returns.message
    assert not any("restarts the kernel" in w for w in result.warnings)


def test_helper_modules_are_stood_in(results):
    warnings = " ".join(results["threadpoolctl-limit"].warnings + results["helper-imports"].warnings)
    for module in ("threadpoolctl", "icecream", "loguru", "tqdm.auto", "rich", "pandas"):
        assert f"The module '{module}' is not available while grading" in warnings, module


@OLD_PYTHON
@pytest.mark.parametrize("name, construct", [("py312-fstring", "an f-string whose {...} holds its own quotes"),
                                             ("py312-type-alias", "a 'type' statement"),
                                             ("py312-generic-def", "type parameters in brackets")])
def test_newer_syntax_in_a_py_file_names_the_graders_python(results, name, construct):
    error = results[name].error.message
    assert results[name].status != "graded" and "SyntaxError at line" in error
    assert construct in error and "is Python 3.12 syntax" in error and GRADER in error, error


def test_a_plain_syntax_error_is_not_blamed_on_the_python_version(results):
    error = results["fstring-unclosed-brace"].error.message
    assert "SyntaxError at line 8" in error and "Python 3.12" not in error and GRADER not in error, error


@OLD_PYTHON
def test_a_newer_standard_library_name_names_the_graders_python(results):
    error = results["py312-batched"].error.message
    assert "cannot import name 'batched' from 'itertools'" in error, error
    assert "itertools.batched is new in Python 3.12" in error and GRADER in error, error


@pytest.fixture(scope="module")
def own_limit(exercise):
    with Session(exercise, full_scale=True) as session:
        return _graded(session, ["rlimit-as-self"])["rlimit-as-self"]


def test_its_own_memory_limit_is_named_for_the_large_case(own_limit):
    failed = {c.id: c.message for c in own_limit.checks if c.status != "passed"}
    assert failed, "the large case passed under a 100 MB address space"
    for message in failed.values():
        assert "broke the grader's own code" not in message, message
    assert "its own memory limit stopped the call" in failed["returns"], failed
    assert "resource.setrlimit(RLIMIT_AS" in failed["returns"], failed


@OLD_PYTHON
def test_a_notebook_from_a_newer_python_hears_it_once(results):
    """Its metadata names Python 3.12 and its cell holds a 'type' statement: the construct is named, and the
    sentence about the grader's Python is not said a second time from the metadata."""
    error = results["notebook-312-type-statement"].error.message
    assert "a 'type' statement is Python 3.12 syntax" in error and error.count(GRADER) == 1, error


def test_a_package_the_grader_lacks_is_named_a_package_not_a_file(results):
    notes = [w for w in results["einops-flatten"].warnings if "'rearrange'" in w]
    assert notes and "from the package 'einops', which is not installed where the grader runs" in notes[0], notes
    assert "einops.py" not in notes[0]
