"""Why a name the function needs is 'not defined' when graded though a cell of the notebook does define it.

In the student's kernel every cell has run at some point, in whatever order, so a constant or a helper the function
reads may come from a test cell written below it. The grader runs the saved cells once, from the top, in a fresh
process; a cell that defines the name can still leave it undefined there:

* the cell stopped before the line that binds it (it loads a file the grader does not have, or calls the function
  before defining what the function needs: the student ran it twice, the grader once);
* the cell is tagged 'skip-execution', which nbclient, nbconvert and the grader do not run;
* the binding sits under the self-check's ``if not os.environ.get("GRADER_PARENT"):``, which is false while graded.

"name 'SCALE' is not defined" beside a cell that plainly says ``SCALE = 1.0`` reads as the grader's fault, and the
note that no cell defines it would be false. So this note names the cell, the line and why it did not run. It is
said only when every top-level binding of the name is of these kinds: a binding that did run means the NameError has
another cause, and a name bound inside a function (``global``) or by code the syntax does not show is left alone.
"""
from __future__ import annotations

import ast
import re

from . import pysource
from . import submission as submission_mod
from .outcomes import Execution

_UNDEFINED = re.compile(r"name '([A-Za-z_][A-Za-z0-9_]*)' is not defined")
_GUARD = "GRADER_PARENT"
#: the core of a cell's error sentence, "raised FileNotFoundError: ... (line 1 of code cell 2)"
_RAISED = re.compile(r"\b(raised .*?|was stopped.*?)(?:; the later cells were still run.*)?$", re.S)


def needed_names(execution: Execution) -> list[str]:
    """The names whose lookup made a call of the function raise NameError, in the order first seen."""
    names: list[str] = []
    for call in execution.calls:
        error = call.exception
        found = _UNDEFINED.search(error.message) if error is not None and error.type == "NameError" else None
        if found and found[1] not in names:
            names.append(found[1])
    return names


def _bindings(body: list[ast.stmt], name: str, guarded: bool = False):
    """(line, guarded) of each statement of a module body that binds ``name`` at module level, descending into
    if/for/while/with/try blocks (still module level) but not into functions or classes, whose names are local.
    ``guarded``: inside an ``if`` whose test mentions GRADER_PARENT. A ``global name`` inside a function yields
    line 0, which the caller reads as "cannot tell"."""
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if node.name == name:
                yield node.lineno, guarded
            if any(isinstance(n, ast.Global) and name in n.names for n in ast.walk(node)):
                yield 0, guarded
            continue
        if isinstance(node, ast.If):
            inner = guarded or _GUARD in ast.dump(node.test)
            yield from _bindings(node.body, name, inner)
            yield from _bindings(node.orelse, name, guarded)
            continue
        blocks = [b for b in (getattr(node, f, None) for f in ("body", "orelse", "finalbody")) if isinstance(b, list)]
        if blocks:  # for, while, with, try: module level inside too; their own targets bind as well
            for block in [*blocks, *(h.body for h in getattr(node, "handlers", ()))]:
                yield from _bindings(block, name, guarded)
            heads = [getattr(node, "target", None), *(i.optional_vars for i in getattr(node, "items", ()))]
            parts = [n for head in heads if head is not None for n in ast.walk(head)]
        else:
            parts = list(ast.walk(node))
        if any((isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id == name)
               or (isinstance(n, ast.alias) and (n.asname or n.name.split(".")[0]) == name) for n in parts):
            yield node.lineno, guarded


def _core(sentence: str) -> str:
    found = _RAISED.search(sentence)
    return found[1].rstrip(". ") if found else "an error"


def late_notes(submission: submission_mod.Submission, execution: Execution) -> dict[str, str]:
    """One sentence per name of a NameError that only cells which did not reach their binding define (see the
    module's docstring), keyed by the name. Parsed within the compile check's budget: this runs in the grader's
    process, on the student's text."""
    if not submission.is_notebook:
        return {}
    names = needed_names(execution)[:3]
    if not names:
        return {}
    failed = dict(zip(execution.failed_cells, execution.cell_errors))
    mentions = re.compile(rf"\b(?:{'|'.join(map(re.escape, names))})\b")
    sites: dict[str, list[str]] = {name: [] for name in names}
    spoiled: set[str] = set()  # a binding that ran, or one that cannot be judged
    skipped = [submission_mod.Cell(number, 0, source, label=f"cell {number} of the notebook")
               for number, source in submission.skipped]
    for cell, tree in pysource.parsed_cells([*submission.cells, *skipped], mentions.search,
                                            submission_mod.MAX_CHECKED_TOTAL):
        for name in names:
            for line, guarded in _bindings(tree.body, name):
                if line == 0:
                    spoiled.add(name)
                elif cell.code_number == 0:
                    sites[name].append(f"{cell.label}, line {line}: that cell is tagged 'skip-execution', so it "
                                       "is not run when the notebook is graded (nbclient and nbconvert skip it "
                                       "too)")
                elif guarded:
                    sites[name].append(f"{cell.where(line)}, inside 'if not os.environ.get(\"GRADER_PARENT\")' "
                                       "(the self-check's guard): that test is false while the grader runs the "
                                       "notebook, so the block never runs there")
                elif cell.code_number in failed:
                    sites[name].append(f"{cell.where(line)}: when the cells run once from the top, as the "
                                       f"grader runs them, that cell {_core(failed[cell.code_number])} before "
                                       "reaching that line")
                else:
                    spoiled.add(name)
    notes = {}
    for name in names:
        if name in spoiled or not sites[name]:
            continue
        notes[name] = (f"Your function needs '{name}', which is defined only at {sites[name][0]}. In your own session that cell "
                       f"had run, so '{name}' existed; when graded it does not, and every call raised NameError. "
                       f"Define '{name}' in the cell with your function (or in one above it that always runs), then "
                       "check the notebook with Restart Kernel and Run All Cells.")
    return notes
