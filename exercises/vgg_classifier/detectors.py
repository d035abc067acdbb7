"""Variants of the head's model that hold on only some of the calls, read when the search's variant does not
reproduce every case (``analyse`` in ``diagnosis.py`` asks these in turn): only the VGG16-scale case wrong, only the
probe with unequal sizes reproduced, only the square probes departing, logits clipped beyond the probes' range, and
float32 rounding beside another mistake. ``verify`` is the check every variant passes: it must reproduce each
graded case that returned a usable array; ``_right`` says whether a call got the statement's logits.

The detectors of other kinds live beside this module: ``predictions.py`` (class indices returned), ``fixedoutput.py``
(one answer whatever the inputs), ``batchdependence.py`` (a sample's logits that depend on its batch) and
``featurechanges.py`` (features rounded or normalised before FC1).
"""
from __future__ import annotations

import numpy as np

from grader.authoring import Finding

from . import search as Q
from . import stages as S
from . import variants as V


def verify(spec, checked, rtol: float) -> bool:
    """The variant must reproduce every graded case (and the ``sizes`` probe) that returned a usable array.

    The reference variant's output on a case is the reference's answer, which the run holds already: compared
    with that, a correct submission's check costs one comparison per case instead of a model built and run."""
    for run in checked:
        if run.case.group == "full-scale" or run.case.args[0].size * run.case.args[1].shape[1] > 2_000_000:
            continue
        arr = S.usable(run)
        if arr is None:
            continue
        if spec == V.REFERENCE:
            with np.errstate(all="ignore"):
                if not bool(Q.close(arr[None], np.asarray(run.expected, dtype=np.float64)[None], rtol).all()):
                    return False
        elif not Q.reproduces(spec, run, arr, rtol):
            return False
    return True


def _right(run, rows=slice(None)) -> bool | None:
    """Are these rows of a run's output the statement's (exactly where float32 is exact)? None: no usable output."""
    arr = S.usable(run)
    if arr is None:
        return None
    expected = run.expected
    scale = float(np.abs(expected).max()) + 1e-12
    with np.errstate(invalid="ignore"):
        return bool(np.all(np.abs(arr[rows] - expected[rows]) <= Q.tolerance(expected[rows], scale)))


def full_scale_only(graded, probes) -> list:
    """Every small case and probe is right, only the VGG16-scale case is not (nothing else named it): the code does
    something else only at VGG16's sizes. No probe is square in H and W, so where is said as what those sizes
    have that the others lack, not as a stage."""
    large = [r for r in graded if r.case.group == "full-scale"]
    small = [r for r in graded + probes if r.case.group != "full-scale"]
    if not large or not small or any(S.usable(r) is None or not _right(r) for r in small):
        return []
    wrong = [r for r in large if S.usable(r) is not None and not _right(r)]
    if not wrong:
        return []
    _, H, W, C = wrong[0].case.args[0].shape
    return [Finding("wrong-stage", f"Every small case and every probe, {len(small)} calls in all, gets the "
                                   f"statement's logits, but the VGG16-scale case ({H}x{W}x{C} features) does not. "
                                   f"So the code does something else only at those sizes, which the smaller cases "
                                   f"do not share: square feature maps (H = W = {H}, where a transpose of H and W "
                                   f"changes the flatten order and still fits) and a square W2. Look for a branch on "
                                   f"the shapes, or an operation that only fits there.")]


def unequal_sizes(work, graded, probes) -> list:
    """No variant reproduces the square probes, but one reproduces probe 'sizes' (every size different) and every
    graded case (whose sizes differ too): its mistakes are named, with an output of 'sizes' that shows each, and
    what the square probes returned besides (code that acts on which sizes are equal, say a branch on the shapes,
    does something else where every width is 12)."""
    run = next((r for r in probes if r.case.name == "sizes"), None)
    arr = S.usable(run) if run is not None else None
    if arr is None or not np.isfinite(arr).all() or _right(run) or getattr(work, "_search", None) is None:
        return []
    if any(S.usable(r) is None for r in graded if r.case.group != "full-scale"):
        return []
    stack, square, sq_actual, sq_mask, starts, extra_acts, finals, _ = work._search
    one = V.Stack([run.case.args])
    actual, mask = arr[None], np.ones((1, *arr.shape), dtype=bool)
    spec, complete = Q.search(one, actual, mask, starts, extra_acts, finals, work.loose, Q.EXACT_RTOL)
    if not complete or spec == V.REFERENCE or not verify(spec, graded, work.loose):
        return []
    with np.errstate(all="ignore"):
        try:
            model = stack.forward(spec)
        except (ValueError, KeyError):
            model = None
    besides = ""
    for p, sq in enumerate(square):
        got = S.usable(sq)
        if got is None or model is None:
            continue
        if not bool(Q.close(got[None], model[p:p + 1, : got.shape[0]], work.loose).all()):
            gap = np.where(np.isfinite(got), np.abs(got - model[p, : got.shape[0]]), np.inf)
            r, k = np.unravel_index(int(np.argmax(gap)), got.shape)
            sample = f"sample {r + 1}, " if got.shape[0] > 1 else ""
            besides = (f" On the probes where every layer is 12 wide your function departs from that as well: on "
                       f"probe '{sq.case.name}' ({sq.case.description}), {sample}output {k + 1} is "
                       f"{Q.fmt(got[r, k])} where that mistake alone gives {Q.fmt(model[p, r, k])} and the statement "
                       f"gives {Q.fmt(sq.expected[r, k])} (code that acts on which sizes are equal, such as a branch on "
                       f"the shapes, can do something else there).")
            break
    findings = []
    for finding_id, sentence, undone in Q.describe(spec):
        text = (f"On probe 'sizes' ({run.case.description}) and on every graded case your function returns what "
                f"the head gives when {sentence}.")
        text += Q.example(one, spec, undone, [run], actual, mask, work.loose) + besides
        findings.append(Finding(finding_id, text))
    return findings


def clipped(work, graded) -> list:
    """Every probe gives the statement's logits, but some graded case does not: wherever it departs, the logit is
    one bound (the largest logits all came out as the same value, or the smallest ones), and every other logit is
    right. The logits were clipped to bounds wider than the probes' logits (which stay within [-8, 8]), for example
    np.clip(y, -10, 10); the graded case with large features reaches them. The case is not named (hidden)."""
    if work.spec != V.REFERENCE:
        return []
    small = [r for r in graded if r.case.group != "full-scale"]
    arrays = [S.usable(r) for r in small]
    if not small or any(a is None or not np.isfinite(a).all() for a in arrays):
        return []
    lows, highs, wrong = set(), set(), []
    for run, arr in zip(small, arrays):
        expected = np.asarray(run.expected, dtype=np.float64)
        scale = float(np.abs(expected).max()) + 1e-12
        off = np.abs(arr - expected) > Q.tolerance(expected, scale)
        if not off.any():
            continue
        wrong.append(run)
        above, below = off & (expected > arr), off & (expected < arr)
        highs |= set(arr[above].tolist())
        lows |= set(arr[below].tolist())
    if not wrong or len(highs) > 1 or len(lows) > 1:
        return []
    hi = next(iter(highs), None)
    lo = next(iter(lows), None)
    for run, arr in zip(small, arrays):  # every logit inside the bounds is right; the bounds cut every one outside
        model = np.clip(np.asarray(run.expected, dtype=np.float64), lo, hi)
        if not bool(Q.close(arr[None], model[None], work.loose).all()):
            return []
    if hi is not None and lo is not None and not lo < hi:
        return []
    bounds = " and ".join(text for text in (f"below {Q.fmt(lo)} came out as {Q.fmt(lo)}" if lo is not None else "",
                                            f"above {Q.fmt(hi)} came out as {Q.fmt(hi)}" if hi is not None else "")
                          if text)
    call = f"np.clip(y, {Q.fmt(lo) if lo is not None else 'None'}, {Q.fmt(hi) if hi is not None else 'None'})"
    cases = "a graded case" if len(wrong) == 1 else f"{len(wrong)} graded cases"
    return [Finding("relu-after-fc3", f"Every probe gives the statement's logits (none of them exceeds 8 in size), "
                                      f"but on {cases} with larger logits every logit {bounds}, and every other "
                                      f"logit is right: the logits are clipped, as {call} does.")]


def reduced_precision(work, graded) -> list:
    """The variant found (another mistake than precision) gives every graded case only to the precision of float32
    (or float16): each is off by more than the checks allow, by about what the same variant on inputs rounded to
    that precision is off. On the probes, whose numbers are exact in float32, the search required exact values, so
    a real departure (noise, a tiny floor) would not have been verified. The generic check compares with the
    statement's head in low precision, which the other mistake keeps from matching: so precision-loss went
    unnamed beside a missing bias, say."""
    spec = work.spec
    if spec is None or spec == V.REFERENCE:
        return []
    worst, lows, compared = 0.0, {np.float32: 0.0, np.float16: 0.0}, []
    for run in graded:
        if run.outcome.array is not None and run.outcome.array.dtype != np.float64:
            return []  # a float32 result: wrong-dtype says so, and the precision follows from it
        arr = S.usable(run)
        if arr is None or run.case.group == "full-scale" or run.case.args[0].size * run.case.args[1].shape[1] > 2_000_000:
            continue
        try:
            with np.errstate(all="ignore"):
                model = Q.case_output(run.case, spec)
                scale = float(np.abs(model).max()) or 1.0
                worst = max(worst, float(np.max(np.abs(arr - model))) / scale)
        except (ValueError, KeyError):
            return []
        compared.append((run, model, scale))
    if not (worst > 1e-8 and np.isfinite(worst)):
        return []  # the variant's own values: no low precision to compare with, so none is computed
    for run, model, scale in compared:
        try:
            with np.errstate(all="ignore"):
                for dtype in lows:
                    low = V.Stack([tuple(a.astype(dtype) for a in run.case.args)]).forward(spec)[0]
                    lows[dtype] = max(lows[dtype], float(np.max(np.abs(low - model))) / scale)
        except (ValueError, KeyError):
            return []
    for dtype, name in ((np.float32, "float32"), (np.float16, "float16")):
        low = lows[dtype]
        if np.isfinite(low) and low / 8 <= worst <= 8 * low:
            return [Finding("precision-loss", f"Besides the other mistake named here, your logits are off from "
                                              f"what that mistake alone gives by up to {worst:.1e} of their scale "
                                              f"on the graded cases, the size of {name} rounding: the same "
                                              f"computation on the inputs rounded to {name} is off by up to "
                                              f"{low:.1e}. On the probes, whose numbers are exact in {name}, your "
                                              f"values are exact. The arithmetic was carried out in {name}.")]
    return []


def square_only(work, graded, probes) -> list:
    """A variant reproduces every square probe (every width 12), yet every graded case and probe 'sizes', whose
    widths differ, got the statement's logits: the code departs only where the shapes allow it, as a branch such
    as ``W2.T if W2.shape[0] == W2.shape[1] else W2`` does. VGG16's FC2 is square (4096 x 4096), so the large case
    is where it costs points. The variant cannot be verified on the graded cases (its transpose does not fit
    them), so it is named from the probes with what the others show."""
    spec, example = work.spec, getattr(work, "_example", None)
    run = next((r for r in probes if r.case.name == "sizes"), None)
    small = [r for r in graded if r.case.group != "full-scale"]
    if spec is None or spec == V.REFERENCE or example is None or run is None or not small:
        return []
    if not all(_right(r) for r in small + [run]):
        return []
    stack, square, actual, mask = example
    findings = []
    for finding_id, sentence, undone in Q.describe(spec):
        text = (f"On the probes where every layer is 12 wide, so that every weight matrix is square, {sentence}; "
                f"on probe 'sizes' and on every graded case whose sizes differ, your function returns the "
                f"statement's logits. So the code does this only where the shapes allow it (a branch on the shapes, "
                f"or an operation that only fits square matrices)"
                + (": VGG16's W2 is square, 4096 x 4096, so its large case is where this costs points."
                   if spec.transposed[1] else "."))
        text += Q.example(stack, spec, undone, square, actual, mask, work.loose)
        findings.append(Finding(finding_id, text))
    return findings




def probe_dtype(graded, probes) -> list:
    """``wrong-dtype`` read on the probes, when no graded case returned an array for the harness to read it on (the
    weights used as (out, in) fail wherever the widths differ, and every probe's widths are equal): the float32 cast
    is a mistake of its own, which would cost its point the moment the shapes are fixed, and the student should
    hear of it now rather than after the next submission."""
    if any(r.outcome.status == "ok" and isinstance(r.outcome.array, np.ndarray) for r in graded):
        return []
    odd = next((r for r in probes if r.outcome.status == "ok" and isinstance(r.outcome.array, np.ndarray)
                and r.outcome.array.dtype.kind == "f" and r.outcome.array.dtype != r.expected.dtype), None)
    if odd is None:
        return []
    return [Finding("wrong-dtype", f"On the grader's probe '{odd.case.name}' ({odd.case.description}), where the "
                                   f"code runs, the result's dtype is {odd.outcome.array.dtype}, not "
                                   f"{odd.expected.dtype}; no graded case returned an array to show it.")]
