"""Cells of a marimo notebook, which is a .py file, read back as marimo runs them.

marimo saves a notebook as a Python module: each cell is a function decorated with ``@app.cell``, whose parameters
are the names it reads from other cells and whose final ``return`` hands on the names it defines; newer versions
add a ``with app.setup:`` block for imports and ``@app.function`` (or ``@app.class_definition``) for a def that
stands alone. Imported as a module, such a file defines nothing at its top level but ``app`` (and it stops at
``import marimo``, which the sandbox does not carry), so a right solution was "never defined". Read here, each cell
becomes a notebook cell: its body, dedented and without that final ``return``, in the order marimo runs them (a
cell after the cells that define what it reads, else in file order). A cell marimo could not parse, saved as
``app._unparsable_cell("...")``, keeps its text, so its syntax error is reported in it.

The file is parsed in the grader's own process, so only files up to ``MAX_PARSED`` characters are read this way;
a larger one, or one that does not parse, is read as the plain script it also is.
"""
from __future__ import annotations

import ast
import heapq
import re
import textwrap

from . import pysource

MAX_PARSED = 128 << 10
#: what every marimo notebook holds at its top level, checked before anything is parsed
_SIGNS = (re.compile(r"^import marimo\b", re.M), re.compile(r"^app\s*=\s*marimo\.App\(", re.M),
          re.compile(r"^(?:@app\.|with app\.setup\b)", re.M))
#: the decorators that make a function a cell (its body runs) or a definition of its own (the def itself runs)
_CELL, _DEFINITION = {"cell"}, {"function", "class_definition"}

Source = tuple[str, int, int, str, int]


def _app_attribute(node: ast.expr) -> str | None:
    """``cell`` for ``@app.cell`` or ``@app.cell(hide_code=True)``; None for any other decorator."""
    node = node.func if isinstance(node, ast.Call) else node
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "app":
        return node.attr
    return None


def _lines(lines: list[str], first: int, last: int, indent: int) -> str:
    """Lines ``first`` to ``last`` (1-based, inclusive), each without up to ``indent`` leading blanks."""
    out = []
    for line in lines[first - 1:last]:
        blanks = len(line) - len(line.lstrip(" \t"))
        out.append(line[min(blanks, indent):] if line.strip() else line.lstrip(" \t"))
    return "".join(out)


def _returned_names(node: ast.stmt) -> set[str]:
    """The names a cell's final ``return a, b`` (or ``return (a,)``) hands on."""
    value = node.value if isinstance(node, ast.Return) else None
    items = value.elts if isinstance(value, ast.Tuple) else [value] if value is not None else []
    return {item.id for item in items if isinstance(item, ast.Name)}


def _cell(node: ast.stmt, lines: list[str]) -> tuple[str, int, set[str], set[str]] | None:
    """One top-level statement as (source, first line, names read, names defined), or None when it is no cell."""
    if isinstance(node, ast.With) and any(isinstance(i.context_expr, ast.Attribute) and i.context_expr.attr == "setup"
                                          for i in node.items):
        body = node.body
        return _lines(lines, body[0].lineno, node.end_lineno, body[0].col_offset), body[0].lineno, set(), set()
    if (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and _app_attribute(node.value)
            == "_unparsable_cell" and node.value.args and isinstance(node.value.args[0], ast.Constant)
            and isinstance(node.value.args[0].value, str)):
        text = node.value.args[0].value
        skipped = len(text) - len(text.lstrip("\n"))
        return textwrap.dedent(text.strip("\n")) + "\n", node.value.args[0].lineno + skipped, set(), set()
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return None
    kinds = {_app_attribute(d) for d in node.decorator_list}
    if kinds & _DEFINITION:
        start = node.decorator_list[-1].end_lineno + 1
        return _lines(lines, start, node.end_lineno, node.col_offset), start, set(), {node.name}
    if not kinds & _CELL or isinstance(node, ast.ClassDef):
        return None
    body, end = node.body, node.end_lineno
    defined = _returned_names(body[-1])
    if isinstance(body[-1], ast.Return):
        body, end = body[:-1], body[-1].lineno - 1
    if not body:
        return None
    reads = {a.arg for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs}
    return _lines(lines, body[0].lineno, end, body[0].col_offset), body[0].lineno, reads, defined


def _run_order(cells: list[tuple[str, int, set[str], set[str]]]) -> list[int]:
    """The cells' indices as marimo runs them: each after the cells defining what it reads, ties in file order; a
    cycle is broken at its earliest cell. This runs in the grader's process: each cell counts the names it still
    waits for, and a name defined wakes its readers, so a file of 4,000 cells each waiting for the next (0.5 s when
    every cell was tried again at every step) takes milliseconds."""
    defined_by = {name for cell in cells for name in cell[3]}
    readers: dict[str, list[int]] = {}
    waits = []
    for index, cell in enumerate(cells):
        needed = cell[2] & defined_by
        waits.append(len(needed))
        for name in needed:
            readers.setdefault(name, []).append(index)
    ready = [index for index, count in enumerate(waits) if not count]  # a heap: the earliest ready cell first
    placed: list[int] = []
    done = [False] * len(cells)
    known: set[str] = set()
    earliest = 0  # the first cell not placed yet: where a cycle is broken
    while len(placed) < len(cells):
        if ready:
            index = heapq.heappop(ready)
            if done[index]:
                continue
        else:
            while done[earliest]:
                earliest += 1
            index = earliest
        done[index] = True
        placed.append(index)
        for name in cells[index][3] - known:
            known.add(name)
            for reader in readers.get(name, ()):
                waits[reader] -= 1
                if not waits[reader] and not done[reader]:
                    heapq.heappush(ready, reader)
    return placed


def sources(text: str, max_cells: int) -> tuple[list[Source], list[tuple[int, str]]] | None:
    """The code cells of a marimo notebook as ``jupytext.sources`` gives a script's (source, cell number, code cell
    number, 'the cell at line N', line offset), and no text cells (marimo's markdown is code: ``mo.md(...)``).
    None when ``text`` is not a marimo notebook read here, or has more than ``max_cells`` cells."""
    if len(text) > MAX_PARSED or not all(sign.search(text) for sign in _SIGNS):
        return None
    try:
        tree = pysource.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    lines = text.splitlines(keepends=True)
    cells = [found for node in tree.body if (found := _cell(node, lines)) is not None]
    if not cells or len(cells) > max_cells:
        return None
    code = []
    for index in _run_order(cells):
        source, line = cells[index][:2]
        code.append((source, len(code) + 1, len(code) + 1, f"the cell at line {line}", line - 1))
    return code, []
