"""Findings that no model of one output reads: a function that does not return a (logits, class_map) pair, and a
class map that is the right one rescaled or shifted per class by numbers no model lists (a heat map normalised for
display, a bias counted a number of times nobody catalogued)."""
from __future__ import annotations

import numpy as np

from grader.authoring import PROBE, Finding

from .fitting import _part, _Table


def _not_a_pair(runs) -> Finding | None:
    for run in sorted(runs, key=lambda r: r.case.group != PROBE):  # a probe first: its sizes are public
        out = run.outcome
        if out.status != "ok" or out.type_name == "NoneType":
            continue
        if out.count != 2 or (out.parts and any(p.type_name == "nothing" for p in out.parts)):
            shaped = out.shape is not None and (out.exact_ndarray or out.subclass)  # a dict or a generator reads
            # as a 0-d array of one object: "one dict of shape ()" told the student of a shape their value has not
            what = (f"one {out.type_name}" + (f" of shape {tuple(out.shape)}" if shaped else "")
                    if out.count == 1 else f"{out.count} values")
            where = (f"on probe '{run.case.name}' ({run.case.description})" if run.case.group == PROBE
                     else f"on the '{run.case.name}' case")
            return Finding("not-a-pair", f"Your function returned {what} {where}, where the tuple "
                                         "(logits, class_map) was expected.")
    return None


def _affine_map(table: _Table, swapped: bool) -> Finding | None:
    """No model explains the class map, but on every case it is the right one with each class's scores multiplied
    by a number and shifted by another: rescaled for display (to [0, 1], by its maximum...), or shifted by a
    constant per class, a bias counted wrong. Maps of a single position say nothing (any two numbers are affine)."""
    fitted = []
    for run in table.runs:
        mine, right = _part(run, 1, swapped), run.expected[1]
        if mine is None:
            continue
        if mine.shape != right.shape:
            return None
        if right.shape[0] * right.shape[1] < 2 or not np.all(np.isfinite(mine)):
            continue
        x, y = right.reshape(-1, right.shape[-1]), mine.reshape(-1, mine.shape[-1]).astype(np.float64)
        dx, dy = x - x.mean(axis=0), y - y.mean(axis=0)
        spread = (dx ** 2).sum(axis=0)
        if np.any(spread <= 1e-24 * (np.abs(x).max(axis=0) ** 2 + 1e-300)):
            return None  # a class whose right scores are the same everywhere: any shift fits it
        scale = (dx * dy).sum(axis=0) / spread  # least squares, one line per class
        if np.any(scale <= 1e-6):
            return None  # flat or upside down (the logits copied to every position, a negated map): no rescaling
        shift = y.mean(axis=0) - scale * x.mean(axis=0)
        error = np.abs(y - (scale * x + shift)).max(axis=0)
        if not np.all(error <= 1e-9 * (np.abs(y).max(axis=0) + np.abs(shift) + 1e-300)):
            return None  # float32 arithmetic or rounding: not an exact line
        fitted.append((run, scale, shift, y))
    # a departure far above rounding somewhere (float32 arithmetic would fit a line with a slope of 1 + 1e-8)
    if not any(np.abs(a - 1.0).max() > 1e-6 or np.abs(b).max() > 1e-6 * (1.0 + float(np.abs(r.expected[1]).max()))
               for r, a, b, _ in fitted):
        return None
    run, scale, shift, mine = next(((r, a, b, y) for r, a, b, y in fitted if r.case.group == PROBE), fitted[0])
    where = (f"on probe '{run.case.name}' ({run.case.description})" if run.case.group == PROBE
             else "on a graded case")
    if all(np.allclose(a, 1.0, rtol=0, atol=1e-6) for _, a, _, _ in fitted) and _one_shift(fitted):
        # one number taken from every score (cam - cam.max(), cam - cam.mean()): a bias counted wrong would shift
        # each class by its own multiple of c[k], and the drawn biases differ from class to class
        return Finding("normalised-map", f"Your class map is, on every case, the right one minus a single number, "
                                         f"the same for every class and every position: {where}, every score is "
                                         f"off by {shift[0]:.4g}, as when the map is shifted by its overall maximum, "
                                         "minimum or mean for display.")
    if all(np.allclose(a, 1.0, rtol=0, atol=1e-6) for _, a, _, _ in fitted):
        text = (f"Your class map is, on every case, the right one shifted by a constant for each class: {where}, "
                f"class 0's scores are off by {shift[0]:.4g}")
        c = run.case.args[2]
        if run.case.group == PROBE and np.all(c != 0):
            times = shift / c
            if np.allclose(times, np.round(times[0]), rtol=0, atol=1e-6) and round(times[0]) != 0:
                text += f", the bias c counted {1 + int(round(times[0]))} times instead of once"
        return Finding("bias-count", text + ".")
    text = (f"Your class map is, on every case, the right one rescaled: each class's scores multiplied by a number "
            f"and shifted by another; {where}, class 0's by {scale[0]:.4g} and {shift[0]:.4g}")
    lows, highs = mine.min(axis=0), mine.max(axis=0)
    if np.allclose(lows, 0.0, atol=1e-6) and np.allclose(highs, 1.0, atol=1e-6):
        text += ", so that every class's map runs from 0 to 1, as a heat map is normalised for display"
    return Finding("normalised-map", text + ".")


def _one_shift(fitted) -> bool:
    """Every fitted case shifts all its classes by one number, and some case has two classes or more to say so."""
    several = [shift for _, _, shift, _ in fitted if shift.size > 1]
    return bool(several) and all(np.ptp(shift) <= 1e-9 * (1.0 + float(np.abs(shift).max())) for shift in several)


def rounded_map(table: _Table, swapped: bool) -> Finding | None:
    """No model explains the class map, but on every case it is the right one rounded to a fixed number of
    decimals (np.round(cam, 2) to print it). The harness's own rounding check reads a function's output as a
    whole, and the logits, left unrounded, hide it there."""
    seen = [(run, mine) for run in table.runs if (mine := _part(run, 1, swapped)) is not None]
    if not seen or any(mine.shape != run.expected[1].shape or mine.dtype.kind != "f" for run, mine in seen):
        return None
    for decimals in range(0, 9):
        step = 10.0 ** -decimals
        with np.errstate(all="ignore"):
            if all(np.array_equal(mine, np.round(run.expected[1], decimals)) for run, mine in seen):
                if all(np.array_equal(mine, run.expected[1]) for run, mine in seen):
                    return None  # the right map happens to be in whole steps: nothing was lost
                return Finding("rounded-output", f"Your class map is, on every case, the right one rounded to "
                                                 f"{decimals} decimal{'s' if decimals != 1 else ''} (every score a "
                                                 f"multiple of {step:g}): round only what you print, never what you "
                                                 "return.")
    return None
