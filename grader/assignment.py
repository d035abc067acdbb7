"""Which exercises are graded together: an assignment from the course file, or exercise ids named ad hoc.

A course sets several exercises in one notebook. The course file, ``course.toml`` in the exercises folder, names
each assignment and its exercises with their weights::

    [assignment.fc-layers]
    title = "Fully connected layers"
    exercises = { linear = 1, to_channels_last = 1, dense_scores = 2, gap_head = 1 }

A weight multiplies every point of its exercise, so an exercise's share of the total is its own points times its
weight. ``--exercise a,b`` grades the same way with weight 1 each. This module only reads and checks names; the
exercises themselves are loaded by ``exercise.load``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from .errors import ExerciseError, UsageError
from .exercise import DEFAULT_EXERCISES, Exercise, is_plain_id, load
from .sandbox import Limits

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

COURSE_FILE = "course.toml"
MAX_WEIGHT = 1000.0


@dataclass(frozen=True)
class Plan:
    """What one grading run covers: a name, a title and the exercise ids with their weights, in report order."""

    name: str
    title: str
    weights: tuple[tuple[str, float], ...]

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(exercise_id for exercise_id, _ in self.weights)

    @property
    def several(self) -> bool:
        """More than one exercise: graded as an assignment, one section per exercise."""
        return len(self.weights) > 1


@dataclass(frozen=True)
class Assignment:
    """A plan with its exercises loaded."""

    plan: Plan
    exercises: tuple[Exercise, ...]

    def weighted(self) -> tuple[tuple[Exercise, float], ...]:
        return tuple(zip(self.exercises, (weight for _, weight in self.plan.weights)))


def course_path(exercises_dir: Path | None = None) -> Path:
    return Path(exercises_dir or DEFAULT_EXERCISES) / COURSE_FILE


def read_course(exercises_dir: Path | None = None) -> dict[str, Plan]:
    """Every assignment of the course file (none when there is no file), checked: a mistake in it is an
    ``ExerciseError`` naming the file and the entry, never a traceback."""
    path = course_path(exercises_dir)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ExerciseError(f"The course file {path} cannot be read: {exc}") from None
    table = data.get("assignment", {})
    if not isinstance(table, dict):
        raise ExerciseError(f"The course file {path} must hold [assignment.NAME] tables.")
    plans = {}
    for name, entry in table.items():
        where = f"assignment '{name}' of the course file {path}"
        if not is_plain_id(name) or not isinstance(entry, dict):
            raise ExerciseError(f"The {where} needs a plain name (letters, digits, '_' and '-') and a table.")
        exercises = entry.get("exercises")
        if isinstance(exercises, list):
            exercises = {exercise_id: 1 for exercise_id in exercises}
        if not isinstance(exercises, dict) or not exercises:
            raise ExerciseError(f"The {where} needs `exercises = {{ id = weight, ... }}` (or a list of ids).")
        weights = []
        for exercise_id, weight in exercises.items():
            if not is_plain_id(exercise_id):
                raise ExerciseError(f"The {where} names {exercise_id!r}, which is not an exercise id.")
            if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not (
                    0 < weight <= MAX_WEIGHT and math.isfinite(weight)):
                raise ExerciseError(f"The {where} gives '{exercise_id}' the weight {weight!r}; a weight is a "
                                    f"number above 0 and at most {MAX_WEIGHT:g}.")
            weights.append((exercise_id, float(weight)))
        title = entry.get("title", name)
        plans[name] = Plan(name, str(title), tuple(weights))
    return plans


def plan_for(exercise: str | None, assignment: str | None, exercises_dir: Path | None = None) -> Plan | None:
    """The several exercises the command line asks for, or None when it asks for one (chosen as before).

    ``--assignment NAME`` names an assignment of the course file when the file has one of that name (in
    nbgrader's layout the same word also picks the submitted folder); otherwise it only picks that folder and
    the exercise comes from ``--exercise``. ``--exercise a,b`` grades several exercises ad hoc.
    """
    course = read_course(exercises_dir)
    if assignment is not None and assignment in course:
        if exercise is not None and tuple(_split(exercise)) != course[assignment].ids:
            raise UsageError(f"--assignment {assignment} already names its exercises "
                             f"({', '.join(course[assignment].ids)}); leave out --exercise.")
        return course[assignment]
    if exercise is None or "," not in exercise:
        return None
    ids = _split(exercise)
    if len(set(ids)) != len(ids):
        raise UsageError(f"--exercise names an exercise twice ({exercise}).")
    return Plan("+".join(ids), " + ".join(ids), tuple((i, 1.0) for i in ids))


def _split(value: str) -> list[str]:
    ids = [part.strip() for part in value.split(",")]
    if not all(ids):
        raise UsageError(f"--exercise takes exercise ids separated by commas, not {value!r}.")
    return ids


def load_assignment(plan: Plan, exercises_dir: Path | None = None, solutions_dir: Path | None = None, *,
                    require_reference: bool = True) -> Assignment:
    """Load every exercise of ``plan`` (an unknown id is a usage error naming the known ones)."""
    exercises = tuple(load(exercise_id, exercises_dir, solutions_dir, require_reference=require_reference)
                      for exercise_id in plan.ids)
    functions = [e.function for e in exercises]
    for exercise in exercises:
        if functions.count(exercise.function) > 1:
            clash = [e.id for e in exercises if e.function == exercise.function]
            raise UsageError(f"The exercises {', '.join(clash)} all ask for a function named "
                             f"{exercise.function}(); one submission cannot define it once for each.")
    return Assignment(plan, exercises)


def combined_limits(exercises: tuple[Exercise, ...]) -> Limits:
    """The limits of one run that grades several exercises: the largest of each (every call still has its own
    exercise's time limit), and the sum of their times for the whole submission."""
    every = [e.limits for e in exercises]
    return Limits(
        call_seconds=max(lim.call_seconds for lim in every),
        cell_seconds=max(lim.cell_seconds for lim in every),
        submission_seconds=sum(lim.submission_seconds for lim in every),
        memory_mib=max(lim.memory_mib for lim in every),
        output_mib=max(lim.output_mib for lim in every),
        file_mib=max(lim.file_mib for lim in every),
        processes=max(lim.processes for lim in every),
    )


def file_names(what: Exercise | Assignment) -> set[str]:
    """The names a student's file may carry to be the one graded among several (Gradescope's submission folder, a
    student's repository under ``--student``): the assignment's name and each of its exercises' ids and functions,
    or a lone exercise's id and function."""
    if isinstance(what, Assignment):
        return {what.plan.name, *(name for e in what.exercises for name in (e.id, e.function))}
    return {what.id, what.function}
