"""Misconception diagnosis for the VGG classifier head.

Three kinds of evidence:

* Structure, from which calls failed and how (``structure.py`` reads each exception's type and message against
  the sizes of its case): ``batch-flattened`` (every B = 1 call runs, every B > 1 call fails on the whole batch's
  size), ``hardcoded-shape`` (VGG16's 25088 / 4096 / 1000, or a fixed batch size, in a message or a shape),
  ``helper-result`` (None or a tuple where an array belongs), column layouts and swapped biases, and what
  happened to the samples of a batch (``samples-dropped``).
* Values, from the probes: tiny crafted inputs whose widths are all 12 (so transposed weights and swapped layers
  still run), each built to be sensitive to a few mistakes and blind to the others (constant features hide the
  flatten order, symmetric weights hide a transpose, zero biases hide a missing bias, large offsets keep a
  later ReLU in its linear range). A model of the computation (``variants.py``) is searched (``search.py``) for
  the variant that reproduces the student's probe outputs; it must then also reproduce every graded case and
  the ``sizes`` probe wherever they returned an array of the right shape. Its departures are the findings.
* Stages, from three ramp probes (``stages.py``) that read the first activation, the second and what follows
  FC3 exactly, and from the probes above for the flatten and the affine maps. They give the search its
  parameterised candidates (a ReLU clipped at 6, a floor under ReLU, a leaky slope), and when no variant
  explains everything, the first stage that departs is named with what its probe showed (``wrong-stage``,
  ``verdicts.py``) instead of nothing. ``stage_trace`` gives one line per stage for the report.

What the search does not model (the predicted class instead of the logits, samples that depend on their batch,
features rounded to a grid, logits clipped beyond the probes' range) is read from the outputs directly, in
``detectors.py``. Features that never reach FC1 flattened fail like pooled ones (``features @ W1`` and a pooled
``(B, C) @ W1`` give NumPy's same message): probe 'pointwise' (1x1 features, nothing to flatten) tells them apart.
"""
from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field, fields, is_dataclass

import numpy as np

from grader.authoring import PROBE, CallOutcome, Case, Finding

from . import search as Q
from . import stages as S
from . import structure as T
from . import variants as V
from . import detectors as D
from . import verdicts as L
from . import hidden as X
from . import ranges as R
from . import fixedbatch as F
from . import shapeonly as O
from . import equivalents as Eq
from . import inputscale as I

H, W, C = 2, 3, 2
N = H * W * C  # every width of the square probes: d_in = D1 = D2 = K = 12
OFFSET = 6.0  # keeps a later layer's pre-activations positive, so its ReLU passes them unchanged
VGG_NUMBERS = {"25088": "FC1's input width in VGG16 (7*7*512)", "4096": "VGG16's hidden width",
               "1000": "VGG16's number of classes"}


# -- probes ------------------------------------------------------------------------------------------------------
def _pattern(shape, salt: int, values) -> np.ndarray:
    """Deterministic pseudo-random choice from ``values`` (a fixed hash, independent of NumPy's generators)."""
    count = int(np.prod(shape))
    idx = np.arange(count, dtype=np.uint64)
    mixed = (idx * np.uint64(2654435761) + np.uint64(salt * 97 + 13)) % np.uint64(2**32)
    mixed = (mixed ^ (mixed >> np.uint64(13))) * np.uint64(40503) % np.uint64(2**32)
    mixed = mixed ^ (mixed >> np.uint64(7))
    return np.asarray(values, dtype=np.float64)[(mixed % np.uint64(len(values))).astype(np.int64)].reshape(shape)


def _symmetric(salt: int) -> np.ndarray:
    a = _pattern((N, N), salt, (-0.5, -0.25, 0.0, 0.25, 0.5))
    return np.triu(a) + np.triu(a, 1).T


def _constant_features(values) -> np.ndarray:
    return np.asarray(values, dtype=np.float64)[:, None, None, None] * np.ones((1, H, W, C))


EYE = np.eye(N)
ZERO = np.zeros(N)
MIXED_BIAS = (-0.5, -0.375, -0.25, -0.125, 0.125, 0.25, 0.375, 0.5)


def _probe(name: str, description: str, *args) -> Case:
    return Case(name=name, group=PROBE, args=tuple(np.ascontiguousarray(a, dtype=np.float64) for a in args),
                description=description)


def probe_cases() -> list[Case]:
    """Seven tiny cases (2x3x2 features, every width 12), three ramps that read one stage each (``stages.py``),
    one case whose sizes all differ (``structure.py``) and one with 1x1 features (``_pooled``); see the module
    docstring."""
    size = f"features {H}x{W}x{C}, every layer 12 wide"
    return [
        # distinct positive features through identity layers: the output is the flattened input itself
        _probe("flatten-order", f"B=3, {size}, identity weights, zero biases",
               (np.arange(3 * N).reshape(3, H, W, C) + 1) / 8, EYE, ZERO, EYE, ZERO, EYE, ZERO),
        # non-symmetric positive weights, zero biases: transposed or swapped matrices show, nothing else clips
        _probe("weights", f"B=3, {size}, non-symmetric weights, zero biases",
               _constant_features((1.0, 0.5, 1.5)),
               _pattern((N, N), 1, (0.0, 0.125, 0.25)), ZERO,
               _pattern((N, N), 2, (0.0, 0.125, 0.25)), ZERO,
               _pattern((N, N), 3, (0.0, 0.125, 0.25)), ZERO),
        # FC1 with both signs, then FC2 and FC3 as identities shifted into ReLU's linear range: output = h1
        _probe("fc1", f"B=3, {size}, FC2 and FC3 pass FC1's activations through",
               _constant_features((1.0, -1.0, 0.5)),
               _symmetric(4), _pattern(N, 5, MIXED_BIAS),
               EYE, np.full(N, OFFSET), EYE, np.full(N, -OFFSET)),
        # FC1 an identity on positive features, FC2 with both signs, FC3 shifted up: output = h2 + 6
        _probe("fc2", f"B=3, {size}, FC1 passes the features, FC3 passes FC2's activations (+6)",
               _constant_features((1.0, 0.5, 2.0)),
               EYE, ZERO, _symmetric(6), _pattern(N, 7, MIXED_BIAS), EYE, np.full(N, OFFSET)),
        # FC1, FC2 identities on positive features, FC3 with both signs: output = logits of mixed sign
        _probe("fc3", f"B=3, {size}, FC1 and FC2 pass the features, logits of both signs",
               _constant_features((1.0, 0.5, 2.0)),
               EYE, ZERO, EYE, ZERO, _symmetric(8), _pattern(N, 9, MIXED_BIAS)),
        # everything at once, in a batch and for a single sample
        _probe("mixed", f"B=3, {size}, general weights and biases",
               _pattern((3, H, W, C), 10, (-1.0, -0.75, -0.5, -0.25, 0.25, 0.5, 0.75, 1.0)),
               _pattern((N, N), 11, (-0.5, -0.25, 0.0, 0.25, 0.5)), _pattern(N, 12, MIXED_BIAS),
               _pattern((N, N), 13, (-0.5, -0.25, 0.0, 0.25, 0.5)), _pattern(N, 14, MIXED_BIAS),
               _pattern((N, N), 15, (-0.5, -0.25, 0.0, 0.25, 0.5)), _pattern(N, 16, MIXED_BIAS)),
        _probe("mixed-single", f"B=1, {size}, general weights and biases",
               _pattern((1, H, W, C), 17, (-1.0, -0.75, -0.5, -0.25, 0.25, 0.5, 0.75, 1.0)),
               _pattern((N, N), 18, (-0.5, -0.25, 0.0, 0.25, 0.5)), _pattern(N, 19, MIXED_BIAS),
               _pattern((N, N), 20, (-0.5, -0.25, 0.0, 0.25, 0.5)), _pattern(N, 21, MIXED_BIAS),
               _pattern((N, N), 22, (-0.5, -0.25, 0.0, 0.25, 0.5)), _pattern(N, 23, MIXED_BIAS)),
        *S.ramp_probes(),
        T.sizes_probe(),
        # 1x1 features, where flattening changes nothing: features left unflattened meet W1 as they are and give a
        # 4-D result, pooled ones give the right logits (``_pooled`` tells the two apart: they fail alike elsewhere)
        _probe("pointwise", "B=2, features 1x1x12, every layer 12 wide, general weights and biases",
               _pattern((2, 1, 1, N), 24, (-1.0, -0.5, 0.25, 0.5, 1.0)),
               _pattern((N, N), 25, (-0.5, -0.25, 0.0, 0.25, 0.5)), _pattern(N, 26, MIXED_BIAS),
               _pattern((N, N), 27, (-0.5, -0.25, 0.0, 0.25, 0.5)), _pattern(N, 28, MIXED_BIAS),
               _pattern((N, N), 29, (-0.5, -0.25, 0.0, 0.25, 0.5)), _pattern(N, 30, MIXED_BIAS)),
    ]


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
    lost_rows = [r for r in batched if r.outcome.status == "ok" and T.row_pattern(r) is None
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


def _batch_reduced(run) -> str:
    """The name of the reduction over the batch axis ("sum", "mean") that the run's single row of K values is,
    applied to the right logits of its samples (y.sum(axis=0) returned), or ""."""
    arr = run.outcome.array if run.outcome.status == "ok" else None
    expected = run.expected
    if arr is None or arr.dtype.kind not in "biuf" or expected.ndim != 2 or expected.shape[0] < 2 \
            or arr.size != expected.shape[1]:
        return ""
    for name, reduce in REDUCTIONS.items():
        with np.errstate(all="ignore"):
            if T.close(arr.reshape(1, -1).astype(np.float64), reduce(expected, axis=0, keepdims=True), 1e-9):
                return name
    return ""


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
    names = {_batch_reduced(r) for r in batched}
    if not batched or len(names) != 1 or "" in names:
        return None
    name = names.pop()
    run = next((r for r in batched if r.case.group == PROBE), batched[0])
    where = _on(run)
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


# -- value findings ---------------------------------------------------------------------------------------------
SQUARE = ("flatten-order", "weights", "fc1", "fc2", "fc3", "mixed", "mixed-single", *S.RAMP_NAMES)
FINAL_FINDINGS = ("relu-after-fc3", "logits-changed", "softmax-output")  # what is done after FC3
RAMP_FINDINGS = {"wrong-activation", "missing-relu", "inference-dropout", *FINAL_FINDINGS}


@dataclass
class Values:
    """What the probes say about the values: the variant found (when one explains everything) or the stages."""

    findings: list = field(default_factory=list)
    spec: object = None  # the verified variant, or None
    readings: dict = field(default_factory=dict)  # stage -> stages.Reading for the ramps
    verdicts: dict = field(default_factory=dict)  # stage -> (status, sentence)


def _ramp_sentence(readings, finding_id, spec) -> str:
    """The ramp reading of the stages this finding is about, as a sentence to add to its evidence."""
    stages = Q.stage_of(spec)
    parts = []
    for stage in ("act1", "act2", "final"):
        reading = readings.get(stage)
        if reading is None or not reading.departs or stage not in stages:
            continue
        if finding_id in FINAL_FINDINGS and stage != "final":
            continue
        if finding_id not in FINAL_FINDINGS and stage == "final":
            continue
        if not _reading_shows(reading, stage, spec):
            continue
        probe = {"act1": "act1-ramp", "act2": "act2-ramp", "final": "logits-ramp"}[stage]
        parts.append(f"On probe '{probe}', {reading.note}.")
    return (" " + " ".join(parts)) if parts else ""


def _reading_shows(reading, stage: str, spec) -> bool:
    """Is the ramp reading what the variant's own function of that stage makes of the ramp? With b3 left out as
    well, the logits ramp reads 0 everywhere, which shows nothing of a y / 2 (or of dropout on h2) beside it."""
    try:
        with np.errstate(all="ignore"):
            if stage == "final":
                model = V._final(spec.final, S.RAMP[None], None)[0]
            else:
                layer = 0 if stage == "act1" else 1
                model = V.activation(spec.act[layer])(S.RAMP) * spec.scale[layer]
    except (KeyError, ValueError, IndexError):
        return True  # no model of it here: the reading is shown as it was before
    return bool(np.allclose(reading.values, model, rtol=1e-9, atol=1e-12))


@dataclass
class _Branch:
    """The probes' verdicts once it is known whether the variant held on the graded cases."""

    values: Values
    fallback: list  # the finding naming the first stage that departs (used when no structural finding explains)
    lines: list


def _input_changes(run) -> list[str]:
    """What probe 'flatten-order' (identity layers, zero biases, positive features: its logits are what FC1
    receives) says was done to the features, as input functions for the search: ``scale:S`` when it returned them
    times one factor S other than 1, ``clip:LO:HI`` when the largest came out as one bound HI (the lower bound
    cannot show on positive features: -HI or none is tried); else nothing."""
    arr = S.usable(run) if run is not None else None
    if arr is None or not np.isfinite(arr).all():
        return []
    expected = run.expected
    with np.errstate(all="ignore"):
        ratio = arr / expected
    factor = float(ratio.flat[0])
    if np.isfinite(factor) and factor > 0 and abs(factor - 1.0) >= 1e-9 \
            and np.allclose(ratio, factor, rtol=1e-9, atol=0):
        return [f"scale:{factor!r}"]
    hi = float(arr.max())
    if hi < float(expected.max()) and np.allclose(arr, np.minimum(expected, hi), rtol=1e-9, atol=1e-12):
        return [f"clip:{-hi!r}:{hi!r}", f"clip:None:{hi!r}"]
    x = run.case.args[0].reshape(run.case.args[0].shape[0], -1)
    centred = np.maximum(x - x.mean(axis=0), 0.0)
    if arr.shape == x.shape and len(x) > 1 and centred.any():
        # the batch's mean subtracted (beside another mistake, the verdicts cannot say it), perhaps times a factor
        # that a ramp shows (the logits halved, say): the search is left to find the factor where it is
        factor = float(arr[centred > 0].flat[0] / centred[centred > 0].flat[0])
        if factor > 0 and np.allclose(arr, factor * centred, rtol=1e-9, atol=1e-12):
            return [V.CENTRED]
    return []


def _classes_reordered(square, arrays) -> bool:
    """Some probe returned, in some row, exactly its statement's logits in another order: the classes of each sample
    were reordered after FC3 (np.sort, np.roll), which probe 'logits-ramp' does not show when the order kept its
    ramp (a sorted ramp stays sorted)."""
    moved = False
    for run, arr in zip(square, arrays):
        if arr is None or arr.shape != run.expected.shape or not np.isfinite(arr).all():
            continue
        same = np.allclose(np.sort(arr, axis=1), np.sort(run.expected, axis=1), rtol=1e-9, atol=1e-12)
        if not same:
            return False
        moved = moved or not np.allclose(arr, run.expected, rtol=1e-9, atol=1e-12)
    return moved


def _scaled_ramp(readings) -> bool:
    """A ramp reading that is its statement times a factor (dropout left on, a temperature, 2 * y): a scale there
    explains the flatten-order probe's factor too, and the features need not be scaled."""
    for stage, reading in readings.items():
        values = reading.values
        if stage == "final" and reading.departs:
            # logits all 0 where b3 should come out (b3 left out), or the positive ones unchanged (a ReLU, a clip
            # or rounding the ramp does not reach): no factor there to explain the one elsewhere
            if values is not None and np.isfinite(values).all():
                live = S.statement(stage) > 0
                if not values.any() or np.allclose(values[live], S.statement(stage)[live], rtol=1e-9, atol=0):
                    continue
            return True
        if not reading.departs or values is None or not np.isfinite(values).all():
            continue
        expected = S.statement(stage)
        live = expected > 0
        ratio = values[live] / expected[live]
        # a ratio of 1 is no factor: the positive values pass unchanged, and the departure is elsewhere (a missing
        # ReLU passes the negative ones too), so the flatten-order probe's factor must still be the features'
        if ratio.size and ratio[0] > 0 and abs(ratio[0] - 1.0) > 1e-9 and np.allclose(ratio, ratio[0], rtol=1e-9,
                                                                                      atol=0):
            return True
    return False


class _Probes:
    """What the probes alone say, before the graded cases are looked at: the ramps' readings and the variant the
    search found (the search is the diagnosis's dearest part: hundreds of variants through the probes)."""

    def __init__(self, probes: list) -> None:
        self.branches: dict[bool, _Branch] = {}
        by_name = {r.case.name: r for r in probes}
        self.readings = S.read_ramps(by_name)
        self.spec, self.loose = None, Q.MATCH_RTOL
        square = [r for r in probes if r.case.name in SQUARE]
        arrays = [S.usable(r) for r in square]
        if not any(a is not None for a in arrays):
            return
        stack = _stack(square)
        shape = (len(square), stack.features.shape[1], square[0].expected.shape[-1])
        actual = np.zeros(shape)
        mask = np.zeros(shape, dtype=bool)
        for p, (run, arr) in enumerate(zip(square, arrays)):
            if arr is not None:
                actual[p, : arr.shape[0]] = arr
                mask[p, : arr.shape[0]] = np.isfinite(arr)
        acts = {stage: S.fit_activation(r.values) for stage, r in self.readings.items()
                if stage != "final" and r.departs}
        finals = S.fit_final(self.readings["final"].values) if self.readings["final"].departs else []
        finals += _rounding(square, arrays)
        starts = []
        for a1 in acts.get("act1", ["relu"]) or ["relu"]:
            for a2 in acts.get("act2", ["relu"]) or ["relu"]:
                for final in finals or ["none"]:
                    start = V.Spec(act=(a1, a2), final=final)
                    if start != V.REFERENCE:
                        starts.append(start)
        extra_acts = sorted({a for names in acts.values() for a in names})
        if _classes_reordered(square, arrays):  # each row holds its own logits in another order: sorted, rolled
            starts += [V.Spec(final=f) for f in ("classes-sorted", "classes-sorted-down", "classes-rolled",
                                                  "classes-rolled-back")]
        if self.readings["final"].departs or _classes_reordered(square, arrays):  # neighbours only, never starts:
            finals = finals + [f for f in V.RARE_FINALS if f not in finals]  # see ``V.RARE_FINALS``
        self.loose, exact = _precision(square, arrays)
        spec, complete = Q.search(stack, actual, mask, starts, extra_acts, finals, self.loose, exact)
        if not complete:  # a layer's products averaged instead of summed: searched for only when nothing else fits
            averaged = [V.Spec(averaged=m) for m in ((False, True, False), (True, False, False), (False, False, True))]
            other, found = Q.search(stack, actual, mask, averaged + starts, extra_acts, finals, self.loose, exact,
                                    averaged=True)
            if found:
                spec, complete = other, True
        spec = Eq.simplest(spec) if complete else spec
        changes = _input_changes(by_name.get("flatten-order")) if not complete or len(Q.describe(spec)) > 1 else []
        if not complete and not changes:  # read through a sigmoid or tanh
            changes = I.through_activations(by_name.get("flatten-order"))
        if changes and changes[0].startswith("scale:") and _scaled_ramp(self.readings):
            changes = []  # a ramp scaled by a factor explains the factor on 'flatten-order' as well
        for change in changes:  # features scaled or clipped beside another mistake: no variant without the change,
            # or one that scales b1, h1 or h2 instead (a ReLU passes a positive factor through). Alone, the stages
            # (a scale) or ``ranges`` (a clip) name the change.
            from_changed = [V.Spec(input_act=change)] + [V._replace(s, input_act=change) for s in starts]
            other, found = Q.search(stack, actual, mask, from_changed, extra_acts, finals, self.loose, exact)
            departures = len(Q.describe(other)) if found else 0
            if departures > 1 and (not complete or departures <= len(Q.describe(spec))):
                spec, complete = Eq.simplest(other), True
                break
        if complete:
            self.spec = spec
            self._example = (stack, square, actual, mask)
        else:  # kept for a search of the rows after each batch's first (``later_rows``), run only when needed
            self._search = (stack, square, actual, mask, starts, extra_acts, finals, exact)
        self._later: tuple | None = None

    def later_rows(self):
        """The variant that reproduces every probe's rows after the first (the B = 1 probes say nothing there), as
        (spec, example data), or None: computed once, and only when the whole search failed."""
        if self._later is None:
            self._later = (None,)
            found = getattr(self, "_search", None)
            if found is not None:
                stack, square, actual, mask, starts, extra_acts, finals, exact = found
                later = mask.copy()
                later[:, 0, :] = False
                if later.any():
                    spec, complete = Q.search(stack, actual, later, starts, extra_acts, finals, self.loose, exact)
                    if complete and spec != V.REFERENCE:
                        self._later = (spec, (stack, square, actual, later))
        return self._later[0], (self._later[1] if len(self._later) > 1 else None)

    def branch(self, verified: bool, by_name: dict) -> _Branch:
        """Computed once per outcome of the verification: every submission with these probe outputs shares it."""
        found = self.branches.get(verified)
        if found is None:
            values = Values(readings=self.readings)
            if verified:
                values.spec = self.spec
                values.findings = self._findings()
                fallback: list = []
            else:
                values.verdicts = L.stage_verdicts(values, by_name)
                fallback = L.fallback(values, by_name)
            found = self.branches.setdefault(verified, _Branch(values, fallback, L.lines(values, by_name)))
        return found

    def _findings(self) -> list:
        """The departures of the verified variant, each with the ramp reading or a probe output that shows it."""
        spec, findings = self.spec, []
        if spec == V.REFERENCE:
            return findings
        stack, square, actual, mask = self._example
        grouped: dict[str, list] = {}
        for finding_id, sentence, undone in Q.describe(spec):
            grouped.setdefault(finding_id, []).append((sentence, undone))
        for finding_id, items in grouped.items():
            text = L.cap("; ".join(s for s, _ in items)) + "."
            undone = spec
            for _, one in items:  # undo every departure this finding names, e.g. both layers' activations
                undone = Q.undo(undone, spec, one)
            pure = finding_id != "inference-dropout" or spec.act == V.REFERENCE.act  # a ramp shows a scale alone
            ramp = _ramp_sentence(self.readings, finding_id, spec) if finding_id in RAMP_FINDINGS and pure else ""
            text += ramp or Q.example(stack, spec, undone, square, actual, mask, self.loose)
            findings.append(Finding(finding_id, text))
        return findings


class _SharedStack(V.Stack):
    """The probes stacked once per session (their cases are the same objects for every student), each variant's
    output on them computed once: every search starts from the same variants, and a class's searches share most of
    the rest. The outputs are kept read-only, as every reader only reads them."""

    def __init__(self, cases) -> None:
        super().__init__(cases)
        self.outputs: dict = {}  # spec -> its output, or None when its shapes do not fit

    def forward(self, spec) -> np.ndarray:
        try:
            out = self.outputs[spec]
        except KeyError:
            try:
                out = super().forward(spec)
                out.flags.writeable = False
            except (ValueError, KeyError):
                out = None
            if len(self.outputs) < _STACK_OUTPUTS:
                self.outputs[spec] = out
        if out is None:
            raise ValueError("the variant's shapes do not fit the probes")
        return out


_STACKS: dict[tuple, tuple[_SharedStack, list]] = {}
_STACK_OUTPUTS = 2048  # about 6 MB of outputs at most, per stack (a search tries 400 variants at most)
_STACK_ENTRIES = 2


def _stack(square: list) -> V.Stack:
    """The stack of these probe cases, shared while they are the same objects (a session's probes)."""
    key = tuple(id(r.case) for r in square)
    with _MEMO_LOCK:
        found = _STACKS.get(key)
    if found is not None:
        return found[0]
    stack = _SharedStack([r.case.args for r in square])
    with _MEMO_LOCK:
        if len(_STACKS) >= _STACK_ENTRIES:
            del _STACKS[next(iter(_STACKS))]
        _STACKS[key] = (stack, [r.case for r in square])  # the cases kept alive with it: their ids stay theirs
    return stack


#: probe outputs (as ``_outcome_key`` reads them) -> ``_Probes``: a class's correct submissions all return the
#: same probe outputs (short dyadic numbers, computed exactly), and so do many with the same mistake
_MEMO: dict[tuple, tuple[_Probes, list]] = {}
_MEMO_ENTRIES = 64
_MEMO_BYTES = 1 << 16  # probe outputs larger than this (a hostile or broken result) are not kept
_MEMO_LOCK = threading.Lock()
_OUTCOME_FIELDS = tuple(f.name for f in fields(CallOutcome) if f.name != "seconds")  # the time is never read


def _probe_work(probes: list) -> _Probes:
    """The probes' part of the analysis, from the memo when these probes (the same objects: one session's) returned
    exactly what they returned before."""
    key = _probes_key(probes)
    if key is None:
        return _Probes(probes)
    try:
        with _MEMO_LOCK:
            found = _MEMO.get(key)
    except TypeError:  # a field that cannot be hashed: no memo for it
        return _Probes(probes)
    if found is not None:
        return found[0]
    work = _Probes(probes)
    with _MEMO_LOCK:
        if len(_MEMO) >= _MEMO_ENTRIES:
            del _MEMO[next(iter(_MEMO))]
        # the cases and expected outputs are kept alive with the entry, so no other object takes their ids
        _MEMO[key] = (work, [(r.case, r.expected) for r in probes])
    return work


def _probes_key(probes: list) -> tuple | None:
    """Everything the probes' part reads from the runs, as a hashable key (None when an output is too large)."""
    budget = [_MEMO_BYTES]
    try:
        return tuple((id(r.case), id(r.expected), r.part, _outcome_key(r.outcome, budget)) for r in probes)
    except _TooLarge:
        return None


class _TooLarge(Exception):
    pass


def _outcome_key(outcome, budget: list) -> tuple:
    key = []
    for name in _OUTCOME_FIELDS:
        value = getattr(outcome, name)
        kind = type(value)
        if kind in _PLAIN or (kind is tuple and all(type(v) in _PLAIN for v in value)):
            key.append(value)
        else:
            key.append(_value_key(value, budget))
    return tuple(key)


_PLAIN = frozenset((str, bool, int, float, type(None)))


def _value_key(value, budget: list):
    if isinstance(value, np.ndarray):
        budget[0] -= value.nbytes
        if budget[0] < 0:
            raise _TooLarge()
        return ("array", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, tuple):  # a shape, names, returned parts
        return tuple(v if type(v) in _PLAIN else _value_key(v, budget) for v in value)
    if is_dataclass(value):  # a returned part, an error
        return (type(value).__name__, *(_value_key(getattr(value, f.name), budget) for f in fields(value)))
    return value


def _rounding(square, arrays) -> list[str]:
    """``round:D`` when every probe output is a multiple of 10^-D (D from 0 to 6, the fewest) and the statement's
    are not: the logits are rounded, perhaps beside another mistake that the search then finds with it (a missing
    b3 under np.round(y, 3) matches no variant that leaves the rounding out)."""
    pairs = [(a, r.expected) for r, a in zip(square, arrays) if a is not None]
    if not pairs or any(not np.isfinite(a).all() for a, _ in pairs):
        return []
    for decimals in range(0, 7):
        step = 10.0 ** -decimals
        with np.errstate(all="ignore"):
            grid = [np.abs(a / step - np.round(a / step)) <= 1e-6 for a, _ in pairs]
            if all(g.all() for g in grid) and any(np.any(a != 0) for a, _ in pairs):
                stated = all(np.all(np.abs(e / step - np.round(e / step)) <= 1e-6) for _, e in pairs)
                if stated:
                    return []
                rounded = [f"round:{decimals}"] + (["trunc"] if decimals == 0 else [])
                return rounded + [f"relu+{r}" for r in rounded]  # a ReLU on the logits, then rounding
    return []


def _precision(square, arrays) -> tuple[float, float]:
    """Tolerances for the search: float32-tolerant with exact dyadics, or loose throughout when every general
    probe's output is a float16 number (a head computed in float16 rounds even the probes' short sums)."""
    general = [a for r, a in zip(square, arrays) if a is not None and r.case.name in ("mixed", "mixed-single")]
    with np.errstate(all="ignore"):  # logits beyond float16's range (times 1e300) are simply not float16 numbers
        small = bool(general) and all(np.array_equal(a.astype(np.float16).astype(np.float64), a) for a in general)
    if small:
        return Q.FLOAT16_RTOL, Q.FLOAT16_RTOL
    return Q.MATCH_RTOL, Q.EXACT_RTOL


# -- the analysis, once per run list ------------------------------------------------------------------------------
@dataclass
class Analysis:
    findings: list
    lines: list


EXPLAINS_RAISES = {"transposed-weights", "missing-layer", "bias-misplaced", "batch-flattened", "hardcoded-shape",
                   "spatial-pooling", "helper-result", "samples-dropped", "wrong-signature"}
#: (key, runs, Analysis) of this thread's last analysis: diagnose() and stage_trace() share it (per thread, so a
#: batch's other worker cannot replace it in between)
_LAST = threading.local()


def analyse(runs, random: bool = False) -> Analysis:
    key = (random, *(id(r.outcome) for r in runs))
    last = getattr(_LAST, "entry", None)
    if last is not None and last[0] == key:
        return last[2]
    ours = PROBE_NAMES
    probes = [r for r in runs if r.case.group == PROBE and r.case.name in ours and r.case.name != "pointwise"]
    pointwise = next((r for r in runs if r.case.group == PROBE and r.case.name == "pointwise"), None)
    graded = [r for r in runs if r.case.group != PROBE]
    everything = graded + probes
    pooled = _pooled(everything, pointwise)
    hardcoded = _hardcoded(everything) or F.fixed_batch(everything)
    findings = [f for f in (_batch_flattened(everything), _batch_reductions(everything), hardcoded, pooled)
                if f is not None]
    unflattened = pooled is not None and pooled.id == "raises-error"
    findings += [f for f in T.error_findings(everything) if not (unflattened and f.id == "raises-error")]
    findings += _row_findings(everything)
    predicted = D.predictions(everything)
    if predicted is not None:  # the class of each sample, not its logits: nothing else about the values to find
        analysis = Analysis([predicted], [])
        _LAST.entry = (key, runs, analysis)
        return analysis
    fixed = D.fixed_output(everything) or O.shape_only(everything)
    if fixed is not None:  # one answer whatever the inputs: no stage computed it, so none is blamed
        analysis = Analysis([fixed], [])
        _LAST.entry = (key, runs, analysis)
        return analysis
    checked = graded + [r for r in probes if r.case.name == "sizes"]
    work = _probe_work(probes)  # the search, shared by every submission whose probes returned the same
    verified = work.spec is not None and D.verify(work.spec, checked, work.loose)
    branch = work.branch(verified, {r.case.name: r for r in probes})
    rows_said = any(f.id == "samples-dropped" for f in findings)  # the rows' own reading says which row holds whose
    findings += [f for f in branch.values.findings if not (rows_said and f.id == "samples-dropped")]
    explained = ("samples-dropped", "samples-mixed", "batch-flattened", "hardcoded-shape", "helper-result")
    if not verified and not any(f.id in explained for f in findings):
        findings += (X.hidden_changed(graded, probes) or D.first_row_zeroed(work, graded, probes) or D.clipped(work, graded)
                     or R.features_clipped(graded, probes)
                     or D.batch_dependent(work, graded, probes)
                     or D.single_dependent(work, graded, probes) or D.square_only(work, graded, probes)
                     or D.quantised(work, graded, probes) or D.normalised(graded, probes)
                     or D.changed_and_more(work, graded)
                     or D.unequal_sizes(work, graded, probes)
                     or (L.fallback(branch.values, {r.case.name: r for r in probes}, random) if random
                         else branch.fallback))
    elif verified and work.spec == V.REFERENCE:  # right to float32's precision: perhaps rounded features
        findings += D.quantised(work, graded, probes) or X.hidden_changed(graded, probes)
    elif verified:  # another mistake, perhaps computed in float32 as well
        findings += D.reduced_precision(work, graded)
    if not findings:  # only the VGG16-scale case wrong, in a way no probe shows (H = W only there)
        findings = D.full_scale_only(graded, probes)
    if not findings and not any(r.outcome.status == "raised" for r in graded):  # wrong values nothing explains
        findings = X.unexplained(graded, probes) or ([] if random else X.nothing_right(graded, probes))
    if any(f.id in EXPLAINS_RAISES for f in findings):  # a named mistake already says why the calls raise
        findings = [f for f in findings if f.id != "raises-error"]
    analysis = Analysis(_dedupe(findings), list(branch.lines))
    _LAST.entry = (key, runs, analysis)
    return analysis


def _row_findings(runs) -> list:
    """``structure.row_findings``, which finds nothing once one batched run's rows are right or unrelated to the
    samples: that is read on the first such run (the same filter as there) before every run's rows are."""
    first = next((r for r in runs if r.expected.ndim == 2 and r.expected.shape[0] > 1 and r.outcome.status == "ok"
                  and r.outcome.array is not None), None)
    if first is not None and T.row_pattern(first) is None:
        return []
    return T.row_findings(runs)


def _dedupe(findings: list) -> list:
    seen, out = set(), []
    for f in findings:
        if (f.id, f.evidence) not in seen:
            seen.add((f.id, f.evidence))
            out.append(f)
    return out


PROBE_NAMES = frozenset(c.name for c in probe_cases())


def diagnose(runs, exercise, random: bool = False) -> list[Finding]:
    """``random``: the harness found two calls on the same inputs disagreeing (each probe shows one draw)."""
    return analyse(runs, random).findings


def stage_trace(runs) -> list[str]:
    """The per-stage verdicts, as lines for the report's trace."""
    return analyse(runs).lines
