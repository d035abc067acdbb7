"""Parse and compile Python source in the grader's own process, one thread at a time.

A batch grades on several threads, and CPython 3.11 can fail when two threads build AST objects at once
("SystemError: AST constructor recursion depth mismatch", CPython issue gh-106905): one student's result would
become an internal error at random. Every parse and compile of a submission's text in the grader goes through
this lock; each takes milliseconds, so the threads barely wait.
"""
from __future__ import annotations

import ast
import threading
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
