"""Logits that are the right pooled scores times a number, plus the bias times another: the pooling divided by
the wrong count, or the bias counted a wrong number of times, where no listed model of ``diagnosis.py`` names the
count.

A divisor of h*w - 1 (the sample variance's habit), h*h (a square map assumed), or a sum over the rows followed by
a mean over the columns (divided by w, the bias counted h times) each scale the two parts of the logits by
numbers that depend on the map's size. On every case the student's logits are then exactly
``s * (V @ p) + t * c`` for two numbers s and t; fitting them case by case and reading h*w / s and t against the
map's sizes names the count that was used, without a model for each way of getting it wrong.
"""
from __future__ import annotations

import numpy as np

from grader.authoring import PROBE, Finding

#: counts a student divides by (or counts the bias) instead of h*w (or once), by what they are called
COUNTS = (
    ("h*w - 1", lambda h, w, C: h * w - 1), ("h*h (as if the map were square)", lambda h, w, C: h * h),
    ("w*w (as if the map were square)", lambda h, w, C: w * w), ("h, the number of rows", lambda h, w, C: h),
    ("w, the number of columns", lambda h, w, C: w), ("h + w", lambda h, w, C: h + w),
    ("h*w*C, the size of the whole map", lambda h, w, C: h * w * C), ("C, the number of channels", lambda h, w, C: C),
    ("1 (a sum, not a mean)", lambda h, w, C: 1),
    ("h / w, what '/ h * w' computes (h*w without brackets)", lambda h, w, C: h / w),
    ("w / h, what '/ w * h' computes (w*h without brackets)", lambda h, w, C: w / h),
    ("h*w", lambda h, w, C: h * w), ("2", lambda h, w, C: 2), ("0", lambda h, w, C: 0),
)
EXACT = 1e-9


def _fit(logits: np.ndarray, pooled: np.ndarray, bias: np.ndarray) -> tuple[float, float] | None:
    """(s, t) with logits == s * pooled + t * bias exactly, or None (no such pair, or the two are not separable)."""
    basis = np.stack([pooled, bias], axis=1)
    if basis.shape[0] < 2 or np.linalg.matrix_rank(basis) < 2:
        return None
    (s, t), *_ = np.linalg.lstsq(basis, logits, rcond=None)
    scale = float(np.abs(logits).max()) + float(np.abs(pooled).max()) + float(np.abs(bias).max())
    if float(np.abs(basis @ np.array([s, t]) - logits).max()) > EXACT * scale:
        return None
    return float(s), float(t)


def _named(values: list[tuple[float, tuple[int, int, int]]]) -> str | None:
    """The name of the count that gives each value on its case's (h, w, C), if one does on every case."""
    for name, count in COUNTS:
        if all(abs(v - count(*sizes)) <= 1e-6 * max(1.0, abs(v)) for v, sizes in values):
            return name
    return None


def _shown(fitted, departs):
    """The run to show a departure on: a probe where it shows (its sizes are public), else a graded case."""
    run, s, t = next((f for f in fitted if f[0].case.group == PROBE and departs(f)),
                     next(f for f in fitted if departs(f)))
    h, w, _ = run.case.args[0].shape
    where = (f"on probe '{run.case.name}' ({run.case.description})" if run.case.group == PROBE
             else "on a graded case")
    return run, s, t, h, w, where


def rescaled_logits(runs, logits_of) -> list[Finding]:
    """Findings for logits that are ``s * (V @ p) + t * c`` on every run with finite logits, s or t not 1.

    ``logits_of(run)`` is the student's logits array of a run (None if it did not return one). Runs whose logits
    are not finite are left to the non-finite finding (a divisor of h*w - 1 divides by zero on one position)."""
    fitted = []
    for run in runs:
        mine = logits_of(run)
        if mine is None:
            continue
        F, V, c = run.case.args
        if mine.shape != (V.shape[0],):
            return []
        if not np.all(np.isfinite(mine)):
            continue
        pair = _fit(mine.astype(np.float64), V @ F.mean(axis=(0, 1)), c)
        if pair is None:
            if V.shape[0] < 2:
                continue  # one class: any two numbers fit, nothing to read
            return []
        fitted.append((run, *pair))
    # a scale of zero is logits that do not follow the pooled features at all (zeros, a constant): no divisor and
    # no count of the bias describes them, and h*w / s would divide by zero
    if not fitted or any(abs(s) <= 1e-12 for _, s, _ in fitted):
        return []
    off_scale = any(abs(s - 1.0) > 1e-6 for _, s, _ in fitted)
    off_bias = any(abs(t - 1.0) > 1e-6 for _, _, t in fitted)
    if not off_scale and not off_bias:
        return []
    findings = []
    if off_scale:
        run, s, _, h, w, where = _shown(fitted, lambda f: abs(f[1] - 1.0) > 1e-6)
        divisors = [((r.case.args[0].shape[0] * r.case.args[0].shape[1]) / s_, r.case.args[0].shape)
                    for r, s_, _ in fitted if abs(s_) > 1e-12]
        name = _named(divisors)
        said = f"divided by {name}," if name else "divided by another number"
        finding_id = "sum-pooling" if name and name.startswith("1 ") else "wrong-divisor"
        findings.append(Finding(finding_id, f"Your logits are, on every case, computed from the positions summed and "
                                            f"{said} instead of h*w: {where}, the sum is divided by "
                                            f"{h * w / s:.4g} where h*w is {h * w}."))
    if off_bias:
        run, _, t, h, w, where = _shown(fitted, lambda f: abs(f[2] - 1.0) > 1e-6)
        name = _named([(t_, r.case.args[0].shape) for r, _, t_ in fitted])
        if name is not None and not name.startswith("1 "):
            said = f", which is {name}"
        elif all(abs(t_ - float(r.case.args[0].mean(axis=(0, 1)).sum())) <= 1e-6 * max(1.0, abs(t_))
                 for r, _, t_ in fitted):
            said = (", the sum of the channel averages: c was added to every column of V (V + c[:, None]) "
                    "instead of to the product")
        else:
            said = ""
        findings.append(Finding("bias-count", f"Your logits count the bias c another number of times than once: "
                                              f"{where}, {t:.4g} times{said}."))
    return findings
