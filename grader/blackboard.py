"""Blackboard Learn's Grade Center upload (Work Offline > Upload): ``OUT/blackboard.xls``.

What Blackboard asks of the file: a header row; the ``Username`` column is the key of each row; a grade column
fills an existing Grade Center column only when its header ends with that column's id
(``Homework 1 [Total Pts: 20 Score] |123456``), otherwise the upload adds a new *text* column worth 0 points
that no total counts. Comma files must quote every cell; Blackboard recommends tab-delimited files, which need no
quotes but can hold no tab or line break in a cell. Its own downloads are tab-delimited UTF-16 text named ``.xls``,
and the upload takes them back as they are, so this file is written the same way.

The column id is known only to Blackboard, so the instructor downloads the assignment's column (Work Offline >
Download, Selected Column, or the full Grade Center) and gives that file with ``--lms-template``: its header
says the column's exact name and id, its points and its users. Without a template the header carries no id and
the upload makes a new column; the command line says so before anything is graded.

A student id is a Blackboard username as it is, or the username inside Blackboard's assignment download name
(``<assignment>_<username>_attempt_<yyyy-mm-dd-hh-mm-ss>[_<file>]``): with a template, the username of the
template that the name holds; without one, the last ``_``-free part before ``_attempt_``.
"""
from __future__ import annotations

import csv
import dataclasses
import io
import re
from pathlib import Path

from . import escape
from .text import quote

FILENAME = "blackboard.xls"
_COLUMN = re.compile(r"^(?P<name>.*?)\s*\[(?P<info>[^\]]*)\]\s*\|\s*(?P<id>\d+)\s*$")
_POINTS = re.compile(r"Total Pts:\s*(?P<up>up to\s*)?(?P<points>[0-9.]+)")
_ATTEMPT = re.compile(r"^(?P<head>.+)_attempt_\d{4}(?:-\d{2}){5}(?:_|$)")
#: Grade Center's own columns: user details and totals, never a place for this assignment's grade.
_USER_COLUMNS = {"last name", "first name", "username", "student id", "last access", "availability",
                 "child course id"}
_MAX_TEMPLATE_BYTES = 50 * 1024 * 1024


@dataclasses.dataclass(frozen=True)
class Template:
    """What a Grade Center download says about the assignment's column: its header, points, and the users."""
    header: str
    points: float | None
    usernames: frozenset[str]
    source: str


class TemplateError(ValueError):
    """A template that cannot name the column; the message is one sentence for the instructor."""


def read_template(path: Path, assignment: str | None) -> Template:
    """The column of ``path`` (a Grade Center download) to fill: the one named ``assignment`` (its name or its
    id), else the only gradable column there is. Refused, with a sentence, when that is not one column."""
    shown = escape.terminal(path)
    try:
        with open(path, "rb") as handle:
            data = handle.read(_MAX_TEMPLATE_BYTES + 1)
    except OSError as exc:
        raise TemplateError(f"The Blackboard template {shown} cannot be read: {exc.strerror or exc}.") from None
    if len(data) > _MAX_TEMPLATE_BYTES:
        raise TemplateError(f"The Blackboard template {shown} is larger than 50 MB: is it a Grade Center download?")
    rows = _rows(_decode(data))
    if not rows:
        raise TemplateError(f"The Blackboard template {shown} is empty: download the column from Grade Center "
                            "(Work Offline > Download).")
    header = [cell.strip() for cell in rows[0]]
    lowered = [cell.lower() for cell in header]
    if "username" not in lowered:
        raise TemplateError(f"The Blackboard template {shown} has no Username column in its first row: download "
                            "it from Grade Center (Work Offline > Download) and give it unchanged.")
    user = lowered.index("username")
    columns = [(i, m) for i, m in ((i, _COLUMN.match(text)) for i, text in enumerate(header))
               if m and m["name"].strip().lower() not in _USER_COLUMNS and not _calculated(m["info"])]
    if assignment:
        chosen = [(i, m) for i, m in columns if assignment.strip() in (m["name"].strip(), m["id"])]
    else:
        chosen = columns
    if len(chosen) != 1:
        names = ", ".join(quote(m["name"], 80) + f" (id {m['id']})" for _, m in columns) or "none"
        asked = f"named {quote(assignment, 80)} " if assignment else ""
        how = ("name one with --lms-assignment (its name or its id)" if len(chosen) > 1 or not assignment
               else "give one of those names or ids to --lms-assignment")
        raise TemplateError(f"The Blackboard template {shown} has {len(chosen) or 'no'} gradable column"
                            f"{'' if len(chosen) == 1 else 's'} {asked}(columns with an id: {names}): {how}.")
    index, match = chosen[0]
    points = _POINTS.search(match["info"])
    users = frozenset(row[user].strip() for row in rows[1:] if len(row) > user and row[user].strip())
    return Template(header=header[index], points=float(points["points"]) if points else None, usernames=users,
                    source=str(path))


def _calculated(info: str) -> bool:
    """Weighted Total, Total and other calculated columns say ``Total Pts: up to N``: they take no upload."""
    points = _POINTS.search(info)
    return bool(points and points["up"])


def _decode(data: bytes) -> str:
    """Grade Center downloads are UTF-16 with a byte-order mark; a file saved again by a spreadsheet may be UTF-8."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", errors="replace")
    return data.decode("utf-8-sig", errors="replace")


def _rows(text: str) -> list[list[str]]:
    first = text.split("\n", 1)[0]
    delimiter = "\t" if "\t" in first else ","
    return [row for row in csv.reader(io.StringIO(text), delimiter=delimiter) if any(cell.strip() for cell in row)]


def username(student: str, template: Template | None) -> str:
    """The Blackboard username a student id stands for (see the top)."""
    match = _ATTEMPT.match(student)
    if not match:
        return student
    head = match["head"]
    if template is not None:
        known = [name for name in template.usernames if head.endswith("_" + name)]
        if known:
            return max(known, key=len)
    return head.rsplit("_", 1)[-1]


def cell(value: object) -> str:
    """A tab-delimited cell: no tab or line break (they would split the cell or the row), and no formula."""
    text = escape.readable(value)
    text = re.sub(r"[\t\r\n\x0b\x0c\x1c-\x1e\x85\u2028\u2029]+", " ", text)
    return escape.csv_cell(text)


def header(assignment: str, maximum: float, template: Template | None) -> str:
    """The grade column's header: the template's, id included, else a new column's name and points."""
    if template is not None:
        return template.header
    return f"{assignment} [Total Pts: {maximum:g} Score]"


def render(rows: list[tuple[str, str]], column: str) -> str:
    """The file's text: ``Username`` and the grade column, tab-delimited, CRLF line ends."""
    lines = ["\t".join(("Username", cell(column)))]
    lines += ["\t".join((cell(user), score)) for user, score in rows]
    return "\r\n".join(lines) + "\r\n"


def encode(text: str) -> bytes:
    """The bytes Blackboard's own download has: UTF-16 with a byte-order mark (its upload reads them back)."""
    return text.encode("utf-16")


def notes(usernames: list[str], maximum: float, template: Template | None) -> list[str]:
    """Sentences for stderr: a column the upload will create, a points mismatch, users the template lacks."""
    if template is None:
        return [f"{FILENAME} names its grade column without a Grade Center column id, so Blackboard's upload adds "
                "it as a new text column worth 0 points: download the assignment's column (Work Offline > "
                "Download) and give that file with --lms-template to fill it."]
    found = []
    if template.points is not None and abs(template.points - maximum) > 1e-9:
        found.append(f"The Blackboard column {quote(template.header, 120)} is worth "
                     f"{template.points:g} points and the scores are out of {maximum:g}: Blackboard records them "
                     "as they are.")
    unknown = sorted({name for name in usernames if name not in template.usernames})
    if unknown:
        shown = ", ".join(escape.terminal(name, 60) for name in unknown[:5]) + (", ..." if len(unknown) > 5 else "")
        found.append(f"{len(unknown)} student id{'s are' if len(unknown) > 1 else ' is'} not a username of "
                     f"{escape.terminal(template.source)} ({shown}): the upload matches rows by username, so "
                     f"name those submissions by username or add those rows by hand.")
    return found
