"""Findings for a result that no model reproduces but that is still a rearrangement the labelled probes can read:
columns in an order no model lists, columns taken twice, rows mixed, rows reordered, places never written. The
diagnosis tries them in turn when no model fits."""
from __future__ import annotations

import numpy as np

from grader.authoring import PROBE, Finding

from . import rows
from .evidence import _probe_example, _where
from .fitting import _close, _usable


def _columns_shuffled(probes, runs, rtol: float) -> Finding | None:
    """No model fits, but on every labelled probe the result is the weight's columns, each taken once and the same
    ones in every row, and every graded case that returned an array of the right shape is one such gather too: a
    column order. A row sorted, or some rows reordered and others not, is no column order and is left unnamed."""
    checked = []
    for run in probes:
        actual = _usable(run)
        if actual is None or actual.shape != run.expected.shape:
            return None
        source = _source_columns(run)
        if source is None or np.unique(source).size != source.size:
            return None  # each row reordered its own way (sorted, only some rows moved...): not a column order
        checked.append((run, actual))
    for run in runs:
        if run.case.group != PROBE and _usable(run) is not None and not _one_gather(run):
            return None
    if not checked or all(np.array_equal(a, r.expected) for r, a in checked):
        return None
    return Finding("axis-order", "Each row of your result holds the values of the same row of the weight, in a "
                                 "column order that is neither channels-last nor one of the usual wrong orders."
                   + _probe_example([r for r, _ in checked if not np.array_equal(_usable(r), r.expected)],
                                    "axis-order"))


def _source_columns(run) -> np.ndarray | None:
    """On a labelled probe, the weight column each column of the result was copied from, the same for every row;
    None when the result is not such a gather (a value from another row, one that is no weight's...)."""
    actual = _usable(run)
    weight = run.case.args[0]
    if actual is None or actual.shape != run.expected.shape or actual.shape[0] < 1:
        return None
    n = weight.shape[1]
    flat = actual[0] - 1.0
    if not np.all((flat >= 0) & (flat < n) & (flat == np.round(flat))):
        return None
    source = flat.astype(np.int64)
    return source if np.array_equal(actual, weight[:, source]) else None


def _one_gather(run) -> bool:
    """A graded case's result is one permutation of the weight's columns, the same in every row: read from row 0
    by matching values (the drawn weights are distinct), then checked on the whole array."""
    actual, weight = _usable(run), run.case.args[0]
    if actual is None or actual.shape != weight.shape or weight.shape[1] == 0:
        return False
    order = np.argsort(weight[0], kind="stable")
    where = np.searchsorted(weight[0], actual[0], sorter=order)
    source = order[np.clip(where, 0, weight.shape[1] - 1)]
    return np.unique(source).size == source.size and np.array_equal(actual, weight[:, source])


def _columns_repeated(probes, runs) -> Finding | None:
    """No model fits, and on every labelled probe that returned, each column of the result is a column of the
    weight, the same for every row, but some are taken twice and others never: an index formula that is not a
    permutation (a stride of H where W belongs, say)."""
    sources = []
    for run in probes:
        if run.outcome.status == "raised":
            continue
        source = _source_columns(run)
        if source is None:
            return None
        sources.append((run, source))
    repeated = [(r, s) for r, s in sources if np.unique(s).size < s.size]
    if not repeated:
        return None
    run, source = repeated[0]
    weight, C, H, W = run.case.args
    values, counts = np.unique(source, return_counts=True)
    twice = int(values[np.argmax(counts > 1)])
    columns = np.flatnonzero(source == twice)[:2]
    missing = int(np.setdiff1d(np.arange(weight.shape[1]), source)[0])
    text = (f"Each column of your result is a column of the weight, the same one in every row, but not each column "
            f"once: on probe '{run.case.name}' ({run.case.description}), columns {columns[0]} and {columns[1]} of your "
            f"result both hold the weight's column {twice}, ({_where(twice, C, H, W)}), and its column {missing}, "
            f"({_where(missing, C, H, W)}), appears nowhere.")
    graded = [r for r in runs if r.case.group != PROBE and r.outcome.status == "ok" and _usable(r) is not None]
    right = {r.case.group: True for r in graded}
    for r in graded:
        right[r.case.group] &= _close(_usable(r), r.expected, 1e-9)
    if right.get("square") and not all(right.values()):
        text += (" Your result is right on square maps (H = W) and wrong on others: H and W are exchanged "
                 "somewhere in the index arithmetic.")
    return Finding("column-index", text)


def _rows_mixed(probes) -> Finding | None:
    """No model fits, and on every labelled probe the result holds every weight exactly once, in the right shape,
    but some row of it holds weights of several outputs."""
    mixed = None
    for run in probes:
        actual = _usable(run)
        weight = run.case.args[0]
        if actual is None or actual.shape != run.expected.shape:
            return None
        if not np.array_equal(np.sort(actual, axis=None), np.sort(weight, axis=None)):
            return None
        n = weight.shape[1]
        origin = ((actual - 1) // n).astype(np.int64)  # the row of the weight each value comes from
        for r in range(actual.shape[0]):
            rows = np.unique(origin[r])
            if rows.size > 1 and mixed is None:
                mixed = (run, r, rows)
    if mixed is None:
        return None
    run, r, rows = mixed
    shown = ", ".join(map(str, rows[:6])) + (", ..." if rows.size > 6 else "")
    return Finding("rows-mixed", f"Your result holds every weight once, but not in its own row: on probe "
                                 f"'{run.case.name}' ({run.case.description}), row {r} of your result holds values "
                                 f"of rows {shown} of the weight, so one output reads the weights of several.")


def _rows_reordered(probes, runs, rtol: float) -> Finding | None:
    """No model fits, but every result of the right shape is the right weight with its rows in another order (the
    same rows, each once), and on some labelled probe they are not in order: the columns were ported right and the
    outputs then moved (reversed, rolled, sorted...). Rows permuted by the column permutation are a model above."""
    shown = None
    for run in runs:
        actual = _usable(run)
        if actual is None or actual.shape != run.expected.shape:
            continue
        order = rows.row_order(actual, run.expected, lambda a, b: _close(a, b, rtol))
        if order is None:
            return None
        if not np.array_equal(order, np.arange(order.size)) and (shown is None or (
                run in probes and shown[0] not in probes)):
            shown = (run, order)  # a probe first: the student can rerun it
    if shown is None:
        return None
    run, order = shown
    where = (f"on probe '{run.case.name}' ({run.case.description})" if run in probes
             else f"on the graded case '{run.case.name}'")
    return Finding("rows-reordered", f"Your columns are in channels-last order, but the rows are not the weight's "
                                     f"rows in their order: {where} they come {rows.describe_order(order)}.")


def _left_unfilled(runs, rtol: float) -> Finding | None:
    """No model fits, and wherever the result is wrong it still holds the value it was created with: 0 (a result
    made with np.zeros), NaN (np.full(..., np.nan)) or the weight's own value at that place (a copy of the weight);
    elsewhere it is right."""
    wrong_runs, moved = [], False
    for run in runs:
        actual = _usable(run)
        if actual is None or actual.shape != run.expected.shape:
            continue
        weight = run.case.args[0]
        expected = run.expected
        with np.errstate(all="ignore"):
            wrong = ~(np.abs(actual - expected) <= rtol * (np.abs(expected).max() + np.abs(expected)))
        left = actual[wrong]
        if not np.all((left == 0) | (left == weight[wrong]) | np.isnan(left)):
            return None
        if actual.dtype.kind in "iu" and np.array_equal(left, np.trunc(expected[wrong])):
            return None  # the zeros are small weights cut to integers (astype(int)), not places never written
        moved |= bool(np.any(~wrong & (expected != weight) & (expected != 0)))
        if wrong.any():
            wrong_runs.append((run, wrong))
    if not wrong_runs or not moved:
        return None
    run, wrong = next(((r, w) for r, w in wrong_runs if r.case.group == PROBE), wrong_runs[0])
    rows = np.flatnonzero(wrong.all(axis=1))
    columns = np.flatnonzero(wrong.all(axis=0))
    where = (f"on probe '{run.case.name}' ({run.case.description})" if run.case.group == PROBE
             else "on a graded case")
    text = (f"Your result is right wherever it was written, and the rest still holds what it was created with (0, "
            f"NaN, or the weight's own value at that place): {where}, {int(wrong.sum())} of {wrong.size} entries were "
            "never written")
    if rows.size:
        text += f", among them all of row{'s' if rows.size > 1 else ''} {', '.join(map(str, rows[:6]))}"
    elif columns.size:
        text += f", among them all of column{'s' if columns.size > 1 else ''} {', '.join(map(str, columns[:6]))}"
    return Finding("left-unfilled", text + ".")
