"""What FC1 passed on when it was not the flattened features, read on the probes where the layers after it compute
the statement: the features scaled, shifted, standardised, rounded or cut short, units of FC1 never computed, or
the features pooled over height and width (``stage_verdicts`` in ``verdicts.py`` asks these once FC3's probe
departs while every activation is as stated).
"""
from __future__ import annotations

import numpy as np

from . import search as Q
from . import stages as S


POOLS = {"mean": np.mean, "sum": np.sum, "maximum": np.max}


def _changed_input(by_name: dict) -> tuple[str, str] | None:
    """The head from FC1's product on is as stated, but what it multiplies is not the flattened features.

    Probes 'fc3' and 'fc2' share their features and pass them through FC1 (W1 the identity, b1 zero). From 'fc3'
    (FC2 the identity too) the values FC1 passed on, after its ReLU, are solved for through FC3's invertible W3;
    'fc2' must then give the statement's output for those same values, through FC2's own weights and bias. Then
    'flatten-order' (every layer the identity) shows those values for distinct features: what they are is said."""
    runs = [by_name.get(name) for name in ("fc3", "fc2", "flatten-order")]
    if any(r is None for r in runs):
        return None
    outputs = [S.usable(r) for r in runs]
    if any(a is None or not np.isfinite(a).all() for a in outputs):
        return None
    (fc3, fc2, order), (y3, y2, y0) = runs, outputs
    f3, W13, b13, W23, b23, W33, b33 = fc3.case.args
    f2, W12, b12, W22, b22, W32, b32 = fc2.case.args
    eye = np.eye(W13.shape[0])
    if not (np.array_equal(f2, f3) and all(W.shape == eye.shape and np.array_equal(W, eye) for W in (W13, W23, W12))
            and not b13.any() and not b23.any() and not b12.any()):
        return None
    with np.errstate(all="ignore"):
        try:
            passed = np.linalg.solve(W33.T, (y3 - b33).T).T  # passed @ W3 + b3 = y3
        except np.linalg.LinAlgError:
            return None
        scale = float(np.abs(passed).max()) + 1e-12
        if not np.isfinite(passed).all() or (passed < -1e-6 * scale).any():
            return None  # not what comes out of a ReLU
        passed = np.maximum(passed, 0.0)
        predicted = np.maximum(passed @ W22 + b22, 0.0) @ W32 + b32
        if not bool(Q.close(y2[None], predicted[None]).all()):
            return None
        features = f3.reshape(f3.shape[0], -1)
        if bool(Q.close(passed[None], np.maximum(features, 0.0)[None]).all()):
            return None
        x0 = order.case.args[0].reshape(order.case.args[0].shape[0], -1)
        if (y0 < -1e-6 * (np.abs(y0).max() + 1e-12)).any():
            return None
    where = ("on the probes where W1 is the identity and b1 zero, FC1 passes on values that are not the flattened "
             "features, and every later stage computes what the statement says on the values it receives "
             "(probes 'fc2' and 'fc3' both give the statement's output for the same changed values)")
    if bool(Q.close(y0[None], x0[None]).all()):  # distinct positive features unchanged: only the others are
        return "changed", where
    status, sentence = _passed_on(order, by_name.get("fc1"))
    return (status, sentence if status == "units" else f"{where}: {sentence}")


def _passed_on(order, fc1=None) -> str:
    """What FC1 passed on for 'flatten-order' (every layer the identity, every feature distinct and positive), as
    a sentence, with what was done to the features when it is one of a few simple things. ``fc1`` (features of
    both signs through a general FC1) tells a feature left out from a unit of FC1 that is never computed."""
    y0 = S.usable(order)
    x0 = order.case.args[0].reshape(order.case.args[0].shape[0], -1)
    counts = np.count_nonzero(y0, axis=1)  # the sample with the fewest values at 0 shows the most, among those
    changed = ~np.all(np.isclose(y0, x0, rtol=1e-9, atol=1e-12), axis=1)  # that are changed, if any is
    row = int(np.argmax(np.where(changed, counts, -1))) if changed.any() else int(np.argmax(counts))
    shown = ", ".join(Q.fmt(v) for v in y0[row, :6])
    want = ", ".join(Q.fmt(v) for v in x0[row, :6])
    more = ", ..." if x0.shape[1] > 6 else ""
    what, change = _what_changed(x0, y0, row)
    if change is not None and fc1 is not None and (y1 := S.usable(fc1)) is not None:
        f, W1, b1, W2, b2, W3, b3 = fc1.case.args
        x1 = f.reshape(f.shape[0], -1)

        def rest(h1):  # FC2 and FC3 as stated
            return np.maximum(np.maximum(h1, 0.0) @ W2 + b2, 0.0) @ W3 + b3
        with np.errstate(all="ignore"):
            if Q.close(y1[None], rest(change(x1) @ W1 + b1)[None]).all():
                what += (f"; probe 'fc1' ({fc1.case.description}), whose features have both signs, gives the "
                         f"statement's output for its features changed the same way")
            elif getattr(change, "units", None) and Q.close(y1[None], rest(change(x1 @ W1 + b1))[None]).all():
                units = ", ".join(str(j + 1) for j in change.units)
                return ("units", f"FC1's output at position{'s' if len(change.units) > 1 else ''} {units} is 0 "
                                 f"for every sample, whatever its input and b1 (on probe 'flatten-order', where "
                                 f"W1 is the identity, and on probe 'fc1', {fc1.case.description}), while the other "
                                 f"units are as stated: {'those units' if len(change.units) > 1 else 'that unit'}"
                                 f" of FC1 {'are' if len(change.units) > 1 else 'is'} never computed")
            elif getattr(change, "units", None):
                what += " (or those units of FC1 are never computed)"
    return ("changed", f"on probe 'flatten-order' ({order.case.description}, so the logits are what FC1 passes on, "
                       f"after its ReLU), sample {row + 1} gives {shown}{more} where its flattened features are "
                       f"{want}{more}{what}")


def _what_changed(x: np.ndarray, y: np.ndarray, row: int) -> tuple[str, object]:
    """What was done to the distinct positive features ``x`` (B, d) to give ``y``, the values after FC1's ReLU,
    when it is one of a few simple things, with that change as a function of a case's flattened features; else
    ("", None)."""
    def fits(candidate):
        with np.errstate(all="ignore"):
            return bool(Q.close(y[None], np.maximum(candidate, 0.0)[None]).all())

    stats = {  # name: (over the whole batch, per sample)
        "largest value": (lambda a: np.abs(a).max(), lambda a: np.abs(a).max(axis=1, keepdims=True)),
        "L2 norm": (lambda a: np.linalg.norm(a), lambda a: np.linalg.norm(a, axis=1, keepdims=True)),
        "sum": (lambda a: a.sum(), lambda a: a.sum(axis=1, keepdims=True)),
        "mean": (lambda a: a.mean(), lambda a: a.mean(axis=1, keepdims=True)),
        "standard deviation": (lambda a: a.std(), lambda a: a.std(axis=1, keepdims=True)),
    }
    for name, (whole, each) in stats.items():
        if fits(x / whole(x)):
            return (f": each is the feature divided by the {name} of all the batch's features ({Q.fmt(whole(x))})",
                    lambda a, stat=whole: a / stat(a))
        if fits(x / each(x)):
            return f": each sample's features are divided by their own {name}", lambda a, stat=each: a / stat(a)
    if fits(x / np.sqrt(x.shape[1])):
        return (f": each is the feature divided by {Q.fmt(np.sqrt(x.shape[1]))}, the square root of the number of "
                f"features H*W*C = {x.shape[1]}", lambda a: a / np.sqrt(a.shape[1]))
    with np.errstate(all="ignore"):
        factor = float(y[0, 0] / x[0, 0])
    if factor != 0 and fits(x * factor):  # 0: every value passed on is 0 (features // 255), no factor to invert
        inverse = 1.0 / factor
        how = (f"divided by {inverse:.0f}" if inverse > 1 and abs(inverse - round(inverse)) < 1e-6 * inverse
               else f"multiplied by {Q.fmt(factor)}")
        return f": each is the feature {how}", lambda a: a * factor
    relu = " (the values that go below 0 are then set to 0 by FC1's ReLU)"
    means = (("of all the batch's features", lambda a: a.mean(), lambda a: a.std()),
             ("of its sample", lambda a: a.mean(axis=1, keepdims=True), lambda a: a.std(axis=1, keepdims=True)),
             ("over the samples of the batch, position by position", lambda a: a.mean(axis=0, keepdims=True),
              lambda a: a.std(axis=0, keepdims=True)))
    for name, mean, sd in means:
        if fits(x - mean(x)):
            return f": each is the feature minus the mean {name}{relu}", lambda a, m=mean: a - m(a)
        with np.errstate(all="ignore"):
            if np.all(sd(x) > 0) and fits((x - mean(x)) / sd(x)):
                return (f": the features are standardised, minus the mean {name} and divided by the standard "
                        f"deviation taken the same way{relu}", lambda a, m=mean, d=sd: (a - m(a)) / d(a))
    for how, fn in (("rounded toward 0 to whole numbers, as astype(int) does", np.trunc),
                    ("rounded to whole numbers", np.round), ("rounded up to whole numbers", np.ceil)):
        if fits(fn(x)):
            return f": each is the feature {how}", fn
    same = Q.close(y[None], x[None])[0]
    zero = y == 0
    if np.all(same | zero) and zero.any():
        cols = [int(j) for j in np.flatnonzero(zero.all(axis=0))]
        if np.all(same[:, [j for j in range(x.shape[1]) if j not in cols]]) and cols:
            listed = ", ".join(str(j + 1) for j in cols[:6]) + (", ..." if len(cols) > 6 else "")
            what = (f"the values at positions {listed} of {x.shape[1]} come" if len(cols) > 1
                    else f"the value at position {listed} of {x.shape[1]} comes")

            def left_out(a, cols=cols):
                a = a.copy()
                a[:, cols] = 0.0
                return a
            left_out.units = cols
            return (f": {what} out of FC1 as 0 in every sample and all the others unchanged, so part of the "
                    f"features is left out of FC1's product", left_out)
    if all(np.isin(y[i][y[i] != 0], x[i]).all() for i in range(x.shape[0])):
        count = int(zero[row].sum())
        missing = int((~np.isin(x[row], y[row])).sum())
        zeros = f" and {count} of its positions {'gets' if count == 1 else 'get'} 0" if count else ""
        return (f": every value FC1 passes on is one of the sample's own features{' or 0' if count else ''}, but "
                f"{missing} of sample {row + 1}'s {x.shape[1]} features {'does' if missing == 1 else 'do'} not "
                f"reach FC1 at all{zeros}, so part of the features is left out and the rest moved or repeated",
                None)
    return "", None

def _pooled_reading(run) -> tuple[str, str] | None:
    """On 'flatten-order' (identity layers, every feature distinct): each position of a sample holds its channel's
    mean, sum or maximum over height and width, i.e. the features were pooled and copied back to every position."""
    arr = S.usable(run)
    if arr is None:
        return None
    features = run.case.args[0]
    for name, pool in POOLS.items():
        pooled = np.broadcast_to(pool(features, axis=(1, 2), keepdims=True), features.shape).reshape(arr.shape)
        if np.allclose(arr, pooled, rtol=1e-9, atol=1e-12):
            shown = ", ".join(Q.fmt(v) for v in arr[0, :4])
            want = ", ".join(Q.fmt(v) for v in run.expected[0, :4])
            return ("pooled", f"on probe 'flatten-order' ({run.case.description}), every position of each sample "
                              f"holds the {name} of its channel over height and width (sample 1 starts {shown} "
                              f"where the flattened features are {want}): the spatial axes were pooled and the "
                              f"pooled values copied back to every position before FC1")
        # the C pooled values multiplied by W1's first C rows only (W1 cut to fit): they come first, then zeros
        B, C = features.shape[0], features.shape[-1]
        first = np.zeros(arr.shape)
        first[:, :C] = pool(features, axis=(1, 2)).reshape(B, C)
        if arr.shape[1] > C and np.allclose(arr, first, rtol=1e-9, atol=1e-12):
            shown = ", ".join(Q.fmt(v) for v in arr[0, :C + 1])
            return ("pooled", f"on probe 'flatten-order' ({run.case.description}), FC1 passes on the {name} of each "
                              f"channel over height and width, {C} values, and 0 for the other "
                              f"{arr.shape[1] - C} units (sample 1 gives {shown}): the spatial axes were pooled and "
                              f"the pooled values multiplied by only the first {C} rows of W1")
    return None
