"""A course's workflows end to end, fourth round: Blackboard's Grade Center upload, a large class of tiny files,
the Gradescope bundle as Gradescope runs it, merges that must refuse, and the instructor's paths a student sees."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from grader import cli

from test_batch import make_class
from conftest import run_cli as run

BASE = ["--exercise", "vgg_classifier", "--no-full-scale", "--jobs", "2", "-q"]
ATTEMPT = "Homework 1_{user}_attempt_2026-03-01-10-00-00_vgg_classifier"


def _grade_center(path: Path, users: list[str], columns: list[str], encoding: str = "utf-16") -> Path:
    """A Grade Center download as Blackboard writes it: tab-delimited, UTF-16 with a byte-order mark."""
    lines = ["\t".join(['"Last Name"', '"First Name"', '"Username"', '"Student ID"', *[f'"{c}"' for c in columns]])]
    lines += ["\t".join([f'"{u.title()}"', '"X"', f'"{u}"', '""', *['""' for _ in columns]]) for u in users]
    path.write_bytes(("\r\n".join(lines) + "\r\n").encode(encoding))
    return path


def _upload(path: Path) -> list[list[str]]:
    """The rows of blackboard.xls as Blackboard's upload reads them: UTF-16 text, tabs between cells."""
    data = path.read_bytes()
    assert data.startswith((b"\xff\xfe", b"\xfe\xff")), "not UTF-16 with a byte-order mark, as Blackboard writes"
    return [line.split("\t") for line in data.decode("utf-16").split("\r\n") if line]


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """A small class graded once: two usernames, one Blackboard attempt download name, one formula-like id."""
    root = tmp_path_factory.mktemp("bb")
    folder = make_class(root / "class", {
        "jdoe.py": "correct/matmul.py", "asmith.py": "buggy/missing-bias.py",
        ATTEMPT.format(user="li_wei") + ".py": "correct/matmul.py", "=HYPERLINK(1).py": "correct/matmul.py"})
    out = root / "out"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GRADER_SECRET", "course")
        assert cli.main(["grade", str(folder), *BASE, "--out", str(out)]) == 0
    docs = [json.loads(p.read_text()) for p in (out / "students").glob("*/result.json")]
    scores = {doc["student"]: doc["score"] for doc in docs}
    return root, out, scores


# -- Blackboard Learn's Grade Center upload -------------------------------------------------------------------
def test_blackboard_file_fills_the_template_column_by_its_id(graded, capsys, monkeypatch):
    """With the Grade Center download as template, the header is the column's own, id included (without it the
    upload makes a new text column worth 0), each row is a username, and the attempt name gives the username."""
    monkeypatch.setenv("GRADER_SECRET", "course")
    root, out, scores = graded
    template = _grade_center(root / "gc.xls", ["jdoe", "asmith", "li_wei"], [
        "Homework 1 [Total Pts: 20 Score] |1234567", "Total [Total Pts: up to 120 Score] |1234500"])
    target = root / "upload.xls"
    code, _, err = run(capsys, "export", out, "--format", "blackboard", "--lms-template", template, "--to", target)
    assert code == 0, err
    rows = _upload(target)
    assert rows[0] == ["Username", "Homework 1 [Total Pts: 20 Score] |1234567"]
    got = {row[0]: row[1] for row in rows[1:]}
    assert got["jdoe"] == f"{scores['jdoe']:g}" and got["asmith"] == f"{scores['asmith']:g}"
    assert got["li_wei"] == f"{scores[ATTEMPT.format(user='li_wei')]:g}"  # the username, not the file's name
    assert "'=HYPERLINK(1)" in got and len(got) == 4  # never a formula; not a template user: kept, and stderr
    assert "1 student id is not a username" in err and "=HYPERLINK(1)" in err  # says the upload cannot match it


def test_blackboard_without_template_warns_of_a_new_zero_point_column(graded, capsys, monkeypatch):
    monkeypatch.setenv("GRADER_SECRET", "course")
    root, out, scores = graded
    code, _, err = run(capsys, "export", out, "--format", "blackboard", "--lms-assignment", "HW\t1\nB")
    assert code == 0
    rows = _upload(out / "blackboard.xls")
    # the tab and line break of the name never split the file; no column id, so a new column
    assert rows[0][0] == "Username" and rows[0][1].startswith("HW 1 B [Total Pts: ") and "|" not in rows[0][1]
    assert all(len(row) == 2 for row in rows) and len(rows) == 1 + len(scores)
    assert "new text column worth 0 points" in err and "--lms-template" in err


def test_blackboard_template_that_names_no_single_column_is_refused_before_grading(graded, capsys, monkeypatch):
    monkeypatch.setenv("GRADER_SECRET", "course")
    root, out, _ = graded
    two = _grade_center(root / "two.xls", ["jdoe"],
                        ["HW 1 [Total Pts: 20 Score] |11", "HW 2 [Total Pts: 20 Score] |12"], encoding="utf-8-sig")
    code, _, err = run(capsys, "export", out, "--format", "blackboard", "--lms-template", two)
    assert code == 2 and "HW 1" in err and "HW 2" in err and "--lms-assignment" in err
    code, _, err = run(capsys, "export", out, "--format", "blackboard", "--lms-template", two,
                       "--lms-assignment", "12", "--to", root / "by-id.xls")
    assert code == 0 and _upload(root / "by-id.xls")[0][1] == "HW 2 [Total Pts: 20 Score] |12"
    nouser = root / "nouser.csv"
    nouser.write_text("Name,Score\nx,1\n")
    code, _, err = run(capsys, "export", out, "--format", "blackboard", "--lms-template", nouser)
    assert code == 2 and "no Username column" in err
    code, _, err = run(capsys, "export", out, "--format", "canvas", "--lms-template", two)
    assert code == 2 and "--format blackboard" in err
    # grade refuses it before any sandbox starts: no output folder is written
    code, _, err = run(capsys, "grade", root / "class", *BASE, "--out", root / "never", "--gradebook-format",
                       "blackboard", "--lms-template", two)
    assert code == 2 and not (root / "never" / "students").exists()


def test_blackboard_points_mismatch_is_said(graded, capsys, monkeypatch):
    monkeypatch.setenv("GRADER_SECRET", "course")
    root, out, _ = graded
    template = _grade_center(root / "hundred.xls", ["jdoe"], ["Homework 1 [Total Pts: 100 Score] |77"])
    code, _, err = run(capsys, "export", out, "--format", "blackboard", "--lms-template", template,
                       "--to", root / "m.xls")
    assert code == 0 and "worth 100 points" in err


# -- what a student sees of the instructor's machine --------------------------------------------------------------
def _handed_to_students(out: Path) -> dict[str, str]:
    """Every file a student is handed (their report, Gradescope results) and the LMS grade file's comments."""
    files = {p.relative_to(out).as_posix(): p.read_text(encoding="utf-8")
             for p in (out / "students").rglob("*") if p.name in ("report.md", "report.html", "gradescope.json")}
    for p in (out / "students").rglob("result.json"):  # all but `submission`, which names the file graded
        doc = json.loads(p.read_text(encoding="utf-8"))
        doc.pop("submission")
        files[p.relative_to(out).as_posix()] = json.dumps(doc)
    files["moodle.csv"] = (out / "moodle.csv").read_text(encoding="utf-8")
    return files


def test_a_grader_failure_never_hands_the_student_the_instructors_paths(tmp_path, capsys, monkeypatch):
    """'The grader itself failed' and 'its result could not be written' quoted the exception as it was: an
    OSError names the file with its absolute path (the class folder, OUT, the cache, the grader's install), and
    that message reaches the student's report, Gradescope's output and the LMS feedback comment."""
    from grader import batch, grade, gradescope_results

    monkeypatch.setenv("GRADER_SECRET", "course")
    folder = make_class(tmp_path / "ZQXMARK-home" / "class", {"ann.py": "correct/matmul.py",
                                                              "bob.py": "correct/matmul.py"})
    real_grade, real_write = grade.OneExercise.grade, batch.write_outputs

    def failing_grade(self, path, student=None, raw=None):
        if student == "ann":
            raise OSError(28, "No space left on device", str(tmp_path / "ZQXMARK-cache" / "case.npy"))
        if student == "bob":
            raise ValueError(f"cannot map {tmp_path}/ZQXMARK-tmp/frame-1 at offset 3/4")
        return real_grade(self, path, student, raw)

    monkeypatch.setattr(grade.OneExercise, "grade", failing_grade)
    out = tmp_path / "ZQXMARK-out"
    code, _, _ = run(capsys, "grade", folder, *BASE, "--out", out, "--gradebook-format", "moodle")
    assert code == 3  # two students without a grade: said, and the command's status says so
    ann = json.loads((out / "students" / "ann" / "result.json").read_text())["error"]["message"]
    bob = json.loads((out / "students" / "bob" / "result.json").read_text())["error"]["message"]
    assert "No space left on device (case.npy)" in ann and ".../frame-1 at offset 3/4" in bob
    for name, text in _handed_to_students(out).items():
        assert "ZQXMARK" not in text, name

    def failing_write(result, folder, *args, **kwargs):
        raise OSError(13, "Permission denied", str(folder / "result.json"))

    monkeypatch.setattr(grade.OneExercise, "grade", real_grade)
    monkeypatch.setattr(batch, "write_outputs", failing_write)
    again = tmp_path / "ZQXMARK-again"
    code, _, _ = run(capsys, "grade", folder, *BASE, "--out", again, "--gradebook-format", "moodle")
    comments = (again / "moodle.csv").read_text(encoding="utf-8")
    assert "Permission denied (result.json)" in comments and "ZQXMARK" not in comments

    def failing_report(result, folder, **kwargs):
        raise OSError(5, "Input/output error", str(folder / "gradescope.json"))

    monkeypatch.setattr(batch, "write_outputs", real_write)
    monkeypatch.setattr(gradescope_results, "write", failing_report)
    third = tmp_path / "ZQXMARK-third"
    code, _, _ = run(capsys, "grade", folder, *BASE, "--out", third, "--gradebook-format", "moodle")
    ann = json.loads((third / "students" / "ann" / "result.json").read_text())["error"]["message"]
    assert "Input/output error (gradescope.json)" in ann and "ZQXMARK" not in ann
    assert "ZQXMARK" not in (third / "moodle.csv").read_text(encoding="utf-8")


# -- the Gradescope bundle as Gradescope runs it --------------------------------------------------------------
def _can_unshare() -> bool:
    import shutil
    import subprocess
    if shutil.which("unshare") is None:
        return False
    return subprocess.run(["unshare", "-m", "-n", "true"], capture_output=True).returncode == 0


@pytest.mark.skipif(not _can_unshare(), reason="needs root and unshare (mount and network namespaces)")
@pytest.mark.parametrize("set_up", [True, False], ids=["after-setup", "setup-skipped"])
def test_gradescope_run_with_no_network_and_a_read_only_bundle(tmp_path_factory, set_up):
    """Gradescope runs ``run_autograder`` with the bundle in /autograder/source; the run re-applied the bundle's
    modes with chmod on every file, which a read-only mount refuses even for the mode a file already has: the
    student got 'The autograder itself failed (exit status 3)'. Now the modes are changed only where they
    differ; a solutions folder others can read on a read-only bundle (setup.sh never ran) is refused, saying so."""
    import os
    import shutil
    import subprocess

    from test_gradescope import GRADER_BIN, _unpack

    out = tmp_path_factory.mktemp("gsbundle")
    assert cli.main(["gradescope", "--exercise", "vgg_classifier", "--out", str(out), "--secret", "s3",
                     "--no-full-scale"]) == 0
    root = _unpack(out / "autograder.zip")
    try:
        source = root / "source"
        if set_up:  # what setup.sh leaves: nothing writable by others, solutions and secret root's alone
            for path in [source, *source.rglob("*")]:
                os.chmod(path, os.stat(path).st_mode & ~0o022)
            os.chmod(source / "solutions", 0o700)
        shutil.copy(Path(__file__).parent / "submissions" / "buggy" / "missing-relu.py",
                    root / "submission" / "vgg_classifier.py")
        shutil.copy(source / "run_autograder", root / "run_autograder")  # Gradescope runs its copy
        script = (f"mount --bind {source} {source} && mount -o remount,bind,ro {source} && "
                  f"! touch {source}/writable 2>/dev/null && exec {root}/run_autograder")
        env = {"PATH": "/usr/bin:/bin", "AUTOGRADER_ROOT": str(root), "GRADER_BIN": str(GRADER_BIN)}
        proc = subprocess.run(["unshare", "-m", "-n", "--propagation", "private", "sh", "-c", script],
                              capture_output=True, text=True, env=env, timeout=300)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        results = json.loads((root / "results" / "results.json").read_text())
        if set_up:
            assert results["score"] == 8 and "missing-relu" in results["output"], results["output"][:300]
        else:
            assert results["score"] == 0 and not results["tests"]
            assert "readable by others" in results["output"] and "setup.sh" in results["output"]
    finally:
        shutil.rmtree(root, ignore_errors=True)


# -- merging shards that cannot be one run --------------------------------------------------------------------
def test_merge_of_shards_signed_with_two_secrets_names_the_shards_of_each(tmp_path, capsys, monkeypatch):
    """Merge read the shards one by one and said only that the first it could not verify 'was signed with another
    course secret than the one given', never that the shards disagree among themselves, nor which used which."""
    folder = make_class(tmp_path / "class", {f"st{i}.py": "correct/matmul.py" for i in range(6)})
    for index, secret in ((1, "alpha"), (2, "beta")):
        monkeypatch.setenv("GRADER_SECRET", secret)
        code, _, _ = run(capsys, "grade", folder, *BASE, "--shard", f"{index}/2", "--out", tmp_path / f"o{index}")
        assert code == 0
    monkeypatch.setenv("GRADER_SECRET", "alpha")
    code, _, err = run(capsys, "merge", tmp_path / "o1", tmp_path / "o2", "--out", tmp_path / "m")
    assert code == 2 and "2 different course secrets" in err
    assert f"{tmp_path / 'o1'} with the secret given" in err and f"{tmp_path / 'o2'} with secret A" in err
    assert "alpha" not in err and "beta" not in err  # the secrets themselves are never said
    assert not (tmp_path / "m" / "students").exists()


def test_merge_of_shards_of_two_exercise_versions_names_both(tmp_path, capsys, monkeypatch):
    import shutil

    monkeypatch.setenv("GRADER_SECRET", "alpha")
    repository = Path(__file__).resolve().parent.parent
    edited = tmp_path / "edited"
    shutil.copytree(repository / "exercises", edited / "exercises")
    shutil.copytree(repository / "solutions", edited / "solutions")
    with open(edited / "exercises" / "vgg_classifier" / "catalog.toml", "a", encoding="utf-8") as handle:
        handle.write("\n# a word changed between the two machines\n")
    folder = make_class(tmp_path / "class", {f"st{i}.py": "correct/matmul.py" for i in range(6)})
    assert run(capsys, "grade", folder, *BASE, "--shard", "1/2", "--out", tmp_path / "o1")[0] == 0
    assert run(capsys, "grade", folder, *BASE, "--shard", "2/2", "--out", tmp_path / "o2",
               "--exercises-dir", edited / "exercises")[0] == 0
    code, _, err = run(capsys, "merge", tmp_path / "o1", tmp_path / "o2", "--out", tmp_path / "m")
    versions = {json.loads((tmp_path / o / "manifest.json").read_text())["signature"]["run"]["exercise_version"]
                for o in ("o1", "o2")}
    assert code == 2 and len(versions) == 2 and "exercise version" in err
    assert all(v in err for v in versions) and "o1" in err and "o2" in err


def test_blackboard_file_of_an_incomplete_merge_has_no_row_for_the_students_not_graded(tmp_path, capsys, monkeypatch):
    """A student not graded yet gets no row (whether the upload reads an empty cell as 'no change' is not said),
    and is not among the ids stderr says the template lacks."""
    monkeypatch.setenv("GRADER_SECRET", "alpha")
    folder = make_class(tmp_path / "class", {f"st{i}.py": "correct/matmul.py" for i in range(6)})
    assert run(capsys, "grade", folder, *BASE, "--shard", "1/2", "--out", tmp_path / "o1")[0] == 0
    graded = sorted(json.loads(p.read_text())["student"] for p in (tmp_path / "o1" / "students").glob("*/result.json"))
    template = _grade_center(tmp_path / "gc.xls", graded, ["HW [Total Pts: 17 Score] |55"])
    code, _, err = run(capsys, "merge", tmp_path / "o1", "--out", tmp_path / "m", "--allow-incomplete",
                       "--gradebook-format", "blackboard", "--lms-template", template)
    assert code == 0 and "not a username" not in err
    rows = _upload(tmp_path / "m" / "blackboard.xls")
    assert sorted(row[0] for row in rows[1:]) == graded and 0 < len(graded) < 6
