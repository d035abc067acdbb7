"""The gap_head exercise (two outputs, logits and class_map): every correct style gets full marks and no diagnosis,
every buggy submission loses points and is named by its catalog id, each model of a mistake is named in-process
(alone in its output, the other output right), the hidden cases cover the sizes the statement promises, and the
notebook's self-check tells each common mistake apart."""
from __future__ import annotations

import numpy as np
import pytest

import exercise_helpers as helpers
from conftest import SUBMISSIONS
from conftest import diagnosis_ids as ids
from grader.exercise import load, public_expected_document
from grader.grade import grade_file

EX = load("gap_head")
D = EX.diagnosis_module
HERE = SUBMISSIONS / "gap_head"
CORRECT = sorted([*(HERE / "correct").glob("*.py"), *(HERE / "correct").glob("*.ipynb")])
BUGGY = sorted([*(HERE / "buggy").glob("*.py"), *(HERE / "buggy").glob("*.ipynb")])


def mistake(path) -> str:
    """The catalog id a buggy file makes: its name up to ``--`` (``bias-count--cam-no-bias.py`` makes bias-count)."""
    return path.stem.split("--")[0]


@pytest.fixture(scope="module")
def session():
    """One session for the module, with limits short enough for the too-slow submission."""
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
    assert {"sum-pooling", "bias-count", "channel-mean", "class-map-layout"} <= set(EX.catalog)
    assert EX.outputs == ("logits", "class_map")


@pytest.mark.parametrize("path", CORRECT, ids=lambda p: p.stem)
def test_each_correct_style_gets_full_marks_and_no_diagnosis(session, path):
    result = grade_file(path, session)
    assert result.status == "graded", result.error
    assert result.score == result.max_score, helpers.failed_checks(result)
    assert result.diagnoses == ()


@pytest.mark.parametrize("path", BUGGY, ids=lambda p: p.name)
def test_each_mistake_loses_points_and_is_named(request, session, path):
    result = grade_file(path, request.getfixturevalue("quick") if mistake(path) == "too-slow" else session)
    assert result.score < result.max_score
    assert mistake(path) in ids(result), helpers.findings(result)


def test_a_mistake_in_one_output_costs_only_that_outputs_values_checks_and_names_it(session):
    """The values checks name their output (``output = ...`` in exercise.toml): right logits keep their points
    when only the class map is wrong."""
    result = grade_file(HERE / "buggy" / "bias-count.py", session)
    failed = [c for c in result.checks if c.status != "passed"]
    assert {c.id for c in failed} == {"values-square-map", "values-non-square-map", "values-edge-map",
                                      "values-googlenet-map"}
    assert all("output 'class_map'" in c.message for c in failed), [c.message for c in failed]
    logits = [c for c in result.checks if c.id in {"values-square", "values-non-square", "values-edge",
                                                   "values-googlenet"}]
    assert len(logits) == 4 and all(c.status == "passed" for c in logits)


def test_a_check_naming_an_unknown_output_is_an_exercise_error(tmp_path):
    import shutil

    from grader import exercise as exercise_mod
    from grader.errors import ExerciseError

    copy = tmp_path / "exercises" / "gap_head"
    shutil.copytree(HERE.parent.parent.parent / "exercises" / "gap_head", copy)
    settings = copy / "exercise.toml"
    settings.write_text(settings.read_text().replace('output = "logits"', 'output = "scores"', 1))
    with pytest.raises(ExerciseError, match="scores"):
        exercise_mod.load("gap_head", tmp_path / "exercises", HERE.parent.parent.parent / "solutions")


# -- the diagnosis, in-process ----------------------------------------------------------------------------------------
CASES = EX.hidden_cases(11) + D.probe_cases()
EXPECTED = [EX.expected(c) for c in CASES]


def make_runs(fn):
    """The runs of ``fn`` as the harness reports a function with two declared outputs (one part per output)."""
    return helpers.case_runs(EX, fn, CASES, EXPECTED)


def _load(path):
    return helpers.load_function(path, EX.function)


def test_the_reference_and_the_correct_styles_get_no_finding():
    assert D.diagnose(make_runs(EX.reference), EX) == []
    for path in [p for p in CORRECT if p.suffix == ".py"]:
        assert D.diagnose(make_runs(_load(path)), EX) == [], path.stem


@pytest.mark.parametrize("model", range(1, len(D.LOGITS)), ids=lambda i: f"{D.LOGITS[i][0]}-{i}")
def test_each_model_of_the_logits_is_named_with_the_class_map_right(model):
    finding_id, what, fn = D.LOGITS[model]
    findings = D.diagnose(make_runs(lambda F, V, c: (fn(F, V, c), D._map(F, V, c))), EX)
    assert [f.id for f in findings] == [finding_id], (what, findings)
    assert what in findings[0].evidence and "probe '" in findings[0].evidence


@pytest.mark.parametrize("model", range(1, len(D.MAPS)), ids=lambda i: f"{D.MAPS[i][0]}-{i}")
def test_each_model_of_the_class_map_is_named_with_the_logits_right(model):
    finding_id, what, fn = D.MAPS[model]
    findings = D.diagnose(make_runs(lambda F, V, c: (D.REF_LOGITS[2](F, V, c), fn(F, V, c))), EX)
    assert [f.id for f in findings] == [finding_id], (what, findings)
    assert what in findings[0].evidence


@pytest.mark.parametrize("name, class_map", [
    ("the logits at every position", lambda F, V, c: np.broadcast_to(V @ F.mean(axis=(0, 1)) + c,
                                                                       (*F.shape[:2], len(c))).copy()),
    ("the map negated", lambda F, V, c: -(F @ V.T + c)),
])
def test_a_flat_or_negated_class_map_is_not_called_rescaled(name, class_map):
    # both are exact lines through the right map (slope 0, slope -1), which once named normalised-map ("multiplied
    # by 0"): no heat-map normalisation makes either, so the map is left to the generic findings
    findings = D.diagnose(make_runs(lambda F, V, c: (V @ F.mean(axis=(0, 1)) + c, class_map(F, V, c))), EX)
    assert "normalised-map" not in [f.id for f in findings], (name, findings)


def test_two_mistakes_at_once_are_both_named():
    def zhou(F, V, c):  # Zhou et al.'s formulas taken literally: summed pooling, no bias anywhere
        return V @ F.sum(axis=(0, 1)), F @ V.T

    findings = D.diagnose(make_runs(zhou), EX)
    assert {f.id for f in findings} == {"sum-pooling", "bias-count"}
    assert "Zhou" in " ".join(f.evidence for f in findings)


def test_swapped_outputs_with_a_mistake_name_both():
    def swapped(F, V, c):
        return np.moveaxis(F @ V.T + c, -1, 0), V @ F.mean(axis=(0, 1)) + c

    assert {f.id for f in D.diagnose(make_runs(swapped), EX)} == {"outputs-swapped", "class-map-layout"}


@pytest.mark.parametrize("value", [lambda F, V, c: {"logits": V @ F.mean((0, 1)) + c},
                                   lambda F, V, c: (V @ F.mean((0, 1)) + c, F @ V.T + c, F.mean((0, 1)))],
                         ids=["dict", "three"])
def test_anything_but_a_pair_is_named(value):
    findings = D.diagnose(make_runs(value), EX)
    assert "not-a-pair" in {f.id for f in findings}


@pytest.mark.parametrize("stem, needles", [
    ("wrong-divisor", ["divided by h*w*C"]),
    ("wrong-divisor--channels", ["divided by C"]),
    ("channels-first-reshape", ["reshaped to (C, h*w)"]),
    ("partial-pooling", ["over the rows (axis 0) only", "shape (3, 3) instead of (3,)"]),
    ("activation-applied", ["Your logits are, on every case, turned into probabilities"]),
    ("activation-applied--relu-cam", ["Your class map is, on every case, passed through a ReLU"]),
    ("activation-applied--sigmoid-logits", ["Your logits are, on every case, passed through a sigmoid"]),
    ("activation-applied--spatial-softmax", ["a softmax over the positions"]),
    ("channel-mean--last-axis", ["an average over the channels (axis 2)"]),
    ("normalised-map", ["the right one rescaled", "probe 'cube'"]),
    ("normalised-map--minmax-eps", ["runs from 0 to 1"]),
    ("bias-count--cam-bias-twice", ["shifted by a constant for each class", "the bias c counted 2 times"]),
    ("max-pooling--cam-max", ["the maximum of the class map"]),
    ("not-a-pair--logits-twice", ["the logits again"]),
])
def test_blind_mistakes_are_named_alone_with_their_evidence(stem, needles):
    findings = D.diagnose(make_runs(_load(HERE / "buggy" / f"{stem}.py")), EX)
    assert [f.id for f in findings] == [mistake(HERE / f"{stem}.py")], findings
    for needle in needles:
        assert needle in findings[0].evidence, findings[0].evidence


def test_a_softmax_with_the_bias_left_out_of_the_map_names_both():
    def both(F, V, c):
        z = V @ F.mean(axis=(0, 1)) + c
        return np.exp(z) / np.exp(z).sum(), F @ V.T

    assert {f.id for f in D.diagnose(make_runs(both), EX)} == {"activation-applied", "bias-count"}


@pytest.mark.parametrize("scaled", [
    lambda m: (m - m.mean(axis=(0, 1))) / m.std(axis=(0, 1)),  # standardised per class
    lambda m: m / np.abs(m).max(),  # one factor for the whole map
    lambda m: (m - m.min()) / (m.max() - m.min() + 1e-6),  # min-max over the whole map, with an epsilon
], ids=["z-score", "abs-max", "global-min-max"])
def test_a_class_map_rescaled_in_any_way_is_named_normalised(scaled):
    findings = D.diagnose(make_runs(lambda F, V, c: (V @ F.mean(axis=(0, 1)) + c, scaled(F @ V.T + c))), EX)
    assert [f.id for f in findings] == ["normalised-map"], findings


@pytest.mark.parametrize("off", [lambda m: m.astype(np.float32).astype(np.float64), lambda m: np.round(m, 5),
                                 lambda m: m * (1 + 1e-8)], ids=["float32", "rounded", "relative-1e-8"])
def test_a_class_map_off_by_rounding_only_is_not_called_rescaled(off):
    findings = D.diagnose(make_runs(lambda F, V, c: (V @ F.mean(axis=(0, 1)) + c, off(F @ V.T + c))), EX)
    assert "normalised-map" not in {f.id for f in findings} and "bias-count" not in {f.id for f in findings}


def test_the_models_differ_on_the_probes():
    probes = D.probe_cases()
    for models in (D.LOGITS, D.MAPS):
        outputs = [tuple(D._evaluate(fn, p) for p in probes) for _, _, fn in models]
        for i, mine in enumerate(outputs):
            for j, theirs in enumerate(outputs[:i]):
                same = all((a is None and b is None) or (a is not None and b is not None and a.shape == b.shape
                                                          and np.allclose(a, b)) for a, b in zip(mine, theirs))
                assert not same, (models[i][1], models[j][1])


# -- the cases ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(4))
def test_one_hidden_case_repeats_an_earlier_ones_shapes_with_other_numbers(seed):
    # an answer cached by the inputs' shapes is wrong on the repeat (it kept full marks before, and is stale-result)
    cases = EX.hidden_cases(seed)
    again = next(c for c in cases if c.name == "square-again")
    first = next(c for c in cases if c.name == "square")
    assert cases.index(again) > cases.index(first) and again.group == first.group
    assert [np.shape(a) for a in again.args] == [np.shape(a) for a in first.args]
    assert not any(np.array_equal(a, b) for a, b in zip(again.args, first.args) if np.ndim(a))


@pytest.mark.parametrize("seed", range(6))
def test_hidden_cases_cover_the_promised_sizes(seed):
    cases = EX.hidden_cases(seed)
    assert {c.group for c in cases} == {"square", "non-square", "edge", "googlenet"}
    for case in cases:
        fmap, V, c = case.args
        h, w, C = fmap.shape
        assert V.shape == (c.size, C) and all(a.dtype == np.float64 for a in case.args)
        if case.group == "square":
            assert h == w and len({h, C, V.shape[0]}) == 3
        if case.group == "non-square":
            assert len({h, w, C, V.shape[0]}) == 4
        logits, class_map = EX.expected(case)
        assert logits.shape == (c.size,) and class_map.shape == (h, w, c.size)
        np.testing.assert_allclose(class_map.mean(axis=(0, 1)), logits, rtol=1e-12, atol=1e-12)
    shapes = {c.name: c.args[0].shape + (c.args[1].shape[0],) for c in cases}
    assert shapes["one-position"][:2] == (1, 1) and shapes["one-channel"][2] == 1 and shapes["one-class"][3] == 1
    assert shapes["one-row"][0] == 1 and shapes["one-column"][1] == 1 and shapes["googlenet"] == (7, 7, 1024, 1000)


def test_the_statement_states_the_limits_of_exercise_toml():
    helpers.assert_statement_states_the_limits(EX)
    statement = (EX.folder / "statement.md").read_text(encoding="utf-8")
    for needle in ("(h, w, K)", "(K,)", "513,000", "Zhou", "sum", "1,024,000"):
        assert needle in statement, needle


def test_the_stored_public_outputs_are_up_to_date():
    assert set(public_expected_document(EX)["cases"]) == {"public-square", "public-non-square", *D.PROBE_NAMES}
    helpers.assert_stored_outputs_stand_in_for_the_reference(EX)


# -- the notebook -----------------------------------------------------------------------------------------------------
def test_committed_notebook_is_up_to_date():
    helpers.assert_notebook_and_public_outputs_are_up_to_date(EX)


@pytest.fixture(scope="module")
def selfcheck_code():
    return helpers.selfcheck_cell(EX)


def test_the_selfcheck_builds_exactly_the_public_cases_and_holds_their_outputs(selfcheck_code, monkeypatch):
    helpers.assert_selfcheck_builds_exactly_the_public_cases(EX, selfcheck_code, monkeypatch)  # both outputs


def test_the_selfcheck_holds_no_solution(selfcheck_code):
    helpers.assert_selfcheck_holds_no_solution(selfcheck_code, ("@ V.T", "V.T", "einsum", "tensordot", "fmap.mean",
                                                                "np.dot", "matmul"))


@pytest.mark.parametrize("stem, needle", [
    ("sum-pooling", "the positions were summed, not averaged"),
    ("bias-count", "Your class map has no bias"),
    ("class-map-layout", "laid out (K, h, w)"),
    ("outputs-swapped", "the outputs are in the other order"),
    ("not-a-pair", "not the pair (logits, class_map)"),
    ("channel-mean", "A shape mismatch"),
    ("max-pooling", "The mean of your class map over the positions is not your logits"),
    ("mutates-input", "changed its input fmap"),
    ("wrong-shape", "logits has shape (1, 1, 2)"),
])
def test_the_selfcheck_hints_at_each_common_mistake(selfcheck_code, stem, needle):
    text = helpers.run_selfcheck(selfcheck_code, (HERE / "buggy" / f"{stem}.py").read_text(encoding="utf-8"))
    assert needle in text and "All public checks passed" not in text, text


def test_the_selfcheck_passes_every_correct_style_and_greets_the_starter(selfcheck_code):
    helpers.assert_selfcheck_passes_every_correct_style_and_greets_the_starter(EX, selfcheck_code)
