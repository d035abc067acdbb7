"""Is an import written to survive the module's absence? Then it fails as it would on a machine without the module.

A stand-in (``standins``) keeps ``import torch`` beside the ``def`` from stopping a cell. But code that expects the
module may be missing says so itself::

    try:
        import jax.numpy as jnp
    except ImportError:
        jnp = np                      # the fallback: every name the import binds is bound again

    try:
        import torch
        HAS_TORCH = True
    except ImportError:
        HAS_TORCH = False             # a flag the try body sets too

Given a stand-in, such code takes the branch meant for the real library and computes with an object that computes
nothing. So when the import runs inside a ``try`` whose handler catches ``ImportError`` and provides a fallback in
one of those two ways, or returns from the function (``except ImportError: return None``), the import raises,
exactly as on a machine without the module. A handler that only passes or prints, or that rebinds only some of
the imported names (``torch = None`` after ``from torch import nn``, with ``nn.Module`` used unconditionally later)
keeps the stand-in, since that code runs only where the module exists.

The decision is read from the bytecode of the frame running the import (the exception table gives the handler);
the source of a cell is not at hand in the child. Python 3.11 and later.

Asking whether the module exists without importing it (``importlib.util.find_spec("torch") is not None``) is
answered as on such a machine too: it does not.
"""
from __future__ import annotations

import dis
import sys

#: exceptions whose handler catches an ImportError
_CATCHING = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})
_LOADS = frozenset({"LOAD_NAME", "LOAD_GLOBAL", "LOAD_FAST", "LOAD_DEREF", "LOAD_ATTR"})
_STORES = frozenset({"STORE_NAME", "STORE_GLOBAL", "STORE_FAST", "STORE_DEREF"})
_IMPORT_TAIL = frozenset({"IMPORT_NAME", "IMPORT_FROM", "POP_TOP", "SWAP"}) | _STORES


def importing_frame():
    """The frame whose code asks for the module: the first outside importlib and the runner; and whether it asks to
    import it (``False``: it only asks whether the module exists, with ``importlib.util.find_spec``)."""
    frame = sys._getframe(1)
    importing = False
    while frame is not None:
        name = frame.f_globals.get("__name__", "")
        if not (name == "importlib" or name.startswith("importlib.") or name in ("standins", __name__)):
            return frame, importing
        importing = importing or frame.f_code.co_name == "_find_and_load"
        frame = frame.f_back
    return None, importing


def has_fallback(frame, environment: frozenset) -> bool:
    """Whether the import running in ``frame`` sits in a ``try`` whose handler catches ImportError and binds a
    fallback (see the module's docstring). ``environment``: top-level names of the modules that get stand-ins."""
    try:
        code = frame.f_code
        entries = dis.Bytecode(code).exception_entries
        instructions = list(dis.get_instructions(code))
    except Exception:  # an interpreter whose bytecode this does not know: keep the stand-in
        return False
    at = {ins.offset: index for index, ins in enumerate(instructions)}
    offset = frame.f_lasti
    for _ in range(32):  # out through enclosing ``with`` blocks, ``finally`` clauses and clean-up handlers
        entry = next((e for e in entries if e.start <= offset < e.end), None)
        if entry is None or entry.target not in at:
            return False
        handler = _catching_clause(instructions, at[entry.target])
        if handler is not None:
            body = [e for e in entries if e.target == entry.target]
            start, end = min(e.start for e in body), max(e.end for e in body)
            imported, others = _body_stores(instructions, start, end, environment)
            rebound, returns = _clause_stores(instructions, handler)
            if returns and code.co_name != "<module>":  # ``except ImportError: return None`` in a function
                return True
            return bool(rebound) and (imported <= rebound or bool(others & rebound))
        offset = entry.target
    return False


def _catching_clause(instructions: list, index: int) -> int | None:
    """Index of the first instruction of the except clause (starting at ``index``) that catches an ImportError."""
    if instructions[index].opname != "PUSH_EXC_INFO":
        return None
    index += 1
    if index < len(instructions) and instructions[index].opname == "POP_TOP":  # a bare ``except:``
        return index + 1
    names: list[str] = []
    for position in range(index, len(instructions)):
        ins = instructions[position]
        if ins.opname in ("RERAISE", "WITH_EXCEPT_START", "POP_EXCEPT"):
            return None
        if ins.opname in _LOADS:
            names.append(str(ins.argval))
        elif ins.opname == "CHECK_EXC_MATCH":
            if _CATCHING & set(names):
                after = position + 2  # past the conditional jump
                if after < len(instructions) and instructions[after].opname in _STORES | {"POP_TOP"}:
                    after += 1  # ``as error`` or the exception dropped
                return after
            names = []
        elif ins.opname != "BUILD_TUPLE":
            names = []
    return None


def _body_stores(instructions: list, start: int, end: int, environment: frozenset) -> tuple[set, set]:
    """Names the try body binds by importing an environment module, and names it binds other than by importing."""
    imported: set[str] = set()
    others: set[str] = set()
    importing = ""  # the module whose import statement is running, if any
    for ins in instructions:
        if not start <= ins.offset < end:
            continue
        if ins.opname == "IMPORT_NAME":
            importing = str(ins.argval) or "."
        elif ins.opname not in _IMPORT_TAIL:
            importing = ""
        if ins.opname in _STORES:
            if not importing:
                others.add(str(ins.argval))
            elif importing.partition(".")[0] in environment:
                imported.add(str(ins.argval))
    return imported, others


def _clause_stores(instructions: list, index: int) -> tuple[set, bool]:
    """Names the except clause starting at ``index`` binds, up to its end (``POP_EXCEPT``), and whether it then
    returns (a ``return`` in a handler leaves it first, so its value is loaded right after ``POP_EXCEPT``)."""
    names: set[str] = set()
    for position in range(index, len(instructions)):
        ins = instructions[position]
        if ins.opname == "RERAISE":
            break
        if ins.opname == "POP_EXCEPT":
            after = [i.opname for i in instructions[position + 1:position + 3]]
            return names, "RETURN_VALUE" in after or "RETURN_CONST" in after
        if ins.opname in _STORES:
            names.add(str(ins.argval))
    return names, False
