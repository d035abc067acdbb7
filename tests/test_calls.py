"""The plan of a run's calls: commands that decode to what the child needs, inputs that never overlap, and a
comparison after the call that names exactly the arguments whose bytes changed."""
from __future__ import annotations

import json
import mmap
from pathlib import Path

import numpy as np

from grader import calls
from grader.exercise import Case


def _target(cases, repeat=(), expected=None, **kw) -> calls.Target:
    return calls.Target("f", ("a", "b", "c"), cases, repeat, expected, **kw)


def test_commands_decode_to_the_arguments_and_inputs_lie_apart():
    one = Case(name="one", group="g", args=(np.arange(6.0).reshape(2, 3), np.float64(2.5), None))
    two = Case(name="two", group="g", args=(np.ones(3, dtype=np.float32), np.arange(5, dtype=np.int64), 7))
    expected = [np.zeros((2, 3)), np.zeros(4)]
    planned, size = calls.plan([_target([one, two], (0,), expected, call_seconds=1.5)], Path, 10.0)
    assert [(c.case, c.repeat) for c in planned] == [(0, False), (1, False), (0, True)]
    spans = []
    for call, case in zip(planned, (one, two, one)):
        command = json.loads(calls.numbered(call.command, 42))
        assert command["t"] == "call" and command["seq"] == 42 and command["seconds"] == 1.5
        assert command["base"] == call.start and command["max_bytes"] == call.max_bytes
        for spec, value in zip(command["args"], case.args):
            if isinstance(value, np.ndarray):
                at = call.start + spec["offset"]
                assert at % calls.ALIGN == 0 and spec["dtype"] == value.dtype.str and spec["shape"] == list(value.shape)
                assert call.inputs[spec["offset"]: spec["offset"] + value.nbytes] == value.tobytes()
                spans.append((at, at + value.nbytes))
            else:
                assert spec == {"value": value.item() if isinstance(value, np.generic) else value}
    spans.sort()
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:])) and spans[-1][1] <= size
    assert planned[0].max_bytes == calls.RESULT_FLOOR and "a (2, 3) float64 array" == planned[0].expect


def test_the_comparison_names_only_the_arguments_whose_bytes_changed():
    case = Case(name="one", group="g", args=(np.arange(6.0), np.arange(3.0), np.arange(4.0)))
    (call,), size = calls.plan([_target([case])], Path, 10.0)
    memory = mmap.mmap(-1, size)
    calls.write_inputs(memory, call)
    assert calls.mutated(memory, call, ("a", "b", "c")) == ()
    _, offset, _ = call.inline[1]
    memory[call.start + offset] ^= 1
    assert calls.mutated(memory, call, ("a", "b", "c")) == ("b",)
    assert calls.mutated(memory, call, ("a", "b", "c"), reshaped=[2, 9, "x", True]) == ("b", "c")
    calls.write_inputs(memory, call)  # the next attempt starts from the parent's bytes again
    assert calls.mutated(memory, call, ("a", "b", "c")) == ()
