"""The four fully-connected-layer exercises, round two: what a second round of student styles found.

Each test grades real submission files (tests/submissions/<exercise>/...) in the sandbox and asserts what the
student sees: the score, and the name the report gives the mistake.
"""
from __future__ import annotations

import pytest

import exercise_helpers as helpers
from conftest import SUBMISSIONS
from grader import exercise as exercise_mod
from grader.grade import grade_file

EXERCISES = ("linear", "dense_scores", "to_channels_last", "gap_head")


@pytest.fixture(scope="module")
def sessions():
    """One grading session per exercise, opened on first use and shared by the module."""
    opened, stack = {}, []

    def get(exercise_id: str):
        if exercise_id not in opened:
            context = helpers.session(exercise_mod.load(exercise_id))
            opened[exercise_id] = context.__enter__()
            stack.append(context)
        return opened[exercise_id]
    yield get
    for context in reversed(stack):
        context.__exit__(None, None, None)


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
