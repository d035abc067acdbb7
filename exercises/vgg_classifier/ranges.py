"""Mistakes that only show on large values, which a batch can look like: before a report says that a sample's
logits depend on the rest of its batch (``samples-mixed``), it must rule out a limit that bites only on the
samples with the largest values.

Every call with a single sample can be right while a batch is wrong for a reason that has nothing to do with the
batch: the single-sample calls (the ramps, 'mixed-single', the graded single case) never reach the values that
some rows of the batches do (probe 'flatten-order' has features up to 4.5). ``np.clip(features, -3, 3)`` is right on
every small value and wrong on those rows alone, and it treats each sample on its own, so calling it mixed would
mislead. Two readings here:

* ``features_clipped``: the features clipped before FC1, read from probe 'flatten-order' (identity layers and
  positive features, so its logits are the features FC1 received) and verified on every case: ``features-changed``.
* ``within_reach``: which wrong rows of the batches stay within the values the single-sample calls reached at
  every stage of the statement's head. Only those show that a sample's logits depend on its batch; when every
  wrong row goes beyond, the honest finding is a generic one that says so (``beyond_singles``).
"""
from __future__ import annotations

import numpy as np

from grader.authoring import PROBE, Finding

from . import search as Q
from . import stages as S
from . import structure as T

REACH_MARGIN = 1.0 + 1e-9  # a row is within reach when no stage exceeds the singles' largest size by more


def _stages(args) -> list[np.ndarray]:
    """Each sample's values at every stage of the statement's head (features, z1, h1, z2, h2, y), one (B, n) each."""
    features, W1, b1, W2, b2, W3, b3 = (np.asarray(a, dtype=np.float64) for a in args)
    x = features.reshape(features.shape[0], -1)
    z1 = x @ W1 + b1
    h1 = np.maximum(z1, 0.0)
    z2 = h1 @ W2 + b2
    h2 = np.maximum(z2, 0.0)
    return [x, z1, h1, z2, h2, h2 @ W3 + b3]


def _reach(args) -> np.ndarray:
    """(B, 6): each sample's largest absolute value at each stage."""
    return np.stack([np.abs(s).max(axis=1) if s.shape[1] else np.zeros(s.shape[0]) for s in _stages(args)], axis=1)


def _wrong_rows(run) -> list[int]:
    arr = S.usable(run)
    if arr is None:
        return []
    expected = np.asarray(run.expected, dtype=np.float64)
    scale = float(np.abs(expected).max()) + 1e-12
    with np.errstate(invalid="ignore"):
        off = ~(np.abs(arr - expected) <= Q.tolerance(expected, scale))
    return [int(i) for i in np.flatnonzero(off.any(axis=1))]


def within_reach(single, wrong) -> list[tuple]:
    """(run, row) of each wrong row of the batched runs ``wrong`` whose values, at every stage of the statement's head,
    stay within the largest the single-sample calls ``single`` reached: a row that a limit on large values cannot
    explain."""
    try:
        with np.errstate(all="ignore"):
            limit = np.max(np.concatenate([_reach(r.case.args) for r in single]), axis=0)
            found = []
            for run in wrong:
                reach = _reach(run.case.args)
                found += [(run, i) for i in _wrong_rows(run) if np.all(reach[i] <= limit * REACH_MARGIN)]
    except (ValueError, TypeError):  # sizes that do not fit the statement's head: no reading, so no excuse
        return [(r, 0) for r in wrong]
    return found


def beyond_singles(single, wrong) -> list:
    """The generic finding when every wrong row of a batch goes beyond what the single samples reached."""
    run = next((r for r in wrong if r.case.group == PROBE), wrong[0])
    rows = _wrong_rows(run)
    reach = _reach(run.case.args)
    limit = np.max(np.concatenate([_reach(r.case.args) for r in single]), axis=0)
    stage = int(np.argmax(reach[rows[0]] / np.maximum(limit, 1e-300)))
    names = ("features", "FC1's pre-activations", "FC1's activations", "FC2's pre-activations",
             "FC2's activations", "logits")
    where = (f"on probe '{run.case.name}' ({run.case.description})" if run.case.group == PROBE
             else f"on the '{run.case.name}' case")
    samples = ", ".join(str(i + 1) for i in rows)
    return [Finding("wrong-stage", f"Every call with a single sample (B = 1), {len(single)} in all, returned the "
                                   f"right logits, and so did every row of a batch whose values stay within the "
                                   f"sizes the single samples reached; the rows that are wrong all go beyond them: "
                                   f"{where} sample{'s' if len(rows) > 1 else ''} {samples} "
                                   f"{'are' if len(rows) > 1 else 'is'} wrong, and sample {rows[0] + 1}'s "
                                   f"{names[stage]} reach {Q.fmt(float(reach[rows[0], stage]))}, more than any "
                                   f"single sample's did. So something in the head "
                                   f"changes only large values (a clip or a threshold, say), not the way the "
                                   f"samples of a batch are combined.")]


def features_clipped(graded, probes) -> list:
    """The features clipped before FC1 (``np.clip(features, lo, hi)``): probe 'flatten-order' returns its
    features with the largest cut to one bound, and the head on the clipped features gives every case."""
    order = next((r for r in probes if r.case.name == "flatten-order"), None)
    arr = S.usable(order) if order is not None else None
    if arr is None or not np.isfinite(arr).all():
        return []
    features = order.case.args[0].reshape(len(arr), -1)
    hi = float(arr.max())
    if not hi < float(features.max()) or not np.all(arr[features >= hi] == hi):
        return []
    runs = [r for r in graded + probes if r.case.group != "full-scale" and S.usable(r) is not None]
    for lo in (-hi, None, 0.0):
        if all(_clip_fits(r, lo, hi) for r in runs):
            cut = features > hi
            r = int(np.flatnonzero(cut.any(axis=1))[0])
            shown = ", ".join(Q.fmt(float(v)) for v in features[r][cut[r]][:4])
            bounds = f"[{Q.fmt(lo)}, {Q.fmt(hi)}]" if lo is not None else f"at most {Q.fmt(hi)}"
            call = f"np.clip(features, {Q.fmt(lo) if lo is not None else 'None'}, {Q.fmt(hi)})"
            return [Finding("features-changed", f"The features are clipped to {bounds} before FC1, as {call} "
                                                f"does: on probe '{order.case.name}' ({order.case.description}, so "
                                                f"the logits are the features FC1 receives) sample {r + 1}'s "
                                                f"features {shown} come out as {Q.fmt(hi)}, and the head on the "
                                                f"clipped features gives every probe and every graded case. Samples "
                                                f"whose features stay within the bounds are unchanged, which is why "
                                                f"some calls are right.")]
    return []


def _clip_fits(run, lo, hi) -> bool:
    args = run.case.args
    try:
        with np.errstate(all="ignore"):
            model = _stages((np.clip(args[0], lo, hi), *args[1:]))[-1]
    except ValueError:
        return False
    return model.shape == S.usable(run).shape and T.close(S.usable(run), model, 1e-9)
