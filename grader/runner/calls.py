"""The function lookup and the calls: the inputs mapped from the parent's memory, the call made under its alarm.

A call's inputs are never copied: inline ones are views of the memory the parent wrote them to (and reads back after
the call, to see what the student changed), large shared ones are files mapped copy-on-write. The call, the
description of its result and the release of what it made all run within the call's own time, so that a slow
``__del__`` or ``__array__`` is that call's timeout, not the next one's.
"""
from __future__ import annotations

import mmap
import os
import re
import time

import alarms
import rows  # next to this file, in the runner folder
import stdlib
from describe import address_space, describe_error, frombuffer, signature, type_name, unreadable

__builtins__ = stdlib.own_builtins()  # the runner's own: student code may replace those it shares (stdlib.py)
#: numpy's, kept before student code runs (numpy is imported before this module), as ``describe.frombuffer`` is: a
#: right function whose file then made ``np.dtype`` answer float32 had every inline input read as float32 garbage,
#: and was told its output had the wrong dtype and NaN values
_dtype = stdlib.load("numpy").dtype
#: what maps a large case's shared .npy files, kept for the same reason. numpy's own reader (``np.lib.format``,
#: ``np.memmap``) is Python code that looks up ``struct.unpack``, ``mmap.mmap``, ``np.ndarray`` and its own
#: functions each time it runs: a right function whose file then made ``struct.unpack`` lie lost the large case as
#: a break of the grader's own code, one whose ``mmap.mmap`` mapped zeros had its values called wrong, and one whose
#: ``np.ndarray`` was a subclass was handed subclass inputs and lost the type point for returning one
_open, _close, _pread, _stat, _mmap, _monotonic = os.open, os.close, os.pread, os.stat, mmap.mmap, time.monotonic
_READ_ONLY, _COPY_ON_WRITE = os.O_RDONLY | os.O_CLOEXEC, mmap.ACCESS_COPY
#: the header numpy writes (``np.lib.format``: sorted keys, a plain dtype, spaces and a newline after it)
_NPY_HEADER = re.compile(r"\{'descr': '([<>|=][a-zA-Z][0-9]*)', 'fortran_order': (True|False), "
                         r"'shape': \(((?:[0-9]+, )*[0-9]*,?)\), \} *\n")


class Calls:
    """The child's part that answers ``lookup`` and ``call`` commands."""

    def lookup(self, command: dict) -> None:
        namespace = self.namespace or self.start_namespace()
        name = str(command["name"])
        function = namespace.get(name)
        if function is None and not self.notebook and callable(namespace.get("__getattr__")):
            # a module's own __getattr__ (PEP 562) answers ``from submission import name`` for names it lacks
            out_of_time, failed, found = self.timed(self.wire.SIGNATURE_SECONDS,
                                                    lambda: namespace["__getattr__"](name))
            function = found if not out_of_time and failed is None else None
        # its type's name under an alarm too: a metaclass's __module__ or __qualname__ is student code, and one that
        # looped kept the lookup from answering (the run ended 20 s later with the function never called)
        _, _, kind = self.timed(self.wire.SIGNATURE_SECONDS, lambda: type_name(function))
        reply = {"t": "function", "seq": command["seq"], "found": function is not None,
                 "callable": function is not None and callable(function),
                 "type": kind if isinstance(kind, str) else "(unnamed type)"}
        if not reply["callable"]:
            reply["candidates"] = sorted(  # names cut: globals()['f' * 10**7] = print is a name too
                str.__str__(k)[:100] for k, v in list(namespace.items()) if isinstance(k, str) and callable(v)
                and not str.startswith(k, "__"))[:200]  # str's own: a key of a str subclass may slice as it likes
        else:  # its parameters, for the parent to compare with the exercise's: reading them may run student code
            out_of_time, failed, declared = self.timed(self.wire.SIGNATURE_SECONDS,
                                                       lambda: signature(function, self.wire))
            reply["signature"] = declared if not out_of_time and failed is None else None
        self.functions[name] = function
        self.send(reply)

    def argument(self, spec: dict, base: int = 0):
        np = self.np
        if "value" in spec:  # a Python scalar or None, passed as it is
            return spec["value"]
        if "period" in spec:  # raw rows that repeat (see rows.py): mapped copy-on-write, as below
            return rows.repeated(spec["file"], spec["dtype"], tuple(spec["shape"]), spec["period"], writable=True)
        if "file" in spec:
            # Large shared inputs are mapped copy-on-write: no copy per submission, and writes stay private.
            mapped = _npy(spec["file"])
            if mapped is not None:
                return mapped
            return np.load(spec["file"], mmap_mode="c", allow_pickle=False).view(np.ndarray)  # another writer's
        dtype = _dtype(spec["dtype"])
        count = 1
        for n in spec["shape"]:
            count *= n
        return frombuffer(self.inputs, dtype=dtype, count=count, offset=base + spec["offset"]).reshape(spec["shape"])

    def call(self, command: dict) -> None:
        base = command.get("base", 0)  # inline offsets count from the call's place in the shared memory
        try:
            args = [self.argument(spec, base) for spec in command["args"]]
        except (MemoryError, OSError, ValueError) as exc:
            error = _own_limit_error(command["args"], self.address_space, exc)
            if error is None:
                raise  # the runner's own failure, named as such by the parent
            self.send({"t": "result", "seq": command["seq"], "status": "raised", "error": error, "reshaped": []})
            return
        forms = [_form(arg) for arg in args]
        mapped = [arg for arg, spec in zip(args, command["args"]) if "file" in spec]  # not in the inline memory
        inline = [arg for arg, spec in zip(args, command["args"]) if "offset" in spec]
        function = self.functions[command["function"]]
        reply = {"t": "result", "seq": command["seq"], "status": "ok", "error": None}
        payload = b""
        seconds = command.get("seconds", self.limits.get("call_seconds"))
        started = _monotonic()
        out_of_time, exc, value = self.timed(seconds, lambda: function(*args), untraced=True)
        held = [value, exc]  # what the call made, released below while its own time still runs
        raised = exc is not None
        del value, exc

        def left() -> float | None:
            own = _monotonic() - started - (alarms.CLOCK.waited() if alarms.CLOCK is not None else 0.0)
            return max(seconds - own, 0.01) if seconds else None
        if not out_of_time:
            # Describing runs student code too (``__str__``, ``__array__``, properties): under what is left of the
            # call's own alarm, so a loop there is the call's timeout, not a silence until the parent's deadline.
            max_bytes, outputs = int(command["max_bytes"]), int(command.get("outputs", 1))
            describe = (lambda: describe_error(held[1])) if raised else \
                (lambda: self.describe_result(held[0], reply, max_bytes, outputs, (command["function"], command["seq"],
                                                                                   mapped, inline)))
            out_of_time, failed, described = self.timed(left(), describe, untraced=True)
            if failed is not None and raised:
                described = {"type": "Exception", "message": "<unprintable>", "file": None, "line": None}
            elif failed is not None:  # the value broke its own description: unreadable, said with its error's type
                reply["parts"], reply["count"], described = [unreadable(failed)], 1, b""
            elif not raised and not out_of_time:
                described = [self.detached(chunk) for chunk in described]
            failed = None  # its traceback holds the frames of the student's code
        # The result and the exception's frames are released here, in the call's time: released after the answer,
        # a slow ``__del__`` was charged to the next call (its case then timed out and was blamed). An alarm that
        # goes off in a ``__del__`` is swallowed by Python, so whether it went off is asked of the alarm itself.
        stopped, _, _ = self.timed(left(), lambda: self.release(held), untraced=True)
        if seconds and (stopped or alarms.FIRED[0]):
            out_of_time = True
        if out_of_time:
            reply["status"] = "timeout"
            reply.pop("parts", None)
        elif raised:
            reply.update(status="raised", error=described)
        else:
            payload = described
        # arrays whose shape, strides or dtype the call reassigned (``x.shape = ...`` changes no byte)
        reply["reshaped"] = [i for i, (arg, was) in enumerate(zip(args, forms)) if was is not None and _moved(arg, was)]
        self.send(reply, payload)


def _form(value) -> tuple | None:
    """An array argument's shape, strides and dtype (None for anything else), read before and after a call.

    The dtype object itself, compared with ``==``: its ``str()`` is numpy Python code, about 2.5 us, twice per
    array argument per call (0.7 ms of a run's 10)."""
    try:
        return (tuple(value.shape), tuple(value.strides), value.dtype) if type(value).__name__ == "ndarray" \
            else None
    except Exception:  # noqa: BLE001  (the student replaced a property: that is a change too)
        return ("changed",)


def _moved(value, was: tuple) -> bool:
    """Whether the call reassigned the array's shape, strides or dtype; a comparison that fails counts as one."""
    try:
        now = _form(value)
        if now is None or len(now) != len(was):
            return True
        return len(now) == 3 and bool(now[0] != was[0] or now[1] != was[1] or not (now[2] == was[2]))
    except Exception:  # noqa: BLE001
        return True


def _own_limit_error(specs: list, grader_limit: int, exc: BaseException) -> dict | None:
    """The error to report when a call's inputs could not be mapped because the submission lowered its own
    address-space limit (``resource.setrlimit(RLIMIT_AS, ...)``) below the grader's: its own limit stopped the call.
    Without this, the failure ended the child as a broken runner ("replacing a builtin"), which was not the cause.
    None when the limit is the grader's: then the failure is the runner's own."""
    own = address_space()
    if own < 0 or (0 <= grader_limit <= own):
        return None
    size = 0
    for spec in specs:
        try:  # a shared file holds the array (and its small header); repeated rows name their full shape
            count = int(_dtype(spec["dtype"]).itemsize) if "period" in spec else 0
            for n in spec["shape"] if "period" in spec else ():
                count *= int(n)
            size += count or (_stat(spec["file"]).st_size if "file" in spec else 0)
        except Exception:  # noqa: BLE001
            pass
    below = f", below the grader's {grader_limit / 2**20:,.0f} MiB" if grader_limit >= 0 else ""
    return {"type": "OSError", "message": (
        f"its inputs ({size / 2**20:,.0f} MiB) could not be mapped into memory ({type(exc).__name__}): the submission "
        f"had lowered its own address-space limit (resource.setrlimit(RLIMIT_AS, ...)) to {own / 2**20:,.0f} MiB"
        f"{below}, so its own memory limit stopped the call")[:500], "file": None, "line": None}


def _npy(path: str):
    """The array of the .npy file at ``path``, mapped copy-on-write with the functions kept above; None when its
    header is not the one numpy writes for a plain array (then numpy's own reader is left to read it).

    The header is read unbuffered (``pread``): on a huge-page tmpfs a buffered open reads 2 MiB (st_blksize)."""
    fd = _open(path, _READ_ONLY)
    try:
        start = _pread(fd, 12, 0)
        if start[:6] != b"\x93NUMPY" or start[6:8] not in (b"\x01\x00", b"\x02\x00"):
            return None
        at = 10 if start[6] == 1 else 12
        length = int.from_bytes(start[8:at], "little")
        if length > 1 << 16:
            return None
        found = _NPY_HEADER.fullmatch(_pread(fd, length, at).decode("latin-1"))
        if found is None:
            return None
        descr, fortran, extents = found.groups()
        dtype = _dtype(descr)
        if dtype.hasobject:
            raise ValueError("a shared input holds objects")
        shape = tuple(int(n) for n in extents.split(",") if n.strip())
        mapped = _mmap(fd, 0, access=_COPY_ON_WRITE)
    finally:
        _close(fd)
    count = 1
    for n in shape:
        count *= n
    array = frombuffer(mapped, dtype=dtype, count=count, offset=at + length)
    return array.reshape(shape, order="F" if fortran == "True" else "C")
