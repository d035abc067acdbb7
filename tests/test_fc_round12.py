"""The fully-connected-layer exercises, round twelve: gap_head and to_channels_last mistakes nobody had tried,
each graded as a section of an fc-layers assignment notebook, all notebooks in one batch (the other sections right).

Named now (before: no finding, or misnamed):

* gap_head: the logits log-softmaxed (activation-applied; was nothing), the class map upside down (cam[::-1]) or
  transposed whole with .T (class-map-layout; were nothing and wrong-shape), each position's scores divided by
  their length (normalised-map; was nothing), the class map rounded to 2 decimals (rounded-output; was nothing:
  the harness's rounding check reads both outputs at once, and the logits are not rounded), the class map minus
  its overall maximum (normalised-map; was bias-count, "shifted by a constant for each class", though one number
  moved every class), and the sum divided by h * w without brackets (wrong-divisor now says "h / w"; was "another
  number").

Already named, now pinned: a divisor of h + w or of the padded map's size, a (1, 1, C) or column-vector pooled
vector, an upsampled or one-class map, min-max normalisation over all classes, fmap divided in place, V read by
tensordot as (C, K); to_channels_last by a permutation scattered (res[:, perm] = weight) or built on an (H, W, C)
grid, channel blocks concatenated or stacked, an int or float16 result, the permutation returned too, the rows or
columns reversed, a horizontal flip, np.roll over the channels, sizes by sqrt, a last row never ported.

Left as they are: root-mean-square pooling (np.sqrt((fmap ** 2).mean(...))) loses points with no finding, since no
catalogued mistake describes it; a column-vector pooled vector is wrong-shape with evidence from the one-class case.
"""
from __future__ import annotations

import pytest

from fc_notebooks import assert_loses_points_with, books_and_cells, grade_books, section
from test_fc_round11 import RIGHT

#: (what was done, the function, the findings it must get), by exercise
MISTAKES: dict[str, list[tuple[str, str, set[str]]]] = {
    "gap_head": [
        ('sum divided by h * w without brackets', """
            def gap_head(fmap, V, c):
                h, w, C = fmap.shape
                p = fmap.sum(axis=(0, 1)) / h * w
                return V @ p + c, fmap @ V.T + c
            """, {'wrong-divisor'}),
        ('sum divided by h + w', """
            def gap_head(fmap, V, c):
                h, w, C = fmap.shape
                p = fmap.sum(axis=(0, 1)) / (h + w)
                return V @ p + c, fmap @ V.T + c
            """, {'wrong-divisor'}),
        ('pooled vector kept (1, 1, C)', """
            def gap_head(fmap, V, c):
                p = fmap.mean(axis=(0, 1), keepdims=True)
                return p @ V.T + c, fmap @ V.T + c
            """, {'wrong-shape'}),
        ('pooled column vector p[:, None]', """
            def gap_head(fmap, V, c):
                p = fmap.mean(axis=(0, 1))[:, None]
                return (V @ p + c), fmap @ V.T + c
            """, {'wrong-shape'}),
        ('class map upsampled 2x for display', """
            def gap_head(fmap, V, c):
                cam = fmap @ V.T + c
                return cam.mean(axis=(0, 1)), np.kron(cam, np.ones((2, 2, 1)))
            """, {'wrong-shape'}),
        ('class map of the predicted class only', """
            def gap_head(fmap, V, c):
                logits = V @ fmap.mean(axis=(0, 1)) + c
                cam = fmap @ V.T + c
                return logits, cam[..., np.argmax(logits)]
            """, {'wrong-shape'}),
        ('class map min-max normalised over all classes', """
            def gap_head(fmap, V, c):
                cam = fmap @ V.T + c
                logits = cam.mean(axis=(0, 1))
                return logits, (cam - cam.min()) / (cam.max() - cam.min())
            """, {'normalised-map'}),
        ('class map minus its global maximum', """
            def gap_head(fmap, V, c):
                cam = fmap @ V.T + c
                return cam.mean(axis=(0, 1)), cam - cam.max()
            """, {'normalised-map'}),
        ('fmap divided in place by h*w', """
            def gap_head(fmap, V, c):
                h, w, C = fmap.shape
                fmap /= h * w
                logits = V @ fmap.sum(axis=(0, 1)) + c
                return logits, fmap @ V.T + c
            """, {'mutates-input', 'sum-pooling'}),
        ('root-mean-square pooling', """
            def gap_head(fmap, V, c):
                p = np.sqrt((fmap ** 2).mean(axis=(0, 1)))
                return V @ p + c, fmap @ V.T + c
            """, set()),
        ('class map from fmap.reshape(C, -1)', """
            def gap_head(fmap, V, c):
                h, w, C = fmap.shape
                cam = (V @ fmap.reshape(C, -1)).T.reshape(h, w, -1) + c
                return V @ fmap.mean(axis=(0, 1)) + c, cam
            """, {'channels-first-reshape'}),
        ('tensordot over V axis 0', """
            def gap_head(fmap, V, c):
                cam = np.tensordot(fmap, V, axes=([2], [0])) + c
                return cam.mean(axis=(0, 1)), cam
            """, {'transposed-weights'}),
        ('logits as the class map summed over rows, mean over columns', """
            def gap_head(fmap, V, c):
                cam = fmap @ V.T + c
                return cam.sum(axis=0).mean(axis=0), cam
            """, {'bias-count', 'wrong-divisor'}),
        ('class map rounded to 2 decimals', """
            def gap_head(fmap, V, c):
                cam = fmap @ V.T + c
                return cam.mean(axis=(0, 1)), np.round(cam, 2)
            """, {'rounded-output'}),
        ('logits from the class map without bias plus c per position', """
            def gap_head(fmap, V, c):
                cam = fmap @ V.T
                logits = cam.mean(axis=(0, 1)) + c
                return logits, cam
            """, {'bias-count'}),
        ('class map flipped upside down', """
            def gap_head(fmap, V, c):
                cam = fmap @ V.T + c
                return cam.mean(axis=(0, 1)), cam[::-1]
            """, {'class-map-layout'}),
        ('class map transposed to (K, w, h)', """
            def gap_head(fmap, V, c):
                cam = fmap @ V.T + c
                return cam.mean(axis=(0, 1)), cam.T
            """, {'class-map-layout'}),
        ('logits log-softmaxed', """
            def gap_head(fmap, V, c):
                z = V @ fmap.mean(axis=(0, 1)) + c
                return z - np.log(np.exp(z).sum()), fmap @ V.T + c
            """, {'activation-applied'}),
        ('class map L2-normalised per position', """
            def gap_head(fmap, V, c):
                cam = fmap @ V.T + c
                return cam.mean(axis=(0, 1)), cam / np.linalg.norm(cam, axis=-1, keepdims=True)
            """, {'normalised-map'}),
        ('pooling over the padded map', """
            def gap_head(fmap, V, c):
                p = np.pad(fmap, ((1, 1), (1, 1), (0, 0))).mean(axis=(0, 1))
                return V @ p + c, fmap @ V.T + c
            """, {'wrong-divisor'}),
    ],
    "to_channels_last": [
        ('permutation scattered instead of gathered', """
            def to_channels_last(weight, C, H, W):
                perm = np.arange(C * H * W).reshape(C, H, W).transpose(1, 2, 0).ravel()
                res = np.empty_like(weight)
                res[:, perm] = weight
                return res
            """, {'inverse-permutation'}),
        ('permutation built from an (H, W, C) grid', """
            def to_channels_last(weight, C, H, W):
                perm = np.arange(C * H * W).reshape(H, W, C).transpose(2, 0, 1).ravel()
                return weight[:, perm]
            """, {'inverse-permutation'}),
        ('flattened to one vector', """
            def to_channels_last(weight, C, H, W):
                return weight.reshape(-1, C, H, W).transpose(0, 2, 3, 1).flatten()
            """, {'wrong-shape'}),
        ('reshaped (H*W*C, out) at the end', """
            def to_channels_last(weight, C, H, W):
                return weight.reshape(-1, C, H, W).transpose(0, 2, 3, 1).reshape(H * W * C, -1)
            """, {'wrong-shape'}),
        ('(out, C, H*W) transposed with .T', """
            def to_channels_last(weight, C, H, W):
                out = weight.shape[0]
                return weight.reshape(out, C, H * W).T.reshape(out, -1)
            """, {'rows-mixed'}),
        ('channel blocks concatenated', """
            def to_channels_last(weight, C, H, W):
                n = H * W
                return np.concatenate([weight[:, c * n:(c + 1) * n] for c in range(C)], axis=1)
            """, {'reshape-only'}),
        ('channel blocks stacked on axis 1', """
            def to_channels_last(weight, C, H, W):
                n = H * W
                return np.stack([weight[:, c * n:(c + 1) * n] for c in range(C)], axis=1).reshape(len(weight), -1)
            """, {'reshape-only'}),
        ('result kept in an int array', """
            def to_channels_last(weight, C, H, W):
                res = np.zeros(weight.shape, dtype=int)
                res[:] = weight.reshape(-1, C, H, W).transpose(0, 2, 3, 1).reshape(len(weight), -1)
                return res
            """, {'wrong-dtype'}),
        ('returned with the permutation', """
            def to_channels_last(weight, C, H, W):
                perm = np.arange(C * H * W).reshape(C, H, W).transpose(1, 2, 0).ravel()
                return weight[:, perm], perm
            """, {'not-an-array'}),
        ('loop over rows and columns, channels at p::H*W', """
            def to_channels_last(weight, C, H, W):
                res = np.empty_like(weight)
                for p in range(H * W):
                    res[:, p::H * W] = weight[:, p * C:(p + 1) * C]
                return res
            """, {'inverse-permutation'}),
        ('channels-last of the transposed weight', """
            def to_channels_last(weight, C, H, W):
                return weight.T.reshape(-1, C, H, W).transpose(0, 2, 3, 1).reshape(weight.shape[1], -1)
            """, {'wrong-shape'}),
        ('np.roll of each channel block', """
            def to_channels_last(weight, C, H, W):
                w4 = weight.reshape(len(weight), C, H, W)
                return np.roll(w4, 1, axis=1).transpose(0, 2, 3, 1).reshape(len(weight), -1)
            """, {'axis-order'}),
        ('H and W read from the weight by sqrt', """
            def to_channels_last(weight, C, H, W):
                s = int(round((weight.shape[1] / C) ** 0.5))
                return weight.reshape(len(weight), C, s, s).transpose(0, 2, 3, 1).reshape(len(weight), -1)
            """, {'square-map-assumed'}),
        ('rows reversed as well', """
            def to_channels_last(weight, C, H, W):
                return weight.reshape(-1, C, H, W).transpose(0, 2, 3, 1).reshape(len(weight), -1)[::-1]
            """, {'rows-reordered'}),
        ('columns reversed after the port', """
            def to_channels_last(weight, C, H, W):
                return weight.reshape(-1, C, H, W).transpose(0, 2, 3, 1).reshape(len(weight), -1)[:, ::-1]
            """, {'axis-order'}),
        ('image flipped horizontally in the port', """
            def to_channels_last(weight, C, H, W):
                w4 = weight.reshape(-1, C, H, W)[:, :, :, ::-1]
                return w4.transpose(0, 2, 3, 1).reshape(len(weight), -1)
            """, {'axis-order'}),
        ('weight rounded to float16', """
            def to_channels_last(weight, C, H, W):
                w = weight.astype(np.float16)
                return w.reshape(-1, C, H, W).transpose(0, 2, 3, 1).reshape(len(weight), -1)
            """, {'wrong-dtype'}),
        ('port of the last row missing', """
            def to_channels_last(weight, C, H, W):
                res = weight.copy()
                for o in range(len(weight) - 1):
                    res[o] = weight[o].reshape(C, H, W).transpose(1, 2, 0).ravel()
                return res
            """, {'left-unfilled'}),
        ('(out, H*W, C) left 3-d', """
            def to_channels_last(weight, C, H, W):
                return weight.reshape(len(weight), C, H * W).transpose(0, 2, 1)
            """, {'wrong-shape'}),
    ],
}
BOOKS, CELLS = books_and_cells({}, MISTAKES, RIGHT)


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict:
    """Every notebook graded as the fc-layers assignment in one batch: each section by (student, exercise)."""
    return grade_books(tmp_path_factory.mktemp("fc-round12"), BOOKS)


@pytest.mark.parametrize("name, exercise_id, mistake", CELLS, ids=[f"{e}: {m[0]}" for _, e, m in CELLS])
def test_each_new_mistake_loses_points_and_gets_its_names(graded, name, exercise_id, mistake):
    assert_loses_points_with(graded[name], exercise_id, mistake[2])


def test_the_right_sections_stay_right(graded):
    for result in graded.values():
        for exercise_id in ("linear", "dense_scores"):
            graded_section = section(result, exercise_id)
            assert graded_section.score == graded_section.max_score and not graded_section.diagnoses


@pytest.mark.parametrize("what, said", [
    ("sum divided by h * w without brackets", "h / w"),
    ("class map minus its global maximum", "minus a single number"),
    ("class map rounded to 2 decimals", "rounded to 2 decimals"),
    ("class map flipped upside down", "cam[::-1]"),
    ("class map transposed to (K, w, h)", "(K, w, h)"),
    ("logits log-softmaxed", "log-softmax"),
    ("class map L2-normalised per position", "np.linalg.norm"),
])
def test_the_new_gap_head_evidence_says_what_was_done(graded, what, said):
    n = next(i for i, m in enumerate(MISTAKES["gap_head"]) if m[0] == what)
    found = section(graded[f"bad{n}"], "gap_head").diagnoses
    assert any(said in d.evidence for d in found), [(d.id, d.evidence) for d in found]
