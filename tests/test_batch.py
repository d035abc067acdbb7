"""Batch grading: layouts, duplicates, error rows, parallel workers, resume and interruption."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from grader import batch, classfolder, cli, grade
from grader.batch import Entry

from conftest import SUBMISSIONS

ROOT = Path(__file__).resolve().parent.parent
GRADER = [sys.executable, "-m", "grader"]

#: Deterministic submissions: correct, buggy, broken in three ways.
CLASS = {
    "ana.py": "correct/matmul.py",
    "ben.py": "correct/einsum.py",
    "cam.py": "buggy/missing-bias.py",
    "dee.py": "buggy/flatten-order.py",
    "eli.py": "buggy/raises-error.py",
    "fay.ipynb": "notebooks/syntax-error.ipynb",
    "gus.ipynb": "notebooks/not-json.ipynb",
}


def make_class(folder: Path, files: dict[str, str] = CLASS) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, source in files.items():
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(SUBMISSIONS / source, target)
    return folder


def comparable(doc: dict) -> dict:
    """A result document without what legitimately differs between two runs (the times, so the signature too)."""
    return {k: v for k, v in doc.items() if k not in ("timing", "signature")}


def out_docs(out: Path) -> dict[str, dict]:
    return {p.parent.name: comparable(json.loads(p.read_text()))
            for p in sorted(out.glob("students/*/result.json"))}


# -- layouts ----------------------------------------------------------------------------------------------------
def test_flat_folder_ignores_hidden_checkpoints_and_notes_unsupported(tmp_path):
    folder = make_class(tmp_path / "class", {"ana.py": "correct/matmul.py", "ben.ipynb": "notebooks/correct-jupyter.ipynb"})
    (folder / ".hidden.py").write_text("x = 1\n")
    (folder / ".ipynb_checkpoints").mkdir()
    (folder / ".ipynb_checkpoints" / "ben-checkpoint.ipynb").write_text("{}")
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "ana.cpython-311.pyc").write_bytes(b"\0")
    (folder / "notes.txt").write_text("not a submission")
    plan = batch.discover([folder])
    assert [(e.student, e.path.name) for e in plan.entries] == [("ana", "ana.py"), ("ben", "ben.ipynb")]
    assert all(e.problem is None for e in plan.entries)
    left = {Path(p).name: why for p, why in plan.left_out}  # every entry left out, with why
    assert left == {".hidden.py": classfolder.HIDDEN, ".ipynb_checkpoints": classfolder.HIDDEN,
                    "__pycache__": classfolder.HIDDEN, "notes.txt": classfolder.NOT_A_SUBMISSION}
    assert any("notes.txt" in n for n in plan.notes) and any(".hidden.py" in n for n in plan.notes)
    assert not plan.single_file


def test_one_folder_per_student(tmp_path):
    folder = make_class(tmp_path / "class", {"alice/solution.py": "correct/matmul.py",
                                             "bob/work/vgg.ipynb": "notebooks/correct-jupyter.ipynb",
                                             "bob/.ipynb_checkpoints/vgg-checkpoint.ipynb": "notebooks/empty.ipynb"})
    (folder / "carol").mkdir()
    (folder / "carol" / "readme.md").write_text("forgot to upload")
    plan = batch.discover([folder])
    by_student = {e.student: e for e in plan.entries}
    assert by_student["alice"].path.name == "solution.py" and by_student["alice"].problem is None
    assert by_student["bob"].path.name == "vgg.ipynb" and by_student["bob"].problem is None
    assert by_student["carol"].problem[0] == "no-submission"  # a student folder with nothing gradable: a row
    assert any("readme.md" in n for n in plan.notes)


@pytest.mark.parametrize("given", ["course", "course/submitted"])
def test_nbgrader_layout(tmp_path, given):
    make_class(tmp_path / "course" / "submitted", {"s001/ps1/vgg.ipynb": "notebooks/correct-jupyter.ipynb",
                                                   "s002/ps1/vgg.ipynb": "notebooks/buggy-softmax.ipynb"})
    (tmp_path / "course" / "submitted" / "s001" / "ps1" / "timestamp.txt").write_text("2026-01-01")
    plan = batch.discover([tmp_path / given])
    assert [e.student for e in plan.entries] == ["s001", "s002"]
    assert all(e.path.name == "vgg.ipynb" and e.problem is None for e in plan.entries)


def test_two_files_for_one_student_are_reported_not_merged(tmp_path, session):
    folder = make_class(tmp_path / "class", {"ana.py": "correct/matmul.py",
                                             "ana.ipynb": "notebooks/correct-jupyter.ipynb",
                                             "ben.py": "correct/einsum.py"})
    other = make_class(tmp_path / "late", {"ben.py": "buggy/missing-bias.py"})
    plan = batch.discover([folder, other])
    assert [e.student for e in plan.entries] == ["ana", "ben"]
    results = [o.result for o in batch.grade_all(plan.entries, session, jobs=2)]
    for result, names in zip(results, (("ana.py", "ana.ipynb"), ("class/ben.py", "late/ben.py"))):
        assert result.status == "error" and result.error.kind == "duplicate-student"
        assert result.score == 0 and all(n in result.error.message for n in names)


def test_explicit_unsupported_file_is_an_error_result(tmp_path, capsys):
    path = tmp_path / "ana.txt"
    path.write_text("print('hi')")
    assert cli.main(["grade", str(path), "--exercise", "vgg_classifier", "--no-full-scale", "--json", "-q"]) == 0
    doc = json.loads(capsys.readouterr().out)  # exactly one document for one file
    assert doc["status"] == "error" and doc["error"]["kind"] == "unsupported-file-type"


# -- nothing lost -----------------------------------------------------------------------------------------------
def test_error_rows_for_broken_files_while_others_grade(tmp_path, session):
    plan = batch.discover([make_class(tmp_path / "class")])
    results = {o.result.student: o.result for o in batch.grade_all(plan.entries, session, jobs=2)}
    assert sorted(results) == ["ana", "ben", "cam", "dee", "eli", "fay", "gus"]
    assert results["ana"].passed_all and results["ben"].passed_all
    assert results["cam"].status == "graded" and results["cam"].score < results["cam"].max_score
    assert results["fay"].error.kind == "syntax-error"
    assert results["gus"].error.kind == "not-json"


def test_an_exception_in_the_grader_becomes_an_internal_error_row(tmp_path, session, monkeypatch):
    plan = batch.discover([make_class(tmp_path / "class", {"ana.py": "correct/matmul.py",
                                                          "ben.py": "correct/einsum.py"})])
    real = grade.grade_file

    def flaky(path, session, student=None, **kwargs):
        if student == "ana":
            raise RuntimeError("boom")
        return real(path, session, student, **kwargs)

    monkeypatch.setattr(grade, "grade_file", flaky)
    results = [o.result for o in batch.grade_all(plan.entries, session, jobs=2, out=tmp_path / "out")]
    assert results[0].status == "error" and results[0].error.kind == "internal" and "boom" in results[0].error.message
    assert results[1].passed_all
    assert (tmp_path / "out" / "students" / "ana" / "result.json").is_file()


def test_jobs_two_gives_the_same_results_as_jobs_one(tmp_path, session):
    plan = batch.discover([make_class(tmp_path / "class")])
    one = [comparable(o.result.to_dict()) for o in batch.grade_all(plan.entries, session, jobs=1)]
    two = [comparable(o.result.to_dict()) for o in batch.grade_all(plan.entries, session, jobs=2)]
    assert one == two


# -- resume -----------------------------------------------------------------------------------------------------
def test_resume_skips_up_to_date_results_and_regrades_changed_files(tmp_path, session):
    folder = make_class(tmp_path / "class")
    out = tmp_path / "out"
    first = batch.grade_all(batch.discover([folder]).entries, session, jobs=2, out=out)
    assert not any(o.reused for o in first)
    shutil.copyfile(SUBMISSIONS / "buggy" / "missing-relu.py", folder / "ben.py")  # ben resubmits
    second = batch.grade_all(batch.discover([folder]).entries, session, jobs=2, out=out)
    reused = {o.result.student: o.reused for o in second}
    # the unreadable notebook has no stored hash to trust and are regraded (it costs nothing)
    assert reused == {"ana": True, "ben": False, "cam": True, "dee": True, "eli": True, "fay": True, "gus": False}
    ben = json.loads((out / "students" / "ben" / "result.json").read_text())
    assert "missing-relu" in {d["id"] for d in ben["diagnoses"]}
    forced = batch.grade_all(batch.discover([folder]).entries, session, jobs=2, out=out, force=True)
    assert not any(o.reused for o in forced)


def test_a_different_secret_or_full_scale_setting_regrades(tmp_path, session, exercise):
    from grader.grade import Session

    folder = make_class(tmp_path / "class", {"ana.py": "correct/matmul.py"})
    out = tmp_path / "out"
    batch.grade_all(batch.discover([folder]).entries, session, out=out)
    assert batch.grade_all(batch.discover([folder]).entries, session, out=out)[0].reused
    with Session(exercise, full_scale=False, secret="another course", sandbox=session.sandbox) as other:
        assert not batch.grade_all(batch.discover([folder]).entries, other, out=out)[0].reused


def test_deleted_results_are_regraded_identically(tmp_path, session):
    folder = make_class(tmp_path / "class")
    out = tmp_path / "out"
    batch.grade_all(batch.discover([folder]).entries, session, jobs=2, out=out)
    complete = out_docs(out)
    (out / "students" / "cam" / "result.json").unlink()  # as if the batch had stopped before these were written
    shutil.rmtree(out / "students" / "eli")
    again = batch.grade_all(batch.discover([folder]).entries, session, jobs=2, out=out)
    assert {o.result.student for o in again if not o.reused} >= {"cam", "eli"}
    assert out_docs(out) == complete


def _slow_correct() -> str:
    source = (SUBMISSIONS / "correct" / "matmul.py").read_text()
    return "import time\ntime.sleep(3)\n" + source


def test_sigkill_mid_batch_then_rerun_matches_an_uninterrupted_run(tmp_path):
    folder = make_class(tmp_path / "class", {k: v for k, v in CLASS.items() if k != "fay.ipynb"})
    fast_zed = (SUBMISSIONS / "correct" / "matmul.py").read_text()
    (folder / "zed.py").write_text(fast_zed)
    command = GRADER + ["grade", str(folder), "--exercise", "vgg_classifier", "--no-full-scale", "--jobs", "1", "-q"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    reference = tmp_path / "reference"
    subprocess.run(command + ["--out", str(reference)], check=True, env=env, capture_output=True, timeout=120)

    # zed is slow only in the run that is killed (the reference and the rerun need no wait): graded last with
    # --jobs 1, it cannot end before the kill lands
    (folder / "zed.py").write_text(_slow_correct())
    out = tmp_path / "out"
    process = subprocess.Popen(command + ["--out", str(out)], env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 60
    while not (out / "students" / "ana" / "result.json").exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=10)
    written = set(p.parent.name for p in out.glob("students/*/result.json"))
    assert "ana" in written and "zed" not in written
    for doc in map(lambda p: json.loads(p.read_text()), out.glob("students/*/result.json")):
        assert doc["schema"] == "grader.result/1"  # everything on disk is whole

    (folder / "zed.py").write_text(fast_zed)
    subprocess.run(command + ["--out", str(out)], check=True, env=env, capture_output=True, timeout=120)
    assert out_docs(out) == out_docs(reference)
    assert (out / "gradebook.csv").read_text() == (reference / "gradebook.csv").read_text()


def test_entries_with_a_problem_are_not_graded(session, tmp_path):
    entry = Entry(tmp_path / "x.py", "x", ("duplicate-student", "two files"))
    result = batch.grade_entry(entry, session)
    assert result.status == "error" and result.error.message == "two files"


def test_the_same_file_given_twice_is_one_submission(tmp_path):
    folder = make_class(tmp_path / "class", {"ana.py": "correct/matmul.py"})
    plan = batch.discover([folder, folder / "ana.py", tmp_path / "class" / "." / "ana.py"])
    assert [(e.student, e.problem) for e in plan.entries] == [("ana", None)]
