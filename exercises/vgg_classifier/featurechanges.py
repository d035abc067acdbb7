"""The features changed before FC1 in ways the ramp probes cannot read (``features-changed``): rounded to a grid
(``quantised``), normalised one of the usual ways (``normalised``), or changed beside another mistake that the
search then finds on the changed features (``changed_and_more``). Each is a model of the whole head checked on
every graded case, since the ramps' constant features hide the change.
"""
from __future__ import annotations

import numpy as np

from grader.authoring import PROBE, Finding

from . import featuremaps as Fm
from . import search as Q
from . import stages as S
from . import structure as T
from . import variants as V


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


def _flattened(change):
    """A change of the flattened features as a change of the (B, H, W, C) features."""
    return lambda f: change(f.reshape(f.shape[0], -1))


#: (what FC1 received, why it is wrong, the change of the (B, H, W, C) features): the normalisations, then the
#: features replaced by something computed from them (``featuremaps.py``)
REPLACEMENTS = tuple((f"the flattened features {how}", "", _flattened(change)) for how, change in NORMALISATIONS
                     ) + Fm.MAPS


def normalised(graded, probes) -> list:
    """Every graded case and every probe whose output is finite gives the head's logits on the features changed one
    of the usual ways (``REPLACEMENTS``). The stage probes cannot show it: the ramps' features are one constant,
    whose spread is 0 (so those probes return NaN), and whose channel mean is that constant again."""
    checked = [r for r in graded + probes if r.case.group != "full-scale"]
    usable = [(r, S.usable(r)) for r in checked]
    if any(a is None for r, a in usable if r.case.group != PROBE) or len(usable) < 2:
        return []
    finite = [(r, a) for r, a in usable if a is not None and np.isfinite(a).all()]
    if len([r for r, _ in finite if r.case.group != PROBE]) < 2:
        return []
    for what, why, change in REPLACEMENTS:
        fits = True
        for r, arr in finite:
            with np.errstate(all="ignore"):
                x = change(r.case.args[0])
                model = (np.mean([_head(r.case.args, one) for one in x], axis=0) if isinstance(x, tuple)
                         else _head(r.case.args, x))
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
        text = (f"Your logits are exactly those of the head on {what}, before FC1, on every graded case and on every "
                f"probe that returned finite values.{example}" + (f" {why}" if why else ""))
        if nan:
            text += (f" Probes {', '.join(repr(n) for n in nan[:3])}{', ...' if len(nan) > 3 else ''} have "
                     f"constant features (one value throughout each sample) and got NaN: the spread your code "
                     f"divides by is 0 there, so the division is 0/0.")
        return [Finding("features-changed", text)]
    return []


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
