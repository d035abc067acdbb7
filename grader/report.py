"""Render results for people (the per-student HTML and Markdown reports) and lay out the output folder.

Wording and layout live in templates. Every value a student could have chosen goes through a helper of
``escape``: autoescape plus ``escape.html_text`` for HTML, code spans and fenced blocks for Markdown.

The output folder::

    OUT/gradebook.csv, OUT/junit.xml, OUT/summary.html          class files
    OUT/students/<folder>/result.json, report.html, report.md   one folder per student (and gradescope.json)

so no student id, whatever it is, can land on a class file.
"""
from __future__ import annotations

import hashlib
import os
import tempfile
import unicodedata
from functools import lru_cache
from pathlib import Path
from typing import Iterable

import jinja2

from . import escape
from .results import GradeResult

TEMPLATES = Path(__file__).resolve().parent / "templates"
STUDENTS = "students"  # OUT/students/<folder>/
FILE_MODE, FOLDER_MODE = 0o644, 0o755  # a TA or a web server can read what the grader wrote, even as root
PRIVATE_FILE_MODE, PRIVATE_FOLDER_MODE = 0o600, 0o700  # --private
FOLDER_NAME_CHARS = 64


@lru_cache(maxsize=None)
def environment(autoescape: bool) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=autoescape,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        finalize=escape.html_text,  # no hidden character reaches any page, whatever the template forgot
    )
    env.filters["points"] = format_points
    env.filters["mdcell"] = lambda text: str(text).replace("|", "\\|").replace("\n", " ")  # trusted text only
    env.filters["md_code"] = escape.md_code
    env.filters["md_cell"] = escape.md_cell
    env.filters["md_fence"] = escape.md_fence
    env.filters["md_text"] = escape.md_text
    return env


def format_points(value: float) -> str:
    return f"{value:g}"


def render_html(result: GradeResult) -> str:
    return environment(True).get_template("report.html.j2").render(r=result)


def render_markdown(result: GradeResult, *, checks: bool = True, isolation: str = "") -> str:
    """The Markdown report; ``checks=False`` leaves out the checks table (Gradescope shows them as its tests).
    ``isolation``: a sentence on how the code was isolated, said instead of the list of layers."""
    return environment(False).get_template("report.md.j2").render(r=result, checks=checks, isolation=isolation)


# -- writing ----------------------------------------------------------------------------------------------------
def make_folder(folder: Path, *, private: bool = False) -> Path:
    """Create ``folder`` (and its parents) readable by others (0755), or by the owner only under ``private``."""
    folder = Path(folder)
    missing = []
    here = folder
    while not here.exists():
        missing.append(here)
        if here.parent == here:
            break
        here = here.parent
    folder.mkdir(parents=True, exist_ok=True)
    for created in missing:  # whatever the umask: only the folders made here
        os.chmod(created, PRIVATE_FOLDER_MODE if private else FOLDER_MODE)
    return folder


def write_atomic(path: Path, text: str, *, private: bool = False) -> None:
    """Write through a temporary file and rename, so a reader never sees half a file; mode 0644 (0600 private)."""
    path = Path(path)
    make_folder(path.parent, private=private)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, PRIVATE_FILE_MODE if private else FILE_MODE)
        with os.fdopen(fd, "w", encoding="utf-8", errors="replace", newline="\n") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def student_folder(out: Path, folder: str) -> Path:
    return Path(out) / STUDENTS / folder


def write_student(result: GradeResult, folder: Path, *, private: bool = False, result_text: str | None = None) -> Path:
    """Write ``result.json`` (``result_text``: its signed text), ``report.html`` and ``report.md`` into the
    student's ``folder``; return it."""
    folder = make_folder(folder, private=private)
    os.chmod(folder, PRIVATE_FOLDER_MODE if private else FOLDER_MODE)
    write_atomic(folder / "report.html", render_html(result), private=private)
    write_atomic(folder / "report.md", render_markdown(result), private=private)
    # last: its presence marks a finished grade
    write_atomic(folder / "result.json", result_text if result_text is not None else result.to_json() + "\n",
                 private=private)
    return folder


# -- folder names -----------------------------------------------------------------------------------------------
def folder_names(students: Iterable[str]) -> dict[str, str]:
    """One folder name per student id, unique in the class, even on a case-insensitive file system.

    An id that is already a plain name (letters, digits, ``-_.@+``, at most 64 characters, no leading dot or
    dash) is its own folder. Any other id is cleaned and gets a short hash of the id, so ``alice.`` and
    ``alice`` never share ``alice``. Names that would still clash get a longer hash.
    """
    ids = sorted(set(students))
    level = {s: 0 if _cleaned(s) == s else 1 for s in ids}
    for _ in range(3):
        names = {s: _name(s, level[s]) for s in ids}
        groups: dict[str, list[str]] = {}
        for s, name in names.items():
            groups.setdefault(unicodedata.normalize("NFKC", name).casefold(), []).append(s)
        clashing = [s for group in groups.values() if len(group) > 1 for s in group]
        if not clashing:
            return names
        for s in clashing:
            level[s] = min(level[s] + 1, 2)
    return {s: _name(s, 2) for s in ids}  # 64 hex digits: distinct ids cannot clash


def folder_name(student: str) -> str:
    """The folder of a student graded alone (one file on the command line)."""
    return folder_names([student])[student]


def _cleaned(student: str) -> str:
    text = escape.readable(student)
    cleaned = "".join(c if c.isalnum() or c in "-_.@+" else "_" for c in text)
    return cleaned.lstrip(".-").rstrip(".")[:FOLDER_NAME_CHARS] or "_"


def _name(student: str, level: int) -> str:
    if level == 0:
        return _cleaned(student)
    digest = hashlib.sha256(student.encode("utf-8", "surrogatepass")).hexdigest()
    return f"{_cleaned(student)}-{digest[:10] if level == 1 else digest}"
