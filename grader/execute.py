"""Run a submission's cells and calls in a sandboxed child; the parent drives and judges every step.

The parent owns the conversation. It sends commands (a cell, the function lookup, a call) and accepts only the
answer to the oldest command not yet answered: a frame of another kind or for another step ends the run as a
protocol error of the submission, whose code shares the child's process and could have written it. Cells and
lookups go one at a time; a function's calls are sent ahead, so the child goes from one to the next without
waiting for the parent (a round trip per call cost both sides a wake-up), and the parent still takes their answers
one by one, in order. Each step's deadline is fixed when the child can start it (when it is sent, or for a call sent
ahead, when the answer before it is accepted) and never moves. Inputs of a call sit in memory the parent shares
with the child and reads back after the answer, so "the inputs were left unmodified" is the parent's observation,
not the child's claim; every other verdict is made later, in ``checks``, from bytes decoded here.

Two kinds of time limit. The child stops a cell or call itself when its time is up (an alarm, as Jupyter's
interrupt would) and answers; the parent's hard deadline (the soft limit plus a grace) is behind that. When a
cell or call outlives its hard deadline, floods the output or kills its process, the child is killed and started
again without that cell, or from the next call, so one bad cell or case never costs the rest of the grade.
"""
from __future__ import annotations

import json
import mmap
import os
import re
import subprocess
import tempfile
import time
from collections import deque
from pathlib import Path

import numpy as np

from . import answers, calls as plans, incidents, notes, waits
from .calls import Call, Target
from .channel import Channel, ChildEnded, DeadlinePassed, Frame, ProtocolError
from .exercise import Case
from .filememory import FileMemory
from .incidents import Incident
from .largecase import SharedArrays
from .outcomes import CallOutcome, Execution, Returned
from .runner import wire
from .sandbox import MIB, Launched, Sandbox
from .submission import Submission
from .text import clean

__all__ = ["Target", "Call", "run", "run_many", "Run"]  # Target and Call live in ``calls``, the plan

STARTUP_SECONDS = 20.0
#: the parent kills a cell or call only if the child's own alarm did not stop it within this grace
GRACE_SECONDS = 2.0
#: the grace left once a cell or call of the run went past it: its code blocks or catches the alarm (or sleeps in a
#: ``__del__``, which swallows it), and each later step would earn the full grace again before being killed
GRACE_AFTER_IGNORED = 0.25
MAX_RESTARTS = 8  # per function called: an assignment's run may restart for each of its exercises
#: calls of one function in a row that end this way before its remaining calls are skipped
MAX_IN_A_ROW = {"timeout": 2, "crashed": 3}
MAX_NOTES = 30
#: a name of IPython's history (``_``, ``__``, ``___``, ``_5``, ``_i``, ``_i5``, ``In``, ``Out``): a notebook that
#: reads one gets the history kept as the kernel keeps it (the child then parses each cell to find its last value)
HISTORY_NAME = re.compile(r"(?<![\w.])(?:_{1,3}|_i{1,3}|_i?\d+|In|Out)(?!\w)")
#: calls of one function sent ahead of their answers, at most
AHEAD = 32


class _Restart(Exception):
    """A function's calls were cut short while later ones waited in the child's queue: only a new child drops them."""


def run(submission: Submission, function: str, parameters: tuple[str, ...], cases: list[Case], sandbox: Sandbox,
        shared: SharedArrays | None = None, repeat: tuple[int, ...] = (), expected: list[np.ndarray] | None = None,
        outputs: tuple[str, ...] = ()) -> Execution:
    """Execute ``submission`` and call ``function`` once per case, plus once more for each index in ``repeat``.

    ``expected`` (the reference's answers, same order as ``cases``) sizes what a result may weigh; its values
    never leave the grader.
    """
    target = Target(function, tuple(parameters), cases, repeat, expected, tuple(outputs), shared)
    return Run(submission, [target], sandbox).execute()[0]


def run_many(submission: Submission, targets: list[Target], sandbox: Sandbox) -> list[Execution]:
    """Execute ``submission`` once and call each target's function on its cases; one ``Execution`` per target.

    A target whose function is missing, or whose calls time out in a row, costs only its own calls."""
    return Run(submission, targets, sandbox).execute()


class Run:
    """One submission's run across restarts: what to send next, what came back, what went wrong."""

    def __init__(self, submission: Submission, targets: list[Target], sandbox: Sandbox) -> None:
        self.submission: Submission = submission
        self.targets = list(targets)
        self.sandbox: Sandbox = sandbox
        self.limits = sandbox.limits
        self.shared_files = [t.shared for t in self.targets if t.shared is not None]
        self.calls, size = self._plan()
        self.memory, self.memory_fd = _shared_memory(size)
        self.cells = [c for c in submission.cells if c.syntax_error is None and not _blank(c.source)]
        self.skip_cells: set[int] = set()
        self.next_call = 0
        self.outcomes: dict[int, CallOutcome] = {}
        self.answered: dict[int, Call] = {}  # the current child's answered calls, by step
        self.occupants: dict[int, Call] = {}  # place in the shared memory -> the answered call whose inputs are there
        self.cell_errors: dict[int, str] = {}
        self.cell_incidents: list[tuple[str, str]] = []
        self.notes: dict[str, None] = {}
        self.found: dict[int, dict] = {}  # target -> what the lookup said
        self.incident = self.incident_kind = self.protocol_error = ""
        self.cut: dict[int, str] = {}  # target -> why its remaining calls were not made
        self.skipped: dict[int, str] = {}  # call -> why it was not made (its group's calls crashed in a row)
        self.streak, self.flood_noted = ("", 0), False  # calls of one target ending alike in a row; output flood
        self.seq, self.deadline, self.latest = 0, 0.0, 0.0  # latest: where waits for a core may move the deadline
        self.grace = GRACE_SECONDS  # cut to GRACE_AFTER_IGNORED once a step outlived it
        self.handlers = {"note": self._on_note}

    # -- planning ---------------------------------------------------------------------------------------------
    def _plan(self) -> tuple[list[Call], int]:
        return plans.plan(self.targets, self.sandbox.visible_path, self.limits.call_seconds)

    def _case(self, call: Call) -> Case:
        return self.targets[call.target].cases[call.case]

    # -- the run ----------------------------------------------------------------------------------------------
    def execute(self) -> list[Execution]:
        started = time.monotonic()
        limit = self.limits.submission_seconds
        self.deadline, self.latest = started + limit, started + (1 + waits.MOST) * limit
        restarts = 0
        try:
            while True:
                try:
                    self._attempt()
                    break
                except (Incident, _Restart) as stop:  # a new child, from where this one stopped
                    recovered = not isinstance(stop, Incident) or self._recover(stop)
                    if not recovered or restarts >= MAX_RESTARTS * len(self.targets):  # the calls left say why:
                        restarted = incidents.RESTARTS.format(restarts) if recovered else ""
                        self.incident = self.incident or restarted  # not "the grading time ran out first" after 2 s
                        break
                    if time.monotonic() >= self.deadline:
                        self.incident_kind, self.incident = "timeout", self._submission_timeout()
                        break
                    restarts += 1
                except ProtocolError as exc:
                    # the reason may quote what the child sent (a dtype's name, a shape): cleaned and bounded
                    self.protocol_error = (f"The submission wrote on the grader's result channel ({clean(exc, 200)}); "
                                           "the run was stopped there. Student code must not write to file descriptors "
                                           "it did not open.")
                    break
        finally:
            if self.memory is not None:
                self.memory.close()
                os.close(self.memory_fd)
        return self._execution(time.monotonic() - started, restarts)

    def _readable(self) -> tuple[Path, ...]:
        return tuple(path for shared in self.shared_files for path in shared.paths.values())

    def _readable_bytes(self) -> int:
        return sum(shared.nbytes for shared in self.shared_files)

    def _submission_timeout(self) -> str:
        return incidents.submission_timeout(self.limits.submission_seconds)

    def _attempt(self) -> None:
        inherit = (self.memory_fd,) if self.memory is not None else ()
        readable = self._readable()
        launched = self.sandbox.spawn(readable, inherit)
        self.waits = waits.Waits(self.sandbox.mode, launched.process.pid)
        if launched.degraded:
            self.notes.setdefault(launched.degraded)
        channel = Channel(launched, self.limits.output_mib * MIB)
        try:
            self._converse(channel, launched)
        finally:
            channel.close()
            self.sandbox.kill(launched)
            for start in list(self.occupants):  # the child is gone: nothing writes the inputs any more
                self._written_later(start)

    def _converse(self, channel: Channel, launched: Launched) -> None:
        self.seq = 0
        self.answered = {}  # a new child's steps start again: what its ``overwrites`` may name
        channel.send(self._setup())
        self._await(channel, launched, "ready", None, self._deadline(STARTUP_SECONDS - self.grace),
                    seconds=STARTUP_SECONDS)
        for cell in self.cells:
            if cell.code_number in self.skip_cells:
                continue
            where = ("cell", cell.code_number, cell.label)
            number = cell.code_number
            sent = time.monotonic()
            reply = self._step(channel, launched, "cell-done", where, self.limits.cell_seconds,
                               f'{{"t":"cell","number":{number},"filename":"<cell {number}>",'
                               f'"source":{json.dumps(cell.source)}}}')
            self._on_cell_done(cell.code_number, cell.label, reply.message, time.monotonic() - sent)
        for t, target in enumerate(self.targets):
            reply = self._step(channel, launched, "function", None, STARTUP_SECONDS,
                               f'{{"t":"lookup","name":{json.dumps(target.function)}}}')
            self.found[t] = answers.function_info(reply.message)
        if self._calls(channel, launched):
            channel.send({"t": "end"})

    def _calls(self, channel: Channel, launched: Launched) -> bool:
        """Make the calls from ``next_call`` on; False when the run stops before its last call.

        A function's calls are queued in the child ahead of their answers (up to ``AHEAD``), each with its inputs
        written first; the next function's wait until this one's are answered, since a cut may stop them. Each
        answer is awaited alone, in order, before a deadline that starts when the child can start its call: when
        the answer before it was accepted, or when it was sent. A cut while calls are still queued needs a new
        child (``_Restart``) when other calls remain."""
        queue: deque[tuple[Call, int]] = deque()  # (call, step) sent and not answered yet, oldest first
        queued, started = self.next_call, 0.0
        while True:
            while queued < len(self.calls) and len(queue) < AHEAD:
                call = self.calls[queued]
                if queue and call.target != queue[0][0].target:
                    break
                if call.inputs and any(w.inputs and w.start == call.start for w, _ in queue):
                    break  # its place holds a queued call's inputs (a twin case's): written once that one is answered
                queued += 1
                if not self.found[call.target]["callable"] or call.target in self.cut or call.id in self.skipped:
                    continue
                self._written_later(call.start)
                plans.write_inputs(self.memory, call)
                self.seq += 1
                channel.send(plans.numbered(call.command, self.seq))
                if not queue:
                    started = time.monotonic()
                queue.append((call, self.seq))
            if not queue:
                return True
            call, seq = queue.popleft()
            where = ("call", call.id, self._case(call).name)
            deadline = min(started + call.seconds + self.grace, self.deadline)
            reply = self._await(channel, launched, "result", where, deadline, call.max_bytes, call.seconds, seq)
            answered = time.monotonic()
            outcome = self._outcome(call, reply, answered - started)
            self.answered[seq] = call
            started = answered
            more = self._record(call, outcome)
            if call.inputs:
                self.occupants[call.start] = call
            if call.target in self.cut and queue:  # the cut function's later calls are queued in the child
                if more:
                    raise _Restart()
                return False
            if not more:
                return False

    def _setup(self) -> dict:
        readable_bytes = self._readable_bytes()
        return {
            "t": "setup",
            "run_name": self.submission.run_name,
            "source": "ipynb" if self.submission.is_notebook else "py",
            "history": self.submission.is_notebook and any(HISTORY_NAME.search(c.source) for c in self.cells),
            "paths": [self.sandbox.numpy_path_in_child],
            "inputs_fd": self.memory_fd, "inputs_size": len(self.memory) if self.memory is not None else 0,
            "soft_limits": {"cell_seconds": self.limits.cell_seconds, "call_seconds": self.limits.call_seconds,
                            "wait_most": waits.MOST, "grace": GRACE_SECONDS,  # the child's alarm grants as we do
                            "output_bytes": self.limits.output_mib * MIB},  # what a %%capture cell may keep
            "confine": self.sandbox.confine_settings(readable_bytes, self._readable()),
        }

    # -- one step: send, then accept only its answer before its deadline ------------------------------------
    def _step(self, channel, launched, kind, where, seconds, command: str, max_payload: int = 0) -> Frame:
        """``command``: the command's JSON (planned, or made here with ``json.dumps`` for its strings)."""
        self.seq += 1
        deadline = self._deadline(seconds)
        channel.send(plans.numbered(command, self.seq))
        return self._await(channel, launched, kind, where, deadline, max_payload, seconds)

    def _deadline(self, seconds: float) -> float:
        """A step's hard deadline, fixed when it is sent: its soft limit plus the grace, within the submission's."""
        return min(time.monotonic() + seconds + self.grace, self.deadline)

    def _await(self, channel, launched, kind, where, deadline, max_payload: int = 0, seconds: float = 0.0,
               seq: int | None = None) -> Frame:
        """The answer of kind ``kind`` to step ``seq`` (the last one sent, by default), before ``deadline``."""
        seq = self.seq if seq is None else seq
        sent = time.monotonic()
        allowance, given = deadline - sent, 0.0
        while True:
            try:
                frame = channel.receive(deadline, max_payload)
            except DeadlinePassed:
                more = self.waits.grant(allowance, given, self.latest - self.deadline)  # its waits for a core
                if more:
                    deadline, given, self.deadline = deadline + more, given + more, self.deadline + more
                    continue
                self._check_flood(channel, where)
                if deadline >= self.deadline:
                    raise Incident("timeout", self._submission_timeout(), where, time.monotonic() - sent) from None
                text = incidents.limit_text(where, seconds)
                if where is not None and seconds:  # its alarm did not stop it: no full grace for the later steps
                    text = incidents.past_grace(text, where, self.grace)
                    self.grace = min(self.grace, GRACE_AFTER_IGNORED)
                raise Incident("timeout", text, where, time.monotonic() - sent) from None
            except ChildEnded:
                self._check_flood(channel, where)
                try:  # bounded: a child that closed its channel and lives on would otherwise hold this for good
                    code = launched.process.wait(timeout=GRACE_SECONDS)
                except subprocess.TimeoutExpired:
                    raise ProtocolError("it closed the channel and went on running") from None
                if code == wire.RUNNER_BROKEN:
                    raise Incident("crashed", incidents.BROKEN, where, time.monotonic() - sent) from None
                report = self.sandbox.exit_report(launched, code)  # before the kill: it reads the run's cgroup
                raise Incident("crashed", report.sentence, where, time.monotonic() - sent,
                               memory=report.kind == "out-of-memory") from None
            self._check_flood(channel, where)
            got = frame.message.get("t")
            if got in self.handlers:
                self.handlers[got](frame.message)
                continue
            if got != kind or frame.message.get("seq") != seq:
                raise ProtocolError(f"an answer '{clean(got, 40)}' for step {clean(frame.message.get('seq'), 20)} "
                                    f"came while the grader waited for '{kind}' of step {seq}")
            return frame

    # -- what came back -------------------------------------------------------------------------------------
    def _check_flood(self, channel: Channel, where: tuple | None) -> None:
        """Say once that the output went past its allowance, naming the first cell or case that did it."""
        if not channel.flooded or self.flood_noted:
            return
        self.flood_noted = True
        self.notes.setdefault(incidents.flood(where, self.limits.output_mib))

    def _on_note(self, message: dict) -> None:
        if (text := notes.sentence(message)) and len(self.notes) < MAX_NOTES:  # the grader's sentence, never the note's
            self.notes.setdefault(text)

    def _on_cell_done(self, number: int, label: str, message: dict, seconds: float) -> None:
        """A cell that raised, or that its alarm stopped: told as the call's are, and one stopped long before its
        limit (the submission's own timer set the alarm off) as an error it raised, not as a time limit."""
        timed_out = message.get("timed_out") is True
        error = answers.call_error(message.get("error"), self.submission) if message.get("error") is not None else None
        if timed_out and (early := answers.early_alarm(seconds, self.limits.cell_seconds,
                                                       "the cell" if self.submission.has_cells else "its code")):
            timed_out, error = False, early
        if number in self.cell_errors or not (timed_out or error) or incidents.clean_exit(self.submission, number, error):
            return
        cell = self.submission.cell(number)
        sentence = incidents.cell_error(self.submission, label, error, timed_out, self.limits.cell_seconds,
                                        last=number == max(c.code_number for c in self.submission.cells),
                                        expected=cell is not None and cell.raises_tagged)
        self.cell_errors[number] = sentence
        if timed_out:
            self.cell_incidents.append(("timeout", sentence))
            self.skip_cells.add(number)  # a restart does not replay it: its time is not charged twice

    def _outcome(self, call: Call, reply: Frame, seconds: float) -> CallOutcome:
        message, body = reply.message, reply.payload
        case = self._case(call).name
        outputs = self.targets[call.target].outputs
        status = message.get("status")
        earlier = answers.earlier_call(message, self.answered, call.target)
        overwrote = self._case(self.answered[earlier]).name if earlier is not None else ""
        mutated = plans.mutated(self.memory, call, self.targets[call.target].parameters, message.get("reshaped"))
        early = answers.early_alarm(seconds, call.seconds) if status == "timeout" else None
        if status == "timeout" and early is None:
            return CallOutcome(case=case, status="timeout", repeat=call.repeat, seconds=seconds, mutated=mutated,
                               incident=incidents.limit_text(("call",), call.seconds))
        if status in ("raised", "timeout"):
            return CallOutcome(case=case, status="raised", repeat=call.repeat, seconds=seconds, mutated=mutated,
                               exception=early or answers.call_error(message.get("error"), self.submission))
        if status != "ok":
            raise ProtocolError("a result with an unknown status")
        specs = message.get("parts")
        if not isinstance(specs, list) or not 1 <= len(specs) <= max(1, len(outputs)):
            raise ProtocolError("a result without a valid list of returned values")
        count = message.get("count", 1)
        if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count < 2**40:
            raise ProtocolError("a result whose count is not a number")
        parts, used = [], 0
        for spec in specs:
            part, used = answers.returned(spec, body, used, call.max_bytes, call.expect)
            parts.append(part)
        if used != len(body):
            raise ProtocolError("bytes sent without an array description")
        if len(outputs) > 1:
            missing = (Returned(type_name="NoneType") if parts[0].type_name == "NoneType" and count == 1 else
                       Returned(type_name="nothing", note=f"the function returned {count} value"
                                f"{'s' if count != 1 else ''} where {len(outputs)} were expected"))
            parts += [missing] * (len(outputs) - len(parts))
        first = parts[0]
        return CallOutcome(
            case=case, status="ok", type_name=first.type_name, exact_ndarray=first.exact_ndarray,
            subclass=first.subclass, array=first.array, shape=first.shape, note=first.note, mutated=mutated,
            overwrote=overwrote, seconds=seconds, repeat=call.repeat, parts=tuple(parts) if len(outputs) > 1 else (),
            count=count,
        )

    def _written_later(self, start: int) -> None:
        """Compare the inputs of the answered call at place ``start`` again (``plans.written_later``)."""
        call = self.occupants.pop(start, None)
        outcome = self.outcomes.get(call.id) if call is not None and self.memory is not None else None
        if outcome is not None:
            self.outcomes[call.id] = plans.written_later(self.memory, call, self.targets[call.target], outcome)

    def _record(self, call: Call, outcome: CallOutcome) -> bool:
        """Keep a call's outcome; return whether the next call should run. After ``MAX_IN_A_ROW`` timeouts (or
        crashes) in a row, the target's remaining calls are not made; the next target's calls still are. Up to twice
        that many crashes skip only their group's calls (ending the process for B = 1 cost every later case)."""
        self.outcomes[call.id] = outcome
        self.next_call = call.id + 1
        same = call.id and self.calls[call.id - 1].target == call.target and self.streak[0] == outcome.status
        self.streak = (outcome.status, self.streak[1] + 1 if same else 1)
        limit = MAX_IN_A_ROW.get(outcome.status)
        if limit and self.streak[1] >= limit:
            how = "ran out of time" if outcome.status == "timeout" else "crashed"
            if how == "crashed" and self.streak[1] < 2 * limit:
                group = self._case(call).group
                self.skipped.update({c.id: f"{limit} calls in a row crashed" for c in self.calls[call.id + 1:]
                                     if c.target == call.target and self._case(c).group == group})
                return True
            self.cut[call.target], self.streak = f"{limit} calls in a row {how}", ("", 0)
            self.next_call = next((c.id for c in self.calls[call.id:] if c.target != call.target), len(self.calls))
            if self.next_call >= len(self.calls):
                return False
        return True

    def _recover(self, incident: Incident) -> bool:
        """Record the incident where it happened; return whether a restart can make progress."""
        where = incident.where
        if where is None:
            self.incident_kind, self.incident = incident.kind, incident.message
            return False
        if where[0] == "cell":
            _, number, label = where
            self.skip_cells.add(number)
            sentence = incidents.cell_stopped(label, incident.message)
            self.cell_errors.setdefault(number, sentence)
            self.cell_incidents.append((incident.kind, sentence))
            return True
        call = self.calls[where[1]]
        status = "timeout" if incident.kind == "timeout" else "crashed"
        outcome = CallOutcome(case=self._case(call).name, status=status, incident=incident.message,  # type: ignore[arg-type]
                              out_of_memory=incident.memory, repeat=call.repeat, seconds=incident.seconds)
        return self._record(call, outcome) and self.next_call < len(self.calls)

    def _execution(self, seconds: float, restarts: int) -> list[Execution]:
        for call in self.calls:
            if call.id in self.outcomes or not self.found.get(call.target, {"callable": True})["callable"]:
                continue
            self.outcomes[call.id] = CallOutcome(
                case=self._case(call).name, status="not-run", repeat=call.repeat,
                incident=(self.skipped.get(call.id) or self.cut.get(call.target) or self.incident
                          or self.protocol_error or "the grading time for this submission ran out first"))
        memory = self.sandbox.memory_limits(self._readable_bytes())
        executions = []
        for t in range(len(self.targets)):
            info = self.found.get(t)
            executions.append(Execution(
                function_found=bool(info and info.get("found")),
                function_callable=bool(info and info.get("callable")) and not self.protocol_error,
                function_type=info.get("type", "") if info else "",
                candidates=tuple(info.get("candidates", ())) if info else (),
                declared=info.get("declared") if info else None,
                calls=tuple(self.outcomes[c.id] for c in self.calls if c.target == t and c.id in self.outcomes),
                cell_errors=tuple(self.cell_errors[n] for n in sorted(self.cell_errors)),
                failed_cells=tuple(sorted(self.cell_errors)),
                cell_incidents=tuple(self.cell_incidents),
                notes=tuple(self.notes),
                incident=self.incident if info is None else "",
                incident_kind=self.incident_kind if info is None else "",
                protocol_error=self.protocol_error,
                seconds=seconds,
                restarts=restarts,
                layers=self.sandbox.layers,
                memory_limit=self.limits.describe_memory(),
                memory=memory,
                isolation_warnings=tuple(self.sandbox.warnings),
            ))
        return executions


def _blank(source: str) -> bool:
    """A cell with nothing to run (blank lines and comments only): not sent, so it costs no round trip."""
    return all(not line.strip() or line.lstrip().startswith("#") for line in source.splitlines())


def _shared_memory(size: int) -> tuple[mmap.mmap | FileMemory | None, int]:
    """Memory both processes map: the parent writes each call's inputs there and reads them back after it."""
    if size == 0:
        return None, -1
    if not hasattr(os, "memfd_create"):  # macOS: an unlinked temporary file does the same, unsealed
        handle = tempfile.TemporaryFile()
        fd = os.dup(handle.fileno())
        handle.close()
        os.ftruncate(fd, size)
        return FileMemory(fd, size), fd  # never mapped here: a cut file would be a SIGBUS
    import fcntl

    fd = os.memfd_create("grader-inputs", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    os.ftruncate(fd, size)
    # The child holds this descriptor: shrunk, the parent's next read of its mapping would kill the whole grader
    # with SIGBUS. Sealed, its size is fixed for good (and no seal can be added or removed).
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL)
    return mmap.mmap(fd, size), fd
