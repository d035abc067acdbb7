"""Decode what the child answered: every field checked for its type, every string cleaned, nothing believed.

A wrong type, a missing field or bytes that do not match their description is a ``ProtocolError``: the
submission wrote on the channel (its code shares the child's process), and the run ends there.
"""
from __future__ import annotations

import re

import numpy as np

from . import hints
from .channel import ProtocolError
from .outcomes import CallError, Declared, Parameter, Returned
from .runner import wire
from .submission import Submission
from .text import clean


def _clean(value: object, limit: int) -> str:
    """``clean``, with the usual answer (a short printable ASCII type name) passed as it is: ``clean`` returns such
    text unchanged, one character at a time."""
    if isinstance(value, str) and len(value) <= limit and value.isascii() and value.isprintable():
        return value
    return clean(value, limit)


def text_field(message: dict, key: str) -> str:
    value = message.get(key, "")
    if not isinstance(value, str):
        raise ProtocolError(f"the field '{key}' is not text")
    return value


def bool_field(message: dict, key: str) -> bool:
    value = message.get(key, False)
    if not isinstance(value, bool):
        raise ProtocolError(f"the field '{key}' is not true or false")
    return value


def function_info(message: dict) -> dict:
    candidates = message.get("candidates", [])
    if not isinstance(candidates, list):
        raise ProtocolError("the field 'candidates' is not a list")
    return {"found": bool_field(message, "found"), "callable": bool_field(message, "callable"),
            "type": _clean(text_field(message, "type"), 200), "candidates": [_clean(c, 100) for c in candidates[:200]],
            "declared": declared(message.get("signature"))}


def declared(spec: object) -> Declared | None:
    """The function's parameters as the child listed them: bounded, every name cleaned, every kind one Python has.

    The child never lists more than ``wire.MAX_PARAMETERS`` or a longer name, so more is a protocol error. What
    passes is still the student's claim (a ``__signature__`` can say anything): it explains a verdict, never makes
    one."""
    if spec is None:
        return None
    if not isinstance(spec, dict):
        raise ProtocolError("a signature is not an object")
    count, listed = spec.get("count"), spec.get("parameters")
    if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count < 2**40:
        raise ProtocolError("a signature's count is not a number")
    if not isinstance(listed, list) or len(listed) > min(count, wire.MAX_PARAMETERS) or \
            len(listed) < min(count, wire.MAX_PARAMETERS):
        raise ProtocolError("a signature's parameters are not a list of its count")
    parameters = []
    for item in listed:
        if not isinstance(item, dict) or item.get("kind") not in wire.PARAMETER_KINDS:
            raise ProtocolError("a parameter without a known kind")
        name = text_field(item, "name")
        if len(name) > wire.MAX_PARAMETER_NAME:
            raise ProtocolError("a parameter's name is longer than the protocol allows")
        parameters.append(Parameter(name=_clean(name, 60), kind=item["kind"], default=bool_field(item, "default")))
    own = text_field(spec, "own_name")  # the function's __name__: shown only, and only when it is an identifier
    if len(own) > wire.MAX_PARAMETER_NAME:
        raise ProtocolError("a function's own name is longer than the protocol allows")
    printed_by = spec.get("printed_by", [])  # the helpers whose result it returns, down to the one that prints
    if not isinstance(printed_by, list) or len(printed_by) > _MAX_PRINTED_BY or not all(
            isinstance(name, str) and len(name) <= wire.MAX_PARAMETER_NAME for name in printed_by):
        raise ProtocolError("a function's printing helpers are not a short list of names")
    return Declared(parameters=tuple(parameters), count=count, own_name=_clean(own, 60),
                    prints=bool_field(spec, "prints"), printed_by=tuple(_clean(name, 60) for name in printed_by))


#: the child follows returned results this many functions deep (``printchain._RETURN_DEPTH``)
_MAX_PRINTED_BY = 4


def earlier_call(message: dict, answered: dict, target: int) -> int | None:
    """The step of the earlier call whose returned array the child says this result shares memory with, checked:
    absent, or a step this child already answered for the same function (``answered``: step -> its call, which
    has a ``target``). Anything else is a protocol error. A claim that passes can only cost the submission points,
    never earn any."""
    step = message.get("overwrites")
    if step is None:
        return None
    if not isinstance(step, int) or isinstance(step, bool) or \
            getattr(answered.get(step), "target", None) != target:
        raise ProtocolError("a result claims to share memory with a call that is not an earlier one of its function")
    return step


def call_error(error: object, submission: Submission) -> CallError:
    """An exception the child described, with its line placed in the submission; malformed is a protocol error."""
    if not isinstance(error, dict):
        raise ProtocolError("an error description is not an object")
    line, source = error.get("line"), error.get("file")
    # a code object's line is a C int: a line of 4,300 digits was shown in full in the report
    if line is not None and (not isinstance(line, int) or isinstance(line, bool) or not -2**31 <= line < 2**31):
        raise ProtocolError("an error's line is not a line number")
    if source is not None and not isinstance(source, str):
        raise ProtocolError("an error's file is not text")
    cell = where = None
    if line is not None and source:
        number = source[len("<cell "):-1] if source.startswith("<cell ") and source.endswith(">") else ""
        # ASCII digits, as few as a cell number has: '²' is a digit that int() refuses, and so are 4,301 digits
        found = submission.cell(int(number)) if number.isascii() and number.isdigit() and len(number) <= 9 else None
        cell = found.code_number if found else None
        where = found.short(line) if found else f"line {line}"
    reserved = error.get("reserved")
    if reserved is not None and (not isinstance(reserved, int) or isinstance(reserved, bool)
                                 or not 0 <= reserved < 2**64):  # VmSize: a size the kernel can give
        raise ProtocolError("an error's reserved memory is not a number")
    space = error.get("address_space")
    if space is not None and (not isinstance(space, int) or isinstance(space, bool) or not -1 <= space < 2**64):
        raise ProtocolError("an error's address-space limit is not a number")
    # numpy.testing's messages start with a line break (its report begins on the next line, as a traceback prints
    # it): quoted, a leading '\n' is all the student saw of it before the cut
    kind, message = _clean(text_field(error, "type"), 80) or "Exception", \
        _clean(text_field(error, "message").strip(), 400)
    if kind == "SystemExit" and message == "None":  # exit() or sys.exit() with no code: str(None), nothing said
        message = ""
    if kind == "OSError" and (said := _own_limit_sentence(message)):  # the runner's words: written again here
        return CallError(type=kind, message="", hint=said, where=where or "", line=line, cell=cell)
    hint = hints.error_hint(kind, message)
    return CallError(type=kind, message=message, hint=hint, where=where or "", line=line, cell=cell,
                     reserved=reserved, address_space=space)


#: the one sentence the runner sends as an exception's message (runner/calls.py: inputs it could not map under the
#: address-space limit the submission lowered); only its numbers are read, and the parent writes it again
_OWN_LIMIT = re.compile(r"its inputs \(([\d,]{1,12}) MiB\) could not be mapped into memory \((\w{1,40})\): the "
                        r"submission had lowered its own address-space limit \(resource\.setrlimit\(RLIMIT_AS, "
                        r"\.\.\.\)\) to ([\d,]{1,12}) MiB(?:, below the grader's ([\d,]{1,12}) MiB)?, so its own "
                        r"memory limit stopped the call")


def _own_limit_sentence(message: str) -> str:
    """The runner's sentence for inputs refused by the submission's own address-space limit, written by the parent
    from its numbers (so it is shown as the grader's text, not quoted as the student's), or ''."""
    found = _OWN_LIMIT.fullmatch(message)
    if not found:
        return ""
    below = f", below the grader's {found[4]} MiB" if found[4] else ""
    return (f"its inputs ({found[1]} MiB) could not be mapped into memory ({found[2]}): the submission had lowered "
            f"its own address-space limit (resource.setrlimit(RLIMIT_AS, ...)) to {found[3]} MiB{below}, so its own "
            "memory limit stopped the call")


def early_alarm(seconds: float, limit: float, what: str = "the call") -> CallError | None:
    """A call (or cell: ``what``) the child says ran out of time after less than 90 % of its limit, by the parent's
    clock: the runner's alarm cannot go off before the limit (its clock counts the step's own time, never more than
    its wall time), so the submission's own code set it off: a timer of its own (``signal.setitimer``,
    ``signal.alarm``) or a raise of the runner's exception. Reported as "killed after 10 s, its time limit" and
    named too slow, it was neither."""
    if seconds >= 0.9 * limit:
        return None
    return CallError(type="SIGALRM", message="", hint=f"{what} was stopped after {seconds:.2g} s by an alarm the "
                     f"submission's own code set off (a timer of its own, with signal.setitimer or signal.alarm), not "
                     f"by its {limit:g} s limit")


def returned(spec: object, body: bytes, used: int, max_bytes: int, expect: str) -> tuple[Returned, int]:
    """One returned value from its description and its bytes, which start at ``used`` in the payload."""
    if not isinstance(spec, dict):
        raise ProtocolError("a returned value's description is not an object")
    try:
        return _returned(spec, body, used, max_bytes, expect)
    except wire.WireError as exc:  # a description that breaks the wire format's rules
        raise ProtocolError(str(exc)) from None


def _returned(spec: dict, body: bytes, used: int, max_bytes: int, expect: str) -> tuple[Returned, int]:
    array = None
    if spec.get("array") is not None:
        description = spec["array"]
        dtype = _dtype(description)
        shape = wire.checked_shape(description)
        size = dtype.itemsize
        for n in shape:
            size *= n
        if used + size > len(body):
            raise ProtocolError("an array description claims more bytes than were sent")
        whole = used == 0 and size == len(body)  # the usual single result: its bytes are used as they are
        data = body if whole else body[used: used + size]
        # ``wire.decode_array`` without checking the description a second time: exactly ``size`` bytes, owned
        owned = data if isinstance(data, bytearray) else bytearray(data)
        array = np.frombuffer(owned, dtype=dtype).reshape(shape)
        used += size
    shape = wire.checked_shape({"shape": spec["shape"]}) if spec.get("shape") is not None else None
    if array is not None and shape != array.shape:
        raise ProtocolError("a result whose shape does not match its array")
    type_name = _clean(text_field(spec, "type"), 200)
    why = note(spec, max_bytes, expect)
    if type_name.startswith(STAND_IN):
        # np.asarray of a missing module's stand-in is an empty float64 array: a shape (0,) and a float64 dtype
        # that the student never computed, so a report would blame a shape and credit a dtype that are not theirs
        array, shape, why = None, None, STAND_IN_NOTE
    return Returned(type_name=type_name, exact_ndarray=bool_field(spec, "exact"),
                    subclass=bool_field(spec, "subclass"), array=array, shape=shape, note=why), used


#: how the runner names the type of a missing module's stand-in ("stand-in for torch", or "stand-in"); no class a
#: submission defines is named so, since its name starts with its module's
STAND_IN = "stand-in"
STAND_IN_NOTE = "stands for a module that is not installed where the grader runs, and holds no values"


#: dtypes the child named, as ``wire.checked_dtype`` accepted them: a result's dtype is one of a few, and building
#: a dtype from its name costs more than the rest of the result's checks
_DTYPES: dict[str, np.dtype] = {}


def _dtype(description: object) -> np.dtype:
    name = description.get("dtype") if isinstance(description, dict) else None
    found = _DTYPES.get(name) if isinstance(name, str) else None
    if found is None:
        found = wire.checked_dtype(description)  # raises for anything but a plain numeric dtype
        if len(_DTYPES) < 64:
            _DTYPES[name] = found
    return found


def note(message: dict, max_bytes: int, expect: str) -> str:
    """Why a returned value came without its array, in words."""
    note = message.get("note")
    if note in (None, ""):
        return ""
    if note == "too-large":
        nbytes = message.get("nbytes")
        size = human_bytes(nbytes) if isinstance(nbytes, int) and nbytes > max_bytes else "too much"
        return f"{size} where {expect} was expected; only its shape was kept"
    if note == "not-numeric":
        return f"holds {clean(message.get('dtype'), 40)} values"
    if note == "unreadable":
        return f"could not be read as an array ({clean(message.get('detail'), 60)})"
    raise ProtocolError("a result with an unknown note")


def human_bytes(n: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n} bytes"
