"""The grader's version, as results, bundles and ``grader --version`` state it."""
from __future__ import annotations


def version() -> str:
    """The installed distribution's version (the checkout's pyproject.toml when it is not installed)."""
    try:
        from importlib.metadata import PackageNotFoundError, version as installed

        return installed("grader")
    except (ImportError, PackageNotFoundError):
        from . import __version__

        return __version__
