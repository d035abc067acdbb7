"""Class outputs of ``grader grade --out``: gradebook.csv, junit.xml, gradescope.json, summary.html, CI hooks."""
from __future__ import annotations

import csv
import html as html_mod
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from grader import cli
from grader.results import GradeResult

from test_batch import make_class

FILES = {
    "ana.py": "correct/matmul.py",
    "ben.py": "buggy/missing-bias.py",
    "cam.py": "buggy/flatten-order.py",
    "dee.ipynb": "notebooks/not-json.ipynb",
    "eli.py": "buggy/raises-error.py",
}
BASE = ["--exercise", "vgg_classifier", "--no-full-scale", "--jobs", "2"]


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """One class graded once through the CLI: (class folder, OUT, exit code, stdout)."""
    root = tmp_path_factory.mktemp("outputs")
    folder = make_class(root / "class", FILES)
    out = root / "out"
    step = root / "step-summary.md"
    step.write_text("# Earlier step\n")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GITHUB_STEP_SUMMARY", str(step))
        import contextlib
        import io

        stdout = io.StringIO()
        with contextlib.redirect_stdout(stdout):
            code = cli.main(["grade", str(folder), *BASE, "--out", str(out), "--json", "-q", "--fail-under", "1"])
    return folder, out, code, stdout.getvalue(), step


def results(out: Path) -> dict[str, GradeResult]:
    return {p.parent.name: GradeResult.from_json(p.read_text()) for p in out.glob("students/*/result.json")}


def test_json_array_on_stdout_for_a_folder(graded):
    _, out, _, stdout, _ = graded
    docs = json.loads(stdout)  # nothing else on stdout
    assert [d["student"] for d in docs] == ["ana", "ben", "cam", "dee", "eli"]
    assert all(d["schema"] == "grader.result/1" for d in docs)


def test_gradebook_csv(graded):
    _, out, _, _, _ = graded
    rows = list(csv.DictReader((out / "gradebook.csv").open(newline="")))
    assert list(rows[0]) == ["student", "submission", "score", "max_score", "status", "diagnoses", "report"]
    assert [r["student"] for r in rows] == ["ana", "ben", "cam", "dee", "eli"]
    by = {r["student"]: r for r in rows}
    assert by["ana"]["score"] == by["ana"]["max_score"] and by["ana"]["status"] == "graded"
    assert float(by["ana"]["max_score"]) > 10
    assert by["ben"]["diagnoses"] == "missing-bias" and float(by["ben"]["score"]) < float(by["ben"]["max_score"])
    assert by["dee"]["status"] == "error" and by["dee"]["score"] == "0"
    assert by["cam"]["submission"].endswith("cam.py")
    assert by["cam"]["report"] == "students/cam/report.html" and (out / by["cam"]["report"]).is_file()


def test_junit_xml_has_a_suite_per_student_and_a_case_per_check(graded):
    _, out, _, _, _ = graded
    root = ET.parse(out / "junit.xml").getroot()
    assert root.tag == "testsuites"
    suites = {s.get("name"): s for s in root.findall("testsuite")}
    assert sorted(suites) == ["ana", "ben", "cam", "dee", "eli"]
    docs = results(out)
    for student, suite in suites.items():
        cases = suite.findall("testcase")
        graded_cases = [c for c in cases if c.get("name") != "grade"]
        assert [c.get("name") for c in graded_cases] == [c.id for c in docs[student].checks]
        assert int(suite.get("tests")) == len(cases)
    assert not suites["ana"].findall(".//failure") and not suites["ana"].findall(".//error")
    failures = suites["ben"].findall(".//failure")
    assert failures and all(f.get("message") for f in failures)
    messages = {c.id: c.message for c in docs["ben"].checks}
    failed = {c.get("name"): c.find("failure").get("message") for c in suites["ben"].findall("testcase")
              if c.find("failure") is not None}
    assert failed == {k: v for k, v in messages.items() if k in failed}
    # an ungradable submission: the reason once, on a 'grade' testcase; its checks are skipped, never run
    dee = suites["dee"].findall("testcase")
    assert [c.get("name") for c in dee] == ["grade", *[c.id for c in docs["dee"].checks]]
    errors = suites["dee"].findall(".//error")
    assert len(errors) == 1 and errors[0].get("type") == "not-json"
    assert errors[0].get("message") == docs["dee"].error.message and "JSON" in errors[0].text
    assert all(c.find("skipped") is not None for c in dee[1:])
    assert int(root.get("errors")) == sum(int(s.get("errors")) for s in suites.values())


def test_gradescope_json(graded):
    _, out, _, _, _ = graded
    docs = results(out)
    for student in ("ana", "ben", "dee"):
        gs = json.loads((out / "students" / student / "gradescope.json").read_text())
        assert gs["score"] == docs[student].score
        assert isinstance(gs["output"], str) and student in gs["output"]
        assert len(gs["tests"]) == len(docs[student].checks)
        for test, check in zip(gs["tests"], docs[student].checks):
            assert set(test) >= {"name", "score", "max_score", "status", "output", "visibility"}
            assert test["status"] == ("passed" if check.status == "passed" else "failed")
            assert test["visibility"] == "visible" and test["max_score"] == check.max_points
        assert sum(t["score"] for t in gs["tests"]) == pytest.approx(gs["score"])


def test_summary_html_is_self_contained(graded):
    _, out, _, _, _ = graded
    html = (out / "summary.html").read_text()
    assert "<svg" in html
    links = re.findall(r'(?:src|href)\s*=\s*"([^"]*)"', html)
    assert links and not [l for l in links if "http" in l or l.startswith("//")]
    assert "@import" not in html and "url(" not in html
    for student in ("ana", "ben", "cam", "dee", "eli"):
        assert f'href="students/{student}/report.html"' in html
    assert "missing-bias" in html and "flatten-order" in html  # the mistakes table
    assert "not-json" in html  # the students to look at first


def test_summary_lists_timeouts_and_lowest_scores():
    from dataclasses import replace

    from grader.gradebook import class_summary, render_summary
    from grader.results import CheckResult

    def result(student, score, status="passed"):
        return GradeResult(exercise="vgg_classifier", submission=f"{student}.py", student=student, status="graded",
                           score=score, max_score=2.0,
                           checks=(CheckResult("returns", "Returns", status, score, 2.0, "message"),))

    slow, low, full = result("slow", 0.0, "timeout"), result("low", 1.0, "failed"), result("full", 2.0)
    data = class_summary([slow, low, full], "vgg_classifier")
    assert [r.student for r in data["timeouts"]] == ["slow"]
    assert [r.student for r in data["lowest"]] == ["slow", "low"]
    assert [b["count"] for b in data["histogram"]] == [1, 1, 1]
    assert data["mean"] == 1.0 and data["median"] == 1.0
    assert class_summary([low, full], "vgg_classifier")["median"] == 1.5  # an even count: the two middle ones
    assert class_summary([], "vgg_classifier")["mean"] == 0.0
    assert data["checks"][0]["passed"] == 1 and data["checks"][0]["total"] == 3
    seen = summary_sections(render_summary([slow, low, full], "vgg_classifier"))
    assert seen["Ran out of time (1)"] == ["slow 0 / 2 Returns"]  # the check that timed out is named
    assert seen["Lowest scores"] == ["slow 0 / 2 none named", "low 1 / 2 none named"]  # not full
    assert "1 full marks" in seen["top"] and "Nothing to look at" not in str(seen)
    # one point short of full marks is not full marks: that student is listed to look at
    almost = replace(full, student="almost", score=1.5)
    seen = summary_sections(render_summary([almost, full], "vgg_classifier"))
    assert seen["Lowest scores"] == ["almost 1.5 / 2 none named"] and "1 full marks" in seen["top"]
    seen = summary_sections(render_summary([full], "vgg_classifier"))
    assert "Lowest scores" not in seen
    assert seen["Look at these first"] == ["Nothing to look at: every submission got full marks."]
    empty = summary_sections(render_summary([], "vgg_classifier"))  # an empty class still renders, and says so
    assert "0 submissions; each name links to that student's report." in empty["top"]
    assert "No submission could be graded." in empty["Pass rate per check"]


def summary_sections(html: str) -> dict[str, list[str]]:
    """What a reader of summary.html sees under each heading: its table rows (or paragraphs) as plain text;
    ``top`` holds what comes before the first heading."""
    body = re.sub(r"<(style|script)\b.*?</\1>", "", html, flags=re.S)
    sections: dict[str, list[str]] = {}
    heading = "top"
    for tag, inner in re.findall(r"<(h[1-3]|tr|p|div)\b[^>]*>(.*?)</\1>", body, flags=re.S):
        text = html_mod.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", inner)).strip())
        if tag in ("h2", "h3"):
            heading = text
        elif text and "<th" not in inner:
            sections.setdefault(heading, []).append(text)
    return sections


def test_fail_under_exit_codes(graded, tmp_path):
    folder, out, code, _, _ = graded
    assert code == 1  # dee could not be graded: score 0 < 1
    ana = str(folder / "ana.py")
    full = json.loads((out / "students" / "ana" / "result.json").read_text())["max_score"]
    assert cli.main(["grade", ana, *BASE, "-q", "--fail-under", str(full)]) == 0
    assert cli.main(["grade", str(folder / "ben.py"), *BASE, "-q", "--fail-under", str(full)]) == 1
    assert cli.main(["grade", str(folder / "ben.py"), *BASE, "-q"]) == 0


def test_github_step_summary_is_appended(graded):
    _, _, _, _, step = graded
    text = step.read_text()
    assert text.startswith("# Earlier step\n")
    for student in ("ana", "ben", "cam", "dee", "eli"):
        assert f"feedback for `{student}`" in text


def test_one_file_prints_one_document_and_progress_stays_off_stdout(graded, capsys):
    folder, _, _, _, _ = graded
    assert cli.main(["grade", str(folder / "ana.py"), *BASE, "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["student"] == "ana"
    assert "graded 1 of" not in captured.err  # one file: its result is the only line about it
