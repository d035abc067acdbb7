"""Misconception diagnosis for the channels-last weight exercise.

Every catalogued mistake here is a rearrangement of the weight's values, so the diagnosis works with models: small
functions that make one mistake each (reshape without a transpose, a wrong axis order, the inverse permutation,
the permutation applied to the rows, the transposed result...). A model is named when it reproduces what the
student's function did on every small case, graded or probe: the same array (within the tolerance) wherever the
function returned one, and an exception wherever it raised. The VGG-16 fc6 case is never re-evaluated here.

The probes are labelled weights: each entry holds 1 + its flat index, so every value in the student's output says
which row and column it came from. That makes the evidence concrete (what column 1 of row 0 holds, and where it
came from), and it lets the diagnosis recognise a column order that no model lists.
"""
from __future__ import annotations

import itertools
import re

import numpy as np

from grader.authoring import PROBE, Case, Finding

from . import rows
from .beyond import kept_permutation, output_axis_dropped
from .square import square_assumed

#: the largest weight a model is evaluated on (the fc6 case has 102.8 million entries)
SMALL = 1_000_000
AXES = "CHW"
NAMES = {"C": "channel", "H": "row", "W": "column"}
FC6_NUMBERS = {4096: "fc6's number of outputs", 25088: "fc6's number of inputs (7*7*512)",
               512: "VGG-16's number of channels", 49: "the 7*7 positions of VGG-16's last map"}


# -- probes ------------------------------------------------------------------------------------------------------
def _labelled(name: str, out: int, C: int, H: int, W: int, note: str) -> Case:
    n = C * H * W
    weight = (np.arange(out * n, dtype=np.float64) + 1.0).reshape(out, n)
    description = f"out={out}, C={C}, H={H}, W={W}, each weight equal to 1 + its flat index{note}"
    return Case(name=name, group=PROBE, args=(weight, C, H, W), description=description)


def probe_cases() -> list[Case]:
    """Three labelled weights: C, H and W all different in each, arranged differently in each, with out below,
    equal to and above C*H*W (rows permuted raises, keeps the shape, or changes it)."""
    return [
        _labelled("labelled", 5, 2, 3, 4, ""),
        _labelled("labelled-square", 12, 2, 2, 3, " (out = C*H*W)"),
        _labelled("labelled-tall", 30, 3, 4, 2, " (out > C*H*W)"),
    ]


PROBE_NAMES = frozenset(c.name for c in probe_cases())


# -- models of the mistakes ----------------------------------------------------------------------------------------
def _dims(C, H, W) -> dict[str, int]:
    return {"C": int(C), "H": int(H), "W": int(W)}


def reorder(weight, C, H, W, read: str, write: str) -> np.ndarray:
    """Columns reshaped as the axes ``read`` (sizes taken from C, H, W by name), then written in ``write`` order."""
    dims = _dims(C, H, W)
    out = weight.shape[0]
    cube = weight.reshape(out, *(dims[a] for a in read))
    return cube.transpose(0, *(1 + read.index(a) for a in write)).reshape(out, -1)


def reference(weight, C, H, W) -> np.ndarray:
    return reorder(weight, C, H, W, "CHW", "HWC")


def permutation(C, H, W) -> np.ndarray:
    """perm[k]: the channels-first column that channels-last column k comes from."""
    return np.arange(C * H * W).reshape(C, H, W).transpose(1, 2, 0).ravel()


def keras_rows(weight, C, H, W) -> np.ndarray:
    """Code written for a Keras kernel (in, out): it reorders axis 0 of a PyTorch (out, in) weight."""
    out = weight.shape[0]
    return weight.reshape(C, H, W, out).transpose(1, 2, 0, 3).reshape(H * W * C, out)


#: (id, label, function); the order is the order of preference when several models fit
MODELS: list[tuple[str, str, object]] = [
    ("reshape-only", "the weight reshaped with no transpose, every value where it was", lambda w, C, H, W: w.reshape(w.shape[0], -1).copy()),
    ("transposed-result", "the right weight, transposed", lambda w, C, H, W: reference(w, C, H, W).T),
    ("inverse-permutation", "the weight converted from channels-last to channels-first",
     lambda w, C, H, W: reorder(w, C, H, W, "HWC", "CHW")),
    ("rows-permuted", "the weight with the channels-last permutation applied to its rows (`weight[perm]`)",
     lambda w, C, H, W: w[permutation(C, H, W)]),
    ("rows-permuted", "the weight with the inverse permutation applied to its rows",
     lambda w, C, H, W: w[np.argsort(permutation(C, H, W))]),
    ("rows-permuted", "the weight reordered as a Keras (in, out) kernel, shape (H*W*C, out)", keras_rows),
    ("rows-permuted", "the weight reordered as a Keras (in, out) kernel, then reshaped to (out, H*W*C)",
     lambda w, C, H, W: keras_rows(w, C, H, W).reshape(w.shape[0], -1)),
    ("rows-permuted", "the weight reordered as a Keras (in, out) kernel, then transposed",
     lambda w, C, H, W: keras_rows(w, C, H, W).T),
    ("rows-mixed", "the right weight transposed to (H*W*C, out), then reshaped to (out, H*W*C) where it had to be "
     "transposed back", lambda w, C, H, W: reference(w, C, H, W).T.reshape(w.shape[0], -1)),
    ("rows-mixed", "the weight reshaped to (out, C, H, W), transposed without axes (which reverses all four, so the "
     "outputs come last), then reshaped to (out, H*W*C)",
     lambda w, C, H, W: w.reshape(w.shape[0], C, H, W).T.reshape(w.shape[0], -1)),
    ("precision-loss", "the right weight with every value rounded to float32",
     lambda w, C, H, W: reference(w, C, H, W).astype(np.float32).astype(np.float64)),
]


def _order_models() -> list[tuple[str, str, object, str, str]]:
    """Every reshape-then-transpose order, the right reading of the columns first. An order that moves the columns
    exactly as the reference, the identity or the inverse does (reading (C, W, H) and writing (W, H, C) is the
    reference: H and W keep their relative order), or as an order listed before it, is left out: they are told apart
    on sizes where C, H and W all differ."""
    found, seen = [], set()
    sizes = [(2, 3, 4), (3, 4, 2), (4, 2, 3)]

    def signature(read, write):
        return tuple(reorder(np.arange(C * H * W, dtype=np.float64)[None], C, H, W, read, write).tobytes()
                     for C, H, W in sizes)

    seen.update(signature(r, w) for r, w in (("CHW", "CHW"), ("CHW", "HWC"), ("HWC", "CHW")))
    reads = ["CHW"] + [a for a in map("".join, itertools.permutations(AXES)) if a != "CHW"]
    for read in reads:
        for write in map("".join, itertools.permutations(AXES)):
            key = signature(read, write)
            if key in seen:
                continue
            seen.add(key)
            label = (f"the weight with its columns written in ({', '.join(write)}) order" if read == "CHW" else
                     f"the weight with its columns read as if laid out ({', '.join(read)}) and written in "
                     f"({', '.join(write)}) order")
            found.append(("axis-order", label, lambda w, C, H, W, r=read, o=write: reorder(w, C, H, W, r, o),
                          read, write))
    return found


ORDER_MODELS = _order_models()
ALL_MODELS = [(i, label, fn) for i, label, fn in MODELS] + [(i, label, fn) for i, label, fn, _, _ in ORDER_MODELS]


def _close(actual: np.ndarray, expected: np.ndarray, rtol: float) -> bool:
    if actual.shape != expected.shape:
        return False
    with np.errstate(all="ignore"):
        scale = float(np.max(np.abs(expected))) if expected.size else 0.0
        return bool(np.all(np.abs(actual.astype(np.float64) - expected) <= rtol * (scale + np.abs(expected))))


def _evaluate(fn, case: Case):
    try:
        with np.errstate(all="ignore"):
            return np.asarray(fn(*case.args))
    except Exception:  # noqa: BLE001 - a model that raises on this case, as the student's may
        return None


def _usable(run) -> np.ndarray | None:
    out = run.outcome
    if out.status != "ok" or out.array is None or out.array.dtype.kind not in "fiu":
        return None
    return out.array


def _small(run) -> bool:
    weight = run.case.args[0]
    return isinstance(weight, np.ndarray) and weight.size <= SMALL


def _fits(fn, runs, rtol: float) -> bool:
    """The model reproduces every small run: its array where the student returned one, an error where the student
    raised; and somewhere the student is wrong, so is the model."""
    returned = wrong = 0
    for run in runs:
        status = run.outcome.status
        if status == "raised":
            if _evaluate(fn, run.case) is not None:
                return False
            wrong += 1
            continue
        actual = _usable(run)
        if actual is None:
            if status == "ok":
                return False  # None, a list of other things...: not what any model returns
            continue  # a timeout or a crash says nothing about the values
        model = _evaluate(fn, run.case)
        if model is None or not _close(actual, model, rtol):
            return False
        returned += 1
        if not (actual.shape == run.expected.shape and _close(actual, run.expected, rtol)):
            wrong += 1
    return returned > 0 and wrong > 0


# -- evidence -----------------------------------------------------------------------------------------------------
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


# -- structural findings ---------------------------------------------------------------------------------------
def _hardcoded(runs) -> Finding | None:
    """Every small case failed, and an error or a shape holds one of fc6's sizes that the case does not have."""
    small = [r for r in runs if _small(r) and r.outcome.status in ("ok", "raised")]
    if not small:
        return None
    for run in small:
        if run.outcome.status == "ok" and _usable(run) is not None and run.outcome.array.shape == run.expected.shape:
            return None
    # a size written into the code shows in every failure; one wrong shape that happens to hold 49 does not
    everywhere = [_numbers(run) for run in small]
    for run in sorted(small, key=lambda r: r.case.group != PROBE):
        weight, C, H, W = run.case.args
        own = {weight.shape[0], C, H, W, C * H * W, H * W}
        numbers = _numbers(run)
        hits = [n for n in FC6_NUMBERS if n in numbers and n not in own and all(n in said for said in everywhere)]
        if hits:
            what = (f"raised {run.outcome.error}" if run.outcome.status == "raised"
                    else f"returned shape {tuple(run.outcome.shape)}")
            where = (f"on probe '{run.case.name}' ({run.case.description})" if run.case.group == PROBE
                     else "on a graded case")
            return Finding("hardcoded-shape", f"{hits[0]} ({FC6_NUMBERS[hits[0]]}) appears to be written into the "
                                              f"code: {where} your function {what}. Take every size from C, H, W "
                                              "and weight.shape.")
    return None


def _numbers(run) -> set[int]:
    """The numbers a failed small run shows: those in its error message, or its result's shape."""
    if run.outcome.status == "raised" and run.outcome.exception is not None:
        return {int(n) for n in re.findall(r"(?<![\d.])\d+(?![\d.])", run.outcome.exception.message)}
    return set(run.outcome.shape or ())


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


def _out_of_memory(runs) -> Finding | None:
    """A call ran out of memory: killed by the memory limit, or a MemoryError."""
    for run in runs:
        out = run.outcome
        killed = out.status == "crashed" and "memory" in (out.incident or "")
        raised = out.status == "raised" and out.exception is not None and out.exception.type == "MemoryError"
        if killed or raised:
            weight = run.case.args[0]
            where = ("on VGG-16's fc6 weight" if getattr(run.case, "shared", False)
                     else f"on a weight of shape {tuple(weight.shape)}")
            what = f"raised {out.error}" if raised else out.error
            return Finding("too-much-memory", f"{where[0].upper()}{where[1:]} your function {what}.")
    return None


# -- the diagnosis ------------------------------------------------------------------------------------------------
def diagnose(runs, exercise) -> list[Finding]:
    rtol = max(exercise.tolerance.rtol, exercise.tolerance.atol_scale)
    small = [r for r in runs if _small(r)]
    probes = [r for r in small if r.case.group == PROBE and r.case.name in PROBE_NAMES]
    findings: list[Finding] = []
    hard = _hardcoded(small)
    if hard is not None:
        return [hard]
    for finding_id, label, fn in ALL_MODELS:
        if _fits(fn, small, rtol):
            text = f"On every case, your function returns {label}."
            text += _probe_example(probes, finding_id) or _error_example(small)
            findings.append(Finding(finding_id, text))
            break  # the models are disjoint on the probes: the first that fits is the one
    if not findings:
        # a result partly left as a copy of the weight is a gather with repeated columns too: name what it is first
        for structural in (lambda: kept_permutation(small, rtol), lambda: output_axis_dropped(small),
                           lambda: _rows_reordered(probes, small, rtol), lambda: _columns_shuffled(probes, small, rtol),
                           lambda: _left_unfilled(small, rtol), lambda: _columns_repeated(probes, small),
                           lambda: _rows_mixed(probes), lambda: square_assumed(small, rtol)):
            found = structural()
            if found is not None:
                findings.append(found)
                break
    memory = _out_of_memory(runs)
    if memory is not None:
        findings.append(memory)
    return findings
