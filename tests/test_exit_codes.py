"""What the installed command says and exits with when something is wrong, as a person running it sees it: the
exit code, the line on stderr and the JSON document under --json. One family (``grader/errors.py``) decides them:
a wrong command line or a sandbox that cannot run exits 2, a submission that cannot be graded becomes its own
result (exit 0), and only a bug in the grader exits 3."""
from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import SUBMISSIONS
from grader import errors
from grader.sandbox import MODES

GRADER = Path(sys.executable).with_name("grader")  # the console script the package installs
CORRECT = SUBMISSIONS / "correct" / "matmul.py"
BASE = ("--exercise", "vgg_classifier", "--no-full-scale")


def grader(*args, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(GRADER), *map(str, args)], capture_output=True, text=True, timeout=180, cwd=cwd,
                          env={**os.environ, **env})


def said(proc: subprocess.CompletedProcess) -> tuple[dict, str]:
    """The one JSON document on stdout and the grader's error line on stderr; no traceback anywhere."""
    assert "Traceback" not in proc.stdout + proc.stderr
    errors_said = [line for line in proc.stderr.splitlines() if line.startswith("grader: error: ")]
    return json.loads(proc.stdout), errors_said[0] if errors_said else ""


# -- the family itself ------------------------------------------------------------------------------------------
def test_every_error_of_the_family_exits_2_except_a_submissions_which_is_its_result():
    family = [cls for _, cls in inspect.getmembers(errors, inspect.isclass) if issubclass(cls, errors.GraderError)]
    assert errors.SandboxUnavailable in family and errors.MissingPath in family
    for cls in family:
        assert cls.exit_code == (0 if issubclass(cls, errors.SubmissionError) else 2), cls.__name__
    from grader import slots

    assert slots.SandboxUnavailable is errors.SandboxUnavailable  # one class, wherever it is imported from
    assert issubclass(errors.MissingPath, errors.UsageError) and not issubclass(errors.MissingPath,
                                                                                 errors.SubmissionError)


# -- usage errors: exit 2 ---------------------------------------------------------------------------------------
def test_an_unknown_grader_sandbox_is_a_usage_error_naming_the_allowed_values(tmp_path):
    proc = grader("grade", CORRECT, *BASE, "--json", cwd=tmp_path, GRADER_SANDBOX="docker")
    document, line = said(proc)
    assert proc.returncode == 2
    assert document["status"] == "error" and document["error"]["kind"] == "sandbox" and document["score"] == 0
    message = document["error"]["message"]
    assert "'docker'" in message and "GRADER_SANDBOX" in message
    assert f"choose one of {', '.join(MODES)}" in message and len(MODES) == 5
    assert line == f"grader: error: {message}"
    assert "internal error" not in proc.stderr and "please report" not in proc.stderr
    proc = grader("check", CORRECT, "--exercise", "vgg_classifier", cwd=tmp_path, GRADER_SANDBOX="docker")
    assert proc.returncode == 2 and f"grader: error: {message}" in proc.stderr  # a student's check says the same


def test_a_sandbox_this_machine_lacks_is_a_usage_error(tmp_path):
    """Forcing bwrap where no bwrap can be found (an empty PATH) stops the command before anything is graded."""
    out = tmp_path / "out"
    proc = grader("grade", CORRECT, *BASE, "--json", "--out", out, cwd=tmp_path, GRADER_SANDBOX="bwrap",
                  PATH=str(tmp_path / "no-tools-here"))
    document, line = said(proc)
    assert proc.returncode == 2
    assert document["error"]["kind"] == "sandbox"
    assert document["error"]["message"].startswith("the bwrap sandbox is unavailable: ")
    assert line.startswith("grader: error: the bwrap sandbox is unavailable")
    assert not list(out.glob("students/*/result.json"))  # nothing graded


@pytest.mark.parametrize("json_flag", [True, False], ids=["json", "text"])
def test_a_mistyped_path_is_a_usage_error_and_nothing_is_graded(tmp_path, json_flag):
    typo = tmp_path / "submisions" / "ana.py"
    out = tmp_path / "out"
    proc = grader("grade", CORRECT, typo, *BASE, "--out", out, *(["--json"] if json_flag else []), cwd=tmp_path)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stdout + proc.stderr
    assert f"grader: error: The path {typo} does not exist." in proc.stderr
    if json_flag:
        document = json.loads(proc.stdout)  # one usage document, not one result per path
        assert document["error"] == {"kind": "missing-file", "message": f"The path {typo} does not exist."}
        assert document["student"] is None and document["checks"] == []
    else:
        assert proc.stdout == ""
    assert not list(out.glob("students/*/result.json"))  # the correct file beside the typo was not graded


# -- each allowed GRADER_SANDBOX value is honoured ----------------------------------------------------------------
def test_each_grader_sandbox_value_is_honoured(tmp_path):
    """A forced mode runs the student's code with that mode's layers (or, where this machine lacks it, stops with
    exit 2 and says so); ``auto`` takes the strongest mode that runs, and the value is read case-blind."""
    layers: dict[str, list[str]] = {}
    for mode in ("fork", "bwrap", "landlock", "rlimits", "auto", " Fork "):
        proc = grader("grade", CORRECT, *BASE, "--json", cwd=tmp_path, GRADER_SANDBOX=mode)
        document, line = said(proc)
        if proc.returncode == 2:  # unavailable here: said, as a usage error
            assert mode not in ("rlimits", "auto") and document["error"]["kind"] == "sandbox", line
            assert "unavailable" in line or "not available" in line, line
            continue
        assert proc.returncode == 0, proc.stderr
        assert document["status"] == "graded" and document["score"] == document["max_score"], mode
        layers[mode] = document["isolation"]
    assert set(layers["rlimits"]) <= {"protocol", "rlimits", "caps-dropped"}
    assert "NOT isolated" in grader("grade", CORRECT, *BASE, cwd=tmp_path, GRADER_SANDBOX="rlimits").stderr
    if "fork" in layers:
        assert "namespaces" in layers["fork"] and "bwrap" not in layers["fork"]
        assert layers[" Fork "] == layers["fork"]
    if "bwrap" in layers:
        assert "bwrap" in layers["bwrap"] and "namespaces" not in layers["bwrap"]
    if "landlock" in layers:
        assert any(layer.startswith("landlock-abi") for layer in layers["landlock"])
        assert not {"bwrap", "namespaces"} & set(layers["landlock"])
    strongest = next(mode for mode in ("fork", "bwrap", "landlock", "rlimits") if mode in layers)
    assert layers["auto"] == layers[strongest]


# -- a submission's error: its own result, exit 0 ------------------------------------------------------------------
BREAKS_THE_WIRE = '''
import gc
import os
import struct

import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    for obj in gc.get_objects():
        if type(obj).__name__ == "Child" and hasattr(obj, "channel"):
            os.write(obj.channel, struct.pack(">II", 1 << 30, 0))  # a frame far larger than the protocol allows
            break
    return np.zeros((features.shape[0], W3.shape[1]))
'''


def test_a_submission_that_breaks_the_wire_format_is_its_own_result_and_the_others_are_graded(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "ana.py").write_text(CORRECT.read_text())
    (folder / "ben.py").write_text(BREAKS_THE_WIRE)
    proc = grader("grade", folder, *BASE, "--json", "--jobs", "1", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    documents = {d["student"]: d for d in json.loads(proc.stdout)}
    assert documents["ana"]["status"] == "graded" and documents["ana"]["score"] == documents["ana"]["max_score"]
    ben = documents["ben"]
    assert ben["status"] == "error" and ben["score"] == 0 and ben["error"]["kind"] == "protocol-error"
    assert "larger than the protocol allows" in ben["error"]["message"]
    assert "grader: error" not in proc.stderr and "internal" not in proc.stderr + proc.stdout


# -- a bug in the grader: exit 3 -----------------------------------------------------------------------------------
def test_a_bug_in_the_grader_exits_3_with_an_internal_document(monkeypatch, capsys):
    from grader import cli, commands

    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(commands, "grade", broken)
    assert cli.main(["grade", str(CORRECT), *BASE, "--json"]) == 3
    captured = capsys.readouterr()
    document = json.loads(captured.out)
    assert document["error"]["kind"] == "internal" and "RuntimeError: a bug" in document["error"]["message"]
    assert "please report it" in captured.err and "Traceback" not in captured.err


# -- the end of the command ----------------------------------------------------------------------------------------
def test_the_command_ends_with_its_output_complete_and_no_template_left(tmp_path):
    """The command leaves without Python's teardown (``cli.leave``): what it printed to a pipe is all there, its
    class files are written, and its exit handlers ran (the templates it started are stopped)."""
    folder = tmp_path / "class"
    folder.mkdir()
    for name in ("ana", "ben", "cleo"):
        (folder / f"{name}.py").write_text(CORRECT.read_text())
    proc = subprocess.Popen([str(GRADER), "grade", folder, *BASE, "--json", "--out", tmp_path / "out"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    out, err = proc.communicate(timeout=180)
    assert proc.returncode == 0, err
    assert sorted(d["student"] for d in json.loads(out)) == ["ana", "ben", "cleo"]
    assert (tmp_path / "out" / "manifest.json").is_file() and (tmp_path / "out" / "gradebook.csv").is_file()
    tags = {f"GRADER_FORKER={proc.pid}".encode(), f"GRADER_PARENT={proc.pid}".encode()}
    left = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            environ = set(Path(f"/proc/{entry}/environ").read_bytes().split(b"\0"))
        except OSError:
            continue
        if environ & tags:
            left.append(entry)
    assert not left, f"processes of the finished command are still there: {left}"


def test_leave_runs_the_exit_handlers_and_flushes_before_the_process_ends(tmp_path):
    script = ("import atexit, sys\nfrom grader import cli\n"
              "atexit.register(lambda: sys.stdout.write(' and the handler ran'))\n"
              "sys.stdout.write('buffered, not flushed')\ncli.leave(4)\nprint('never')\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert proc.returncode == 4
    assert proc.stdout == "buffered, not flushed and the handler ran"


def test_the_command_runs_numpy_on_one_blas_thread_unless_told_otherwise(tmp_path):
    script = ("import os, sys\nfrom grader import cli\ncli.main(['--version'])\nimport numpy\n"
              "print(os.environ['OPENBLAS_NUM_THREADS'], os.environ['OMP_NUM_THREADS'])\n")
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}
    said_default = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                                  cwd=tmp_path, env=env)
    said_chosen = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                                 cwd=tmp_path, env={**env, "OPENBLAS_NUM_THREADS": "2"})
    assert said_default.stdout.splitlines()[-1] == "1 1"
    assert said_chosen.stdout.splitlines()[-1] == "2 1"
