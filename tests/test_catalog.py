"""The hidden cases catch every catalogued mistake and name it; every correct style gets full marks and no diagnosis.

Each catalog entry's buggy implementation lives in ``tests/submissions/buggy/<id>.py`` (variants and combinations
beside it); these tests grade them end to end through the sandbox, as a student's file would be.
"""
from __future__ import annotations

import re

import pytest

from conftest import SUBMISSIONS, diagnosis_ids
from grader.grade import grade_file

BUGGY = SUBMISSIONS / "buggy"
CORRECT = SUBMISSIONS / "correct"
#: ids the statement's table requires; the catalog may hold more
REQUIRED = {
    "flatten-order", "batch-flattened", "hardcoded-shape", "missing-bias", "missing-relu", "relu-after-fc3",
    "softmax-output", "wrong-activation", "transposed-weights", "wrong-dtype", "precision-loss", "not-an-array",
    "not-implemented", "wrong-shape", "mutates-input", "nondeterministic", "missing-function",
}
#: where the diagnosis must also name the layer or the parameter
MUST_NAME = {
    "missing-bias--b1": r"\bb1\b|FC1", "missing-bias--b3": r"\bb3\b|FC3", "missing-bias": r"\bb\d\b|FC\d",
    "missing-relu--fc1": r"FC1", "missing-relu--fc2": r"FC2", "mutates-input": r"features|W\d|b\d",
}


def test_catalog_has_every_required_id_with_an_explanation_and_a_buggy_implementation(exercise):
    assert REQUIRED <= set(exercise.catalog)
    for mistake in exercise.catalog.values():
        assert len(mistake.explanation) > 80, mistake.id
        assert (BUGGY / f"{mistake.id}.py").is_file(), f"no buggy implementation for {mistake.id}"
        assert set(mistake.supersedes) <= set(exercise.catalog), mistake.id


#: mistakes the small hidden cases cannot see (their pre-activations stay below 6, where ReLU6 is ReLU): only the
#: VGG16-scale case costs them points, and the probes name them either way
FULL_SCALE_ONLY = {"wrong-activation--relu6", "wrong-activation--relu6-class"}


def _expected_id(path) -> str:
    return path.stem.split("--")[0]


#: mistakes only the VGG16-scale case can provoke at all (a copy of W1 too large for the memory limit): graded with it
AT_SCALE_ONLY = {"out-of-memory"}


@pytest.fixture(scope="module")
def scale_session(exercise):
    from grader.grade import Session

    with Session(exercise, full_scale=True) as s:
        yield s


@pytest.mark.parametrize(
    "path", sorted([*BUGGY.glob("*.py"), *(BUGGY / "variants").glob("*.py")]), ids=lambda p: p.stem
)
def test_each_mistake_loses_points_and_is_named(request, session, path):
    if _expected_id(path) in AT_SCALE_ONLY:
        session = request.getfixturevalue("scale_session")
    result = grade_file(path, request.getfixturevalue("one_second_session") if path.stem == "too-slow" else session)
    mistake = _expected_id(path)
    assert result.score < result.max_score or path.stem in FULL_SCALE_ONLY
    assert mistake in diagnosis_ids(result), [(d.id, d.evidence) for d in result.diagnoses]
    if path.stem in MUST_NAME:
        evidence = " ".join(d.evidence for d in result.diagnoses if d.id == mistake)
        assert re.search(MUST_NAME[path.stem], evidence), evidence


@pytest.mark.parametrize("path", sorted((BUGGY / "combos").glob("*.py")), ids=lambda p: p.stem)
def test_two_mistakes_at_once_are_both_named(session, path):
    result = grade_file(path, session)
    ids = diagnosis_ids(result)
    if path.stem == "relu-after-fc3+missing-bias-b3":
        assert {"relu-after-fc3", "missing-bias"} <= ids
    elif path.stem == "wrong-dtype+missing-bias-b2":
        assert {"wrong-dtype", "missing-bias"} <= ids
        assert any("b2" in d.evidence for d in result.diagnoses if d.id == "missing-bias")
    else:
        pytest.fail(f"no expectation written for {path.stem}")


@pytest.mark.parametrize("path", sorted(CORRECT.glob("*.py")), ids=lambda p: p.stem)
def test_each_correct_style_gets_full_marks_and_no_diagnosis(session, path):
    result = grade_file(path, session)
    assert result.status == "graded", result.error
    assert result.score == result.max_score, [(c.id, c.message) for c in result.checks if c.status != "passed"]
    assert result.diagnoses == ()


def test_the_report_shows_each_diagnosis_with_its_explanation(session, exercise):
    from grader import report

    result = grade_file(BUGGY / "combos" / "relu-after-fc3+missing-bias-b3.py", session)
    html, markdown = report.render_html(result), report.render_markdown(result)
    for diagnosis in result.diagnoses:
        first_sentence = exercise.catalog[diagnosis.id].explanation.split(". ")[0]
        assert diagnosis.title in markdown and first_sentence in markdown
        assert diagnosis.id in html
