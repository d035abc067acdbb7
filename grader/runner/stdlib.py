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


def own_builtins() -> dict:
    """The builtins as they are now, copied: what a runner module takes as its own ``__builtins__`` while it is
    imported, before any student code runs and before it defines a function (a function keeps the builtins of its
    module's globals as they are when it is made).

    Student code shares the builtins module with the runner and may change it (``builtins.type = ...``,
    ``builtins.len = ...``). Read from the shared module, a ``type`` that called a returned ``ndarray`` subclass
    an ``ndarray`` made the child claim an exact ndarray (the type point, for a subclass), and a ``len`` that lied
    made the child's own frame header wrong, which the parent could only call writing on its channel. A runner
    module with its own copy keeps computing with the real ones; the student's code still sees its changes."""
    import builtins

    return dict(vars(builtins))
