"""Render results for people (the per-student HTML and Markdown reports) and lay out the output folder.

Wording and layout live in templates. Every value a student could have chosen goes through a helper of
``escape``: autoescape plus ``escape.html_text`` for HTML, code spans and fenced blocks for Markdown.

The output folder::

    OUT/gradebook.csv, OUT/junit.xml, OUT/summary.html          class files
    OUT/students/<folder>/result.json, report.html, report.md   one folder per student (and gradescope.json)

so no student id, whatever it is, can land on a class file.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from . import escape
from .outfolder import (  # noqa: F401  (re-exported: the writers' file helpers)
    FILE_MODE, FOLDER_MODE, PRIVATE_FILE_MODE, PRIVATE_FOLDER_MODE, STUDENTS, folder_name, folder_names, make_folder,
    student_folder, write_atomic,
)
from .results import GradeResult

if TYPE_CHECKING:
    import jinja2

TEMPLATES = Path(__file__).resolve().parent / "templates"


@lru_cache(maxsize=None)
def environment(autoescape: bool) -> jinja2.Environment:
    # Jinja (about 20 ms of imports) loads with the first page, not with the grader: a batch's first runs start
    # while it loads.
    import jinja2

    from . import templatecache

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
    env.globals["unexplained"] = unexplained
    return env


#: the checks that fail when a call did not return (it raised, ran out of time, or ended the process) and when the
#: submission did not run to its end
RETURNS_CHECK, COMPLETES_CHECK = "returns", "completes"


def unexplained(part: object) -> str:
    """What to say when points were lost and no known mistake matched. A call that ended the process itself
    (``os._exit``, a segfault, a kill) is named by no mistake, and "compare your function with the computation"
    would send a student whose every value was right to the arithmetic: the failed check says how the call ended."""
    checks = tuple(getattr(part, "checks", ()))
    lost = [c for c in checks if c.points < c.max_points]
    if lost and all(c.id == COMPLETES_CHECK for c in lost):  # the function was right; the notebook did not end
        return (f"Your function's results were right: the points lost are the check '{lost[0].title}' below, which "
                "says where your submission stopped (a cell that loops, waits for input or was interrupted). Make "
                "it run to its end.")
    failed = next((c for c in checks if c.id == RETURNS_CHECK and c.status != "passed"), None)
    # worded for any exercise: "one layer at a time" fitted one network head alone, not a reordering of columns
    advice = "compare your function with the computation in the statement, one step at a time."
    if failed is None:
        return f"No known mistake matched your results. {advice[0].upper()}{advice[1:]}"
    return (f"No known mistake matched your results, but at least one call did not return a result: the check "
            f"'{failed.title}' below says how it ended. Start there; then {advice}")


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
    ``isolation``: a sentence on how the code was isolated, said instead of the list of layers."""
    return environment(False).get_template("report.md.j2").render(r=result, checks=checks, isolation=isolation)


def write_pages(result: GradeResult, folder: Path, *, private: bool = False) -> None:
    """A batch writer: the student's ``report.html`` and ``report.md`` in their folder (the batch writes
    ``result.json`` itself, after every writer). The page names the student's file, not the path to it on the
    machine that graded (the instructor's home, a runner's folders); ``result.json`` keeps the path."""
    from dataclasses import replace

    shown = replace(result, submission=Path(result.submission).name) if result.submission else result
    write_atomic(Path(folder) / "report.html", render_html(shown), private=private)
    write_atomic(Path(folder) / "report.md", render_markdown(result), private=private)


def warm_pages() -> None:
    """Load Jinja and the student pages' templates now. A batch calls it (``write_pages.warm``) just before it forks
    copies of itself: each copy then finds them loaded, where it would load them again after the fork (about 35 ms
    of CPU each, which the batch's runs need)."""
    environment(True).get_template("report.html.j2")
    environment(False).get_template("report.md.j2")


write_pages.warm = warm_pages  # type: ignore[attr-defined]
