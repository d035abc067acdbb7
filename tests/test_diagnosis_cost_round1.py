"""The grader's own CPU under hostile outputs: the diagnosis of a wrong submission runs in the grader's process,
on whatever the student's function returned, so an output shaped to make its search as long as possible (noise,
NaN patterns, values that change with the call or the input bytes, huge or denormal magnitudes, empty arrays)
must neither make it raise nor cost more than a bounded time.

Measured before the fixes (in process, one student's hidden cases and the probes, an idle machine): an output
no model explains cost linear's search 100-150 ms and dense_scores' 150-210 ms (ordinary wrong submissions: 1-2
ms); all-zero logits made gap_head's diagnosis raise ZeroDivisionError, and (0, K) arrays made the VGG head's
raise IndexError. After: linear at most 30-50 ms, dense_scores 50-70 ms, neither raises. The VGG head's searches
still take 100-230 ms on such outputs (as long as on real combined mistakes), gap_head's about 75 ms on any
wrong output. The bound asserted here is generous (a loaded machine) and catches a search without bound; the
``raise`` part is strict.

In process, as ``exercise_helpers.grade_seed`` grades: the student's function is trusted test code here.
"""
from __future__ import annotations

import hashlib
import time
from typing import Callable

import numpy as np
import pytest

from conftest import ROOT
from exercise_helpers import case_runs, load_function
from grader import diagnose, facts
from grader import exercise as exercise_mod
from grader.outcomes import Execution

#: seconds one diagnosis may take, far above the 30-80 ms measured, so only a search without bound fails it
BOUND = 2.0
EXERCISES = ("linear", "dense_scores", "to_channels_last", "gap_head", "vgg_classifier")


def _digest(args) -> int:
    h = hashlib.sha256()
    for a in args:
        h.update(np.ascontiguousarray(a).tobytes() if isinstance(a, np.ndarray) else repr(a).encode())
    return int.from_bytes(h.digest()[:4], "little")


def _each(change: Callable) -> Callable:
    """An attack made from the reference: ``change(value, args, count)`` applied to each array it returns."""
    def attack(reference):
        calls = [0]

        def fn(*args):
            calls[0] += 1
            value = reference(*args)
            if isinstance(value, tuple):
                return tuple(change(np.asarray(v), args, calls[0]) for v in value)
            return change(np.asarray(value), args, calls[0])
        return fn
    return attack


def _positions(v: np.ndarray) -> np.ndarray:
    return np.arange(v.size).reshape(v.shape)


ATTACKS = {
    "zeros": _each(lambda v, a, n: np.zeros_like(v)),
    "nan-every-third": _each(lambda v, a, n: np.where(_positions(v) % 3 == 0, np.nan, v)),
    "inf-and-nan": _each(lambda v, a, n: np.where(_positions(v) % 2, 1e308, np.nan)),
    "noise-from-input-bytes": _each(lambda v, a, n: v + (_digest(a) % 7) * 1e-3),
    "doubled-every-other-call": _each(lambda v, a, n: v if n % 2 else v * 2),
    "denormal": _each(lambda v, a, n: v * 1e-315),
    "huge": _each(lambda v, a, n: v * 1e300),
    "sorted": _each(lambda v, a, n: np.sort(v, axis=None).reshape(v.shape)),
    "empty-rows": _each(lambda v, a, n: np.zeros((0,) + v.shape[1:])),
    "bool": _each(lambda v, a, n: v > 0),
    # the most a small case's answer may weigh (1 MiB, calls.RESULT_FLOOR), the same on every call: the harness's
    # stale-result look compared every such pair before it asked whether the earlier one was right
    "big-wrong-shape": _each(lambda v, a, n: np.ones(1 << 17)),
}


@pytest.fixture(scope="module")
def graded():
    """Per exercise: the exercise, its reference, one student's hidden cases plus the probes, their outputs."""
    out = {}
    for exercise_id in EXERCISES:
        ex = exercise_mod.load(exercise_id)
        cases = ex.hidden_cases(7) + ex.probe_cases()
        out[exercise_id] = (ex, load_function(ROOT / "solutions" / f"{exercise_id}.py", ex.function), cases,
                            [ex.expected(c) for c in cases])
    return out


@pytest.mark.parametrize("exercise_id", EXERCISES)
def test_hostile_outputs_neither_break_nor_stall_the_diagnosis(graded, exercise_id):
    ex, reference, cases, expected = graded[exercise_id]
    slow, broken = [], []
    for name, attack in ATTACKS.items():
        with np.errstate(all="ignore"):
            runs = case_runs(ex, attack(reference), cases, expected)
        execution = Execution(function_found=True, function_callable=True, calls=tuple(r.outcome for r in runs))
        started = time.perf_counter()
        found, warnings = diagnose.diagnose(runs, execution, ex, facts.establish(runs, execution, ex))
        spent = time.perf_counter() - started
        if spent > BOUND:
            slow.append((name, round(spent, 2)))
        if warnings:  # "the exercise's diagnosis failed": say which exception, from the exercise's own call
            try:
                ex.diagnosis_module.diagnose([r for r in runs if not r.outcome.repeat], ex)
            except Exception as exc:  # noqa: BLE001 - the failure is what is reported
                broken.append((name, f"{type(exc).__name__}: {exc}"))
            else:
                broken.append((name, warnings))
    assert not broken, broken
    assert not slow, slow
