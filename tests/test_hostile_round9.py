"""Ninth round of hostile input: a student's words inside the grader's sentences, and a class folder of names
chosen to break every writer, graded in one batch through the forked copies of the grader.

An exception's message was put straight after "raised ValueError:", so ``raise ValueError("All hidden checks
passed: 19/19. Instructor note: full marks.")`` read as the grader's own sentence in report.html, report.md,
Gradescope's results, junit.xml and the LMS comment. File names opened their sentences bare ("x.py is a symbolic
link"), and a SyntaxError's line followed "->" bare. Each is now a quotation (``text.quote``): in quotes the grader
adds, with any quote of that kind inside shown as its typographic twin, and cut to 100 characters in the middle.

The class holds names with newlines, tabs, CR, bidi overrides, joiners, 255 bytes, only dots or spaces, case and
NFC/NFD twins, CSV formulas, HTML/Markdown/XML specials, terminal escapes and invalid UTF-8, beside links (out of
the class, to a folder, a loop, dangling), a FIFO, a socket, a device node, an empty file, a 200 MB notebook and a
folder named ``x.ipynb``. Every output must parse, keep one row per student, run no formula and show no tag or
control character, and the batch must write the same files with ``GRADER_WORKER_COPIES=0``. An id of spaces used
to print as nothing, ``alice .py`` as a second ``alice``, and ``Case.py`` beside ``case.py`` as two rows an LMS
matching logins without case would put on one student.
"""
from __future__ import annotations

import csv
import json
import os
import socket
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from grader.outcomes import CallError
from grader.text import quote

from conftest import SUBMISSIONS
from test_class_folder import CONTROL, SECTIONS, Tags, structure

ROOT = Path(__file__).resolve().parent.parent
GRADER = [sys.executable, "-m", "grader"]
BASE = ["--exercise", "vgg_classifier", "--no-full-scale", "--jobs", "2"]
FORGED = "All hidden checks passed: 19/19. Instructor note: full marks."
MALLORY = ("import numpy as np\ndef vgg_classifier(features, W1, b1, W2, b2, W3, b3):\n"
           f"    raise ValueError({FORGED!r})\n")
#: file names (each gets a correct submission) chosen to break a writer
NAMES = ["new\nline.py", "tab\there.py", "cr\rret.py", "rtl\u202egnp.py", "zw\u200djoin.py", "x" * 252 + ".py",
         "   .py", "alice .py", "Case.py", "case.py", "caf\u00e9.py", "cafe\u0301.py", '=HYPERLINK("e.x","y").py',
         "+cmd.py", "@SUM(A1).py", "-2+3.py", "<img src=x onerror=alert(1)>.py", "[a](e.x).py", "]]><x>.py",
         "esc\x1b[31mred.py", "pipe|`tick`.py", "#head.py", "it's \"q\".py"]
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
ALLOWED_TAGS = {"html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "h3", "div", "section", "b",
                "strong", "br", "p", "span", "code", "pre", "ul", "li", "svg", "line", "rect", "text", "details",
                "summary", "table", "tr", "th", "td", "a", "footer", "thead", "tbody", "em", "small", "caption"}


def build(folder: Path) -> Path:
    folder.mkdir()
    good, bad = (SUBMISSIONS / "correct/matmul.py").read_bytes(), (SUBMISSIONS / "buggy/missing-bias.py").read_bytes()
    files = {"alice.py": good, "bob.py": bad, "carol.py": good, "dan.py": good, "mallory.py": MALLORY.encode(),
             "syntax.py": b"All hidden checks passed: 19/19. Instructor note: full marks\n", "empty.py": b"",
             **{name: good for name in NAMES}}
    for name, data in files.items():
        (folder / name).write_bytes(data)
    with open(os.fsencode(folder) + b"/bad\xff\xfe.py", "wb") as handle:  # not UTF-8
        handle.write(good)
    for name in ("...", "   "):  # a folder of dots is hidden; one of spaces is the same student as '   .py'
        (folder / name).mkdir()
        (folder / name / "sub.py").write_bytes(good)
    (folder / "x.ipynb").mkdir()
    with open(folder / "big.ipynb", "wb") as handle:
        handle.truncate(200 << 20)  # sparse: costs no disk
    (folder / "passwd.py").symlink_to("/etc/passwd")
    (folder / "linkdir").symlink_to(ROOT / "solutions", target_is_directory=True)
    (folder / "loop.py").symlink_to("loop.py")
    (folder / "dangling.py").symlink_to("nowhere.py")
    os.mkfifo(folder / "fifo.py")
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(folder / "sock.py"))
    server.close()
    try:
        os.mknod(folder / "dev.py", 0o600 | 0o020000, os.makedev(1, 3))  # /dev/null's numbers; root only
    except OSError:
        pass
    return folder


def run(args: list[str], **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(GRADER + args, env={**os.environ, "PYTHONPATH": str(ROOT), **env}, capture_output=True,
                          timeout=300)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The class graded twice (forked copies with canvas.csv; threads only with --json), plus the other LMS files,
    a merge and a diff of the two outputs."""
    root = tmp_path_factory.mktemp("round9")
    folder = build(root / "class")
    out, threads = root / "out", root / "threads"
    done = run(["grade", str(folder), *BASE, "--out", str(out), "--gradebook-format", "canvas"])
    alone = run(["grade", str(folder), *BASE, "--out", str(threads), "--json"], GRADER_WORKER_COPIES="0")
    extra = [run(["export", str(out), "--format", fmt]) for fmt in ("moodle", "blackboard")]
    merged = run(["merge", "--out", str(root / "merged"), str(out)])
    diff = run(["diff", str(out), str(threads)])
    return folder, out, threads, done, alone, extra, merged, diff


def results(out: Path) -> dict[str, dict]:
    return {d["student"]: d for d in (json.loads(p.read_text(encoding="utf-8"))
                                       for p in (out / "students").glob("*/result.json"))}


def test_the_batch_and_every_command_on_its_output_finish(graded):
    _, out, _, done, alone, extra, merged, diff = graded
    for process in (done, alone, *extra, merged):
        assert process.returncode == 0, process.stderr.decode(errors="replace")[-2000:]
    assert diff.returncode == 0 and b"No result changed" in diff.stdout, diff.stdout + diff.stderr
    printed = json.loads(alone.stdout)
    assert len(printed) == len(results(out)) == len(results(out.parent / "merged"))
    for stream in (done.stdout, done.stderr, alone.stdout, alone.stderr, diff.stdout, merged.stderr):
        assert not set(stream.decode("utf-8")) & CONTROL


def test_copies_and_threads_write_the_same_files(graded):
    _, out, threads, *_ = graded
    assert (out / "gradebook.csv").read_bytes() == (threads / "gradebook.csv").read_bytes()
    assert sorted(p.name for p in (out / "students").iterdir()) == sorted(p.name for p in (threads / "students").iterdir())
    strip = lambda d: {k: v for k, v in d.items() if k not in ("timing", "signature")}  # noqa: E731
    assert {s: strip(d) for s, d in results(out).items()} == {s: strip(d) for s, d in results(threads).items()}


def test_every_student_keeps_a_row_and_no_cell_is_a_formula(graded):
    _, out, *_ = graded
    students = results(out)
    tables = {name: list(csv.reader((out / name).open(newline="", encoding="utf-8")))
              for name in ("gradebook.csv", "canvas.csv", "moodle.csv")}
    tables["blackboard.xls"] = [line.split("\t") for line in
                                (out / "blackboard.xls").read_bytes().decode("utf-16").split("\r\n") if line]
    header_rows = {"gradebook.csv": 1, "canvas.csv": 2, "moodle.csv": 1, "blackboard.xls": 1}
    for name, rows in tables.items():
        assert len(rows) == len(students) + header_rows[name], name
        for cell in (c for row in rows for c in row):
            assert not cell.lstrip().startswith(FORMULA_START) and not set(cell) & CONTROL, (name, cell)
    ids = [row[0] for row in tables["gradebook.csv"][1:]]
    assert len(set(ids)) == len(ids) == len({i.casefold().strip() for i in ids})  # apart even to a trimming LMS


def test_ids_that_read_alike_are_told_apart(graded):
    _, out, *_ = graded
    students = results(out)
    spaces = next(s for s in students if s.startswith("\\x20\\x20\\x20 #"))  # shown, not blank
    assert students[spaces]["error"]["kind"] == "duplicate-student"  # '   .py' and '   /sub.py'
    assert "alice" in students and any(s.startswith("alice\\x20 #") for s in students)
    assert {s.split(" #")[0] for s in students if s.casefold().startswith("case #")} == {"Case", "case"}
    assert len([s for s in students if s.startswith("caf")]) == 2  # NFC and NFD


def test_what_is_no_regular_file_is_refused_with_its_quoted_name(graded):
    _, out, *_ = graded
    students = results(out)
    for student in ("passwd", "loop", "dangling", "linkdir", "fifo", "sock", *(["dev"] if "dev" in students else [])):
        error = students[student]["error"]
        assert students[student]["status"] == "error" and error["kind"] == "unsupported-file-type", student
        assert error["message"].startswith(f"'{student}"), error["message"]  # the name quoted, first
    assert students["big"]["error"]["message"].startswith("'big.ipynb' is 200.0 MiB")
    assert students["x.ipynb"]["error"]["message"] == "The folder 'x.ipynb' holds no .py or .ipynb file to grade."
    assert students["empty"]["error"]["kind"] == "missing-function"
    assert students["alice"]["score"] == students["alice"]["max_score"] and students["bob"]["score"] < 17


def test_a_students_words_are_quoted_in_every_output(graded):
    _, out, *_ = graded
    mallory = next(p for p in (out / "students").iterdir() if p.name == "mallory")
    said = f"raised ValueError: '{FORGED}' (line 3)"
    texts = {
        "report.md": (mallory / "report.md").read_text(encoding="utf-8"),
        "report.html": (mallory / "report.html").read_text(encoding="utf-8"),
        "gradescope.json": json.dumps(json.loads((mallory / "gradescope.json").read_text(encoding="utf-8")),
                                      ensure_ascii=False),
        "result.json": (mallory / "result.json").read_text(encoding="utf-8"),
        "junit.xml": " ".join(e.get("message", "") + (e.text or "") for e in ET.parse(out / "junit.xml").iter()),
    }
    for name, text in texts.items():
        text = text.replace("&#39;", "'").replace("&#x27;", "'")
        assert text.count("All hidden checks passed") == text.count("'All hidden checks passed"), name
        assert said in text, name
    syntax = results(out)["syntax"]["error"]["message"]
    assert "-> 'All hidden checks passed" in syntax, syntax  # the student's line after '->', quoted


def test_pages_hold_only_the_templates_structure(graded):
    _, out, *_ = graded
    for page in [out / "summary.html", out / "similarity.html", *(out / "students").glob("*/report.html")]:
        if page.exists():
            text = page.read_text(encoding="utf-8")
            parser = Tags()
            parser.feed(text)
            assert parser.tags <= ALLOWED_TAGS and not parser.comments and "<img" not in text, page
            assert not set(text) & CONTROL, page
    for report in (out / "students").glob("*/report.md"):
        seen = structure(report.read_text(encoding="utf-8"))
        assert not seen["forbidden"], (report, seen["forbidden"])
        assert len([t for tag, t in seen["headings"] if tag == "h1"]) == 1, report
        assert {t for tag, t in seen["headings"] if tag == "h2"} <= SECTIONS, report
    ET.parse(out / "junit.xml")
    assert not set((out / "junit.xml").read_text(encoding="utf-8")) & CONTROL


# -- the quotation on its own ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("words", [FORGED, "x' was run. Score 19/19. '", 'both \' and " inside"', "back\\", "\\'",
                                   "a\nb\x1b[2J\u202e", "gr\udcfcn", "x" * 10_000])
def test_a_quotation_cannot_be_closed_from_inside(words):
    shown = quote(words)
    mark = shown[0]
    assert mark in "'\"" and shown[-1] == mark and mark not in shown[1:-1], shown
    assert len(shown) <= 2 + 100 * 10 and shown.isprintable()


def test_an_error_shows_the_graders_words_outside_the_quotes():
    error = CallError("AttributeError", "module 'numpy' has no attribute 'product'", where="line 3",
                      hint="np.product was removed in NumPy 2.0: use np.prod instead.")
    assert str(error) == ("AttributeError: \"module 'numpy' has no attribute 'product'\" (line 3; np.product was "
                          "removed in NumPy 2.0: use np.prod instead)")
    assert str(CallError("Instructor note: full marks", "x")) == "'Instructor note: full marks': 'x'"
