"""Which pair of models, one per output, reproduces the student's function on every small case: every model is
evaluated once per case (``_Table``), and the pair with the fewest departures from the reference that explains
every output and every error is chosen (``_fit``)."""
from __future__ import annotations

import numpy as np

from grader.authoring import Case

from .models import _LAST_MAP, LOGITS, MAPS

#: the largest case a model is evaluated on (inputs' total size); GoogLeNet's case (1.1 million) still is
SMALL = 4_000_000

def _evaluate(fn, case: Case):
    try:
        with np.errstate(all="ignore"):
            return np.asarray(fn(*case.args), dtype=np.float64)
    except Exception:  # noqa: BLE001 - a model that raises on this case, as the student's may
        return None


def _close(actual: np.ndarray, expected: np.ndarray, rtol: float) -> bool:
    if actual.shape != expected.shape:
        return False
    with np.errstate(all="ignore"):
        scale = float(np.max(np.abs(expected))) if expected.size else 0.0
        return bool(np.all(np.abs(actual.astype(np.float64) - expected) <= rtol * (scale + np.abs(expected))))


def _part(run, index: int, swapped: bool = False) -> np.ndarray | None:
    """The student's output ``index`` (the other one when ``swapped``) as a numeric array, or None."""
    out = run.outcome
    if out.status != "ok":
        return None
    index = 1 - index if swapped else index
    parts = out.parts
    if parts:
        if index >= len(parts):
            return None
        array = parts[index].array
    else:
        array = out.array if index == 0 else None
    return array if array is not None and array.dtype.kind in "fiu" else None


def _small(run) -> bool:
    return sum(a.size for a in run.case.args if isinstance(a, np.ndarray)) <= SMALL


# -- fitting ------------------------------------------------------------------------------------------------------
class _Table:
    """Every model's output on every small run, computed once."""

    def __init__(self, runs) -> None:
        self.runs = runs
        columns = [[_evaluate(fn, r.case) for _, _, fn in LOGITS + MAPS] for r in runs]  # one run at a time
        _LAST_MAP.clear()
        models = [(o, m) for o, group in enumerate((LOGITS, MAPS)) for m in range(len(group))]
        self.values = {key: [column[k] for column in columns] for k, key in enumerate(models)}

    def candidates(self, output: int, rtol: float, swapped: bool) -> list[int] | None:
        """Models of ``output`` that reproduce it wherever the student returned it; None: it never came back."""
        models = (LOGITS, MAPS)[output]
        seen = [(i, a) for i, r in enumerate(self.runs) if (a := _part(r, output, swapped)) is not None]
        if not seen:
            return None
        return [m for m in range(len(models))
                if all((v := self.values[(output, m)][i]) is not None and _close(a, v, rtol) for i, a in seen)]

    def raises(self, output: int, model: int, index: int) -> bool:
        return self.values[(output, model)][index] is None


def _fit(table: _Table, rtol: float, swapped: bool = False) -> tuple[int | None, int | None] | None:
    """The preferred pair (logits model, map model) that explains every run, None for an output that never came
    back or that no model explains; None overall when nothing is explained."""
    raised = [i for i, r in enumerate(table.runs) if r.outcome.status == "raised"]
    logits, maps = table.candidates(0, rtol, swapped), table.candidates(1, rtol, swapped)
    if not logits and not maps:
        return None
    pairs = [(lm, mm) for lm in (logits or [None]) for mm in (maps or [None])]
    for lm, mm in sorted(pairs, key=lambda p: ((p[0] or 0) > 0) + ((p[1] or 0) > 0)):
        unknown = lm is None or mm is None  # an unexplained output may be what raised
        if unknown or all(table.raises(0, lm, i) or table.raises(1, mm, i) for i in raised):
            return lm, mm
    return None

