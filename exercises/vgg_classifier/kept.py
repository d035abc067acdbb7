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
that follow, but for repeats on probes given the same features as the probe whose right answer they repeat, from two
such probes: a cache keyed by the features alone, which no graded case shows (each has features of its own). A
graded case repeating an earlier answer is what sends a submission here (one hidden case repeats an earlier case's
sizes for this), so the second search costs only submissions that keep answers.
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
    if not (any(run.case.group != PROBE for run, _ in found) or _features_keyed(found)) \
            or Fo.fixed_output(runs) is not None:
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
    inputs, key = (("features are the same but whose weights hold other values", "by the features alone")
                   if _same_features(run, earlier) else ("inputs hold other values", "by the inputs' shapes"))
    beside = ("; the mistakes named beside this one are read from the calls it did compute" if inner.findings
              else "; the calls it did compute are right")
    return inner, Finding("stale-result", (
        f"On {_where(run)} it returned exactly the array it had returned for {_where(earlier)}, whose {inputs}, "
        f"so that answer was kept from the earlier call (a cache keyed {key}, say) instead of being computed"
        f"{beside}."))


def _same_features(run, earlier) -> bool:
    """The two calls were given equal features (their weights may differ)."""
    a, b = run.case.args[0], earlier.case.args[0]
    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b)


def _features_keyed(found) -> bool:
    """Probes that repeat the right answer of an earlier probe given the same features, for two different earlier
    probes: a cache keyed by the features alone (or the last call's features), which every graded case passes, as
    each has features of its own. 'fc3' shares 'fc2''s features and the ramps share theirs; a ramp alone can
    repeat another's answer through a ReLU left out, but no mistake turns 'fc3''s inputs into 'fc2''s right answer
    (it holds a matrix 'fc3' is not given), so two such earlier probes are a cache, not a mistake of the head.
    Without this, the head's readings of the probes read the kept answers as values and named a stage that the
    code computes right (wrong-stage on the ReLU of FC1 for a correct head behind such a cache)."""
    earlier = {id(e) for r, e in found if r.case.group == PROBE and D._right(e) and _same_features(r, e)}
    return len(earlier) >= 2


def _harness_names_it(found) -> bool:
    """The harness's own ``stale-result`` will be said (its evidence is the one a right kept answer deserves): a
    graded case repeated an answer that was right where it first belonged, or two probes repeated one such."""
    probes: dict[int, list] = {}
    for run, earlier in found:
        if not D._right(earlier):
            continue
        if run.case.group != PROBE:
            return True
        same = probes.setdefault(id(earlier), [])
        # as the harness does, two probes that expect one answer count once ('act1-ramp' and 'act2-ramp' do)
        if not any(e.shape == run.expected.shape and np.array_equal(e, run.expected) for e in same):
            same.append(run.expected)
    return any(len(same) >= 2 for same in probes.values())


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
