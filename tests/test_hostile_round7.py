"""Seventh round of hostile submissions: what student code could still say or cost through the runner beside it.

A note's frame carried its whole sentence, so a submission that found the runner (``gc``) could put any sentence
among the grader's warnings ("All hidden checks passed: 19/19"); the parent now writes each note's sentence from its
kind. A child writing megabyte buffers to stdout in a loop cost the parent half a core while it drained them; past
the output allowance the parent now reads at a bounded rate. And a run stopped by the restart limit said of its
remaining calls that "the grading time ran out", after two seconds of a ninety-second limit. A run that starved
itself of cores had each step's deadline moved by its waits with no bound for the whole submission. And a timer of
the submission's own that set off the runner's alarm after a millisecond was reported as the call's 10 s limit, and
one armed at the top level of a cell as the cell's 30 s limit.
"""
from __future__ import annotations

import resource
import shutil
import tempfile
from pathlib import Path

from conftest import CORRECT, check, diagnosis_ids, notebook

RUNNER = """
import gc

def _runner():
    for obj in gc.get_objects():
        if type(obj).__name__ == "Child" and hasattr(obj, "channel"):
            return obj
"""


def test_a_forged_note_is_a_protocol_error_and_its_sentence_is_shown_nowhere(grade_source):
    source = CORRECT + RUNNER + """
_runner().send({"t": "note", "text": "All hidden checks passed: 19/19 (instructor verified)."})
"""
    result = grade_source(source)
    text = result.to_json()
    assert "instructor verified" not in text and "hidden checks passed" not in text
    assert result.score == 0 and "wrote on the grader's result channel" in text, text[:800]
    assert "(a note the grader's code never sends)" in text


def test_a_note_with_a_sentence_of_its_own_choosing_is_refused_even_with_a_known_kind(grade_source):
    source = CORRECT + RUNNER + """
_runner().send({"t": "note", "kind": "shell", "parts": ["x" * 101]})
"""
    result = grade_source(source)
    assert result.score == 0 and "never sends" in result.to_json()


def test_the_runners_own_notes_still_read_as_before(grade_source):
    """The parent writes them now; a forged one of a real kind says no more than the runner could."""
    source = CORRECT + RUNNER + """
get_ipython().system("pip install torch")
get_ipython().run_line_magic("\\x1b[31mbogus", "")
_runner().note("shell", "All checks passed")
"""
    result = grade_source(source)
    assert result.score == result.max_score, result.to_json()[:800]
    assert "The shell command '!pip install torch' was not run during grading." in result.warnings
    assert "The line magic '%\\x1b[31mbogus' was not run during grading." in result.warnings, result.warnings
    assert "The shell command '!All checks passed' was not run during grading." in result.warnings


def test_a_run_stopped_by_the_restart_limit_says_so_not_that_time_ran_out(grade_source):
    """Reading the runner's command pipe in every call breaks it at the next call: eight restarts, in 2 s."""
    source = CORRECT.replace("def vgg_classifier(", "def _right(") + RUNNER + """
import os

def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    commands = _runner().commands
    os.set_blocking(commands, False)
    try:
        os.read(commands, 1 << 20)
    except BlockingIOError:
        pass
    return _right(features, W1, b1, W2, b2, W3, b3)
"""
    result = grade_source(source)
    text = result.to_json()
    assert "ran out first" not in text, text[:1500]
    assert "started again 8 times (after crashes or timeouts), the most allowed" in text, text[:1500]


def test_a_flood_of_output_past_its_allowance_costs_the_parent_little(grade_source, quick_session):
    """2 s of 1 MiB writes while the file loads: the parent used to spend about half of that draining them."""
    source = CORRECT + """
import os, time
_end, _chunk = time.monotonic() + 2.0, b"x" * (1 << 20)
while time.monotonic() < _end:
    os.write(1, _chunk)
"""
    before = resource.getrusage(resource.RUSAGE_SELF)
    result = grade_source(source, use=quick_session)
    after = resource.getrusage(resource.RUSAGE_SELF)
    spent = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    assert result.score == result.max_score, result.to_json()[:800]
    assert any("printed more than 1 MiB while the file was loading" in w for w in result.warnings), result.warnings
    assert spent < 0.6, f"the parent spent {spent:.2f} s of CPU on a 2 s flood"


def test_waits_for_a_core_move_the_whole_submissions_deadline_by_at_most_twice_its_limit(exercise, monkeypatch):
    """A run that starves itself with busy processes waits for a core all the time (faked here, and the grace cut
    to 0.1 s, so the test is quick). Each call that outlived its deadline had it moved by its waits, and the
    submission's with it, so a run whose calls each took longer than their deadline went on for good (all 19
    calls, 8.5 s on a 0.6 s limit); the submission's deadline now moves by twice its limit at most, and then its
    calls are held to their own deadlines."""
    import dataclasses
    import time

    from grader import execute, waits
    from grader.grade import grade_file
    from grader.sandbox import Sandbox
    from grader.session import Session

    started = time.monotonic()
    monkeypatch.setattr(waits.Waits, "waited", lambda self: time.monotonic() - started)
    monkeypatch.setattr(execute, "GRACE_SECONDS", 0.1)
    limits = dataclasses.replace(exercise.limits, call_seconds=0.2, cell_seconds=3.0, submission_seconds=0.6)
    source = CORRECT.replace("def vgg_classifier(", "def _right(") + """
import signal, time

def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})  # its own alarm would stop it: as if starved
    time.sleep(0.4)
    return _right(features, W1, b1, W2, b2, W3, b3)
"""
    path = Path(tempfile.mkdtemp()) / "starved.py"
    path.write_text(source)
    with Session(exercise, full_scale=False, sandbox=Sandbox(limits)) as session:
        result = grade_file(path, session)
    shutil.rmtree(path.parent)
    assert result.timing["run"] < 3.0, result.timing
    assert "the call was killed after 0.2 s, its time limit" in result.to_json()  # waits no longer granted


def test_a_timeout_set_off_early_by_the_submissions_own_timer_is_not_called_its_time_limit(grade_source):
    """A timer of the submission's own fires the runner's alarm: the call was reported 'killed after 10 s, its time
    limit' and named too slow after a millisecond."""
    source = CORRECT.replace("def vgg_classifier(", "def _right(") + """
import signal, time

def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    if features.shape[0] == 1:
        signal.setitimer(signal.ITIMER_REAL, 0.001)
        time.sleep(0.2)
    return _right(features, W1, b1, W2, b2, W3, b3)
"""
    result = grade_source(source)
    message = check(result, "returns").message
    assert "raised SIGALRM: the call was stopped after" in message, message
    assert "by an alarm the submission's own code set off" in message and "its time limit" not in message
    assert "too-slow" not in diagnosis_ids(result)


def test_a_cell_stopped_early_by_the_submissions_own_timer_is_not_called_its_time_limit(grade_source):
    """The same timer armed at the top level of a notebook's cell, or of a .py file before its def: the cell was
    reported 'stopped after 30 s, its time limit' (and cost the 'completes' point, or the whole grade as a timeout)
    a millisecond after it started."""
    timer = "import signal, time\nsignal.setitimer(signal.ITIMER_REAL, 0.0005, 0.0005)\ntime.sleep(0.2)\n"
    result = grade_source(notebook(CORRECT, timer), name="timer.ipynb")
    assert result.score == result.max_score, result.to_json()[:800]
    assert len(result.warnings) == 1 and "its time limit" not in result.warnings[0], result.warnings
    assert result.warnings[0].startswith("Code cell 2 (cell 2 of the notebook) raised SIGALRM: the cell was stopped "
                                         "after "), result.warnings
    assert "by an alarm the submission's own code set off" in result.warnings[0]
    assert "not by its 30 s limit" in result.warnings[0]
    assert "later cells" not in result.warnings[0]  # it is the last cell: there are none (test_heldout_round4)

    result = grade_source(timer + CORRECT, name="timer.py")
    assert result.error is not None and result.error.kind == "definition-failed", result.error
    assert "While the file was being loaded, it raised SIGALRM: its code was stopped after" in result.error.message
    assert "its time limit" not in result.error.message


def test_ids_shown_otherwise_than_given_are_told_apart_in_the_gradebook_and_every_lms_file(tmp_path, session):
    """Two file names whose undecodable bytes both show as 'bad\ufffd\ufffdname', and an id cut at 120 characters:
    each row's id carries a short hash of the id given, the same whoever else is in the batch, so an LMS import
    tells the rows apart (the undecodable pair got a hash only because they met in one batch; the long id none)."""
    import os

    from grader import batch, classfolder, gradebook, lms
    from conftest import csv_rows

    raws = [b"bad\xe9\xe9name", b"bad\xe8\xe8name", b"M" * 130]
    for raw in raws:
        with open(os.fsencode(tmp_path) + b"/" + raw + b".py", "wb") as handle:
            handle.write(CORRECT.encode())
    entries = batch.discover([tmp_path]).entries
    results = [o.result for o in batch.grade_all(entries, session, jobs=2)]
    alone = {classfolder.display_ids([os.fsdecode(raw)])[os.fsdecode(raw)] for raw in raws}  # each on its own
    assert {r.student for r in results} == alone and len(alone) == 3
    assert all(r.status == "graded" and r.score == r.max_score for r in results)
    rows = csv_rows(gradebook.render_csv(results))[1:]
    assert len({row[0] for row in rows}) == 3 and {row[0] for row in rows} == alone, rows
    assert all(row[0][-10:-8] == " #" and int(row[0][-8:], 16) >= 0 for row in rows)
    assert any(row[0].startswith("M" * 120 + "\u2026 #") for row in rows)
    for fmt, column, skip in (("canvas", 3, 2), ("moodle", 0, 1)):
        ids = [row[column] for row in csv_rows(lms.render(fmt, results, "hw"))[skip:]]
        assert sorted(ids) == sorted(alone), (fmt, ids)
    usernames = [line.split("\t")[0] for line in lms.render("blackboard", results, "hw").splitlines()[1:]]
    assert sorted(usernames) == sorted(alone), usernames
