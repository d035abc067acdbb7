"""Real notebooks, round seven: what Colab (Python 3.12), JupyterLab 4.3, Notebook 7 and VS Code save today, graded
by a Python 3.11 grader. The files under submissions/notebooks-round7/ are described in its README; they are graded
in one batch (about 2 s), and the f-string rewrite is checked on its own on tricky texts (no grading).

What the round tried: Colab's metadata, widget state, ``executionInfo``, ``outputId``, PNG, HTML and Colab display
outputs; JupyterLab's ``execution`` timing, hidden sources, ``collapsed``, papermill and Jupyter Book tags; VS Code's
``vscode`` metadata; saved error outputs and ``execution_count: null`` everywhere; a Colab .py export; and the 3.12
code a student tests there: PEP 701 f-strings (quotes reused in a field, backslashes, comments, nested f-strings,
debug fields), PEP 695's ``type`` and ``def f[T]``, ``itertools.batched`` and ``typing.override``. The metadata and
outputs cost nothing. What it found:

* A right head in a cell holding an f-string that reuses its quotes (``f"{", ".join(names)}"``,
  ``f"{CONFIG["hidden"]}"``), the commonest 3.12 construct, scored 0/17: 3.11 cannot compile the cell. Such
  f-strings now run with the inner quotes switched (``grader/fstrings.py``) when that is provably the same text,
  with a note naming the line and saying it is 3.12 syntax; the rest keep their syntax error.
* 3.11 reports ``{"\\n".join(rows)}`` as "unexpected character after line continuation character" and ``{'}'}`` as
  a mismatched parenthesis, and the sentence did not say that this is 3.12 syntax (Colab's notebooks carry no
  Python version to say it from). ``pysource.newer_syntax`` now names them.
* A test cell failing on ``from itertools import batched`` got only "cannot import name 'batched' from 'itertools'
  (unknown location)"; its warning now says the name is new in 3.12 (``incidents.cell_error``).

Left as they are (0/17, the sentence names the 3.12 construct): a ``type`` statement, a backslash or a comment in a
field, a ``{d["k"]=}`` debug field (3.12 prints its text, quotes included) and ``typing.override`` in the function's
cell.
"""
from __future__ import annotations

import pytest

import exercise_helpers as helpers
from conftest import SUBMISSIONS, diagnosis_ids, grade_students
from grader import fstrings

FOLDER = SUBMISSIONS / "notebooks-round7"
NAMES = sorted(p.stem for p in FOLDER.iterdir() if p.suffix in (".ipynb", ".py"))
PLT = "The module 'matplotlib.pyplot' is not available"
SAID = "reuse their own quotes inside {...} (f\"{d[\"k\"]}\"), which is Python 3.12 syntax; the grader runs Python 3.11"
F312 = "an f-string whose {...} holds its own quotes, a backslash or a comment is Python 3.12 syntax"


def requoted(where: str) -> str:
    return f"The f-strings at {where} {SAID}"


def cell(n: int, line: int, of: int | None = None) -> str:
    return f"code cell {n} (cell {of or n} of the notebook), line {line}"


#: right code: full marks and exactly these warnings (a substring each, in order)
FULL = {
    "colab-join-in-def-cell": [requoted(f"{cell(3, 8, 4)} and {cell(4, 7, 5)}"), "'!pip install -q numpy'", PLT],
    "colab-dict-key-in-def-cell": [requoted(cell(2, 4)), PLT],
    "colab-time-magic-def-cell": [requoted(cell(2, 7)), PLT],
    "lab43-papermill-hidden": [requoted(cell(5, 7)), PLT],
    "lab43-errors-and-null-counts": [requoted(cell(4, 1)), PLT],
    "vscode-fstring-debug-in-def": [requoted(cell(2, 9)), PLT],
    "colab-export": [requoted("line 29"), "'!pip install -q numpy'", PLT],
    "py-script-join": [requoted("line 13")],
    "py-percent-time-magic": [requoted("line 6")],
    "colab-backslash-in-field": [PLT, "line 8: unexpected character after line continuation character -> 'print(f\""
                                      "logits:\\n{\"\\n\".join(rows)}\")' (" + F312],
    "colab-format-specs-in-test": [PLT, "'pandas'", "line 10: closing parenthesis '}' does not match opening "
                                                    "parenthesis '('"],
    "colab-nested-same-quote-fstring": [PLT, "line 7: f-string: expecting '}'"],
    "vscode-comment-in-field": [PLT, "(the notebook last ran on Python 3.12; the grader runs Python 3.11"],
    "notebook7-generic-helper": [PLT, "(def f[T]) is Python 3.12 syntax"],
    "colab-errors-saved-counts-null": ["raised NameError: \"name 'feats' is not defined\"", "'google.colab'", PLT],
    "colab-itertools-batched-test": ["(line 7 of code cell 2). itertools.batched is new in Python 3.12; the grader "
                                     "runs Python 3.11, which lacks it", PLT],
}
#: 3.12 code in the function's cell that no rewrite keeps the same: the error's kind and a substring of its sentence
ERRORS = {
    "colab-backslash-in-def-cell": ("syntax-error", "line 10: f-string expression part cannot include a backslash"),
    "colab-debug-field-in-def-cell": ("syntax-error", f"line 5: f-string: unmatched '[' -> 'print(f\"{{shapes[\"W1\"]"
                                                      f"=}}\")' ({F312}"),
    "colab-type-alias-in-def-cell": ("syntax-error", "a 'type' statement is Python 3.12 syntax"),
    "colab-typing-override-class": ("definition-failed", "typing.override is new in Python 3.12"),
}


@pytest.fixture(scope="module")
def results(session):
    return grade_students(FOLDER, session, NAMES)


def test_every_file_is_described():
    readme = (FOLDER / "README.md").read_text(encoding="utf-8")
    assert [n for n in NAMES if f"`{n}." not in readme] == []
    assert set(NAMES) == {*FULL, *ERRORS, "colab-wrong-head-fstring"}


def test_each_notebook_gets_its_score_and_its_sentences(results):
    """One test for the batch, so that a failure lists every file that went wrong, not the first."""
    assert helpers.class_faults(results, FULL, ERRORS) == {}


def test_a_wrong_head_behind_a_rewritten_fstring_is_still_diagnosed(results):
    wrong = results["colab-wrong-head-fstring"]
    assert (wrong.score, diagnosis_ids(wrong)) == (8, {"missing-relu"})
    assert wrong.warnings[0].startswith(requoted(cell(1, 10)))


#: (3.12 source, its 3.11 form): each pair is the same code, character for character but the quotes switched
REWRITTEN = [
    ('f"{d["k"]}"', "f\"{d['k']}\""),
    ("f'{d['k']}'", "f'{d[\"k\"]}'"),
    ('f"{", ".join(names)}"', "f\"{', '.join(names)}\""),
    ('f"{d["k"]!r:>{w}}"', "f\"{d['k']!r:>{w}}\""),  # a conversion and a spec with a field of its own
    ('f"{x:{"<"}10}"', "f\"{x:{'<'}10}\""),  # a string in the spec's field
    ('f"{x=} {d["k"]}"', "f\"{x=} {d['k']}\""),  # a debug field whose text does not change
    ('f"{{literal}} {d["k"]} }}"', "f\"{{literal}} {d['k']} }}\""),  # escaped braces
    ('f"{ {"a": 1}["a"] }"', "f\"{ {'a': 1}['a'] }\""),  # a dict display inside the field
    ('f"{f"{x:.3f}"}"', "f\"{f'{x:.3f}'}\""),  # a nested f-string, itself without quotes
    ('f"{"""tri"""}"', "f\"{'''tri'''}\""),
    ('f"{len("")}"', "f\"{len('')}\""),
    ('f"{x if d["a"] != 0 else "y"}"', "f\"{x if d['a'] != 0 else 'y'}\""),
    ('f"{x:=5} {d["k"]}"', "f\"{x:=5} {d['k']}\""),  # ':=' opens a spec, as in 3.12
    ('rf"\\d{d["k"]}"', "rf\"\\d{d['k']}\""),
    ('f"\\N{BULLET} {d["k"]}"', "f\"\\N{BULLET} {d['k']}\""),  # a character's name, not a field
    ('f"{b"x"!r}"', "f\"{b'x'!r}\""),
    ('# f"{d["k"]}" stays\nf"{d["k"]}"', "# f\"{d[\"k\"]}\" stays\nf\"{d['k']}\""),  # a comment is not code
]
#: 3.12 texts the rewrite leaves alone: it cannot prove them the same in 3.11, or 3.11 already reads them
REFUSED = [
    'f"{d["k"]=}"',  # 3.12 prints the field's text, quotes and all
    'f"{d["it\'s"]}"', 'f"{d["a\\"b"]}"', 'f"{"\\n".join(x)}"',  # the inner text holds a quote or a backslash
    'f"{f"{f"{x}"}"}"', 'f"{f"{d["k"]}"}"',  # three levels
    'f"{d["k"]  # note\n}"',  # a comment in the field
    'f"""{d["k"]}"""', 'f"{x!r:>{w}}"',  # nothing to switch
    'f"{x:{"<"}{{"}"', 'f"\\{d["k"]}"', 'f"{d["k"]}\nrest',  # a spec's '{{', a brace after a backslash, unclosed
    "f\"{d['k']}\" + '{\"a\"}'",  # a plain string holding braces
    'f"{' * 5000 + "x" + '}"' * 5000,  # nesting past what 3.11 can write: refused, not a RecursionError
]


@pytest.mark.parametrize("source, expected", REWRITTEN)
def test_fstrings_reusing_their_quotes_are_rewritten_exactly(source, expected):
    rewritten = fstrings.older(source)
    assert rewritten == expected and len(rewritten) == len(source)
    compile(rewritten, "<test>", "exec", dont_inherit=True)  # what 3.11 now reads


def test_the_rewritten_fstrings_give_the_3_12_values():
    """The values 3.12 gives the sources above (by PEP 701's rules), from their rewrites run on 3.11."""
    scope = {"d": {"k": "K", "a": 1}, "names": ["W1", "b1"], "w": 6, "x": 2.5}
    assert [eval(fstrings.older(s), scope) for s, _ in REWRITTEN[:6]] == [
        "K", "K", "W1, b1", "   'K'", "2.5       ", "x=2.5 K"]
    assert eval(fstrings.older('f"{{literal}} {d["k"]} }}"'), scope) == "{literal} K }"


@pytest.mark.parametrize("source", REFUSED, ids=range(len(REFUSED)))
def test_fstrings_it_cannot_prove_the_same_are_left_alone(source):
    assert fstrings.older(source) is None
