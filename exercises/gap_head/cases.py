"""Hidden and public cases of the global-average-pooling head.

A case is ``(fmap, V, c)``: a feature map of shape (h, w, C), channels last, the class weights V of shape (K, C)
as PyTorch's ``nn.Linear`` stores them, and the bias c of shape (K,). Sizes are drawn per student within each
group, so none can be written into the code:

* ``square``: h = w, as in every classifier of the article (7 x 7 in GoogLeNet and ResNet, 28 x 28 and 40 x 40 in its
  check); C and K differ from h and from each other, so channels taken for positions, or V read as (C, K), fail.
* ``non-square``: h != w, with h, w, C and K all different: a class map laid out (w, h, K) or (K, h, w) has the
  wrong shape, and a mean over the wrong axes cannot line up with V.
* ``edge``: a single position (h = w = 1, where the mean, the sum and the maximum over positions all coincide and
  the class map is the logits), one channel (C = 1), one class (K = 1), a single row and a single column.
* ``googlenet``: GoogLeNet's head, a 7 x 7 x 1024 map and 1,000 classes (1,025,000 parameters).
* ``square-again``, in ``square``: the first case's sizes again with other numbers, drawn last, so an answer kept
  from an earlier call of the same sizes (a cache keyed by the shapes, or one holding the last call alone: it is
  called right after the first case) is wrong there.

Feature values are uniform in [0, 1), non-negative and positive almost surely, like the output of a ReLU; V and c
are drawn as ``nn.Linear`` draws them, U(-1/sqrt(C), 1/sqrt(C)), so logits have both signs. No case has as many
channels as positions (C != h*w), so a sum divided by C is never the mean. Nothing here is large enough for a shared
case.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from grader.authoring import Case


def _case(rng: np.random.Generator, name: str, group: str, h: int, w: int, C: int, K: int) -> Case:
    fmap = rng.random((h, w, C))
    bound = 1.0 / np.sqrt(C)
    V = (rng.random((K, C)) - 0.5) * (2.0 * bound)
    c = (rng.random(K) - 0.5) * (2.0 * bound)
    description = f"map {h}x{w}x{C}, K={K}"
    return Case(name=name, group=group, args=(fmap, V, c), description=description)


def _distinct(rng, count: int, low: int, high: int) -> list[int]:
    return [int(v) for v in rng.choice(np.arange(low, high + 1), size=count, replace=False)]


def hidden_cases(rng: np.random.Generator) -> list[Case]:
    def square() -> tuple:
        side, C, K = _distinct(rng, 3, 2, 9)
        return side, side, C, K

    def square_wide() -> tuple:
        side = int(rng.integers(3, 10))
        return side, side, int(rng.integers(10, 21)), int(rng.integers(21, 41))

    def tall() -> tuple:
        a, b, C, K = _distinct(rng, 4, 2, 12)
        return max(a, b), min(a, b), C, K

    # 'square' is never GoogLeNet's 7 x 7: when it and 'square-wide' both were (23 students in 1,000), a sum
    # divided by a fixed 49 kept the 'square' points that it loses for every other student
    cases = [_case(rng, "square", "square", *_sizes(square, lambda h, w, C, K: h != 7))]
    cases.append(_case(rng, "square-wide", "square", *_sizes(square_wide)))
    non_square = _sizes(lambda: tuple(_distinct(rng, 4, 2, 9)))
    cases.append(_case(rng, "non-square", "non-square", *non_square))
    cases.append(_case(rng, "non-square-tall", "non-square", *_sizes(tall, lambda *sizes: sizes != non_square)))
    C, K = _distinct(rng, 2, 2, 12)
    cases.append(_case(rng, "one-position", "edge", 1, 1, C, K))
    h, w, K = _distinct(rng, 3, 2, 7)
    cases.append(_case(rng, "one-channel", "edge", h, w, 1, K))
    cases.append(_case(rng, "one-class", "edge", *_sizes(lambda: (*_distinct(rng, 3, 2, 7), 1))))
    w, C, K = _distinct(rng, 3, 2, 9)
    cases.append(_case(rng, "one-row", "edge", 1, w, C, K))
    h, C, K = _distinct(rng, 3, 2, 9)
    cases.append(_case(rng, "one-column", "edge", h, 1, C, K))
    cases.append(_case(rng, "googlenet", "googlenet", 7, 7, 1024, 1000))
    h, w, C = cases[0].args[0].shape  # drawn last, so the other cases keep their numbers
    cases.append(_case(rng, "square-again", "square", h, w, C, cases[0].args[1].shape[0]))
    # called right after its twin, so that a cache of the last call alone answers it with the twin's output
    return [cases[0], cases[-1], *cases[1:-1]]


def _sizes(draw: Callable[[], tuple], also: Callable[..., bool] = lambda *sizes: True) -> tuple[int, int, int, int]:
    """``draw()``'s (h, w, C, K), drawn again while C equals the h*w positions (or ``also`` says no).

    Students' cases are drawn apart, so a size that matches only on some draws makes the same code score
    differently: a sum divided by C rather than h*w is the mean where C == h*w, and kept the 'square' logits points
    for 4 students in 8,000 ('square' 2 x 2 x 4 or 3 x 3 x 9 and 'square-wide' 4 x 4 x 16). ``also``: what a case
    needs besides (not GoogLeNet's 7 x 7; not the shapes of the case before, which a cache keyed by the shapes
    would answer with that case's output, about 1 student in 8,000 for 'non-square-tall')."""
    for _ in range(64):
        h, w, C, K = draw()
        if C != h * w and also(h, w, C, K):
            break
    return h, w, C, K


def public_cases() -> list[Case]:
    """Cases a student may see (``grader check`` and the notebook's self-check): fixed seed, hidden-like sizes."""
    rng = np.random.default_rng(2016)  # the year of Zhou et al.'s class activation maps
    return [
        _case(rng, "public-square", "square", 3, 3, 4, 2),
        _case(rng, "public-non-square", "non-square", 2, 5, 3, 4),
    ]


def trace(case: Case, output_shape: tuple[int, ...] | None) -> list[str]:
    """The dimension trace of one run, as the statement writes it, with the student's output shape."""
    fmap, V, c = case.args
    h, w, C = fmap.shape
    K = V.shape[0]
    return [
        f"fmap ({h}, {w}, {C}) -> average over {h * w} positions -> ({C},)",
        f"linear layer V ({K}, {C}), c ({K},) -> logits ({K},)  [{V.size + c.size:,} parameters]",
        f"the same layer at every position -> class_map ({h}, {w}, {K})",
        f"your first output: {tuple(output_shape) if output_shape else 'none'}",
    ]
