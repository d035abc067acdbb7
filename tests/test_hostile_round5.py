"""Fifth round of hostile submissions: what a run can reach besides its channel and its parent's verdict.

The memory a call's inputs sit in is shared with the child by descriptor; a child that shrank it (``ftruncate``)
made the parent's read of its own mapping a SIGBUS, which killed the whole grader mid-batch (exit 135, no
results for anyone graded after). Each test grades the hostile submission in a batch with a correct one after it:
the batch must finish, and the correct submission must still get full marks.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import CORRECT

GRADER = Path(sys.executable).with_name("grader")

#: every memory file the run holds (a memfd or an unlinked file), cut to nothing after a correct computation
SHRINK = CORRECT + """
import os, stat

_tried = []
_plain = vgg_classifier

def vgg_classifier(*args):
    out = _plain(*args)
    for fd in range(3, 256):
        try:
            st = os.fstat(fd)
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode) and st.st_nlink == 0:
            try:
                os.ftruncate(fd, 0)
                _tried.append("shrunk")
            except OSError as exc:
                _tried.append(type(exc).__name__)
    if not _tried:
        raise LookupError("no memory file found")
    return out
"""


def grade_batch(tmp_path: Path, sources: dict[str, str],
                jobs: int = 1) -> tuple[subprocess.CompletedProcess, dict[str, dict]]:
    """Grade a class folder of ``sources`` (name: text) in a grader process of its own (a signal that kills the
    grader must fail this test, not the test run); by default one worker, so that each run follows the one before."""
    folder = tmp_path / "class"
    folder.mkdir()
    for name, text in sources.items():
        (folder / name).write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    proc = subprocess.run([str(GRADER), "grade", str(folder), "--exercise", "vgg_classifier", "--no-full-scale",
                           "--jobs", str(jobs), "--out", str(out)], capture_output=True, text=True, timeout=300,
                          cwd=tmp_path, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    results = {}
    for name in sources:
        path = out / "students" / Path(name).stem / "result.json"
        results[Path(name).stem] = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    return proc, results


def points(result: dict) -> tuple[float, float]:
    return result.get("score"), result.get("max_score")


@pytest.mark.skipif(not hasattr(os, "memfd_create"), reason="the inputs' memory is a sealed memfd on Linux only")
def test_a_run_that_shrinks_the_inputs_memory_does_not_kill_the_grader(tmp_path):
    proc, results = grade_batch(tmp_path, {"a_shrinks.py": SHRINK, "b_correct.py": CORRECT})
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Traceback" not in proc.stdout + proc.stderr
    shrinker, correct = results["a_shrinks"], results["b_correct"]
    assert correct and points(correct)[0] == points(correct)[1]
    assert shrinker and points(shrinker)[0] == points(shrinker)[1]  # its function is right; the cut was refused


def test_the_exercise_named_in_a_notebook_is_read_without_following_a_link_or_opening_a_pipe(tmp_path):
    """Which exercise a notebook names is read from the file discovery found: a link or a pipe swapped in since
    then is neither followed (a link could point at the solutions) nor waited on (a pipe would block the batch)."""
    from grader.submission import named_exercise

    real = tmp_path / "real.ipynb"
    real.write_text(json.dumps({"metadata": {"grader": {"exercise": "linear"}}, "cells": []}), encoding="utf-8")
    assert named_exercise(real) == "linear"
    link = tmp_path / "link.ipynb"
    link.symlink_to(real)
    assert named_exercise(link) is None
    pipe = tmp_path / "pipe.ipynb"
    os.mkfifo(pipe)
    import threading

    answer: list = []
    reader = threading.Thread(target=lambda: answer.append(named_exercise(pipe)), daemon=True)
    reader.start()
    reader.join(5)  # nothing ever writes to the pipe: a reader that opened it would wait for good
    assert answer == [None], "reading the pipe blocked"


def test_each_slot_is_a_cpu_group_of_its_own_so_a_run_of_many_processes_keeps_to_its_share(session, tmp_path):
    """Where the cpu controller is there (cgroup v1 as root), every slot's template, and so every run forked from it,
    sits in a cpu cgroup of the slot's own, of the default weight: a run of 60 busy processes shares the cores with
    the other worker's run as one group, not as 60 tasks against one."""
    from grader import cgroups, template

    if session.sandbox.mode != "fork" or not session.sandbox.cgroups or not cgroups.cpu_usable():
        pytest.skip("no fork sandbox with a cpu cgroup controller here")
    path = tmp_path / "correct.py"
    path.write_text(CORRECT, encoding="utf-8")
    from grader.grade import grade_file

    assert grade_file(path, session).score > 0
    placed = [t for t in template.POOL.idle() if t.cgroups]
    assert placed, "no template entered a slot"
    for each in placed:
        cpu = [Path(p).parent for p in each.cgroups if Path(p).parent.parent == cgroups.CGROUP_ROOT / "cpu" / "grader"]
        assert cpu, each.cgroups
        assert str(each.process.pid) in (cpu[0] / "cgroup.procs").read_text().split()
        assert (cpu[0] / "cpu.shares").read_text().strip() == "1024"


#: 60 busy processes, each a session of its own (so the kernel's per-session groups do not hold them together),
#: spinning while the first call sleeps
HOG = """
import os, time
for _ in range(60):
    if os.fork() == 0:
        os.setsid()
        end = time.monotonic() + 6
        while time.monotonic() < end:
            pass
        os._exit(0)
_first = []
""" + CORRECT.replace("def vgg_classifier(", "def _right(") + """
def vgg_classifier(*args):
    if not _first:
        _first.append(time.sleep(4))
    return _right(*args)
"""

#: a correct function that, on its first call, times a loop against its own CPU time while the hog spins
TIMED = """
import time
_ratio = []
""" + CORRECT.replace("def vgg_classifier(", "def _right(") + """
def vgg_classifier(*args):
    if not _ratio:
        time.sleep(0.7)
        wall, cpu = time.perf_counter(), time.process_time()
        total = 0
        for i in range(1_500_000):
            total += i
        _ratio.append((time.perf_counter() - wall) / max(time.process_time() - cpu, 1e-3))
        if _ratio[0] > 8:
            raise RuntimeError(f"starved: its loop took {_ratio[0]:.0f} times its CPU time")
    return _right(*args)
"""


def test_a_run_of_many_busy_sessions_does_not_starve_the_other_workers_run(tmp_path):
    """The other worker's run keeps about half the cores, whatever the first run starts (it took 70 s instead of
    2.5 s beside 60 busy processes that each called setsid, before each slot had a cpu cgroup)."""
    from grader import cgroups

    if os.geteuid() != 0 or not cgroups.cpu_usable():
        pytest.skip("no cpu cgroup controller here")
    proc, results = grade_batch(tmp_path, {"a_hog.py": HOG, "b_timed.py": TIMED}, jobs=2)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert points(results["b_timed"])[0] == points(results["b_timed"])[1], json.dumps(results["b_timed"])[:1500]
