"""Features replaced before FC1 by something computed from them that the ramp probes cannot read apart from a
generic change: each position's channels reduced to one number (their mean, sum or largest value,
``features.mean(axis=3)``) and fed to W1 one of the ways students make the shapes fit again, the features centred or
standardised per channel over the batch, averaged with their mirror image (test-time augmentation), or
floor-divided (``features // 255``).

Each entry of ``MAPS`` is (what the head received, why it is wrong, the change on the (B, H, W, C) features giving
the flattened (B, H*W*C) values FC1 then multiplied, or a tuple of such values whose logits are averaged).
``featurechanges.normalised`` fits them, with the usual normalisations, on every graded case and every probe; only
a head whose every answer one of them gives is named. Why: round seventeen and eighteen's per-position channel means
were a ``features-changed`` that did not say what the change was, and ``features // 255`` (a floor division typed for
a scaling) got no finding at all.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

Change = Callable[[np.ndarray], np.ndarray]

_CHANNELS = ("The C values at one position are the feature map's channels, each the response of its own filter; "
             "W1 has one row per position and channel, so averaging or adding them away and feeding W1 the "
             "reduced values gives FC1 other inputs than the ones its rows were made for. Flatten every value of "
             "each sample, features.reshape(B, -1), and multiply by W1 as it is.")


_PER_CHANNEL = ("Statistics of the batch belong to training or to a preprocessing step done once; inside the head they "
                "make each sample's logits depend on the other samples it is batched with. Pass the features to FC1 "
                "as they are.")


def _reduced(reduce: Callable, layout: Callable[[np.ndarray, int], np.ndarray]) -> Change:
    """Each position's channels reduced to one number, laid out over the H*W*C inputs of W1 by ``layout``."""
    def change(f: np.ndarray) -> np.ndarray:
        per_position = reduce(f, axis=3).reshape(f.shape[0], -1)
        return layout(per_position, f.shape[3])
    return change


def _repeated(m: np.ndarray, c: int) -> np.ndarray:
    return np.repeat(m, c, axis=1)


def _averaged_rows(m: np.ndarray, c: int) -> np.ndarray:
    return np.repeat(m, c, axis=1) / c


def _tiled(m: np.ndarray, c: int) -> np.ndarray:
    return np.tile(m, c)


def _first_rows(m: np.ndarray, c: int) -> np.ndarray:
    return np.concatenate([m, np.zeros((m.shape[0], m.shape[1] * (c - 1)))], axis=1)


def _every_cth_row(m: np.ndarray, c: int) -> np.ndarray:
    out = np.zeros((m.shape[0], m.shape[1] * c))
    out[:, ::c] = m
    return out


#: how the H*W reduced values were made to meet W1's H*W*C rows
_LAYOUTS = (
    ("repeated over the C channels of its position (as np.repeat(m, C, axis=1) does, or what comes to the same, "
     "multiplied by W1's C rows of that position summed)", _repeated),
    ("multiplied by the mean of W1's C rows of its position (W1.reshape(H * W, C, -1).mean(axis=1))", _averaged_rows),
    ("tiled C times (np.tile(m, C)), so the values meet rows of other positions", _tiled),
    ("multiplied by W1's first H x W rows only (W1[:H * W], or np.resize(W1, ...)), rows that belong to other "
     "positions and channels", _first_rows),
    ("multiplied by every C-th row of W1 (W1[::C]), the rows of channel 0 only", _every_cth_row),
)

_REDUCTIONS = (("mean", np.mean, "features.mean(axis=3)"), ("sum", np.sum, "features.sum(axis=3)"),
               ("largest value", np.max, "features.max(axis=3)"))

MAPS: tuple[tuple[str, str, Change], ...] = tuple(
    (f"the {name} over the channels at each position ({code}), one value per position, {where}", _CHANNELS,
     _reduced(reduce, layout))
    for name, reduce, code in _REDUCTIONS for where, layout in _LAYOUTS) + (
    ("the features minus each channel's mean over the batch and the positions (features - features.mean(axis=(0, "
     "1, 2)))", _PER_CHANNEL, lambda f: (f - f.mean(axis=(0, 1, 2))).reshape(f.shape[0], -1)),
    ("the features standardised per channel over the batch and the positions (minus features.mean(axis=(0, 1, 2)), "
     "divided by features.std(axis=(0, 1, 2)))", _PER_CHANNEL,
     lambda f: ((f - f.mean(axis=(0, 1, 2))) / f.std(axis=(0, 1, 2))).reshape(f.shape[0], -1)),
    ("the features and their mirror image along W (features[:, :, ::-1]), the logits of the two averaged, as "
     "test-time augmentation does", "The head is one fixed function of the features it is given; averaging it over "
     "flipped copies is a choice made outside it, and it changes every logit. Compute the head once, on the "
     "features as they are.", lambda f: (f.reshape(f.shape[0], -1), f[:, :, ::-1].reshape(f.shape[0], -1))),
    ("the features floor-divided by 255 (features // 255), whole numbers only", "// is floor division: it rounds "
     "each quotient down to a whole number, so every feature between 0 and 255 becomes 0 and every negative one "
     "-1; / divides without rounding. The features are passed to FC1 as they are, with no scaling at all.",
     lambda f: np.floor_divide(f, 255.0).reshape(f.shape[0], -1)),
)
