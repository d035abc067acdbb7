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
from typing import Callable, Iterable, Iterator

_LOCK = threading.Lock()


def parse(source: str, filename: str = "<submission>") -> ast.Module:
    """``ast.parse`` under the lock."""
    with _LOCK:
        return ast.parse(source, filename)


def parsed_cells(cells: Iterable, wanted: Callable[[str], object], budget: int) -> Iterator[tuple[object, ast.Module]]:
    """Each cell that compiled and whose text ``wanted`` accepts, with its tree, until the cells parsed reach
    ``budget`` characters: these parses of student text run in the grader's process, so they are bounded."""
    for cell in cells:
        if cell.syntax_error or len(cell.source) > budget or not wanted(cell.source):
            continue
        budget -= len(cell.source)
        try:
            tree = parse(cell.source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        yield cell, tree


def compile_source(source: str, filename: str = "<submission>", flags: int = 0) -> types.CodeType | ast.AST:
    """``compile(source, filename, "exec", flags)`` under the lock, never inheriting the grader's own flags."""
    with _LOCK:
        return compile(source, filename, "exec", flags=flags, dont_inherit=True, optimize=0)


#: a run of blanks, from its first (the only place ``tokenize`` starts reading one, when it reads it as a token)
_BLANKS = re.compile(r"(?<![ \f\t])[ \f\t]{2,}")
#: what ``tokenize`` matches wherever it looks for the next token: blanks, then a token; compiled with the flag
#: ``tokenize`` gives it, so that both share ``re``'s cached pattern (a few ms to compile, once per grader)
_TOKEN = re.compile(getattr(tokenize, "PseudoToken", r"[ \f\t]*"), re.UNICODE)
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
        # where the blanks end (no token starts with a blank); a '#' always starts a comment, which the pattern
        # would read to the line's end, once per run of blanks before it (13 s for a line of 40,000 '  #')
        if not text.startswith("#", end) and _TOKEN.match(text, end) is None:
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


#: what every sentence naming the grader's Python says, so that a cell's error says it once
GRADER_RUNS = "the grader runs Python"


def _grader_python() -> str:
    return f"{sys.version_info[0]}.{sys.version_info[1]}"


#: a line that only newer Pythons compile, by what it starts with: 3.12's ``type`` statement and its generic
#: functions and classes (``def first[T](...)``, ``class Box[T]:``; 3.13's ``[T = int]`` too)
_TYPE_STATEMENT = re.compile(r"^[ \t]*type[ \t]+[A-Za-z_]\w*[ \t]*(?:\[[^\n]*\])?[ \t]*=")
_GENERIC = re.compile(r"^[ \t]*(?:(?:async[ \t]+)?def|class)[ \t]+[A-Za-z_]\w*[ \t]*\[")
#: an f-string whose replacement field holds its own quote (``f"{d["a"]}"``), legal from 3.12 (PEP 701)
_REUSED_QUOTE = re.compile(r"""(?<![\w'"])[rR]?[fF][rR]?(?:"[^"\n{]*\{(?!\{)[^}"\n]*"[^"\n]*"[^}\n]*\}"""
                           r"""|'[^'\n{]*\{(?!\{)[^}'\n]*'[^'\n]*'[^}\n]*\})""")


def newer_syntax(message: str, line: str) -> str:
    """What to add to a syntax error whose line uses syntax newer than the grader's Python: 3.12's ``type`` statement,
    its generic ``def f[T]`` and ``class C[T]``, and its f-strings (PEP 701) that reuse their quotes (whatever
    3.11's tokenizer then says: "unexpected character after line continuation character" for ``{"\\n".join(x)}``,
    "closing parenthesis" for ``{'}'}``) or hold a backslash or a comment. '' on a 3.12 grader (where these
    compile), and for any other error. Only .py files had no such sentence: a notebook's came from its metadata,
    which a .py file lacks."""
    if sys.version_info >= (3, 12) or not isinstance(line, str) or not isinstance(message, str):
        return ""
    construct = ""
    if _TYPE_STATEMENT.match(line):
        construct = "a 'type' statement"
    elif _GENERIC.match(line):
        construct = "a function or class with type parameters in brackets (def f[T])"
    elif _reuses_quotes(line) or (message.startswith("f-string") and ("backslash" in message
                                                                      or "'#'" in message)):
        construct = "an f-string whose {...} holds its own quotes, a backslash or a comment"
    if not construct:
        return ""
    return f" ({construct} is Python 3.12 syntax{newer_syntax_tail()})"


def _reuses_quotes(text: str) -> bool:
    """Whether a line of ``text`` holds an f-string whose field reuses its quote (``_REUSED_QUOTE``), in time linear
    in the text. Each line is searched only up to its last '}': every match ends on one, and past it the pattern's
    last part read each try to the end of the line, once per 'f"{' before it (14 s for a 128 KiB line of them)."""
    return any(_REUSED_QUOTE.search(part, 0, part.rfind("}") + 1) for part in text.split("\n") if "}" in part)


def newer_syntax_tail() -> str:
    """The part of ``newer_syntax``'s sentence that names the grader's Python: left out of a notebook's error when its
    metadata's sentence (``newer_python``) follows and says the same."""
    return f"; {GRADER_RUNS} {_grader_python()}, where it does not compile: write it the older way"


#: names a newer Python's standard library has and the grader's may lack: (module, name) -> the version adding it
NEWER_NAMES = {
    ("itertools", "batched"): (3, 12), ("math", "sumprod"): (3, 12), ("typing", "override"): (3, 12),
    ("typing", "TypeAliasType"): (3, 12), ("collections.abc", "Buffer"): (3, 12), ("calendar", "Month"): (3, 12),
    ("warnings", "deprecated"): (3, 13), ("copy", "replace"): (3, 13), ("math", "fma"): (3, 13),
    ("typing", "TypeIs"): (3, 13), ("typing", "ReadOnly"): (3, 13), ("typing", "NoDefault"): (3, 13),
    ("statistics", "kde"): (3, 13), ("base64", "z85encode"): (3, 13), ("annotationlib", ""): (3, 14),
    ("compression", ""): (3, 14), ("string.templatelib", ""): (3, 14),
}
_MISSING_NAME = re.compile(r"cannot import name '(\w+)' from '([\w.]+)'|module '([\w.]+)' has no attribute '(\w+)'"
                           r"|No module named '([\w.]+)'")


def newer_name(error: str) -> str:
    """What to add to an ImportError or AttributeError that names a standard-library name newer than the grader's
    Python (``from itertools import batched`` on 3.11): its version, and the grader's. '' for any other error."""
    for found in _MISSING_NAME.finditer(error or ""):
        name, module = (found[1], found[2]) if found[1] else (found[4], found[3]) if found[3] else ("", found[5])
        version = NEWER_NAMES.get((module, name))
        if version is not None and sys.version_info[:2] < version:
            what = f"{module}.{name}" if name else f"the module {module}"
            return (f" {what} is new in Python {version[0]}.{version[1]}; the grader runs Python {_grader_python()}, "
                    "which lacks it: do without it (a few lines of your own do what it does).")
    return ""

