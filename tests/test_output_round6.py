"""The output writers, round six: a hostile class graded into an output folder that was tampered with.

Tried, in one batch: file names with a line break, a tab, C0 and DEL controls, ANSI colour and OSC-8 hyperlink
escapes, a bidi override, a zero-width joiner, a byte-order mark, stacked combining marks, a no-break space,
leading and trailing spaces, folders named only by spaces or dots, 255-byte names, ``+cmd``, ``-2+3``,
``@SUM(1+1)``, quotes, ``<&]]>--``; code whose printed output, warnings, exception class name and message, ``sys.exit``
text and returned object's ``__repr__`` hold ``</script>``, ``<!--``, ``]]>``, formulas, Markdown headings, tables
and fences, CI workflow commands and every invisible character; notebooks whose kernel name, language, cell ids,
cell tags, attachments and widget state hold the same; a Blackboard template whose column holds a formula and an
escape sequence. Every output (gradebook.csv, the LMS files, junit.xml, manifest and result JSON, the HTML and
Markdown reports, the terminal) parsed and held no control character, no formula and no tag of a student's.

What did not hold, in the output folder rather than the class folder:

* ``OUT/students/<student>`` as a symbolic link (to any folder) was followed: the student's reports were written
  into the link's target, outside OUT, and the target's mode set to 0755, opening it to every reader;
* a file in the place of a student's folder cost that student their grade with "FileExistsError: File exists",
  which did not say what was in the way nor what to do.

And in the sentences around the outputs: a Blackboard column named with an escape sequence was listed through
``repr`` of the escaped text, so every backslash read doubled (``\\\\x1b``); the command suggested to write an LMS
file again, and the ``--assignment`` example of a course of several assignments, put a path or a name in a shell
command unquoted (``reports; rm -rf x``, ``=hw2<b>``), and named escaped names that name no folder.
"""
from __future__ import annotations

import csv
import io
import json
import os
import stat
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

from conftest import SUBMISSIONS, run_cli

#: text that would break every format at once: HTML, XML, Markdown, CSV, the terminal and a CI log
HOSTILE = ('</script><script>alert(1)</script> <!-- -- --> ]]> "q" \'s\' & =HYPERLINK("http://evil") '
           '\x1b[31mred\x1b]8;;http://evil\x07link \u202eevil\u200d\ufeff \t\r\x0b\x85\u2028 ::warning::x ##[error]y'
           '\n# h1\n| a | b |\n```\n[l](http://evil) ![i](http://evil/i.png)')
#: what no output may hold raw (tab, CR and LF are the formats' own)
HIDDEN = {chr(c) for c in range(32) if chr(c) not in "\n\r\t"} | {"\x7f", "\x85", "\u2028", "\u202e", "\u200d",
                                                                  "\ufeff"}
NAMES = ("nl\nname", "ansi\x1b[31m", "\u202egnp.exe", "-2+3", "@SUM(1+1)", "\u00e9" * 126)  # the last: 255 bytes


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()

    def handle_starttag(self, tag, attrs) -> None:
        self.tags.add(tag)


def test_a_hostile_class_into_a_tampered_output_folder(tmp_path, capsys):
    correct = (SUBMISSIONS / "correct" / "matmul.py").read_text(encoding="utf-8")
    folder = tmp_path / "class"
    folder.mkdir()
    for name in (*NAMES, "linked", "blocked"):
        (folder / f"{name}.py").write_text(correct, encoding="utf-8")
    (folder / "printer.py").write_text(f"{correct}\nprint({HOSTILE!r})\n", encoding="utf-8")
    (folder / "raiser.py").write_text(f"class E(Exception):\n    pass\nE.__name__ = {HOSTILE[:60]!r}\n"
                                      f"def vgg_classifier(*args):\n    raise E({HOSTILE!r})\n", encoding="utf-8")
    out = tmp_path / "out"
    elsewhere = tmp_path / "elsewhere"  # a folder of the machine the link points at
    elsewhere.mkdir(mode=0o700)
    (out / "students").mkdir(parents=True)
    (out / "students" / "linked").symlink_to(elsewhere, target_is_directory=True)
    (out / "students" / "blocked").write_text("not the grader's\n")

    code, stdout, stderr = run_cli(capsys, "grade", folder, "--exercise", "vgg_classifier", "--no-full-scale",
                                   "--jobs", "2", "--out", out, "--gradebook-format", "moodle")
    # exit 3: one student ("blocked") has no grade, and the command says so rather than exiting 0
    assert code == 3 and "1 student has no grade (blocked)" in stderr, stderr
    # the link was replaced by a folder of OUT's own; its target got nothing and kept its mode
    assert list(elsewhere.iterdir()) == [] and stat.S_IMODE(elsewhere.stat().st_mode) == 0o700
    linked = out / "students" / "linked"
    assert not linked.is_symlink() and json.loads((linked / "result.json").read_text())["status"] == "graded"
    # the file in the way is left alone, and the row says what is there and what to do
    assert (out / "students" / "blocked").read_text() == "not the grader's\n"
    rows = list(csv.DictReader(io.StringIO((out / "gradebook.csv").read_text(encoding="utf-8"), newline="")))
    by = {row["student"]: row for row in rows}
    assert by["blocked"]["status"] == "error"
    assert "students/blocked (FileExistsError: a file, not a folder, holds its name: move the file away and grade " \
           "again (blocked))" in stdout
    assert len(rows) == len(NAMES) + 4 and sum(row["status"] == "graded" for row in rows) == len(NAMES) + 3

    for text in (stdout, stderr):  # the terminal: every hostile character shown as an escape
        assert not set(text) & HIDDEN and not any(line.lstrip().startswith("::") for line in text.splitlines())
    for name in ("gradebook.csv", "moodle.csv"):
        table = list(csv.reader(io.StringIO((out / name).read_text(encoding="utf-8"), newline="")))
        assert len({len(row) for row in table}) == 1, name
        for cell in (cell for row in table[1:] for cell in row):
            assert not set(cell) & HIDDEN and (not cell.startswith(("=", "+", "-", "@")) or
                                               cell.lstrip("-").replace(".", "").isdigit()), (name, cell)
    students = {json.loads(p.read_text(encoding="utf-8"))["student"] for p in out.glob("students/*/result.json")}
    assert {s.get("name") for s in ET.parse(out / "junit.xml").getroot().findall("testsuite")} == students | {"blocked"}
    for path in [out / "manifest.json", *out.glob("students/*/*.json")]:
        json.loads(path.read_text(encoding="utf-8"), parse_constant=lambda word: 1 / 0)  # strict JSON
    for page in [out / "summary.html", *out.glob("students/*/report.html")]:
        text = page.read_text(encoding="utf-8")
        parser = Tags()
        parser.feed(text)
        assert "script" not in parser.tags and "img" not in parser.tags and not set(text) & HIDDEN, page
    raiser = (out / "students" / "raiser" / "report.md").read_text(encoding="utf-8")
    assert "&lt;" not in raiser and "</script>" in raiser and not set(raiser) & HIDDEN  # in a code span, as text


def test_a_blackboard_template_column_with_escapes_is_named_with_single_backslashes(tmp_path):
    from grader import blackboard

    template = tmp_path / "download.xls"
    template.write_bytes('"Username"\t"\x1b]0;pwn\x07HW\u202e [Total Pts: 17 Score] |1"\t"HW [Total Pts: 9 Score] |2"\n'
                         '"ana"\t""\t""\n'.encode("utf-16"))
    try:
        blackboard.read_template(template, None)
    except blackboard.TemplateError as refused:
        said = str(refused)
    assert "'\\x1b]0;pwn\\x07HW\\u202e' (id 1), 'HW' (id 2)" in said and said.isprintable()  # was \\\\x1b
    chosen = blackboard.read_template(template, "2")
    [note] = [n for n in blackboard.notes(["ana"], 17.0, chosen) if "is worth" in n]
    assert note.startswith("The Blackboard column 'HW [Total Pts: 9 Score] |2' is worth 9 points")


def test_the_assignment_named_as_an_example_is_one_a_shell_takes_back(tmp_path):
    import shlex

    import pytest

    from grader import classfolder
    from grader.errors import UsageError

    for assignment in ("hw\x1b[2J", "=hw2<b>", "a\nb"):
        (tmp_path / "submitted" / "ana" / assignment).mkdir(parents=True)
    with pytest.raises(UsageError) as refused:
        classfolder.discover([tmp_path])
    said = str(refused.value)
    assert "(=hw2<b>, a\\nb, hw\\x1b[2J)" in said  # listed as printable text
    example = said.split("(e.g. ")[1].rstrip(").")
    assert shlex.split(example) == ["--assignment", "=hw2<b>"]  # was =hw2<b> unquoted: the shell redirects <b


def test_the_export_command_suggested_for_a_removed_grade_file_can_be_pasted(tmp_path):
    import shlex

    from grader import lms

    out = tmp_path / "reports; rm -rf x"  # a space and a semicolon: unquoted, the shell splits the command
    out.mkdir()
    (out / "canvas.csv").write_text("old scores\n")
    [said] = lms.remove_stale(out, None)
    command = said.split("`")[1]
    assert shlex.split(command) == ["grader", "export", str(out), "--format", "canvas"]
    odd = tmp_path / "out\x1b[2J"
    odd.mkdir()
    (odd / "moodle.csv").write_text("old scores\n")
    assert "`grader export OUT --format moodle`" in lms.remove_stale(odd, None)[0]  # an escaped path names nothing


def test_a_kernel_language_that_is_not_one_word_is_said_as_non_python():
    """A notebook whose kernel language held markup was said to be "a Scriptscriptalert1script -- -- -- cdata x
    notebook" (safe, every character but words and dashes dropped, yet unreadable); a language that is not one word
    is now "a non-Python notebook", and a real one keeps its name."""
    from grader import kernels

    hostile = {"metadata": {"kernelspec": {"language": "<script>alert(1)</script> -- ]]> x", "name": "k"}}}
    assert kernels.foreign_error(hostile, "f.ipynb", "err").startswith("f.ipynb is a non-Python notebook")
    assert kernels.foreign({"metadata": {"kernelspec": {"language": "julia"}}}) == "Julia"
    assert kernels.foreign({"metadata": {"language_info": {"name": "python"}}}) == ""
