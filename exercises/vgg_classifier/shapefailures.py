"""Findings read from which calls failed or came back in the wrong shape, before any value is looked at: the whole
batch flattened into one row (``batch-flattened``), one row for a batch that is the sum or mean of its samples'
logits (``samples-mixed``), VGG16's sizes written into the code (``hardcoded-shape``), and features pooled over
height and width, reshaped to one row per position, or never flattened. Features that never reach FC1 flattened
fail like pooled ones (``features @ W1`` and a pooled ``(B, C) @ W1`` give NumPy's same message): probe
'pointwise' (1x1 features, nothing to flatten) tells them apart.
"""
from __future__ import annotations

import re

from typing import Callable

import numpy as np

from grader.authoring import PROBE, Finding

from . import samplerows as Rows
from . import structure as T


VGG_NUMBERS = {"25088": "FC1's input width in VGG16 (7*7*512)", "4096": "VGG16's hidden width",
               "1000": "VGG16's number of classes"}


# -- helpers ------------------------------------------------------------------------------------------------------
def _batch(run) -> int:
    return int(run.case.args[0].shape[0])


# -- structural findings --------------------------------------------------------------------------------------
def _shape_failure(run) -> bool:
    out = run.outcome
    if out.status == "raised":
        return True
    if out.status == "ok" and out.shape is not None:
        return tuple(out.shape) != run.expected.shape
    return False


def _batch_flattened(runs) -> Finding | None:
    considered = [r for r in runs if r.outcome.status in ("ok", "raised")]
    single = [r for r in considered if _batch(r) == 1]
    batched = [r for r in considered if _batch(r) > 1]
    if not single or not batched:
        return None
    if not all(r.outcome.status == "ok" and r.outcome.shape is not None
               and int(np.prod(r.outcome.shape)) == r.expected.size for r in single):
        return None
    if not all(_shape_failure(r) for r in batched):
        return None
    if any(_batch_reduced(r) for r in batched):  # one row for the whole batch: its samples' logits summed
        return None
    lost_rows = [r for r in batched if r.outcome.status == "ok" and Rows.row_pattern(r) is None
                 and (len(r.outcome.shape) < 2 or r.outcome.shape[0] == 1) and not _reshaped_logits(r)]
    # the error must hold B*H*W*C, the size of the whole batch as one vector
    shape_errors = [r for r in batched if r.outcome.status == "raised" and r.outcome.exception is not None
                    and str(T.dims(r.case)["Bd"]) in re.findall(r"\d+", r.outcome.exception.message)]
    if len(lost_rows) + len(shape_errors) != len(batched):
        return None
    probe = next((r for r in batched if r.case.group == PROBE), None)
    text = "Every call with a single sample (B = 1) returned a result, but every batch (B > 1) failed"
    if probe is not None and probe.outcome.status == "raised":
        text += (f": on probe '{probe.case.name}' ({probe.case.description}) your function raised "
                 f"{probe.outcome.error}")
    elif probe is not None:
        text += (f": on probe '{probe.case.name}' ({probe.case.description}) it returned shape "
                 f"{tuple(probe.outcome.shape)} instead of {probe.expected.shape}")
    return Finding("batch-flattened", text + ". Only the H, W and C axes should be merged; the batch axis must stay.")


REDUCTIONS = {"sum": np.sum, "mean": np.mean}


def _head(features, W1, b1, W2, b2, W3, b3) -> np.ndarray:
    """The statement's head on ``features`` (reduced ones, to see whether a single row is their logits)."""
    x = features.reshape(features.shape[0], -1)
    return np.maximum(np.maximum(x @ W1 + b1, 0.0) @ W2 + b2, 0.0) @ W3 + b3


def _max_typo(layer: int) -> Callable:
    """The head with np.max(z, 0) where np.maximum(z, 0) belongs in FC``layer``'s activation: the largest
    pre-activation of each unit over the batch (axis 0), one row that the next layers carry on."""
    def head(features, W1, b1, W2, b2, W3, b3):
        z1 = features.reshape(features.shape[0], -1) @ W1 + b1
        h1 = np.max(z1, 0) if layer == 1 else np.maximum(z1, 0.0)
        z2 = h1 @ W2 + b2
        return (np.max(z2, 0) if layer == 2 else np.maximum(z2, 0.0)) @ W3 + b3
    return head


#: a single row that is the head with np.max(z, 0) written for a ReLU (its name: the layer it happens in)
MAX_TYPOS = {"FC1's np.max": _max_typo(1), "FC2's np.max": _max_typo(2)}


def max_typo(finding: Finding | None) -> bool:
    """``finding`` is the np.max(z, 0) reading: a sample alone then shows no ReLU (the largest value of one row is
    the row), so a missing-relu read on the single-sample probes is this same slip."""
    return finding is not None and finding.id == "samples-mixed" and "activation is np.max(z" in finding.evidence


def _batch_reduced(run) -> set[str]:
    """The names of the reductions over the batch axis that the run's single row of K values is: "sum" or "mean" of
    the right logits of its samples (y.sum(axis=0) returned), or "features' sum" or "features' mean" when it is the
    logits of the features reduced over the batch before FC1 (features.sum(axis=0, keepdims=True)). Where the head
    is linear on the case (identity layers, positive values) a reduction before it and after it agree, so several
    may hold."""
    arr = run.outcome.array if run.outcome.status == "ok" else None
    expected = run.expected
    if arr is None or arr.dtype.kind not in "biuf" or expected.ndim != 2 or expected.shape[0] < 2 \
            or arr.size != expected.shape[1]:
        return set()
    row = arr.reshape(1, -1).astype(np.float64)
    features, *weights = run.case.args
    with np.errstate(all="ignore"):
        return ({name for name, reduce in REDUCTIONS.items()
                 if T.close(row, reduce(expected, axis=0, keepdims=True), 1e-9)}
                | {f"features' {name}" for name, reduce in REDUCTIONS.items()
                   if T.close(row, _head(reduce(features, axis=0, keepdims=True), *weights), 1e-9)}
                | {name for name, head in MAX_TYPOS.items() if T.close(row, head(features, *weights), 1e-9)})


def _on(run) -> str:
    """Where a finding's example comes from, for its sentence: a probe with what it is, or a graded case."""
    return (f"on probe '{run.case.name}' ({run.case.description})" if run.case.group == PROBE
            else f"on the '{run.case.name}' case")


def _raised_on(run) -> str:
    """The error an example raised, and where: a probe's, or one of the graded calls' (every one of which raised)."""
    return (f"{_on(run)} your function raised {run.outcome.error}" if run.case.group == PROBE
            else f"every call raised an error such as {run.outcome.error}")


def _batch_reductions(runs) -> Finding | None:
    """Every batch returned one row: the sum or the mean of its samples' right logits (a reduction over axis 0
    where none belongs). Read before batch-flattened, which a single row for a batch otherwise suggests."""
    batched = [r for r in runs if r.case.group != "full-scale" and r.expected.ndim == 2 and r.expected.shape[0] > 1
               and r.outcome.status in ("ok", "raised")]
    names = set.intersection(*(_batch_reduced(r) for r in batched)) if batched else set()
    if not names:
        return None
    # the logits' own reduction first, when the cases cannot tell it from the features'
    name = next(n for n in (*REDUCTIONS, *(f"features' {n}" for n in REDUCTIONS), *MAX_TYPOS) if n in names)
    run = next((r for r in batched if r.case.group == PROBE), batched[0])
    where = _on(run)
    if name in MAX_TYPOS:
        z = f"z{name[2]}"
        return Finding("samples-mixed", f"Every call with several samples returned a single row of "
                                        f"{run.expected.shape[1]} values, the logits the head gives when "
                                        f"{name.split(chr(39))[0]}'s activation is np.max({z}, 0): that takes each "
                                        f"unit's largest value over the samples (axis 0) and drops the batch, where "
                                        f"the ReLU is the element-wise np.maximum({z}, 0). "
                                        f"{where[0].upper()}{where[1:]} it "
                                        f"returned shape {tuple(run.outcome.shape)} where the statement gives "
                                        f"{run.expected.shape}, one row per sample.")
    if name.startswith("features'"):
        axis = "sum(axis=0, keepdims=True)" if name.endswith("sum") else "mean(axis=0, keepdims=True)"
        return Finding("samples-mixed", f"Every call with several samples returned a single row of "
                                        f"{run.expected.shape[1]} values, the logits of the {name.split()[1]} of its "
                                        f"samples' features over the batch (axis 0, as features.{axis} or the same "
                                        f"on the flattened rows computes it before FC1): {where} it returned shape "
                                        f"{tuple(run.outcome.shape)} where the statement gives "
                                        f"{run.expected.shape}, one row per sample. Reducing over the samples mixes "
                                        f"them into one input; each sample goes through the head on its own.")
    return Finding("samples-mixed", f"Every call with several samples returned a single row of "
                                    f"{run.expected.shape[1]} values, the {name} over the batch (axis 0) of the "
                                    f"samples' right logits: {where} it returned shape {tuple(run.outcome.shape)} "
                                    f"where the statement gives {run.expected.shape}, one row per sample. The "
                                    f"{name} over the samples mixes them into one answer; each sample needs its own "
                                    f"row.")


def _reshaped_logits(run) -> bool:
    """The right logits, every sample's, returned in another shape (concatenated into one vector, say)."""
    arr = run.outcome.array
    if arr is None or arr.dtype.kind not in "biuf" or arr.size != run.expected.size:
        return False
    with np.errstate(all="ignore"):
        return T.close(arr.reshape(run.expected.shape).astype(np.float64), run.expected, 1e-9)


def _vgg_number(run) -> str | None:
    out = run.outcome
    for number in VGG_NUMBERS:
        if out.status == "raised" and out.exception is not None and re.search(
                rf"(?<![\d.]){number}(?![\d.])", out.exception.message):
            return number
        if out.shape is not None and int(number) in out.shape and int(number) not in run.expected.shape:
            return number
    return None


_INDEX = re.compile(r"index (\d+) is out of bounds for axis \d+ with size (\d+)")


def _index_error(run):
    error = run.outcome.exception
    return _INDEX.search(error.message) if error is not None and error.type == "IndexError" else None


def _hardcoded(runs) -> Finding | None:
    small = [r for r in runs if r.case.group != "full-scale" and r.outcome.status in ("ok", "raised")]
    if not small or not all(_shape_failure(r) for r in small):
        return None
    hits = [(r, n) for r in small if (n := _vgg_number(r))]
    probes = [r for r in small if r.case.group == PROBE]
    if hits:
        run, number = next(((r, n) for r, n in hits if r.case.group == PROBE), hits[0])
        where = run if run.case.group == PROBE else (probes[0] if probes else None)
        text = f"{number} ({VGG_NUMBERS[number]}) appears to be written into the code"
        if where is not None and where is run:
            what = (f"raised {run.outcome.error}" if run.outcome.status == "raised"
                    else f"returned shape {tuple(run.outcome.shape)} instead of {run.expected.shape}")
            text += f": on probe '{run.case.name}' ({run.case.description}) your function {what}"
        return Finding("hardcoded-shape", text + ". Read every size from the arrays you are given.")
    # a loop over range(4096) runs one past the end of every smaller width, whatever the case
    matches = [_index_error(r) for r in small]
    if all(m and m.group(1) == m.group(2) for m in matches) and probes:
        run = probes[0]
        return Finding("hardcoded-shape", f"Every call ran past the end of a layer: on probe '{run.case.name}' "
                                          f"({run.case.description}) your function raised {run.outcome.error}. "
                                          "A loop over a fixed count such as range(4096) only fits VGG16's sizes; "
                                          "take the count from the arrays' shapes.")
    return None


def _pooled(runs, pointwise=None) -> Finding | None:
    """Every call failed with a product of C values against W1's H*W*C rows: the spatial axes were pooled, or the
    features were never flattened (``features @ W1`` fails with the same message). Probe 'pointwise' (1x1 features)
    tells them apart: pooling is exact there, while unflattened features give a 4-D result."""
    small = [r for r in runs if r.case.group != "full-scale" and r.outcome.status in ("ok", "raised")]
    if len(small) < 2 or not all(r.outcome.status == "raised" for r in small):
        return None
    for run in small:
        _, H, W, C = run.case.args[0].shape
        message = run.outcome.exception.message if run.outcome.exception else ""
        numbers = {int(n) for n in re.findall(r"\d+", message)}
        if H * W == 1 or not {C, H * W * C} <= numbers:
            return None
        dot = T.DOT.search(message)
        if dot and len(T._shape(dot.group(1))) == 4:  # np.dot named the 4-D features themselves
            return _unflattened(small, pointwise)
        if dot and T._shape(dot.group(1)) == (run.case.args[0].shape[0] * H * W, C):  # one row per position
            return _rows_per_position(next((r for r in small if r.case.group == PROBE), run))
    if pointwise is not None and not _right_logits(pointwise):
        return _unflattened(small, pointwise)
    run = next((r for r in small if r.case.group == PROBE), small[0])
    B, H, W, C = run.case.args[0].shape
    where = _raised_on(run)
    dot = T.DOT.search(run.outcome.exception.message if run.outcome.exception else "")
    if dot and T._shape(dot.group(1)) == (B, C):  # np.dot named the pooled operand, one row per sample
        return Finding("spatial-pooling", f"The first layer received {C} values per sample (one per channel) where "
                                          f"W1 expects H*W*C = {H * W * C}: {where}.")
    # matmul's message gives no row count: pooled features (B, C) and features.reshape(-1, C) fail alike
    return Finding("raises-error", f"The first layer received rows of {C} values (one per channel) where W1 expects "
                                   f"H*W*C = {H * W * C} per sample: {where}. Either the features were pooled over "
                                   f"height and width (one value per channel and sample), or they were reshaped to "
                                   f"one row of C channel values per position, features.reshape(-1, C); the error "
                                   f"does not tell which. Every sample's whole H x W x C volume must reach FC1 as one "
                                   f"row, features.reshape(B, -1).")




def _rows_per_position(run) -> Finding:
    """np.dot named its first operand (B*H*W, C): the features were reshaped to one row of C channel values per
    position, features.reshape(-1, C), not pooled (a pooled operand has B rows). matmul's message gives no row
    count, so with @ the two cannot be told apart, and pooling is named."""
    B, H, W, C = run.case.args[0].shape
    where = _on(run)
    return Finding("raises-error", f"The features reach FC1 as {B * H * W} rows of {C} values, one row per position "
                                   f"(B*H*W = {B}*{H}*{W}) holding its C channels, where W1 expects one row of "
                                   f"H*W*C = {H * W * C} values per sample: {where} your function raised "
                                   f"{run.outcome.error}. A reshape to (-1, C) keeps the channels as the last axis "
                                   f"and turns every position into a row; flatten each sample instead, "
                                   f"features.reshape(B, -1).")


def _right_logits(run) -> bool:
    arr = run.outcome.array
    if run.outcome.status != "ok" or arr is None or arr.dtype.kind not in "biuf" or arr.shape != run.expected.shape:
        return False
    with np.errstate(all="ignore"):
        return T.close(arr.astype(np.float64), run.expected, 1e-9)


def _unflattened(small: list, pointwise) -> Finding | None:
    """The features reach FC1 with their four axes (B, H, W, C): shown by probe 'pointwise' returning the right
    logits with the two 1-long axes still in place, or by np.dot's message naming the 4-D features. Anything else
    there leaves pooling and a missing flatten apart: nothing is named (the error is reported as it is)."""
    run = next((r for r in small if r.case.group == PROBE), small[0])
    _, H, W, C = run.case.args[0].shape
    where = _raised_on(run)
    text = (f"The features reach FC1's product without being flattened: the product meets their last axis, "
            f"C = {C} channels, where W1 has H*W*C = {H * W * C} rows; {where}")
    arr = pointwise.outcome.array if pointwise is not None and pointwise.outcome.status == "ok" else None
    if arr is not None and arr.ndim == 4 and arr.dtype.kind in "biuf" and arr.size == pointwise.expected.size:
        with np.errstate(all="ignore"):
            same = T.close(arr.reshape(pointwise.expected.shape).astype(np.float64), pointwise.expected, 1e-9)
        if same:
            text += (f". On probe 'pointwise' ({pointwise.case.description}), where there is nothing to flatten, it "
                     f"returned the right logits with shape {tuple(arr.shape)}, the features' four axes kept, instead "
                     f"of {pointwise.expected.shape}")
    elif not T.DOT.search(run.outcome.exception.message if run.outcome.exception else ""):
        return None
    return Finding("raises-error", text + ". Reshape the features to (B, H*W*C) first, features.reshape(B, -1).")
