"""The reports' ``finalize`` remembers ``escape.html_text``'s answers: every page must come out byte for byte as
``html_text`` itself makes it, whatever a student chose to put in a file name or a message."""
from __future__ import annotations

import pytest
from markupsafe import Markup

from grader import escape, report
from grader.results import CheckResult, Diagnosis, ErrorInfo, GradeResult

HOSTILE = ["plain", "<script>alert(1)</script>", "right-to-left \u202egnp.exe", "escape \x1b[31mred\x1b[0m",
           "zero\u200bwidth", "lone \udcff surrogate", "two\nlines\r\nand a tab\t", "nul \x00 bel \x07", "",
           "`ticks` | pipes | **bold**", "é" * 300 + "\u202e" + "x" * 10, "a" * 5000 + "\x1b"]


def hostile_result(student: str, text: str) -> GradeResult:
    checks = tuple(CheckResult(f"c{n}", f"Check {n}", status, 0.5, 1.0, f"{text} ({n})")
                   for n, status in enumerate(("passed", "failed", "error", "timeout")))
    part = GradeResult("linear", f"/class/{text}.py", student, "graded", 2.0, 4.0, checks=checks,
                       diagnoses=(Diagnosis("d1", "A mistake", "It happens.", text),), warnings=(text,),
                       trace=(text, "second line"), isolation=("namespaces",), timing={"total": 0.5})
    failed = GradeResult("gap_head", f"/class/{text}.py", student, "error", 0.0, 1.0,
                         error=ErrorInfo(text or "kind", text), checks=checks[:1])
    return GradeResult("linear+gap_head", f"/class/{text}.py", student, "graded", 2.0, 5.0,
                       sections=(part, failed), warnings=(text,), assignment="a")


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_finalize_gives_html_texts_answer_every_time(text):
    for _ in range(2):  # the second answer is the remembered one, when it is remembered
        answer = report.finalize(text)
        assert answer == escape.html_text(text) and type(answer) is type(escape.html_text(text))
    for other in (3, 2.5, None, True, Markup("<b>kept</b>")):
        assert report.finalize(other) is escape.html_text(other)


def test_markup_and_the_plain_string_it_equals_stay_apart():
    assert report.finalize("<b>x</b>") == "<b>x</b>"  # remembered as a plain string, escaped by autoescape later
    kept = report.finalize(Markup("<b>x</b>"))
    assert isinstance(kept, Markup)  # still markup: a remembered plain string would be escaped again
    assert type(report.finalize("<b>x</b>")) is str


def test_what_is_remembered_stays_bounded():
    for n in range(report._REMEMBERED + 10):
        report.finalize(f"message {n}")
    report.finalize("y" * (report._REMEMBERED_CHARS + 1))
    assert 0 < len(report._FINALIZED) <= report._REMEMBERED
    assert all(len(key) <= report._REMEMBERED_CHARS for key in report._FINALIZED)


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_pages_are_byte_for_byte_those_html_text_makes(text):
    """Each page rendered twice (the second time from what ``finalize`` remembered) is the page an environment
    finalising with ``escape.html_text`` itself renders."""
    result = hostile_result(f"stu{text[:40]}", text)
    html = report.environment(True).overlay(finalize=escape.html_text, cache_size=0)
    text_env = report.environment(False).overlay(finalize=escape.html_text, cache_size=0)
    expected_html = html.get_template("report.html.j2").render(r=result)
    expected_md = text_env.get_template("report.md.j2").render(r=result, checks=True, isolation="")
    expected_short = text_env.get_template("report.md.j2").render(r=result, checks=False, isolation="Isolated.")
    for _ in range(2):
        assert report.render_html(result) == expected_html
        assert report.render_markdown(result) == expected_md
        assert report.render_markdown(result, checks=False, isolation="Isolated.") == expected_short
    assert "<script>" not in expected_html and "\u202e" not in expected_html and "\x1b" not in expected_html
