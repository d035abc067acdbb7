"""Why the function to grade cannot be called, in one sentence a student can act on.

The run either ended before the lookup (a crash, a time limit, a protocol breach), or the submission never
defined the name: a syntax error, a cell that failed, a near-miss spelling, the code pasted into a markdown cell.

A generated notebook's statement shows the function's signature in a code block of a markdown cell: that is the
exercise's own text, not code a student pasted, so what the markdown says counts only where it is not a line or a
code block of the exercise's ``statement.md``.
"""
from __future__ import annotations

import ast
import difflib
import re
import textwrap

from . import latenames, nesteddef, pysource, scriptcells
from . import submission as submission_mod
from .errors import MissingFunction, SubmissionError, SyntaxProblem
from .exercise import Exercise
from .outcomes import Execution
from .text import quote


def missing_function_error(
    submission: submission_mod.Submission, execution: Execution, exercise: Exercise
) -> SubmissionError:
    name = exercise.function
    if execution.protocol_error:
        return SubmissionError.with_kind("protocol-error", execution.protocol_error)
    if execution.incident:
        return SubmissionError.with_kind(execution.incident_kind or "crashed",
                                         f"The submission {execution.incident} before {name}() could be called.")
    syntax = submission.syntax_errors()
    if syntax:
        return SyntaxProblem(f"{syntax[0]}. Because of it, {name}() was never defined."
                             if len(syntax) == 1 else
                             f"{len(syntax)} places cannot be compiled; the first is {syntax[0]}. "
                             f"Because of them, {name}() was never defined.")
    if execution.cell_incident:
        return SubmissionError.with_kind(
            execution.cell_incident, f"{name}() was never defined. {execution.cell_incidents[0][1]}")
    if execution.function_found:
        return MissingFunction(f"'{name}' is defined but is a {execution.function_type}, not a function.")
    empty = _no_code(submission)
    if empty:
        return MissingFunction(f"{empty}, so no function named '{name}' is defined."
                               + _pasted_hint(submission, exercise))
    stopped = _stopped_definition(submission, execution, name)
    if stopped:
        return SubmissionError.with_kind("definition-failed", stopped)
    skipped = _skipped_definition(submission, name) or nesteddef.nested_definition(submission, name)
    if skipped:
        return MissingFunction(skipped)
    defined = _definitions(submission, name)
    if defined and not execution.cell_errors:
        return MissingFunction(_removed(submission, name, defined[-1][0]))
    elsewhere = _magic_definition(submission, name) or _outside_file(submission, execution, name)
    if elsewhere:
        return MissingFunction(elsewhere)
    close = difflib.get_close_matches(name, execution.candidates, n=3, cutoff=0.6)
    close += [c for c in execution.candidates if c.lower().replace("_", "") == name.lower().replace("_", "")
              and c not in close]
    hint = f" Did you mean to name {close[0]!r} as {name!r}?" if close else _same_parameters(submission, execution,
                                                                                           exercise)
    hint += _pasted_hint(submission, exercise)
    failed = (" Some cells raised errors before it could be defined; see the warnings."
              if execution.cell_errors else "")
    return MissingFunction(f"No function named '{name}' is defined in the submission.{hint}{failed}")


def _pasted_hint(submission: submission_mod.Submission, exercise: Exercise) -> str:
    pasted = pasted_cells(submission, exercise)
    if not pasted:
        return ""
    return (f" {_cell(submission, pasted[0])} contains 'def {exercise.function}', but it is "
            f"{_kind(submission, pasted[0])}, so it never runs: move the code into a code cell.")


def _cell(submission: submission_mod.Submission, number: int) -> str:
    """A text cell as a student finds it: by its place in a notebook, by its first line in an exported script."""
    return f"Cell {number} of the notebook" if submission.is_notebook else f"The cell at line {number}"


def _kind(submission: submission_mod.Submission, number: int) -> str:
    """How a student's notebook shows a cell that is not code: Jupyter's menu calls them Markdown and Raw; in a
    script, the cell's marker line ('# %% [markdown]') says it is text, or Databricks' '# MAGIC %md' does."""
    if not submission.is_notebook:
        text = next((t for n, t in submission.prose if n == number), "")
        if text.startswith(scriptcells.DATABRICKS_MARKDOWN + "\n"):
            return "a markdown command ('%md'), which Databricks shows as text"
        return "marked as a text (markdown) cell by its '# %%' line"
    return "a raw cell" if number in submission.raw_cells else "a text (markdown) cell"


def _same_parameters(submission: submission_mod.Submission, execution: Execution, exercise: Exercise) -> str:
    """A renamed solution ('my_model', say), far from the name in spelling but taking the same parameters: the one
    function that has them is most likely the answer, so the sentence names it (only when exactly one does)."""
    wanted = len(exercise.parameters)
    same = {d.name for _, d in _definitions(submission) if d.name in execution.candidates
            and not d.args.vararg and len(d.args.posonlyargs) + len(d.args.args) == wanted} if wanted else set()
    if len(same) != 1:
        return ""
    other = same.pop()
    return (f" The submission defines {other!r}, which takes {wanted} parameters like {exercise.function}() does:"
            f" if it is your solution, rename it to {exercise.function!r}.")


def definition_notes(submission: submission_mod.Submission, exercise: Exercise, execution: Execution) -> list[str]:
    """Why a defined function can still be the starter: the code a student wrote sits in a markdown cell, or in a
    cell above the starter's, whose later 'pass' replaces it when the cells run from top to bottom. Said only when
    the definition graded (the last one) is such a stub, since only then does it cost the student points. Names
    the function needs that only the student's kernel had are said by unbound_notes."""
    name = exercise.function
    if any(c.status == "ok" and c.type_name != "NoneType" for c in execution.calls):  # (a stub rebound later,
        return _redefined(submission, name) + unbound_notes(submission, execution)  # 'f = mine', answers)
    found = _definitions(submission, name)
    if not found or not _is_stub(found[-1][1]):
        return unbound_notes(submission, execution)
    last = found[-1][0]
    notes = []
    written = [cell for cell, d in found[:-1] if not _is_stub(d)]
    if written and written[-1] is not last:
        notes.append(f"{name}() is defined in {written[-1].label} with your code, then again in {last.label}, "
                     "whose body is only the starter's placeholder. The cells run from top to bottom, so that later "
                     "definition replaced yours: delete it, or move your code below it.")
    elif written:
        notes.append(f"{name}() is defined twice in {last.label}: first with your code, then again below it with "
                     "only the starter's placeholder, which replaces yours. Delete the second definition.")
    if notes and last.never_run:  # the student saw the right one work: the saved run never reached the stub
        notes[-1] += (f" {last.label[0].upper()}{last.label[1:]} was never run in the saved notebook (it has no "
                      "execution count), but the grader runs every cell, as Restart & Run All would.")
    pasted = pasted_cells(submission, exercise)
    if pasted:
        notes.append(f"{_cell(submission, pasted[0])} contains 'def {name}', but it is {_kind(submission, pasted[0])}"
                     f", so it never runs; the {name}() graded is the starter's placeholder in {last.label}: move your "
                     "code into that code cell.")
    return notes


def _redefined(submission: submission_mod.Submission, name: str) -> list[str]:
    """Code cells defining the function with different code (a second attempt): the last is graded, which the
    student may not expect. Parsed only when two code cells hold the text."""
    needle = re.compile(rf"^[ \t]*def[ \t]+{re.escape(name)}\b", re.M)
    found = _definitions(submission, name) if submission.is_notebook and sum(
        bool(needle.search(c.source)) for c in submission.cells) > 1 else []
    cells = list(dict.fromkeys(cell.label for cell, _ in found)) if len({ast.dump(d) for _, d in found}) > 1 else []
    return [f"{name}() is defined in {' and in '.join(cells)}, with different code; the cells run from top to bottom, "
            f"so the one graded is the last, in {cells[-1]}."] if len(cells) > 1 else []


def _definitions(submission: submission_mod.Submission, name: str = "") -> list[tuple[submission_mod.Cell,
                                                                                          ast.FunctionDef]]:
    """The top-level ``def`` statements (of ``name``, else of any function) of the code cells, in the order they
    run, each with its cell. Only cells whose text holds the ``def`` are parsed, within the same budget as the
    compile check, and under pysource's lock (two threads building ASTs at once can fail on CPython 3.11); cells
    that do not compile are left out, their error is reported on its own."""
    found: list[tuple[submission_mod.Cell, ast.FunctionDef]] = []
    needle = re.compile(rf"^[ \t]*(?:async[ \t]+)?def[ \t]+{re.escape(name) if name else ''}", re.M)
    for cell, tree in pysource.parsed_cells(submission.cells, needle.search, submission_mod.MAX_CHECKED_TOTAL):
        found += [(cell, node) for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                  and (not name or node.name == name)]
    return found


_FORGETS = re.compile(r"get_ipython\(\)\.run_line_magic\('(reset|reset_selective|xdel)'")


def _removed(submission: submission_mod.Submission, name: str, defining: submission_mod.Cell) -> str:
    """Why a function defined by a cell that ran is gone at the end: a later '%reset' (or '%xdel'), named with its
    cell, or else a 'del' somewhere."""
    for cell in submission.cells:
        found = _FORGETS.search(cell.source) if cell.code_number > defining.code_number else None
        if found:
            return (f"{name}() is defined in {defining.label}, but '%{found[1]}' in {cell.label} deletes it, as it "
                    "does in Jupyter, so once the cells have run from the top the function no longer exists: delete "
                    "that line and run the notebook again from the top.")
    return (f"{name}() is defined in {defining.label}, but it no longer exists once every cell has run: a later "
            f"cell removes the name (with 'del {name}', say). Delete that line and run the notebook again from the "
            "top.")


def _cell_magics(source: str) -> list[tuple[str, str, str]]:
    """(magic, its line, its body) of a cell IPython rewrote into ``run_cell_magic`` calls, outermost first: a
    '%%capture' cell's body can itself be a '%%timeit' cell. [] for any other cell."""
    found: list[tuple[str, str, str]] = []
    while len(found) < 8 and "run_cell_magic" in source:
        try:
            tree = pysource.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            break
        call = tree.body[0].value if len(tree.body) == 1 and isinstance(tree.body[0], ast.Expr) else None
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                and call.func.attr == "run_cell_magic" and len(call.args) == 3
                and all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in call.args)):
            break
        found.append(tuple(a.value for a in call.args))
        source = found[-1][2]
    return found


#: why a definition in a cell of each magic is not the notebook's, and what to do about it
_MAGIC_FATE = {
    "timeit": ("IPython runs a %%timeit cell's code inside a timing function, so the function is gone once the cell "
               "ends (in Jupyter too)", "remove the '%%timeit' line, and time the call in a cell of its own"),
    "writefile": ("a %%writefile cell only writes its code to a file, it does not run it",
                  "import it afterwards ('from {file} import {name}'), run it with '%run {file}.py', or remove the "
                  "'%%writefile' line"),
}


def _magic_definition(submission: submission_mod.Submission, name: str) -> str:
    """The sentence for a function defined only in the body of a cell magic that does not define it in the
    notebook ('%%timeit', '%%writefile' never imported, '%%bash'), or ''."""
    pattern = re.compile(rf"^[ \t]*(?:async[ \t]+)?def[ \t]+{re.escape(name)}[ \t]*\(", re.M)
    budget = submission_mod.MAX_CHECKED_TOTAL
    for cell in submission.cells:
        if cell.syntax_error or len(cell.source) > budget or "run_cell_magic" not in cell.source:
            continue
        budget -= len(cell.source)
        chain = _cell_magics(cell.source)
        kept = [m for m in chain if m[0] not in ("time", "capture", "prun")]  # those run their body as code
        if not kept or kept[0][0] == "cython" or not pattern.search(chain[-1][2]):  # cython's: a note of its own
            continue
        magic, line, _ = kept[0]
        words = [w for w in line.split() if not w.startswith("-")]
        file = (words[0].strip("'\"").rsplit("/", 1)[-1].removesuffix(".py") if words else "") or "module"
        if magic in _MAGIC_FATE:  # (only the grader's own text is a format string: a magic's name is the student's)
            why, advice = _MAGIC_FATE[magic][0], _MAGIC_FATE[magic][1].format(file=file, name=name)
        else:
            why, advice = f"a %%{magic} cell's body does not run as the notebook's own Python code (in Jupyter " \
                "either), so nothing it defines is kept", f"remove the '%%{magic}' line"
        return f"{name}() is defined only inside the %%{magic} cell, {cell.label}, and {why}: {advice}."
    return ""


_RUN_OR_LOAD = re.compile(r"get_ipython\(\)\.run_line_magic\('(run|load)', '([^'\\]*)'\)")
#: Databricks' source export keeps a '%run ./helpers' command as a comment: it runs nothing, but says the same
_DATABRICKS_RUN = re.compile(r"^# MAGIC %(run)[ \t]+(\S[^\n]{0,200})", re.M)
_MISSING_MODULE = re.compile(r"No module named '([\w.]+)'")
#: in a cell's error sentence, where the message is quoted (text.quote: in double quotes, as it holds single ones)
_MISSING_FILE = re.compile(r"FileNotFoundError: \"\[Errno 2\] No such file or directory: '([^'\\\"]{1,200}\.py)'\"")


def _outside_file(submission: submission_mod.Submission, execution: Execution, name: str) -> str:
    """The sentence for a function meant to come from a file beside the notebook ('%run solution.py', '%load',
    'from solution import ...', 'exec(open("solution.py").read())') that is not part of the submission, or ''."""
    failed = dict(zip(execution.failed_cells, execution.cell_errors))
    imported = _imported_from(_failed_imports(submission, execution), name)
    for cell in submission.cells:
        found = _RUN_OR_LOAD.search(cell.source) or _DATABRICKS_RUN.search(cell.source)
        words = [w for w in found[2].split() if not w.startswith("-")] if found else []
        if words:
            what, file = quote(f"%{found[1]} {found[2]}", 60), quote(words[0], 60)  # the student's words
        elif imported and imported[0] is cell:
            what, file = f"the module '{imported[1]}'", f"{imported[1]}.py"
        elif missing := _MISSING_FILE.search(failed.get(cell.code_number, "")):
            what, file = f"the file {quote(missing[1], 60)}", quote(missing[1], 60)
        else:
            continue
        advice = ("in the notebook itself, or submit the .py file instead" if submission.is_notebook else
                  "in this file itself")
        return (f"{name}() was to come from {what}, in {cell.label}, but {file} is not part of the submission (a "
                f"submission is graded on its own, without the files beside it): put the function's code {advice}.")
    return ""


def _failed_imports(submission: submission_mod.Submission, execution: Execution) -> list[tuple[
        submission_mod.Cell, str, ast.Module]]:
    """(cell, missing module, syntax tree) of each cell that failed for a module that is not there, parsed under
    pysource's lock and within the compile check's budget (this runs in the grader's process, on the student's
    text: a notebook of 10,000 such cells costs no more than one of its largest checked size)."""
    failed = dict(zip(execution.failed_cells, execution.cell_errors))
    found, budget = [], submission_mod.MAX_CHECKED_TOTAL
    for cell in submission.cells:
        missing = _MISSING_MODULE.search(failed.get(cell.code_number, ""))
        if missing is None or cell.syntax_error or len(cell.source) > budget:
            continue
        budget -= len(cell.source)
        try:
            found.append((cell, missing[1].partition(".")[0], pysource.parse(cell.source)))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
    return found


def _imported_from(imports: list[tuple[submission_mod.Cell, str, ast.Module]], name: str) -> tuple[
        submission_mod.Cell, str] | None:
    """The first failed cell that imports ``name`` from its missing module (``from m import name``, ``from m
    import *``, or ``import m`` and ``m.name``), with that module's name; None when none does."""
    for cell, top, tree in imports:
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").partition(".")[0] == top and not node.level \
                    and any(alias.name in (name, "*") for alias in node.names):
                return cell, node.module or top
            if isinstance(node, ast.Import) and any(alias.name.partition(".")[0] == top for alias in node.names) \
                    and re.search(rf"\b{re.escape(top)}(?:\.\w+)*\.{re.escape(name)}\b", cell.source):
                return cell, top
    return None


def _is_stub(definition: ast.FunctionDef) -> bool:
    """A body of nothing but a docstring, 'pass', '...' or 'raise NotImplementedError': the starter's shape."""
    for statement in definition.body:
        if isinstance(statement, ast.Pass):
            continue
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
            continue  # a docstring or '...'
        if isinstance(statement, ast.Raise) and "NotImplementedError" in ast.dump(statement):
            continue
        return False
    return True


def _no_code(submission: submission_mod.Submission) -> str:
    """What is empty, when no cell holds a line of code (only blanks and comments): an empty file is a different
    mistake from a misspelt name (the wrong file uploaded, a notebook not saved), so it is said as such."""
    if any(line.strip() and not line.lstrip().startswith("#") for cell in submission.cells
           for line in cell.source.splitlines()):
        return ""
    if not submission.is_notebook:
        blank = not any(cell.source.strip() for cell in submission.cells)
        return "The file is empty" if blank else "The file holds only comments, no code"
    return "The notebook's code cells are all empty (or hold only comments)"


def _stopped_definition(submission: submission_mod.Submission, execution: Execution, name: str) -> str:
    """When the cell (or file) holding ``def name`` raised or was stopped, and the name was never bound: it stopped
    before its ``def`` ran. The name was right, so the sentence says what stopped it, not how to spell it."""
    pattern = re.compile(rf"^[ \t]*(?:async[ \t]+)?def[ \t]+{re.escape(name)}[ \t]*\(", re.M)
    failed = dict(zip(execution.failed_cells, execution.cell_errors))
    for cell in submission.cells:
        if cell.code_number in failed and pattern.search(cell.source):
            error = failed[cell.code_number]  # what a prompt or debugger left in it means is said there already
            return (f"{name}() was never defined: {cell.label}, which defines it, stopped before its 'def {name}' "
                    f"line ran. {error}{pysource.newer_name(error)} Fix that error, or move the code that fails out "
                    "of the way of the definition.")
    return ""


def _skipped_definition(submission: submission_mod.Submission, name: str) -> str:
    """When ``def name`` is only in a code cell tagged 'skip-execution' (which nbclient, nbconvert and nbgrader do
    not run, and neither does the grader): the tag, not the code, is what to fix."""
    pattern = re.compile(rf"^[ \t]*(?:async[ \t]+)?def[ \t]+{re.escape(name)}[ \t]*\(", re.M)
    for number, source in submission.skipped:
        if pattern.search(source):
            return (f"{name}() is defined only in cell {number} of the notebook, which is tagged 'skip-execution', so "
                    "it was not run (nbclient, nbconvert and nbgrader skip such cells too): remove that tag (in "
                    "JupyterLab, the gear icon of the right sidebar lists a cell's tags) and submit again.")
    return ""


def pasted_cells(submission: submission_mod.Submission, exercise: Exercise) -> list[int]:
    """Numbers of the markdown (or raw) cells that hold ``def <function>`` in text of their own: outside every line
    and code block they share with the exercise's statement (which the generated notebook copies)."""
    needle = f"def {exercise.function}"
    try:
        given = set(_parts((exercise.folder / "statement.md").read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError):
        given = set()
    return [number for number, text in submission.prose
            if needle in text and any(needle in part for part in _parts(text if submission.is_notebook else
                                                                          _uncommented(text)) if part not in given)]


def _uncommented(text: str) -> str:
    """A script's text cell as the markdown it holds: VS Code and Jupytext write each line as a comment ('# ## Task'),
    so the statement's own lines are recognised as such (PyCharm's '#%% md' text is left as it is)."""
    lines = text.split("\n")
    if not all(line.lstrip().startswith("#") for line in lines if line.strip()):
        return text
    return "\n".join(re.sub(r"^[ \t]*# ?", "", line) for line in lines)


def _parts(markdown: str) -> list[str]:
    """Markdown as its parts: each fenced code block (its code, dedented) and each other line, stripped."""
    parts: list[str] = []
    block: list[str] | None = None
    fence = ""
    for line in markdown.splitlines():
        stripped = line.strip()
        if block is not None:
            if stripped.startswith(fence) and not stripped.strip(fence[0]):
                parts.append("```" + textwrap.dedent("\n".join(block)).strip())
                block = None
            else:
                block.append(line.rstrip())
        elif stripped.startswith(("```", "~~~")):
            fence = stripped[:len(stripped) - len(stripped.lstrip(stripped[0]))]
            block = []
        elif stripped:
            parts.append(stripped)
    if block is not None:  # a block left open runs to the end of the cell
        parts.append("```" + textwrap.dedent("\n".join(block)).strip())
    return parts


# -- names only the student's kernel had ---------------------------------------------------------------------------
# Jupyter keeps every name a cell defined until the kernel restarts, so a helper whose cell was deleted (or edited
# into something else) after it ran still works in the student's session, and the saved self-check even shows a
# pass. The grader runs the saved cells in a fresh process, where the function raises NameError; "name 'relu' is not
# defined" alone reads as the grader's mistake to a student who saw the notebook work. The note is only said when no
# cell binds the name anywhere (an assignment, import, def, class, loop target or parameter, at any depth), and not
# at all when a cell could bind names the syntax does not show (a star import, exec, globals(), a magic) or could not
# be parsed.
#: text that can bind a name without a binding the syntax tree shows: exec and friends, a cell magic (its body is a
#: string by then), and the line magics that run code or load names (IPython syntax is already calls by then)
_OPAQUE = re.compile(r"\b(?:exec|eval|globals|vars|setattr|__import__)\s*\(|__dict__|run_cell_magic\(|"
                     r"run_line_magic\('(?:run|time|timeit|prun|store|pylab|load|aimport|macro|sx|sc|capture)'")


#: packages a notebook computes with that the sandbox lacks (numpy only): not a file beside the notebook
PACKAGES = frozenset({"einops", "numexpr", "opt_einsum", "cupy", "sympy", "autograd", "xarray", "dask", "polars",
                      "numpy_groupies", "tensorly", "skimage", "imageio", "h5py", "pyarrow", "statsmodels", "networkx"})


def unbound_notes(submission: submission_mod.Submission, execution: Execution) -> list[str]:
    """One sentence per name that made the function raise NameError and that no cell defines."""
    if not submission.is_notebook:
        return []
    missing = latenames.needed_names(execution)
    imports = _failed_imports(submission, execution) if missing else []
    late = latenames.late_notes(submission, execution)  # bound, but only where the graded run never got to
    # a name whose binding is an import of a module that is not there: that is the note to give, not the cell's stop
    late = {name: note for name, note in late.items() if _imported_from(imports, name) is None}
    missing = [n for n in missing if n not in late]
    bound = _bound_names(submission) if missing else None
    if bound is None:
        return list(late.values())
    notes = list(late.values())
    for name in [n for n in missing if n in bound][:3]:  # bound by an import that failed: its module is not here
        if found := _imported_from(imports, name):
            cell, module = found
            if module.partition(".")[0] in PACKAGES:  # installed at home (Colab has them all), not a file of theirs
                notes.append(f"Your function needs '{name}', imported in {cell.label} from the package '{module}', "
                             "which is not installed where the grader runs (only numpy and Python's standard library "
                             "are): write that step with numpy.")
                continue
            notes.append(f"Your function needs '{name}', imported in {cell.label} from the module '{module}', but "
                         f"{module}.py is not part of the submission (a notebook is graded on its own, without the "
                         "files beside it): define it in the notebook itself.")
    for name in [n for n in missing if n not in bound][:3]:
        close = difflib.get_close_matches(name, sorted(bound), n=5, cutoff=0.7)
        close.sort(key=lambda other: sorted(other) != sorted(name))  # two letters swapped first ('reul', 'relu')
        notes.append(f"Your function needs '{name}', but no cell of the notebook defines it"
                     + (f": did you mean '{close[0]}'?" if close else
                        ". In your own session it may have come from a cell deleted or changed after it ran: Jupyter "
                        "keeps what a cell defined until the kernel restarts. Define it in a cell, then check the "
                        "notebook with Restart Kernel and Run All Cells before submitting."))
    return notes


def _bound_names(submission: submission_mod.Submission) -> set[str] | None:
    """Every name any cell binds, or None when that cannot be known from the text (see the module's docstring)."""
    names: set[str] = set()
    budget = submission_mod.MAX_CHECKED_TOTAL
    for cell in submission.cells:
        if cell.syntax_error or len(cell.source) > budget or _OPAQUE.search(cell.source):
            return None
        budget -= len(cell.source)
        try:
            tree = pysource.parse(cell.source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                names.add(node.id)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    if alias.name == "*":
                        return None
                    names.add(alias.asname or alias.name.split(".")[0])
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                names.update(node.names)
            elif isinstance(node, ast.arg):
                names.add(node.arg)
            elif isinstance(node, ast.ExceptHandler) and node.name:
                names.add(node.name)
            elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
                names.add(node.name)
            elif isinstance(node, ast.MatchMapping) and node.rest:
                names.add(node.rest)
    return names
