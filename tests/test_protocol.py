"""The parent owns the conversation: forged, malformed, flooding or slow children change nothing but their own run.

Each test grades a hostile submission from ``tests/submissions/hostile/`` (they also run, with the generic leak
checks, in ``test_sandbox.py``) in every sandbox mode this machine supports, and asserts what the grader did
about it: the run ended as the submission's own protocol error, a deadline held, a verdict stayed the parent's.
"""
from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import check, notebook
from grader import grade, sandbox

HOSTILE = Path(__file__).resolve().parent / "submissions" / "hostile"
MODES = ("fork", "bwrap", "landlock", "rlimits")
CONTROL = {chr(c) for c in range(32) if chr(c) not in "\n"} | {"\x7f", "\x9b"}


@pytest.fixture(scope="module", params=MODES)
def session(request, exercise):
    try:
        limits = dataclasses.replace(exercise.limits, call_seconds=2, cell_seconds=4, submission_seconds=30)
        box = sandbox.Sandbox(limits, mode=request.param)
    except sandbox.SandboxUnavailable as exc:
        pytest.skip(str(exc))
    with grade.Session(exercise, full_scale=False, sandbox=box) as s:
        yield s


def _grade(session, name: str, folder: Path | None = None):
    path = HOSTILE / f"{name}.py"
    if folder is not None:
        copy = folder / path.name
        copy.write_text(path.read_text())
        path = copy
    started = time.monotonic()
    result = grade.grade_file(path, session)
    return result, time.monotonic() - started


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(key)
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def test_forged_results_end_the_run_as_a_protocol_error(session):
    result, _ = _grade(session, "forge-results")
    assert result.status == "error" and result.error.kind == "protocol-error", result.to_json()[:800]
    assert "result channel" in result.error.message
    assert result.score == 0


def test_a_malformed_frame_is_the_submissions_error_not_the_graders(session):
    result, _ = _grade(session, "malformed-frame")
    assert result.error is not None and result.error.kind == "protocol-error", result.to_json()[:800]
    assert "internal" not in result.to_json()


def test_the_parents_deadline_holds_whatever_the_child_sends(session):
    """Blocks the alarm and keeps writing frames that once moved the deadline: the call still times out."""
    result, seconds = _grade(session, "slow-ignores-alarm")
    assert result.score < result.max_score
    statuses = {c.id: c.status for c in result.checks}
    assert statuses.get("values-single") in ("timeout", "failed") or result.status == "error", result.to_json()[:800]
    assert seconds < 25, f"grading took {seconds:.1f} s"


def test_inputs_unmodified_is_decided_by_the_parent(session):
    result, _ = _grade(session, "destroy-inputs")
    assert result.status == "graded", result.to_json()[:800]
    unmodified = check(result, "unmodified")
    assert unmodified.status == "failed" and "features" in unmodified.message
    assert check(result, "values-single").status == "passed"


def test_a_flood_of_notes_is_bounded(session):
    result, seconds = _grade(session, "note-flood")
    text = result.to_json()
    assert len(text) < 100_000 and len(result.warnings) < 50, len(text)
    assert seconds < 20


def test_a_huge_result_is_refused_with_a_sentence(session):
    result, _ = _grade(session, "huge-result")
    text = check(result, "values-single").message
    assert "64 MiB where a (1, 7) float64 array was expected" in text, text
    assert "only its shape was kept" in text


def test_text_from_the_child_reaches_no_output_raw(session, tmp_path):
    result, _ = _grade(session, "escape-type-name")
    for text in _strings(json.loads(result.to_json())):
        assert not (set(text) & CONTROL), repr(text)[:300]
        text.encode("utf-8")  # no lone surrogate survives
    assert any("\\x1b" in text for text in _strings(json.loads(result.to_json())))  # shown, escaped


def test_the_command_line_prints_no_escape_sequence(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "mallory.py").write_text((HOSTILE / "escape-type-name.py").read_text())
    (folder / "trudy.py").write_text("EVIL = '\\x1b[2J\\x1b]0;pwned\\x07'\n"
                                     "Thing = type('Thing' + EVIL, (), {})\n"
                                     "vgg_classifier = Thing()\n")
    done = subprocess.run([sys.executable, "-m", "grader", "grade", str(folder), "--exercise", "vgg_classifier",
                           "--out", str(tmp_path / "out"), "--no-full-scale", "--jobs", "1"],
                          capture_output=True, timeout=120)
    for stream in (done.stdout, done.stderr):
        assert b"\x1b" not in stream and b"\x07" not in stream, stream[-500:]
    for path in (tmp_path / "out").rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert b"\x1b" not in data and b"\x07" not in data, path


def test_many_cells_and_forged_cell_frames_stay_within_the_submission_limit(session, tmp_path):
    forge = ("import gc, json, os, struct\n"
             "child = next(o for o in gc.get_objects() if type(o).__name__ == 'Child' and hasattr(o, 'channel'))\n"
             "for n in range(1000):\n"
             "    body = json.dumps({'t': 'cell-start', 'number': 99999}).encode()\n"
             "    os.write(child.channel, struct.pack('>II', len(body), 0) + body)\n")
    for count, kind in ((9_000, "protocol-error"), (100_000, "too-many-cells")):
        path = tmp_path / f"many-{count}.ipynb"
        path.write_text(json.dumps(notebook(*([forge] + [""] * count))))
        started = time.monotonic()
        result = grade.grade_file(path, session)
        seconds = time.monotonic() - started
        assert result.error is not None and result.error.kind == kind, result.to_json()[:600]
        assert seconds < 30, f"{count} cells: {seconds:.1f} s"


def test_thousands_of_real_cells_cost_little(session, tmp_path):
    body = (HOSTILE.parent / "correct" / "matmul.py").read_text()
    cells = [body] + ["x = 1"] * 5000
    path = tmp_path / "long.ipynb"
    path.write_text(json.dumps(notebook(*cells)))
    started = time.monotonic()
    result = grade.grade_file(path, session)
    seconds = time.monotonic() - started
    assert result.score == result.max_score, result.to_json()[:600]
    assert seconds < 20, f"{seconds:.1f} s"


def test_a_returned_value_with_a_forbidden_dtype_is_a_protocol_error():
    from grader import answers
    from grader.channel import ProtocolError

    spec = {"type": "numpy.ndarray", "exact": True, "subclass": False, "shape": [1],
            "array": {"dtype": "|O", "shape": [1]}}
    with pytest.raises(ProtocolError, match="not a plain numeric type"):
        answers.returned(spec, bytearray(8), 0, 1 << 20, "a (1,) float64 array")
    with pytest.raises(ProtocolError, match="more bytes than were sent"):
        answers.returned({**spec, "array": {"dtype": "<f8", "shape": [4]}}, bytearray(8), 0, 1 << 20, "")


def test_a_frame_nested_too_deeply_is_a_wire_error_not_a_grader_bug():
    from grader.runner import wire

    with pytest.raises(wire.WireError, match="nested too deeply"):
        wire.decode_message(b'{"t": "result", "x": ' + b"[" * 1_000_000 + b"]" * 1_000_000 + b"}")


def test_errors_the_child_places_in_cells_cost_one_lookup_each(tmp_path):
    """A hostile child names a cell for each error it reports: each was found by a scan of the cells (cells times
    errors: 20 s for 50,000), and a cell named '<cell ²>' or with 5,000 digits made int() raise in the grader."""
    from grader import answers
    from grader.submission import Cell, Submission

    cells = tuple(Cell(n, n, "1/0\n", label=f"code cell {n} (cell {n} of the notebook)") for n in range(1, 50_001))
    submission = Submission(tmp_path / "s.ipynb", "s", "ipynb", cells, "0" * 64)
    started = time.monotonic()
    errors = [answers.call_error({"type": "ZeroDivisionError", "message": "division by zero", "line": 1,
                                  "file": f"<cell {n}>"}, submission) for n in range(1, 50_001)]
    assert time.monotonic() - started < 5  # 0.3 s now
    assert [e.cell for e in errors] == list(range(1, 50_001)) and errors[-1].where == "line 1 of code cell 50000"
    for forged in ("<cell \u00b2>", "<cell " + "9" * 5000 + ">", "<cell 0>"):
        error = answers.call_error({"type": "E", "message": "m", "line": 3, "file": forged}, submission)
        assert error.cell is None and error.where == "line 3"


@pytest.mark.parametrize("spec,why", [
    ("signature", "not an object"),
    ({"count": "7", "parameters": []}, "count is not a number"),
    ({"count": True, "parameters": []}, "count is not a number"),
    ({"count": 2, "parameters": [{"name": "a", "kind": "positional", "default": False}]}, "not a list of its count"),
    ({"count": 10**6, "parameters": [{"name": f"p{i}", "kind": "positional"} for i in range(65)]},
     "not a list of its count"),
    ({"count": 1, "parameters": [{"name": "a", "kind": "sideways"}]}, "known kind"),
    ({"count": 1, "parameters": [{"name": ["a"], "kind": "positional"}]}, "'name' is not text"),
    ({"count": 1, "parameters": [{"name": "a" * 101, "kind": "positional"}]}, "longer than the protocol allows"),
    ({"count": 1, "parameters": [{"name": "a", "kind": "positional", "default": "yes"}]}, "'default'"),
], ids=["text", "count-text", "count-bool", "too-few", "too-many", "kind", "name-list", "name-long", "default"])
def test_a_forged_signature_is_a_protocol_error(spec, why):
    """The child lists at most 64 parameters, each with a kind Python has and a name of at most 100 characters:
    anything else was written by the submission on the channel."""
    from grader import answers
    from grader.channel import ProtocolError

    with pytest.raises(ProtocolError, match=why):
        answers.declared(spec)


def test_a_signature_within_the_bounds_is_kept_with_its_names_made_printable():
    from grader import answers

    listed = [{"name": "\x1b[31mred\u202e", "kind": "positional", "default": False},
              {"name": "rest", "kind": "var-positional", "default": False}]
    declared = answers.declared({"count": 10**6, "parameters": listed + [{"name": "p", "kind": "keyword-only",
                                                                          "default": True}] * 62})
    assert declared.count == 10**6 and len(declared.parameters) == 64
    assert declared.parameters[0].name == "\\x1b[31mred\\u202e"
    assert declared.parameters[1].kind == "var-positional" and declared.parameters[2].default is True
    assert answers.declared(None) is None
