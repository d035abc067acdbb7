"""A regrade says whose result moved and why: ``OUT/changes.csv``, a section of ``summary.html``, and
``grader diff OLD_OUT NEW_OUT`` (exit 1 when a score changed)."""
from __future__ import annotations

import csv
import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from grader import batch, cli, regrade
from grader.exercise import load as load_exercise
from grader.results import CheckResult, GradeResult

from conftest import SUBMISSIONS
from test_batch import make_class

ROOT = Path(__file__).resolve().parent.parent
CLASS = {
    "ana.py": "correct/matmul.py",  # right once the reference is fixed
    "ben.py": "buggy/missing-bias.py",  # right only under the broken reference
    "dee.py": "buggy/missing-relu.py",  # wrong under both: same score
    "fay.ipynb": "notebooks/syntax-error.ipynb",  # not graded under both
}
BASE = ["--exercise", "vgg_classifier", "--no-full-scale", "--jobs", "2", "-q", "--similarity", "off"]


def grade(*args: str) -> None:
    """``grader grade`` in its own process, as an instructor runs it (the exercise and its reference load anew)."""
    done = subprocess.run([sys.executable, "-m", "grader", "grade", *args, *BASE], capture_output=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300)
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]


def rows(path: Path) -> dict[str, dict]:
    return {r["student"]: r for r in csv.DictReader(path.open(newline="", encoding="utf-8"))}


@pytest.fixture(scope="module")
def regraded(tmp_path_factory):
    """The class graded against a broken reference (b3 left out), then again once the reference is fixed."""
    root = tmp_path_factory.mktemp("regrade")
    folder = make_class(root / "class", CLASS)
    broken = root / "broken-solutions"
    broken.mkdir()
    shutil.copyfile(SUBMISSIONS / "buggy" / "missing-bias.py", broken / "vgg_classifier.py")
    out = root / "out"
    grade(str(folder), "--out", str(out), "--solutions-dir", str(broken))
    assert not (out / "changes.csv").exists()  # nothing was stored before: nothing to compare
    before = root / "before"
    shutil.copytree(out, before)
    grade(str(folder), "--out", str(out))
    return folder, before, out


def test_a_fixed_reference_lists_exactly_the_students_whose_score_moved(regraded):
    _, before, out = regraded
    old, new = rows(before / "gradebook.csv"), rows(out / "gradebook.csv")
    moved = {s for s in new if old[s]["score"] != new[s]["score"]}
    assert moved == {"ana", "ben"}
    changes = rows(out / "changes.csv")
    assert set(changes) == moved
    assert float(changes["ana"]["new_score"]) > float(changes["ana"]["old_score"])
    assert float(changes["ben"]["new_score"]) < float(changes["ben"]["old_score"])
    assert changes["ana"]["change"].startswith("+") and changes["ben"]["change"].startswith("-")
    assert "values-batch: failed -> passed" in changes["ana"]["checks_flipped"]
    assert "values-batch: passed -> failed" in changes["ben"]["checks_flipped"]
    version = load_exercise("vgg_classifier").version
    assert all(r["why"].startswith(f"exercise version ({version}+") for r in changes.values())


def test_the_summary_says_what_the_regrade_changed(regraded):
    _, _, out = regraded
    summary = (out / "summary.html").read_text(encoding="utf-8")
    section = summary.split("What this regrade changed", 1)[1].split("<h2>", 1)[0]
    assert "4 students were graded again" in section and "2 scores moved" in section
    assert 'href="students/ana/report.html"' in section and 'href="students/ben/report.html"' in section
    assert "dee" not in section and "fay" not in section and 'href="changes.csv"' in section


def test_grader_diff_prints_the_same_and_exits_1(regraded, capsys):
    _, before, out = regraded
    assert cli.main(["diff", str(before), str(out)]) == 1
    printed = capsys.readouterr().out
    lines = printed.splitlines()
    assert lines[0].startswith("2 scores changed") and len(lines) == 3
    assert lines[1].startswith("  ana: ") and lines[2].startswith("  ben: ") and "exercise version" in printed
    assert cli.main(["diff", str(before), str(out), "--csv"]) == 1
    assert set(rows_of(capsys.readouterr().out)) == {"ana", "ben"}
    assert cli.main(["diff", str(out), str(out)]) == 0
    assert "No result changed" in capsys.readouterr().out


def rows_of(text: str) -> dict[str, dict]:
    return {r["student"]: r for r in csv.DictReader(io.StringIO(text))}


def test_force_with_nothing_changed_says_so_and_an_up_to_date_rerun_drops_the_file(regraded):
    folder, _, out = regraded
    grade(str(folder), "--out", str(out), "--force")
    assert list(rows(out / "changes.csv")) == []  # regraded, nothing moved
    summary = (out / "summary.html").read_text(encoding="utf-8")
    assert "No score or check changed" in summary and "--force, 4" in summary
    grade(str(folder), "--out", str(out))  # every result up to date
    assert not (out / "changes.csv").exists()
    assert "What this regrade changed" not in (out / "summary.html").read_text(encoding="utf-8")


def test_a_changed_file_is_the_reason_given(tmp_path, session):
    folder = make_class(tmp_path / "class", {"ana.py": "correct/matmul.py", "ben.py": "correct/einsum.py"})
    out = tmp_path / "out"
    batch.grade_all(batch.discover([folder]).entries, session, out=out)
    shutil.copyfile(SUBMISSIONS / "buggy" / "flatten-order.py", folder / "ben.py")
    outcomes = batch.grade_all(batch.discover([folder]).entries, session, out=out)
    regraded = regrade.batch_changes(outcomes)
    assert [(c.student, c.reasons, c.score_changed) for c in regraded] == [("ben", ("file changed",), True)]


def test_grader_diff_names_students_in_one_folder_only_and_refuses_other_folders(tmp_path, session, capsys):
    old = tmp_path / "old"
    batch.grade_all(batch.discover([make_class(tmp_path / "a", {"ana.py": "correct/matmul.py"})]).entries,
                    session, out=old)
    new = tmp_path / "new"
    batch.grade_all(batch.discover([make_class(tmp_path / "b", {"ana.py": "correct/matmul.py",
                                                                "bob.py": "correct/einsum.py"})]).entries,
                    session, out=new)
    assert cli.main(["diff", str(old), str(new)]) == 1
    assert "bob: absent -> " in capsys.readouterr().out
    assert cli.main(["diff", str(old), str(tmp_path / "a")]) == 2  # a class folder, not an output folder
    assert "not an output folder" in capsys.readouterr().err


def test_stale_reasons_name_each_input():
    key = {"exercise_version": "1+aaaaaaaaaaaaaaaa", "grader": "g1", "submission_sha256": "s1",
           "secret_sha256": "k1", "full_scale": True}
    assert regrade.stale_reasons(key, dict(key), forced=True) == ("--force",)
    assert regrade.stale_reasons(None, key) == (regrade.UNKNOWN,)
    changed = {**key, "exercise_version": "2+bbbbbbbbbbbbbbbb", "grader": "g2", "submission_sha256": "s2",
               "secret_sha256": "k2", "full_scale": False}
    assert regrade.stale_reasons(key, changed) == (
        "exercise version (1+aaaaaaaa -> 2+bbbbbbbb)", "grader version", "file changed", "secret changed",
        "full-scale setting changed")


def test_hostile_ids_and_messages_stay_text_in_changes():
    def result(student, score, status):
        return GradeResult("vgg_classifier", "x.py", student, "graded", score, 2.0,
                           checks=(CheckResult("values-batch", "Values", status, score, 2.0, "<b>\x1b[2J"),))

    student = '=HYPERLINK("http://evil")\x1b[2J\u202e'
    found = regrade.change(result(student, 2.0, "passed"), result(student, 0.0, "failed"), ("file changed",))
    table = list(csv.reader(io.StringIO(regrade.render_csv([found]))))
    assert table[1][0].startswith("'=HYPERLINK") and all(cell.isprintable() for cell in table[1])
    assert all("\x1b" not in line for line in regrade.diff_lines([found], Path("a"), Path("b")))
