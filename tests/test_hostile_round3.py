"""Third round of hostile submissions: student code that breaks the runner's own side of the channel.

The child's runner shares a process with student code. When that code closes the runner's channel, replaces what the
runner uses to answer, or hands it objects whose description fails or loops, the parent must still stop the run
quickly and say what happened in words, as the submission's doing, never as "the process exited with code 0" and
never after waiting half a minute for an exit that does not come.
"""
from __future__ import annotations

import dataclasses
import textwrap
import time
from pathlib import Path

import pytest

from conftest import check
from grader import execute, grade, outfolder, submission
from grader.grade import prepare
from grader.sandbox import Sandbox
from grader.session import Session

HOSTILE = Path(__file__).resolve().parent / "submissions" / "hostile"


def _grade(session, name: str):
    started = time.monotonic()
    result = grade.grade_file(HOSTILE / f"{name}.py", session)
    return result, time.monotonic() - started


def test_a_closed_channel_in_a_living_child_is_stopped_at_once(session):
    """The child points its channel at /dev/null and carries on: the parent used to wait 30 s for its exit, then
    shut down the whole warm template, for each of three calls."""
    result, seconds = _grade(session, "close-channel")
    assert result.status == "error" and result.error.kind == "protocol-error", result.to_json()[:800]
    assert "closed the channel and went on running" in result.error.message
    assert result.score == 0
    assert seconds < 15, f"grading took {seconds:.1f} s"


def test_a_broken_runner_is_named_not_taken_for_an_exit(session):
    """``memoryview`` replaced at import: the runner cannot send the cell's answer. That used to read as the student's
    own ``os._exit(0)``."""
    result, _ = _grade(session, "break-runner")
    text = result.to_json()
    assert result.score == 0
    assert "broke the grader's own code" in text, text[:800]
    assert "exit code 0" not in text


def test_objects_that_break_their_description_are_reported_in_words(session):
    result, _ = _grade(session, "hostile-objects")
    assert result.status == "graded", result.to_json()[:800]
    single = check(result, "values-single").message
    assert "TracebackProperty" in single and "the traceback property raised" in single, single
    shape = check(result, "shape").message
    assert "42 dimensions" in shape and "has no shape" not in shape, shape
    other = check(result, "values-shapes").message
    assert "unnamed type" in other and "RuntimeError" in other, other
    assert "exit code" not in result.to_json()


LOOPING_ARRAY = """
class Looping:
    def __array__(self, *args, **kwargs):
        while True:
            pass


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    return Looping()
"""


def test_a_looping_array_conversion_is_stopped_by_the_calls_own_alarm(tmp_path, exercise):
    """``np.asarray`` on the result runs the student's ``__array__``: under the call's alarm, the call times out and
    the same child goes on, where the parent used to wait for its hard deadline and start a new child."""
    limits = dataclasses.replace(exercise.limits, call_seconds=1.0, cell_seconds=3.0, submission_seconds=40.0)
    path = tmp_path / "student.py"
    path.write_text(textwrap.dedent(LOOPING_ARRAY), encoding="utf-8")
    loaded = submission.load(path, "zoe")
    box = Sandbox(limits)
    with Session(exercise, full_scale=False, sandbox=box) as session:
        prepared = prepare(session, "zoe")
        target = execute.Target("vgg_classifier", exercise.parameters, prepared.cases[:2], (), prepared.expected[:2],
                                exercise.outputs)
        (run,) = execute.run_many(loaded, [target], box)
    assert [c.status for c in run.calls] == ["timeout", "timeout"], run.calls
    assert run.restarts == 0


@pytest.mark.parametrize("name", ["close-channel", "break-runner"])
def test_the_batch_goes_on_after_a_broken_runner(session, tmp_path, name):
    """The submission after a broken one is graded in full by the same session (its warm template still works)."""
    _grade(session, name)
    good = tmp_path / "good.py"
    good.write_text(textwrap.dedent("""
        import numpy as np

        def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
            x = features.reshape(features.shape[0], -1)
            return np.maximum(np.maximum(x @ W1 + b1, 0) @ W2 + b2, 0) @ W3 + b3
    """), encoding="utf-8")
    result = grade.grade_file(good, session)
    assert result.score == result.max_score, result.to_json()[:800]


def test_a_result_of_42_dimensions_says_so_in_the_shape_check(grade_source):
    """The shape check used to say only that the result "has no shape"."""
    result = grade_source("import numpy as np\n\ndef vgg_classifier(*args):\n    return np.zeros((1,) * 42)\n")
    shape = check(result, "shape").message
    assert "42 dimensions" in shape and "has no shape" not in shape, shape


def test_student_folders_never_take_a_windows_device_name():
    """``CON`` and ``nul.x`` were kept as folder names: a zipped out folder opened on Windows cannot hold them."""
    names = outfolder.folder_names(["CON", "nul", "Aux.v2", "com1", "lpt9", "console", "alice"])
    for student in ("CON", "nul", "Aux.v2", "com1", "lpt9"):
        stem = names[student].split(".")[0].casefold()
        assert stem not in {"con", "nul", "aux", "com1", "lpt9"}, names
        assert names[student].startswith(student.split(".")[0]), names  # still recognisable
    assert names["console"] == "console" and names["alice"] == "alice"
