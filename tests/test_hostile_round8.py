"""Eighth round of hostile submissions: time charged to the wrong call, a grace earned again and again, and the
words a note quotes.

A call whose alarm was blocked (``signal.pthread_sigmask``), ignored or caught was killed by the parent after its
limit and the 2 s grace, and every later call of the run earned the same grace again; the grace is now cut to
0.25 s once a step of the run has gone past it, and the sentence says the call did not stop. A slow ``__del__`` of
what a call returned (or of the frames its exception held) ran after the answer was sent, on the next call's
clock: that call timed out and its case was blamed. The runner now releases a call's result and exception inside
the call's own time, and its alarm goes off again every 0.1 s once the limit is up, since Python swallows the one
that lands in a ``__del__``. And the words a note quotes (a shell command, a magic's name) were up to 100
characters that could close their own quotation ("x' was not run. Your score was raised to 19/19 by the
instructor. '"); they are now cut to 40, inside quotes the grader adds, with their own quotes escaped.

The other attacks of the round (forks that outlive the run, ``os.setpgid``, huge dtype metadata, ``faulthandler``
writing on a timer, ``KeyboardInterrupt`` and ``SystemExit`` from the function, an exception whose text is HTML and
terminal escapes) already got the right verdict; ``test_attacks_the_grader_already_withstands`` keeps them so.
"""
from __future__ import annotations

import pytest

from conftest import CORRECT, check, grade_students, leftovers

RIGHT = CORRECT.replace("def vgg_classifier(", "def _right(")

#: each graded in one batch of the one-second session (1 s per call, 3 s per cell, 20 s for the submission)
TIMED = {
    # its alarm blocked on every call: the first is killed after its 1 s and the 2 s grace, the second after 0.25 s
    "blocks-alarm": RIGHT + """
import signal

def vgg_classifier(*args):
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
    while True:
        pass
""",
    # the first call's result sleeps 3.5 s when released: it was charged to the second call ('batch')
    "slow-del-of-result": RIGHT + """
import time
import numpy as np

class Slow(np.ndarray):
    def __del__(self):
        if getattr(self, "first", False):
            time.sleep(3.5)

_calls = [0]

def vgg_classifier(*args):
    _calls[0] += 1
    out = _right(*args).view(Slow)
    out.first = _calls[0] == 1
    return out
""",
    # the exception of the second call holds an object whose __del__ never ends (it catches every alarm)
    "endless-del-in-exception": RIGHT + """
import time

class Endless:
    def __del__(self):
        while True:
            try:
                time.sleep(1)
            except BaseException:
                pass

_calls = [0]

def vgg_classifier(*args):
    _calls[0] += 1
    if _calls[0] == 2:
        raise ValueError(Endless())
    return _right(*args)
""",
    # a kept object's __del__ swallows the call's one alarm: the call then ran until the parent killed it
    "alarm-swallowed-by-del": RIGHT + """
import time

class Slow:
    def __del__(self):
        time.sleep(60)

_kept = [Slow()]

def vgg_classifier(*args):
    _kept[0] = Slow()
    time.sleep(60)
""",
}


@pytest.fixture(scope="module")
def timed(tmp_path_factory, one_second_session):
    folder = tmp_path_factory.mktemp("round8-timed")
    for name, source in TIMED.items():
        (folder / f"{name}.py").write_text(source)
    return grade_students(folder, one_second_session, list(TIMED))


def test_a_call_that_blocks_its_alarm_earns_the_grace_once(timed):
    returns, batch = check(timed["blocks-alarm"], "returns"), check(timed["blocks-alarm"], "values-batch")
    assert "killed after 1 s, its time limit, and 2 s more in which it did not stop" in returns.message
    assert "killed after 1 s, its time limit, and 0.25 s more in which it did not stop" in batch.message, batch.message


def test_a_slow_del_of_a_result_is_charged_to_the_call_that_returned_it(timed):
    result = timed["slow-del-of-result"]
    assert check(result, "values-single").status == "timeout", check(result, "values-single").message
    assert check(result, "values-batch").status == "passed", check(result, "values-batch").message


def test_an_endless_del_in_an_exception_is_the_call_that_raised_it(timed):
    result = timed["endless-del-in-exception"]
    assert check(result, "values-single").status == "passed"
    cut = [c for c in result.checks if c.status == "timeout"]
    assert cut and "'batch' case" in cut[0].message, [(c.id, c.message) for c in result.checks]


def test_an_alarm_swallowed_by_a_del_goes_off_again(timed):
    message = check(timed["alarm-swallowed-by-del"], "returns").message
    assert "killed after 1 s, its time limit" in message and "did not stop" not in message, message


NOTE = CORRECT + """
get_ipython().system("x' was not run. Your score was raised to 19/19 by the instructor. '")
get_ipython().run_line_magic("timeit", "")
"""


def test_a_notes_quoted_words_cannot_close_their_quotation(grade_source, tmp_path):
    from grader import report

    result = grade_source(NOTE)
    assert result.score == result.max_score
    assert "The shell command '!x\\' was not run. Your score was raised …' was not run during grading." \
        in result.warnings, result.warnings
    assert "The line magic '%timeit' was not run during grading." in result.warnings
    assert not any("19/19" in w for w in result.warnings)
    markdown, html = report.render_markdown(result), report.render_html(result)
    assert "19/19" not in markdown and "19/19 by" not in html
    assert "!x\\' was not run" in markdown or "!x\\\\' was not run" in markdown, markdown
    assert "!x\\&#39; was not run" in html or "!x\\&#x27; was not run" in html or "!x\\' was not run" in html


ATTACKS = {
    "fork-outlives": RIGHT + """
import os, time
if os.fork() == 0:
    os.setsid()
    time.sleep(30)
    os._exit(0)
vgg_classifier = _right
""",
    "setpgid-and-fork": RIGHT + """
import os, time
try:
    os.setpgid(0, 0)
except OSError:
    pass
if os.fork() == 0:
    time.sleep(30)
    os._exit(0)
vgg_classifier = _right
""",
    "huge-dtype-metadata": RIGHT + """
import numpy as np

def vgg_classifier(*args):
    return _right(*args).astype(np.dtype(np.float64, metadata={"k": "v" * (20 << 20)}))
""",
    "faulthandler-timer": RIGHT + """
import faulthandler, sys
faulthandler.dump_traceback_later(0.005, repeat=True, file=sys.stdout)
vgg_classifier = _right
""",
    "interrupt-and-exit": RIGHT + """
_calls = [0]

def vgg_classifier(*args):
    _calls[0] += 1
    raise KeyboardInterrupt() if _calls[0] % 2 else SystemExit(0)
""",
    "exception-html": RIGHT + """
def vgg_classifier(*args):
    raise ValueError("\\x1b[2J<script>alert(1)</script>")
""",
    "stdout-raises": RIGHT + """
import sys

class Broken:
    def write(self, text):
        raise RuntimeError("no")

    def flush(self):
        raise RuntimeError("no")

sys.stdout = sys.stderr = Broken()
vgg_classifier = _right
""",
}


def test_attacks_the_grader_already_withstands(tmp_path, session):
    for name, source in ATTACKS.items():
        (tmp_path / f"{name}.py").write_text(source)
    results = grade_students(tmp_path, session, list(ATTACKS))
    for name in ("fork-outlives", "setpgid-and-fork", "huge-dtype-metadata", "faulthandler-timer", "stdout-raises"):
        assert results[name].score == results[name].max_score, (name, results[name].to_json()[:600])
    assert not leftovers()
    assert "raised KeyboardInterrupt" in check(results["interrupt-and-exit"], "returns").message
    assert "raised SystemExit" in check(results["interrupt-and-exit"], "values-batch").message
    message = check(results["exception-html"], "returns").message
    assert "\\x1b[2J<script>" in message and "\x1b" not in message, message
