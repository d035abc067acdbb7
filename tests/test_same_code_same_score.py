"""The same code must score the same for every student.

Each student's hidden cases are drawn from a seed of the course secret and the student's id, so a property of the
cases that holds only on most draws makes two students who hand in the same file get different grades (a ReLU on
the VGG logits kept 3 points for 1 student in 128). Each exercise's case generator draws a case again until the
property that reveals each mistake holds; these tests grade, in-process and with the grader's own checks and
diagnosis (``exercise_helpers.grade_seed``), the submissions that did score differently, over the students of a
class, and require one grade for all of them.

How the students were chosen: the ids ``student-0`` ... ``student-<n-1>`` under the default secret, as
``grader grade`` seeds a class of that size, with n large enough that, with the cases as they were before each fix,
several students in it got a different grade (the first of them is named beside each file). The rates were measured
over 1,000 students with the same harness.
"""
from __future__ import annotations

import pytest

from conftest import ROOT
from exercise_helpers import differing, grades_over_seeds, student_seeds
from grader import exercise as exercise_mod

SUBMISSIONS = ROOT / "tests" / "submissions"

#: exercise -> (students, {submission: why it varied before, and the first students it varied for})
VARIED = {
    "linear": (300, {
        # a ReLU (or y / (y > 0)) on the output kept the 'vector' points when both small vector cases' outputs
        # were all positive: 17 students in 1,000 (student-43, -158, -208, ...)
        "activation-applied.py": "vector outputs all positive",
        "non-finite.py": "vector outputs all positive",
        # a ReLU applied in place to x: 22 in 1,000 (student-38, -71, -132, ...)
        "mutates-input--relu-inplace.py": "vector inputs all positive",
        # answers kept by the shapes: the drawn case had a fixed case's shapes for 6 in 1,000 (student-283)
        "stale-result.py": "the drawn case shaped like a fixed one",
    }),
    "gap_head": (100, {
        # a sum divided by GoogLeNet's 49 kept the 'square' points when 'square' and 'square-wide' were both 7 x 7:
        # 23 students in 1,000 (student-58, -76, -90, ...)
        "wrong-divisor--fixed-49.py": "both square maps 7 x 7",
    }),
}


@pytest.mark.parametrize("exercise_id", sorted(VARIED))
def test_one_grade_for_every_student(exercise_id):
    """Each submission that scored differently gets one grade (values checks failed, points) for the whole class."""
    ex = exercise_mod.load(exercise_id)
    students, why = VARIED[exercise_id]
    paths = {SUBMISSIONS / exercise_id / "buggy" / name: reason for name, reason in why.items()}
    grades = grades_over_seeds(ex, paths, student_seeds(exercise_id, students), named=False)
    for path, reason in paths.items():
        assert len(grades[path]) == students, f"{path.name} did not load in-process"
        outcomes = differing(grades[path])
        assert len(outcomes) == 1, (path.name, reason, {k: len(v) for k, v in outcomes.items()})
