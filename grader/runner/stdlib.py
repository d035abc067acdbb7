"""The standard library's modules, imported past the student's own files.

The runner imports some of the standard library only when a cell first needs it (``asyncio`` for a top-level
``await``, ``re`` for ``%reset_selective``...). By then the working folder, where ``%%writefile`` puts the student's
files, is first on ``sys.path``; a student's ``logging.py`` must not be what those modules get.
"""
from __future__ import annotations

import os
import sys


def load(name: str):
    """The standard library's module ``name``, imported now if it must be: the working folder, which ``%%writefile``
    puts first on ``sys.path``, is left out while it is, so that a student's ``logging.py`` is not what asyncio gets
    (in Jupyter these are loaded before any cell runs)."""
    if name in sys.modules:
        return sys.modules[name]
    import importlib

    here = os.path.realpath(os.getcwd())
    saved = sys.path[:]
    sys.path[:] = [p for p in saved if p and os.path.realpath(p) != here]
    try:
        return importlib.import_module(name)
    finally:
        sys.path[:] = saved
