"""Soft time limits: the alarm that stops a cell or a call of student code from inside, as Jupyter's interrupt would.

The parent's deadline is what ends a run that will not stop; this alarm comes first, so that a slow call is only that
call's timeout and the run goes on to the next command. It raises ``OutOfTime`` in the middle of student code, and
grants back the time the run spent waiting for a core (``Clock``), as the parent's deadline does.
"""
from __future__ import annotations

import os
import signal
import sys

import stdlib

__builtins__ = stdlib.own_builtins()  # the runner's own: student code may replace those it shares (stdlib.py)

#: kept at the runner's start, before the student's code could replace them in ``sys``
_settrace, _setprofile = sys.settrace, sys.setprofile
#: and in ``signal`` and ``os``: a ``signal.setitimer`` replaced after a right definition to arm a timer of a
#: microsecond stopped every call of the right function, told it was stopped by an alarm of its own (1/17)
_setitimer, _REAL, _pread = signal.setitimer, signal.ITIMER_REAL, os.pread


class OutOfTime(BaseException):
    """Raised by the alarm in the middle of student code, as Jupyter's interrupt would, so the run goes on."""


class Clock:
    """A soft limit counts the run's own time: wall time less what it spent waiting for a core (the run delay in
    its /proc/self/schedstat, opened before Landlock hides /proc). On a machine loaded from outside, a correct but
    slow call was stopped at its limit after a fraction of it on a core; the alarm now grants such a wait again,
    up to twice the limit, and the parent's deadline does the same from its own reading of the same counter."""

    def __init__(self) -> None:
        self.fd, self.start, self.granted, self.most = -1, 0, 0.0, 0.0
        try:
            self.fd = os.open("/proc/self/schedstat", os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            pass

    def delay(self) -> int:
        try:
            return int(_pread(self.fd, 100, 0).split()[1])
        except (OSError, ValueError, IndexError):  # closed or replaced by student code: no grant
            return -1

    def arm(self, seconds: float, most: float = 2.0, grace: float = 2.0) -> None:
        """A new limit of ``seconds``: waits are granted up to what the parent grants its deadline (``most`` times
        the limit and its grace), less that grace, so the alarm still answers before the parent's kill."""
        self.start, self.granted, self.most = self.delay(), 0.0, most * (seconds + grace) - grace

    def waited(self) -> float:
        """Seconds spent waiting for a core since the limit was armed (0 where unknown)."""
        now = self.delay()
        return (now - self.start) / 1e9 if now >= 0 and self.start >= 0 else 0.0

    def more(self) -> float:
        """Seconds to grant now: the wait for a core since the limit was armed, not yet granted."""
        grant = min(self.waited() - self.granted, self.most - self.granted)
        if grant < 0.005:
            return 0.0
        self.granted += grant
        return grant


CLOCK: Clock | None = None  # made by start_clock() before Landlock hides /proc
#: once a soft limit is up, its alarm goes off again this often until the step ends: Python swallows an exception
#: raised in a ``__del__`` (or a weakref callback), so one alarm that landed there left the step running unstopped
REPEAT = 0.1
#: whether the alarm went off since the last limit was armed, even where Python swallowed it (a ``__del__``)
FIRED = [False]


def alarm(signum, frame) -> None:
    """The SIGALRM handler: grant the wait for a core, or stop the student's code."""
    grant = CLOCK.more() if CLOCK is not None else 0.0
    if grant:
        _setitimer(_REAL, grant, REPEAT)
        return
    FIRED[0] = True
    raise OutOfTime()


def start_clock() -> None:
    """Open the run's scheduler counter, while /proc is still there to open (before ``confine`` applies Landlock)."""
    global CLOCK
    CLOCK = Clock()


class Limits:
    """The child's part that runs a step of student code under its soft limit (``limits``: the parent's settings)."""

    limits: dict

    def timed(self, seconds: float | None, action, untraced: bool = False):
        """Run ``action()`` under a soft time limit; return (timed_out, exception or None, value).

        The alarm is one-shot, so the outer handler catches the single late alarm that could fire between the
        action's end and the disarm. Code that blocks SIGALRM is still stopped: by the parent's hard deadline.
        ``untraced``: clear this thread's trace and profile hooks once the action ends (a call's steps), so that a
        hook the student's code set (``sys.settrace``, ``sys.setprofile``) does not run in the runner's frames that
        describe the result: one that set the description's exact-type flag for a returned list got the type
        point. Two C calls, well under a microsecond; a profiler started at import stops at the first call.
        """
        try:
            if seconds:
                FIRED[0] = False
                if CLOCK is not None:
                    CLOCK.arm(float(seconds), float(self.limits.get("wait_most", 2.0)),
                               float(self.limits.get("grace", 2.0)))
                _setitimer(_REAL, float(seconds), REPEAT)
            try:
                return False, None, action()
            except OutOfTime:
                return True, None, None
            except BaseException as exc:  # SystemExit and KeyboardInterrupt too, as Jupyter would
                return False, exc, None
            finally:
                if untraced:
                    _settrace(None)
                    _setprofile(None)
                _setitimer(_REAL, 0)
        except OutOfTime:
            _setitimer(_REAL, 0)
            return True, None, None
