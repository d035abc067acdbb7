"""A time limit counts the run's own time, not the time it spent waiting for a core.

On a machine loaded from outside (other jobs, a CI runner's neighbours), a correct but slow call could reach its
limit after a fraction of it on a core: copying an 800 MB weight matrix took 0.35 s alone and 5.4 s of wall time
at a load of 10, and was killed. The kernel counts, per task, the time it was ready to run but waiting for a core (the
run delay, second field of ``/proc/PID/schedstat``); a deadline that passes while the run's main process waited
that long is moved by that wait, once per wait, and by at most twice the step's own allowance. A sleeping or
blocked process does not wait for a core, so a call that sleeps past its limit is stopped on time; a run that
starves itself (its own busy processes share its cgroup's cpu weight) gains at most the same twice its allowance.
The child's own alarm grants the same waits, read from its own counter (``runner/alarms.py``).
"""
from __future__ import annotations

from . import processes

#: the most a step's deadline moves, as a multiple of its allowance
MOST = 2.0
#: a wait shorter than this is not worth a new deadline
LEAST = 0.05
#: generations between the launched process and the runner, by mode (0: the launched process is the runner).
#: bwrap's was once left at "cannot be read", so its deadlines stayed wall-clock while the child's alarm granted
#: its waits: on a loaded machine a busy call was killed at 12 s and told it "did not stop" in 2 s more, which it
#: was never asked to in its own time; the same call in fork mode got its alarm, and the full grace after it.
DEPTH = {"fork": 1, "bwrap": 2}


class Waits:
    """The run delay of one run's main process, and how much of it its deadlines have been given already."""

    def __init__(self, mode: str, pid: int) -> None:
        self.mode, self.pid, self.granted = mode, pid, 0.0
        #: how far below ``pid`` the runner is: in fork mode the init's first child; in bwrap mode bubblewrap's own
        #: child (the pid namespace's init) starts it. Found when first needed, once the chain is there.
        self.depth = DEPTH.get(mode, 0)
        self.main = 0 if self.depth else pid

    def waited(self) -> float:
        """Seconds the run's main process has waited for a core so far (0 where it cannot be read)."""
        if not self.main:
            self.main = _descendant(self.pid, self.depth)
        return processes.run_delay(self.main) if self.main else 0.0

    def grant(self, allowance: float, step_granted: float, left: float = float("inf")) -> float:
        """Seconds to add to a deadline that has just passed, for a step whose allowance was ``allowance`` and that
        was already given ``step_granted``; 0 when the run has not waited for a core since the last grant.

        ``left`` is what the whole submission may still be given: twice its own limit in all. With each step alone
        bounded, a run that starved itself with busy processes could stretch every call to three times the call's
        allowance, so twenty calls of 12 s could hold a worker twelve minutes on a 90 s limit."""
        more = min(self.waited() - self.granted, MOST * allowance - step_granted, left)
        if more < LEAST:
            return 0.0
        self.granted += more
        return more


def _descendant(pid: int, depth: int) -> int:
    """The first child of the first child... ``depth`` generations below ``pid``, or 0 while the chain is not
    complete yet (a run starting): the caller asks again at its next deadline."""
    for _ in range(depth):
        pid = next(iter(processes.children(pid)), 0)
        if not pid:
            return 0
    return pid
