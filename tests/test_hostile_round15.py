"""Fifteenth round of hostile submissions: what the runner still looked up in modules it shares with student code.

Round fourteen gave the runner's modules their own builtins; these functions were still read from shared modules at
the moment the runner used them, after the student's code could have replaced them with public names alone (no
reaching into the runner's objects or frames, which the README's Isolation section says can forge the child's
account):

* ``json.dumps``, which wrote every frame the child sent: replaced, it rewrote the answers, so a returned subclass
  was called an exact ndarray, a reassigned input shape went unsaid, and so did a result overwritten by the next
  call: three wrong full marks (17/17 each). ``wire`` now keeps json's C encoder, made before student code runs;
* ``os.pread`` (``maps.table``) and ``mmap.mmap`` (``describe``): replaced, a result mapped anew from one file on
  every call was no longer seen to share its memory, and kept the 'unmodified' point;
* ``np.dtype`` (``calls.argument``): made to lie after a right definition, every inline input was read as float32
  garbage and the right function was told it had the wrong dtype (6/17, ``wrong-dtype``).

And one of today's notebook features: a script run with ``%run`` had neither ``display`` nor ``get_ipython``, which
IPython puts among the builtins, so a helper that displays something failed during grading alone (1/17).
"""
from __future__ import annotations

import json

import pytest

from conftest import CORRECT, check, diagnosis_ids, grade_students, notebook

RIGHT = CORRECT.replace("def vgg_classifier(", "def _right(")

#: a ``json.dumps`` that rewrites the child's answers: the subclass called exact, the reshape and the overwrite unsaid
FORGES = """
import json

_dumps = json.dumps

def _forged(message, *args, **kwargs):
    if isinstance(message, dict):
        for part in message.get("parts") or []:
            if isinstance(part, dict) and part.get("subclass"):
                part.update(exact=True, subclass=False, type="numpy.ndarray")
        if message.get("reshaped"):
            message["reshaped"] = []
        message.pop("overwrites", None)
    return _dumps(message, *args, **kwargs)

json.dumps = _forged
"""

#: one file's memory, mapped anew and returned by every call
FILE_SHARED = RIGHT + """
import mmap, os

_mmap = mmap.mmap
_fd = os.open("shared.bin", os.O_RDWR | os.O_CREAT, 0o600)
os.ftruncate(_fd, 1 << 16)
_maps = []

def vgg_classifier(*args):
    out = _right(*args)
    mapped = _mmap(_fd, 1 << 16)
    _maps.append(mapped)
    buf = np.frombuffer(mapped, dtype=np.float64, count=out.size).reshape(out.shape)
    buf[...] = out
    return buf
"""

SOURCES = {
    "dumps-subclass.py": RIGHT + FORGES + """
class Logits(np.ndarray):
    pass

def vgg_classifier(*args):
    return _right(*args).view(Logits)
""",
    "dumps-reshape.py": RIGHT + FORGES + """
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    features.shape = (features.shape[0], -1)
    return _right(features, W1, b1, W2, b2, W3, b3)
""",
    "dumps-shared.py": RIGHT + FORGES + """
_buf = {}

def vgg_classifier(*args):
    out = _right(*args)
    buf = _buf.setdefault(out.shape, np.empty_like(out))
    buf[...] = out
    return buf
""",
    "pread-hides.py": FILE_SHARED + """
os.pread = lambda *args: b""
""",
    "mmap-renamed.py": FILE_SHARED + """
class _Other:
    pass

mmap.mmap = _Other
""",
    "dtype-lies.py": CORRECT + """
_dtype = np.dtype
np.dtype = lambda *args, **kwargs: _dtype("f4")
""",
    "dumps-for-itself.py": CORRECT + """
import json

_dumps = json.dumps
json.dumps = lambda obj, *args, **kwargs: _dumps(obj, *args, **{"default": str, **kwargs})
""",
    "run-displays.ipynb": notebook("%%writefile /content/helpers.py\nimport numpy as np\ndisplay('helpers loaded')\n"
                                   "shell = get_ipython()\n" + CORRECT, "%run /content/helpers.py\n"),
}


@pytest.fixture(scope="module")
def results(tmp_path_factory, session):
    folder = tmp_path_factory.mktemp("round15")
    for name, source in SOURCES.items():
        (folder / name).write_text(json.dumps(source) if isinstance(source, dict) else source, encoding="utf-8")
    return grade_students(folder, session, [name.rsplit(".", 1)[0] for name in SOURCES])


def _failed(result) -> list:
    return [(c.id, c.message) for c in result.checks if c.status != "passed"]


def test_a_replaced_json_dumps_no_longer_calls_a_subclass_an_ndarray(results):
    result = results["dumps-subclass"]
    assert check(result, "type").status == "failed", _failed(result)
    assert "subclass of numpy.ndarray" in check(result, "type").message
    assert result.score == result.max_score - check(result, "type").max_points


@pytest.mark.parametrize("name, said", [("dumps-reshape", "modified its input features"),
                                        ("dumps-shared", "overwritten by a later call"),
                                        ("pread-hides", "overwritten by a later call"),
                                        ("mmap-renamed", "overwritten by a later call")])
def test_shared_modules_replaced_no_longer_hide_what_the_call_did(results, name, said):
    result = results[name]
    assert result.error is None, result.error
    assert check(result, "unmodified").status == "failed", _failed(result)
    assert said in check(result, "unmodified").message
    assert result.score == result.max_score - check(result, "unmodified").max_points


@pytest.mark.parametrize("name", ["dtype-lies", "dumps-for-itself"])
def test_numpy_or_json_replaced_after_a_right_function_leave_its_inputs_and_answers_whole(results, name):
    result = results[name]
    assert result.error is None, result.error
    assert result.score == result.max_score, _failed(result)
    assert "wrong-dtype" not in diagnosis_ids(result)


def test_a_script_run_with_percent_run_has_ipythons_display_and_get_ipython(results):
    result = results["run-displays"]
    assert result.error is None, result.error
    assert result.score == result.max_score, (_failed(result), result.warnings)
    assert not any("NameError" in w for w in result.warnings), result.warnings
