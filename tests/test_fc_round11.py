"""The fully-connected-layer exercises, round eleven: mistakes nobody had tried, and right code in styles earlier
rounds did not use, each graded as a section of an fc-layers assignment notebook, all notebooks in one batch.

Right, full marks with no finding: np.apply_along_axis, einsum('...j,ij->...i'), a broadcast product summed over
the inputs, np.apply_over_axes; to_channels_last by np.rollaxis, the Keras kernel route (weight.T reshaped (C, H, W,
out)), einsum('ochw->ohwc'), a channel loop into res[:, c::C], np.take, a (C, W, H) reshape (only the flat position
matters); dense_scores by windows of shape (k, k, C), weight.T reshaped as a (k, k, C, out) kernel, channels-first
windows with the weight converted to match, shift-and-add over the kernel offsets, flat-index gathers; gap_head
through fmap.T, per-class stacks, np.nanmean, a pooling row vector of 1/(h*w), np.inner.

Named now (before: no finding, or wrong-shape / raises-error only):

* linear: the bias stretched by np.repeat (bias-wrong-axis; was nothing), the finished result transposed, .T on a
  batch (outputs-first; was wrong-shape), x @ weight on the no-bias path only (weight-not-transposed; was
  raises-error);
* dense_scores: the map padded by 1 all round or by k - 1 ('full') (same-padding; was wrong-shape), windows taken
  [::2, ::2] (grid-stride; was wrong-shape), patches listed column by column and reshaped row-major
  (grid-axes-swapped; was nothing), the bias indexed by the window's column (bias-one-value; was nothing), im2col
  scores (out, P) + bias (bias-channels-first; was wrong-shape and raises-error), out += bias inside the loop;
* gap_head: the mean of per-position class probabilities (activation-applied; was nothing), the class map minus
  its minimum per class (normalised-map; was called a bias counted wrong), the last position's scores as the
  logits (centre-position, now "one position"; was nothing).

Left as they are: a loop reading w4[:, :, w, h] (raises-error on non-square maps, with numpy's IndexError), x
squeezed first and the bias added as np.outer(ones, bias) (wrong-shape and raises-error, whose sentences say what
happened); to_channels_last copying channel 0 C times or columns p:p + C is column-index, whose evidence says
which column repeats.
"""
from __future__ import annotations

import pytest

import exercise_helpers as helpers
from fc_notebooks import assert_loses_points_with, books_and_cells, grade_books, section
#: whole notebooks, every function right, by what their styles share
CORRECT: dict[str, dict[str, str]] = {
    'c1-apply-along-axis-rollaxis': {
        "linear": """
            def linear(x, weight, bias=None):
                def one(v):
                    return weight @ v if bias is None else weight @ v + bias
                return np.apply_along_axis(one, -1, x)
            """,
        "to_channels_last": """
            def to_channels_last(weight, C, H, W):
                w4 = weight.reshape(len(weight), C, H, W)
                return np.rollaxis(w4, 1, 4).reshape(len(weight), H * W * C)
            """,
        "dense_scores": """
            def dense_scores(fmap, weight, bias, k):
                C = fmap.shape[2]
                win = np.lib.stride_tricks.sliding_window_view(fmap, (k, k, C))
                Ho, Wo = win.shape[:2]
                return win.reshape(Ho, Wo, -1) @ weight.T + bias
            """,
        "gap_head": """
            def gap_head(fmap, V, c):
                h, w, C = fmap.shape
                t = fmap.T
                cam = (V @ t.reshape(C, -1)).reshape(-1, w, h).T + c
                return V @ t.mean(axis=(1, 2)) + c, cam
            """,
    },
    'c2-einsum-letters-keras-route': {
        "linear": """
            def linear(x, weight, bias=None):
                y = np.einsum('...j,ij->...i', x, weight)
                return y + (0 if bias is None else bias)
            """,
        "to_channels_last": """
            def to_channels_last(weight, C, H, W):
                kernel = weight.T.reshape(C, H, W, -1)
                return kernel.transpose(1, 2, 0, 3).reshape(H * W * C, -1).T.copy()
            """,
        "dense_scores": """
            def dense_scores(fmap, weight, bias, k):
                C = fmap.shape[-1]
                win = np.lib.stride_tricks.sliding_window_view(fmap, (k, k), axis=(0, 1))
                kern = weight.T.reshape(k, k, C, -1)
                return np.tensordot(win, kern, axes=([3, 4, 2], [0, 1, 2])) + bias
            """,
        "gap_head": """
            def gap_head(fmap, V, c):
                per_class = [fmap @ V[k] + c[k] for k in range(V.shape[0])]
                cam = np.stack(per_class, axis=-1)
                return cam.mean(axis=0).mean(axis=0), cam
            """,
    },
    'c3-channels-first-both-sides': {
        "linear": """
            def linear(x, weight, bias=None):
                y = (x[..., None] * weight.T).sum(axis=-2)
                if bias is not None:
                    y = y + bias.T
                return y
            """,
        "to_channels_last": """
            def to_channels_last(weight, C, H, W):
                return np.einsum('ochw->ohwc', weight.reshape(-1, C, H, W)).reshape(weight.shape[0], -1)
            """,
        "dense_scores": """
            def dense_scores(fmap, weight, bias, k):
                H, W, C = fmap.shape
                m = weight.shape[0]
                w_chw = weight.reshape(m, k, k, C).transpose(0, 3, 1, 2).reshape(m, -1)
                chw = fmap.transpose(2, 0, 1)
                out = np.empty((H - k + 1, W - k + 1, m))
                for i in range(H - k + 1):
                    for j in range(W - k + 1):
                        out[i, j] = w_chw @ chw[:, i:i + k, j:j + k].ravel() + bias
                return out
            """,
        "gap_head": """
            def gap_head(fmap, V, c):
                C = fmap.shape[-1]
                p = np.mean(fmap.reshape(-1, C), axis=0)
                return np.tensordot(p, V, axes=(0, 1)) + c, np.einsum('hwc,kc->hwk', fmap, V) + c
            """,
    },
    'c4-shift-and-add-channel-loop': {
        "linear": """
            def linear(x, weight, bias=None):
                out = np.dot(x, weight.T)
                if bias is not None:
                    out += bias
                return out
            """,
        "to_channels_last": """
            def to_channels_last(weight, C, H, W):
                res = np.empty_like(weight)
                for c in range(C):
                    res[:, c::C] = weight[:, c * H * W:(c + 1) * H * W]
                return res
            """,
        "dense_scores": """
            def dense_scores(fmap, weight, bias, k):
                H, W, C = fmap.shape
                Ho, Wo = H - k + 1, W - k + 1
                kern = weight.reshape(-1, k, k, C)
                out = np.zeros((Ho, Wo, weight.shape[0])) + bias
                for u in range(k):
                    for v in range(k):
                        out += fmap[u:u + Ho, v:v + Wo] @ kern[:, u, v, :].T
                return out
            """,
        "gap_head": """
            def gap_head(fmap, V, c):
                h, w, _ = fmap.shape
                cam = np.zeros((h, w, V.shape[0]))
                for i in range(h):
                    for j in range(w):
                        cam[i, j] = V.dot(fmap[i, j]) + c
                return cam.sum(axis=(0, 1)) / (h * w), cam
            """,
    },
    'c5-swapaxes-take-per-row': {
        "linear": """
            def linear(x, weight, bias=None):
                flat = x.reshape(-1, x.shape[-1])
                y = flat @ weight.T
                if bias is not None:
                    y = y + bias
                return y.reshape(x.shape[:-1] + (weight.shape[0],))
            """,
        "to_channels_last": """
            def to_channels_last(weight, C, H, W):
                return np.ascontiguousarray(weight.reshape(weight.shape[0], C, H * W).swapaxes(1, 2)).reshape(
                    weight.shape[0], -1)
            """,
        "dense_scores": """
            def dense_scores(fmap, weight, bias, k):
                H, W, C = fmap.shape
                win = np.lib.stride_tricks.sliding_window_view(fmap, (k, k), axis=(0, 1))
                kern = weight.reshape(weight.shape[0], k, k, C)
                return np.einsum('ijcuv,ouvc->ijo', win, kern) + bias
            """,
        "gap_head": """
            def gap_head(fmap, V, c):
                pooled = np.nanmean(fmap, axis=(0, 1))
                return V @ pooled + c, np.matmul(fmap, V.T) + c
            """,
    },
    'c6-take-and-rows': {
        "linear": """
            def linear(x, weight, bias=None):
                y = np.tensordot(x, weight.T, axes=1)
                return y if bias is None else np.add(y, bias)
            """,
        "to_channels_last": """
            def to_channels_last(weight, C, H, W):
                perm = np.arange(C * H * W).reshape(C, H, W).transpose(1, 2, 0).ravel()
                return np.take(weight, perm, axis=1)
            """,
        "dense_scores": """
            def dense_scores(fmap, weight, bias, k):
                H, W, C = fmap.shape
                rows = []
                for i in range(H - k + 1):
                    rows.append([fmap[i:i + k, j:j + k, :].reshape(-1) for j in range(W - k + 1)])
                patches = np.asarray(rows)
                return np.einsum('ijp,op->ijo', patches, weight) + bias[None, None, :]
            """,
        "gap_head": """
            def gap_head(fmap, V, c):
                logits = V @ fmap.mean(axis=1).mean(axis=0) + c
                cam = (fmap.reshape(-1, fmap.shape[2]) @ V.T + c).reshape(*fmap.shape[:2], -1)
                return logits, cam
            """,
    },
    'c7-sizes-swapped-but-flat': {
        "linear": """
            def linear(x, weight, bias=None):
                return np.apply_over_axes(np.sum, x[..., None, :] * weight, [-1])[..., 0] + (0.0 if bias is None else bias)
            """,
        "to_channels_last": """
            def to_channels_last(weight, C, H, W):
                out = weight.shape[0]
                return weight.reshape(out, C, W, H).transpose(0, 2, 3, 1).reshape(out, -1)
            """,
        "dense_scores": """
            def dense_scores(fmap, weight, bias, k):
                H, W, C = fmap.shape
                Ho, Wo = H - k + 1, W - k + 1
                idx = np.arange(Ho)[:, None] * W + np.arange(Wo)
                cols = [fmap.reshape(H * W, C)[idx + u * W + v] for u in range(k) for v in range(k)]
                return np.concatenate(cols, axis=-1) @ weight.T + bias
            """,
        "gap_head": """
            def gap_head(fmap, V, c):
                h, w, C = fmap.shape
                ones = np.full(h * w, 1.0 / (h * w))
                return V @ (ones @ fmap.reshape(h * w, C)) + c, np.inner(fmap, V) + c
            """,
    },
}
#: exercise -> [(what the student did, the code, the findings its section must get: exactly these)]
MISTAKES: dict[str, list[tuple[str, str, set[str]]]] = {
    "linear": [
        ('bias repeated, not tiled', """
            def linear(x, weight, bias=None):
                y = x @ weight.T
                if bias is not None:
                    y = y + np.repeat(bias, y.size // bias.size).reshape(y.shape)
                return y
            """, {'bias-wrong-axis'}),
        ('x.T @ weight.T', """
            def linear(x, weight, bias=None):
                y = x.T @ weight.T
                return y if bias is None else y + bias
            """, {'raises-error'}),
        ('a batch of one returned as a vector', """
            def linear(x, weight, bias=None):
                y = np.atleast_2d(x) @ weight.T
                if bias is not None:
                    y = y + bias
                return y[0] if len(y) == 1 else y
            """, {'wrong-shape'}),
        ('np.inner(weight, x)', """
            def linear(x, weight, bias=None):
                y = np.inner(weight, x)
                return y if bias is None else y + bias
            """, {'outputs-first'}),
        ('weight @ x[..., None] left (..., m, 1)', """
            def linear(x, weight, bias=None):
                y = weight @ x[..., None]
                return y if bias is None else y + bias[:, None]
            """, {'wrong-shape'}),
        ('result transposed at the end', """
            def linear(x, weight, bias=None):
                y = x @ weight.T
                if bias is not None:
                    y = y + bias
                return y.T
            """, {'outputs-first'}),
        ('bias on the first axis for every shape', """
            def linear(x, weight, bias=None):
                y = x @ weight.T
                if bias is not None:
                    y = y + bias.reshape((-1,) + (1,) * (y.ndim - 1))
                return y
            """, {'bias-wrong-axis'}),
        ('einsum with the outputs first', """
            def linear(x, weight, bias=None):
                y = np.einsum('...i,oi->o...', x, weight)
                return y if bias is None else y + bias
            """, {'outputs-first'}),
        ('no transpose on the no-bias path', """
            def linear(x, weight, bias=None):
                if bias is None:
                    return x @ weight
                return x @ weight.T + bias
            """, {'weight-not-transposed'}),
        ('x squeezed first', """
            def linear(x, weight, bias=None):
                x = np.squeeze(x)
                y = x @ weight.T
                return y if bias is None else y + bias
            """, {'wrong-shape', 'raises-error'}),
        ('bias added with np.outer of ones', """
            def linear(x, weight, bias=None):
                y = x @ weight.T
                if bias is not None:
                    y = y + np.outer(np.ones(y.shape[0]), bias)
                return y
            """, {'wrong-shape', 'raises-error'}),
    ],
    "to_channels_last": [
        ('loop reads w4[:, :, w, h]', """
            def to_channels_last(weight, C, H, W):
                w4 = weight.reshape(weight.shape[0], C, H, W)
                res = np.empty_like(weight)
                for h in range(H):
                    for w in range(W):
                        p = h * W + w
                        res[:, p * C:(p + 1) * C] = w4[:, :, w, h]
                return res
            """, {'raises-error'}),
        ('only the first channel copied', """
            def to_channels_last(weight, C, H, W):
                res = np.zeros_like(weight)
                res[:, ::C] = weight[:, :H * W]
                return res
            """, {'left-unfilled'}),
        ('channel 0 repeated C times', """
            def to_channels_last(weight, C, H, W):
                return np.repeat(weight[:, :H * W], C, axis=1)
            """, {'column-index'}),
        ('consecutive columns from p', """
            def to_channels_last(weight, C, H, W):
                res = np.empty_like(weight)
                for p in range(H * W):
                    res[:, p * C:(p + 1) * C] = weight[:, p:p + C]
                return res
            """, {'column-index'}),
        ('moveaxis of the output axis', """
            def to_channels_last(weight, C, H, W):
                w4 = weight.reshape(weight.shape[0], C, H, W)
                return np.moveaxis(w4, 0, -1).reshape(weight.shape[0], -1)
            """, {'rows-mixed'}),
        ('reshape to (out, H, W, C) with order F', """
            def to_channels_last(weight, C, H, W):
                return weight.reshape(weight.shape[0], H, W, C, order='F').reshape(weight.shape[0], -1)
            """, {'axis-order'}),
        ('reshape (out, H*W, C)', """
            def to_channels_last(weight, C, H, W):
                return weight.reshape(weight.shape[0], H * W, C).reshape(weight.shape[0], -1).copy()
            """, {'reshape-only'}),
        ('Keras route with H and W swapped', """
            def to_channels_last(weight, C, H, W):
                kernel = weight.T.reshape(C, H, W, -1)
                return kernel.transpose(2, 1, 0, 3).reshape(H * W * C, -1).T.copy()
            """, {'axis-order'}),
        ('channel loop copying c::C to c::C', """
            def to_channels_last(weight, C, H, W):
                res = np.empty_like(weight)
                for c in range(C):
                    res[:, c::C] = weight[:, c::C]
                return res
            """, {'reshape-only'}),
    ],
    "dense_scores": [
        ('padded by k - 1 all round (full)', """
            def dense_scores(fmap, weight, bias, k):
                p = np.pad(fmap, ((k - 1, k - 1), (k - 1, k - 1), (0, 0)))
                H, W, C = p.shape
                out = np.empty((H - k + 1, W - k + 1, weight.shape[0]))
                for i in range(H - k + 1):
                    for j in range(W - k + 1):
                        out[i, j] = weight @ p[i:i + k, j:j + k].ravel() + bias
                return out
            """, {'same-padding'}),
        ('padded by one on each side', """
            def dense_scores(fmap, weight, bias, k):
                p = np.pad(fmap, ((1, 1), (1, 1), (0, 0)))
                win = np.lib.stride_tricks.sliding_window_view(p, (k, k), axis=(0, 1))
                win = np.moveaxis(win, 2, -1)
                return win.reshape(win.shape[0], win.shape[1], -1) @ weight.T + bias
            """, {'same-padding'}),
        ('kernel read as (k, k, C, m), Keras style', """
            def dense_scores(fmap, weight, bias, k):
                C = fmap.shape[2]
                win = np.lib.stride_tricks.sliding_window_view(fmap, (k, k), axis=(0, 1))
                win = np.moveaxis(win, 2, -1)
                return np.tensordot(win, weight.reshape(k, k, C, -1), axes=3) + bias
            """, {'weight-reshaped-not-transposed'}),
        ('weight ported with to_channels_last', """
            def dense_scores(fmap, weight, bias, k):
                H, W, C = fmap.shape
                m = weight.shape[0]
                wl = weight.reshape(m, C, k, k).transpose(0, 2, 3, 1).reshape(m, -1)
                win = np.lib.stride_tricks.sliding_window_view(fmap, (k, k), axis=(0, 1))
                win = np.moveaxis(win, 2, -1).reshape(H - k + 1, W - k + 1, -1)
                return win @ wl.T + bias
            """, {'window-channels-first'}),
        ('im2col (m, P) + bias without a column', """
            def dense_scores(fmap, weight, bias, k):
                H, W, C = fmap.shape
                cols = np.stack([fmap[i:i + k, j:j + k].ravel()
                                 for i in range(H - k + 1) for j in range(W - k + 1)], axis=1)
                s = weight @ cols + bias
                return s.T.reshape(H - k + 1, W - k + 1, -1)
            """, {'bias-channels-first'}),
        ('sliding_window_view axis=(1, 0)', """
            def dense_scores(fmap, weight, bias, k):
                win = np.lib.stride_tricks.sliding_window_view(fmap, (k, k), axis=(1, 0))
                win = np.moveaxis(win, 2, -1)
                return win.reshape(win.shape[0], win.shape[1], -1) @ weight.T + bias
            """, {'window-transposed'}),
        ('sliding windows stepped by 2', """
            def dense_scores(fmap, weight, bias, k):
                win = np.lib.stride_tricks.sliding_window_view(fmap, (k, k), axis=(0, 1))[::2, ::2]
                win = np.moveaxis(win, 2, -1)
                return win.reshape(win.shape[0], win.shape[1], -1) @ weight.T + bias
            """, {'grid-stride'}),
        ('patches listed column-major, reshaped row-major', """
            def dense_scores(fmap, weight, bias, k):
                H, W, C = fmap.shape
                patches = [fmap[i:i + k, j:j + k].ravel() for j in range(W - k + 1) for i in range(H - k + 1)]
                s = np.array(patches) @ weight.T + bias
                return s.reshape(H - k + 1, W - k + 1, -1)
            """, {'grid-axes-swapped'}),
        ('bias indexed by the column of the window', """
            def dense_scores(fmap, weight, bias, k):
                H, W, C = fmap.shape
                m = weight.shape[0]
                out = np.empty((H - k + 1, W - k + 1, m))
                for i in range(H - k + 1):
                    for j in range(W - k + 1):
                        out[i, j] = weight @ fmap[i:i + k, j:j + k].ravel() + bias[j % m]
                return out
            """, {'bias-one-value'}),
        ('scores soft-maxed over the outputs', """
            def dense_scores(fmap, weight, bias, k):
                win = np.lib.stride_tricks.sliding_window_view(fmap, (k, k), axis=(0, 1))
                win = np.moveaxis(win, 2, -1)
                s = win.reshape(win.shape[0], win.shape[1], -1) @ weight.T + bias
                e = np.exp(s - s.max(axis=-1, keepdims=True))
                return e / e.sum(axis=-1, keepdims=True)
            """, {'activation-applied'}),
        ('out += bias inside the loop', """
            def dense_scores(fmap, weight, bias, k):
                H, W, C = fmap.shape
                out = np.zeros((H - k + 1, W - k + 1, weight.shape[0]))
                for i in range(H - k + 1):
                    for j in range(W - k + 1):
                        out[i, j] = weight @ fmap[i:i + k, j:j + k].ravel()
                        out += bias
                return out
            """, {'bias-added-twice'}),
        ('weight reshaped (m, C, k, k), windows (k, k, C)', """
            def dense_scores(fmap, weight, bias, k):
                C = fmap.shape[2]
                m = weight.shape[0]
                kern = weight.reshape(m, C, k, k)
                win = np.lib.stride_tricks.sliding_window_view(fmap, (k, k), axis=(0, 1))
                return np.einsum('ijcuv,ocuv->ijo', win, kern) + bias
            """, {'window-channels-first'}),
    ],
    "gap_head": [
        ('max of the flattened positions', """
            def gap_head(fmap, V, c):
                p = np.amax(fmap.reshape(-1, fmap.shape[-1]), axis=0)
                return V @ p + c, fmap @ V.T + c
            """, {'max-pooling'}),
        ('transposed, then averaged over axes 0 and 1', """
            def gap_head(fmap, V, c):
                p = fmap.transpose(2, 0, 1).mean(axis=(0, 1))
                return V @ p + c, fmap @ V.T + c
            """, {'channel-mean'}),
        ('logits soft-maxed over the classes', """
            def gap_head(fmap, V, c):
                z = V @ fmap.mean(axis=(0, 1)) + c
                e = np.exp(z - z.max())
                return e / e.sum(), fmap @ V.T + c
            """, {'activation-applied'}),
        ('class probabilities averaged', """
            def gap_head(fmap, V, c):
                cam = fmap @ V.T + c
                e = np.exp(cam - cam.max(axis=-1, keepdims=True))
                prob = e / e.sum(axis=-1, keepdims=True)
                return prob.mean(axis=(0, 1)), cam
            """, {'activation-applied'}),
        ('class map minus its minimum per class', """
            def gap_head(fmap, V, c):
                cam = fmap @ V.T + c
                logits = cam.mean(axis=(0, 1))
                return logits, cam - cam.min(axis=(0, 1))
            """, {'normalised-map'}),
        ('bias added to the weight', """
            def gap_head(fmap, V, c):
                cam = fmap @ (V.T + c)
                return cam.mean(axis=(0, 1)), cam
            """, {'bias-count'}),
        ('the last position as the logits', """
            def gap_head(fmap, V, c):
                cam = fmap @ V.T + c
                return cam[-1, -1], cam
            """, {'centre-position'}),
        ('class map divided by its maximum per class', """
            def gap_head(fmap, V, c):
                cam = fmap @ V.T + c
                return cam.mean(axis=(0, 1)), cam / np.abs(cam).max(axis=(0, 1))
            """, {'normalised-map'}),
        ('cam after the logits, bias left out of the logits', """
            def gap_head(fmap, V, c):
                logits = V @ fmap.mean(axis=(0, 1))
                cam = fmap @ V.T
                cam = cam + c
                logits = cam.mean(axis=(0, 1)) - c
                return logits, cam
            """, {'bias-count'}),
        ('mean over axis 1 twice', """
            def gap_head(fmap, V, c):
                p = fmap.mean(axis=1).mean(axis=1)
                return V @ p + c, fmap @ V.T + c
            """, {'channel-mean'}),
    ],
}
RIGHT = CORRECT["c1-apply-along-axis-rollaxis"]
BOOKS, CELLS = books_and_cells(CORRECT, MISTAKES, RIGHT)


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict:
    """Every notebook graded as the fc-layers assignment in one batch: each section by (student, exercise)."""
    folder = tmp_path_factory.mktemp("fc-round11")
    return grade_books(folder, BOOKS)


@pytest.mark.parametrize("name", [n for n in BOOKS if n.startswith("ok")], ids=list(CORRECT))
def test_right_code_in_new_styles_gets_full_marks_with_no_finding(graded, name):
    assert helpers.clean_mark_faults(graded[name]) == []


@pytest.mark.parametrize("name, exercise_id, mistake", CELLS, ids=[f"{e}: {m[0]}" for _, e, m in CELLS])
def test_each_new_mistake_loses_points_and_gets_its_names(graded, name, exercise_id, mistake):
    assert_loses_points_with(graded[name], exercise_id, mistake[2])


@pytest.mark.parametrize("exercise_id, what, said", [
    ("linear", "bias repeated, not tiled", "np.repeat(bias, N)"),
    ("linear", "result transposed at the end", "(x @ weight.T + bias).T"),
    ("linear", "no transpose on the no-bias path", "only the code path without a bias"),
    ("dense_scores", "padded by one on each side", "1 before and 1 after"),
    ("dense_scores", "sliding windows stepped by 2", "stepped by 2"),
    ("dense_scores", "patches listed column-major, reshaped row-major", "listed column by column"),
    ("dense_scores", "bias indexed by the column of the window", "indexed by the window's position"),
    ("dense_scores", "im2col (m, P) + bias without a column", "im2col"),
    ("gap_head", "class probabilities averaged", "averaged probabilities"),
    ("gap_head", "class map minus its minimum per class", "minus their minimum"),
    ("gap_head", "the last position as the logits", "[-1, -1]"),
])
def test_the_new_evidence_says_what_was_done(graded, exercise_id, what, said):
    n = next(i for i, m in enumerate(MISTAKES[exercise_id]) if m[0] == what)
    found = section(graded[f"bad{n}"], exercise_id).diagnoses
    assert any(said in d.evidence for d in found), [(d.id, d.evidence) for d in found]
