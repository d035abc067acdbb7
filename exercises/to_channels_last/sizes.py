"""Findings read from sizes rather than values: one of VGG-16 fc6's sizes written into the code
(``hardcoded-shape``), and a call that ran out of memory (``too-much-memory``)."""
from __future__ import annotations

import re

from grader.authoring import PROBE, Finding

from .fitting import _small, _usable

FC6_NUMBERS = {4096: "fc6's number of outputs", 25088: "fc6's number of inputs (7*7*512)",
               512: "VGG-16's number of channels", 49: "the 7*7 positions of VGG-16's last map"}


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
