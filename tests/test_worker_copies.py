"""Batches graded through forked copies of the grader (``grader/batchcopies.py``, ``grader/procworkers.py``).

From the command line, a batch on two workers forks one copy of the grader and keeps one worker thread: the copy
grades the entries it is handed on an interpreter lock of its own and sends each result back as JSON. What a user
must see: the same results, reports and class files as with threads only; a copy that dies or answers garbage
costs nothing (its entries are graded by the grader itself); Ctrl-C leaves no copy behind; a large case in use
keeps every worker a thread.
"""
from __future__ import annotations

import os
import re
import threading
import time

import pytest

from conftest import leftovers, run_cli, untimed_results
from grader import batch, batchcopies
from grader.results import GradeResult

RIGHT = """import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    return h @ W3 + b3
"""
NO_BIAS = RIGHT.replace("x @ W1 + b1", "x @ W1")
RAISES = RIGHT.replace("    return h @ W3 + b3", "    raise ValueError('not yet')")
CLASS = {"ana": RIGHT, "bo": NO_BIAS, "cy": RAISES, "di": "def vgg_classifier(:\n", "ed": RIGHT.replace("+ b3", "+ b3 * 1"),
         "fu": "x = 1\n"}


@pytest.fixture
def course(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    for name, source in CLASS.items():
        (folder / f"{name}.py").write_text(source)
    return folder


def _grade(capsys, course, out, *extra):
    code, _, err = run_cli(capsys, "grade", course, "--exercise", "vgg_classifier", "--no-full-scale", "--jobs", "2",
                           "--out", out, "-q", "--secret", "copies", *extra)
    return code, err


def test_a_copy_grades_as_the_threads_do(capsys, course, tmp_path, forks, monkeypatch):
    code, err = _grade(capsys, course, tmp_path / "copies")
    assert code == 0, err
    assert len(forks) == 1
    monkeypatch.setenv(batchcopies.ENV, "0")
    code, err = _grade(capsys, course, tmp_path / "threads")
    assert code == 0, err
    assert len(forks) == 1  # none this time
    with_copies, threads = untimed_results(tmp_path / "copies"), untimed_results(tmp_path / "threads")
    assert with_copies == threads and len(threads) == len(CLASS)
    assert threads["ana"]["score"] == threads["ana"]["max_score"] > threads["bo"]["score"]
    assert (tmp_path / "copies" / "gradebook.csv").read_text() == (tmp_path / "threads" / "gradebook.csv").read_text()
    untimed = [re.sub(r' time="[0-9.]+"', "", (tmp_path / folder / "junit.xml").read_text())
               for folder in ("copies", "threads")]
    assert untimed[0] == untimed[1]
    for name in CLASS:  # each student's reports were written, by whichever process graded them
        assert (tmp_path / "copies" / "students" / name / "report.html").is_file()
    for pid in forks:  # reaped
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    assert not leftovers()


def test_a_copy_that_dies_costs_nothing(capsys, course, tmp_path, forks, monkeypatch):
    parent, grade_entry = os.getpid(), batch.grade_entry

    def dies_in_the_copy(entry, session, data=None):
        if os.getpid() != parent:
            os._exit(9)
        return grade_entry(entry, session, data)

    monkeypatch.setattr(batch, "grade_entry", dies_in_the_copy)
    code, err = _grade(capsys, course, tmp_path / "out")
    assert code == 0, err
    assert len(forks) == 1
    results = untimed_results(tmp_path / "out")
    assert sorted(results) == sorted(CLASS)
    assert results["ana"]["score"] == results["ana"]["max_score"]
    assert "bo" in (tmp_path / "out" / "gradebook.csv").read_text()
    assert not leftovers()


def test_an_answer_that_is_not_a_result_is_never_used(capsys, course, tmp_path, forks, monkeypatch):
    parent, to_dict = os.getpid(), GradeResult.to_dict

    def forged(self):
        document = to_dict(self)
        if os.getpid() != parent:
            document.update(score=999.0, schema="not-a-result")
        return document

    monkeypatch.setattr(GradeResult, "to_dict", forged)
    code, err = _grade(capsys, course, tmp_path / "out")
    assert code == 0, err
    assert len(forks) == 1
    results = untimed_results(tmp_path / "out")
    assert sorted(results) == sorted(CLASS) and all(r["score"] <= r["max_score"] for r in results.values())


def test_ctrl_c_leaves_no_copy_behind(course, session, forks):
    entries = batch.discover([course]).entries
    seen = []

    def interrupt(outcome):
        seen.append(outcome)
        raise KeyboardInterrupt

    with pytest.raises(batch.Interrupted):
        batch.grade_all(entries, session, jobs=2, copies=True, on_outcome=interrupt)
    assert len(forks) == 1 and seen
    with pytest.raises(ProcessLookupError):
        os.kill(forks[0], 0)
    deadline = time.monotonic() + 10
    # The grader's own worker thread finishes the student it had started (a daemon thread: in the CLI it dies with
    # the process), and may start that student's next run after the interrupt: wait for it, so that what is left
    # can only be the copy's.
    while any(t.name.startswith("grader-worker-") for t in threading.enumerate()) and time.monotonic() < deadline:
        time.sleep(0.05)
    # the copy's template sees its socket close, and its run dies with it
    while leftovers() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not leftovers()


def test_no_copy_for_one_worker_a_small_class_or_a_large_case(course, session, forks, monkeypatch):
    entries = batch.discover([course]).entries
    batch.grade_all(entries, session, jobs=1, copies=True)
    batch.grade_all(entries[:batchcopies.MIN_ENTRIES - 1], session, jobs=2, copies=True)
    assert forks == []
    monkeypatch.setattr(type(session), "full_scale_case", lambda self: ("a large case",))
    assert batchcopies.wanted(session, entries, 2) == 0
