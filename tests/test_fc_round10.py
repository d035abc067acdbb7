"""The fully-connected-layer exercises, round ten: right code in styles earlier rounds did not try, and mistakes
nobody had submitted, each graded as a section of an fc-layers assignment notebook, all notebooks in one batch.

Right, full marks with no finding: einsum with the weight first and an explicit output, tensordot over axes
(-1, -1), np.matmul(weight, x[..., None])[..., 0], a class with __call__ and a functools.partial bound to a
function's name, itertools loops in pure Python; to_channels_last by two swapaxes and np.ascontiguousarray, by
as_strided, by np.stack of the channel blocks along a new last axis, by a list comprehension of columns, by the
transpose of w.T; dense_scores by as_strided windows and tensordot, by index arithmetic on the flattened map, by
sliding windows over the map's rows flattened to (H, W*C) and stepped by C, and by calling linear (one section's
function calling another's, a helper defined in the linear cell); gap_head by np.add.reduce, np.average, sums
divided by a size, and linear's class map averaged.

Named now (before: no finding, or wrong-shape and raises-error only):

* linear: (x[..., None, :] * weight).sum(axis=-2), every product summed over the outputs (elementwise-product);
  one output at a time stacked along a new first axis (outputs-first, a new entry);
  np.tensordot(weight, x, axes=([1], [0])), the column form pairing the inputs with x's first axis
  (column-vector-formula; was raises-error);
* dense_scores: scores computed (out, H'*W'), im2col's layout, and reshaped to (H', W', out) (scores-first; it
  was no finding at all); + bias on scores still (out, H', W') before moveaxis (bias-channels-first, its mirror);
* gap_head: the class map reshaped with order='F' (class-map-layout; was no finding), the logits as the class map
  averaged over its classes (channel-mean), c[:, None, None] in the class map (bias-channels-first, a new entry),
  logits accumulated into c in place (mutates-input alone, where the class map that then read the changed c was
  also called a bias counted wrong), and the class map computed on the map minus its channel means
  (normalised-map; was called a bias counted wrong).

The others were named before and are kept here so that they stay so. Left alone (see the round's report):
sliding_window_view called without axis, windows centred on (i, j) (k + 1 wide for an even k), windows stepped by
one value over rows flattened to (H, W*C), and einsum('i...,oi->...o'): each loses points as wrong-shape or
raises-error, with numpy's own message.
"""
from __future__ import annotations

import pytest

import exercise_helpers as helpers
from fc_notebooks import assert_loses_points_with, books_and_cells, grade_books, section
#: whole notebooks, every function right, by what their styles share (the last, whose functions call none of the
#: others, fills the sections of the notebooks below that hold no mistake)
CORRECT: dict[str, dict[str, str]] = {
    'c1-shared-helper-cross-calls': {
        "linear": """
            def _affine(x, w, b=None):
                y = np.einsum('oi,...i->...o', w, x, optimize=True)
                return y if b is None else y + b

            def linear(x, weight, bias=None):
                return _affine(x, weight, bias)
            """,
        "to_channels_last": """
            def to_channels_last(weight, C, H, W):
                w4 = weight.reshape(weight.shape[0], C, H, W)
                hwc = np.ascontiguousarray(np.swapaxes(np.swapaxes(w4, 1, 2), 2, 3))
                return hwc.reshape(weight.shape[0], H * W * C)
            """,
        "dense_scores": """
            def dense_scores(fmap, weight, bias, k):
                win = np.lib.stride_tricks.sliding_window_view(fmap, (k, k), axis=(0, 1))
                win = np.moveaxis(win, 2, -1)
                return linear(win.reshape(win.shape[0], win.shape[1], -1), weight, bias)
            """,
        "gap_head": """
            def gap_head(fmap, V, c):
                cam = linear(fmap, V, c)
                rows = cam.reshape(-1, cam.shape[-1])
                return np.add.reduce(rows, axis=0) / (cam.size // cam.shape[-1]), cam
            """,
    },
    'c2-callables-as-strided': {
        "linear": """
            class Dense:
                def __call__(self, x, weight, bias=None):
                    y = np.tensordot(x, weight, axes=(-1, -1))
                    if bias is not None:
                        np.add(y, bias, out=y)
                    return y

            linear = Dense()
            """,
        "to_channels_last": """
            def to_channels_last(weight, C, H, W):
                perm = [c * H * W + h * W + w for h in range(H) for w in range(W) for c in range(C)]
                return weight[:, perm]
            """,
        "dense_scores": """
            from numpy.lib.stride_tricks import as_strided

            def dense_scores(fmap, weight, bias, k):
                fmap = np.ascontiguousarray(fmap)
                H, W, C = fmap.shape
                s0, s1, s2 = fmap.strides
                win = as_strided(fmap, shape=(H - k + 1, W - k + 1, k, k, C), strides=(s0, s1, s0, s1, s2),
                                 writeable=False)
                return np.tensordot(win, weight.reshape(-1, k, k, C), axes=([2, 3, 4], [1, 2, 3])) + bias
            """,
        "gap_head": """
            class GapHead:
                def __call__(self, fmap, V, c):
                    p = fmap.sum(axis=0).sum(axis=0) / (fmap.size / fmap.shape[-1])
                    cam = (fmap[..., None, :] * V).sum(axis=-1) + c
                    return V @ p + c, cam

            gap_head = GapHead()
            """,
    },
    'c3-loops-and-index-arithmetic': {
        "linear": """
            import itertools

            def linear(x, weight, bias=None):
                m, n = weight.shape
                y = np.empty(x.shape[:-1] + (m,))
                for idx in itertools.product(*map(range, x.shape[:-1])):
                    for j in range(m):
                        s = sum(float(x[idx + (i,)]) * float(weight[j, i]) for i in range(n))
                        y[idx + (j,)] = s if bias is None else s + bias[j]
                return y
            """,
        "to_channels_last": """
            def to_channels_last(weight, C, H, W):
                blocks = [weight[:, c * H * W:(c + 1) * H * W] for c in range(C)]
                return np.stack(blocks, axis=-1).reshape(weight.shape[0], -1)
            """,
        "dense_scores": """
            def dense_scores(fmap, weight, bias, k):
                H, W, C = fmap.shape
                flat = fmap.ravel()
                i = np.arange(H - k + 1)[:, None, None, None, None]
                j = np.arange(W - k + 1)[None, :, None, None, None]
                u = np.arange(k)[None, None, :, None, None]
                v = np.arange(k)[None, None, None, :, None]
                ch = np.arange(C)[None, None, None, None, :]
                idx = ((i + u) * W + (j + v)) * C + ch
                patches = flat[idx].reshape(H - k + 1, W - k + 1, -1)
                return patches @ weight.T + bias
            """,
        "gap_head": """
            def gap_head(fmap, V, c):
                p = np.average(fmap.reshape(-1, fmap.shape[-1]), axis=0)
                return np.dot(V, p) + c, np.dot(fmap, V.T) + c
            """,
    },
    'c4-partial-and-comprehensions': {
        "linear": """
            import functools

            def _affine(x, weight, bias=None, *, activation=None):
                y = np.matmul(x, weight.swapaxes(0, 1))
                if bias is not None:
                    y = y + bias
                return y if activation is None else activation(y)

            linear = functools.partial(_affine, activation=None)
            """,
        "to_channels_last": """
            def to_channels_last(weight, C, H, W):
                s0, s1 = weight.strides
                view = np.lib.stride_tricks.as_strided(weight, shape=(weight.shape[0], H, W, C),
                                                       strides=(s0, W * s1, s1, H * W * s1), writeable=False)
                return view.reshape(weight.shape[0], -1)
            """,
        "dense_scores": """
            def dense_scores(fmap, weight, bias, k):
                H, W, _ = fmap.shape
                return np.array([[linear(fmap[i:i + k, j:j + k].ravel(), weight, bias) for j in range(W - k + 1)]
                                 for i in range(H - k + 1)], dtype=np.float64)
            """,
        "gap_head": """
            class _Head:
                def __call__(self, fmap, V, c):
                    cam = linear(fmap, V, c)
                    total = np.add.reduce(np.add.reduce(cam, axis=0), axis=0)
                    return total / (cam.shape[0] * cam.shape[1]), cam

            gap_head = _Head()
            """,
    },
    'c5-moveaxis-and-flat-rows': {
        "linear": """
            def linear(x, weight, bias=None):
                y = np.matmul(weight, x[..., None])[..., 0]
                if bias is not None:
                    y += bias
                return y
            """,
        "to_channels_last": """
            def to_channels_last(weight, C, H, W):
                w4 = weight.reshape(weight.shape[0], C, H, W)
                return np.transpose(w4.T, (3, 1, 0, 2)).reshape(weight.shape[0], -1)
            """,
        "dense_scores": """
            def dense_scores(fmap, weight, bias, k):
                H, W, C = fmap.shape
                rows = fmap.reshape(H, W * C)
                win = np.lib.stride_tricks.sliding_window_view(rows, (k, k * C))[:, ::C]
                return win.reshape(H - k + 1, W - k + 1, -1) @ weight.T + bias
            """,
        "gap_head": """
            def gap_head(fmap, V, c):
                C = fmap.shape[-1]
                p = np.moveaxis(fmap, -1, 0).reshape(C, -1).mean(axis=1)
                cam = np.moveaxis(np.tensordot(V, fmap, axes=(1, 2)), 0, -1) + c
                return V @ p + c, cam
            """,
    },
}
#: exercise -> [(what the student did, the code, the findings its section must get: exactly these)]
MISTAKES: dict[str, list[tuple[str, str, set[str]]]] = {
    "linear": [
        ('matmul in place on x', """
            def linear(x, weight, bias=None):
                x @= weight.T
                if bias is not None:
                    x += bias
                return x
            """, {'mutates-input', 'raises-error'}),
        ('broadcast product summed over the outputs', """
            def linear(x, weight, bias=None):
                y = (x[..., None, :] * weight).sum(axis=-2)
                return y if bias is None else y + bias
            """, {'elementwise-product'}),
        ('leading axes merged, reshaped by the first', """
            def linear(x, weight, bias=None):
                y = x.reshape(-1, x.shape[-1]) @ weight.T
                if bias is not None:
                    y = y + bias
                return y.reshape(x.shape[0], -1)
            """, {'only-2d-input'}),
        ('bias added to the transpose', """
            def linear(x, weight, bias=None):
                y = x @ weight.T
                return y if bias is None else (y.T + bias).T
            """, {'bias-wrong-axis'}),
        ('np.dot with x.T for a batch', """
            def linear(x, weight, bias=None):
                y = np.dot(weight, x.T).T
                return y if bias is None else y + bias
            """, {'only-2d-input'}),
        ('column form by swapaxes, no vector path', """
            def linear(x, weight, bias=None):
                y = (weight @ x.swapaxes(-1, -2)).swapaxes(-1, -2)
                return y if bias is None else y + bias
            """, {'only-2d-input'}),
        ('one output row at a time, stacked first', """
            def linear(x, weight, bias=None):
                y = np.stack([(x * w).sum(axis=-1) for w in weight])
                return y if bias is None else y + bias
            """, {'outputs-first'}),
        ('tensordot weight first, axes ([1], [0])', """
            def linear(x, weight, bias=None):
                y = np.tensordot(weight, x, axes=([1], [0]))
                return y if bias is None else y + bias
            """, {'column-vector-formula'}),
        ('bias reshaped in place', """
            def linear(x, weight, bias=None):
                y = x @ weight.T
                if bias is not None:
                    bias.shape = (1, -1)
                    y = (y.reshape(-1, y.shape[-1]) + bias).reshape(y.shape)
                return y
            """, {'mutates-input'}),
    ],
    "to_channels_last": [
        ('moveaxis(3, 1)', """
            def to_channels_last(weight, C, H, W):
                return np.moveaxis(weight.reshape(weight.shape[0], C, H, W), 3, 1).reshape(weight.shape[0], -1)
            """, {'axis-order'}),
        ('as_strided with the channel stride H', """
            def to_channels_last(weight, C, H, W):
                s0, s1 = weight.strides
                view = np.lib.stride_tricks.as_strided(weight, shape=(weight.shape[0], H, W, C),
                                                       strides=(s0, W * s1, s1, H * s1), writeable=False)
                return view.reshape(weight.shape[0], -1)
            """, {'column-index'}),
        ('an int buffer', """
            def to_channels_last(weight, C, H, W):
                perm = np.arange(C * H * W).reshape(C, H, W).transpose(1, 2, 0).ravel()
                res = np.zeros(weight.shape, dtype=int)
                res[:] = weight[:, perm]
                return res
            """, {'wrong-dtype'}),
        ('channel blocks stacked on axis 1', """
            def to_channels_last(weight, C, H, W):
                blocks = [weight[:, c * H * W:(c + 1) * H * W] for c in range(C)]
                return np.stack(blocks, axis=1).reshape(weight.shape[0], -1)
            """, {'reshape-only'}),
        ('final reshape in Fortran order', """
            def to_channels_last(weight, C, H, W):
                out = weight.shape[0]
                return weight.reshape(out, C, H, W).transpose(0, 2, 3, 1).reshape(out, -1, order='F')
            """, {'axis-order'}),
        ('read as (C, W, H), written (H, W, C)', """
            def to_channels_last(weight, C, H, W):
                out = weight.shape[0]
                return weight.reshape(out, C, W, H).transpose(0, 3, 2, 1).reshape(out, -1)
            """, {'axis-order'}),
        ('positions split with divmod by H', """
            def to_channels_last(weight, C, H, W):
                res = np.empty_like(weight)
                for p in range(H * W):
                    h, w = divmod(p, H)
                    res[:, p * C:(p + 1) * C] = weight[:, h * W + w::H * W]
                return res
            """, {'column-index', 'raises-error'}),
        ('a permutation list built h, c, w', """
            def to_channels_last(weight, C, H, W):
                perm = [c * H * W + h * W + w for h in range(H) for c in range(C) for w in range(W)]
                return weight[:, perm]
            """, {'axis-order'}),
        ('shape attribute set on weight', """
            def to_channels_last(weight, C, H, W):
                out = weight.shape[0]
                weight.shape = (out, C, H, W)
                return weight.transpose(0, 2, 3, 1).reshape(out, -1)
            """, {'mutates-input'}),
        ('argsort of the scatter order, then used as a scatter', """
            def to_channels_last(weight, C, H, W):
                dest = np.arange(C * H * W).reshape(H, W, C).transpose(2, 0, 1).ravel()
                res = np.empty_like(weight)
                res[:, np.argsort(dest)] = weight
                return res
            """, {'inverse-permutation'}),
    ],
    "dense_scores": [
        ('as_strided window strides swapped', """
            from numpy.lib.stride_tricks import as_strided

            def dense_scores(fmap, weight, bias, k):
                fmap = np.ascontiguousarray(fmap)
                H, W, C = fmap.shape
                s0, s1, s2 = fmap.strides
                win = as_strided(fmap, shape=(H - k + 1, W - k + 1, k, k, C), strides=(s0, s1, s1, s0, s2),
                                 writeable=False)
                return win.reshape(H - k + 1, W - k + 1, -1) @ weight.T + bias
            """, {'window-transposed'}),
        ('bias added to the scores-first grid', """
            def dense_scores(fmap, weight, bias, k):
                m, C = weight.shape[0], fmap.shape[2]
                win = np.lib.stride_tricks.sliding_window_view(fmap, (k, k), axis=(0, 1))
                s = np.tensordot(weight.reshape(m, k, k, C), win, axes=([1, 2, 3], [3, 4, 2]))
                return np.moveaxis(s + bias, 0, -1)
            """, {'bias-channels-first'}),
        ('im2col reshaped instead of transposed', """
            def dense_scores(fmap, weight, bias, k):
                H, W, C = fmap.shape
                cols = np.stack([fmap[i:i + k, j:j + k].ravel()
                                 for i in range(H - k + 1) for j in range(W - k + 1)], axis=1)
                s = weight @ cols + bias[:, None]
                return s.reshape(H - k + 1, W - k + 1, -1)
            """, {'scores-first'}),
        ('kernel reshaped (m, k, k, C) matched as (u, v) swapped', """
            def dense_scores(fmap, weight, bias, k):
                m, C = weight.shape[0], fmap.shape[2]
                win = np.lib.stride_tricks.sliding_window_view(fmap, (k, k), axis=(0, 1))
                return np.einsum('ijcuv,ovuc->ijo', win, weight.reshape(m, k, k, C)) + bias
            """, {'window-transposed'}),
        ('np.indices read x, y', """
            def dense_scores(fmap, weight, bias, k):
                H, W, C = fmap.shape
                ys, xs = np.indices((H - k + 1, W - k + 1))
                out = np.empty((H - k + 1, W - k + 1, weight.shape[0]))
                for y, x in zip(ys.ravel(), xs.ravel()):
                    out[y, x] = weight @ fmap[x:x + k, y:y + k].ravel() + bias
                return out
            """, {'grid-axes-swapped'}),
        ('grid allocated from fmap.shape[:2] and trimmed by k', """
            def dense_scores(fmap, weight, bias, k):
                H, W, C = fmap.shape
                out = np.zeros((H, W, weight.shape[0]))
                for i in range(H - k + 1):
                    for j in range(W - k + 1):
                        out[i, j] = weight @ fmap[i:i + k, j:j + k].ravel() + bias
                return out[:H - k, :W - k]
            """, {'grid-off-by-one'}),
    ],
    "gap_head": [
        ('mean(0) then mean(1)', """
            def gap_head(fmap, V, c):
                p = fmap.mean(0).mean(1)
                return V @ p + c, fmap @ V.T + c
            """, {'channel-mean'}),
        ('the logits accumulated into c', """
            def gap_head(fmap, V, c):
                logits = c
                logits += V @ fmap.mean(axis=(0, 1))
                return logits, fmap @ V.T + c
            """, {'mutates-input'}),
        ('class map reshaped in Fortran order', """
            def gap_head(fmap, V, c):
                h, w, C = fmap.shape
                flat = fmap.reshape(-1, C)
                scores = flat @ V.T + c
                return scores.mean(axis=0), scores.reshape(h, w, -1, order='F')
            """, {'class-map-layout'}),
        ('logits as the mean over the classes', """
            def gap_head(fmap, V, c):
                cam = fmap @ V.T + c
                return cam.mean(axis=-1), cam
            """, {'channel-mean'}),
        ('bias as a channels-first column', """
            def gap_head(fmap, V, c):
                return V @ fmap.mean(axis=(0, 1)) + c, fmap @ V.T + c[:, None, None]
            """, {'bias-channels-first'}),
        ('class map in an int buffer', """
            def gap_head(fmap, V, c):
                h, w, _ = fmap.shape
                cam = np.zeros((h, w, V.shape[0]), dtype=np.int64)
                for i in range(h):
                    for j in range(w):
                        cam[i, j] = V @ fmap[i, j] + c
                return V @ fmap.mean(axis=(0, 1)) + c, cam
            """, {'wrong-dtype'}),
        ('positions as rows, mean over axis 1', """
            def gap_head(fmap, V, c):
                h, w, C = fmap.shape
                p = fmap.reshape(h * w, C).mean(axis=1)
                return V @ p + c, fmap @ V.T + c
            """, {'channel-mean'}),
        ('the map averaged over the channels into the class map', """
            def gap_head(fmap, V, c):
                cam = fmap @ V.T + c
                return cam.mean(axis=(0, 1)), cam / fmap.shape[-1]
            """, {'normalised-map'}),
        ('logits from the class map with the bias again', """
            def gap_head(fmap, V, c):
                cam = np.einsum('hwc,kc->hwk', fmap, V) + c
                return np.einsum('hwk->k', cam) / (fmap.shape[0] * fmap.shape[1]) + c, cam
            """, {'bias-count'}),
        ('pooled with keepdims into the class map', """
            def gap_head(fmap, V, c):
                p = fmap.mean(axis=(0, 1), keepdims=True)
                return (p @ V.T + c).ravel(), (fmap - p) @ V.T + c
            """, {'normalised-map'}),
    ],
}
RIGHT = CORRECT["c5-moveaxis-and-flat-rows"]
BOOKS, CELLS = books_and_cells(CORRECT, MISTAKES, RIGHT)


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict:
    """Every notebook graded as the fc-layers assignment in one batch: each section by (student, exercise)."""
    folder = tmp_path_factory.mktemp("fc-round10")
    return grade_books(folder, BOOKS)


@pytest.mark.parametrize("name", [n for n in BOOKS if n.startswith("ok")], ids=list(CORRECT))
def test_right_code_in_new_styles_gets_full_marks_with_no_finding(graded, name):
    assert helpers.clean_mark_faults(graded[name]) == []


@pytest.mark.parametrize("name, exercise_id, mistake", CELLS, ids=[f"{e}: {m[0]}" for _, e, m in CELLS])
def test_each_new_mistake_loses_points_and_gets_its_names(graded, name, exercise_id, mistake):
    assert_loses_points_with(graded[name], exercise_id, mistake[2])


@pytest.mark.parametrize("exercise_id, what, said", [
    ("linear", "broadcast product summed over the outputs", "summed over the outputs j (axis -2)"),
    ("linear", "one output row at a time, stacked first", "stacked along a new first axis"),
    ("gap_head", "pooled with keepdims into the class map", "fmap minus its channel means"),
    ("dense_scores", "im2col reshaped instead of transposed", "reshaped to (H', W', out)"),
    ("dense_scores", "bias added to the scores-first grid", "scores laid out (out, H', W')"),
    ("gap_head", "class map reshaped in Fortran order", "order='F'"),
    ("gap_head", "logits as the mean over the classes", "averaged over its classes (axis -1)"),
    ("gap_head", "bias as a channels-first column", "c[:, None, None]"),
    ("gap_head", "the logits accumulated into c", "logits += ..."),
])
def test_the_new_evidence_says_what_was_done(graded, exercise_id, what, said):
    n = next(i for i, m in enumerate(MISTAKES[exercise_id]) if m[0] == what)
    found = section(graded[f"bad{n}"], exercise_id).diagnoses
    assert any(said in d.evidence for d in found), [(d.id, d.evidence) for d in found]
