"""Two conversions that no model of ``diagnosis.py`` holds, since they depend on more than one call's arguments.

* A permutation kept from an earlier call: computed once and stored in a global, it is rebuilt only when the number
  of columns changes (``if _perm is None or _perm.size != C*H*W``), so a later weight of as many columns on another
  map, (2, 3, 4) after (3, 2, 4) say, is reordered for the earlier map. Its columns then follow no axis order of
  their own, and the fallback of the diagnosis called it an axis order; it is ``stale-result``, said with the two
  calls.
* Code written for one row: ``weight.reshape(C, H, W)``, the output axis left out, right when out = 1, while every
  weight of several rows makes numpy refuse the reshape (``output-axis-dropped``).
"""
from __future__ import annotations

import re

import numpy as np

from grader.authoring import PROBE, Finding

#: a shape in an error message: "(3,6,4)" or "(3, 6, 4)", and the size numpy was asked to reshape
SHAPE = re.compile(r"\((\d+(?:,\s*\d+)*),?\)")
SIZE = re.compile(r"array of size (\d+)")


def _where(run) -> str:
    kind = "probe" if run.case.group == PROBE else "case"
    return f"the {kind} '{run.case.name}' ({run.case.description})"


def _permutation(C: int, H: int, W: int) -> np.ndarray:
    return np.arange(C * H * W).reshape(C, H, W).transpose(1, 2, 0).ravel()


def _same(actual, expected: np.ndarray, rtol: float) -> bool:
    if actual is None or actual.shape != expected.shape:
        return False
    scale = float(np.max(np.abs(expected))) if expected.size else 0.0
    with np.errstate(all="ignore"):
        return bool(np.all(np.abs(actual.astype(np.float64) - expected) <= rtol * (scale + np.abs(expected))))


def kept_permutation(runs, rtol: float) -> Finding | None:
    """Every returned call is right or reordered by the permutation of an earlier call's map with as many columns
    (the calls read in the order they ran), and at least one is the latter; no call raised."""
    done, shown = [], None
    for run in runs:
        weight, C, H, W = run.case.args
        array = run.outcome.array if run.outcome.status == "ok" else None
        if array is None or array.dtype.kind not in "fiu":
            return None
        if not _same(array, run.expected, rtol):
            earlier = next((e for e in reversed(done) if e.case.args[1:] != (C, H, W)
                            and int(np.prod(e.case.args[1:])) == C * H * W
                            and _same(array, weight[:, _permutation(*e.case.args[1:])], rtol)), None)
            if earlier is None:
                return None
            shown = shown or (run, earlier)
        done.append(run)
    if shown is None:
        return None
    run, earlier = shown
    return Finding("stale-result", f"On {_where(run)} your result is the weight reordered for the map of "
                                   f"{_where(earlier)}, an earlier call with as many columns on a map of other "
                                   "sizes: the permutation was kept from that call (stored in a global and rebuilt "
                                   "only when the number of columns changes). It depends on C, H and W, not only "
                                   "on their product: key a kept permutation by all three, or build it each call.")


def output_axis_dropped(runs) -> Finding | None:
    """Every weight of one row is right; every weight of several rows raised numpy's reshape error for a shape of
    C*H*W values, the size asked being the whole weight's (at least one such call)."""
    shown = None
    for run in sorted(runs, key=lambda r: r.case.group != PROBE):
        weight, C, H, W = run.case.args
        out = weight.shape[0]
        if run.outcome.status == "ok":
            if out != 1 or not _same(run.outcome.array, run.expected, 1e-9):
                return None
            continue
        error = run.outcome.exception
        if run.outcome.status != "raised" or error is None or out == 1:
            return None
        size, shape = SIZE.search(error.message), SHAPE.search(error.message.split("into shape")[-1])
        if size is None or shape is None or int(size.group(1)) != weight.size:
            return None
        if int(np.prod([int(n) for n in shape.group(1).split(",")])) != C * H * W:
            return None
        shown = shown or (run, shape.group(0))
    if shown is None:
        return None
    run, shape = shown
    return Finding("output-axis-dropped", f"On {_where(run)} your function raised {run.outcome.exception.type}: "
                   f"{run.outcome.exception.message.strip()}: the reshape to {shape} holds the C*H*W weights of one "
                   f"output, where the weight has {run.case.args[0].shape[0]} rows; with a single row your result is "
                   "right. Keep the output axis first in every reshape, (out, C, H, W).")
