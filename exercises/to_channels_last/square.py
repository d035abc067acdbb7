"""A conversion written for square maps only: one side used for both, as ``int(sqrt(H*W))`` or H twice.

The reorder is right wherever H == W, and elsewhere the reshape to (out, C, s, s) refuses the sizes (or, when s*s
happens to be H*W, as for a 1 x 4 map, reorders a 2 x 2 grid that is not the map). The generic finding only says
that it raised; the shape in numpy's message, its last two sizes equal, says why.
"""
from __future__ import annotations

import re

import numpy as np

from grader.authoring import PROBE, Finding

#: a shape in an error message: "(7,5,2,2)" or "(7, 5, 2, 2)"
SHAPE = re.compile(r"\((\d+(?:,\s*\d+)+)\)")
SMALL = 100_000  # values of the weight: the fc6 case is left out, as in the rest of the diagnosis


def _square_shape(message: str, H: int, W: int) -> str | None:
    """A shape of the message that ends in two equal sizes other than the map's, or None."""
    for found in SHAPE.finditer(message):
        sizes = [int(n) for n in found.group(1).split(",")]
        if len(sizes) >= 3 and sizes[-1] == sizes[-2] and sizes[-1] * sizes[-2] != H * W:
            return found.group(0)
    return None


def square_assumed(runs, rtol: float) -> Finding | None:
    """Named when every square map's weight is right and a map that is not square failed on a square reshape."""
    square_right, shown = False, None
    for run in sorted(runs, key=lambda r: r.case.group != PROBE):
        weight, C, H, W = run.case.args
        if getattr(weight, "size", SMALL + 1) > SMALL or run.outcome.status not in ("ok", "raised"):
            continue
        if H == W:
            array = run.outcome.array if run.outcome.status == "ok" else None
            expected = np.asarray(run.expected, dtype=np.float64)
            if array is None or array.shape != expected.shape or not np.allclose(array, expected, rtol=rtol, atol=0):
                return None
            square_right = True
        elif run.outcome.status == "raised" and shown is None and run.outcome.exception is not None:
            shape = _square_shape(run.outcome.exception.message, H, W)
            if shape is not None:
                shown = (run, shape)
    if not square_right or shown is None:
        return None
    run, shape = shown
    _, C, H, W = run.case.args
    kind = "probe" if run.case.group == PROBE else "case"
    return Finding("square-map-assumed",
                   f"Your weight is right on every square map (H = W), and on the {kind} '{run.case.name}' "
                   f"({run.case.description}) your function raised {run.outcome.exception.type}: "
                   f"{run.outcome.exception.message.strip()}: the reshape asks for {shape}, one side used for "
                   f"both, where the map is {H} high and {W} wide.")
