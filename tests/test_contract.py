"""The result contract seen from outside: the CLI's JSON document, exit codes, files written, and the report."""
from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys
import typing

import pytest
from markupsafe import escape

from conftest import ROOT, SUBMISSIONS
from grader.cli import usage_document
from grader.results import CheckResult, Diagnosis, ErrorInfo, GradeResult


def _nested_dataclass(hint) -> type | None:
    """The result dataclass a field's type holds (``tuple[CheckResult, ...]``, ``ErrorInfo | None``), if any."""
    if dataclasses.is_dataclass(hint):
        return hint
    for argument in typing.get_args(hint):
        found = _nested_dataclass(argument)
        if found is not None:
            return found
    return None


def assert_shape(document, cls=GradeResult, where: str = "result") -> None:
    """``document``'s keys are exactly ``cls``'s fields, and so are every nested object's (checks, diagnoses,
    error, sections), to the depth the document has: it walks the data, so a recursive field ends where it does."""
    assert isinstance(document, dict), f"{where} is {type(document).__name__}, not an object"
    expected = {f.name for f in dataclasses.fields(cls)}
    assert set(document) == expected, (f"{where}: missing {sorted(expected - set(document))}, "
                                       f"unexpected {sorted(set(document) - expected)}")
    for name, hint in typing.get_type_hints(cls).items():
        nested = _nested_dataclass(hint)
        value = document[name]
        if nested is None or value is None:
            continue
        for n, item in enumerate(value if isinstance(value, list) else [value]):
            assert_shape(item, nested, f"{where}.{name}[{n}]" if isinstance(value, list) else f"{where}.{name}")


def grader(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "grader", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=120)


@pytest.mark.parametrize("name,status", [("buggy/missing-relu.py", "graded"), ("correct/matmul.py", "graded"),
                                         ("notebooks/not-json.ipynb", "error")])
def test_json_is_exactly_one_document_and_exit_code_is_zero(name, status):
    proc = grader("grade", SUBMISSIONS / name, "--exercise", "vgg_classifier", "--json", "--no-full-scale")
    assert proc.returncode == 0, proc.stderr
    document = json.loads(proc.stdout)  # fails on anything else printed to stdout
    assert_shape(document)
    assert set(document) == set(usage_document("any"))  # a usage error's document has a real result's keys
    assert document["schema"] == "grader.result/1" and document["status"] == status
    assert document["student"] == (SUBMISSIONS / name).stem
    assert document["checks"] and all(c["status"] in ("passed", "failed", "error", "timeout")
                                      for c in document["checks"])
    assert bool(document["diagnoses"]) == (name == "buggy/missing-relu.py")  # so their shape was checked too
    if status == "error":
        assert document["score"] == 0 and document["error"]["kind"] and document["error"]["message"]
    else:
        assert document["error"] is None
    assert "Traceback" not in proc.stdout + proc.stderr


def test_student_prints_never_reach_stdout():
    """The submission prints at every step and runs a ``__main__`` block: stdout still holds the one document,
    neither terminal stream shows what the student printed, and printing costs no point."""
    proc = grader("grade", SUBMISSIONS / "correct" / "prints-and-main.py", "--json", "--no-full-scale")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("{") and proc.stdout.rstrip().endswith("}")
    document = json.loads(proc.stdout)
    assert document["status"] == "graded" and document["score"] == document["max_score"] > 0
    for printed in ("features:", "flattened:", "h1:", "active units:", "h2:"):
        assert printed not in proc.stdout and printed not in proc.stderr, printed


@pytest.mark.parametrize("args,kind", [(["--bogus"], "usage"), ([], "missing-file")])
def test_usage_errors_exit_2_with_a_json_error_document(tmp_path, args, kind):
    proc = grader("grade", tmp_path / "nobody.py", "--json", *args)
    assert proc.returncode == 2
    document = json.loads(proc.stdout)
    assert_shape(document)
    assert document["status"] == "error" and document["error"]["kind"] == kind
    assert document["score"] == 0 and document["checks"] == [] and document["student"] is None
    assert "Traceback" not in proc.stderr


def test_the_usage_document_follows_the_result_fields_even_a_new_one():
    from grader import cli

    assert_shape(usage_document("Unknown flag.", "usage"))
    assert usage_document("Unknown flag.")["error"] == {"kind": "usage", "message": "Unknown flag."}

    @dataclasses.dataclass(frozen=True)
    class Grown(GradeResult):  # a field added to the results, recursive like ``sections``
        parts_again: tuple[GradeResult, ...] = ()
        note: str = "new"

    document = cli.usage_document("x", result_type=Grown)
    assert document["parts_again"] == [] and document["note"] == "new"
    assert_shape(document, Grown)


def test_every_nested_object_has_exactly_its_fields_at_every_depth():
    if "sections" not in {f.name for f in dataclasses.fields(GradeResult)}:
        pytest.skip("results have no sections")
    check = CheckResult("returns", "Returns", "failed", 0.0, 1.0, "It returned None.")
    part = GradeResult("linear", "s.py", "ana", "error", 0.0, 1.0, error=ErrorInfo("syntax-error", "Line 3."),
                       checks=(check,), diagnoses=(Diagnosis("no-return", "No return", "It returns nothing."),))
    total = GradeResult("linear+gap_head", "s.py", "ana", "error", 0.0, 2.0, sections=(part, part))
    document = json.loads(total.to_json())
    assert_shape(document)
    assert document["sections"][1]["checks"][0]["message"] == "It returned None."
    assert GradeResult.from_json(total.to_json()) == total
    broken = {**document, "sections": [{**document["sections"][0], "stray": 1}]}
    with pytest.raises(AssertionError, match=r"sections\[0\]: missing \[\], unexpected \['stray'\]"):
        assert_shape(broken)


def _asdict_document(result) -> dict:
    """The document as ``to_dict`` built it through ``dataclasses.asdict`` before it walked the fields by hand,
    and must still build it: tuples as lists, schema first in the result and in each section."""
    data = dataclasses.asdict(result)
    data["checks"] = [dataclasses.asdict(c) for c in result.checks]
    data["diagnoses"] = [dataclasses.asdict(d) for d in result.diagnoses]
    for name in ("warnings", "isolation", "trace"):
        data[name] = list(data[name])
    data["sections"] = [_asdict_document(section) for section in result.sections]
    return {"schema": data.pop("schema"), **data}


def test_to_dict_is_asdict_with_lists_in_field_order_and_shares_no_container():
    check = CheckResult("returns", "Returns", "failed", 0.0, 1.0, "It returned None.")
    part = GradeResult("linear", "s.py", "ana", "graded", 0.5, 1.0, checks=(check, check),
                       diagnoses=(Diagnosis("no-return", "No return", "It returns nothing.", "x"),),
                       warnings=("slow",), timing={"total": 0.25, "run": 0.5}, isolation=("namespaces",),
                       trace=("a", "b"), weight=0.5)
    failed = GradeResult("gap_head", "s.py", "ana", "error", 0.0, 1.0, error=ErrorInfo("syntax-error", "Line 3."))
    total = GradeResult("linear+gap_head", "s.py", "ana", "graded", 0.5, 2.0, sections=(part, failed),
                        assignment="a1", timing={"total": 1.0})
    for result in (part, failed, total):
        document = result.to_dict()
        assert document == _asdict_document(result)
        assert list(document) == ["schema"] + [f.name for f in dataclasses.fields(GradeResult) if f.name != "schema"]
        assert json.dumps(document) == json.dumps(_asdict_document(result))  # the same order at every depth
    document = total.to_dict()
    document["timing"]["total"] = 9.0
    document["sections"][0]["checks"][0]["points"] = 9.0
    document["sections"][0]["warnings"].append("edited")
    assert total.timing == {"total": 1.0} and part.checks[0].points == 0.0 and part.warnings == ("slow",)

    @dataclasses.dataclass(frozen=True)
    class Grown(GradeResult):  # a field added to the results, nested like ``sections``
        parts_again: tuple[GradeResult, ...] = ()
        note: str = "new"

    grown = Grown("linear", "s.py", "ana", "graded", 1.0, 1.0, checks=(check,), parts_again=(part, part))
    document = grown.to_dict()
    assert list(document)[0] == "schema" and list(document)[-2:] == ["parts_again", "note"]
    assert document["parts_again"] == [part.to_dict(), part.to_dict()] and document["note"] == "new"
    assert json.loads(json.dumps(document)) == document  # nothing but JSON's types, at every depth


def test_unknown_exercise_is_a_usage_error():
    proc = grader("grade", SUBMISSIONS / "correct" / "matmul.py", "--exercise", "nope", "--json")
    assert proc.returncode == 2
    assert "Unknown exercise 'nope'" in json.loads(proc.stdout)["error"]["message"]


def test_out_writes_result_and_reports(tmp_path):
    proc = grader("grade", SUBMISSIONS / "buggy" / "missing-bias.py", "--out", tmp_path, "--no-full-scale")
    assert proc.returncode == 0, proc.stderr
    folder = tmp_path / "students" / "missing-bias"
    result = json.loads((folder / "result.json").read_text())
    assert result["student"] == "missing-bias"
    assert (folder / "report.html").is_file() and (folder / "report.md").is_file()


def test_html_report_is_self_contained_and_shows_what_a_student_needs(session):
    from grader import report
    from grader.grade import grade_file

    result = grade_file(SUBMISSIONS / "buggy" / "missing-bias.py", session)
    html = report.render_html(result)
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html)
    assert "<style>" in html and 'name="viewport"' in html and "@media print" in html
    assert f"{result.score:g} / {result.max_score:g}" in html
    for item in result.checks:
        assert escape(item.title) in html
    assert "missing-bias" in html and "largest error" in html
    reference = (ROOT / "solutions" / "vgg_classifier.py").read_text().splitlines()
    assert not any(line.strip() in html for line in reference if "@" in line)


def test_markdown_report_lists_checks_and_warnings(tmp_path, session):
    from conftest import notebook
    from grader import report
    from grader.grade import grade_file

    path = tmp_path / "nb.ipynb"
    code = (SUBMISSIONS / "correct" / "matmul.py").read_text()
    path.write_text(json.dumps(notebook(code, "1 / 0")))
    markdown = report.render_markdown(grade_file(path, session))
    assert "## Checks" in markdown and "ZeroDivisionError" in markdown and "## Warnings" in markdown


def test_error_report_explains_the_error(session):
    from grader import report
    from grader.grade import grade_file

    result = grade_file(SUBMISSIONS / "notebooks" / "syntax-error.ipynb", session)
    html = report.render_html(result)
    assert "could not be graded" in html and "SyntaxError" in html


def test_result_round_trips_through_json(session):
    from grader.grade import grade_file
    from grader.results import GradeResult

    result = grade_file(SUBMISSIONS / "buggy" / "relu-after-fc3.py", session)
    assert GradeResult.from_json(result.to_json()) == result


def test_a_folder_without_submissions_is_a_usage_error(tmp_path):
    (tmp_path / "notes.txt").write_text("no code here")
    proc = grader("grade", tmp_path, "--json")
    assert proc.returncode == 2
    assert "No .py or .ipynb submission" in json.loads(proc.stdout)["error"]["message"]


def test_an_unwritable_output_folder_is_a_usage_error_without_traceback(tmp_path):
    blocker = tmp_path / "taken"
    blocker.write_text("a file, not a folder")
    proc = grader("grade", SUBMISSIONS / "correct" / "matmul.py", "--out", blocker, "--json", "--no-full-scale")
    assert proc.returncode == 2
    assert "Cannot write the reports" in json.loads(proc.stdout)["error"]["message"]
    assert "Traceback" not in proc.stderr
