"""Load an exercise folder: its settings (``exercise.toml``), catalog, hidden-case generator and reference.

Everything specific to one exercise lives in its folder; this module only knows the folder's shape:

* ``exercise.toml``: function name, parameters, checks with points, tolerance, limits, version.
* ``catalog.toml``: the known mistakes (id, title, explanation, what each supersedes).
* ``cases.py``: ``hidden_cases(rng)``, ``public_cases()`` and ``trace(case, output_shape)``, and for a large
  case ``full_scale_case(rng, alloc)`` with its optional per-student hooks ``personalise_full_scale(case, rng)``,
  ``full_scale_cache(case)`` and ``full_scale_expected(case, cache)`` (see ``Exercise.full_scale_case``).
  Trusted instructor code, run in the grader.
* ``diagnosis.py`` (optional): ``probe_cases()`` and ``diagnose(runs, exercise)`` returning ``Finding`` objects.
* the reference, ``solutions/<id>.py``, found beside the exercises folder or given explicitly.
"""
from __future__ import annotations

import hashlib
import importlib.util
import re
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import ModuleType
from typing import Callable

import numpy as np

from .errors import ExerciseError, UsageError
from .sandbox import Limits

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_EXERCISES = REPO_ROOT / "exercises"
DEFAULT_SOLUTIONS = REPO_ROOT / "solutions"


#: The group of cases that feed only the diagnosis: they count for no check.
PROBE = "probe"


@dataclass(frozen=True)
class Case:
    """One set of positional inputs. ``group`` names the check it counts for ("probe" counts for none).

    ``shared``: the case's large inputs are written once per session to files every child maps (never copied per
    student). ``personal`` lists the positions of a shared case that are made per student instead: they are sent
    to the child inline, like a small case's inputs, so one case may mix mapped files and inline arguments.
    """

    name: str
    group: str
    args: tuple[np.ndarray, ...]
    description: str = ""
    shared: bool = False
    personal: tuple[int, ...] = ()


@dataclass(frozen=True)
class Finding:
    """A mistake the diagnosis believes it saw; ``evidence`` says where, without revealing hidden inputs."""

    id: str
    evidence: str = ""


@dataclass(frozen=True)
class CheckSpec:
    id: str
    title: str
    points: float
    kind: str  # completes, returns, type, shape, dtype, finite, values, unmodified, deterministic
    group: str = ""  # case group, for kind == "values"
    full_scale: bool = False  # judges the large case: dropped, points and all, under --no-full-scale


@dataclass(frozen=True)
class Mistake:
    id: str
    title: str
    explanation: str
    supersedes: tuple[str, ...] = ()
    example: str = ""


@dataclass(frozen=True)
class Tolerance:
    """``|actual - expected| <= atol_scale * max|expected| + rtol * |expected|``, elementwise.

    Float64 formulations differ by a few ulps of the largest term; float32 arithmetic is off by about 1e-7
    relative, so a bound near 1e-9 separates the two with margin on both sides.
    """

    rtol: float = 1e-9
    atol_scale: float = 1e-9


@dataclass(frozen=True)
class Exercise:
    id: str
    title: str
    version: str
    function: str
    parameters: tuple[str, ...]
    folder: Path
    checks: tuple[CheckSpec, ...]
    tolerance: Tolerance
    limits: Limits
    catalog: dict[str, Mistake]
    reference: Callable[..., np.ndarray]
    cases_module: ModuleType
    diagnosis_module: ModuleType | None
    fingerprint: str = field(default="")

    # -- cases ----------------------------------------------------------------------------------------------
    def hidden_cases(self, seed: int) -> list[Case]:
        return list(self.cases_module.hidden_cases(np.random.default_rng(seed)))

    # -- the large case ---------------------------------------------------------------------------------------
    # An exercise with a large case defines in ``cases.py``:
    #
    #   full_scale_case(rng, alloc) -> Case        the part every student shares, built once per session: arrays
    #                                              made with ``alloc(shape)`` become files every child maps
    #   personalise_full_scale(case, rng)          optional: {position: array} made per student from ``rng``
    #       -> dict[int, ndarray]                  (small arrays, same shape and dtype as the shared ones); they
    #                                              are sent inline, so copied outputs fail
    #   full_scale_cache(case) -> object           optional: computed once from the shared case (an intermediate
    #                                              that does not depend on the personal arguments)
    #   full_scale_expected(case, cache)           optional: the personalised case's expected output from the
    #       -> ndarray                             cache, in microseconds; without it the reference runs on
    #                                              every student's case (checked against it once per build)
    @property
    def has_full_scale(self) -> bool:
        return callable(getattr(self.cases_module, "full_scale_case", None))

    def full_scale_case(self, seed: int, alloc: Callable[..., np.ndarray] = np.empty) -> Case | None:
        """The large case, its arrays created with ``alloc(shape)`` (the harness passes file-backed memory)."""
        make = getattr(self.cases_module, "full_scale_case", None)
        return make(np.random.default_rng(seed), alloc) if make else None

    def personalise_full_scale(self, case: Case, seed: int) -> Case:
        """``case`` with the exercise's per-student arguments for ``seed`` in place, their positions in ``personal``.

        Without a ``personalise_full_scale`` hook the case is returned as it is: the same for every student.
        """
        make = getattr(self.cases_module, "personalise_full_scale", None)
        if make is None:
            return case
        made = make(case, np.random.default_rng(seed))
        if not isinstance(made, dict) or not made:
            raise ExerciseError(f"personalise_full_scale() of exercise '{self.id}' must return a non-empty "
                                "{position: array} dict.")
        args = list(case.args)
        for position, array in made.items():
            if not isinstance(position, int) or not 0 <= position < len(args):
                raise ExerciseError(f"personalise_full_scale() of exercise '{self.id}' returned position "
                                    f"{position!r}; the case has {len(args)} arguments.")
            array = np.asarray(array)
            if array.shape != args[position].shape or array.dtype != args[position].dtype:
                raise ExerciseError(f"personalise_full_scale() of exercise '{self.id}' returned a {array.shape} "
                                    f"{array.dtype} array for argument {position}, which is a "
                                    f"{args[position].shape} {args[position].dtype} array in the shared case.")
            args[position] = array
        return replace(case, args=tuple(args), personal=tuple(sorted(made)))

    def full_scale_cache(self, case: Case) -> object | None:
        """What ``full_scale_expected`` needs from the shared case, computed once per build (None: no shortcut)."""
        make = getattr(self.cases_module, "full_scale_cache", None)
        if make is None or not callable(getattr(self.cases_module, "full_scale_expected", None)):
            return None
        return make(case)

    def full_scale_expected(self, case: Case, cache: object | None) -> np.ndarray:
        """The expected output of a (personalised) large case: from the cache when the exercise can, else the
        reference itself."""
        shortcut = getattr(self.cases_module, "full_scale_expected", None)
        if cache is None or shortcut is None:
            return self.expected(case)
        return np.asarray(shortcut(case, cache))

    def public_cases(self) -> list[Case]:
        return list(getattr(self.cases_module, "public_cases", lambda: [])())

    def probe_cases(self) -> list[Case]:
        """Crafted inputs that only feed the diagnosis (group "probe"); defined beside ``diagnose``."""
        return list(getattr(self.diagnosis_module, "probe_cases", lambda: [])())

    def expected(self, case: Case) -> np.ndarray:
        """The reference's answer on copies of the inputs, so the reference cannot disturb them."""
        args = tuple(a if case.shared and i not in case.personal else a.copy() for i, a in enumerate(case.args))
        return np.asarray(self.reference(*args))

    def trace(self, case: Case, output_shape: tuple[int, ...] | None) -> list[str]:
        describe = getattr(self.cases_module, "trace", None)
        return list(describe(case, output_shape)) if describe else []

    @property
    def max_points(self) -> float:
        return sum(c.points for c in self.checks)


def find(exercise_id: str, exercises_dir: Path | None = None) -> Path:
    """The folder of exercise ``exercise_id``, directly under the exercises folder.

    An id is a plain name (letters, digits, '_' and '-'), never a path: the reference solution found from it is
    imported into the grader's own process, so a path such as '../x' or '/tmp/x' must not reach the file system.
    """
    base = Path(exercises_dir) if exercises_dir else DEFAULT_EXERCISES
    known = known_ids(base)
    if not is_plain_id(exercise_id):
        raise UsageError(
            f"{exercise_id!r} is not an exercise id: an id is letters, digits, '_' and '-' only, the name of a "
            f"folder in {base}" + (f" (known exercises: {', '.join(known)})." if known else ".")
            + " To use exercises kept elsewhere, give --exercises-dir DIR (and --solutions-dir DIR)."
        )
    folder = base / exercise_id
    if exercise_id not in known:
        raise UsageError(
            f"Unknown exercise '{exercise_id}'" + (f"; known exercises: {', '.join(known)}." if known else ".")
        )
    return folder


#: What an exercise id may be: a folder name, never a path (no separator, no '.' or '..', not absolute).
PLAIN_ID = re.compile(r"[A-Za-z0-9_-]+")


def is_plain_id(value: object) -> bool:
    return isinstance(value, str) and len(value) <= 100 and PLAIN_ID.fullmatch(value) is not None


def known_ids(base: Path) -> list[str]:
    """The exercises directly under ``base``: folders with a plain id as name and an ``exercise.toml``."""
    try:
        return sorted(p.name for p in Path(base).iterdir() if is_plain_id(p.name) and (p / "exercise.toml").is_file())
    except OSError:
        return []


def load(exercise_id: str, exercises_dir: Path | None = None, solutions_dir: Path | None = None) -> Exercise:
    folder = find(exercise_id, exercises_dir)
    try:
        settings = tomllib.loads((folder / "exercise.toml").read_text(encoding="utf-8"))
        catalog_data = (
            tomllib.loads((folder / "catalog.toml").read_text(encoding="utf-8"))
            if (folder / "catalog.toml").is_file()
            else {}
        )
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ExerciseError(f"The exercise folder {folder} has an unreadable settings file: {exc}") from None
    solutions = Path(solutions_dir) if solutions_dir else folder.parent.parent / "solutions"
    if not solutions_dir and not (solutions / f"{exercise_id}.py").is_file():
        solutions = DEFAULT_SOLUTIONS
    if not (solutions / f"{exercise_id}.py").is_file():
        raise ExerciseError(f"No reference solution {solutions / (exercise_id + '.py')} for exercise '{exercise_id}'.")
    try:
        return _build(exercise_id, folder, settings, catalog_data, solutions)
    except (KeyError, TypeError, ValueError) as exc:
        raise ExerciseError(f"The settings of exercise '{exercise_id}' ({folder}) are incomplete or wrong: "
                            f"{type(exc).__name__}: {exc}.") from None


def _build(exercise_id: str, folder: Path, settings: dict, catalog_data: dict, solutions: Path) -> Exercise:
    reference_module = _import(solutions / f"{exercise_id}.py", f"_grader_solution_{exercise_id}")
    function = settings["function"]
    reference = getattr(reference_module, function, None)
    if not callable(reference):
        raise ExerciseError(f"The reference solution does not define {function}().")
    cases_module = _import(folder / "cases.py", f"_grader_cases_{exercise_id}")
    diagnosis_module = (
        _import(folder / "diagnosis.py", f"_grader_diagnosis_{exercise_id}")
        if (folder / "diagnosis.py").is_file()
        else None
    )
    checks = tuple(
        CheckSpec(
            id=c["id"], title=c["title"], points=float(c["points"]), kind=c.get("kind", c["id"]),
            group=c.get("group", ""), full_scale=bool(c.get("full_scale", False)),
        )
        for c in settings["check"]
    )
    catalog = {
        m["id"]: Mistake(
            id=m["id"], title=m["title"], explanation=m["explanation"].strip(),
            supersedes=tuple(m.get("supersedes", ())), example=m.get("example", ""),
        )
        for m in catalog_data.get("mistake", [])
    }
    limits = Limits(**settings.get("limits", {}))
    tolerance = Tolerance(**settings.get("tolerance", {}))
    return Exercise(
        id=exercise_id,
        title=settings.get("title", exercise_id),
        version=str(settings.get("version", "1")),
        function=function,
        parameters=tuple(settings.get("parameters", ())),
        folder=folder,
        checks=checks,
        tolerance=tolerance,
        limits=limits,
        catalog=catalog,
        reference=reference,
        cases_module=cases_module,
        diagnosis_module=diagnosis_module,
        fingerprint=_fingerprint(folder, solutions / f"{exercise_id}.py"),
    )


def _import(path: Path, name: str) -> ModuleType:
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ExerciseError(f"Cannot import {path}.")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except FileNotFoundError:
        del sys.modules[name]
        raise ExerciseError(f"The exercise file {path} is missing.") from None
    except Exception as exc:  # instructor code: say which file broke, not a traceback
        del sys.modules[name]
        raise ExerciseError(f"The exercise file {path} failed to load: {type(exc).__name__}: {exc}") from None
    return module


def _fingerprint(folder: Path, solution: Path) -> str:
    """A digest of everything that decides a grade, so results can tell when they are stale."""
    digest = hashlib.sha256()
    for path in sorted([*folder.glob("*.toml"), *folder.glob("*.py"), solution]):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]

