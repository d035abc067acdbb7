"""Changes inside the head that the variant search cannot model exactly, read from every output directly.

The search's variants are exact functions, so a normalisation whose epsilon or formula differs from the model's
(``np.sqrt(var + eps)`` against ``std + eps``, eps = 1e-3 against 1e-5) or a rounding of h1 to 4 decimals matches
no variant, and the report fell back to a bare stage reading ("turns b1 into 0, 0, 0, ..."). Here each candidate
change of one hidden layer is computed on every graded case and probe, and one that gives them all (to 1e-6 of
the largest logit) is named, with an output of a probe that shows it. ``hidden_changed`` also reads weight
matrices transposed and then reshaped back to the stored shape (``W1.T.reshape(W1.shape)``): on the square probes
that is a plain transpose, elsewhere it scatters the weights, so neither the search nor its verification sees it.
``unexplained`` is the last word when nothing else was found although graded values are wrong: an honest generic
finding instead of an empty report.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from grader.authoring import PROBE, Finding

from . import stages as S
from . import structure as T

RTOL = 1e-6  # far above float64's rounding, far below any eps's effect on unit-variance values
EPSILONS = (1e-5, 1e-3, 1e-8, 1e-6, 0.0)
LAYER = ("FC1", "FC2")


def _relu(z):
    return np.maximum(z, 0.0)


def _norm(axis: int, form: str, eps: float) -> Callable:
    """(h - mean) / spread over ``axis``: 0 the batch (batch norm), 1 the units (layer norm)."""
    def change(h):
        centred = h - h.mean(axis=axis, keepdims=True)
        var = h.var(axis=axis, keepdims=True)
        spread = np.sqrt(var + eps) if form == "var" else np.sqrt(var) + eps
        return centred / spread
    return change


def _unit_zeroed(h, unit: int):
    h = h.copy()
    h[:, unit] = 0.0
    return h


def _batch_suffix(finding: str) -> str:
    return (", so each sample's logits depend on the rest of its batch (a single sample's normalised values are "
            "all 0)") if finding == "samples-mixed" else ""


def _candidates():
    """(layer, before the ReLU?, function of z, finding id, what was done): every hidden change tried."""
    out = []
    for layer in (0, 1):
        h = f"h{layer + 1}"
        for axis, name, finding in ((0, "batch norm", "samples-mixed"), (1, "layer norm", "wrong-stage")):
            over = "per unit over the samples of the batch" if axis == 0 else "per sample over the units"
            for form in ("var", "std"):
                for eps in EPSILONS:
                    norm = _norm(axis, form, eps)
                    formula = (f"np.sqrt(var + {eps:g})" if form == "var" else f"std + {eps:g}") if eps else "std"
                    out.append((layer, lambda z, n=norm: _relu(n(z)), finding,
                                f"In {LAYER[layer]} the pre-activations are normalised {over} (a {name}, "
                                f"(z - mean) / {formula}) before the ReLU, a layer the head does not have"
                                + _batch_suffix(finding)))
                    out.append((layer, lambda z, n=norm: n(_relu(z)), finding,
                                f"In {LAYER[layer]} the values after the ReLU ({h}) are normalised {over} (a {name}, "
                                f"(h - mean) / {formula}), a layer the head does not have" + _batch_suffix(finding)))
        # the last unit only: the first one, 0 on every ramp, is read from probe 'flatten-order' (``verdicts``)
        for where, unit, code in (("last", -1, f"{h}[:, -1] = 0, or a loop that stops one unit short"),):
            out.append((layer, lambda z, u=unit: _unit_zeroed(_relu(z), u), "wrong-stage",
                        f"In {LAYER[layer]} the {where} unit's activation is 0 on every call, whatever the input "
                        f"and the bias ({code}), while every other unit is as stated; a dropout mask would not hit "
                        f"that same unit at every size"))
        out += _rescaled(layer, h)
        for decimals in range(0, 7):
            out.append((layer, lambda z, d=decimals: np.round(_relu(z), d), "rounded-output",
                        f"In {LAYER[layer]} the values after the ReLU ({h}) are rounded to {decimals} decimals "
                        f"(np.round({h}, {decimals})), so the next layer sees rounded values"))
    return out


def _rescaled(layer: int, h: str) -> list:
    """A hidden layer divided by its own size after the ReLU: by the largest value or the norm of the whole batch
    (so each sample depends on the others), by each sample's norm, largest value or sum (perhaps plus a small
    epsilon), or by the square root of the layer's width. Each gives NaN where a row or the batch is all 0, as on
    the ramp probes, which ``_usable_runs`` leaves out: the other calls still read it exactly."""
    batch = ", so each sample's logits depend on the rest of its batch"
    out = [(layer, lambda z: _relu(z) / _relu(z).max(), "samples-mixed",
            f"In {LAYER[layer]} the values after the ReLU ({h}) are divided by their largest value over the whole "
            f"batch ({h} / {h}.max(), no axis){batch}"),
           (layer, lambda z: _relu(z) / np.linalg.norm(_relu(z)), "samples-mixed",
            f"In {LAYER[layer]} the values after the ReLU ({h}) are divided by the norm of the whole batch's values "
            f"({h} / np.linalg.norm({h}), no axis){batch}"),
           (layer, lambda z: _relu(z) / np.sqrt(z.shape[1]), "wrong-stage",
            f"In {LAYER[layer]} the values after the ReLU ({h}) are divided by the square root of the layer's width "
            f"({h} / np.sqrt({h}.shape[1])), a scaling the head does not have")]
    # the width itself, or half of it in whole numbers (W.shape[1] // 2, a dropout-like halving typed with //): the
    # factor differs with each case's width, so no variant of fixed scale gives every call (6 on the 12-wide probes)
    for code, width in (("{h}.shape[1]", lambda n: n), ("({h}.shape[1] // 2)", lambda n: n // 2)):
        text = code.format(h=h)
        out.append((layer, lambda z, w=width: _relu(z) / w(z.shape[1]), "wrong-stage",
                    f"In {LAYER[layer]} the values after the ReLU ({h}) are divided by "
                    f"{'half ' if '//' in code else ''}the layer's width ({h} / {text}, W{layer + 1}.shape[1] being "
                    f"the same number), a scaling the head does not have: the factor changes with each call's sizes"))
    per_sample = (("Euclidean norm", "np.linalg.norm({h}, axis=1, keepdims=True)",
                   lambda h: np.linalg.norm(h, axis=1, keepdims=True)),
                  ("largest value", "{h}.max(axis=1, keepdims=True)", lambda h: h.max(axis=1, keepdims=True)),
                  ("sum", "{h}.sum(axis=1, keepdims=True)", lambda h: h.sum(axis=1, keepdims=True)))
    for what, code, size in per_sample:
        for eps in (0.0, 1e-8, 1e-5, 1e-3):  # 1e-8 stands for every tiny epsilon: no call tells them apart
            tiny = " + eps, a tiny epsilon" if eps == 1e-8 else f" + {eps:g}"
            div = f"({code.format(h=h)}{tiny})" if eps else code.format(h=h)
            out.append((layer, lambda z, f=size, e=eps: _relu(z) / (f(_relu(z)) + e), "wrong-stage",
                        f"In {LAYER[layer]} the values after the ReLU ({h}) are divided by each sample's {what} "
                        f"({h} / {div}), a normalisation the head does not have"))
    return out


CANDIDATES = _candidates()


def _head(args, change, layer: int, weights=None) -> np.ndarray:
    f, W1, b1, W2, b2, W3, b3 = args
    if weights is not None:
        W1, W2, W3 = (w if t is None else t(w) for w, t in zip((W1, W2, W3), weights))
    x = f.reshape(f.shape[0], -1)
    z1 = x @ W1 + b1
    h1 = change(z1) if layer == 0 else _relu(z1)
    z2 = h1 @ W2 + b2
    h2 = change(z2) if layer == 1 else _relu(z2)
    return h2 @ W3 + b3


def _fits(runs, model: Callable) -> bool:
    """The model gives every run, to ``RTOL`` of its largest logit and to a thousandth of its own distance from
    the statement (a rounding to 6 decimals moves the logits by 1e-7: a stray 1e-8 elsewhere must not pass for it),
    and departs from the statement somewhere."""
    departs = False
    for run, arr in runs:
        with np.errstate(all="ignore"):
            try:
                out = model(run.case.args)
            except ValueError:
                return False
        if out.shape != arr.shape or not np.isfinite(out).all():
            return False
        scale = float(np.abs(out).max()) + 1e-12
        effect = float(np.abs(out - run.expected).max())
        departs = departs or effect > 1e-9 * scale
        if not np.all(np.abs(arr - out) <= min(RTOL * scale, 1e-3 * effect) + 1e-12 * scale):
            return False
    return departs


def _usable_runs(graded, probes):
    """Every small run with an output of the right shape, or None when a graded one has none (it raised)."""
    small = [r for r in graded + probes if r.case.group != "full-scale"]
    runs = [(r, S.usable(r)) for r in small]
    if any(a is None for r, a in runs if r.case.group != PROBE):
        return None
    runs = [(r, a) for r, a in runs if a is not None and np.isfinite(a).all()]
    if len([r for r, _ in runs if r.case.group != PROBE]) < 2:
        return None
    return runs


def _shown(runs, model: Callable) -> str:
    """A probe output where the model departs from the statement: what it shows, in a sentence."""
    for run, arr in runs:
        if run.case.group != PROBE or T.close(arr, run.expected, 1e-9):
            continue
        i, k = np.unravel_index(int(np.argmax(np.abs(arr - run.expected))), arr.shape)
        sample = f"sample {i + 1}, " if arr.shape[0] > 1 else ""
        return (f" For example, on probe '{run.case.name}' ({run.case.description}), {sample}output {k + 1}: "
                f"expected {run.expected[i, k]:.4g}, your function returned {arr[i, k]:.4g}.")
    return ""


def hidden_changed(graded, probes) -> list:
    """A hidden layer normalised or rounded (``CANDIDATES``), or weights transposed and reshaped back, that gives
    every graded case and every probe with a finite output; the first that fits is named."""
    runs = _usable_runs(graded, probes)
    if runs is None or all(T.close(a, r.expected, 1e-9) for r, a in runs):
        return []
    for layer, change, finding, text in CANDIDATES:
        if _fits(runs, lambda args, c=change, l=layer: _head(args, c, l)):
            return [Finding(finding, text + "." + _shown(runs, lambda a: a))]
    return _reshaped_weights(runs)


RESHAPES = (
    ("transposed and then reshaped back to its stored shape ({w}.T.reshape({w}.shape))",
     lambda w: w.T.reshape(w.shape)),
    ("reshaped to (out, in) and transposed ({w}.reshape({w}.shape[1], {w}.shape[0]).T), as if a reshape swapped "
     "its axes", lambda w: w.reshape(w.shape[1], w.shape[0]).T),
)


def _reshaped_weights(runs) -> list:
    """One or more weight matrices read as (out, in) and then forced back into (in, out) by a reshape: every square
    probe sees a transpose, every other size a scrambled matrix."""
    for how, fix in RESHAPES:
        for mask in ((True, False, False), (False, True, False), (False, False, True), (True, True, True),
                     (True, True, False), (False, True, True), (True, False, True)):
            weights = [fix if m else None for m in mask]
            if _fits(runs, lambda args, w=weights: _head(args, _relu, -1, w)):
                names = [f"W{i + 1}" for i, m in enumerate(mask) if m]
                what = "; ".join(how.format(w=n) for n in names)
                return [Finding("transposed-weights", f"{' and '.join(names)} {'is' if len(names) == 1 else 'are'} "
                                                      f"read as (out, in): {what}. The reshape makes the sizes fit but "
                                                      f"moves the weights to other places; where the matrix is square "
                                                      f"it is a plain transpose." + _shown(runs, lambda a: a))]
    return []


def unexplained(graded, probes) -> list:
    """Nothing was named although a graded case got wrong values, and some case or probe got the statement's logits
    (the code computes the head somewhere): say which cases are wrong, honestly, without guessing a cause."""
    small = [r for r in graded if r.case.group != "full-scale"]
    wrong = [(r, a) for r in small if (a := S.usable(r)) is not None and np.isfinite(a).all()
             and not T.close(a, r.expected, 1e-9)]
    right = [r for r in graded + probes if (a := S.usable(r)) is not None and T.close(a, r.expected, 1e-9)]
    if not wrong or not right:  # right nowhere: perhaps no head at all (random numbers), which the harness reads
        return []
    right_probes = [r for r in probes if (a := S.usable(r)) is not None and T.close(a, r.expected, 1e-9)]
    if _low_precision(graded, probes):
        return []  # the harness's own reading names it (precision-loss), which a wrong-stage here would hide
    run, arr = wrong[0]
    gap = float(np.abs(arr - run.expected).max() / (np.abs(run.expected).max() + 1e-300))
    probes_said = (f" Every probe ({len(right_probes)} in all, with short binary fractions as inputs) gets the "
                   f"statement's logits, so the difference comes from something those inputs hide, such as "
                   f"rounding inside the head, values larger than any probe's (a clip or a bound), or a branch on the sizes."
                   if len(right_probes) == len(probes) and probes else "")
    return [Finding("wrong-stage", f"{len(wrong)} of the {len(small)} graded cases returned logits of the right "
                                   f"shape that differ from the statement's, by up to {gap:.2g} of the largest "
                                   f"logit on the '{run.case.name}' case; no catalogued mistake reproduces them."
                                   + probes_said)]


def nothing_right(graded, probes) -> list:
    """No call returned the statement's logits and nothing was named, yet every graded case returned finite logits of
    the right shape: say what the logits ramp (every weight zero, so the logits are b3, read through no product)
    shows, without guessing a cause. A head that returns np.roll(y, 1, axis=1) / 2 or np.log(np.abs(y)) got an
    empty report."""
    small = [r for r in graded if r.case.group != "full-scale"]
    ramp = next((r for r in probes if r.case.name == "logits-ramp"), None)
    arrays = [S.usable(r) for r in small]
    shown = S.usable(ramp) if ramp is not None else None
    if not small or shown is None or any(a is None or a.shape != r.expected.shape for r, a in zip(small, arrays)):
        return []
    if any(T.close(a, r.expected, 1e-9) for r, a in zip(small, arrays)) or T.close(shown, ramp.expected, 1e-9):
        return []
    if _low_precision(graded, probes) or _ignores_inputs(probes):
        return []
    idx = S.shown_points(np.where(np.isfinite(shown[0]), shown[0], 0.0), S.RAMP)
    got = ", ".join(S._fmt(float(shown[0][i]), 4) for i in idx)
    want = ", ".join(S._fmt(float(S.RAMP[i]), 8) for i in idx)
    return [Finding("wrong-stage", f"None of the {len(small)} graded cases returned the statement's logits, and no "
                                   f"catalogued mistake reproduces them. Where to look: on probe 'logits-ramp', "
                                   f"where every weight is zero so that the three products contribute nothing and the "
                                   f"logits should be b3 itself, your function returned {got} for b3 = {want}; so "
                                   f"b3 is added wrongly or the logits are changed after FC3 (and perhaps something "
                                   f"before it departs as well).")]


def _ignores_inputs(probes) -> bool:
    """Two probes with different statement's logits got the very same output, not one constant (numbers drawn at a
    fixed seed, say): no stage of a head computed it, so none is pointed at. (Zeros everywhere come naturally from a
    head whose ReLU masks are inverted, on probes whose values are all positive.)"""
    seen: list = []
    for run in probes:
        arr = S.usable(run)
        if arr is None:
            continue
        for other, expected in seen:
            if other.shape == arr.shape and np.array_equal(other, arr) and np.ptp(arr) > 0 and not (
                    expected.shape == run.expected.shape and np.array_equal(expected, run.expected)):
                return True
        seen.append((arr, run.expected))
    return False


PRECISION_FACTOR = 8.0  # as the harness's reading of a reduced precision (grader/diagnose.py) allows


def _low_precision(graded, probes) -> bool:
    """Every small run is as close to the statement as the head computed in float32 (or float16) is: the
    harness names that precision-loss itself."""
    runs = [r for r in graded + probes if r.case.group != "full-scale"]
    for dtype in (np.float32, np.float16):
        for run in runs:
            arr = S.usable(run)
            if arr is None:
                return False
            with np.errstate(all="ignore"):
                low = _head(tuple(a.astype(dtype) for a in run.case.args), _relu, -1).astype(np.float64)
                scale = float(np.abs(run.expected).max()) or 1.0
                error = float(np.max(np.abs(arr - run.expected))) / scale
                low_error = float(np.max(np.abs(low - run.expected))) / scale
            if not np.isfinite(error) or error > PRECISION_FACTOR * low_error + 1e-12:
                break
        else:
            return True
    return False
