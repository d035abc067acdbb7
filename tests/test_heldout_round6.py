"""What a sixth blind held-out class (helper-88's, in /tmp/h88/class: 44 correct solutions in styles the earlier
rounds had not written, 36 of them the shipped notebook filled in, run with nbclient and saved as Jupyter, VS Code,
Colab and JupyterLab 4 save it, 8 .py files) showed the reports getting wrong; each test failed before its fix.
The rest of that class (``np.einsum('bi,ij->bj')``, ``np.tensordot``, ``functools.reduce`` over layers, a class
with ``__call__``, closures, generators, recursion, ``math.fsum`` per element, ``np.add``/``np.matmul`` with
``out=``, ReLU by ``np.heaviside``, ``np.where``, ``(z + abs(z)) / 2`` and ``clip(min=0)``, ``npt.NDArray`` hints
under ``from __future__ import annotations``, ``typing.overload``, a dataclass of weights, numba, tqdm and torch
imports in a try, ``%pip``, ``!nvidia-smi``, ``google.colab`` guarded, ``%autoreload``, attachments and base64
images, a function defined twice) got 17/17 with only true notes, with and without ``--exercise``; the fixtures
under submissions/heldout6 keep a trimmed sample of it graded in one batch.

- A Python notebook whose metadata names an R or a Julia kernel (a copied template, a kernel picked by mistake) was
  graded without a word, though the student's own Jupyter would start that kernel on it: a note now says so and
  how to choose a Python kernel.
"""
from __future__ import annotations

from conftest import SUBMISSIONS, grade_students
from grader import kernels

FOLDER = SUBMISSIONS / "heldout6"
GUARDED = ("The module '{}' is not available while grading; its import, guarded (a try statement or "
           "contextlib.suppress) with a fallback for a missing module, failed as it would on a machine without it.")
KERNEL = ("The notebook's metadata names {}, but its code is Python and was graded as Python. Jupyter would start "
          "that kernel when the notebook is opened: choose a Python 3 kernel (in Jupyter, Kernel > Change Kernel; in "
          "Colab, Runtime > Change runtime type) and save the notebook again.")
#: each fixture's notes, word for word: anything else (or nothing, for a note expected) is a misleading report
EXPECTED = {
    "r-kernel": [KERNEL.format("an R kernel")],
    "julia-kernel": [KERNEL.format("a Julia kernel ('Julia 1.10.0')")],
    "attachments": [],
    "colab-gpu": ["The shell command '!nvidia-smi' was not run during grading."],
    "colab-match": [],
    "colab-defined-twice": ["vgg_classifier() is defined in code cell 1 (cell 1 of the notebook) and in code cell 2 "
                            "(cell 2 of the notebook), with different code; the cells run from top to bottom, so "
                            "the one graded is the last, in code cell 2 (cell 2 of the notebook)."],
    "vscode-numba": [GUARDED.format("numba")],
    "vscode-tqdm": [GUARDED.format("tqdm.auto")],
    "lab4-fsum": [],
    "lab4-drive": [GUARDED.format("google.colab")],
    "pip-install": ["The line magic '%pip' was not run during grading."],
    "future-npt": [],
    "export-autoreload": [],
    "script-partial": [],
}


def test_correct_styles_in_real_notebooks_get_full_marks_and_only_true_notes(session):
    results = grade_students(FOLDER, session, list(EXPECTED))
    for name, result in results.items():
        assert result.status == "graded", (name, result.error)
        assert result.score == result.max_score, (name, [(c.id, c.message) for c in result.checks
                                                         if c.status != "passed"])
        assert not result.diagnoses, (name, [d.id for d in result.diagnoses])
        assert list(result.warnings) == EXPECTED[name], (name, result.warnings)


def test_the_kernel_note_is_for_other_languages_only():
    """Python under any of its kernels' spellings (IPython, xeus-python, PySpark, MicroPython, no language at all)
    and metadata that is not an object say nothing; an R kernel named only in language_info is still named."""
    def metadata(spec, info=None) -> dict:
        return {"metadata": {"kernelspec": spec, "language_info": info or {}}}

    for spec in ({"language": "python", "name": "python3"}, {"language": "Python", "display_name": "Python 3"},
                 {"language": "xpython"}, {"name": "pysparkkernel"}, {}, "R"):
        info = {"name": "pyspark"} if spec == {"name": "pysparkkernel"} else None
        assert kernels.foreign_note(metadata(spec, info)) == [], spec
    assert kernels.foreign_note(metadata({"language": "micropython"})) == []
    assert kernels.foreign_note(metadata({"name": "ir"}, {"name": "R"})) == [KERNEL.format("an R kernel ('ir')")]
    assert kernels.foreign_note({"metadata": None}) == []
