"""Sixth round of hostile submissions: what the queued calls, the sealed inputs memory and the cpu groups opened.

A call's inline inputs sit in memory the parent shares with the child. Each call had a place of its own there, so
an answer kept by the inputs' address (``features.ctypes.data``, which a real caller's next batch often reuses, as
the allocator hands back the memory the last one was freed from) was never asked twice: it got full marks although
the hidden cases claim to catch an answer kept "by anything but their values".
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from conftest import CORRECT
from test_hostile_round5 import SHRINK

#: answers kept by where the features lie in memory, not by what they hold
BY_ADDRESS = CORRECT.replace("def vgg_classifier(", "def _right(") + """
_kept = {}

def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    key = features.ctypes.data
    if key not in _kept:
        _kept[key] = _right(features, W1, b1, W2, b2, W3, b3)
    return _kept[key]
"""


def test_an_answer_kept_by_the_inputs_address_loses_the_batch_points(grade_source):
    result = grade_source(BY_ADDRESS)
    checks = {c.id: c for c in result.checks}
    assert checks["values-batch"].status == "failed", checks["values-batch"].message
    assert "batch-same-sizes" in checks["values-batch"].message
    assert "stale-result" in {d.id for d in result.diagnoses}, [(d.id, d.evidence) for d in result.diagnoses]
    # the cases of other sizes are each called once: only the twin pair shares a place
    assert checks["values-single"].status == checks["values-shapes"].status == "passed"
    assert result.score < result.max_score


#: the last inputs kept by reference (not copied) and compared by value: wrong for a caller that refills one batch
#: buffer in place, as data loaders do, since the kept arrays then hold the new batch too
KEPT_BY_REFERENCE = CORRECT.replace("def vgg_classifier(", "def _right(") + """
_last = []

def vgg_classifier(*args):
    if _last and all(np.array_equal(a, b) for a, b in zip(_last[0], args)):
        return _last[1]
    _last[:] = [args, _right(*args)]
    return _last[1]
"""


def test_an_answer_kept_with_references_to_the_inputs_loses_the_batch_points(grade_source):
    """The twin batch arrives in the memory of the one before, as a refilled batch buffer does."""
    result = grade_source(KEPT_BY_REFERENCE)
    checks = {c.id: c for c in result.checks}
    assert checks["values-batch"].status == "failed", checks["values-batch"].message
    assert checks["values-single"].status == checks["values-shapes"].status == "passed"


def test_without_a_memfd_a_run_that_cuts_the_inputs_file_does_not_kill_the_grader(tmp_path):
    """Where ``os.memfd_create`` is missing (macOS), the inputs' memory is an unlinked file nobody can seal. The
    parent mapped it too, so a run that cut it with ``ftruncate`` made the parent's next read a SIGBUS: the whole
    grader died (exit 135) and the correct submission after it got no result. Run here in a grader process of its
    own with ``memfd_create`` taken away."""
    folder, out = tmp_path / "class", tmp_path / "out"
    folder.mkdir()
    (folder / "a_shrinks.py").write_text(SHRINK, encoding="utf-8")
    (folder / "b_correct.py").write_text(CORRECT, encoding="utf-8")
    script = ("import os, sys\ndel os.memfd_create\nfrom grader.cli import main\n"
              f"sys.exit(main(['grade', {str(folder)!r}, '--exercise', 'vgg_classifier', '--no-full-scale', "
              f"'--jobs', '1', '--out', {str(out)!r}]))\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                          cwd=tmp_path, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-2000:])
    results = {name: json.loads((out / "students" / name / "result.json").read_text(encoding="utf-8"))
               for name in ("a_shrinks", "b_correct")}
    assert results["b_correct"]["score"] == results["b_correct"]["max_score"]
    unmodified = next(c for c in results["a_shrinks"]["checks"] if c["id"] == "unmodified")
    assert unmodified["status"] == "failed", unmodified  # the cut is read as inputs changed, not believed away


#: a correct function that first tries to take more than its share or to change the inputs' memory, and raises
#: naming each attempt the kernel allowed
GREEDY = CORRECT.replace("def vgg_classifier(", "def _right(") + """
import ctypes, fcntl, os, stat

F_ADD_SEALS, F_GET_SEALS, F_SEAL_WRITE, IOPRIO_CLASS_RT = 1033, 1034, 8, 1
_libc = ctypes.CDLL(None, use_errno=True)


def _allowed():
    allowed = []
    for name, attempt in (("nice -5", lambda: os.nice(-5)),
                          ("SCHED_FIFO", lambda: os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))),
                          ("SCHED_RR", lambda: os.sched_setscheduler(0, os.SCHED_RR, os.sched_param(1)))):
        try:
            attempt()
            allowed.append(name)
        except OSError:
            pass
    if _libc.syscall(251, 1, 0, IOPRIO_CLASS_RT << 13) == 0:  # ioprio_set(IOPRIO_WHO_PROCESS, self, RT)
        allowed.append("ioprio RT")
    for fd in range(3, 64):
        try:
            info = os.fstat(fd)
        except OSError:
            continue
        if not stat.S_ISREG(info.st_mode) or info.st_nlink:
            continue
        for name, attempt in (("grow", lambda: os.ftruncate(fd, info.st_size + 4096)),
                              ("shrink", lambda: os.ftruncate(fd, 0)),
                              ("seal", lambda: fcntl.fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE)),
                              ("write past the end", lambda: os.pwrite(fd, b"x", info.st_size))):
            try:
                attempt()
                allowed.append(f"{name} of the inputs' memory")
            except OSError:
                pass
    return allowed


def vgg_classifier(*args):
    allowed = _allowed()
    if allowed:
        raise PermissionError("allowed: " + ", ".join(allowed))
    return _right(*args)
"""


def test_a_run_cannot_raise_its_priority_nor_resize_or_seal_the_inputs_memory(grade_source, session):
    """In fork mode a run may not take a real-time or higher priority (it would starve the other worker's run
    whatever the cpu groups say), nor grow, shrink or add a seal to the sealed memory its inputs sit in."""
    if session.sandbox.mode != "fork":
        pytest.skip("the fork sandbox (Linux, root) is not available here")
    result = grade_source(GREEDY)
    assert result.score == result.max_score, [(c.id, c.message) for c in result.checks if c.status != "passed"]
