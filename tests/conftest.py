"""Shared fixtures: the exercise, grading sessions, and a helper to grade source text written to a file."""
from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

# The grader's own numpy on one BLAS thread, as the command line sets it (cli._main) before numpy loads: on a busy
# machine OpenBLAS's extra threads spin against the sandboxed runs and the other workers, and the parent's side of a
# batch (the exercises' diagnoses) ran eight times slower here than under `grader grade` (14 fc-layers notebooks:
# 29 s against 3.6 s). Set before the grader, and so numpy, is imported; an explicit setting is kept.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):  # grader.sandbox.BLAS_THREADS
    os.environ.setdefault(_name, "1")

import pytest  # noqa: E402  (after the settings above, like every import below)

from grader import exercise as exercise_mod
from grader.grade import Session, grade_file
from grader.sandbox import Sandbox

ROOT = Path(__file__).resolve().parent.parent
SUBMISSIONS = ROOT / "tests" / "submissions"


@pytest.fixture(scope="session")
def exercise():
    return exercise_mod.load("vgg_classifier")


@pytest.fixture(scope="session")
def session(exercise):
    """A session without the VGG16-scale case: fast, and what most tests need."""
    with Session(exercise, full_scale=False) as s:
        yield s


@pytest.fixture(scope="session")
def quick_session(exercise):
    """Tight limits, for tests that provoke timeouts and floods."""
    limits = dataclasses.replace(exercise.limits, call_seconds=2.0, cell_seconds=3.0, submission_seconds=20.0,
                                 output_mib=1)
    with Session(exercise, full_scale=False, sandbox=Sandbox(limits)) as s:
        yield s


@pytest.fixture(scope="session")
def one_second_session(exercise):
    """The tight limits with a 1 s call limit, for calls that never return (an endless loop, an ignored alarm): the
    kill and its message are the same at any limit, and each timed-out call costs one second less."""
    limits = dataclasses.replace(exercise.limits, call_seconds=1.0, cell_seconds=3.0, submission_seconds=20.0,
                                 output_mib=1)
    with Session(exercise, full_scale=False, sandbox=Sandbox(limits)) as s:
        yield s


@pytest.fixture
def grade_source(tmp_path, session):
    """Write ``source`` (text, bytes, or a notebook dict) to ``tmp_path/name`` and grade it."""

    def run(source, name: str = "student.py", use=None):
        path = tmp_path / name
        if isinstance(source, dict):
            path.write_text(json.dumps(source), encoding="utf-8")
        elif isinstance(source, bytes):
            path.write_bytes(source)
        else:
            path.write_text(source, encoding="utf-8")
        return grade_file(path, use or session)

    return run


#: the reference solution's plain form, as test sources that need a correct function write it
CORRECT = """import numpy as np

def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(0.0, x @ W1 + b1)
    h = np.maximum(0.0, h @ W2 + b2)
    return h @ W3 + b3
"""


def notebook(*cells: str, nbformat: int = 4, as_string: bool = False) -> dict:
    """A minimal real-looking notebook with one code cell per argument (markdown when it starts with '# MD')."""
    out = []
    for n, source in enumerate(cells):
        if source.startswith("# MD"):
            out.append({"cell_type": "markdown", "id": f"m{n}", "metadata": {}, "source": source[4:]})
            continue
        lines = source if as_string else source.splitlines(keepends=True)
        out.append({"cell_type": "code", "execution_count": None, "id": f"c{n}", "metadata": {}, "outputs": [],
                    "source": lines})
    return {"cells": out, "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                      "language": "python"}},
            "nbformat": nbformat, "nbformat_minor": 5}


def check(result, check_id):
    return next(c for c in result.checks if c.id == check_id)


def diagnosis_ids(result) -> set[str]:
    return {d.id for d in result.diagnoses}


@pytest.fixture(scope="module")
def sessions():
    """One grading session per exercise id, opened on first use and shared by the module."""
    import exercise_helpers as helpers

    opened, stack = {}, []

    def get(exercise_id: str):
        if exercise_id not in opened:
            context = helpers.session(exercise_mod.load(exercise_id))
            opened[exercise_id] = context.__enter__()
            stack.append(context)
        return opened[exercise_id]
    yield get
    for context in reversed(stack):
        context.__exit__(None, None, None)


def leftovers() -> list[str]:
    """Processes started by this test process's sandboxed runs (tagged in their environment) still alive."""
    tag = f"GRADER_PARENT={os.getpid()}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            environ = Path(f"/proc/{entry}/environ").read_bytes().split(b"\0")
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if tag in environ and state != "Z":
            found.append(f"{entry} uid={os.stat(f'/proc/{entry}').st_uid} {cmdline[:80]}")
    return found


def run_cli(capsys, *args):
    """``grader`` run in this process on ``args`` (made strings): its exit code, stdout and stderr."""
    from grader import cli

    code = cli.main(list(map(str, args)))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def csv_rows(text: str) -> list[list[str]]:
    import csv
    import io

    return list(csv.reader(io.StringIO(text)))


def grade_students(folder: Path, session, names: list[str]) -> dict:
    """The results of the students ``names`` of class folder ``folder``, graded in one batch of two workers."""
    from grader import batch

    entries = [e for e in batch.discover([folder]).entries if e.student in names]
    assert sorted(e.student for e in entries) == sorted(names)
    return {o.result.student: o.result for o in batch.grade_all(entries, session, jobs=2)}


@pytest.fixture
def forks(monkeypatch):
    """The pids of the forked copies of the grader (``procworkers.Copy``) started while the test runs."""
    from grader import procworkers

    pids: list[int] = []
    original = procworkers.Copy.__init__

    def counted(self, *args, **kwargs):
        original(self, *args, **kwargs)
        pids.append(self.pid)

    monkeypatch.setattr(procworkers.Copy, "__init__", counted)
    return pids


def untimed_results(out: Path) -> dict[str, dict]:
    """Each student's ``result.json`` under ``OUT/students/``, by student, without its timing and signature: what
    two batches of the same class must agree on."""
    found = {}
    for path in (out / "students").glob("*/result.json"):
        document = json.loads(path.read_text())
        document.pop("timing")
        document.pop("signature", None)
        found[document["student"]] = document
    return found
