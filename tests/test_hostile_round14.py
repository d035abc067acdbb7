"""Fourteenth round of hostile submissions: the builtins and numpy functions the runner shares with student code.

The runner's modules looked up ``type``, ``len`` and the other builtins in the builtins module, and ``frombuffer``
in numpy's, at the moment they ran, after the student's code could have replaced them (``builtins.type = ...``,
``np.frombuffer = ...``: public names, no reaching into the runner's objects). Two such replacements were wrong
full marks:

* a ``type`` that calls the returned ``ndarray`` subclass an ``ndarray`` made the child claim an exact ndarray, and
  the subclass kept the type point;
* an ``np.frombuffer`` that copies made each call's inline inputs a private copy, so a function that zeroed its
  features kept the 'unmodified' point: the parent compares the memory it shares, which the copy never touched.

The runner's modules now keep their own copy of the builtins, taken before any student code runs
(``runner/stdlib.own_builtins``), and numpy's ``frombuffer`` as it was then. Code that replaces a builtin or a
numpy function for its own use (a ``print`` that flushes; ``np.allclose`` and ``np.testing`` patched, the error
state set to raise) keeps full marks, and so does a right function whose file then makes ``builtins.len`` or
``os.getpid`` lie. The other attacks of the round are in the lead's report (helper 114).
"""
from __future__ import annotations

import pytest

from conftest import CORRECT, check, diagnosis_ids, grade_students, notebook

RIGHT = CORRECT.replace("def vgg_classifier(", "def _right(")

SOURCES = {
    "subclass-called-ndarray.py": RIGHT + """
import builtins

class Logits(np.ndarray):
    pass

_type = builtins.type

def _calls_it_ndarray(*args):
    kind = _type(*args)
    return np.ndarray if len(args) == 1 and kind is Logits else kind

builtins.type = _calls_it_ndarray

def vgg_classifier(*args):
    return _right(*args).view(Logits)
""",
    "frombuffer-copies.py": RIGHT + """
_frombuffer = np.frombuffer
np.frombuffer = lambda *args, **kwargs: _frombuffer(*args, **kwargs).copy()

def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    out = _right(features, W1, b1, W2, b2, W3, b3)
    features[...] = 0.0
    return out
""",
    "numpy-patched-for-itself.py": RIGHT + """
np.allclose = lambda *args, **kwargs: True
np.array_equal = lambda *args, **kwargs: True
np.testing.assert_allclose = lambda *args, **kwargs: None
np.asarray = lambda a, *args, **kwargs: a
np.seterr(all="raise")
vgg_classifier = _right
""",
    "len-replaced-after.py": CORRECT + """
import builtins

builtins.len = lambda obj: 3
""",
    "getpid-lies.py": CORRECT + """
import os

os.getpid = lambda: 1
""",
    "struct-unpack-lies.py": CORRECT + """
import struct

struct.unpack = lambda fmt, data: (0, 0)
""",
    "os-read-empty.py": CORRECT + """
import os

os.read = lambda fd, n: b""
""",
    "any-all-from-numpy.py": """
import builtins

import numpy as np

builtins.any, builtins.all = np.any, np.all  # to work on arrays too; np.any(generator) is True


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(np.maximum(x @ W1 + b1, 0) @ W2 + b2, 0)
    logits = h @ W3 + b3
""",
    "print-flushes.ipynb": notebook("import builtins, functools\n"
                                    "builtins.print = functools.partial(print, flush=True)\n", CORRECT,
                                    "print('done')"),
}


@pytest.fixture(scope="module")
def results(tmp_path_factory, session):
    import json

    folder = tmp_path_factory.mktemp("round14")
    for name, source in SOURCES.items():
        (folder / name).write_text(json.dumps(source) if isinstance(source, dict) else source, encoding="utf-8")
    return grade_students(folder, session, [name.rsplit(".", 1)[0] for name in SOURCES])


def test_a_subclass_called_ndarray_by_a_replaced_type_still_loses_the_type_point(results):
    result = results["subclass-called-ndarray"]
    assert result.error is None, result.error
    assert check(result, "type").status == "failed", check(result, "type")
    assert "subclass of numpy.ndarray" in check(result, "type").message
    assert "not-an-array" in diagnosis_ids(result)
    assert result.score == result.max_score - check(result, "type").max_points


def test_inputs_changed_behind_a_copying_frombuffer_lose_the_unmodified_point(results):
    result = results["frombuffer-copies"]
    assert result.error is None, result.error
    assert check(result, "unmodified").status == "failed", check(result, "unmodified")
    assert "features" in check(result, "unmodified").message
    assert "mutates-input" in diagnosis_ids(result)


@pytest.mark.parametrize("name", ["numpy-patched-for-itself", "print-flushes"])
def test_builtins_and_numpy_replaced_for_the_students_own_use_keep_full_marks(results, name):
    result = results[name]
    assert result.score == result.max_score, [(c.id, c.message) for c in result.checks if c.status != "passed"]


@pytest.mark.parametrize("name", ["len-replaced-after", "getpid-lies", "struct-unpack-lies", "os-read-empty"])
def test_a_builtin_or_os_function_replaced_after_a_right_definition_leaves_the_runner_whole(results, name):
    """``builtins.len`` made to lie broke the child's reading of its next command (json.loads reads the shared
    builtins): 0/17, called a break of the grader's own code; an ``os.getpid`` made to lie had the runner take itself
    for a forked copy and end quietly, reported as the student's own ``os._exit(0)``; a lying ``struct.unpack`` or an
    ``os.read`` that reads nothing made the next command unreadable. The runner's command reading, its kernel, cells
    and shell now keep their own builtins, ``os.getpid``, ``os.read`` and the header's unpacking."""
    result = results[name]
    assert result.error is None, result.error
    assert result.score == result.max_score, [(c.id, c.message) for c in result.checks if c.status != "passed"]


def test_a_function_without_print_is_not_said_to_print_when_any_is_numpys(results):
    """``builtins.any = np.any``: the runner's reading of whether the body calls print (``printchain``) used the
    shared ``any``, True for every generator, so a function missing its return was told "Its body calls print"."""
    result = results["any-all-from-numpy"]
    said = " ".join(c.message for c in result.checks) + " ".join(d.evidence for d in result.diagnoses)
    assert "returned None" in said and "calls print" not in said, said


def test_repeated_rows_are_mapped_whatever_any_the_student_left_in_builtins(tmp_path):
    """The child maps a large case's repeated rows (``runner/rows``) after student code ran: with the shared ``any``
    made numpy's, every layout looked unmappable and the run ended as a break of the grader's own code."""
    import builtins

    import numpy as np

    from grader.runner import rows

    data = np.arange(2 * 512, dtype=np.float64).reshape(2, 512)  # two rows of 4 KiB: one page each
    data.tofile(tmp_path / "tile.rows")
    kept = builtins.any
    builtins.any = np.any
    try:
        mapped = rows.repeated(tmp_path / "tile.rows", np.float64, (6, 512), 2, writable=False)
    finally:
        builtins.any = kept
    assert np.array_equal(mapped, np.resize(data, (6, 512)))
