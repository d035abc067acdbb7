"""In-process confinement the child applies to itself before any student code runs.

The parent decides the settings (``grader.sandbox``); this module only applies them, with the standard library.
Every layer is best effort where the platform lacks it; the parent already knows which layers the machine has
(``Sandbox.layers``) and a layer that was asked for but did not take hold makes the child stop (``required``).
"""
from __future__ import annotations

import os
import sys

try:
    import resource
except ImportError:  # not on Windows
    resource = None

_LIMITS = {
    "address_space": "RLIMIT_AS",
    "cpu_seconds": "RLIMIT_CPU",
    "file_size": "RLIMIT_FSIZE",
    "open_files": "RLIMIT_NOFILE",
    "processes": "RLIMIT_NPROC",
    "core": "RLIMIT_CORE",
}
PR_SET_PDEATHSIG = 1


def apply(settings: dict) -> list[str]:
    applied = []
    if resource is not None:
        for key, value in settings.get("rlimits", {}).items():
            name = _LIMITS.get(key)
            if name is None or not hasattr(resource, name):
                continue
            which = getattr(resource, name)
            try:
                _, hard = resource.getrlimit(which)
                value = int(value)
                if hard != resource.RLIM_INFINITY:
                    value = min(value, hard)
                resource.setrlimit(which, (value, value))
                applied.append(key)
            except (ValueError, OSError):
                pass
    if settings.get("pdeathsig") and sys.platform.startswith("linux"):
        # Set after any uid switch (the kernel clears it then): die with the process that started us.
        try:
            import ctypes
            import signal

            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
            if os.getppid() == 1 and not settings.get("pid_namespace"):
                os._exit(70)  # the grader is already gone
            applied.append("pdeathsig")
        except (OSError, AttributeError):
            pass
    if settings.get("drop_caps") and sys.platform.startswith("linux"):
        if _drop_capabilities():
            applied.append("caps-dropped")
        elif settings.get("required"):
            os.write(2, b"grader sandbox: capabilities could not be dropped\n")
            os._exit(71)
    rules = settings.get("landlock")
    if rules:
        import landlock  # noqa: E402  (next to this file, in the runner folder)

        write = list(rules.get("write", ()))
        if rules.get("write_cwd"):
            write.append(os.getcwd())
        try:
            landlock.restrict(list(rules.get("read", ())), write, deny_tcp=True, scope=True)
            applied.append("landlock")
        except OSError as exc:
            if rules.get("required"):
                os.write(2, f"grader sandbox: Landlock could not be applied ({exc})\n".encode())
                os._exit(71)
    return applied


def _drop_capabilities() -> bool:
    """A root child without bubblewrap keeps uid 0 but loses every capability, for good (bounding set too)."""
    try:
        import ctypes
        import struct

        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
        PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS, SYS_CAPSET = 24, 38, 126
        for cap in range(64):
            if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 and ctypes.get_errno() == 22:  # EINVAL: past the last
                break
        header = ctypes.create_string_buffer(struct.pack("=Ii", 0x20080522, 0), 8)  # _LINUX_CAPABILITY_VERSION_3
        data = ctypes.create_string_buffer(b"\0" * 24, 24)  # effective, permitted, inheritable: none
        if libc.syscall(SYS_CAPSET if _x86_64() else 91, header, data) != 0:
            return False
        libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        with open("/proc/self/status") as status:
            return all(line.split()[1].strip("0") == "" for line in status
                       if line.startswith(("CapEff", "CapPrm", "CapBnd")))
    except (OSError, AttributeError, IndexError):
        return False


def _x86_64() -> bool:
    import platform

    return platform.machine() == "x86_64"
