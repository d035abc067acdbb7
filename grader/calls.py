"""The calls of a run, planned before its child starts: which case, where its inputs sit in the memory the parent
shares with the child, how much an answer may weigh, and the command that asks for it, encoded once.

The plan is the parent's alone. The child is told dtypes, shapes and offsets; the parent writes each call's inputs
just before the call and compares them after its answer (``mutated``), so "the inputs were left unmodified" is the
parent's observation, never the child's claim. A call's inline inputs lie side by side in one stretch of that
memory, so writing them is one copy and finding them unchanged is one comparison.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Callable

import numpy as np

from .exercise import PROBE, Case
from .largecase import SharedArrays
from .sandbox import MIB

#: a result may be this many times the expected array's size (at least RESULT_FLOOR) before only its shape is kept
RESULT_FACTOR = 16
RESULT_FLOOR = 1 * MIB
ALIGN = 64


@dataclass(frozen=True)
class Target:
    """One function a run looks up and calls, with its cases: an exercise's share of the run.

    An assignment's run has one target per exercise, so the submission is loaded and executed once. ``expected``
    (the reference's answers, same order as ``cases``) sizes what a result may weigh; its values never leave the
    grader. ``shared`` maps this target's large cases to the sealed files the child reads.
    """

    function: str
    parameters: tuple[str, ...]
    cases: list[Case]
    repeat: tuple[int, ...] = ()
    expected: list | None = None
    outputs: tuple[str, ...] = ()
    shared: SharedArrays | None = None
    call_seconds: float | None = None  # this exercise's limit per call (None: the sandbox's)
    label: str = field(default="", compare=False)  # the exercise, in the sentence when its calls are cut short


@dataclass(frozen=True)
class Call:
    """One planned call of a target's function: which case, where its inline inputs go, what asks for it."""

    id: int
    target: int
    case: int
    repeat: bool
    arguments: int  # how many arguments it passes: the child's "reshaped" indices are bounded by it
    inline: tuple[tuple[int, int, int], ...]  # (argument index, offset from ``start``, size) of each inline input
    start: int  # where the inline inputs begin in the shared memory (the command's "base")
    inputs: bytes  # their bytes from ``start`` on, the gaps between them zero: written before, compared after
    max_bytes: int
    expect: str  # "a (2, 1000) float64 array", for the sentence when a result is refused as too large
    seconds: float  # the call's soft limit
    command: str  # the call's command as JSON; the step's number is added when it is sent (``numbered``)


@dataclass(frozen=True)
class _Layout:
    """A case's arguments as the child is told them (inline offsets from the call's base) and its inline inputs
    packed as they lie in the shared memory from that base."""

    args: str  # the JSON list of the argument descriptions
    inline: tuple[tuple[int, int, int], ...]
    inputs: bytes
    span: int  # the shared memory the inputs take, aligned


def plan(targets: list[Target], visible_path: Callable[[Path], Path], call_seconds: float) -> tuple[list[Call], int]:
    """Every call of the run in order (each target's cases, then its repeats), and the shared memory's size.

    ``visible_path`` says where a shared file appears inside the child; ``call_seconds`` is the limit of a target
    without its own."""
    calls: list[Call] = []
    offset = 0
    for t, target in enumerate(targets):
        seconds = target.call_seconds or call_seconds
        head = f'{{"t":"call","function":{json.dumps(target.function)},"args":'
        tail = f',"outputs":{max(1, len(target.outputs))},"seconds":{json.dumps(seconds)},"max_bytes":'
        order = [*((i, False) for i in range(len(target.cases))), *((i, True) for i in target.repeat)]
        laid: dict[int, _Layout] = {}  # a repeated case is laid out once
        twin: tuple[_Layout, int] | None = None  # the graded case called just before: its layout and its place
        for index, again in order:
            case = target.cases[index]
            layout = laid.get(index) or laid.setdefault(index, _layout(case, target.shared, visible_path))
            max_bytes, expect = _answer_size(target.expected[index] if target.expected is not None else None)
            start = offset
            if twin is not None and not again and case.group != PROBE and _same_place(twin[0], layout):
                start = twin[1]  # the inputs of its twin's place, at the same addresses in the child
            command = f'{head}{layout.args}{tail}{max_bytes},"base":{start}}}'
            calls.append(Call(len(calls), t, index, again, len(case.args), layout.inline, start, layout.inputs,
                              max_bytes, expect, seconds, command))
            offset += layout.span if start == offset else 0
            twin = (layout, start) if not again and case.group != PROBE else None
    return calls, offset


def _same_place(earlier: _Layout, later: _Layout) -> bool:
    """Whether a graded case's inline inputs go where the graded case before it had its own: same sizes, dtypes
    and offsets. Two such cases in a row (an exercise's twin batches, drawn apart to catch an answer kept by shape)
    are how a real caller's next batch arrives, in the memory the last one was freed from: an answer kept by the
    inputs' address (``x.ctypes.data``) was never caught while each call had a place of its own."""
    return bool(earlier.inline) and earlier.args == later.args and earlier.span == later.span


#: small cases' layouts, by the case (kept alive with its entry, so its id stays its own): the diagnosis's probes are
#: the same objects for every student of a session, and their arrays are never written to in the grader (the
#: reference runs on copies). Larger cases (a student's own) are laid out every time: kept, they would pin memory.
_LAYOUTS: dict[int, tuple[Case, _Layout]] = {}
_LAYOUTS_MAX = 256
_LAYOUT_MAX_BYTES = 64 << 10


def _layout(case: Case, shared: SharedArrays | None, visible_path) -> _Layout:
    if shared is not None and any((case.name, i) in shared.paths for i in range(len(case.args))):
        return _lay_out(case, shared, visible_path)  # a student's share of the large case: never seen again
    found = _LAYOUTS.get(id(case))
    if found is not None and found[0] is case:
        return found[1]
    layout = _lay_out(case, None, visible_path)
    if layout.span <= _LAYOUT_MAX_BYTES:
        if len(_LAYOUTS) >= _LAYOUTS_MAX:
            _LAYOUTS.clear()
        _LAYOUTS[id(case)] = (case, layout)
    return layout


def _lay_out(case: Case, shared: SharedArrays | None, visible_path) -> _Layout:
    specs, inline, chunks, offset = [], [], [], 0
    for position, array in enumerate(case.args):
        path = shared.paths.get((case.name, position)) if shared is not None else None
        if path is not None:
            repeat = shared.repeats.get(path)
            rows = "" if repeat is None else (f',"dtype":{json.dumps(repeat[0])},"shape":{json.dumps(list(repeat[1]))}'
                                              f',"period":{repeat[2]}')
            specs.append(f'{{"file":{json.dumps(str(visible_path(path)))}{rows}}}')
        elif not isinstance(array, np.ndarray):  # a Python scalar or None, passed as it is
            specs.append(f'{{"value":{json.dumps(array.item() if isinstance(array, np.generic) else array)}}}')
        else:
            data = np.ascontiguousarray(array)
            shape = ",".join(map(str, data.shape))
            specs.append(f'{{"dtype":{json.dumps(data.dtype.str)},"shape":[{shape}],"offset":{offset}}}')
            raw = data.tobytes()
            span = -(-len(raw) // ALIGN) * ALIGN or ALIGN
            inline.append((position, offset, len(raw)))
            chunks += (raw, _zeros(span - len(raw)))
            offset += span
    return _Layout(f"[{','.join(specs)}]", tuple(inline), b"".join(chunks), offset)


@lru_cache(maxsize=64)
def _zeros(size: int) -> bytes:
    return bytes(size)


def _answer_size(expected) -> tuple[int, str]:
    """The most an answer may weigh (RESULT_FACTOR times the expected arrays) and the expected arrays in words."""
    parts = () if expected is None else (expected if isinstance(expected, tuple) else (expected,))
    size = sum(p.nbytes for p in parts) if parts else 64 * MIB // RESULT_FACTOR
    expect = " and ".join(_in_words(p.shape, p.dtype) for p in parts) or "a much smaller result"
    return max(RESULT_FACTOR * size, RESULT_FLOOR), expect


@lru_cache(maxsize=256)
def _in_words(shape: tuple[int, ...], dtype: np.dtype) -> str:
    return f"a {shape} {dtype} array"


def numbered(command: str, seq: int) -> str:
    """A command's JSON with the step's number added as its last member."""
    return f'{command[:-1]},"seq":{seq}}}'


def write_inputs(memory, call: Call) -> None:
    """Put the call's inline inputs in the shared memory, whatever an earlier call left there."""
    if call.inputs:
        memory[call.start: call.start + len(call.inputs)] = call.inputs


def mutated(memory, call: Call, parameters: tuple[str, ...], reshaped=None) -> tuple[str, ...]:
    """Names of the arguments whose bytes in the shared memory differ from what the parent wrote there, and of
    those the child says had their shape or dtype reassigned (a claim that can only cost the submission)."""
    changed: list[int] = []
    start = call.start
    if call.inputs and memory[start: start + len(call.inputs)] != call.inputs:
        changed = [p for p, offset, size in call.inline
                   if memory[start + offset: start + offset + size] != call.inputs[offset: offset + size]]
    if isinstance(reshaped, list):
        changed += [i for i in reshaped[:call.arguments] if type(i) is int and 0 <= i < call.arguments]
    names = [parameters[p] if p < len(parameters) else f"argument {p + 1}" for p in sorted(set(changed))]
    return tuple(names) if not call.repeat else ()


def written_later(memory, call: Call, target: Target, outcome):
    """``outcome`` (a ``CallOutcome``) with the arguments ``call`` finds changed now added to those it changed
    during the call. Looked at once more before the place is reused and when the child is gone: a thread the call
    left behind (or a process it forked) that writes them after the answer (``time.sleep(0.05); features[...] =
    0``) changed the caller's arrays all the same, though they were intact when the answer came."""
    later = mutated(memory, call, target.parameters)
    if all(name in outcome.mutated for name in later):
        return outcome
    return replace(outcome, mutated=tuple(dict.fromkeys(outcome.mutated + later)))
