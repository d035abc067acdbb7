"""The sentences that show a named mistake on a labelled probe: what row 0 of the student's result holds against
channels-last, and which (c, h, w) each value came from. Only wording: no verdict is decided here."""
from __future__ import annotations

import numpy as np

from grader.authoring import PROBE

from .fitting import _usable
from .models import _dims


def _where(j: int, C: int, H: int, W: int, layout: str = "CHW") -> str:
    """Column j of a row in ``layout`` as (c, h, w)."""
    dims = _dims(C, H, W)
    index = dict(zip(layout, np.unravel_index(j, tuple(dims[a] for a in layout))))
    return f"c={int(index['C'])}, h={int(index['H'])}, w={int(index['W'])}"


def _row_start(values: np.ndarray, count: int = 8) -> str:
    shown = ", ".join(f"{v:g}" for v in values[:count])
    return shown + (", ..." if values.size > count else "")


def _probe_example(probes, finding_id: str) -> str:
    """What the student's output looks like on a labelled probe, against what channels-last gives."""
    for run in probes:
        actual = _usable(run)
        if actual is None:
            continue
        weight, C, H, W = run.case.args
        n = C * H * W
        label = f"On probe '{run.case.name}' ({run.case.description})"
        if finding_id == "transposed-result" and actual.ndim == 2:
            return (f" {label}, your result has shape {actual.shape}: one row per input and one column per "
                    f"output, where the weight's layout is {run.expected.shape}.")
        if finding_id == "rows-permuted" and actual.ndim == 2 and actual.shape[1] == n and actual.shape[0] >= 2:
            rows = [int((actual[r, 0] - 1) // n) for r in range(min(4, actual.shape[0]))]
            if all(np.array_equal(actual[r], weight[s]) for r, s in enumerate(rows)):
                return (f" {label}, the first rows of your result are rows {', '.join(map(str, rows))} of the "
                        "weight, unchanged: the rows moved and the columns did not.")
        if actual.ndim == 2 and actual.shape == run.expected.shape and actual.shape[0] >= 1:
            mine, right = actual[0], run.expected[0]
            k = int(np.argmax(mine != right)) if np.any(mine != right) else -1
            text = (f" {label}, row 0 of your result starts {_row_start(mine)} where the channels-last order "
                    f"starts {_row_start(right)}")
            if k >= 0 and float(mine[k]).is_integer() and 1 <= mine[k] <= n:
                source = int(mine[k]) - 1
                text += (f"; column {k} holds the weight of ({_where(source, C, H, W)}), where channels-last "
                         f"puts ({_where(k, C, H, W, 'HWC')})")
            return text + "."
        if finding_id == "rows-permuted" and actual.ndim == 2:
            return (f" {label}, your result has shape {actual.shape}, where the weight's layout is "
                    f"{run.expected.shape}.")
    return ""


def _error_example(runs) -> str:
    raised = [r for r in runs if r.outcome.status == "raised"]
    run = next((r for r in raised if r.case.group == PROBE), None)
    if run is None:
        return f" It raised on {len(raised)} graded case{'s' if len(raised) != 1 else ''}." if raised else ""
    return f" On probe '{run.case.name}' ({run.case.description}) it raised {run.outcome.error}."

