"""The dense_scores exercise (exercises/dense_scores/): a fully connected layer evaluated at every k x k window.

Every buggy submission in tests/submissions/dense_scores/buggy/ loses points and is named by the id its file name
starts with; every correct style gets full marks and no diagnosis; the hidden cases cover the edge shapes (k = 1,
k = H, non-square maps, C = 1, out = 1); the notebook and the stored public outputs are up to date; the self-check
tells the right story. One grading session serves the whole module.
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

ID = "dense_scores"
FOLDER = ROOT / "exercises" / ID
BUGGY = SUBMISSIONS / ID / "buggy"
CORRECT = SUBMISSIONS / ID / "correct"
EXAMPLES = FOLDER / "examples"
SOLUTION = ROOT / "solutions" / f"{ID}.py"


@pytest.fixture(scope="module")
def ex():
    return exercise_mod.load(ID)


@pytest.fixture(scope="module")
def scores_session(ex):
    with helpers.session(ex) as s:
        yield s


@pytest.fixture(scope="module")
def scores_quick(ex):
    with helpers.session(ex, call_seconds=1.0, cell_seconds=3.0, submission_seconds=15.0) as s:
        yield s


# -- the catalog and the submissions, graded in the sandbox ----------------------------------------------------------
SPECIFIC = {"window-channels-first", "non-overlapping-windows", "grid-off-by-one", "grid-axes-swapped",
            "missing-bias", "weight-not-transposed", "scores-first", "window-transposed", "kernel-flipped",
            "window-read-as-flat-slice", "same-padding", "bias-added-twice", "weight-reshaped-not-transposed",
            "activation-applied"}
#: submissions graded in the sandbox: scripts and notebooks
SUFFIXES = (".py", ".ipynb")


def submissions(folder):
    return sorted(p for p in folder.iterdir() if p.suffix in SUFFIXES)


def test_catalog_has_the_required_mistakes_each_with_an_explanation_and_a_buggy_file(ex):
    assert SPECIFIC | {"precision-loss", "wrong-dtype", "mutates-input", "not-implemented"} <= set(ex.catalog)
    helpers.assert_each_mistake_is_explained_and_has_a_buggy_file(ex)


def test_every_buggy_notebook_is_named_after_a_catalog_entry(ex):
    stems = {p.stem.split("--")[0] for p in BUGGY.glob("*.ipynb")}
    assert stems and stems <= set(ex.catalog), stems - set(ex.catalog)


@pytest.mark.parametrize("path", submissions(BUGGY), ids=lambda p: p.name)
def test_each_mistake_loses_points_and_is_named(scores_session, scores_quick, path):
    result = grade_file(path, scores_quick if path.stem.startswith("too-slow") else scores_session)
    mistake = path.stem.split("--")[0]
    assert result.score < result.max_score
    assert mistake in ids(result), helpers.findings(result)
    if mistake in SPECIFIC:
        assert next(d for d in result.diagnoses if d.id == mistake).evidence
        assert len(result.diagnoses) == 1, helpers.findings(result)


@pytest.mark.parametrize("path", submissions(CORRECT), ids=lambda p: p.name)
def test_each_correct_style_gets_full_marks_and_no_diagnosis(scores_session, path):
    result = grade_file(path, scores_session)
    assert result.status == "graded", result.error
    assert result.score == result.max_score == 18, helpers.failed_checks(result)
    assert result.diagnoses == ()


EXAMPLE_CLASS = {"ana": set(), "ben": {"window-channels-first"}, "carla": {"non-overlapping-windows"},
                 "dev": {"grid-off-by-one"}, "eve": set()}


def test_the_example_class_gets_the_grades_the_readme_shows(scores_session):
    helpers.assert_example_class_gets(scores_session, EXAMPLES, EXAMPLE_CLASS)


def test_grader_check_names_the_mistake_from_the_public_cases_alone(tmp_path):
    for name, want, needle in (("correct/sliding-window-view.py", 0, ""),
                               ("buggy/window-channels-first.py", 1, "window-channels-first"),
                               ("buggy/weight-not-transposed.py", 1, "weight-not-transposed")):
        proc = helpers.grader_check(ID, SUBMISSIONS / ID / name, tmp_path)
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


@pytest.mark.parametrize("seed", range(4))
def test_one_hidden_case_repeats_an_earlier_ones_shapes_with_other_numbers(ex, seed):
    # an answer cached by the inputs' shapes is wrong on the repeat (it kept full marks before, and is stale-result)
    cases = ex.hidden_cases(seed)
    again = next(c for c in cases if c.name == "grid-again")
    first = next(c for c in cases if c.name == "grid")
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
    helpers.assert_selfcheck_builds_exactly_the_public_cases(ex, selfcheck_code, monkeypatch)  # k stays an int


def test_selfcheck_does_not_contain_the_computation(selfcheck_code):
    helpers.assert_selfcheck_holds_no_solution(selfcheck_code, (" @ ", "np.dot", "matmul", "einsum", "tensordot",
                                                                "sliding_window_view", "as_strided"))


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
    output = helpers.run_selfcheck(selfcheck_code, (SUBMISSIONS / ID / name).read_text(encoding="utf-8"))
    helpers.assert_selfcheck_says(output, needles)


def test_selfcheck_passes_every_correct_style_and_greets_the_starter(ex, selfcheck_code):
    helpers.assert_selfcheck_passes_every_correct_style_and_greets_the_starter(ex, selfcheck_code)


def test_selfcheck_gives_the_reference_no_hint(selfcheck_code):
    output = helpers.run_selfcheck(selfcheck_code, SOLUTION.read_text(encoding="utf-8"))
    assert output.count("✓") == 3 and "✗" not in output and "Hint" not in output


# -- the diagnosis, in-process -----------------------------------------------------------------------------------------
def diagnose(ex, fn, cases=None):
    cases = cases if cases is not None else ex.hidden_cases(11) + ex.probe_cases()
    return ex.diagnosis_module.diagnose(helpers.case_runs(ex, fn, cases), ex)


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
    "flipped kernel, ReLU": (lambda f, w, b, k: np.maximum(_flipped(f, w, b, k), 0.0),
                             {"kernel-flipped", "activation-applied"}),
    "same padding, bias twice": (lambda f, w, b, k: _layer(np.pad(f, (((k - 1) // 2, k // 2),) * 2 + ((0, 0),)),
                                                          w, 2 * b, k), {"same-padding", "bias-added-twice"}),
    "reshaped weight, short loop": (lambda f, w, b, k: _unfilled(_layer(f, w.reshape(w.shape[1], -1).T, b, k)),
                                    {"weight-reshaped-not-transposed", "grid-off-by-one"}),
}


def _flipped(fmap, weight, bias, k):
    kernel = weight.reshape(len(weight), k, k, -1)[:, ::-1, ::-1, :].reshape(len(weight), -1)
    return _layer(fmap, kernel, bias, k)


def _unfilled(y):
    y = y.copy()
    y[-1], y[:, -1] = 0.0, 0.0
    return y


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
    assert diagnose(ex, lambda f, w, b, k: _layer(f, w, b, k), cases) == []
    started = time.perf_counter()
    assert diagnose(ex, lambda f, w, b, k: np.zeros((f.shape[0] - k + 1, f.shape[1] - k + 1, len(b))) + 0.25,
                    cases) == []
    assert time.perf_counter() - started < 1.0
    # every call failing for another reason is not a grid one too large
    assert diagnose(ex, lambda f, w, b, k: f.reshape(7, -1), cases) == []


UNMODELLED = {
    "doubled": lambda f, w, b, k: 2 * _layer(f, w, b, k),
    "map centred": lambda f, w, b, k: _layer(f - f.mean(), w, b, k),
    "outputs reversed": lambda f, w, b, k: _layer(f, w, b, k)[..., ::-1],
    "grid upside down": lambda f, w, b, k: _layer(f, w, b, k)[::-1],
    "channels reversed": lambda f, w, b, k: _layer(f[..., ::-1], w, b, k),
    "leaky ReLU": lambda f, w, b, k: (lambda y: np.where(y > 0, y, 0.1 * y))(_layer(f, w, b, k)),
    "map upside down": lambda f, w, b, k: _layer(f[::-1], w, b, k),
    "first row everywhere": lambda f, w, b, k: np.broadcast_to(_layer(f, w, b, k)[:1],
                                                               _layer(f, w, b, k).shape).copy(),
}


@pytest.mark.parametrize("label", sorted(UNMODELLED))
def test_a_mistake_the_model_does_not_hold_is_not_given_a_name(ex, label):
    """With many switches, some combination of up to three could happen to fit a mistake of another kind: none
    does for these, so no catalog entry is named for them."""
    for seed in range(3):
        assert diagnose(ex, UNMODELLED[label], ex.hidden_cases(seed) + ex.probe_cases()) == []


def check_drawn(case):
    fmap, weight, bias, k = case.args
    H, W, C = fmap.shape
    assert H != W and 1 < k < min(H, W) and weight.shape == (len(bias), k * k * C) and len(bias) != k * k * C
