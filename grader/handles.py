"""What the grader holds of processes a template started, instead of a ``subprocess.Popen``: a run (``Forked``) and a
template forked by another (``Sibling``). Neither is the grader's child, so a pidfd tells when one has ended, and
the template that started it says how.
"""
from __future__ import annotations

import os
import select
import signal
import subprocess
from typing import TYPE_CHECKING

from . import processes

if TYPE_CHECKING:
    from .template import Template

#: how long ``Forked.wait()`` waits for the report of a run that was killed before it gives up on the template
REPORT_SECONDS = 30.0


class TemplateError(OSError):
    """A template did not start or did not answer as it must; it is not used again."""


class Handle:
    """A process known by a pidfd: killed through it, never by a pid that another process may have taken since."""

    pidfd = -1
    returncode: int | None = None

    def kill(self) -> None:
        if self.returncode is None and self.pidfd >= 0:
            try:
                signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
            except OSError:
                pass


class Sibling(Handle):
    """What a ``Template`` uses of a Popen, for a template another one forked (its pid comes in that one's ready
    message): it is not this process's child, so a pidfd tells when it has ended, not how."""

    stderr = None

    def __init__(self, parent: Template, index: int) -> None:
        self.parent, self.index = parent, index
        self.pid: int | None = None  # until the parent is ready
        self.pidfd = -1
        self.returncode: int | None = None

    def started(self) -> None:
        """Learn the pid from the parent's ready message; TemplateError if the parent failed or forked no such one."""
        try:
            self.parent.ready()
        except TemplateError as exc:
            raise TemplateError(f"the template it was to be forked from failed ({exc})") from None
        if self.index >= len(self.parent.sibling_pids):
            raise TemplateError("the template it was to be forked from did not fork it")
        pid = self.parent.sibling_pids[self.index]
        try:
            self.pidfd = os.pidfd_open(pid)
        except OSError as exc:
            raise TemplateError(f"the forked template is gone ({exc})") from None
        if processes.parent(pid) != self.parent.process.pid:  # ended, and its pid taken, before it could be opened
            os.close(self.pidfd)
            self.pidfd = -1
            raise TemplateError("the forked template is gone")
        self.pid = pid

    def poll(self) -> int | None:
        if self.returncode is None and self.pidfd >= 0 and select.select([self.pidfd], [], [], 0)[0]:
            self._ended()
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            if self.pidfd >= 0 and not select.select([self.pidfd], [], [], timeout)[0]:
                raise subprocess.TimeoutExpired(f"template {self.pid}", timeout or 0)
            self._ended()
        return self.returncode  # type: ignore[return-value]

    def _ended(self) -> None:
        self.returncode = -signal.SIGKILL  # how it ended is its parent's to know
        if self.pidfd >= 0:
            os.close(self.pidfd)
            self.pidfd = -1


class Forked(Handle):
    """What ``execute`` and ``sandbox`` use of a Popen, for a run a template started."""

    def __init__(self, template: Template, pid: int, pidfd: int, stdin, slot: int | None) -> None:
        self.template, self.pid, self.pidfd, self.stdin, self.slot = template, pid, pidfd, stdin, slot
        self.returncode: int | None = None
        self.released = False
        self.signalled = False  # SIGKILL sent to the init and its children (``template.kill``)
        self.spared: dict[int, bool] = {}  # pid: whether the sweep after the run spares it (``empty_cgroup``)

    def poll(self) -> int | None:
        return self._collect(0)

    def wait(self, timeout: float | None = None) -> int:
        code = self._collect(REPORT_SECONDS if timeout is None else timeout)
        if code is None and timeout is not None:
            raise subprocess.TimeoutExpired(f"run {self.pid}", timeout)
        if code is None:  # no report long after the kill: the template is wedged
            self.template.stop("the template did not report the end of a run")
            code = self._collect(0)
        return code

    def _collect(self, timeout: float) -> int | None:
        if self.returncode is None:
            status = self.template.report(self.pid, timeout)
            if status == -1:  # the template is gone, and its runs with it
                self.returncode = -signal.SIGKILL
            elif status is not None:
                self.returncode = os.waitstatus_to_exitcode(status)
            if self.returncode is not None and self.pidfd >= 0:
                os.close(self.pidfd)
                self.pidfd = -1
        return self.returncode
