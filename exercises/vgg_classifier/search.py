"""The search for the variant of the VGG head (``variants.py``) that reproduces a submission's probe outputs.

A greedy descent over one-field changes of the model, from the reference and from a few other starts (the usual
dropout scales, and the activations and final functions fitted to the ramp probes by ``stages.py``). Outputs are
compared at float32-tolerant precision, except where the variant's output is a float32 number: the probes are
built from short dyadic values, on which float32 arithmetic is exact, so there an exact match is required and a
tiny departure (a floor of 1e-6 under ReLU, noise, rounding) is not mistaken for rounding.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from . import variants as V
from .probememo import case_output
from .departures import describe, stage_of  # noqa: F401 (the other modules read them here)

MATCH_RTOL = 1e-4  # loose enough for float32 arithmetic, far tighter than any two variants differ
EXACT_RTOL = 1e-10  # where the variant's output is a float32 number, float32 arithmetic gets it exactly
MAX_STEPS = 6
MAX_DRIFT = 2
MAX_EVALS = 400  # about 15 ms; a search that has not converged by then will not


FLOAT16_RTOL = 2e-2  # for results that are all float16 numbers: rounding is then the size of a variant's effect


def close(actual: np.ndarray, model: np.ndarray, rtol: float = MATCH_RTOL) -> np.ndarray:
    """Elementwise agreement at float32-tolerant precision; the scale is each case's (axis 0) largest value."""
    axes = tuple(range(1, model.ndim))
    scale = np.abs(model).max(axis=axes, keepdims=True) if model.size else 0.0
    with np.errstate(invalid="ignore"):
        return np.abs(actual - model) <= rtol * (scale + np.abs(model)) + 1e-12


def tolerance(model: np.ndarray, scale, loose: float = MATCH_RTOL, exact: float = EXACT_RTOL,
              floor=1e-12) -> np.ndarray:
    """``exact`` where the model's value is a float32 number (the probes' arithmetic is exact there), else
    ``loose``; both relative to the case's scale, plus an absolute ``floor`` for values near 0."""
    size = np.abs(model)
    if model.size and float(size.max()) < FLOAT32_MAX:  # finite and within float32: the cast cannot warn
        single = model.astype(np.float32).astype(np.float64) == model
    else:  # (an errstate costs as much as the rest: entered only where it is needed)
        with np.errstate(invalid="ignore", over="ignore"):
            single = model.astype(np.float32).astype(np.float64) == model
    return np.where(single, exact, loose) * (scale + size) + floor


FLOAT32_MAX = float(np.finfo(np.float32).max)



def search(stack, actual, mask, starts=(), extra_acts=(), extra_finals=(), loose=MATCH_RTOL, exact=EXACT_RTOL,
           averaged: bool = False, rare: bool = False):
    """Greedy descent over one-field changes: most matching probe outputs first, then the smallest distance.

    The distance breaks ties when two mistakes that every probe sees (say, a sigmoid and a scale) must both be
    undone before any output matches. The result must explain every probe output; it is then pruned of
    departures that explain nothing (a missing bias of a skipped layer, say).
    """
    total = int(mask.sum())
    largest = np.where(mask, np.abs(actual), 0.0).max(axis=(1, 2), keepdims=True)
    scale = largest + 1e-12
    # the floor for values near 0 shrinks with outputs smaller than 1: logits times 1e-310 are not zeros
    floor = 1e-12 * np.minimum(1.0, largest)
    target = np.where(mask, actual, np.nan)  # outputs the student did not return never match
    weight = 1.0 / scale
    budget = [MAX_EVALS]

    def score(spec):
        budget[0] -= 1
        try:
            model = stack.forward(spec)
        except (ValueError, KeyError):
            return (-1, 0.0)
        if model.shape != target.shape:  # a layer left out or repeated, on a case whose widths all differ
            return (-1, 0.0)
        gap = np.abs(target - model)
        return (int(np.count_nonzero(gap <= tolerance(model, largest, loose, exact, floor))),
                -float(np.fmin(gap * weight, 10.0).sum()))

    def descend(spec, best, steps):
        drift = 0  # moves that only shrink the distance, limited: they rarely lead anywhere
        for _ in range(steps):
            if best[0] == total or budget[0] <= 0:
                break
            step, step_score = None, best
            for candidate in V.neighbours(spec, extra_acts, extra_finals, averaged, rare):
                if candidate in seen:
                    continue
                seen.add(candidate)
                s = score(candidate)
                if s > step_score:
                    step, step_score = candidate, s
                    if s[0] == total:
                        break
            if step is None or (step_score[0] == best[0] and drift >= MAX_DRIFT):
                break
            drift += step_score[0] == best[0]
            spec, best = step, step_score
        return spec, best

    seen = {V.REFERENCE}
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        spec, best = None, (-1, 0.0)
        for start in starts:  # fitted to the ramps: tried first, a few steps each, kept only when complete
            if budget[0] <= 0:
                break
            seen.add(start)
            candidate, result = descend(start, score(start), 3)
            if result[0] == total:
                spec, best = candidate, result
                break
        if spec is None:
            spec, best = descend(V.REFERENCE, score(V.REFERENCE), MAX_STEPS)
        # a constant scale on the hidden activations changes every output of every probe, so a second mistake
        # cannot show while it is in place: retry from the usual scales (dropout's 0.5 or its inverse 2)
        for s in ((0.5, 0.5), (2.0, 2.0), (1.0, 0.5), (0.5, 1.0)):
            if best[0] == total or budget[0] <= 0:
                break
            start = replace(V.REFERENCE, scale=s)
            candidate, result = descend(start, score(start), 2)
            if result[0] == total:
                spec, best = candidate, result
        if best[0] != total:
            return spec, False
        pruned = True
        while pruned:  # drop departures the outputs do not need
            pruned = False
            for _, _, undone in describe(spec):
                if score(undone)[0] == total:
                    spec, pruned = undone, True
                    break
    return spec, True


def reproduces(spec, run, arr, rtol: float = MATCH_RTOL) -> bool:
    """Does the variant give ``arr`` on this case (at float32-tolerant precision)?"""
    try:
        with np.errstate(all="ignore"):
            model = case_output(run.case, spec)
    except (ValueError, KeyError):
        return False
    return model.shape == arr.shape and bool(close(arr[None], model[None], rtol).all())


def undo(current, spec, undone):
    """``current`` with the departure that separates ``spec`` from ``undone`` undone as well."""
    for field in V.Spec.__dataclass_fields__:
        old, new = getattr(spec, field), getattr(undone, field)
        if old == new:
            continue
        if isinstance(old, tuple):
            new = tuple(n if o != n else c for o, n, c in zip(old, new, getattr(current, field)))
        current = replace(current, **{field: new})
    return current


PREFERRED_PROBE = {  # the probe built to show each departure on its own, for a readable example
    "flatten": "flatten-order", "sequence": "weights", "transposed": "weights", "scale": "weights",
    "final": "fc3", "bias": ("fc1", "fc2", "fc3"), "act": ("fc1", "fc2"), "relu_before_bias": ("fc1", "fc2"),
    "bias_input": ("fc1", "fc2", "fc3"), "bias_floor": ("fc1", "fc2"), "residual": ("fc1", "fc2"),
    "bias_one": ("fc1", "fc2", "fc3"), "weight_relu": ("fc1", "fc2", "fc3"), "skip_inside": ("fc1", "fc2"),
    "weight_abs": ("fc1", "fc2", "fc3"), "bias_relu": ("fc1", "fc2", "fc3"), "bias_fanin": ("fc1", "fc2", "fc3"),
}


def _preferred(spec, undone) -> str:
    for field, probe in PREFERRED_PROBE.items():
        if getattr(spec, field) != getattr(undone, field):
            if isinstance(probe, str):
                return probe
            changed = [i for i, (a, b) in enumerate(zip(getattr(spec, field), getattr(undone, field))) if a != b]
            return probe[changed[0]]
    return ""


def fmt(x: float) -> str:
    return f"{x:.4g}"


def fmt_pair(a: float, b: float) -> tuple[str, str]:
    """Two numbers with as many significant digits as it takes to tell them apart ("4.5 where the statement gives
    4.5" says nothing about an output off by a few parts in ten million)."""
    for digits in (4, 6, 8, 10, 12, 15, 17):
        x, y = f"{a:.{digits}g}", f"{b:.{digits}g}"
        if x != y:
            break
    return x, y


def example(stack, spec, undone, probes, actual, mask, rtol: float = MATCH_RTOL) -> str:
    """An output that this departure alone gets wrong, preferably on the probe built to show it."""
    try:
        with np.errstate(all="ignore"):
            ours, without = stack.forward(spec), stack.forward(undone)
    except (ValueError, KeyError):
        return ""
    expected = np.zeros_like(actual)
    for p, run in enumerate(probes):
        expected[p, : run.expected.shape[0]] = run.expected
    wrong = mask & ~close(actual, expected, rtol)
    alone = close(without, expected, rtol)  # with this departure undone, the output would be right here
    with np.errstate(invalid="ignore"):
        pick = np.where(wrong, np.abs(ours - without) * np.where(alone, 1.0, 1e-3), -1.0)
    pick = np.nan_to_num(pick, nan=-1.0)
    preferred = np.array([run.case.name == _preferred(spec, undone) for run in probes])
    ramp = np.array([run.case.name.endswith("-ramp") for run in probes])
    for keep in (preferred, ~ramp):  # the probe built for this departure, else one that is not a stage ramp
        if (pick[keep] > 0).any():
            pick = np.where(keep[:, None, None], pick, -1.0)
            break
    if pick.max() <= 0:
        return ""
    p, r, k = np.unravel_index(int(np.argmax(pick)), pick.shape)
    run = probes[p]
    sample = f"sample {r + 1}, " if run.expected.shape[0] > 1 else ""
    return (f" For example, on probe '{run.case.name}' ({run.case.description}), {sample}output {k + 1}: "
            f"expected {fmt(expected[p, r, k])}, your function returned {fmt(actual[p, r, k])}.")
