"""Import an exercise folder's Python files as one private package per folder, so folders never share modules.

Why a package per folder: the module names used to be the exercise id (``_grader_cases_<id>``), and
``sys.modules`` returned the first folder's ``cases.py`` to every later folder with the same id (a copy with
edited cases in a temporary folder, a test fixture, an instructor's draft beside the course's exercises). Now the
folder's files are submodules of a package whose name is derived from the resolved folder and the content of its
``*.py`` files:

* two folders, even with one id and identical files, get two packages and never share a module;
* loading the same unchanged folder again finds the package in ``sys.modules``: nothing is executed twice;
* an edited file gives the folder a new package, so the edit is seen and its siblings are reloaded with it
  (never a new ``diagnosis.py`` beside an old ``stages.py``). The old package stays in ``sys.modules`` for the
  ``Exercise`` objects that still hold its modules.

Because the files are submodules of a package whose ``__path__`` is the folder, an exercise imports its own
sibling files with ordinary relative imports, ``from . import stages``, wherever the folder is: the checkout's
``exercises/``, the installed ``grader/exercises/``, or a copy anywhere. The loader never goes through the
installed ``grader.exercises`` package itself, so both places behave alike.

Reference solutions are lone files, imported one module per (resolved path, content) under
``_grader_solution_<id>_<digest>``: the prefix lets a test assert that ``grader check`` imported none.
"""
from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from .errors import ExerciseError

#: The name of every exercise folder's package starts with this, then the id and a digest of folder and files.
PACKAGE_PREFIX = "_grader_exercise_"
#: The name of every reference solution's module starts with this, then the id and a digest of path and file.
SOLUTION_PREFIX = "_grader_solution_"
DIGEST_CHARS = 16


def folder_package(folder: Path, exercise_id: str) -> str:
    """The name of the private package for ``folder`` as its files are now, registered in ``sys.modules``.

    The package is created without executing anything: its ``__path__`` is the folder, so the standard import
    system finds (and caches) each submodule when first imported.
    """
    resolved = Path(folder).resolve()
    digest = hashlib.sha256(str(resolved).encode())
    for path in sorted(resolved.glob("*.py")):
        digest.update(b"\0" + path.name.encode() + b"\0")
        try:
            digest.update(path.read_bytes())
        except OSError:  # unreadable: importing it will say so, naming the file
            digest.update(b"unreadable")
    name = f"{PACKAGE_PREFIX}{exercise_id}_{digest.hexdigest()[:DIGEST_CHARS]}"
    if name not in sys.modules:
        spec = importlib.machinery.ModuleSpec(name, None, is_package=True)
        spec.submodule_search_locations = [str(resolved)]
        package = importlib.util.module_from_spec(spec)
        package.__doc__ = f"The Python files of the exercise folder {resolved}, as one private package."
        sys.modules[name] = package
        importlib.invalidate_caches()  # a file written a moment ago must be found, whatever a finder cached
    return name


def import_member(folder: Path, exercise_id: str, stem: str) -> ModuleType:
    """``<folder>/<stem>.py`` as a submodule of the folder's package (imported once per package)."""
    path = Path(folder) / f"{stem}.py"
    if not path.is_file():
        raise ExerciseError(f"The exercise file {path} is missing.")
    name = f"{folder_package(folder, exercise_id)}.{stem}"
    if name in sys.modules:
        return sys.modules[name]
    try:
        return importlib.import_module(name)
    except Exception as exc:  # instructor code: say which file broke, not a traceback
        sys.modules.pop(name, None)  # the import system drops a module that failed; be sure of it
        raise ExerciseError(f"The exercise file {path} failed to load: {type(exc).__name__}: {exc}") from None


def import_solution(path: Path, exercise_id: str) -> ModuleType:
    """A reference solution, one module per resolved path and content (never another folder's file)."""
    path = Path(path)
    try:
        source = path.read_bytes()
    except FileNotFoundError:
        raise ExerciseError(f"The exercise file {path} is missing.") from None
    except OSError as exc:
        raise ExerciseError(f"The exercise file {path} cannot be read: {exc}") from None
    digest = hashlib.sha256(str(path.resolve()).encode() + b"\0" + source).hexdigest()[:DIGEST_CHARS]
    name = f"{SOLUTION_PREFIX}{exercise_id}_{digest}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ExerciseError(f"Cannot import {path}.")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # before running it: a dataclass in it looks its module up by name
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # instructor code: say which file broke, not a traceback
        del sys.modules[name]
        raise ExerciseError(f"The exercise file {path} failed to load: {type(exc).__name__}: {exc}") from None
    return module
