"""A second exercise is a new folder: the harness grades it with no change to grader/."""
from __future__ import annotations

import json
import subprocess
import sys

from conftest import ROOT

FIXTURES = ROOT / "tests" / "fixtures"


def grade(tmp_path, source: str, exercise: str = "dense_layer") -> dict:
    path = tmp_path / "student.py"
    path.write_text(source)
    proc = subprocess.run(
        [sys.executable, "-m", "grader", "grade", str(path), "--exercise", exercise, "--json",
         "--exercises-dir", str(FIXTURES / "exercises"), "--solutions-dir", str(FIXTURES / "solutions")],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_a_correct_dense_layer_gets_full_marks(tmp_path):
    result = grade(tmp_path, "import numpy as np\n\ndef dense(x, W, b):\n    return np.dot(x, W) + b\n")
    assert result["exercise"] == "dense_layer"
    assert result["score"] == result["max_score"] == 5
    assert [c["id"] for c in result["checks"]] == ["returns", "type", "shape", "values-small"]
    assert result["diagnoses"] == []


def test_a_wrong_dense_layer_loses_points_and_the_starter_is_named(tmp_path):
    wrong = grade(tmp_path, "def dense(x, W, b):\n    return x @ W\n")
    assert wrong["score"] < wrong["max_score"]
    starter = grade(tmp_path, "def dense(x, W, b):\n    pass\n")
    assert starter["score"] == 0 and [d["id"] for d in starter["diagnoses"]] == ["not-implemented"]


def grade_pair(tmp_path, source: str) -> dict:
    return grade(tmp_path, source, "scaled_pair")


def test_scalar_arguments_arrive_as_python_values_and_two_outputs_are_both_judged(tmp_path):
    right = grade_pair(tmp_path, "def scaled_pair(x, k, shift=None):\n"
                                 "    assert type(k) is int, type(k)\n"
                                 "    assert shift is None or type(shift) is float, type(shift)\n"
                                 "    return x * k, x.sum(axis=1) + (shift or 0.0)\n")
    assert right["score"] == right["max_score"] == 7, json.dumps(right)[:1500]
    wrong = grade_pair(tmp_path, "def scaled_pair(x, k, shift=None):\n"
                                 "    return [x * k, x.sum(axis=1)]\n")  # forgets the shift: only 'sums' is wrong
    values = next(c for c in wrong["checks"] if c["id"] == "values")
    assert values["status"] == "failed" and "output 'sums'" in values["message"], values
    one = grade_pair(tmp_path, "def scaled_pair(x, k, shift=None):\n    return x * k\n")
    shape = next(c for c in one["checks"] if c["id"] == "shape")
    assert shape["status"] == "failed" and "output 'sums'" in shape["message"], shape
    assert "1 value where 2 were expected" in json.dumps(one)


def test_two_cases_with_one_name_are_an_exercise_error(tmp_path, monkeypatch):
    """Outcomes are matched to cases by name: a duplicate would swap inputs and answers silently."""
    import numpy as np
    import pytest

    from grader import exercise as exercise_mod
    from grader.errors import ExerciseError
    from grader.exercise import Case
    from grader.grade import Session, grade_file

    ex = exercise_mod.load("scaled_pair", FIXTURES / "exercises", FIXTURES / "solutions")
    twice = Case("int-k", "all", (np.ones((2, 2)), 2))
    monkeypatch.setattr(ex.cases_module, "hidden_cases", lambda rng: [twice, twice])
    path = tmp_path / "student.py"
    path.write_text("def scaled_pair(x, k, shift=None):\n    return x * k, x.sum(axis=1)\n")
    with Session(ex, full_scale=False) as session, pytest.raises(ExerciseError, match="two cases named 'int-k'"):
        grade_file(path, session)


def test_the_starter_of_a_function_with_two_outputs_is_not_implemented(tmp_path):
    starter = grade_pair(tmp_path, "def scaled_pair(x, k, shift=None):\n    pass\n")
    assert starter["score"] == 0, json.dumps(starter)[:1500]
    assert [d["id"] for d in starter["diagnoses"]] == ["not-implemented"]
