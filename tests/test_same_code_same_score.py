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
Where a class of a size this file can afford would hold none (a few students in 5,000), or where the students it
varied for are known and the rest of the class costs seconds each, the students it varied for are graded beside a
few others (``PICKED``).
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
    "dense_scores": (60, {
        # k read as the count of windows per side ran on a drawn map 2k-1 high alone and kept the type, dtype,
        # finite and unmodified points there (5 of 19, against 1): 94 students in 500 (student-9, -10, -23, ...)
        "raises-error--k-as-window-count.py": "a drawn grid k positions long",
    }),
}

#: exercise -> {submission: (why it varied before, the students it varied for)}: rarer than a class shows, so the
#: students it varied for are graded beside the first ``PICKED_WITH`` of the class
PICKED = {
    "dense_scores": {
        # a cache keyed by the shapes answered the drawn case with 'one-channel''s or 'tall''s scores and lost the
        # 'shapes' points too: 9 students in 5,000
        "stale-result.py": ("the drawn case shaped like a fixed one", (1139, 1325, 1465, 1476, 1786)),
    },
    "gap_head": {
        # a sum divided by GoogLeNet's 49 kept the 'square' points when 'square' and 'square-wide' were both 7 x 7:
        # 23 students in 1,000, and in the first 100 exactly student-58, -76 and -90 (with the redraw of a 7 x 7
        # 'square' taken out again, those three get 8 points and the other 97 get 7). A sweep over those 100 cost
        # 16 s, most of it GoogLeNet's 7 x 7 x 1024 case drawn and computed per student; grading the three beside
        # the first four fails the same way on the same regression, in 7 of the 100 students' time
        "wrong-divisor--fixed-49.py": ("both square maps 7 x 7", (58, 76, 90)),
        # a sum divided by C is the mean where C == h*w, and kept the 'square' logits points where both square maps
        # had it (2 x 2 x 4 or 3 x 3 x 9, and 4 x 4 x 16): 4 students in 8,000 (student-142, -3546, -6927, -7479)
        "wrong-divisor--channels.py": ("C == h*w in both square maps", (142, 3546)),
    },
}
PICKED_WITH = 4


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


@pytest.mark.parametrize("exercise_id", sorted(PICKED))
def test_one_grade_for_the_students_it_varied_for(exercise_id):
    """The students for whom a submission scored otherwise, before their cases were drawn again, now get the grade
    the rest of the class gets."""
    ex = exercise_mod.load(exercise_id)
    for name, (reason, picked) in PICKED[exercise_id].items():
        path = SUBMISSIONS / exercise_id / "buggy" / name
        seeds = student_seeds(exercise_id, PICKED_WITH) + [student_seeds(exercise_id, 1, i)[0] for i in picked]
        grades = grades_over_seeds(ex, [path], seeds, named=False)[path]
        assert len(grades) == len(seeds), f"{name} did not load in-process"
        outcomes = differing(grades)
        assert len(outcomes) == 1, (name, reason, {k: len(v) for k, v in outcomes.items()})
