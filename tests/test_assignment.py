"""Assignments: several exercises graded from one submission (issue 17), everything but the report writers.

The course file's mistakes are usage errors; weights multiply points; one sandboxed run per student, in which a
crashing function costs only its own calls while a protocol error or a crash while loading costs every section;
an exercise's hidden cases are the same graded alone or in an assignment; the bundled class grades as expected;
the assignment's notebook is current, its self-checks pass on the solutions without touching the student's names,
and `grader check` checks every exercise of it, from a checkout and from an installed wheel, without solutions.
"""
from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import numpy as np
import pytest

from conftest import ROOT
from grader import assignment as assignment_mod
from grader import cli
from grader import exercise as exercise_mod
from grader import notebook as notebook_mod
from grader.grade import OneExercise, Session, grade_file, prepare
from grader.grade_assignment import AssignmentSession, grade_assignment
from test_student_check import installed  # noqa: F401  (the wheel fixture: `pip install .` into a new venv)

NAME = "fc-layers"
IDS = ("linear", "to_channels_last", "dense_scores", "gap_head")
SOLUTIONS = ROOT / "solutions"
NOTEBOOK = ROOT / "notebooks" / f"{NAME}.ipynb"
CLASS = ROOT / "exercises" / "course_examples" / NAME


def solution(exercise_id: str) -> str:
    return (SOLUTIONS / f"{exercise_id}.py").read_text(encoding="utf-8")


def all_right(**replace: str) -> str:
    """A submission defining the four functions as the references do, some replaced (an empty string: left out)."""
    return "\n\n".join(replace.get(i, solution(i)) for i in IDS) + "\n"


RIGHT_BUT = {
    "linear_crashes_on_vectors": "import ctypes\nimport numpy as np\n\n"
                                 "def linear(x, weight, bias=None):\n"
                                 "    if x.ndim == 1:\n"
                                 "        ctypes.string_at(0)  # a segmentation fault\n"
                                 "    y = x @ weight.T\n"
                                 "    return y if bias is None else y + bias\n",
    "linear_always_crashes": "import ctypes\n\ndef linear(x, weight, bias=None):\n    ctypes.string_at(0)\n",
    "linear_only_2d": "import numpy as np\n\ndef linear(x, weight, bias=None):\n"
                      "    y = x.reshape(-1, weight.shape[1]) @ weight.T\n"
                      "    return y if bias is None else y + bias\n",
    "gap_head_sums": "import numpy as np\n\ndef gap_head(fmap, V, c):\n"
                     "    return V @ fmap.sum(axis=(0, 1)) + c, fmap @ V.T + c\n",
    "gap_head_forges": '''import gc
import json
import os
import struct


def gap_head(fmap, V, c):
    """Answers on the runner's own channel, as if it were the runner: the run must end as a protocol error."""
    for obj in gc.get_objects():
        if type(obj).__name__ == "Child" and hasattr(obj, "channel"):
            for seq in range(20):
                body = json.dumps({"t": "result", "seq": seq, "status": "ok", "type": "tuple", "exact": True,
                                   "subclass": False, "shape": [V.shape[0]]}).encode()
                os.write(obj.channel, struct.pack(">II", len(body), 0) + body)
            break
    return V @ fmap.mean(axis=(0, 1)) + c, fmap @ V.T + c
''',
}


@pytest.fixture(scope="module")
def fc():
    return assignment_mod.load_assignment(assignment_mod.read_course()[NAME])


@pytest.fixture(scope="module")
def grading(fc):
    with AssignmentSession(fc, full_scale=False) as g:
        yield g


@pytest.fixture
def spawns(grading, monkeypatch):
    """How many sandboxed children the assignment's runs start."""
    started = []
    spawn = grading.sandbox.spawn

    def counted(*args, **kwargs):
        started.append(1)
        return spawn(*args, **kwargs)

    monkeypatch.setattr(grading.sandbox, "spawn", counted)
    return started


def write(tmp_path: Path, text: str, name: str = "student.py") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def run_cli(capsys, *argv) -> tuple[int, str, str]:
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def full(section) -> bool:
    return section.status == "graded" and section.score == section.max_score > 0 and not section.diagnoses


# -- the course file and the command line ---------------------------------------------------------------------------
@pytest.fixture
def course(tmp_path):
    """An exercises folder with linear, gap_head and linear_copy (another exercise asking for linear()), and the
    solutions beside it; write its course.toml with ``course(text)``."""
    exercises, solutions = tmp_path / "exercises", tmp_path / "solutions"
    ignore = shutil.ignore_patterns("__pycache__", "examples")
    for source, target in (("linear", "linear"), ("gap_head", "gap_head"), ("linear", "linear_copy")):
        shutil.copytree(ROOT / "exercises" / source, exercises / target, ignore=ignore)
        solutions.mkdir(exist_ok=True)
        shutil.copy(SOLUTIONS / f"{source}.py", solutions / f"{target}.py")
    toml = exercises / "linear_copy" / "exercise.toml"
    toml.write_text(toml.read_text().replace('id = "linear"', 'id = "linear_copy"'))

    def make(text: str) -> Path:
        (exercises / "course.toml").write_text(text, encoding="utf-8")
        return exercises

    make.solutions = solutions
    return make


@pytest.mark.parametrize("entry,needles", [
    ("exercises = { linear = 1, nope = 1 }", ["Unknown exercise 'nope'", "known exercises"]),
    ("exercises = { linear = 0, gap_head = 1 }", ["'linear' the weight 0", "above 0"]),
    ('exercises = { linear = "2", gap_head = 1 }', ["'linear' the weight '2'"]),
    ("exercises = { linear = true, gap_head = 1 }", ["'linear' the weight True"]),
    ("exercises = { linear = inf, gap_head = 1 }", ["'linear' the weight inf"]),
    ("exercises = { linear = 1, linear_copy = 1 }", ["linear, linear_copy all ask for a function named linear()"]),
    ("exercises = {}", ["needs `exercises = { id = weight, ... }`"]),
    ("exercises = { linear = 1, gap_head = 1", ["cannot be read"]),
], ids=["unknown-exercise", "zero-weight", "string-weight", "boolean-weight", "infinite-weight", "one-function-twice",
        "no-exercises", "not-toml"])
@pytest.mark.parametrize("command", ["grade", "check", "notebook"])
def test_a_mistake_in_the_course_file_is_a_clear_error(course, tmp_path, capsys, entry, needles, command):
    exercises = course(f'[assignment.hw]\ntitle = "Homework"\n{entry}\n')
    sub = write(tmp_path, all_right())
    where = ["--exercises-dir", exercises, "--solutions-dir", course.solutions]
    argv = {"grade": ["grade", sub, "--assignment", "hw", "--no-full-scale", *where],
            "check": ["check", sub, "--assignment", "hw", *where],
            "notebook": ["notebook", "--assignment", "hw", "--out", tmp_path / "nb", *where]}[command]
    code, out, err = run_cli(capsys, *argv)
    assert code == 2, out + err
    assert err.startswith("grader: error: ") and "Traceback" not in err + out
    for needle in needles:
        assert needle in err, err
    if "Unknown exercise" not in needles[0] and "function named" not in needles[0]:
        assert str(exercises / "course.toml") in err  # the file's own mistakes name the file


@pytest.mark.parametrize("argv,needle", [
    (["grade", "{sub}", "--exercise", "linear,linear", "--no-full-scale"], "names an exercise twice"),
    (["check", "{sub}", "--exercise", "linear,gap_head,linear"], "names an exercise twice"),
    (["grade", "{sub}", "--exercise", "linear,", "--no-full-scale"], "separated by commas"),
    (["grade", "{sub}", "--assignment", NAME, "--exercise", "linear", "--no-full-scale"], "leave out --exercise"),
    (["check", "{sub}", "--assignment", NAME, "--exercise", "linear,gap_head"], "leave out --exercise"),
    (["notebook", "--assignment", NAME, "--exercise", "gap_head", "--out", "{tmp}"], "leave out --exercise"),
    (["check", "{sub}", "--assignment", "nope"], "There is no assignment 'nope' in the course file"),
    (["notebook", "--assignment", "nope", "--out", "{tmp}"], "its assignments: fc-layers"),
    (["grade", "{sub}", "--exercise", "linear,nope", "--no-full-scale"], "Unknown exercise 'nope'"),
])
def test_exercise_options_that_contradict_themselves_are_usage_errors(tmp_path, capsys, argv, needle):
    sub = write(tmp_path, all_right())
    code, out, err = run_cli(capsys, *[a.format(sub=sub, tmp=tmp_path / "nb") for a in argv])
    assert code == 2 and needle in err and "Traceback" not in err + out, err


def test_check_refuses_an_assignment_the_notebook_names_but_the_course_lacks(tmp_path, capsys):
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nb.metadata.grader = {"assignment": "../../etc"}
    path = tmp_path / "mine.ipynb"
    nbformat.write(nb, path)
    code, out, err = run_cli(capsys, "check", path)
    assert code == 2 and "names the assignment '../../etc' in its metadata" in err and "Traceback" not in err, err


# -- grading ------------------------------------------------------------------------------------------------------
def test_weights_multiply_every_point_of_their_exercise(course, tmp_path):
    exercises = course('[assignment.w]\nexercises = { linear = 2, gap_head = 0.5 }\n')
    plan = assignment_mod.read_course(exercises)["w"]
    assert plan.weights == (("linear", 2.0), ("gap_head", 0.5))
    weighted = assignment_mod.load_assignment(plan, exercises, course.solutions)
    path = write(tmp_path, solution("linear") + "\n" + RIGHT_BUT["gap_head_sums"])
    with AssignmentSession(weighted, full_scale=False) as together:
        result = together.grade(path, "zoe")
        top = together.max_points()
    alone = []
    for exercise in weighted.exercises:
        with Session(exercise, full_scale=False) as session:
            alone.append(grade_file(path, session, "zoe"))
            one_max = OneExercise(session).max_points()
        assert alone[-1].max_score == one_max
    for section, single, weight in zip(result.sections, alone, (2.0, 0.5)):
        assert section.weight == weight and section.exercise == single.exercise
        assert section.max_score == pytest.approx(weight * single.max_score)
        assert section.score == pytest.approx(weight * single.score)
        for mine, theirs in zip(section.checks, single.checks, strict=True):
            assert (mine.id, mine.status) == (theirs.id, theirs.status)
            assert (mine.points, mine.max_points) == pytest.approx((weight * theirs.points, weight * theirs.max_points))
    assert alone[1].score < alone[1].max_score  # gap_head sums: the weight scales a partial score too
    assert result.score == pytest.approx(sum(s.score for s in result.sections))
    assert result.max_score == pytest.approx(top)
    assert top == pytest.approx(2 * alone[0].max_score + 0.5 * alone[1].max_score)


def test_one_sandboxed_run_grades_every_exercise(grading, spawns, tmp_path):
    path = write(tmp_path, all_right())
    result = grading.grade(path, "zoe")
    assert len(spawns) == 1, "the submission must be loaded and executed once, whatever the number of exercises"
    assert [s.exercise for s in result.sections] == list(IDS)
    assert all(full(s) for s in result.sections), [(s.exercise, s.score, s.max_score) for s in result.sections]
    assert result.status == "graded" and result.score == result.max_score == grading.max_points()


def test_a_crash_inside_one_function_costs_only_its_calls(grading, spawns, tmp_path):
    result = grading.grade(write(tmp_path, all_right(linear=RIGHT_BUT["linear_crashes_on_vectors"])), "zoe")
    linear, *others = result.sections
    assert all(full(s) for s in others), [(s.exercise, s.score, s.max_score) for s in others]
    assert linear.status == "graded" and 0 < linear.score < linear.max_score
    failed = {c.id: c.message for c in linear.checks if c.status != "passed"}
    assert "values-vector" in failed and "segmentation fault" in failed["values-vector"]
    assert "values-batch" not in failed and "values-leading" not in failed
    assert len(spawns) > 1  # each crash restarts the child, which goes on with the next call


def test_a_function_that_crashes_on_every_call_costs_only_its_exercise(grading, tmp_path):
    result = grading.grade(write(tmp_path, all_right(linear=RIGHT_BUT["linear_always_crashes"])), "zoe")
    linear, *others = result.sections
    assert linear.score <= 1
    assert all(full(s) for s in others), [(s.exercise, s.score, s.max_score) for s in others]


@pytest.mark.parametrize("text,kind", [
    ("import ctypes\nctypes.string_at(0)\n" + all_right(), "crashed"),
    (all_right(gap_head=RIGHT_BUT["gap_head_forges"]), "protocol-error"),
], ids=["crash-while-loading", "protocol-error-in-the-last-exercise"])
def test_what_ends_the_whole_run_makes_every_section_an_error(grading, tmp_path, text, kind):
    result = grading.grade(write(tmp_path, text), "zoe")
    assert result.status == "error" and result.score == 0 and result.error.kind == kind, result.to_json()[:600]
    assert [s.exercise for s in result.sections] == list(IDS)
    for section in result.sections:
        assert section.status == "error" and section.error.kind == kind and section.score == 0
        assert all(c.status == "error" for c in section.checks)
    assert result.max_score == grading.max_points()


def test_an_exercises_hidden_cases_are_the_same_alone_and_in_the_assignment(fc, grading, tmp_path):
    for exercise, in_assignment in zip(fc.exercises, grading.sessions):
        with Session(exercise, full_scale=False) as alone:
            mine, theirs = prepare(alone, "zoe").cases, prepare(in_assignment, "zoe").cases
        assert [c.name for c in mine] == [c.name for c in theirs]
        for a, b in zip(mine, theirs):
            assert all(np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y for x, y in zip(a.args, b.args))
    # and so are the results: what a check says names the student's cases and their shapes
    path = write(tmp_path, all_right(linear=RIGHT_BUT["linear_only_2d"]))
    with Session(fc.exercises[0], full_scale=False) as alone:
        single = grade_file(path, alone, "zoe")
    section = grade_assignment(path, grading, "zoe").sections[0]
    assert [(c.id, c.status, c.points, c.message) for c in section.checks] == [
        (c.id, c.status, c.points, c.message) for c in single.checks]
    assert section.diagnoses == single.diagnoses and "only-2d-input" in {d.id for d in single.diagnoses}
    zoe, yan = prepare(grading.sessions[0], "zoe").cases, prepare(grading.sessions[0], "yan").cases
    assert any(a.args[0].shape != b.args[0].shape for a, b in zip(zoe, yan)), "seeded per student"


# -- the bundled class ------------------------------------------------------------------------------------------------
def test_the_bundled_class_is_not_an_exercise_and_is_not_packaged():
    assert set(IDS) <= set(exercise_mod.known_ids(ROOT / "exercises"))
    assert "course_examples" not in exercise_mod.known_ids(ROOT / "exercises")
    notebooks = sorted(p.name for p in CLASS.iterdir())
    assert notebooks == ["ada.ipynb", "bruno.ipynb", "chen.ipynb", "dara.ipynb", "emil.ipynb"]
    for path in CLASS.iterdir():  # saved by Jupyter: format 4, run, with outputs
        nb = nbformat.read(path, as_version=4)
        nbformat.validate(nb)
        code = [c for c in nb.cells if c.cell_type == "code"]
        assert nb.nbformat == 4 and nb.metadata.grader.assignment == NAME and nb.metadata.language_info.version
        assert all(c.execution_count for c in code) and any(c.outputs for c in code)
    make = subprocess.run(["make", "-n", "grade-assignment"], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert f"grade exercises/course_examples/{NAME} --assignment {NAME} --out reports-{NAME}" in make.stdout


def test_the_bundled_class_grades_as_expected_in_one_batch(tmp_path):
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "grader", "grade", str(CLASS), "--assignment", NAME, "--out",
                           str(out), "--no-full-scale", "--jobs", "2", "--quiet"],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    results = {p.parent.name: json.loads(p.read_text()) for p in (out / "students").glob("*/result.json")}
    assert sorted(results) == ["ada", "bruno", "chen", "dara", "emil"]
    sections = {student: {s["exercise"]: s for s in r["sections"]} for student, r in results.items()}
    for student, parts in sections.items():
        assert list(parts) == list(IDS), student

    def full_marks(section) -> bool:
        return section["status"] == "graded" and section["score"] == section["max_score"] and not section["diagnoses"]

    expect_wrong = {"ada": None, "bruno": None, "chen": "gap_head", "dara": "to_channels_last", "emil": "dense_scores"}
    for student, wrong in expect_wrong.items():
        for exercise_id, section in sections[student].items():
            assert full_marks(section) == (exercise_id != wrong), (student, exercise_id, section["score"])
    assert "sum-pooling" in {d["id"] for d in sections["chen"]["gap_head"]["diagnoses"]}
    missing = sections["dara"]["to_channels_last"]
    assert missing["status"] == "error" and missing["error"]["kind"] == "missing-function"
    assert "to_channel_last" in missing["error"]["message"]
    hanging = sections["emil"]["dense_scores"]
    assert "too-slow" in {d["id"] for d in hanging["diagnoses"]}
    assert "time" in next(c for c in hanging["checks"] if c["id"] == "returns")["message"]
    # two calls time out, then the exercise's other calls are not made
    call = exercise_mod.load("dense_scores", require_reference=False).limits.call_seconds
    assert results["emil"]["timing"]["run"] < 4 * call + 10, results["emil"]["timing"]
    top = {student: (r["score"], r["max_score"]) for student, r in results.items()}
    assert top["ada"] == top["bruno"] == (70, 70) and top["chen"][0] == 66 and top["dara"][0] == 56
    with open(out / "gradebook.csv", newline="", encoding="utf-8") as handle:
        header = next(csv.reader(handle))
    assert set(IDS) <= set(header)  # a column per exercise


# -- the assignment's notebook ----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def generated(fc):
    return notebook_mod.render_assignment(fc)


def cells(text: str) -> dict:
    return {c.id: c for c in nbformat.reads(text, as_version=4).cells}


def test_the_committed_notebook_is_up_to_date(generated, tmp_path):
    assert NOTEBOOK.is_file() and NOTEBOOK.read_text(encoding="utf-8") == generated, (
        f"notebooks/{NAME}.ipynb is stale: regenerate it with `grader notebook --assignment {NAME}` (make notebooks)")
    proc = subprocess.run([sys.executable, "-m", "grader", "notebook", "--assignment", NAME, "--out", str(tmp_path)],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / f"{NAME}.ipynb").read_bytes() == NOTEBOOK.read_bytes()
    assert "grader notebook --assignment $(ASSIGNMENT) --out notebooks" in (ROOT / "Makefile").read_text()


def test_the_notebook_holds_every_exercise_and_names_the_assignment(fc, generated):
    assert notebook_mod.render_assignment(fc) == generated
    nb = nbformat.reads(generated, as_version=4)
    nbformat.validate(nb)
    ids = [c.id for c in nb.cells]
    assert len(ids) == len(set(ids)) and all(len(i) <= 64 for i in ids)
    assert nb.metadata.grader == {"assignment": NAME, "exercises": list(IDS)}
    assert "exercise" not in nb.metadata.grader  # the single-exercise check must not pick one of the four
    by_id = cells(generated)
    order = [ids.index(f"{i}-solution") for i in IDS]
    assert order == sorted(order) and ids[0] == "intro" and ids[-1] == "how-to-submit"
    for exercise in fc.exercises:
        assert by_id[f"{exercise.id}-solution"].source == (exercise.folder / "starter.py").read_text().strip()
        assert ids.index(f"{exercise.id}-solution") < ids.index(f"{exercise.id}-self-check")
        assert by_id[f"{exercise.id}-self-check"].metadata.jupyter.source_hidden
        assert by_id[exercise.id].source.startswith("## Exercise ")
        scoped = by_id[f"{exercise.id}-self-check"].source
        for line in notebook_mod.selfcheck_source(exercise).splitlines():  # the exercise's own self-check, indented
            assert line.strip() in scoped
    markdown = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert all(f"`{i}(" in by_id["intro"].source for i in IDS) and f"grader check {NAME}.ipynb" in markdown
    titles, fenced = [], False
    for line in markdown.splitlines():
        fenced ^= line.lstrip().startswith("```")
        if not fenced and line.startswith("# "):
            titles.append(line)
    assert len(titles) == 1, f"one title; every exercise's headings one level down: {titles}"


def test_an_ad_hoc_notebook_names_its_exercises_not_an_assignment(tmp_path, capsys):
    code, out, err = run_cli(capsys, "notebook", "--exercise", "linear,gap_head", "--out", tmp_path)
    assert code == 0, err
    nb = nbformat.read(tmp_path / "linear+gap_head.ipynb", as_version=4)
    assert nb.metadata.grader == {"exercises": ["linear", "gap_head"]}
    assert [c.id for c in nb.cells if c.cell_type == "code"] == [
        "linear-solution", "linear-self-check", "gap_head-solution", "gap_head-self-check"]


def run_cells(text: str, sources: dict[str, str]) -> tuple[dict[str, str], dict]:
    """Run the notebook's code cells in order in one namespace, ``sources`` replacing some; each cell's output."""
    namespace: dict = {"__name__": "__main__"}
    outputs = {}
    for cell in nbformat.reads(text, as_version=4).cells:
        if cell.cell_type != "code":
            continue
        out = io.StringIO()
        with contextlib.redirect_stdout(out), np.errstate(all="ignore"):
            exec(compile(sources.get(cell.id, cell.source), cell.id, "exec"), namespace)
        outputs[cell.id] = out.getvalue()
    return outputs, namespace


MINE = "\n\ndef close(*args):\n    return 'mine'\n\n\ndef call(*args):\n    return 'mine too'\n"


def test_the_self_checks_pass_on_the_solutions_and_leave_the_students_names_alone(generated, monkeypatch):
    monkeypatch.delenv("GRADER_PARENT", raising=False)
    pasted = {f"{i}-solution": solution(i) + MINE for i in IDS}
    outputs, namespace = run_cells(generated, pasted)
    for exercise_id in IDS:
        said = outputs[f"{exercise_id}-self-check"]
        assert "All public checks passed" in said and "✗" not in said and "Hint" not in said, said
    assert namespace["close"]() == "mine" and namespace["call"]() == "mine too"
    defined = {k for k in namespace if not k.startswith("__")}
    assert defined == {"np", "sliding_window_view", "close", "call", *IDS}, defined  # nothing of the self-checks
    # the starter as it is: each self-check says so; under the grader they say nothing
    outputs, _ = run_cells(generated, {})
    assert all("Not implemented yet" in outputs[f"{i}-self-check"] for i in IDS), outputs
    monkeypatch.setenv("GRADER_PARENT", "1")
    outputs, _ = run_cells(generated, pasted)
    assert not any(outputs.values()), outputs


def test_indent_keeps_strings_that_span_lines():
    code = 'TEXT = """a\nb\n    c"""\nVALUE = f"""{1}\nx"""\n\nif True:\n    pass\n'
    wrapped = "def f():\n" + notebook_mod.indent(code) + "\n    return TEXT, VALUE\n"
    namespace: dict = {}
    exec(code, namespace)
    exec(wrapped, namespace)
    assert namespace["f"]() == (namespace["TEXT"], namespace["VALUE"]) and "\n\n" in notebook_mod.indent(code)


def _student(tmp_path: Path, name: str = "fc.ipynb", **sources: str) -> Path:
    nb = nbformat.read(NOTEBOOK, as_version=4)
    for cell in nb.cells:
        exercise_id = cell.get("id", "").removesuffix("-solution")
        if cell.cell_type == "code" and cell.id.endswith("-solution"):
            cell.source = sources.get(exercise_id, solution(exercise_id))
    path = tmp_path / name
    nbformat.write(nb, path)
    return path


def test_grader_check_names_every_exercise_without_the_solutions(tmp_path):
    code = ("import sys; from grader import cli; code = cli.main(['check', *sys.argv[1:]]); "
            "assert not [m for m in sys.modules if m.startswith('_grader_solution')], 'the reference was imported'; "
            "sys.exit(code)")

    def check(*argv):
        return subprocess.run([sys.executable, "-c", code, *map(str, argv)], capture_output=True, text=True,
                              cwd=tmp_path, timeout=120)

    right = check(_student(tmp_path))
    assert right.returncode == 0, right.stdout + right.stderr
    for number, exercise_id in enumerate(IDS, start=1):
        assert f"\n{number}. {exercise_id}: " in right.stdout
    assert "All public checks of the 4 exercises passed" in right.stdout and "✗" not in right.stdout
    wrong = check(_student(tmp_path, "two.ipynb", gap_head=RIGHT_BUT["gap_head_sums"], dense_scores="import numpy"))
    assert wrong.returncode == 1, wrong.stdout + wrong.stderr
    assert "sum-pooling" in wrong.stdout and "No function named 'dense_scores'" in wrong.stdout
    assert wrong.stdout.count("All 13 public checks passed.") == 1  # linear's, said once under its own heading
    assert "2 of 4 exercises pass every public check; still to do: dense_scores (not checked: missing-function), " \
           "gap_head (2 of 12 checks failed)." in wrong.stdout
    # a script exported from it has no metadata: the functions it defines name the assignment, said on stderr
    script = tmp_path / "export.py"
    script.write_text(all_right(to_channels_last=""))
    exported = check(script)
    assert exported.returncode == 1 and f"checking assignment '{NAME}'" in exported.stderr
    assert "No function named 'to_channels_last'" in exported.stdout
    assert check(script, "--exercise", "linear").returncode == 0  # one exercise, as before


def test_check_of_an_assignment_never_builds_a_hidden_case(tmp_path, capsys, monkeypatch):
    def forbidden(*args, **kwargs):
        raise AssertionError("grader check built a hidden or full-scale case")

    monkeypatch.setattr(exercise_mod.Exercise, "hidden_cases", forbidden)
    monkeypatch.setattr(exercise_mod.Exercise, "full_scale_case", forbidden)
    code, out, err = run_cli(capsys, "check", _student(tmp_path, gap_head=RIGHT_BUT["gap_head_sums"]))
    assert code == 1 and "'public-non-square'" in out and "sum-pooling" in out, out + err


def test_pip_install_then_check_an_assignment_from_any_folder(installed, tmp_path):  # noqa: F811
    env = {"PATH": f"{installed / 'bin'}:/usr/bin:/bin", "HOME": str(tmp_path)}
    mine = _student(tmp_path, "mine.ipynb")
    proc = subprocess.run(["grader", "check", mine.name], capture_output=True, text=True, cwd=tmp_path, env=env,
                          timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert all(f". {i}: " in proc.stdout for i in IDS) and "All public checks of the 4 exercises" in proc.stdout
    script = tmp_path / "mine.py"
    script.write_text(all_right(dense_scores=""))
    proc = subprocess.run(["grader", "check", "--assignment", NAME, script.name], capture_output=True, text=True,
                          cwd=tmp_path, env=env, timeout=120)
    assert proc.returncode == 1 and "No function named 'dense_scores'" in proc.stdout, proc.stdout + proc.stderr


# -- under a real kernel ----------------------------------------------------------------------------------------------
def test_under_a_kernel_the_solutions_pass_every_self_check(tmp_path, monkeypatch):
    pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    from nbclient import NotebookClient

    spec = tmp_path / "jupyter" / "kernels" / "python3"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (grader tests)", "language": "python"}), encoding="utf-8")
    for variable, folder in (("JUPYTER_PATH", "jupyter"), ("JUPYTER_RUNTIME_DIR", "runtime"), ("IPYTHONDIR", "ipy")):
        monkeypatch.setenv(variable, str(tmp_path / folder))
    monkeypatch.delenv("GRADER_PARENT", raising=False)
    nb = nbformat.read(_student(tmp_path), as_version=4)
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    by_id = {c.id: c for c in nb.cells}
    assert not [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    for exercise_id in IDS:
        text = "".join(o.get("text", "") for o in by_id[f"{exercise_id}-self-check"].outputs)
        assert "All public checks passed" in text, text
    assert os.environ.get("GRADER_PARENT") is None


def test_a_function_written_in_two_cells_says_which_one_is_graded(grading, tmp_path):
    # every solution in one cell above the untouched starter cells: run from the top, the stubs replace them (as in
    # Jupyter); each section says where its function is defined and which definition counts
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nb.cells.insert(1, nbformat.v4.new_code_cell(all_right()))
    path = tmp_path / "scratch-first.ipynb"
    nbformat.write(nb, path)
    result = grading.grade(path, "zoe")
    for section in result.sections:
        assert section.score < section.max_score, section.exercise
        told = [w for w in section.warnings if "is defined" in w]  # once: the precise note, not a second sentence
        assert len(told) == 1, section.warnings
        assert told[0].startswith(f"{section.exercise}() is defined in code cell 1 (cell 2 of the notebook) with "
                                  "your code, then again in code cell "), told
        assert "that later definition replaced yours" in told[0], told
    once = grading.grade(write(tmp_path, all_right()), "zoe")
    assert not [w for s in once.sections for w in s.warnings if "is defined" in w]
