"""Parse and compile Python source in the grader's own process, one thread at a time.

A batch grades on several threads, and CPython 3.11 can fail when two threads build AST objects at once
("SystemError: AST constructor recursion depth mismatch", CPython issue gh-106905): one student's result would
become an internal error at random. Every parse and compile of a submission's text in the grader goes through
this lock; each takes milliseconds, so the threads barely wait.

``rescan_cost`` says what Python's own ``tokenize`` module (which IPython's translation and the similarity report
use) would cost on a text, before it is run on a student's.
"""
from __future__ import annotations

import ast
import re
import sys
import threading
import tokenize
import types

_LOCK = threading.Lock()


def parse(source: str, filename: str = "<submission>") -> ast.Module:
    """``ast.parse`` under the lock."""
    with _LOCK:
        return ast.parse(source, filename)


def compile_source(source: str, filename: str = "<submission>", flags: int = 0) -> types.CodeType | ast.AST:
    """``compile(source, filename, "exec", flags)`` under the lock, never inheriting the grader's own flags."""
    with _LOCK:
        return compile(source, filename, "exec", flags=flags, dont_inherit=True, optimize=0)


#: a run of blanks, from its first (the only place ``tokenize`` starts reading one, when it reads it as a token)
_BLANKS = re.compile(r"(?<![ \f\t])[ \f\t]{2,}")
#: what ``tokenize`` matches wherever it looks for the next token: blanks, then a token
_TOKEN = re.compile(getattr(tokenize, "PseudoToken", r"[ \f\t]*"))
#: ``tokenize`` is pure Python up to 3.11; from 3.12 it is the compiler's own tokenizer, without this cost
_PURE_TOKENIZE = sys.version_info < (3, 12)


def rescan_cost(text: str) -> int:
    """Characters Python's ``tokenize`` module would read again in ``text``, at most (0 when it reads it once).

    Up to Python 3.11, where no token starts after a run of blanks (a '$', a '?', a string that never closes),
    ``tokenize`` reports the run's first blank as an error token and tries again from the next one, reading the
    rest of the run again each time, and the rest of the line too when it is a string that never closes: 65 s for
    16,000 spaces before a '$'. Summed here over such runs, in one pass (each run is tried once, with
    ``tokenize``'s own pattern). Code that compiles has no such run outside its strings and indentation."""
    if not _PURE_TOKENIZE:
        return 0
    cost = 0
    for run in _BLANKS.finditer(text):
        start, end = run.span()
        if _TOKEN.match(text, end) is None:  # where the blanks end (no token starts with a blank)
            tried = 1  # what each try reads after the blanks: a character, or a string to the end of its line
            if text.startswith(("'", '"'), end):
                line_end = text.find("\n", end)
                tried = (len(text) if line_end < 0 else line_end) - end
            cost += (end - start) * (end - start + tried)
    return cost


def newer_python(notebook: dict) -> str:
    """What to add to a syntax error in a notebook last run on a newer Python than the grader's, as its metadata
    says (``language_info.version``): 3.12's f-strings that reuse their quotes and its ``type`` statement do not
    compile on 3.11, though the student's own run showed no error. '' when the notebook says nothing newer."""
    metadata = notebook.get("metadata")
    info = metadata.get("language_info") if isinstance(metadata, dict) else None
    version = info.get("version") if isinstance(info, dict) else None
    found = re.match(r"(\d{1,3})\.(\d{1,3})\b", version) if isinstance(version, str) else None
    if found is None or (int(found[1]), int(found[2])) <= sys.version_info[:2]:
        return ""
    return (f" (the notebook last ran on Python {found[1]}.{found[2]}; the grader runs Python "
            f"{sys.version_info[0]}.{sys.version_info[1]}, which lacks some newer syntax: write it the older way)")
