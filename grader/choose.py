"""What a command works on: an exercise or an assignment, from the options, a notebook's metadata or the code.

``grade``, ``check``, ``notebook`` and ``gradescope`` all ask the same question. The answer comes from
``--exercise``/``--assignment`` first, then from what the submissions say about themselves (a generated notebook's
``metadata.grader``, a file named after an exercise, the functions its code defines), and only a plain id of a
folder under the exercises folder, or a name in the course file, is ever accepted from a student's file.
"""
from __future__ import annotations

import argparse
import functools
import json
import sys
from pathlib import Path

from . import exercise as exercise_mod
from . import pysource, tomlcache
from .errors import UsageError
from .submission import MAX_BYTES, MAX_CHECKED_CELL, MAX_CHECKED_TOTAL, MAX_JSON_VALUES, json_values


def exercise(args: argparse.Namespace, require_reference: bool = True) -> exercise_mod.Exercise:
    exercise_id = args.exercise
    base = Path(args.exercises_dir or exercise_mod.DEFAULT_EXERCISES)
    if not exercise_id:
        known = exercise_mod.known_ids(base)
        if len(known) != 1:
            raise UsageError("Name the exercise with --exercise" + (f" (one of: {', '.join(known)})." if known else "."))
        exercise_id = known[0]
    elif not exercise_mod.is_plain_id(exercise_id):
        known = exercise_mod.known_ids(base)
        raise UsageError(
            f"--exercise takes an exercise id, not a path: got {_shown(exercise_id)}. An id is letters, digits, "
            f"'_' and '-' only, the name of a folder in {base}"
            + (f" (known exercises: {', '.join(known)})." if known else ".")
            + " To use exercises kept elsewhere, give --exercises-dir DIR (and --solutions-dir DIR)."
        )
    return exercise_mod.load(exercise_id, args.exercises_dir, args.solutions_dir,
                             require_reference=require_reference)


def exercise_from_metadata(args: argparse.Namespace) -> str | None:
    """The exercise id a notebook names in its metadata (``metadata.grader.exercise``), checked.

    The notebook is the student's file, so what it names is accepted only as a plain id of a folder directly
    under the exercises folder: a path there would make the grader import a file of the student's choosing as
    the reference solution.
    """
    path = Path(args.path)
    if not _readable_notebook(path):
        return None
    from .submission import named_exercise

    try:
        value = named_exercise(path)
    except (RecursionError, MemoryError):  # absurdly nested JSON: not a notebook, and load() will say so
        return None
    if value is None:
        return None
    base = Path(args.exercises_dir or exercise_mod.DEFAULT_EXERCISES)
    known = exercise_mod.known_ids(base)
    choose = ("Give --exercise ID to choose the exercise" + (f" (one of: {', '.join(known)})." if known else "."))
    if not exercise_mod.is_plain_id(value):
        raise UsageError(
            f"{path.name} names its exercise {_shown(value)} in its metadata (metadata.grader.exercise), which is "
            f"not an exercise id: only a plain id (letters, digits, '_' and '-', no path) of a folder in {base} is "
            f"accepted from a notebook. {choose}"
        )
    if value not in known:
        raise UsageError(
            f"{path.name} names the exercise {_shown(value)} in its metadata (metadata.grader.exercise), but there "
            f"is no such exercise in {base}. {choose}"
        )
    return value


def _course_plan(args: argparse.Namespace):
    """``check``'s and ``notebook``'s several exercises from the command line (``--assignment NAME``, which must
    name an assignment of the course file, or ``--exercise a,b``), or None for one exercise."""
    from . import assignment

    if args.assignment is not None:
        course = assignment.read_course(args.exercises_dir)
        if args.assignment not in course:
            raise UsageError(f"There is no assignment {_shown(args.assignment)} in the course file "
                             f"{assignment.course_path(args.exercises_dir)}"
                             + (f" (its assignments: {', '.join(course)})." if course else " (it names none)."))
    return assignment.plan_for(args.exercise, args.assignment, args.exercises_dir)


def what_to_check(args: argparse.Namespace):
    """``check``'s work: every exercise of an assignment (from the command line, the notebook's metadata, or the
    functions of several exercises the file defines), else one exercise as before. Loaded without solutions."""
    from . import assignment, student_check

    path = Path(args.path)
    plan = _course_plan(args)
    if plan is None and not args.exercise:
        plan = student_check.plan_from_metadata(path, args.exercises_dir) if _readable_notebook(path) else None
        if plan is None:
            args.exercise = exercise_from_metadata(args)
            if not args.exercise:
                plan = student_check.plan_from_functions(defined_functions(path), path.name, args.exercises_dir)
    if plan is not None:
        return assignment.load_assignment(plan, args.exercises_dir, args.solutions_dir, require_reference=False)
    args.exercise = args.exercise or exercise_from_code(args)
    if not args.exercise:
        _no_exercise_defined(path, Path(args.exercises_dir or exercise_mod.DEFAULT_EXERCISES))
    return exercise(args, require_reference=False)  # a student has no solutions


#: names compared with the exercises' functions (those whose length allows a near miss), in alphabetical order: a
#: comparison takes 10 us, and a file of 8 MiB defines 420,000 functions (4.5 s); a student's file defines a few
_MOST_COMPARED = 2_000


def _no_exercise_defined(path: Path, base: Path) -> None:
    """A student's file that names no exercise and defines no exercise's function (a function renamed, a notebook
    without its metadata): said with the function closest to one an exercise asks for, which is most often the
    cause, rather than only 'name the exercise'. Returns when there is no near miss (the plain question follows)."""
    import difflib
    import heapq

    known = exercise_mod.known_ids(base)
    if len(known) < 2:
        return
    wanted = _functions(base, tuple(known))
    loose = {name.replace("_", "").lower(): name for name in wanted}
    sizes = {len(key) for key in loose}  # difflib's ratio is at most 2 * shorter / (both lengths): 0.8 needs these
    near = (name for name in defined_functions(path) if any(
        5 * min(size, length := len(name.replace("_", "").lower())) >= 2 * (length + size) for size in sizes))
    for name in heapq.nsmallest(_MOST_COMPARED, near):
        close = difflib.get_close_matches(name.replace("_", "").lower(), list(loose), n=1, cutoff=0.8)
        if close:
            function = loose[close[0]]
            raise UsageError(
                f"{_shown(path.name)} defines no function an exercise asks for: did you mean to name "
                f"{_shown(name)} as {function!r} (exercise {', '.join(wanted[function])})? Rename it, or give "
                f"--exercise ID (one of: {', '.join(known)}).")


def what_to_write(args: argparse.Namespace):
    """``notebook``'s work: an assignment's notebook (``--assignment NAME``, ``--exercise a,b``), else one exercise's;
    ``gradescope``'s too (the bundle that grades that notebook)."""
    from . import assignment

    plan = _course_plan(args)
    if plan is not None:
        return assignment.load_assignment(plan, args.exercises_dir, args.solutions_dir)
    return exercise(args)


def _readable_notebook(path: Path) -> bool:
    """Only a regular notebook of a gradable size is read (a pipe would block, a huge file would fill memory)."""
    try:
        return (path.suffix.lower() == ".ipynb" and not path.is_symlink() and path.is_file()
                and path.stat().st_size <= MAX_BYTES[".ipynb"])
    except OSError:
        return False


def what_to_grade(args: argparse.Namespace, plan):
    """``grade``'s work: an assignment (``--assignment NAME`` of the course file, or ``--exercise a,b``, else the
    one the submitted notebooks name in their metadata), else one exercise."""
    from . import assignment

    several = assignment.plan_for(args.exercise, getattr(args, "assignment", None), args.exercises_dir)
    if several is None and not args.exercise:
        several = assignment_from_metadata(args, plan)
    if several is not None:
        return assignment.load_assignment(several, args.exercises_dir, args.solutions_dir)
    return exercise_for_grading(args, plan)


def assignment_from_metadata(args: argparse.Namespace, plan):
    """With no exercise named: the assignment the submitted notebooks name (``metadata.grader.assignment``), when
    they name one, said on stderr. The notebooks are the students' files: a name counts only when it is an
    assignment of the course file (the file is read only when a notebook names something)."""
    from . import assignment
    from .submission import named_assignment

    named: set[str] = set()
    for entry in [e for e in plan.entries if e.problem is None][:200]:
        if _readable_notebook(Path(entry.path)):
            try:
                name, _ = named_assignment(Path(entry.path))
            except (RecursionError, MemoryError):  # absurdly nested JSON: not a notebook, and load() will say so
                continue
            if name is not None:
                named.add(name)
    course = assignment.read_course(args.exercises_dir) if named else {}
    named &= set(course)
    if len(named) > 1:
        raise UsageError(f"The submitted notebooks name {len(named)} assignments of the course file in their "
                         f"metadata ({', '.join(sorted(named))}): give --assignment NAME to choose.")
    if not named:
        return None
    name = named.pop()
    print(f"grader: note: grading assignment '{name}', the one the submitted notebooks name (give --assignment "
          "NAME or --exercise ID to choose)", file=sys.stderr)
    return course[name]


def exercise_for_grading(args: argparse.Namespace, plan) -> exercise_mod.Exercise:
    """``grade``'s exercise: ``--exercise``, the only one there is, or the one every submission is about."""
    if not args.exercise:
        base = Path(args.exercises_dir or exercise_mod.DEFAULT_EXERCISES)
        if len(exercise_mod.known_ids(base)) > 1:
            fits: set[str] = set()
            for entry in [e for e in plan.entries if e.problem is None][:200]:
                found = exercise_from_code(argparse.Namespace(path=entry.path, exercises_dir=args.exercises_dir),
                                            by_name=len(plan.entries) == 1)
                if found:
                    fits.add(found)
            if len(fits) == 1:
                args.exercise = fits.pop()
                print(f"grader: note: grading exercise '{args.exercise}', the one the submissions define "
                      "(give --exercise ID to choose)", file=sys.stderr)
    return exercise(args)


def exercise_from_code(args: argparse.Namespace, by_name: bool = True) -> str | None:
    """With several exercises and no id given: the one the student's file is about, when only one fits.

    The file is read, never run: its name (``<exercise id>.ipynb``), else the functions its code defines at the top
    level (a notebook's code cells, a script's module), matched against each exercise's function name. None when
    nothing or several fit: the usage error then lists the exercises.
    """
    base = Path(args.exercises_dir or exercise_mod.DEFAULT_EXERCISES)
    known = exercise_mod.known_ids(base)
    if len(known) < 2:
        return None
    path = Path(args.path)
    stem = path.stem
    if by_name and stem in known:
        return stem
    functions = _functions(base, tuple(known))
    defined = defined_functions(path)
    fits = {i for name in defined & set(functions) for i in functions[name]}
    return fits.pop() if len(fits) == 1 else None


@functools.lru_cache(maxsize=4)
def _functions(base: Path, known: tuple[str, ...]) -> dict[str, list[str]]:
    """Each function name an exercise asks for: the exercises asking for it (read once, not once per student)."""
    functions: dict[str, list[str]] = {}
    for exercise_id in known:
        try:
            settings = tomlcache.loads((base / exercise_id / "exercise.toml").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(settings.get("function"), str):
            functions.setdefault(settings["function"], []).append(exercise_id)
    return functions


def defined_functions(path: Path) -> set[str]:
    """Names of the top-level functions (and classes) a .py file or a notebook's code cells define; never raises."""
    import ast
    import re

    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_BYTES.get(path.suffix.lower(), 0):
            return set()
        raw = path.read_bytes()
        text = raw.decode("utf-8-sig", errors="replace")
        if path.suffix.lower() == ".ipynb":
            if json_values(raw) > MAX_JSON_VALUES:  # a gigabyte of JSON values once read: not read
                return set()
            cells = [c.get("source", "") for c in json.loads(text).get("cells", []) if c.get("cell_type") == "code"]
            sources = ["".join(c) if isinstance(c, list) else str(c) for c in cells]
        else:
            sources = [text]
    except (OSError, ValueError, AttributeError, TypeError, RecursionError, MemoryError):
        return set()
    names: set[str] = set()
    parsed = 0  # parsing costs the grader seconds and hundreds of bytes per character: as much as loading does
    for source in sources:
        parsed += len(source)
        if len(source) <= MAX_CHECKED_CELL and parsed <= MAX_CHECKED_TOTAL:
            lines = [line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))]
            try:
                tree = pysource.parse("\n".join(lines))
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                pass
            else:
                names |= {node.name for node in tree.body
                          if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
                continue
        # a typo, or more code than is parsed here, still names the function it defines
        names |= set(re.findall(r"^(?:async\s+)?def\s+([A-Za-z_]\w*)", source, re.M))
    return names


def _shown(value: str) -> str:
    """A value from the command line or a student's file, quoted and cut short, for an error message."""
    text = repr(value)
    return text if len(text) <= 200 else text[:197] + "..."
