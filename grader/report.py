"""Render results for people: the per-student HTML and Markdown reports. Wording and layout live in templates."""
from __future__ import annotations

import os
import tempfile
from functools import lru_cache
from pathlib import Path

import jinja2

from .results import GradeResult

TEMPLATES = Path(__file__).resolve().parent / "templates"


@lru_cache(maxsize=None)
def environment(autoescape: bool) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=autoescape,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["points"] = format_points
    env.filters["mdcell"] = lambda text: str(text).replace("|", "\\|").replace("\n", " ")
    return env


def format_points(value: float) -> str:
    return f"{value:g}"


def render_html(result: GradeResult) -> str:
    return environment(True).get_template("report.html.j2").render(r=result)


def render_markdown(result: GradeResult) -> str:
    return environment(False).get_template("report.md.j2").render(r=result)


def write_atomic(path: Path, text: str) -> None:
    """Write through a temporary file and rename, so a reader never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_student(result: GradeResult, out: Path) -> Path:
    """Write ``OUT/<student>/result.json``, ``report.html`` and ``report.md``; return the folder."""
    folder = Path(out) / safe_name(result.student)
    write_atomic(folder / "report.html", render_html(result))
    write_atomic(folder / "report.md", render_markdown(result))
    write_atomic(folder / "result.json", result.to_json() + "\n")  # last: its presence marks a finished grade
    return folder


def safe_name(student: str) -> str:
    """A folder name that cannot climb out of OUT or hide: student ids come from file and folder names."""
    cleaned = "".join(c if c.isalnum() or c in "-_.@+" else "_" for c in student).strip(".")
    return cleaned or "_"
