"""What one session's diagnoses share: the square probes stacked once, each variant's output on them computed once
(``_stack``), and the probes' part of the analysis kept per distinct set of probe outputs (``_MEMO``, filled by
``probework._probe_work``). A class's correct submissions all return the same probe outputs, and so do many with
the same mistake, so most submissions skip the search.

Entries are keyed by the identities of the session's case objects, which each entry keeps alive so that no other
object takes their ids; outputs too large to key (a hostile or broken result) are never kept.
"""
from __future__ import annotations

import threading
from dataclasses import fields, is_dataclass
from typing import TYPE_CHECKING

import numpy as np

from grader.authoring import CallOutcome

from . import variants as V

if TYPE_CHECKING:
    from .probework import _Probes


class _SharedStack(V.Stack):
    """The probes stacked once per session (their cases are the same objects for every student), each variant's
    output on them computed once: every search starts from the same variants, and a class's searches share most of
    the rest. The outputs are kept read-only, as every reader only reads them."""

    def __init__(self, cases) -> None:
        super().__init__(cases)
        self.outputs: dict = {}  # spec -> its output, or None when its shapes do not fit

    def forward(self, spec) -> np.ndarray:
        try:
            out = self.outputs[spec]
        except KeyError:
            try:
                out = super().forward(spec)
                out.flags.writeable = False
            except (ValueError, KeyError):
                out = None
            if len(self.outputs) < _STACK_OUTPUTS:
                self.outputs[spec] = out
        if out is None:
            raise ValueError("the variant's shapes do not fit the probes")
        return out


_STACKS: dict[tuple, tuple[_SharedStack, list]] = {}
_STACK_OUTPUTS = 2048  # about 6 MB of outputs at most, per stack (a search tries 400 variants at most)
_STACK_ENTRIES = 2


def _stack(square: list) -> V.Stack:
    """The stack of these probe cases, shared while they are the same objects (a session's probes)."""
    key = tuple(id(r.case) for r in square)
    with _MEMO_LOCK:
        found = _STACKS.get(key)
    if found is not None:
        return found[0]
    stack = _SharedStack([r.case.args for r in square])
    with _MEMO_LOCK:
        if len(_STACKS) >= _STACK_ENTRIES:
            del _STACKS[next(iter(_STACKS))]
        _STACKS[key] = (stack, [r.case for r in square])  # the cases kept alive with it: their ids stay theirs
    return stack


#: probe outputs (as ``_outcome_key`` reads them) -> ``_Probes``: a class's correct submissions all return the
#: same probe outputs (short dyadic numbers, computed exactly), and so do many with the same mistake
_MEMO: dict[tuple, tuple[_Probes, list]] = {}
_MEMO_ENTRIES = 64
_MEMO_BYTES = 1 << 16  # probe outputs larger than this (a hostile or broken result) are not kept
_MEMO_LOCK = threading.Lock()
_OUTCOME_FIELDS = tuple(f.name for f in fields(CallOutcome) if f.name != "seconds")  # the time is never read


def _probes_key(probes: list) -> tuple | None:
    """Everything the probes' part reads from the runs, as a hashable key (None when an output is too large)."""
    budget = [_MEMO_BYTES]
    try:
        return tuple((id(r.case), id(r.expected), r.part, _outcome_key(r.outcome, budget)) for r in probes)
    except _TooLarge:
        return None


class _TooLarge(Exception):
    pass


def _outcome_key(outcome, budget: list) -> tuple:
    key = []
    for name in _OUTCOME_FIELDS:
        value = getattr(outcome, name)
        kind = type(value)
        if kind in _PLAIN or (kind is tuple and all(type(v) in _PLAIN for v in value)):
            key.append(value)
        else:
            key.append(_value_key(value, budget))
    return tuple(key)


_PLAIN = frozenset((str, bool, int, float, type(None)))


def _value_key(value, budget: list):
    if isinstance(value, np.ndarray):
        budget[0] -= value.nbytes
        if budget[0] < 0:
            raise _TooLarge()
        return ("array", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, tuple):  # a shape, names, returned parts
        return tuple(v if type(v) in _PLAIN else _value_key(v, budget) for v in value)
    if is_dataclass(value):  # a returned part, an error
        return (type(value).__name__, *(_value_key(getattr(value, f.name), budget) for f in fields(value)))
    return value


#: (id of a case, variant) -> (the variant's output on that case alone, the case): the graded cases are the same
#: objects for every student of a session, and ``detectors.verify`` and ``detectors.reduced_precision`` both need
#: the found variant's output on each, as do other submissions with the same mistake
_CASE_OUTPUTS: dict[tuple, tuple[np.ndarray | None, object]] = {}
_CASE_OUTPUT_ENTRIES = 512
_CASE_OUTPUT_BYTES = 1 << 15  # outputs larger than this are computed again rather than kept


def case_output(case, spec) -> np.ndarray:
    """The variant's output on this one case, (B, K), read-only; raises ValueError or KeyError as
    ``variants.Stack.forward`` does when its shapes do not fit. Call under ``np.errstate(all="ignore")``."""
    key = (id(case), spec)
    with _MEMO_LOCK:
        found = _CASE_OUTPUTS.get(key)
    if found is not None and found[1] is case:
        if found[0] is None:
            raise ValueError("the variant's shapes do not fit the case")
        return found[0]
    try:
        out = V.Stack([case.args]).forward(spec)[0]
        out.flags.writeable = False
    except (ValueError, KeyError):
        out = None
    if out is None or out.nbytes <= _CASE_OUTPUT_BYTES:
        with _MEMO_LOCK:
            if len(_CASE_OUTPUTS) >= _CASE_OUTPUT_ENTRIES:
                del _CASE_OUTPUTS[next(iter(_CASE_OUTPUTS))]
            _CASE_OUTPUTS[key] = (out, case)  # the case kept alive with it: its id stays its own
    if out is None:
        raise ValueError("the variant's shapes do not fit the case")
    return out
