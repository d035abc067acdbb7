"""The grader's side of the warm templates (``runner/template.py``): start them, ask for runs, learn how runs end.

A template is a fresh ``python -I -S -B runner/template.py`` (from its cached bytecode) with numpy imported, never a
fork of the grader (which holds the course secret and the expected values). The grader keeps one per worker slot it
uses, and hands each run's descriptors and settings to its slot's template over a Unix socketpair that only the two
of them hold. The template forks the run inside new namespaces and reports its end; ``Forked`` gives ``execute`` and
``sandbox`` the little of ``subprocess.Popen`` they use. A template sits in its slot's cgroups between runs, so that
its runs start there: moving a process into a cgroup can wait for an RCU grace period (milliseconds), and no run
pays for it. The sweep after a run spares it (``empty_cgroup``); its runs are marked as the out-of-memory killer's
first choice.

A template that stops answering, sends anything unexpected or dies is never used again: it is killed (its runs
die with it) and a new one starts when one is next needed.
"""
from __future__ import annotations

import atexit
import functools
import json
import os
import select
import signal
import socket
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from . import cgroups, processes, slots
from .handles import Forked, Sibling, TemplateError

RUNNER_DIR = Path(__file__).resolve().parent / "runner"
START_SECONDS = 30.0
ANSWER_SECONDS = 10.0
#: the most templates one template forks (their sockets come with its first message, which carries up to 16)
MAX_SIBLINGS = 15


@dataclass(frozen=True)
class Config:
    """How templates start: the interpreter, the child's environment, numpy's folder, a probe run's settings."""

    python: str
    env: tuple[tuple[str, str], ...]
    paths: tuple[str, ...]
    probe: str  # JSON: the settings of a run that checks namespaces, new root and worker uid, without a child

    @classmethod
    def of(cls, python: str, env: dict[str, str], paths: tuple[str, ...], probe: dict) -> Config:
        return cls(python, tuple(sorted(env.items())), paths, json.dumps({**probe, "t": "probe"}))


class Template:
    """One template process and the grader's end of its socket. Used by one run at a time."""

    #: the template's program (tests start misbehaving ones)
    script = RUNNER_DIR / "template.py"
    #: runs ``script`` as ``__main__`` from its cached bytecode when there is one: Python compiles a script named on
    #: its command line every time (7 ms for the template), while ``-B`` keeps this from writing any cache itself
    launcher = ("import sys, __main__, _frozen_importlib_external as e; path = __main__.__file__ = sys.argv[1]; "
                "sys.argv = sys.argv[1:]; exec(e.SourceFileLoader('__main__', path).get_code('__main__'), "
                "__main__.__dict__)")

    def __init__(self, config: Config, wait: bool = True, siblings: int = 0) -> None:
        """Start the template and send it its probe; with ``wait``, wait until it is ready (else ``ready()`` does).

        ``siblings``: how many more templates it forks before it says ready, each on a socket of its own
        (``self.siblings``): ready with it, without a Python and numpy start of their own (0.15 s of CPU each)."""
        self.config = config
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        env = dict(config.env)
        env["GRADER_FORKER"] = env.pop("GRADER_PARENT", str(os.getpid()))  # runners rename it to GRADER_PARENT
        try:
            self.process: subprocess.Popen | Sibling = subprocess.Popen(
                [config.python, "-I", "-S", "-B", "-c", self.launcher, str(self.script), str(theirs.fileno()),
                 *config.paths],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd="/",
                pass_fds=(theirs.fileno(),), start_new_session=True, close_fds=True)
        finally:
            theirs.close()
        self._setup(ours)
        pairs = [socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET) for _ in range(siblings)]
        self.siblings = [Template.sibling(self, n, mine) for n, (mine, _) in enumerate(pairs)]
        self.sibling_pids: list[int] = []  # as the template's ready message gives them, in order
        try:
            probe = json.dumps({**json.loads(config.probe), "siblings": siblings}) if siblings else config.probe
            socket.send_fds(self.sock, [probe.encode()], [theirs.fileno() for _, theirs in pairs])
        except OSError as exc:
            self._failed(exc)
        finally:
            for _, theirs in pairs:
                theirs.close()
        if wait:
            self.ready()

    @classmethod
    def sibling(cls, parent: Template, index: int, sock: socket.socket) -> Template:
        """The ``index``-th template ``parent`` forks before it is ready, on ``sock``: ready when it says so there."""
        self = cls.__new__(cls)
        self.config = parent.config
        self.process = Sibling(parent, index)
        self._setup(sock)
        self.siblings, self.sibling_pids = [], []
        return self

    def _setup(self, sock: socket.socket) -> None:
        self.sock = sock
        self.broken = ""
        self.prepared = False  # whether its last run had been forked ahead
        self.cgroups: tuple[str, ...] = ()  # the cgroup.procs files it was moved into
        self.pending = True  # started, not known to be ready yet
        self.starting = threading.Lock()  # ready() is called from any worker thread, and a sibling's on its parent

    def ready(self) -> None:
        """Wait for the template's ready message (once); TemplateError, and the template stopped, if it fails."""
        with self.starting:
            if not self.pending:
                if self.broken:
                    raise TemplateError(self.broken)
                return
            self.pending = False
            try:
                if self.broken:  # stopped while it started (the pool dropped it dead): its socket is closed
                    raise TemplateError(self.broken)
                if isinstance(self.process, Sibling):
                    self.process.started()  # the parent's ready message gives its pid (or the parent failed)
                ready = self._receive(START_SECONDS)[0]
                if ready.get("t") != "ready" or ready.get("pid") != self.process.pid:
                    raise TemplateError(f"the template said {str(ready)[:100]} instead of being ready")
                if ready.get("probe") != 0:
                    raise TemplateError(f"its probe run failed (wait status {ready.get('probe')})")
                pids = ready.get("siblings", [])
                if not isinstance(pids, list) or len(pids) != len(self.siblings) \
                        or not all(isinstance(pid, int) and pid > 1 for pid in pids):
                    raise TemplateError(f"the template said {str(ready)[:100]} of the templates it forked")
                self.sibling_pids = pids
            except (OSError, TemplateError) as exc:
                self._failed(exc)
            finally:
                if self.process.stderr:
                    self.process.stderr.close()

    def _failed(self, exc: Exception) -> None:
        why = self._stderr() or str(exc)
        self.stop(why)
        if self.process.stderr:
            self.process.stderr.close()
        raise TemplateError(why) from None

    def _stderr(self) -> str:
        try:
            if self.process.stderr and select.select([self.process.stderr], [], [], 0.5)[0]:
                return self.process.stderr.read1(4096).decode(errors="replace").strip().splitlines()[-1][:300]
        except (OSError, ValueError, IndexError):
            pass
        return ""

    def _receive(self, timeout: float | None) -> tuple[dict, list[int]]:
        """The template's next message; TemplateError (and the template stopped) on silence, EOF or garbage."""
        if not select.select([self.sock], [], [], timeout)[0]:
            raise TemplateError("the template did not answer in time")
        try:
            data, fds, flags, _ = socket.recv_fds(self.sock, 1 << 16, 4)
        except OSError as exc:
            raise TemplateError(f"the template's socket failed ({exc})") from None
        try:
            message = json.loads(data) if data else None
        except ValueError:
            message = None
        if not isinstance(message, dict) or flags & (socket.MSG_CTRUNC | socket.MSG_TRUNC):
            for fd in fds:
                os.close(fd)
            raise TemplateError("the template ended" if not data else "the template sent something unexpected")
        return message, fds

    def fork(self, request: dict, fds: list[int]) -> tuple[int, int]:
        """Start a run; return its pid (the init of its pid namespace, as this process sees it) and a pidfd for it.
        ``prepared`` says whether the template had forked it ahead."""
        try:
            socket.send_fds(self.sock, [json.dumps(request).encode()], fds)
            message, got = self._receive(ANSWER_SECONDS)
        except (OSError, TemplateError) as exc:
            self.stop(f"the template failed ({exc})")
            raise TemplateError(self.broken) from None
        pid = message.get("pid")
        if message.get("t") != "forked" or not isinstance(pid, int) or len(got) != 1:
            for fd in got:
                os.close(fd)
            self.stop(f"the template could not start a run: {str(message.get('message', message))[:200]}")
            raise TemplateError(self.broken)
        self.prepared = message.get("prepared") is True
        return pid, got[0]

    def report(self, pid: int, timeout: float | None) -> int | None:
        """The wait status of run ``pid`` when the template reports it within ``timeout``, else None."""
        if self.broken:
            return -1
        try:
            if not select.select([self.sock], [], [], timeout)[0]:
                return None
            message, got = self._receive(0)
        except (OSError, TemplateError) as exc:
            self.stop(f"the template failed ({exc})")
            return -1
        for fd in got:
            os.close(fd)
        status = message.get("status")
        if message.get("t") != "exited" or message.get("pid") != pid or not isinstance(status, int):
            self.stop(f"the template sent {str(message)[:100]} while a run was in progress")
            return -1
        return status

    def alive(self) -> bool:
        return not self.broken and self.process.poll() is None

    def enter(self, cgroups: tuple[str, ...]) -> None:
        """Move the template into its worker slot's cgroups, once (its memory so far stays charged where it was).

        A template is handed out for its own slot only once it is in one, so ``()`` (the run's cgroup layer could
        not be set up) leaves it where it is. A template that could not be moved is stopped: its cgroups unknown.
        """
        if cgroups and self.cgroups != cgroups:
            try:
                for path in cgroups:
                    Path(path).write_text(str(self.process.pid))
            except OSError as exc:
                self.stop(f"the template could not enter its slot's cgroups ({exc})")
                raise TemplateError(self.broken) from None
            self.cgroups = cgroups

    def forget(self) -> None:
        """Close this process's hold on a template another process serves (a forked copy of the grader, or the
        grader that forked this copy), and leave the template running."""
        self.broken = self.broken or "served by another process"
        self.sock.close()
        if isinstance(self.process, Sibling) and self.process.pidfd >= 0:
            os.close(self.process.pidfd)
            self.process.pidfd = -1

    def stop(self, why: str = "stopped") -> None:
        """Kill the template (its runs die with it: PDEATHSIG) and never use it again."""
        self.broken = self.broken or why
        try:
            self.process.kill()
        except OSError:
            pass
        self.process.wait()
        self.sock.close()


class Pool:
    """The templates of this process, shared by its sandboxes; thread-safe. A template that has entered a worker
    slot's cgroups serves that slot only; the others (``free``) serve any."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.free: list[Template] = []
        self.slots: dict[int, Template] = {}  # idle, by slot
        self.all: list[Template] = []

    def idle(self) -> list[Template]:
        with self.lock:
            return [*self.free, *self.slots.values()]

    def idle_slots(self) -> list[int]:
        """The worker slots (their indices) whose template is idle here: the slots a run should take first."""
        with self.lock:
            return [uid - slots.FIRST_UID for uid in self.slots]

    def acquire(self, config: Config, slot: int | None = None) -> Template:
        """A template for ``slot``: its own, else a free one, else (a slot another grader process took in the
        meantime) one idle in another of this process's slots, which moves to this slot's cgroups when the run
        starts: a cgroup write, where a new template costs a Python and numpy start (about 0.15 s of CPU)."""
        while True:
            with self.lock:
                template = self.slots.pop(slot, None) if slot is not None else None
                if template is None and self.free:
                    template = self.free.pop()
                if template is None and slot is not None:
                    other = next((s for s, t in self.slots.items() if t.config == config), None)
                    template = self.slots.pop(other) if other is not None else None
            if template is None:
                break
            if template.config == config and template.alive():
                try:
                    template.ready()  # one started ahead (``prestart``) may still be importing numpy
                except TemplateError:
                    continue
                return template
            template.stop()
        template = Template(config)
        with self.lock:
            self.all = [t for t in self.all if t.alive()] + [template]
        return template

    def prestart(self, config: Config, count: int = 1) -> None:
        """Start templates now, without waiting for them, until ``count`` of these settings are idle or starting
        (those serving a worker slot included): the next ``acquire`` calls take them."""
        with self.lock:
            have = sum(t.config == config for t in [*self.free, *self.slots.values()])
        need = count - have
        while need > 0:
            try:  # one Python and numpy start: the first template forks the others once it has imported numpy
                first = Template(config, wait=False, siblings=min(need - 1, MAX_SIBLINGS))
            except (OSError, TemplateError):
                return  # the sandbox finds out again, and says why, when it chooses its mode
            need -= 1 + len(first.siblings)
            with self.lock:
                self.free += [*first.siblings, first]  # the first is taken first (``pop``): it is ready first
                self.all = [t for t in self.all if t.alive()] + [first, *first.siblings]

    def release(self, template: Template, slot: int | None = None) -> None:
        if not template.alive():
            template.stop()
            return
        with self.lock:
            if template.cgroups and slot is not None and slot not in self.slots:
                self.slots[slot] = template
                return
            if not template.cgroups:
                self.free.append(template)
                return
        template.stop()  # in another slot's cgroups: of no use to anyone

    def hand_over(self, config: Config, count: int) -> list[Template | None]:
        """Before the grader forks ``count`` copies of itself: one ready template each, out of this pool (None: that
        copy starts its own). Only forked templates (``Sibling``) qualify: the first is the grader's child, which
        only the grader can wait for; their readiness is read here, before the fork, as their pids come in the
        first's ready message, on a socket that stays the grader's."""
        with self.lock:
            idle = [t for t in [*self.free, *self.slots.values()] if t.config == config]
        for template in idle:
            try:
                template.ready()
            except TemplateError:
                continue
        with self.lock:
            given = [t for t in idle if isinstance(t.process, Sibling) and t.alive()][:count]
            self.free = [t for t in self.free if t not in given]
            self.slots = {s: t for s, t in self.slots.items() if t not in given}
            self.all = [t for t in self.all if t not in given]
        return [*given, *[None] * (count - len(given))]

    def keep_only(self, template: Template | None, given: list[Template] = ()) -> None:
        """In a forked copy of the grader: serve with ``template`` alone (or none); forget (never stop) the others,
        the pool's and those ``given`` to other copies: they are other processes'."""
        with self.lock:
            others = [t for t in [*self.all, *given] if t is not template]
            self.free = [template] if template is not None else []
            self.slots, self.all = {}, [template] if template is not None else []
        for other in others:
            other.forget()

    def close(self) -> None:
        with self.lock:
            templates, self.free, self.slots, self.all = self.all, [], {}, []
        for template in templates:
            if template.process.poll() is None:
                template.stop()


POOL = Pool()
atexit.register(POOL.close)


def launch(config: Config, request: dict, inherit: tuple[int, ...], slot: int | None = None,
           cgroups: tuple[str, ...] = ()) -> tuple[Forked, int, int]:
    """Start a run from the template of worker ``slot``: (the run, channel read end, output read end).

    ``cgroups``: the slot's cgroup.procs files; the run starts in them. The child finds the command pipe on stdin,
    its output on 1 and 2, the channel on a free number given in its argv, and each inherited descriptor under the
    number it has here, as a Popen child would.
    """
    channel_number = next(n for n in range(3, 64) if n not in inherit)
    request = {**request, "t": "fork", "targets": [0, channel_number, 1, *inherit]}
    for attempt in (1, 2):  # a template that died since its last run is replaced once
        template = POOL.acquire(config, slot)
        try:
            template.enter(cgroups)
        except TemplateError:
            if attempt == 2:
                raise
            continue
        request["cgroups"] = list(template.cgroups)  # a run the template prepared in other cgroups is not used
        commands_r, commands_w = os.pipe()
        channel_r, channel_w = os.pipe()
        output_r, output_w = os.pipe()
        try:
            pid, pidfd = template.fork(request, [commands_r, channel_w, output_w, *inherit])
        except TemplateError:
            for fd in (commands_w, channel_r, output_r):
                os.close(fd)
            if attempt == 2:
                raise
            continue
        finally:
            for fd in (commands_r, channel_w, output_w):
                os.close(fd)
        return Forked(template, pid, pidfd, os.fdopen(commands_w, "wb", buffering=0), slot), channel_r, output_r
    raise AssertionError("unreachable")


def kill(process: Forked, children, wait: bool = True) -> None:
    """Kill a run: the init's children, then the init (the kernel then kills all its namespace holds); wait for the
    template's report of its end, unless ``wait`` is false (then call it again, later, to wait and free the
    template: the kernel tears the run down meanwhile)."""
    if process.poll() is None and not process.signalled:
        for pid in children(process.pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        process.kill()
        process.signalled = True
    if not wait:
        return
    process.wait()
    if process.stdin:
        try:
            process.stdin.close()
        except OSError:
            pass
    if not process.released:
        process.released = True
        POOL.release(process.template, process.slot)


def empty_cgroup(folder: Path, process: Forked, timeout: float = 5.0) -> bool:
    """``cgroups.empty_cgroup`` for a run of a template: SIGKILL all the cgroup holds but the template and the next run
    it prepared (its child, an init that has no child before its request comes; the finished run's init was reaped
    before the template reported its end, and the student's processes, in the run's pid namespace, cannot be a child
    of the template)."""
    keep = process.template.process.pid
    spared = process.spared  # what the first folder's sweep found, for the second (the same processes)
    deadline = time.monotonic() + timeout
    while True:
        pids = []
        for pid in cgroups.cgroup_pids(folder):
            if pid not in spared:
                spared[pid] = pid == keep or processes.parent(pid) == keep
            if not spared[pid]:
                pids.append(pid)
        if not pids:
            return True
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        if time.monotonic() > deadline:
            return False
        time.sleep(0.002)


def request(uid: int, python: str, prefix: str, binds: list[tuple[str, str]], etc_files: tuple[str, ...],
            tmp_bytes: int, shm_bytes: int, probe: bool = False) -> dict:
    """A run's settings: its worker uid and the root it sees (as ``bwrap.argv`` builds it).

    Read-only: ``/usr`` and the system folders (their symbolic links as links), ``etc_files``, the Python prefix
    (and the interpreter if it lives elsewhere), then ``binds`` (host path, path inside). Paths inside are the
    template's own paths for everything it imports, so that modules it has not imported yet are found.
    """
    shown, links = _system(python, prefix, etc_files)
    return {"uid": uid, "binds": [*shown, *(list(b) for b in binds)], "links": links, "tmp_bytes": tmp_bytes,
            "shm_bytes": shm_bytes, "probe": probe}


@functools.lru_cache(maxsize=8)
def _system(python: str, prefix: str, etc_files: tuple[str, ...]) -> tuple[tuple[list, ...], list]:
    shown = [["/usr", "/usr"]]
    links = []
    for name in ("lib", "lib64", "lib32", "libx32", "bin", "sbin"):
        path = f"/{name}"
        if os.path.islink(path):
            links.append([os.readlink(path), path])
        elif os.path.isdir(path):
            shown.append([path, path])
    shown += [[os.path.realpath(path), path] for path in etc_files if os.path.exists(path)]
    if not (prefix + "/").startswith("/usr/"):
        shown.append([prefix, prefix])
    if not python.startswith((prefix + "/", "/usr/")):
        shown.append([python, python])
    return tuple(shown), links


def usable(config: Config) -> str:
    """Empty when a template starts here and its probe run (namespaces, new root, worker uid) ends well; else
    why. The template stays in the pool for the first run."""
    import sys

    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        return "forking sandboxed children from a template needs Linux and root"
    if not (hasattr(os, "pidfd_open") and hasattr(signal, "pidfd_send_signal") and hasattr(socket, "send_fds")):
        return "this Python or kernel has no pidfd"
    try:
        POOL.release(POOL.acquire(config))
    except (OSError, TemplateError) as exc:
        return f"the template could not start ({exc})"
    return ""
