"""Sixteenth round of hostile submissions: the rest of what the runner looked up in shared modules after student code.

Rounds fourteen and fifteen kept the runner's builtins, json's encoder, ``os.read``/``pread``, ``mmap.mmap`` and
``np.dtype`` from before student code runs. Every other attribute the runner read on a shared module while a run
went on (numpy, os, mmap, ctypes, signal, resource) was listed and tried here; these, replaced with public names
alone, gave wrong verdicts:

* two wrong full marks: a function returning one buffer on every call kept the 'unmodified' point when its file
  made ``np.uint8`` an ndarray subclass (the inputs' range became unreadable, and the child stopped comparing
  results), and one returning a file mapped anew on every call kept it when its file made ``resource.getrlimit``
  raise (looking for the file's descriptors failed the same way);
* right functions losing points: ``np.uint8 = 'S3'`` made every result unreadable (2/17), and a ``signal.setitimer``
  that arms a timer of a microsecond stopped every call (1/17, said to be an alarm of the submission's own);
* at full scale, where the child maps the large case's files (numpy's .npy reader and ``runner/rows``): round
  fourteen's own lying ``struct.unpack``, and an ``np.prod``, ``os.stat``, ``mmap.PAGESIZE`` or ``ctypes.CDLL``
  replaced, lost the large case as a break of the grader's own code; an ``mmap.mmap`` or ``np.frombuffer`` that gave
  zeros had the right values called wrong; an ``np.ndarray`` made a subclass handed the function subclass inputs,
  and it lost the type point for returning one.

``runner/calls``, ``describe``, ``maps``, ``rows`` and ``alarms`` now keep those functions too, and the large case's
.npy files are mapped by the runner itself (``calls._npy``) rather than by numpy's Python reader. The full-scale
submissions run on a small case made the way the VGG16 one is (its W1 and W2 rows repeat), in milliseconds.
"""
from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import pytest

from conftest import CORRECT, check, grade_students
from grader import exercise as exercise_mod, grade, sandbox
from test_hostile_round15 import FILE_SHARED, _failed  # one file's memory, mapped anew and returned by every call

RIGHT = CORRECT.replace("def vgg_classifier(", "def _right(")

#: one buffer filled and returned by every call: the next call overwrites what the last one returned
SHARED_BUFFER = RIGHT + """
_buffers = {}

def vgg_classifier(*args):
    out = _right(*args)
    buffer = _buffers.setdefault(out.shape, np.empty_like(out))
    buffer[...] = out
    return buffer
"""

SMALL = {
    "uint8-subclass": SHARED_BUFFER + "\nclass _Bytes(np.ndarray):\n    pass\n\nnp.uint8 = _Bytes\n",
    "getrlimit-raises": FILE_SHARED + "\nimport resource\n\nresource.getrlimit = None\n",
    "uint8-three-bytes": CORRECT + "\nnp.uint8 = 'S3'\n",
    "setitimer-short": CORRECT + """
import signal

_setitimer = signal.setitimer
signal.setitimer = lambda which, seconds, interval=0.0: _setitimer(which, seconds and 1e-6, interval)
""",
}

LARGE = {
    "correct": CORRECT,
    "struct-unpack-lies": CORRECT + "\nimport struct\n\nstruct.unpack = lambda fmt, data: (0, 0)\n",
    "prod-lies": CORRECT + "\nnp.prod = lambda *args, **kwargs: 0\n",
    "stat-lies": CORRECT + "\nimport os\n\n_stat = os.stat\nos.stat = lambda *args, **kwargs: _stat('/')\n",
    "pagesize-lies": CORRECT + "\nimport mmap\n\nmmap.PAGESIZE = 3000\n",
    "cdll-gone": CORRECT + "\nimport ctypes\n\nctypes.CDLL = None\n",
    "mmap-zeros": CORRECT + """
import mmap

_mmap = mmap.mmap
mmap.mmap = lambda fd, length, *args, **kwargs: _mmap(-1, length or 1 << 20)
""",
    "frombuffer-zeros": CORRECT + """
_frombuffer = np.frombuffer
np.frombuffer = lambda *args, **kwargs: np.zeros_like(_frombuffer(*args, **kwargs))
""",
    "ndarray-subclass": CORRECT + "\nclass _Array(np.ndarray):\n    pass\n\nnp.ndarray = _Array\n",
}


def _graded(folder, session, sources: dict) -> dict:
    folder.mkdir()
    for name, source in sources.items():
        (folder / f"{name}.py").write_text(source, encoding="utf-8")
    return grade_students(folder, session, list(sources))


@pytest.fixture(scope="module")
def small(tmp_path_factory, session):
    return _graded(tmp_path_factory.mktemp("round16") / "small", session, SMALL)


@pytest.fixture(scope="module")
def large(tmp_path_factory):
    """The full-scale submissions, graded with a small stand-in for the VGG16-scale case built as it is: shared .npy
    files for the features, biases and W3, and W1's and W2's rows repeating every two rows (``runner/rows``)."""
    vgg = exercise_mod.load("vgg_classifier")
    cases = vgg.cases_module
    module = SimpleNamespace(
        hidden_cases=cases.hidden_cases, trace=cases.trace,
        full_scale_case=lambda rng, alloc: cases._make(rng, "mini", "full-scale", 1, 2, 2, 8, 512, 512, 7,
                                                       shared=True, alloc=alloc, period=2),
        personalise_full_scale=cases.personalise_full_scale,
        full_scale_cache=cases.full_scale_cache, full_scale_expected=cases.full_scale_expected)
    exercise = dataclasses.replace(vgg, cases_module=module)
    with grade.Session(exercise, full_scale=True, sandbox=sandbox.Sandbox(exercise.limits)) as session:
        shared = session.full_scale_case()[2]
        assert shared.repeats and len(shared.paths) > len(shared.repeats), "the stand-in maps no rows or no .npy"
        yield _graded(tmp_path_factory.mktemp("round16") / "large", session, LARGE)


@pytest.mark.parametrize("name", ["uint8-subclass", "getrlimit-raises"])
def test_a_result_overwritten_by_the_next_call_is_seen_whatever_numpy_or_resource_say(small, name):
    result = small[name]
    assert result.error is None, result.error
    assert check(result, "unmodified").status == "failed", _failed(result)
    assert "overwritten by a later call" in check(result, "unmodified").message
    assert result.score == result.max_score - check(result, "unmodified").max_points


@pytest.mark.parametrize("name", ["uint8-three-bytes", "setitimer-short"])
def test_numpy_or_signal_replaced_after_a_right_function_leave_its_answers_and_alarms_whole(small, name):
    result = small[name]
    assert result.error is None, result.error
    assert result.score == result.max_score, _failed(result)


@pytest.mark.parametrize("name", sorted(LARGE))
def test_the_large_case_is_mapped_whatever_the_student_replaced_after_a_right_function(large, name):
    result = large[name]
    assert result.error is None, result.error
    assert check(result, "values-full-scale").status == "passed", _failed(result)
    assert result.score == result.max_score, _failed(result)


MISNAMED = """import numpy as np

def vggClassifier(features, W1, b1, W2, b2, W3, b3):
    return features
"""
LOOKUP = {
    # os._exit made to return, and the runner broken (its kernel's wire taken away, as hostile/break-runner.py does):
    # the loop's own exit on the broken step returned, so the broken runner went on (a 20 s wait, then "did not answer")
    "exit-returns": MISNAMED + ("\nimport gc, os\n\nos._exit = lambda *a: None\n"
                                "for _kernel in [o for o in gc.get_objects() if type(o).__name__ == 'Child']:\n"
                                "    _kernel.wire = None\n"),
    # a str subclass as a globals key: the lookup's list of near names sliced it, which raised in the runner
    "key-slices-badly": MISNAMED + ('\nclass _Key(str):\n    def __getitem__(self, i):\n        raise RuntimeError("no")'
                                    '\n\nglobals()[_Key("helper")] = print\n'),
}


@pytest.fixture(scope="module")
def lookups(tmp_path_factory, session):
    return _graded(tmp_path_factory.mktemp("round16") / "lookups", session, LOOKUP)


def test_a_misnamed_function_is_told_so_whatever_its_globals_keys_do_when_sliced(lookups):
    """It was told the submission "broke the grader's own code" instead of the misnamed-function sentence (helper
    127's report): the lookup's list of near names now reads each key with str's own methods."""
    result = lookups["key-slices-badly"]
    assert result.error is not None and result.error.kind == "missing-function", result.to_json()[:800]
    assert "vggClassifier" in result.error.message


def test_a_broken_runner_is_named_at_once_whatever_os_exit_became(lookups):
    """The loop's exit on a broken step went through ``os._exit``, which the file had made a no-op: the run waited
    for an answer until its deadline (helper 127's report). The child keeps ``os._exit`` from before student code."""
    result = lookups["exit-returns"]
    assert result.error is not None, result.to_json()[:800]
    assert "broke the grader's own code" in result.error.message, result.error.message
