"""Start the child that runs student code, inside the strongest isolation this machine offers.

Layers, each closing what the others leave open (see ``../shared/notes/sandbox.md``):

* ``protocol``: expected values never enter the child; inputs go in and results come out as raw bytes on pipes;
  a scrubbed environment; a new session; a private scratch folder; the parent alone writes results and kills
  the process group.
* ``rlimits``: CPU time, file size, open files, core dumps and address space (see ``memory``), set by the child.
* ``bwrap`` (Linux, root, bubblewrap installed): new pid, net, ipc, uts and cgroup namespaces, every capability
  dropped, a read-only view of only the system libraries, the Python prefix, numpy, the runner and the shared
  inputs, size-capped tmpfs for ``/tmp`` and ``/dev/shm``; the child dies with the grader.
* ``namespaces`` (mode ``fork``; Linux, root): what ``bwrap`` gives, without starting Python and numpy per run.
  A warm template per concurrent run (``template``, ``runner/template.py``), a fresh Python with numpy imported
  that never holds anything secret, forks each child into new mount, pid, net, ipc, uts and cgroup namespaces
  and a new read-only root, where it drops to its worker uid; the template is out of its reach.
* ``worker-uid``: the child runs as an unprivileged uid of its own per worker slot (``setpriv`` inside
  bubblewrap; in fork mode, and in Landlock mode as root, ``confine`` switches, bounding set cleared), so the
  ``processes`` limit holds and nothing root-owned is readable.
* ``seccomp`` (Linux x86_64 and aarch64, fork, bwrap and landlock modes): the child refuses itself keyrings, nested
  namespaces, System V and POSIX IPC, sockets, ptrace and the mount calls (``runner/seccomp.py``).
* ``landlock`` (Linux >= 5.13, no privilege needed): the child restricts itself to reading the allow-listed
  paths and writing its scratch folder; TCP denied (ABI 4), signals and abstract sockets scoped (ABI 6).
* ``cgroup`` (cgroup v1 ``memory`` and ``pids`` writable): a cap per run on memory really used and on tasks, the
  run's peak, an exact out-of-memory verdict, and a sweep that kills whatever the run left behind.

``mode`` (or the ``GRADER_SANDBOX`` environment variable) picks them: ``auto`` takes the strongest available
(``fork``, else ``bwrap``: the same layers with a fresh Python per child), ``fork``, ``bwrap``, ``landlock`` and
``rlimits`` force a mode (and fail if it is unavailable). The class is the one place
that knows how a child is launched; ``execute`` only sees ``spawn``, ``kill`` and ``exit_report``.
"""
from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from hashlib import sha1
from pathlib import Path

from . import bwrap, cgroups, machine, processes, slots, template
from . import memory as memory_mod
from .runner import confine as runner_confine
from .runner import seccomp
from .slots import SandboxUnavailable

RUNNER_DIR = Path(__file__).resolve().parent / "runner"
MIB = 1 << 20
MODES = ("auto", "fork", "bwrap", "landlock", "rlimits")
#: Modes with namespaces and a worker uid of their own; modes where the child also confines itself.
NAMESPACED, CONFINED = ("bwrap", "fork"), ("bwrap", "fork", "landlock")
#: Where the read-only pieces appear inside bubblewrap.
CHILD_ROOT = "/opt/grader"
CHILD_SITE = f"{CHILD_ROOT}/site"
CHILD_RUNNER = f"{CHILD_ROOT}/runner"
CHILD_SHARED = f"{CHILD_ROOT}/shared"
#: Room the child needs besides the student's allowance (Python and numpy themselves, the tmpfs).
MEMORY_SLACK_MIB = 64
TMP_MIB = 64
SHM_MIB = 16
#: Files from /etc the child may need; nothing else of /etc is visible.
ETC_FILES = ("/etc/ld.so.cache", "/etc/localtime")


@dataclass(frozen=True)
class Limits:
    """Resource limits for one submission; every one of them is named in the report when it is hit."""

    call_seconds: float = 10.0
    cell_seconds: float = 30.0
    submission_seconds: float = 90.0
    memory_mib: int = 1024
    output_mib: int = 8
    file_mib: int = 16
    processes: int = 64

    def describe_memory(self) -> str:
        return _human_mib(self.memory_mib)


def _human_mib(mib: int) -> str:
    return f"{mib // 1024} GiB" if mib % 1024 == 0 else f"{mib} MiB"


@dataclass
class Launched:
    process: subprocess.Popen | template.Forked
    channel: int  # read end of the child's report channel
    output: int  # read end of the child's merged stdout and stderr
    slot: slots.Slot | None = None
    scratch: str | None = None
    oom_kills: int = 0  # the cgroup's oom_kill counter before the run
    degraded: str = ""  # a layer that could not be set up for this run, said in its result
    killed: bool = field(default=False)


landlock_abi = machine.landlock_abi  # read by the tests, and by whoever asks what the sandbox can do


#: BLAS libraries' thread counts, set to 1 in every run's environment (and in the grader's, unless set): one
#: thread per worker, never a pool spinning beside the other worker.
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def prestart(count: int = 1) -> None:
    """Start the fork sandbox's first ``count`` templates now, in the background, if this process will likely use
    them (Linux, root, ``GRADER_SANDBOX`` unset, ``auto`` or ``fork``): their Python and numpy start while the grader
    imports its own modules, and the ``Sandbox`` made later takes them (same settings) instead of starting its own.
    Call it first thing in a process that is about to grade; it never raises, and a template nobody takes is stopped
    at exit."""
    try:
        wanted = (os.environ.get("GRADER_SANDBOX") or "auto").strip().lower() in ("auto", "fork")
        if wanted and machine.is_root() and hasattr(os, "pidfd_open") and hasattr(signal, "pidfd_send_signal"):
            template.POOL.prestart(Sandbox._located()._fork_config(), count=count)
    except Exception:  # noqa: BLE001  (an optimisation only: the sandbox decides, and says why, later)
        pass


# -- the sandbox ------------------------------------------------------------------------------------------------
class Sandbox:
    """Launch children with the layers available here. One instance serves a whole batch, from many threads."""

    def __init__(self, limits: Limits, mode: str | None = None) -> None:
        self.limits = limits
        self.python, self.prefix, self.numpy_path = machine.locations()
        requested = (mode or os.environ.get("GRADER_SANDBOX") or "auto").strip().lower()
        if requested not in MODES:
            raise SandboxUnavailable(f"unknown sandbox mode {requested!r} (from --sandbox or $GRADER_SANDBOX); "
                                     f"choose one of {', '.join(MODES)}")
        warnings: list[str] = []
        self.mode = self._choose(requested, warnings)
        self.cgroups = self.mode in CONFINED and machine.probe("cgroups", cgroups.cgroups_usable)
        self.worker_uid, self.scratch_mib = False, 0  # Landlock mode as root: the slot's uid, a capped scratch
        if self.mode == "landlock":
            uid_ok, scratch_ok, notes = runner_confine.landlock_root_steps(slots.FIRST_UID + slots.SLOTS)
            self.worker_uid, self.scratch_mib = uid_ok, TMP_MIB if scratch_ok else 0
            warnings += notes
        self.seccomp = self.mode in CONFINED and machine.probe("seccomp", seccomp.supported)
        layers = ["protocol", "rlimits"]
        if self.mode in NAMESPACED:
            layers += ["bwrap" if self.mode == "bwrap" else "namespaces", "worker-uid"]
        if self.worker_uid:
            layers.append("worker-uid")
        if self.mode in CONFINED and landlock_abi() >= 1:
            layers.append(f"landlock-abi{landlock_abi()}")
        if self.seccomp:
            layers.append("seccomp")
        elif self.mode in CONFINED:
            warnings.append(seccomp.MISSING)
        if self.mode not in NAMESPACED and machine.is_root():
            layers.append("caps-dropped")
        if self.cgroups:
            layers.append("cgroup")
            machine.probe("stale-cgroups", cgroups.clean_stale_cgroups)
        elif self.mode != "rlimits" and sys.platform.startswith("linux"):
            warnings.append("No cgroup: processes left behind are found by session or uid.")
        if not self.cgroups:
            warnings.append(memory_mod.address_space_note(self.memory_limits()))
            if self.mode not in NAMESPACED and not self.worker_uid and "processes limit" not in " ".join(warnings):
                warnings.append(processes.unlimited_note(limits.processes))
        self.layers: tuple[str, ...] = tuple(layers)
        self.warnings: tuple[str, ...] = tuple(warnings)
        if self.cgroups:
            machine.probe("atexit", lambda: atexit.register(cgroups.remove_own_cgroups))
        self._ending = threading.local()  # this thread's run killed and not yet reaped (``ending_later``)

    @classmethod
    def _located(cls) -> Sandbox:
        """An instance that knows only where things are: enough for ``_fork_config`` (``prestart``)."""
        box = cls.__new__(cls)
        box.python, box.prefix, box.numpy_path = machine.locations()
        return box

    def _fork_config(self) -> template.Config:
        """How this process's templates start (the same for every sandbox of the process)."""
        return template.Config.of(self.python, self.environment("/tmp"), (self.numpy_path,),
                                  self._fork_request(slots.FIRST_UID + slots.SLOTS, ()))

    def warm(self, workers: int) -> None:
        """Fork mode: start ``workers`` templates now, in the background, so no worker's first run waits for one."""
        if self.mode == "fork":
            template.POOL.prestart(self.template_config, count=workers)

    # -- choosing the layers ------------------------------------------------------------------------------------
    def _choose(self, requested: str, warnings: list[str]) -> str:
        if requested in ("auto", "fork"):  # bwrap's layers, without a Python and numpy start per child
            self.template_config = self._fork_config()
            why = machine.probe("fork", lambda: template.usable(self.template_config))
            if not why:
                return "fork"
            if requested == "fork":
                raise SandboxUnavailable(f"the fork sandbox is unavailable: {why}")
        if requested in ("auto", "bwrap"):
            why = machine.probe("bwrap", bwrap.usable)
            if not why:
                return "bwrap"
            if requested == "bwrap":
                raise SandboxUnavailable(f"the bwrap sandbox is unavailable: {why}")
            warnings.append(f"Weaker isolation: {why}.")
        if requested in ("auto", "landlock"):
            if landlock_abi() >= 1:
                if requested == "auto":
                    warnings.append("Student code runs without namespaces (Landlock, seccomp, rlimits and the "
                                    "protocol only): install bubblewrap and run as root for full isolation.")
                return "landlock"
            if requested == "landlock":
                raise SandboxUnavailable("Landlock is not available on this kernel")
        warnings.append("Student code is NOT isolated from this machine (resource limits and the protocol only): "
                        "it can read files and reach the network the grader can. Grade untrusted code on Linux "
                        "with bubblewrap.")
        return "rlimits"

    # -- what the child sees -------------------------------------------------------------------------------------
    @property
    def numpy_path_in_child(self) -> str:
        """Where the child finds numpy (remapped inside bubblewrap)."""
        return CHILD_SITE if self.mode == "bwrap" else self.numpy_path

    def visible_path(self, path: Path) -> Path:
        """Where a file the parent prepared appears inside the child."""
        if self.mode not in NAMESPACED:
            return Path(path)
        path = Path(os.path.abspath(path))
        return Path(CHILD_SHARED) / sha1(str(path.parent).encode()).hexdigest()[:12] / path.name

    @property
    def runner_in_child(self) -> str:
        return CHILD_RUNNER if self.mode == "bwrap" else str(RUNNER_DIR)

    def _numpy_dirs(self) -> list[str]:
        """numpy and the folder of its bundled libraries (wheels put OpenBLAS next to it)."""
        return list(machine.numpy_dirs(self.numpy_path))

    def confine_settings(self, shared_bytes: int, readable: tuple[Path, ...] = ()) -> dict:
        """What the child applies to itself; the address-space cap leaves room for mapped shared inputs."""
        limits = self.limits
        rlimits = {
            "address_space": self.memory_limits(shared_bytes).address_space_bytes,
            "cpu_seconds": int(limits.submission_seconds) + 5,
            "file_size": limits.file_mib * MIB,
            "open_files": 256,
            "core": 0,
        }
        if self.mode in NAMESPACED or self.worker_uid:
            rlimits["processes"] = limits.processes  # counts the worker uid's tasks only
        settings: dict = {"rlimits": rlimits, "pdeathsig": True, "pid_namespace": self.mode in NAMESPACED,
                          "drop_caps": self.mode not in NAMESPACED and machine.is_root(), "required": True}
        settings.update(worker_uid=self.worker_uid or self.mode == "fork", scratch_mib=self.scratch_mib, seccomp=self.seccomp)  # uid: spawn
        if self.mode == "rlimits" or landlock_abi() < 1:
            return settings
        devices = ["/dev/null", "/dev/zero", "/dev/urandom", "/dev/random"]
        if self.mode == "bwrap":
            read = ["/usr", *machine.system_dirs(), *ETC_FILES, self.prefix, CHILD_ROOT]
            write = ["/tmp", "/dev/shm", "/dev/null"]
        else:
            read = ["/usr", *machine.system_dirs(), *ETC_FILES, self.prefix, str(RUNNER_DIR), *self._numpy_dirs(),
                    *(str(self.visible_path(p)) for p in readable)]
            read.append(self.numpy_path)  # listing only matters: the import system scans the folder
            write = ["/tmp", "/dev/shm", "/dev/null"] if self.mode == "fork" else ["/dev/null"]
        settings["landlock"] = {"read": read + devices, "write": write, "write_cwd": True, "required": True}
        return settings

    def environment(self, scratch: str) -> dict[str, str]:
        env = {
            "PATH": "/usr/bin:/bin",
            "LANG": "C.UTF-8",
            "HOME": scratch,
            "TMPDIR": scratch,
            **dict.fromkeys(BLAS_THREADS, "1"),
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONIOENCODING": "utf-8",
            "GRADER_PARENT": str(os.getpid()),  # tags the run's processes for sweeps and tests; nothing secret
        }
        for name in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):  # correctness settings on some CPUs
            if name in os.environ:
                env[name] = os.environ[name]
        return env

    # -- launching -----------------------------------------------------------------------------------------------
    def _bwrap_argv(self, slot: slots.Slot, readable: tuple[Path, ...]) -> list[str]:
        binds = [(source, f"{CHILD_SITE}/{Path(source).name}") for source in self._numpy_dirs()]
        binds.append((str(RUNNER_DIR), CHILD_RUNNER))
        binds += [(os.path.realpath(path), str(self.visible_path(path))) for path in readable]
        return bwrap.argv(self.python, self.prefix, binds, ETC_FILES, slot.uid, TMP_MIB * MIB, SHM_MIB * MIB)

    @contextlib.contextmanager
    def ending_later(self):
        """Within the block, a fork-mode run this thread kills is SIGKILLed only; its reaping, sweep and slot's
        release wait for this thread's next ``spawn`` or the block's end. The kernel takes 4 to 15 ms to tear a run
        down; the thread judges and writes the result meanwhile, and the slot stays its own until the run is gone."""
        self._ending.defer = True
        try:
            yield
        finally:
            self._ending.defer = False
            self.settle()

    def settle(self) -> None:
        """End (reap, sweep, free) the run this thread killed last, if ``ending_later`` left it ending."""
        launched, self._ending.run = getattr(self._ending, "run", None), None
        if launched is not None:
            self._end(launched)

    def spawn(self, readable: tuple[Path, ...] = (), inherit: tuple[int, ...] = ()) -> Launched:
        """Start a child that may read ``readable`` (shared inputs) besides Python and the runner, and that
        inherits the open descriptors ``inherit`` (the parent's shared input memory) under the same numbers."""
        self.settle()  # its slot first: this thread's run killed last holds it until it has ended
        wanted = self.mode in NAMESPACED or self.cgroups or self.worker_uid  # its idle template's slot first
        slot = slots.POOL.acquire(prefer=template.POOL.idle_slots()) if wanted else None
        scratch = None
        oom_kills = 0
        degraded = ""
        channel_r = channel_w = output_r = output_w = -1
        extra_env: dict[str, str] = {}
        try:
            if self.mode in NAMESPACED:
                cwd, child_tmp = "/", "/tmp"
            else:
                scratch = tempfile.mkdtemp(prefix="grader-scratch-")
                cwd = child_tmp = scratch
                if self.worker_uid:  # the child mounts its capped tmpfs here, or writes here, as the slot's uid
                    os.chown(scratch, slot.uid, slot.uid)
                    extra_env[runner_confine.WORKER_UID_VARIABLE] = str(slot.uid)
            prefix: list[str] = []
            if slot is not None and self.cgroups:
                try:
                    prefix, oom_kills = self._enter_cgroup(slot, readable)
                except OSError as exc:  # never fail a grade over a cgroup; rlimits and the namespaces still hold
                    prefix, oom_kills = [], 0
                    degraded = f"The cgroup layer could not be set up for this run ({exc}); the other layers held."
            if self.mode == "fork":
                cgroups = tuple(str(folder / "cgroup.procs") for folder in slot.cgroups.values()) if prefix else ()
                process, channel_r, output_r = template.launch(
                    self.template_config, self._fork_request(slot.uid, readable), inherit, slot.uid, cgroups)
                return Launched(process, channel_r, output_r, slot=slot, oom_kills=oom_kills, degraded=degraded)
            channel_r, channel_w = os.pipe()
            output_r, output_w = os.pipe()
            runner = self.runner_in_child + "/child.py"
            argv = [self.python, "-I", "-S", "-B", runner, str(channel_w)]
            pass_fds: tuple[int, ...] = (channel_w, *inherit)
            if self.mode == "bwrap":
                # The arguments go in through a pipe: the mount layout stays out of every process's cmdline.
                args_r, args_w = os.pipe()
                options = self._bwrap_argv(slot, readable)
                split = options.index("--")
                data = b"".join(a.encode() + b"\0" for a in options[1:split])
                if len(data) > 60000:
                    raise SandboxUnavailable("too many shared inputs for one sandbox")
                os.write(args_w, data)
                os.close(args_w)
                argv = ["bwrap", "--args", str(args_r), *options[split:], *argv]
                pass_fds = (channel_w, args_r, *inherit)
            process = subprocess.Popen(
                prefix + argv,
                stdin=subprocess.PIPE,
                stdout=output_w,
                stderr=output_w,
                env={**self.environment(child_tmp), **extra_env},
                cwd=cwd,
                start_new_session=True,
                pass_fds=pass_fds,
                close_fds=True,
            )
            if self.mode == "bwrap":
                os.close(args_r)
        except BaseException:
            for fd in (channel_r, output_r):
                if fd >= 0:
                    os.close(fd)
            if scratch:
                shutil.rmtree(scratch, ignore_errors=True)
            if slot is not None:
                slots.POOL.release(slot)
            raise
        finally:
            for fd in (channel_w, output_w):
                if fd >= 0:
                    os.close(fd)
        return Launched(process, channel_r, output_r, slot=slot, scratch=scratch, oom_kills=oom_kills,
                        degraded=degraded)

    def _fork_request(self, uid: int, readable: tuple[Path, ...]) -> dict:
        binds = [(d, d) for d in [*self._numpy_dirs(), str(RUNNER_DIR)]]
        binds += [(os.path.realpath(path), str(self.visible_path(path))) for path in readable]
        return template.request(uid, self.python, self.prefix, binds, ETC_FILES, TMP_MIB * MIB, SHM_MIB * MIB)

    def _enter_cgroup(self, slot: slots.Slot, readable: tuple[Path, ...]) -> tuple[list[str], int]:
        """Prepare the slot's cgroups; return the argv prefix that moves the child in before it starts."""
        cap = (self.limits.memory_mib + MEMORY_SLACK_MIB) * MIB  # input files: charged to the grader that wrote them
        return cgroups.enter(slot, cap, self.limits.processes + 8)

    def kill(self, launched: Launched) -> None:
        """Kill the child and everything it started, reap it, free its slot (within ``ending_later``, in fork
        mode: kill it, and leave the rest to ``settle``); safe to call twice."""
        if self.mode == "fork" and getattr(self._ending, "defer", False) and not launched.killed:
            self.settle()
            template.kill(launched.process, processes.children, wait=False)
            _close_ends(launched)
            self._ending.run = launched
            return
        self._end(launched)

    def _end(self, launched: Launched) -> None:
        process = launched.process
        if self.mode == "fork":  # the init's children, then the init (never by pid once the template reaped it)
            template.kill(process, processes.children)
        if self.mode == "bwrap" and process.poll() is None:
            # Kill bubblewrap's init inside the namespace first (the kernel then kills everything in it) and let
            # the outer bwrap reap it; killing the outer one first would leave the init a zombie of the host's pid 1.
            for pid in processes.children(process.pid):
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            try:
                process.wait(timeout=0.5)
            except subprocess.TimeoutExpired:
                pass
        try:
            if self.mode != "fork":
                os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            process.kill()
        except ProcessLookupError:
            pass
        process.wait()
        _close_ends(launched)
        if launched.killed:
            return
        launched.killed = True
        slot = launched.slot
        if slot is not None:
            if slot.cgroups:  # in fork mode, the slot's template stays (it holds no run's anything)
                for folder in (slot.cgroups["pids"], slot.cgroups["memory"]):
                    template.empty_cgroup(folder, process) if self.mode == "fork" else cgroups.empty_cgroup(folder)
            if self.mode in NAMESPACED or self.worker_uid:
                # always, though the cgroups were emptied: skipping it when they were (to save about 1 ms a run)
                # once left a hostile run's process alive after its protocol error in fork mode
                processes.sweep_uid(slot.uid)  # the uid is free again before the slot is
            slots.POOL.release(slot)
        if launched.scratch:
            shutil.rmtree(launched.scratch, ignore_errors=True)

    def exit_cause(self, launched: Launched, code: int) -> tuple[int, bool]:
        """(signal that ended the child or 0, whether the cgroup's out-of-memory killer did it)."""
        signum = -code if code < 0 else 0
        if self.mode == "bwrap" and code > 128:
            signum = code - 128  # bubblewrap reports a child killed by signal n as exit code 128 + n
        folder = self._memory_cgroup(launched)
        oom = folder is not None and cgroups.read_counter(folder / "memory.oom_control", "oom_kill") > launched.oom_kills
        return signum, oom

    def exit_report(self, launched: Launched, code: int) -> memory_mod.ExitReport:
        """Why the child ended on its own, the limit it hit and by how much (call it before ``kill``)."""
        signum, oom = self.exit_cause(launched, code)
        peak, refused = memory_mod.cgroup_usage(self._memory_cgroup(launched))
        return memory_mod.exit_report(code, signum, self.memory_limits(), oom_killed=oom, over_limit=refused,
                                      memory_used=peak, cgroup=bool(self.cgroups),
                                      cpu_seconds=self.limits.submission_seconds)

    def peak_memory(self, launched: Launched) -> int | None:
        """The most memory the run has used (its cgroup's peak), or None where no cgroup measures it."""
        return memory_mod.cgroup_usage(self._memory_cgroup(launched))[0]

    def memory_limits(self, shared_bytes: int = 0) -> memory_mod.MemoryLimits:
        """What a run's memory is measured against; ``shared_bytes``: the input files the child maps."""
        return memory_mod.MemoryLimits.of(self.limits.memory_mib, shared_bytes, cgroup=bool(self.cgroups))

    @staticmethod
    def _memory_cgroup(launched: Launched) -> Path | None:
        slot = launched.slot
        return slot.cgroups["memory"] if slot is not None and slot.cgroups and not launched.degraded else None

    def close(self) -> None:
        """Remove this process's idle cgroups (slots keep theirs across runs until then)."""
        if self.cgroups:
            cgroups.remove_own_cgroups()


def _close_ends(launched: Launched) -> None:
    """Close the parent's ends of the run's pipes (again is harmless)."""
    for fd in (launched.channel, launched.output):
        if fd >= 0:
            try:
                os.close(fd)
            except OSError:
                pass
    launched.channel = launched.output = -1
    if launched.process.stdin:
        try:
            launched.process.stdin.close()
        except OSError:
            pass
