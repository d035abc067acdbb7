"""The four fully-connected-layer exercises, round two: what a second round of student styles found.

Each test grades real submission files (tests/submissions/<exercise>/...) in the sandbox and asserts what the
student sees: the score, and the name the report gives the mistake.
"""
from __future__ import annotations

import contextlib
import io
import json

import pytest

import exercise_helpers as helpers
from conftest import SUBMISSIONS
from grader import cli
from grader.grade import grade_file

EXERCISES = ("linear", "dense_scores", "to_channels_last", "gap_head")




def graded(sessions, exercise_id: str, kind: str, stem: str):
    path = next((SUBMISSIONS / exercise_id / kind).glob(f"{stem}.*"))
    return grade_file(path, sessions(exercise_id), student=path.stem)


@pytest.mark.parametrize("exercise_id", EXERCISES)
def test_a_cache_of_the_last_call_alone_is_caught_and_named(sessions, exercise_id):
    """A one-entry cache keyed by the shapes answered nothing wrong: no hidden case of the same shapes came right
    after its twin, so it got full marks. The repeated case is now called right after the first one."""
    result = graded(sessions, exercise_id, "buggy", "stale-result--last-call")
    assert result.score < result.max_score, helpers.failed_checks(result)
    assert "stale-result" in {d.id for d in result.diagnoses}, helpers.findings(result)


# -- the assignment: four exercises graded from one notebook ------------------------------------------------------
@pytest.fixture(scope="module")
def assignment(tmp_path_factory) -> dict:
    """Every notebook of tests/submissions/fc-layers graded as the fc-layers assignment, as an instructor runs it:
    per student, each section's result.json entry by exercise id."""
    out = tmp_path_factory.mktemp("fc-layers")
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
        code = cli.main(["grade", str(SUBMISSIONS / "fc-layers"), "--assignment", "fc-layers", "--out", str(out),
                         "--no-full-scale", "--jobs", "2", "--quiet"])
    assert code == 0, err.getvalue()
    results = {}
    for path in out.glob("students/*/result.json"):
        result = json.loads(path.read_text())
        results[result["student"]] = {s["exercise"]: s for s in result["sections"]}
    return results


def full(section: dict) -> bool:
    return section["score"] == section["max_score"] and not section["diagnoses"]


def ids(section: dict) -> set[str]:
    return {d["id"] for d in section["diagnoses"]}


def test_a_missing_section_is_not_told_to_rename_another_exercise_s_function(assignment):
    """gap_head's cell deleted: the sentence offered linear (3 parameters, like gap_head) as the renamed answer,
    though linear is graded, and right, in its own section."""
    by = assignment["gap-head-cell-deleted"]
    assert by["gap_head"]["score"] == 0 and by["gap_head"]["error"]["kind"] == "missing-function"
    assert "linear" not in by["gap_head"]["error"]["message"]
    assert all(full(by[e]) for e in ("linear", "to_channels_last", "dense_scores"))


def test_each_section_is_judged_on_its_own_function(assignment):
    """A helper shared by three exercises gives full marks everywhere; a wrong linear reused by gap_head costs both,
    each named by its own catalog; a helper redefined by a later cell breaks only the exercise that relied on the
    first meaning."""
    assert all(full(s) for s in assignment["shared-helper"].values())
    reused = assignment["buggy-linear-reused"]
    assert ids(reused["linear"]) == {"missing-bias"} and ids(reused["gap_head"]) == {"bias-count"}
    assert full(reused["dense_scores"]) and full(reused["to_channels_last"])
    shadowed = assignment["helper-shadowed"]
    assert shadowed["linear"]["score"] < shadowed["linear"]["max_score"]
    assert all(full(shadowed[e]) for e in ("to_channels_last", "dense_scores", "gap_head"))
