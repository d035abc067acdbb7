"""A mistake in the values read from the graded cases alone, when no square probe returned anything to search.

A batch size written into the code (``x = features.reshape(4, -1)``) fails on every probe (B = 3, 1 and 2) but runs
on the graded cases of that batch size. Their values may be wrong for a second reason (b3 left out, say), which
cost those cases' points, yet the search reads only the probes, so the report named the fixed size alone. Here
each variant one departure away from the statement's head is tried on the graded cases that returned an array of
the right shape; when the variants that reproduce them all name the same mistakes, those are named, with the cases
they were read on. Nothing is said when none or several different ones fit (two cases can fit more than one
reading). It runs only for submissions whose probes all failed and some graded case did not: no cost to others.
"""
from __future__ import annotations

from grader.authoring import Finding

from . import departures as P
from . import detectors as D
from . import search as Q
from . import stages as S
from . import variants as V
from . import verdicts as L

#: how many graded cases must have returned an array before a variant fitted to them is named
MIN_CASES = 2


def graded_reading(graded, square) -> list:
    """Findings of the one-departure variant that reproduces every graded case that returned a usable, wrong array,
    when no square probe returned one; [] otherwise."""
    if any(S.usable(r) is not None for r in square):
        return []
    usable = [r for r in graded if r.case.group != "full-scale" and S.usable(r) is not None]
    if len(usable) < MIN_CASES or all(D._right(r) for r in usable):
        return []
    fits = [spec for spec in V.neighbours(V.REFERENCE) if D.verify(spec, usable, Q.MATCH_RTOL)]
    named = {tuple(sorted({i for i, _, _ in P.describe(spec)})) for spec in fits}
    if len(named) != 1:
        return []
    spec = fits[0]
    cases = ", ".join(f"'{r.case.name}'" for r in usable)
    grouped: dict[str, list[str]] = {}
    for finding_id, sentence, _ in P.describe(spec):
        grouped.setdefault(finding_id, []).append(sentence)
    return [Finding(finding_id, L.cap("; ".join(sentences)) + f". Read on the graded cases that returned an array "
                                f"({cases}), as every probe failed.") for finding_id, sentences in grouped.items()]
