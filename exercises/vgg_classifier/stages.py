"""Stage-by-stage localisation for the VGG classifier head: which stage of the computation departs, and how.

The head is seven stages: flatten, FC1's affine map, the first activation, FC2's affine map, the second
activation, FC3's affine map and whatever follows FC3 (nothing, in the statement). Three ramp probes read the
non-linear stages directly. Each sets a weight matrix to zero so that a bias reaches the stage under test as a
known ramp of values, whatever the flatten, the features or the earlier layers do, and sets the layers after it
to identities shifted into their linear range, so that the logits read back what the stage computed:

* ``logits-ramp``: every weight zero, b3 the ramp: the logits are whatever follows FC3, applied to the ramp.
* ``act2-ramp``: W1, W2 zero, b2 the ramp, W3 the identity: the logits are the second activation of the ramp.
* ``act1-ramp``: W1 zero, b1 the ramp; FC2 divides by 16 and adds 2 (into [1.5, 2.5], where ReLU and its usual
  stand-ins are the identity) and FC3 multiplies by 16 and subtracts 32: the logits are the first activation.

Every ramp value and every intermediate is a short dyadic number, so float32 and float16 arithmetic compute
these probes exactly: any departure from the statement here is a real one, however small, never rounding.
The affine stages and the flatten are read from the other probes (``probes.py``), each through stages that
are checked first: a stage whose probe passes through a stage that departs is reported as not read.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from grader.authoring import PROBE, Case

from . import activations as A

H, W, C = 2, 3, 2
N = H * W * C
# multiples of 1/32 (exact in float16 even after FC2's /16 + 2), some with five decimals, so rounding shows
RAMP = np.array([-8.0, -2.0, -1.0, -0.5, -0.15625, 0.0, 0.09375, 0.5, 1.0, 2.0, 3.03125, 8.0])
SHOWN = (-2.0, -0.5, 0.5, 2.0)  # the ramp values a sentence shows first
MODERATE = (0.5, 1.0, 2.0, 3.03125)  # where a usable stand-in for ReLU is the identity
EXACT = 1e-10  # relative to the ramp's scale: float32 arithmetic is exact here, so this is a departure
SCALE_DOWN, SHIFT = 1.0 / 16.0, 2.0

STAGES = ("flatten", "fc1", "act1", "fc2", "act2", "fc3", "final")
STAGE_NAMES = {
    "flatten": "flatten", "fc1": "FC1 (x W1 + b1)", "act1": "first activation", "fc2": "FC2 (h1 W2 + b2)",
    "act2": "second activation", "fc3": "FC3 (h2 W3 + b3)", "final": "after FC3",
}
RAMP_TEXT = "a ramp of 12 values from -8 to 8"


def _case(name: str, description: str, *args) -> Case:
    return Case(name=name, group=PROBE, args=tuple(np.ascontiguousarray(a, dtype=np.float64) for a in args),
                description=description)


def ramp_probes() -> list[Case]:
    ones = np.full((1, H, W, C), 0.5)
    zero, eye = np.zeros((N, N)), np.eye(N)
    return [
        _case("logits-ramp", f"B=1, every weight zero, b3 = {RAMP_TEXT}: the logits are b3",
              ones, zero, np.zeros(N), zero, np.zeros(N), zero, RAMP),
        _case("act2-ramp", f"B=1, W1 and W2 zero, b2 = {RAMP_TEXT}, W3 the identity: the logits are FC2's activations",
              ones, zero, np.zeros(N), zero, RAMP, eye, np.zeros(N)),
        _case("act1-ramp", f"B=1, W1 zero, b1 = {RAMP_TEXT}; FC2 (h1/16 + 2) and FC3 (16 h2 - 32) pass FC1's "
                           "activations through: the logits are FC1's activations",
              ones, zero, RAMP, eye * SCALE_DOWN, np.full(N, SHIFT), eye / SCALE_DOWN, np.full(N, -SHIFT / SCALE_DOWN)),
    ]


RAMP_NAMES = ("logits-ramp", "act2-ramp", "act1-ramp")
RAMP_STAGE = {"logits-ramp": "final", "act2-ramp": "act2", "act1-ramp": "act1"}


def usable(run) -> np.ndarray | None:
    """The student's output as float64 of the expected shape, or None (a (K,) for a (1, K) is accepted)."""
    out = run.outcome
    if out.status != "ok" or out.array is None or out.array.dtype.kind not in "biuf":
        return None
    arr = out.array
    if arr.shape != run.expected.shape:
        squeezed = tuple(n for n in arr.shape if n != 1)
        if squeezed != tuple(n for n in run.expected.shape if n != 1):
            return None
        arr = arr.reshape(run.expected.shape)
    return arr.astype(np.float64, copy=False)


# -- reading the ramps -------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Reading:
    """What one non-linear stage did to the ramp, when its probe could be read."""

    stage: str
    values: np.ndarray | None  # the stage's output on RAMP (one row), or None
    status: str  # "as stated", "departs", "not read"
    note: str = ""  # why it was not read, or the departure as a sentence about the activation
    neutral: str = ""  # the departure as what the probe showed, for when nothing confirms it is the activation

    @property
    def departs(self) -> bool:
        return self.status == "departs"


def statement(stage: str) -> np.ndarray:
    return RAMP.copy() if stage == "final" else np.maximum(RAMP, 0.0)


def exact(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        return np.abs(a - b) <= EXACT * (8.0 + np.abs(b))


def first_row(run) -> tuple[np.ndarray | None, str]:
    """The one row a ramp probe (B = 1) returned, or why there is none."""
    out = run.outcome
    if out.status == "raised":
        return None, f"it raised {out.error}"
    if out.status != "ok":
        return None, f"the call {out.error}"
    arr = out.array
    if arr is None or arr.dtype.kind not in "biuf":
        return None, f"it returned {out.type_name or 'nothing usable'}"
    if arr.shape == (1, N):
        return arr[0].astype(np.float64), ""
    if arr.shape == (N,):
        return arr.astype(np.float64), ""
    return None, f"it returned shape {tuple(arr.shape)} instead of (1, {N})"


def read_ramps(probes: dict) -> dict[str, Reading]:
    """Read the final stage, then the second and the first activation, each only through stages already read."""
    readings: dict[str, Reading] = {}
    for name in RAMP_NAMES:
        stage = RAMP_STAGE[name]
        run = probes.get(name)
        if run is None:
            readings[stage] = Reading(stage, None, "not read", "its probe did not run")
            continue
        blocked = _blocked_by(stage, readings)
        if blocked:
            readings[stage] = Reading(stage, None, "not read", blocked)
            continue
        values, why = first_row(run)
        if values is None:
            readings[stage] = Reading(stage, None, "not read", f"on probe '{name}' {why}")
            continue
        ok = bool(exact(values, statement(stage)).all())
        readings[stage] = Reading(stage, values, "as stated" if ok else "departs",
                                  "" if ok else describe(stage, values), "" if ok else describe(stage, values, True))
    return readings


def _blocked_by(stage: str, readings: dict[str, Reading]) -> str:
    final = readings.get("final")
    if stage in ("act2", "act1") and final is not None and final.status != "as stated":
        return "its probe passes through what follows FC3, which " + (
            "departs" if final.departs else "could not be read")
    if stage == "act1":
        act2 = readings.get("act2")
        if act2 is None or act2.values is None or not identity_on_moderate(act2.values):
            return "its probe passes through the second activation, which is not the identity on [0.5, 3]"
    return ""


def identity_on_moderate(values: np.ndarray) -> bool:
    idx = [int(np.flatnonzero(RAMP == v)[0]) for v in MODERATE]
    return bool(exact(values[idx], RAMP[idx]).all())


# -- sentences -----------------------------------------------------------------------------------------------------
def _fmt(x: float, digits: int) -> str:
    if not np.isfinite(x):
        return str(x)
    text = f"{x:.{digits}g}"
    return "0" if text in ("-0", "0") else text


def _formatted(values, others) -> tuple[list[str], list[str]]:
    """Both lists with as many digits as it takes for every differing pair to look different."""
    for digits in (4, 6, 8, 10, 12, 15, 17):
        a = [_fmt(v, digits) for v in values]
        b = [_fmt(v, digits) for v in others]
        if all((x != y) or exact(np.array([v]), np.array([w])).all() for x, y, v, w in zip(a, b, values, others)):
            return a, b
    return a, b


def shown_points(values: np.ndarray, expected: np.ndarray, extra: int = 2) -> list[int]:
    """Ramp positions for a sentence: the usual four, then up to ``extra`` departures they miss, in ramp order."""
    wrong = [i for i in range(len(RAMP)) if not exact(values[i:i + 1], expected[i:i + 1]).all()]
    chosen = [int(np.flatnonzero(RAMP == v)[0]) for v in SHOWN]
    missed = [i for i in sorted(wrong, key=lambda i: -abs(values[i] - expected[i])) if i not in chosen]
    return sorted(chosen + missed[:extra])


STATEMENT_TEXT = {"act1": "ReLU gives", "act2": "ReLU gives", "final": "the statement returns them unchanged:"}
STAGE_SUBJECT = {"act1": "your first activation", "act2": "your second activation",
                 "final": "what your function does after FC3"}


NEUTRAL = {
    "act1": ("with W1 zero, FC1 and the first activation turn b1 = {inputs} into {got}; ReLU(b1) is {want}"),
    "act2": ("with W1 and W2 zero, FC2 and the second activation turn b2 = {inputs} into {got}; ReLU(b2) is {want}"),
    "final": ("with every weight zero, your logits are {got} where b3 = {inputs} should come out unchanged"),
}


def describe(stage: str, values: np.ndarray, neutral: bool = False, every: bool = False) -> str:
    """'your first activation maps -2, -0.5, 0.5, 2 to 0, 0, 1, 1; ReLU gives 0, 0, 0.5, 2', or with ``neutral``
    what the probe showed, without saying which of the bias or the activation did it. ``every`` shows the whole
    ramp, for a sentence that counts over all of it (a dropout mask's kept values may lie outside the usual few)."""
    expected = statement(stage)
    idx = list(range(len(RAMP))) if every else shown_points(values, expected)
    got, _ = _formatted(values[idx], expected[idx])
    want = [_fmt(v, 8) for v in expected[idx]]  # short dyadic numbers: shown in full
    inputs = ", ".join(_fmt(RAMP[i], 8) for i in idx)
    if neutral:
        return NEUTRAL[stage].format(inputs=inputs, got=", ".join(got), want=", ".join(want))
    if stage == "final":
        return (f"your function turns the logits {inputs} into {', '.join(got)} after FC3; "
                f"the statement returns them unchanged")
    return f"{STAGE_SUBJECT[stage]} maps {inputs} to {', '.join(got)}; ReLU gives {', '.join(want)}"


# -- fitting a function to a reading ---------------------------------------------------------------------------
def _g(x: float) -> str:
    return f"{x:.6g}"


def fit_activation(values: np.ndarray) -> list[str]:
    """Parameterised activations (clip, leaky, floor, threshold, ELU's alpha) that reproduce the reading."""
    if values is None or not np.isfinite(values).all():
        return []
    names = []
    lo, hi = float(values[0]), float(values[-1])
    if 0 <= lo < hi:  # a constant is no clip: it says nothing of the activation
        name = "relu" if lo == 0 and hi == RAMP[-1] else (
            f"floor:{_g(lo)}" if hi == RAMP[-1] else ("relu6" if lo == 0 and hi == 6.0 else f"clip:{_g(lo)}:{_g(hi)}"))
        if name != "relu" and exact(values, np.clip(RAMP, float(_g(lo)), float(_g(hi)))).all():
            names.append(name)
    slope = float(values[0] / RAMP[0])
    if 0 < abs(slope) < 1 and exact(values, np.where(RAMP > 0, RAMP, float(_g(slope)) * RAMP)).all():
        names.append(f"leaky:{_g(slope)}")
    bounds = threshold(values)
    if bounds is not None:
        names.append(f"thresh:{_g(bounds[0])}")
    if RAMP[0] < lo < 0 and hi == RAMP[-1] and exact(values, np.maximum(RAMP, float(_g(lo)))).all():
        names.append(f"floor:{_g(lo)}")  # a floor below 0, np.maximum(z, -1)
    alpha = float(values[0] / np.expm1(RAMP[0]))  # an ELU with another alpha than 1: alpha * (exp(z) - 1) below 0
    if 0 < alpha and _g(alpha) != "1" and np.allclose(values, A.activation(f"elu:{_g(alpha)}")(RAMP), rtol=1e-5,
                                                      atol=1e-9):
        names.append(f"elu:{_g(alpha)}")
    for name in ("elu", "softplus", "min0", *A.FITTED):  # none of them a parameter fit reads
        with np.errstate(all="ignore"):
            if np.allclose(values, A.activation(name)(RAMP), rtol=1e-6, atol=1e-9):
                names.append(name)
    return names


def threshold(values: np.ndarray) -> tuple[float, float] | None:
    """A ReLU whose threshold is above 0 (``z * (z > t)``): the negatives and the smallest positive ramp values are
    0, every larger one is kept unchanged. (the largest value set to 0, the smallest one kept), or None."""
    if values is None or not np.isfinite(values).all():
        return None
    live = RAMP > 0
    if not np.all(values[~live] == 0):
        return None
    dropped = live & (values == 0)
    kept = live & exact(values, RAMP)
    if not dropped.any() or not kept.any() or int((dropped | kept).sum()) != int(live.sum()):
        return None
    lo, hi = float(RAMP[dropped].max()), float(RAMP[kept].min())
    return (lo, hi) if lo < hi else None


def fit_final(values: np.ndarray) -> list[str]:
    if values is None or not np.isfinite(values).all():
        return []
    lo, hi = float(values.min()), float(values.max())
    if lo == 0 and hi == RAMP[-1] and exact(values, np.maximum(RAMP, 0.0)).all():
        return ["relu"]  # the largest ramp value kept: no upper bound shows, so no clip at 8
    inside = (RAMP > lo) & (RAMP < hi)  # a clip passes these through unchanged: at least two must be there, or
    # a tiny scale (the logits times 1e-310) would read as a clip between bounds smaller than exact()'s tolerance
    if lo < hi and (lo, hi) != (RAMP[0], RAMP[-1]) and int(inside.sum()) >= 2 \
            and np.array_equal(values[inside], RAMP[inside]) and exact(values, np.clip(RAMP, lo, hi)).all():
        return [f"clip:{_g(lo)}:{_g(hi)}"]
    shift = values - RAMP  # a stray constant added to every logit (y + 1e-8): one shift, not 0, everywhere
    if np.ptp(shift) <= 1e-12 * np.abs(RAMP).max() and shift[0] != 0 and abs(float(shift[0]) - 1.0) > 1e-12:
        return [f"shift:{float(shift.mean()):.3g}"]
    ratio = float(values[0] / RAMP[0])  # one factor on every logit (3 * y, -y / 2; a tiny 1e-310 is no temperature)
    if ratio not in (1.0, 2.0, 0.5, -1.0) and 1e-6 <= abs(ratio) <= 1e6 and exact(values, RAMP * ratio).all():
        return [f"times:{ratio!r}"]
    slope = float((values[-1] - values[0]) / (RAMP[-1] - RAMP[0]))  # a factor and a shift both (2 * y + 1)
    offset = float(values[0] - slope * RAMP[0])
    if slope not in (0.0, 1.0) and 1e-6 <= abs(slope) <= 1e6 and 1e-12 < abs(offset) <= 1e6 \
            and exact(values, RAMP * slope + offset).all():
        return [f"affine:{slope!r}:{offset!r}"]
    if lo > 0 and abs(float(values.sum()) - 1.0) < 1e-9:  # probabilities: a softmax of the logits times 1/T?
        logs = np.log(values)
        inverse = float((logs[-1] - logs[0]) / (RAMP[-1] - RAMP[0]))
        if inverse > 0 and np.allclose(logs - logs[0], (RAMP - RAMP[0]) * inverse, rtol=1e-9, atol=1e-9) \
                and abs(inverse - 1.0) > 1e-9:
            return [f"softmax:{_g(1.0 / inverse)}"]
    return []


def depends_on_position(run) -> bool:
    """On 'act1-ramp' every non-positive ramp value reaches FC2 as the same number (ReLU and a raised threshold set
    it to 0, FC2 maps 0 to 2), so a function of the value gives them all the same logit: different logits there
    come from where a unit is, as a dropout mask's do, not from its value."""
    values = first_row(run)[0] if run is not None else None
    if values is None:
        return False
    same = values[RAMP <= 0]
    return bool(np.isfinite(same).all() and not np.all(same == same[0]))


def dropout_factor(values: np.ndarray) -> float | None:
    """A dropout mask left on at a fixed seed: each ramp output is 0 or ReLU times one factor (1/keep)."""
    if values is None or not np.isfinite(values).all():
        return None
    relu = np.maximum(RAMP, 0.0)
    live = relu > 0
    kept = live & (np.abs(values) > 0)
    if not kept.any() or kept.sum() == live.sum():  # nothing dropped: a plain scale, which the model covers
        return None
    if threshold(values) is not None:  # the smallest positive values dropped, the others unchanged: no mask does that
        return None
    factors = values[kept] / relu[kept]
    factor = float(factors[0])
    ok = np.allclose(factors, factor, rtol=1e-9) and np.all(values[~kept] == 0) and factor > 0
    return factor if ok else None
