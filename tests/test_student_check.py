"""A student's `grader check`: no solutions anywhere, the public outputs stored in the exercise folder (and kept up
to date by this test), and the exercises found from an installed package (`pip install .`, not editable)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import numpy as np
import pytest

from conftest import ROOT, SUBMISSIONS
from grader import exercise as exercise_mod
from grader.errors import ExerciseError

STORED = ROOT / "exercises" / "vgg_classifier" / exercise_mod.PUBLIC_EXPECTED
NOTEBOOK = ROOT / "notebooks" / "vgg_classifier.ipynb"
SOLUTION = ROOT / "solutions" / "vgg_classifier.py"


def _course_exercises() -> list[str]:
    """The repository's exercises that students check: a public case and a reference to store outputs from."""
    ids = []
    for exercise_id in exercise_mod.known_ids(exercise_mod.CHECKOUT_EXERCISES):
        if (ROOT / "solutions" / f"{exercise_id}.py").is_file() and "def public_cases" in (
                exercise_mod.CHECKOUT_EXERCISES / exercise_id / "cases.py").read_text(encoding="utf-8"):
            ids.append(exercise_id)
    return ids


@pytest.mark.parametrize("exercise_id", _course_exercises())
def test_stored_public_outputs_are_up_to_date(exercise_id):
    """The guard: every public case and probe has its reference output stored, for exactly today's inputs."""
    exercise = exercise_mod.load(exercise_id)
    path = exercise.folder / exercise_mod.PUBLIC_EXPECTED
    make = f"run `make notebooks EXERCISE={exercise_id}` and commit {path.relative_to(ROOT)}"
    assert path.is_file(), f"{path} is missing: {make}"
    stored = json.loads(path.read_text(encoding="utf-8"))
    assert stored["schema"] == exercise_mod.PUBLIC_EXPECTED_SCHEMA and stored["exercise"] == exercise_id
    cases = exercise.public_cases() + exercise.probe_cases()
    assert exercise.public_cases()
    for case in cases:
        entry = stored["cases"].get(case.name)
        assert entry is not None, f"no stored output for '{case.name}': {make}"
        assert entry["inputs_sha256"] == exercise_mod.inputs_digest(case.args), (
            f"the inputs of '{case.name}' changed since {path.name} was generated: {make}")
        expected = exercise.expected(case)
        parts = entry["parts"] if "parts" in entry else [entry]
        for want, part in zip(expected if isinstance(expected, tuple) else (expected,), parts, strict=True):
            values = np.asarray(part["values"], dtype=np.float64).reshape(part["shape"])
            want = np.asarray(want, dtype=np.float64)
            scale = float(np.abs(want).max()) if want.size else 1.0
            assert values.shape == want.shape and np.allclose(values, want, rtol=1e-12, atol=1e-12 * (scale or 1)), (
                f"the stored output of '{case.name}' is not the reference's: {make}")


def test_without_the_reference_the_stored_outputs_stand_in(exercise):
    public = exercise_mod.load("vgg_classifier", require_reference=False)
    assert public.reference is None and not public.has_reference
    for case in public.public_cases():
        assert np.array_equal(public.expected(case), np.asarray(
            json.loads(STORED.read_text())["cases"][case.name]["values"]).reshape(public.expected(case).shape))
        assert np.allclose(public.expected(case), exercise.expected(case), rtol=1e-12, atol=1e-12)
    assert [p.name for p in public.probe_cases()] == [p.name for p in exercise.probe_cases()]


def test_changed_inputs_are_never_judged_against_a_stale_output(tmp_path):
    """A public case whose inputs no longer match the stored digest is an exercise error naming `make notebooks`;
    a changed probe is left out of the diagnosis."""
    folder = tmp_path / "exercises" / "vgg_classifier"
    shutil.copytree(ROOT / "exercises" / "vgg_classifier", folder, ignore=shutil.ignore_patterns("__pycache__"))
    stored = json.loads((folder / exercise_mod.PUBLIC_EXPECTED).read_text())
    stored["cases"]["public-batch"]["inputs_sha256"] = "0" * 64
    first_probe = next(n for n in stored["cases"] if not n.startswith("public-"))
    del stored["cases"][first_probe]
    (folder / exercise_mod.PUBLIC_EXPECTED).write_text(json.dumps(stored))
    public = exercise_mod.load("vgg_classifier", folder.parent, require_reference=False)  # the copy's own modules
    assert public.cases_module.__file__ == str(folder.resolve() / "cases.py")
    single, batch = public.public_cases()
    assert public.expected(single).shape == (1, 3)
    with pytest.raises(ExerciseError, match="make notebooks"):
        public.expected(batch)
    assert first_probe not in [p.name for p in public.probe_cases()]


def test_check_never_imports_the_reference(tmp_path):
    code = ("import sys; from grader import cli; code = cli.main(['check', sys.argv[1]]); "
            "assert not [m for m in sys.modules if m.startswith('_grader_solution')], 'the reference was imported'; "
            "sys.exit(code)")
    for name, want in (("correct/matmul.py", 0), ("buggy/missing-bias.py", 1)):
        proc = subprocess.run([sys.executable, "-c", code, str(SUBMISSIONS / name)], capture_output=True, text=True,
                              cwd=tmp_path, timeout=120)
        assert proc.returncode == want, proc.stdout + proc.stderr
    assert "missing-bias" in proc.stdout


def _student_notebook(path: Path, body: str) -> Path:
    nb = nbformat.read(NOTEBOOK, as_version=4)
    solution = next(c for c in nb.cells if c.get("id") == "solution")
    solution.source = body
    nbformat.write(nb, path)
    return path


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """`pip install .` (not editable) into a new virtual environment; its dependencies come from the test
    environment through a .pth file, so nothing is downloaded. The copy holds no solutions/."""
    root = tmp_path_factory.mktemp("install")
    source = root / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "grader", source / "grader", ignore=ignore)
    shutil.copytree(ROOT / "exercises", source / "exercises", ignore=ignore)
    wheels = root / "wheels"
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                            "-q", "-w", str(wheels), str(source)], capture_output=True, text=True, timeout=300)
    if build.returncode != 0:
        pytest.skip(f"cannot build a wheel here: {build.stderr.strip()[-300:]}")
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    install = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
                              "--no-index", "-q", *map(str, wheels.glob("*.whl"))],
                             capture_output=True, text=True, timeout=300)
    assert install.returncode == 0, install.stderr
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    deps = [p for p in sys.path if p.endswith("site-packages") and Path(p).is_dir()]
    Path(site, "test-dependencies.pth").write_text("\n".join(deps) + "\n")
    return venv


def test_pip_install_then_check_from_any_folder_without_solutions(installed, tmp_path):
    venv = installed
    env = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(tmp_path)}
    where = subprocess.run([str(venv / "bin" / "python"), "-c",
                            "import grader, grader.exercise as e; print(grader.__file__); print(e.DEFAULT_EXERCISES); "
                            "print(e.DEFAULT_SOLUTIONS.is_dir())"],
                           capture_output=True, text=True, cwd=tmp_path, env=env, check=True).stdout.split("\n")
    assert where[0].startswith(str(venv)) and where[1].startswith(str(venv)) and where[2] == "False", where
    solution = SOLUTION.read_text().split("\n", 2)[2]  # the body after the docstring line and the import
    mine = _student_notebook(tmp_path / "mine.ipynb", "import numpy as np\n" + solution)
    proc = subprocess.run(["grader", "check", mine.name], capture_output=True, text=True, cwd=tmp_path, env=env,
                          timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "All 10 public checks passed" in proc.stdout
    assert "bubblewrap" not in proc.stdout + proc.stderr and "root" not in proc.stdout  # no instructor warnings
    buggy = tmp_path / "buggy.py"
    shutil.copy(SUBMISSIONS / "buggy" / "missing-bias.py", buggy)
    proc = subprocess.run(["grader", "check", "buggy.py"], capture_output=True, text=True, cwd=tmp_path, env=env,
                          timeout=120)
    assert proc.returncode == 1 and "missing-bias" in proc.stdout, proc.stdout + proc.stderr
    version = subprocess.run(["grader", "--version"], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert version.returncode == 0 and version.stdout.startswith("grader ")


def test_the_packaged_exercise_holds_no_solution(installed):
    files = {p.name for p in installed.rglob("*") if p.is_file()}
    assert "public_expected.json" in files and "exercise.toml" in files
    solution_text = SOLUTION.read_text()
    for path in installed.rglob("*.py"):
        assert path.read_text(errors="replace") != solution_text, path
    assert not [p for p in installed.rglob("solutions") if p.is_dir()]


def test_the_notebook_self_check_cell_is_collapsed():
    nb = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    cell = next(c for c in nb["cells"] if c.get("id") == "self-check")
    assert cell["metadata"]["jupyter"]["source_hidden"] is True
    solution = next(c for c in nb["cells"] if c.get("id") == "solution")
    assert "(B, K)" in "".join(solution["source"]) and "C_classes" not in "".join(solution["source"])


def test_a_student_sees_no_warning_written_for_the_instructor(monkeypatch, capsys):
    """Even where the machine isolates least (rlimits only), `grader check` says nothing about bubblewrap or root:
    the student cannot act on it."""
    from grader import cli

    monkeypatch.setenv("GRADER_SANDBOX", "rlimits")
    code = cli.main(["check", str(SUBMISSIONS / "buggy" / "missing-bias.py")])
    out, err = capsys.readouterr()
    assert code == 1 and "missing-bias" in out
    for needle in ("bubblewrap", "root", "NOT isolated", "address space", "cgroup"):
        assert needle not in out + err, needle


def test_with_several_exercises_the_file_names_its_own(tmp_path, capsys):
    """No --exercise and no notebook metadata: the file's name, else the function it defines, picks the exercise
    when exactly one fits (the file is read, never run); otherwise the usage error lists the exercises."""
    from grader import cli

    base = tmp_path / "exercises"
    shutil.copytree(ROOT / "exercises" / "vgg_classifier", base / "vgg_classifier",
                    ignore=shutil.ignore_patterns("__pycache__", "examples"))
    shutil.copytree(ROOT / "tests" / "fixtures" / "exercises" / "dense_layer", base / "dense_layer",
                    ignore=shutil.ignore_patterns("__pycache__"))
    mine = tmp_path / "mine.py"
    shutil.copy(SUBMISSIONS / "buggy" / "missing-bias.py", mine)
    code = cli.main(["check", str(mine), "--exercises-dir", str(base)])
    out = capsys.readouterr().out
    assert code == 1 and "missing-bias" in out  # it defines vgg_classifier
    broken = tmp_path / "broken.py"
    broken.write_text("def vgg_classifier(features, W1, b1, W2, b2, W3, b3)\n    return features\n")
    assert cli.main(["check", str(broken), "--exercises-dir", str(base)]) == 1
    assert "SyntaxError" in capsys.readouterr().out
    other = tmp_path / "other.py"
    other.write_text("def f(x):\n    return x\n")
    assert cli.main(["check", str(other), "--exercises-dir", str(base)]) == 2
    assert "Name the exercise with --exercise (one of: dense_layer, vgg_classifier)" in capsys.readouterr().err
