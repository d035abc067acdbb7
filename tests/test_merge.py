"""Many machines: `grader grade DIR --shard I/N` grades a stable slice, `grader merge` writes the class files of the
union, identical to one run; every result.json and manifest is signed with the course secret, and merge refuses
what it cannot trust, each time with a sentence (a hand-edited result above all)."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from conftest import ROOT
from grader import cli, merge, signing
from grader.classfolder import Entry, Plan

from test_batch import make_class

SECRET = "merge-test-secret"
CLASS = {
    "ana.py": "correct/matmul.py",
    "ben.py": "buggy/missing-bias.py",
    "cam.py": "buggy/flatten-order.py",
    "dee.ipynb": "notebooks/not-json.ipynb",
    "eli.py": "buggy/raises-error.py",
    "fay.py": "correct/matmul.py",
    "gus.py": "buggy/relu-after-fc3.py",
}
BASE = ["--exercise", "vgg_classifier", "--no-full-scale", "--jobs", "2", "-q"]


def grade(*args: str) -> int:
    return cli.main(["grade", *args, *BASE])


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The class graded once whole and once as three shards (same machine, same secret)."""
    root = tmp_path_factory.mktemp("merge")
    folder = make_class(root / "class", CLASS)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GRADER_SECRET", SECRET)
        assert grade(str(folder), "--out", str(root / "one"), "--gradebook-format", "canvas") == 0
        for i in (1, 2, 3):
            assert grade(str(folder), "--out", str(root / f"s{i}"), "--shard", f"{i}/3") == 0
    return root


def merge_cli(*args: str, secret: str | None = SECRET, monkeypatch=None) -> int:
    if secret is None:
        monkeypatch.delenv("GRADER_SECRET", raising=False)
        return cli.main(["merge", *args])
    return cli.main(["merge", *args, "--secret", secret])


def shards(root: Path) -> list[str]:
    return [str(root / f"s{i}") for i in (1, 2, 3)]


def no_times(text: str) -> str:
    return re.sub(r' time="[^"]*"', "", text)


def test_shards_are_stable_slices_that_cover_the_class(runs):
    graded = [sorted(p.name for p in (runs / f"s{i}" / "students").iterdir()) for i in (1, 2, 3)]
    assert sorted(sum(graded, [])) == sorted(Path(n).stem for n in CLASS)  # each student once
    for i, names in enumerate(graded, start=1):
        assert all(merge.shard_of(n, 3) == i for n in names)
    assert merge.shard_of("ana", 3) == merge.shard_of("ana", 3) and merge.parse_shard("2/4") == (2, 4)
    for bad in ("0/3", "4/3", "x", "1/0", "3"):
        with pytest.raises(Exception, match="--shard takes I/N"):
            merge.parse_shard(bad)


def test_merge_writes_what_one_run_writes(runs, capsys):
    out = runs / "merged"
    assert merge_cli(*shards(runs), "--out", str(out), "--gradebook-format", "canvas") == 0
    one = runs / "one"
    assert (out / "gradebook.csv").read_text() == (one / "gradebook.csv").read_text()
    assert (out / "summary.html").read_text() == (one / "summary.html").read_text()
    assert no_times((out / "junit.xml").read_text()) == no_times((one / "junit.xml").read_text())
    assert (out / "canvas.csv").read_text() == (one / "canvas.csv").read_text()
    for name in merge.SIMILARITY_FILES:  # each shard compared the whole class, as one run does
        same = re.sub(r"Compared in [\d.]+ s", "", (out / name).read_text())
        assert same == re.sub(r"Compared in [\d.]+ s", "", (one / name).read_text())
    assert sorted(p.name for p in (out / "students").iterdir()) == sorted(p.name for p in (one / "students").iterdir())
    for folder in (out / "students").iterdir():
        merged = json.loads((folder / "result.json").read_text())
        single = json.loads((one / "students" / folder.name / "result.json").read_text())
        assert {k: v for k, v in merged.items() if k not in ("timing", "signature")} == \
               {k: v for k, v in single.items() if k not in ("timing", "signature")}
        assert (folder / "report.md").is_file() and (folder / "report.html").is_file()
    manifest = json.loads((out / merge.MANIFEST).read_text())
    assert manifest["complete"] and manifest["shard"] == {"index": 1, "count": 1}
    assert signing.verify(manifest, SECRET).ok
    assert "Merged 7 students from 3 output folders" in capsys.readouterr().err
    # a merged folder is a run's output: it merges (and exports) again
    assert merge_cli(str(out), "--out", str(runs / "again")) == 0


def test_every_result_json_is_signed(runs):
    for path in (runs / "one").glob("students/*/result.json"):
        document = json.loads(path.read_text())
        verdict = signing.verify(document, SECRET)
        assert verdict.ok and verdict.run["exercise"] == "vgg_classifier" and verdict.run["full_scale"] is False
        assert document["schema"] == "grader.result/1"  # the contract, plus its signature
        assert not signing.verify(document, "another secret").ok


def _copy(runs: Path, tmp_path: Path) -> Path:
    target = tmp_path / "copy"
    for i in (1, 2, 3):
        shutil.copytree(runs / f"s{i}", target / f"s{i}")
    return target


def _refused(capsys, *args, **kwargs) -> str:
    code = merge_cli(*args, **kwargs)
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err
    return err


def _a_result(root: Path) -> Path:
    """A result below full marks (so that raising its score changes it)."""
    return next(p for p in sorted(root.glob("s*/students/*/result.json"))
                if json.loads(p.read_text())["score"] < json.loads(p.read_text())["max_score"])


def test_a_raised_score_is_refused_with_a_sentence(runs, tmp_path, capsys):
    root = _copy(runs, tmp_path)
    path = _a_result(root)
    document = json.loads(path.read_text())
    document["score"] = document["max_score"]
    document["checks"] = [{**c, "status": "passed", "points": c["max_points"]} for c in document["checks"]]
    path.write_text(json.dumps(document, indent=2))
    err = _refused(capsys, *shards(root), "--out", str(tmp_path / "m"))
    assert f"{path.parent.name}/result.json does not match its signature" in err
    assert "changed after grading" in err
    assert not (tmp_path / "m" / "gradebook.csv").exists()


def test_a_forged_student_is_refused(runs, tmp_path, capsys):
    root = _copy(runs, tmp_path)
    path = _a_result(root)
    document = json.loads(path.read_text())
    document["student"] = "mallory"
    path.write_text(json.dumps(document, indent=2))
    assert "does not match its signature" in _refused(capsys, *shards(root), "--out", str(tmp_path / "m"))


def test_a_result_swapped_for_another_students_signed_one_is_refused(runs, tmp_path, capsys):
    root = _copy(runs, tmp_path)
    shard = next(s for s in sorted(root.glob("s*")) if len(list(s.glob("students/*/result.json"))) > 1)
    first, second = sorted(shard.glob("students/*/result.json"))[:2]
    shutil.copy(second, first)
    err = _refused(capsys, *shards(root), "--out", str(tmp_path / "m"))
    assert "is not the result this shard's manifest lists" in err


def test_a_hand_edited_manifest_is_refused(runs, tmp_path, capsys):
    root = _copy(runs, tmp_path)
    manifest = json.loads((root / "s2" / merge.MANIFEST).read_text())
    manifest["complete"] = True
    manifest["graded"] = manifest["graded"][:-1] if manifest["graded"] else manifest["graded"]
    manifest["notes"] = ["all fine"]
    (root / "s2" / merge.MANIFEST).write_text(json.dumps(manifest))
    assert "manifest.json does not match its signature" in _refused(capsys, *shards(root), "--out",
                                                                     str(tmp_path / "m"))


def test_unsigned_and_other_secret_are_refused(runs, tmp_path, capsys, monkeypatch):
    root = _copy(runs, tmp_path)
    assert "signed with another course secret" in _refused(capsys, *shards(root), "--out", str(tmp_path / "m"),
                                                           secret="not the course secret")
    err = _refused(capsys, *shards(root), "--out", str(tmp_path / "m"), secret=None, monkeypatch=monkeypatch)
    assert "No course secret is set" in err and "another course secret" in err
    path = _a_result(root)
    document = json.loads(path.read_text())
    del document["signature"]
    path.write_text(json.dumps(document, indent=2))
    assert "carries no signature" in _refused(capsys, *shards(root), "--out", str(tmp_path / "m"))


def test_duplicates_missing_and_interrupted_shards(runs, tmp_path, capsys):
    root = _copy(runs, tmp_path)
    assert "are the same shard" in _refused(capsys, *shards(root), shards(root)[0], "--out", str(tmp_path / "m"))
    shutil.copytree(root / "s2", root / "s2-again")
    assert "are the same shard" in _refused(capsys, *shards(root), str(root / "s2-again"), "--out",
                                            str(tmp_path / "m"))
    # a shard killed before its end has no manifest
    (root / "s3" / merge.MANIFEST).unlink()
    err = _refused(capsys, *shards(root), "--out", str(tmp_path / "m"))
    assert "has no manifest.json" in err and "interrupted" in err
    # without it: incomplete, merged only when asked, and said
    err = _refused(capsys, *shards(root)[:2], "--out", str(tmp_path / "m"))
    assert "shard 3/3 is missing" in err and "--allow-incomplete" in err
    assert merge_cli(*shards(root)[:2], "--out", str(tmp_path / "m"), "--allow-incomplete") == 0
    assert "INCOMPLETE" in capsys.readouterr().err
    summary = (tmp_path / "m" / "summary.html").read_text()
    assert "Incomplete." in summary
    rows = (tmp_path / "m" / "gradebook.csv").read_text()
    assert ",pending," in rows
    assert not json.loads((tmp_path / "m" / merge.MANIFEST).read_text())["complete"]


def test_a_stopped_shard_is_flagged(runs, tmp_path, capsys):
    """A shard stopped by Ctrl-C writes its manifest with complete: false (signed): merged only when asked."""
    root = _copy(runs, tmp_path)
    manifest = json.loads((root / "s1" / merge.MANIFEST).read_text())
    stopped = signing.sign({**signing.unsigned(manifest), "complete": False}, SECRET,
                           manifest["signature"]["run"])
    (root / "s1" / merge.MANIFEST).write_text(json.dumps(stopped))
    err = _refused(capsys, *shards(root), "--out", str(tmp_path / "m"))
    assert "was stopped before it finished" in err
    assert merge_cli(*shards(root), "--out", str(tmp_path / "m"), "--allow-incomplete") == 0


def test_another_exercise_version_is_refused(runs, tmp_path, capsys, monkeypatch):
    """Shard 3 graded again after the exercise changed (its version bumped): not the same grading."""
    root = _copy(runs, tmp_path)
    exercises = tmp_path / "exercises"
    shutil.copytree(ROOT / "exercises" / "vgg_classifier", exercises / "vgg_classifier",
                    ignore=shutil.ignore_patterns("__pycache__", "examples"))
    toml = exercises / "vgg_classifier" / "exercise.toml"
    text = toml.read_text()
    bumped = int(re.search(r'^version = "(\d+)"', text, re.M).group(1)) + 1
    toml.write_text(re.sub(r'^version = "\d+"', f'version = "{bumped}"', text, count=1, flags=re.M))
    monkeypatch.setenv("GRADER_SECRET", SECRET)
    assert cli.main(["grade", str(runs / "class"), "--out", str(root / "s3"), "--shard", "3/3", "--exercise",
                     "vgg_classifier", "--exercises-dir", str(exercises), "--solutions-dir", str(ROOT / "solutions"),
                     "--no-full-scale", "-q"]) == 0
    err = _refused(capsys, *shards(root), "--out", str(tmp_path / "m"))
    assert "were graded with other settings" in err and f"exercise version {bumped}+" in err


def test_another_full_scale_setting_is_refused(runs, tmp_path, capsys):
    root = _copy(runs, tmp_path)
    manifest = json.loads((root / "s3" / merge.MANIFEST).read_text())
    other = {**manifest["signature"]["run"], "full_scale": True}
    (root / "s3" / merge.MANIFEST).write_text(json.dumps(signing.sign(signing.unsigned(manifest), SECRET, other)))
    err = _refused(capsys, *shards(root), "--out", str(tmp_path / "m"))
    assert "graded with other settings" in err and "full-scale setting" in err


def test_a_rerun_regrades_a_hand_edited_result_instead_of_reusing_it(runs, tmp_path, monkeypatch):
    root = _copy(runs, tmp_path)
    path = _a_result(root)
    original = json.loads(path.read_text())
    document = dict(original, score=original["max_score"])
    path.write_text(json.dumps(document, indent=2))
    monkeypatch.setenv("GRADER_SECRET", SECRET)
    shard = path.parent.parent.parent  # copy/sI/students/<folder>/result.json
    assert grade(str(runs / "class"), "--out", str(shard), "--shard", f"{shard.name[1:]}/3") == 0
    again = json.loads(path.read_text())
    assert again["score"] == original["score"] and signing.verify(again, SECRET).ok


def test_signatures_unit():
    signed = signing.sign({"a": 1, "b": "é"}, "k", {"x": 1})
    assert signing.verify(signed, "k").ok and signing.verify(signed, "k").run == {"x": 1}
    assert signing.verify({**signed, "a": 2}, "k").problem == "changed"
    assert signing.verify({**signed, "signature": {**signed["signature"], "run": {"x": 2}}}, "k").problem == "changed"
    assert signing.verify(signed, "other").problem == "other-secret"
    assert signing.verify({"a": 1}, "k").problem == "unsigned"
    assert signing.verify({**signed, "signature": "x"}, "k").problem == "malformed"


def test_select_keeps_the_class_wide_ids_and_folders():
    plan = Plan(tuple(Entry(Path(f"{n}.py"), n) for n in ("a", "b", "c", "d", "e")), notes=("n",))
    parts = [merge.select(plan, i, 2) for i in (1, 2)]
    assert sorted(e.student for p in parts for e in p.entries) == ["a", "b", "c", "d", "e"]
    assert all(p.notes == ("n",) for p in parts)


def test_a_link_where_a_students_folder_goes_is_replaced_not_written_through(runs, tmp_path):
    """A merge into an OUT whose ``students/<student>`` is a symbolic link wrote that student's files into the link's
    target, outside OUT, and opened the target to every reader (mode 0755); the link is now replaced by a folder."""
    out = tmp_path / "merged"
    student = sorted(p.name for p in (runs / "one" / "students").iterdir())[0]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    (out / "students").mkdir(parents=True)
    (out / "students" / student).symlink_to(elsewhere)
    assert merge_cli(*shards(runs), "--out", str(out)) == 0
    folder = out / "students" / student
    assert not folder.is_symlink() and (folder / "result.json").is_file()
    assert list(elsewhere.iterdir()) == [] and elsewhere.stat().st_mode & 0o777 == 0o700
