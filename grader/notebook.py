"""Generate the student notebook of an exercise (``grader notebook``), byte for byte reproducibly.

The notebook is built from the exercise folder alone, so the code knows nothing about any one exercise:

* ``statement.md``: one markdown cell per ``## `` section (the text before the first section opens the notebook);
* ``starter.py``: the code cell the student fills in;
* ``selfcheck.py`` (optional): NumPy-only code that checks the student's function on the public cases. The
  generator puts it after a header that defines ``EXPECTED`` (the reference's results on ``public_cases()``,
  written out as rounded literal numbers, so neither the reference nor the grader is needed to run it),
  ``RTOL`` and ``ATOL_SCALE`` (the exercise's tolerance);
* the wording around them (intro, self-check, how to submit) comes from ``templates/notebook_*.j2``, with the
  time and memory limits filled in from ``exercise.toml``.

Cells get ids derived from their content's position and headings, there are no timestamps or outputs, and
numbers are rounded so that a last-bit difference between BLAS libraries does not change the file: generating
twice gives identical bytes, and a test compares the committed notebook with a fresh one.

An assignment's notebook (``grader notebook --assignment NAME``, ``build_assignment``) holds every exercise of it
in turn: its statement (headings one level down, under "Exercise N"), its solution cell and its self-check, with
an intro listing the functions and one "How to submit" for the whole file. Each self-check runs inside a function
of its own, so the names one defines (``close``, ``call``, ``EXPECTED``...) never replace a student's own or
another exercise's. The metadata names the assignment (``metadata.grader.assignment``) and its exercises
(``metadata.grader.exercises``), which ``grader check`` reads.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from .assignment import Assignment, combined_limits
from .errors import ExerciseError
from .exercise import Exercise, is_plain_id
from .report import environment, write_atomic

#: significant digits of the expected values written into the self-check cell
DIGITS = 12
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
#: what a kernel writes once it has run: without file_extension, `jupyter nbconvert --to script` (and the export
#: menus of a notebook never run) make a .txt, a file the grader refuses
LANGUAGE_INFO = {"name": "python", "file_extension": ".py", "mimetype": "text/x-python",
                 "nbconvert_exporter": "python", "pygments_lexer": "ipython3"}


def split_statement(text: str) -> list[str]:
    """Split markdown at level-2 headings (``## ``) outside fenced code blocks; empty chunks are dropped."""
    chunks: list[list[str]] = [[]]
    for line, prose in _lines_outside_fences(text.replace("\r\n", "\n")):
        if prose and line.startswith("## "):
            chunks.append([])
        chunks[-1].append(line)
    return [c for c in ("\n".join(lines).strip() for lines in chunks) if c]


def _lines_outside_fences(markdown: str):
    """Each line with whether it is prose (outside a fenced code block, and not a fence line itself)."""
    fence = ""
    for line in markdown.split("\n"):
        stripped = line.lstrip()
        if fence:
            if stripped.startswith(fence):
                fence = ""
            yield line, False
        elif stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
            yield line, False
        else:
            yield line, True


def _slug(chunk: str, taken: set[str], fallback: str, prefix: str = "") -> str:
    first = chunk.splitlines()[0] if chunk else ""
    slug = re.sub(r"[^a-z0-9]+", "-", first.lstrip("#").strip().lower()).strip("-")[:48] if first.startswith("#") else ""
    slug = (prefix + (slug or fallback))[:56]  # a cell id has at most 64 characters, a suffix "-N" included
    candidate, n = slug, 2
    while candidate in taken:
        candidate, n = f"{slug}-{n}", n + 1
    taken.add(candidate)
    return candidate


def _number(value: float, digits: int) -> str:
    return repr(float(format(float(value), f".{digits}g")))


def literal(array: np.ndarray, digits: int = DIGITS, indent: str = "    ") -> str:
    """A Python literal for a numeric array: nested lists, one row per line, numbers rounded to ``digits``."""
    array = np.asarray(array, dtype=np.float64)
    if array.ndim == 0:
        return _number(array, digits)
    if array.ndim == 1:
        return "[" + ", ".join(_number(x, digits) for x in array) + "]"
    inner = indent + "    "
    rows = "".join(f"{inner}{literal(row, digits, inner)},\n" for row in array)
    return f"[\n{rows}{indent}]"


def selfcheck_source(exercise: Exercise) -> str | None:
    """The self-check cell's code: the template's header with the expected values, then ``selfcheck.py``."""
    path = exercise.folder / "selfcheck.py"
    if not path.is_file():
        return None
    cases = exercise.public_cases()
    if not cases:
        raise ExerciseError(f"{path} exists but the exercise has no public cases to check against.")
    expected = [(case.name, _literal(exercise.expected(case))) for case in cases]
    return environment(False).get_template("notebook_selfcheck.py.j2").render(
        expected=expected, digits=DIGITS, rtol=repr(exercise.tolerance.rtol),
        atol_scale=repr(exercise.tolerance.atol_scale), code=path.read_text(encoding="utf-8").strip(),
    ).strip()


def _literal(expected) -> str:
    """One array's literal, or a tuple of them for a function with several outputs."""
    if isinstance(expected, tuple):
        return "(" + ", ".join(literal(part) for part in expected) + ")"
    return literal(expected)


def build(exercise: Exercise):
    """The notebook as an ``nbformat`` v4 node, ready to write."""
    import nbformat

    folder = exercise.folder
    try:
        statement = (folder / "statement.md").read_text(encoding="utf-8")
        starter = (folder / "starter.py").read_text(encoding="utf-8")
    except OSError as exc:
        raise ExerciseError(f"Cannot build the notebook of '{exercise.id}': {exc}") from None
    limits = exercise.limits
    context = {"exercise_id": exercise.id, "function": exercise.function, "parameters": exercise.parameters,
               "cases": exercise.public_cases(),
               "limits": {"call": f"{limits.call_seconds:g} s", "cell": f"{limits.cell_seconds:g} s",
                          "submission": f"{limits.submission_seconds:g} s", "memory": limits.describe_memory()}}
    env = environment(False)

    def render(name: str, **extra) -> str:
        return env.get_template(name).render(**context, **extra).strip()

    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    chunks = split_statement(statement)
    if chunks and not chunks[0].startswith("## "):
        title = chunks.pop(0)
    else:
        title = f"# {exercise.title}"
    taken = {"intro", "solution-intro", "solution", "self-check-intro", "self-check", "how-to-submit"}
    cells = [md(render("notebook_intro.md.j2", title=title), id="intro")]
    cells += [md(chunk, id=_slug(chunk, taken, f"statement-{n}")) for n, chunk in enumerate(chunks, start=1)]
    cells += [md(render("notebook_solution.md.j2"), id="solution-intro"), code(starter.strip(), id="solution")]
    check = selfcheck_source(exercise)
    if check is not None:
        # collapsed: the student runs it, and reads its output, not its code
        cells += [md(render("notebook_selfcheck.md.j2"), id="self-check-intro"),
                  code(check, id="self-check", metadata={"jupyter": {"source_hidden": True}})]
    cells.append(md(render("notebook_submit.md.j2"), id="how-to-submit"))
    notebook = nbformat.v4.new_notebook(cells=cells, metadata={
        "kernelspec": dict(KERNELSPEC),
        "language_info": dict(LANGUAGE_INFO),
        "grader": {"exercise": exercise.id},
    })
    notebook.nbformat_minor = 5
    nbformat.validate(notebook)
    return notebook


def render(exercise: Exercise) -> str:
    """The notebook file's exact text."""
    import nbformat

    return nbformat.writes(build(exercise)) + "\n"


def target(exercise: Exercise, out: Path) -> Path:
    """``out`` itself when it names a ``.ipynb`` file, else ``out/<exercise id>.ipynb``."""
    out = Path(out)
    return out if out.suffix == ".ipynb" else out / f"{exercise.id}.ipynb"


def write(exercise: Exercise, out: Path) -> tuple[Path, bool]:
    """Write the notebook; return its path and whether the file changed."""
    path = target(exercise, out)
    text = render(exercise)
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return path, False
    write_atomic(path, text)
    return path, True


def public_expected_text(exercise: Exercise) -> str:
    """``public_expected.json``'s exact text: the reference's outputs on the public cases and the probes."""
    import json

    from .exercise import public_expected_document

    return json.dumps(public_expected_document(exercise), indent=1) + "\n"


def write_public_expected(exercise: Exercise) -> tuple[Path, bool]:
    """Write ``public_expected.json`` into the exercise folder; return its path and whether it changed."""
    from .exercise import PUBLIC_EXPECTED

    path = exercise.folder / PUBLIC_EXPECTED
    text = public_expected_text(exercise)
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return path, False
    write_atomic(path, text)
    return path, True


# -- an assignment's notebook ---------------------------------------------------------------------------------------
def demote(markdown: str) -> str:
    """Every heading one level down (``# `` becomes ``## ``), outside fenced code blocks."""
    return "\n".join("#" + line if prose and re.match(r"#{1,5} ", line) else line
                     for line, prose in _lines_outside_fences(markdown))


def indent(code: str, prefix: str = "    ") -> str:
    """``code`` indented one level, except the lines inside a string that spans lines (its value stays as it is)
    and blank lines (no trailing spaces)."""
    import io
    import tokenize

    inside: set[int] = set()
    starts: list[int] = []
    for token in tokenize.generate_tokens(io.StringIO(code).readline):
        if token.type == tokenize.STRING:
            inside.update(range(token.start[0] + 1, token.end[0] + 1))
        elif token.type == getattr(tokenize, "FSTRING_START", None):
            starts.append(token.start[0])
        elif token.type == getattr(tokenize, "FSTRING_END", None):
            inside.update(range(starts.pop() + 1, token.end[0] + 1))
    return "\n".join(line if number in inside or not line.strip() else prefix + line
                     for number, line in enumerate(code.split("\n"), start=1))


def scoped_selfcheck_source(exercise: Exercise) -> str | None:
    """The self-check cell of an assignment's notebook: the exercise's own self-check run inside a function."""
    code = selfcheck_source(exercise)
    if code is None:
        return None
    return environment(False).get_template("notebook_assignment_selfcheck.py.j2").render(
        name=f"_self_check_{exercise.id.replace('-', '_')}", function=exercise.function, body=indent(code),
    ).strip()


def _statement(exercise: Exercise) -> str:
    try:
        return (exercise.folder / "statement.md").read_text(encoding="utf-8")
    except OSError as exc:
        raise ExerciseError(f"Cannot build the notebook of '{exercise.id}': {exc}") from None


def _limits(limits) -> dict:
    return {"call": f"{limits.call_seconds:g} s", "cell": f"{limits.cell_seconds:g} s",
            "submission": f"{limits.submission_seconds:g} s", "memory": limits.describe_memory()}


def build_assignment(assignment: Assignment):
    """The notebook of every exercise of ``assignment``, as an ``nbformat`` v4 node, ready to write."""
    import nbformat

    plan, env = assignment.plan, environment(False)
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    parts = [{"number": n, "id": e.id, "title": e.title, "function": e.function, "parameters": e.parameters,
              "points": f"{e.max_points * w:g}", "weight": f"{w:g}", "limits": _limits(e.limits)}
             for n, (e, w) in enumerate(assignment.weighted(), start=1)]
    context = {"name": plan.name, "title": plan.title, "parts": parts,
               "limits": _limits(combined_limits(assignment.exercises))}
    cells = [md(env.get_template("notebook_assignment_intro.md.j2").render(**context).strip(), id="intro")]
    taken = {"intro", "how-to-submit"}
    for part, exercise in zip(parts, assignment.exercises):
        prefix = f"{exercise.id}-"

        def text(name: str, **extra) -> str:
            return env.get_template(name).render(exercise_id=exercise.id, function=exercise.function,
                                                 parameters=exercise.parameters, cases=exercise.public_cases(),
                                                 **extra).strip()

        chunks = split_statement(_statement(exercise))
        lead = chunks.pop(0) if chunks and not chunks[0].startswith("## ") else f"# {exercise.title}"
        title, _, rest = lead.partition("\n")
        cells.append(md(text("notebook_assignment_part.md.j2", part=part, title=title.lstrip("#").strip(),
                               rest=demote(rest.strip())), id=_slug("", taken, exercise.id)))
        cells += [md(demote(chunk), id=_slug(chunk, taken, "statement", prefix)) for chunk in chunks]
        cells += [md(demote(text("notebook_solution.md.j2")), id=_slug("", taken, "solution-intro", prefix)),
                  code(_starter(exercise), id=_slug("", taken, "solution", prefix))]
        check = scoped_selfcheck_source(exercise)
        if check is not None:
            cells += [md(demote(text("notebook_selfcheck.md.j2")), id=_slug("", taken, "self-check-intro", prefix)),
                      code(check, id=_slug("", taken, "self-check", prefix),
                           metadata={"jupyter": {"source_hidden": True}})]
    cells.append(md(env.get_template("notebook_assignment_submit.md.j2").render(**context).strip(),
                    id="how-to-submit"))
    grader = {"assignment": plan.name} if is_plain_id(plan.name) else {}  # an ad hoc plan "a+b" is no assignment
    grader["exercises"] = list(plan.ids)
    notebook = nbformat.v4.new_notebook(cells=cells, metadata={
        "kernelspec": dict(KERNELSPEC), "language_info": dict(LANGUAGE_INFO), "grader": grader})
    notebook.nbformat_minor = 5
    nbformat.validate(notebook)
    return notebook


def _starter(exercise: Exercise) -> str:
    try:
        return (exercise.folder / "starter.py").read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise ExerciseError(f"Cannot build the notebook of '{exercise.id}': {exc}") from None


def render_assignment(assignment: Assignment) -> str:
    """The assignment notebook file's exact text."""
    import nbformat

    return nbformat.writes(build_assignment(assignment)) + "\n"


def write_assignment(assignment: Assignment, out: Path) -> tuple[Path, bool]:
    """Write the assignment's notebook (``out`` itself when it names a ``.ipynb`` file, else
    ``out/<assignment>.ipynb``); return its path and whether the file changed."""
    out = Path(out)
    path = out if out.suffix == ".ipynb" else out / f"{assignment.plan.name}.ipynb"
    text = render_assignment(assignment)
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return path, False
    write_atomic(path, text)
    return path, True
