"""The result contract: plain frozen dataclasses that round-trip through JSON (``grader.result/1``).

Every other stage produces or consumes these; writers (HTML, Markdown, CSV, JUnit, Gradescope) only read them.
"""
from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field, fields, is_dataclass
from functools import lru_cache
from typing import Any, Literal

SCHEMA = "grader.result/1"

CheckStatus = Literal["passed", "failed", "error", "timeout"]


@dataclass(frozen=True)
class CheckResult:
    id: str
    title: str
    status: CheckStatus
    points: float
    max_points: float
    message: str


@dataclass(frozen=True)
class Diagnosis:
    id: str
    title: str
    explanation: str
    evidence: str = ""


@dataclass(frozen=True)
class ErrorInfo:
    kind: str
    message: str


@dataclass(frozen=True)
class GradeResult:
    exercise: str
    submission: str
    student: str
    status: Literal["graded", "error"]
    score: float
    max_score: float
    error: ErrorInfo | None = None
    checks: tuple[CheckResult, ...] = ()
    diagnoses: tuple[Diagnosis, ...] = ()
    warnings: tuple[str, ...] = ()
    timing: dict[str, float] = field(default_factory=dict)
    isolation: tuple[str, ...] = ()
    trace: tuple[str, ...] = ()
    exercise_version: str = ""
    submission_sha256: str = ""
    #: an assignment's result: the name graded (``--assignment``, or the exercise ids joined by "+")
    assignment: str = ""
    #: in an assignment's result, one section per exercise (each a result of its own, its points already
    #: multiplied by ``weight``); the top level then holds the total, the run's warnings and no checks
    sections: tuple[GradeResult, ...] = ()
    weight: float = 1.0
    schema: str = SCHEMA

    @property
    def passed_all(self) -> bool:
        return self.status == "graded" and self.score >= self.max_score

    def parts(self) -> tuple[GradeResult, ...]:
        """What writers iterate over: the sections of an assignment's result, or the result itself."""
        return self.sections or (self,)

    def all_checks(self) -> tuple[tuple[GradeResult, CheckResult], ...]:
        """Every check with the part it belongs to, in report order."""
        return tuple((part, check) for part in self.parts() for check in part.checks)

    def to_dict(self) -> dict[str, Any]:
        """The contract's document: schema first, then every field in order (a subclass's too), records as
        objects and tuples as lists, every container a new one (a caller may change the document, never the
        result). Walked by hand rather than with ``dataclasses.asdict``, which deep-copies every string and number
        through a generic walk: 13x slower, and the batch builds each result's document twice."""
        return {name: _plain(getattr(self, name)) for name in _field_names(type(self))}

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GradeResult:
        if data.get("schema") != SCHEMA:
            raise ValueError(f"not a {SCHEMA} document")
        known = {f.name for f in fields(cls)}
        kwargs = {k: v for k, v in data.items() if k in known}
        kwargs["error"] = ErrorInfo(**data["error"]) if data.get("error") else None
        kwargs["checks"] = tuple(CheckResult(**c) for c in data.get("checks", ()))
        kwargs["diagnoses"] = tuple(Diagnosis(**d) for d in data.get("diagnoses", ()))
        for name in ("warnings", "isolation", "trace"):
            kwargs[name] = tuple(data.get(name, ()))
        kwargs["sections"] = tuple(cls.from_dict(section) for section in data.get("sections", ()))
        return cls(**kwargs)

    @classmethod
    def from_json(cls, text: str) -> GradeResult:
        """The result a ``result.json`` holds. Raises ValueError for any text that is not one, a damaged or
        hand-made file nested thousands deep included (whose RecursionError made a rerun an internal error)."""
        try:
            data = json.loads(text)
        except RecursionError:
            raise ValueError("JSON nested too deeply to be a result") from None
        return cls.from_dict(data)


@lru_cache(maxsize=None)
def _field_names(cls: type) -> tuple[str, ...]:
    """A result class's fields in the document's order: ``schema`` first, as the contract shows it."""
    return ("schema", *(f.name for f in fields(cls) if f.name != "schema"))


@lru_cache(maxsize=None)
def _record_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls))


def _plain(value: Any) -> Any:
    """``value`` as JSON's types, as ``dataclasses.asdict`` would give it, but tuples as lists and without
    copying what cannot change (strings, numbers)."""
    if value is None or isinstance(value, (str, int, float)):
        return value
    if isinstance(value, GradeResult):
        return value.to_dict()
    if isinstance(value, (tuple, list)):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if is_dataclass(value) and not isinstance(value, type):  # a check, a diagnosis, an error
        return {name: _plain(getattr(value, name)) for name in _record_names(type(value))}
    return copy.deepcopy(value)
