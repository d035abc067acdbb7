"""Misconception diagnosis for the global-average-pooling head.

The function returns two arrays, and a mistake usually touches one of them: a sum where a mean belongs changes
the logits, a bias left out or a (K, h, w) layout changes the class map. So each output has its own list of models
(small functions that make one catalogued mistake each), and a pair of models, one per output, is named when it
reproduces what the student's function did on every small case: each output it returned (within the tolerance),
and an error wherever the function raised (one model of the pair raises there too). The reference counts as a
model of each output, so a pair may name a mistake in one output and nothing in the other.

Structural findings come first: a function that returns one array, a dict or three values instead of the pair
(``not-a-pair``), and one that returns the pair in the other order (``outputs-swapped``, read by fitting the
models to the swapped outputs).

The probes are three small maps whose sizes make the usual axis mistakes run instead of raise: a cube
(h = w = C = K = 3), where channels can be taken for positions, V read as (C, K), and a (K, h, w) class map has
the right shape; a 2 x 2 x 4 map (h * w = C), where a per-position channel mean flattens to C values; and a map
whose sizes all differ, where they raise.
"""
from __future__ import annotations

import numpy as np

from grader.authoring import PROBE, Case, Finding

from .evidence import _example, _mean_note
from .fitting import SMALL, _evaluate, _fit, _part, _small, _Table  # noqa: F401 - tests read _evaluate, SMALL
from .models import _map, LOGITS, MAPS, REF_LOGITS, REF_MAP  # noqa: F401 - tests read the models here
from .rescaled import rescaled_logits
from .structural import _affine_map, _not_a_pair, rounded_map


# -- probes ------------------------------------------------------------------------------------------------------
def _probe(name: str, h: int, w: int, C: int, K: int, note: str) -> Case:
    """Dyadic values (exact in float64), no symmetry between axes, a bias of both signs and never 0."""
    n = h * w * C
    fmap = (((np.arange(n) * 7) % 11) + 1).reshape(h, w, C) / 4.0
    V = ((((np.arange(K * C) * 5) % 9) - 4) / 8.0).reshape(K, C)
    c = np.array([(-1.0) ** k * (0.25 + 0.5 * k) for k in range(K)])
    return Case(name=name, group=PROBE, args=(fmap, V, c), description=f"map {h}x{w}x{C}, K={K}{note}")


def probe_cases() -> list[Case]:
    return [
        _probe("cube", 3, 3, 3, 3, ", every size 3"),
        _probe("four-positions", 2, 2, 4, 3, ", as many positions as channels"),
        _probe("distinct", 2, 3, 4, 5, ", every size different"),
    ]


PROBE_NAMES = frozenset(c.name for c in probe_cases())


# -- the diagnosis ----------------------------------------------------------------------------------------------------
def diagnose(runs, exercise) -> list[Finding]:
    rtol = max(exercise.tolerance.rtol, exercise.tolerance.atol_scale)
    small = [r for r in runs if _small(r)]
    findings: list[Finding] = []
    graded = [r for r in runs if r.case.group != PROBE]
    if graded and all(r.outcome.status == "ok" and r.outcome.type_name == "NoneType" for r in graded):
        # the grader splits a None into one part per output ("NoneType", then "nothing"), which its own check
        # for the untouched starter does not recognise: name it here
        return [Finding("not-implemented", "The function returned None on every case.")]
    pair = _not_a_pair(small)
    if pair is not None:
        findings.append(pair)
    table = _Table(small)
    fit, swapped = _fit(table, rtol), False
    if fit is None or None in fit:
        again = _fit(table, rtol, swapped=True)
        if again is not None and None not in again:
            fit, swapped = again, True
            findings.append(Finding("outputs-swapped", "Your function returns the class map first and the logits "
                                                       "second: read the other way round, both outputs "
                                                       + ("are right." if again == (0, 0) else
                                                          "match what the findings below describe.")))
    if fit is None or fit[1] is None:
        rescaled = _affine_map(table, swapped) or rounded_map(table, swapped)
        if rescaled is not None:
            findings.append(rescaled)
    if fit is None or fit[0] is None:
        findings.extend(rescaled_logits(table.runs, lambda run: _part(run, 0, swapped)))
    if fit is None:
        return findings
    grouped: dict[str, list[str]] = {}
    for output, model in enumerate(fit):
        if not model:
            continue  # the reference (0), or nothing explained (None)
        finding_id, what, _ = (LOGITS, MAPS)[output][model]
        text = f"Your logits are, on every case, {what}." if output == 0 else f"Your class map is, on every case, {what}."
        grouped.setdefault(finding_id, []).append(text + _example(table, output, model, swapped))
    note = _mean_note(table, swapped)
    for finding_id, texts in grouped.items():
        text = " ".join(texts)
        if finding_id in ("bias-count", "sum-pooling") and note:
            text += note
        findings.append(Finding(finding_id, text))
    return findings
