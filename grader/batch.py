"""Find the submissions under the paths given and grade them (serially for now)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .errors import MissingFile
from .grade import Session, grade_file
from .results import GradeResult
from .submission import SUFFIXES


@dataclass(frozen=True)
class Entry:
    path: Path
    student: str


def discover(paths: list[Path]) -> list[Entry]:
    entries = []
    for path in paths:
        if not path.exists():
            raise MissingFile(f"The path {path} does not exist.")
        if path.is_file():
            entries.append(Entry(path, path.stem))
            continue
        for child in sorted(path.iterdir()):
            if child.is_file() and child.suffix.lower() in SUFFIXES:
                entries.append(Entry(child, child.stem))
    return entries


def grade_all(entries: list[Entry], session: Session) -> list[GradeResult]:
    return [grade_file(e.path, session, e.student) for e in entries]
