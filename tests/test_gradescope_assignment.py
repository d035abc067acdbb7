"""The Gradescope bundle of an assignment: `grader gradescope --assignment NAME` (or `--exercise a,b`) ships every
exercise of it with the course file and records the assignment in bundle.json; its run grades every exercise from
the one submission into results.json, a test per check named by exercise. Run as Gradescope would, with
AUTOGRADER_ROOT pointing at a folder of our own (tests/test_gradescope.py does the same for one exercise)."""
from __future__ import annotations

import json
import shutil
import stat
import zipfile
from pathlib import Path

import pytest

from conftest import ROOT
from grader import assignment as assignment_mod
from grader import cli, gradescope
from test_gradescope import ROOT_ONLY, SECRET, _run, _unpack

NAME = "fc-layers"
IDS = ("linear", "to_channels_last", "dense_scores", "gap_head")
CLASS = ROOT / "exercises" / "course_examples" / NAME
SOLUTIONS = ROOT / "solutions"


def _build(tmp_path_factory, *argv) -> Path:
    out = tmp_path_factory.mktemp("bundle")
    code = cli.main(["gradescope", *argv, "--out", str(out), "--secret", SECRET, "--no-full-scale"])
    assert code == 0
    return out / "autograder.zip"


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    return _build(tmp_path_factory, "--assignment", NAME)


def _exercise_folders(names: set[str]) -> set[str]:
    return {n.split("/")[2] for n in names if n.startswith("grader-src/exercises/") and n.count("/") > 2}


def test_the_zip_holds_every_exercise_of_the_assignment_and_the_course_file(bundle):
    with zipfile.ZipFile(bundle) as archive:
        names = set(archive.namelist())
        modes = {i.filename: (i.external_attr >> 16) & 0o777 for i in archive.infolist()}
        config = json.loads(archive.read("bundle.json"))
        course = archive.read("grader-src/exercises/course.toml")
        for exercise_id in IDS:
            assert f"grader-src/exercises/{exercise_id}/exercise.toml" in names
            assert modes[f"solutions/{exercise_id}.py"] == 0o600
            assert archive.read(f"solutions/{exercise_id}.py") == (SOLUTIONS / f"{exercise_id}.py").read_bytes()
        assert {"setup.sh", "run_autograder", "secret"} <= names
        assert not [n for n in names if n.startswith("grader-src/") and "/solutions" in n]
        assert not [n for n in names if "__pycache__" in n or "/examples/" in n]
    assert _exercise_folders(names) == set(IDS)  # the assignment's exercises, no other
    assert course == (ROOT / "exercises" / "course.toml").read_bytes()
    assert "exercise" not in config
    assert config["assignment"] == {"name": NAME, "title": assignment_mod.read_course()[NAME].title,
                                    "exercises": list(IDS), "weights": {i: 1.0 for i in IDS}}
    assert config["full_scale"] is False and config["secret"] is True
    assert stat.S_IMODE(bundle.stat().st_mode) == 0o600


def test_exercise_ids_bundle_those_exercises_ad_hoc(tmp_path_factory):
    zipped = _build(tmp_path_factory, "--exercise", "linear,gap_head")
    with zipfile.ZipFile(zipped) as archive:
        names = set(archive.namelist())
        config = json.loads(archive.read("bundle.json"))
    assert _exercise_folders(names) == {"linear", "gap_head"}
    assert {n for n in names if n.startswith("solutions/")} == {"solutions/linear.py", "solutions/gap_head.py"}
    assert config["assignment"]["name"] == "linear+gap_head"
    assert config["assignment"]["weights"] == {"linear": 1.0, "gap_head": 1.0}


def test_a_single_exercise_bundle_stays_as_it_was(tmp_path_factory):
    zipped = _build(tmp_path_factory, "--exercise", "linear")
    with zipfile.ZipFile(zipped) as archive:
        names = set(archive.namelist())
        config = json.loads(archive.read("bundle.json"))
    assert _exercise_folders(names) == {"linear"} and "grader-src/exercises/course.toml" not in names
    assert config["exercise"] == "linear" and "assignment" not in config


@pytest.mark.parametrize("argv,needle", [
    (["--assignment", "nope"], "There is no assignment 'nope' in the course file"),
    (["--assignment", NAME, "--exercise", "linear"], "leave out --exercise"),
    (["--exercise", "linear,linear"], "names an exercise twice"),
])
def test_what_cannot_be_bundled_is_a_usage_error(tmp_path, capsys, argv, needle):
    code = cli.main(["gradescope", *argv, "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2 and needle in err and "Traceback" not in err, err
    assert not (tmp_path / "out" / "autograder.zip").exists()


def test_submission_discovery_for_an_assignment(tmp_path):
    fc = assignment_mod.load_assignment(assignment_mod.read_course()[NAME])
    folder = tmp_path / "submission"
    folder.mkdir()
    path, why = gradescope.find_submission(folder, fc)
    assert path is None and f"{NAME}.ipynb" in why
    (folder / "helpers.py").write_text("x = 1\n")
    (folder / f"{NAME}.ipynb").write_text("{}")
    assert gradescope.find_submission(folder, fc) == (folder / f"{NAME}.ipynb", "")
    (folder / f"{NAME}.ipynb").unlink()
    (folder / "linear.py").write_text("x = 1\n")  # named after one of its exercises: that file
    assert gradescope.find_submission(folder, fc) == (folder / "linear.py", "")
    (folder / "gap_head.py").write_text("x = 1\n")
    path, why = gradescope.find_submission(folder, fc)
    assert path is None and "one file with every function" in why


def test_a_bundle_that_names_an_exercise_it_lacks_says_it_is_misconfigured(tmp_path, bundle):
    root = tmp_path / "ag"
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(root / "source")
    config = json.loads((root / "source" / "bundle.json").read_text())
    config["assignment"]["exercises"].append("nope")
    config["assignment"]["weights"]["nope"] = 1.0
    (root / "source" / "bundle.json").write_text(json.dumps(config))
    (root / "submission").mkdir()
    code = cli.main(["gradescope-run", "--bundle", str(root / "source"), "--root", str(root)])
    results = json.loads((root / "results" / "results.json").read_text())
    assert code == 2 and results["score"] == 0 and "misconfigured" in results["output"] and "nope" in results["output"]


def _grade(bundle: Path, files: dict[str, Path]) -> dict:
    root = _unpack(bundle)
    try:
        for name, source in files.items():
            shutil.copy(source, root / "submission" / name)
        proc = _run(root)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        return json.loads((root / "results" / "results.json").read_text())
    finally:
        shutil.rmtree(root, ignore_errors=True)


@ROOT_ONLY
def test_run_autograder_grades_every_exercise_named_by_exercise(bundle):
    results = _grade(bundle, {"chen.ipynb": CLASS / "chen.ipynb"})
    tests = results["tests"]
    assert results["score"] == sum(t["score"] for t in tests) == 66  # chen sums in gap_head: its four logits checks fail, its class map is right
    assert sum(t["max_score"] for t in tests) == 70
    assert {t["name"].split(":")[0] for t in tests} == set(IDS)
    assert all(t["number"].startswith(t["name"].split(":")[0] + ".") for t in tests)
    failed = [t for t in tests if t["status"] != "passed"]
    assert failed and {t["name"].split(":")[0] for t in failed} == {"gap_head"}
    assert any("sum-pooling" in t["output"] for t in failed)
    sections = results["extra_data"]["sections"]
    assert [s["exercise"] for s in sections] == list(IDS)
    assert [s["score"] for s in sections] == [20, 14, 18, 14]
    assert "unprivileged user" in results["output"] and results["stdout_visibility"] == "hidden"


@ROOT_ONLY
def test_a_missing_function_costs_only_its_exercise_on_gradescope(bundle):
    results = _grade(bundle, {"dara.ipynb": CLASS / "dara.ipynb", "notes.py": SOLUTIONS / "linear.py"})
    # two gradable files: the one named after the assignment is not there, so the refusal says how to name it
    assert results["score"] == 0 and f"{NAME}.ipynb" in results["output"]
    results = _grade(bundle, {f"{NAME}.ipynb": CLASS / "dara.ipynb", "notes.py": SOLUTIONS / "linear.py"})
    parts = {s["exercise"]: s for s in results["extra_data"]["sections"]}
    assert parts["to_channels_last"]["status"] == "error"
    assert parts["to_channels_last"]["error_kind"] == "missing-function"
    assert results["score"] == 56
    said = [t["output"] for t in results["tests"] if t["name"].startswith("to_channels_last:")]
    assert said and all("to_channel_last" in o for o in said)  # the near miss, on each of its tests


@ROOT_ONLY
def test_an_empty_submission_costs_every_exercise_and_is_said_once(bundle):
    results = _grade(bundle, {})
    assert results["score"] == 0 and results["extra_data"]["error_kind"] == "no-submission"
    assert [s["error_kind"] for s in results["extra_data"]["sections"]] == ["no-submission"] * len(IDS)
    assert results["output"].count("No .ipynb or .py file was found") == 1 and f"{NAME}.ipynb" in results["output"]
    assert {t["name"].split(":")[0] for t in results["tests"]} == set(IDS)
    assert sum(t["max_score"] for t in results["tests"]) == 70


@ROOT_ONLY
def test_the_weights_recorded_in_the_bundle_multiply_the_points(tmp_path_factory, tmp_path):
    exercises = tmp_path / "exercises"
    exercises.mkdir()
    for exercise_id in ("linear", "gap_head"):
        shutil.copytree(ROOT / "exercises" / exercise_id, exercises / exercise_id,
                        ignore=shutil.ignore_patterns("__pycache__", "examples"))
    (exercises / "course.toml").write_text('[assignment.w]\nexercises = { linear = 2, gap_head = 0.5 }\n')
    zipped = _build(tmp_path_factory, "--assignment", "w", "--exercises-dir", str(exercises),
                    "--solutions-dir", str(SOLUTIONS))
    with zipfile.ZipFile(zipped) as archive:
        assert json.loads(archive.read("bundle.json"))["assignment"]["weights"] == {"linear": 2.0, "gap_head": 0.5}
    submission = tmp_path / "w.py"
    submission.write_text((SOLUTIONS / "linear.py").read_text() + "\n\n" + (SOLUTIONS / "gap_head.py").read_text())
    results = _grade(zipped, {"w.py": submission})
    parts = {s["exercise"]: s for s in results["extra_data"]["sections"]}
    assert parts["linear"]["weight"] == 2.0 and parts["linear"]["score"] == 40 == parts["linear"]["max_score"]
    assert parts["gap_head"]["weight"] == 0.5 and parts["gap_head"]["score"] == 9
    assert results["score"] == 49 == sum(t["score"] for t in results["tests"])
