"""The sentences that show a named mistake on a probe: what the student's output holds against what the statement
gives, and whether the class map still averages to the logits. Only wording: no verdict is decided here."""
from __future__ import annotations

import numpy as np

from grader.authoring import PROBE

from .fitting import _close, _part, _Table


def _fmt(values: np.ndarray, count: int = 5) -> str:
    flat = np.asarray(values, dtype=np.float64).ravel()
    shown = ", ".join(f"{v:.4g}" for v in flat[:count])
    return f"[{shown}{', ...' if flat.size > count else ''}]"


def _example(table: _Table, output: int, model: int, swapped: bool) -> str:
    """The model's departure shown on a probe: what the student returned against what the statement gives."""
    for i, run in enumerate(table.runs):
        if run.case.group != PROBE:
            continue
        mine = _part(run, output, swapped)
        right = run.expected[output]
        if mine is None or (mine.shape == right.shape and _close(mine, right, 1e-9)):
            continue
        label = f"On probe '{run.case.name}' ({run.case.description})"
        if output == 0:
            if mine.shape != right.shape:
                return f" {label}, your logits have shape {mine.shape} instead of {right.shape}."
            return f" {label}, your logits are {_fmt(mine)} where the statement's are {_fmt(right)}."
        if mine.shape != right.shape:
            return f" {label}, your class map has shape {mine.shape} instead of {right.shape}."
        off = np.argwhere(np.abs(mine - right).max(axis=-1) > 1e-9 * (float(np.abs(right).max()) + 1.0))
        i, j = (int(off[0][0]), int(off[0][1])) if len(off) else (0, 0)  # the first position that differs
        return (f" {label}, your class map at position ({i}, {j}) is {_fmt(mine[i, j])} where the statement's is "
                f"{_fmt(right[i, j])}.")
    return ""


def _mean_note(table: _Table, swapped: bool) -> str:
    """Whether the student's class map still averages to the student's logits, on the first probe with both."""
    for run in table.runs:
        if run.case.group != PROBE:
            continue
        logits, cmap = _part(run, 0, swapped), _part(run, 1, swapped)
        if logits is None or cmap is None or cmap.ndim != 3 or cmap.shape[-1] != logits.shape[-1]:
            continue
        gap = np.abs(cmap.mean(axis=(0, 1)) - logits)
        if float(gap.max()) > 1e-9 * (float(np.abs(logits).max()) + 1.0):
            return (f" Your class map's mean over positions no longer equals your logits (on probe "
                    f"'{run.case.name}' they differ by up to {float(gap.max()):.3g}).")
        return ""
    return ""

