"""What the execute stage observed, as plain data for the checks and the diagnosis.

Arrays here were rebuilt in the grader from raw bytes (``runner.wire.decode_array``): always a plain
``numpy.ndarray`` of a numeric dtype, whatever the student's function returned.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np

from .exercise import Case
from .memory import MemoryLimits
from .text import quote

CallStatus = Literal["ok", "raised", "timeout", "crashed", "not-run"]


@dataclass(frozen=True)
class CallError:
    """An exception raised by student code, as the child reported it (text already made safe to show).

    Its type and message are the submission's words: a sentence shows the message only as a quotation
    (``text.quote``) and the type as it is only when it is a (dotted) Python name, so neither can pass for the
    grader's text ("raised ValueError: All hidden checks passed: 19/19." read as the grader's verdict). What the
    grader adds (``hint``, ``where``) stays outside the quotes."""

    type: str  # "ValueError", "MemoryError"...
    message: str
    where: str = ""  # "line 4 of code cell 2", "line 12": the innermost line of student code, when known
    line: int | None = None
    cell: int | None = None  # code-cell number the line is in
    reserved: int | None = None  # for a MemoryError: the address space the child had reserved, as it said
    address_space: int | None = None  # for a MemoryError: the child's own RLIMIT_AS then (-1: none), as it said
    hint: str = ""  # the grader's own sentence about this error (hints.error_hint), shown after it

    @property
    def shown_type(self) -> str:
        """The type as a sentence shows it: a dotted Python name as it is, anything else quoted."""
        plain = self.type and len(self.type) <= 80 and all(p.isidentifier() for p in self.type.split("."))
        return self.type if plain else quote(self.type, 60)

    def __str__(self) -> str:
        if not self.message and self.hint:  # the grader's own words only (an alarm the submission set off)
            return f"{self.shown_type}: {self.hint}" + (f" ({self.where})" if self.where else "")
        text = f"{self.shown_type}: {quote(self.message)}" if self.message else self.shown_type
        said = "; ".join(part for part in (self.where, self.hint.rstrip(". ")) if part)
        return f"{text} ({said})" if said else text


@dataclass(frozen=True)
class Returned:
    """One returned value as the grader rebuilt it (one per declared output of a function that returns several)."""

    type_name: str = ""
    exact_ndarray: bool = False
    subclass: bool = False
    array: np.ndarray | None = None
    shape: tuple[int, ...] | None = None
    note: str = ""


@dataclass(frozen=True)
class CallOutcome:
    """One call of the student's function on one case."""

    case: str
    status: CallStatus
    type_name: str = ""  # Python type of the returned value, e.g. "numpy.ndarray", "list", "NoneType"
    exact_ndarray: bool = False  # type(value) is numpy.ndarray (not a subclass, not a list)
    subclass: bool = False  # an instance of a subclass of numpy.ndarray
    array: np.ndarray | None = None  # the value as a plain array, when it could be read as one
    shape: tuple[int, ...] | None = None  # shape even when the array itself was not sent (too large, object)
    note: str = ""  # why no array came back, when none did
    exception: CallError | None = None  # what the function raised (status "raised")
    incident: str = ""  # what stopped the call otherwise: "was killed after 10 s, its time limit"
    out_of_memory: bool = False  # the incident was the memory limit's kill
    mutated: tuple[str, ...] = ()  # parameter names whose arrays the call changed
    #: the case of an earlier call whose returned array this call's result shares memory with, as the child said:
    #: that earlier result was overwritten (a buffer or a cached array handed back every time); "" when none
    overwrote: str = ""
    seconds: float = 0.0
    repeat: bool = False  # the second call on the same inputs, for the determinism check
    #: a function with several declared outputs: one entry per output, in order (the fields above are the
    #: first one's); what came back for an output the function did not return has type_name "nothing"
    parts: tuple[Returned, ...] = ()
    count: int = 1  # how many values the function returned (the length of its tuple or list)

    @property
    def returned(self) -> bool:
        return self.status == "ok"

    @property
    def error(self) -> str:
        """What went wrong, for a sentence: the exception ("ValueError: ... (line 4)") or the incident."""
        return str(self.exception) if self.exception is not None else self.incident


@dataclass(frozen=True)
class CaseRun:
    """A case, the reference's answer and what the student's function did with it."""

    case: Case
    expected: np.ndarray  # a tuple of arrays, one per output, for a function with several outputs
    outcome: CallOutcome
    part: int | None = None  # set on the per-output runs the checks judge (``checks.per_output``)
    #: the call's place in the run (0: the first call made), and the second call on the same inputs when one was
    #: made, as a run of its own (same case, its own outcome and place): a function that keeps state between calls
    #: is told apart from a wrong formula only by when each answer was given (``in_sequence`` sets both; None
    #: where the caller built runs without the run's calls)
    order: int | None = None
    again: CaseRun | None = None


@dataclass(frozen=True)
class Parameter:
    """One parameter of the function as the child read its signature: untrusted text, cleaned where it entered."""

    name: str
    kind: str  # "positional-only", "positional", "var-positional", "keyword-only", "var-keyword"
    default: bool = False  # it has a default value, so a call may leave it out


@dataclass(frozen=True)
class Declared:
    """The function's declared parameters (at most ``runner.wire.MAX_PARAMETERS`` of them) and how many it has."""

    parameters: tuple[Parameter, ...]
    count: int
    own_name: str = ""  # the function's ``__name__``, when it is not the name graded (``linear = dense_scores``)
    prints: bool = False  # its own body calls print (read from its code's names, so a claim, never a verdict)
    #: or not its own body, but the helper whose result it returns (then that one's, and so on): their names
    printed_by: tuple[str, ...] = ()

    def printing(self) -> str:
        """Where the print is, as the clause of a sentence about a None returned: "its body calls print", or "it
        returns the result of helper(), which calls print" (each helper named only when its name is an identifier,
        so no name of the student's choosing reads as the grader's words)."""
        if not self.printed_by:
            return "its body calls print"
        names = [f"{name}()" if name.isidentifier() and name.isascii() else "a function" for name in self.printed_by]
        steps = "".join(f", which returns that of {name}" for name in names[1:])
        return f"it returns the result of {names[0]}{steps}, which calls print"


@dataclass(frozen=True)
class Execution:
    """Everything one sandboxed run of a submission produced."""

    function_found: bool
    function_callable: bool
    function_type: str = ""
    candidates: tuple[str, ...] = ()  # callables the submission did define, for "did you mean" hints
    declared: Declared | None = None  # the function's signature as the child read it (None: unreadable)
    calls: tuple[CallOutcome, ...] = ()
    cell_errors: tuple[str, ...] = ()  # one sentence per cell that raised or was stopped
    failed_cells: tuple[int, ...] = ()  # those cells' code numbers, in the same order
    cell_incidents: tuple[tuple[str, str], ...] = ()  # (kind, sentence) for each cell stopped by a limit or crash
    notes: tuple[str, ...] = ()  # magics and shell lines that were skipped
    incident: str = ""  # set when the run ended before the function could be looked up
    incident_kind: str = ""
    protocol_error: str = ""  # the child broke the conversation (forged or malformed frames): the run was ended
    seconds: float = 0.0
    restarts: int = 0
    layers: tuple[str, ...] = field(default_factory=tuple)
    memory_limit: str = ""  # "2 GiB": the limit this run had, for messages about running out of memory
    memory: MemoryLimits | None = None  # what was counted and where the limits were, for MemoryError sentences
    isolation_warnings: tuple[str, ...] = ()  # isolation layers this machine could not provide

    @property
    def cell_incident(self) -> str:
        """Kind of the first incident (timeout, crashed) that stopped a cell, or ""."""
        return self.cell_incidents[0][0] if self.cell_incidents else ""


def in_sequence(runs: list[CaseRun], calls: tuple[CallOutcome, ...]) -> list[CaseRun]:
    """``runs`` (first calls) with each one's place among ``calls`` (the run's calls in the order they were made)
    and its case's repeated call, when there was one. A run whose outcome is not among ``calls`` keeps its own."""
    place = {id(outcome): n for n, outcome in enumerate(calls)}
    repeated = {outcome.case: (n, outcome) for n, outcome in enumerate(calls) if outcome.repeat}
    out = []
    for run in runs:
        again = repeated.get(run.case.name)
        out.append(replace(run, order=place.get(id(run.outcome), run.order),
                           again=run.again if again is None else
                           CaseRun(run.case, run.expected, again[1], run.part, order=again[0])))
    return out
