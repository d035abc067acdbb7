"""A function that returns the same memory on every call (a module-level buffer, a cached array) is named and loses
the ``unmodified`` point: the next call overwrites the result a caller kept, which the grader, reading each result at
once, would otherwise never see. The child reports which earlier call's result is shared; the parent checks that
claim and decides. Correct styles that reuse memory only internally, or return an input, are graded as before."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from conftest import SUBMISSIONS
from grader.answers import earlier_call
from grader.channel import ProtocolError
from grader.grade import grade_file

GROWN_BUFFER = SUBMISSIONS / "to_channels_last" / "buggy" / "shared-result.py"

LRU_CACHED = """import functools
import numpy as np

@functools.lru_cache(maxsize=None)
def _port(data, shape, C, H, W):
    weight = np.frombuffer(data).reshape(shape)
    out = shape[0]
    return weight.reshape(out, C, H, W).transpose(0, 2, 3, 1).reshape(out, H * W * C)

def to_channels_last(weight, C, H, W):
    return _port(weight.tobytes(), weight.shape, C, H, W)
"""

FIXED_BUFFER = """import numpy as np

_buf = np.empty(1 << 16)

def to_channels_last(weight, C, H, W):
    out = weight.shape[0]
    result = _buf[:weight.size].reshape(out, H * W * C)
    result[...] = weight.reshape(out, C, H, W).transpose(0, 2, 3, 1).reshape(out, H * W * C)
    return result
"""

#: right answers that reuse memory only inside the function, or hand back what is theirs to hand back
CORRECT = {
    "scratch-then-copy": """import numpy as np

_scratch = {}

def to_channels_last(weight, C, H, W):
    out = weight.shape[0]
    scratch = _scratch.setdefault(weight.shape, np.empty(weight.shape))
    scratch[...] = weight.reshape(out, C, H, W).transpose(0, 2, 3, 1).reshape(out, H * W * C)
    return scratch.copy()
""",
    "view-of-its-own-new-array": """import numpy as np

def to_channels_last(weight, C, H, W):
    out = weight.shape[0]
    grid = np.empty((out, H, W, C))
    grid[...] = weight.reshape(out, C, H, W).transpose(0, 2, 3, 1)
    return grid.reshape(out, -1)[:, :]
""",
    "cached-permutation-fresh-result": """import functools
import numpy as np

@functools.lru_cache(maxsize=None)
def _perm(C, H, W):
    return np.arange(C * H * W).reshape(C, H, W).transpose(1, 2, 0).ravel()

def to_channels_last(weight, C, H, W):
    return weight[:, _perm(C, H, W)]
""",
    "keeps-every-result-returns-new": """import numpy as np

_history = []

def to_channels_last(weight, C, H, W):
    out = weight.shape[0]
    result = np.ascontiguousarray(weight.reshape(out, C, H, W).transpose(0, 2, 3, 1)).reshape(out, -1)
    _history.append(result)
    return result
""",
}


def _named(result) -> dict[str, str]:
    return {d.id: d.evidence for d in result.diagnoses}


def _unmodified(result):
    return next(c for c in result.checks if c.id == "unmodified")


@pytest.fixture(scope="module")
def channels_last(sessions):
    return sessions("to_channels_last")


def _grade(tmp_path, session, name: str, source: str):
    path = tmp_path / f"{name}.py"
    path.write_text(source, encoding="utf-8")
    return grade_file(path, session)


@pytest.mark.parametrize("source", ["grown", FIXED_BUFFER], ids=["grown-buffer", "fixed-buffer"])
def test_a_module_level_buffer_in_to_channels_last_is_named_and_costs_the_unmodified_point(tmp_path, channels_last,
                                                                                           source):
    result = grade_file(GROWN_BUFFER, channels_last) if source == "grown" else \
        _grade(tmp_path, channels_last, "buffer", source)
    assert result.score == result.max_score - 1
    check = _unmodified(result)
    assert check.status == "failed"
    assert "was overwritten by a later call" in check.message and "'distinct-again' case" in check.message
    assert "Allocate the result inside the function, or return a copy." in check.message
    assert set(_named(result)) == {"shared-result"}


def test_a_module_level_buffer_in_vgg_classifier_is_named_and_costs_the_unmodified_point(sessions):
    result = grade_file(SUBMISSIONS / "buggy" / "shared-result.py", sessions("vgg_classifier"))
    assert result.score == result.max_score - 1
    assert _unmodified(result).status == "failed"
    assert set(_named(result)) == {"shared-result"}
    assert "same memory" in _named(result)["shared-result"]


def test_an_lru_cache_that_returns_the_same_array_twice_is_named(tmp_path, channels_last):
    result = _grade(tmp_path, channels_last, "lru", LRU_CACHED)
    assert result.score == result.max_score - 1
    assert set(_named(result)) == {"shared-result"}
    assert "A second call on the 'distinct-narrow' case" in _unmodified(result).message


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_correct_styles_that_reuse_memory_internally_keep_full_marks(tmp_path, channels_last, name):
    result = _grade(tmp_path, channels_last, name, CORRECT[name])
    assert result.score == result.max_score, [(c.id, c.message) for c in result.checks if c.status != "passed"]
    assert not result.diagnoses


def test_returning_the_input_is_graded_as_before_not_as_a_shared_result(tmp_path, channels_last):
    result = _grade(tmp_path, channels_last, "identity", "def to_channels_last(weight, C, H, W):\n    return weight\n")
    assert "shared-result" not in _named(result)
    assert _unmodified(result).status == "passed"


def test_the_parent_accepts_only_an_earlier_call_of_the_same_function():
    answered = {3: SimpleNamespace(target=0), 4: SimpleNamespace(target=1)}
    assert earlier_call({}, answered, 0) is None
    assert earlier_call({"overwrites": 3}, answered, 0) == 3
    for forged in (4, 5, True, "3", 3.0, [3]):
        with pytest.raises(ProtocolError):
            earlier_call({"overwrites": forged}, answered, 0)
