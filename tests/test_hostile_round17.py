"""Seventeenth round of hostile submissions: the two newest surfaces, ``%%capture`` that keeps what it captures and
the reading of state kept between calls (``exercises/vgg_classifier/stateful.py``).

State kept between calls: the diagnosis took a repeated call that differed from its first in any bit as the sign
of state, while the harness's ``deterministic`` check accepts differences within the tolerance. A stateless head
that visits its hidden units in a random order (the same sums, rounded otherwise: the last bits change from call to
call) and divides its logits by the batch size was told "Your function keeps state between calls ... multiplied by
a factor that changes from call to call", with the deterministic check passed beside it, and its real mistake
(``samples-mixed``: the answer depends on the batch) was dropped. A repeated call now disagrees only beyond the
tolerance a right answer gets; a real counter in such a head is still named. (One right call before the drift was
said as "the first 1 call": now "the first call".)

``%%capture``: captures in a loop, nested fifty deep, ``show()`` in a loop (of the running capture too), a flood
captured inside every graded call and a ``str`` subclass lying about its encoded length were all counted as printed
text (the flood sentence, full marks): these stay as guards. One sentence was wrong: a SyntaxError in the body of a
``%%capture`` or ``%%time`` cell (compiled while the cell runs: a top-level ``await``, which IPython's magics reject
too) was put on the cell's first line, where the magic's call is, with the runner's name for the cell in its message
("'await' outside function (<cell 2>, line 3)" ... "(line 1 of code cell 2)"); ``runner/describe`` now takes the
error's own line and message.
"""
from __future__ import annotations

import exercise_helpers as helpers
from conftest import CORRECT, grade_students, notebook

#: hidden units visited in a random order: exactly the right sums, rounded in another order on every call
SHUFFLED = ("order = np.random.permutation(W1.shape[1])", "x @ W1[:, order] + b1[order]", "h1 @ W2[order] + b2")

STATE = {
    "per-batch-shuffled": helpers.vgg_head(pre=SHUFFLED[0], z1=SHUFFLED[1], z2=SHUFFLED[2],
                                           out="return z3 / len(x)"),
    "counter-shuffled": helpers.vgg_head(mod="_calls = [0]\n\n", pre=f"_calls[0] += 1\n{SHUFFLED[0]}",
                                         z1=SHUFFLED[1], z2=SHUFFLED[2], out="return z3 * _calls[0]"),
    # noise from the second call on: no model of the drift, only the order of the calls, said of one right call
    "noise-after-the-first-call": helpers.vgg_head(mod="_calls = [0]\n\n", pre="_calls[0] += 1",
                                                   out="return z3 + (_calls[0] > 1) * np.random.rand(*z3.shape)"),
}
STATE_RIGHT = {"right-shuffled": helpers.vgg_head(pre=SHUFFLED[0], z1=SHUFFLED[1], z2=SHUFFLED[2])}
EXPECTED = {"per-batch-shuffled": {"samples-mixed"}, "counter-shuffled": {"nondeterministic"},
            "noise-after-the-first-call": {"nondeterministic"}}
WORDS = {"counter-shuffled": ("nondeterministic", "multiplied by the number of calls made so far"),
         "noise-after-the-first-call": ("nondeterministic", "the first call in the order they were made returned")}

RIGHT = CORRECT.replace("def vgg_classifier(", "def _right(")
FLOOD = "printed more than 1 MiB"
#: notebooks whose captured text must be counted as printed text (the flood sentence) and cost no point
CAPTURE = {
    "capture-in-a-loop": (CORRECT, "for i in range(40):\n"
                                   "    get_ipython().run_cell_magic('capture', 'c', 'print(\"x\" * 100000)')\n"),
    "show-in-a-loop": (CORRECT, "%%capture cap\nprint('y' * 500000)\n", "for i in range(20):\n    cap.show()\n"),
    "show-the-running-capture": (CORRECT, "%%capture cap\nc = get_ipython().captures[-1]\nprint('z' * 1000)\n"
                                          "for i in range(12):\n    c.show()\n"),
    "nested-fifty-deep": (CORRECT, "def nest(n):\n    if n:\n"
                                   "        get_ipython().run_cell_magic('capture', 'c%d' % n, 'nest(%d)' % (n - 1))\n"
                                   "    else:\n        print('q' * 1200000)\n\nnest(50)\n"),
    "str-lying-about-its-size": (CORRECT, "%%capture cap\nimport sys\n\nclass S(str):\n"
                                          "    def encode(self, *args, **kwargs):\n        return b''\n\n"
                                          "sys.stdout.write(S('v' * 1500000))\n"),
    "await-in-a-capture": (CORRECT, "%%capture cap\nimport asyncio\n\nawait asyncio.sleep(0)\n"),
    "await-in-a-timed-cell": (CORRECT, "%%time\nimport asyncio\nawait asyncio.sleep(0)\n"),
    "captured-in-every-call": (RIGHT, "def vgg_classifier(*args):\n"
                                      "    get_ipython().run_cell_magic('capture', 'c', 'print(\"x\" * 1200000)')\n"
                                      "    return _right(*args)\n"),
}


def test_a_stateless_head_whose_last_bits_vary_is_not_said_to_keep_state(tmp_path, session):
    for name, source in {**STATE, **STATE_RIGHT}.items():
        (tmp_path / f"{name}.py").write_text(source)
    results = grade_students(tmp_path, session, [*STATE, *STATE_RIGHT])
    assert helpers.clean_mark_faults(results.pop("right-shuffled")) == []
    helpers.assert_reports_name(results, EXPECTED, WORDS)
    evidence = next(d.evidence for d in results["per-batch-shuffled"].diagnoses)
    assert "keeps state" not in evidence and "depend on the rest of its batch" in evidence, evidence


def test_captured_text_is_counted_however_the_capture_is_driven(tmp_path, quick_session):
    import json

    for name, cells in CAPTURE.items():
        (tmp_path / f"{name}.ipynb").write_text(json.dumps(notebook(*cells)))
    results = grade_students(tmp_path, quick_session, list(CAPTURE))
    awaits = {name: results.pop(name).warnings for name in ("await-in-a-capture", "await-in-a-timed-cell")}
    faults = {name: helpers.clean_mark_faults(result, [FLOOD]) for name, result in results.items()}
    assert not any(faults.values()), faults
    for name, line in (("await-in-a-capture", 4), ("await-in-a-timed-cell", 3)):
        assert [w for w in awaits[name] if "SyntaxError" in w] == [
            f"Code cell 2 (cell 2 of the notebook) raised SyntaxError: \"'await' outside function\" "
            f"(line {line} of code cell 2)."], awaits[name]
