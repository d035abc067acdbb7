"""A cell that failed because it used a missing module's stand-in, told as such.

While grading, a module the sandbox lacks (torch, matplotlib, pandas...) is replaced by a stand-in that does
nothing, and the run's notes say so. A student's own check against such a library, for instance
``np.testing.assert_allclose(mine, torch_head(x).numpy())``, then fails during grading alone: the stand-in gives
no array, and the warning quoted numpy's "Not equal to tolerance ... DESIRED: array([], dtype=float64)", which
reads as the student's function disagreeing with PyTorch. The cell's sentence now says that it used the stand-in,
so the student knows the failure says nothing about their code.
"""
from __future__ import annotations

import ast
import re

from . import pysource
from .notes import SENTENCES
from .submission import MAX_CHECKED_TOTAL, Submission

#: the note of a stood-in module, with the module's quoted name as its group
_STAND_IN_NOTE = re.compile(re.escape(SENTENCES["module-stand-in"]).replace(re.escape("{0}"), r"'([\w.]{1,40})'"))
#: errors that never come from a stand-in's doing nothing: a name the cell itself misspelt, a stopped cell
_NOT_THE_STAND_IN = (" raised NameError", " raised SyntaxError", " was stopped after ")


def stood_in(notes: tuple[str, ...] | list[str]) -> set[str]:
    """The top-level packages of the modules the run's notes say were stood in for."""
    return {m.group(1).partition(".")[0] for note in notes if (m := _STAND_IN_NOTE.fullmatch(note))}


def imported_names(tree: ast.AST, packages: set[str]) -> dict[str, str]:
    """The names ``tree``'s imports bind to a module of ``packages`` (or to something taken from one), each with
    its package: ``import torch.nn as nn`` binds nn, ``from tqdm.auto import tqdm`` binds tqdm."""
    bound: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.partition(".")[0]
                if top in packages:
                    bound[alias.asname or top] = top
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            top = node.module.partition(".")[0]
            if top in packages:
                bound.update({alias.asname or alias.name: top for alias in node.names if alias.name != "*"})
    return bound


def cell_errors(submission: Submission, failed_cells: tuple[int, ...], sentences: tuple[str, ...],
                notes: tuple[str, ...]) -> list[str]:
    """``sentences`` (one per failed cell), each of a cell that reads a name imported from a stood-in module told
    that the error may be the stand-in's."""
    packages = stood_in(notes)
    if not packages:
        return list(sentences)
    mentions = re.compile(rf"\b(?:{'|'.join(map(re.escape, sorted(packages)))})\b")
    bound: dict[str, str] = {}
    for _, tree in pysource.parsed_cells(submission.cells, mentions.search, MAX_CHECKED_TOTAL):
        bound.update(imported_names(tree, packages))
    failed = [c for c in map(submission.cell, failed_cells) if c is not None] if bound else []
    trees = {c.code_number: t for c, t in pysource.parsed_cells(failed, lambda source: True, MAX_CHECKED_TOTAL)}
    told = []
    for number, sentence in zip(failed_cells, sentences):
        tree = trees.get(number)
        used = sorted({bound[n.id] for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id in bound}) \
            if tree is not None and not any(s in sentence for s in _NOT_THE_STAND_IN) else []
        if used:
            names = ", ".join(f"'{u}'" for u in used[:3])
            sentence += (f" That cell uses {names}, which is only a stand-in while grading, so this error "
                         "most likely comes from the stand-in, not from your code.")
        told.append(sentence)
    return told
