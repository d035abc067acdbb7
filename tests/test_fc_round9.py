"""The fully-connected-layer exercises, round nine: mistakes beyond the catalog that a student who half-understands
fully connected layers makes, each graded as one section of an fc-layers assignment notebook (one mistake per
exercise per notebook, the other sections right), all the notebooks in one batch.

Named now (they lost points with no name, or only a generic one):

* linear: the weight transposed on the batch path only, ``x @ weight`` for a single vector (weight-not-transposed;
  was raises-error); ``np.zeros(weight.shape[1])`` put in for a missing bias, fan-in zeros where fan-out belongs
  (bias-none-refused; was raises-error); ``weight @ x.T + bias[:, None]`` returned as (out, N), the samples made
  columns and never turned back (column-vector-formula; was wrong-shape and raises-error); x flattened, its samples
  averaged or summed into one vector, or x[0] kept (only-vector-input, a new entry; was wrong-shape and
  raises-error); ``y[0] += bias``, the bias given to the first sample only (missing-bias; was nothing);
* to_channels_last: ``weight.reshape(C, H, W)``, code for one row (output-axis-dropped, new; was raises-error); a
  permutation kept in a global and rebuilt only when C*H*W changes (stale-result; was called an axis order);
* dense_scores: ``fmap[:k, :k]`` read at every position (window-not-moved, new), ``weight[0]`` for every output
  (weight-row-fixed, new), a shortcut returning one position when k == H on a wider map (square-map-assumed; was
  wrong-shape), each window centred before the product (input-normalised, new); all were unnamed but that one;
* gap_head: a class-map loop over range(h) for the columns too (square-map-assumed, new), a pooling loop over
  range(h - 1) (partial-pooling), ``fmap.mean()`` with no axis (channel-mean); all three were unnamed.

The rest were named before and are kept here so that they stay so. Left alone: a bias divided by the number of
samples, a bias cast to int, and pooled features blended with the previous call's (a running mean in a global):
each is contrived or needs a fit across calls that no other mistake shares (see the round's report).
"""
from __future__ import annotations

import copy
import textwrap

import nbformat
import numpy as np
import pytest

import exercise_helpers as helpers
from conftest import ROOT, SUBMISSIONS, grade_students
from grader import exercise as exercise_mod
from grader.authoring import Case

FC_IDS = ("linear", "to_channels_last", "dense_scores", "gap_head")
RIGHT = {
    "linear": """
        def linear(x, weight, bias=None):
            y = x @ weight.T
            return y if bias is None else y + bias
        """,
    "to_channels_last": """
        def to_channels_last(weight, C, H, W):
            out = weight.shape[0]
            return weight.reshape(out, C, H, W).transpose(0, 2, 3, 1).reshape(out, -1)
        """,
    "dense_scores": """
        def dense_scores(fmap, weight, bias, k):
            win = np.lib.stride_tricks.sliding_window_view(fmap, (k, k), axis=(0, 1)).transpose(0, 1, 3, 4, 2)
            return win.reshape(win.shape[0], win.shape[1], -1) @ weight.T + bias
        """,
    "gap_head": """
        def gap_head(fmap, V, c):
            return V @ fmap.mean(axis=(0, 1)) + c, fmap @ V.T + c
        """,
}

#: the code of a catalog's buggy file, by its stem (the per-exercise tests grade these files alone too)
BUGGY = "buggy:"
#: exercise -> [(what the student did, the code, the findings the section must get: exactly these)]
MISTAKES: dict[str, list[tuple[str, str, set[str]]]] = {
    "linear": [
        ("column per vector, never squeezed", """
            def linear(x, weight, bias=None):
                y = weight @ x[..., :, None]
                return y if bias is None else y + bias[:, None]
            """, {"wrong-shape"}),
        ("samples as columns", BUGGY + "column-vector-formula--samples-as-columns", {"column-vector-formula"}),
        ("batch averaged", BUGGY + "only-vector-input--batch-mean", {"only-vector-input"}),
        ("vector path untransposed", BUGGY + "weight-not-transposed--vector-path", {"weight-not-transposed"}),
        ("fan-in zeros for a missing bias", BUGGY + "bias-none-refused--in-zeros", {"bias-none-refused"}),
        ("x flattened", BUGGY + "only-vector-input", {"only-vector-input"}),
        ("bias on the first sample only", BUGGY + "missing-bias--first-sample", {"missing-bias"}),
        ("a tuple returned", """
            def linear(x, weight, bias=None):
                y = x @ weight.T
                return (y if bias is None else y + bias), weight.shape
            """, {"not-an-array", "wrong-shape"}),
        ("batch summed", """
            def linear(x, weight, bias=None):
                if x.ndim > 1:
                    x = x.sum(axis=0)
                y = x @ weight.T
                return y if bias is None else y + bias
            """, {"only-vector-input"}),
        ("x normalised in place", """
            def linear(x, weight, bias=None):
                x /= np.linalg.norm(x, axis=-1, keepdims=True)
                y = x @ weight.T
                return y if bias is None else y + bias
            """, {"mutates-input", "input-normalised"}),
    ],
    "to_channels_last": [
        ("read as a Keras (in, out) kernel", """
            def to_channels_last(weight, C, H, W):
                return weight.reshape(C, H, W, -1).transpose(1, 2, 0, 3).reshape(-1, weight.shape[0]).T
            """, {"rows-permuted"}),
        ("permutation kept by its size", """
            _perm = None

            def to_channels_last(weight, C, H, W):
                global _perm
                if _perm is None or _perm.size != C * H * W:
                    _perm = np.arange(C * H * W).reshape(C, H, W).transpose(1, 2, 0).ravel()
                return weight[:, _perm]
            """, {"stale-result"}),
        ("code for one row", BUGGY + "output-axis-dropped", {"output-axis-dropped"}),
        ("final flatten forgotten", """
            def to_channels_last(weight, C, H, W):
                return weight.reshape(weight.shape[0], C, H * W).transpose(0, 2, 1)
            """, {"wrong-shape"}),
        ("reordered in place", """
            def to_channels_last(weight, C, H, W):
                perm = np.arange(C * H * W).reshape(C, H, W).transpose(1, 2, 0).ravel()
                weight[:] = weight[:, perm]
                return weight
            """, {"mutates-input"}),
        ("channel blocks gathered by stride", """
            def to_channels_last(weight, C, H, W):
                res = np.empty_like(weight)
                for c in range(C):
                    res[:, c * H * W:(c + 1) * H * W] = weight[:, c::C]
                return res
            """, {"inverse-permutation"}),
        ("a row's (C, H, W) block transposed with .T", """
            def to_channels_last(weight, C, H, W):
                res = np.empty_like(weight)
                for o in range(weight.shape[0]):
                    res[o] = weight[o].reshape(C, H, W).T.ravel()
                return res
            """, {"axis-order"}),
    ],
    "dense_scores": [
        ("the first window everywhere", BUGGY + "window-not-moved", {"window-not-moved"}),
        ("a (k, k, C) window view's axis kept", """
            def dense_scores(fmap, weight, bias, k):
                win = np.lib.stride_tricks.sliding_window_view(fmap, (k, k, fmap.shape[2]))
                return win.reshape(win.shape[0], win.shape[1], win.shape[2], -1) @ weight.T + bias
            """, {"wrong-shape"}),
        ("softmax over the scores", """
            def dense_scores(fmap, weight, bias, k):
                win = np.lib.stride_tricks.sliding_window_view(fmap, (k, k), axis=(0, 1)).transpose(0, 1, 3, 4, 2)
                s = win.reshape(win.shape[0], win.shape[1], -1) @ weight.T + bias
                e = np.exp(s - s.max(axis=-1, keepdims=True))
                return e / e.sum(axis=-1, keepdims=True)
            """, {"activation-applied"}),
        ("weight[0] for every output", BUGGY + "weight-row-fixed", {"weight-row-fixed"}),
        ("a shortcut for k == H", BUGGY + "square-map-assumed--whole-map-shortcut", {"square-map-assumed"}),
        ("a batch axis assumed", """
            def dense_scores(fmap, weight, bias, k):
                x = fmap[None]
                N, H, W, C = x.shape
                out = np.zeros((N, H - k + 1, W - k + 1, weight.shape[0]))
                for i in range(H - k + 1):
                    for j in range(W - k + 1):
                        out[:, i, j] = x[:, i:i + k, j:j + k].reshape(N, -1) @ weight.T + bias
                return out
            """, {"wrong-shape"}),
        ("an int buffer", """
            def dense_scores(fmap, weight, bias, k):
                H, W, C = fmap.shape
                out = np.zeros((H - k + 1, W - k + 1, weight.shape[0]), dtype=int)
                for i in range(H - k + 1):
                    for j in range(W - k + 1):
                        out[i, j] = weight @ fmap[i:i + k, j:j + k].ravel() + bias
                return out
            """, {"wrong-dtype"}),
        ("windows centred", BUGGY + "input-normalised", {"input-normalised"}),
        ("the bias times k*k", """
            def dense_scores(fmap, weight, bias, k):
                win = np.lib.stride_tricks.sliding_window_view(fmap, (k, k), axis=(0, 1)).transpose(0, 1, 3, 4, 2)
                return win.reshape(win.shape[0], win.shape[1], -1) @ weight.T + bias * k * k
            """, {"bias-added-twice"}),
    ],
    "gap_head": [
        ("class map over range(h) twice", BUGGY + "square-map-assumed", {"square-map-assumed"}),
        ("class map as columns, never squeezed", """
            def gap_head(fmap, V, c):
                return V @ fmap.mean(axis=(0, 1)) + c, V @ fmap[..., None] + c[:, None]
            """, {"wrong-shape"}),
        ("the bias shared out over the positions", """
            def gap_head(fmap, V, c):
                h, w, _ = fmap.shape
                return V @ fmap.mean(axis=(0, 1)) + c, fmap @ V.T + c / (h * w)
            """, {"bias-count"}),
        ("pooling loop one row short", BUGGY + "partial-pooling--last-row-skipped", {"partial-pooling"}),
        ("pooled into an int buffer", """
            def gap_head(fmap, V, c):
                p = np.zeros(fmap.shape[2], dtype=int)
                for ch in range(fmap.shape[2]):
                    p[ch] = fmap[:, :, ch].mean()
                return V @ p + c, fmap @ V.T + c
            """, {"floor-division"}),
        ("class map reshaped (w, h, K)", """
            def gap_head(fmap, V, c):
                h, w, C = fmap.shape
                scores = fmap.reshape(-1, C) @ V.T + c
                return scores.mean(axis=0), scores.reshape(w, h, -1)
            """, {"wrong-shape"}),
        ("an object array of the two", """
            def gap_head(fmap, V, c):
                return np.array([V @ fmap.mean(axis=(0, 1)) + c, fmap @ V.T + c], dtype=object)
            """, {"not-a-pair", "wrong-dtype"}),
        ("mean over every axis", BUGGY + "channel-mean--every-axis", {"channel-mean"}),
        ("logits from the first row", """
            def gap_head(fmap, V, c):
                cam = fmap @ V.T + c
                return cam.mean(axis=1)[0], cam
            """, {"partial-pooling"}),
        ("fmap centred in place", """
            def gap_head(fmap, V, c):
                logits = V @ fmap.mean(axis=(0, 1)) + c
                fmap -= fmap.mean(axis=(0, 1))
                return logits, fmap @ V.T + logits
            """, {"mutates-input"}),
        ("V normalised in place", """
            def gap_head(fmap, V, c):
                V /= np.linalg.norm(V, axis=1, keepdims=True)
                return V @ fmap.mean(axis=(0, 1)) + c, fmap @ V.T + c
            """, {"mutates-input", "weight-normalised"}),
        ("sum divided by h + w", """
            def gap_head(fmap, V, c):
                h, w, C = fmap.shape
                cam = fmap @ V.T
                return cam.sum(axis=(0, 1)) / (h + w) + c, cam + c
            """, {"wrong-divisor"}),
    ],
}
ROWS = max(len(v) for v in MISTAKES.values())
#: student names are the notebooks' stems, which seed their hidden cases; the kept permutation (second in its list)
#: shows only when two consecutive cases have as many columns on different maps, which nb01's cases do
NAMES = [f"nb{n:02d}" for n in range(ROWS)]
CELLS = [(name, e, MISTAKES[e][n]) for n, name in enumerate(NAMES) for e in FC_IDS if n < len(MISTAKES[e])]


def _cell(exercise_id: str, code: str) -> str:
    if code.startswith(BUGGY):
        return (SUBMISSIONS / exercise_id / "buggy" / f"{code[len(BUGGY):]}.py").read_text(encoding="utf-8")
    return "import numpy as np\n\n" + textwrap.dedent(code).strip() + "\n"


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict:
    """Every notebook graded as the fc-layers assignment in one batch: each section by (student, exercise)."""
    folder = tmp_path_factory.mktemp("fc-round9")
    template = nbformat.read(str(ROOT / "notebooks" / "fc-layers.ipynb"), as_version=4)
    for n, name in enumerate(NAMES):
        nb = copy.deepcopy(template)
        for exercise_id in FC_IDS:
            rows = MISTAKES[exercise_id]
            cell = next(c for c in nb.cells if c.get("id") == f"{exercise_id}-solution")
            cell.source = _cell(exercise_id, rows[n][1] if n < len(rows) else RIGHT[exercise_id])
        nbformat.write(nb, str(folder / f"{name}.ipynb"))
    with helpers.assignment_session() as grading:
        results = grade_students(folder, grading, NAMES)
    return {(student, s.exercise): s for student, r in results.items() for s in r.sections}


@pytest.mark.parametrize("name, exercise_id, mistake", CELLS, ids=[f"{e}: {m[0]}" for _, e, m in CELLS])
def test_each_mistake_loses_points_and_gets_its_names(graded, name, exercise_id, mistake):
    section = graded[(name, exercise_id)]
    found = {d.id: d.evidence for d in section.diagnoses}
    assert section.score < section.max_score, found
    assert set(found) == mistake[2], found


def test_the_sections_without_a_mistake_keep_full_marks(graded):
    for n, name in enumerate(NAMES):
        for exercise_id in FC_IDS:
            if n >= len(MISTAKES[exercise_id]):
                section = graded[(name, exercise_id)]
                assert section.score == section.max_score and not section.diagnoses, (name, exercise_id)


@pytest.mark.parametrize("exercise_id, what, said", [
    ("linear", "samples as columns", "never turned back into rows"),
    ("linear", "vector path untransposed", "only the code path for a single vector x leaves the transpose out"),
    ("linear", "fan-in zeros for a missing bias", "in_features entries (weight.shape[1])"),
    ("linear", "batch averaged", "averaged into one vector (x.mean(axis=0))"),
    ("linear", "bias on the first sample only", "y[0] += bias"),
    ("to_channels_last", "code for one row", "Keep the output axis first"),
    ("to_channels_last", "permutation kept by its size", "rebuilt only when the number of columns changes"),
    ("dense_scores", "the first window everywhere", "fmap[0:k, 0:k]"),
    ("dense_scores", "weight[0] for every output", "weight[0]"),
    ("dense_scores", "a shortcut for k == H", "the first window's scores alone"),
    ("dense_scores", "windows centred", "window - window.mean()"),
    ("gap_head", "class map over range(h) twice", "range(h) for the columns as well as the rows"),
    ("gap_head", "pooling loop one row short", "range(h - 1)"),
    ("gap_head", "mean over every axis", "fmap.mean() with no axis"),
])
def test_the_new_evidence_says_what_was_done(graded, exercise_id, what, said):
    n = next(i for i, m in enumerate(MISTAKES[exercise_id]) if m[0] == what)
    section = graded[(NAMES[n], exercise_id)]
    assert any(said in d.evidence for d in section.diagnoses), [(d.id, d.evidence) for d in section.diagnoses]


def test_a_permutation_kept_by_its_size_is_stale_result_whenever_two_maps_of_as_many_columns_follow():
    """In process, on two calls whose maps differ and hold as many columns: named from the call order alone."""
    ex = exercise_mod.load("to_channels_last")
    namespace: dict = {"np": np}
    exec(_cell("to_channels_last", next(m[1] for m in MISTAKES["to_channels_last"] if m[0] == "permutation kept by its size")),
         namespace)
    rng = np.random.default_rng(0)
    cases = [Case(f"map-{C}{H}{W}", "graded", (rng.normal(size=(3, C * H * W)), C, H, W), f"C={C}, H={H}, W={W}")
             for C, H, W in ((3, 2, 4), (2, 3, 4), (4, 3, 2))]
    found = ex.diagnosis_module.diagnose(helpers.case_runs(ex, namespace["to_channels_last"], cases), ex)
    assert [f.id for f in found] == ["stale-result"], [(f.id, f.evidence) for f in found]
    assert "map-234" in found[0].evidence and "map-324" in found[0].evidence


def test_right_code_in_the_styles_the_new_patterns_read_gets_no_finding():
    """A vector path of its own, samples as columns turned back, a permutation kept by (C, H, W), a loop over the
    positions and the outputs, and a class map filled by loops over range(h) and range(w) are right."""
    def vector_path(x, weight, bias=None):
        y = weight @ x if x.ndim == 1 else (weight @ x.reshape(-1, x.shape[-1]).T).T.reshape(x.shape[:-1] + (-1,))
        return y if bias is None else y + bias

    perms: dict = {}

    def kept_by_sizes(weight, C, H, W):
        if (C, H, W) not in perms:
            perms[(C, H, W)] = np.arange(C * H * W).reshape(C, H, W).transpose(1, 2, 0).ravel()
        return weight[:, perms[(C, H, W)]]

    def loops(fmap, weight, bias, k):
        H, W, C = fmap.shape
        out = np.zeros((H - k + 1, W - k + 1, weight.shape[0]))
        for i in range(H - k + 1):
            for j in range(W - k + 1):
                v = fmap[i:i + k, j:j + k].ravel()
                for o in range(weight.shape[0]):
                    out[i, j, o] = weight[o] @ v + bias[o]
        return out

    def map_loops(fmap, V, c):
        h, w, _ = fmap.shape
        cam = np.zeros((h, w, V.shape[0]))
        for i in range(h):
            for j in range(w):
                cam[i, j] = V @ fmap[i, j] + c
        return cam.mean(axis=(0, 1)), cam

    for exercise_id, fn in (("linear", vector_path), ("to_channels_last", kept_by_sizes),
                            ("dense_scores", loops), ("gap_head", map_loops)):
        found = helpers.exercise_findings(exercise_id, fn)
        assert found == [], (exercise_id, [(f.id, f.evidence) for f in found])
