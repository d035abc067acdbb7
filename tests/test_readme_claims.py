"""The manuals state numbers and names a user relies on: they must be the ones the grader and the exercises use.

README.md is what an instructor reads before grading a class, and tests/submissions/README.md is how a developer
finds the submission that shows a mistake. Both drifted before (points, a file listing with holes, limits), so the
figures they state are read back here from the files that decide them.
"""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

from grader import submission

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
SUBMISSIONS = ROOT / "tests" / "submissions"


def _toml(*parts: str) -> dict:
    return tomllib.loads((ROOT.joinpath(*parts)).read_text(encoding="utf-8"))


def _checks(exercise: str) -> dict[str, float]:
    return {c["id"]: c["points"] for c in _toml("exercises", exercise, "exercise.toml")["check"]}


def _catalog(exercise: str) -> set[str]:
    return {m["id"] for m in _toml("exercises", exercise, "catalog.toml")["mistake"]}


def test_the_vgg_points_table_is_the_exercises_points():
    table = README.split("### Checks and points (VGG classifier head)", 1)[1].strip().split("\n\n", 1)[0]
    stated: dict[str, float] = {}
    for row in table.splitlines()[2:]:
        cell, points = row.strip("|").rsplit("|", 1)
        ids = re.findall(r"`([a-z-]+)`", cell.split(":", 1)[0])
        stated.update({i: float(points.split()[0]) for i in ids})
    assert stated == _checks("vgg_classifier")


def test_the_most_a_vgg_submission_can_score_is_stated_right():
    checks = _checks("vgg_classifier")
    full = sum(checks.values())
    small = full - checks["values-full-scale"]
    assert f"({full:g}, or {small:g} with `--no-full-scale`)" in README


def test_every_mistake_the_readme_names_for_the_fc_exercises_is_in_that_catalog():
    for exercise in ("linear", "dense_scores", "to_channels_last", "gap_head"):
        bullet = README.split(f"- `{exercise}(", 1)[1].split("\n- ", 1)[0].split("\n\n", 1)[0]
        named = set(re.findall(r"`([a-z0-9]+(?:-[a-z0-9]+)+)`", bullet.split("Named mistakes:", 1)[1]))
        assert named, exercise
        assert named <= _catalog(exercise), (exercise, named - _catalog(exercise))


def test_the_loading_limits_are_the_ones_the_loader_enforces():
    assert (f"up to\n  {submission.MAX_BYTES['.py'] >> 20} MiB for a `.py`, {submission.MAX_BYTES['.ipynb'] >> 20} MiB "
            f"for a notebook, {submission.MAX_CELLS:,} code cells") in README
    assert f"{submission.MAX_NOTEBOOK_CELLS:,} cells in all" in README
    assert f"{submission.MAX_JSON_VALUES:,} JSON values" in README
    assert (f"cells\n  of up to {submission.MAX_CHECKED_CELL >> 10} KiB, {submission.MAX_CHECKED_TOTAL >> 10} KiB "
            "in all") in README


def test_every_vgg_variant_submission_is_listed_in_the_submissions_readme():
    text = (SUBMISSIONS / "README.md").read_text(encoding="utf-8")
    listed: set[str] = set()
    for line in text.splitlines():
        first = ""
        for name in re.findall(r"`([\w.+-]+\.py)`", line):
            if name.startswith("--") and first:  # `--tanh.py` after `wrong-activation--sigmoid.py` in one row
                name = first.split("--", 1)[0] + name
            elif "--" in name:
                first = name
            listed.add(name)
    on_disk = {p.name for p in (SUBMISSIONS / "buggy" / "variants").glob("*.py")}
    assert on_disk - listed == set()


def test_the_variant_table_is_one_table():
    """A blank line inside a Markdown table ends it: the rows after it showed as plain text."""
    text = (SUBMISSIONS / "README.md").read_text(encoding="utf-8")
    section = text.split("### `buggy/variants/`", 1)[1].split("\n#", 1)[0]
    rows = [i for i, line in enumerate(section.splitlines()) if line.startswith("|")]
    assert rows == list(range(rows[0], rows[-1] + 1))


def test_determinism_is_assessed_on_two_shapes_when_a_case_repeats_its_twins_shapes():
    """README: `deterministic` calls the first two hidden cases again. linear's first two cases share their shapes
    (the second repeats the first's to catch an answer kept by shape), so a function that raised on that shape alone,
    like the example student emil's `bias[:, None]`, had its determinism never assessed and lost the point, though
    it returns arrays on other cases. The second repeat is now the first case of other shapes."""
    import json
    import subprocess
    import sys

    emil = ROOT / "exercises" / "linear" / "examples" / "emil.py"
    done = subprocess.run([sys.executable, "-m", "grader", "grade", str(emil), "--exercise", "linear", "--json"],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    result = json.loads(done.stdout)
    by_id = {c["id"]: c for c in result["checks"]}
    assert by_id["returns"]["status"] == "failed"  # still raises on the shape both first cases share
    assert by_id["deterministic"]["status"] == "passed", by_id["deterministic"]["message"]


def test_the_largest_weight_an_assignment_may_give_is_the_course_files():
    from grader import assignment

    assert f"a weight that is not a number above 0 and at most {assignment.MAX_WEIGHT:g}," in README


def test_the_output_folder_listing_names_every_lms_file():
    """The listing of OUT named canvas.csv and moodle.csv only, though --gradebook-format blackboard writes
    blackboard.xls there too (found by following the README by hand)."""
    from grader import lms

    listing = README.split("- **Output folder.**", 1)[1].split("```", 2)[1]
    line = next(row for row in listing.splitlines() if "--gradebook-format" in row)
    assert {f"OUT/{lms.filename(fmt)}" for fmt in lms.FORMATS} <= set(re.findall(r"OUT/[\w.]+", line))


def test_each_example_class_of_another_exercise_goes_to_a_folder_of_its_own():
    """`make grade EXERCISE=dense_scores ...` without OUT wrote into reports/, where `make grade` had put the VGG
    class: ben and dev were listed as regraded (19 -> 10, "exercise version"), the VGG students left beside them.
    Such a folder is now refused, so every command the README shows for another exercise must name its own OUT."""
    commands = list(re.finditer(r"make grade EXERCISE=(\w+)[^`\n]*", README))
    assert len(commands) >= 3
    for command in commands:
        assert f"OUT=reports/{command.group(1)}" in command.group(0), command.group(0)
    assert "With `EXERCISE=gap_head` (and `OUT=reports/gap_head`)" in README


def test_an_output_folder_of_another_exercise_is_refused_before_grading(tmp_path, capsys):
    """README (Output folder): an --out whose manifest.json names another exercise is a usage error, exit 2, with a
    sentence naming both; nothing is graded and the folder is left as it was."""
    import json

    from conftest import run_cli

    out = tmp_path / "reports"
    out.mkdir()
    manifest = json.dumps({"schema": "grader.manifest/1", "exercise": "dense_scores"})
    (out / "manifest.json").write_text(manifest, encoding="utf-8")
    code, stdout, stderr = run_cli(capsys, "grade", ROOT / "exercises" / "vgg_classifier" / "examples" / "ada.ipynb",
                                   "--exercise", "vgg_classifier", "--out", out, "--no-full-scale")
    assert code == 2, stderr
    assert "holds the reports of 'dense_scores'" in stderr and "not of 'vgg_classifier'" in stderr
    assert sorted(p.name for p in out.iterdir()) == ["manifest.json"]
    assert (out / "manifest.json").read_text(encoding="utf-8") == manifest
