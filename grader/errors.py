"""Every error a user can cause, in one family.

Each subclass owns its ``kind`` (the stable id that lands in ``result.error.kind``) and its exit code, so the
CLI maps errors to exit codes in one place and the wording never drifts between raise sites.
"""
from __future__ import annotations


class GraderError(Exception):
    """Base of every user-facing error. ``message`` is a full sentence meant for a person.

    ``exit_code`` is what the command exits with when the error ends it. Errors of a submission do not end a
    command (they become that submission's result, and the command goes on), so theirs is 0; every error that
    ends a command exits 2.
    """

    kind = "error"
    exit_code = 2

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    @classmethod
    def with_kind(cls, kind: str, message: str) -> GraderError:
        """An error of this class whose ``kind`` is decided at run time (e.g. the incident that stopped a run)."""
        error = cls(message)
        error.kind = kind
        return error

    def full_message(self) -> str:
        return f"{self.message} {self.hint}" if self.hint else self.message


class UsageError(GraderError):
    """The command line itself is wrong: unknown flag, missing file, unknown exercise."""

    kind = "usage"
    exit_code = 2


class MissingPath(UsageError):
    """A path given on the command line does not exist: a typo in the command, not a student's error row."""

    kind = "missing-file"


class SubmissionError(GraderError):
    """The submission cannot be graded at all (unreadable, wrong format, nothing to run)."""

    kind = "submission"
    exit_code = 0  # it becomes the submission's result; the command itself succeeded


class MissingFile(SubmissionError):
    kind = "missing-file"


class UnsupportedFileType(SubmissionError):
    kind = "unsupported-file-type"


class NotJson(SubmissionError):
    kind = "not-json"
    #: what to do, said after any message that does not already say it
    ADVICE = ("Open the file in Jupyter, JupyterLab or Colab: if it opens, save it there (File > Save) and submit "
              "that file again; if it does not, download your notebook again from where you wrote it (File > "
              "Download > .ipynb) and submit the download, or submit your code as a .py file.")

    def full_message(self) -> str:
        text = super().full_message()
        return text if "submit" in text.lower() else f"{text} {self.ADVICE}"


class NotANotebook(SubmissionError):
    kind = "not-a-notebook"


class DecodeFailure(SubmissionError):
    kind = "encoding"


class SyntaxProblem(SubmissionError):
    kind = "syntax-error"


class MissingFunction(SubmissionError):
    kind = "missing-function"


class ExerciseError(GraderError):
    """The exercise folder is broken: an instructor's problem, reported as a usage error."""

    kind = "exercise"
    exit_code = 2


class SandboxUnavailable(GraderError):
    """The sandbox asked for cannot run here (a forced mode this machine lacks, an unknown mode), or no worker slot
    is free: nothing was graded."""

    kind = "sandbox"
