"""Loading exercise folders: each folder's modules are its own, and an exercise imports its sibling files.

The loader used to key modules by exercise id, so a second folder with the same id (a copy with edited cases, a
fixture) silently got the first folder's ``cases.py``. These tests load several folders with one id in this
process and check that nothing is shared, that a reload of an unchanged folder reuses its modules, and that
``from . import sibling`` works from any copy of a folder.
"""
from __future__ import annotations

import inspect
import re
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from grader import authoring
from grader import exercise as exercise_mod
from grader.errors import ExerciseError
from grader.exercisepackage import PACKAGE_PREFIX, SOLUTION_PREFIX

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "exercises" / "dense_layer"
FIXTURE_SOLUTIONS = ROOT / "tests" / "fixtures" / "solutions"
IGNORE = shutil.ignore_patterns("__pycache__")

CASES = '''
import numpy as np
from grader.authoring import Case


def hidden_cases(rng):
    return [Case(name={name!r}, group="small", args=(np.ones((1, 3)), np.ones((3, 2)), np.ones(2)))]
'''

DIAGNOSIS = '''
from grader.authoring import PROBE, Case, Finding

from . import helper
from .helper import VALUE


def probe_cases():
    return [Case(name="probe-" + helper.NAME, group=PROBE, args=())]


def diagnose(runs, exercise):
    return [Finding(helper.NAME, str(VALUE))]
'''


def _copy(tmp_path: Path, where: str, cases_name: str | None = None) -> Path:
    """A copy of the small fixture exercise, under ``tmp_path/where/dense_layer``, its hidden case renamed."""
    folder = tmp_path / where / "dense_layer"
    shutil.copytree(FIXTURE, folder, ignore=IGNORE)
    if cases_name is not None:
        (folder / "cases.py").write_text(CASES.format(name=cases_name))
    return folder


def _with_helper(tmp_path: Path, where: str, name: str, value: int) -> Path:
    folder = _copy(tmp_path, where)
    (folder / "diagnosis.py").write_text(DIAGNOSIS)
    (folder / "helper.py").write_text(f"NAME = {name!r}\nVALUE = {value}\n")
    return folder


def _load(folder: Path, **kwargs) -> exercise_mod.Exercise:
    return exercise_mod.load(folder.name, folder.parent, require_reference=False, **kwargs)


def test_two_folders_with_one_id_load_their_own_cases(tmp_path):
    first = _load(_copy(tmp_path, "a", cases_name="from-a"))
    second = _load(_copy(tmp_path, "b", cases_name="from-b"))
    assert first.id == second.id == "dense_layer"
    assert [c.name for c in first.hidden_cases(1)] == ["from-a"]
    assert [c.name for c in second.hidden_cases(1)] == ["from-b"]
    assert first.cases_module is not second.cases_module
    assert first.cases_module.__name__.startswith(PACKAGE_PREFIX + "dense_layer_")


def test_the_fixture_and_a_copy_of_it_share_no_module(tmp_path):
    original = _load(FIXTURE)
    copy = _load(_copy(tmp_path, "copy"))  # identical files, another folder
    assert original.cases_module is not copy.cases_module
    assert Path(copy.cases_module.__file__).parent == (tmp_path / "copy" / "dense_layer").resolve()


def test_reloading_an_unchanged_folder_reuses_its_modules_and_an_edit_is_seen(tmp_path):
    folder = _copy(tmp_path, "a", cases_name="before")
    first, again = _load(folder), _load(folder)
    assert first.cases_module is again.cases_module
    (folder / "cases.py").write_text(CASES.format(name="after-the-edit"))  # another size: no stale bytecode
    edited = _load(folder)
    assert [c.name for c in edited.hidden_cases(1)] == ["after-the-edit"]
    assert [c.name for c in first.hidden_cases(1)] == ["before"]  # an Exercise already loaded keeps its modules


def test_a_diagnosis_imports_its_siblings_from_a_copied_folder(tmp_path):
    ex = _load(_with_helper(tmp_path, "a", "from-a", 1))
    assert [p.name for p in ex.diagnosis_module.probe_cases()] == ["probe-from-a"]
    assert list(ex.diagnosis_module.diagnose([], ex)) == [authoring.Finding("from-a", "1")]
    assert ex.diagnosis_module.helper.__file__ == str((tmp_path / "a" / "dense_layer" / "helper.py").resolve())


def test_a_sibling_of_the_same_name_in_two_folders_is_not_shared(tmp_path):
    first = _load(_with_helper(tmp_path, "a", "from-a", 1))
    second = _load(_with_helper(tmp_path, "b", "from-b", 2))
    third = _load(_with_helper(tmp_path, "c", "from-b", 2))  # the same files as the second, in a third folder
    helpers = [ex.diagnosis_module.helper for ex in (first, second, third)]
    assert [(h.NAME, h.VALUE) for h in helpers] == [("from-a", 1), ("from-b", 2), ("from-b", 2)]
    assert len({id(h) for h in helpers}) == 3
    assert list(first.diagnosis_module.diagnose([], first)) == [authoring.Finding("from-a", "1")]
    assert list(second.diagnosis_module.diagnose([], second)) == [authoring.Finding("from-b", "2")]


def test_a_broken_sibling_names_the_file_and_a_fix_loads(tmp_path):
    folder = _with_helper(tmp_path, "a", "from-a", 1)
    (folder / "helper.py").write_text("raise RuntimeError('the helper is broken')\n")
    with pytest.raises(ExerciseError, match=r"diagnosis\.py failed to load: RuntimeError: the helper is broken"):
        _load(folder)
    (folder / "helper.py").write_text("NAME = 'fixed'\nVALUE = 3\n")
    assert [p.name for p in _load(folder).diagnosis_module.probe_cases()] == ["probe-fixed"]


def test_a_missing_cases_file_is_an_exercise_error(tmp_path):
    folder = _copy(tmp_path, "a")
    (folder / "cases.py").unlink()
    with pytest.raises(ExerciseError, match=r"cases\.py is missing"):
        _load(folder)


def test_two_solution_folders_with_one_id_give_their_own_reference(tmp_path):
    folder = _copy(tmp_path, "exercises")
    solutions = tmp_path / "solutions"
    solutions.mkdir()
    text = (FIXTURE_SOLUTIONS / "dense_layer.py").read_text()
    (solutions / "dense_layer.py").write_text(text + "\n\ndef dense(x, W, b):\n    return -(x @ W + b)\n")
    ours = exercise_mod.load("dense_layer", folder.parent, FIXTURE_SOLUTIONS)
    theirs = exercise_mod.load("dense_layer", folder.parent, solutions)
    case = ours.hidden_cases(3)[0]
    assert np.array_equal(ours.expected(case), -theirs.expected(case))
    assert ours.reference.__module__.startswith(SOLUTION_PREFIX) and ours.reference.__module__ in sys.modules


def test_a_copy_of_a_course_exercise_diagnoses_with_its_own_siblings(tmp_path):
    """The largest exercise splits its diagnosis over sibling files; a copy uses the copy's, every one."""
    folder = tmp_path / "exercises" / "vgg_classifier"
    shutil.copytree(ROOT / "exercises" / "vgg_classifier", folder, ignore=shutil.ignore_patterns("__pycache__",
                                                                                                "examples"))
    copy = exercise_mod.load("vgg_classifier", folder.parent, require_reference=False)
    original = exercise_mod.load("vgg_classifier", require_reference=False)
    package = copy.diagnosis_module.__name__.rpartition(".")[0]
    siblings = {n.rpartition(".")[2]: m for n, m in sys.modules.items() if n.startswith(package + ".")}
    assert {"search", "stages", "structure", "variants", "verdicts"} <= set(siblings)
    for name, module in siblings.items():
        assert Path(module.__file__).parent == folder.resolve(), name
    assert copy.diagnosis_module.V is not original.diagnosis_module.V
    assert [p.name for p in copy.probe_cases()] == [p.name for p in original.probe_cases()]


# -- the author's API ----------------------------------------------------------------------------------------------
def _looked_up(source: str) -> set[str]:
    """The function names the harness looks up in an exercise's modules, read from its source."""
    names = set(re.findall(r"(?:getattr|hasattr)\((?:self\.)?(?:cases_|diagnosis_)?module, \"(\w+)\"", source))
    return names | set(re.findall(r"(?:cases_|diagnosis_)?module\.(\w+)\(", source))


def test_the_protocols_list_exactly_what_the_harness_looks_up():
    source = "".join((ROOT / "grader" / name).read_text() for name in ("exercise.py", "diagnose.py"))
    declared = set(authoring.hooks(authoring.CasesModule)) | set(authoring.hooks(authoring.DiagnosisModule))
    assert _looked_up(source) == declared


@pytest.mark.parametrize("folder", sorted(p.parent for p in (ROOT / "exercises").glob("*/exercise.toml")),
                         ids=lambda p: p.name)
def test_every_exercise_defines_its_hooks_as_the_protocols_say(folder):
    ex = exercise_mod.load(folder.name, require_reference=False)
    for module, protocol, kind in ((ex.cases_module, authoring.CasesModule, "cases"),
                                   (ex.diagnosis_module, authoring.DiagnosisModule, "diagnosis")):
        if module is None:
            continue
        for name in authoring.REQUIRED[kind]:
            assert callable(getattr(module, name, None)), f"{kind}.py must define {name}()"
        for name in authoring.hooks(protocol):
            if hasattr(module, name):
                wanted = len(inspect.signature(getattr(protocol, name)).parameters) - 1  # without self
                # the harness passes the protocol's arguments by position; any other parameter must be optional
                required = [p for p in inspect.signature(getattr(module, name)).parameters.values()
                            if p.default is inspect.Parameter.empty and p.kind in (p.POSITIONAL_ONLY,
                                                                                   p.POSITIONAL_OR_KEYWORD)]
                takes = len(inspect.signature(getattr(module, name)).parameters)
                assert len(required) <= wanted <= takes, f"{kind}.{name}"


def test_no_exercise_writes_its_own_importer():
    for path in (ROOT / "exercises").glob("*/*.py"):
        text = path.read_text()
        for needle in ("spec_from_file_location", "sys.modules", "importlib", "from grader.exercise", "_grader_"):
            assert needle not in text, f"{path.relative_to(ROOT)}: {needle}"
