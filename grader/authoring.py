"""Everything an exercise author uses, in one module: ``from grader.authoring import Case, Finding, PROBE``.

Why one module: an exercise folder is code written against the harness, and its authors should not need to know
in which stage each class happens to live (``exercise.py`` defines the cases, ``outcomes.py`` what a call
did). The names below are the supported surface; the stages may move things around behind it.

What a folder's files may define is declared by the two protocols below (a module satisfies a protocol by its
top-level functions). The harness looks each function up by name, so every one but ``hidden_cases`` is optional,
and a name outside these lists is the author's own helper, never called by the harness.

A folder's other ``*.py`` files are its own helpers: import them with a relative import,
``from . import stages``. The loader imports each exercise folder as a private package of its own
(``exercisepackage.py``), so this works wherever the folder is (the checkout's ``exercises/``, the installed
``grader/exercises/``, a copy in a temporary folder) and a sibling of the same name in another folder is never
shared.
"""
from __future__ import annotations

from typing import Callable, Iterable, Protocol

import numpy as np

from .exercise import PROBE, Case, Exercise, Finding
from .outcomes import CallError, CallOutcome, CaseRun, Returned

__all__ = ["PROBE", "Case", "Finding", "CaseRun", "CallOutcome", "CallError", "Returned", "Exercise", "repeat_rows",
           "CasesModule", "DiagnosisModule", "REQUIRED", "hooks"]

#: What the exercise returns on one case: one array, or one per output declared in ``exercise.toml``.
Output = np.ndarray | tuple[np.ndarray, ...]


class CasesModule(Protocol):
    """What ``cases.py`` may define (trusted instructor code, run in the grader). Only ``hidden_cases`` is required.

    ``hidden_cases`` and ``public_cases`` give the graded cases, ``Case.group`` naming the ``values`` check each
    counts for. The four ``full_scale_*`` hooks make the large case, built once per session and shared by every
    student (see ``Exercise.full_scale_case``).
    """

    def hidden_cases(self, rng: np.random.Generator) -> Iterable[Case]:
        """The graded cases, made from ``rng`` (seeded per student, so each student's inputs differ)."""

    def public_cases(self) -> Iterable[Case]:
        """Cases a student sees: their outputs are stored in ``public_expected.json`` for ``grader check``."""

    def trace(self, case: Case, output_shape: tuple[int, ...] | None) -> Iterable[str]:
        """Lines that explain a case's shapes in a report, given the shape the student returned (None: none)."""

    def full_scale_case(self, rng: np.random.Generator, alloc: Callable[..., np.ndarray]) -> Case:
        """The large case's shared part; arrays made with ``alloc(shape)`` become files every child maps, and
        ``repeat_rows(alloc, tile, rows)`` an array whose rows repeat the tile's, stored once."""

    def personalise_full_scale(self, case: Case, rng: np.random.Generator) -> dict[int, np.ndarray]:
        """{position: array} made per student, each with the shape and dtype of the shared argument it replaces."""

    def full_scale_cache(self, case: Case) -> object:
        """Computed once from the shared case, for ``full_scale_expected`` (only used when that exists too)."""

    def full_scale_expected(self, case: Case, cache: object) -> Output:
        """A personalised large case's expected output from the cache, instead of running the reference."""


class DiagnosisModule(Protocol):
    """What ``diagnosis.py`` may define (optional file; every function is optional).

    ``probe_cases`` feed only the diagnosis (``group=PROBE``, counted by no check). ``diagnose`` and
    ``stage_trace`` receive the first call on every case (hidden, public, large and probes); an exception they
    raise becomes a warning on the result, never a changed grade.
    """

    def probe_cases(self) -> Iterable[Case]:
        """Crafted inputs, each sensitive to a few mistakes; their outputs are stored for ``grader check``."""

    def diagnose(self, runs: list[CaseRun], exercise: Exercise) -> Iterable[Finding]:
        """The catalog mistakes the runs show, each with evidence that reveals no hidden input.

        A ``diagnose`` that also accepts a keyword ``random`` gets ``random=True`` when two calls on the same inputs
        disagreed: each run then shows one draw of something random, not a rule.
        """

    def stage_trace(self, runs: list[CaseRun]) -> Iterable[str]:
        """One line per stage of the computation, for the result's trace."""


#: The functions each file must define; every other protocol member is looked up and may be absent.
REQUIRED: dict[str, tuple[str, ...]] = {"cases": ("hidden_cases",), "diagnosis": ()}


def repeat_rows(alloc: Callable[..., np.ndarray], tile: np.ndarray, rows: int) -> np.ndarray:
    """An array of ``rows`` rows whose row ``i`` is ``tile[i % len(tile)]``. Made by the large case's allocator, it
    is stored as the tile alone and mapped repeatedly by every child, so a product with it reads the tile's bytes
    from the cache again and again instead of streaming the whole array from memory (``grader/runner/rows.py``:
    ``len(tile) * row bytes`` must be a whole number of pages). Made by any other ``alloc`` (``np.empty``), it is
    an ordinary array with the same values."""
    method = getattr(alloc, "repeat_rows", None)
    if method is not None:
        return method(tile, rows)
    return np.resize(tile, (rows, *tile.shape[1:]))


def hooks(protocol: type) -> tuple[str, ...]:
    """The function names a protocol declares, in order: what the harness may look up in that file."""
    return tuple(name for name, value in vars(protocol).items() if callable(value) and not name.startswith("_"))
