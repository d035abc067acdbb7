"""A second exercise is a new folder: the harness grades it with no change to grader/."""
from __future__ import annotations

import json
import subprocess
import sys

from conftest import ROOT

FIXTURES = ROOT / "tests" / "fixtures"


def grade(tmp_path, source: str) -> dict:
    path = tmp_path / "student.py"
    path.write_text(source)
    proc = subprocess.run(
        [sys.executable, "-m", "grader", "grade", str(path), "--exercise", "dense_layer", "--json",
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
