"""Render results for people (the per-student HTML and Markdown reports) and lay out the output folder.

Wording and layout live in templates. Every value a student could have chosen goes through a helper of
``escape``: autoescape plus ``escape.html_text`` for HTML, code spans and fenced blocks for Markdown.

The output folder::

    OUT/gradebook.csv, OUT/junit.xml, OUT/summary.html          class files
    OUT/students/<folder>/result.json, report.html, report.md   one folder per student (and gradescope.json)

so no student id, whatever it is, can land on a class file.
"""
from __future__ import annotations

import secrets
import threading
from functools import lru_cache
from pathlib import Path

import jinja2
from markupsafe import Markup

from . import escape, templatecache
from .outfolder import (  # noqa: F401  (re-exported: the writers' file helpers)
    FILE_MODE, FOLDER_MODE, PRIVATE_FILE_MODE, PRIVATE_FOLDER_MODE, STUDENTS, folder_name, folder_names, make_folder,
    student_folder, write_atomic,
)
from .results import GradeResult

TEMPLATES = Path(__file__).resolve().parent / "templates"


@lru_cache(maxsize=None)
def environment(autoescape: bool) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        bytecode_cache=templatecache.for_environment("html" if autoescape else "text"),
        autoescape=autoescape,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        finalize=finalize,  # no hidden character reaches any page, whatever the template forgot
        auto_reload=False,  # read once per process: no stat of the template file on every page
    )
    env.filters["points"] = format_points
    env.filters["mdcell"] = lambda text: str(text).replace("|", "\\|").replace("\n", " ")  # trusted text only
    env.filters["md_code"] = escape.md_code
    env.filters["md_cell"] = escape.md_cell
    env.filters["md_fence"] = escape.md_fence
    env.filters["md_text"] = escape.md_text
    return env


#: ``finalize``'s remembered answers: plain strings up to ``_REMEMBERED_CHARS`` long, at most ``_REMEMBERED`` of them
#: (then forgotten all at once), so the memory they take stays under a few megabytes whatever a class holds.
_FINALIZED: dict[str, object] = {}
_REMEMBERED, _REMEMBERED_CHARS = 4096, 256


def finalize(value: object) -> object:
    """``escape.html_text``, Jinja's ``finalize`` for every page: the answer for a short plain string is remembered.

    Jinja finalises every ``{{ }}`` (about a hundred per report), and a class's reports show the same titles,
    statuses, points and messages again and again; ``html_text`` is a function of the string alone, so the
    remembered answer is the one it would give, at a dictionary look-up instead of two regular-expression passes
    (half of a report's rendering). A ``Markup`` string (a ``str`` subclass, equal to the plain string) is never
    looked up: it goes to ``html_text`` as before, which passes it on as markup."""
    if type(value) is not str or len(value) > _REMEMBERED_CHARS:
        return escape.html_text(value)
    try:
        return _FINALIZED[value]
    except KeyError:
        pass
    text = escape.html_text(value)
    if len(_FINALIZED) >= _REMEMBERED:
        _FINALIZED.clear()
    _FINALIZED[value] = text
    return text


def format_points(value: float) -> str:
    return f"{value:g}"


def render_html(result: GradeResult) -> str:
    return environment(True).get_template("report.html.j2").render(r=result)


def render_markdown(result: GradeResult, *, checks: bool = True, isolation: str = "") -> str:
    """The Markdown report; ``checks=False`` leaves out the checks table (Gradescope shows them as its tests).
    ``isolation``: a sentence on how the code was isolated, said instead of the list of layers.

    A batch asks for both of a result (``report.md``, then ``gradescope.json``'s output): both come from one
    rendering, remembered for the result last rendered on this thread (``_markdown_pages``)."""
    full, short = _markdown_pages(result, isolation)
    return full if checks else short


#: A rendering longer than this is not cut in two: ``html_text`` cuts what it finalises at 100,000 characters, and the
#: marks must not move that cut (the two pages are then rendered one by one, as they always were).
_LONGEST_MARKED = 50_000
_last_pages = threading.local()


def _markdown_pages(result: GradeResult, isolation: str) -> tuple[str, str]:
    """The Markdown report with and without its checks tables, from one rendering: the text with each table
    between two marks, then each page cut from it (the marks dropped, or the tables with their marks). The pair
    of the result last asked for on this thread is kept (the result itself held, so it is never another one at
    the same address), which spares Gradescope's copy its own rendering.

    A mark must outlive ``finalize``, which cleans every macro's output as a whole, so it is printable text, and
    nothing a student wrote may pass for one, so it holds a fresh random number each time: a student's text
    cannot hold what did not exist when it was written. Should the marks not pair up, or the text come near
    ``html_text``'s cut, each page is rendered by itself."""
    kept = getattr(_last_pages, "kept", None)
    if kept is not None and kept[0] is result and kept[1] == isolation:
        return kept[2]
    template = environment(False).get_template("report.md.j2")
    nonce = secrets.token_hex(8)
    start, end = f"[checks {nonce}>", f"<checks {nonce}]"
    text = template.render(r=result, checks=True, isolation=isolation,  # as markup: finalize never remembers it
                           checks_from=Markup(start), checks_to=Markup(end))
    tables = _tables(text, start, end) if len(text) <= _LONGEST_MARKED else None
    if tables is not None:
        full = text.replace(start, "").replace(end, "")
        outside = [0, *(at for table in tables for at in table), len(text)]
        short = "".join(text[outside[n]:outside[n + 1]] for n in range(0, len(outside), 2))
    else:
        full = template.render(r=result, checks=True, isolation=isolation, checks_from="", checks_to="")
        short = template.render(r=result, checks=False, isolation=isolation, checks_from="", checks_to="")
    _last_pages.kept = (result, isolation, (full, short))
    return full, short


def _tables(text: str, start: str, end: str) -> list[tuple[int, int]] | None:
    """Where each marked table is in ``text``: from its start mark to the end of its end mark; None unless the
    marks go start, end, start, end... as the template writes them."""
    tables, at = [], 0
    while (begin := text.find(start, at)) >= 0:
        stop = text.find(end, begin + len(start))
        if stop < 0 or end in text[at:begin] or start in text[begin + len(start):stop]:
            return None
        at = stop + len(end)
        tables.append((begin, at))
    return None if end in text[at:] else tables


def write_pages(result: GradeResult, folder: Path, *, private: bool = False) -> None:
    """A batch writer: the student's ``report.html`` and ``report.md`` in their folder (the batch writes
    ``result.json`` itself, after every writer)."""
    write_atomic(Path(folder) / "report.html", render_html(result), private=private)
    write_atomic(Path(folder) / "report.md", render_markdown(result), private=private)
