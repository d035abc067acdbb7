"""In-process confinement the child applies to itself before any student code runs.

The parent decides the settings (``grader.sandbox``); this module only applies them, with the standard library.
Every layer is best effort where the platform lacks it, and the parent is told which ones took hold through
the ``confine`` message the child sends first.
"""
from __future__ import annotations

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
    return applied
