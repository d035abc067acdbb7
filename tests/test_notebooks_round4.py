"""The shipped student notebooks, edited as students edit them, run for real and submitted (round four of probing
real notebooks). Each notebook under submissions/notebooks-round4/ was made from notebooks/vgg_classifier.ipynb or
notebooks/fc-layers.ipynb and run with nbclient, so its outputs, errors and execution counts are what the student
saved; its README says what each one holds. Each folder is graded once, as a class.

What a student read before this round: a cell with input() in it got only "raised EOFError: 'EOF when reading a
line'" unless it was the cell that defines the function; a starter whose 'pass' became 'raise NotImplementedError'
got the usual causes of an exception (shapes that do not line up) and nothing about the stub; numpy.testing's
messages were quoted from their leading line break ('\\nNot equal to tolerance...'); exit() in a cell was said to
have "raised SystemExit: 'None'".
"""
from __future__ import annotations

import shutil

import pytest

from conftest import SUBMISSIONS, diagnosis_ids, grade_students, run_cli
import exercise_helpers as helpers

FOLDER = SUBMISSIONS / "notebooks-round4"
VGG = sorted(p.stem for p in (FOLDER / "vgg_classifier").glob("*.ipynb"))
FC = sorted(p.stem for p in (FOLDER / "fc-layers").glob("*.ipynb"))
PROMPT = "That is an input() or getpass() call waiting for someone to type"
TWO_DEFINITIONS = "so the one graded is the last, in code cell 2 (cell 4 of the notebook)"

#: right code whatever surrounds it: full marks, and the only warnings are these (a substring each, in order)
VGG_FULL = {
    "below-starter-pass": [TWO_DEFINITIONS],
    "below-starter-notimplemented": [TWO_DEFINITIONS],
    "starter-deleted-solution-at-end": [],
    "selfcheck-edited": [],
    "selfcheck-deleted": [],
    "own-tests-fail": ["raised AssertionError: 'logits should be positive??'",
                       "raised AssertionError: 'Not equal to tolerance"],
    "own-tests-print-a-lot": [],
    "run-out-of-order": [],
    "saved-mid-execution": [],
    "debug-magic-left": ["Code cell 3 (cell 6 of the notebook) raised ValueError", "'%debug' was not run"],
    "split-helpers-after": [],
    "statement-edited": [],
    "Copy of vgg_classifier": [],
    "renamed-with-wrapper": [],
    "renamed-alias-args": [],
    "input-cell": [PROMPT],
    "sys-exit-in-selfcheck": ["raised SystemExit: 'self-check done'"],
    "prints-expected": [],
    "exit-call": ["Code cell 3 (cell 6 of the notebook) raised SystemExit (line 2 of code cell 3)"],
    "frontend-magics": ["A '%%javascript' cell was not run", "A '%%html' cell was not run"],
}
#: wrong code, whatever the mess: the score and the one mistake named
VGG_WRONG = {
    "only-notimplemented": (0, "raises-error"),
    "selfcheck-failing-relu-logits": (8, "relu-after-fc3"),
    "own-call-traceback": (1, "transposed-weights"),
    "sys-exit-failing-check": (8, "missing-bias"),
    "expected-typed-in": (7, "constant-output"),
}
FC_FULL = {
    "Copy of fc-layers": [],
    "all-below-starters": [],
    "helpers-after-all": [],
    "input-and-debug": [PROMPT, "Code cell 4 (cell 8 of the notebook) raised ValueError", "'%debug' was not run"],
    "one-starter-deleted": [],
    "renamed-wrappers": [],
    "run-out-of-order": [],
    "saved-mid-execution": [],
    "selfchecks-deleted": [],
    "sys-exit-in-selfcheck": ["raised SystemExit (line 175 of code cell 4)"],
}
#: per exercise: (points, the mistake named, or None for full marks)
FC_MIXED = {
    "mixed-right-wrong-untouched-raising": {"linear": (20, None), "to_channels_last": (7, "reshape-only"),
                                            "dense_scores": (0, "not-implemented"),
                                            "gap_head": (1, "transposed-weights")},
    "notimplemented-starters": {"linear": (20, None), "to_channels_last": (0, "raises-error"),
                                "dense_scores": (0, "raises-error"), "gap_head": (18, None)},
    "own-tests-traceback": {"linear": (20, None), "to_channels_last": (14, None),
                            "dense_scores": (10, "window-channels-first"), "gap_head": (18, None)},
}


@pytest.fixture(scope="module")
def vgg(session):
    return grade_students(FOLDER / "vgg_classifier", session, VGG)


@pytest.fixture(scope="module")
def fc():
    with helpers.assignment_session() as grading:
        yield grade_students(FOLDER / "fc-layers", grading, FC)


def _says_in_order(warnings: list[str], needles: list[str]) -> bool:
    return len(warnings) == len(needles) and all(n in w for n, w in zip(needles, warnings))


def test_every_notebook_is_listed_and_expected():
    readme = (FOLDER / "README.md").read_text(encoding="utf-8")
    for folder, names in (("vgg_classifier", VGG), ("fc-layers", FC)):
        for name in names:
            assert f"`{name}.ipynb`" in readme, (folder, name)
    assert sorted(VGG) == sorted([*VGG_FULL, *VGG_WRONG, "import-from-py"])
    assert sorted(FC) == sorted([*FC_FULL, *FC_MIXED, "import-from-py"])
    assert len(VGG) + len(FC) >= 35


@pytest.mark.parametrize("name", sorted(VGG_FULL))
def test_right_vgg_code_gets_full_marks_whatever_the_notebook_around_it(vgg, name):
    result = vgg[name]
    assert result.status == "graded" and result.score == result.max_score, \
        [(c.id, c.message) for c in result.checks if c.status != "passed"]
    assert not result.diagnoses, diagnosis_ids(result)
    assert _says_in_order(list(result.warnings), VGG_FULL[name]), result.warnings


@pytest.mark.parametrize("name", sorted(VGG_WRONG))
def test_wrong_vgg_code_names_its_one_mistake(vgg, name):
    points, mistake = VGG_WRONG[name]
    result = vgg[name]
    assert result.status == "graded" and result.score == points, result.score
    assert diagnosis_ids(result) == {mistake}


def test_a_stub_that_raises_not_implemented_error_says_it_is_not_written(vgg, fc):
    """It got the usual causes of an exception (shapes that do not line up, a name not defined) and no word about
    the stub the student kept in place of 'pass'."""
    for result in (vgg["only-notimplemented"], *fc["notimplemented-starters"].sections[1:3]):
        evidence = next(d.evidence for d in result.diagnoses if d.id == "raises-error")
        assert "Every case raised NotImplementedError, which code not written yet raises" in evidence, evidence


def test_a_prompt_in_a_cell_that_defines_nothing_is_named(vgg):
    """The warning said only "raised EOFError: 'EOF when reading a line'"; it now says what that is."""
    warning = vgg["input-cell"].warnings[0]
    assert warning.startswith("Code cell 1 (cell 2 of the notebook) raised EOFError"), warning
    assert warning.endswith("in Jupyter you answered it, but while grading nobody can, so it fails."), warning


def test_a_function_imported_from_a_file_not_submitted_says_so(vgg, fc):
    result = vgg["import-from-py"]
    assert result.status == "error" and result.error.kind == "missing-function"
    assert "my_solution.py is not part of the submission" in result.error.message, result.error.message
    for section in fc["import-from-py"].sections:  # 'from fc_solutions import *' brought all four
        assert f"{section.exercise}() was to come from the module 'fc_solutions'" in section.error.message


@pytest.mark.parametrize("name", sorted(FC_FULL))
def test_right_fc_layers_code_gets_full_marks_whatever_the_notebook_around_it(fc, name):
    result = fc[name]
    assert result.status == "graded" and result.score == result.max_score == 70, result.score
    assert not any(s.diagnoses for s in result.sections)
    assert _says_in_order(list(result.warnings), FC_FULL[name]), result.warnings


def test_each_section_starter_left_above_a_solution_is_said_once_in_its_own_section(fc):
    for section in fc["all-below-starters"].sections:
        assert len(section.warnings) == 1 and "the one graded is the last" in section.warnings[0], section.warnings


@pytest.mark.parametrize("name", sorted(FC_MIXED))
def test_each_fc_exercise_is_graded_on_its_own(fc, name):
    result = fc[name]
    got = {s.exercise: (s.score, next(iter(diagnosis_ids(s)), None)) for s in result.sections}
    assert got == FC_MIXED[name]


def test_grader_check_on_colab_downloads_without_the_metadata(tmp_path, capsys):
    """Colab's 'Download .ipynb' of a copy keeps neither the file's name nor the grader's metadata: the check finds
    the exercise, or the assignment, from the functions the notebook defines."""
    for folder, name, heading in (("vgg_classifier", "Copy of vgg_classifier.ipynb", "All 10 public checks passed"),
                                  ("fc-layers", "Copy of fc-layers.ipynb", "All public checks of the 4 exercises")):
        path = shutil.copy(FOLDER / folder / name, tmp_path / name)
        code, out, err = run_cli(capsys, "check", path)
        assert code == 0 and heading in out, (out, err)


def test_grader_check_names_the_stub_and_the_prompt(tmp_path, capsys):
    path = shutil.copy(FOLDER / "vgg_classifier" / "only-notimplemented.ipynb", tmp_path / "vgg_classifier.ipynb")
    code, out, _ = run_cli(capsys, "check", path)
    assert code == 1 and "Every case raised NotImplementedError" in out, out
    path = shutil.copy(FOLDER / "fc-layers" / "input-and-debug.ipynb", tmp_path / "fc.ipynb")
    code, out, _ = run_cli(capsys, "check", path)
    assert code == 0 and PROMPT in out, out


def test_a_right_function_in_a_notebook_that_did_not_end_is_told_its_results_were_right():
    """A right function whose notebook stopped in a later cell (a loop the student interrupted) loses only the
    'completes' point: the report no longer sends the student to the arithmetic ("compare your function with the
    computation"), it says the results were right and where to look."""
    from types import SimpleNamespace

    from grader import report
    from grader.results import CheckResult

    checks = (CheckResult("completes", "The submission runs to its end within the time limits", "timeout", 0, 1,
                          "Cell 7 ran out of time."),
              CheckResult("returns", "The function runs and returns on every case", "passed", 1, 1, ""),
              CheckResult("values-single", "Correct logits for one sample", "passed", 3, 3, ""))
    said = report.unexplained(SimpleNamespace(checks=checks))
    assert "results were right" in said and "The submission runs to its end" in said and "compare" not in said
    wrong = (*checks[:2], CheckResult("values-single", "Correct logits for one sample", "failed", 0, 3, "off"))
    assert "Compare your function" in report.unexplained(SimpleNamespace(checks=wrong))
