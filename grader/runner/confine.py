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
