"""What the generated notebooks give every student is not the student's own text or code.

* The "code left in a markdown cell" hint of a missing function: a generated notebook's statement shows the
  function's signature in a code block of a markdown cell, which is the exercise's text, not pasted code; a student
  who pasted their code into a markdown cell (with or without a code fence, in a cell of their own or after the
  statement's text) is told so.
* The similarity report's base code: the self-check cells of an assignment's notebook run inside a function of
  their own, and those wrapper lines are given code, shared by every two students without being evidence.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import ROOT
from grader import assignment as assignment_mod
from grader import batch, notebook, similarity, similarity_report
from grader import exercise as exercise_mod
from grader import submission as submission_mod
from grader.grade_assignment import AssignmentSession
from grader.missing import missing_function_error, pasted_cells
from grader.outcomes import Execution
from grader.similarity import Settings

NOTEBOOKS = ROOT / "notebooks"
NAME = "fc-layers"
IDS = ("linear", "to_channels_last", "dense_scores", "gap_head")
NOT_DEFINED = Execution(function_found=False, function_callable=False)
HINT = "it is a text (markdown) cell"


@pytest.fixture(scope="module")
def fc():
    return assignment_mod.load_assignment(assignment_mod.read_course()[NAME])


def generated(notebook_name: str, solution: str = "pass\n", extra: list[dict] = (), append: str = "") -> dict:
    """A committed generated notebook with every solution cell holding ``solution``, ``extra`` cells added before
    the last one, and ``append`` added to the end of the first markdown cell that shows a signature."""
    data = json.loads((NOTEBOOKS / notebook_name).read_text(encoding="utf-8"))
    for cell in data["cells"]:
        if cell["cell_type"] == "code" and cell["id"].endswith("solution"):
            cell["source"] = solution
    if append:
        cell = next(c for c in data["cells"] if c["cell_type"] == "markdown" and "```python\ndef " in
                    "".join(c["source"]))
        cell["source"] = "".join(cell["source"]) + append
    data["cells"][-1:-1] = [dict(cell) for cell in extra]
    return data


def loaded(tmp_path: Path, data: dict, name: str = "student.ipynb") -> submission_mod.Submission:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return submission_mod.load(path)


def markdown(text: str) -> dict:
    return {"cell_type": "markdown", "id": "mine", "metadata": {}, "source": text}


def exercises_of(notebook_name: str) -> list[str]:
    return list(IDS) if notebook_name == f"{NAME}.ipynb" else [Path(notebook_name).stem]


GENERATED = sorted(p.name for p in NOTEBOOKS.glob("*.ipynb"))


# -- the markdown hint ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("notebook_name", GENERATED)
def test_a_generated_notebook_without_the_function_gets_no_markdown_hint(tmp_path, notebook_name):
    submission = loaded(tmp_path, generated(notebook_name))
    for exercise_id in exercises_of(notebook_name):
        exercise = exercise_mod.load(exercise_id, require_reference=False)
        signature = f"def {exercise.function}("
        assert any(signature in text for _, text in submission.prose), "the statement shows the signature"
        message = missing_function_error(submission, NOT_DEFINED, exercise).message
        assert f"No function named '{exercise.function}'" in message and HINT not in message, message
        assert pasted_cells(submission, exercise) == []


def test_the_bundled_class_names_the_near_miss_without_a_markdown_hint(fc, tmp_path):
    """Dara named her function to_channel_last: the grade says "Did you mean", and nothing of markdown."""
    with AssignmentSession(fc, full_scale=False) as grading:
        result = grading.grade(ROOT / "exercises" / "course_examples" / NAME / "dara.ipynb", "dara")
    section = next(s for s in result.sections if s.exercise == "to_channels_last")
    assert section.error.kind == "missing-function"
    assert "Did you mean to name 'to_channel_last'" in section.error.message
    assert HINT not in section.error.message


PASTED = {
    "own-cell": dict(extra=[markdown("my answer:\n\ndef {f}({p}):\n    return None  # pasted\n")]),
    "own-cell-fenced": dict(extra=[markdown("```python\ndef {f}({p}):\n    return None  # pasted\n```\n")]),
    "own-cell-indented": dict(extra=[markdown("    def {f}({p}):\n        return None  # pasted\n")]),
    "after-the-statement": dict(append="\n\ndef {f}({p}):\n    return None  # pasted\n"),
    "the-statements-fence-with-a-body": dict(append="\n```python\ndef {f}({p}) -> np.ndarray\n"
                                                    "    return None  # pasted\n```\n"),
}


@pytest.mark.parametrize("where", sorted(PASTED))
@pytest.mark.parametrize("notebook_name", ["linear.ipynb", f"{NAME}.ipynb"])
def test_code_pasted_into_a_markdown_cell_gets_the_hint(tmp_path, notebook_name, where):
    exercise = exercise_mod.load("linear", require_reference=False)
    change = {key: ([{**c, "source": c["source"].format(f="linear", p=exercise.parameters)} for c in value]
                    if key == "extra" else value.format(f="linear", p=exercise.parameters))
              for key, value in PASTED[where].items()}
    submission = loaded(tmp_path, generated(notebook_name, **change))
    cell = next(number for number, text in submission.prose if "# pasted" in text)
    message = missing_function_error(submission, NOT_DEFINED, exercise).message
    assert f"Cell {cell} of the notebook contains 'def linear', but {HINT}" in message, message
    assert pasted_cells(submission, exercise) == [cell]


def test_a_script_has_no_markdown_to_hint_at(tmp_path):
    path = tmp_path / "student.py"
    path.write_text("def linar(x, weight, bias=None):\n    return x @ weight.T\n", encoding="utf-8")
    exercise = exercise_mod.load("linear", require_reference=False)
    message = missing_function_error(submission_mod.load(path), NOT_DEFINED, exercise).message
    assert HINT not in message


# -- the similarity report's base code ---------------------------------------------------------------------------
def test_the_scoped_self_checks_of_an_assignment_notebook_are_base_code(fc):
    for exercise in fc.exercises:
        base = similarity_report.base_code(exercise)
        assert notebook.scoped_selfcheck_source(exercise) in base
        assert notebook.selfcheck_source(exercise) in base  # the exercise's own notebook's cell, as before
        assert (exercise.folder / "starter.py").read_text(encoding="utf-8") in base


def test_two_students_who_share_only_the_assignment_notebook_share_no_code(fc, tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    own = {"ana": "import os\nprint(os.getcwd())\n", "ben": "total = sum(range(10))\n"}
    for student, code in own.items():
        (folder / f"{student}.ipynb").write_text(json.dumps(generated(f"{NAME}.ipynb", code)), encoding="utf-8")
    sources = similarity_report.sources(batch.discover([folder]))
    every = Settings(min_tokens=1, threshold=0.0)  # any shared passage at all is a pair
    base = [code for exercise in fc.exercises for code in similarity_report.base_code(exercise)]
    result = similarity.analyse(sources, base, every)
    assert not result.pairs and not result.near
    # what protects them is the scoped self-checks: with the exercises' own self-check cells alone, the lines
    # around each (its function's def, its call, its del) are shared by both
    unscoped = [code for code in base if code not in {notebook.scoped_selfcheck_source(e) for e in fc.exercises}]
    assert similarity.analyse(sources, unscoped, every).pairs
