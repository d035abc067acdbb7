"""Correct code written to look like the mistakes and runner findings added on 4 December keeps full marks, no
finding and no note.

Round three of the false-positive hunt (``tests/submissions/false-positives-round3/``, listed in its README): a ReLU
as ``(z + |z|) / 2``, ``np.abs(W) * np.sign(W)``, softmaxes computed and dropped, skips of zeros, normalisations
undone, biases added once per sample in loops, kept permutations keyed on (C, H, W), general loops over a map's two
sides, buffers copied before return, threads that only read the inputs after the answer, fresh ``bytearray``,
``bytes``, anonymous ``mmap`` and temporary-file memory per call.

Two kinds of result lost the unmodified point as ``shared-result`` before this round:

- a fresh ``bytearray`` or ``bytes`` per call under the result with the latest kept in a global: the child
  remembered such an owner (it takes no weak reference) by id and address, and once the global moved on, the next
  fresh owner got both again. The child now holds such an owner while the student does, and lets it go at the end
  of the call in which nothing else holds it;
- a ``np.memmap`` of a new ``tempfile.TemporaryFile()`` per call in ``rlimits`` mode (scratch on ext4): the next
  file got the last one's inode, and an unnamed file's path is ``#<inode>``.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import SUBMISSIONS, grade_students
import exercise_helpers as helpers

FOLDER = SUBMISSIONS / "false-positives-round3"
VGG = sorted(p.stem for p in (FOLDER / "vgg_classifier").iterdir() if p.suffix in (".py", ".ipynb"))
FC = sorted(p.stem for p in (FOLDER / "fc-layers").iterdir() if p.suffix in (".py", ".ipynb"))
RUNNER = Path(__file__).resolve().parents[1] / "grader" / "runner"


@pytest.fixture(scope="module")
def vgg_results(session):
    return grade_students(FOLDER / "vgg_classifier", session, VGG)


@pytest.fixture(scope="module")
def fc_results():
    with helpers.assignment_session() as grading:
        yield grade_students(FOLDER / "fc-layers", grading, FC)


def test_the_folder_holds_the_styles_its_readme_lists():
    readme = (FOLDER / "README.md").read_text(encoding="utf-8")
    assert len(VGG) + len(FC) >= 40
    for folder in ("vgg_classifier", "fc-layers"):
        for path in (FOLDER / folder).iterdir():
            assert f"`{path.name}`" in readme, path.name


@pytest.mark.parametrize("name", VGG)
def test_a_correct_vgg_head_that_looks_like_a_mistake_keeps_full_marks(vgg_results, name):
    assert not helpers.clean_mark_faults(vgg_results[name]), helpers.clean_mark_faults(vgg_results[name])


@pytest.mark.parametrize("name", FC)
def test_a_correct_fc_layers_submission_that_looks_like_a_mistake_keeps_full_marks(fc_results, name):
    result = fc_results[name]
    assert [s.exercise for s in result.sections] == ["linear", "to_channels_last", "dense_scores", "gap_head"]
    assert not helpers.clean_mark_faults(result), helpers.clean_mark_faults(result)  # no note at all


#: the child's account of eight calls per style, made in a fresh interpreter with the runner's folder on
#: ``sys.path``: the earlier call each one is said to share memory with (None: none)
_LATEST_KEPT = """import sys
sys.path.insert(0, {runner!r})
import numpy as np, describe

class Results(describe.Results):
    np, ndarray, inputs, inputs_range = np, np.ndarray, None, []

kept, module = {{}}, bytearray(800)

def latest(make):
    def call():
        kept["last"] = make()
        return [np.frombuffer(kept["last"])]
    return call

styles = {{"bytearray": latest(lambda: bytearray(800)), "big-bytearray": latest(lambda: bytearray(1 << 20)),
          "bytes": latest(lambda: np.arange(100.0).tobytes()), "module": lambda: [np.frombuffer(module)]}}
for name, call in styles.items():
    kept.clear()
    results, said = Results(), []
    results.kept_results = {{}}
    for step in range(1, 9):
        held = call()
        said.append(results.reused("f", step, [], held))
        results.release(held)
    print(name, said)
"""


def test_a_fresh_owner_per_call_with_the_latest_kept_in_a_global_shares_nothing():
    out = subprocess.run([sys.executable, "-I", "-c", _LATEST_KEPT.format(runner=str(RUNNER))], capture_output=True,
                         text=True, timeout=60, check=True).stdout.splitlines()
    nothing = str([None] * 8)
    assert out == [f"bytearray {nothing}", f"big-bytearray {nothing}", f"bytes {nothing}",
                   "module [None, 1, 2, 3, 4, 5, 6, 7]"]


#: five styles of a result in a file mapped per call, six calls each, in a fresh interpreter: a fresh unnamed
#: temporary file (dropped, or the latest kept in a global) and a named file removed and made again are new files
#: (on ext4 each got the last one's inode); the same named file rewritten and one memfd kept open are shared
_FILES = """import mmap, os, sys, tempfile
sys.path.insert(0, {runner!r})
import numpy as np, describe, maps
maps.keep_open()

class Results(describe.Results):
    np, ndarray, inputs, inputs_range = np, np.ndarray, None, []

folder, kept = {folder!r}, {{}}

def mapped(target):
    return [np.memmap(target, dtype=float, mode="w+", shape=(100,)).view(np.ndarray)]

def latest():
    kept["file"] = tempfile.TemporaryFile(dir=folder)
    return mapped(kept["file"])

def recreated():
    path = os.path.join(folder, "out.bin")
    if os.path.exists(path):
        os.remove(path)
    return mapped(path)

memfd = os.memfd_create("logits")
os.ftruncate(memfd, 1 << 16)
styles = {{"fresh": lambda: mapped(tempfile.TemporaryFile(dir=folder)), "latest": latest, "recreated": recreated,
          "rewritten": lambda: mapped(os.path.join(folder, "same.bin")),
          "memfd": lambda: [np.frombuffer(mmap.mmap(memfd, 1 << 16), count=100)]}}
for name, call in styles.items():
    results, said = Results(), []
    results.kept_results = {{}}
    for step in range(1, 7):
        held = call()
        said.append(results.reused("f", step, [], held))
        results.release(held)
    print(name, said)
"""


def test_a_new_file_per_call_is_not_the_last_one_though_it_gets_its_inode(tmp_path):
    out = subprocess.run([sys.executable, "-I", "-c", _FILES.format(runner=str(RUNNER), folder=str(tmp_path))],
                         capture_output=True, text=True, timeout=60, check=True).stdout.splitlines()
    nothing, shared = str([None] * 6), "[None, 1, 2, 3, 4, 5]"
    assert out == [f"fresh {nothing}", f"latest {nothing}", f"recreated {nothing}", f"rewritten {shared}",
                   f"memfd {shared}"]
