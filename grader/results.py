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
        through a generic walk: 7x slower, and the batch builds each result's document twice."""
        return {name: _plain(getattr(self, name)) for name in _field_names(type(self))}

    def to_json(self, indent: int | None = 2) -> str:
        document = self.to_dict()
        return json.dumps(document, ensure_ascii=False) if indent is None else json_text(document, indent)

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


# -- JSON text ---------------------------------------------------------------------------------------------------
#: JSON's own string encoder for ``ensure_ascii=False`` (in C where the interpreter has it).
_encode_string = json.encoder.encode_basestring
_CONTAINERS = (dict, list, tuple)
_DEEPEST = 100  # deeper (or circular) documents are left to ``json.dumps``
_INFINITIES = (float("inf"), float("-inf"))


class _Unusual(Exception):
    """Something ``json_text`` leaves to ``json.dumps`` (a key that is not a string, an unknown type)."""


def json_text(document: Any, indent: int = 2) -> str:
    """``json.dumps(document, indent=indent, ensure_ascii=False)``, byte for byte, in about two thirds of its time.

    With an indent, ``json`` leaves its C encoder for a pure-Python one made of generators; the files a batch
    writes for each student (``result.json``, ``gradescope.json``) are indented for the people who read them, so
    this walks the document with plain loops instead, still encoding every string with ``json``'s own encoder.
    Strings, numbers, booleans, None, lists, tuples and dicts with string keys are written here, as ``json``
    writes them; a document with anything else (another key type, an object ``json`` would refuse, a depth
    beyond 100 or a cycle) is given to ``json.dumps`` whole, so the text or the error is always ``json``'s."""
    parts: list[str] = []
    try:
        _emit(document, parts, "\n", " " * indent, 0)
    except _Unusual:
        return json.dumps(document, indent=indent, ensure_ascii=False)
    return "".join(parts)


def _scalar(value: Any) -> str:
    """A value that is not a list, tuple or dict, as ``json`` writes it (in its order of tests)."""
    if isinstance(value, str):
        return _encode_string(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        if value != value:
            return "NaN"
        if value in _INFINITIES:
            return "Infinity" if value > 0 else "-Infinity"
        return float.__repr__(value)
    raise _Unusual


def _emit(value: Any, parts: list[str], newline: str, step: str, depth: int) -> None:
    """Append ``value``'s text to ``parts``; ``newline``: a line break and the indent of ``value``'s own line."""
    if not isinstance(value, _CONTAINERS):
        parts.append(_scalar(value))
        return
    if not value:
        parts.append("{}" if isinstance(value, dict) else "[]")
        return
    if depth > _DEEPEST:
        raise _Unusual
    inner = newline + step
    head, separator = ("{" if isinstance(value, dict) else "[") + inner, "," + inner
    if isinstance(value, dict):
        for key, item in value.items():
            if type(key) is not str:
                raise _Unusual
            if type(item) is str:
                parts.append(f"{head}{_encode_string(key)}: {_encode_string(item)}")
            elif isinstance(item, _CONTAINERS):
                parts.append(f"{head}{_encode_string(key)}: ")
                _emit(item, parts, inner, step, depth + 1)
            else:
                parts.append(f"{head}{_encode_string(key)}: {_scalar(item)}")
            head = separator
        parts.append(newline + "}")
    else:
        for item in value:
            if type(item) is str:
                parts.append(head + _encode_string(item))
            elif isinstance(item, _CONTAINERS):
                parts.append(head)
                _emit(item, parts, inner, step, depth + 1)
            else:
                parts.append(head + _scalar(item))
            head = separator
        parts.append(newline + "]")
