"""Batch workers in forked copies of the grader, each with an interpreter lock of its own.

Why: in a batch, a worker thread alternates between the grader's own Python (the hidden cases, the conversation
with the run, the checks, the diagnosis, the reports: about 15 ms per submission) and waiting for its run. Worker
threads share one interpreter lock, so on two cores that Python, not the cores, set the pace: two threads graded
a class only about 15 % faster than one. A copy of the grader made by ``os.fork()`` once the batch is set up
(exercise loaded, sandbox chosen, templates started, large case built) runs the same code on its own lock.

A copy is the grader itself (it holds the course secret, as the grader does), never a student's process: student
code still runs only in the sandboxed runs the copy starts from its own template. The grader hands a copy one
entry at a time (``Copy.grade``: a JSON request and the file's bytes through a pipe); the copy grades it exactly as
a worker thread would, writes the student's files, and answers with the result as JSON, which the grader reads
back with ``GradeResult.from_dict`` (never a pickle). If a copy fails in any way (it died, or sent anything but a
well-formed answer), it is never used again and the caller grades the entry itself: the result is always the
grader's own.

A copy ignores Ctrl-C (the grader stops it), dies with the grader (PR_SET_PDEATHSIG), and ends when its request
pipe closes: it then stops its template and removes its own cgroups, and exits without running the grader's exit
handlers (those belong to the process that forked it). A copy killed instead (a failure, Ctrl-C, a SIGKILL from
outside) cleans up nothing, so the grader calls ``reaped(pid)`` once it has reaped any copy: what the copy left
is cleared by the process that outlives it.
"""
from __future__ import annotations

import json
import os
import select
import signal
import time
import struct
import weakref
from typing import Callable

from . import forked
from .forked import can_fork  # noqa: F401  (the batch asks here)

#: a request's or an answer's header: the JSON's length, then (requests only) the length of the bytes after it
_HEADER = struct.Struct("<II")
#: the most an answer may hold (a result is a few kilobytes; a report's text is bounded well below this)
MAX_ANSWER = 64 << 20


class Copy:
    """One forked copy of the grader, serving ``handle(request, data) -> answer`` (JSON's types) until closed."""

    def __init__(self, handle: Callable[[dict, bytes | None], dict], setup: Callable[[], None],
                 finish: Callable[[], None], reaped: Callable[[int], None] | None = None) -> None:
        """Fork now. In the copy, ``setup()`` runs first (take over what the copy serves with), then each request
        is answered with ``handle``; ``finish()`` runs when the requests end, before the copy exits. In the
        grader, ``reaped(pid)`` runs once the copy is reaped, however it ended (its ``finish`` may never have
        run)."""
        to_copy_r, to_copy_w = os.pipe2(os.O_CLOEXEC)
        from_copy_r, from_copy_w = os.pipe2(os.O_CLOEXEC)
        parent = os.getpid()
        try:
            pid = forked.fork()
        except OSError:
            for fd in (to_copy_r, to_copy_w, from_copy_r, from_copy_w):
                os.close(fd)
            raise
        if pid == 0:
            os.close(to_copy_w)
            os.close(from_copy_r)
            for fds in _PARENT_ENDS:  # the grader's ends of the copies forked before: their pipes must end with them
                _close(fds, 0)
                _close(fds, 1)
            _serve(to_copy_r, from_copy_w, parent, handle, setup, finish)  # never returns
        os.close(to_copy_r)
        os.close(from_copy_w)
        self.pid = pid
        self.broken = ""
        self._fds = [to_copy_w, from_copy_r]  # requests, answers; -1 once closed (shared with the finalizer)
        _PARENT_ENDS.append(self._fds)
        self._reaped = reaped
        self._end = weakref.finalize(self, _end, pid, self._fds, KILL_AFTER, reaped)

    def grade(self, request: dict, data: bytes | None, seconds: float | None = None) -> dict | None:
        """The copy's answer to ``request`` (with the file's bytes ``data``), within ``seconds`` if given; None if
        the copy failed or took longer, and then it is stopped and never asked again.

        Why a deadline: a copy that stops answering (SIGSTOP from outside, a deadlock) held its worker, and with
        it the whole batch, forever: the grader waits for every entry it handed out. A thread has the same limits
        as a copy, so a copy over them by far is stuck, not slow."""
        if self.broken:
            return None
        try:
            deadline = time.monotonic() + seconds if seconds is not None else None
            body = json.dumps(request, separators=(",", ":")).encode("utf-8")
            _write_all(self._fds[0], _HEADER.pack(len(body), len(data) if data is not None else NO_DATA)
                       + body + (data or b""))
            size = _HEADER.unpack(_read_exactly(self._fds[1], _HEADER.size, deadline))[0]
            if size > MAX_ANSWER:
                raise ValueError(f"an answer of {size} bytes")
            answer = json.loads(_read_exactly(self._fds[1], size, deadline))
            if not isinstance(answer, dict):
                raise ValueError("an answer that is not an object")
            return answer
        except (OSError, ValueError, EOFError) as exc:
            self.broken = str(exc) or type(exc).__name__
            self.stop()
            return None

    def close(self) -> None:
        """No more requests: the copy finishes (stops its template, removes its cgroups) and exits while the grader
        goes on; it is reaped when the grader ends or forks its next copies (``reap_closed``). Idempotent."""
        self.broken = self.broken or "closed"
        _close(self._fds, 0)
        if self._end.alive and self not in _CLOSED:
            _CLOSED.append(self)

    def stop(self) -> None:
        """Kill the copy now (a failed copy, an interrupted batch) and reap it. Idempotent."""
        self.broken = self.broken or "stopped"
        if self._end.detach() is not None:
            _end(self.pid, self._fds, 0.0, self._reaped)


def reap_closed() -> None:
    """Reap the copies closed so far (waiting for those still finishing)."""
    while _CLOSED:
        _CLOSED.pop()._end()


#: closed copies not reaped yet: kept here, so that a batch's end does not wait for its copies to finish
_CLOSED: list[Copy] = []
#: the grader's ends of every copy's pipes (closed ones hold -1): a copy forked later closes them in itself
_PARENT_ENDS: list[list[int]] = []
#: how long a closed copy is given to finish on its own before it is killed
KILL_AFTER = 5.0
#: in a request's header: no bytes follow (the copy reads the file itself)
NO_DATA = 0xFFFFFFFF


def _close(fds: list[int], index: int) -> None:
    if fds[index] >= 0:
        try:
            os.close(fds[index])
        except OSError:
            pass
        fds[index] = -1


def _end(pid: int, fds: list[int], grace: float, reaped: Callable[[int], None] | None = None) -> None:
    """Close both pipes, give the copy ``grace`` seconds to exit, kill it if it has not, reap it, then
    ``reaped(pid)``."""
    _close(fds, 0)
    _close(fds, 1)
    try:
        _reap(pid, grace)
    finally:
        if reaped is not None:
            try:
                reaped(pid)
            except Exception:  # noqa: BLE001  (a clean-up that failed must not fail the batch)
                pass


def _reap(pid: int, grace: float) -> None:
    try:
        if grace > 0:
            pidfd = os.pidfd_open(pid)
            try:
                if select.select([pidfd], [], [], grace)[0]:
                    os.waitpid(pid, 0)
                    return
            finally:
                os.close(pidfd)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (ProcessLookupError, ChildProcessError):
        pass
    except OSError:
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except OSError:
            pass


def _serve(requests: int, answers: int, parent: int, handle: Callable[[dict, bytes | None], dict],
           setup: Callable[[], None], finish: Callable[[], None]) -> None:
    """In the copy: answer requests until the pipe closes, then ``finish()`` and exit; any failure ends the copy
    at once (the grader then grades what it had asked here itself)."""
    code = 1
    try:
        for stop in (signal.SIGINT, signal.SIGTERM):  # Ctrl-C and SIGTERM are the grader's: it stops its copies
            signal.signal(stop, signal.SIG_IGN)
        forked.end_with(parent)
        setup()
        try:
            while True:
                try:
                    head = _read_exactly(requests, _HEADER.size)
                except EOFError:
                    break
                size, data_size = _HEADER.unpack(head)
                request = json.loads(_read_exactly(requests, size))
                data = _read_exactly(requests, data_size) if data_size != NO_DATA else None
                body = json.dumps(handle(request, data), separators=(",", ":")).encode("utf-8")
                _write_all(answers, _HEADER.pack(len(body), 0) + body)
        finally:
            finish()
        code = 0
    except BaseException:  # noqa: BLE001  (the grader grades the entry itself)
        pass
    finally:
        os._exit(code)


def _read_exactly(fd: int, size: int, deadline: float | None = None) -> bytes:
    chunks, left = [], size
    while left:
        if deadline is not None and not select.select([fd], [], [], max(0.0, deadline - time.monotonic()))[0]:
            raise TimeoutError("the copy of the grader did not answer in time")
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            raise EOFError("the copy of the grader ended")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
