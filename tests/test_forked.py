"""A function of the grader's own run in a forked copy (``grader.forked``): the batch's similarity report.

The copy takes the similarity report's Python off the interpreter lock the worker threads feed the runs with.
What a user must see is unchanged: the same value, whether a copy computed it, a thread did (no fork possible),
or the copy failed and the grader computed it itself; no copy left behind, however the batch ends.
"""
from __future__ import annotations

import os
import sys
import threading
import time

import pytest

from grader import cli, commands, forked

ROOT = __import__("pathlib").Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the copy is made on Linux only")


def _reaped(pid: int) -> bool:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def test_a_copy_can_yield_the_cores_and_the_grader_keeps_its_own_priority():
    """The batch's similarity copy runs at niceness 19: its value waits for idle time, the runs do not."""
    before = os.nice(0)
    task = forked.Task(lambda: os.nice(0), niceness=5)
    assert task.pid > 0 and task.result() == min(19, before + 5)
    assert os.nice(0) == before


def test_the_value_comes_from_a_copy_and_the_copy_is_reaped():
    parent = os.getpid()
    task = forked.Task(lambda: {"pid": os.getpid(), "rows": list(range(100_000))})
    pid = task.pid
    assert pid > 0
    value = task.result()
    assert value["pid"] == pid != parent and value["rows"] == list(range(100_000))
    assert _reaped(pid)
    assert task.result() is value  # asked again: the same value, no second copy


def test_a_copy_that_dies_leaves_the_value_to_the_caller():
    parent = os.getpid()

    def work():
        if os.getpid() != parent:
            os._exit(3)  # the copy dies before it answers
        return "computed here"

    task = forked.Task(work)
    pid = task.pid
    assert task.result() == "computed here" and _reaped(pid)


def test_a_value_that_is_not_json_is_computed_by_the_caller():
    parent = os.getpid()
    task = forked.Task(lambda: {1, 2} if os.getpid() != parent else "here")
    assert task.result() == "here"


def test_text_comes_back_as_it_was():
    text = ["caf\u00e9 \U0001f600", "lone \udce9 surrogate", "\x00\x1b[31m"]
    assert forked.Task(lambda: text).result() == text


def test_an_exception_is_raised_in_the_caller():
    def fail():
        raise ValueError("no class")

    with pytest.raises(ValueError, match="no class"):
        forked.Task(fail).result()


def test_with_another_thread_running_it_runs_in_a_thread_instead():
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        task = forked.Task(lambda: os.getpid())
        assert task.pid == 0
        task.start()
        assert task.result() == os.getpid()
    finally:
        stop.set()
        other.join()


def test_close_stops_a_copy_still_working():
    task = forked.Task(time.sleep, 60)
    pid = task.pid
    started = time.monotonic()
    task.close()
    assert time.monotonic() - started < 5 and _reaped(pid)


def test_a_task_never_asked_for_leaves_no_copy():
    task = forked.Task(lambda: b"x" * (1 << 20))  # more than a pipe holds: the copy blocks until read
    pid = task.pid
    del task
    assert _reaped(pid)


def test_the_batch_similarity_report_comes_from_a_copy(tmp_path, monkeypatch):
    from tests.test_similarity import DISGUISED, ORIGINAL, write_class

    folder = write_class(tmp_path / "class", {"orig.py": ORIGINAL, "copy.py": DISGUISED, "third.py": ORIGINAL})
    made = []

    class Recorded(forked.Task):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            made.append(self.pid)

    monkeypatch.setattr(forked, "Task", Recorded)
    code = cli.main(["grade", str(folder), "--exercise", "vgg_classifier", "--no-full-scale", "-q",
                     "--out", str(tmp_path / "out")])
    assert code == 0
    assert len(made) == 1 and made[0] > 0 and _reaped(made[0])
    page = (tmp_path / "out" / "similarity.html").read_text(encoding="utf-8")
    assert "copy" in page and "orig" in page
    assert (tmp_path / "out" / "similarity.csv").read_text(encoding="utf-8").count("\n") >= 2
    assert commands.forked is forked


def test_the_report_is_the_same_through_plain_data(tmp_path):
    import argparse

    from grader import batch, exercise as exercise_mod, similarity_report
    from tests.test_similarity import DISGUISED, ORIGINAL, write_class

    folder = write_class(tmp_path / "class", {"orig.py": ORIGINAL, "copy.py": DISGUISED, "other.py": "x = 1\n"})
    args = argparse.Namespace(similarity="on", similarity_against=[], similarity_common=0.1)
    plan, exercise = batch.discover([folder]), exercise_mod.load("vgg_classifier")
    direct, _ = similarity_report.for_report(args, plan, exercise)
    again, problems = similarity_report.from_plain(similarity_report.plain_for_report(args, plan, exercise))
    assert problems == [] and direct.pairs and again.pairs == direct.pairs and again.near == direct.near
    for one, two in zip(direct.documents, again.documents):
        assert one.source == two.source and one.cells == two.cells and one.fp_map == two.fp_map
        assert all((getattr(one, n) == getattr(two, n)).all() for n in ("ids", "where", "fp_hash", "fp_set"))
    (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir()
    similarity_report.write(direct, tmp_path / "a", "vgg_classifier")
    similarity_report.write(again, tmp_path / "b", "vgg_classifier")
    assert (tmp_path / "a" / "similarity.csv").read_text() == (tmp_path / "b" / "similarity.csv").read_text()


def test_the_copy_ends_with_the_grader(tmp_path):
    """A grader killed while its copy works leaves no copy behind (it holds the grader's descriptors)."""
    import subprocess

    script = ("import os, sys, time; from grader import forked; "
              "task = forked.Task(time.sleep, 60); print(task.pid, flush=True); time.sleep(60)")
    grader = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                              cwd=str(tmp_path), env={**os.environ, "PYTHONPATH": str(ROOT)})
    pid = int(grader.stdout.readline())
    grader.kill()
    grader.wait(timeout=10)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _alive(pid):
        time.sleep(0.02)
    assert not _alive(pid)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(")")[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
