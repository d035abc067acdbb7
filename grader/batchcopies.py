"""How a batch uses forked copies of the grader (``procworkers``): how many, what each takes with it, and how a
student's result comes back from one.

A batch on ``jobs`` workers forks ``jobs - 1`` copies when its first entry is handed over (the exercise loaded,
the sandbox chosen, the large cases built) and keeps one worker thread of its own; each copy is fed by a thread
of the grader that only waits. In fork mode each copy takes one of the grader's idle templates with it (a
template another template forked: see ``template.Pool.hand_over``), so no copy pays a Python and numpy start.

Not forked: with one worker, a class of fewer than ``MIN_ENTRIES``, other threads already running, or a large
case in use: the runs of a large case share its files under one lock of the session (a regrade after the files
changed waits until no other run uses them), and that lock does not reach across processes.
``GRADER_WORKER_COPIES=0`` keeps every worker a thread (``=N``: at most N copies).
"""
from __future__ import annotations

import os
from typing import Callable

from . import cgroups, procworkers, template
from .classfolder import Entry
from .grade import grading
from .results import GradeResult

ENV = "GRADER_WORKER_COPIES"
#: below this many entries, forking costs more than a second interpreter lock saves
MIN_ENTRIES = 4
#: how long a copy may take over one entry, in multiples of the submission's time limit (plus ``ANSWER_SLACK``
#: seconds): a thread grading it takes at most about one limit (its runs) and the checks and diagnosis after it
ANSWER_LIMITS = 3
ANSWER_SLACK = 60.0

Copy = procworkers.Copy


def wanted(session, entries, workers: int) -> int:
    """How many copies to fork for ``workers`` workers over ``entries``."""
    most = workers - 1
    setting = os.environ.get(ENV, "").strip()
    if setting:
        try:
            most = min(most, max(0, int(setting)))
        except ValueError:
            pass
    if most < 1 or len(entries) < MIN_ENTRIES or not procworkers.can_fork():
        return 0
    if any(s.full_scale_case() is not None for s in _sessions(session)):
        return 0
    return most


def fork(session, entries, workers: int, grade_one: Callable[[Entry, dict | None, bytes | None], GradeResult]
         ) -> list[Copy]:
    """Fork the copies a batch on ``workers`` workers uses (possibly none); call it with no other thread running.
    Each copy answers ``{"index", "key"}`` (and the file's bytes) with ``grade_one``'s result for that entry."""
    procworkers.reap_closed()  # an earlier batch's (a long-lived process)
    count = wanted(session, entries, workers)
    if not count:
        return []
    sandbox = grading(session).sandbox
    sessions = _sessions(session)
    given = template.POOL.hand_over(sandbox.template_config, count) if getattr(sandbox, "mode", "") == "fork" \
        else [None] * count
    copies: list[Copy] = []
    for mine in given:
        others = [t for t in given if t is not None and t is not mine]
        seen = [len(s.notes) for s in sessions]  # the notes so far are the grader's own already

        def setup(mine=mine, others=others) -> None:
            template.POOL.keep_only(mine, others)

        def finish() -> None:
            template.POOL.close()
            if getattr(sandbox, "cgroups", False):
                cgroups.remove_own_cgroups()

        def handle(request: dict, data: bytes | None, seen=seen) -> dict:
            entry = entries[request["index"]]
            result = grade_one(entry, request.get("key"), data)
            notes = [[n, note] for n, s in enumerate(sessions) for note in s.notes[seen[n]:]]
            seen[:] = [len(s.notes) for s in sessions]
            return {"student": entry.student, "result": result.to_dict(), "notes": notes}

        try:
            copy = Copy(handle, setup, finish, _remove_cgroups if getattr(sandbox, "cgroups", False) else None)
        except OSError:
            if mine is not None:
                template.POOL.release(mine)
            continue
        if mine is not None:
            mine.forget()  # the copy's now
        copies.append(copy)
    return copies


def graded_by(copy: Copy, index: int, entry: Entry, key: dict | None, data: bytes | None, session
              ) -> GradeResult | None:
    """The result ``copy`` graded (and wrote) for entry ``index``; None when the copy failed (it is then stopped,
    and the caller grades the entry itself)."""
    answer = copy.grade({"index": index, "key": key}, data, answer_seconds(session))
    if answer is None:
        return None
    try:
        if answer.get("student") != entry.student:
            raise ValueError("the result of another student")
        result = GradeResult.from_dict(answer["result"])
        sessions = _sessions(session)
        for n, note in answer.get("notes", ()):
            if isinstance(note, str) and note not in sessions[n].notes:
                sessions[n].notes.append(note)
    except (ValueError, TypeError, KeyError, IndexError):
        copy.stop()
        return None
    return result


def answer_seconds(session) -> float:
    """How long a copy is given for one entry before it counts as stuck (and the grader grades the entry itself)."""
    limits = getattr(grading(session).sandbox, "limits", None)
    return ANSWER_LIMITS * float(getattr(limits, "submission_seconds", 90.0)) + ANSWER_SLACK


def _remove_cgroups(pid: int) -> None:
    """The cgroups of copy ``pid``, once reaped. A copy removes its own when its requests end; one that was killed
    (it failed, the batch was interrupted, someone sent it SIGKILL) left them, with whatever still ran in them,
    until the next grader's start. They are named by the copy's pid, which this grader has just reaped."""
    for controller in cgroups.CONTROLLERS:
        try:
            folders = list((cgroups.CGROUP_ROOT / controller / cgroups.CGROUP_NAME).glob(f"{pid}-*"))
        except OSError:
            continue
        for folder in folders:
            cgroups.remove_cgroup(folder)


def _sessions(session) -> list:
    """The exercise sessions a batch grades with: an assignment's, or the one."""
    graded = grading(session)
    return list(getattr(graded, "sessions", None) or [graded.session])
