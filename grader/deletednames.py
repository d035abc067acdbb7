"""Why a name the function needs is 'not defined' though the submission plainly binds it: a later ``del``.

A student who tidies the namespace at the end of a file or a notebook (``del np``, ``del W, b``) after the ``def``
leaves a function that looks up a name the run has since removed: NameError on every call, in Jupyter too once that
line has run. "name 'np' is not defined" next to ``import numpy as np`` reads as the grader's fault, so the note
names the ``del`` that removed it and where it is.
"""
from __future__ import annotations

import ast
import re

from . import latenames, pysource
from . import submission as submission_mod
from .outcomes import Execution



def deleted_notes(submission: submission_mod.Submission, execution: Execution) -> list[str]:
    """One sentence per name that made the function raise NameError and that a top-level ``del`` of a code cell
    removes (the first such ``del`` of each name). Cells are parsed only when their text holds ``del`` and that
    name, within the compile check's budget (this runs in the grader's process, on the student's text)."""
    missing = latenames.needed_names(execution)
    notes: dict[str, str] = {}
    names = missing[:3]
    mentions = re.compile(rf"^[ \t]*del\b[^\n]*\b(?:{'|'.join(map(re.escape, names))})\b", re.M)
    for cell, tree in pysource.parsed_cells(submission.cells if names else (), mentions.search,
                                            submission_mod.MAX_CHECKED_TOTAL):
        for node in tree.body:
            for target in node.targets if isinstance(node, ast.Delete) else ():
                name = target.id if isinstance(target, ast.Name) else None
                if name in names and name not in notes:
                    notes[name] = (f"Your function needs '{name}', but 'del {name}' at {cell.where(node.lineno)} "
                                   "removes that name, so every call of the function finds it gone (in Jupyter too, "
                                   "once that line has run): delete that line.")
    return [notes[name] for name in names if name in notes]
