"""Right VGG heads in styles no earlier round tried keep full marks, no finding and only true notes (round eight).

``tests/submissions/false-positives-round8/vgg_classifier/`` (its README lists them) holds 120 right heads: notebooks
with the metadata and outputs JupyterLab 4, Notebook 7, VS Code, Colab, Kaggle, Deepnote, Hex, Noteable and
Databricks save (widget views and state, ANSI error outputs, ``\\r`` progress bars, long outputs, custom kernels,
Python 3.12 syntax in a test cell), IPython syntax (``%config``, ``%autoreload``, ``%env``, ``%who``, ``?np.dot``,
``np.dot??``, display and shell cell magics, ``x = %time f()``, ``%%writefile -a``, ``%%file``, ``%%prun`` and
nested ``%%capture``/``%%time`` around the ``def``, magics inside indented blocks, pasted ``>>>`` and ``In [1]:``
prompts, a whole cell indented); products by ``einsum`` (ellipsis, implicit output, sublists, NHWC contracted
directly), ``tensordot``, ``multi_dot``, ``operator.matmul`` reduced, ``np.matrix``, long double; ReLU by
``x * (x > 0)``, ``np.fmax``, ``(abs(x) + x) / 2``, ``np.piecewise``, ``np.select``; flatten by ``reshape(len(x),
-1)``, ``np.prod``, per-row ravel, ``moveaxis`` and back, a hand-written ``rearrange``; ``match``, walrus, f-string
``=``, dataclass layers, stand-ins for numba, jaxtyping, beartype, threadpoolctl and joblib, ``np.seterr(all=
"raise")``, ``warnings.filterwarnings("error")``, and scripts that probe their machine at import. All but the open
one below also got full marks with the VGG16-scale case, graded once by hand (19 / 19).

What the hunt found and fixed:

- ``importlib.metadata.version("numpy")`` raised PackageNotFoundError in the sandbox, which held numpy but not its
  ``dist-info``: a script printing its versions at import lost its function (0 / 17). ``machine.numpy_dirs`` now
  lends the child numpy's metadata too.
- ``%env NAME=value``, ``%env NAME value`` and ``%set_env`` ran nothing, so ``os.environ["NAME"]`` in a later cell
  raised KeyError before the ``def`` (0 / 17). The runner's shell now reads and sets the run's environment.
- The same function in two cells, the upper one run last, got a note that Jupyter kept another definition and a
  request to delete one: the note now compares the two definitions and says nothing when they are the same.
- A script ending in ``sys.exit(main())`` or ``exit()`` (a clean end) was told it "raised SystemExit ...; the code
  after that line did not run". An exit with code 0 or none on a .py's last statement now says nothing.

Found and left to the lead: ``sys.stdout.reconfigure(encoding=...)`` raises "Illegal seek" in the fork mode only (the
template's stream wrappers were made over /dev/null and still believe they can seek once fd 1 is the run's pipe),
so a script that calls it at import loses its function; marked expected to fail below until the runner rebuilds
its standard streams.
"""
from __future__ import annotations

import pytest

from conftest import SUBMISSIONS, grade_students
import exercise_helpers as helpers

FOLDER = SUBMISSIONS / "false-positives-round8" / "vgg_classifier"
ALL = sorted(p.stem for p in FOLDER.iterdir() if p.suffix in (".py", ".ipynb"))
OPEN = "stdout-reconfigure"
NOT_RUN = "was not run during grading"
STAND_IN = "is not available while grading; a stand-in that does nothing was used for it"

#: the notes each submission gets (a substring each, in order); one not listed gets none
NOTES = {
    "ast-node-interactivity-all": [f"'%alias' {NOT_RUN}", f"'%say' {NOT_RUN}"],
    "beartype-decorator-only": [f"'beartype' {STAND_IN}"],
    "colab-forms-capture-pip": [f"'!pip install einops' {NOT_RUN}"],
    "colab-html-markdown-latex-js": [f"'%%html' cell {NOT_RUN}", f"'%%markdown' cell {NOT_RUN}",
                                     f"'%%latex' cell {NOT_RUN}", f"'%%javascript' cell {NOT_RUN}"],
    "colab-widget-manager-tf-version": [f"'%tensorflow_version' {NOT_RUN}", f"'google.colab' {STAND_IN}"],
    "colab312-fstring-in-test-cell": ["The f-strings at code cell 2 (cell 2 of the notebook), line 9 reuse their own "
                                      "quotes"],  # run with its inner quotes switched since notebooks round 7
    "conda-mamba-set-env": [f"'%conda' {NOT_RUN}", f"'%mamba' {NOT_RUN}"],
    "ipytest-cells": [f"'ipytest' {STAND_IN}", f"'%%ipytest' cell {NOT_RUN}"],
    "ipython-run-line-magic-in-py": [f"'IPython' {STAND_IN}"],
    "jaxtyping-beartype-hints": [f"'beartype' {STAND_IN}", f"'jaxtyping' {STAND_IN}"],
    "joblib-memory-cache": [f"'joblib' {STAND_IN}"],
    "kaggle-pip-nvidia-progress": [f"'%pip' {NOT_RUN}", f"'!nvidia-smi' {NOT_RUN}"],
    "lab4-config-matplotlib-retina": [f"'matplotlib.pyplot' {STAND_IN}"],
    "line-profiler-ext": [f"'%lprun' {NOT_RUN}"],
    "memory-profiler-store": [f"'%memit' {NOT_RUN}", f"'%store' {NOT_RUN}"],
    "nb7-autoreload-env-who": [f"'%who_ls' {NOT_RUN}"],
    "numba-njit-with-options": [f"'numba' {STAND_IN}"],
    "pdb-magics": [f"'%pdb' {NOT_RUN}", f"'%tb' {NOT_RUN}"],
    "pip-inside-def-cell": [f"'!pip install -q numpy' {NOT_RUN}"],
    "shell-capture-and-bash": [f"'!ls' {NOT_RUN}", f"'%pwd' {NOT_RUN}", f"'%ls' {NOT_RUN}",
                               f"'%%bash' cell {NOT_RUN}", f"'%%sh' cell {NOT_RUN}"],
    "svg-and-script-python": [f"'%%svg' cell {NOT_RUN}", f"'%%script' cell {NOT_RUN}"],
    "sys-exit-message": ["it raised SystemExit: 'done' (line 7); the code after that line did not run."],
    "sys-exit-not-last": ["it raised SystemExit: '0' (line 7); the code after that line did not run."],
    "threadpoolctl-limits": [f"'threadpoolctl' {STAND_IN}"],
    "timing-and-display-magics": [f"'%prun' {NOT_RUN}", f"'%%timeit' cell {NOT_RUN}"],
    "top-level-demo-missing-file-after-def": ["it raised FileNotFoundError: \"[Errno 2] No such file or directory: "
                                              "'vgg_features.npz'\" (line 11)"],
    "widgets-views-and-state": [f"'ipywidgets' {STAND_IN}", f"'IPython.display' {STAND_IN}"],
}


@pytest.fixture(scope="module")
def results(session):
    return grade_students(FOLDER, session, ALL)


def test_the_folder_holds_the_styles_its_readme_lists():
    readme = (FOLDER.parent / "README.md").read_text(encoding="utf-8")
    assert len(ALL) >= 120 and set(NOTES) <= set(ALL)
    assert [n for n in ALL if f"`{n}`" not in readme and not any(f"`{n}{s}`" in readme for s in (".py", ".ipynb"))] == []


def test_every_right_head_keeps_full_marks_with_only_its_true_notes(results):
    full = {name: NOTES.get(name, []) for name in ALL if name != OPEN}
    assert helpers.class_faults(results, full, {}) == {}


def test_stdout_reconfigure_at_import_keeps_the_function(results):
    assert helpers.class_faults(results, {OPEN: []}, {}) == {}
