"""Start the child that runs student code, inside the strongest isolation this machine offers.

Layers, each closing what the others leave open (see ``../shared/notes/sandbox.md``):

* ``protocol``: expected values never enter the child; inputs go in and results come out as raw bytes on pipes;
  a scrubbed environment; a new session; the parent alone writes results and kills the process group.
* ``rlimits``: address space, CPU time, file size, open files and core dumps, set by the child on itself.

The class is the one place that knows how a child is launched; ``execute`` only sees ``spawn`` and ``kill``.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy

RUNNER_DIR = Path(__file__).resolve().parent / "runner"
MIB = 1 << 20


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
    process: subprocess.Popen
    channel: int  # read end of the child's report channel
    output: int  # read end of the child's merged stdout and stderr


class Sandbox:
    """Launch children with the layers available here. One instance serves a whole batch."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.python = os.path.realpath(sys.executable)
        self.numpy_path = str(Path(numpy.__file__).resolve().parent.parent)
        self.layers: tuple[str, ...] = ("protocol", "rlimits")
        self.warnings: tuple[str, ...] = ()

    def confine_settings(self, shared_bytes: int) -> dict:
        """What the child applies to itself; the address-space cap leaves room for mapped shared inputs."""
        limits = self.limits
        return {
            "rlimits": {
                "address_space": (limits.memory_mib + 512) * MIB + shared_bytes,
                "cpu_seconds": int(limits.submission_seconds) + 5,
                "file_size": limits.file_mib * MIB,
                "open_files": 256,
                "core": 0,
            }
        }

    def environment(self) -> dict[str, str]:
        env = {
            "PATH": "/usr/bin:/bin",
            "LANG": "C.UTF-8",
            "HOME": "/tmp",
            "TMPDIR": "/tmp",
            "OPENBLAS_NUM_THREADS": "1",
            "OMP_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONIOENCODING": "utf-8",
        }
        for name in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):  # correctness settings on some CPUs
            if name in os.environ:
                env[name] = os.environ[name]
        return env

    @property
    def numpy_path_in_child(self) -> str:
        """Where the child finds numpy (the same path unless a layer remaps the filesystem)."""
        return self.numpy_path

    def visible_path(self, path: Path) -> Path:
        """Where a file the parent prepared appears inside the child."""
        return path

    def spawn(self, readable: tuple[Path, ...] = ()) -> Launched:
        """Start a child that may read ``readable`` (shared inputs) besides Python and the runner."""
        channel_r, channel_w = os.pipe()
        output_r, output_w = os.pipe()
        try:
            argv = [self.python, "-I", "-S", "-B", str(RUNNER_DIR / "child.py"), str(channel_w)]
            process = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=output_w,
                stderr=output_w,
                env=self.environment(),
                cwd="/",
                start_new_session=True,
                pass_fds=(channel_w,),
                close_fds=True,
            )
        finally:
            os.close(channel_w)
            os.close(output_w)
        return Launched(process, channel_r, output_r)

    def kill(self, launched: Launched) -> None:
        """Kill the child's whole process group and reap it; safe to call twice."""
        process = launched.process
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            process.kill()
        except ProcessLookupError:
            pass
        process.wait()
        for fd in (launched.channel, launched.output):
            try:
                os.close(fd)
            except OSError:
                pass
        if process.stdin:
            try:
                process.stdin.close()
            except OSError:
                pass

