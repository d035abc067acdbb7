"""grader: grade numerical Python exercises in a sandbox, name the mistakes, report for people and machines."""
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
