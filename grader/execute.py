"""Run a submission's cells and calls in a sandboxed child and collect what happened, incidents included.

Two kinds of limit. The child stops a cell or call itself when its time is up (an alarm, as Jupyter's interrupt
would), reports it and goes on with the next one. The parent holds the hard deadlines behind that: per cell and
per call (the soft limit plus a grace, from the moment the child announces the cell or call) and one for the
whole submission. When a cell or call outlives its hard deadline, floods the output or kills its own process, the
child is killed with its process group and started again without that cell, or from the next call, so one bad
cell or case never costs the rest of the grade (as nbclient does with ``allow_errors``).
"""
from __future__ import annotations

import os
import selectors
import signal
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .exercise import Case
from .largecase import SharedArrays
from .outcomes import CallOutcome, Execution
from .runner import wire
from .sandbox import MIB, Launched, Sandbox
from .submission import Submission

MAX_RESULT_BYTES = 64 * MIB
STARTUP_SECONDS = 20.0
#: the child stops a cell or call itself at its limit (an alarm, like Jupyter's interrupt); the parent kills the
#: process only if that did not work within this grace (code that blocks signals, or a long call into C)
GRACE_SECONDS = 2.0
MAX_RESTARTS = 8
MAX_CONSECUTIVE_TIMEOUTS = 2


@dataclass
class _State:
    """Progress of one run across restarts."""

    skip_cells: set[int] = field(default_factory=set)
    next_call: int = 0
    outcomes: dict[int, CallOutcome] = field(default_factory=dict)
    cell_errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    function: dict | None = None
    incident: str = ""
    incident_kind: str = ""
    timeouts: int = 0  # consecutive calls that ran out of time
    cell_incidents: list[tuple[str, str]] = field(default_factory=list)  # (kind, sentence)


class _Incident(Exception):
    """Why a child was stopped, and where: ``where`` is ("cell", number, label), ("call", index, case) or None."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.where: tuple | None = None
        self.seconds = 0.0


def run(
    submission: Submission,
    function: str,
    parameters: tuple[str, ...],
    cases: list[Case],
    sandbox: Sandbox,
    shared: SharedArrays | None = None,
    repeat: tuple[int, ...] = (),
) -> Execution:
    """Execute ``submission`` and call ``function`` once per case, plus once more for each index in ``repeat``."""
    calls = [
        {"id": i, "case": i, "check_mutation": not case.shared, "shared": case.shared}
        for i, case in enumerate(cases)
    ]
    calls += [{"id": len(cases) + n, "case": i, "check_mutation": False, "repeat": True} for n, i in enumerate(repeat)]
    state = _State()
    started = time.monotonic()
    deadline = started + sandbox.limits.submission_seconds
    restarts = 0
    while True:
        try:
            _attempt(submission, function, parameters, cases, calls, sandbox, shared, state, deadline)
            break
        except _Incident as incident:
            if not _recover(incident, state, calls, cases, sandbox) or restarts >= MAX_RESTARTS:
                break
            if time.monotonic() >= deadline:
                state.incident_kind, state.incident = "timeout", _submission_timeout(sandbox)
                break
            restarts += 1
    for call in calls[state.next_call:]:
        state.outcomes.setdefault(call["id"], CallOutcome(
            case=cases[call["case"]].name, status="not-run", repeat=bool(call.get("repeat")),
            error=state.incident or "the grading time for this submission ran out first",
        ))
    info = state.function or {}
    return Execution(
        function_found=bool(info.get("found")),
        function_callable=bool(info.get("callable")),
        function_type=str(info.get("type", "")),
        candidates=tuple(str(c) for c in info.get("candidates", ()))[:200],
        calls=tuple(state.outcomes[c["id"]] for c in calls if c["id"] in state.outcomes),
        cell_errors=tuple(state.cell_errors),
        cell_incidents=tuple(state.cell_incidents),
        notes=tuple(state.notes),
        incident=state.incident if state.function is None else "",
        incident_kind=state.incident_kind if state.function is None else "",
        seconds=time.monotonic() - started,
        restarts=restarts,
        layers=sandbox.layers,
        memory_limit=sandbox.limits.describe_memory(),
        isolation_warnings=tuple(sandbox.warnings),
    )


def _recover(incident: _Incident, state: _State, calls, cases, sandbox) -> bool:
    """Record the incident where it happened; return whether a restart can make progress."""
    where = incident.where
    if where is None:
        state.incident_kind, state.incident = incident.kind, incident.message
        return False
    kind, ident, label = where
    if kind == "cell":
        state.skip_cells.add(ident)
        if label == "the file":
            sentence = f"While the file was being loaded, it {incident.message}."
        else:
            sentence = f"{label[0].upper()}{label[1:]} {incident.message}; it was skipped and the rest was run."
        state.cell_errors.append(sentence)
        state.cell_incidents.append((incident.kind, sentence))
        return True
    call = calls[ident]
    status = {"timeout": "timeout", "output-limit": "output-limit"}.get(incident.kind, "crashed")
    state.outcomes[call["id"]] = CallOutcome(
        case=cases[call["case"]].name, status=status, error=incident.message, repeat=bool(call.get("repeat")),
        seconds=incident.seconds,
    )
    state.next_call = ident + 1
    state.timeouts = state.timeouts + 1 if status == "timeout" else 0
    if state.timeouts >= MAX_CONSECUTIVE_TIMEOUTS:
        state.incident = f"{MAX_CONSECUTIVE_TIMEOUTS} calls in a row ran out of time"
        return False
    return state.next_call < len(calls)


def _submission_timeout(sandbox: Sandbox) -> str:
    return f"was killed after {sandbox.limits.submission_seconds:g} s, the time limit for the whole submission"


def _request(submission, function, parameters, cases, calls, sandbox, shared, state) -> tuple[dict, bytes]:
    inputs, blobs, offset, case_specs = [], [], 0, []
    for case in cases:
        indexes = []
        for position, array in enumerate(case.args):
            indexes.append(len(inputs))
            if case.shared and shared is not None:
                inputs.append({"file": str(sandbox.visible_path(shared.paths[(case.name, position)]))})
                continue
            data = np.ascontiguousarray(array)
            inputs.append({**wire.array_spec(data), "offset": offset, "nbytes": data.nbytes})
            blobs.append(data.tobytes())
            offset += data.nbytes
        case_specs.append({"name": case.name, "args": indexes})
    cells = [
        {"number": c.code_number, "filename": f"<cell {c.code_number}>", "source": c.source}
        for c in submission.cells
        if c.syntax_error is None and c.code_number not in state.skip_cells
    ]
    request = {
        "t": "request",
        "function": function,
        "parameters": list(parameters),
        "run_name": submission.run_name,
        "cells": cells,
        "inputs": inputs,
        "cases": case_specs,
        "calls": calls[state.next_call:],
        "max_result_bytes": MAX_RESULT_BYTES,
        "paths": [sandbox.numpy_path_in_child],
        "soft_limits": {"cell_seconds": sandbox.limits.cell_seconds, "call_seconds": sandbox.limits.call_seconds},
        "confine": sandbox.confine_settings(shared.nbytes if shared else 0,
                                            tuple(shared.paths.values()) if shared else ()),
    }
    return request, b"".join(blobs)


def _attempt(submission, function, parameters, cases, calls, sandbox, shared, state, deadline) -> None:
    request, payload = _request(submission, function, parameters, cases, calls, sandbox, shared, state)
    launched = sandbox.spawn(tuple(shared.paths.values()) if shared else ())
    if launched.degraded and launched.degraded not in state.notes:
        state.notes.append(launched.degraded)
    feeder = threading.Thread(target=_feed, args=(launched, wire.encode_frame(request, payload)), daemon=True)
    feeder.start()
    try:
        _converse(launched, submission, cases, calls, sandbox, state, deadline)
    finally:
        sandbox.kill(launched)
        feeder.join(timeout=1.0)


def _feed(launched: Launched, data: bytes) -> None:
    try:
        launched.process.stdin.write(data)
        launched.process.stdin.close()
    except (OSError, ValueError):
        pass  # the child died or closed its stdin; the conversation reports why


def _converse(launched, submission, cases, calls, sandbox, state, deadline) -> None:
    limits = sandbox.limits
    selector = selectors.DefaultSelector()
    selector.register(launched.channel, selectors.EVENT_READ, "channel")
    selector.register(launched.output, selectors.EVENT_READ, "output")
    buffer = bytearray()
    printed = 0
    context: tuple | None = None  # ("cell", number, label) or ("call", index, label)
    context_deadline = time.monotonic() + STARTUP_SECONDS
    context_started = time.monotonic()
    open_fds = 2
    call_index = {c["id"]: i for i, c in enumerate(calls)}
    try:
        while True:
            now = time.monotonic()
            limit = min(context_deadline, deadline)
            if now >= limit:
                if limit == deadline:
                    raise _at(_Incident("timeout", _submission_timeout(sandbox)), context, now - context_started)
                if context and context[0] == "cell":
                    text = f"was stopped after {limits.cell_seconds:g} s, its time limit"
                else:
                    text = _call_timeout(limits)
                raise _at(_Incident("timeout", text), context, now - context_started)
            events = selector.select(timeout=min(limit - now, 0.5))
            for key, _ in events:
                try:
                    chunk = os.read(key.fd, 1 << 20)
                except OSError:
                    chunk = b""
                if not chunk:
                    selector.unregister(key.fd)
                    open_fds -= 1
                    continue
                if key.data == "output":
                    printed += len(chunk)
                    if printed > limits.output_mib * MIB:
                        raise _at(_Incident("output-limit", f"printed more than {limits.output_mib} MiB"),
                                  context, time.monotonic() - context_started)
                    continue
                buffer.extend(chunk)
                for message, body in _frames(buffer):
                    kind = message["t"]
                    if kind == "cell-start":
                        number = int(message["number"])
                        cell = submission.cell(number)
                        context = ("cell", number, cell.label if cell else f"cell {number}")
                        context_started = time.monotonic()
                        context_deadline = context_started + limits.cell_seconds + GRACE_SECONDS
                    elif kind == "cell":
                        error = message.get("error")
                        if error:
                            sentence = _cell_error(error, submission, context, limits)
                            state.cell_errors.append(sentence)
                            if error.get("type") == "timeout":
                                state.cell_incidents.append(("timeout", sentence))
                        context, context_deadline = None, deadline
                    elif kind == "note":
                        if str(message.get("text")) not in state.notes:
                            state.notes.append(str(message.get("text"))[:300])
                    elif kind == "function":
                        state.function = message
                        context, context_deadline = None, deadline
                    elif kind == "start":
                        index = call_index[_int(message.get("call"))]
                        context = ("call", index, cases[calls[index]["case"]].name)
                        context_started = time.monotonic()
                        context_deadline = context_started + limits.call_seconds + GRACE_SECONDS
                    elif kind == "result":
                        index = call_index[_int(message.get("call"))]
                        call = calls[index]
                        outcome = _outcome(message, body, cases[call["case"]].name, call, submission, limits)
                        state.outcomes[call["id"]] = outcome
                        state.next_call = index + 1
                        context, context_deadline = None, deadline
                        state.timeouts = state.timeouts + 1 if outcome.status == "timeout" else 0
                        if state.timeouts >= MAX_CONSECUTIVE_TIMEOUTS:
                            state.incident = f"{MAX_CONSECUTIVE_TIMEOUTS} calls in a row ran out of time"
                            return
                    elif kind == "done":
                        return
            if open_fds == 0 or (not events and launched.process.poll() is not None):
                break
        code = launched.process.wait()
        raise _at(_Incident("crashed", _exit_text(code, sandbox, launched)), context,
                  time.monotonic() - context_started)
    except (wire.WireError, KeyError, TypeError, ValueError) as exc:
        raise _at(_Incident("protocol", f"sent data the grader could not read ({exc})"), context, 0.0) from None
    finally:
        selector.close()


def _frames(buffer: bytearray):
    """Yield complete (message, payload) frames from the front of ``buffer``, removing them."""
    while len(buffer) >= wire.HEADER.size:
        body_len, payload_len = wire.frame_sizes(bytes(buffer[: wire.HEADER.size]), MAX_RESULT_BYTES)
        end = wire.HEADER.size + body_len + payload_len
        if len(buffer) < end:
            return
        message = wire.decode_message(bytes(buffer[wire.HEADER.size: wire.HEADER.size + body_len]))
        payload = bytes(buffer[wire.HEADER.size + body_len: end])
        del buffer[:end]
        yield message, payload


def _int(value) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise wire.WireError("a call id is not an integer")
    return value


def _at(incident: _Incident, context, seconds: float) -> _Incident:
    incident.where, incident.seconds = context, seconds
    return incident


def _outcome(message: dict, body: bytes, case: str, call: dict, submission: Submission, limits) -> CallOutcome:
    status = message.get("status")
    if status not in ("ok", "raised", "timeout"):
        raise wire.WireError("unknown call status")
    if status == "timeout":
        return CallOutcome(case=case, status="timeout", repeat=bool(call.get("repeat")),
                           error=_call_timeout(limits), seconds=float(message.get("seconds", 0.0)))
    array = wire.decode_array(message["array"], body) if message.get("array") else None
    if array is None and body:
        raise wire.WireError("bytes sent without an array description")
    shape = message.get("shape")
    shape = wire.checked_shape({"shape": shape}) if shape is not None else None
    error = message.get("error")
    return CallOutcome(
        case=case,
        status=status,
        type_name=str(message.get("type", ""))[:200],
        exact_ndarray=message.get("exact") is True,
        subclass=message.get("subclass") is True,
        array=array,
        shape=shape,
        note=str(message.get("note", ""))[:200],
        error=_error_text(error, submission) if error else "",
        mutated=tuple(str(m)[:40] for m in message.get("mutated", ()))[:20],
        seconds=float(message.get("seconds", 0.0)),
        repeat=bool(call.get("repeat")),
    )


def _error_text(error: dict, submission: Submission) -> str:
    text = f"{str(error.get('type', 'Error'))[:80]}: {str(error.get('message', ''))[:400]}".rstrip(": ")
    where = error.get("where")
    if isinstance(where, dict) and isinstance(where.get("line"), int):
        source = str(where.get("file", ""))
        number = source[len("<cell "):-1] if source.startswith("<cell ") else ""
        cell = submission.cell(int(number)) if number.isdigit() else None
        text += f" ({cell.short(where['line']) if cell else 'line ' + str(where['line'])})"
    return text


def _call_timeout(limits) -> str:
    return f"was killed after {limits.call_seconds:g} s, its time limit"


def _cell_error(error: dict, submission: Submission, context, limits) -> str:
    label = context[2] if context else "a code cell"
    if error.get("type") == "timeout":
        if not submission.has_cells:
            return (f"While the file was being loaded, it was stopped after {limits.cell_seconds:g} s, its time "
                    "limit; what it had defined before that point was kept and graded.")
        return (f"{label[0].upper()}{label[1:]} was stopped after {limits.cell_seconds:g} s, its time limit; the "
                "later cells were still run.")
    text = _error_text(error, submission)
    if not submission.has_cells:
        return f"The file raised {text} while it was being loaded; the code after that line did not run."
    if submission.is_notebook:
        return f"A code cell raised {text}; the later cells were still run, as in Jupyter."
    return f"{label[0].upper()}{label[1:]} raised {text}; the later cells were still run, as in the notebook."


def _exit_text(code: int, sandbox: Sandbox, launched: Launched) -> str:
    signum, out_of_memory = sandbox.exit_cause(launched, code)
    if out_of_memory:
        return f"ran out of memory at {sandbox.limits.describe_memory()} and was killed"
    if signum:
        if signum == signal.SIGSEGV:
            return "crashed the Python process with a segmentation fault (SIGSEGV)"
        if signum == signal.SIGXCPU:
            return f"used more than {sandbox.limits.submission_seconds:g} s of CPU time and was killed"
        if signum == signal.SIGKILL and "cgroup" in sandbox.layers:
            return "was killed (SIGKILL)"
        if signum == signal.SIGKILL:
            return (f"was killed (SIGKILL), most likely for using more than {sandbox.limits.describe_memory()} "
                    "of memory")
        try:
            name = signal.Signals(signum).name
        except ValueError:
            name = f"signal {signum}"
        return f"was killed by {name}"
    return f"ended the Python process itself (exit code {code}), for example with os._exit()"
