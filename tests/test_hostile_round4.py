"""Fourth round of hostile submissions: frames the parent could not decode, names longer than a frame, and the
runner's module names.

A forged frame may hold anything JSON can: a number of 5,000 digits or a dtype numpy refuses with a ValueError used
to stop the grader itself ("not the student's fault"), where it is the submission's protocol error. A name the
student chose (a global, a class's ``__qualname__``, a structured dtype's field, a magic) of megabytes made the
child's honest answer larger than a frame may be, and the submission was accused of writing on the channel. And
the runner's own modules (``wire``, ``rows``...) were importable by student code, shadowing the student's own files
of the same names.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from conftest import CORRECT, check, notebook
from grader.runner import wire

#: finds the runner's ``Child`` in the heap and writes one raw frame on its channel, as a hostile student would
FORGE = """
import gc, os, struct, sys

def _raw(body):
    child = next(o for o in gc.get_objects() if type(o).__name__ == "Child" and hasattr(o, "channel"))
    os.write(child.channel, struct.pack(">II", len(body), 0) + body)

def _seq():
    frame = sys._getframe()
    while frame is not None:
        command = frame.f_locals.get("command")
        if isinstance(command, dict) and "seq" in command:
            return command["seq"]
        frame = frame.f_back
"""


def test_wire_refuses_what_json_and_numpy_raise_valueerror_for():
    """Both used to escape as a bare ValueError, which the grader took for its own failure."""
    with pytest.raises(wire.WireError):
        wire.decode_message(b'{"t":"note","n":' + b"9" * 5000 + b"}")
    for name in ("(-1,)f8", "(99999999999999,)f8", "i4,(999999999999,)f8"):
        with pytest.raises(wire.WireError):
            wire.checked_dtype({"dtype": name})


@pytest.mark.parametrize("frame", [
    "b'{\"t\":\"note\",\"text\":\"x\",\"n\":' + b'9' * 5000 + b'}'",
    "b'{\"t\":\"result\",\"seq\":%d,\"status\":\"ok\",\"parts\":[{\"type\":\"x\"}],\"count\":%s}'"
    " % (_seq(), b'7' * 5000)",
    "b'{\"t\":\"result\",\"seq\":%d,\"status\":\"ok\",\"parts\":[{\"type\":\"x\",\"shape\":[1],\"array\":"
    "{\"dtype\":\"(99999999999999,)f8\",\"shape\":[1]}}]}' % _seq()",
], ids=["long-number-in-a-note", "long-number-in-a-result", "dtype-numpy-refuses"])
def test_a_frame_the_parent_cannot_read_is_the_submissions_protocol_error(grade_source, frame):
    source = FORGE + "\n\ndef vgg_classifier(*args):\n    _raw(" + frame + ")\n    import time\n    time.sleep(1)\n"
    result = grade_source(source)
    text = result.to_json()
    assert result.status == "error" and result.error.kind == "protocol-error", text[:800]
    assert "wrote on the grader's result channel" in result.error.message
    assert "not the student's fault" not in text and "internal" not in result.error.kind
    assert result.score == 0


LONG = 5 * 1024 * 1024  # more than a frame's 4 MiB of JSON


@pytest.mark.parametrize("source, check_id, words", [
    ("import numpy as np\n\nclass K:\n    pass\n\nK.__qualname__ = 'Q' * %d\n\n"
     "def vgg_classifier(*args):\n    return K()\n" % LONG, "type", "returned a submission.QQQQ"),
    ("import numpy as np\n\ndef vgg_classifier(features, *args):\n"
     "    return np.zeros(features.shape[0], dtype=[('f' * %d, 'f8')])\n" % LONG, "values-single", "holds [('fff"),
    ("E = type('E' * %d, (Exception,), {})\n\nclass A:\n    def __array__(self, *a, **k):\n        raise E()\n\n"
     "def vgg_classifier(*args):\n    return A()\n" % LONG, "shape", "could not be read as an array (EEEE"),
], ids=["class-qualname", "dtype-field-name", "exception-name-in-array"])
def test_names_of_megabytes_are_cut_not_taken_for_a_forged_frame(grade_source, source, check_id, words):
    """The child's own answer carried the whole name and was refused as larger than a frame: a protocol error
    blaming the student for writing on the channel. Now the name is cut and the function is graded as it is."""
    result = grade_source(source)
    text = result.to_json()
    assert result.status == "graded", text[:800]
    assert "wrote on the grader's result channel" not in text
    assert len(text) < 1_000_000
    found = check(result, check_id)
    assert found.status == "failed" and words in found.message, found


def test_a_callable_global_with_a_name_of_megabytes_still_lists_the_candidates(grade_source):
    result = grade_source(CORRECT + "\nglobals()['f' * %d] = print\ndel vgg_classifier\n" % LONG)
    assert result.status == "error" and result.error.kind == "missing-function", result.to_json()[:800]
    assert "wrote on the grader's result channel" not in result.to_json()


def test_a_magic_with_a_name_of_megabytes_is_noted_briefly(grade_source):
    result = grade_source(notebook("get_ipython().run_line_magic('m' * %d, '')\n" % LONG + CORRECT),
                          name="student.ipynb")
    assert result.score == result.max_score, result.to_json()[:800]
    assert len(result.to_json()) < 100_000


#: every module of the runner's folder: child.RUNNER_MODULES must hide each of them from student code
RUNNER_NAMES = tuple(sorted(path.stem for path in Path(wire.__file__).parent.glob("*.py") if path.stem != "__init__"))


def test_the_runners_modules_are_not_the_students(grade_source):
    """``import wire`` gave the runner's framing module, a name no student machine has: it fails now, as at home."""
    probe = ("found = []\nfor name in %r:\n    try:\n        __import__(name)\n        found.append(name)\n"
             "    except ImportError:\n        pass\nassert not found, 'imported ' + ','.join(found)\n"
             % (RUNNER_NAMES,))
    result = grade_source(probe + CORRECT)
    assert result.score == result.max_score, result.to_json()[:800]
    assert "imported" not in result.to_json()


@pytest.mark.parametrize("name", ["wire", "rows", "standins", "shell"])
def test_a_students_own_file_named_like_a_runner_module_wins(grade_source, name):
    """A helper written with %%writefile under a runner module's name: the student's import got the runner's module
    (no SCALE in it, so every call raised), or, for a name the runner imports late, the runner got the student's."""
    body = CORRECT.replace("return h @ W3 + b3", f"return (h @ W3 + b3) * {name}.SCALE")
    source = notebook(f"%%writefile {name}.py\nSCALE = 1.0\n", f"import {name}\n" + body)
    result = grade_source(source, name="student.ipynb")
    assert result.score == result.max_score, result.to_json()[:1500]


#: the forged answer takes the place of the child's own, whose next send is swallowed
INSTEAD = FORGE + """
def _instead(body):
    _raw(body)
    child = next(o for o in gc.get_objects() if type(o).__name__ == "Child" and hasattr(o, "channel"))
    real = child.send

    def once(*args, **kwargs):
        child.send = real

    child.send = once
"""


@pytest.mark.parametrize("error", [
    '{"type":"ValueError","message":"x","file":"<cell 1>","line":%s}' % ("9" * 4300),
    '{"type":"MemoryError","message":"Unable to allocate 8.00 GiB for an array with shape (10,) and data type '
    'float64","file":null,"line":null,"reserved":%s}' % ("9" * 4000),
], ids=["line-of-4300-digits", "reserved-of-4000-digits"])
def test_an_error_with_numbers_no_process_has_is_a_protocol_error(grade_source, error):
    """A forged error's line of 4,300 digits was printed in full in every check's message."""
    frame = '{"t":"result","seq":%d,"status":"raised","error":' + error + '}'
    source = INSTEAD + f"\n\ndef vgg_classifier(*args):\n    _instead(({frame!r} % _seq()).encode())\n"
    result = grade_source(source)
    assert result.status == "error" and result.error.kind == "protocol-error", result.to_json()[:800]
    assert "999999" not in result.to_json()


def test_a_replaced_import_no_longer_breaks_the_runners_reading(grade_source):
    """``builtins.__import__`` refusing json: the runner could not read its next command and exited with code 0,
    which the report called the student's own ``os._exit()``; then it was named a break of the grader's own code.
    The runner's modules now import through their own copy of the builtins (``stdlib.own_builtins``), so the right
    function is graded as it is."""
    hook = ("import builtins\n_real = builtins.__import__\n\ndef _imp(name, *a, **k):\n"
            "    if name in ('json', 'struct'):\n        raise ImportError(name)\n    return _real(name, *a, **k)\n\n"
            "builtins.__import__ = _imp\n")
    result = grade_source(CORRECT + hook)
    text = result.to_json()
    assert result.score == result.max_score, text[:1500]
    assert "exit code 0" not in text and "os._exit" not in text
