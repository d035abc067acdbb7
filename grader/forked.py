"""A function of the grader's own, run in a forked copy of the grader while the class is graded.

Why a process and not a thread: the grader's worker threads share one interpreter lock, and in a batch on two
cores that lock, not the cores, is what the runs wait for. Work that needs nothing of the batch once it starts
(the similarity report reads the class's files as text, about 2.5 ms of Python per submission) took the lock
from the threads that feed the runs. A copy made by ``os.fork()`` before any thread starts has a lock of its
own, runs on whichever core is free (the second one is idle while the grader starts), and sends its value back
through a pipe when the caller asks for it.

The value comes back as JSON (so the function returns JSON's types): the copy runs only grader code, over text
the grader read itself, but nothing in the grader unpickles, whoever made the bytes.

Where ``os.fork`` is missing or unsafe (not Linux, or other threads already running: a copy would inherit
their locks held), the function runs in a daemon thread instead, started by ``start()``, as before. If the copy
fails in any way (killed, a value that is not JSON's), ``result()`` runs the function again in the caller's
thread: the value is always the function's own.
"""
from __future__ import annotations

import gc
import json
import os
import signal
import sys
import threading
import weakref
from typing import Callable

#: what the copy says before its value: the value follows; anything else is a failure
_OK = b"ok\n"
_PR_SET_PDEATHSIG = 1


def can_fork() -> bool:
    """Linux, and this thread alone (a fork copies only the caller's thread, and with it locks other threads
    hold)."""
    return sys.platform.startswith("linux") and hasattr(os, "fork") and threading.active_count() == 1


def fork() -> int:
    """``os.fork()``, the copy with what the grader held frozen (``gc.freeze``): a collection there would otherwise
    write to every object's header, and so copy every page of them. The grader unfreezes its own at once (a
    process that grades many batches must still collect them); its full collections are rare."""
    gc.freeze()
    pid = -1
    try:
        pid = os.fork()
    finally:
        if pid != 0:
            gc.unfreeze()
    return pid


class Task:
    """``function(*args)`` in a forked copy started now, or else in a thread from ``start()``."""

    def __init__(self, function: Callable, *args, fork: bool = True, niceness: int = 0) -> None:
        """``niceness``: added to the copy's (``os.nice``), for work that can wait for a core nothing else needs."""
        self.function, self.args = function, args
        self.niceness = niceness
        self.pid = 0
        self.fd = -1
        self.thread: threading.Thread | None = None
        self.value: object = None
        self.error: BaseException | None = None
        self.done = False
        if fork and can_fork():
            self._fork()

    def _fork(self) -> None:
        read, write = os.pipe2(os.O_CLOEXEC)
        parent = os.getpid()
        try:
            pid = fork()
        except OSError:
            os.close(read)
            os.close(write)
            return
        if pid == 0:  # the copy: never returns, never runs the grader's exit handlers or flushes its buffers
            os.close(read)
            _serve(write, self.function, self.args, parent, self.niceness)
        os.close(write)
        self.pid, self.fd = pid, read
        # stopped and reaped however the batch ends: a value never asked for (an error, an interrupt) leaves no
        # copy blocked on a full pipe, nor a zombie in a grader used as a library
        self._stop = weakref.finalize(self, _stop, pid, read)

    def start(self) -> None:
        """Without a copy: run it in a daemon thread from now on (once). With one: nothing to do."""
        if self.pid or self.thread is not None or self.done:
            return
        self.thread = threading.Thread(target=self._run, name="grader-background", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            self.value = self.function(*self.args)
        except BaseException as exc:  # noqa: BLE001  (raised again in the caller's thread)
            self.error = exc

    def result(self):
        """The function's value (its exception raised), from the copy, the thread, or computed here."""
        if not self.done:
            if self.pid:
                got = self._from_copy()
                if got is None:  # the copy failed: the value is computed here, as it would have been
                    self._run()
                else:
                    self.value = got[0]
            elif self.thread is not None:
                self.thread.join()
            else:
                self._run()
            self.done = True
        if self.error is not None:
            raise self.error
        return self.value

    def _from_copy(self) -> tuple[object] | None:
        chunks = []
        try:
            while chunk := os.read(self.fd, 1 << 20):
                chunks.append(chunk)
        except OSError:
            chunks = []
        finally:
            self.close()
        data = b"".join(chunks)
        if not data.startswith(_OK):
            return None
        try:
            return (json.loads(data[len(_OK):]),)
        except ValueError:  # a value that did not come back whole: computed here instead
            return None

    def close(self) -> None:
        """Stop the copy if it still runs (an interrupted batch) and reap it; idempotent."""
        if self.pid:
            self._stop()
            self.pid, self.fd = 0, -1


def _stop(pid: int, fd: int) -> None:
    os.close(fd)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def end_with(parent: int) -> None:
    """In a forked copy of the grader: die with the grader (PR_SET_PDEATHSIG), or now if it has already ended."""
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the grader ended before that took hold
        os._exit(1)


def _serve(fd: int, function: Callable, args: tuple, parent: int, niceness: int = 0) -> None:
    """In the copy: compute, send ``ok`` and the value as JSON (or nothing: the caller computes it), exit."""
    code = 1
    try:
        # Ctrl-C and SIGTERM are the grader's to handle: it stops this copy itself (``close``); and the copy ends with
        # the grader (it holds the grader's descriptors: a template would not see the grader gone while it lived on)
        for stop in (signal.SIGINT, signal.SIGTERM):
            signal.signal(stop, signal.SIG_IGN)
        end_with(parent)
        if niceness:  # once it is safe: before that, at full priority
            os.nice(niceness)
        data = _OK + json.dumps(function(*args), separators=(",", ":")).encode("ascii")
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        code = 0
    except BaseException:  # noqa: BLE001  (the caller computes the value itself)
        pass
    finally:
        os._exit(code)
