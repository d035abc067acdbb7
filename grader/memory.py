"""How a run's memory is counted, and the sentences that say which limit a child hit and by how much.

Two ways of counting, chosen per sandbox (``Sandbox.memory_limits``):

* ``memory``: a cgroup v1 memory controller counts the pages the child really uses (what it wrote, its tmpfs
  files) and decides: the kernel kills the child at the limit, and the cgroup's ``memory.max_usage_in_bytes``
  says how much it used. The address-space limit (RLIMIT_AS) is then only a wide backstop, several times the
  memory limit: an array made with ``np.zeros`` and never written to gets no pages from the kernel and costs
  nothing, so it must not count, while an absurd request (``np.zeros((10**6, 10**6))``) still fails at once.
* ``address space``: where no cgroup can be had (rlimits mode, a grader that is not root, macOS), RLIMIT_AS is
  all there is. Every array counts in full from the moment it is allocated, written to or not, so the cap has
  headroom: twice the memory limit, plus room for Python, NumPy and OpenBLAS, plus the input files the child maps
  (a 2 GiB limit gives 4.5 GiB and an exercise's 0.9 GiB of mapped inputs on top).

Values and pure functions, plus one reader of cgroup counters: ``Sandbox`` gathers the facts and calls them.
"""
from __future__ import annotations

import re
import signal
from dataclasses import dataclass
from pathlib import Path

from .text import quote

MIB = 1 << 20
GIB = 1 << 30
#: With a memory cgroup, the address-space backstop is this many times the memory limit (plus the slack and the
#: shared files): untouched arrays of several times the limit fit (a layer library's gradient and momentum
#: buffers in a large case reserve 2.8 GiB next to a 2 GiB limit), an absurd allocation still fails at once.
ADDRESS_SPACE_FACTOR = 4
#: Without a cgroup the address space is what is counted: this many times the memory limit, as headroom for
#: the largest case (a correct solution and a layer library's untouched 2.8 GiB in the large case both fit).
ADDRESS_SPACE_FACTOR_ALONE = 2
#: Address space Python, NumPy and OpenBLAS reserve before any student code runs (about 190 MB), with room.
ADDRESS_SPACE_SLACK_MIB = 512
COUNTED_MEMORY = "memory"
COUNTED_ADDRESS_SPACE = "address space"


def address_space_bytes(memory_mib: int, shared_bytes: int, cgroup: bool) -> int:
    """The RLIMIT_AS of one run: a wide backstop under a memory cgroup, what is counted without one."""
    factor = ADDRESS_SPACE_FACTOR if cgroup else ADDRESS_SPACE_FACTOR_ALONE
    return (factor * memory_mib + ADDRESS_SPACE_SLACK_MIB) * MIB + shared_bytes


@dataclass(frozen=True)
class MemoryLimits:
    """What one run's memory is measured against."""

    memory_bytes: int  # the exercise's memory limit (``memory_mib``)
    address_space_bytes: int  # the run's RLIMIT_AS
    counted: str  # COUNTED_MEMORY (a cgroup decides) or COUNTED_ADDRESS_SPACE (RLIMIT_AS decides)
    shared_bytes: int = 0  # the input files the child maps, part of ``address_space_bytes``

    @classmethod
    def of(cls, memory_mib: int, shared_bytes: int = 0, cgroup: bool = True) -> MemoryLimits:
        counted = COUNTED_MEMORY if cgroup else COUNTED_ADDRESS_SPACE
        return cls(memory_mib * MIB, address_space_bytes(memory_mib, shared_bytes, cgroup), counted, shared_bytes)

    @property
    def memory(self) -> str:
        return human_bytes(self.memory_bytes)

    @property
    def address_space(self) -> str:
        return human_bytes(self.address_space_bytes)


@dataclass(frozen=True)
class ExitReport:
    """Why a child ended on its own, as a result says it.

    ``kind``: "out-of-memory" (the memory cgroup killed it), "cpu-time" (RLIMIT_CPU), "crashed" (any other
    signal: a segmentation fault, a SIGKILL the grader did not send, ...) or "exited" (it ended the process
    itself, ``os._exit``). ``signal``: the signal that ended it, or 0.
    ``sentence`` follows a subject ("The call ", "Cell 3 ") and has no final period.
    ``memory_used_bytes``: the cgroup's peak for the run, when a cgroup measured it.
    """

    kind: str
    sentence: str
    memory_used_bytes: int | None = None
    signal: int = 0


def human_bytes(n: int, versus: int | None = None) -> str:
    """``530 MiB``, ``2 GiB``, ``2.1 GiB``, ``8 TiB``. With ``versus``, digits are added until two different
    sizes read differently (``2.02 GiB`` against ``2 GiB``, never ``2.0 GiB`` against ``2 GiB``)."""
    n = int(n)
    if n < MIB:
        return f"{n} bytes" if n < 1024 else f"{n / 1024:.0f} KiB"
    unit, name = next((u, s) for u, s in ((1 << 40, "TiB"), (GIB, "GiB"), (MIB, "MiB")) if n >= u)
    if n % unit == 0:
        return f"{n // unit} {name}"
    if name == "MiB":
        return f"{round(n / unit)} MiB"
    for digits in (1, 2, 3):
        text = f"{n / unit:.{digits}f} {name}"
        if versus is None or versus == n or round(n / unit, digits) != round(versus / unit, digits):
            return text
    return text


def cgroup_usage(folder: Path | None) -> tuple[int | None, bool]:
    """(the run's peak memory, whether the cgroup refused it pages) from a cgroup v1 memory folder; (None, False)
    without one. ``Sandbox`` resets both counters before each run."""
    if folder is None:
        return None, False
    values = []
    for name in ("memory.max_usage_in_bytes", "memory.failcnt"):
        try:
            values.append(int((folder / name).read_text().strip() or 0))
        except (OSError, ValueError):
            values.append(0)
    return values[0] or None, values[1] > 0


# -- a child that ended on its own ------------------------------------------------------------------------------
def exit_report(code: int, signum: int, limits: MemoryLimits, *, oom_killed: bool = False,
                memory_used: int | None = None, over_limit: bool = False, cgroup: bool = False,
                cpu_seconds: float = 0.0) -> ExitReport:
    """The report for a child that ended with exit ``code`` (``signum``: the signal that ended it, or 0).

    ``oom_killed``: the cgroup's out-of-memory killer did it; ``over_limit``: the cgroup refused pages during the
    run (its ``failcnt``); ``memory_used``: the cgroup's peak; ``cgroup``: a memory cgroup watched this run (no
    sentence depends on it any more: a SIGKILL is named as such either way; kept for the callers).
    """
    memory = limits.memory
    if oom_killed or (signum == signal.SIGKILL and over_limit):
        used = f": the limit is {memory}"
        if memory_used:
            used = f": it used {human_bytes(memory_used, limits.memory_bytes)} of memory, the limit is {memory}"
        return ExitReport("out-of-memory", f"ran out of memory and was killed{used}", memory_used, signum)
    if signum:
        if signum == signal.SIGSEGV:
            sentence, kind = "crashed the Python process with a segmentation fault (SIGSEGV)", "crashed"
        elif signum == signal.SIGXCPU:
            sentence, kind = f"used more than {cpu_seconds:g} s of CPU time and was killed", "cpu-time"
        elif signum == signal.SIGKILL:
            # without a cgroup this once read "most likely for using more than 2 GiB of memory": there the limit is
            # on address space and raises MemoryError, it never kills, so a student's own os.kill was blamed on
            # memory in rlimits mode (and Landlock without root) and named plainly in the other modes
            sentence, kind = "was killed (SIGKILL)", "crashed"
        else:
            try:
                name = signal.Signals(signum).name
            except ValueError:
                name = f"signal {signum}"
            sentence, kind = f"was killed by {name}", "crashed"
        return ExitReport(kind, sentence, memory_used, signum)
    return ExitReport("exited", f"ended the Python process itself (exit code {code}), for example with os._exit()",
                      memory_used)


# -- a MemoryError raised in student code -----------------------------------------------------------------------
#: numpy's message, and nothing more: a shape of numbers and a dtype's name, since both go into the grader's sentence
#: unquoted (a message ending "... data type float64. Instructor note: full marks" is not numpy's)
_NUMPY = re.compile(r"Unable to allocate (?P<size>[0-9.]+) ?(?P<unit>bytes|[KMGTPE]iB) for an array with shape "
                    r"(?P<shape>\([0-9, ]{0,200}\)) and data type (?P<dtype>[\w<>|=\[\]]{1,40})\s*$")
_UNITS = {"bytes": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40, "PiB": 1 << 50, "EiB": 1 << 60}


def requested_bytes(message: str) -> tuple[int, str] | None:
    """(bytes asked for, "an array with shape (4096, 4096) and data type float64") from numpy's message."""
    found = _NUMPY.search(message or "")
    if not found:
        return None
    try:
        size = float(found["size"].rstrip("."))
    except ValueError:
        return None
    what = f"an array with shape {found['shape']} and data type {found['dtype']}"
    return int(size * _UNITS[found["unit"]]), what


def lowered_by_submission(limits: MemoryLimits, own_limit: int | None) -> bool:
    """Whether the address-space limit the child had when an allocation failed (``own_limit``, as it reported it;
    -1 for none) is below the one the grader set: then the submission lowered it itself (``resource.setrlimit``),
    and that limit, not the grader's, refused the memory."""
    return own_limit is not None and 0 <= own_limit < limits.address_space_bytes


def own_limit_sentence(message: str, limits: MemoryLimits, own_limit: int) -> str:
    """The MemoryError sentence when the submission's own ``setrlimit`` stopped it: blaming the grader's limit (or
    telling the student to use less memory than a limit they were never held to) would be false. Follows a
    subject and has no final period, as ``memory_error_sentence``'s."""
    asked = requested_bytes(message)
    said = str(message or "").strip()
    what = (f" asking for {human_bytes(asked[0])} for {asked[1]}" if asked
            else f" ({quote(said)})" if said else "")
    too_much = asked is not None and asked[0] > limits.address_space_bytes
    whose = ("so its own limit refused the memory (the grader's would have refused that much too)" if too_much
             else "so its own limit refused the memory, not the grader's")
    return (f"raised MemoryError{what}: the submission had lowered its own address-space limit to "
            f"{human_bytes(own_limit, limits.address_space_bytes)} (resource.setrlimit(RLIMIT_AS, ...)), below the "
            f"grader's {limits.address_space}, {whose}")


def memory_error_sentence(message: str, limits: MemoryLimits, reserved_bytes: int | None = None,
                          own_limit: int | None = None) -> str:
    """What to say about a ``MemoryError`` with ``message`` raised in student code: the limit it hit, and by how much.

    ``reserved_bytes`` (optional): the child's address space (VmSize) when the allocation failed, if the child
    reported it; it turns the address-space sentence into the exact total. ``own_limit`` (optional): the child's
    address-space limit then, which the submission may have lowered itself. The sentence follows a subject
    ("The function ", "Cell 3 ") and has no final period.
    """
    if lowered_by_submission(limits, own_limit):
        return own_limit_sentence(message, limits, own_limit)
    asked = requested_bytes(message)
    memory, space = limits.memory, limits.address_space
    if asked is None:
        said = str(message or "").strip()
        own = f" ({quote(said)})" if said else ""  # the submission's words: quoted
        if limits.counted == COUNTED_ADDRESS_SPACE:
            return (f"raised MemoryError{own}: Python could not reserve more memory; here reserved address space "
                    f"is counted and its limit is {space}")
        return (f"raised MemoryError{own}: Python could not reserve more memory; its memory limit is {memory}, and "
                f"it may reserve at most {space} of address space")
    size, what = asked
    amount = human_bytes(size)
    if limits.counted == COUNTED_ADDRESS_SPACE:
        if reserved_bytes and size <= limits.address_space_bytes:
            total = human_bytes(reserved_bytes + size, limits.address_space_bytes)
            return (f"raised MemoryError: asking for {amount} more for {what}, it would have reserved {total} of "
                    f"address space (the limit in this mode is {space}; an array counts in full as soon as it "
                    "is allocated, even if it is never written to)")
        if size > limits.address_space_bytes:
            return (f"raised MemoryError: it asked for {amount} at once for {what}, more than the {space} of "
                    "address space this mode allows")
        return (f"raised MemoryError: it asked for {amount} more for {what}, and that would have taken the address "
                f"space it had reserved past {space}, the limit in this mode (an array counts in full as soon as "
                "it is allocated, even if it is never written to)")
    if size > limits.memory_bytes:
        return (f"raised MemoryError: it asked for {amount} at once for {what}, more than its memory limit of "
                f"{memory}")
    return (f"raised MemoryError: it asked for {amount} for {what} when its arrays, most of them never written "
            f"to, already reserved close to {space} of address space, the most a run may reserve "
            f"({_times(ADDRESS_SPACE_FACTOR)} its {memory} memory limit, plus {ADDRESS_SPACE_SLACK_MIB} MiB"
            f"{_inputs(limits)})")


def address_space_note(limits: MemoryLimits) -> str:
    """The isolation note of a sandbox without a memory cgroup."""
    return (f"No memory cgroup: memory is counted as reserved address space, so an array counts in full as soon as "
            f"it is allocated, even if it is never written to; the limit is {limits.address_space} "
            f"({_times(ADDRESS_SPACE_FACTOR_ALONE)} the memory limit of {limits.memory}, plus "
            f"{ADDRESS_SPACE_SLACK_MIB} MiB for Python and NumPy), plus the input files the child maps.")


def _inputs(limits: MemoryLimits) -> str:
    return f" and {human_bytes(limits.shared_bytes)} of input files" if limits.shared_bytes >= MIB else ""


def _times(factor: int) -> str:
    return {1: "", 2: "twice", 3: "three times", 4: "four times"}.get(factor, f"{factor} times")
