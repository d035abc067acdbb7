"""The verdict of each stage, and the finding when no variant of the model explains a submission.

Each stage is read through stages found as stated on the values it sees there: the ramps first (``stages.py``),
then FC3, FC2 and FC1 from their probes, then the flatten from the probe where every layer is the identity.
A stage whose probe passes through a stage that departs, or that could not be read, is "not read", with why.
When FC3's probe departs but FC2's and FC3's probes both give the statement's output for one and the same changed
input (the two share their features, and FC1 passes them on), the departure is before FC1's product: what FC1
passed on is read on the probe where every layer is the identity, and said (scaled, shifted, rounded, cut short).
When nothing confirms which of a layer's bias and its activation produced a ramp's departure, the sentence says
what the probe showed, not which one did it.
"""
from __future__ import annotations

import re

import numpy as np

from grader.authoring import Finding

from . import search as Q
from . import stages as S
from . import structure as T
from . import variants as V


def probe_matches(run) -> tuple[bool | None, str]:
    """Does a probe's output match the statement (exactly where float32 is exact)? With an example when not."""
    arr = S.usable(run)
    if arr is None:
        return None, ""
    expected = run.expected
    scale = float(np.abs(expected).max()) + 1e-12
    ok = np.abs(arr - expected) <= Q.tolerance(expected, scale)
    if ok.all():
        return True, ""
    r, k = np.unravel_index(int(np.argmax(np.where(ok, -1.0, np.abs(arr - expected)))), arr.shape)
    sample = f"sample {r + 1}, " if expected.shape[0] > 1 else ""
    got, want = Q.fmt_pair(arr[r, k], expected[r, k])
    return False, (f"on probe '{run.case.name}' ({run.case.description}), {sample}output {k + 1} is "
                   f"{got} where the statement gives {want}")


def stage_verdicts(values, by_name: dict) -> dict[str, tuple[str, str]]:
    """(status, sentence) per stage, each read only through stages found as stated on the values they see."""
    readings = values.readings
    verdicts: dict[str, tuple[str, str]] = {}
    for stage, reading in readings.items():  # nothing confirms the activation rather than the bias: say what was seen
        verdicts[stage] = (reading.status, reading.neutral if reading.departs else reading.note)
    moderate = all(readings[s].values is not None and S.identity_on_moderate(readings[s].values)
                   for s in ("act1", "act2"))
    stated = {s: verdicts[s][0] == "as stated" for s in ("act1", "act2", "final")}

    def read(stage, probe, needs, why):
        if not needs:
            verdicts[stage] = ("not read", why)
            return
        run = by_name.get(probe)
        ok, sentence = probe_matches(run) if run is not None else (None, "")
        if ok is None:
            verdicts[stage] = ("not read", f"probe '{probe}' gave no usable output")
        else:
            verdicts[stage] = ("as stated", "") if ok else ("departs", sentence)

    acts = "the activations it passes through are not both the identity on [0.5, 3]"
    final = "departs" if verdicts["final"][0] == "departs" else "could not be read"
    read("fc3", "fc3", stated["final"] and moderate, acts if stated["final"] else f"what follows FC3 {final}")
    changed = _changed_input(by_name) if verdicts["fc3"][0] == "departs" and all(stated.values()) else None
    if changed is not None:  # FC2 and FC3 compute the statement on what reaches them: FC1 passes on something else
        verdicts["fc3"] = verdicts["fc2"] = ("as stated", "")
        if changed[0] == "units":
            verdicts["fc1"] = ("departs", changed[1])
            verdicts["flatten"] = ("not read", "its probe passes through FC1, which departs")
        else:
            verdicts["fc1"] = ("not read", "its probe's features reach FC1's product changed (see the flatten)")
            order = by_name.get("flatten-order")  # changed into pooled values: say so
            verdicts["flatten"] = (_pooled_reading(order) if order is not None else None) or changed
        return verdicts
    read("fc2", "fc2", verdicts["fc3"][0] == "as stated" and stated["act2"] and moderate,
         "its probe passes through a stage that departs or was not read (FC3 or the second activation)")
    read("fc1", "fc1", verdicts["fc2"][0] == "as stated" and stated["act1"] and stated["act2"],
         "its probe passes through a later stage that departs or was not read")
    later = all(verdicts[s][0] == "as stated" for s in ("fc1", "fc2", "fc3")) and moderate and stated["final"]
    run = by_name.get("flatten-order")
    if not later or run is None:
        verdicts["flatten"] = ("not read", "its probe passes through a later stage that departs or was not read")
    else:
        reading = T.flatten_reading(run) or _pooled_reading(run)
        if reading is None:
            ok, sentence = probe_matches(run)
            passed = _passed_on(run)[1] if ok is False else None  # every later stage as stated: FC1 passes x on
            verdicts["flatten"] = ("not read", "probe 'flatten-order' gave no usable output") if ok is None else (
                ("as stated", "") if ok else ("changed", f"FC1 passes on values that are not the flattened "
                                                         f"features, and every later stage computes what the "
                                                         f"statement says: {passed}") if passed else
                ("departs", sentence))
        elif reading[0] == "departs":  # each sample's own values, all there, in another order
            verdicts["flatten"] = ("reordered", reading[1])
        else:
            verdicts["flatten"] = reading
    return verdicts


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
    if fits(x * factor):
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


def fallback(values, by_name: dict, random: bool = False) -> list:
    """No variant explains everything: name the first stage that departs, with what it did. ``random``: two calls on
    the same inputs disagreed, so a ramp shows one draw of a random mask, which may drop just the smallest values as
    a raised threshold would: such a reading is then a mask, never a threshold."""
    findings = []
    for stage in ("act1", "act2"):
        reading = values.readings[stage]
        if not reading.departs:
            continue
        factor = S.dropout_factor(reading.values)
        bounds = S.threshold(reading.values)
        if bounds is not None and (random or S.depends_on_position(by_name.get("act1-ramp"))):
            factor, bounds = 1.0, None  # the largest values kept by chance: a mask, not a threshold
        if factor is not None:
            live = S.RAMP > 0
            kept = int(np.count_nonzero(live & (reading.values != 0)))
            how = "unchanged" if factor == 1 else f"multiplied by {factor:g}"
            shown = S.describe(stage, reading.values, neutral=True, every=True)  # the count is over every value
            verb = "comes" if kept == 1 else "come"
            findings.append(Finding("inference-dropout", f"On probe '{stage}-ramp', {shown}: {kept} of the "
                                                         f"{int(live.sum())} positive values {verb} out {how} and the "
                                                         f"others are set to 0, as a dropout mask"
                                                         f"{'' if factor == 1 else ' with rescaling'} does."))
        elif bounds is not None:
            layer = "FC1" if stage == "act1" else "FC2"
            findings.append(Finding("wrong-activation", f"{layer}'s activation sets to 0 not only the negative values "
                                                        f"but also the positive ones up to {S._fmt(bounds[0], 8)}, "
                                                        f"and keeps {S._fmt(bounds[1], 8)} and above unchanged: a "
                                                        f"ReLU with a threshold above 0 (z * (z > t), with t at least "
                                                        f"{S._fmt(bounds[0], 8)}). On probe '{stage}-ramp', "
                                                        f"{reading.neutral}."))
    if findings:
        return findings
    for stage in S.STAGES:
        status, sentence = values.verdicts.get(stage, ("not read", ""))
        if status == "mixes":
            return [Finding("samples-mixed", f"On probe 'flatten-order' (every layer the identity), {sentence}.")]
        if status == "pooled":
            return [Finding("spatial-pooling", f"{cap(sentence)}. Every later stage computes what the statement says.")]
        if status == "changed":
            return [Finding("features-changed", f"{cap(sentence)}.")]
        if status == "reordered":
            return [Finding("flatten-order", f"{cap(sentence)}: on probe 'flatten-order' (every layer the identity) "
                                             f"each sample gets all of its own features, in an order that is not "
                                             f"row-major (H, W, C) nor one of the usual other orders. Every later "
                                             f"stage computes what the statement says.")]
        if status == "departs":
            if not _localised(values, stage) and not (stage == "final" and _function_of_logits(by_name)):
                return []
            text = sentence if stage in S.RAMP_STAGE.values() or stage == "flatten" else (
                f"{S.STAGE_NAMES[stage]}, or a stage before it that its probe passes the features through, departs: "
                f"{sentence}")
            unread = [S.STAGE_NAMES[s] for s in S.STAGES[:S.STAGES.index(stage)]
                      if values.verdicts.get(s, ("",))[0] == "not read"]
            if stage in ("act1", "act2") and _truncated(values.readings[stage].values):
                return [Finding("rounded-output", f"{cap(text)}: each value is ReLU's cut to a whole number, as an "
                                                  f"array of integers holds it. np.vectorize(lambda v: max(v, 0)) "
                                                  f"does this when the first value it sees is negative: it takes "
                                                  f"its dtype from that first result, the int 0. Use "
                                                  f"np.maximum(z, 0), which keeps float64.")]
            named = _catalogued_final(values, by_name) if stage == "final" else None
            if named is not None:
                return [named]
            if stage == "final":
                qualifier = (" With every weight zero the three products contribute nothing, so the departure is "
                             "in how b3 is added or in what is done to the logits after FC3. The earlier stages "
                             "could not be checked on their own: every other probe passes through this one.")
            else:
                qualifier = (f" It is the first stage found to depart; {_join(unread)} could not be checked on "
                             f"{'its' if len(unread) == 1 else 'their'} own." if unread else
                             " Every later stage computes what the statement says." if stage == "flatten" else
                             " Every stage before it computes what the statement says.")
            return [Finding("wrong-stage", f"{cap(text)}.{qualifier}{READ_THROUGH.get(stage, '')}")]
    return []


def _truncated(reading) -> bool:
    """A hidden activation's ramp reading that is ReLU cut toward 0 to whole numbers, and not ReLU itself."""
    if reading is None or reading.shape != S.RAMP.shape:
        return False
    cut = np.trunc(np.maximum(S.RAMP, 0.0))
    return bool(np.array_equal(reading, cut) and not np.array_equal(reading, np.maximum(S.RAMP, 0.0)))


#: what a ramp reading passes through after its stage: the logits-ramp probe checked what follows FC3 with every
#: weight zero, never the products by W2 or W3 these probes use, so a mistake there reads as this stage's
READ_THROUGH = {
    "act1": " This probe reads the activation back through FC2 (h1/16 + 2) and FC3 (16 h2 - 32), so a mistake in "
            "their products by W2 or W3 shows here too.",
    "act2": " This probe reads the activation back through FC3 with W3 the identity, so a mistake in the product "
            "by W3 shows here too.",
}


#: functions after FC3 the catalog names, in the order a ramp reading is compared with them
_CATALOGUED_FINALS = ("relu", "sigmoid", "tanh", "exp", "abs", "softmax", "log-softmax")


#: the values each function after FC3 can return: a probe output outside them was not made by it (np.maximum(b3, 0)
#: reads as a ReLU on the logits ramp, where the logits are b3, yet other probes return negative logits)
_IMAGES = {"relu": (0.0, np.inf), "sigmoid": (0.0, 1.0), "tanh": (-1.0, 1.0), "exp": (0.0, np.inf),
           "abs": (0.0, np.inf), "softmax": (0.0, 1.0)}


def _within_image(name: str, by_name: dict) -> bool:
    lo, hi = _IMAGES.get(name, (-np.inf, np.inf))
    for run in by_name.values():
        arr = S.usable(run)
        if arr is not None and np.isfinite(arr).all() and (arr.min() < lo or arr.max() > hi):
            return False
    return True


def _catalogued_final(values, by_name: dict) -> Finding | None:
    """What follows FC3 is read on probe 'logits-ramp' with every weight zero, through no other stage: when it is
    exactly a catalogued function of the ramp (a ReLU, a softmax...), that mistake is certain even though another
    one, which no variant explains, keeps the search from reproducing the rest. Naming it beats a bare 'after FC3
    departs', which sends the student looking for an unknown function; the other mistake is said to remain."""
    reading = values.readings.get("final")
    if reading is None or reading.values is None or not np.isfinite(reading.values).all():
        return None
    for name in _CATALOGUED_FINALS:
        with np.errstate(all="ignore"):
            model = V._final(name, S.RAMP[None], None)[0]
        if np.allclose(reading.values, model, rtol=1e-9, atol=1e-12) and _within_image(name, by_name):
            mistake = "softmax-output" if "softmax" in name else "relu-after-fc3"
            shown = S.shown_points(reading.values, S.RAMP)
            return Finding(mistake, f"{cap(V.final_name(name))} is applied to the logits after FC3: on probe "
                                    f"'logits-ramp', where every weight is zero so that the logits are b3, your "
                                    f"function turns b3 = {', '.join(Q.fmt(S.RAMP[i]) for i in shown)} into "
                                    f"{', '.join(Q.fmt(reading.values[i]) for i in shown)}. Something else departs "
                                    f"as well, in a way no catalogued mistake explains: every other probe passes "
                                    f"through this function, so the stages before it could not be checked on their "
                                    f"own; correct this one first.")
    return None


def _localised(values, stage: str) -> bool:
    """A departure is pinned to its stage when another stage was found as stated (so the probes read the
    pipeline, not noise), when it is small (a near-identity: noise, rounding, a tiny floor), or when it is what
    follows FC3, read through no other stage, and its output on the ramp keeps or reverses the ramp's order (a
    scale, a shift, a normalisation: not noise)."""
    if any(status == "as stated" for status, _ in values.verdicts.values()):
        return True
    reading = values.readings.get(stage)
    if reading is None or reading.values is None:
        return False
    if stage == "final":  # read with every weight zero, through no other stage: pinned unless it looks like noise
        steps = np.diff(reading.values)
        return bool(np.isfinite(steps).all() and ((steps >= 0).all() or (steps <= 0).all()))
    expected = S.statement(stage)
    return bool(np.all(np.abs(reading.values - expected) <= 1e-3 * (np.abs(expected).max())))


def _function_of_logits(by_name: dict) -> bool:
    """Every probe's output is one function of the statement's logits, value by value: wherever two logits are
    equal (the probes repeat many), so are the outputs, and some repeat. A function applied after FC3 (np.log of
    |y|, say) does that even when it scrambles the ramp's order; noise or garbage does not."""
    seen: dict[float, float] = {}
    repeats = 0
    for run in by_name.values():
        arr = S.usable(run)
        if arr is None:
            continue
        if not np.isfinite(arr).all():
            return False
        for want, got in zip(np.asarray(run.expected, dtype=np.float64).ravel().tolist(), arr.ravel().tolist()):
            key = float(f"{want:.12g}")
            if key in seen:
                if abs(seen[key] - got) > 1e-9 * (abs(got) + abs(seen[key])) + 1e-12:
                    return False
                repeats += 1
            else:
                seen[key] = got
    return repeats >= 24 and len(seen) >= 12  # two probe rows of repeats, at the least


def cap(text: str) -> str:
    """Capitalise a sentence, but not a parameter's name (b1, W2)."""
    return text if re.match(r"[bW]\d", text) else text[0].upper() + text[1:]


def _join(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def lines(values, by_name: dict) -> list[str]:
    """One line per stage: as stated, departs (how), raises (where), or not read (why)."""
    if not by_name:
        return []
    if values.spec is not None:
        departures = Q.stage_of(values.spec)
        verdicts = {}
        for stage in S.STAGES:
            reading = values.readings.get(stage)
            if stage in departures:  # an activation as stated whose layer is skipped: its ramp never reached it
                own = reading is not None and reading.departs and not (
                    stage in ("act1", "act2") and values.spec.act[int(stage[-1]) - 1] == V.REFERENCE.act[0]
                    and values.spec.scale[int(stage[-1]) - 1] == 1.0)
                note = reading.note if own else "; ".join(departures[stage])
                verdicts[stage] = ("departs", note)
            else:
                verdicts[stage] = ("as stated", "")
    else:
        verdicts = dict(values.verdicts)
    unplaced = []  # probes that raised where the error does not say which stage
    for run in by_name.values():
        if run.outcome.status != "raised":
            continue
        reading = T.read_error(run)
        error = run.outcome.error.rstrip(". ")
        if reading is not None and reading.stage:
            if verdicts.get(reading.stage, ("",))[0] != "raises" and verdicts.get(reading.stage, ("",))[0] != "departs":
                verdicts[reading.stage] = ("raises", f"{error} on probe '{run.case.name}'")
        else:
            unplaced.append(run)
    if all(v[0] == "not read" for v in verdicts.values()) and not unplaced:
        return []
    lines = ["stage by stage, on the public probes (every layer 12 wide):"]
    for stage in S.STAGES:
        status, sentence = verdicts.get(stage, ("not read", ""))
        text = {"mixes": "departs", "pooled": "departs", "changed": "departs", "reordered": "departs"}.get(status,
                                                                                                         status)
        lines.append(f"  {S.STAGE_NAMES[stage]}: {text}" + (f" {sentence}" if status == "raises" else
                                                           f": {sentence}" if sentence else ""))
    if len(unplaced) == len(by_name):
        lines.append(f"  every probe raised an error that no stage could be pinned on, the first "
                     f"{unplaced[0].outcome.error.rstrip('. ')}")
    elif unplaced:
        names = ", ".join(f"'{r.case.name}'" for r in unplaced)
        lines.append(f"  {len(unplaced)} of {len(by_name)} probes raised an error that no stage could be pinned on "
                     f"({names}), the first {unplaced[0].outcome.error.rstrip('. ')}; the verdicts above come from "
                     f"the probes that returned")
    return lines
