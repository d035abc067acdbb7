"""Correct VGG heads as code assistants write them keep full marks, no finding and no note (round seven).

``tests/submissions/false-positives-round7/vgg_classifier/`` (its README lists the styles) holds 24 right heads in
the defensive, typed style an assistant gives: strict validation of types, dtypes, byte order, alignment and
shapes, asserts, private copies of every input (about 800 MB more at VGG16 scale), contiguity checks, logging
handlers made at import, warnings on large inputs, ``np.errstate(all="raise")``, dataclass configs, a ``VGGHead``
class, ``typing.Final``, ``NDArray`` hints, doctests run at import, ``einsum`` paths and ``out=`` buffers cached by
shape and returned as copies. Each is graded with the VGG16-scale case (19 points) and without it (17).

The hunt found one loss: ``from typing_extensions import Final, Self, TypeAlias, override`` (typing's backport,
installed nearly everywhere a notebook runs, but neither numpy nor the standard library) stopped the file at its
import, and the head got 0 / 17 with a sentence that told the student to "write that step with numpy". The runner
now stands in for ``typing_extensions`` with ``typing``'s own names where it has them (a missing one, such as
``override`` on Python 3.11, is a stand-in, which gives back the function it decorates), and says nothing: nothing
the student uses is missing (``grader/runner/standins.py``).
"""
from __future__ import annotations

import pytest

from conftest import SUBMISSIONS, grade_students
import exercise_helpers as helpers
from grader.grade import Session

FOLDER = SUBMISSIONS / "false-positives-round7" / "vgg_classifier"
VGG = sorted(p.stem for p in FOLDER.iterdir() if p.suffix == ".py")


@pytest.fixture(scope="module")
def results(session):
    return grade_students(FOLDER, session, VGG)


@pytest.fixture(scope="module")
def full_scale_results(exercise):
    with Session(exercise, full_scale=True) as full:
        full.full_scale_case()
        return grade_students(FOLDER, full, VGG)


def test_the_folder_holds_the_styles_its_readme_lists():
    readme = (FOLDER.parent / "README.md").read_text(encoding="utf-8")
    assert len(VGG) >= 24
    for path in FOLDER.iterdir():
        assert f"`{path.name}`" in readme, path.name


@pytest.mark.parametrize("name", VGG)
def test_a_correct_head_as_an_assistant_writes_it_keeps_full_marks_and_no_note(results, name):
    assert results[name].max_score == 17
    assert not helpers.clean_mark_faults(results[name]), helpers.clean_mark_faults(results[name])


@pytest.mark.parametrize("name", VGG)
def test_it_keeps_them_with_the_vgg16_scale_case(full_scale_results, name):
    assert full_scale_results[name].max_score == 19
    assert not helpers.clean_mark_faults(full_scale_results[name]), helpers.clean_mark_faults(full_scale_results[name])
