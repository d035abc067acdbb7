"""The to_channels_last exercise: every correct style gets full marks and no diagnosis, every buggy submission loses
points and is named by its catalog id, the diagnosis names each model of a mistake in-process, the hidden cases
cover the sizes the statement promises, the notebook and stored public outputs are up to date, and VGG-16's fc6
(102.8 million weights, shared by every student) is graded once with the large case on."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import exercise_helpers as helpers
from conftest import SUBMISSIONS, grade_students
from conftest import diagnosis_ids as ids
from grader.authoring import Case
from grader.exercise import load, public_expected_document
from grader.outcomes import CallError, CallOutcome, CaseRun
from grader.grade import Session, grade_file
from grader.sandbox import Sandbox

EX = load("to_channels_last")
D = EX.diagnosis_module
HERE = SUBMISSIONS / "to_channels_last"
CORRECT = sorted([*(HERE / "correct").glob("*.py"), *(HERE / "correct").glob("*.ipynb")])
BUGGY = sorted([*(HERE / "buggy").glob("*.py"), *(HERE / "buggy").glob("*.ipynb")])
#: mistakes only VGG-16's fc6 shows: graded with the large case (the fc6 test below), and in-process here
FULL_SCALE_ONLY = {"too-much-memory"}


def mistake(path) -> str:
    """The catalog id a buggy file makes: its name up to ``--`` (``axis-order--whc.py`` makes axis-order)."""
    return path.stem.split("--")[0]


@pytest.fixture(scope="module")
def session():
    """One session for the module, without the fc6 case, with limits short enough for the too-slow submission."""
    with helpers.session(EX, call_seconds=5.0, cell_seconds=5.0, submission_seconds=40.0) as s:
        yield s


@pytest.fixture(scope="module")
def quick():
    """For the too-slow file alone: it never returns, so a 1 s call limit names it as surely as the 5 s one, and
    its two timed-out calls cost 2 s instead of 10."""
    with helpers.session(EX, call_seconds=1.0, cell_seconds=5.0, submission_seconds=40.0) as s:
        yield s


# -- the catalog and its submissions ---------------------------------------------------------------------------
def test_every_catalog_entry_has_an_explanation_and_a_buggy_submission_named_by_its_id():
    assert {mistake(p) for p in BUGGY} == set(EX.catalog)
    helpers.assert_each_mistake_is_explained_and_has_a_buggy_file(EX)
    assert {"reshape-only", "axis-order", "rows-permuted", "transposed-result"} <= set(EX.catalog)


@pytest.mark.parametrize("path", CORRECT, ids=lambda p: p.stem)
def test_each_correct_style_gets_full_marks_and_no_diagnosis(session, path):
    result = grade_file(path, session)
    assert result.status == "graded", result.error
    assert result.score == result.max_score, helpers.failed_checks(result)
    assert result.diagnoses == ()


@pytest.mark.parametrize("path", [p for p in BUGGY if mistake(p) not in FULL_SCALE_ONLY], ids=lambda p: p.name)
def test_each_mistake_loses_points_and_is_named(request, session, path):
    result = grade_file(path, request.getfixturevalue("quick") if mistake(path) == "too-slow" else session)
    assert result.score < result.max_score
    assert mistake(path) in ids(result), helpers.findings(result)
    for diagnosis in result.diagnoses:  # evidence quotes probes only, never a hidden case by name
        for case in EX.hidden_cases(0):
            assert f"'{case.name}'" not in diagnosis.evidence or diagnosis.id in GENERIC, diagnosis


#: findings made by the grader itself (they may name the case a call failed on, as for every exercise)
GENERIC = {"raises-error", "wrong-shape", "too-slow", "wrong-signature", "not-an-array", "wrong-dtype",
           "mutates-input", "nondeterministic", "not-implemented", "rounded-output", "missing-function",
           "stale-result", "shared-result"}


def test_evidence_reads_the_labelled_probe():
    result_text = {}
    for stem in ("axis-order", "reshape-only", "rows-permuted", "transposed-result", "inverse-permutation"):
        findings = D.diagnose(make_runs(_load(HERE / "buggy" / f"{stem}.py")), EX)
        result_text[stem] = " ".join(f.evidence for f in findings if f.id == stem)
    assert "(W, H, C)" in result_text["axis-order"] and "probe 'labelled'" in result_text["axis-order"]
    assert "row 0 of your result starts 1, 2, 3" in result_text["reshape-only"]
    assert "rows 0, 6, 1, 7 of the weight, unchanged" in result_text["rows-permuted"]
    assert "shape (24, 5)" in result_text["transposed-result"]
    assert "channels-last to channels-first" in result_text["inverse-permutation"]


# -- the diagnosis, in-process ----------------------------------------------------------------------------------------
CASES = EX.hidden_cases(11) + D.probe_cases()
EXPECTED = [EX.expected(c) for c in CASES]


def make_runs(fn):
    return helpers.case_runs(EX, fn, CASES, EXPECTED)


def _load(path):
    return helpers.load_function(path, EX.function)


def test_the_reference_and_the_correct_styles_get_no_finding():
    assert D.diagnose(make_runs(EX.reference), EX) == []
    for path in [p for p in CORRECT if p.suffix == ".py"] + [HERE / "buggy" / "too-much-memory.py"]:
        assert D.diagnose(make_runs(_load(path)), EX) == [], path.stem


@pytest.mark.parametrize("model", range(len(D.ALL_MODELS)), ids=lambda i: f"{D.ALL_MODELS[i][0]}-{i}")
def test_each_model_of_a_mistake_is_named_as_itself(model):
    finding_id, label, fn = D.ALL_MODELS[model]
    findings = D.diagnose(make_runs(fn), EX)
    assert [f.id for f in findings] == [finding_id], (label, findings)


def test_the_models_differ_from_each_other_and_from_the_reference_on_the_probes():
    probes = D.probe_cases()
    outputs = []
    for finding_id, label, fn in [("", "reference", D.reference)] + D.ALL_MODELS:
        if finding_id == "precision-loss":
            continue  # the probes hold small integers, exact in float32: the hidden cases tell this one apart
        outputs.append((label, tuple(D._evaluate(fn, p) for p in probes)))
    for i, (label, mine) in enumerate(outputs):
        for other, theirs in outputs[:i]:
            same = all((a is None and b is None) or (a is not None and b is not None and a.shape == b.shape
                                                      and np.array_equal(a, b)) for a, b in zip(mine, theirs))
            assert not same, (label, other)


def test_a_column_order_no_model_lists_is_still_named_from_the_labelled_probes():
    def shuffled(weight, C, H, W):
        n = C * H * W
        return weight[:, (np.arange(n) * 5 + 1) % n] if n % 5 else weight[:, ::-1].copy()

    findings = D.diagnose(make_runs(shuffled), EX)
    assert [f.id for f in findings] == ["axis-order"] and "neither channels-last" in findings[0].evidence


@pytest.mark.parametrize("stem, needles", [
    ("column-index", ["columns 6 and 8 of your result both hold the weight's column 3", "appears nowhere",
                      "right on square maps (H = W)"]),
    ("rows-mixed", ["transposed to (H*W*C, out), then reshaped", "row 0 of your result starts 1, 25, 49"]),
    ("rows-mixed--transpose-no-axes", ["transposed without axes"]),
    ("left-unfilled", ["24 of 120 entries were never written, among them all of row 0"]),
])
def test_mistakes_found_from_the_labelled_probes_say_where(stem, needles):
    findings = D.diagnose(make_runs(_load(HERE / "buggy" / f"{stem}.py")), EX)
    assert [f.id for f in findings] == [stem.split("--")[0]], findings
    for needle in needles:
        assert needle in findings[0].evidence, findings[0].evidence


def test_a_mix_of_the_outputs_no_model_lists_is_named_rows_mixed():
    def rolled(weight, C, H, W):  # every weight once, each row reading two outputs
        right = D.reference(weight, C, H, W)
        return np.roll(right, 1) if weight.shape[0] > 1 else right.copy()

    findings = D.diagnose(make_runs(rolled), EX)
    assert [f.id for f in findings] == ["rows-mixed"] and "holds values of rows" in findings[0].evidence


def test_a_result_left_as_a_copy_of_the_weight_in_its_last_channel_is_left_unfilled():
    def last_channel_skipped(weight, C, H, W):
        result = weight.copy()
        for c in range(C - 1):
            result[:, c::C] = weight[:, c * H * W:(c + 1) * H * W]
        return result

    findings = D.diagnose(make_runs(last_channel_skipped), EX)
    assert [f.id for f in findings] == ["left-unfilled"], findings


@pytest.mark.parametrize("outcome", [
    CallOutcome(case="vgg16-fc6", status="crashed",
                incident="ran out of memory and was killed: it used 3.1 GiB of memory, the limit is 3 GiB"),
    CallOutcome(case="vgg16-fc6", status="raised",
                exception=CallError("MemoryError", "Unable to allocate 4.69 GiB for an array with shape (25088, 25088)")),
], ids=["killed", "memory-error"])
def test_running_out_of_memory_on_fc6_is_named(outcome):
    fc6 = Case(name="vgg16-fc6", group="full-scale", args=(np.empty((2, 3)), 512, 7, 7), shared=True)
    runs = make_runs(_load(HERE / "buggy" / "too-much-memory.py"))
    runs.append(CaseRun(case=fc6, expected=np.empty((2, 3)), outcome=outcome))
    findings = D.diagnose(runs, EX)
    assert [f.id for f in findings] == ["too-much-memory"], findings
    assert findings[0].evidence.startswith("On VGG-16's fc6 weight your function ")


def test_fc6_numbers_in_an_error_are_read_as_a_hardcoded_shape():
    findings = D.diagnose(make_runs(_load(HERE / "buggy" / "hardcoded-shape.py")), EX)
    assert [f.id for f in findings] == ["hardcoded-shape"] and "4096" in findings[0].evidence



def test_a_wrong_shape_that_happens_to_hold_an_fc6_number_is_no_hardcoded_shape():
    # one extra column: on a case with C*H*W = 48 the result is (out, 49), 49 being VGG-16's 7*7 positions, but the
    # other cases' shapes hold no fc6 number, so nothing was written into the code (it used to be named so)
    cases = CASES + [Case(name="forty-eight", group="distinct", description="",
                          args=(np.random.default_rng(3).standard_normal((8, 48)), 4, 3, 4))]
    runs = helpers.case_runs(EX, _load(HERE / "buggy" / "wrong-shape--extra-column.py"), cases,
                             [EX.expected(c) for c in cases])
    assert "hardcoded-shape" not in [f.id for f in D.diagnose(runs, EX)]


@pytest.mark.parametrize("name, rows", [
    ("each row sorted", lambda w, C, H, W: np.sort(w, axis=1)),
    ("only row 0 reordered", lambda w, C, H, W: np.concatenate([D.reference(w[:1], C, H, W), w[1:]])),
])
def test_rows_reordered_each_their_own_way_are_not_called_an_axis_order(name, rows):
    # on the labelled probes a sorted row is the weight's own order, and a row left alone looks like reshape-only:
    # a column order must be the same gather in every row of every case, or it is not named axis-order
    findings = D.diagnose(make_runs(rows), EX)
    assert "axis-order" not in [f.id for f in findings], (name, findings)



@pytest.mark.parametrize("seed", range(4))
def test_one_hidden_case_repeats_an_earlier_ones_sizes_with_other_weights(seed):
    # a port cached by its sizes answers the repeat with the earlier weight's columns: it kept full marks before
    cases = EX.hidden_cases(seed)
    again = next(c for c in cases if c.name == "distinct-again")
    first = cases[0]
    assert cases.index(again) > 0 and again.group == first.group
    assert again.args[0].shape == first.args[0].shape and again.args[1:] == first.args[1:]
    assert not np.array_equal(again.args[0], first.args[0])


# -- the cases ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(6))
def test_hidden_cases_cover_the_promised_sizes(seed):
    cases = EX.hidden_cases(seed)
    groups = {c.group for c in cases}
    assert groups == {"distinct", "square", "edge"}
    for case in cases:
        weight, C, H, W = case.args
        assert all(type(v) is int and v >= 1 for v in (C, H, W))
        assert weight.dtype == np.float64 and weight.shape[1] == C * H * W and weight.flags.c_contiguous
        assert np.unique(weight).size == weight.size  # a misplaced value is always a wrong value
        if case.group == "distinct":
            assert len({C, H, W}) == 3 and min(C, H, W) >= 2
        if case.group == "square":
            assert H == W and C != H
    by_name = {c.name: c.args for c in cases}
    assert by_name["one-output"][0].shape[0] == 1 and by_name["one-channel"][1] == 1
    assert by_name["one-position"][2:] == (1, 1) and by_name["one-row"][2] == 1 and by_name["one-column"][3] == 1
    narrow, wide = by_name["distinct-narrow"], by_name["distinct-wide"]
    assert narrow[0].shape[0] < narrow[0].shape[1] and wide[0].shape[0] > wide[0].shape[1]


def test_students_get_different_cases():
    a, b = EX.hidden_cases(1), EX.hidden_cases(2)
    assert any(x.args[0].shape != y.args[0].shape or not np.array_equal(x.args[0], y.args[0]) for x, y in zip(a, b))


def test_the_fc6_case_is_vgg16s_first_dense_layer():
    shapes = []

    def alloc(shape):
        shapes.append(tuple(shape))
        return np.empty((2, 3))  # a stand-in: the recipe is checked here, not 822 MB of weights

    case = EX.full_scale_case(0, alloc)
    assert shapes == [(4096, 25088)]
    assert case.shared and case.group == "full-scale" and case.args[1:] == (512, 7, 7)


# -- the notebook and the stored public outputs ----------------------------------------------------------------
def test_committed_notebook_and_public_outputs_are_up_to_date():
    helpers.assert_notebook_and_public_outputs_are_up_to_date(EX)
    assert set(public_expected_document(EX)["cases"]) == {"public-distinct", "public-square", *D.PROBE_NAMES}


def test_without_the_reference_the_stored_outputs_stand_in():
    helpers.assert_stored_outputs_stand_in_for_the_reference(EX)


def test_the_statement_states_the_limits_of_exercise_toml():
    helpers.assert_statement_states_the_limits(EX)
    statement = (EX.folder / "statement.md").read_text(encoding="utf-8")
    for needle in ("102,760,448", "4,096", "25{,}088", "(out_features, in_features)", "(H, W, C)"):
        assert needle in statement, needle


@pytest.fixture(scope="module")
def selfcheck_code():
    return helpers.selfcheck_cell(EX)


def test_the_selfcheck_builds_exactly_the_public_cases(selfcheck_code, monkeypatch):
    helpers.assert_selfcheck_builds_exactly_the_public_cases(EX, selfcheck_code, monkeypatch)  # C, H, W ints


def test_the_selfcheck_holds_no_solution(selfcheck_code):
    helpers.assert_selfcheck_holds_no_solution(selfcheck_code, ("transpose(", "moveaxis", "swapaxes", "einsum",
                                                                ".reshape(", "ravel_multi_index"))


@pytest.mark.parametrize("stem, needle", [
    ("reshape-only", "reshaping alone never moves a value"),
    ("transposed-result", "right weight transposed"),
    ("rows-permuted", "rows (the layer's outputs) were reordered"),
    ("inverse-permutation", "the opposite direction"),
    ("axis-order", "Each row holds its own values, in another order"),
    ("hardcoded-shape", "one of fc6's sizes"),
    ("mutates-input", "changed the weight it was given"),
])
def test_the_selfcheck_hints_at_each_common_mistake(selfcheck_code, stem, needle):
    text = helpers.run_selfcheck(selfcheck_code, (HERE / "buggy" / f"{stem}.py").read_text(encoding="utf-8"))
    assert needle in text and "All public checks passed" not in text, text


def test_the_selfcheck_passes_every_correct_style_and_greets_the_starter(selfcheck_code):
    helpers.assert_selfcheck_passes_every_correct_style_and_greets_the_starter(EX, selfcheck_code)


# -- VGG-16's fc6, once -------------------------------------------------------------------------------------------
def test_vgg16_fc6_is_graded_once_for_every_student_with_full_marks_for_a_correct_port(tmp_path):
    # limits far above the exercise's: an 822 MB result costs seconds of page faults on a loaded test machine, and
    # this test is about the case, not the clock
    limits = dataclasses.replace(EX.limits, call_seconds=150.0, submission_seconds=400.0)
    # the three students in one batch of two workers, as `grader grade` runs a class: the case is still built once
    # for the session, and two 822 MB calls overlap instead of following each other (22-38 s in turn, 15-20 s so)
    students = {"ada": HERE / "correct" / "reshape-transpose.py", "bob": HERE / "correct" / "channel-loop.py",
                # right on every small weight, but a 25,088 x 25,088 permutation matrix is 5 GB: only fc6 shows it
                "cy": HERE / "buggy" / "too-much-memory.py"}
    for student, path in students.items():
        (tmp_path / f"{student}.py").write_bytes(path.read_bytes())
    with Session(EX, full_scale=True, sandbox=Sandbox(limits)) as session:
        graded = grade_students(tmp_path, session, list(students))
    results, hungry = [graded["ada"], graded["bob"]], graded["cy"]
    failed = {c.id for c in hungry.checks if c.status != "passed"}
    assert failed == {"returns", "values-full-scale"}, helpers.failed_checks(hungry)
    assert "too-much-memory" in ids(hungry), helpers.findings(hungry)
    for result in results:
        assert result.status == "graded", result.error
        check = next(c for c in result.checks if c.id == "values-full-scale")
        assert check.status == "passed" and result.score == result.max_score, \
            [(c.id, c.message) for c in result.checks if c.status != "passed"]
        assert any("(4096, 25088)" in line for line in result.trace)
