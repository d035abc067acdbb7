"""What a regrade changed: whose score moved, which checks flipped, and why the stored result was stale.

A batch that regrades students who had a stored result (``--force``, a new exercise version, a new grader, a
changed file or secret) reads each old ``result.json`` and ``.grade-key.json`` before the student is graded
again (``previous``), and the class files then say what moved: ``OUT/changes.csv`` and a section of
``summary.html``. ``grader diff OLD_OUT NEW_OUT`` says the same for two output folders, for instance before and
after fixing a reference, and exits 1 when any score changed, so a course can guard its regrades in CI.

The reasons come from the grading keys: the exercise's version (with a digest of its cases, checks and
reference), the grader's version (a digest of its code), the submission's SHA-256, the course secret's hash and
the full-scale setting. Every text a student chose goes through the helper of ``escape`` for its format.
"""
from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from . import escape, report
from .errors import UsageError
from .results import GradeResult

KEY_FILE = ".grade-key.json"  # the batch's sidecar (batch.KEY_FILE)
#: Fields of the grading key, and how a change of each is said.
REASONS = (("exercise_version", "exercise version"), ("grader", "grader version"),
           ("submission_sha256", "file changed"), ("secret_sha256", "secret changed"),
           ("full_scale", "full-scale setting changed"))
FORCED = "--force"
UNKNOWN = "no grading key stored with the old result"
SAME = "same inputs"
NOT_REUSABLE = "stored result not reusable (unreadable, edited or unsigned)"
CSV_COLUMNS = ("student", "old_score", "new_score", "max_score", "change", "old_status", "new_status",
               "checks_flipped", "why")
CHANGES_FILE = "changes.csv"


@dataclass(frozen=True)
class Previous:
    """A student's stored result, read before the regrade replaced it, and why it was stale."""

    result: GradeResult
    reasons: tuple[str, ...]


@dataclass(frozen=True)
class Change:
    student: str
    folder: str | None  # OUT/students/<folder>, for a link
    old: GradeResult | None  # None: the student was not in the old results
    new: GradeResult | None  # None: the student is not in the new results
    flipped: tuple[tuple[str, str, str], ...]  # (check id, old status, new status); "exercise: id" in sections
    reasons: tuple[str, ...]
    #: an assignment's exercises whose section moved: (exercise, old score, new score) as ``_score`` says them
    sections: tuple[tuple[str, str, str], ...] = ()

    @property
    def score_changed(self) -> bool:
        """A new maximum moves the grade too (8/17 -> 8/19 is 47 % -> 42 %, and the LMS's points possible)."""
        return self.old is None or self.new is None or (self.old.score, self.old.max_score) != (
            self.new.score, self.new.max_score)

    @property
    def changed(self) -> bool:
        return (self.score_changed or bool(self.flipped) or bool(self.sections)
                or self.old.status != self.new.status)

    @property
    def delta(self) -> float | None:
        return None if self.old is None or self.new is None else self.new.score - self.old.score


# -- reading ----------------------------------------------------------------------------------------------------
def stale_reasons(old_key: dict | None, new_key: dict | None, forced: bool = False,
                  same: str = SAME) -> tuple[str, ...]:
    """Why a result graded from ``old_key`` was not reused for ``new_key``: the fields that differ, in words
    (``same`` when none does and the run was not forced)."""
    if not isinstance(old_key, dict) or not isinstance(new_key, dict):
        return (FORCED,) if forced and isinstance(old_key, dict) else (UNKNOWN,)
    reasons = []
    for name, words in REASONS:
        if old_key.get(name) != new_key.get(name):
            if name == "exercise_version":
                words = f"{words} ({_short(old_key.get(name))} -> {_short(new_key.get(name))})"
            reasons.append(words)
    return tuple(reasons) or ((FORCED,) if forced else (same,))


def _short(version: object) -> str:
    """``1+0123456789abcdef`` as ``1+01234567``: enough to tell two versions apart."""
    text = escape.terminal(version, 80)
    number, plus, digest = text.partition("+")
    return f"{number}{plus}{digest[:8]}"


def _read(folder: Path) -> tuple[GradeResult | None, dict | None]:
    try:
        result = GradeResult.from_json((folder / "result.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, TypeError, KeyError):
        return None, None
    try:
        key = json.loads((folder / KEY_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        key = None
    return result, key if isinstance(key, dict) else None


def previous(folder: Path, key: dict | None, forced: bool) -> Previous | None:
    """The stored result in a student's ``folder`` and why it is stale for ``key``; None when there is none."""
    result, old_key = _read(Path(folder))
    if result is None:
        return None
    return Previous(result, stale_reasons(old_key, key, forced, NOT_REUSABLE))


# -- comparing --------------------------------------------------------------------------------------------------
def _statuses(result: GradeResult) -> dict[str, str]:
    """Each check's status by id; in an assignment's result, by ``exercise: id``."""
    return {f"{part.exercise}: {c.id}" if result.sections else c.id: c.status for part, c in result.all_checks()}


def flipped_checks(old: GradeResult, new: GradeResult) -> tuple[tuple[str, str, str], ...]:
    before = _statuses(old)
    after = _statuses(new)
    ids = list(before) + [i for i in after if i not in before]
    return tuple((i, before.get(i, "absent"), after.get(i, "absent")) for i in ids
                 if before.get(i, "absent") != after.get(i, "absent"))


def moved_sections(old: GradeResult, new: GradeResult) -> tuple[tuple[str, str, str], ...]:
    """The exercises whose section's score or status differs (one only in either result counts as moved)."""
    if not old.sections and not new.sections:
        return ()
    before, after = {p.exercise: p for p in old.sections}, {p.exercise: p for p in new.sections}
    moved = []
    for exercise in list(before) + [e for e in after if e not in before]:
        a, b = before.get(exercise), after.get(exercise)
        if a is None or b is None or (a.score, a.max_score, a.status) != (b.score, b.max_score, b.status):
            moved.append((exercise, _score(a), _score(b)))
    return tuple(moved)


def change(old: GradeResult | None, new: GradeResult | None, reasons: Sequence[str],
           folder: str | None = None) -> Change:
    student = (new or old).student
    both = old is not None and new is not None
    flipped = flipped_checks(old, new) if both else ()
    repointed = tuple(f"points of {i} changed ({a:g} -> {b:g})" for i, a, b in repointed_checks(old, new)) \
        if both else ()
    return Change(student, folder, old, new, flipped, tuple(reasons) + repointed,
                  moved_sections(old, new) if both else ())


def repointed_checks(old: GradeResult, new: GradeResult) -> tuple[tuple[str, float, float], ...]:
    """The checks in both results whose points are worth another maximum: an instructor's edit of
    ``exercise.toml`` moves scores with no check flipping, and "exercise version" alone would not say why."""
    before, after = _worth(old), _worth(new)
    return tuple((i, before[i], points) for i, points in after.items() if i in before and before[i] != points)


def _worth(result: GradeResult) -> dict[str, float]:
    """Each check's maximum by id, named as ``_statuses`` names it."""
    return {f"{part.exercise}: {c.id}" if result.sections else c.id: c.max_points for part, c in result.all_checks()}


def batch_changes(outcomes: Iterable) -> list[Change]:
    """From a batch's outcomes: every student regraded over a stored result, changed or not."""
    found = [change(o.previous.result, o.result, o.previous.reasons, o.entry.folder) for o in outcomes
             if getattr(o, "previous", None) is not None and not o.reused]
    return sorted(found, key=lambda c: c.student)


def summary(regraded: Sequence[Change]) -> dict | None:
    """What summary.html shows: how many were regraded and why, and one row per student whose result moved."""
    if not regraded:
        return None
    why: dict[str, int] = {}
    for c in regraded:
        for reason in c.reasons:
            why[reason] = why.get(reason, 0) + 1
    changed = [c for c in regraded if c.changed]
    return {"regraded": len(regraded), "changed": len(changed), "href": CHANGES_FILE,
            "moved": sum(1 for c in changed if c.score_changed), "why": sorted(why.items(), key=lambda w: -w[1]),
            "rows": [_row(c) for c in changed]}


def _row(c: Change) -> dict:
    return {"student": c.student, "folder": c.folder,
            "old": _score(c.old), "new": _score(c.new), "delta": _delta(c),
            "flipped": "; ".join(f"{i}: {a} -> {b}" for i, a, b in c.flipped), "why": "; ".join(c.reasons),
            "exercises": "; ".join(f"{e} {a} -> {b}" for e, a, b in c.sections)}


def _score(result: GradeResult | None) -> str:
    if result is None:
        return "absent"
    text = f"{result.score:g}/{result.max_score:g}"
    return text if result.status == "graded" else f"{text} (not graded: {result.error.kind if result.error else 'error'})"


def _delta(c: Change) -> str:
    return "" if c.delta is None else f"{c.delta:+g}"


def render_csv(changes: Sequence[Change]) -> str:
    """One row per change; when an assignment's results are compared, ``exercises_changed`` (last) says which
    exercises' sections moved, old -> new."""
    sectioned = any(r is not None and r.sections for c in changes for r in (c.old, c.new))
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([*CSV_COLUMNS, *(["exercises_changed"] if sectioned else [])])
    for c in changes:
        top = (c.new or c.old).max_score
        row = _row(c)
        writer.writerow([escape.csv_cell(c.student), "" if c.old is None else f"{c.old.score:g}",
                         "" if c.new is None else f"{c.new.score:g}", f"{top:g}", _delta(c),
                         "absent" if c.old is None else c.old.status, "absent" if c.new is None else c.new.status,
                         escape.csv_cell(row["flipped"]), escape.csv_cell(row["why"]),
                         *([escape.csv_cell(row["exercises"])] if sectioned else [])])
    return buffer.getvalue()


def write_changes(out: Path, regraded: Sequence[Change], *, private: bool = False) -> list[str]:
    """``OUT/changes.csv``, the students whose result moved, when this run regraded students over stored results
    (with no row when none moved); otherwise no file, and one left by an earlier run is removed."""
    path = Path(out) / CHANGES_FILE
    try:
        if regraded:
            report.write_atomic(path, render_csv([c for c in regraded if c.changed]), private=private)
        else:
            path.unlink(missing_ok=True)
    except Exception as exc:  # noqa: BLE001  (one class file lost, never the others)
        return [f"{CHANGES_FILE} could not be written ({type(exc).__name__}: {escape.terminal(exc, 300)})"]
    return []


# -- grader diff ------------------------------------------------------------------------------------------------
def _results(out: Path) -> dict[str, tuple[GradeResult, dict | None, str]]:
    students = Path(out) / report.STUDENTS
    if not Path(out).exists():
        raise UsageError(f"{escape.terminal(out)} does not exist.")
    if not students.is_dir():
        raise UsageError(f"{escape.terminal(out)} is not an output folder of `grader grade --out` (it has no "
                         f"{report.STUDENTS}/ folder).")
    roster = _roster(Path(out))
    found = {}
    for folder in sorted(p for p in students.iterdir() if p.is_dir() and not p.is_symlink()):
        if roster is not None and folder.name not in roster:  # a student no longer in the class: a stale folder
            continue
        result, key = _read(folder)
        if result is not None:
            found[result.student] = (result, key, folder.name)
    return found


def _roster(out: Path) -> set[str] | None:
    """The student folders of the run that wrote ``out`` (its manifest's class), None without a readable manifest.

    A grade run keeps the folder of a student who has left the class folder since (it deletes no one's reports),
    so reading every folder made ``grader diff`` call a student removed from the class unchanged. The manifest is
    read for its roster only: a score is never taken from it, so its signature is not needed here.
    """
    try:
        manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
        return {str(item["folder"]) for item in manifest["class"]}
    except (OSError, ValueError, KeyError, TypeError, RecursionError):
        return None


def _graded(results: dict[str, tuple[GradeResult, dict | None, str]]) -> set[str]:
    """What a folder's results grade: the assignment's name, or the exercise's id."""
    return {result.assignment or result.exercise for result, _, _ in results.values()}


def diff(old_out: Path, new_out: Path) -> list[Change]:
    """Every student whose result differs between two output folders, or who is in only one of them.

    Two folders of different exercises (one exercise's reports given for another's) are a usage error: compared,
    every student of each was listed as only in one of them, as if the whole class had been regraded."""
    old, new = _results(old_out), _results(new_out)
    before, after = _graded(old), _graded(new)
    if len(before) == 1 and len(after) == 1 and before != after:
        raise UsageError(f"{escape.terminal(old_out)} holds the results of '{escape.terminal(before.pop(), 80)}' and "
                         f"{escape.terminal(new_out)} those of '{escape.terminal(after.pop(), 80)}': `grader diff` "
                         "compares two runs of one exercise (or assignment). Give two output folders of the same.")
    changes = []
    for student in sorted(set(old) | set(new)):
        before, after = old.get(student), new.get(student)
        if before is None or after is None:
            reasons = ("only in the new results",) if before is None else ("only in the old results",)
        else:
            reasons = stale_reasons(before[1], after[1])
        found = change(before and before[0], after and after[0], reasons, (after or before)[2])
        if found.changed:
            changes.append(found)
    return changes


def diff_lines(changes: Sequence[Change], old_out: Path, new_out: Path) -> list[str]:
    """What ``grader diff`` prints: one line per student, every text escaped for a terminal."""
    if not changes:
        return [f"No result changed between {escape.terminal(old_out)} and {escape.terminal(new_out)}."]
    moved = sum(1 for c in changes if c.score_changed)
    lines = [f"{moved} score{'' if moved == 1 else 's'} changed, {len(changes)} result"
             f"{'' if len(changes) == 1 else 's'} in all, from {escape.terminal(old_out)} to "
             f"{escape.terminal(new_out)}:"]
    for c in changes:
        row = _row(c)
        line = f"  {escape.terminal(c.student, 120)}: {row['old']} -> {row['new']}"
        line += f" ({row['delta']})" if row["delta"] and row["delta"] not in ("+0", "-0") else ""
        line += f"; exercises: {escape.terminal(row['exercises'], 400)}" if row["exercises"] else ""
        line += f"; checks: {escape.terminal(row['flipped'], 400)}" if row["flipped"] else ""
        lines.append(line + f"; why: {escape.terminal(row['why'], 300)}")
    return lines
