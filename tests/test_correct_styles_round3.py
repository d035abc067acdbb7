"""Correct solutions in a third round of styles: every one gets full marks and no finding.

The round's submissions are in ``tests/submissions/correct-round3/`` (listed in its README): .py files and
notebooks, graded once as a class folder and read per file. Some failed before this round's fixes in the child,
because the sandbox's interpreter differed from a student's in ways the code could see:

- ``breakpoint()`` after ``os.environ["PYTHONBREAKPOINT"] = "0"``: a no-op at home, BdbQuit here (``python -I``
  ignores the variable), 1/17 (``breakpoint-disabled-env.py``, ``breakpoint-env-off.ipynb``);
- ``getpass.getuser()`` at import: KeyError, the worker uid has no passwd entry and no USER was set, so the
  definition never ran (``home-user-hostname.py``);
- ``inspect.getsource`` of a function of the submission: OSError, no source was registered for its code; before the
  ``def`` it stopped the file (``getsource-before-def.py``, ``getsource-same-cell.ipynb``);
- a module ``__getattr__`` (PEP 562) that serves ``vgg_classifier``: "no function named" (``module-getattr-lazy.py``);
- ``get_ipython().run_cell(code)`` defining the function, or ``get_ipython().push({...})`` binding it: "no function
  named" (``run-cell-from-shell.ipynb``, ``push-into-namespace.ipynb``);
- ``t = %timeit -o ...`` then ``t.best``: AttributeError on None in that cell (``timeit-o-*.ipynb``);
- ``HAS_JAX = False`` before ``try: import jax; HAS_JAX = True`` / ``except ImportError: pass``: the import got a
  stand-in, the flag turned True and the jax branch computed nothing, 7/17 (``flag-preset-torch.py``,
  ``guard-finally-flag.py``; ``guarded`` now counts a flag's default set before the ``try`` as the fallback).
"""
from __future__ import annotations

import pytest

from conftest import SUBMISSIONS, grade_students
from grader.grade import Session

FOLDER = SUBMISSIONS / "correct-round3"
STYLES = sorted(p.stem for p in FOLDER.iterdir() if p.suffix in (".py", ".ipynb"))

#: styles whose cost grows with the VGG16-scale case (per-element Python, per-row loops, threads, processes, a
#: broadcast product, augmented copies of W2 and W3): graded with it too. Styles that copy W1 itself (822 MB:
#: ``augmented-hstack-bias``, ``resource-cpu-count-chunks``) pass alone but can exceed the 10 s call limit when
#: the machine is loaded, so they are not graded at scale here.
AT_SCALE = ["relu-frompyfunc", "relu-map-fromiter", "fsum-last-layer", "apply-along-axis", "outer-product-accumulate",
            "vecdot-broadcast", "matvec-per-sample", "threading-two-halves", "multiprocessing-threadpool",
            "process-pool-fork", "asyncio-gather-to-thread", "blocked-inner-dim-accumulate", "homogeneous-multi-dot-last",
            "pad-insert-augment", "fortran-order-operands", "pytorch-layout-double-transpose", "kahan-free-longdouble-einsum",
            "tempfile-npy-roundtrip", "errstate-decorator", "overflow-check-isfinite", "breakpoint-disabled-env"]


def _graded(session, names: list[str]) -> dict:
    return grade_students(FOLDER, session, names)


@pytest.fixture(scope="module")
def results(session):
    return _graded(session, STYLES)


def _full_marks(result) -> None:
    assert result.status == "graded", result.error
    assert result.score == result.max_score, [(c.id, c.message) for c in result.checks if c.status != "passed"]
    assert result.diagnoses == ()


def test_the_round_has_its_styles():
    assert len(STYLES) >= 60 and set(AT_SCALE) <= set(STYLES)


@pytest.mark.parametrize("name", STYLES)
def test_round_three_styles_get_full_marks(results, name):
    _full_marks(results[name])


@pytest.mark.parametrize("name", ["inspect-signature-source", "inspect-getsource-cell", "timeit-o-result",
                                  "timeit-o-same-cell", "home-user-hostname", "run-cell-from-shell"])
def test_no_cell_of_a_working_style_raised(results, name):
    """A cell that raised is graded on, but it is not what the student's code does at home."""
    assert not [w for w in results[name].warnings if "raised" in w]


@pytest.mark.parametrize("name", ["flag-preset-torch", "guard-finally-flag"])
def test_a_flag_default_before_the_try_makes_the_import_fail_as_without_the_module(results, name):
    assert any("its import, guarded" in w for w in results[name].warnings), results[name].warnings


def test_a_handler_that_only_passes_with_no_default_keeps_the_stand_in(grade_source):
    result = grade_source("import numpy as np\ntry:\n    import matplotlib.pyplot as plt\nexcept ImportError:\n"
                          "    pass\nplt.figure()\ndef vgg_classifier(features, W1, b1, W2, b2, W3, b3):\n"
                          "    x = features.reshape(len(features), -1)\n"
                          "    return np.maximum(np.maximum(x @ W1 + b1, 0) @ W2 + b2, 0) @ W3 + b3\n")
    assert result.score == result.max_score
    assert any("a stand-in that does nothing was used" in w for w in result.warnings), result.warnings


def test_a_breakpoint_nobody_turned_off_still_fails_and_says_why(grade_source):
    result = grade_source("import numpy as np\ndef vgg_classifier(features, W1, b1, W2, b2, W3, b3):\n"
                          "    breakpoint()\n    return features.reshape(len(features), -1) @ W1 @ W2 @ W3\n")
    assert any("breakpoint()" in d.evidence for d in result.diagnoses if d.id == "raises-error")


def test_a_module_outside_the_sandbox_stops_the_file_with_its_own_name(grade_source):
    """``packaging`` is installed beside the grader but not in the sandbox: as in a bare virtual environment, the
    import fails, and the error names the module and the line rather than a mistake."""
    result = grade_source("import numpy as np\nfrom packaging.version import Version\n"
                          "def vgg_classifier(features, W1, b1, W2, b2, W3, b3):\n    return None\n")
    assert result.status == "error"
    assert "No module named 'packaging'" in result.error.message and "line 2" in result.error.message


@pytest.fixture(scope="module")
def full_session(exercise):
    with Session(exercise, full_scale=True) as session:
        yield session


def test_round_three_styles_exposed_to_scale_get_full_marks_at_vgg16_scale(full_session):
    graded = _graded(full_session, AT_SCALE)
    for name in AT_SCALE:
        _full_marks(graded[name])
        assert next(c for c in graded[name].checks if c.id == "values-full-scale").status == "passed", name
