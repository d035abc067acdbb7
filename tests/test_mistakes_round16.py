"""Round sixteen: heads that keep state between calls, graded through the grader's sandbox in one batch.

The harness now hands the exercise's diagnosis each call's place in the run and its case's repeated call
(``CaseRun.order``, ``CaseRun.again``), so the VGG head's diagnosis reads the calls in the order they were made
(``exercises/vgg_classifier/stateful.py``). Before, every head below whose first call is right and whose later calls
drift got ``nondeterministic`` ("Two calls with identical inputs returned different values") beside a generic
``wrong-stage`` read from the probes, which come after the graded cases and drift most; round fourteen's counter,
accumulated b3 and W1 kept per shape were asserted that way. Now ``nondeterministic`` says the function keeps state
and what drifts (a factor following the call count, an argument summed over the calls), and no stage is blamed; a
copy of a weight or bias kept per shape (whose repeated call agrees with its first) is ``stale-result``, saying
which argument of which earlier call was used. Heads whose state leaves every answer right keep full marks.

A running mean of the features kept in a global (round fourteen's) spoils the very first call too, so nothing here
tells it from randomness; round eighteen names it by replaying the calls under the usual update rules
(``runningmean.py``).
"""
from __future__ import annotations

import exercise_helpers as helpers
from conftest import grade_students

body, raw = helpers.vgg_head, helpers.vgg_raw

COUNTER = "_calls = [0]\n\n"

SOURCES: dict[str, str] = {}
SOURCES["counter-multiplies"] = body(mod=COUNTER, pre="_calls[0] += 1", out="return z3 * _calls[0]")
SOURCES["function-attribute-counter"] = body(
    pre="vgg_classifier.n = getattr(vgg_classifier, 'n', 0) + 1", out="return z3 / vgg_classifier.n")
SOURCES["b1-summed-global"] = body(mod="_b1 = {}\n\n", pre="_b1[b1.shape] = _b1.get(b1.shape, 0) + b1",
                                   z1="x @ W1 + _b1[b1.shape]")
SOURCES["w2-kept-per-shape-copy"] = body(mod="_W2 = {}\n\n", pre="W2 = _W2.setdefault(W2.shape, W2.copy())")
SOURCES["b3-kept-default-arg"] = raw(
    "return _head(features, W1, b1, W2, b2, W3, b3)\n") + (
    "\n\ndef _head(features, W1, b1, W2, b2, W3, b3, _seen={}):\n"
    "    b3 = _seen.setdefault(b3.shape, b3.copy())\n"
    "    x = features.reshape(features.shape[0], -1)\n"
    "    return np.maximum(np.maximum(x @ W1 + b1, 0) @ W2 + b2, 0) @ W3 + b3\n")
SOURCES["warmup-counter-halves"] = body(mod=COUNTER, pre="_calls[0] += 1",
                                        out="return z3 * (0.5 if _calls[0] > 3 else 1.0)")
SOURCES["dropout-random-mask"] = body(a1="np.maximum(z1, 0) * (np.random.rand(*z1.shape) > 0.5) * 2")

#: the mistakes each report names
EXPECTED = {
    "counter-multiplies": {"nondeterministic"},
    "function-attribute-counter": {"nondeterministic"},
    "b1-summed-global": {"nondeterministic"},
    "w2-kept-per-shape-copy": {"stale-result"},  # a copy kept: a repeated call agrees with its first
    "b3-kept-default-arg": {"stale-result"},
    "warmup-counter-halves": {"nondeterministic"},
    "dropout-random-mask": {"inference-dropout", "nondeterministic"},  # random, not state: as it was
}

#: words each report must hold
WORDS = {
    "counter-multiplies": ("nondeterministic", "multiplied by the number of calls made so far"),
    "function-attribute-counter": ("nondeterministic", "divided by the number of calls made so far"),
    "b1-summed-global": ("nondeterministic", "b1 is summed over the calls"),
    "w2-kept-per-shape-copy": ("stale-result", "W2 is kept from an earlier call of the same size"),
    "b3-kept-default-arg": ("stale-result", "b3 is kept from an earlier call of the same size"),
    "warmup-counter-halves": ("nondeterministic", "the first 3 calls in the order they were made returned the right"),
}

#: heads that keep state which never changes an answer: full marks, no finding
RIGHT = {
    "counter-logged": body(mod=COUNTER, pre="_calls[0] += 1"),
    "memo-by-bytes": raw("key = tuple(a.tobytes() + str(a.shape).encode() for a in "
                         "(features, W1, b1, W2, b2, W3, b3))\nif key not in _MEMO:\n"
                         "    x = features.reshape(features.shape[0], -1)\n"
                         "    _MEMO[key] = np.maximum(np.maximum(x @ W1 + b1, 0) @ W2 + b2, 0) @ W3 + b3\n"
                         "return _MEMO[key].copy()").replace("import numpy as np\n", "import numpy as np\n_MEMO = {}\n"),
}


def test_state_kept_between_calls_is_named_with_what_drifts(tmp_path, session):
    for name, source in {**SOURCES, **RIGHT}.items():
        (tmp_path / f"{name}.py").write_text(source)
    results = grade_students(tmp_path, session, [*SOURCES, *RIGHT])
    faults = {name: helpers.clean_mark_faults(results.pop(name)) for name in RIGHT}
    assert not any(faults.values()), faults
    helpers.assert_reports_name(results, EXPECTED, WORDS)
