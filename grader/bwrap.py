"""The bubblewrap command line of one child: what it sees, read-only, and the worker uid it runs as.

Kept apart from ``sandbox`` because it is pure: given the paths to show and the uid, it returns the argv. The
traps it avoids are in ``../shared/notes/sandbox.md``: every capability dropped but the three ``setpriv`` needs
to switch uid (and drops right after), missing parents of a bind created 0755 rather than bubblewrap's 0700.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path


def usable() -> str:
    """Empty when bubblewrap with a worker uid works here, else why not."""
    if not sys.platform.startswith("linux"):
        return "bubblewrap needs Linux"
    if os.geteuid() != 0:
        return "the grader does not run as root, so it cannot give the child a worker uid"
    for tool in ("bwrap", "setpriv"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (apt-get install bubblewrap)"
    try:
        done = subprocess.run(
            ["bwrap", "--cap-drop", "ALL", "--unshare-pid", "--unshare-net", "--ro-bind", "/", "/",
             "--proc", "/proc", "--dev", "/dev", "true"],
            capture_output=True, timeout=20, env={"PATH": "/usr/bin:/bin"},
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap could not start ({exc})"
    if done.returncode != 0:
        return f"bubblewrap could not create namespaces ({done.stderr.decode(errors='replace').strip()[:200]})"
    return ""


def argv(python: str, prefix: str, binds: list[tuple[str, str]], etc_files: tuple[str, ...], uid: int,
         tmp_bytes: int, shm_bytes: int) -> list[str]:
    """bwrap's options, then ``--``, then setpriv's, then ``--``: the caller appends the command."""
    argv = ["bwrap", "--cap-drop", "ALL"]
    argv += [arg for cap in ("CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP") for arg in ("--cap-add", cap)]
    argv += ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
             "--die-with-parent", "--new-session", "--hostname", "sandbox"]
    made: set[str] = {"/"}

    def mkdirs(path: str) -> None:  # bubblewrap would create missing parents with mode 0700
        parts = Path(path).parts
        for depth in range(2, len(parts) + 1):
            folder = str(Path(*parts[:depth]))
            if folder not in made:
                made.add(folder)
                argv.extend(["--perms", "0755", "--dir", folder])

    def ro_bind(source: str, target: str) -> None:
        mkdirs(str(Path(target).parent))
        argv.extend(["--ro-bind", source, target])
        made.add(target)

    ro_bind("/usr", "/usr")
    for name in ("lib", "lib64", "lib32", "libx32", "bin", "sbin"):
        path = f"/{name}"
        if os.path.islink(path):
            argv.extend(["--symlink", os.readlink(path), path])
        elif os.path.isdir(path):
            ro_bind(path, path)
    for path in etc_files:
        if os.path.exists(path):
            ro_bind(os.path.realpath(path), path)
    if not (prefix + "/").startswith("/usr/"):
        ro_bind(prefix, prefix)
    if not python.startswith((prefix + "/", "/usr/")):
        ro_bind(python, python)
    for source, target in binds:
        ro_bind(source, target)
    argv += ["--proc", "/proc", "--dev", "/dev"]
    argv += ["--perms", "01777", "--size", str(tmp_bytes), "--tmpfs", "/tmp"]
    argv += ["--perms", "01777", "--size", str(shm_bytes), "--tmpfs", "/dev/shm"]
    argv += ["--remount-ro", "/", "--chdir", "/tmp", "--"]
    argv += ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--inh-caps=-all",
             "--bounding-set=-all", "--no-new-privs", "--"]
    return argv
