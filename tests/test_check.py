"""``grader check``: public cases only, mistakes named, exit codes 0 / 1 / 2, plain text unless on a terminal."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time

import pytest

from conftest import ROOT, SUBMISSIONS
from grader import choose, cli, student_check
from grader.exercise import Exercise

STARTER = ROOT / "exercises" / "vgg_classifier" / "starter.py"
NOTEBOOK = ROOT / "notebooks" / "vgg_classifier.ipynb"


def check(capsys, *args):
    code = cli.main(["check", *map(str, args)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_correct_file_passes(capsys):
    code, out, _ = check(capsys, SUBMISSIONS / "correct" / "matmul.py")
    assert code == 0, out
    assert re.search(r"All \d+ public checks passed", out)
    assert "✗" not in out and "\033[" not in out  # captured output is not a terminal: no colour


@pytest.mark.parametrize("name,mistake", [
    ("buggy/missing-bias.py", "missing-bias"),
    ("buggy/flatten-order.py", "flatten-order"),
    ("buggy/relu-after-fc3.py", "relu-after-fc3"),
    ("buggy/softmax-output.py", "softmax-output"),
    ("buggy/batch-flattened.py", "batch-flattened"),
    ("buggy/wrong-dtype.py", "wrong-dtype"),
    ("notebooks/buggy-softmax.ipynb", "softmax-output"),
])
def test_buggy_file_names_the_mistake(capsys, name, mistake):
    code, out, _ = check(capsys, SUBMISSIONS / name, "--exercise", "vgg_classifier")
    assert code == 1, out
    assert f"✗ {mistake}: " in out
    assert "public checks failed" in out


def test_syntax_error_is_a_clear_message(capsys, tmp_path):
    path = tmp_path / "student.py"
    path.write_text("import numpy as np\n\ndef vgg_classifier(features, W1, b1, W2, b2, W3, b3)\n    return 0\n")
    code, out, _ = check(capsys, path)
    assert code == 1
    assert "Could not be checked" in out and "SyntaxError" in out and "line 3" in out
    assert "Traceback" not in out


def test_syntax_error_in_a_notebook(capsys):
    code, out, _ = check(capsys, SUBMISSIONS / "notebooks" / "syntax-error.ipynb")
    assert code == 1 and "SyntaxError in code cell" in out


@pytest.mark.parametrize("path", [STARTER, NOTEBOOK], ids=["starter.py", "generated-notebook"])
def test_starter_is_not_implemented(capsys, tmp_path, path):
    copy = tmp_path / path.name
    shutil.copy(path, copy)
    code, out, _ = check(capsys, copy)
    assert code == 1
    assert "Not implemented yet" in out
    assert out.count("\n") <= 3, out  # one line, not nine failed checks


def test_only_public_cases_run(capsys, monkeypatch):
    def forbidden(*args, **kwargs):
        raise AssertionError("grader check built a hidden or full-scale case")

    monkeypatch.setattr(Exercise, "hidden_cases", forbidden)
    monkeypatch.setattr(Exercise, "full_scale_case", forbidden)
    code, out, _ = check(capsys, SUBMISSIONS / "buggy" / "missing-relu.py")
    assert code == 1
    assert "'public-single'" in out or "'public-batch'" in out


@pytest.mark.parametrize("args", [
    ["does-not-exist.py"],
    [ROOT / "README.md"],
    [SUBMISSIONS / "correct"],
    [SUBMISSIONS / "correct" / "matmul.py", "--exercise", "no-such-exercise"],
    [],
])
def test_usage_errors_exit_2(capsys, args):
    code, out, err = check(capsys, *args)
    assert code == 2
    assert "grader: error:" in err


def test_colour_only_on_a_terminal(exercise, monkeypatch):
    result = student_check.check_file(SUBMISSIONS / "buggy" / "missing-bias.py", exercise)
    coloured = student_check.format_result(result, exercise, color=True)
    assert "\033[32" in coloured and "\033[31" in coloured
    assert "\033[" not in student_check.format_result(result, exercise, color=False)

    class Tty:
        encoding = "utf-8"

        def isatty(self):
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("TERM", raising=False)
    assert student_check.use_color(Tty())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not student_check.use_color(Tty())


def test_ascii_terminal_gets_ascii_marks():
    class Ascii:
        encoding = "ascii"

    assert student_check._symbols(Ascii()) == ("+", "x")


def test_cli_subprocess_is_fast_and_piped_output_is_plain():
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "grader", "check", str(SUBMISSIONS / "correct" / "matmul.py")],
                          capture_output=True, text=True, cwd=ROOT, timeout=60, env={"PATH": "/usr/bin:/bin"})
    elapsed = time.perf_counter() - started
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "✓" in proc.stdout and "\033[" not in proc.stdout
    assert elapsed < 5.0  # about half a second on a laptop; generous for loaded CI machines


def test_exercise_is_read_from_the_notebook_metadata(tmp_path, capsys, monkeypatch):
    copy = tmp_path / "mine.ipynb"
    shutil.copy(NOTEBOOK, copy)
    seen = []
    real = choose.exercise

    def spy(args, **kwargs):
        seen.append(args.exercise)
        return real(args, **kwargs)

    monkeypatch.setattr(choose, "exercise", spy)
    check(capsys, copy)
    assert seen == ["vgg_classifier"]


def _planted_exercise(tmp_path):
    """An exercise folder and a 'reference solution' planted outside exercises/, as a hostile notebook would
    name them: importing the solution leaves a canary file."""
    canary = tmp_path / "solution-was-imported"
    planted = tmp_path / "planted"
    (planted / "evil").mkdir(parents=True)
    (planted / "solutions").mkdir()
    (planted / "evil" / "exercise.toml").write_text(
        'id = "evil"\ntitle = "t"\nversion = "1"\nfunction = "f"\nparameters = ["x"]\n')
    (planted / "evil" / "cases.py").write_text("def hidden_cases(rng):\n    return []\n")
    solution = f"open({str(canary)!r}, 'w').write('ran in the grader')\ndef f(x):\n    return x\n"
    (planted / "solutions" / "evil.py").write_text(solution)
    (planted / "evil.py").write_text(solution)  # where '<id>.py' lands when the id is a path
    return planted / "evil", canary


@pytest.mark.parametrize("named", ["absolute", "relative", ".."])
def test_a_notebook_cannot_name_a_path_as_its_exercise(tmp_path, capsys, named):
    folder, canary = _planted_exercise(tmp_path)
    value = {"absolute": str(folder), "relative": os.path.relpath(folder, ROOT / "exercises"), "..": ".."}[named]
    notebook = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    notebook["metadata"]["grader"] = {"exercise": value}
    path = tmp_path / "mine.ipynb"
    path.write_text(json.dumps(notebook), encoding="utf-8")
    code, out, err = check(capsys, path)
    assert code == 2 and out == ""
    assert not canary.exists(), "the planted reference solution was imported"
    assert "metadata.grader.exercise" in err and repr(value) in err
    assert "not an exercise id" in err and "letters, digits, '_' and '-'" in err
    assert "Give --exercise ID" in err and "vgg_classifier" in err
    assert "Traceback" not in err


def test_a_notebook_naming_an_unknown_exercise_is_a_usage_error(tmp_path, capsys):
    notebook = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    notebook["metadata"]["grader"] = {"exercise": "no_such_exercise"}
    path = tmp_path / "mine.ipynb"
    path.write_text(json.dumps(notebook), encoding="utf-8")
    code, _, err = check(capsys, path)
    assert code == 2
    assert "names the exercise 'no_such_exercise' in its metadata" in err and "no such exercise" in err


@pytest.mark.parametrize("command", ["check", "grade"])
def test_exercise_option_takes_an_id_not_a_path(tmp_path, capsys, command):
    folder, canary = _planted_exercise(tmp_path)
    for value in (str(folder), os.path.relpath(folder, ROOT / "exercises"), "vgg_classifier/../vgg_classifier"):
        code = cli.main([command, str(SUBMISSIONS / "correct" / "matmul.py"), "--exercise", value])
        err = capsys.readouterr().err
        assert code == 2, err
        assert f"--exercise takes an exercise id, not a path: got {value!r}" in err
        assert "--exercises-dir DIR" in err
    assert not canary.exists()


def test_exercises_dir_is_the_way_to_point_elsewhere(tmp_path, capsys):
    folder, canary = _planted_exercise(tmp_path)
    code = cli.main(["check", str(SUBMISSIONS / "correct" / "matmul.py"), "--exercise", "evil",
                     "--exercises-dir", str(folder.parent), "--solutions-dir", str(folder.parent / "solutions")])
    capsys.readouterr()
    assert canary.exists()  # the instructor's own choice of folder is honoured
    assert code == 2  # ... and this toy exercise has no public cases to check against
