"""Fifth round on the runner's account of a call: memory shared between calls that the child did not see, and a
student's trace or profile hook that rewrote the child's description of a result.

* a tuple or list holding a module-level buffer (``return buf, buf``, ``return buf, extra``) was never compared
  with earlier results when the exercise has one output: now its first few items are;
* an array over a module-level ``bytearray`` (``np.frombuffer`` each call) has a memoryview made per call as its
  owner, which died after each call, and the ``bytearray`` under it takes no weak reference: it is now remembered by
  id and address range once it outlives the call;
* a file or memfd mapped again on each call (``mmap``, ``np.memmap(..., mode='r+')``) lies at a new address every
  time: a shared mapping is now remembered by its file and offsets;
* a ``sys.setprofile`` or ``sys.settrace`` hook left by the call ran in the runner's frames and set the description's
  exact-type flag for a returned list (it got the type point): the runner clears both hooks once the call returns.

Correct code in the nearby styles (fresh arrays in a tuple, a fresh ``bytearray`` or memfd per call, a profiler
started at import) keeps full marks. All graded in one batch.
"""
from __future__ import annotations

import pytest

from conftest import CORRECT, check, diagnosis_ids, grade_students

RIGHT = CORRECT.replace("def vgg_classifier(", "def _right(")

#: a module-level store of logits filled in place and returned, written in several ways
SHARED = {
    "tuple-of-one-buffer": RIGHT + """
_buf = np.empty(1 << 16)

def vgg_classifier(*args):
    logits = _right(*args)
    out = _buf[:logits.size].reshape(logits.shape)
    out[...] = logits
    return (out, out)
""",
    "buffer-and-extra": RIGHT + """
_buf = np.empty(1 << 16)

def vgg_classifier(*args):
    logits = _right(*args)
    out = _buf[:logits.size].reshape(logits.shape)
    out[...] = logits
    return out, logits.copy()
""",
    "bytearray-per-call-view": RIGHT + """
_store = bytearray(1 << 19)

def vgg_classifier(*args):
    logits = _right(*args)
    out = np.frombuffer(_store, count=logits.size).reshape(logits.shape)
    out[...] = logits
    return out
""",
    "memfd-mapped-per-call": RIGHT + """
import mmap, os

_fd = os.memfd_create("logits")
os.ftruncate(_fd, 1 << 19)

def vgg_classifier(*args):
    logits = _right(*args)
    out = np.frombuffer(mmap.mmap(_fd, 1 << 19), count=logits.size).reshape(logits.shape)
    out[...] = logits
    return out
""",
    "memmap-r-plus-per-call": RIGHT + """
import os, tempfile

_path = os.path.join(tempfile.mkdtemp(), "logits.bin")
with open(_path, "wb") as f:
    f.truncate(1 << 19)

def vgg_classifier(*args):
    logits = _right(*args)
    out = np.memmap(_path, dtype=np.float64, mode="r+", shape=logits.shape).view(np.ndarray)
    out[...] = logits
    return out
""",
}

#: a hook left by the call, rewriting the runner's description of a returned list as an exact ndarray
HOOKED = {
    "setprofile-forges-exact": RIGHT + """
import sys

def _hook(frame, event, arg):
    if event == "return" and frame.f_code.co_name == "describe_value":
        reply = frame.f_locals.get("reply")
        if isinstance(reply, dict):
            reply["exact"] = True

def vgg_classifier(*args):
    sys.setprofile(_hook)
    return _right(*args).tolist()
""",
    "settrace-forges-exact": RIGHT + """
import sys

def _local(frame, event, arg):
    if event == "return":
        reply = frame.f_locals.get("reply")
        if isinstance(reply, dict):
            reply["exact"] = True
    return _local

def _hook(frame, event, arg):
    return _local if frame.f_code.co_name == "describe_value" else None

def vgg_classifier(*args):
    sys.settrace(_hook)
    return _right(*args).tolist()
""",
}

#: right answers next to those styles: nothing they return is shared between calls
CORRECT_STYLES = {
    "tuple-of-fresh-arrays": RIGHT + """
def vgg_classifier(*args):
    return (_right(*args), _right(*args))
""",
    "same-fresh-array-twice": RIGHT + """
def vgg_classifier(*args):
    logits = _right(*args)
    return [logits, logits]
""",
    "fresh-bytearray-per-call": RIGHT + """
def vgg_classifier(*args):
    logits = _right(*args)
    out = np.frombuffer(bytearray(logits.nbytes), count=logits.size).reshape(logits.shape)
    out[...] = logits
    return out
""",
    "fresh-memfd-per-call": RIGHT + """
import mmap, os

def vgg_classifier(*args):
    logits = _right(*args)
    fd = os.memfd_create("logits")
    os.ftruncate(fd, logits.nbytes)
    out = np.frombuffer(mmap.mmap(fd, logits.nbytes), count=logits.size).reshape(logits.shape)
    os.close(fd)
    out[...] = logits
    return out
""",
    "profiler-at-import": """import cProfile, sys

_profile = cProfile.Profile()
_profile.enable()
_calls = []
sys.setprofile(lambda frame, event, arg: _calls.append(event) if len(_calls) < 100 else None)
""" + CORRECT,
}

#: the tuple styles are no array: the type and shape checks fail as before; only ``unmodified`` is at stake
TUPLES = {"tuple-of-one-buffer", "buffer-and-extra", "tuple-of-fresh-arrays", "same-fresh-array-twice"}


@pytest.fixture(scope="module")
def results(tmp_path_factory, session):
    folder = tmp_path_factory.mktemp("runner5")
    sources = {**SHARED, **HOOKED, **CORRECT_STYLES}
    for name, source in sources.items():
        (folder / f"{name}.py").write_text(source, encoding="utf-8")
    return grade_students(folder, session, list(sources))


def _failed(result) -> list[tuple[str, str]]:
    return [(c.id, c.message) for c in result.checks if c.status != "passed"]


@pytest.mark.parametrize("name", sorted(SHARED))
def test_memory_shared_between_calls_is_named_and_costs_the_unmodified_point(results, name):
    result = results[name]
    assert result.error is None, result.error
    unmodified = check(result, "unmodified")
    assert unmodified.status == "failed", _failed(result)
    assert "was overwritten by a later call" in unmodified.message, unmodified.message
    assert "shared-result" in diagnosis_ids(result)
    if name not in TUPLES:
        assert result.score == result.max_score - 1, _failed(result)


@pytest.mark.parametrize("name", sorted(HOOKED))
def test_a_hook_left_by_the_call_cannot_rewrite_the_description(results, name):
    result = results[name]
    assert result.error is None, result.error
    assert check(result, "type").status == "failed", _failed(result)
    assert "a list, not a numpy.ndarray" in check(result, "type").message


@pytest.mark.parametrize("name", sorted(CORRECT_STYLES))
def test_correct_styles_nearby_keep_their_marks(results, name):
    result = results[name]
    assert result.error is None, result.error
    assert check(result, "unmodified").status == "passed", _failed(result)
    assert "shared-result" not in diagnosis_ids(result)
    if name not in TUPLES:
        assert result.score == result.max_score, _failed(result)


#: the child's account of six calls, made in a fresh interpreter with the runner's folder on ``sys.path``: a fresh
#: ``bytearray`` per call is freed with its result, and the next one nearly always gets its id and address again
_SETTLED = """import sys
sys.path.insert(0, {runner!r})
import numpy as np, describe

class Results(describe.Results):
    np, ndarray, inputs, inputs_range, kept_results = np, np.ndarray, None, [], {{}}

kept, big = bytearray(800), bytearray(describe.HELD_MOST_BYTES + 8)
styles = {{"fresh": lambda: [np.frombuffer(bytearray(800))], "module-large": lambda: [np.frombuffer(big)],
          "fresh-twice": lambda: [[np.frombuffer(bytearray(800))] * 2], "module": lambda: [np.frombuffer(kept)]}}
for name, make in styles.items():
    results, said = Results(), []
    for step in range(1, 7):
        held = make()
        said.append(results.reused("f", step, [], held))
        results.release(held)
    print(name, said)
"""


def test_an_owner_without_weak_references_is_remembered_only_while_something_else_holds_it():
    import subprocess
    import sys
    from pathlib import Path

    runner = str(Path(__file__).resolve().parents[1] / "grader" / "runner")
    out = subprocess.run([sys.executable, "-I", "-c", _SETTLED.format(runner=runner)], capture_output=True,
                         text=True, timeout=60, check=True).stdout.splitlines()
    # past HELD_MOST_BYTES such an owner is not remembered at all: held, it could double a large result's memory
    assert out == ["fresh [None, None, None, None, None, None]",
                   "module-large [None, None, None, None, None, None]",
                   "fresh-twice [None, None, None, None, None, None]", "module [None, 1, 2, 3, 4, 5]"]
