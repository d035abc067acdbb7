"""Thirteenth round of hostile submissions, aimed at the last hour's code: shared-result through ``bytearray``
owners and mapped files, ``/proc/self/maps`` read through a descriptor the student can reach, JupyterLite's
awaited installers and the order of a marimo notebook's cells.

Of the round's attacks (the maps descriptor closed, replaced by ``/dev/zero`` or by forged lines, 30,000 mappings,
anonymous shared mappings, returned tuples of 10^6 items and self-referencing lists, a trace hook installed by a
returned object's ``__float__`` during the description, ``__del__`` resurrecting a buffer, a thread holding one,
marimo cycles, 1,000-character names, look-alike decorators, nested apps, 100,000 awaits of a stand-in), four were
wrong for correct code or cost the grader's own time:

* a fresh ``bytearray`` per call, held by nothing but a reference cycle until the next collection (a closure that
  names itself, a kept ``sys.exc_info()``), and a ``gc.collect()`` at the call's start: the next call's fresh
  ``bytearray`` got the same id and address, and correct code lost the point as ``shared-result`` (in ``fork``
  mode for one, ``rlimits`` for the other). Cycles are now collected before an owner is judged to outlive its call;
* a fresh temporary file per call, mapped with ``np.memmap``: on ext4 (the scratch folder of ``rlimits`` mode) the
  inode of the last call's deleted file came back, and the file was named by device and inode only
  (``shared-result`` again). Its path is now part of its name;
* ``await micropip.install(["numpy", "pandas"])``: the stand-in handed the list back, as for a decorator, and
  awaiting a list raised ``TypeError``, so the cell (and the solution defined in it) failed;
* a marimo notebook of cells each waiting for the next: every cell was tried again at every step, 0.5 s of the
  grader's own process for 128 KB. The order is now found in one pass.
"""
from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import CORRECT, check, grade_students, notebook
from test_runner_round5 import SHARED

RIGHT = CORRECT.replace("def vgg_classifier(", "def _right(")
RUNNER = Path(__file__).resolve().parents[1] / "grader" / "runner"

SOURCES = {
    "bytearray-closure-cycle": RIGHT + """
import gc

def vgg_classifier(*args):
    gc.collect()
    logits = _right(*args)
    buf = bytearray(logits.nbytes)
    out = np.frombuffer(buf).reshape(logits.shape)
    out[...] = logits

    def again():
        return again, buf
    return out
""",
    "bytearray-exc-info-cycle": RIGHT + """
import gc, sys

def vgg_classifier(*args):
    gc.collect()
    logits = _right(*args)
    buf = bytearray(logits.nbytes)
    out = np.frombuffer(buf).reshape(logits.shape)
    try:
        out[...] = logits
        raise ValueError
    except ValueError:
        info = sys.exc_info()
    return out
""",
    "module-bytearray": SHARED["bytearray-per-call-view"],  # still shared: a buffer kept at module level
}
NOTEBOOKS = {
    "jupyterlite-installs-a-list": notebook(
        "import micropip, piplite\nawait micropip.install(['numpy', 'pandas'])\n"
        "for name in ['numpy']:\n    await piplite.install([name])\n" + CORRECT),
}


@pytest.fixture(scope="module")
def results(tmp_path_factory, session):
    import json

    folder = tmp_path_factory.mktemp("round13")
    for name, source in SOURCES.items():
        (folder / f"{name}.py").write_text(source, encoding="utf-8")
    for name, document in NOTEBOOKS.items():
        (folder / f"{name}.ipynb").write_text(json.dumps(document), encoding="utf-8")
    return grade_students(folder, session, [*SOURCES, *NOTEBOOKS])


@pytest.mark.parametrize("name", ["bytearray-closure-cycle", "bytearray-exc-info-cycle",
                                  "jupyterlite-installs-a-list"])
def test_correct_code_keeps_full_marks(results, name):
    result = results[name]
    assert result.error is None, result.error
    assert result.score == result.max_score, [(c.id, c.message) for c in result.checks if c.status != "passed"]


def test_a_module_level_bytearray_is_still_shared(results):
    assert check(results["module-bytearray"], "unmodified").status == "failed"


_FILES = """import ctypes, mmap, os, sys
sys.path.insert(0, {runner!r})
import maps
maps.keep_open()
names = []
for step in range(3):  # a fresh file per call, deleted once mapped: ext4 gives the next one its inode again
    path = os.path.join({folder!r}, f"result-{{step}}.bin")
    with open(path, "wb") as handle:
        handle.truncate(1 << 16)
    with open(path, "r+b") as handle:
        mapping = mmap.mmap(handle.fileno(), 1 << 16)
    os.unlink(path)
    low = ctypes.addressof(ctypes.c_char.from_buffer(mapping))
    names.append(maps.file_range(low, low + 4096, maps.table()))
    del mapping
print(len({{name[0] for name in names}}), [name[1:] for name in names], names[0][0][2].decode())
"""


def test_a_deleted_file_is_not_the_next_file_given_its_inode(tmp_path):
    out = subprocess.run([sys.executable, "-I", "-c", _FILES.format(runner=str(RUNNER), folder=str(tmp_path))],
                         capture_output=True, text=True, timeout=60, check=True).stdout.split(" ", 1)
    assert out[0] == "3", out
    assert out[1].strip() == f"[(0, 4096), (0, 4096), (0, 4096)] {tmp_path}/result-0.bin", out


def _chain(cells: int) -> str:
    """A marimo notebook whose cells each read what the next one defines, so they run last to first."""
    parts = ["import marimo\n", "app = marimo.App()\n"]
    for i in range(cells):
        parts.append(f"@app.cell\ndef _(v{i + 1}):\n    v{i} = v{i + 1}\n    return (v{i},)\n")
    return "".join(parts)


def test_marimo_cells_are_ordered_in_one_pass():
    from grader import marimo

    found = marimo.sources(_chain(3), 100)[0]
    assert [source for source, *_ in found] == ["v2 = v3\n", "v1 = v2\n", "v0 = v1\n"]
    cycle = _chain(2).replace("def _(v2)", "def _(v0)")  # v1 reads v0, v0 reads v1: file order
    assert [source for source, *_ in marimo.sources(cycle, 100)[0]] == ["v0 = v1\n", "v1 = v2\n"]
    chain = [("", 0, {f"v{i + 1}"}, {f"v{i}"}) for i in range(8000)]  # parsed apart, this is the order alone
    started = time.process_time()
    assert marimo._run_order(chain) == list(range(7999, -1, -1))
    assert time.process_time() - started < 2.0  # 3.6 s when every cell waiting was tried at every step
