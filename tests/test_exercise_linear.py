"""The linear exercise (exercises/linear/): y = x W^T + b as nn.Linear states it.

Every buggy submission in tests/submissions/linear/buggy/ loses points and is named by the id its file name starts
with; every correct style gets full marks and no diagnosis; the hidden cases cover the edge shapes; the notebook
and the stored public outputs are up to date; the self-check tells the right story. One grading session serves
the whole module.
"""
from __future__ import annotations

import time

import numpy as np
import pytest

import exercise_helpers as helpers
from conftest import ROOT, SUBMISSIONS
from conftest import diagnosis_ids as ids
from grader import exercise as exercise_mod
from grader.grade import grade_file

ID = "linear"
FOLDER = ROOT / "exercises" / ID
BUGGY = SUBMISSIONS / ID / "buggy"
CORRECT = SUBMISSIONS / ID / "correct"
EXAMPLES = FOLDER / "examples"
SOLUTION = ROOT / "solutions" / f"{ID}.py"


@pytest.fixture(scope="module")
def ex():
    return exercise_mod.load(ID)


@pytest.fixture(scope="module")
def linear_session(ex):
    with helpers.session(ex) as s:
        yield s


@pytest.fixture(scope="module")
def linear_quick(ex):
    with helpers.session(ex, call_seconds=1.0, cell_seconds=3.0, submission_seconds=15.0) as s:
        yield s


# -- the catalog and the submissions, graded in the sandbox ----------------------------------------------------------
REQUIRED = {"weight-not-transposed", "only-2d-input", "bias-none-refused", "bias-wrong-axis", "precision-loss",
            "wrong-dtype", "mutates-input", "missing-bias"}
#: the mistakes the exercise's own diagnosis names, each alone and with evidence
SPECIFIC = {"weight-not-transposed", "only-2d-input", "bias-none-refused", "bias-wrong-axis", "missing-bias",
            "weight-reshaped-not-transposed", "elementwise-product", "mean-not-sum", "sum-skips-an-input",
            "output-shaped-like-input", "bias-added-twice", "bias-added-to-input", "bias-truth-value",
            "activation-applied"}
#: submissions graded in the sandbox: scripts and notebooks
SUFFIXES = (".py", ".ipynb")


def submissions(folder):
    return sorted(p for p in folder.iterdir() if p.suffix in SUFFIXES)


def test_catalog_has_the_required_mistakes_each_with_an_explanation_and_a_buggy_file(ex):
    assert REQUIRED <= set(ex.catalog)
    helpers.assert_each_mistake_is_explained_and_has_a_buggy_file(ex)


def test_every_buggy_notebook_is_named_after_a_catalog_entry(ex):
    stems = {p.stem.split("--")[0] for p in BUGGY.glob("*.ipynb")}
    assert stems and stems <= set(ex.catalog), stems - set(ex.catalog)


@pytest.mark.parametrize("path", submissions(BUGGY), ids=lambda p: p.name)
def test_each_mistake_loses_points_and_is_named(linear_session, linear_quick, path):
    result = grade_file(path, linear_quick if path.stem.startswith("too-slow") else linear_session)
    mistake = path.stem.split("--")[0]
    assert result.score < result.max_score
    assert mistake in ids(result), helpers.findings(result)
    if mistake in SPECIFIC:
        assert next(d for d in result.diagnoses if d.id == mistake).evidence, "a specific finding has evidence"
        assert len(result.diagnoses) == 1, helpers.findings(result)


@pytest.mark.parametrize("path", submissions(CORRECT), ids=lambda p: p.name)
def test_each_correct_style_gets_full_marks_and_no_diagnosis(linear_session, path):
    result = grade_file(path, linear_session)
    assert result.status == "graded", result.error
    assert result.score == result.max_score == 20, helpers.failed_checks(result)
    assert result.diagnoses == ()


EXAMPLE_CLASS = {"amara": set(), "bruno": {"weight-not-transposed"}, "chen": {"only-2d-input"},
                 "dana": {"bias-none-refused"}, "emil": {"bias-wrong-axis"}, "fatima": set()}


def test_the_example_class_gets_the_grades_the_readme_shows(linear_session):
    helpers.assert_example_class_gets(linear_session, EXAMPLES, EXAMPLE_CLASS)


def test_grader_check_names_the_mistake_from_the_public_cases_alone(tmp_path):
    for name, want, needle in (("correct/matmul.py", 0, "All"), ("buggy/bias-wrong-axis.py", 1, "bias-wrong-axis")):
        proc = helpers.grader_check(ID, SUBMISSIONS / ID / name, tmp_path)
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


@pytest.mark.parametrize("seed", range(4))
def test_one_hidden_case_repeats_an_earlier_ones_shapes_with_other_numbers(ex, seed):
    # an answer cached by the inputs' shapes is wrong on the repeat (it kept full marks before, and is stale-result)
    cases = ex.hidden_cases(seed)
    again = next(c for c in cases if c.name == "batch-again")
    first = next(c for c in cases if c.name == "batch")
    assert cases.index(again) > cases.index(first) and again.group == first.group
    assert [np.shape(a) for a in again.args] == [np.shape(a) for a in first.args]
    assert not any(np.array_equal(a, b) for a, b in zip(again.args, first.args) if np.ndim(a))


def test_hidden_cases_are_drawn_per_student_and_reproducible(ex):
    helpers.assert_cases_are_drawn_per_student_and_reproducible(ex)


def test_the_drawn_case_varies_between_students_and_keeps_its_constraints(ex):
    drawn = [next(c for c in ex.hidden_cases(seed) if c.name == "drawn") for seed in range(40)]
    assert len({c.args[0].shape for c in drawn}) > 10
    for case in drawn:
        check_drawn(case)


@pytest.mark.parametrize("path", sorted(p for p in BUGGY.glob("*.py") if p.stem.split("--")[0] in SPECIFIC),
                         ids=lambda p: p.stem)
def test_each_specific_mistake_is_named_whatever_the_student_s_cases(ex, path):
    helpers.assert_named_alone_whatever_the_student_s_cases(ex, path, diagnose)


@pytest.mark.parametrize("path", sorted(p for p in BUGGY.glob("*.py") if not p.stem.startswith(
    ("too-slow", "missing-function"))), ids=lambda p: p.stem)
def test_grader_check_s_cases_alone_never_name_another_mistake(ex, path):
    """``grader check`` sees the public cases and the probes only: what it names must be the file's mistake or
    nothing (a wrong name is worse than none)."""
    fn = helpers.load_function(path, ex.function)
    found = {f.id for f in diagnose(ex, fn, ex.public_cases() + ex.probe_cases())}
    assert found <= {path.stem.split("--")[0]}, found


def test_case_names_are_unique_across_hidden_public_and_probe_cases(ex):
    helpers.assert_case_names_are_unique(ex)


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
    helpers.assert_statement_states_the_limits(ex, sentence=True)


# -- the notebook and the stored outputs ---------------------------------------------------------------------------
def test_committed_notebook_and_stored_public_outputs_are_up_to_date(ex):
    helpers.assert_notebook_and_public_outputs_are_up_to_date(ex)


def test_without_the_reference_the_stored_outputs_stand_in(ex):
    helpers.assert_stored_outputs_stand_in_for_the_reference(ex)


@pytest.fixture(scope="module")
def selfcheck_code(ex):
    return helpers.selfcheck_cell(ex)


def test_selfcheck_builds_exactly_the_public_cases(ex, selfcheck_code, monkeypatch):
    helpers.assert_selfcheck_builds_exactly_the_public_cases(ex, selfcheck_code, monkeypatch)


def test_selfcheck_does_not_contain_the_computation(selfcheck_code):
    helpers.assert_selfcheck_holds_no_solution(selfcheck_code, (" @ ", "np.dot", "matmul", "einsum", "tensordot",
                                                                "np.inner"))


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
    output = helpers.run_selfcheck(selfcheck_code, (SUBMISSIONS / ID / name).read_text(encoding="utf-8"))
    helpers.assert_selfcheck_says(output, needles)


def test_selfcheck_passes_every_correct_style_and_greets_the_starter(ex, selfcheck_code):
    helpers.assert_selfcheck_passes_every_correct_style_and_greets_the_starter(ex, selfcheck_code)


def test_selfcheck_gives_the_reference_no_hint(selfcheck_code):
    output = helpers.run_selfcheck(selfcheck_code, SOLUTION.read_text(encoding="utf-8"))
    assert output.count("✓") == 5 and "✗" not in output and "Hint" not in output


# -- the diagnosis, in-process -----------------------------------------------------------------------------------------
def diagnose(ex, fn, cases=None):
    cases = cases if cases is not None else ex.hidden_cases(11) + ex.probe_cases()
    return ex.diagnosis_module.diagnose(helpers.case_runs(ex, fn, cases), ex)


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
    "reshaped weight, ReLU": (lambda x, w, b=None: np.maximum(_with_bias(x @ w.reshape(w.shape[1], -1), b), 0),
                              {"weight-reshaped-not-transposed", "activation-applied"}),
    "mean, bias twice": (lambda x, w, b=None: _with_bias(_with_bias(x @ w.T / w.shape[1], b), b),
                         {"mean-not-sum", "bias-added-twice"}),
    "rows only, None refused": (lambda x, w, b=0.0: x.reshape(-1, x.shape[-1]) @ w.T + b,
                                {"only-2d-input", "bias-none-refused"}),
}


@pytest.mark.parametrize("label", sorted(TWO_MISTAKES))
def test_two_mistakes_at_once_are_both_named(ex, label):
    fn, want = TWO_MISTAKES[label]
    assert {f.id for f in diagnose(ex, fn)} == want


def test_every_departure_is_seen_by_the_public_cases_and_probes_alone(ex):
    helpers.assert_every_departure_is_seen_by_the_public_cases_and_probes(ex)


def test_evidence_never_quotes_a_hidden_value(ex):
    cases = ex.hidden_cases(11) + ex.probe_cases()
    for fn, _ in TWO_MISTAKES.values():
        helpers.assert_evidence_quotes_no_hidden_value(diagnose(ex, fn, cases), cases)


def test_a_correct_or_unexplained_submission_gets_no_exercise_finding_quickly(ex):
    cases = ex.hidden_cases(11) + ex.probe_cases()
    assert diagnose(ex, lambda x, w, b=None: _with_bias(np.einsum("...i,oi->...o", x, w), b), cases) == []
    started = time.perf_counter()
    assert diagnose(ex, lambda x, w, b=None: np.zeros(x.shape[:-1] + (w.shape[0],)) + 0.25, cases) == []
    assert time.perf_counter() - started < 1.0


UNMODELLED = {
    "doubled": lambda x, w, b=None: 2 * _with_bias(x @ w.T, b),
    "outputs reversed": lambda x, w, b=None: _with_bias(x @ w.T, b)[..., ::-1],
    "inputs reversed": lambda x, w, b=None: _with_bias(x[..., ::-1] @ w.T, b),
    # np.roll(b, 1) is bias[j - 1], named index-shifted since round eight; two places off is no index slip
    "bias rolled by two": lambda x, w, b=None: _with_bias(x @ w.T, None if b is None else np.roll(b, 2)),
    "leaky ReLU": lambda x, w, b=None: (lambda y: np.where(y > 0, y, 0.1 * y))(_with_bias(x @ w.T, b)),
    "clipped": lambda x, w, b=None: np.clip(_with_bias(x @ w.T, b), -1, 1),
    "rows normalised": lambda x, w, b=None: _with_bias(x @ (w / np.linalg.norm(w, axis=1, keepdims=True)).T, b),
    "x centred": lambda x, w, b=None: _with_bias((x - x.mean(-1, keepdims=True)) @ w.T, b),
}


@pytest.mark.parametrize("label", sorted(UNMODELLED))
def test_a_mistake_the_model_does_not_hold_is_not_given_a_name(ex, label):
    """With a dozen switches, some combination of up to three could happen to fit a mistake of another kind: none
    does for these, so no catalog entry is named for them."""
    for seed in range(3):
        assert diagnose(ex, UNMODELLED[label], ex.hidden_cases(seed) + ex.probe_cases()) == []


def check_drawn(case):
    x, weight = case.args[0], case.args[1]
    out, inp = weight.shape
    assert out != inp and 2 <= x.ndim <= 4 and x.shape[-1] == inp
    assert not set(x.shape[:-1]) & {out, inp}
