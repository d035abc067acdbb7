"""Hidden and public cases of the linear layer, y = x W^T + b (nn.Linear's convention).

Every case draws its numbers per student, and one (``drawn``) its shape too; the other shapes are fixed so that
each catalogued mistake shows somewhere:

* ``batch``: x of shape (N, in) with out != in, so an untransposed weight fails on a shape mismatch, and N differs
  from out, so a bias added along the sample axis fails to broadcast. One case has N = 1.
* ``vector``: x of shape (in,), no leading axis at all (one case with in = 1).
* ``leading``: two and three leading axes, one of them of size 1, out != in.
* ``square``: out == in, where an untransposed weight runs and silently gives other numbers; one of them has as
  many samples as outputs, where a bias added per sample instead of per output also runs.
* ``no-bias``: the bias left out of the call (``linear(x, weight)``) or passed as None.
* ``batch-again``, in ``batch``: the first case's shapes again with other numbers, drawn last (so the other cases
  keep their numbers) and called right after the first, so an answer kept from an earlier call of the same shapes
  (a cache keyed by the shapes, or one holding the last call alone) is wrong there.

Weights and biases are drawn as ``nn.Linear`` initialises them, uniform in (-1/sqrt(in), 1/sqrt(in)); x is
standard normal.
"""
from __future__ import annotations

import numpy as np

from grader.authoring import Case

OMIT, NONE, GIVEN = "omitted", "None", "given"

# (name, group, leading axes, in_features, out_features, bias)
HIDDEN_SIZES = (
    ("batch", "batch", (6,), 5, 3, GIVEN),
    ("batch-one-row", "batch", (1,), 7, 4, GIVEN),
    ("vector", "vector", (), 5, 3, GIVEN),
    ("vector-one-input", "vector", (), 1, 3, GIVEN),
    ("leading-2", "leading", (2, 3), 5, 4, GIVEN),
    ("leading-3", "leading", (3, 1, 2), 4, 6, GIVEN),
    ("square", "square", (5,), 4, 4, GIVEN),
    ("square-rows", "square", (3,), 3, 3, GIVEN),
    ("square-leading", "square", (2, 3), 5, 5, GIVEN),
    ("no-bias", "no-bias", (3,), 4, 2, OMIT),
    ("no-bias-none", "no-bias", (2, 2), 3, 5, NONE),
    ("no-bias-vector", "no-bias", (), 6, 2, OMIT),
)

PUBLIC_SIZES = (
    ("public-batch", "batch", (3,), 5, 4, GIVEN),
    ("public-vector", "vector", (), 5, 4, GIVEN),
    ("public-leading", "leading", (2, 3), 5, 4, GIVEN),
    ("public-square", "square", (2,), 3, 3, GIVEN),
    ("public-no-bias", "no-bias", (2,), 3, 2, OMIT),
)


def describe(x_shape, out_features: int, bias: str) -> str:
    in_features = x_shape[-1]
    text = f"x {tuple(x_shape)}, weight ({out_features}, {in_features}), "
    return text + {GIVEN: f"bias ({out_features},)", OMIT: "bias left out", NONE: "bias=None"}[bias]


def make(rng: np.random.Generator, name, group, leading, in_features, out_features, bias) -> Case:
    x = rng.standard_normal((*leading, in_features))
    bound = 1.0 / np.sqrt(in_features)
    weight = rng.uniform(-bound, bound, (out_features, in_features))
    b = rng.uniform(-bound, bound, out_features)
    args = {GIVEN: (x, weight, b), OMIT: (x, weight), NONE: (x, weight, None)}[bias]
    return Case(name=name, group=group, args=args, description=describe(x.shape, out_features, bias))


def random_sizes(rng: np.random.Generator) -> tuple:
    """One more case whose shape is drawn per student: one to three leading axes, in != out, and no leading size
    equal to in or out (so that no mistake's shapes happen to fit by chance).

    Drawn again until no fixed case has the same shapes: about 1 student in 170 drew 'batch' or 'leading-2' again,
    and an answer kept by the shapes then lost the 'leading' points too, which it keeps for every other student."""
    taken = {(leading, n_in, n_out) for _, _, leading, n_in, n_out, _ in HIDDEN_SIZES}
    for _ in range(64):
        in_features, out_features = (int(v) for v in rng.choice(np.arange(2, 10), size=2, replace=False))
        sizes = [n for n in range(2, 7) if n not in (in_features, out_features)]
        leading = tuple(int(v) for v in rng.choice(sizes, size=int(rng.integers(1, 4))))
        if (leading, in_features, out_features) not in taken:
            break
    return ("drawn", "leading", leading, in_features, out_features, GIVEN)


#: drawn after every other case: the shapes of 'batch' with other numbers
AGAIN = ("batch-again", "batch", (6,), 5, 3, GIVEN)


def hidden_cases(rng: np.random.Generator) -> list[Case]:
    cases = [_shows_each_mistake(rng, sizes) for sizes in (*HIDDEN_SIZES, random_sizes(rng), AGAIN)]
    return twin_first(cases)


def _shows_each_mistake(rng: np.random.Generator, sizes: tuple) -> Case:
    """A case drawn again (same sizes, other numbers) until x has a negative value and the output has both signs.

    Students' cases are drawn apart, so a property that holds only on most draws makes the same code score
    differently for two students: the 'vector' group's two small cases had all-positive outputs for about 1 student
    in 100, and then a ReLU on the output (or ``y / (y > 0)``) kept those 2 points; with x all positive there too,
    a ReLU applied in place to x did. A negative input and outputs of both signs in every case make them fail on
    every case, for every student."""
    for _ in range(64):
        case = make(rng, *sizes)
        x, weight = case.args[0], case.args[1]
        bias = case.args[2] if len(case.args) > 2 and case.args[2] is not None else 0.0
        y = x @ weight.T + bias
        if x.min() < 0 and y.min() < 0 < y.max():
            return case
    return case  # never reached in practice (the smallest case, one input, takes about 3 draws)


def twin_first(cases: list[Case]) -> list[Case]:
    """The last case drawn (the first one's shapes again) called right after the first: a cache of the last call
    alone, keyed by the shapes, answers it with the first case's output, which it would not from any other place."""
    return [cases[0], cases[-1], *cases[1:-1]]


def public_cases() -> list[Case]:
    """Cases a student may see (``grader check`` and the notebook's self-check): a fixed seed."""
    rng = np.random.default_rng(1958)  # the year of Rosenblatt's perceptron paper
    return [make(rng, *sizes) for sizes in PUBLIC_SIZES]


def trace(case: Case, output_shape: tuple[int, ...] | None) -> list[str]:
    x, weight = case.args[0], case.args[1]
    bias = case.args[2] if len(case.args) > 2 else None
    out = (*x.shape[:-1], weight.shape[0])
    lines = [f"x {x.shape} @ weight.T {weight.T.shape} -> {out}" + ("" if bias is None else f" + bias {bias.shape}"),
             f"parameters {weight.size + (0 if bias is None else bias.size):,}; "
             f"your output: {tuple(output_shape) if output_shape else 'none'}"]
    return lines
