"""The student notebook: generated reproducibly, committed up to date, and its NumPy-only self-check tells the
right story, both in-process (every kind of mistake) and under a real Jupyter kernel (starter and reference)."""
from __future__ import annotations

import json
import subprocess
import sys

import nbformat
import numpy as np
import pytest

import exercise_helpers as helpers
from conftest import ROOT, SUBMISSIONS
from grader import notebook as notebook_mod

COMMITTED = ROOT / "notebooks" / "vgg_classifier.ipynb"
SOLUTION = ROOT / "solutions" / "vgg_classifier.py"


def cell(nb, cell_id: str):
    return next(c for c in nb.cells if c.get("id") == cell_id)


@pytest.fixture(scope="module")
def generated(exercise):
    return notebook_mod.render(exercise)


@pytest.fixture(scope="module")
def selfcheck_code(generated):
    return cell(nbformat.reads(generated, as_version=4), "self-check").source


# -- generation -----------------------------------------------------------------------------------------------
def test_committed_notebook_is_up_to_date(generated):
    assert COMMITTED.is_file(), "notebooks/vgg_classifier.ipynb is missing: run `make notebooks`"
    assert COMMITTED.read_text(encoding="utf-8") == generated, (
        "notebooks/vgg_classifier.ipynb is stale: regenerate it with "
        "`grader notebook --exercise vgg_classifier` (make notebooks) and commit it")


def test_generation_is_deterministic_and_valid(exercise, generated, tmp_path):
    assert notebook_mod.render(exercise) == generated
    nb = nbformat.reads(generated, as_version=4)
    nbformat.validate(nb)
    assert nb.nbformat == 4 and nb.nbformat_minor == 5
    ids = [c.id for c in nb.cells]
    assert len(ids) == len(set(ids))
    for c in nb.cells:
        if c.cell_type == "code":
            assert c.outputs == [] and c.execution_count is None
    assert nb.metadata.kernelspec.name == "python3"
    assert nb.metadata.grader.exercise == "vgg_classifier"
    # the command writes the same bytes, and says so when nothing changed
    path, changed = notebook_mod.write(exercise, tmp_path)
    assert changed and path == tmp_path / "vgg_classifier.ipynb" and path.read_text(encoding="utf-8") == generated
    assert notebook_mod.write(exercise, tmp_path) == (path, False)


def test_cli_writes_the_notebook(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "grader", "notebook", "--exercise", "vgg_classifier",
                           "--out", str(tmp_path)], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "vgg_classifier.ipynb").read_bytes() == COMMITTED.read_bytes()


def test_contents(generated, exercise):
    nb = nbformat.reads(generated, as_version=4)
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    for needle in ("(7, 7, 512)", "25088", "4096", "1000", "102{,}764{,}544", "16{,}781{,}312",
                   "4{,}097{,}000", "ReLU", "pitfalls", "How to submit", "grader check", ".py"):
        assert needle in text, needle
    starter = cell(nb, "solution").source
    assert starter == (exercise.folder / "starter.py").read_text(encoding="utf-8").strip()
    assert "def vgg_classifier(features: np.ndarray, W1: np.ndarray, b1: np.ndarray," in starter
    order = [c.id for c in nb.cells]
    assert order.index("solution") < order.index("self-check") < order.index("how-to-submit")


def test_split_statement_keeps_code_fences():
    text = "# T\n\nintro\n\n## A\n\n```\n## not a heading\n```\n\n## B\ntext"
    assert notebook_mod.split_statement(text) == ["# T\n\nintro", "## A\n\n```\n## not a heading\n```", "## B\ntext"]


# -- the self-check cell, in-process ------------------------------------------------------------------------------
def test_selfcheck_builds_exactly_the_public_cases(exercise, selfcheck_code, monkeypatch):
    monkeypatch.setenv("GRADER_PARENT", "1")  # define the helpers without running the check
    namespace: dict = {}
    exec(selfcheck_code, namespace)
    mine = namespace["public_cases"]()
    theirs = exercise.public_cases()
    assert [name for name, _ in mine] == [c.name for c in theirs], "selfcheck.py names other public cases"
    for (name, args), case in zip(mine, theirs):
        assert len(args) == len(case.args)
        for a, b in zip(args, case.args):
            assert a.shape == b.shape and np.array_equal(a, b), (
                f"exercises/vgg_classifier/selfcheck.py builds '{name}' differently from cases.public_cases(): "
                "update its public_cases() to draw the same numbers")
        expected = np.array(namespace["EXPECTED"][name])
        np.testing.assert_allclose(expected, exercise.expected(case), rtol=1e-11, atol=0)


def test_selfcheck_does_not_contain_the_computation(selfcheck_code):
    for forbidden in ("np.maximum", "maximum(", " @ ", "np.dot", "matmul", "einsum", "tensordot", "features.reshape", "reshape(B"):
        assert forbidden not in selfcheck_code, forbidden
    assert "import grader" not in selfcheck_code and "from grader" not in selfcheck_code
    imports = {line.split()[1] for line in selfcheck_code.splitlines() if line.startswith(("import ", "from "))}
    assert imports <= {"os", "numpy"}


def run_selfcheck(code: str, submission=None, source: str | None = None) -> str:
    if submission is not None:
        source = submission.read_text(encoding="utf-8")
    return helpers.run_selfcheck(code, source)


@pytest.mark.parametrize("name,needles", [
    ("buggy/not-implemented.py", ["Not implemented yet"]),
    ("buggy/raises-error.py", ["raised NotImplementedError: FC3 not done yet"]),
    ("buggy/not-an-array.py", ["returned a list, not a numpy.ndarray"]),
    ("buggy/wrong-shape.py", ["wrong shape: expected (1, 3), got (3, 1)", "transposed"]),
    ("buggy/batch-flattened.py", ["✓ public-single", "✗ public-batch", "batch axis"]),
    ("buggy/variants/batch-flattened--view.py", ["✓ public-single", "batch axis"]),
    ("buggy/wrong-dtype.py", ["wrong dtype: expected float64, got float32"]),
    ("buggy/relu-after-fc3.py", ["None of your outputs is negative", "after the last layer"]),
    ("buggy/softmax-output.py", ["sums to 1", "softmax"]),
    ("buggy/flatten-order.py", ["flattened in channels first"]),
    ("buggy/variants/flatten-order--fortran.py", ["flattened in column-major"]),
    ("buggy/variants/flatten-order--hw-swapped.py", ["height and width swapped"]),
    ("buggy/missing-bias.py", ["b2 is never added"]),
    ("buggy/variants/missing-bias--b1.py", ["b1 is never added"]),
    ("buggy/variants/missing-bias--b3.py", ["b3 is never added"]),
    ("buggy/transposed-weights.py", ["(out, in)"]),
    ("buggy/hardcoded-shape.py", ["4096, one of VGG16's sizes"]),
    ("buggy/precision-loss.py", ["single precision"]),
    ("buggy/nondeterministic.py", ["Two calls on the same inputs"]),
    ("buggy/mutates-input.py", ["changed its input features in place"]),
    ("buggy/non-finite.py", ["NaN or infinity"]),
    ("buggy/missing-relu.py", ["values differ", "largest error", "at output["]),
    ("buggy/missing-function.py", ["no function named vgg_classifier"]),
    ("correct/matmul.py", ["All public checks passed"]),
    ("correct/per-sample-loop.py", ["All public checks passed"]),
    ("correct/einsum.py", ["All public checks passed"]),
])
def test_selfcheck_messages(selfcheck_code, name, needles):
    helpers.assert_selfcheck_says(run_selfcheck(selfcheck_code, SUBMISSIONS / name), needles)


def test_selfcheck_names_no_wrong_hints_for_the_reference(selfcheck_code):
    output = run_selfcheck(selfcheck_code, SOLUTION)
    assert output.count("✓") == 2 and "✗" not in output and "Hint" not in output


def test_selfcheck_does_nothing_under_the_grader(selfcheck_code, monkeypatch):
    monkeypatch.setenv("GRADER_PARENT", "1")
    assert run_selfcheck(selfcheck_code, SUBMISSIONS / "buggy" / "too-slow.py") == ""


# -- under a real kernel ----------------------------------------------------------------------------------------------
@pytest.fixture
def kernel_env(tmp_path, monkeypatch):
    """A "python3" kernelspec that runs this very interpreter, found before any other one on the machine."""
    pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    spec = tmp_path / "jupyter" / "kernels" / "python3"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (grader tests)", "language": "python",
    }), encoding="utf-8")
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path / "runtime"))
    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))
    monkeypatch.delenv("GRADER_PARENT", raising=False)
    return tmp_path


def execute(nb, cwd):
    from nbclient import NotebookClient

    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(cwd)}}).execute()
    return nb


def stream_text(code_cell) -> str:
    return "".join(o.get("text", "") for o in code_cell.outputs if o.output_type == "stream")


def errors(nb) -> list:
    return [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]


def test_kernel_starter_says_not_implemented(kernel_env):
    nb = execute(nbformat.read(COMMITTED, as_version=4), kernel_env)
    assert errors(nb) == []
    output = stream_text(cell(nb, "self-check"))
    assert "Not implemented yet" in output and "Traceback" not in output


def test_kernel_reference_passes_and_grades_full_marks(kernel_env):
    nb = nbformat.read(COMMITTED, as_version=4)
    cell(nb, "solution").source = SOLUTION.read_text(encoding="utf-8")
    execute(nb, kernel_env)
    assert errors(nb) == []
    output = stream_text(cell(nb, "self-check"))
    assert "All public checks passed" in output, output
    path = kernel_env / "student.ipynb"
    nbformat.write(nb, path)
    proc = subprocess.run([sys.executable, "-m", "grader", "grade", str(path), "--exercise", "vgg_classifier",
                           "--no-full-scale", "--json"], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["status"] == "graded" and result["score"] == result["max_score"] > 0, result
    assert result["diagnoses"] == [] and result["warnings"] == [], result


def test_grader_sets_the_variable_that_silences_the_selfcheck(grade_source):
    """The self-check cell stays quiet when GRADER_PARENT is set; the sandbox must keep setting it."""
    nb = nbformat.read(COMMITTED, as_version=4)
    cell(nb, "solution").source = ("import os\nassert os.environ.get('GRADER_PARENT'), 'not under the grader'\n"
                                   + SOLUTION.read_text(encoding="utf-8"))
    result = grade_source(json.loads(nbformat.writes(nb)), "student.ipynb")
    assert result.status == "graded" and result.score == result.max_score, result
    assert result.warnings == ()
