"""A batch worker lets the kernel tear its run down while it judges (``Sandbox.ending_later``): what it must keep.

The run is SIGKILLed at once; its reaping, the sweep of its cgroups and uid, and its slot's release come at the
worker's next run or when the student's entry is done. These tests check what a user relies on: a batch of runs
that leave processes behind ends with none alive and every slot free, each result as it would be alone, and a run
ended later is really gone before its slot serves anyone else.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from grader import batch, slots

from conftest import CORRECT, leftovers

HOSTILE = Path(__file__).parent / "submissions" / "hostile"


@pytest.fixture
def fork_session(session):
    if session.sandbox is None or session.sandbox.mode != "fork":
        pytest.skip("runs end later only in the fork sandbox")
    return session


def test_a_batch_whose_runs_leave_processes_ends_with_none_alive_and_every_slot_free(tmp_path, fork_session):
    folder = tmp_path / "class"
    folder.mkdir()
    for name in ("fork-bomb", "daemon", "spinning-thread-correct"):
        shutil.copy(HOSTILE / f"{name}.py", folder / f"{name}.py")
    for n in range(3):
        (folder / f"correct{n}.py").write_text(CORRECT)
    plan = batch.discover([folder])
    outcomes = batch.grade_all(plan.entries, fork_session, jobs=2, out=tmp_path / "out")
    scores = {o.entry.student: (o.result.score, o.result.max_score) for o in outcomes}
    for name in ("correct0", "correct1", "correct2", "spinning-thread-correct"):
        assert scores[name][0] == scores[name][1], scores
    for name in ("fork-bomb", "daemon"):
        assert scores[name][0] < scores[name][1], scores
    assert not leftovers(), "a run outlived its batch"
    assert not slots.POOL.busy, "a slot stayed taken after the batch"


def test_a_run_ended_later_holds_its_slot_until_the_next_spawn_and_is_gone_before_it(fork_session):
    box = fork_session.sandbox
    with box.ending_later():
        first = box.spawn()
        box.kill(first)
        assert first.slot.index in slots.POOL.busy and not first.killed  # signalled, not yet reaped
        second = box.spawn()  # ends the first one before it takes a slot
        assert first.killed and first.process.returncode is not None
        assert first.slot.index not in slots.POOL.busy or first.slot.index == second.slot.index
        box.kill(second)
        assert not second.killed
    assert second.killed and second.process.returncode is not None
    assert not slots.POOL.busy
    assert not leftovers()
