"""Answers kept from an earlier call, beside a mistake in what was computed (``stale-result`` and another).

The harness names ``stale-result`` only when the answer repeated was right where it first belonged, so that a
function returning one wrong array everywhere is never taken for one that remembers. A cache keyed by shape around
a head with a missing bias (or a flatten in the wrong order, a softmax...) repeats wrong answers: the harness said
nothing of the cache, and this exercise's readings saw answers that follow only the output's size and named
``constant-output`` (or, on the probes, which share their sizes, read stale answers as values and found nothing).

Here the calls whose array repeats exactly an earlier call's, though their expected answers differ, are set
aside, and the rest, each computed from its own inputs, are diagnosed as any submission is. The reading is taken
only when a variant of the head explains every computed call and computes something else for at least one repeated
call: then the repeats are kept answers, and both the cache and the computed mistakes are named. Anything else
(zeros everywhere, a seeded placeholder, a single computed call, repeats on probes only) is left to the readings
that follow. A graded case repeating an earlier answer is what sends a submission here (one hidden case repeats
an earlier case's sizes for this), so the second search costs only submissions that keep answers.
"""
from __future__ import annotations

import numpy as np

from grader.authoring import PROBE, Finding

from . import detectors as D
from . import fixedoutput as Fo
from . import search as Q
from . import stages as S
from . import variants as V


def repeats(runs) -> list[tuple[object, object]]:
    """(run, earlier run) for each call that returned exactly the array an earlier call returned (same shape, dtype
    and bytes) although the two expected answers differ. One dictionary lookup per call: a correct submission, whose
    answers all differ, pays for a hash of each array and nothing more."""
    first: dict[tuple, object] = {}
    found = []
    for run in runs:
        arr = run.outcome.array
        if run.outcome.status != "ok" or not isinstance(arr, np.ndarray) or arr.dtype.kind not in "biuf" \
                or not arr.size or not np.isfinite(arr).all():
            continue  # NaN everywhere repeats its bytes without anything being kept
        key = (arr.shape, arr.dtype.str, arr.tobytes())
        earlier = first.setdefault(key, run)
        if earlier is not run and not (earlier.expected.shape == run.expected.shape
                                       and np.array_equal(earlier.expected, run.expected)):
            found.append((run, earlier))
    return found


def kept_reading(runs, found, analyse) -> tuple[object, Finding | None] | None:
    """The analysis (``analyse``, the diagnosis's own, on the calls that were computed) and the ``stale-result``
    finding to add (None when the harness names it: a repeated answer that was right where it first belonged), or
    None when the computed calls do not make the repeats kept answers."""
    if not any(run.case.group != PROBE for run, _ in found) or Fo.fixed_output(runs) is not None:
        # only probes repeat (the ramps are built so that a ReLU left out, or one on the logits, gives one ramp's
        # answer on another: no cache behind it), or one answer everywhere: the full search again would cost every
        # such submission a second search for nothing
        return None
    again = {id(run) for run, _ in found}
    fresh = [r for r in runs if id(r) not in again]
    if sum(1 for r in fresh if r.case.group != PROBE and S.usable(r) is not None) < 2:
        return None  # one computed answer shows too little of what computed it
    inner = analyse(fresh)
    spec = inner.spec
    if spec is None or not any(not _computes(spec, run) for run, _ in found):
        return None
    if _harness_names_it(found):
        return inner, None
    run, earlier = next(((r, e) for r, e in found if r.case.group != PROBE), found[0])
    return inner, Finding("stale-result", (
        f"On {_where(run)} it returned exactly the array it had returned for {_where(earlier)}, whose inputs hold "
        "other values, so that answer was kept from the earlier call (a cache keyed by the inputs' shapes, say) "
        "instead of being computed; the mistakes named beside this one are read from the calls it did compute."))


def _harness_names_it(found) -> bool:
    """The harness's own ``stale-result`` will be said (its evidence is the one a right kept answer deserves): a
    graded case repeated an answer that was right where it first belonged, or two probes repeated one such."""
    probes: dict[int, int] = {}
    for run, earlier in found:
        if not D._right(earlier):
            continue
        if run.case.group != PROBE:
            return True
        probes[id(earlier)] = probes.get(id(earlier), 0) + 1
    return any(n >= 2 for n in probes.values())


def _computes(spec, run) -> bool:
    """The variant computes, on this run's inputs, the array the run returned."""
    arr = S.usable(run)
    if arr is None:
        return False
    if spec == V.REFERENCE:
        with np.errstate(all="ignore"):
            return bool(Q.close(arr[None], np.asarray(run.expected, dtype=np.float64)[None]).all())
    return Q.reproduces(spec, run, arr)


def _where(run) -> str:
    return f"the grader's probe '{run.case.name}'" if run.case.group == PROBE else f"the '{run.case.name}' case"
