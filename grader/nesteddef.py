"""Why a function written out in full was never defined: its ``def`` sits inside a block that did not run it.

A student who indents the solution under ``if __name__ == "__main__":`` (to keep a demo together with it), or one
level too deep under a helper, has written the function; "no function named ..." with advice about spelling sends
them to look for a typo that is not there. The grader loads a plain .py as a module is imported (its ``__name__`` is
not ``"__main__"``, so the demo does not run), and a ``def`` inside another function exists only while that function
runs: the sentence names the block, its line, and how to get the definition to the top level.
"""
from __future__ import annotations

import ast

from . import pysource
from . import submission as submission_mod


def nested_definition(submission: submission_mod.Submission, name: str) -> str:
    """The sentence for ``def name`` found only inside a top-level block of a code cell, or ''. Parsed only for cells
    whose text holds the ``def``, within the compile check's budget (this runs in the grader's process)."""
    found = ""
    cells = pysource.parsed_cells(submission.cells, lambda source: f"def {name}" in source,
                                  submission_mod.MAX_CHECKED_TOTAL)
    for cell, tree in cells:
        for block in tree.body:
            if isinstance(block, (ast.FunctionDef, ast.AsyncFunctionDef)) and block.name == name:
                return ""  # defined at the top level too: what removed it is another story (del, %reset)
            if not found and any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name
                                 for node in ast.walk(block)):
                found = _sentence(submission, cell, block, name)
    return found


def _sentence(submission: submission_mod.Submission, cell: submission_mod.Cell, block: ast.stmt, name: str) -> str:
    where = cell.where(block.lineno)
    if isinstance(block, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return (f"{name}() is defined inside the function {block.name}() ({where}), so it exists only while "
                f"{block.name}() runs and is gone afterwards: move its 'def' to the top level (no indentation).")
    if isinstance(block, ast.ClassDef):
        return (f"{name}() is defined inside the class {block.name} ({where}), which makes it a method of that class, "
                f"not a function of the {'notebook' if submission.is_notebook else 'file'}: move its 'def' to the top "
                "level (no indentation).")
    if isinstance(block, ast.If) and _main_guard(block.test) and submission.run_name != "__main__":
        return (f"{name}() is defined only inside the 'if __name__ == \"__main__\":' block ({where}). The grader "
                "loads a .py file the way 'import' does, so that block does not run and the function is never "
                "defined: move its 'def' above the block, at the top level (no indentation).")
    return (f"{name}() is defined only inside the block that starts at {where}, which did not define it when the "
            f"{'notebook' if submission.is_notebook else 'file'} ran (a condition that was false, a loop that did not "
            "run, or an error before the 'def'): move its 'def' to the top level (no indentation).")


def _main_guard(test: ast.expr) -> bool:
    """``__name__ == "__main__"``, either way round."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = [test.left, test.comparators[0]]
    return (any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides)
            and any(isinstance(s, ast.Constant) and s.value == "__main__" for s in sides))
