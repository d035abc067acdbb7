"""The dense_scores exercise (exercises/dense_scores/): a fully connected layer evaluated at every k x k window.

Every buggy submission in tests/submissions/dense_scores/buggy/ loses points and is named by the id its file name
starts with; every correct style gets full marks and no diagnosis; the hidden cases cover the edge shapes (k = 1,
k = H, non-square maps, C = 1, out = 1); the notebook and the stored public outputs are up to date; the self-check
tells the right story. One grading session serves the whole module.
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

ID = "dense_scores"
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
def scores_session(ex):
    with Session(ex, full_scale=False) as s:
        yield s


@pytest.fixture(scope="module")
def scores_quick(ex):
    limits = dataclasses.replace(ex.limits, call_seconds=1.0, cell_seconds=3.0, submission_seconds=15.0)
    with Session(ex, full_scale=False, sandbox=Sandbox(limits)) as s:
        yield s


def ids(result) -> set[str]:
    return {d.id for d in result.diagnoses}


# -- the catalog and the submissions, graded in the sandbox ----------------------------------------------------------
SPECIFIC = {"window-channels-first", "non-overlapping-windows", "grid-off-by-one", "grid-axes-swapped",
            "missing-bias", "weight-not-transposed", "scores-first"}


def test_catalog_has_the_required_mistakes_each_with_an_explanation_and_a_buggy_file(ex):
    assert SPECIFIC | {"precision-loss", "wrong-dtype", "mutates-input", "not-implemented"} <= set(ex.catalog)
    for mistake in ex.catalog.values():
        assert len(mistake.explanation) > 80, mistake.id
        assert (BUGGY / f"{mistake.id}.py").is_file(), f"no buggy submission for {mistake.id}"
        assert mistake.example == f"tests/submissions/{ID}/buggy/{mistake.id}.py"
        assert set(mistake.supersedes) <= set(ex.catalog), mistake.id
    stems = {p.stem.split("--")[0] for p in BUGGY.glob("*.py")}
    assert stems <= set(ex.catalog), stems - set(ex.catalog)


@pytest.mark.parametrize("path", sorted(BUGGY.glob("*.py")), ids=lambda p: p.stem)
def test_each_mistake_loses_points_and_is_named(scores_session, scores_quick, path):
    result = grade_file(path, scores_quick if path.stem.startswith("too-slow") else scores_session)
    mistake = path.stem.split("--")[0]
    assert result.score < result.max_score
    assert mistake in ids(result), [(d.id, d.evidence) for d in result.diagnoses]
    if mistake in SPECIFIC:
        assert next(d for d in result.diagnoses if d.id == mistake).evidence
        assert len(result.diagnoses) == 1, [(d.id, d.evidence) for d in result.diagnoses]


@pytest.mark.parametrize("path", sorted(CORRECT.glob("*.py")), ids=lambda p: p.stem)
def test_each_correct_style_gets_full_marks_and_no_diagnosis(scores_session, path):
    result = grade_file(path, scores_session)
    assert result.status == "graded", result.error
    assert result.score == result.max_score == 18, [(c.id, c.message) for c in result.checks if c.status != "passed"]
    assert result.diagnoses == ()


EXAMPLE_CLASS = {"ana": set(), "ben": {"window-channels-first"}, "carla": {"non-overlapping-windows"},
                 "dev": {"grid-off-by-one"}, "eve": set()}


def test_the_example_class_gets_the_grades_the_readme_shows(scores_session):
    files = sorted(p for p in EXAMPLES.iterdir() if p.suffix in (".py", ".ipynb"))
    assert {p.stem for p in files} == set(EXAMPLE_CLASS)
    for path in files:
        result = grade_file(path, scores_session, student=path.stem)
        assert ids(result) == EXAMPLE_CLASS[path.stem], (path.stem, [(d.id, d.evidence) for d in result.diagnoses])
        assert (result.score == result.max_score) == (not EXAMPLE_CLASS[path.stem])


def test_grader_check_names_the_mistake_from_the_public_cases_alone(tmp_path):
    code = ("import sys; from grader import cli; "
            "code = cli.main(['check', sys.argv[1], '--exercise', 'dense_scores']); "
            "assert not [m for m in sys.modules if m.startswith('_grader_solution')], 'the reference was imported'; "
            "sys.exit(code)")
    for name, want, needle in (("correct/sliding-window-view.py", 0, ""),
                               ("buggy/window-channels-first.py", 1, "window-channels-first"),
                               ("buggy/weight-not-transposed.py", 1, "weight-not-transposed")):
        proc = subprocess.run([sys.executable, "-c", code, str(SUBMISSIONS / ID / name)], capture_output=True,
                              text=True, cwd=tmp_path, timeout=120)
        assert proc.returncode == want, proc.stdout + proc.stderr
        assert needle in proc.stdout, proc.stdout


# -- the cases ---------------------------------------------------------------------------------------------------
def test_hidden_cases_cover_every_edge_shape(ex):
    cases = ex.hidden_cases(3)
    sizes = [(c.args[0].shape, c.args[3], c.args[1].shape[0]) for c in cases]
    assert any(k == 1 for _, k, _ in sizes), "k = 1"
    assert any(k == H == W for (H, W, _), k, _ in sizes), "k = H = W: a 1 x 1 grid"
    assert any(k == H < W for (H, W, _), k, _ in sizes), "k = H < W: a single row of positions"
    assert any(H != W and 1 < k < min(H, W) for (H, W, _), k, _ in sizes), "a non-square map with a larger grid"
    assert any(C == 1 and k > 1 for (_, _, C), k, _ in sizes) and any(out == 1 for *_, out in sizes)
    assert any(k > 1 and (H - k) // k + 1 != H - k + 1 for (H, _, _), k, _ in sizes), "stride k shows"
    groups = {c.group for c in cases}
    assert groups == {c.group for c in ex.checks if c.kind == "values"}
    for case in cases:
        fmap, weight, bias, k = case.args
        assert type(k) is int and 1 <= k <= min(fmap.shape[:2])
        assert weight.shape == (bias.shape[0], k * k * fmap.shape[2])
        assert weight.shape[0] != weight.shape[1], "an untransposed weight must fail on every hidden case"


def test_hidden_cases_are_drawn_per_student_and_reproducible(ex):
    a, b, again = ex.hidden_cases(1), ex.hidden_cases(2), ex.hidden_cases(1)
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


@pytest.mark.parametrize("path", sorted(p for p in BUGGY.glob("*.py") if p.stem.split("--")[0] in SPECIFIC),
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


def _by_definition(fmap, weight, bias, k):
    """The layer applied to each window flattened channels-last: the statement's formula, term by term."""
    H, W, C = fmap.shape
    out = np.zeros((H - k + 1, W - k + 1, weight.shape[0]))
    for i in range(H - k + 1):
        for j in range(W - k + 1):
            for o in range(weight.shape[0]):
                out[i, j, o] = bias[o] + sum(fmap[i + u, j + v, c] * weight[o, (u * k + v) * C + c]
                                             for u in range(k) for v in range(k) for c in range(C))
    return out


def test_the_reference_is_the_statement_s_definition(ex):
    for case in ex.hidden_cases(5) + ex.public_cases() + ex.probe_cases():
        got = ex.expected(case)
        assert got.dtype == np.float64
        np.testing.assert_allclose(got, _by_definition(*case.args), rtol=1e-12, atol=1e-12)
    # the statement's example, and the article's equivalences: k = H = W is the fully connected layer itself
    fmap, weight, bias = np.arange(12.0).reshape(3, 4, 1), np.array([[1.0, 2.0, 0.0, -1.0]]), np.array([0.5])
    assert ex.reference(fmap, weight, bias, 2)[..., 0].tolist() == [[-2.5, -0.5, 1.5], [5.5, 7.5, 9.5]]
    rng = np.random.default_rng(0)
    fmap, weight, bias = rng.standard_normal((3, 3, 4)), rng.standard_normal((5, 36)), rng.standard_normal(5)
    np.testing.assert_allclose(ex.reference(fmap, weight, bias, 3)[0, 0], weight @ fmap.reshape(-1) + bias)
    weight = rng.standard_normal((5, 4))
    np.testing.assert_allclose(ex.reference(fmap, weight, bias, 1), fmap @ weight.T + bias)


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
        assert len(args) == len(case.args) and args[3] == case.args[3] and type(args[3]) is int
        assert all(np.array_equal(a, b) for a, b in zip(args[:3], case.args[:3])), name
        np.testing.assert_allclose(np.array(namespace["EXPECTED"][name]), ex.expected(case), rtol=1e-11, atol=0)


def test_selfcheck_does_not_contain_the_computation(selfcheck_code):
    for forbidden in (" @ ", "np.dot", "matmul", "einsum", "tensordot", "sliding_window_view", "as_strided"):
        assert forbidden not in selfcheck_code, forbidden
    imports = {line.split()[1] for line in selfcheck_code.splitlines() if line.startswith(("import ", "from "))}
    assert imports <= {"os", "numpy"}


@pytest.mark.parametrize("name,needles", [
    ("buggy/not-implemented.py", ["Not implemented yet"]),
    ("buggy/window-channels-first.py", ["✗ public-grid", "✓ public-pointwise", "flattened channels-first"]),
    ("buggy/window-channels-first--swv-ravel-f.py", ["flattened column-major order"]),
    ("buggy/non-overlapping-windows.py", ["✗ public-grid", "placed side by side"]),
    ("buggy/grid-off-by-one.py", ["✗ public-grid", "off by one"]),
    ("buggy/grid-off-by-one--past-edge.py", ["run past the edge"]),
    ("buggy/grid-axes-swapped.py", ["✗ public-grid", "axes look swapped"]),
    ("buggy/scores-first.py", ["scores axis comes first"]),
    ("buggy/weight-not-transposed.py", ["multiply by the weight as stored"]),
    ("buggy/missing-bias.py", ["bias is never added"]),
    ("buggy/precision-loss.py", ["single precision"]),
    ("buggy/mutates-input.py", ["changed its input fmap in place"]),
    ("buggy/nondeterministic.py", ["Two calls on the same inputs"]),
    ("correct/loops.py", ["All public checks passed"]),
    ("correct/as-strided.py", ["All public checks passed"]),
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
    assert output.count("✓") == 3 and "✗" not in output and "Hint" not in output


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


def _layer(fmap, weight, bias, k, order=(0, 1, 3, 4, 2), step=1):
    from numpy.lib.stride_tricks import sliding_window_view

    win = sliding_window_view(fmap, (k, k), axis=(0, 1))[::step, ::step].transpose(order)
    flat = win.reshape(win.shape[0], win.shape[1], -1)
    return flat @ weight.T + (0.0 if bias is None else bias)


TWO_MISTAKES = {
    "channels-first, no bias": (lambda f, w, b, k: _layer(f, w, None, k, order=(0, 1, 2, 3, 4)),
                                {"window-channels-first", "missing-bias"}),
    "stride k, swapped grid": (lambda f, w, b, k: _layer(f, w, b, k, step=k).transpose(1, 0, 2),
                               {"non-overlapping-windows", "grid-axes-swapped"}),
    "one too small, scores first": (lambda f, w, b, k: np.moveaxis(_layer(f, w, b, k)[:-1, :-1], -1, 0),
                                    {"grid-off-by-one", "scores-first"}),
    "float32, channels-first": (lambda f, w, b, k: _layer(f.astype(np.float32), w.astype(np.float32),
                                                          b.astype(np.float32), k, order=(0, 1, 2, 3, 4)
                                                          ).astype(float), {"window-channels-first"}),
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
    assert diagnose(ex, lambda f, w, b, k: _layer(f, w, b, k), cases) == []
    started = time.perf_counter()
    assert diagnose(ex, lambda f, w, b, k: np.zeros((f.shape[0] - k + 1, f.shape[1] - k + 1, len(b))) + 0.25,
                    cases) == []
    assert time.perf_counter() - started < 1.0
    # every call failing for another reason is not a grid one too large
    assert diagnose(ex, lambda f, w, b, k: f.reshape(7, -1), cases) == []


def check_drawn(case):
    fmap, weight, bias, k = case.args
    H, W, C = fmap.shape
    assert H != W and 1 < k < min(H, W) and weight.shape == (len(bias), k * k * C) and len(bias) != k * k * C
