"""The linear exercise (exercises/linear/): y = x W^T + b as nn.Linear states it.

Every buggy submission in tests/submissions/linear/buggy/ loses points and is named by the id its file name starts
with; every correct style gets full marks and no diagnosis; the hidden cases cover the edge shapes; the notebook
and the stored public outputs are up to date; the self-check tells the right story. One grading session serves
the whole module.
"""
from __future__ import annotations

import contextlib
import dataclasses
import io
import re
import subprocess
import sys
import time

import nbformat
import numpy as np
import pytest

from conftest import ROOT, SUBMISSIONS
from grader import exercise as exercise_mod
from grader import notebook as notebook_mod
from grader.grade import Session, grade_file
from grader.outcomes import CallError, CallOutcome, CaseRun
from grader.sandbox import Sandbox

ID = "linear"
FOLDER = ROOT / "exercises" / ID
BUGGY = SUBMISSIONS / ID / "buggy"
CORRECT = SUBMISSIONS / ID / "correct"
EXAMPLES = FOLDER / "examples"
NOTEBOOK = ROOT / "notebooks" / f"{ID}.ipynb"
SOLUTION = ROOT / "solutions" / f"{ID}.py"


@pytest.fixture(scope="module")
def ex():
    return exercise_mod.load(ID)


@pytest.fixture(scope="module")
def linear_session(ex):
    with Session(ex, full_scale=False) as s:
        yield s


@pytest.fixture(scope="module")
def linear_quick(ex):
    limits = dataclasses.replace(ex.limits, call_seconds=1.0, cell_seconds=3.0, submission_seconds=15.0)
    with Session(ex, full_scale=False, sandbox=Sandbox(limits)) as s:
        yield s


def ids(result) -> set[str]:
    return {d.id for d in result.diagnoses}


# -- the catalog and the submissions, graded in the sandbox ----------------------------------------------------------
REQUIRED = {"weight-not-transposed", "only-2d-input", "bias-none-refused", "bias-wrong-axis", "precision-loss",
            "wrong-dtype", "mutates-input", "missing-bias"}


def test_catalog_has_the_required_mistakes_each_with_an_explanation_and_a_buggy_file(ex):
    assert REQUIRED <= set(ex.catalog)
    for mistake in ex.catalog.values():
        assert len(mistake.explanation) > 80, mistake.id
        assert (BUGGY / f"{mistake.id}.py").is_file(), f"no buggy submission for {mistake.id}"
        assert mistake.example == f"tests/submissions/{ID}/buggy/{mistake.id}.py"
        assert set(mistake.supersedes) <= set(ex.catalog), mistake.id
    stems = {p.stem.split("--")[0] for p in BUGGY.glob("*.py")}
    assert stems <= set(ex.catalog), stems - set(ex.catalog)


@pytest.mark.parametrize("path", sorted(BUGGY.glob("*.py")), ids=lambda p: p.stem)
def test_each_mistake_loses_points_and_is_named(linear_session, linear_quick, path):
    result = grade_file(path, linear_quick if path.stem.startswith("too-slow") else linear_session)
    mistake = path.stem.split("--")[0]
    assert result.score < result.max_score
    assert mistake in ids(result), [(d.id, d.evidence) for d in result.diagnoses]
    named = [d for d in result.diagnoses if d.id == mistake]
    if mistake in {"weight-not-transposed", "only-2d-input", "bias-none-refused", "bias-wrong-axis",
                   "missing-bias"}:
        assert named[0].evidence, "an exercise-specific finding comes with evidence"
        assert len(result.diagnoses) == 1, [(d.id, d.evidence) for d in result.diagnoses]


@pytest.mark.parametrize("path", sorted(CORRECT.glob("*.py")), ids=lambda p: p.stem)
def test_each_correct_style_gets_full_marks_and_no_diagnosis(linear_session, path):
    result = grade_file(path, linear_session)
    assert result.status == "graded", result.error
    assert result.score == result.max_score == 20, [(c.id, c.message) for c in result.checks if c.status != "passed"]
    assert result.diagnoses == ()


EXAMPLE_CLASS = {"amara": set(), "bruno": {"weight-not-transposed"}, "chen": {"only-2d-input"},
                 "dana": {"bias-none-refused"}, "emil": {"bias-wrong-axis"}, "fatima": set()}


def test_the_example_class_gets_the_grades_the_readme_shows(linear_session):
    files = sorted(p for p in EXAMPLES.iterdir() if p.suffix in (".py", ".ipynb"))
    assert {p.stem for p in files} == set(EXAMPLE_CLASS)
    for path in files:
        result = grade_file(path, linear_session, student=path.stem)
        assert ids(result) == EXAMPLE_CLASS[path.stem], (path.stem, [(d.id, d.evidence) for d in result.diagnoses])
        assert (result.score == result.max_score) == (not EXAMPLE_CLASS[path.stem])


def test_grader_check_names_the_mistake_from_the_public_cases_alone(tmp_path):
    code = ("import sys; from grader import cli; code = cli.main(['check', sys.argv[1], '--exercise', 'linear']); "
            "assert not [m for m in sys.modules if m.startswith('_grader_solution')], 'the reference was imported'; "
            "sys.exit(code)")
    for name, want, needle in (("correct/matmul.py", 0, "All"), ("buggy/bias-wrong-axis.py", 1, "bias-wrong-axis")):
        proc = subprocess.run([sys.executable, "-c", code, str(SUBMISSIONS / ID / name)], capture_output=True,
                              text=True, cwd=tmp_path, timeout=120)
        assert proc.returncode == want, proc.stdout + proc.stderr
        if want:
            assert needle in proc.stdout, proc.stdout


# -- the cases ---------------------------------------------------------------------------------------------------
def test_hidden_cases_cover_every_edge_shape(ex):
    cases = ex.hidden_cases(3)
    ranks = {c.args[0].ndim for c in cases}
    assert {1, 2, 3, 4} <= ranks, "no, one, two and three leading axes"
    square = [c for c in cases if c.args[1].shape[0] == c.args[1].shape[1]]
    assert square and len(square) < len(cases), "out == in and out != in"
    assert any(1 in c.args[0].shape for c in cases) and any(1 in c.args[1].shape for c in cases), "size-1 axes"
    arities = {(len(c.args), c.args[-1] is None) for c in cases}
    assert {(3, False), (2, False), (3, True)} <= arities, "bias given, left out, and None"
    groups = {c.group for c in cases}
    assert groups == {c.group for c in ex.checks if c.kind == "values"}
    for case in cases:
        x, weight = case.args[0], case.args[1]
        assert x.dtype == weight.dtype == np.float64 and x.shape[-1] == weight.shape[1]
        if len(case.args) == 3 and case.args[2] is not None:
            assert case.args[2].shape == (weight.shape[0],)
    # a bias added per sample runs (and is wrong) on at least one hidden case, and fails on others
    assert any(c.args[0].ndim == 2 and c.args[0].shape[0] == c.args[1].shape[0] for c in cases)


def test_hidden_cases_are_drawn_per_student_and_reproducible(ex):
    a, b, again = ex.hidden_cases(1), ex.hidden_cases(2), ex.hidden_cases(1)
    assert [c.name for c in a] == [c.name for c in b]
    for x, y, z in zip(a, b, again):
        assert x.name == y.name and not np.array_equal(x.args[0], y.args[0])
        assert x.args[0].shape == y.args[0].shape or x.name == "drawn"
        assert x.description == z.description
        assert all(np.array_equal(p, q) if isinstance(p, np.ndarray) else p == q for p, q in zip(x.args, z.args))


def test_the_drawn_case_varies_between_students_and_keeps_its_constraints(ex):
    drawn = [next(c for c in ex.hidden_cases(seed) if c.name == "drawn") for seed in range(40)]
    assert len({c.args[0].shape for c in drawn}) > 10
    for case in drawn:
        check_drawn(case)


@pytest.mark.parametrize("path", sorted(p for p in BUGGY.glob("*.py") if p.stem.split("--")[0] in {"weight-not-transposed", "only-2d-input", "bias-none-refused", "bias-wrong-axis", "missing-bias"}),
                         ids=lambda p: p.stem)
def test_each_specific_mistake_is_named_whatever_the_student_s_cases(ex, path):
    """In-process, over many students' hidden cases (their drawn shapes differ): the same single finding."""
    namespace: dict = {"__name__": "student"}
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), namespace)
    fn = namespace[ex.function]
    for seed in range(12):
        found = {f.id for f in diagnose(ex, fn, ex.hidden_cases(seed) + ex.probe_cases())}
        assert found == {path.stem.split("--")[0]}, (seed, found)


def test_case_names_are_unique_across_hidden_public_and_probe_cases(ex):
    """The harness matches results to cases by name: a probe named like a hidden case would take its place."""
    names = [c.name for c in ex.hidden_cases(0) + ex.public_cases() + ex.probe_cases()]
    assert len(names) == len(set(names))


def _by_definition(x, weight, bias=None):
    """y[..., j] = sum_i x[..., i] weight[j, i] + bias[j], term by term."""
    out = np.zeros(x.shape[:-1] + (weight.shape[0],))
    for index in np.ndindex(*x.shape[:-1]):
        for j in range(weight.shape[0]):
            out[index + (j,)] = sum(x[index + (i,)] * weight[j, i] for i in range(weight.shape[1]))
            out[index + (j,)] += 0.0 if bias is None else bias[j]
    return out


def test_the_reference_is_the_statement_s_definition(ex):
    for case in ex.hidden_cases(5) + ex.public_cases() + ex.probe_cases():
        got = ex.expected(case)
        want = _by_definition(*case.args)
        assert got.shape == want.shape and got.dtype == np.float64
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    # the statement's example
    x, weight, bias = np.array([1.0, 2.0, 3.0]), np.array([[1.0, 0.0, -1.0], [2.0, 1.0, 0.0]]), np.array([0.5, -1.0])
    assert ex.reference(x, weight, bias).tolist() == [-1.5, 3.0]
    assert ex.reference(x, weight).tolist() == [-2.0, 4.0]
    assert ex.reference(np.broadcast_to(x, (2, 4, 3)).copy(), weight, bias).shape == (2, 4, 2)


def test_statement_states_the_limits_of_exercise_toml(ex):
    text = (FOLDER / "statement.md").read_text(encoding="utf-8")
    limits = ex.limits
    assert (f"Each call must finish within {limits.call_seconds:g} seconds, each code cell within "
            f"{limits.cell_seconds:g} seconds and the whole submission within {limits.submission_seconds:g} "
            f"seconds, using at most {limits.describe_memory()} of memory") in text


# -- the notebook and the stored outputs ---------------------------------------------------------------------------
def test_committed_notebook_and_stored_public_outputs_are_up_to_date(ex):
    assert NOTEBOOK.read_text(encoding="utf-8") == notebook_mod.render(ex), (
        f"notebooks/{ID}.ipynb is stale: run `grader notebook --exercise {ID} --out notebooks`")
    stored = (FOLDER / exercise_mod.PUBLIC_EXPECTED).read_text(encoding="utf-8")
    assert stored == notebook_mod.public_expected_text(ex), f"run `grader notebook --exercise {ID}`"
    nb = nbformat.reads(NOTEBOOK.read_text(encoding="utf-8"), as_version=4)
    assert nb.metadata.grader.exercise == ID
    starter = next(c for c in nb.cells if c.get("id") == "solution").source
    assert starter == (FOLDER / "starter.py").read_text(encoding="utf-8").strip()


def test_without_the_reference_the_stored_outputs_stand_in(ex):
    public = exercise_mod.load(ID, require_reference=False)
    assert public.reference is None
    for case in public.public_cases() + public.probe_cases():
        np.testing.assert_allclose(public.expected(case), ex.expected(case), rtol=1e-12, atol=1e-12)
    assert [p.name for p in public.probe_cases()] == [p.name for p in ex.probe_cases()]


@pytest.fixture(scope="module")
def selfcheck_code(ex):
    nb = nbformat.reads(notebook_mod.render(ex), as_version=4)
    return next(c for c in nb.cells if c.get("id") == "self-check").source


def run_selfcheck(code: str, source: str | None) -> str:
    namespace: dict = {"__name__": "__main__"}
    if source is not None:
        exec(compile(source, "<student>", "exec"), namespace)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), np.errstate(all="ignore"):
        exec(code, namespace)  # must never raise, whatever the student's function does
    return out.getvalue()


def test_selfcheck_builds_exactly_the_public_cases(ex, selfcheck_code, monkeypatch):
    monkeypatch.setenv("GRADER_PARENT", "1")
    namespace: dict = {}
    exec(selfcheck_code, namespace)
    mine, theirs = namespace["public_cases"](), ex.public_cases()
    assert [name for name, _ in mine] == [c.name for c in theirs]
    for (name, args), case in zip(mine, theirs):
        assert len(args) == len(case.args)
        assert all(np.array_equal(a, b) for a, b in zip(args, case.args)), name
        np.testing.assert_allclose(np.array(namespace["EXPECTED"][name]), ex.expected(case), rtol=1e-11, atol=0)


def test_selfcheck_does_not_contain_the_computation(selfcheck_code):
    for forbidden in (" @ ", "np.dot", "matmul", "einsum", "tensordot", "np.inner"):
        assert forbidden not in selfcheck_code, forbidden
    imports = {line.split()[1] for line in selfcheck_code.splitlines() if line.startswith(("import ", "from "))}
    assert imports <= {"os", "numpy"}


@pytest.mark.parametrize("name,needles", [
    ("buggy/not-implemented.py", ["Not implemented yet"]),
    ("buggy/weight-not-transposed.py", ["✗ public-batch", "multiply by the weight as stored"]),
    ("buggy/only-2d-input.py", ["✓ public-batch", "✗ public-leading", "keep every leading axis"]),
    ("buggy/only-2d-input--atleast-2d.py", ["✗ public-vector", "no axis added"]),
    ("buggy/bias-none-refused.py", ["✗ public-no-bias", "default None"]),
    ("buggy/bias-wrong-axis.py", ["✗ public-batch", "could not broadcast the bias"]),
    ("buggy/missing-bias.py", ["bias is never added"]),
    ("buggy/precision-loss.py", ["single precision"]),
    ("buggy/wrong-dtype.py", ["wrong dtype: expected float64, got float32"]),
    ("buggy/mutates-input.py", ["changed its input weight in place"]),
    ("buggy/nondeterministic.py", ["Two calls on the same inputs"]),
    ("correct/loops.py", ["All public checks passed"]),
    ("correct/tensordot.py", ["All public checks passed"]),
])
def test_selfcheck_messages(selfcheck_code, name, needles):
    output = run_selfcheck(selfcheck_code, (SUBMISSIONS / ID / name).read_text(encoding="utf-8"))
    for needle in needles:
        assert needle in output, f"{needle!r} not in:\n{output}"
    assert "Traceback" not in output
    if "All public checks passed" not in needles:
        assert "All public checks passed" not in output


def test_selfcheck_gives_the_reference_no_hint(selfcheck_code):
    output = run_selfcheck(selfcheck_code, SOLUTION.read_text(encoding="utf-8"))
    assert output.count("✓") == 5 and "✗" not in output and "Hint" not in output


# -- the diagnosis, in-process -----------------------------------------------------------------------------------------
def _copy(a):
    return a.copy() if isinstance(a, np.ndarray) else a


def _outcome(case, fn) -> CallOutcome:
    try:
        with np.errstate(all="ignore"):
            value = fn(*map(_copy, case.args))
    except Exception as exc:  # noqa: BLE001 - a student's error is data here
        return CallOutcome(case=case.name, status="raised", exception=CallError(type(exc).__name__, str(exc)))
    array = None if value is None else np.asarray(value)
    return CallOutcome(case=case.name, status="ok", type_name=type(value).__name__,
                       exact_ndarray=type(value) is np.ndarray, array=array,
                       shape=None if array is None else tuple(array.shape))


def diagnose(ex, fn, cases=None):
    cases = cases if cases is not None else ex.hidden_cases(11) + ex.probe_cases()
    runs = [CaseRun(c, ex.expected(c), _outcome(c, fn)) for c in cases]
    return ex.diagnosis_module.diagnose(runs, ex)


def _with_bias(y, bias):
    return y if bias is None else y + bias


TWO_MISTAKES = {
    "untransposed, no bias": (lambda x, w, b=None: x @ w, {"weight-not-transposed", "missing-bias"}),
    "rows only, bias as a column": (lambda x, w, b=None: _with_bias(x.reshape(-1, x.shape[-1]) @ w.T,
                                                                    None if b is None else b[:, None]),
                                    {"only-2d-input", "bias-wrong-axis"}),
    "bias required, untransposed": (lambda x, w, b: x @ w + b, {"bias-none-refused", "weight-not-transposed"}),
    "float32 and no bias": (lambda x, w, b=None: (x.astype(np.float32) @ w.T.astype(np.float32)).astype(float),
                            {"missing-bias"}),
}


@pytest.mark.parametrize("label", sorted(TWO_MISTAKES))
def test_two_mistakes_at_once_are_both_named(ex, label):
    fn, want = TWO_MISTAKES[label]
    assert {f.id for f in diagnose(ex, fn)} == want


def test_every_departure_is_seen_by_the_public_cases_and_probes_alone(ex):
    """`grader check` runs only these: each mistake of the model must change at least one of their results."""
    D = ex.diagnosis_module
    cases = ex.public_cases() + ex.probe_cases()
    for flag, options in D.OPTIONS.items():
        for option in options[1:]:
            spec = D.Spec(**{flag: option})
            assert any(D._differs(c.args, spec, D.REFERENCE) for c in cases), (flag, option)


def test_evidence_never_quotes_a_hidden_value(ex):
    cases = ex.hidden_cases(11) + ex.probe_cases()
    for fn, _ in TWO_MISTAKES.values():
        for finding in diagnose(ex, fn, cases):
            for number in re.findall(r"-?\d+\.\d+", finding.evidence):
                assert not any(np.isclose(float(number), np.asarray(a, dtype=float)).any()
                               for c in cases if c.group != "probe" for a in c.args if isinstance(a, np.ndarray)
                               ), (number, finding.evidence)


def test_a_correct_or_unexplained_submission_gets_no_exercise_finding_quickly(ex):
    cases = ex.hidden_cases(11) + ex.probe_cases()
    assert diagnose(ex, lambda x, w, b=None: _with_bias(np.einsum("...i,oi->...o", x, w), b), cases) == []
    started = time.perf_counter()
    assert diagnose(ex, lambda x, w, b=None: np.zeros(x.shape[:-1] + (w.shape[0],)) + 0.25, cases) == []
    assert time.perf_counter() - started < 1.0


def check_drawn(case):
    x, weight = case.args[0], case.args[1]
    out, inp = weight.shape
    assert out != inp and 2 <= x.ndim <= 4 and x.shape[-1] == inp
    assert not set(x.shape[:-1]) & {out, inp}
