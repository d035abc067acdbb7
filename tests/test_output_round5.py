"""The output writers, round five: the sentences added lately, fed the text a class folder or an exercise folder
may hold, and checked in every format they land in.

Found by grading a class of hostile names (HTML, Markdown, formulas, ANSI and bidirectional controls, 255-byte
names, ids equal but for case or for Unicode's composed and decomposed accents) against a copy of the exercise
whose check ids were hostile too, regrading it after new points, diffing, merging shards and exporting to every
LMS. The escaping held everywhere; what did not hold is tested here:

* two ids equal but for Unicode normalisation (``café`` composed beside decomposed) were said to "differ only in
  letter case", which sent the reader looking for a capital that was not there;
* ``blackboard.xls`` without a template went out with rows under hashed ids (``Bob #cd9fb1e1``) and no word of
  them, where Canvas and Moodle said which rows their import would not match;
* ``points = nan`` in an exercise's settings was accepted: result.json and gradescope.json then held the bare word
  NaN, which no strict JSON reader takes; ``-3`` made a maximum below a student's score.

Everything here runs in this process on hand-made results: no student code runs.
"""
from __future__ import annotations

import csv
import io
import json
import shutil
import unicodedata
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import pytest

from grader import exercise as exercise_mod
from grader import gradebook, lms, regrade
from grader.errors import ExerciseError
from grader.results import CheckResult, GradeResult
from grader.shownids import case_clashes, display_ids

from conftest import ROOT

NFC, NFD = unicodedata.normalize("NFC", "café"), unicodedata.normalize("NFD", "café")
#: a check id an exercise folder could hold: HTML, ANSI, a formula, a pipe, backticks, a bidi override, a control
#: character and a line break that would start a Markdown heading
HOSTILE_CHECK = '<img src=x onerror=alert(1)>\x1b[31m=HYPERLINK("x")|`code`\u202e\x01\r\n# H'
FORMULA_CHECK = "=cmd|' /C calc'!A0"
HIDDEN = {chr(c) for c in range(32) if chr(c) not in "\n"} | {"\x7f", "\u202e"}


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()

    def handle_starttag(self, tag, attrs) -> None:
        self.tags.add(tag)


def result(student: str, points: dict[str, float], score: float | None = None) -> GradeResult:
    """A graded result whose checks are worth ``points`` each, all passed unless ``score`` says less."""
    checks = tuple(CheckResult(i, "A check", "passed", p, p, "") for i, p in points.items())
    total = sum(points.values())
    return GradeResult(exercise="vgg_classifier", submission=f"{student}.py", student=student, status="graded",
                       score=total if score is None else score, max_score=total, checks=checks)


# -- the note about ids equal but for case ------------------------------------------------------------------------
def test_ids_equal_but_for_unicode_normalisation_are_not_said_to_differ_in_case():
    notes = case_clashes(display_ids([NFC, NFD, "Bob", "bob", "\ufb01le", "file"]))
    assert len(notes) == 3
    by_first = {note.split(" (")[0]: note for note in notes}
    assert "2 ids differ only in letter case" in by_first  # Bob, bob
    accents = next(n for n in notes if "café" in unicodedata.normalize("NFC", n))
    assert "letter case (" not in accents and "how Unicode writes their characters" in accents
    assert "read the same" in accents
    ligature = next(n for n in notes if "\ufb01le" in n)
    assert "letter case (" not in ligature and "how Unicode writes" in ligature


def test_ids_differing_in_case_and_in_normalisation_are_said_to_differ_in_both():
    upper = unicodedata.normalize("NFD", "Café")
    [note] = case_clashes(display_ids([NFC, NFD, upper]))
    assert note.startswith("3 ids differ only in letter case and in how Unicode writes their characters")


def test_the_case_note_shows_hostile_ids_as_printable_text_in_every_output():
    raws = ["\x1b[31mZ", "\x1b[31mz", "<Marquee>", "<marquee>", "=X", "=x"]
    notes = case_clashes(display_ids(raws))
    assert len(notes) == 3 and all(n.isprintable() and "\x1b" not in n for n in notes)
    assert all("differ only in letter case" in n for n in notes)
    page = gradebook.render_summary([result("ok", {"a": 1.0})], "vgg_classifier", notes)
    parser = Tags()
    parser.feed(page)
    assert "marquee" not in parser.tags and not set(page) & HIDDEN
    assert "&lt;Marquee&gt; #" in page


# -- the LMS warning about hashed ids -----------------------------------------------------------------------------
def test_blackboard_without_a_template_names_the_rows_no_username_matches():
    shown = display_ids(["Bob", "bob", "carla"])
    results = [result(shown[r], {"a": 1.0}) for r in ("Bob", "bob", "carla")]
    said = lms.warnings("blackboard", results, pending=[shown["Bob"] + "x"])
    [hashed] = [s for s in said if "grader's hash" in s]
    assert hashed.startswith("2 rows of blackboard.xls") and "no Blackboard login" in hashed
    assert "carla" not in hashed
    assert "without a Grade Center column id" in " ".join(said)  # the template's own note is still said


def test_blackboard_with_a_template_leaves_the_hashed_rows_to_its_own_check():
    from grader.blackboard import Template

    shown = display_ids(["Bob", "bob"])
    template = Template("HW [Total Pts: 1 Score] |1", 1.0, frozenset({"carla"}), "download.xls")
    said = lms.warnings("blackboard", [result(shown[r], {"a": 1.0}) for r in ("Bob", "bob")], template=template)
    assert not any("grader's hash" in s for s in said)
    assert any("not a username of" in s for s in said)


# -- the regrade reason: points of CHECK changed ------------------------------------------------------------------
def test_points_of_a_hostile_check_id_stay_text_in_changes_diff_and_summary():
    old = {HOSTILE_CHECK: 1.0, FORMULA_CHECK: 1.0, "completes": 1.0}
    new = {HOSTILE_CHECK: 2.0, FORMULA_CHECK: 4.0, "completes": 1.0}
    changes = [regrade.change(result(s, old), result(s, new), ["exercise version (1 -> 2)"], s)
               for s in ("=HYPERLINK(\"x\")", "<marquee>bob</marquee>")]
    assert all("points of" in "; ".join(c.reasons) for c in changes)
    rows = list(csv.reader(io.StringIO(regrade.render_csv(changes))))
    assert len(rows) == 3
    assert all(not cell.startswith(("=", "+", "@", "\t", "\r")) for row in rows for cell in row
               if not cell.lstrip("+-").replace(".", "").isdigit())
    why = rows[1][8]
    assert "\r" not in why and "\x1b" not in why and "\\x1b[31m" in why and "\\u202e" in why
    assert f"points of {FORMULA_CHECK} changed (1 -> 4)" in why
    lines = regrade.diff_lines(changes, ROOT / "old", ROOT / "new")
    assert len(lines) == 3 and all(line.isprintable() for line in lines)
    page = gradebook.render_summary([result("ok", new)], "vgg_classifier", changes=regrade.summary(changes))
    parser = Tags()
    parser.feed(page)
    assert not parser.tags & {"img", "marquee"} and not set(page) & HIDDEN
    assert "points of &lt;img src=x onerror=alert(1)&gt;" in page


# -- an exercise's points must be numbers JSON can hold ----------------------------------------------------------
@pytest.fixture(scope="module")
def copied(tmp_path_factory):
    """The VGG exercise's folder copied, for settings edited one test at a time."""
    base = tmp_path_factory.mktemp("exercises")
    shutil.copytree(ROOT / "exercises" / "vgg_classifier", base / "vgg_classifier",
                    ignore=shutil.ignore_patterns("__pycache__", "examples"))
    return base


def _edit(base, old: str, new: str) -> None:
    toml = base / "vgg_classifier" / "exercise.toml"
    text = (base / "original.toml").read_text(encoding="utf-8") if (base / "original.toml").exists() else None
    if text is None:
        text = toml.read_text(encoding="utf-8")
        (base / "original.toml").write_text(text, encoding="utf-8")
    assert old in text
    toml.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.mark.parametrize("points, said", [
    ("nan", "is worth nan points"), ("inf", "is worth inf points"), ("-3", "is worth -3 points"),
    ('"3"', "is worth 3 points"), ("true", "is worth True points"),
])
def test_points_that_are_no_finite_number_are_refused_with_a_sentence(copied, points, said):
    _edit(copied, 'id = "finite"\ntitle = "No NaN or infinity in the output"\npoints = 1',
          f'id = "finite"\ntitle = "No NaN or infinity in the output"\npoints = {points}')
    with pytest.raises(ExerciseError) as raised:
        exercise_mod.load("vgg_classifier", copied)
    assert "the check 'finite' " + said in str(raised.value)
    assert "points are a finite number, 0 or more" in str(raised.value)


def test_two_checks_with_one_id_are_refused(copied):
    _edit(copied, 'id = "dtype"', 'id = "shape"')
    with pytest.raises(ExerciseError, match="ids that are non-empty text and unique"):
        exercise_mod.load("vgg_classifier", copied)


def test_a_hostile_check_id_with_whole_points_loads_and_its_json_is_strict(copied):
    _edit(copied, 'id = "type"\n', 'id = "<b>\\u202e=x\\r\\n# H"\nkind = "type"\n')
    loaded = exercise_mod.load("vgg_classifier", copied)
    assert any(c.id.startswith("<b>") for c in loaded.checks)
    text = json.dumps([c.points for c in loaded.checks], allow_nan=False)
    assert json.loads(text) and ET.fromstring(
        gradebook.render_junit([result("ok", {c.id: c.points for c in loaded.checks})], "vgg_classifier"))
