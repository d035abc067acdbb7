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

import numpy as np

from grader.authoring import PROBE, Case, Finding

from .beyond import kept_permutation, output_axis_dropped
from .evidence import _error_example, _probe_example
from .fitting import SMALL, _evaluate, _fits, _small  # noqa: F401 - tests read _evaluate, SMALL
from .models import ALL_MODELS, MODELS, ORDER_MODELS, reference, reorder  # noqa: F401 - tests read the models here
from .rearranged import _columns_repeated, _columns_shuffled, _left_unfilled, _rows_mixed, _rows_reordered
from .sizes import _hardcoded, _out_of_memory
from .square import square_assumed


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
