"""Correct solutions in a second round of styles, and what a student reads when a style cannot be graded here.

The round's .py files are in ``tests/submissions/correct/`` (listed in its README), where ``test_catalog`` grades
each one without the VGG16-scale case. Here: those most exposed at that scale (copies, ``out=`` buffers, strided
views, per-element ReLUs, threads, an event loop, a read-only or non-contiguous result) graded with it; notebook
styles, written in the test; and the styles that cannot pass on this machine, whose messages must name the real
cause (a module that is not installed, a name NumPy 2 removed) instead of a mistake the student did not make.
"""
from __future__ import annotations

import pytest

from conftest import SUBMISSIONS, diagnosis_ids, notebook
from grader.grade import Session, grade_file

CORRECT = SUBMISSIONS / "correct"

#: round-two styles whose cost or memory grows with the VGG16-scale case, graded with it
AT_SCALE = ["as-strided", "matmul-out", "maximum-out", "inplace-copy", "rank3-matmul", "relu-vectorize",
            "relu-piecewise", "relu-masked", "matrix-class", "asyncio-run", "threadpool-samples",
            "memoryview-frombuffer", "chunked-rows", "chunked-columns", "tensordot-4d", "concatenate-per-sample",
            "result-view-of-buffer", "result-readonly-fortran", "signal-alarm-timeout", "np-einsum-out",
            "print-full-arrays", "writes-log-file"]

HEAD = "def vgg_classifier(features, W1, b1, W2, b2, W3, b3):\n"
BODY = ("    x = features.reshape(features.shape[0], -1)\n    h = np.maximum(x @ W1 + b1, 0)\n"
        "    h = np.maximum(h @ W2 + b2, 0)\n    return h @ W3 + b3\n")


def _full_marks(result) -> None:
    assert result.status == "graded", result.error
    assert result.score == result.max_score, [(c.id, c.message) for c in result.checks if c.status != "passed"]
    assert result.diagnoses == ()


def test_the_round_two_files_exist():
    missing = [name for name in AT_SCALE if not (CORRECT / f"{name}.py").is_file()]
    assert not missing


@pytest.fixture(scope="module")
def full_session(exercise):
    with Session(exercise, full_scale=True) as session:
        yield session


@pytest.mark.parametrize("name", AT_SCALE)
def test_round_two_styles_get_full_marks_at_vgg16_scale(full_session, name):
    result = grade_file(CORRECT / f"{name}.py", full_session)
    _full_marks(result)
    assert next(c for c in result.checks if c.id == "values-full-scale").status == "passed"


NOTEBOOKS = {
    "class-and-helper-in-later-cells": [
        "import numpy as np",
        "class Dense:\n    def __init__(self, relu=True):\n        self.relu = relu\n    def __call__(self, x, W, b):\n"
        "        z = x @ W + b\n        return np.maximum(z, 0) if self.relu else z",
        "fc_hidden = Dense()\nfc_out = Dense(relu=False)",
        HEAD + "    x = flatten(features)\n    return fc_out(fc_hidden(fc_hidden(x, W1, b1), W2, b2), W3, b3)",
        "def flatten(t):\n    return t.reshape(t.shape[0], -1)",
    ],
    "writefile-then-import-with-autoreload": [
        "%%writefile vgg_helpers.py\nimport numpy as np\n\ndef relu(z):\n    return np.maximum(z, 0)\n\n"
        "def dense(x, W, b):\n    return x @ W + b\n",
        "%load_ext autoreload\n%autoreload 2",
        "import vgg_helpers\nfrom vgg_helpers import relu, dense",
        HEAD + "    x = features.reshape(features.shape[0], -1)\n    h = relu(dense(x, W1, b1))\n"
        "    h = relu(vgg_helpers.dense(h, W2, b2))\n    return dense(h, W3, b3)",
    ],
    "file-magic-then-star-import": [
        "%%file vgg_solution.py\nimport numpy as np\n\n" + HEAD + BODY,
        "from vgg_solution import *",
        "vgg_classifier",
    ],
    "run-i-uses-the-notebook-names": [
        "import numpy as np\nRELU_FLOOR = 0.0",
        "%%writefile layers_util.py\ndef relu(z):\n    return np.maximum(z, RELU_FLOOR)\n",
        "%run -i layers_util.py",
        HEAD + "    x = features.reshape(features.shape[0], -1)\n    return relu(relu(x @ W1 + b1) @ W2 + b2) @ W3 + b3",
    ],
    "display-inside-the-function": [
        "import numpy as np\nfrom IPython.display import display, Markdown, HTML",
        "display(Markdown('## VGG head'))\ndisplay(HTML('<b>head</b>'))",
        HEAD + BODY.replace("    return h @ W3 + b3\n", "    out = h @ W3 + b3\n"
                            "    display(Markdown(f'logits: `{out.shape}`'))\n    return out\n"),
    ],
    "cells-of-other-languages": [
        "%%html\n<style>table {font-size: 10px}</style>", "%%javascript\nconsole.log('hi')", "%%bash\necho hi",
        "%%script bash\necho again", "%%latex\n$x = W^T y$", "import numpy as np", HEAD + BODY, "%%markdown\n**done**",
    ],
    "line-magics-and-help": [
        "%env OMP_NUM_THREADS=1\n%config InlineBackend.figure_format = 'retina'\n%precision 4\n%xmode Plain",
        "%pip install numpy\n%cd .\n%pwd\nfiles = !ls\nprint(files)",
        "import numpy as np\n%who\n%whos",
        HEAD + BODY,
        "np.maximum?\nvgg_classifier??",
    ],
    "reset-before-the-definition": ["x = 1\nimport numpy as np", "%reset -f", "import numpy as np", HEAD + BODY],
    "load-magic-output": ["# %load vgg_head.py\nimport numpy as np\n\n" + HEAD + BODY],
    "get-ipython-calls": [
        "ip = get_ipython()\nip.run_line_magic('matplotlib', 'inline')\nip.system('echo hi')\n"
        "ip.run_cell_magic('writefile', 'relu_mod.py', 'import numpy as np\\ndef relu(z):\\n"
        "    return np.maximum(z, 0)\\n')",
        "from relu_mod import relu\nimport numpy as np",
        HEAD + "    x = features.reshape(features.shape[0], -1)\n    return relu(relu(x @ W1 + b1) @ W2 + b2) @ W3 + b3",
    ],
    "definition-by-exec": ["import numpy as np\nsrc = '''\n" + HEAD + BODY + "'''\nexec(src)"],
    "time-over-definition-and-a-test": [
        "%%time\nimport numpy as np\n" + HEAD + BODY + "\nrng = np.random.default_rng(0)\n"
        "out = vgg_classifier(rng.random((2, 7, 7, 8)), rng.random((392, 6)), np.zeros(6), rng.random((6, 6)), "
        "np.zeros(6), rng.random((6, 3)), np.zeros(3))\nprint(out.shape)",
        "%timeit -n 1 -r 1 vgg_classifier(rng.random((2, 7, 7, 8)), rng.random((392, 6)), np.zeros(6), "
        "rng.random((6, 6)), np.zeros(6), rng.random((6, 3)), np.zeros(3))",
    ],
    "widgets-around-the-solution": [
        "import numpy as np\nimport ipywidgets as widgets\nfrom ipywidgets import interact",
        HEAD + BODY,
        "@interact(scale=(0.1, 2.0))\ndef show(scale=1.0):\n    print(scale)\nslider = widgets.IntSlider(3)\n"
        "display(slider)",
    ],
    "pandas-and-seaborn-after": [
        "import numpy as np\nimport pandas as pd\nimport seaborn as sns\nimport matplotlib.pyplot as plt\n"
        "sns.set_theme()\n%matplotlib inline",
        HEAD + BODY,
        "df = pd.DataFrame({'a': [1, 2]})\ndf.describe()\nsns.histplot(df['a'])\nplt.show()",
    ],
}


@pytest.mark.parametrize("name", sorted(NOTEBOOKS))
def test_round_two_notebook_styles_get_full_marks(grade_source, name):
    _full_marks(grade_source(notebook(*NOTEBOOKS[name]), name=f"{name}.ipynb"))


def test_cells_not_run_are_each_named_in_the_warnings(grade_source):
    result = grade_source(notebook(*NOTEBOOKS["cells-of-other-languages"]), name="langs.ipynb")
    for magic in ("html", "javascript", "bash", "script", "latex", "markdown"):
        assert any(f"'%%{magic}' cell was not run" in w for w in result.warnings), (magic, result.warnings)


# -- styles that cannot pass here: the message names the real cause -----------------------------------------------
def test_a_result_computed_by_a_stood_in_module_is_named_as_its_stand_in(grade_source):
    result = grade_source("import numpy as np\nimport torch\n" + HEAD +
                          "    x = torch.from_numpy(features).reshape(features.shape[0], -1)\n"
                          "    h = torch.relu(x @ torch.from_numpy(W1) + torch.from_numpy(b1))\n"
                          "    h = torch.relu(h @ torch.from_numpy(W2) + torch.from_numpy(b2))\n"
                          "    return (h @ torch.from_numpy(W3) + torch.from_numpy(b3)).numpy()\n")
    wrong_type = next(d for d in result.diagnoses if d.id == "not-an-array")
    assert "stand-in for torch" in wrong_type.evidence and "standins" not in wrong_type.evidence
    assert any("'torch' is not available while grading" in w for w in result.warnings)


def test_numpy_refusing_a_stood_in_operand_names_its_module(grade_source):
    result = grade_source("import numpy as np\nfrom scipy.linalg import blas\n" + HEAD +
                          "    x = features.reshape(features.shape[0], -1)\n"
                          "    h = np.maximum(blas.dgemm(1.0, x, W1) + b1, 0)\n"
                          "    h = np.maximum(blas.dgemm(1.0, h, W2) + b2, 0)\n"
                          "    return blas.dgemm(1.0, h, W3) + b3\n")
    raised = next(d for d in result.diagnoses if d.id == "raises-error")
    assert "'stand-in for scipy'" in raised.evidence and "StandIn" not in raised.evidence
    assert any("'scipy.linalg' is not available while grading" in w for w in result.warnings)


def test_a_numpy_1_alias_says_numpy_2_removed_it(grade_source):
    result = grade_source("import numpy as np\n" + HEAD + BODY.replace("features.reshape",
                                                                      "features.astype(np.float_).reshape"))
    assert "raises-error" in diagnosis_ids(result)
    assert any("np.float_" in c.message and "NumPy 2.0" in c.message for c in result.checks)


def test_a_module_outside_the_environment_fails_its_import_as_at_home(grade_source):
    result = grade_source("import numpy as np\nimport numexpr as ne\n" + HEAD + BODY)
    assert result.status == "error" and "No module named 'numexpr'" in result.error.message


def test_a_stand_in_result_is_not_called_a_constant_output(grade_source):
    result = grade_source("import numpy as np\nimport torch\n" + HEAD +
                          "    return torch.from_numpy(features).numpy()\n")
    assert "constant-output" not in diagnosis_ids(result)


def test_the_last_output_underscore_is_bound_as_in_ipython(grade_source):
    result = grade_source(notebook("import numpy as np", "np.zeros(3)",
                                   "prev = _\nrelu = lambda z: np.maximum(z, prev.sum())",
                                   HEAD + "    x = features.reshape(features.shape[0], -1)\n"
                                   "    return relu(relu(x @ W1 + b1) @ W2 + b2) @ W3 + b3"), name="out.ipynb")
    _full_marks(result)


def test_ipython_history_names_hold_what_the_kernel_would(grade_source):
    """Out[N], _N, __, In and _i as IPython keeps them; a cell ending in ';' shows (and keeps) nothing; an '_' the
    student assigned is left alone."""
    checks = ("assert Out == {1: 3, 3: 4} and _1 == 3 and _3 == 4 and _ == 4 and __ == 3\n"
              "assert In[2] == 'y = 7;' and _i1 == '1 + 2' and 2 not in Out\n"
              "_ = 'mine'\nchecked = True")
    result = grade_source(notebook("1 + 2", "y = 7;", "y - 3", checks, "5 * 5",
                                   "scale = 1.0 if checked and _ == 'mine' and Out[5] == 25 else 0.0",
                                   "import numpy as np\n" + HEAD + "    x = features.reshape(features.shape[0], -1)\n"
                                   "    h = np.maximum(x @ W1 + b1, 0)\n    h = np.maximum(h @ W2 + b2, 0)\n"
                                   "    return scale * (h @ W3 + b3)"), name="history.ipynb")
    _full_marks(result)


def test_a_solution_after_reading_a_named_capture_gets_full_marks(grade_source):
    result = grade_source(notebook("%%capture cap\nimport numpy as np\nprint('loading')",
                                   "print(cap.stdout)\n" + HEAD + BODY), name="capture.ipynb")
    _full_marks(result)
