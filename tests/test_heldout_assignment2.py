"""The fc-layers assignment, second held-out round (helper-80): four findings left alone by the first, and what
twenty more blind notebooks showed.

* to_channels_last's statement said fc6's weight is "mapped read-only"; the child maps it copy-on-write (writes stay
  private and cost memory, and still count as changing the input). The statement says so now.
* dense_scores written with ``range(max(H - k, 1))`` (a guard so a map exactly k high keeps its window) was called
  wrong-shape only; it is grid-off-by-one, and the evidence says where the guard kept the window.
* dense_scores adding the bias to a whole row inside the column loop (the bias counted 4, 3, 2, 1 times along a
  row) had no finding; it is bias-added-twice, with the counts.
* A function that reads a global which only a later cell defines works in the student's kernel; graded once from
  the top it raised NameError with no word of why (or, for a cell tagged skip-execution, with the false "no cell
  defines it") when that cell stopped before the line, was skipped, or put it under the self-check's guard.
* The similarity report dropped as a common passage every run found in more than 10% of the class, so a solution
  copied by most of the class hid itself: 13 of 20 students handing in one solution had no flagged pair.

The notebooks are graded in one module-scoped session without the large case; the similarity classes are .py files
compared in process (no student code runs there).
"""
from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from conftest import ROOT
import exercise_helpers as helpers
from grader import assignment as assignment_mod
from grader import similarity
from grader.similarity import Settings, Source
from grader.similarity_report import base_code

NAME = "fc-layers"
IDS = ("linear", "to_channels_last", "dense_scores", "gap_head")
NOTEBOOK = ROOT / "notebooks" / f"{NAME}.ipynb"

GUARDED_GRID = '''import numpy as np


def dense_scores(fmap, weight, bias, k):
    H, W, C = fmap.shape
    rows, cols = max(H - k, 1), max(W - k, 1)   # at least one window
    out = np.zeros((rows, cols, weight.shape[0]))
    for i in range(rows):
        for j in range(cols):
            out[i, j] = weight @ fmap[i:i + k, j:j + k].reshape(-1) + bias
    return out
'''
BIAS_PER_ROW = '''import numpy as np


def dense_scores(fmap, weight, bias, k):
    H, W, C = fmap.shape
    out = np.zeros((H - k + 1, W - k + 1, weight.shape[0]))
    for i in range(H - k + 1):
        for j in range(W - k + 1):
            out[i, j] = weight @ fmap[i:i + k, j:j + k].reshape(-1)
            out[i] += bias
    return out
'''
SCALED = '''import numpy as np


def linear(x, weight, bias=None):
    y = np.asarray(x) @ weight.T * SCALE
    return y if bias is None else y + bias
'''
LATER = {  # the cell after linear's, and its tags
    "later-file": ("data = np.load('my_weights.npz')\nSCALE = 1.0\nprint(linear(data['x'], data['W']))", []),
    "later-skipped": ("SCALE = 1.0\nprint(linear(np.ones((2, 3)), np.ones((4, 3))))", ["skip-execution"]),
    "later-guarded": ("import os\nif not os.environ.get('GRADER_PARENT'):\n    SCALE = 1.0\n", []),
    "later-ran": ("SCALE = 1.0\nprint(linear(np.ones((2, 3)), np.ones((4, 3))))", []),
}


def solution(exercise_id: str) -> str:
    return (ROOT / "solutions" / f"{exercise_id}.py").read_text(encoding="utf-8")


def notebook(tmp: Path, name: str, later: tuple[str, list[str]] | None = None, **sources: str) -> Path:
    """The generated notebook, each solution cell the reference or the source given, and ``later`` (a cell's
    source and tags) inserted after linear's solution cell."""
    nb = nbformat.read(NOTEBOOK, as_version=4)
    cells = []
    for cell in nb.cells:
        cells.append(cell)
        if cell.cell_type == "code" and cell.id.endswith("-solution"):
            exercise_id = cell.id.removesuffix("-solution")
            cell.source = sources.get(exercise_id, solution(exercise_id))
            if exercise_id == "linear" and later is not None:
                extra = nbformat.v4.new_code_cell(later[0])
                extra.metadata["tags"] = later[1]
                cells.append(extra)
    nb.cells = cells
    path = tmp / f"{name}.ipynb"
    nbformat.write(nb, path)
    return path


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("heldout-assignment2")
    students = {"guarded-grid": notebook(tmp, "guarded-grid", dense_scores=GUARDED_GRID),
                "bias-per-row": notebook(tmp, "bias-per-row", dense_scores=BIAS_PER_ROW)}
    students.update({name: notebook(tmp, name, later, linear=SCALED) for name, later in LATER.items()})
    with helpers.assignment_session(NAME) as grading:
        return {name: grading.grade(path, name) for name, path in students.items()}


def section(result, exercise_id: str):
    return next(s for s in result.sections if s.exercise == exercise_id)


def others_full(result, exercise_id: str) -> bool:
    return all(s.score == s.max_score for s in result.sections if s.exercise != exercise_id)


# -- the statement -----------------------------------------------------------------------------------------------
def test_the_statement_says_how_fc6_s_weight_is_mapped():
    statement = (ROOT / "exercises" / "to_channels_last" / "statement.md").read_text(encoding="utf-8")
    assert "mapped read-only" not in statement
    assert "copy-on-write" in statement and "still counts as changing `weight`" in statement
    cells = [c.source for c in nbformat.read(NOTEBOOK, as_version=4).cells
             if c.cell_type == "markdown" and "fc6 itself" in c.source]
    assert cells and all("copy-on-write" in text for text in cells)  # the notebook says it too


# -- dense_scores ------------------------------------------------------------------------------------------------
def test_a_guarded_short_loop_is_named_an_off_by_one(graded):
    part = section(graded["guarded-grid"], "dense_scores")
    found = {d.id: d.evidence for d in part.diagnoses}
    assert set(found) == {"grid-off-by-one"}, found
    assert "range(max(H - k, 1))" in found["grid-off-by-one"] and "the case 'whole'" in found["grid-off-by-one"]
    assert part.score < part.max_score and others_full(graded["guarded-grid"], "dense_scores")


def test_a_bias_added_to_a_whole_row_in_the_loop_is_named_with_its_counts(graded):
    part = section(graded["bias-per-row"], "dense_scores")
    found = {d.id: d.evidence for d in part.diagnoses}
    assert set(found) == {"bias-added-twice"}, found
    # the case whose counts vary most is shown: a wider grid's row counts down from its width
    assert "along row 0 of the grid 6, 5, 4, 3, 2, 1" in found["bias-added-twice"], found


# -- a name only a later cell defines ------------------------------------------------------------------------------
@pytest.mark.parametrize("student, why", [
    ("later-file", "that cell raised FileNotFoundError"),
    ("later-skipped", "tagged 'skip-execution', so it is not run"),
    ("later-guarded", "inside 'if not os.environ.get(\"GRADER_PARENT\")'"),
])
def test_a_name_only_a_cell_that_did_not_run_defines_is_explained(graded, student, why):
    part = section(graded[student], "linear")
    notes = [w for w in part.warnings if "needs 'SCALE'" in w]
    assert len(notes) == 1, part.warnings
    assert "which is defined only at" in notes[0] and why in notes[0], notes[0]
    assert "no cell of the notebook defines it" not in " ".join(part.warnings)
    assert part.score < part.max_score and others_full(graded[student], "linear")


def test_a_later_cell_that_ran_defines_the_name_for_the_grader_too(graded):
    result = graded["later-ran"]
    assert result.score == result.max_score
    assert not any("SCALE" in w for s in result.sections for w in s.warnings)


# -- similarity ----------------------------------------------------------------------------------------------------
OWN = {  # short, honest styles: each student takes one per function by its number, so few pairs coincide
    "linear": ["y = x @ weight.T\n    return y if bias is None else y + bias",
               "y = np.matmul(x, weight.T)\n    if bias is not None:\n        y = y + bias\n    return y",
               "y = np.einsum('...i,oi->...o', x, weight)\n    return y + (0 if bias is None else bias)",
               "y = np.tensordot(x, weight, axes=([-1], [1]))\n    if bias is None:\n        return y\n    return y + bias"],
    "to_channels_last": ["o = weight.shape[0]\n    return weight.reshape(o, C, H, W).transpose(0, 2, 3, 1).reshape(o, -1)",
                         "p = np.arange(C * H * W).reshape(C, H, W).transpose(1, 2, 0).ravel()\n    return weight[:, p]",
                         "t = np.moveaxis(weight.reshape(-1, C, H, W), 1, -1)\n    return np.ascontiguousarray(t).reshape(len(weight), -1)"],
    "dense_scores": ["from numpy.lib.stride_tricks import sliding_window_view as swv\n    v = swv(fmap, (k, k), axis=(0, 1))\n"
                     "    v = v.transpose(0, 1, 3, 4, 2).reshape(v.shape[0], v.shape[1], -1)\n    return v @ weight.T + bias",
                     "H, W, C = fmap.shape\n    r = np.zeros((H - k + 1, W - k + 1, len(bias)))\n    for i in range(H - k + 1):\n"
                     "        for j in range(W - k + 1):\n            r[i, j] = weight @ fmap[i:i + k, j:j + k].ravel() + bias\n"
                     "    return r"],
    "gap_head": ["return V @ fmap.mean(axis=(0, 1)) + c, fmap @ V.T + c",
                 "m = np.einsum('hwc,kc->hwk', fmap, V) + c\n    return m.mean(axis=(0, 1)), m"],
}
COPIED = '''import numpy as np


def _rows(a):
    lead = a.shape[:-1]
    return a.reshape(-1, a.shape[-1]), lead


def linear(x, weight, bias=None):
    flat, lead = _rows(np.asarray(x, dtype=np.float64))
    acc = np.zeros((flat.shape[0], weight.shape[0]))
    for o in range(weight.shape[0]):
        acc[:, o] = (flat * weight[o]).sum(axis=1)
    if bias is not None:
        acc = acc + bias.reshape(1, -1)
    return acc.reshape(*lead, weight.shape[0])


def _order(C, H, W):
    idx = np.zeros(C * H * W, dtype=np.int64)
    n = 0
    for h in range(H):
        for w in range(W):
            for c in range(C):
                idx[n] = c * H * W + h * W + w
                n += 1
    return idx


def to_channels_last(weight, C, H, W):
    return np.take(weight, _order(C, H, W), axis=1)


def dense_scores(fmap, weight, bias, k):
    H, W, C = fmap.shape
    cols = np.zeros(((H - k + 1) * (W - k + 1), k * k * C))
    n = 0
    for i in range(H - k + 1):
        for j in range(W - k + 1):
            cols[n] = fmap[i:i + k, j:j + k, :].ravel()
            n += 1
    return (cols @ weight.T + bias[np.newaxis, :]).reshape(H - k + 1, W - k + 1, weight.shape[0])


def gap_head(fmap, V, c):
    h, w, C = fmap.shape
    pooled = np.zeros(C)
    for i in range(h):
        for j in range(w):
            pooled += fmap[i, j]
    pooled /= h * w
    return V.dot(pooled) + c, np.stack([fmap[i] @ V.T for i in range(h)]) + c
'''
RENAMES = [{}, {"acc": "total", "flat": "rows2d", "idx": "perm", "cols": "patches"},
           {"acc": "res", "lead": "front", "pooled": "gap", "cols": "windows", "n": "count"}]
HEADERS = {"linear": "def linear(x, weight, bias=None):", "to_channels_last": "def to_channels_last(weight, C, H, W):",
           "dense_scores": "def dense_scores(fmap, weight, bias, k):", "gap_head": "def gap_head(fmap, V, c):"}


def own(n: int) -> str:
    parts = ["import numpy as np"]
    for number, (exercise_id, styles) in enumerate(OWN.items()):
        style = styles[(n // (len(styles) ** number)) % len(styles)] if number else styles[n % len(styles)]
        parts.append(f"{HEADERS[exercise_id]}\n    # student {n}\n    {style}\n")
    return "\n\n".join(parts)


def copied(variant: int) -> str:
    text = COPIED
    for old, new in RENAMES[variant % len(RENAMES)].items():
        text = text.replace(old, new)
    return text


def flagged_pairs(folder: Path, files: dict[str, str]) -> set[frozenset[str]]:
    folder.mkdir()
    for name, text in files.items():
        (folder / f"{name}.py").write_text(text, encoding="utf-8")
    fc = assignment_mod.load_assignment(assignment_mod.read_course()[NAME])
    given = [code for exercise in fc.exercises for code in base_code(exercise)]
    sources = [Source(p.stem, p, p.stem) for p in sorted(folder.glob("*.py"))]
    analysis = similarity.analyse(sources, given, Settings())
    return {frozenset((analysis.documents[p.a].source.student, analysis.documents[p.b].source.student))
            for p in analysis.pairs}


def test_three_of_twenty_who_copied_one_solution_are_named(tmp_path):
    copiers = {"s03", "s11", "s17"}
    files = {f"s{n:02d}": copied(n) if f"s{n:02d}" in copiers else own(n) for n in range(20)}
    pairs = flagged_pairs(tmp_path / "class", files)
    with_copier = {pair for pair in pairs if pair & copiers}
    assert with_copier == {frozenset(p) for p in (("s03", "s11"), ("s03", "s17"), ("s11", "s17"))}, pairs


def test_a_solution_most_of_the_class_copied_is_not_a_common_passage(tmp_path):
    leaked = {f"s{n:02d}" for n in range(13)}
    files = {f"s{n:02d}": copied(n) if f"s{n:02d}" in leaked else own(n) for n in range(20)}
    pairs = flagged_pairs(tmp_path / "class", files)
    inside = {pair for pair in pairs if pair <= leaked}
    assert len(inside) == 13 * 12 // 2, sorted(map(sorted, pairs))


def test_code_the_whole_class_shares_makes_no_pair_similar(tmp_path):
    """The starter kept by everyone is base code; a long helper every student pasted (handed out with the
    assignment, not in the starter) is held by the whole class, so it is given code too: only the copiers pair."""
    handout = COPIED.split("def linear")[0].replace("_rows", "_handout_rows") + "\n" + COPIED.split("def gap_head")[0][
        COPIED.index("def _order"):].replace("_order", "_handout_order")
    copiers = {"s05", "s09", "s14"}
    files = {f"s{n:02d}": handout + "\n\n" + (copied(n) if f"s{n:02d}" in copiers else own(n)) for n in range(20)}
    pairs = flagged_pairs(tmp_path / "class", files)
    assert {pair for pair in pairs if pair & copiers} == {
        frozenset(p) for p in (("s05", "s09"), ("s05", "s14"), ("s09", "s14"))}, pairs
    assert not {pair for pair in pairs if not pair & copiers}, pairs
