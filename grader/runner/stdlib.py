"""The standard library's modules, imported past the student's own files.

The runner imports some of the standard library only when a cell first needs it (``asyncio`` for a top-level
``await``, ``re`` for ``%reset_selective``...). By then the working folder, where ``%%writefile`` puts the student's
files, is first on ``sys.path``; a student's ``logging.py`` must not be what those modules get.
"""
from __future__ import annotations

import os
import sys


#: the modules loaded before any student code ran (``own_builtins`` takes them as each runner module is imported),
#: and those ``load`` imported since, by name: what ``load`` gives. Looked up in ``sys.modules`` at each use, the
#: runner got what a student's cell left there: after ``sys.modules['linecache'] = None`` or ``sys.modules.clear()``
#: every later cell failed before its first line (storing its source for tracebacks), so a right function defined
#: below was never defined (0/17), where Jupyter, whose modules hold their own references, runs it
_KEPT: dict = {}


def load(name: str):
    """The standard library's module ``name``, imported now if it must be: the working folder, which ``%%writefile``
    puts first on ``sys.path``, is left out while it is, so that a student's ``logging.py`` is not what asyncio gets
    (in Jupyter these are loaded before any cell runs)."""
    kept = _KEPT.get(name)
    if kept is not None:
        return kept
    if name in sys.modules:
        return sys.modules[name]
    import importlib

    here = os.path.realpath(os.getcwd())
    saved = sys.path[:]
    sys.path[:] = [p for p in saved if p and os.path.realpath(p) != here]
    try:
        _KEPT[name] = module = importlib.import_module(name)
        return module
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
    module with its own copy keeps computing with the real ones; the student's code still sees its changes. The
    modules loaded so far are kept too, for ``load``."""
    import builtins

    _KEPT.update((name, module) for name, module in list(sys.modules.items()) if module is not None)
    return dict(vars(builtins))
