"""Hidden and public cases of the channels-last weight exercise.

A case is ``(weight, C, H, W)``: a float64 weight of shape (out, C*H*W) whose columns follow channels-first
flattening, and the three sizes as Python ints. Sizes are drawn per student within each group, so no size can be
written into the code:

* ``distinct``: C, H and W all different and at least 2, so every wrong axis order moves real values and a
  reshape that reads the sizes in the wrong order lands on other columns; one case has out < C*H*W, the other
  out > C*H*W (rows permuted instead of columns raises on the first and has the wrong shape on the second).
* ``square``: H = W, as in VGG, where swapping height and width still matters but every shape stays the same.
* ``edge``: out = 1, C = 1 (nothing to reorder), H = W = 1 (a single position: nothing to reorder either),
  H = 1 and W = 1 (a row or a column of positions). Code that squeezes axes, or reads C from a shape, breaks here.
* ``distinct-again``, in ``distinct``: the first case's sizes again with other numbers, drawn last, so an answer
  kept from an earlier call of the same sizes (a cache keyed by the shapes, or one holding the last call alone:
  it is called right after the first case) is wrong there.

Weights are drawn as PyTorch's ``nn.Linear`` draws them, U(-1/sqrt(n), 1/sqrt(n)) with n = C*H*W inputs; every
value is distinct, so a misplaced column is always a wrong value.

The VGG-16 fc6 case (out = 4096, C = 512, H = W = 7: 102,760,448 weights, 822 MB) is built once per grading run
and mapped by every child; it has no per-student part, and the reference runs on it once per build.
"""
from __future__ import annotations

import numpy as np

from grader.authoring import Case

FC6 = (4096, 512, 7, 7)


def _weight(rng: np.random.Generator, out: int, n: int, alloc=np.empty) -> np.ndarray:
    weight = alloc((out, n))
    rng.random(out=weight)
    weight -= 0.5
    weight *= 2.0 / np.sqrt(n)
    return weight


def _case(rng, name: str, group: str, out: int, C: int, H: int, W: int, shared=False, alloc=np.empty) -> Case:
    weight = _weight(rng, out, C * H * W, alloc)
    description = f"out={out}, C={C}, H={H}, W={W}: weight ({out}, {C * H * W})"
    return Case(name=name, group=group, args=(weight, int(C), int(H), int(W)), description=description,
                shared=shared)


def _distinct(rng, low: int, high: int) -> tuple[int, int, int]:
    C, H, W = (int(v) for v in rng.choice(np.arange(low, high + 1), size=3, replace=False))
    return C, H, W


def hidden_cases(rng: np.random.Generator) -> list[Case]:
    cases = []
    C, H, W = _distinct(rng, 2, 6)
    cases.append(_case(rng, "distinct-narrow", "distinct", int(rng.integers(2, 10)), C, H, W))
    C, H, W = _distinct(rng, 2, 5)
    cases.append(_case(rng, "distinct-wide", "distinct", C * H * W + int(rng.integers(1, 8)), C, H, W))
    side = int(rng.integers(2, 6))
    cases.append(_case(rng, "square", "square", int(rng.integers(2, 13)), int(rng.choice([c for c in range(2, 9)
                                                                                          if c != side])), side, side))
    cases.append(_case(rng, "square-7x7", "square", int(rng.integers(3, 11)), int(rng.integers(9, 17)), 7, 7))
    C, H, W = _distinct(rng, 2, 6)
    cases.append(_case(rng, "one-output", "edge", 1, C, H, W))
    H, W = _distinct(rng, 2, 6)[:2]
    cases.append(_case(rng, "one-channel", "edge", int(rng.integers(2, 8)), 1, H, W))
    cases.append(_case(rng, "one-position", "edge", int(rng.integers(2, 8)), int(rng.integers(2, 12)), 1, 1))
    C, W = _distinct(rng, 2, 6)[:2]
    cases.append(_case(rng, "one-row", "edge", int(rng.integers(2, 8)), C, 1, W))
    C, H = _distinct(rng, 2, 6)[:2]
    cases.append(_case(rng, "one-column", "edge", int(rng.integers(2, 8)), C, H, 1))
    first = cases[0]  # drawn last, so the other cases keep their numbers
    cases.append(_case(rng, "distinct-again", "distinct", first.args[0].shape[0], *first.args[1:]))
    # called right after its twin, so that a cache of the last call alone answers it with the twin's output
    return [cases[0], cases[-1], *cases[1:-1]]


def full_scale_case(rng: np.random.Generator, alloc=np.empty) -> Case:
    """VGG-16's fc6 weight as PyTorch stores it, (4096, 25088), 822 MB: built once per run, shared by every student."""
    return _case(rng, "vgg16-fc6", "full-scale", *FC6, shared=True, alloc=alloc)


def public_cases() -> list[Case]:
    """Cases a student may see (``grader check`` and the notebook's self-check): fixed seed, hidden-like sizes."""
    rng = np.random.default_rng(2015)  # the year of the FCN paper, which converted dense layers to convolutions
    return [
        _case(rng, "public-distinct", "distinct", 3, 2, 3, 4),
        _case(rng, "public-square", "square", 4, 3, 2, 2),
    ]


def trace(case: Case, output_shape: tuple[int, ...] | None) -> list[str]:
    """The dimension trace of one run, as the statement writes it, with the student's output shape."""
    weight, C, H, W = case.args
    out = weight.shape[0]
    return [
        f"weight {weight.shape}: {out} outputs, columns in (C, H, W) = ({C}, {H}, {W}) order [{weight.size:,} weights]",
        f"columns as (C, H*W) = ({C}, {H * W}) -> as (H*W, C) = ({H * W}, {C}) -> ({out}, {H * W * C})",
        f"your output: {tuple(output_shape) if output_shape else 'none'}",
    ]
