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

    HAS_JAX = False                   # or the flag's default, set before the try
    try:
        import jax
        HAS_JAX = True
    except ImportError:
        pass

Given a stand-in, such code takes the branch meant for the real library and computes with an object that computes
nothing. So when the import runs inside a ``try`` whose handler catches ``ImportError`` and provides a fallback in
one of those three ways, or returns from the function (``except ImportError: return None``), the import raises,
exactly as on a machine without the module. A handler that only passes or prints (with no such default before
the try), or that rebinds only some of the imported names (``torch = None`` after ``from torch import nn``, with
``nn.Module`` used unconditionally later) keeps the stand-in, since that code runs only where the module exists.

``with contextlib.suppress(ImportError): import jax.numpy as jnp`` swallows the error as ``except ImportError:
pass`` would, so it counts only with a fallback in the same cell or function: every name the import binds is bound
elsewhere in it, not by an import (``jnp = np`` before, or ``try: jnp`` / ``except NameError: jnp = np`` or ``if
'jnp' not in globals(): jnp = np`` after).

The decision is read from the bytecode of the frame running the import (the exception table gives the handler);
the source of a cell is not at hand in the child. Python 3.11 and later.

Asking whether the module exists without importing it (``importlib.util.find_spec("torch") is not None``) is
answered as on such a machine too: it does not.
"""
from __future__ import annotations

import builtins
import contextlib
import dis
import sys

#: exceptions whose handler catches an ImportError
_CATCHING = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})
_LOADS = frozenset({"LOAD_NAME", "LOAD_GLOBAL", "LOAD_FAST", "LOAD_DEREF", "LOAD_ATTR"})
_STORES = frozenset({"STORE_NAME", "STORE_GLOBAL", "STORE_FAST", "STORE_DEREF"})
_IMPORT_TAIL = frozenset({"IMPORT_NAME", "IMPORT_FROM", "POP_TOP", "SWAP"}) | _STORES
#: the exception classes themselves, for ``contextlib.suppress(...)``, whose arguments are values read at run time
_CAUGHT = tuple(getattr(builtins, name) for name in sorted(_CATCHING))
_SUPPRESS = contextlib.suppress


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


def requested(top: str) -> str:
    """The module the student's import names, as written (``google.colab`` for ``from google.colab import drive``),
    where ``top`` is the package Python looks for first: the note named 'google', a module the student never
    wrote. It is the name of the outermost ``_find_and_load`` under the student's frame; ``top`` when there is none
    or it is not under ``top`` (the parent cuts and quotes it, as any note's words)."""
    name, frame = top, sys._getframe(1)
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if not (module == "importlib" or module.startswith("importlib.") or module in ("standins", __name__)):
            break
        if frame.f_code.co_name == "_find_and_load":
            asked = frame.f_locals.get("name")
            if type(asked) is str and asked.startswith(top + "."):
                name = asked
        frame = frame.f_back
    return name


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
        if handler is None and _suppressing(frame, instructions, at, entry):  # it swallows the error: look no further
            body = [e for e in entries if e.target == entry.target]
            start, end = min(e.start for e in body), max(e.end for e in body)
            imported, _ = _body_stores(instructions, start, end, environment)
            _, before = _body_stores(instructions, 0, start, environment)
            _, after = _body_stores(instructions, end, 1 << 62, environment)
            return bool(imported) and imported <= before | after
        if handler is not None:
            body = [e for e in entries if e.target == entry.target]
            start, end = min(e.start for e in body), max(e.end for e in body)
            imported, others = _body_stores(instructions, start, end, environment)
            rebound, returns = _clause_stores(instructions, handler)
            if returns and code.co_name != "<module>":  # ``except ImportError: return None`` in a function
                return True
            _, before = _body_stores(instructions, 0, start, environment)  # a flag's default, set before the try
            return bool(rebound) and (imported <= rebound or bool(others & rebound)) or bool(others & before)
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


def _suppressing(frame, instructions: list, at: dict, entry) -> bool:
    """Whether ``entry`` protects the body of ``with contextlib.suppress(ImportError):`` (or ModuleNotFoundError,
    Exception, BaseException, among others): its handler is a ``with`` block's clean-up, the block's manager is made
    by a call right before ``BEFORE_WITH``, and the callee and each argument, read from the frame's names, are
    ``contextlib.suppress`` itself and those exception classes (no other object's attribute is read)."""
    target = at[entry.target]
    if instructions[target].opname != "PUSH_EXC_INFO" or target + 1 >= len(instructions) or \
            instructions[target + 1].opname != "WITH_EXCEPT_START" or entry.start not in at:
        return False
    index = at[entry.start] - 1
    if index < 2 or instructions[index].opname != "BEFORE_WITH":
        return False
    call = instructions[index - 1]
    index -= 2 if instructions[index - 2].opname != "PRECALL" else 3  # Python 3.11 prepares each call first
    if call.opname != "CALL" or not isinstance(call.arg, int) or not 0 < call.arg <= 4 or index < call.arg + 1:
        return False
    index += 1  # just past the last argument
    arguments = instructions[index - call.arg:index]
    if any(ins.opname not in _LOADS or ins.opname == "LOAD_ATTR" for ins in arguments):  # each a plain name
        return False
    if not any(_value(frame, ins) is caught for ins in arguments for caught in _CAUGHT):  # one that catches it
        return False
    callee = instructions[index - call.arg - 1]
    if callee.opname in ("LOAD_ATTR", "LOAD_METHOD") and callee.argval == "suppress":
        owner = instructions[index - call.arg - 2]
        return _value(frame, owner) is contextlib and vars(contextlib).get("suppress") is _SUPPRESS
    return _value(frame, callee) is _SUPPRESS


def _value(frame, ins) -> object:
    """What a plain name load would give, looked up in the frame's own dictionaries (None when it is no such load)."""
    if ins.opname not in ("LOAD_NAME", "LOAD_GLOBAL", "LOAD_FAST", "LOAD_DEREF") or not isinstance(ins.argval, str):
        return None
    places = {"LOAD_NAME": ("f_locals", "f_globals", "f_builtins"), "LOAD_GLOBAL": ("f_globals", "f_builtins")}
    for place in places.get(ins.opname, ("f_locals",)):
        names = getattr(frame, place)
        if type(names) is dict and ins.argval in names:
            return names[ins.argval]
    return None
