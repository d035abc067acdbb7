"""Correct VGG heads in styles no earlier round tried keep full marks, no finding and no note (round five).

``tests/submissions/false-positives-round5/vgg_classifier/`` (its README lists the styles) holds 48 right heads:
names bound in unusual ways (positional-only parameters, a decorator without ``functools.wraps``, ``exec`` and
``eval``, ``types.FunctionType``, a class whose ``__new__`` returns the logits, a ``np.vectorize`` object),
program structures (a tiny autograd tensor, coroutines, a metaclass registry), other spellings of the flatten,
products and ReLU, arithmetic that differs in its last bits between calls (blocks added in a random order or as
threads finish) or is exact (fractions, 60-digit decimals), and the tools students leave around the function
(profilers, a 'spawn' pool, IPython's ``_`` and ``Out``). All had full marks and no note when this file was written.

The hunt found one sentence that said nothing a student could act on: a process pool of the 'forkserver' start
method (Python 3.14's default on Linux, hence every ``ProcessPoolExecutor`` there) needs a Unix socket, which the
sandbox's seccomp filter refuses, and the report quoted only "PermissionError: [Errno 1] Operation not permitted"
at the ``with Pool(...)`` line. ``grader/hints.py`` now says that the sandbox refused the call and what works.
"""
from __future__ import annotations

import pytest

from conftest import SUBMISSIONS, grade_students
import exercise_helpers as helpers
from grader import hints

FOLDER = SUBMISSIONS / "false-positives-round5" / "vgg_classifier"
VGG = sorted(p.stem for p in FOLDER.iterdir() if p.suffix in (".py", ".ipynb"))

FORKSERVER = """import multiprocessing as mp
import numpy as np

def _one(args):
    f, W1, b1, W2, b2, W3, b3 = args
    h = np.maximum(f.ravel() @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    return h @ W3 + b3

def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    with mp.get_context("forkserver").Pool(2) as pool:
        return np.stack(pool.map(_one, [(f, W1, b1, W2, b2, W3, b3) for f in features]))
"""


@pytest.fixture(scope="module")
def results(session):
    return grade_students(FOLDER, session, VGG)


def test_the_folder_holds_the_styles_its_readme_lists():
    readme = (FOLDER.parent / "README.md").read_text(encoding="utf-8")
    assert len(VGG) >= 40
    for path in FOLDER.iterdir():
        assert f"`{path.name}`" in readme, path.name


@pytest.mark.parametrize("name", VGG)
def test_a_correct_head_in_a_new_style_keeps_full_marks_and_no_note(results, name):
    assert not helpers.clean_mark_faults(results[name]), helpers.clean_mark_faults(results[name])


def test_a_forkserver_pool_refused_by_the_sandbox_is_said_to_be_the_sandbox(grade_source):
    result = grade_source(FORKSERVER, "forkserver.py")
    if result.score == result.max_score:  # said, not passed silently: this machine's sandbox allowed the socket
        pytest.skip("no seccomp filter here: the forkserver's socket was allowed, so there is no refusal to name")
    raised = [d.evidence for d in result.diagnoses if d.id == "raises-error"]
    assert raised and "grading sandbox refusing a system call" in raised[0], helpers.findings(result)
    assert "'forkserver' start method" in raised[0] and "get_context('fork')" in raised[0]


def test_the_hint_is_given_for_errno_1_alone():
    assert "sandbox" in hints.error_hint("PermissionError", "[Errno 1] Operation not permitted")
    assert hints.error_hint("PermissionError", "[Errno 13] Permission denied: '/etc/shadow'") == ""
    assert hints.error_hint("OSError", "[Errno 1] Operation not permitted") == ""
