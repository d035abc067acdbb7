"""Features centred by a running mean kept between calls (``nondeterministic`` saying so): a global, kept per feature
shape, updated on every call with the batch's mean (``mu = 0.9 * mu + 0.1 * features.mean(axis=0)``, a cumulative
mean of the calls so far, or the first batch's mean kept), then subtracted from the features before the flatten.

``stateful.kept_state`` reads state only when the very first call is right, since random numbers spoil every call
and state cannot spoil the first; a running mean spoils the first call too (it already holds part of that batch's
mean), so rounds fourteen and sixteen got ``nondeterministic`` beside a generic ``wrong-stage``. Here the calls
are replayed in the order they were made under each usual update rule, and one is named only when it gives every
call's logits and a repeated call disagreed with its first.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from grader.authoring import Finding

from . import stages as S
from .featurechanges import _head
from .kept import _where
from .stateful import ADVICE, _disagrees, _fits

Update = Callable[[np.ndarray | None, np.ndarray, int], np.ndarray]


def _ema(momentum: float, from_zero: bool) -> Update:
    def update(mu, mean, n):
        if mu is None:
            return (1 - momentum) * mean if from_zero else mean
        return momentum * mu + (1 - momentum) * mean
    return update


def _cumulative(mu, mean, n):
    return mean if mu is None else mu + (mean - mu) / n


def _first(mu, mean, n):
    return mean if mu is None else mu


MOMENTA = (0.9, 0.99, 0.5, 0.1, 0.999)
#: (how the kept mean is updated, the rule); the mean is the batch's mean over its samples, one per feature
RULES: tuple[tuple[str, Update], ...] = tuple(
    (f"an exponential moving average, mu = {m:g} * mu + {1 - m:.4g} * features.mean(axis=0), starting from "
     f"{'0' if zero else 'the first batch mean'}", _ema(m, zero))
    for m in MOMENTA for zero in (True, False)) + (
    ("the mean of the batch means of every call so far", _cumulative),
    ("the first batch's mean, kept for every later call", _first),
)


def _replays(calls, means: list, outputs: list, update: Update, per_shape: bool) -> bool | None:
    """Every call's logits are the head's on its features minus the kept mean, updated with that call first (kept
    per feature shape, or in one slot started afresh when the shape changes). None when they are, but the kept mean
    was each call's own batch mean every time: features centred over their batch, with no state at all.
    ``means`` and ``outputs``: each call's batch mean and usable output, read once for all 24 replays."""
    kept: dict[tuple, tuple[np.ndarray, int]] = {}
    stateful, fitted = False, 0
    for call, mean, arr in zip(calls, means, outputs):
        f = call.case.args[0]
        if not per_shape and f.shape[1:] not in kept:
            kept.clear()
        mu, n = kept.get(f.shape[1:], (None, 0))
        mu = update(mu, mean, n + 1)
        kept[f.shape[1:]] = (mu, n + 1)
        if arr is None:
            continue
        stateful = stateful or not np.allclose(mu, mean, rtol=1e-12, atol=1e-12)
        x = (f - mu).reshape(f.shape[0], -1)
        with np.errstate(all="ignore"):
            model = _head(call.case.args, x)
        if model.shape != arr.shape or not _fits(arr, model):
            return False
        fitted += 1
    return (True if stateful else None) if fitted >= 3 else False


def _first_call_fits(first, mean: np.ndarray, arr: np.ndarray | None) -> bool:
    """Whether the first call's logits (``arr``) can be the head's on its features minus a rule's first kept mean:
    every rule starts from the batch mean itself or from it times 1 - momentum, so six products of the head decide
    what the 24 replays below would each find at their first call (the diagnosis of a wrong head that keeps no mean
    spent a quarter of its time replaying). True when the first call has no usable output: the replays decide."""
    if arr is None:
        return True
    f = first.case.args[0]
    for factor in (1.0, *(1 - m for m in MOMENTA)):
        mu = mean if factor == 1.0 else factor * mean
        with np.errstate(all="ignore"):
            model = _head(first.case.args, (f - mu).reshape(f.shape[0], -1))
        if model.shape == arr.shape and _fits(arr, model):
            return True
    return False


def running_mean(runs) -> Finding | None:
    """``nondeterministic`` (``stale-result`` when no repeated call disagreed with its first) naming the running mean
    that every call's logits were computed with, or None."""
    every = sorted((call for run in runs for call in (run, run.again) if call is not None and call.order is not None),
                   key=lambda call: call.order)
    if any(c.case.group == "full-scale" for c in every):
        every = [c for c in every if c.case.group != "full-scale"]  # one call of its shape: it changes no other
    if len(every) < 3 or not all(isinstance(c.case.args[0], np.ndarray) for c in every):
        return None
    outputs = [S.usable(c) for c in every]
    if sum(a is not None for a in outputs) < 3:  # a replay names a rule only from three fitted calls
        return None
    means = [c.case.args[0].mean(axis=0) for c in every]
    if not _first_call_fits(every[0], means[0], outputs[0]):
        return None
    again = next((run for run in runs if _disagrees(run)), None)
    for per_shape in (True, False):
        for how, update in RULES:
            if not _replays(every, means, outputs, update, per_shape):
                continue
            where = ("kept for each feature shape" if per_shape else
                     "kept in one variable, started again whenever the features' shape changes")
            first = every[0]
            text = (f"Your function keeps state between calls: a mean of the features {where}, {how}, and "
                    f"subtracted from the features before FC1. Every call's logits are the head's on its features "
                    f"minus that mean, the first call's ({_where(first)}) included")
            text += (f", and the second call on {_where(again)}, with the same inputs as the first, returned other "
                     f"values." if again is not None else ".")
            return Finding("nondeterministic" if again is not None else "stale-result",
                           f"{text} The features go into FC1 as they are passed, with nothing subtracted. {ADVICE}")
    return None
