"""Eighteenth round of hostile submissions: code the runner still shared with student code (numpy's Python code,
the modules in ``sys.modules``, audit hooks), and five ways past its look for a result an earlier call returned.

Rounds fourteen to sixteen kept what the runner reads on shared modules from before student code runs. Some of
numpy's C methods call Python code of numpy's, imported the first time it is needed and looked up again each time:
``str(dtype)`` is ``numpy._core._dtype.__str__``, which reads that module's ``_name_get``. The child named every
returned array's dtype that way, so a right function whose file then ran ``sys.modules.clear()`` (the import raised
AttributeError) or set ``numpy._core._dtype._name_get = None`` had every result called unreadable, and lost all but
the two points that need no value (2/17). The child now sends numpy's C code of the dtype (``'<f8'``), and prints the
dtype's name only for a result that holds no plain numbers, falling back on its code when that printing fails.

The runner's modules also found the standard library's modules they load lazily (``linecache``, to keep each cell's
source for tracebacks) in ``sys.modules`` at each use: a notebook cell that left ``None`` or a look-alike there made
every later cell fail before its first line, so a right function defined below it was never defined (0/17), where
Jupyter, whose modules hold their own references, runs it. ``runner/stdlib.load`` now gives the modules loaded before
student code ran, and those it imported itself since.

And an audit hook (``sys.addaudithook``: public, and never removed) runs at every audited operation of the runner's
too. The child's look for a result that shares memory with an earlier call's used ``id()``, which raises the audit
event ``builtins.id``: a hook that raised there silenced the whole look, and a function that fills and returns one
buffer on every call kept the 'unmodified' point (17/17). The look now takes an object's address from
``object.__hash__``, which raises no event. (A hook that raises on the runner's other events, ``sys.settrace`` after
each call, only breaks the runner: the run is the submission's own protocol failure, with no point to gain.)

That look forgot an earlier result once the object at the end of its bases died. With numpy's own
``np.lib.stride_tricks.as_strided``, an object with an ``__array_interface__`` or a ctypes array ``from_address``,
that object is a fresh one on every call, which only points at a module-level buffer: it died with its result, and
a function returning that buffer on every call kept the 'unmodified' point (17/17, three ways). Such an owner is now
held until the end of the call after the next (a fresh one per call keeps its own memory from the next result, so
right functions returning such views of fresh memory keep full marks). And the file a result's memory is mapped
from was looked up only for results an ``mmap`` owns: one file mapped twice, its two mappings returned in turn through
ctypes, was two memories (17/17); it is now looked up for such owners too. Last, an owner without weak references
(a ``bytearray``) that returned another range of itself had its earlier entry dropped as "the id of an owner gone",
although the runner holds such an owner while its entry lives: the two halves of one bytearray returned in turn kept
the point (17/17, where two halves of one ndarray lose it); the entry now stays. And every result in the memory the
parent shares the inputs in was left out as an argument returned: one place of it past the call's own arguments,
filled and returned by every call, kept the point too. Only the call's own arguments are left out now.
"""
from __future__ import annotations

import json

import pytest

from conftest import CORRECT, check, grade_students, notebook
from test_hostile_round16 import SHARED_BUFFER  # one buffer filled and returned by every call

OBJECTS = CORRECT.replace("return h @ W3 + b3", "return (h @ W3 + b3).astype(object)")
NUMPY_DTYPE_TEXT = "\nimport numpy._core._dtype as _text\n\n_text.__str__ = _text._name_get = None\n"

SOURCES = {
    # public names alone, after a right definition: each made every result unreadable (2/17)
    "modules-cleared": CORRECT + "\nimport sys\n\nsys.modules.clear()\n",
    "dtype-name-broken": CORRECT + "\nimport numpy._core._dtype as _text\n\n_text._name_get = None\n",
    # a result of objects is still named by its dtype, as numpy prints it, and by its code when that fails
    "objects": OBJECTS,
    "objects-dtype-text-broken": OBJECTS + NUMPY_DTYPE_TEXT,
    # a wrong function (one buffer returned by every call) whose audit hook raises when the runner calls id()
    "shared-buffer-id-audited": SHARED_BUFFER + """
import sys

def _no_id(event, args):
    if event == "builtins.id":
        raise RuntimeError("no id")

sys.addaudithook(_no_id)
""",
}
#: one module-level buffer returned by every call through an object that only points at it, fresh on each call
_BUFFER = CORRECT.replace("def vgg_classifier(", "def _right(") + "\n_buffer = np.empty(1 << 12)\n"
WRAPPED = {
    "as-strided": "np.lib.stride_tricks.as_strided(_buffer, shape=out.shape, strides=(8 * out.shape[1], 8))",
    "array-interface": "np.asarray(type('Face', (), {'__array_interface__': {'data': (_buffer.ctypes.data, False), "
                       "'shape': out.shape, 'typestr': '<f8', 'version': 3}})())",
    "ctypes-from-address": "np.ctypeslib.as_array((ctypes.c_double * out.size).from_address(_buffer.ctypes.data))"
                           ".reshape(out.shape)",
}
for _name, _view in WRAPPED.items():
    SOURCES[f"shared-{_name}"] = _BUFFER + f"""
import ctypes

def vgg_classifier(*args):
    out = _right(*args)
    result = {_view}
    result[...] = out
    return result
"""
# one file mapped twice, the two mappings returned in turn through ctypes: one memory at two addresses
SOURCES["file-mapped-twice"] = CORRECT.replace("def vgg_classifier(", "def _right(") + """
import ctypes, mmap, tempfile

_file = tempfile.TemporaryFile()
_file.truncate(1 << 16)
_maps = [mmap.mmap(_file.fileno(), 1 << 16) for _ in range(2)]
_at = [ctypes.addressof(ctypes.c_char.from_buffer(kept)) for kept in _maps]
_calls = [0]

def vgg_classifier(*args):
    out = _right(*args)
    _calls[0] += 1
    result = np.ctypeslib.as_array((ctypes.c_double * out.size).from_address(_at[_calls[0] % 2])).reshape(out.shape)
    result[...] = out
    return result
"""
# two halves of one module-level bytearray, returned in turn: the third call overwrites the first call's result
SOURCES["bytearray-halves"] = CORRECT.replace("def vgg_classifier(", "def _right(") + """
_memory, _calls = bytearray(1 << 16), [0]

def vgg_classifier(*args):
    out = _right(*args)
    _calls[0] += 1
    result = np.frombuffer(_memory, count=out.size, offset=(_calls[0] % 2) << 15).reshape(out.shape)
    result[...] = out
    return result
"""
# the last bytes of the memory the inputs are shared in (reached through an argument's base), filled and returned
SOURCES["inputs-memory-tail"] = CORRECT.replace("def vgg_classifier(", "def _right(") + """
def vgg_classifier(*args):
    out, memory = _right(*args), args[0]
    while isinstance(memory, np.ndarray) and memory.base is not None:
        memory = memory.base
    memory = np.frombuffer(memory, dtype=np.uint8)
    result = memory[memory.size - out.nbytes:].view(np.float64).reshape(out.shape)
    result[...] = out
    return result
"""
# the same views of fresh memory, as a right function may return them
SOURCES["fresh-as-strided"] = SOURCES["shared-as-strided"].replace("as_strided(_buffer,", "as_strided(out.copy(),")
SOURCES["fresh-ctypes"] = SOURCES["shared-ctypes-from-address"].replace(
    ".from_address(_buffer.ctypes.data)", "()")
#: a cell that leaves a stand-in for a module the runner loads, and the right function in the next cell
NOTEBOOKS = {
    "linecache-blocked": "import sys\n\nsys.modules['linecache'] = None",
    "linecache-look-alike": "import sys, types\n\nsys.modules['linecache'] = types.SimpleNamespace(cache=None)",
}


@pytest.fixture(scope="module")
def results(tmp_path_factory, session):
    folder = tmp_path_factory.mktemp("round18")
    files = {**{f"{name}.py": source for name, source in SOURCES.items()},
             **{f"{name}.ipynb": json.dumps(notebook(cell, CORRECT)) for name, cell in NOTEBOOKS.items()}}
    for file, text in files.items():
        (folder / file).write_text(text, encoding="utf-8")
    return grade_students(folder, session, [*SOURCES, *NOTEBOOKS])


def _failed(result) -> list:
    return [(c.id, c.message) for c in result.checks if c.status != "passed"]


@pytest.mark.parametrize("name", ["modules-cleared", "dtype-name-broken", *NOTEBOOKS, "fresh-as-strided",
                                  "fresh-ctypes"])
def test_a_right_function_keeps_full_marks_whatever_its_file_left_in_numpy_or_sys_modules(results, name):
    result = results[name]
    assert result.error is None, result.error
    assert result.score == result.max_score, _failed(result)


@pytest.mark.parametrize(("name", "words"), [("objects", "holds object values"),
                                             ("objects-dtype-text-broken", "holds |O values")])
def test_a_result_of_objects_is_named_by_its_dtype(results, name, words):
    messages = " ".join(message for _, message in _failed(results[name]))
    assert words in messages, messages


@pytest.mark.parametrize("name", ["shared-buffer-id-audited", *(f"shared-{name}" for name in WRAPPED),
                                  "file-mapped-twice", "bytearray-halves", "inputs-memory-tail"])
def test_a_result_overwritten_by_the_next_call_is_seen_however_it_was_returned(results, name):
    result = results[name]
    assert result.error is None, result.error
    assert "overwritten by a later call" in check(result, "unmodified").message, _failed(result)
    if name != "inputs-memory-tail":  # which also writes over inputs the parent placed there for a later call
        assert result.score == result.max_score - check(result, "unmodified").max_points, _failed(result)


#: a callable instance whose metaclass's ``__module__`` never returns: reading its type's name ran outside any alarm
LOOPING_TYPE_NAME = '''import numpy as np


class Meta(type):
    @property
    def __module__(cls):
        while True:
            pass


class Head(metaclass=Meta):
    def __call__(self, features, W1, b1, W2, b2, W3, b3):
        x = features.reshape(len(features), -1)
        return np.maximum(np.maximum(x @ W1 + b1, 0) @ W2 + b2, 0) @ W3 + b3


vgg_classifier = Head()
'''


def test_a_type_whose_name_never_comes_is_still_called(tmp_path, session):
    """The lookup names the function's type for the report; a metaclass's looping ``__module__`` kept it from answering
    at all (the run ended after 20 s, then again after a restart: 0/17 after a minute). The name is read under the
    same 2 s alarm as the signature, and the right function is graded."""
    (tmp_path / "loop.py").write_text(LOOPING_TYPE_NAME)
    result = grade_students(tmp_path, session, ["loop"])["loop"]
    assert result.error is None and result.score == result.max_score, (result.error, result.checks)
