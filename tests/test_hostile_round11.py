"""Eleventh round of hostile input: the child's walk over a graded function's bytecode for a helper that prints
(``printchain._printed_by``, new this round), graded in one batch through the command line.

The walk reads the student's function, its globals, closures and code objects, which a submission controls. Before
this round it could run the student's code (``dis`` gives the ``repr()`` of every constant it loads, and a
``code.replace(co_consts=...)`` can hold any object; a globals key hashing like a helper's name had its ``__eq__``
called by the lookup) and could take the signature's whole two seconds (3,000 ``return out`` were walked
quadratically), after which the signature was lost with its parameters. On 3.11, the interpreter of the course's
machines, a helper whose argument is itself a call (``return show(layers(x), W3, b3)``) was never named at all.

Each submission below is what a student could write; each is graded, its signature kept (seen through the
``parameters-reordered`` finding, which only a signature read whole gives), and the sentence about the print names
only what it should. ``grader/launch.py``'s raw-argument reading met a FIFO and a symbolic link loop given as
paths in the same command: each became the error row it always was.
"""
from __future__ import annotations

import json
import os

import pytest

from conftest import leftovers
from grader import cli

HEAD = """import numpy as np

def show(h, W3, b3):
    print(h @ W3 + b3)

def layers(features, W1, b1, W2, b2):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(0.0, x @ W1 + b1)
    return np.maximum(0.0, h @ W2 + b2)
"""
RIGHT = HEAD + """
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    return layers(features, W1, b1, W2, b2) @ W3 + b3
"""
#: a function whose parameters name W1 and W2 in the wrong places: the finding needs the signature read whole
REORDERED = "def vgg_classifier(features, W2, b2, W1, b1, W3, b3):\n"
#: a constant of the student's class, loaded by the graded function: ``dis`` would give its repr()
ODD_CONSTANT = """
class Odd:
    def __repr__(self):
        {body}

def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    marker = "marker"
    return show(layers(features, W1, b1, W2, b2), W3, b3)

_c = vgg_classifier.__code__
vgg_classifier.__code__ = _c.replace(co_consts=tuple(Odd() if c == "marker" else c for c in _c.co_consts))
"""
STUDENTS = {
    "right": RIGHT,
    # 3.11: the helper's first argument is a call; the walk stopped inside it and named nothing
    "nested-argument": HEAD + "\ndef vgg_classifier(features, W1, b1, W2, b2, W3, b3):\n"
                              "    return show(layers(features, W1, b1, W2, b2), W3, b3=b3)\n",
    "constant-repr-loops": HEAD + ODD_CONSTANT.format(body="while True:\n            pass"),
    "constant-repr-exits": HEAD + ODD_CONSTANT.format(body="import os\n        os._exit(3)"),
    # a globals key whose hash is a helper's name's and whose __eq__ never returns, once armed
    # (set before the helper is defined, so that looking its name up meets the key first)
    "globals-key-loops": HEAD + "armed = []\n\nclass Key:\n    def __hash__(self):\n        return hash('shown')\n\n"
                         "    def __eq__(self, other):\n        while armed:\n            pass\n        return False\n\n"
                         "globals()[Key()] = 1\n\ndef shown(h, W3, b3):\n    print(h @ W3 + b3)\n\n" + REORDERED
                         + "    if features is None:\n        return shown(features, W3, b3)\n"
                         "    return layers(features, W1, b1, W2, b2) @ W3 + b3\n\narmed.append(1)\n",
    # 3,000 returns of one local a helper's result was stored in: each was walked back over the whole function
    "many-returns": HEAD + "\n" + REORDERED + "    out = show(features, W3, b3) if features is None else "
                    "layers(features, W1, b1, W2, b2) @ W3 + b3\n"
                    + "".join(f"    if b1 is W{i % 2 + 1}:\n        return out\n" for i in range(3000))
                    + "    return out\n",
    # helpers that call each other, and one whose name is markup: the sentence names identifiers only
    "helpers-recursive": HEAD + "\ndef a(h, W3, b3):\n    if h is None:\n        return a(h, W3, b3)\n"
                         "    return show(h, W3, b3)\n\ndef b(h, W3, b3):\n    return a(h, W3, b3)\n\n"
                         "def vgg_classifier(features, W1, b1, W2, b2, W3, b3):\n"
                         "    return b(layers(features, W1, b1, W2, b2), W3, b3)\n",
    "helper-named-markup": HEAD + "\ndef shower(h, W3, b3):\n    return show(h, W3, b3)\n\n"
                           "shower.__code__ = shower.__code__.replace(co_name='<b>Full marks</b>\\n' + 'x' * 500)\n\n"
                           "def vgg_classifier(features, W1, b1, W2, b2, W3, b3):\n"
                           "    return shower(layers(features, W1, b1, W2, b2), W3, b3)\n",
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The class graded once through the command line, with a FIFO and a symbolic link loop among its paths."""
    root = tmp_path_factory.mktemp("hostile-round11")
    folder = root / "class"
    folder.mkdir()
    for name, source in STUDENTS.items():
        (folder / f"{name}.py").write_text(source, encoding="utf-8")
    os.mkfifo(root / "fifo")
    os.symlink(root / "loop-a", root / "loop-b")
    os.symlink(root / "loop-b", root / "loop-a")
    out = root / "out"
    code = cli.main([str(arg) for arg in ("grade", folder, root / "fifo", root / "loop-a", "--exercise",
                                          "vgg_classifier", "--no-full-scale", "--jobs", "2", "--out", out, "-q",
                                          "--secret", "round11")])
    results = {}
    for path in (out / "students").glob("*/result.json"):
        document = json.loads(path.read_text())
        results[document["student"]] = document
    return code, results, out


def _messages(result: dict) -> str:
    return " ".join(c["message"] for c in result["checks"])


def _findings(result: dict) -> set[str]:
    return {d["id"] for d in result["diagnoses"]}


def test_the_batch_finishes_and_leaves_nothing_behind(graded):
    code, results, _ = graded
    assert code == 0
    assert set(results) == set(STUDENTS) | {"fifo", "loop-a"}
    assert results["right"]["score"] == results["right"]["max_score"]
    assert results["fifo"]["error"]["kind"] == results["loop-a"]["error"]["kind"] == "unsupported-file-type"
    assert not leftovers()


@pytest.mark.parametrize("name", ["nested-argument", "constant-repr-loops", "constant-repr-exits"])
def test_a_helper_that_prints_is_named_without_running_the_students_code(graded, name):
    result = graded[1][name]
    assert result["status"] == "graded" and result["error"] is None  # the repr's os._exit never ran
    assert "it returns the result of show(), which calls print" in _messages(result)


@pytest.mark.parametrize("name", ["globals-key-loops", "many-returns"])
def test_a_slow_walk_never_costs_the_signature(graded, name):
    result = graded[1][name]
    assert result["status"] == "graded"
    assert "parameters-reordered" in _findings(result)


def test_only_identifiers_are_named(graded):
    _, results, out = graded
    assert ("it returns the result of b(), which returns that of a(), which returns that of show(), which calls "
            "print") in _messages(results["helpers-recursive"])
    text = _messages(results["helper-named-markup"])
    assert "it returns the result of a function, which returns that of show(), which calls print" in text
    assert "Full marks" not in text
    assert "<b>" not in (out / "students" / "helper-named-markup" / "report.html").read_text()
