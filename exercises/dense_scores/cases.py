"""Hidden and public cases of dense_scores: a fully connected layer learnt on k x k x C windows (flattened
channels-last, weight of shape (out, k*k*C) as nn.Linear stores it), evaluated at every window of a larger
(H, W, C) map with stride 1.

The numbers are drawn per student, and one case (``drawn``) draws its shape too; the other shapes are fixed, so
that each catalogued mistake shows somewhere:

* ``grid``: square maps with 1 < k < H, where non-overlapping windows give a smaller grid than stride 1, a
  channels-first flatten gives other numbers, and the grid's size is easy to get off by one.
* ``pointwise``: k = 1, the layer applied to the C-vector at every position (a 1 x 1 convolution).
* ``whole``: k = H, the window as tall as the map: a single position (k = H = W) or a single row of positions.
* ``shapes``: non-square maps (H != W, so the grid's axes cannot be swapped unnoticed), C = 1, out = 1.
* ``grid-again``, in ``grid``: the first case's sizes again with other numbers, drawn last (so the other cases keep
  their numbers) and called right after the first, so an answer kept from an earlier call of the same sizes (a
  cache keyed by the shapes, or one holding the last call alone) is wrong.

No case has out == k*k*C, so a weight used without its transpose fails on a shape mismatch (the probe in
``diagnosis.py`` has one, so that the mistake's numbers can also be read). Weights and biases are drawn as
``nn.Linear`` initialises them, uniform in (-1/sqrt(k*k*C), 1/sqrt(k*k*C)); the map is standard normal. Each case
is drawn again until its scores have both signs, so a mistake that a property of the numbers reveals fails on
every student's cases, not on most of them.
"""
from __future__ import annotations

import numpy as np

from grader.authoring import Case

# (name, group, H, W, C, k, out)
HIDDEN_SIZES = (
    ("grid", "grid", 6, 6, 3, 3, 4),
    ("grid-k2", "grid", 5, 5, 2, 2, 5),
    ("pointwise", "pointwise", 4, 5, 3, 1, 2),
    ("pointwise-one-channel", "pointwise", 3, 2, 1, 1, 3),
    ("whole", "whole", 3, 3, 4, 3, 5),
    ("whole-height", "whole", 2, 5, 3, 2, 3),
    ("tall", "shapes", 7, 4, 2, 3, 3),
    ("one-channel", "shapes", 5, 7, 1, 2, 6),
    ("one-output", "shapes", 6, 4, 3, 2, 1),
)

PUBLIC_SIZES = (
    ("public-grid", "grid", 5, 4, 3, 2, 2),
    ("public-pointwise", "pointwise", 3, 4, 2, 1, 3),
    ("public-whole", "whole", 3, 3, 2, 3, 2),
)


def describe(H, W, C, k, out) -> str:
    return f"fmap ({H}, {W}, {C}), k={k}, weight ({out}, {k * k * C}), bias ({out},)"


def make(rng: np.random.Generator, name, group, H, W, C, k, out) -> Case:
    fmap = rng.standard_normal((H, W, C))
    bound = 1.0 / np.sqrt(k * k * C)
    weight = rng.uniform(-bound, bound, (out, k * k * C))
    bias = rng.uniform(-bound, bound, out)
    return Case(name=name, group=group, args=(fmap, weight, bias, k), description=describe(H, W, C, k, out))


def random_sizes(rng: np.random.Generator) -> tuple:
    """One more case whose shape is drawn per student: a non-square map, 1 < k < min(H, W), out != k*k*C.

    Drawn again while it has a fixed case's sizes, or a grid k positions long on either axis (H - k + 1 == k or
    W - k + 1 == k), as no fixed case has. Either made the same code score differently between students: a cache
    keyed by the shapes answered the drawn case with 'tall' or 'one-channel''s scores and lost the 'shapes' points
    too (9 students in 5,000), and a loop that reads k as the count of windows per side ran on a drawn 2k-1 high map
    alone and kept 4 points that it gets on no other case (94 students in 500)."""
    taken = {sizes[2:] for sizes in HIDDEN_SIZES}
    for _ in range(64):
        H, W = (int(v) for v in rng.choice(np.arange(3, 9), size=2, replace=False))
        k = int(rng.integers(2, min(H, W)))
        C = int(rng.integers(1, 4))
        out = int(rng.choice([n for n in range(1, 7) if n != k * k * C]))
        if (H, W, C, k, out) not in taken and k not in (H - k + 1, W - k + 1):
            break
    return ("drawn", "shapes", H, W, C, k, out)


#: drawn after every other case: the sizes of 'grid' with other numbers
AGAIN = ("grid-again", "grid", 6, 6, 3, 3, 4)


def hidden_cases(rng: np.random.Generator) -> list[Case]:
    cases = [_both_signs(rng, sizes) for sizes in (*HIDDEN_SIZES, random_sizes(rng), AGAIN)]
    return twin_first(cases)


def _both_signs(rng: np.random.Generator, sizes: tuple) -> Case:
    """A case drawn again (same sizes, other numbers) until its scores have both signs.

    The 'whole' case has 5 scores, all positive for about 1 student in 35, and 'whole-height' 12; where both were,
    a ReLU on the scores kept the 'whole' points it loses for every other student. With a negative score in every
    case, it fails everywhere for everyone."""
    for _ in range(64):
        case = make(rng, *sizes)
        scores = _scores(*case.args)
        if scores.min() < 0 < scores.max():
            return case
    return case  # never reached in practice: the smallest case, 5 scores, takes about 1.1 draws


def _scores(fmap: np.ndarray, weight: np.ndarray, bias: np.ndarray, k: int) -> np.ndarray:
    """The layer at every k x k window, each flattened channels-last: the signs its numbers are drawn again for."""
    H, W, C = fmap.shape
    windows = np.lib.stride_tricks.sliding_window_view(fmap, (k, k), axis=(0, 1))  # (H', W', C, k, k)
    return windows.transpose(0, 1, 3, 4, 2).reshape(H - k + 1, W - k + 1, k * k * C) @ weight.T + bias


def twin_first(cases: list[Case]) -> list[Case]:
    """The last case drawn (the first one's shapes again) called right after the first: a cache of the last call
    alone, keyed by the shapes, answers it with the first case's output, which it would not from any other place."""
    return [cases[0], cases[-1], *cases[1:-1]]


def public_cases() -> list[Case]:
    """Cases a student may see (``grader check`` and the notebook's self-check): a fixed seed."""
    rng = np.random.default_rng(2015)  # the year of Long, Shelhamer and Darrell's fully convolutional networks
    return [make(rng, *sizes) for sizes in PUBLIC_SIZES]


def trace(case: Case, output_shape: tuple[int, ...] | None) -> list[str]:
    fmap, weight, _, k = case.args
    H, W, C = fmap.shape
    return [f"fmap {fmap.shape}: {(H - k + 1) * (W - k + 1)} windows of {k}x{k}x{C} = {k * k * C} values",
            f"each window -> {weight.shape[0]} scores; expected ({H - k + 1}, {W - k + 1}, {weight.shape[0]}), "
            f"your output: {tuple(output_shape) if output_shape else 'none'}"]
