"""The verdict of each stage, and the finding when no variant of the model explains a submission.

Each stage is read through stages found as stated on the values it sees there: the ramps first (``stages.py``),
then FC3, FC2 and FC1 from their probes, then the flatten from the probe where every layer is the identity.
A stage whose probe passes through a stage that departs, or that could not be read, is "not read", with why.
When FC3's probe departs but FC2's and FC3's probes both give the statement's output for one and the same changed
input (the two share their features, and FC1 passes them on), the departure is before FC1's product: what FC1
passed on is read on the probe where every layer is the identity, and said (scaled, shifted, rounded, cut short:
``passedon.py``).
When nothing confirms which of a layer's bias and its activation produced a ramp's departure, the sentence says
what the probe showed, not which one did it.
"""
from __future__ import annotations

import re

import numpy as np

from grader.authoring import Finding

from . import search as Q
from . import samplerows as Rows
from . import stages as S
from . import structure as T
from . import variants as V
from . import finals as Fn
from .passedon import _changed_input, _passed_on, _pooled_reading


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
        reading = Rows.flatten_reading(run) or _pooled_reading(run)
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
    if findings or _floor_is_h1(values.readings["act1"]):
        return findings or [Finding("wrong-activation", FLOOR_IS_H1 + f" On probe 'act1-ramp', "
                                                        f"{values.readings['act1'].neutral}.")]
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


FLOOR_IS_H1 = ("FC2's activation takes the larger of z2 and the previous layer's output (np.maximum(z2, h1)) "
               "instead of the larger of z2 and 0: the floor of its ReLU is FC1's activation h1, which only has "
               "z2's shape where the two layers are equally wide.")


def _floor_is_h1(reading) -> bool:
    """The act1 ramp reading a second activation np.maximum(z2, h1) gives: that probe's FC2 maps h1 to h1/16 + 2
    and FC3 reads h2 back as 16 (h2 - 2), so a ReLU(b1) larger than z2 comes out as itself instead."""
    if reading is None or not reading.departs or reading.values is None or reading.values.shape != S.RAMP.shape:
        return False
    h1 = np.maximum(S.RAMP, 0.0)
    return bool(S.exact(reading.values, 16.0 * (np.maximum(h1 / 16.0 + 2.0, h1) - 2.0)).all())


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
            model = Fn._final(name, S.RAMP[None], None)[0]
        if np.allclose(reading.values, model, rtol=1e-9, atol=1e-12) and _within_image(name, by_name):
            mistake = "softmax-output" if "softmax" in name else "relu-after-fc3"
            shown = S.shown_points(reading.values, S.RAMP)
            return Finding(mistake, f"{cap(Fn.final_name(name))} is applied to the logits after FC3: on probe "
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
