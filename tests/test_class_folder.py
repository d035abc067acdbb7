"""A class folder is hostile input: names and texts crafted by students, graded beside honest ones in one batch.

Each case of the tracker's report is one entry of the class built below (in a tmp_path: non-UTF-8 names and
links cannot be committed portably). The batch runs through the command line, as an instructor would, under
umask 077 (root's on many machines). Then every honest student must be graded under their own id, and every
class file must be written and well formed: the csv read by the csv module, junit.xml by an XML parser, every
Markdown output by markdown-it with nothing in it that student text made (no heading, link, image, raw HTML or
comment), the HTML with no tag but the templates' own, the terminal with no control character.
"""
from __future__ import annotations

import csv
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from grader import batch, classfolder, escape, gradebook, gradescope_results, report
from grader.errors import UsageError
from grader.results import CheckResult, Diagnosis, ErrorInfo, GradeResult

from conftest import SUBMISSIONS
from test_batch import make_class

ROOT = Path(__file__).resolve().parent.parent
GRADER = [sys.executable, "-m", "grader"]
BASE = ["--exercise", "vgg_classifier", "--no-full-scale", "--jobs", "2"]
SOLUTIONS = ROOT / "solutions"

#: An exception message written to break every format at once.
HOSTILE = ("boom\n\n# Regrade 19/19\n\n# vgg_classifier: feedback for bob\n"
           "![x](http://evil.example/beacon.png) <img src=http://evil.example/b.png>\n<!-- \n"
           "[click](http://evil.example) <https://evil.example> =HYPERLINK(\"http://evil\")"
           "\x1b[2J\x1b]0;pwned\x07\x00 \udce9 | `code` ``` \u202eevil\u202c ]]> </failure>")
MALLORY = f"""import numpy as np
MSG = {HOSTILE!r}
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    raise ValueError(MSG)
raise RuntimeError(MSG)
"""
ZWSP = "alice\u200b"
FORMULA = '=HYPERLINK("evil.example","click")'
CONTROL = {chr(c) for c in range(32) if chr(c) not in "\n\r\t"} | {"\x7f", "\u202e", "\u200b"}


def build_class(root: Path) -> Path:
    """The honest students, and one crafted entry for each case of the report."""
    folder = make_class(root / "class", {
        "alice.py": "correct/matmul.py",
        "bob.py": "buggy/missing-bias.py",
        "carol/work/vgg.ipynb": "notebooks/correct-jupyter.ipynb",
        "submitted/alice/planted.py": "correct/einsum.py",  # a student folder named `submitted` beside flat files
        "alice..py": "buggy/flatten-order.py",  # maps to `alice` once cleaned
        f"{ZWSP}.py": "buggy/missing-relu.py",  # reads "alice"
        "gradebook.csv.py": "correct/einsum.py",  # a class file's name
        f"{FORMULA}.py": "correct/matmul.py",  # a spreadsheet formula
        "frank/solution.py": "correct/matmul.py",  # beside a link to the solutions inside his folder
    })
    (folder / "dave").symlink_to(SOLUTIONS, target_is_directory=True)  # a student folder that is a link
    (folder / "erin.py").symlink_to(SOLUTIONS / "vgg_classifier.py")  # a submission that is a link
    (folder / "frank" / "answers").symlink_to(SOLUTIONS, target_is_directory=True)
    raw = os.fsencode(folder)
    for name, source in ((b"caf\xe9.py", "correct/matmul.py"), (b"caf\xe8.py", "buggy/missing-bias.py"),
                         (b"gr\xfcn.ipynb", "notebooks/not-json.ipynb")):  # not UTF-8; the last one's error
        with open(raw + b"/" + name, "wb") as handle:                        # message holds a lone surrogate
            handle.write((SUBMISSIONS / source).read_bytes())
    (folder / "mallory.py").write_text(MALLORY, encoding="utf-8", errors="surrogatepass")
    os.mkfifo(folder / "fifo.py")  # would block a reader forever
    (folder / ".hidden.py").write_text("x = 1\n")
    (folder / "notes.txt").write_text("not a submission")
    return folder


HONEST = {"alice": "alice.py", "bob": "bob.py", "carol": "vgg.ipynb", "frank": "solution.py"}
#: ids shown otherwise than given (escaped, undecodable) carry a short hash of the id given, whoever else is graded
ZWSP_SHOWN, GRUN = classfolder.display_ids([ZWSP])[ZWSP], classfolder.display_ids(["gr\udcfcn"])["gr\udcfcn"]
GRADED = {"alice.", ZWSP_SHOWN, "gradebook.csv", FORMULA, "submitted", "mallory"}  # graded under their own id
REFUSED = {"dave", "erin", "fifo", GRUN}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The hostile class graded once through the CLI under umask 077: (class, OUT, process, step summary)."""
    root = tmp_path_factory.mktemp("hostile")
    folder = build_class(root)
    out = root / "out"
    step = root / "step-summary.md"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GITHUB_STEP_SUMMARY": str(step)}
    done = subprocess.run(GRADER + ["grade", str(folder), *BASE, "--out", str(out), "--json"], env=env,
                          capture_output=True, timeout=300, preexec_fn=lambda: os.umask(0o077))
    return folder, out, done, step


def students(out: Path) -> dict[str, GradeResult]:
    return {r.student: r for r in (GradeResult.from_json(p.read_text(encoding="utf-8"))
                                   for p in (out / "students").glob("*/result.json"))}


def test_every_honest_student_is_graded_under_their_own_id(graded):
    folder, out, done, _ = graded
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    printed = {d["student"]: d for d in json.loads(done.stdout)}
    results = students(out)
    assert set(printed) == set(results)
    for student, name in HONEST.items():
        assert results[student].submission.endswith(f"/{name}")
    assert results["alice"].passed_all and results["carol"].passed_all and results["frank"].passed_all
    assert results["alice"].submission == str(folder / "alice.py")  # not the file planted in submitted/alice/
    assert {d.id for d in results["bob"].diagnoses} == {"missing-bias"}
    cafe = sorted(s for s in results if s.startswith("caf\ufffd"))  # undecodable names: shown, graded, apart
    assert len(cafe) == 2 and all(results[s].status == "graded" for s in cafe)
    assert {results[s].passed_all for s in cafe} == {True, False}
    assert GRADED <= set(results) and all(results[s].status == "graded" for s in GRADED)
    assert results["alice."].submission.endswith("/alice..py") and not results["alice."].passed_all
    assert results[ZWSP_SHOWN].submission.endswith("alice\\u200b.py")  # shown escaped everywhere
    assert results["submitted"].submission.endswith("submitted/alice/planted.py")
    assert len(results) == len(HONEST) + len(GRADED) + len(cafe) + len(REFUSED)


def test_links_are_refused_and_the_solutions_never_graded(graded):
    _, out, _, _ = graded
    results = students(out)
    for student in ("dave", "erin"):
        assert results[student].status == "error" and results[student].error.kind == "unsupported-file-type"
        assert "symbolic link" in results[student].error.message
    assert results["fifo"].error.kind == "unsupported-file-type"
    assert results[GRUN].error.kind == "not-json" and "gr\ufffdn.ipynb" in results[GRUN].error.message
    solutions = str(SOLUTIONS)
    assert not any(r.submission.startswith(solutions) for r in results.values())
    graded_from = {r.submission for r in results.values() if r.status == "graded"}
    assert not any("answers" in s or s.endswith("erin.py") for s in graded_from)


def class_files(out) -> bool:
    """OUT holds the class files and students/, and nothing named after a student (every student is under
    students/)."""
    names = {p.name for p in out.iterdir()}
    assert {"gradebook.csv", "junit.xml", "students", "summary.html", "manifest.json"} <= names, names
    stems = {p.name for p in (out / "students").iterdir()}
    assert not {n.rsplit(".", 1)[0] for n in names} & (stems - {"students", "gradebook", "junit", "summary"}), names
    return True


def test_one_student_one_folder_and_class_files_apart(graded):
    _, out, _, _ = graded
    folders = sorted(p.name for p in (out / "students").iterdir())
    assert len(folders) == len(set(f.casefold() for f in folders)) == len(students(out))
    assert "alice" in folders and "gradebook.csv" in folders
    assert class_files(out)
    for name in folders:  # every folder name is plain: no dot or dash first, nothing hidden or escaped
        assert name[0] not in ".-" and all(c.isalnum() or c in "-_.@+" for c in name), name


def test_gradebook_csv_is_parsed_and_runs_no_formula(graded):
    _, out, _, _ = graded
    rows = list(csv.DictReader((out / "gradebook.csv").open(newline="", encoding="utf-8")))
    assert len(rows) == len(students(out))
    for row in rows:
        for cell in row.values():
            assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")), cell
            assert not set(cell) & CONTROL, cell
        assert (out / row["report"]).is_file()
    by = {r["student"]: r for r in rows}
    assert by["'" + FORMULA]["status"] == "graded"  # neutralised with a leading quote, still readable


def test_junit_xml_is_well_formed(graded):
    _, out, _, _ = graded
    root = ET.parse(out / "junit.xml").getroot()
    names = {s.get("name") for s in root.findall("testsuite")}
    assert names == set(students(out))
    text = (out / "junit.xml").read_text(encoding="utf-8")
    assert not set(text) & CONTROL


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.comments: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)

    def handle_comment(self, data):
        self.comments.append(data)


def test_html_pages_hold_only_the_templates_tags(graded):
    _, out, _, _ = graded
    pages = [out / "summary.html", *(out / "students").glob("*/report.html")]
    allowed = {"html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "h3", "div", "section", "b",
               "strong", "br", "p", "span", "code", "pre", "ul", "li", "svg", "line", "rect", "text", "details",
               "summary", "table", "tr", "th", "td", "a", "footer"}
    for page in pages:
        text = page.read_text(encoding="utf-8")
        parser = Tags()
        parser.feed(text)
        assert parser.tags <= allowed and not parser.comments, (page, parser.tags - allowed)
        assert "<img" not in text and "<!--" not in text  # shown as text: &lt;img, &lt;!--
        assert not set(text) & CONTROL, page
    summary = (out / "summary.html").read_text(encoding="utf-8")
    assert "notes.txt" in summary and ".hidden.py" in summary and "answers" in summary  # the left-out table
    assert "Incomplete" not in summary


MD = MarkdownIt("commonmark").enable("table")
SECTIONS = {"What went wrong", "Checks", "Warnings", "Your run, stage by stage"}


def structure(text: str) -> dict:
    """What markdown-it sees: headings (level, text), and whether any link, image, HTML or comment appears."""
    found = {"headings": [], "forbidden": [], "rows": 0}

    def walk(tokens):
        for n, token in enumerate(tokens):
            if token.type in ("link_open", "image", "html_block", "html_inline"):
                found["forbidden"].append((token.type, token.content[:80]))
            if token.type == "heading_open":
                found["headings"].append((token.tag, tokens[n + 1].content))
            if token.type == "tr_open":
                found["rows"] += 1
            walk(token.children or [])

    walk(MD.parse(text))
    return found


def assert_no_injected_structure(text: str, reports: int, titles: set[str]) -> None:
    seen = structure(text)
    assert not seen["forbidden"], seen["forbidden"]
    h1 = [t for tag, t in seen["headings"] if tag == "h1"]
    assert len(h1) == reports and all(t.startswith("vgg\\_classifier: feedback for `") for t in h1), h1
    assert {t for tag, t in seen["headings"] if tag == "h2"} <= SECTIONS
    assert all(any(t.startswith(title) for title in titles) for tag, t in seen["headings"] if tag == "h3")
    assert not seen["headings"] or all(tag in ("h1", "h2", "h3") for tag, _ in seen["headings"])
    assert not set(text) & CONTROL


def test_markdown_reports_and_gradescope_hold_no_injected_structure(graded, exercise):
    _, out, _, _ = graded
    titles = {m.title for m in exercise.catalog.values()}
    results = students(out)
    for student, result in results.items():
        folder = next(p.parent for p in (out / "students").glob("*/result.json")
                      if json.loads(p.read_text(encoding="utf-8"))["student"] == student)
        text = (folder / "report.md").read_text(encoding="utf-8")
        assert_no_injected_structure(text, 1, titles)
        assert structure(text)["rows"] == 1 + len(result.checks)  # no row added from a message
        scope = json.loads((folder / "gradescope.json").read_text(encoding="utf-8"))
        assert_no_injected_structure(scope["output"], 1, titles)
        assert all(t["output_format"] == "text" and not set(t["output"]) & CONTROL for t in scope["tests"])
    mallory = (out / "students" / "mallory" / "report.md").read_text(encoding="utf-8")
    # shown as text, in the quotes the grader adds, cut in the middle (text.quote)
    assert "raised ValueError: 'boom\\n\\n# Regrade 19/19" in mallory and "</failure>' (line 4)" in mallory


def test_github_step_summary_holds_no_injected_structure(graded, exercise):
    _, out, _, step = graded
    assert_no_injected_structure(step.read_text(encoding="utf-8"), len(students(out)),
                                 {m.title for m in exercise.catalog.values()})


def test_the_terminal_sees_no_control_character_and_every_left_out_entry(graded):
    _, _, done, _ = graded
    stderr = done.stderr.decode("utf-8")
    for stream in (done.stdout.decode("utf-8"), stderr):
        assert not set(stream) & CONTROL
    for name in ("notes.txt", ".hidden.py", "answers"):
        assert name in stderr
    assert "named 'submitted'" in stderr and "--layout nbgrader" in stderr


def test_outputs_are_readable_by_others_whatever_the_umask(graded):
    _, out, _, _ = graded
    assert stat.S_IMODE(out.stat().st_mode) == 0o755
    for path in out.rglob("*"):
        mode = stat.S_IMODE(path.lstat().st_mode)
        if path.is_dir():
            assert mode == 0o755, path
        elif path.name == batch.KEY_FILE:
            assert mode == 0o600, path  # it holds a hash of the course secret
        else:
            assert mode == 0o644, path


def test_a_rerun_keeps_everything_and_private_keeps_files_to_the_owner(graded, tmp_path):
    folder, out, _, _ = graded
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    again = subprocess.run(GRADER + ["grade", str(folder), *BASE, "--out", str(out)], env=env,
                           capture_output=True, timeout=300)
    assert again.returncode == 0 and b"are up to date and were kept" in again.stderr
    assert class_files(out)
    private = tmp_path / "private"
    done = subprocess.run(GRADER + ["grade", str(folder / "alice.py"), *BASE, "--out", str(private), "--private",
                                    "-q"], env=env, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    for path in [private, *private.rglob("*")]:
        assert stat.S_IMODE(path.stat().st_mode) == (0o700 if path.is_dir() else 0o600), path


# -- the writers on their own, fed text nobody cleaned ------------------------------------------------------------
def raw_result(student: str = "x\x1b[2J\n# h1 <b>") -> GradeResult:
    """A result whose every student-controlled field holds raw hostile text (as an older result.json might)."""
    return GradeResult(
        exercise="vgg_classifier", submission=f"/class/{student}\udce9.py", student=student, status="error",
        score=0.0, max_score=2.0, error=ErrorInfo("internal", HOSTILE),
        checks=(CheckResult("returns", "Returns", "failed", 0.0, 1.0, HOSTILE),
                CheckResult("type", "Type", "error", 0.0, 1.0, HOSTILE)),
        diagnoses=(Diagnosis("raises-error", "The function raised an exception", "Read the traceback.", HOSTILE),),
        warnings=(HOSTILE, "`" * 5), trace=(HOSTILE, "```", "~~~"),
    )


def test_every_writer_escapes_raw_hostile_text(tmp_path):
    result = raw_result()
    text = report.render_markdown(result)
    assert_no_injected_structure(text, 1, {"The function raised an exception"})
    assert structure(text)["rows"] == 3
    html = report.render_html(result)
    parser = Tags()
    parser.feed(html)
    assert "img" not in parser.tags and not parser.comments and not set(html) & CONTROL
    rows = list(csv.reader(gradebook.render_csv([result, raw_result(FORMULA)]).splitlines()))
    assert all(not cell.startswith(("=", "+", "-", "@")) for row in rows for cell in row)
    ET.fromstring(gradebook.render_junit([result], "vgg_classifier").encode("utf-8"))
    gradescope_results.write(result, tmp_path)
    json.loads((tmp_path / "gradescope.json").read_text(encoding="utf-8"))
    assert escape.terminal(HOSTILE).isprintable()


def test_one_class_file_that_fails_costs_no_other(tmp_path, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("no junit today")

    monkeypatch.setattr(gradebook, "render_junit", broken)
    problems = gradebook.write_class([raw_result("ana")], tmp_path, "vgg_classifier")
    assert len(problems) == 1 and problems[0].startswith("junit.xml")
    assert (tmp_path / "gradebook.csv").is_file() and (tmp_path / "summary.html").is_file()


def test_markdown_code_spans_cannot_be_closed():
    for text in ("`", "a``b", "``` x", " `lead", "trail` ", "|pipe|", ""):
        span = escape.md_code(text, table=True)
        tokens = MD.parseInline(span)[0].children if span else []
        assert not span or [t.type for t in tokens] == ["code_inline"], (text, tokens)
        assert not span or tokens[0].content == text.replace("|", "\\|")


# -- ids and folders -------------------------------------------------------------------------------------------------
def test_ids_are_shown_printable_and_unique_to_the_eye():
    shown = classfolder.display_ids(["alice", "alice.", ZWSP, "caf\udce9", "caf\udce8", "jos\u00e9", "jose\u0301"])
    assert shown["alice"] == "alice" and shown["alice."] == "alice." and shown[ZWSP].startswith("alice\\u200b #")
    assert shown["caf\udce9"].startswith("caf\ufffd #") and shown["caf\udce9"] != shown["caf\udce8"]
    assert shown["jos\u00e9"] != shown["jose\u0301"]  # the same once normalised: told apart by a hash
    assert len(set(shown.values())) == len(shown)


def test_folder_names_are_unique_even_without_case():
    names = report.folder_names(["alice", "alice.", "Alice", "ALICE", "-rf", "..", "a" * 300, "alice-x"])
    assert len({n.casefold() for n in names.values()}) == len(names)
    assert names["alice-x"] == "alice-x"
    assert all(not n.startswith((".", "-")) and len(n) <= 64 + 65 for n in names.values())
    # a crafted id equal to another's hashed folder name still gets its own folder
    crafted = report.folder_names(["alice."])["alice."]
    both = report.folder_names(["alice.", crafted])
    assert both["alice."] != both[crafted]


# -- nbgrader ----------------------------------------------------------------------------------------------------------
def test_nbgrader_course_is_found_alone_and_its_other_entries_are_listed(tmp_path):
    course = make_class(tmp_path / "course", {"submitted/s001/ps1/vgg.ipynb": "notebooks/correct-jupyter.ipynb",
                                              "source/ps1/vgg.ipynb": "notebooks/correct-jupyter.ipynb"})
    (course / "gradebook.db").write_bytes(b"")
    plan = batch.discover([course])
    assert plan.layout == "nbgrader" and [e.student for e in plan.entries] == ["s001"]
    assert {Path(p).name for p, _ in plan.left_out} == {"source", "gradebook.db"}


def test_nbgrader_layout_when_asked_lists_the_flat_files_it_leaves_out(tmp_path):
    folder = make_class(tmp_path / "class", {"alice.py": "correct/matmul.py",
                                             "submitted/bob/ps1/vgg.py": "correct/einsum.py"})
    assert [e.student for e in batch.discover([folder]).entries] == ["alice", "submitted"]
    plan = batch.discover([folder], "nbgrader")
    assert [e.student for e in plan.entries] == ["bob"]
    assert [(Path(p).name, why) for p, why in plan.left_out] == [("alice.py", "not in submitted/ (nbgrader layout)")]
    assert any("alice.py" in note for note in plan.notes)
    with pytest.raises(UsageError):
        batch.discover([folder / "submitted" / "bob"], "nbgrader")


# -- Ctrl-C --------------------------------------------------------------------------------------------------------
def test_ctrl_c_writes_the_class_files_of_what_finished_and_the_rerun_completes_them(tmp_path):
    folder = make_class(tmp_path / "class", {"ana.py": "correct/matmul.py", "ben.py": "buggy/missing-bias.py"})
    (folder / "zed.py").write_text("import time\ntime.sleep(3)\n" + (SUBMISSIONS / "correct" / "matmul.py").read_text())
    out = tmp_path / "out"
    command = GRADER + ["grade", str(folder), "--exercise", "vgg_classifier", "--no-full-scale", "--jobs", "1",
                        "--out", str(out), "-q"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,  # Ctrl-C is
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # not ignored
    deadline = time.monotonic() + 60
    while not (out / "students" / "ben" / "result.json").exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.3)  # zed is being graded
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 130, stderr
    assert b"marked incomplete" in stderr
    rows = {r["student"]: r for r in csv.DictReader((out / "gradebook.csv").open(newline=""))}
    assert rows["ana"]["status"] == "graded" and rows["zed"]["status"] == "pending" and rows["zed"]["score"] == ""
    assert "Incomplete" in (out / "summary.html").read_text()
    junit = ET.parse(out / "junit.xml").getroot()
    assert junit.get("skipped") == "1"
    manifest = json.loads((out / "manifest.json").read_text())  # a stopped run: `grader merge` refuses it as is
    assert manifest["complete"] is False and [g["student"] for g in manifest["graded"]] == ["ana", "ben"]

    shutil.copyfile(SUBMISSIONS / "correct" / "matmul.py", folder / "zed.py")  # the rerun need not wait for zed
    rerun = subprocess.run(command, env=env, capture_output=True, timeout=120)
    assert rerun.returncode == 0, rerun.stderr
    rows = {r["student"]: r for r in csv.DictReader((out / "gradebook.csv").open(newline=""))}
    assert {r["status"] for r in rows.values()} == {"graded"} and rows["zed"]["score"] == rows["zed"]["max_score"]
    assert "Incomplete" not in (out / "summary.html").read_text()
    assert ET.parse(out / "junit.xml").getroot().get("skipped") == "0"
    assert json.loads((out / "manifest.json").read_text())["complete"] is True
