"""What the square probes alone say, before the graded cases are looked at: the ramps' readings (``stages.py``) and
the variant of the head's model that the search (``search.py``) finds for the probes' outputs, with the starts,
fitted functions and tolerances the outputs suggest. The search is the diagnosis's dearest part (hundreds of
variants through the probes), so ``_probe_work`` computes it once per distinct set of probe outputs
(``probememo.py``); ``_Probes.branch`` then gives the findings, or the stages' verdicts when the variant does not
hold on the graded cases.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from grader.authoring import Finding

from . import activations as A
from . import equivalents as Eq
from . import finals as Fn
from . import inputscale as I
from . import search as Q
from . import stages as S
from . import variants as V
from . import verdicts as L
from .probememo import _MEMO, _MEMO_ENTRIES, _MEMO_LOCK, _probes_key, _stack


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
                model = Fn._final(spec.final, S.RAMP[None], None)[0]
            else:
                layer = 0 if stage == "act1" else 1
                model = A.activation(spec.act[layer])(S.RAMP) * spec.scale[layer]
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
        if not _near(np.sort(arr, axis=1), np.sort(run.expected, axis=1)):
            return False
        moved = moved or not _near(arr, run.expected)
    return moved


def _near(a: np.ndarray, b: np.ndarray) -> bool:
    """``np.allclose(a, b, rtol=1e-9, atol=1e-12)`` for finite arrays, without its checks for inf and nan (a few
    times faster, and this runs on every probe of every submission whose probes are new)."""
    return bool((np.abs(a - b) <= 1e-12 + 1e-9 * np.abs(b)).all())


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


#: where the last search (the rarer departures) starts besides the reference: one bias left out
RARE_STARTS = tuple(V.Spec(bias=tuple(j != i for j in range(3))) for i in (2, 1, 0))


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
        reordered = _classes_reordered(square, arrays)
        if reordered:  # each row holds its own logits in another order: sorted, rolled
            starts += [V.Spec(final=f) for f in ("classes-sorted", "classes-sorted-down", "classes-rolled",
                                                  "classes-rolled-back")]
        if self.readings["final"].departs or reordered:  # neighbours only, never starts:
            finals = finals + [f for f in Fn.RARE_FINALS if f not in finals]  # see ``Fn.RARE_FINALS``
        self.loose, exact = _precision(square, arrays)
        spec, complete = Q.search(stack, actual, mask, starts, extra_acts, finals, self.loose, exact)
        if not complete:  # a layer's products averaged instead of summed: searched for only when nothing else fits
            averaged = [V.Spec(averaged=m) for m in ((False, True, False), (True, False, False), (False, False, True))]
            other, found = Q.search(stack, actual, mask, averaged + starts, extra_acts, finals, self.loose, exact,
                                    averaged=True)
            if found:
                spec, complete = other, True
        if not complete:  # the rarer departures (a skip connection, one value of a bias, a ReLU on a weight
            # matrix): last, from the reference alone, so that they never stand in for a commoner mistake
            other, found = Q.search(stack, actual, mask, (), extra_acts, finals, self.loose, exact, rare=True)
            if not found:  # then from the reference with one bias left out: a skip connection beside a missing b3
                # changes every output, so neither alone brings the greedy descent closer (a search of its own, as the
                # starts would spend the budget the descent from the reference needs)
                other, found = Q.search(stack, actual, mask, RARE_STARTS, extra_acts, finals, self.loose, exact,
                                        rare=True)
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


#: what ``y // q`` is typed with for ``y / q``: a halving, a temperature, a mean over a count of ten or a hundred
FLOOR_DIVISORS = (2, 3, 4, 10, 100)


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
            on_grid = all(bool((np.abs(a / step - np.round(a / step)) <= 1e-6).all()) for a, _ in pairs)
            if on_grid and any(np.any(a != 0) for a, _ in pairs):
                stated = all(np.all(np.abs(e / step - np.round(e / step)) <= 1e-6) for _, e in pairs)
                if stated:
                    return []
                whole = ["trunc", "floor", *(f"floordiv:{q}" for q in FLOOR_DIVISORS)]
                rounded = [f"round:{decimals}"] + (whole if decimals == 0 else [])
                # a ReLU, a sigmoid or a softmax on the logits, then rounding (np.round(sigmoid(y)): a 0/1 guess)
                return rounded + [f"{f}+{r}" for f in ("relu", "sigmoid", "softmax") for r in rounded]
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
