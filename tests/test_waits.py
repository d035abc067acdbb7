"""Time limits count a run's own time: a slow but correct call is not killed for the time its main process waited
for a core (an outside load, or here, as deterministic, busy processes of its own), while a call that sleeps past its
limit is still stopped on time."""
from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import time

import pytest

from grader import grade, processes
from grader.sandbox import Sandbox
from grader.session import Session
from grader.waits import Waits

#: burns ``CPU`` seconds of its own CPU on the 'batch' cases (B = 4) only, then answers correctly
SLOW = """
import time
import numpy as np

def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    if features.shape[0] == 4:
        start = time.process_time()
        while time.process_time() - start < {cpu}:
            pass
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(0.0, x @ W1 + b1)
    return np.maximum(0.0, h @ W2 + b2) @ W3 + b3
"""
SLEEPER = """
import time
import numpy as np

def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    if features.shape[0] == 4:
        time.sleep(30)
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(0.0, x @ W1 + b1)
    return np.maximum(0.0, h @ W2 + b2) @ W3 + b3
"""


@pytest.fixture(scope="module")
def tight(exercise):
    limits = dataclasses.replace(exercise.limits, call_seconds=1.5, cell_seconds=10.0, submission_seconds=60.0)
    with Session(exercise, full_scale=False, sandbox=Sandbox(limits)) as session:
        yield session


@pytest.fixture
def loaded():
    """Busy processes, six per core, each in a session of its own: the scheduler weighs each session (autogroup)
    and the run's cgroup alike, so the run gets about a seventh of a core (in this process's session they would
    weigh as one, and the run would keep most of a core)."""
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True)
            for _ in range(6 * (os.cpu_count() or 1))]
    yield
    for process in busy:
        process.kill()
        process.wait()


def test_a_slow_correct_call_on_a_loaded_machine_is_not_killed_for_its_wait(tmp_path, exercise, loaded):
    if os.geteuid() != 0:
        pytest.skip("the run's cgroup weighing as one session needs the cgroup layer (root)")
    limits = dataclasses.replace(exercise.limits, call_seconds=0.3, cell_seconds=10.0, submission_seconds=60.0)
    with Session(exercise, full_scale=False, sandbox=Sandbox(limits)) as session:
        if session.sandbox.mode not in ("fork", "landlock", "rlimits"):
            pytest.skip("the run delay is read in the fork, landlock and rlimits sandboxes")
        path = tmp_path / "slow.py"
        path.write_text(SLOW.replace("{cpu}", "0.1"))  # about 0.7 s of wall time at that share: past its 0.3 s
        result = grade.grade_file(path, session)
    assert result.score == result.max_score, [(c.id, c.message) for c in result.checks if c.points < c.max_points]


def test_a_call_that_sleeps_past_its_limit_is_still_stopped_on_time(tmp_path, tight):
    """A sleeping process does not wait for a core: no grant moves its deadline."""
    path = tmp_path / "sleeper.py"
    path.write_text(SLEEPER)
    started = time.monotonic()
    result = grade.grade_file(path, tight)
    batch = next(c for c in result.checks if c.id == "values-batch")
    assert batch.points == 0 and "1.5 s" in batch.message, batch.message
    assert time.monotonic() - started < 15  # one 1.5 s limit (and a grace), not the 30 s it asked for


def test_the_run_delay_of_a_process_is_read_and_grants_are_bounded():
    assert processes.run_delay(os.getpid()) >= 0.0
    assert processes.run_delay(2 ** 30) == 0.0  # no such process: nothing to grant
    waits = Waits("rlimits", os.getpid())
    waits.waited = lambda: 100.0  # as if it had waited 100 s for a core
    assert waits.grant(1.0, 0.0) == 2.0  # at most twice the allowance
    assert waits.grant(1.0, 2.0) == 0.0  # that step has had its share
    assert Waits("bwrap", 2 ** 30).waited() == 0.0  # no runner below bubblewrap (yet, or any more): nothing read
