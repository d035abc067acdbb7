"""What stopped a cell, a call or a whole run, and the sentence the student reads about it.

``execute`` drives the child and decides when a step is over; this module only words what happened, so the
sentences about limits, crashes and failing cells live in one place and read alike wherever they are shown (a
warning, the 'completes' check, the reason a function was never defined). Every part that came from the child is
already cleaned (``answers``) before it reaches a sentence here.
"""
from __future__ import annotations

from . import pysource
from .outcomes import CallError
from .submission import Submission
from .text import clean

#: what the child's ``wire.RUNNER_BROKEN`` exit means, said of a cell or call
BROKEN = ("broke the grader's own code that runs beside it (for example by replacing a builtin or module it uses, "
          "or by closing its channel), so no answer could be sent")
RESTARTS = "was stopped once its process had been started again {} times (after crashes or timeouts), the most allowed"


class Incident(Exception):
    """Why a child was stopped, and where: ``where`` is ("cell", number, label), ("call", index, case) or None."""

    def __init__(self, kind: str, message: str, where: tuple | None = None, seconds: float = 0.0,
                 memory: bool = False) -> None:
        super().__init__(message)
        self.kind, self.message, self.where, self.seconds, self.memory = kind, message, where, seconds, memory


def limit_text(where: tuple | None, seconds: float) -> str:
    """A step that ran to its own limit: a cell is stopped (the run goes on), a call killed (a new child)."""
    if where and where[0] == "cell":
        return f"was stopped after {seconds:g} s, its time limit"
    if where and where[0] == "call":
        return f"was killed after {seconds:g} s, its time limit"
    return f"did not answer within {seconds:g} s"


def past_grace(text: str, where: tuple, grace: float) -> str:
    """A call killed by the parent: its own alarm at ``seconds`` did not stop it within the grace after it."""
    if where[0] != "call":
        return text
    return f"{text}, and {grace:g} s more in which it did not stop"


def submission_timeout(seconds: float) -> str:
    return f"was killed after {seconds:g} s, the time limit for the whole submission"


def _capital(label: str) -> str:
    return f"{label[0].upper()}{label[1:]}"


def waiting_for_someone(error: CallError | None, notebook: bool = True) -> str:
    """What an EOFError of input() or a BdbQuit means, said after the sentence of the cell that raised it: in
    Jupyter the student typed at the prompt or the debugger, while grading nobody does (as under nbconvert or
    nbgrader, where such a cell fails too). The bare exception name means nothing to a student who forgot the
    prompt; the EOFError of a file read past its end ('Ran out of input') is no prompt and gets nothing."""
    if error is None:
        return ""
    where, answered = ("the cell", "in Jupyter you answered it, but ") if notebook else ("the code", "")
    if error.type == "EOFError" and (not error.message or "reading a line" in error.message):  # input(), getpass()
        return (f" That is an input() or getpass() call waiting for someone to type: {answered}while grading nobody "
                "can, so it fails.")
    if error.type == "BdbQuit":
        return (f" That is a breakpoint() or pdb.set_trace() left in {where}: while grading nobody can type at the "
                "debugger, so it quits.")
    return ""


def left_in_call(error: CallError | None) -> str:
    """Debugging left in the code fails every call in the same telling way: say what, since the exception's name
    alone (BdbQuit, EOFError) means nothing to a student who forgot the breakpoint."""
    if error is None:
        return ""
    if error.type == "BdbQuit":
        return (" A breakpoint() or pdb.set_trace() was left in the code: while grading nobody can type at the "
                "debugger, so it quits and the call fails. Remove it.")
    if error.type == "EOFError" and "reading a line" in error.message:
        return (" An input() call was left in the code: while grading there is nothing to read, so it meets the "
                "end of its input and raises. Remove it.")
    return ""


def unwritten(stubbed: int, calls: int) -> str:
    """NotImplementedError, raised on ``stubbed`` of ``calls`` calls, is how a stub (the starter's, or nbgrader's
    'raise NotImplementedError()') or a part left for later says it is not written: a student who kept one reads
    that, not only the usual causes of an exception (shapes that do not line up) that the finding explains."""
    if not stubbed:
        return ""
    said = "Every case" if stubbed == calls else f"{stubbed} of {calls} cases"
    return (f" {said} raised NotImplementedError, which code not written yet raises (the starter's stub, or a part "
            "left for later): write that code in place of the raise.")


def clean_exit(submission: Submission, number: int, error: CallError | None) -> bool:
    """Whether a script's error is its ordinary way to end: ``sys.exit(main())``, ``sys.exit(0)``, ``exit()`` or
    ``raise SystemExit`` with a zero or empty code as the last statement of a .py file (of its last cell, for an
    exported notebook). Run as a script, that exits cleanly and leaves nothing unrun, so "it raised SystemExit:
    '0'; the code after that line did not run" told the student of an error where there was none. A notebook's
    cell that exits is left to its sentence: Jupyter shows that exception too."""
    if error is None or error.type != "SystemExit" or error.message not in ("", "0", "None") or error.line is None:
        return False
    if submission.is_notebook or number != max(c.code_number for c in submission.cells):
        return False
    cell = submission.cell(number)
    rest = cell.source.splitlines()[error.line:] if cell is not None else ["?"]
    return all(not line.strip() or line.lstrip().startswith("#") for line in rest)


def cell_error(submission: Submission, label: str, error: CallError | None, timed_out: bool, limit: float, *,
               last: bool = False, expected: bool = False) -> str:
    """The sentence of a cell that raised or was stopped, with what a prompt or debugger left in it means, and
    whether the name it missed is new in a Python newer than the grader's (``itertools.batched`` on 3.11): a test
    cell that worked on Colab's 3.12 is otherwise told only 'cannot import name ... (unknown location)'."""
    newer = "" if timed_out or error is None else pysource.newer_name(str(error))
    return _cell_error(submission, label, error, timed_out, limit, last=last, expected=expected) + newer \
        + ("" if timed_out else waiting_for_someone(error, submission.is_notebook))


def _cell_error(submission: Submission, label: str, error: CallError | None, timed_out: bool, limit: float, *,
                last: bool = False, expected: bool = False) -> str:
    """A cell (or a .py file's code) that the child's own alarm stopped at ``limit``, or that raised ``error``.

    A notebook's later cells still run, as when they are run one by one; a file's code stops at that line. The
    sentence about later cells is left out for the ``last`` code cell (there are none, and saying they ran would
    puzzle the student), and a cell tagged 'raises-exception' is ``expected`` to raise: its author said so, and
    Jupyter's tools run on after it, so its error is told as a fact, not as something that stopped the notebook."""
    if timed_out:
        if not submission.has_cells:
            return (f"While the file was being loaded, it was stopped after {limit:g} s, its time limit; what it had "
                    "defined before that point was kept and graded.")
        return f"{_capital(label)} was stopped after {limit:g} s, its time limit" + (
            "." if last else "; the later cells were still run.")
    if not submission.has_cells:
        return f"While the file was being loaded, it raised {error}; the code after that line did not run."
    if expected:
        return (f"{_capital(label)} raised {error}, as its 'raises-exception' tag says it may"
                + ("." if last else "; the later cells were run after it, as Jupyter's tools do for such a cell."))
    if last:
        return f"{_capital(label)} raised {error}."
    if submission.is_notebook:
        return f"{_capital(label)} raised {error}; the later cells were still run (Run All would stop)."
    return f"{_capital(label)} raised {error}; the later cells were still run, as in the notebook."


def cell_stopped(label: str, message: str) -> str:
    """A cell whose child the parent had to kill (a hard deadline, a crash): the run restarted without it."""
    if label == "the file":
        return f"While the file was being loaded, it {message}."
    # the run restarts without that cell: it did run, until it was stopped
    return f"{_capital(label)} {message}; the other cells were then run again without it."


def flood(where: tuple | None, mib: int) -> str:
    """Said once: the output went past its allowance, naming the first cell or case that did it."""
    place = ("while the file was loading" if where and where[0] == "cell" and where[2] == "the file" else
             f"in {where[2]}" if where and where[0] == "cell" else
             f"in the call on the '{where[2]}' case" if where else "")
    return clean(f"The submission printed more than {mib} MiB {place}; the rest of its output was discarded and "
                 "grading went on.", 300)
