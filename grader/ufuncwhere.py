"""Why values came out of nowhere: a NumPy elementwise call given ``where=`` but no ``out=``.

``np.maximum(z, 0, where=z > 0)`` reads like a ReLU, but NumPy computes only the entries where the condition holds
and leaves the others as the freshly allocated result happened to hold them (often the bytes of an array freed a
moment before): neither 0 nor the input. No mistake of an exercise's model explains such values, so the report
could only say that a stage departs. The note names the call, read from the source, when the function lost points.
"""
from __future__ import annotations

import ast
import re

import numpy as np

from . import pysource
from . import submission as submission_mod

_MENTION = re.compile(r"\bwhere\s*=")
#: functions that hand ``where=`` to a ufunc without being one, with how many positional inputs they take
_PASSING = {"clip": 3}


def _elementwise(node: ast.Call) -> tuple[str, int] | None:
    """``np.<name>`` and its number of inputs when the call is to a NumPy ufunc (or a function passing ``where=`` on
    to one), else None. Only ``np.`` and ``numpy.`` are read: the aliases students use for the module."""
    func = node.func
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in ("np", "numpy")):
        return None
    ufunc = getattr(np, func.attr, None)
    if isinstance(ufunc, np.ufunc):
        return func.attr, ufunc.nin
    return (func.attr, _PASSING[func.attr]) if func.attr in _PASSING else None


def unfilled_notes(submission: submission_mod.Submission, lost_points: bool) -> list[str]:
    """One sentence for the first such call of the submission, or none (nor when no point was lost: the condition
    may hold everywhere the function is used). Cells are parsed only when their text holds ``where=``, within the
    compile check's budget (this runs in the grader's process, on the student's text)."""
    if not lost_points:
        return []
    for cell, tree in pysource.parsed_cells(submission.cells, _MENTION.search, submission_mod.MAX_CHECKED_TOTAL):
        for node in ast.walk(tree):
            found = _elementwise(node) if isinstance(node, ast.Call) else None
            keywords = {k.arg for k in node.keywords} if found else set()
            if not found or "where" not in keywords or "out" in keywords or None in keywords \
                    or len(node.args) > found[1] or any(isinstance(a, ast.Starred) for a in node.args):
                continue  # out= given (by name or position), or arguments it cannot read
            return [f"np.{found[0]}(..., where=...) at {cell.where(node.lineno)} has no out= array: where the "
                    "condition is False, NumPy leaves those entries of the result as the newly allocated memory "
                    "happened to hold them, neither 0 nor the input. Give it a filled array to write into "
                    "(out=np.zeros_like(z)), or write np.where(condition, z, 0)."]
    return []
