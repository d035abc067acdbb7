"""A course's workflows end to end, sixth round: the Gradescope bundle run by a user who is not root and in a
container that denies namespaces, with submissions laid out as Gradescope delivers them, and shards merged when
one machine's job never got GRADER_SECRET (or the merge job did not)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, run_cli
from grader import cli
from grader.runner import seccomp

from test_batch import make_class
from test_gradescope import GRADER_BIN, ROOT_ONLY, _unpack

NOTEBOOK = ROOT / "exercises" / "vgg_classifier" / "examples" / "ada.ipynb"  # 17/17
#: Gradescope's results.json specification: the keys it reads, at the top and in a test
TOP_KEYS = {"score", "execution_time", "output", "output_format", "test_output_format", "test_name_format",
            "visibility", "stdout_visibility", "extra_data", "tests", "leaderboard"}
TEST_KEYS = {"score", "max_score", "status", "name", "name_format", "number", "output", "output_format", "tags",
             "visibility", "extra_data"}
VISIBILITIES = {"hidden", "after_due_date", "after_published", "visible"}

#: Docker's default seccomp profile as a container without CAP_SYS_ADMIN meets it: no namespace, no mount
NO_NAMESPACES = r'''
import ctypes, errno, os, sys
from grader.runner import seccomp as s
arch = s.machine(); col = 0 if arch == "x86_64" else 1
deny = s.RET_ERRNO | errno.EPERM
code = [(s.LD_W_ABS, 0, 0, s.ARCH), (s.JEQ_K, 1, 0, s.AUDIT_ARCH[arch]), (s.RET_K, 0, 0, s.RET_ALLOW),
        (s.LD_W_ABS, 0, 0, s.NR)]
for name in ("unshare", "setns", "mount", "pivot_root"):
    code += [(s.JEQ_K, 0, 1, s.SYSCALLS[name][col]), (s.RET_K, 0, 0, deny)]
code += [(s.JEQ_K, 0, 1, s.SPECIAL[s.CLONE3][col]), (s.RET_K, 0, 0, s.RET_ERRNO | errno.ENOSYS)]
code += [(s.JEQ_K, 0, 4, s.SPECIAL[s.CLONE][col]), (s.LD_W_ABS, 0, 0, s.ARG0), (s.JSET_K, 0, 1, s.CLONE_NEW_FLAGS),
         (s.RET_K, 0, 0, deny), (s.RET_K, 0, 0, s.RET_ALLOW), (s.RET_K, 0, 0, s.RET_ALLOW)]
program = (s.SockFilter * len(code))(*(s.SockFilter(*c) for c in code))
libc = ctypes.CDLL(None, use_errno=True)
zero = ctypes.c_ulong(0)
assert libc.prctl(s.PR_SET_NO_NEW_PRIVS, ctypes.c_ulong(1), zero, zero, zero) == 0
assert libc.prctl(s.PR_SET_SECCOMP, ctypes.c_ulong(2), ctypes.byref(s.SockFprog(len(code), program)), zero, zero) == 0
os.execv(sys.argv[1], sys.argv[1:])
'''


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    out = tmp_path_factory.mktemp("bundle6")
    assert cli.main(["gradescope", "--exercise", "vgg_classifier", "--out", str(out), "--secret", "round6-secret",
                     "--no-full-scale"]) == 0
    return out / "autograder.zip"


def _results(root: Path, proc: subprocess.CompletedProcess) -> dict:
    """results.json, checked against Gradescope's specification and for any trace of the grader's insides."""
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stdout + proc.stderr, proc.stderr
    doc = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    assert set(doc) <= TOP_KEYS and isinstance(doc["score"], (int, float)) and isinstance(doc["output"], str)
    assert doc["visibility"] in VISIBILITIES and doc["stdout_visibility"] == "hidden"
    for test in doc["tests"]:
        assert set(test) <= TEST_KEYS and test["status"] in ("passed", "failed") and test["visibility"] in VISIBILITIES
    assert "round6-secret" not in json.dumps(doc)
    return doc


def _run(root: Path, *prefix: str) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", "AUTOGRADER_ROOT": str(root), "GRADER_BIN": str(GRADER_BIN),
           "HOME": "/nonexistent", "PYTHONPATH": str(ROOT)}
    return subprocess.run([*prefix, str(root / "source" / "run_autograder")], capture_output=True, text=True,
                          env=env, cwd=root, timeout=300)


def _set_up(root: Path) -> None:
    """What setup.sh leaves: the solutions folder root's alone (its files and the secret already are)."""
    os.chmod(root / "source" / "solutions", 0o700)


@ROOT_ONLY
def test_run_autograder_as_a_user_who_is_not_root_says_the_code_was_not_run(bundle):
    """Run as nobody (HOME unwritable), the run read the root-only secret before anything else and the student
    got 'The autograder itself failed (exit status 3)', the log an internal PermissionError."""
    if shutil.which("setpriv") is None:
        pytest.skip("needs setpriv")
    root = _unpack(bundle)
    try:
        _set_up(root)
        shutil.copy(NOTEBOOK, root / "submission" / "vgg_classifier.ipynb")
        (root / "results").mkdir()
        os.chown(root / "results", 65534, 65534)
        doc = _results(root, _run(root, "setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups"))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    assert doc["score"] == 0 and doc["tests"] == []
    assert doc["output"].startswith("This submission was not run:") and "does not run as root" in doc["output"]
    assert "not of your code" in doc["output"]


@ROOT_ONLY
@pytest.mark.skipif(not seccomp.supported(), reason="needs seccomp to deny namespaces as a container does")
def test_with_namespaces_denied_a_notebook_in_a_folder_grades_and_an_empty_submission_is_not_told_its_code_ran(
        bundle, tmp_path):
    """A repository-like upload (the notebook in a folder, beside Jupyter's checkpoint of a wrong draft and a
    macOS zip's resource file) grades under Landlock; an empty submission and a zip uploaded as it is were told
    'Your code ran as an unprivileged user ... It could not read the solutions' though nothing of theirs ran."""
    wrapper = tmp_path / "no_namespaces.py"
    wrapper.write_text(NO_NAMESPACES, encoding="utf-8")
    docs = {}
    for kind in ("folder", "empty", "zip"):
        root = _unpack(bundle)
        try:
            _set_up(root)
            submission = root / "submission"
            if kind == "folder":
                (submission / "hw" / ".ipynb_checkpoints").mkdir(parents=True)
                shutil.copy(NOTEBOOK, submission / "hw" / "vgg_classifier.ipynb")
                shutil.copy(ROOT / "tests" / "submissions" / "buggy" / "missing-relu.py",
                            submission / "hw" / ".ipynb_checkpoints" / "vgg_classifier-checkpoint.py")
                (submission / "__MACOSX" / "hw").mkdir(parents=True)
                (submission / "__MACOSX" / "hw" / "._vgg_classifier.ipynb").write_bytes(b"\0\x05\x16\x07")
            elif kind == "zip":
                shutil.make_archive(str(submission / "vgg_classifier"), "zip", NOTEBOOK.parent, NOTEBOOK.name)
            docs[kind] = _results(root, _run(root, sys.executable, str(wrapper)))
        finally:
            shutil.rmtree(root, ignore_errors=True)
    assert docs["folder"]["score"] == 17 and "under Landlock and seccomp (no namespaces" in docs["folder"]["output"]
    assert "No .ipynb or .py file was found" in docs["empty"]["output"]
    assert "is an archive: unpack it" in docs["zip"]["output"]
    for kind in ("empty", "zip"):
        assert docs[kind]["score"] == 0 and "Your code ran" not in docs[kind]["output"], docs[kind]["output"]


def test_a_shard_graded_without_the_secret_is_named_so(tmp_path, capsys, monkeypatch):
    """A cluster job the environment did not reach (sbatch --export=NONE, a matrix job without the env line)
    graded with the built-in default: merge said 'B with secret A', leaving the instructor to guess what A is;
    a merge job without GRADER_SECRET said only 'another course secret than the one given'."""
    folder = make_class(tmp_path / "class", {f"st{i}.py": "correct/matmul.py" for i in range(6)})
    base = ("--exercise", "vgg_classifier", "--no-full-scale", "--jobs", "2", "-q")
    for index, secret in ((1, "course"), (2, None)):
        if secret:
            monkeypatch.setenv("GRADER_SECRET", secret)
        else:
            monkeypatch.delenv("GRADER_SECRET")
        assert run_cli(capsys, "grade", folder, *base, "--shard", f"{index}/2", "--out", tmp_path / f"o{index}")[0] == 0
    monkeypatch.setenv("GRADER_SECRET", "course")
    code, _, err = run_cli(capsys, "merge", tmp_path / "o1", tmp_path / "o2", "--out", tmp_path / "m")
    assert code == 2 and f"{tmp_path / 'o2'} with no secret, as GRADER_SECRET was not set where it was graded" in err
    assert f"{tmp_path / 'o1'} with the secret given" in err and "secret A" not in err
    code, _, err = run_cli(capsys, "merge", tmp_path / "o2", "--out", tmp_path / "m", "--allow-incomplete")
    assert code == 2 and "it was graded with no secret" in err
    monkeypatch.delenv("GRADER_SECRET")
    code, _, err = run_cli(capsys, "merge", tmp_path / "o1", "--out", tmp_path / "m", "--allow-incomplete")
    assert code == 2 and "no secret is set for this merge" in err
    assert not (tmp_path / "m" / "students").exists()
