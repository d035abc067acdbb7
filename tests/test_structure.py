"""The package's shape: data flows one way through the stages, and the child's code needs only numpy."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "grader"
#: Stages in the order data flows; a module may import only from its own rank or earlier ones.
RANKS = {
    "errors": 0, "results": 0, "outfolder": 0.5, "pysource": 0.5, "slots": 0, "processes": 0, "forked": 0, "procworkers": 0.1, "cgroups": 0, "runner": 0, "text": 0, "escape": 0, "version": 0,
    "sandbox": 1, "memory": 1, "bwrap": 0, "template": 0, "handles": 0, "machine": 0.5,
    "largecase": 2.5, "cacheentry": 2.55, "cache": 2.6,
    "exercisepackage": 1.9, "exercise": 2, "submission": 2, "ipython": 1.5, "signing": 1,
    "brokenjson": 1.6,  # why a notebook is not JSON (submission reads it)
    "shownids": 1,  # how a student id is shown (classfolder finds the students)
    "kernels": 1.6, "colabexport": 1.6,  # a notebook's kernel language; a Colab .py export's cells (submission)
    "jupytext": 1.6,  # a Jupytext script's cells and commented magics (submission)
    "marimo": 1.6,  # a marimo notebook's cells, in the order marimo runs them (submission)
    "scriptcells": 1.7,  # an exported script cut into its code and text cells (submission)
    "fstrings": 1.6,  # 3.12's f-strings that reuse their quotes, written the 3.11 way (submission)
    "outcomes": 3, "channel": 3, "hints": 3, "answers": 3.5, "notes": 3.5,
    "authoring": 3.1,  # what an exercise folder imports: the cases (exercise) and what a call did (outcomes)
    "calls": 3.9,  # the run's calls planned: inputs laid out, commands encoded
    "waits": 3.95,  # a deadline moved by the time the run waited for a core
    "incidents": 3.95,  # what stopped a cell, a call or the run, and the sentence said of it
    "filememory": 3.9,  # the inputs' memory where no sealed memfd can be had (read and written, never mapped)
    "execute": 4,
    "facts": 4.5,  # what the outcomes are, established once for the checks and the diagnosis
    "checks": 5,
    "diagnose": 6,
    "session": 6.5, "missing": 6.5,  # what a class shares (the large case); why a function cannot be called
    "nesteddef": 6.5, "deletednames": 6.5,  # why a def never ran; why a name it needs is gone
    "ufuncwhere": 6.5,  # why values came from nowhere: a ufunc given where= and no out=
    "standinerrors": 6.5,  # a cell that failed on a missing module's stand-in, told so (grade words the warnings)
    "latenames": 6.4,  # why a name a cell does define was not there when graded (missing says it)
    "assignment": 2.2,  # which exercises are graded together (the course file)
    "gradescope_scripts": 0,  # the shell scripts a Gradescope bundle carries (text; gradescope writes them)
    "grade": 7, "grade_assignment": 7.5,
    "report": 8, "templatecache": 0.6, "classcache": 0.6,  # compiled code kept per user (Jinja's; dataclasses')
    "keptfile": 0.55, "regexcache": 0.6,  # a kept file of entries; the programs of regular expressions kept per user
    "tomlcache": 0.6,  # the parse of a TOML text kept per user (an exercise's settings and catalog)
    "batch": 9, "batchcopies": 9, "classfolder": 9, "gradebook": 9, "progress": 9, "notebook": 9, "student_check": 9,
    "similarity_passages": 8.9,  # which passages many submissions hold are one group's copy (similarity uses it)
    "similarity": 9, "similarity_report": 9, "regrade": 9, "lms": 9, "blackboard": 9, "gradescope_results": 9, "merge": 9.5, "gradescope": 9.5,
    "commands": 10, "choose": 10.5, "cli": 11, "__init__": 12, "__main__": 12,
    "launch": 11.5,  # the command's first steps: the templates start, then cli
    "__version__": 0,  # a constant of __init__ (the package's version), not a stage
}
MODULES = sorted(p for p in PACKAGE.glob("*.py"))


def local_imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                names.add(node.module.split(".")[0])
            else:
                names.update(alias.name for alias in node.names)
    return names


def test_every_module_has_a_rank():
    assert {p.stem for p in MODULES} <= set(RANKS)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.stem)
def test_no_stage_imports_a_later_stage(path):
    later = {name for name in local_imports(path) if RANKS.get(name, 99) > RANKS[path.stem]}
    assert not later, f"{path.stem} imports later stages: {sorted(later)}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.stem)
def test_modules_stay_small(path):
    assert len(path.read_text(encoding="utf-8").splitlines()) <= 500


@pytest.mark.parametrize("path", sorted((PACKAGE / "runner").glob("*.py")), ids=lambda p: p.stem)
def test_the_runners_modules_stay_small(path):
    assert len(path.read_text(encoding="utf-8").splitlines()) <= 500


def test_init_holds_no_logic_but_loading_its_public_names_on_use():
    tree = ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        allowed = (ast.ImportFrom, ast.Import, ast.Assign, ast.AnnAssign, ast.Expr, ast.If)
        if isinstance(node, ast.FunctionDef):
            assert node.name in ("__getattr__", "__dir__"), node.name
        else:
            assert isinstance(node, allowed), ast.dump(node)[:80]


def test_the_command_line_starts_without_numpy_and_the_public_names_still_resolve():
    """``grader.cli`` must import without numpy, so the first sandbox template starts while numpy loads."""
    code = ("import sys, grader, grader.cli; assert 'numpy' not in sys.modules, 'numpy'; "
            "from grader import *; import grader.results, grader.grade, grader.exercise; "
            "assert grader.Session is grader.grade.Session and grader.load_exercise is grader.exercise.load; "
            "assert grader.GradeResult is grader.results.GradeResult; "
            "assert sorted(grader.__all__) == sorted(n for n in grader.__all__ if hasattr(grader, n))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]


@pytest.mark.parametrize("path", sorted((PACKAGE / "runner").glob("*.py")), ids=lambda p: p.stem)
def test_the_childs_code_imports_only_the_standard_library_numpy_and_itself(path):
    allowed = set(sys.stdlib_module_names) | {"numpy", "wire", "confine", "landlock", "seccomp", "standins", "guarded", "rows",
                                               "child", "rootfs", "alarms", "calls", "cells", "describe", "maps", "printchain", "kernel",
                                               "shell", "stdlib", "syscalls", "__future__"}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            names = {node.module.split(".")[0]} if node.module and node.level == 0 else set()
        else:
            continue
        assert names <= allowed, f"{path.name} imports {names - allowed}"


def test_nothing_in_the_grader_unpickles():
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "pickle.load" not in text and "allow_pickle=True" not in text, path


def test_the_harness_holds_no_exercise_wording():
    """What is specific to an exercise lives in its folder: the harness names no network, layer or output."""
    import re

    pattern = re.compile(r"vgg|logits|\(B, K\)", re.IGNORECASE)
    for path in [*PACKAGE.rglob("*.py"), *(PACKAGE / "templates").glob("*")]:
        if "__pycache__" in path.parts:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            assert not pattern.search(line), f"{path.relative_to(PACKAGE)}:{number}: {line.strip()[:100]}"


def test_the_grader_parses_python_only_through_its_lock():
    """Threads of a batch parsing at once can break CPython 3.11's AST constructor (gh-106905): every parse or
    compile of source in the grader's process goes through ``pysource``'s lock."""
    import re

    call = re.compile(r"(?<![\w.])(ast\.parse|compile)\(")
    for path in MODULES:
        if path.stem == "pysource":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            assert not call.search(line.split("#")[0]), f"{path.name}:{number}: {line.strip()[:100]}"
