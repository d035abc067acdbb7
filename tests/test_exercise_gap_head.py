"""The gap_head exercise (two outputs, logits and class_map): every correct style gets full marks and no diagnosis,
every buggy submission loses points and is named by its catalog id, each model of a mistake is named in-process
(alone in its output, the other output right), the hidden cases cover the sizes the statement promises, and the
notebook's self-check tells each common mistake apart."""
from __future__ import annotations

import contextlib
import dataclasses
import io

import nbformat
import numpy as np
import pytest

from conftest import ROOT, SUBMISSIONS
from grader import notebook as notebook_mod
from grader.exercise import load, public_expected_document
from grader.grade import Session, grade_file
from grader.outcomes import CallError, CallOutcome, CaseRun, Returned
from grader.sandbox import Sandbox

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

EX = load("gap_head")
D = EX.diagnosis_module
HERE = SUBMISSIONS / "gap_head"
CORRECT = sorted((HERE / "correct").glob("*.py"))
BUGGY = sorted((HERE / "buggy").glob("*.py"))


@pytest.fixture(scope="module")
def session():
    """One session for the module, with limits short enough for the too-slow submission."""
    limits = dataclasses.replace(EX.limits, call_seconds=5.0, cell_seconds=5.0, submission_seconds=40.0)
    with Session(EX, full_scale=False, sandbox=Sandbox(limits)) as s:
        yield s


def ids(result) -> set[str]:
    return {d.id for d in result.diagnoses}


# -- the catalog and its submissions ---------------------------------------------------------------------------
def test_every_catalog_entry_has_an_explanation_and_a_buggy_submission_named_by_its_id():
    assert {p.stem for p in BUGGY} == set(EX.catalog)
    for mistake in EX.catalog.values():
        assert len(mistake.explanation) > 80, mistake.id
        assert set(mistake.supersedes) <= set(EX.catalog), mistake.id
        assert (ROOT / mistake.example).is_file() and mistake.example.endswith(f"/buggy/{mistake.id}.py")
    assert {"sum-pooling", "bias-count", "channel-mean", "class-map-layout"} <= set(EX.catalog)
    assert EX.outputs == ("logits", "class_map")


@pytest.mark.parametrize("path", CORRECT, ids=lambda p: p.stem)
def test_each_correct_style_gets_full_marks_and_no_diagnosis(session, path):
    result = grade_file(path, session)
    assert result.status == "graded", result.error
    assert result.score == result.max_score, [(c.id, c.message) for c in result.checks if c.status != "passed"]
    assert result.diagnoses == ()


@pytest.mark.parametrize("path", BUGGY, ids=lambda p: p.stem)
def test_each_mistake_loses_points_and_is_named(session, path):
    result = grade_file(path, session)
    assert result.score < result.max_score
    assert path.stem in ids(result), [(d.id, d.evidence) for d in result.diagnoses]


def test_a_mistake_in_one_output_costs_the_values_checks_and_the_messages_name_that_output(session):
    result = grade_file(HERE / "buggy" / "bias-count.py", session)
    failed = [c for c in result.checks if c.status != "passed"]
    assert {c.id for c in failed} == {"values-square", "values-non-square", "values-edge", "values-googlenet"}
    assert all("output 'class_map'" in c.message for c in failed), [c.message for c in failed]


# -- the diagnosis, in-process ----------------------------------------------------------------------------------------
CASES = EX.hidden_cases(11) + D.probe_cases()
EXPECTED = [EX.expected(c) for c in CASES]


def _returned(value) -> Returned:
    array = None if value is None or isinstance(value, dict) else np.asarray(value)
    if array is not None and array.dtype.kind not in "biufc":
        array = None
    return Returned(type_name=type(value).__name__, exact_ndarray=type(value) is np.ndarray, array=array,
                    shape=None if array is None else tuple(array.shape))


def outcome(case, fn) -> CallOutcome:
    """What the harness reports for a function with two declared outputs (``execute``'s parts)."""
    try:
        with np.errstate(all="ignore"):
            value = fn(*(a.copy() for a in case.args))
    except Exception as exc:  # noqa: BLE001 - a student's error is data here
        return CallOutcome(case=case.name, status="raised", exception=CallError(type(exc).__name__, str(exc)))
    values = list(value[:2]) if isinstance(value, (tuple, list)) else [value]
    parts = [_returned(v) for v in values]
    parts += [Returned(type_name="nothing")] * (2 - len(parts))
    first = parts[0]
    return CallOutcome(case=case.name, status="ok", type_name=first.type_name, exact_ndarray=first.exact_ndarray,
                       array=first.array, shape=first.shape, parts=tuple(parts),
                       count=len(value) if isinstance(value, (tuple, list)) else 1)


def make_runs(fn) -> list[CaseRun]:
    return [CaseRun(case=c, expected=e, outcome=outcome(c, fn)) for c, e in zip(CASES, EXPECTED)]


def _load(path):
    namespace: dict = {}
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), namespace)
    return namespace["gap_head"]


def test_the_reference_and_the_correct_styles_get_no_finding():
    assert D.diagnose(make_runs(EX.reference), EX) == []
    for path in CORRECT:
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
    settings = tomllib.loads((EX.folder / "exercise.toml").read_text(encoding="utf-8"))
    statement = (EX.folder / "statement.md").read_text(encoding="utf-8")
    assert f"{settings['limits']['call_seconds']:g} seconds" in statement
    assert f"{settings['limits']['memory_mib'] // 1024} GiB of memory" in statement
    for needle in ("(h, w, K)", "(K,)", "513,000", "Zhou", "sum", "1,024,000"):
        assert needle in statement, needle


def test_the_stored_public_outputs_are_up_to_date():
    assert notebook_mod.public_expected_text(EX) == (EX.folder / "public_expected.json").read_text(encoding="utf-8")
    assert set(public_expected_document(EX)["cases"]) == {"public-square", "public-non-square", *D.PROBE_NAMES}


# -- the notebook -----------------------------------------------------------------------------------------------------
COMMITTED = ROOT / "notebooks" / "gap_head.ipynb"


def test_committed_notebook_is_up_to_date():
    assert COMMITTED.read_text(encoding="utf-8") == notebook_mod.render(EX), \
        "regenerate: grader notebook --exercise gap_head"


@pytest.fixture(scope="module")
def selfcheck_code():
    """The committed notebook's self-check cell (the generator's, once it writes tuples)."""
    nb = nbformat.reads(COMMITTED.read_text(encoding="utf-8"), as_version=4)
    return next(c for c in nb.cells if c.get("id") == "self-check").source


def run_selfcheck(code: str, source: str) -> str:
    namespace: dict = {"__name__": "__main__"}
    exec(compile(source, "<student>", "exec"), namespace)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), np.errstate(all="ignore"):
        exec(code, namespace)
    return out.getvalue()


def test_the_selfcheck_builds_exactly_the_public_cases_and_holds_their_outputs(selfcheck_code, monkeypatch):
    monkeypatch.setenv("GRADER_PARENT", "1")
    namespace: dict = {}
    exec(selfcheck_code, namespace)
    mine, theirs = namespace["public_cases"](), EX.public_cases()
    assert [n for n, _ in mine] == [c.name for c in theirs]
    for (name, args), case in zip(mine, theirs):
        assert all(np.array_equal(a, b) for a, b in zip(args, case.args)), name
        for stored, expected in zip(namespace["EXPECTED"][name], EX.expected(case)):
            np.testing.assert_allclose(np.array(stored), expected, rtol=1e-11, atol=0)


def test_the_selfcheck_holds_no_solution(selfcheck_code):
    for forbidden in ("@ V.T", "V.T", "einsum", "tensordot", "fmap.mean", "np.dot", "matmul"):
        assert forbidden not in selfcheck_code, forbidden
    imports = {line.split()[1] for line in selfcheck_code.splitlines() if line.startswith(("import ", "from "))}
    assert imports <= {"os", "numpy"}


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
    text = run_selfcheck(selfcheck_code, (HERE / "buggy" / f"{stem}.py").read_text(encoding="utf-8"))
    assert needle in text and "All public checks passed" not in text, text


def test_the_selfcheck_passes_every_correct_style_and_greets_the_starter(selfcheck_code):
    for path in CORRECT:
        assert "All public checks passed" in run_selfcheck(selfcheck_code, path.read_text(encoding="utf-8")), path
    starter = (EX.folder / "starter.py").read_text(encoding="utf-8")
    assert "Not implemented yet" in run_selfcheck(selfcheck_code, starter)
