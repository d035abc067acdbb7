"""Hidden and public cases of the VGG classifier head.

Sizes are chosen so that every catalogued mistake shows: H, W and C all differ (a wrong flatten order permutes
real values), B > 1 (a lost batch axis), nothing is square (transposed weights fail), and no size is VGG's (a
hard-coded 25088 or 4096 fails). Each values check has a batched case whose B is none of H, W and C, so a batch
size read from another axis fails it ('batch' has B = C = 4, 'large' and 'tall' do not). Weights are scaled by
1/sqrt(fan_in) and biases have both signs, so about half of every layer's pre-activations are negative: ReLU, its
absence and an activation on the logits all matter.
Two cases share every size ('batch' and 'batch-same-sizes', drawn apart, called one after the other): a function
that keeps its answers by the inputs' shapes (or by anything but their values), or keeps only its last answer,
gives the first one's logits for the second.
The 'large' case scales its features by 16, as large as a real convolutional part's outputs can be: with unit
features every hidden value and logit stays small, and an activation that only departs from ReLU above some bound
(ReLU6, a clip of the logits at +-10) would pass every other case; there every hidden value exceeds 20 somewhere
and some logit exceeds 10 for every draw we tried (3000 seeds).

The VGG16-scale case has VGG16's head's shapes (123,642,856 parameters, about 1 GB as the student's code sees
them): its features and weights are built once per grading run and shared by every student (mapped files), while
b3 is drawn per student and its expected logits are the shared pre-bias logits, cached once, plus that b3.
W1's 25,088 rows and W2's 4,096 repeat every 320 rows (10 MiB each, ``repeat_rows``): each student's ``x @ W1``
then reads those 10 MiB from the cache 78 times instead of streaming 822 MB from memory (about 45 ms on one core,
against 77 ms alone and 120 ms when both cores stream at once), and the entry to build is 53 MB instead of 1 GB.
No flatten mistake survives the period: the flattened index of (h, w, c) is 512 (7h + w) + c, and a spatial
transpose or a channels-first order moves most values by amounts that are not multiples of 320. W2, the one square
matrix, still catches a transposed product (its transpose repeats columns, not rows). W3 is drawn whole.
"""
from __future__ import annotations

import numpy as np

from grader.authoring import Case, repeat_rows

# (name, group, B, H, W, C, D1, D2, K)
HIDDEN_SIZES = (
    ("single", "single", 1, 3, 2, 5, 12, 9, 7),
    ("batch", "batch", 4, 2, 3, 4, 16, 10, 6),
    ("tall", "shapes", 3, 5, 1, 4, 7, 11, 2),
    ("wide-output", "shapes", 2, 1, 4, 6, 5, 3, 13),
    ("mid", "shapes", 5, 4, 3, 2, 40, 20, 10),
    ("batch-same-sizes", "batch", 4, 2, 3, 4, 16, 10, 6),  # after the others, so they draw what they drew
    ("large", "batch", 3, 2, 5, 4, 21, 17, 6, 16.0),  # large features: values beyond ReLU6's or a clip's bound
)
#: one image at VGG16 scale (batches are the small cases' job): with B = 2, ``x @ W1`` is a matrix product whose
#: BLAS packs all of W1 first (41 ms on one core), with B = 1 a matrix-vector product (15 ms); the batch of the
#: 20 peer notebooks with the case took 1.05 s instead of 1.44 s (median of 6, alternated)
VGG16 = ("vgg16", "full-scale", 1, 7, 7, 512, 4096, 4096, 1000)
W1_PERIOD = 320  # rows: 320 x 4096 float64 = 10 MiB, five huge pages


def _make(rng: np.random.Generator, name, group, B, H, W, C, D1, D2, K, scale=1.0, shared=False,
          alloc=np.empty, period=None) -> Case:
    """Features ~ N(0, scale^2); weights uniform with He's variance 2/fan_in, drawn in place (fast at VGG scale).
    ``period``: W1's and W2's rows repeat with it (only their first ``period`` rows are drawn)."""
    d_in = H * W * C
    features = alloc((B, H, W, C))
    rng.standard_normal(out=features)
    if scale != 1.0:
        features *= scale
    widths = (d_in, D1, D2, K)
    args = [features]
    for layer, (fan_in, fan_out) in enumerate(zip(widths[:-1], widths[1:])):
        rows = period if layer < 2 and period else fan_in  # W1 and W2: rows of 32 KiB at VGG16 scale
        weight = alloc((rows, fan_out))
        rng.random(out=weight)
        weight -= 0.5
        weight *= 2.0 * np.sqrt(6.0 / fan_in)
        if rows != fan_in:
            weight = repeat_rows(alloc, weight, fan_in)
        bias = alloc((fan_out,))
        rng.random(out=bias)
        bias -= 0.5
        args += [weight, bias]
    description = f"B={B}, features {H}x{W}x{C} -> {d_in} -> {D1} -> {D2} -> {K}" + (
        f", features scaled by {scale:g}" if scale != 1.0 else "")
    return Case(name=name, group=group, args=tuple(args), description=description, shared=shared)


#: the order the hidden cases are called in: 'batch-same-sizes' right after its twin, so that a cache of the last
#: call alone is caught too (they are drawn in HIDDEN_SIZES' order, so each keeps the numbers it had)
CALL_ORDER = ("single", "batch", "batch-same-sizes", "tall", "wide-output", "mid", "large")


def hidden_cases(rng: np.random.Generator) -> list[Case]:
    drawn = {case.name: case for case in (_shows_each_mistake(rng, sizes) for sizes in HIDDEN_SIZES)}
    return [drawn[name] for name in CALL_ORDER]


def _shows_each_mistake(rng: np.random.Generator, sizes: tuple) -> Case:
    """A case drawn again until, in every sample, each layer's pre-activations and the logits have both signs.

    Students' cases are drawn apart, so a property that holds only on most draws makes the same code score
    differently for two students: the 'single' case's 7 logits were all positive for about 1 student in 128, and
    then a ReLU on the logits passed that check (one of a class of 1,000 copies scored 11 where the other 49 scored
    8). Both signs in every row make a missing ReLU, an extra one and anything that treats negative values apart
    show on every case, for every student."""
    for _ in range(64):
        case = _make(rng, *sizes)
        features, W1, b1, W2, b2, W3, b3 = case.args
        z1 = features.reshape(len(features), -1) @ W1 + b1
        z2 = np.maximum(z1, 0.0) @ W2 + b2
        logits = np.maximum(z2, 0.0) @ W3 + b3
        if all(np.all(z.min(axis=1) < 0) and np.all(z.max(axis=1) > 0) for z in (z1, z2, logits)):
            return case
    return case  # never reached in practice (a draw fails about one time in 60 at worst)


def full_scale_case(rng: np.random.Generator, alloc=np.empty) -> Case:
    """VGG16's own head, 123,642,856 parameters (about 1 GB of float64), built once per run and shared by every
    student; ``personalise_full_scale`` then gives each student their own b3."""
    return _make(rng, *VGG16, shared=True, alloc=alloc, period=W1_PERIOD)


B3 = 6  # the position of b3 among the arguments


def personalise_full_scale(case: Case, rng: np.random.Generator) -> dict[int, np.ndarray]:
    """Each student's own b3 (FC3's bias, 1000 values, drawn as the shared biases are): an output copied from a
    classmate is off by the difference of two biases, about 0.4 per logit. Only b3 changes, so everything before
    it stays shared and the expected output is the cached pre-bias logits plus this bias. Making W3 per student
    as well would cost about 17 ms to draw, 6 ms to multiply and 32 MB to send per student."""
    b3 = rng.random(case.args[B3].shape)
    b3 -= 0.5
    return {B3: b3}


def full_scale_cache(case: Case) -> dict[str, np.ndarray]:
    """What every student's expected output shares: FC2's activations and the pre-bias logits h2 @ W3 (one pass
    over W1's 800 MB, once per run), in the reference's own formulation."""
    features, W1, b1, W2, b2, W3, _ = case.args
    x = features.reshape(features.shape[0], -1)
    h1 = np.maximum(0.0, x @ W1 + b1)
    h2 = np.maximum(0.0, h1 @ W2 + b2)
    return {"h2": h2, "W3": W3, "logits": h2 @ W3}


def full_scale_expected(case: Case, cache: dict[str, np.ndarray]) -> np.ndarray:
    """A student's expected logits: the cached h2 @ W3 plus their b3, in microseconds."""
    W3, b3 = case.args[B3 - 1], case.args[B3]
    logits = cache["logits"] if W3 is cache["W3"] else cache["h2"] @ W3
    return logits + b3


def public_cases() -> list[Case]:
    """Cases a student may see (``grader check``): fixed seed, same sizes as the hidden ones."""
    rng = np.random.default_rng(2014)  # the year of the VGG paper
    return [
        _make(rng, "public-single", "single", 1, 3, 2, 4, 6, 5, 3),
        _make(rng, "public-batch", "batch", 3, 2, 3, 4, 8, 7, 5),
    ]


def trace(case: Case, output_shape: tuple[int, ...] | None) -> list[str]:
    """The dimension trace of one run, as the statement writes it, with the student's output shape."""
    features, W1, _, W2, _, W3, _ = case.args
    B, H, W, C = features.shape
    lines = [
        f"features {features.shape}",
        f"flatten -> ({B}, {H * W * C})",
        f"FC1 + ReLU -> ({B}, {W1.shape[1]})  [{W1.size + W1.shape[1]:,} parameters]",
        f"FC2 + ReLU -> ({B}, {W2.shape[1]})  [{W2.size + W2.shape[1]:,} parameters]",
        f"FC3 -> ({B}, {W3.shape[1]})  [{W3.size + W3.shape[1]:,} parameters]",
    ]
    total = sum(a.size for a in case.args[1:])
    lines.append(f"total {total:,} parameters; your output: {tuple(output_shape) if output_shape else 'none'}")
    return lines
