"""grader: grade numerical Python exercises in a sandbox, name the mistakes, report for people and machines."""
__version__ = "0.1.0"  # keep in step with pyproject.toml

from .exercise import Exercise, load as load_exercise
from .grade import Session, grade_file
from .results import CheckResult, Diagnosis, ErrorInfo, GradeResult

__all__ = [
    "CheckResult",
    "Diagnosis",
    "ErrorInfo",
    "Exercise",
    "GradeResult",
    "Session",
    "grade_file",
    "load_exercise",
]
