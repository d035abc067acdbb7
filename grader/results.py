"""The result contract: plain frozen dataclasses that round-trip through JSON (``grader.result/1``).

Every other stage produces or consumes these; writers (HTML, Markdown, CSV, JUnit, Gradescope) only read them.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
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
        data = asdict(self)
        data["checks"] = [asdict(c) for c in self.checks]
        data["diagnoses"] = [asdict(d) for d in self.diagnoses]
        data["warnings"] = list(self.warnings)
        data["isolation"] = list(self.isolation)
        data["trace"] = list(self.trace)
        data["sections"] = [section.to_dict() for section in self.sections]
        # schema first, as the contract shows it
        return {"schema": data.pop("schema"), **data}

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
        return cls.from_dict(json.loads(text))
