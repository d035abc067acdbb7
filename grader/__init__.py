"""grader: grade numerical Python exercises in a sandbox, name the mistakes, report for people and machines.

The public names load on first use (PEP 562), not with the package: the command line imports ``grader.cli`` and
starts the sandbox's first template before numpy and the rest of the grader are imported, so the two overlap.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"  # keep in step with pyproject.toml

#: public name -> (module, attribute)
_PUBLIC = {
    "CheckResult": ("results", "CheckResult"),
    "Diagnosis": ("results", "Diagnosis"),
    "ErrorInfo": ("results", "ErrorInfo"),
    "Exercise": ("exercise", "Exercise"),
    "GradeResult": ("results", "GradeResult"),
    "Session": ("grade", "Session"),
    "grade_file": ("grade", "grade_file"),
    "load_exercise": ("exercise", "load"),
}

__all__ = sorted(_PUBLIC)

if TYPE_CHECKING:  # pragma: no cover
    from .exercise import Exercise, load as load_exercise
    from .grade import Session, grade_file
    from .results import CheckResult, Diagnosis, ErrorInfo, GradeResult


def __getattr__(name: str) -> Any:
    try:
        module, attribute = _PUBLIC[name]
    except KeyError:
        raise AttributeError(f"module 'grader' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(f".{module}", __name__), attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_PUBLIC])
