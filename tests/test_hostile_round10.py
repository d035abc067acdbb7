"""Tenth round of hostile input: attacks on the forked copies of the grader a batch grades through
(``grader/batchcopies.py``, ``grader/procworkers.py``), and on their neighbours.

What a copy sends back is the grader's own result (a few kilobytes whatever the student did: every text in it is
quoted and cut), so a student cannot make the copy's answer huge, slow to encode or invalid: output of 10^6 lines
with NUL bytes, invalid UTF-8 and lone surrogates, a 1 MiB exception message, a 10^5-digit integer, a list nested
10^5 deep and an object array of lone surrogates were all answered by the copy (no copy failed, none was graded
twice) with the results, reports and class files of ``GRADER_WORKER_COPIES=0``. That was so before this round too.

What did fail: a copy killed from outside (SIGKILL, the OOM killer) or stopped by the grader (a failure, Ctrl-C)
never ran its own clean-up, so its cgroups stayed after the grader exited with 0, until the next grader's start
(and whatever still ran in them ran on). The grader now removes a copy's cgroups once it has reaped it. And
``Copy.stop()`` a second time (the batch stops every copy on Ctrl-C, including one already stopped when it
failed) sent SIGKILL again to a pid already reaped, which the kernel may have given to another process by then.
A copy that stopped answering (SIGSTOP from outside, a deadlock) held the whole batch forever; it now has a
deadline per entry, after which the grader kills it and grades the entry itself.
"""
from __future__ import annotations

import glob
import json
import os
import signal
import time

import pytest

from conftest import leftovers, run_cli, untimed_results
from grader import batch, batchcopies, cgroups, procworkers

HEAD = """import numpy as np
def right(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    return h @ W3 + b3
"""
RIGHT = HEAD + "vgg_classifier = right\n"
HOSTILE = {
    # 10^6 short lines (under the output allowance) with NUL, invalid UTF-8 and a lone surrogate's bytes
    "lines": HEAD + "import os\nos.write(1, b'\\x00\\xed\\xa0\\n' * 1000000)\nvgg_classifier = right\n",
    "message": HEAD + "def vgg_classifier(*a):\n    raise ValueError('\\ud800\\x00\\x1b[2J' + 'E' * (1 << 20))\n",
    "digits": HEAD + "def vgg_classifier(*a):\n    return 10 ** 100000\n",
    "nested": HEAD + "def vgg_classifier(*a):\n    x = []\n    for _ in range(100000):\n        x = [x]\n    return x\n",
    "objects": HEAD + "def vgg_classifier(f, *a):\n    return np.full((f.shape[0], 10), '\\udcff\\x00' * 500, object)\n",
}
ORDINARY = {"ana": RIGHT, "bo": RIGHT.replace("x @ W1 + b1", "x @ W1"), "cy": RIGHT, "di": RIGHT}


def test_a_students_output_and_values_never_break_a_copy(capsys, tmp_path, monkeypatch, forks):
    folder = tmp_path / "class"
    folder.mkdir()
    for name, source in {**ORDINARY, **HOSTILE}.items():
        (folder / f"{name}.py").write_text(source)
    failed = []

    def stop(self, stop=procworkers.Copy.stop):
        failed.append(self.broken)
        stop(self)

    monkeypatch.setattr(procworkers.Copy, "stop", stop)
    outputs = {}
    for copies in ("1", "0"):
        monkeypatch.setenv(batchcopies.ENV, copies)
        out = tmp_path / f"out{copies}"
        code, _, err = run_cli(capsys, "grade", folder, "--exercise", "vgg_classifier", "--no-full-scale", "--jobs",
                               "2", "--out", out, "-q", "--secret", "round10")
        assert code == 0, err
        outputs[copies] = untimed_results(out)
    assert len(forks) == 1 and failed == []  # the copy answered for every student it was handed
    assert outputs["1"] == outputs["0"] and len(outputs["0"]) == len(ORDINARY) + len(HOSTILE)
    assert outputs["1"]["ana"]["score"] == outputs["1"]["ana"]["max_score"] > outputs["1"]["message"]["score"]
    assert outputs["1"]["lines"]["score"] == outputs["1"]["lines"]["max_score"]  # its output is its own affair
    for name in HOSTILE:
        assert len(json.dumps(outputs["1"][name])) < 20_000
    assert (tmp_path / "out1" / "gradebook.csv").read_text() == (tmp_path / "out0" / "gradebook.csv").read_text()
    with pytest.raises(ProcessLookupError):
        os.kill(forks[0], 0)
    assert not leftovers()


def _copy_cgroups(pid: int) -> list[str]:
    return glob.glob(str(cgroups.CGROUP_ROOT / "*" / cgroups.CGROUP_NAME / f"{pid}-*"))


def test_a_copy_killed_from_outside_leaves_no_cgroup_behind(tmp_path, session, monkeypatch, forks):
    """Before: the killed copy's memory, pids and cpu cgroups stayed after the batch, until the next grader."""
    if not getattr(session.sandbox, "cgroups", False):
        pytest.skip("no cgroups on this machine")
    folder = tmp_path / "class"
    folder.mkdir()
    slow = RIGHT.replace("import numpy as np", "import time\ntime.sleep(1.5)\nimport numpy as np")
    for name, source in {**ORDINARY, "slow1": slow, "slow2": slow, "slow3": slow}.items():
        (folder / f"{name}.py").write_text(source)


    def kill_the_copy_mid_run(*_):
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:  # its template and a run in its cgroup
            pids = [p for f in _copy_cgroups(forks[0]) if "/pids/" in f for p in open(f"{f}/cgroup.procs").read().split()]
            if len(pids) >= 2:
                break
            time.sleep(0.01)
        os.kill(forks[0], signal.SIGKILL)

    entries = batch.discover([folder]).entries
    outcomes = batch.grade_all(entries, session, jobs=2, copies=True, on_start=kill_the_copy_mid_run)
    assert len(forks) == 1
    scores = {o.entry.student: (o.result.score, o.result.max_score) for o in outcomes}
    assert len(scores) == 7 and all(scores[n][0] == scores[n][1] for n in ("ana", "slow1", "slow2", "slow3"))
    procworkers.reap_closed()
    assert _copy_cgroups(forks[0]) == []
    assert not leftovers()


def test_stopping_a_copy_twice_kills_nothing_the_second_time(monkeypatch):
    """Before: the second ``stop()`` sent SIGKILL to the pid the first one had reaped (maybe another process's)."""
    reaped = []
    copy = procworkers.Copy(lambda request, data: request, lambda: None, lambda: None, reaped.append)
    assert copy.grade({"index": 1}, b"") == {"index": 1}
    copy.stop()
    assert reaped == [copy.pid]
    kills = []
    monkeypatch.setattr(procworkers.os, "kill", lambda *args: kills.append(args))
    copy.stop()
    copy.close()
    procworkers.reap_closed()
    assert kills == [] and reaped == [copy.pid]


def test_a_copy_that_stops_answering_does_not_hold_the_batch(tmp_path, session, monkeypatch, forks):
    """Before: a copy stopped from outside (SIGSTOP) or stuck held the batch forever, as the grader waited for the
    entry it had handed over; now, past its deadline (three submission limits and a minute; one second here), the
    copy is killed and the grader grades the entry itself."""
    folder = tmp_path / "class"
    folder.mkdir()
    for name, source in {**ORDINARY, "ed": RIGHT, "fu": RIGHT}.items():
        (folder / f"{name}.py").write_text(source)

    monkeypatch.setattr(batchcopies, "ANSWER_LIMITS", 0)
    monkeypatch.setattr(batchcopies, "ANSWER_SLACK", 1.0)
    entries = batch.discover([folder]).entries
    started = time.monotonic()
    outcomes = batch.grade_all(entries, session, jobs=2, copies=True,
                               on_start=lambda *_: os.kill(forks[0], signal.SIGSTOP))
    assert time.monotonic() - started < 30
    assert len(forks) == 1
    assert [o.result.score == o.result.max_score for o in outcomes] == [True, False, True, True, True, True]
    with pytest.raises(ProcessLookupError):
        os.kill(forks[0], 0)
    assert not leftovers()
