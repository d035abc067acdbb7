"""Mistakes of dense_scores that the switch model (``model.py``) does not hold, tried when its search explains
nothing: whole-result patterns checked against every call that returned.

* ``buffer-reused``: one row of scores filled per grid row into a buffer allocated once and appended to a list, so
  every row of the grid is the last one (``rows.append(row)`` keeps a reference, not a copy);
* ``activation-applied``: a ReLU on the windows' products before the bias is added, max(0, w . W_o) + b_o, where
  the model only holds an activation on the finished scores.

A pattern is named only when it reproduces every returned call (to the model's tolerance), changes at least one,
and no call raised.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from grader.authoring import PROBE, Finding

from .model import MATCH


def _where(run) -> str:
    kind = "probe" if run.case.group == PROBE else "case"
    return f"the {kind} '{run.case.name}' ({run.case.description})"


def _close(actual: np.ndarray, predicted: np.ndarray, scale: float) -> bool:
    return actual.shape == predicted.shape and bool(
        np.all(np.abs(actual.astype(np.float64) - predicted) <= MATCH * scale))


def _last_row(args, expected: np.ndarray) -> np.ndarray:
    return np.broadcast_to(expected[-1:], expected.shape) if expected.ndim == 3 and expected.shape[0] else expected


def _relu_before_bias(args, expected: np.ndarray) -> np.ndarray:
    bias = np.asarray(args[2], dtype=np.float64)
    return np.maximum(expected - bias, 0.0) + bias


PATTERNS: list[tuple[str, Callable]] = [("buffer-reused", _last_row), ("activation-applied", _relu_before_bias)]


def _text(finding_id: str, run) -> str:
    if finding_id == "buffer-reused":
        return (f"On {_where(run)} every row of your grid holds the scores of the last row of windows, "
                f"{run.outcome.array.shape[0]} times: each row was written into one buffer allocated before the "
                "loop and the list kept that buffer, not a copy of it, so the last row's scores show in every row.")
    return (f"On {_where(run)} your scores equal max(0, window @ weight.T) + bias: a ReLU was applied to the "
            "windows' products before the bias was added. The layer's scores have no activation at all.")


def unmodelled(runs) -> Finding | None:
    ranked = sorted(runs, key=lambda r: (r.case.group != PROBE and not r.case.name.startswith("public-")))
    for finding_id, predict in PATTERNS:
        shown = None
        for run in ranked:
            actual = run.outcome.array if run.outcome.status == "ok" else None
            if actual is None or run.expected is None:
                break
            expected = np.asarray(run.expected, dtype=np.float64)
            scale = max(1.0, float(np.abs(expected).max(initial=0.0)))
            if actual.dtype.kind not in "biuf" or not _close(actual, predict(run.case.args, expected), scale):
                break
            if shown is None and not _close(actual, expected, scale):
                shown = run
        else:
            if shown is not None:
                return Finding(finding_id, _text(finding_id, shown))
    return None
