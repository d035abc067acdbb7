"""The warm template: numpy and the runner imported once, then one fresh, fully sandboxed child forked per run.

Started by the grader (``grader/template.py``), never forked from it (the grader holds the course secret and the
expected values; this process never sees either), as ``python -I -S -B -c LAUNCHER template.py SOCKET_FD PATH...``
(the launcher runs this file from its cached bytecode) with the child's clean environment. It makes itself
non-dumpable and a child subreaper, starts a probe run with the settings of the grader's first message (no student
code; in parallel with what follows), imports numpy and the runner's modules, says ``ready`` with the probe's wait
status and then serves the grader on its end of a Unix socketpair, which nothing else holds.

A request is a JSON message with the run's descriptors attached (command pipe, channel, output, the inputs'
shared memory) and its settings (worker uid, what to bind read-only, tmpfs sizes). Per request:

* the template forks the run's *init*, pid 1 of a new pid namespace (``unshare(CLONE_NEWPID)`` for its next child
  only, then ``setns`` back to its own), in the worker slot's cgroups, where the grader put the template. The init
  dies with the template (PDEATHSIG; it stops if the template was gone before that took hold), starts a new
  session, keeps only the run's descriptors (moved to the numbers the child expects) and a status pipe, makes the
  run the out-of-memory killer's first choice, ``unshare``s new mount, network, IPC, UTS and cgroup namespaces,
  builds the new root (``rootfs``), empties its bounding set, forks the *runner*, closes every descriptor but the
  status pipe, drops every capability it holds, reaps, and writes the runner's wait status into the pipe. When it
  ends, the kernel kills whatever is left in the namespace;
* the runner starts its own session, tags itself as a run of the grader (``GRADER_PARENT``, what a fresh child
  has in its environment; its random generators were seeded afresh by the template just before it forked this
  run), and enters ``child.main``: the same path as a fresh child, so ``confine`` drops it to the worker uid
  (bounding set cleared, no_new_privs), then sets PDEATHSIG, rlimits, Landlock and seccomp before any student code
  runs.

Once a run has ended, the template forks the slot's next one ahead (``Prepared``): the init is there and the
root is put together but for the run's own inputs; a request that fits is handed to that init with the run's
descriptors, and the host's root is detached once those inputs are bound. Either way, no student code runs before
the host's root is gone and every step above is done.

The template reaps the init and reports ``{"t": "exited", "pid": init, "status": wait status}``: the runner's, from
the status pipe, or the init's own if it ended first (killed). Nothing of a run comes back into the template: every
run is forked from the same clean process. A run cannot reach the template either: it sees another pid
namespace, runs as another uid without capabilities, holds none of its descriptors, and the template is not
dumpable (no ptrace, no /proc/PID/mem), besides what seccomp and Landlock deny.
"""
from __future__ import annotations

import json
import os
import select
import signal
import socket
import sys

_here = os.path.dirname(os.path.abspath(__file__))
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER = 1, 4, 36
CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x02000000, 0x04000000, 0x08000000
CLONE_NEWPID, CLONE_NEWNET = 0x20000000, 0x40000000
NAMESPACES = CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWPID | CLONE_NEWNET
#: The environment entry the template starts with, renamed in place in each runner's environment block.
TAG, RUN_TAG = b"GRADER_FORKER=", b"GRADER_PARENT="
MAX_FDS = 16
FAILED = 71


class Prepared:
    """A run forked ahead of its request, once the previous one has ended: the init is there, the new root is put
    together but for the run's own inputs, and the init waits on ``control`` for the request and the run's
    descriptors. It costs the request nothing but a message."""

    def __init__(self, pid: int, control: socket.socket, cgroups: list) -> None:
        self.pid, self.control, self.cgroups = pid, control, cgroups
        self.pidfd = os.pidfd_open(pid)

    def fits(self, request: dict, base: dict) -> bool:
        return (request.get("cgroups") == self.cgroups and request.get("links") == base.get("links")
                and request.get("tmp_bytes") == base["tmp_bytes"] and request.get("shm_bytes") == base["shm_bytes"]
                and all(bind in request["binds"] for bind in base["binds"]))

    def discard(self) -> None:
        try:
            signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
        except OSError:
            pass
        self.close()

    def close(self) -> None:
        self.control.close()
        if self.pidfd >= 0:
            os.close(self.pidfd)
            self.pidfd = -1


class Template:
    def __init__(self, sock: socket.socket) -> None:
        import syscalls

        self.sock = sock
        self.pid = os.getpid()
        self.runs: set[int] = set()
        self.tag = syscalls.environ_entry(TAG)
        self.wake_r, self.wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        self.base: dict | None = None  # the settings every run shares (the probe's): what a prepared run has
        self.cgroups: list | None = None  # the cgroups the last request said the template is in
        self.prepared: Prepared | None = None
        self.siblings: list[int] = []  # sockets of the templates to fork once ready (from the probe message)
        self.status: dict[int, int] = {}  # an init's pid: the read end of its status pipe
        self.pid_ns = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)  # where its next child goes back to
        self.alive = os.pidfd_open(self.pid)  # readable once it has ended: an init checks it after its PDEATHSIG

    def send(self, message: dict, fds: list[int] = ()) -> None:
        socket.send_fds(self.sock, [json.dumps(message).encode()], list(fds))

    def start_probe(self) -> int:
        """Fork a run with the grader's first message as settings and no student code: namespaces, new root,
        worker uid. Started before numpy is imported, so that both use the machine at once."""
        data, fds, _, _ = socket.recv_fds(self.sock, 1 << 16, MAX_FDS)
        message = json.loads(data)
        if not isinstance(message, dict) or message.get("t") != "probe":
            raise ValueError("the grader's first message is not a probe")
        siblings = message.pop("siblings", 0)
        if not isinstance(siblings, int) or len(fds) != siblings:
            raise ValueError("the grader's probe came with other descriptors than the templates to fork")
        self.siblings = fds  # a socket for each template to fork once this one is ready
        self.base = message
        null, said = os.open(os.devnull, os.O_RDWR), os.dup(2)  # what the probe says goes to our stderr
        try:
            return self.fork({**message, "probe": True, "targets": [0, 3, 1]}, [null, null, said])
        finally:
            os.close(null)
            os.close(said)

    def serve(self, probe: int) -> None:
        _, status = os.waitpid(probe, 0)
        status = self.ended(probe, status)
        siblings, self.siblings = self.siblings, []
        forked = []
        if status == 0 and siblings:
            _warm()  # once, for them too
            forked = [self.fork_sibling(fd, siblings, status) for fd in siblings]
        for fd in siblings:
            os.close(fd)
        self.ready(status, forked)

    def fork_sibling(self, fd: int, siblings: list[int], status: int) -> int:
        """Fork another template, serving the grader on socket ``fd``: a copy of this one before it has served
        anything (no run, no prepared run, no cgroups yet), with a session, a wake-up pipe and handles of its own."""
        pid = os.fork()
        if pid:
            return pid
        try:
            import syscalls

            for other in siblings:
                if other != fd:
                    os.close(other)
            self.sock.close()
            os.close(self.wake_r)
            os.close(self.wake_w)
            os.close(self.alive)
            os.setsid()
            syscalls.prctl(PR_SET_CHILD_SUBREAPER, 1)  # not inherited
            self.pid = os.getpid()
            self.alive = os.pidfd_open(self.pid)
            self.wake_r, self.wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
            self.sock = socket.socket(fileno=fd)
            self.ready(status, [])
        finally:
            os._exit(0)

    def ready(self, status: int, siblings: list[int]) -> None:
        """Say ``ready`` (with the probe's wait status and the pids of the templates forked), then serve."""
        signal.set_wakeup_fd(self.wake_w)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        self.send({"t": "ready", "pid": self.pid, "probe": status, "siblings": siblings})
        if not select.select([self.sock], [], [], 0)[0]:
            _warm()  # while the grader prepares its first run
        try:
            while True:
                readable = select.select([self.sock, self.wake_r], [], [])[0]
                if self.wake_r in readable:
                    self.reap()
                if self.sock in readable and not self.request():
                    break
        finally:
            for pid in self.runs:  # the grader is gone: so are its runs (they would die with us anyway)
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            if self.prepared is not None:
                self.prepared.discard()

    def reap(self) -> None:
        try:
            while os.read(self.wake_r, 512):
                pass
        except BlockingIOError:
            pass
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            status = self.ended(pid, status)
            if pid in self.runs:  # any other child is a prepared run's init, or one handed over then discarded
                self.runs.discard(pid)
                self.send({"t": "exited", "pid": pid, "status": status})
                if not self.runs:
                    self.prepare()
            elif self.prepared is not None and pid == self.prepared.pid:
                self.prepared.close()
                self.prepared = None

    def ended(self, pid: int, status: int) -> int:
        """The wait status of init ``pid``'s run, reaped with ``status``: its runner's, if the init wrote it."""
        fd = self.status.pop(pid, None)
        if fd is None:
            return status
        try:
            data = os.read(fd, 32)
        except OSError:
            data = b""
        finally:
            os.close(fd)
        return int(data) if data.strip().isdigit() else status

    def prepare(self) -> None:
        """Fork the next run ahead (only once a run has ended: the grader has put the template in its cgroups)."""
        if self.prepared is not None or self.base is None or self.cgroups is None:
            return
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            pid = self.fork(self.base, [], theirs.fileno(), (ours, theirs))
        except OSError:
            ours.close()
            return
        finally:
            theirs.close()
        self.prepared = Prepared(pid, ours, self.cgroups)

    def request(self) -> bool:
        """Serve one message of the grader; False when the template must stop (the grader closed, or spoke wrong)."""
        try:
            data, fds, flags, _ = socket.recv_fds(self.sock, 1 << 16, MAX_FDS)
        except OSError:
            return False
        try:
            message = json.loads(data) if data and not flags & (socket.MSG_CTRUNC | socket.MSG_TRUNC) else None
            if not isinstance(message, dict) or message.get("t") != "fork":
                return False
            if len(message.get("targets", ())) != len(fds) or len(fds) < 3:
                return False
            pid = self.hand_over(message, fds)
            prepared = pid is not None
            if pid is None:
                try:
                    pid = self.fork(message, fds)
                except OSError as exc:
                    self.send({"t": "error", "message": str(exc)[:300]})
                    return True
            self.runs.add(pid)
            self.cgroups = message.get("cgroups", [])
            pidfd = os.pidfd_open(pid)  # an exact handle for the grader: the pid is not reaped before it has it
            try:
                self.send({"t": "forked", "pid": pid, "prepared": prepared}, [pidfd])
            finally:
                os.close(pidfd)
            return True
        except (ValueError, TypeError):
            return False
        finally:
            for fd in fds:
                os.close(fd)

    def hand_over(self, request: dict, fds: list[int]) -> int | None:
        """Give the request to the prepared run when it fits (its init's pid), else None."""
        prepared, self.prepared = self.prepared, None
        if prepared is None:
            return None
        if prepared.fits(request, self.base):
            extra = [bind for bind in request["binds"] if bind not in self.base["binds"]]
            try:
                socket.send_fds(prepared.control, [json.dumps({**request, "extra": extra}).encode()], fds)
                prepared.close()
                return prepared.pid
            except OSError:
                pass
        prepared.discard()
        return None

    def fork(self, request: dict, fds: list[int], control: int = -1, sockets: tuple = ()) -> int:
        """Fork a run's init into a new pid namespace: with the run's descriptors, or prepared ahead (``control``:
        where it will get them).

        ``sockets``: socket objects alive in the caller's frames, detached in the run like ``self.sock``: their
        numbers are closed there, and no object of the template's may still claim one (a run could close it)."""
        import syscalls

        _reseed()  # here, for this run alone: its init and runner inherit the state and never write those pages
        status_r, status_w = os.pipe2(os.O_CLOEXEC | os.O_NONBLOCK)
        pid = -1
        try:
            syscalls.call(syscalls.libc().unshare(CLONE_NEWPID), "unshare")  # for the next child only
            pid = os.fork()
        finally:
            if pid != 0:  # later children in its own pid namespace again, or none could start: the template ends
                if syscalls.libc().setns(self.pid_ns, CLONE_NEWPID) != 0:
                    os._exit(FAILED)  # (its runs die with it)
                os.close(status_w)
                if pid < 0:
                    os.close(status_r)
        if pid:
            self.status[pid] = status_r
            return pid
        try:
            for sock in (self.sock, *sockets):
                sock.detach()
            _init(self, request, fds, control, status_w)
        except BaseException as exc:  # noqa: BLE001 (nothing may return into the template's loop)
            try:
                os.write(2, f"grader sandbox: {exc}\n".encode(errors="replace"))
            finally:
                os._exit(FAILED)
        os._exit(FAILED)


def _init(template: Template, request: dict, fds: list[int], control: int, status_w: int) -> None:
    """Pid 1 of the run's pid namespace: enters the other namespaces, builds the root, starts the runner, reaps,
    reports the runner's end into ``status_w``.

    Prepared ahead (``control``), it puts the root together, then waits for the request, the run's descriptors
    and its own inputs to bind (``extra``) before it detaches the host's root and starts the runner.
    """
    import confine
    import rootfs
    import syscalls

    syscalls.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL))
    if select.select([template.alive], [], [], 0)[0]:
        os._exit(FAILED)  # the template ended before PDEATHSIG took hold (the parent's pid is 0 from here)
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    os.setsid()
    if control < 0:
        targets = [int(t) for t in request["targets"]]
        status_w = syscalls.above(status_w, targets)
        syscalls.place(fds, targets, keep=(status_w,))
    else:  # prepared ahead: nothing but the control socket until the request comes, stdio on /dev/null
        syscalls.close_all_but([control, status_w])
        null = os.open(os.devnull, os.O_RDWR)
        for number in (0, 1, 2):
            if number != null:
                os.dup2(null, number)
    adj = os.open("/proc/self/oom_score_adj", os.O_WRONLY | os.O_CLOEXEC)
    os.write(adj, b"1000")  # the run's processes die before the template, if need be (a failure ends the init)
    os.close(adj)
    syscalls.call(syscalls.libc().unshare(NAMESPACES & ~CLONE_NEWPID), "unshare")
    rootfs.prepare(request["binds"], request.get("links", []), request["tmp_bytes"], request["shm_bytes"])
    if control >= 0:
        waiting = socket.socket(fileno=control)
        data, fds, flags, _ = socket.recv_fds(waiting, 1 << 16, MAX_FDS)
        waiting.detach()  # closed with the rest below
        if not data or flags & (socket.MSG_CTRUNC | socket.MSG_TRUNC):
            os._exit(FAILED)  # the template is gone, or spoke wrong
        request = json.loads(data)
        targets = [int(t) for t in request["targets"]]
        status_w = syscalls.above(status_w, targets)
        syscalls.place(fds, targets, keep=(status_w,))
    rootfs.finish(request.get("extra", []))
    channel = int(request["targets"][1])
    confine.clear_bounding_set()  # before the fork: neither can gain a capability by exec (the runner drops the rest)
    runner = os.fork()
    if runner == 0:
        os.close(status_w)
        _runner(template, request, channel)
    syscalls.close_all_but([status_w])
    if not confine.drop_held():  # this process only waits: it keeps uid 0, and no capability at all
        os._exit(FAILED)
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:
            os._exit(FAILED)
        if pid == runner:
            os.write(status_w, str(status).encode())
            os._exit(0)


def _runner(template: Template, request: dict, channel: int) -> None:
    """The process that runs the student's code, through the same path as a freshly started child."""
    import child
    import confine

    try:
        os.setsid()
        if template.tag:  # the tag a fresh child carries: sweeps and tests find the run's processes by it
            import ctypes

            ctypes.memmove(template.tag, RUN_TAG, len(RUN_TAG))
            os.environ.pop(TAG[:-1].decode(), None)
            os.environ[RUN_TAG[:-1].decode()] = ctypes.string_at(template.tag).decode().partition("=")[2]
        os.environ[confine.WORKER_UID_VARIABLE] = str(int(request["uid"]))
        os.chdir("/tmp")
        sys.argv = [os.path.join(_here, "child.py"), str(channel)]
        child.fresh_std_streams()
        if request.get("probe"):
            confine.become(int(request["uid"]))
            os._exit(0)
        child.main()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except BaseException:  # noqa: BLE001
            pass
        os._exit(0)  # never wait for the student's threads, never return into the template's code


def _reseed() -> None:
    """Generators seeded once in the template would give every run the same numbers: the template seeds them afresh
    from the kernel's random words just before it forks each run, so each run starts from a state of its own.

    Done in the run, the seeding cost it about 0.7 ms of CPU, mostly copying the template's pages it wrote (numpy's
    generator objects); in the template, whose pages are mostly its own again by then, about 0.25 ms. numpy's global generator gets
    a whole Mersenne Twister state's worth of random words (624), as ``random.seed()`` does (``np.random.seed()``
    draws 128 bits through a ``SeedSequence``, in Python code)."""
    if "numpy.random" in sys.modules:
        numpy = sys.modules["numpy"]
        sys.modules["numpy.random"].seed(numpy.frombuffer(os.urandom(624 * 4), dtype=numpy.uint32))
    if "random" in sys.modules:
        sys.modules["random"].seed()


def _warm() -> None:
    """Import what many runs import but none needs to start (numpy.random: 14 ms), and freeze it with the rest."""
    import gc

    if "numpy.random" not in sys.modules:
        import numpy.random  # noqa: F401

        gc.freeze()


def main() -> None:
    sock_fd = int(sys.argv[1])
    sys.path[:0] = [_here, *sys.argv[2:]]
    os.umask(0o022)
    import resource

    import syscalls

    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    syscalls.prctl(PR_SET_DUMPABLE, 0)
    syscalls.prctl(PR_SET_CHILD_SUBREAPER, 1)
    import confine

    confine.clear_bounding_set()  # once, for every run (it never execs: it keeps what it holds, and uses it)
    template = Template(socket.socket(fileno=sock_fd))
    probe = template.start_probe()

    import numpy  # noqa: F401  (the point of the template: imported once, shared by every run)
    import alarms  # noqa: F401  (child.main imports these, and kernel the rest of the child's modules)
    import child  # noqa: F401
    import kernel  # noqa: F401
    import landlock
    import rootfs
    import rows  # noqa: F401  (child.main imports it before student code, so that no student file takes its name)
    import seccomp
    import standins  # noqa: F401
    import wire  # noqa: F401

    import ctypes  # noqa: F401  (and what a run imports on its way to student code, imported once here)
    import fcntl  # noqa: F401
    import mmap  # noqa: F401
    import platform
    import struct  # noqa: F401

    # and what every run would load for itself (the C library, the seccomp filter), loaded once here: not once per
    # run, in memory the run would copy to write it
    platform.machine()  # cached by platform
    confine.capset_arguments(), rootfs._c(), landlock.abi_version()
    if seccomp.machine() in seccomp.AUDIT_ARCH:
        seccomp.compiled()
    import gc

    gc.freeze()  # what is here now is never collected: runs do not touch (and copy) its pages to scan it
    template.serve(probe)


if __name__ == "__main__":
    main()
