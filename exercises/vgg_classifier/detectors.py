"""What the variant search does not model, read from the outputs directly: the predicted class returned instead
of the logits, logits of one sample that depend on the rest of its batch, features rounded to a grid before FC1, and a
variant that only the probe with unequal sizes can tell (``analyse`` in ``diagnosis.py`` asks these in turn when the
search's variant does not reproduce every case). ``verify`` is the check every variant passes: it must reproduce each
graded case that returned a usable array.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from grader.authoring import PROBE, Finding

from . import search as Q
from . import stages as S
from . import structure as T
from . import variants as V
from . import verdicts as L
from . import ranges as R


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


def _predictions_of_wrong_logits(kinds: set, hits: int, samples: int, seen: set) -> Finding | None:
    """Every call returned class indices (or one-hot rows), but some point at another class than the statement's
    largest logit: the logits were wrong before the argmax as well. Said only when the indices vary and most of
    them are still right, which a placeholder (zeros, random whole numbers) is not; the evidence says that the
    logits themselves must be fixed too, since no finding can be read from indices alone."""
    if len(seen) < 2 or 2 * hits < samples:
        return None
    what = ("one class index per sample" if kinds == {"labels"}
            else "for each sample, a row of zeros with a single 1 (a one-hot prediction)")
    return Finding("class-predictions", f"Every call returned {what} instead of the logits; {hits} of the {samples} "
                                        f"samples get the class of their largest logit, the others another one, so "
                                        "the logits computed before the argmax are wrong too: return the logits, "
                                        "and the checks will show what else differs.")


def predictions(runs) -> Finding | None:
    """Every call returned the predicted class of each sample (the index of its largest logit), or a one-hot row
    with a 1 there, instead of the logits."""
    small = [r for r in runs if r.case.group != "full-scale"]
    if any(r.outcome.status != "ok" for r in small):
        return None
    kinds, example, hits, samples, seen = set(), None, 0, 0, set()
    for run in small:
        arr, expected = run.outcome.array, run.expected
        if arr is None or arr.ndim == 0 or arr.dtype.kind not in "biuf" or expected.ndim != 2 \
                or expected.shape[1] < 2:
            return None
        B = expected.shape[0]
        top = expected.max(axis=1)
        if arr.size == B and arr.shape[-1] != expected.shape[1] or arr.shape in ((B,), (B, 1)) and B > 1:
            labels = arr.reshape(-1)
            if not np.all(labels == np.round(labels)) or labels.min() < 0 or labels.max() >= expected.shape[1]:
                return None
            right = expected[np.arange(B), labels.astype(np.int64)] == top
            kinds.add("labels")
        elif arr.shape == expected.shape:
            ones = arr == 1
            if not (np.all(ones | (arr == 0)) and np.all(ones.sum(axis=1) == 1)):
                return None
            right = np.array([expected[i][ones[i]][0] == top[i] for i in range(B)])
            labels = np.argmax(ones, axis=1)
            kinds.add("one-hot")
        else:
            return None
        hits, samples = hits + int(right.sum()), samples + B
        seen.update(int(v) for v in labels)
        if right.all() and (run.case.name == "sizes" or example is None):
            example = run
    if len(small) < 2 or len(kinds) != 1:
        return None
    if hits < samples:  # class indices of logits that are wrong as well: most still point at the right class
        return _predictions_of_wrong_logits(kinds, hits, samples, seen)
    if example is None:
        return None
    arr, expected = example.outcome.array, example.expected
    where = (f"on probe '{example.case.name}' ({example.case.description})" if example.case.group == PROBE
             else "on a graded case")
    if kinds == {"labels"}:
        shown = ", ".join(str(int(v)) for v in arr.reshape(-1)[:4])
        return Finding("class-predictions", f"Every call returned one class index per sample, the position of its "
                                            f"largest logit, instead of the logits: {where} your function returned "
                                            f"{shown}{', ...' if arr.size > 4 else ''} (shape {tuple(arr.shape)}, "
                                            f"dtype {arr.dtype}) where the statement gives an array of shape "
                                            f"{expected.shape} whose largest entry in each row is at those positions.")
    return Finding("class-predictions", f"Every call returned, for each sample, a row of zeros with a single 1 at the "
                                        f"position of the largest logit (a one-hot prediction) instead of the logits "
                                        f"themselves: {where} the first row is "
                                        f"{', '.join(f'{v:g}' for v in arr[0][:8])}{', ...' if arr.shape[1] > 8 else ''}"
                                        f" where the statement gives "
                                        f"{', '.join(Q.fmt(v) for v in expected[0][:8])}"
                                        f"{', ...' if arr.shape[1] > 8 else ''}.")


def _right(run, rows=slice(None)) -> bool | None:
    """Are these rows of a run's output the statement's (exactly where float32 is exact)? None: no usable output."""
    arr = S.usable(run)
    if arr is None:
        return None
    expected = run.expected
    scale = float(np.abs(expected).max()) + 1e-12
    with np.errstate(invalid="ignore"):
        return bool(np.all(np.abs(arr[rows] - expected[rows]) <= Q.tolerance(expected[rows], scale)))


def batch_dependent(work, graded, probes) -> list:
    """Every call with a single sample is right, but batches are not: what a sample gets depends on the rest of its
    batch. When one variant of the head gives every row after the first (say, a ReLU applied only to the first
    sample), that variant's mistakes are named; otherwise the samples are mixed."""
    small = [r for r in graded + probes if r.case.group != "full-scale"]
    single = [r for r in small if r.expected.shape[0] == 1]
    batched = [r for r in small if r.expected.shape[0] > 1]
    if len(single) < 2 or not batched or any(S.usable(r) is None for r in small):
        return []
    if not all(_right(r) for r in single):
        return []
    wrong = [r for r in batched if not _right(r)]
    if not any(r.case.group == PROBE for r in wrong):  # the probes' batches (B = 3, distinct samples) show mixing;
        return []  # a graded batch wrong alone is wrong for another reason, such as its large values
    spec, data = work.later_rows() if all(_right(r, slice(0, 1)) for r in batched) else (None, None)
    if spec is not None and all(_later_reproduced(spec, r, work.loose) for r in graded if r.expected.shape[0] > 1):
        stack, square, actual, later = data
        findings = []
        for finding_id, sentence, undone in Q.describe(spec):
            text = (f"Every call with a single sample, and the first sample of every batch, gets the right logits; "
                    f"for the other samples of a batch {sentence}.")
            text += Q.example(stack, spec, undone, square, actual, later, work.loose)
            findings.append(Finding(finding_id, text))
        return findings
    if not R.within_reach(single, wrong):  # every wrong row has values no single sample reached: a limit explains it
        return R.beyond_singles(single, wrong)
    run = next((r for r in wrong if r.case.group == PROBE), None)
    where = ""
    if run is not None:
        _, sentence = L.probe_matches(run)
        where = f": {sentence}"
    return [Finding("samples-mixed", f"Every call with a single sample (B = 1), {len(single)} in all, returned the "
                                     f"right logits, but {len(wrong)} of the {len(batched)} calls with several "
                                     f"samples did not{where}. So the logits of a sample depend on the rest of its "
                                     f"batch: on the other samples, on how many there are, or on its place among "
                                     f"them.")]


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


def first_row_zeroed(work, graded, probes) -> list:
    """The first row of every output is 0 (``y[0] = 0``, a preallocated row never filled) and the other rows are
    wrong too: when one variant gives every row after the first on the probes and the graded batches, its mistakes
    are named beside the lost row (``structure.row_findings`` names a lost row only when the others are right)."""
    small = [r for r in graded + probes if r.case.group != "full-scale"]
    arrays = [S.usable(r) for r in small]
    if not small or any(a is None or not len(a) for a in arrays) or any(np.any(a[0] != 0) for a in arrays):
        return []
    if all(not np.any(r.expected[0]) for r in small):
        return []
    spec, data = work.later_rows()
    if spec is None or not all(_later_reproduced(spec, r, work.loose) for r in graded if r.expected.shape[0] > 1):
        return []
    stack, square, actual, later = data
    findings = [Finding("samples-dropped", "The first row of every output is all zeros, in every batch and for a "
                                           "single sample: the first sample gets no logits of its own (a row set to "
                                           "0, or a preallocated row never filled).")]
    for finding_id, sentence, undone in Q.describe(spec):
        text = f"In the rows after the first, {sentence}."
        findings.append(Finding(finding_id, text + Q.example(stack, spec, undone, square, actual, later, work.loose)))
    return findings


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


#: grids a student may round the features to: 2^-k (fixed point) and 10^-k (decimals), finest last
GRIDS = tuple((2.0 ** -k, f"2^-{k} = {2.0 ** -k:.10g}") for k in range(0, 25)) + tuple(
    (10.0 ** -k, f"{10.0 ** -k:g}") for k in range(1, 10))
ROUNDINGS = (("rounded toward 0 to multiples", np.trunc, "as (x / step).astype(int) * step does"),
             ("rounded to the nearest multiples", np.round, "as np.round(x / step) * step does"),
             ("rounded down to multiples", np.floor, "as np.floor(x / step) * step does"))


def _head(args, x) -> np.ndarray:
    _, W1, b1, W2, b2, W3, b3 = args
    return np.maximum(np.maximum(x @ W1 + b1, 0.0) @ W2 + b2, 0.0) @ W3 + b3


def _digits(a: float, b: float) -> tuple[str, str]:
    """Two numbers with as many significant digits as it takes to tell them apart."""
    for digits in (4, 6, 8, 10, 12, 15, 17):
        x, y = f"{a:.{digits}g}", f"{b:.{digits}g}"
        if x != y:
            break
    return x, y


def quantised(work, graded, probes) -> list:
    """Every square probe is right (their features are short dyadic numbers), but probe 'sizes' and the graded cases
    are not: their logits are exactly the head's on the features rounded to a fixed grid (fixed point, or a number
    of decimals)."""
    run = next((r for r in probes if r.case.name == "sizes"), None)
    if work.spec != V.REFERENCE or run is None or S.usable(run) is None:
        return []
    checked = [run] + [r for r in graded if r.case.group != "full-scale"]
    if any(S.usable(r) is None for r in checked) or T.close(S.usable(run), run.expected, 1e-9):
        return []
    for step, step_text in GRIDS:
        for how, fn, code in ROUNDINGS:
            fits = True
            for r in checked:
                f = r.case.args[0]
                with np.errstate(all="ignore"):
                    model = _head(r.case.args, (fn(f / step) * step).reshape(f.shape[0], -1))
                if not T.close(S.usable(r), model, 1e-9):
                    fits = False
                    break
            if not fits:
                continue
            arr, expected = S.usable(run), run.expected
            r, k = np.unravel_index(int(np.argmax(np.abs(arr - expected))), arr.shape)
            got, want = _digits(arr[r, k], expected[r, k])
            on_grid = all(np.array_equal(fn(p.case.args[0] / step) * step, p.case.args[0]) for p in probes
                          if p.case.name != "sizes")
            return [Finding("features-changed", f"Your logits are exactly those of the head on the features {how} "
                                                f"of {step_text} ({code}), before FC1: on probe "
                                                f"'{run.case.name}' ({run.case.description}), sample {r + 1}, output "
                                                f"{k + 1} is {got} where the statement gives {want}, and the head "
                                                f"on the rounded features gives {got} too; the same holds on every "
                                                f"graded case."
                                                + (" The other probes' features are already multiples of that step,"
                                                   " so rounding leaves them unchanged and those probes are right."
                                                   if on_grid else ""))]
    return []


def _later_reproduced(spec, run, rtol: float) -> bool:
    """The variant gives a graded case's rows after the first (the first is the statement's)."""
    arr = S.usable(run)
    if arr is None:
        return True
    try:
        with np.errstate(all="ignore"):
            model = V.Stack([run.case.args]).forward(spec)[0]
    except (ValueError, KeyError):
        return False
    return model.shape == arr.shape and bool(Q.close(arr[None, 1:], model[None, 1:], rtol).all())


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


#: where a copied answer most likely comes from: the self-check's public expected outputs
_PUBLIC = Path(__file__).with_name("public_expected.json")
#: fewest calls that must agree before one answer for all of them is taken for a fixed one
FIXED_MIN_CALLS = 5


def _public_source(arr: np.ndarray) -> str:
    """The public case whose expected output ``arr`` holds, if it was copied from the self-check's numbers."""
    try:
        cases = json.loads(_PUBLIC.read_text())["cases"]
    except (OSError, ValueError, KeyError):
        return ""
    for name, entry in cases.items():
        values = np.asarray(entry.get("values", ()), dtype=np.float64)
        if name.startswith("public") and arr.size == values.size and arr.size and \
                np.allclose(arr.reshape(-1), values, rtol=1e-6, atol=1e-9):
            return name
    return ""


def fixed_output(runs) -> Finding | None:
    """Nearly every call returned one and the same array (at most two of them, for a function that tells a single
    sample from a batch), although the inputs and the expected logits all differ: zeros, a constant, or numbers
    copied from an example are returned instead of anything computed. The search would explain zeros with a mask
    that keeps nothing plus missing biases, and rounding with 0 decimals: each of those names would be wrong.

    Only runs that returned a numeric ndarray count; a different answer on each call, or one that follows the
    inputs' sizes and values (a cache keyed by shape), is never read as fixed."""
    small = [r for r in runs if r.case.group != "full-scale" and r.outcome.status == "ok"]
    arrays = [(r, r.outcome.array) for r in small  # what came back as an ndarray (a stand-in's is empty)
              if (r.outcome.exact_ndarray or r.outcome.subclass)
              and isinstance(r.outcome.array, np.ndarray) and r.outcome.array.dtype.kind in "biuf"]
    if len(arrays) < FIXED_MIN_CALLS or len(arrays) < len(small):
        return None
    distinct = _distinct([arr for _, arr in arrays], limit=2)
    # a copied row tiled over the batch: a new array per batch size, the same rows
    rows = _distinct([row for _, arr in arrays for row in (arr if arr.ndim == 2 else arr.reshape(1, -1))[:64]],
                     limit=2)
    value = _single_value([arr for _, arr in arrays])
    constant = value is not None
    expected = {r.expected.tobytes() + repr(r.expected.shape).encode() for r, _ in arrays}
    if len(expected) < FIXED_MIN_CALLS or not (constant or len(distinct) <= 2 or len(rows) <= 2):
        return None
    if any(_right(r) for r, _ in arrays if r.outcome.array.shape == r.expected.shape):
        return None
    calls = f"all {len(arrays)} calls, graded cases and probes, whose inputs and expected logits all differ"
    if constant:
        return Finding("constant-output", f"Every value your function returned on {calls}, is {value:g}: the "
                                          f"result does not depend on the features or on any weight, as if a "
                                          f"placeholder such as np.zeros stood where the logits should be computed.")
    source = next((s for s in (_public_source(d) for d in distinct + rows) if s), "")
    copied = (f"; it holds the expected output of the public case '{source}', as if the self-check's numbers had "
              "been copied into the code" if source else "")
    if len(distinct) <= 2:
        shapes = " and ".join(str(tuple(d.shape)) for d in distinct)
        count = f"{'the same array' if len(distinct) == 1 else 'one of the same two arrays'} (shape {shapes})"
    else:
        count = f"{'one row' if len(rows) == 1 else 'two rows'} of {rows[0].size} values, repeated for every sample"
    return Finding("constant-output", f"On {calls}, your function returned {count}{copied}: the result is not "
                                      "computed from the inputs it receives.")


def _distinct(arrays: list[np.ndarray], limit: int) -> list[np.ndarray]:
    """The arrays that differ in shape or value (as ``np.array_equal`` tells them apart: -0.0 equals 0.0, an int
    its float, and an array holding NaN equals nothing), first of each in order; once more than ``limit`` are
    found the rest are not looked at (more than ``limit`` is all the caller asks). Keyed by their bytes: a correct
    function's answers, all different, cost three looks instead of a comparison of every pair (and, through
    ``np.unique``, the import of ``numpy.ma``), about half the diagnosis of every submission."""
    seen: set = set()
    out: list[np.ndarray] = []
    for arr in arrays:
        values = arr.astype(np.float64) + 0.0  # + 0.0: -0.0 becomes 0.0, as array_equal has them equal
        key = object() if np.isnan(values).any() else (arr.shape, values.tobytes())
        if key not in seen:
            seen.add(key)
            out.append(arr)
            if len(out) > limit:
                break
    return out


def _single_value(arrays: list[np.ndarray]) -> float | None:
    """The one value every element of ``arrays`` holds, or None (two values, a NaN, or no element at all)."""
    value = None
    for arr in arrays:
        if arr.size == 0:
            continue
        low, high = float(arr.min()), float(arr.max())
        if low != high or low != low or (value is not None and low != value):
            return None
        value = low
    return value


def _standardised(axis):
    def change(x):
        return (x - x.mean(axis=axis, keepdims=True)) / x.std(axis=axis, keepdims=True)
    return change


#: what students do to the flattened features (B, H*W*C) before FC1 that a ramp probe cannot read: its features
#: are one constant, so a division by their spread is 0/0 there
NORMALISATIONS = (
    ("standardised over the whole batch, (x - x.mean()) / x.std()", _standardised(None)),
    ("standardised per sample, each row minus its mean and divided by its standard deviation", _standardised(1)),
    ("rescaled per sample to [0, 1], (x - min) / (max - min) of each row",
     lambda x: (x - x.min(axis=1, keepdims=True)) / np.ptp(x, axis=1, keepdims=True)),
    ("rescaled to [0, 1] over the whole batch, (x - x.min()) / (x.max() - x.min())",
     lambda x: (x - x.min()) / np.ptp(x)),
)


def normalised(graded, probes) -> list:
    """Every graded case and every probe whose output is finite gives the head's logits on the flattened features
    normalised one of the usual ways (``NORMALISATIONS``). The stage probes cannot show it: the ramps' features
    are one constant, whose spread is 0, so those probes return NaN."""
    checked = [r for r in graded + probes if r.case.group != "full-scale"]
    usable = [(r, S.usable(r)) for r in checked]
    if any(a is None for r, a in usable if r.case.group != PROBE) or len(usable) < 2:
        return []
    finite = [(r, a) for r, a in usable if a is not None and np.isfinite(a).all()]
    if len([r for r, _ in finite if r.case.group != PROBE]) < 2:
        return []
    for how, change in NORMALISATIONS:
        fits = True
        for r, arr in finite:
            f = r.case.args[0]
            with np.errstate(all="ignore"):
                model = _head(r.case.args, change(f.reshape(f.shape[0], -1)))
            if not np.isfinite(model).all() or not T.close(arr, model, 1e-9):
                fits = False
                break
        if not fits:
            continue
        if T.close(finite[0][1], finite[0][0].expected, 1e-9) and all(T.close(a, r.expected, 1e-9) for r, a in finite):
            return []
        nan = [r.case.name for r, a in usable if r.case.group == PROBE and (a is None or not np.isfinite(a).all())]
        run, arr = next(((r, a) for r, a in finite if r.case.group == PROBE and not T.close(a, r.expected, 1e-9)),
                        (None, None))
        example = ""
        if run is not None:
            i, k = np.unravel_index(int(np.argmax(np.abs(arr - run.expected))), arr.shape)
            got, want = _digits(arr[i, k], run.expected[i, k])
            example = (f" On probe '{run.case.name}' ({run.case.description}), sample {i + 1}, output {k + 1} is "
                       f"{got} where the statement gives {want}.")
        text = (f"Your logits are exactly those of the head on the flattened features {how}, before FC1, on every "
                f"graded case and on every probe that returned finite values.{example}")
        if nan:
            text += (f" Probes {', '.join(repr(n) for n in nan[:3])}{', ...' if len(nan) > 3 else ''} have "
                     f"constant features (one value throughout each sample) and got NaN: the spread your code "
                     f"divides by is 0 there, so the division is 0/0.")
        return [Finding("features-changed", text)]
    return []


def single_dependent(work, graded, probes) -> list:
    """Every call with several samples is right, but some with a single sample are not: the code does something
    else when B = 1 (a branch on the batch size, say a transpose only then). The search is run again on the B = 1
    probes alone; its variant must give every graded B = 1 case. Otherwise the samples' logits are said to depend
    on how many there are, which is what the checks saw."""
    small = [r for r in graded + probes if r.case.group != "full-scale"]
    single = [r for r in small if r.expected.shape[0] == 1]
    batched = [r for r in small if r.expected.shape[0] > 1]
    if not single or len(batched) < 2 or any(S.usable(r) is None for r in batched) or not all(map(_right, batched)):
        return []
    wrong = [r for r in single if S.usable(r) is not None and not _right(r)]
    if not wrong or not any(r.case.group != PROBE for r in wrong):
        return []
    found = getattr(work, "_search", None)
    if found is not None:
        stack, square, actual, mask, starts, extra_acts, finals, exact = found
        alone = mask & np.array([r.expected.shape[0] == 1 for r in square])[:, None, None]
        spec, complete = Q.search(stack, actual, alone, starts, extra_acts, finals, work.loose, exact)
        if complete and spec != V.REFERENCE and all(S.usable(r) is None or Q.reproduces(spec, r, S.usable(r), work.loose)
                                                    for r in graded if r.expected.shape[0] == 1):
            findings = []
            for finding_id, sentence, undone in Q.describe(spec):
                text = (f"Every call with several samples, {len(batched)} in all, gets the right logits, but with "
                        f"a single sample (B = 1) {sentence}: the code takes another path when the batch holds one "
                        f"sample.")
                text += Q.example(stack, spec, undone, square, actual, alone, work.loose)
                findings.append(Finding(finding_id, text))
            return findings
    run = next((r for r in wrong if r.case.group == PROBE), None)
    where = f": {L.probe_matches(run)[1]}" if run is not None else ""
    return [Finding("samples-mixed", f"Every call with several samples, {len(batched)} in all, returned the right "
                                     f"logits, but {len(wrong)} of the {len(single)} calls with a single sample (B = 1) "
                                     f"did not{where}. So what a sample gets depends on how many samples its batch "
                                     f"holds: the code takes another path when B = 1.")]


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
    worst, lows = 0.0, {np.float32: 0.0, np.float16: 0.0}
    for run in graded:
        if run.outcome.array is not None and run.outcome.array.dtype != np.float64:
            return []  # a float32 result: wrong-dtype says so, and the precision follows from it
        arr = S.usable(run)
        if arr is None or run.case.group == "full-scale" or run.case.args[0].size * run.case.args[1].shape[1] > 2_000_000:
            continue
        try:
            with np.errstate(all="ignore"):
                model = V.Stack([run.case.args]).forward(spec)[0]
                scale = float(np.abs(model).max()) or 1.0
                worst = max(worst, float(np.max(np.abs(arr - model))) / scale)
                for dtype in lows:
                    low = V.Stack([tuple(a.astype(dtype) for a in run.case.args)]).forward(spec)[0]
                    lows[dtype] = max(lows[dtype], float(np.max(np.abs(low - model))) / scale)
        except (ValueError, KeyError):
            return []
    if not (worst > 1e-8 and np.isfinite(worst)):
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


#: changes of the flattened features that the search is run again under, for a second mistake beside them
CHANGES = NORMALISATIONS + (
    ("divided by 255", lambda x: x / 255.0),
    ("divided by their L2 norm, sample by sample", lambda x: x / np.linalg.norm(x, axis=1, keepdims=True)),
    ("cast to integers (truncated toward 0, as astype(int) does)", np.trunc),
)


def _changed(args: tuple, change) -> tuple:
    f = args[0]
    return (change(f.reshape(f.shape[0], -1)).reshape(f.shape), *args[1:])


def changed_and_more(work, graded) -> list:
    """The features are changed one of the usual ways (``CHANGES``) and something else departs too, say b1 left out:
    the search is run again on the probes with their features changed that way (a probe the change turns into NaN,
    constant features divided by their spread, is left out), and the variant must give every graded case from its
    changed features. Both are named."""
    found = getattr(work, "_search", None)
    small = [r for r in graded if r.case.group != "full-scale"]
    if found is None or not small or any(S.usable(r) is None for r in small):
        return []
    stack, square, actual, mask, starts, extra_acts, finals, exact = found
    for how, change in CHANGES:
        with np.errstate(all="ignore"):
            cases = [_changed(r.case.args, change) for r in square]
        usable = np.array([bool(np.isfinite(c[0]).all()) for c in cases])
        if usable.sum() < 4:
            continue
        changed_mask = mask & usable[:, None, None]
        try:
            with np.errstate(all="ignore"):
                changed_stack = V.Stack(cases)
        except ValueError:
            continue
        spec, complete = Q.search(changed_stack, actual, changed_mask, starts, extra_acts, finals, work.loose, exact)
        if not complete or spec == V.REFERENCE:
            continue
        fits = True
        for run in small:
            with np.errstate(all="ignore"):
                args = _changed(run.case.args, change)
                try:
                    model = V.Stack([args]).forward(spec)[0]
                except (ValueError, KeyError):
                    fits = False
                    break
            arr = S.usable(run)
            if model.shape != arr.shape or not bool(Q.close(arr[None], model[None], work.loose).all()):
                fits = False
                break
        if not fits:
            continue
        findings = [Finding("features-changed", f"Your function returns what the head gives when the flattened "
                                                f"features are {how} before FC1 and the other mistake named here is "
                                                f"made as well: on every graded case, and on every probe where that "
                                                f"change of the features can be computed.")]
        for finding_id, sentence, undone in Q.describe(spec):
            text = f"Besides the features being {how} before FC1, {sentence}."
            text += Q.example(changed_stack, spec, undone, square, actual, changed_mask, work.loose)
            findings.append(Finding(finding_id, text))
        return findings
    return []
