"""The ``grader`` command starts the sandbox's templates before it loads the rest of itself (``grader.launch``): how
many it starts is read from the raw arguments. A wrong guess costs time only, never a result: ``cli`` parses the
arguments and starts any template still missing."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from grader.launch import templates_ahead


@pytest.fixture
def place(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "hw.py").write_text("x = 1\n")
    (tmp_path / "other.ipynb").write_text("{}")
    (tmp_path / "class").mkdir()
    return tmp_path


def cores() -> int:
    return len(os.sched_getaffinity(0))


@pytest.mark.parametrize("argv, expected", [
    ([], 0), (["--version"], 0), (["notebook", "--out", "x"], 0), (["diff", "a", "b"], 0), (["merge", "a"], 0),
    (["check", "hw.py"], 1),
    (["grade", "hw.py"], 1), (["grade", "hw.py", "--exercise", "vgg_classifier", "--no-full-scale"], 1),
    (["grade", "--force", "hw.py", "-q"], 1),
    (["grade", "hw.py", "--jobs", "1"], 1),
    (["grade", "class"], "cores"), (["grade", "hw.py", "other.ipynb"], "cores"),
    (["grade", "class", "--jobs", "1"], 1), (["grade", "class", "-j1"], 1), (["grade", "class", "--jobs=1"], 1),
    (["grade", "class", "-j", "64"], "cores"), (["grade", "class", "--jobs", "many"], "cores"),
    (["grade", "class", "--jobs", "0"], "cores"),
    (["grade", "hw.py", "--out", "class"], "cores"),  # an option's value that exists: one idle template at most
    (["--json", "grade", "hw.py"], 1),
])
def test_how_many_templates_start_first(place, argv, expected):
    assert templates_ahead(argv) == (cores() if expected == "cores" else expected)


def test_python_dash_m_grader_runs_the_command(tmp_path):
    """``python -m grader`` goes through the same first steps as the installed command."""
    done = subprocess.run([sys.executable, "-m", "grader", "--version"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.startswith("grader ")
    done = subprocess.run([sys.executable, "-m", "grader", "grade", str(tmp_path / "missing.py")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "missing.py" in done.stderr and "Traceback" not in done.stderr
