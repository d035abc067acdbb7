"""Every writer shows an assignment's sections: the reports, gradebook.csv, junit.xml, Gradescope's results.json,
summary.html, the LMS files, a regrade's changes and the per-student line; a lone exercise's outputs stay as they
were (the other output tests pin those).

Results with sections are built by hand (with hostile text in every field a student could choose), and one class
of three submissions of the fc-layers assignment is graded through the CLI: one correct, one missing gap_head,
one hanging in dense_scores."""
from __future__ import annotations

import contextlib
import csv
import io
import json
import re
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import ROOT
from grader import cli, commands, gradebook, gradescope_results, lms, regrade, report
from grader.results import CheckResult, Diagnosis, ErrorInfo, GradeResult

from test_outputs import summary_sections

EXERCISES = ("linear", "to_channels_last", "dense_scores", "gap_head")
HOSTILE_ID = "=cmd|' /C calc'!A0 <b>x</b> `tick` \x1b[31m"
HOSTILE_MESSAGE = "boom | <script>alert(1)</script> ``` `x` \x07\u202e"


# -- results built by hand --------------------------------------------------------------------------------------
def section(exercise: str, *, failed: bool = False, error: ErrorInfo | None = None, weight: float = 1.0,
            warnings: tuple[str, ...] = (), trace: tuple[str, ...] = ()) -> GradeResult:
    status = "error" if error else "graded"
    shape = CheckResult("shape", "Output shape", "error" if error else ("failed" if failed else "passed"),
                        0.0 if error or failed else 1.0 * weight, 1.0 * weight,
                        HOSTILE_MESSAGE if failed else "Every result has the expected shape.")
    values = CheckResult("values", "Right values", "error" if error else "passed", 0.0 if error else 2.0 * weight,
                         2.0 * weight, "Matches the reference.")
    diagnoses = (Diagnosis("wrong-axis", f"Wrong axis in {exercise}", f"Explanation of the wrong axis in {exercise}.",
                           HOSTILE_MESSAGE),) if failed else ()
    score = sum(c.points for c in (shape, values))
    return GradeResult(exercise=exercise, submission="s.py", student=HOSTILE_ID, status=status, score=score,
                       max_score=3.0 * weight, error=error, checks=(shape, values), diagnoses=diagnoses,
                       warnings=warnings, trace=trace, weight=weight, timing={"total": 0.5})


def assignment(student: str = HOSTILE_ID) -> GradeResult:
    sections = (
        section("linear"),
        section("to_channels_last", failed=True, warnings=("A section warning " + HOSTILE_MESSAGE,),
                trace=("stage 1: ok", "stage 2: " + HOSTILE_MESSAGE)),
        section("dense_scores", weight=2.0),
        section("gap_head", error=ErrorInfo("missing-function", "No function named 'gap_head' " + HOSTILE_MESSAGE)),
    )
    sections = tuple(replace(s, student=student) for s in sections)
    return GradeResult(exercise="fc-layers", submission="s.py", student=student, status="graded",
                       score=sum(s.score for s in sections), max_score=sum(s.max_score for s in sections),
                       warnings=("The run's warning " + HOSTILE_MESSAGE,), assignment="fc-layers", sections=sections,
                       isolation=("protocol", "rlimits"), timing={"total": 1.5})


def lone() -> GradeResult:
    return replace(section("linear", failed=True), student="ana")


def outside_code(md: str) -> str:
    """The Markdown without its fenced blocks and code spans: what a renderer would read as Markdown or HTML."""
    md = re.sub(r"^(`{3,})\n.*?^\1$", "", md, flags=re.M | re.S)
    return re.sub(r"(?<!`)(`+)(?!`).*?(?<!`)\1(?!`)", "", md)


def test_markdown_report_has_the_total_then_a_section_per_exercise():
    r = assignment()
    md = report.render_markdown(r)
    assert f"**Score: {r.score:g} / {r.max_score:g}**" in md  # 3 + 2 + 6 + 0 of 3 + 3 + 6 + 3
    assert (r.score, r.max_score) == (11.0, 15.0)
    headings = re.findall(r"^## (.*)$", md, flags=re.M)
    assert headings == ["Warnings", "linear: 3 / 3", r"to\_channels\_last: 2 / 3", r"dense\_scores: 6 / 6",
                        r"gap\_head: 0 / 3"]
    assert md.count("The run's warning") == 1 and md.index("The run's warning") < md.index("## linear")
    parts = {h: md.split(f"## {h}\n", 1)[1].split("\n## ", 1)[0] for h in headings[1:]}
    gap = parts[r"gap\_head: 0 / 3"]
    assert "could not be graded" in gap and "No function named 'gap_head'" in gap
    assert "### Checks" in gap and "not graded" in gap
    channels = parts[r"to\_channels\_last: 2 / 3"]
    assert "### What went wrong" in channels and "Explanation of the wrong axis in to_channels_last." in channels
    assert "### Warnings" in channels and "A section warning" in channels
    assert "### Your run, stage by stage" in channels and "stage 2:" in channels
    assert "Weight 2" in parts[r"dense\_scores: 6 / 6"] and "Weight" not in parts["linear: 3 / 3"]
    # every student-chosen text stays inside a code span or fence: no raw HTML, no control character
    assert "<script>" in md and "<script>" not in outside_code(md)
    assert "\x1b" not in md and "\x07" not in md and "\u202e" not in md
    # Gradescope's output: the same sections without the checks tables
    assert "### Checks" not in report.render_markdown(r, checks=False)


def test_html_report_has_a_section_per_exercise_and_escapes():
    r = assignment()
    page = report.render_html(r)
    assert page.count('<section class="exercise"') == 4
    for exercise in EXERCISES:
        assert f"<h2>{exercise} " in page
    assert "This exercise could not be graded." in page and "No function named &#39;gap_head&#39;" in page
    assert "Explanation of the wrong axis in to_channels_last." in page and "weight 2" in page
    assert page.count("The run&#39;s warning") == 1 and "stage 2:" in page
    assert "<script>" not in page and "<b>x</b>" not in page and "\x1b" not in page and "\u202e" not in page


def test_a_lone_exercise_report_has_no_sections():
    md = report.render_markdown(lone())
    assert "| Exercise |" not in md and "## Checks" in md and "## What went wrong" in md
    assert 'class="exercise"' not in report.render_html(lone())


def unreadable() -> GradeResult:
    """An assignment's result when the file could not be loaded: every section the same error, none graded."""
    error = ErrorInfo("not-json", "dee.ipynb is not valid JSON " + HOSTILE_MESSAGE)
    sections = tuple(replace(section(e, error=error), student="dee") for e in EXERCISES)
    return GradeResult(exercise="fc-layers", submission="dee.ipynb", student="dee", status="error", score=0.0,
                       max_score=12.0, error=error, assignment="fc-layers", sections=sections)


def test_a_submission_not_graded_at_all_says_why_once():
    r = unreadable()
    md = report.render_markdown(r)
    assert md.count("dee.ipynb is not valid JSON") == 1 and "No exercise of this submission could be graded" in md
    assert md.count("see above") == 4
    page = report.render_html(r)
    assert page.count("dee.ipynb is not valid JSON") == 1 and page.count("see above") == 4
    doc = gradescope_results.document(r)
    assert doc["score"] == 0 and all(t["output"] == "" for t in doc["tests"]) and len(doc["tests"]) == 8
    assert commands.summary_line(r).startswith("dee: not graded (not-json): dee.ipynb is not valid JSON")
    row = list(csv.DictReader(io.StringIO(gradebook.render_csv([r]))))[0]
    assert row["status"] == "error" and [row[e] for e in EXERCISES] == ["0", "0", "0", "0"]
    root = ET.fromstring(gradebook.render_junit([r], "fc-layers").encode("utf-8"))
    assert [s.find("testcase").get("name") for s in root.findall("testsuite")] == [f"{e}: grade" for e in EXERCISES]
    seen = summary_sections(gradebook.render_summary([r], "fc-layers"))
    assert seen["Not graded (1)"][0].startswith("dee not-json") and "Exercises not graded" not in str(seen)


def test_gradebook_has_a_column_per_exercise():
    other = assignment("ben")
    text = gradebook.render_csv([assignment(), other], [gradebook.Pending("zed", "zed.py")])
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == ["student", "submission", "score", "max_score", *EXERCISES, "status", "diagnoses", "report"]
    by = {row[0]: dict(zip(rows[0], row)) for row in rows[1:]}
    hostile = next(row for key, row in by.items() if key.startswith("'"))  # a formula is neutralised
    assert [hostile[e] for e in EXERCISES] == ["3", "2", "6", "0"] and hostile["score"] == "11"
    assert hostile["diagnoses"] == "to_channels_last:wrong-axis"
    assert [by["zed"][e] for e in EXERCISES] == ["", "", "", ""] and by["zed"]["status"] == "pending"
    # a lone exercise's gradebook keeps its columns
    assert gradebook.render_csv([lone()]).splitlines()[0] == ",".join(gradebook.GRADEBOOK_COLUMNS)


def test_junit_has_a_suite_per_exercise():
    text = gradebook.render_junit([assignment(), assignment("ben")], "fc-layers", [gradebook.Pending("zed", "z.py")])
    root = ET.fromstring(text.encode("utf-8"))
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == list(EXERCISES)
    for suite in suites:
        names = [c.get("name") for c in suite.findall("testcase")]
        assert all(n.startswith(suite.get("name") + ": ") for n in names)
        assert int(suite.get("tests")) == len(names)
    gap = suites[3]
    assert [c.get("name") for c in gap.findall("testcase")][:3] == ["gap_head: grade", "gap_head: shape",
                                                                   "gap_head: values"]
    assert gap.get("errors") == "2" and gap.get("skipped") == str(2 * 2 + 1)
    assert "No function named 'gap_head'" in gap.find("testcase/error").get("message")
    channels = suites[1]
    assert channels.get("failures") == "2" and "wrong-axis" in channels.find("system-out").text
    assert int(root.get("tests")) == sum(int(s.get("tests")) for s in suites)
    assert "\x1b" not in text and "\x07" not in text


def test_gradescope_tests_are_named_by_exercise_and_sum_to_the_total():
    r = assignment()
    doc = gradescope_results.document(r)
    assert len(doc["tests"]) == 8
    assert [t["name"] for t in doc["tests"]][:2] == ["linear: Output shape", "linear: Right values"]
    assert all(t["name"].split(": ")[0] in EXERCISES for t in doc["tests"])
    assert sum(t["score"] for t in doc["tests"]) == pytest.approx(doc["score"]) == 11.0
    assert sum(t["max_score"] for t in doc["tests"]) == pytest.approx(r.max_score)
    failed = next(t for t in doc["tests"] if t["name"] == "to_channels_last: Output shape")
    assert "Mistakes found in to_channels_last: Wrong axis in to_channels_last" in failed["output"]
    assert "missing-function" in doc["tests"][-1]["output"]
    assert "Wrong axis in to_channels_last" in doc["output"] and "## gap\\_head: 0 / 3" in doc["output"]
    assert [s["exercise"] for s in doc["extra_data"]["sections"]] == list(EXERCISES)
    assert doc["extra_data"]["diagnoses"] == ["to_channels_last:wrong-axis"]
    json.dumps(doc)  # serialisable
    assert all("\x1b" not in t["output"] for t in doc["tests"])


def test_summary_shows_each_exercise():
    page = gradebook.render_summary([assignment(), assignment("ben"), replace(assignment("cy"), sections=tuple(
        replace(s, score=s.max_score, status="graded", error=None, diagnoses=()) for s in assignment("cy").sections),
        score=15.0)], "fc-layers")
    seen = summary_sections(page)
    rows = seen["Per exercise"][1:]
    assert [row.split()[0] for row in rows] == list(EXERCISES)
    assert rows[0] == "linear 3.0 / 3 3 of 3 0 none"
    assert rows[1] == "to_channels_last 2.3 / 3 1 of 3 0 Wrong axis in to_channels_last (2)"
    assert rows[2].startswith("dense_scores (weight 2) 6.0 / 6") and rows[3].startswith("gap_head 1.0 / 3 1 of 3 2")
    for exercise in EXERCISES:
        assert any(h.startswith(f"{exercise}: ") for h in seen), exercise  # its pass rates
    assert seen["to_channels_last"][0] == "Wrong axis in to_channels_last wrong-axis 2 of 3"
    assert seen["to_channels_last"][1].startswith("to_channels_last: wrong-axis =cmd")  # who made which mistake
    assert len(seen["Exercises not graded (2)"]) == 2
    assert "<script>" not in page and "\x1b" not in page
    every = [row for row in seen["Every student"] if row.startswith("ben")]
    assert every == ["ben 11 / 15 3 2 6 0 (not graded) graded to_channels_last: wrong-axis"]


def test_lms_files_carry_the_total_and_moodle_each_exercise():
    r = assignment("ana")
    canvas = list(csv.reader(io.StringIO(lms.render("canvas", [r], "FC"))))
    assert canvas[0][-1] == "FC" and canvas[1][-1] == "15" and canvas[2][-1] == "11"
    moodle = list(csv.DictReader(io.StringIO(lms.render("moodle", [r], "FC"))))
    feedback = moodle[0]["Feedback comments"]
    assert moodle[0]["Grade"] == "11" and moodle[0]["Maximum Grade"] == "15"
    assert "linear 3/3" in feedback and "gap_head 0/3 not graded: missing-function" in feedback
    assert "to_channels_last: Wrong axis in to_channels_last" in feedback


def test_regrade_compares_per_section():
    old = assignment("ana")
    fixed = replace(old.sections[3], status="graded", error=None, score=3.0, checks=tuple(
        replace(c, status="passed", points=c.max_points) for c in old.sections[3].checks))
    new = replace(old, sections=(*old.sections[:3], fixed), score=14.0)
    change = regrade.change(old, new, ("file changed",), "ana")
    assert change.changed and change.sections == (("gap_head", "0/3 (not graded: missing-function)", "3/3"),)
    assert ("gap_head: shape", "error", "passed") in change.flipped
    rows = list(csv.DictReader(io.StringIO(regrade.render_csv([change]))))
    assert rows[0]["exercises_changed"] == "gap_head 0/3 (not graded: missing-function) -> 3/3"
    assert "gap_head: values: error -> passed" in rows[0]["checks_flipped"]
    line = regrade.diff_lines([change], "old", "new")[1]
    assert "exercises: gap_head 0/3" in line and "(+3)" in line
    # a lone exercise's changes.csv keeps its columns
    assert "exercises_changed" not in regrade.render_csv([regrade.change(lone(), lone(), ("x",))])


def test_summary_line_gives_each_exercise():
    line = commands.summary_line(assignment())
    assert "\x1b" not in line and "\\x1b" in line
    assert line.endswith("11/15 (linear 3/3, to_channels_last 2/3, dense_scores 6/6, "
                         "gap_head 0/3 not graded (missing-function))  [to_channels_last:wrong-axis]")
    assert commands._below(assignment("ana")) == ("ana (11/15; to_channels_last 2/3, "
                                                  "gap_head 0/3 not graded (missing-function))")
    assert commands.summary_line(lone()) == "ana: 2/3  [wrong-axis]"


# -- one class graded through the CLI ---------------------------------------------------------------------------
def full_solution() -> str:
    return "\n\n".join((ROOT / "solutions" / f"{e}.py").read_text() for e in EXERCISES)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("assignment")
    folder = root / "class"
    folder.mkdir()
    source = full_solution()
    (folder / "alice.py").write_text(source)
    (folder / "bob.py").write_text(source.replace("def gap_head(", "def gap_headx("))
    hanging = source.replace("def dense_scores(fmap, weight, bias, k):\n",
                             "def dense_scores(fmap, weight, bias, k):\n    while True:\n        pass\n")
    assert hanging != source
    (folder / "carol.py").write_text(hanging)
    out = root / "out"
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = cli.main(["grade", str(folder), "--assignment", "fc-layers", "--out", str(out), "--no-full-scale",
                         "--jobs", "3", "--gradebook-format", "moodle"])
    assert code == 0, stderr.getvalue()
    results = {p.parent.name: GradeResult.from_json(p.read_text()) for p in out.glob("students/*/result.json")}
    return out, results, stdout.getvalue()


def maxima(result: GradeResult) -> dict[str, float]:
    return {s.exercise: s.max_score for s in result.sections}


def test_class_gradebook_has_a_column_per_exercise_and_the_totals(graded):
    out, results, _ = graded
    rows = {r["student"]: r for r in csv.DictReader((out / "gradebook.csv").open(newline=""))}
    assert list(next(iter(rows.values())))[4:8] == list(EXERCISES)
    top = maxima(results["alice"])
    for student, row in rows.items():
        assert float(row["score"]) == pytest.approx(sum(float(row[e]) for e in EXERCISES))
        assert float(row["score"]) == results[student].score
    assert all(float(rows["alice"][e]) == top[e] for e in EXERCISES)
    assert float(rows["alice"]["score"]) == float(rows["alice"]["max_score"]) == sum(top.values())


def test_a_missing_function_costs_only_its_exercise(graded):
    out, results, _ = graded
    bob = results["bob"]
    gap = next(s for s in bob.sections if s.exercise == "gap_head")
    assert gap.status == "error" and gap.error.kind == "missing-function" and gap.score == 0
    assert bob.status == "graded" and bob.score == bob.max_score - gap.max_score
    md = (out / "students" / "bob" / "report.md").read_text()
    section_text = md.split("## gap\\_head: 0 / ", 1)[1]
    assert "No function named 'gap_head'" in section_text
    assert "all checks passed" in md.split("| Exercise |", 1)[1].split("gap\\_head", 1)[0]


def test_a_hanging_exercise_costs_no_other(graded):
    _, results, _ = graded
    carol = results["carol"]
    by = {s.exercise: s for s in carol.sections}
    assert by["dense_scores"].score < by["dense_scores"].max_score
    assert any(c.status == "timeout" for c in by["dense_scores"].checks)
    for exercise in ("linear", "to_channels_last", "gap_head"):
        assert by[exercise].score == by[exercise].max_score, exercise


def test_class_junit_has_a_suite_per_exercise(graded):
    out, _, _ = graded
    root = ET.parse(out / "junit.xml").getroot()
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == list(EXERCISES)
    names = [c.get("name") for c in suites[0].findall("testcase")]
    assert "linear: shape" in names and {c.get("classname") for c in suites[0].findall("testcase")} == {
        "fc-layers.alice", "fc-layers.bob", "fc-layers.carol"}
    gap = next(s for s in suites if s.get("name") == "gap_head")
    assert gap.get("errors") == "1" and gap.find("testcase[@name='gap_head: grade']/error") is not None


def test_class_gradescope_tests_are_named_by_exercise(graded):
    out, results, _ = graded
    for student, result in results.items():
        doc = json.loads((out / "students" / student / "gradescope.json").read_text())
        assert {t["name"].split(": ")[0] for t in doc["tests"]} == set(EXERCISES)
        assert sum(t["score"] for t in doc["tests"]) == pytest.approx(doc["score"]) == result.score
    carol = json.loads((out / "students" / "carol" / "gradescope.json").read_text())
    assert "too-slow" in carol["output"] or "time limit" in carol["output"]


def test_class_summary_lms_and_lines_mention_each_exercise(graded):
    out, results, stdout = graded
    page = (out / "summary.html").read_text()
    seen = summary_sections(page)
    assert [row.split()[0] for row in seen["Per exercise"][1:]] == list(EXERCISES)
    assert any(row.startswith("bob gap_head missing-function") for row in seen["Exercises not graded (1)"])
    moodle = {r["Identifier"]: r for r in csv.DictReader((out / "moodle.csv").open(newline=""))}
    assert "gap_head 0/" in moodle["bob"]["Feedback comments"]
    lines = {line.split(":")[0]: line for line in stdout.splitlines() if line[:1].isalpha()}
    top = maxima(results["alice"])
    assert f"dense_scores {top['dense_scores']:g}/{top['dense_scores']:g}" in lines["bob"]
    assert "gap_head 0/" in lines["bob"] and "not graded (missing-function)" in lines["bob"]
