"""The diagnosis probes of the VGG head: tiny crafted inputs, public, that the grader runs beside the graded cases.

Seven square cases (2x3x2 features, every width 12, so that transposed weights and swapped layers still run), each
sensitive to a few mistakes and blind to the others (constant features hide the flatten order, symmetric weights
hide a transpose, zero biases hide a missing bias, large offsets keep a later ReLU in its linear range); the three
ramps of ``stages.py``; probe 'sizes' of ``structure.py``, whose sizes all differ; and probe 'pointwise', 1x1
features where flattening changes nothing. Every value is drawn from a fixed hash, never from NumPy's generators,
so the stored public outputs stay valid.
"""
from __future__ import annotations

import numpy as np

from grader.authoring import PROBE, Case

from . import stages as S
from . import structure as T


H, W, C = 2, 3, 2
N = H * W * C  # every width of the square probes: d_in = D1 = D2 = K = 12
OFFSET = 6.0  # keeps a later layer's pre-activations positive, so its ReLU passes them unchanged


# -- probes ------------------------------------------------------------------------------------------------------
def _pattern(shape, salt: int, values) -> np.ndarray:
    """Deterministic pseudo-random choice from ``values`` (a fixed hash, independent of NumPy's generators)."""
    count = int(np.prod(shape))
    idx = np.arange(count, dtype=np.uint64)
    mixed = (idx * np.uint64(2654435761) + np.uint64(salt * 97 + 13)) % np.uint64(2**32)
    mixed = (mixed ^ (mixed >> np.uint64(13))) * np.uint64(40503) % np.uint64(2**32)
    mixed = mixed ^ (mixed >> np.uint64(7))
    return np.asarray(values, dtype=np.float64)[(mixed % np.uint64(len(values))).astype(np.int64)].reshape(shape)


def _symmetric(salt: int) -> np.ndarray:
    a = _pattern((N, N), salt, (-0.5, -0.25, 0.0, 0.25, 0.5))
    return np.triu(a) + np.triu(a, 1).T


def _constant_features(values) -> np.ndarray:
    return np.asarray(values, dtype=np.float64)[:, None, None, None] * np.ones((1, H, W, C))


EYE = np.eye(N)
ZERO = np.zeros(N)
MIXED_BIAS = (-0.5, -0.375, -0.25, -0.125, 0.125, 0.25, 0.375, 0.5)


def _probe(name: str, description: str, *args) -> Case:
    return Case(name=name, group=PROBE, args=tuple(np.ascontiguousarray(a, dtype=np.float64) for a in args),
                description=description)


def probe_cases() -> list[Case]:
    """Seven tiny cases (2x3x2 features, every width 12), three ramps that read one stage each (``stages.py``),
    one case whose sizes all differ (``structure.py``) and one with 1x1 features (``shapefailures._pooled``); see
    the module docstring."""
    size = f"features {H}x{W}x{C}, every layer 12 wide"
    return [
        # distinct positive features through identity layers: the output is the flattened input itself
        _probe("flatten-order", f"B=3, {size}, identity weights, zero biases",
               (np.arange(3 * N).reshape(3, H, W, C) + 1) / 8, EYE, ZERO, EYE, ZERO, EYE, ZERO),
        # non-symmetric positive weights, zero biases: transposed or swapped matrices show, nothing else clips
        _probe("weights", f"B=3, {size}, non-symmetric weights, zero biases",
               _constant_features((1.0, 0.5, 1.5)),
               _pattern((N, N), 1, (0.0, 0.125, 0.25)), ZERO,
               _pattern((N, N), 2, (0.0, 0.125, 0.25)), ZERO,
               _pattern((N, N), 3, (0.0, 0.125, 0.25)), ZERO),
        # FC1 with both signs, then FC2 and FC3 as identities shifted into ReLU's linear range: output = h1
        _probe("fc1", f"B=3, {size}, FC2 and FC3 pass FC1's activations through",
               _constant_features((1.0, -1.0, 0.5)),
               _symmetric(4), _pattern(N, 5, MIXED_BIAS),
               EYE, np.full(N, OFFSET), EYE, np.full(N, -OFFSET)),
        # FC1 an identity on positive features, FC2 with both signs, FC3 shifted up: output = h2 + 6
        _probe("fc2", f"B=3, {size}, FC1 passes the features, FC3 passes FC2's activations (+6)",
               _constant_features((1.0, 0.5, 2.0)),
               EYE, ZERO, _symmetric(6), _pattern(N, 7, MIXED_BIAS), EYE, np.full(N, OFFSET)),
        # FC1, FC2 identities on positive features, FC3 with both signs: output = logits of mixed sign
        _probe("fc3", f"B=3, {size}, FC1 and FC2 pass the features, logits of both signs",
               _constant_features((1.0, 0.5, 2.0)),
               EYE, ZERO, EYE, ZERO, _symmetric(8), _pattern(N, 9, MIXED_BIAS)),
        # everything at once, in a batch and for a single sample
        _probe("mixed", f"B=3, {size}, general weights and biases",
               _pattern((3, H, W, C), 10, (-1.0, -0.75, -0.5, -0.25, 0.25, 0.5, 0.75, 1.0)),
               _pattern((N, N), 11, (-0.5, -0.25, 0.0, 0.25, 0.5)), _pattern(N, 12, MIXED_BIAS),
               _pattern((N, N), 13, (-0.5, -0.25, 0.0, 0.25, 0.5)), _pattern(N, 14, MIXED_BIAS),
               _pattern((N, N), 15, (-0.5, -0.25, 0.0, 0.25, 0.5)), _pattern(N, 16, MIXED_BIAS)),
        _probe("mixed-single", f"B=1, {size}, general weights and biases",
               _pattern((1, H, W, C), 17, (-1.0, -0.75, -0.5, -0.25, 0.25, 0.5, 0.75, 1.0)),
               _pattern((N, N), 18, (-0.5, -0.25, 0.0, 0.25, 0.5)), _pattern(N, 19, MIXED_BIAS),
               _pattern((N, N), 20, (-0.5, -0.25, 0.0, 0.25, 0.5)), _pattern(N, 21, MIXED_BIAS),
               _pattern((N, N), 22, (-0.5, -0.25, 0.0, 0.25, 0.5)), _pattern(N, 23, MIXED_BIAS)),
        *S.ramp_probes(),
        T.sizes_probe(),
        # 1x1 features, where flattening changes nothing: features left unflattened meet W1 as they are and give a
        # 4-D result, pooled ones give the right logits (``shapefailures._pooled`` tells the two apart: they fail
        # alike elsewhere)
        _probe("pointwise", "B=2, features 1x1x12, every layer 12 wide, general weights and biases",
               _pattern((2, 1, 1, N), 24, (-1.0, -0.5, 0.25, 0.5, 1.0)),
               _pattern((N, N), 25, (-0.5, -0.25, 0.0, 0.25, 0.5)), _pattern(N, 26, MIXED_BIAS),
               _pattern((N, N), 27, (-0.5, -0.25, 0.0, 0.25, 0.5)), _pattern(N, 28, MIXED_BIAS),
               _pattern((N, N), 29, (-0.5, -0.25, 0.0, 0.25, 0.5)), _pattern(N, 30, MIXED_BIAS)),
    ]
