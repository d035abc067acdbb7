"""Twelfth round of hostile submissions: what a call leaves running after its answer, and text that is a ``str``
only in name.

Of the round's attacks (ndarray subclasses lying through ``__array_ufunc__`` and ``__array_function__``, object
and structured arrays, ``as_strided`` views out of bounds or of 10^18 elements, ``np.memmap`` results, objects whose
``__eq__``, ``__len__``, ``__index__`` and ``__array__`` lie, exceptions whose ``__str__`` loops or raises, HTML and
Markdown in type names, exception names, dtype fields, parameter names and global names, numpy patched after the
student's code ran, audit and profile hooks, ``warnings.simplefilter("error")``, ``os.chdir``), two got a verdict
they should not have:

* a call that changes its inputs after its answer (a thread that sleeps a moment, a process it forked: the
  inputs' memory is shared) kept the ``unmodified`` point, as the parent compared them only when the answer came.
  The parent now compares an answered call's inputs once more before anything else is written at their place and
  once its child is gone;
* an exception whose ``__str__`` returns a subclass of ``str`` with its own slicing made the child send a number
  as the message, and the whole run was called a protocol error ("wrote on the grader's result channel"). The
  child now makes every such text a plain ``str`` before cutting it.
"""
from __future__ import annotations

import pytest

from conftest import CORRECT, check, diagnosis_ids, grade_students

RIGHT = CORRECT.replace("def vgg_classifier(", "def _right(")

SOURCES = {
    "thread-writes-later": RIGHT + """
import threading, time

def vgg_classifier(*args):
    features = args[0]

    def later():
        time.sleep(0.002)
        features[...] = 0.0
    threading.Thread(target=later, daemon=True).start()
    return _right(*args)
""",
    "fork-writes-later": RIGHT + """
import os, time

def vgg_classifier(*args):
    if os.fork() == 0:
        time.sleep(0.01)
        args[0][...] = 0.0
        os._exit(0)
    return _right(*args)
""",
    "thread-reads-later": RIGHT + """
import threading, time

seen = []

def vgg_classifier(*args):
    def later():
        time.sleep(0.002)
        seen.append(float(args[0].sum()))
    threading.Thread(target=later, daemon=True).start()
    return _right(*args)
""",
    "str-subclass-message": RIGHT + """
class Text(str):
    def __getitem__(self, key):
        return 12345

class Odd(Exception):
    def __str__(self):
        return Text("no weights given")

Named = type(Text("Named"), (Exception,), {})

def vgg_classifier(*args):
    raise Odd() if args[0].shape[0] == 1 else Named(Text("x"))
""",
}


@pytest.fixture(scope="module")
def results(tmp_path_factory, session):
    folder = tmp_path_factory.mktemp("round12")
    for name, source in SOURCES.items():
        (folder / f"{name}.py").write_text(source, encoding="utf-8")
    return grade_students(folder, session, list(SOURCES))


@pytest.mark.parametrize("name", ["thread-writes-later", "fork-writes-later"])
def test_inputs_changed_after_the_answer_lose_the_unmodified_point(results, name):
    result = results[name]
    assert result.error is None, result.error
    assert check(result, "unmodified").status == "failed", check(result, "unmodified")
    assert "mutates-input" in diagnosis_ids(result)


def test_a_thread_that_only_reads_the_inputs_later_keeps_full_marks(results):
    result = results["thread-reads-later"]
    assert result.score == result.max_score, [c for c in result.checks if c.status != "passed"]


def test_a_str_subclass_from_an_exception_is_its_message_not_a_protocol_error(results):
    result = results["str-subclass-message"]
    assert result.error is None, result.error
    message = check(result, "returns").message
    assert "no weights given" in message and "Odd" in message, message
    assert "raises-error" in diagnosis_ids(result)
