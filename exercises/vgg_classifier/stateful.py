"""State kept between calls: a head whose answer depends on the calls made before it (``nondeterministic`` and
``stale-result`` beside what drifts).

The harness names ``nondeterministic`` when two calls on the same inputs disagree, and that is all it can say: a
dropout left on and a counter kept in a global look alike there. The values told them apart no better, because
each case was read as one answer: a head dividing its logits by a call counter, adding b3 once more on every call
with a b3 of that size, or keeping W1 from the first call of each shape, got a generic ``wrong-stage`` (the probes
come after the graded cases, so they are the calls that drift most).

Here the calls are read in the order they were made (``run.order``), with each repeated call (``run.again``). The
reading is taken only when a repeated call disagrees with its first call in its values and the run's very first
call is right: random numbers spoil the first call as much as any other, state kept from earlier calls cannot (there
were none). Then each drifting call is fitted, in turn, as the right logits times a factor of its own (a counter),
as the right logits plus a multiple of b3 (a bias accumulated), and as the head computed with one argument of an
earlier call of the same size (a weight kept by shape); what fits every drifting call is named. When nothing fits,
the calls that are right and the first that is not are still named, as state, rather than a stage, provided
the right calls all come before the first wrong one. A head that keeps a copy of an argument per shape answers a
repeated call as it did the first: there no call disagrees, and an exact fit of every drifting call to an earlier
call's argument is the only evidence taken (named ``stale-result``, an array kept from an earlier call).
"""
from __future__ import annotations

import numpy as np

from grader.authoring import Finding

from . import detectors as D
from . import search as Q
from . import stages as S
from .featurechanges import _head
from .kept import _where

ARGUMENTS = ("features", "W1", "b1", "W2", "b2", "W3", "b3")
ADVICE = ("Each call's answer must depend on its own inputs only: drop what the function keeps in globals, function "
          "attributes or default arguments between calls.")
RTOL = 1e-6  # a fitted factor or term must give the call's logits to this fraction of their largest magnitude


def kept_state(runs) -> Finding | None:
    """``nondeterministic`` saying what drifts from call to call (or ``stale-result`` for an argument kept from an
    earlier call, when every repeated call agreed with its first), or None when the calls show no state."""
    every = sorted((call for run in runs for call in (run, run.again) if call is not None and call.order is not None),
                   key=lambda call: call.order)  # every call made, in order: each may have changed the state
    calls = [call for call in every if S.usable(call) is not None]
    if not calls or not D._right(calls[0]):
        return None
    wrong = [call for call in calls if not D._right(call)]
    if not wrong:
        return None
    again = next((run for run in runs if _disagrees(run)), None)
    if again is None:  # no two calls on one input disagree: only an exact model of the drift says state
        said = _from_earlier(every, wrong)
        return None if said is None else Finding("stale-result", f"Your function keeps state between calls: {said}. "
                                                                 f"{ADVICE}")
    right = len(calls) - len(wrong)
    said = _counter(wrong) or _from_earlier(every, wrong)
    if said is None:
        first = wrong[0]
        if any(call.order > first.order for call in calls[:right]):
            return None  # right calls after a wrong one, and no model of the drift: too little to call it state
        said = (f"{f'the first {right} calls' if right > 1 else 'the first call'} in the order they were made "
                f"returned the right logits, and from call {first.order + 1} ({_where(first)}) on, {len(wrong)} "
                f"call{'s' if len(wrong) > 1 else ''} departed")
    return Finding("nondeterministic", f"Your function keeps state between calls: {said}. The second call on "
                                       f"{_where(again)}, with the same inputs as the first, returned other values. "
                                       f"{ADVICE}")


def _disagrees(run) -> bool:
    """The repeated call on this run's inputs returned values other than the first call's (of the same shape), by
    more than the tolerance a right answer gets: a head that sums in a random order (its hidden units shuffled)
    differs in the last bits from call to call, which the harness's ``deterministic`` check accepts. Read exactly,
    such a stateless head that divides its logits by the batch size was said to keep a counter."""
    first, again = S.usable(run), S.usable(run.again) if run.again is not None else None
    if first is None or again is None or np.array_equal(first, again, equal_nan=True):
        return False
    scale = float(np.abs(np.asarray(run.expected, dtype=np.float64)).max(initial=0.0)) + 1e-12
    with np.errstate(invalid="ignore", over="ignore"):
        return not bool(np.all((again == first) | (np.abs(again - first) <= Q.tolerance(first, scale))))


def _counter(wrong) -> str | None:
    """Every drifting call returned the right logits times a factor of its own (one per call): a counter."""
    factors = []
    for call in wrong:
        arr, expected = S.usable(call), np.asarray(call.expected, dtype=np.float64)
        norm = float(np.vdot(expected, expected))
        if not norm:
            return None
        factor = float(np.vdot(expected, arr)) / norm
        if not _fits(arr, factor * expected) or abs(factor - 1.0) < RTOL:
            return None
        factors.append(factor)
    if len(set(np.round(factors, 9))) < 2:
        return None  # one factor for every drifting call: a scale, not a count
    n = np.array([call.order + 1 for call in wrong], dtype=np.float64)
    shown = ", ".join(f"call {call.order + 1}: {f:.4g}" for call, f in list(zip(wrong, factors))[:3])
    if np.allclose(np.asarray(factors) * n, 1.0, rtol=1e-9):
        how = "divided by the number of calls made so far, the n-th call's logits 1/n of the right ones"
    elif np.allclose(np.asarray(factors), n, rtol=1e-9):
        how = "multiplied by the number of calls made so far, the n-th call's logits n times the right ones"
    else:
        how = "multiplied by a factor that changes from call to call"
    return (f"the first call returned the right logits and every later call that departs returned them {how} "
            f"({shown})")


def _from_earlier(every, wrong) -> str | None:
    """Every drifting call returned the head computed with one of its arguments replaced by what earlier calls of
    the same size passed: that argument of one earlier call (an array kept by shape, say), or the sum of it over
    every call so far (a bias accumulated in a global). Only arrays that differ from the call's own are tried."""
    found = []  # per drifting call: {how: (earlier, argument)} for each way that reproduces it
    for call in wrong:
        arr = S.usable(call)
        fits: dict = {}
        for p in range(len(ARGUMENTS)):
            for how, earlier, value in _states(every, call, p):
                if how not in fits and _computes(call, p, value, arr):
                    fits[how] = (earlier, p)
        if not fits:
            return None
        found.append((call, fits))
    # where earlier arrays were zero (the probes' biases) a sum equals one array kept: the way every call fits
    how = next((how for how in ("summed", "kept") if all(how in fits for _, fits in found)), None)
    if how is None:
        names = sorted({ARGUMENTS[p] for _, fits in found for _, p in fits.values()}, key=ARGUMENTS.index)
        return f"the calls that depart computed the head with {' and '.join(names)} of earlier calls of the same size"
    names = sorted({fits[how][1] for _, fits in found})
    names = [ARGUMENTS[p] for p in names]
    call, fits = found[0]
    earlier, p = fits[how]
    if how == "summed":
        return (f"{' and '.join(names)} {'is' if len(names) == 1 else 'are'} summed over the calls: each call "
                f"computed the head with the sum of the {ARGUMENTS[p]} of every call so far with a {ARGUMENTS[p]} of "
                f"its size in place of its own (on {_where(call)}, call {call.order + 1}, the sum over "
                f"{earlier} calls)")
    return (f"{' and '.join(names)} {'is' if len(names) == 1 else 'are'} kept from an earlier call of the same "
            f"size: on {_where(call)}, call {call.order + 1}, it computed the head with the {ARGUMENTS[p]} of "
            f"{_where(earlier)} (call {earlier.order + 1}) in place of its own")


def _states(every, call, p: int):
    """What argument ``p`` could hold after the calls before ``call``: ("summed", how many calls, the sum of that
    argument over the calls of its size so far, this one included), then ("kept", earlier run, its array) for each
    earlier call of that size whose array differs."""
    mine = call.case.args[p]
    if not isinstance(mine, np.ndarray):
        return
    same = [other for other in every if other.order <= call.order and isinstance(other.case.args[p], np.ndarray)
            and other.case.args[p].shape == mine.shape]
    if len(same) > 1:  # first: where every earlier array but one was zero, the sum is also that one kept
        yield "summed", len(same), np.sum([other.case.args[p] for other in same], axis=0)
    for earlier in same:
        if earlier.order < call.order and not np.array_equal(earlier.case.args[p], mine):
            yield "kept", earlier, earlier.case.args[p]


def _computes(call, p: int, value: np.ndarray, arr: np.ndarray) -> bool:
    """The head on the call's arguments, argument ``p`` replaced by ``value``, gives ``arr``."""
    args = list(call.case.args)
    args[p] = value
    with np.errstate(all="ignore"):
        model = _head(args, args[0].reshape(args[0].shape[0], -1))
    return model.shape == arr.shape and _fits(arr, model)


def _fits(arr: np.ndarray, model: np.ndarray) -> bool:
    scale = float(np.abs(model).max()) + 1e-12
    with np.errstate(invalid="ignore"):
        return bool(np.all(np.abs(arr - model) <= RTOL * scale))
