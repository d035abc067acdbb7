"""The Gradescope bundle: `grader gradescope` builds autograder.zip, its run_autograder grades a submission into
results.json as Gradescope's specification says, and it holds without namespaces: student code runs as an
unprivileged uid that can neither read the solutions nor write the results, and a process it leaves behind to
rewrite results.json loses. Run as Gradescope would, with AUTOGRADER_ROOT pointing at a folder of our own."""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import pytest

from conftest import ROOT, SUBMISSIONS
from grader import cli, gradescope, gradescope_results, slots
from grader.results import CheckResult, ErrorInfo, GradeResult
from grader.slots import SandboxUnavailable

GRADER_BIN = Path(sys.executable).parent / "grader"
SECRET = "gradescope-test-secret"
CORRECT = SUBMISSIONS / "correct" / "matmul.py"
ROOT_ONLY = pytest.mark.skipif(not sys.platform.startswith("linux") or os.geteuid() != 0,
                               reason="the bundle runs as root, as on Gradescope")


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    out = tmp_path_factory.mktemp("bundle")
    code = cli.main(["gradescope", "--exercise", "vgg_classifier", "--out", str(out), "--secret", SECRET,
                     "--no-full-scale"])
    assert code == 0
    return out / "autograder.zip"


def test_the_zip_has_what_gradescope_asks_for(bundle):
    with zipfile.ZipFile(bundle) as archive:
        names = set(archive.namelist())
        modes = {i.filename: (i.external_attr >> 16) & 0o777 for i in archive.infolist()}
        assert {"setup.sh", "run_autograder", "bundle.json"} <= names  # at the root of the zip
        assert modes["setup.sh"] & 0o111 and modes["run_autograder"] & 0o111
        assert archive.read("setup.sh").startswith(b"#!/usr/bin/env bash")
        assert archive.read("run_autograder").startswith(b"#!/usr/bin/env bash")
        setup = archive.read("setup.sh").decode()
        assert "apt-get update" in setup and "bubblewrap" in setup and "useradd" in setup
        assert "chmod 700" in setup and "solutions" in setup
        assert "solutions/vgg_classifier.py" in names and modes["solutions/vgg_classifier.py"] == 0o600
        assert archive.read("secret").strip() == SECRET.encode()
        assert "grader-src/pyproject.toml" in names and "grader-src/grader/cli.py" in names
        assert "grader-src/exercises/vgg_classifier/exercise.toml" in names
        reference = archive.read("solutions/vgg_classifier.py")
        assert not [n for n in names if n.startswith("grader-src/") and archive.read(n) == reference]
        assert not [n for n in names if n.startswith("grader-src/") and n.endswith("/solutions")]
        assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]
        config = json.loads(archive.read("bundle.json"))
    assert config == {**config, "exercise": "vgg_classifier", "full_scale": False, "visibility": "visible"}
    assert stat.S_IMODE(bundle.stat().st_mode) == 0o600  # it holds the solutions


def _unpack(bundle: Path) -> Path:
    """An AUTOGRADER_ROOT others can traverse (so only the bundle's own modes protect it), as Gradescope's is."""
    root = Path(tempfile.mkdtemp(prefix="autograder-", dir="/tmp"))
    os.chmod(root, 0o755)
    source = root / "source"
    with zipfile.ZipFile(bundle) as archive:
        for info in archive.infolist():
            target = source / info.filename
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(archive.read(info))
            os.chmod(target, (info.external_attr >> 16) & 0o777)
    for folder in [source, *[p for p in source.rglob("*") if p.is_dir()]]:
        os.chmod(folder, 0o755)
    (root / "submission").mkdir(mode=0o755)
    (root / "submission_metadata.json").write_text(json.dumps(
        {"id": 123, "users": [{"email": "ana@example.edu", "id": 7, "name": "Ana"}]}))
    return root


def _run(root: Path, mode: str | None = None, copied: bool = False) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", "AUTOGRADER_ROOT": str(root), "GRADER_BIN": str(GRADER_BIN)}
    if mode:
        env["GRADER_SANDBOX"] = mode
    script = root / "source" / "run_autograder"
    if copied:  # Gradescope runs its copy, /autograder/run_autograder
        shutil.copy(script, root / "run_autograder")
        script = root / "run_autograder"
    return subprocess.run([str(script)], capture_output=True, text=True, env=env, cwd=root, timeout=300)


def _digests(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _named(name: str) -> list[int]:
    """Processes called ``name`` (the hostile submission names its own; other graders may run on this machine)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if Path(f"/proc/{entry}/comm").read_text().strip() == name:
                    found.append(int(entry))
            except OSError:
                pass
    return found


@ROOT_ONLY
@pytest.mark.parametrize("copied", [False, True], ids=["from-source", "gradescope-copy"])
def test_run_autograder_grades_into_results_json(bundle, copied):
    root = _unpack(bundle)
    try:
        shutil.copy(CORRECT, root / "submission" / "vgg_classifier.py")
        proc = _run(root, copied=copied)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        results = json.loads((root / "results" / "results.json").read_text())
        assert results["score"] == sum(t["max_score"] for t in results["tests"]) > 0
        assert results["visibility"] == "visible" and results["stdout_visibility"] == "hidden"
        assert results["output_format"] == "md"
        for test in results["tests"]:
            assert set(test) >= {"name", "score", "max_score", "status", "output", "visibility"}
            assert test["status"] == "passed" and test["visibility"] == "visible"
            assert test["name"] not in results["output"]  # the output does not repeat the tests
        assert "unprivileged user" in results["output"] and "worker-uid" in results["output"]
        assert "isolation:" in proc.stdout  # the instructor's log says which mode ran
    finally:
        shutil.rmtree(root, ignore_errors=True)


HOSTILE = '''
import ctypes, json, os, time

ROOT = {root!r}
NAME = {name!r}
RESULTS = ROOT + "/results/results.json"
FORGED = json.dumps({{"score": 1000, "output": "forged", "tests": []}})


def _rewrite_forever():
    """Left behind: wait for the grader's results.json, then rewrite it (by every route there is)."""
    for _ in range(400):
        for attempt in (lambda: open(RESULTS, "w").write(FORGED),
                        lambda: open(ROOT + "/results/forged.json", "w").write(FORGED),
                        lambda: os.replace(ROOT + "/results/forged.json", RESULTS),
                        lambda: os.chmod(ROOT + "/results", 0o777),
                        lambda: os.unlink(RESULTS)):
            try:
                attempt()
            except Exception:
                pass
        time.sleep(0.05)


if os.fork() == 0:  # a grandchild in a session of its own: out of the process group the grader kills
    os.setsid()
    if os.fork() == 0:
        ctypes.CDLL(None).prctl(15, NAME.encode(), 0, 0, 0)  # PR_SET_NAME: so the test can look for it
        _rewrite_forever()
        os._exit(0)
    os._exit(0)
os.wait()

LEAKS = []
for path in (ROOT + "/source/solutions/vgg_classifier.py", ROOT + "/source/secret"):
    try:
        LEAKS.append("read " + path + ": " + open(path).read()[:20])
    except OSError:
        pass
for path in (ROOT + "/source/run_autograder", ROOT + "/source/bundle.json", ROOT + "/source/grader-src/grader/cli.py",
             RESULTS, ROOT + "/results/early.json"):
    try:
        open(path, "a").write("# planted")
        LEAKS.append("wrote " + path)
    except OSError:
        pass
LEAKS.append("uid " + str(os.getuid()))


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    raise ValueError("REPORT " + "; ".join(LEAKS))
'''


@ROOT_ONLY
@pytest.mark.parametrize("mode", ["rlimits", None], ids=["no-bwrap-no-landlock", "auto"])
def test_a_left_behind_process_cannot_rewrite_the_results(bundle, mode):
    root = _unpack(bundle)
    try:
        name = "gsleft" + os.urandom(4).hex()
        (root / "submission" / "vgg_classifier.py").write_text(HOSTILE.format(root=str(root), name=name))
        before = _digests(root / "source")
        proc = _run(root, mode)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        written = (root / "results" / "results.json").read_bytes()
        results = json.loads(written)
        time.sleep(1.5)  # time for anything left behind to try
        assert (root / "results" / "results.json").read_bytes() == written, "results.json was rewritten"
        assert sorted(p.name for p in (root / "results").iterdir()) == ["results.json"]
        assert stat.S_IMODE((root / "results").stat().st_mode) == 0o755
        assert _digests(root / "source") == before, "the bundle was changed"
        assert not _named(name), "the process the submission left behind outlived the grade"
        report = next(t["output"] for t in results["tests"] if "REPORT" in t["output"])
        said = report.split("REPORT ", 1)[1]
        assert "read " not in said and "wrote " not in said, said  # nothing read or written
        uid = int(said.split("uid ", 1)[1].split()[0].rstrip(".;'\""))
        assert uid in gradescope.WORKER_UIDS and uid != 0
        assert results["score"] < sum(t["max_score"] for t in results["tests"])
        assert "worker-uid" in results["output"]
        if mode == "rlimits":
            assert "resource limits only" in results["output"]
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_without_root_nothing_runs(monkeypatch, tmp_path, bundle):
    """Without a uid to switch to, the bundle refuses to run student code, and the result says so."""
    monkeypatch.setattr(gradescope, "_is_root", lambda: False)
    from grader.sandbox import Limits

    with pytest.raises(SandboxUnavailable, match="unprivileged"):
        gradescope.BundleSandbox(Limits(), mode="rlimits")
    root = tmp_path / "ag"
    source = root / "source"
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(source)
    (root / "submission").mkdir()
    shutil.copy(CORRECT, root / "submission" / "vgg_classifier.py")
    monkeypatch.setenv("GRADER_SANDBOX", "rlimits")
    code = cli.main(["gradescope-run", "--bundle", str(source), "--root", str(root)])
    results = json.loads((root / "results" / "results.json").read_text())
    assert code == 1 and results["score"] == 0 and "was not run" in results["output"]


def test_submission_discovery(tmp_path, exercise):
    folder = tmp_path / "submission"
    folder.mkdir()
    assert gradescope.find_submission(folder, exercise)[0] is None
    (folder / "notes.txt").write_text("hi")
    (folder / "a.py").write_text("x = 1\n")
    assert gradescope.find_submission(folder, exercise) == (folder / "a.py", "")
    (folder / "sub").mkdir()
    (folder / "sub" / "vgg_classifier.ipynb").write_text("{}")
    assert gradescope.find_submission(folder, exercise) == (folder / "sub" / "vgg_classifier.ipynb", "")
    (folder / "b.py").write_text("x = 1\n")
    (folder / "vgg_classifier.py").write_text("x = 1\n")
    path, why = gradescope.find_submission(folder, exercise)
    assert path is None and "Submit only one" in why
    meta = tmp_path / "meta.json"
    meta.write_text(json.dumps({"users": [{"email": "b@x.edu"}, {"email": "a@x.edu"}]}))
    assert gradescope.student_of(meta) == "a@x.edu+b@x.edu"
    assert gradescope.student_of(tmp_path / "missing.json") == "gradescope-student"


def test_results_document_follows_the_spec_without_repeating_the_tests():
    checks = (CheckResult("returns", "The function returns", "passed", 1, 1, "ok"),
              CheckResult("values", "Correct logits", "failed", 0, 3, "3 of 3 values are wrong"))
    result = GradeResult("vgg_classifier", "s.py", "ana", "graded", 1.0, 4.0, checks=checks)
    doc = gradescope_results.document(result, visibility="after_published", isolation="Ran as nobody.")
    assert doc["visibility"] == "after_published" and all(t["visibility"] == "after_published" for t in doc["tests"])
    assert doc["stdout_visibility"] == "hidden" and doc["output_format"] == "md"
    assert [t["status"] for t in doc["tests"]] == ["passed", "failed"]
    assert doc["tests"][1]["output"] == "3 of 3 values are wrong"
    assert "Correct logits" not in doc["output"] and "3 of 3" not in doc["output"]
    assert "Ran as nobody." in doc["output"] and "1 / 4" in doc["output"]
    with pytest.raises(ValueError):
        gradescope_results.document(result, visibility="sometimes")
    broken = GradeResult("vgg_classifier", "s.ipynb", "ana", "error", 0.0, 4.0,
                         error=ErrorInfo("not-json", "s.ipynb is not valid JSON."),
                         checks=tuple(CheckResult(c.id, c.title, "error", 0, c.max_points, "Not graded: see above")
                                      for c in checks))
    doc = gradescope_results.document(broken)
    assert doc["output"].count("is not valid JSON") == 1 and all(t["output"] == "" for t in doc["tests"])


@ROOT_ONLY
def test_an_empty_submission_is_said_once_and_counts_every_check(bundle):
    root = _unpack(bundle)
    try:
        proc = _run(root)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        results = json.loads((root / "results" / "results.json").read_text())
    finally:
        shutil.rmtree(root, ignore_errors=True)
    assert results["score"] == 0 and results["extra_data"]["error_kind"] == "no-submission"
    assert results["output"].count("No .ipynb or .py file was found") == 1
    assert "vgg_classifier.ipynb" in results["output"]
    assert results["tests"] and all(t["status"] == "failed" and t["output"] == "" for t in results["tests"])


def test_a_bundle_naming_an_exercise_it_lacks_says_it_is_misconfigured(tmp_path, bundle):
    root = tmp_path / "ag"
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(root / "source")
    config = json.loads((root / "source" / "bundle.json").read_text())
    (root / "source" / "bundle.json").write_text(json.dumps({**config, "exercise": "nope"}))
    (root / "submission").mkdir()
    code = cli.main(["gradescope-run", "--bundle", str(root / "source"), "--root", str(root)])
    results = json.loads((root / "results" / "results.json").read_text())
    assert code == 2 and results["score"] == 0 and "misconfigured" in results["output"]
