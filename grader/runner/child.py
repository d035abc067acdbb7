"""The sandboxed child: runs the cells and calls the parent sends, one at a time, and answers each.

Runs as ``python -I -S child.py CHANNEL_FD`` with only the standard library and numpy importable. The parent
drives: it sends command frames on stdin (setup, a cell, the function lookup, a call, the end; a function's calls
may be queued ahead) and waits for the answers on the channel, one per command, in order. This side reads the next
command only once it has answered the last. Nothing here decides a grade: the answers are data the parent checks,
and student code shares this process, so it can reach these objects and forge answers. It gains nothing by it:
the parent owns the clock (each step's deadline from the moment this side can start it), the sequence (an answer
to anything but the command the parent awaits ends the run) and every verdict (inputs sit in memory the parent
reads back after the call).

This module is the entry point (``main``) and the command loop (``serve``); the rest of the child lives in modules
of one job each next to it, imported once the runner's folder is on ``sys.path``: ``kernel`` (the state of the run
and how it answers), ``cells``, ``shell``, ``calls``, ``describe``, ``alarms``.
"""
from __future__ import annotations

import os
import sys

import builtins as _builtins
import struct as _struct

_here = os.path.dirname(os.path.abspath(__file__))
#: the runner's own copy, taken before student code runs (``stdlib.own_builtins``; that module is not importable
#: yet when this one starts a fresh run): a notebook that set ``builtins.len`` broke the reading of the next command
__builtins__ = dict(vars(_builtins))
_HEADER = 8  # two big-endian uint32: JSON length, payload length


#: kept before student code runs, as the builtins are: a student's ``os.read`` or ``struct.unpack`` replaced after a
#: right definition made the next command unreadable (0/17, or a 20 s wait for an answer), and an ``os._exit`` that
#: returned let a broken runner go on answering
_read, _unpack_header, _exit = os.read, _struct.Struct(">II").unpack, os._exit


def _read_exactly(fd: int, n: int) -> bytes:
    chunks, got = [], 0
    while got < n:
        chunk = _read(fd, min(n - got, 1 << 20))
        if not chunk:
            raise EOFError("the grader closed the command pipe")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def _read_command(fd: int) -> tuple[dict, bytes]:
    global _decode
    if _decode is None:
        import json

        _decode = json.JSONDecoder().raw_decode
    body_len, payload_len = _unpack_header(_read_exactly(fd, _HEADER))
    text = _read_exactly(fd, body_len).decode()
    message, end = _decode(text)
    if end != len(text):
        raise ValueError("a command frame holds more than one JSON value")
    return message, (_read_exactly(fd, payload_len) if payload_len else b"")


#: json's decoder without ``json.loads``, whose Python code reads the shared builtins (a student's ``builtins.len``
#: made every later command unreadable): kept from the first command, read before any student code runs
_decode = None


def main() -> None:
    # Commands arrive on stdin; move them off fd 0 so that input() in student code reads /dev/null (EOF), as in
    # a kernel with no frontend, instead of eating the parent's next command.
    commands = os.dup(0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    setup, _ = _read_command(commands)
    sys.path[:0] = [_here, *setup.get("paths", [])]

    import alarms  # noqa: E402
    import confine  # noqa: E402  (the sandbox's in-process layers, applied before any student code)

    alarms.start_clock()  # before Landlock, which hides /proc
    import maps  # noqa: E402

    maps.keep_open()  # the same: read when a result lies in a mapped file (describe.Results.reused)
    confine.apply(setup.get("confine", {}))

    import numpy as np  # noqa: E402
    import rows  # noqa: E402, F401
    import standins  # noqa: E402, F401
    import wire  # noqa: E402

    import kernel  # noqa: E402  (the rest of the child: cells, calls, results, alarms)

    import builtins  # noqa: E402  (the module, as Jupyter and a script give it: a forked run's module global is a dict)

    _hide_runner()
    serve(kernel.Child(setup, commands, np, wire, builtins))


def serve(child) -> None:
    """Answer the parent's commands, one at a time, until it says the run is over."""
    broken = child.wire.RUNNER_BROKEN  # kept now: student code can reach ``child`` and take its ``wire`` away
    child.send({"t": "ready", "seq": 0})
    handlers = {"cell": child.run_cell, "lookup": child.lookup, "call": child.call}
    while True:
        try:  # its imports go through builtins.__import__, which student code may have replaced
            message, _ = _read_command(child.commands)
        except BaseException:  # noqa: BLE001  (was exit code 0, read as the student's own os._exit(0))
            _exit(broken)
        kind = message.get("t")
        if kind == "end":  # gone at once: unwinding the student's objects would only cost time (ms per run)
            _leave()
        try:
            handlers[kind](message)
        except BaseException:  # noqa: BLE001  (student code broke this side: a replaced builtin, a closed fd)
            _exit(broken)  # the parent names that, not an os._exit(0) of the student's


def fresh_std_streams() -> None:
    """``sys.stdout`` and ``sys.stderr`` made again over the run's descriptors 1 and 2, as a fresh child has them
    (a forked run calls it, ``template._runner``).

    The template's were made when its descriptor 1 was /dev/null, and a text stream remembers at creation whether
    it can seek: ``sys.stdout.reconfigure(encoding="utf-8")`` at the top of a student's file then tried to seek on
    the run's pipe and raised "Illegal seek", and the function below it was never defined (0/17)."""
    import io

    for name in ("stdout", "stderr"):
        old = getattr(sys, name)
        fd = 1 if name == "stdout" else 2
        try:
            raw = io.FileIO(fd, "w", closefd=False)
            raw.name = f"<{name}>"  # as Python names its own
            new = io.TextIOWrapper(io.BufferedWriter(raw), encoding=old.encoding, errors=old.errors, newline="\n",
                                   line_buffering=old.line_buffering, write_through=old.write_through)
        except (AttributeError, OSError, ValueError):
            continue
        setattr(sys, name, new)
        setattr(sys, f"__{name}__", new)


#: the runner's own modules, imported from its folder while it starts
RUNNER_MODULES = ("wire", "child", "confine", "guarded", "rows", "standins", "template", "landlock", "seccomp",
                  "rootfs", "alarms", "calls", "cells", "describe", "maps", "printchain", "kernel", "shell", "stdlib",
                  "syscalls")
#: those the runner still needs once student code runs, kept here rather than in ``sys.modules``
_RUNNER: dict = {}


def _hide_runner() -> None:
    """Take the runner's folder off ``sys.path`` and its modules out of ``sys.modules`` before any student code runs.

    Left there, a student's ``import wire`` gave the runner's module (a name the student's own machine does not
    have), a ``wire.py`` the student wrote with ``%%writefile`` was never imported, and one named ``rows.py`` was
    what the runner imported later, in the student's place. Now the student's own file wins, a missing one fails
    as it would at home, and the runner keeps its modules to itself."""
    for name in RUNNER_MODULES:
        module = sys.modules.pop(name, None)
        if module is not None:
            _RUNNER[name] = module
    try:
        here = os.stat(_here)
    except OSError:
        return

    def runner_folder(entry) -> bool:  # by inode: confine may have renamed it /proc/self/fd/N
        try:
            return os.path.samestat(os.stat(entry), here)
        except (OSError, TypeError, ValueError):
            return False

    sys.path[:] = [entry for entry in sys.path if not runner_folder(entry)]


def _leave() -> None:
    """Flush what the student printed and end the process now, never waiting for the student's threads."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:  # noqa: BLE001
        pass
    _exit(0)


if __name__ == "__main__":
    try:
        main()
    finally:
        _leave()
