"""A function's calls are queued in the child ahead of their answers; the parent still owns every step.

Each answer is taken alone and in order, before a deadline that starts when the child can start the call (not when
the call was queued); a function cut short after timeouts in a row leaves its queued calls behind in a child that
is replaced, so the next function's calls still run; an answer forged for a queued call ends the run as the
submission's protocol error; inputs are written and compared per call, so a call that changes its inputs is named
alone.
"""
from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

import numpy as np
import pytest

from grader import execute, submission
from grader.grade import prepare
from grader.sandbox import Sandbox

CORRECT = """
import numpy as np

def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0.0)
    h = np.maximum(h @ W2 + b2, 0.0)
    return h @ W3 + b3
"""


@pytest.fixture(scope="module")
def small_limits(exercise):
    return dataclasses.replace(exercise.limits, call_seconds=1.0, cell_seconds=3.0, submission_seconds=40.0)


def _run(tmp_path: Path, source: str, exercise, limits, targets: list[tuple[str, int]]) -> list:
    """Run ``source`` with one target per (function, number of cases), on the exercise's cases for 'zoe'."""
    path = tmp_path / "student.py"
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    loaded = submission.load(path, "zoe")
    sandbox = Sandbox(limits)
    from grader.session import Session

    with Session(exercise, full_scale=False, sandbox=sandbox) as session:
        prepared = prepare(session, "zoe")
        made = [execute.Target(name, exercise.parameters, prepared.cases[:count], (),
                               prepared.expected[:count], exercise.outputs) for name, count in targets]
        return execute.run_many(loaded, made, sandbox), prepared


def test_a_queued_calls_deadline_starts_when_the_child_can_start_it(tmp_path, exercise, small_limits):
    """Five calls of 0.7 s each under a soft limit of 1 s: the fifth answers 3.5 s after all five were queued, past
    the 3 s (1 s and the 2 s grace) that a deadline counted from the queueing would allow; they all pass because
    each call's deadline starts when the answer before it is accepted."""
    slow = CORRECT + "\nimport time\n_real = vgg_classifier\n\ndef slow(*args):\n    time.sleep(0.7)\n" \
                     "    return _real(*args)\n"
    (executions, prepared) = _run(tmp_path, slow, exercise, small_limits, [("slow", 5)])
    calls = executions[0].calls
    assert [c.status for c in calls] == ["ok"] * 5, [(c.case, c.status, c.incident) for c in calls]
    for outcome, expected in zip(calls, prepared.expected):
        assert np.allclose(outcome.array, expected)
    assert all(0.6 < c.seconds < 1.5 for c in calls), [c.seconds for c in calls]
    assert executions[0].restarts == 0


def test_a_function_cut_short_leaves_its_queued_calls_behind_and_the_next_function_still_runs(
        tmp_path, exercise, small_limits):
    # The first call answers; 'batch' and its twin 'batch-same-sizes' (which waits for it: they share a place in
    # the shared memory) run out of time, while the last two calls are queued behind the twin.
    sleepy = CORRECT + ("\nimport time\n\ndef sleepy(features, *args):\n    if len(features) > 1:\n"
                        "        time.sleep(30)\n    return vgg_classifier(features, *args)\n")
    (executions, prepared) = _run(tmp_path, sleepy, exercise, small_limits, [("sleepy", 5), ("vgg_classifier", 5)])
    cut, after = executions
    assert [c.status for c in cut.calls] == ["ok", "timeout", "timeout", "not-run", "not-run"], \
        [(c.case, c.status, c.incident) for c in cut.calls]
    assert all("2 calls in a row ran out of time" in c.incident for c in cut.calls[3:])
    assert [c.status for c in after.calls] == ["ok"] * 5, [(c.case, c.status, c.incident) for c in after.calls]
    for outcome, expected in zip(after.calls, prepared.expected):
        assert np.allclose(outcome.array, expected)
    assert after.restarts >= 1  # the child that held the cut function's queued calls was replaced


def test_an_answer_forged_for_a_queued_call_is_a_protocol_error(tmp_path, exercise, small_limits):
    forge = CORRECT + textwrap.dedent("""
        import gc, json, os, struct
        _real = vgg_classifier

        def forging(*args):
            child = next(o for o in gc.get_objects() if type(o).__name__ == 'Child' and hasattr(o, 'channel'))
            body = json.dumps({'t': 'result', 'seq': 10**6, 'status': 'ok', 'error': None, 'count': 1,
                               'parts': [{'type': 'NoneType', 'exact': False, 'subclass': False}]}).encode()
            os.write(child.channel, struct.pack('>II', len(body), 0) + body)
            return _real(*args)
        """)
    (executions, _) = _run(tmp_path, forge, exercise, small_limits, [("forging", 4)])
    assert "result channel" in executions[0].protocol_error, executions[0]
    assert not executions[0].function_callable


def test_inputs_changed_by_one_call_are_that_calls_alone(tmp_path, exercise, small_limits):
    """Every queued call's inputs are in the shared memory before the first runs: a call that writes into its own
    arrays is named, and the calls queued after it still get their own inputs intact."""
    source = CORRECT + textwrap.dedent("""
        _real = vgg_classifier
        _count = [0]

        def once(features, W1, b1, W2, b2, W3, b3):
            out = _real(features, W1, b1, W2, b2, W3, b3)
            _count[0] += 1
            if _count[0] == 2:
                W1[...] = 0.0
            return out
        """)
    (executions, prepared) = _run(tmp_path, source, exercise, small_limits, [("once", 4)])
    calls = executions[0].calls
    assert [c.mutated for c in calls] == [(), ("W1",), (), ()]
    for outcome, expected in zip(calls, prepared.expected):
        assert np.allclose(outcome.array, expected)


B1_ENDS_ITS_PROCESS = """
import os
import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    if features.shape[0] == 1:
        os._exit(3)
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(0, np.maximum(0, x @ W1 + b1) @ W2 + b2)
    return h @ W3 + b3
"""


def test_crashes_in_a_row_on_one_group_of_cases_do_not_cost_the_others(grade_source):
    """A function that ends its process for one sample only crashed on the three B = 1 probes in a row, which cut
    its remaining calls: the repeated batch call (deterministic) and, with the large case, values-full-scale were
    lost though it computes them right. The crashes now skip their group's calls only; the others are made."""
    from conftest import check

    result = grade_source(B1_ENDS_ITS_PROCESS)
    assert check(result, "values-single").status != "passed" and check(result, "returns").status != "passed"
    for passed in ("values-batch", "values-shapes", "deterministic", "unmodified"):
        assert check(result, passed).status == "passed", (passed, check(result, passed).message)
    assert result.score == result.max_score - 4, [(c.id, c.status) for c in result.checks]
