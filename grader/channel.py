"""The parent's end of one child's pipes: commands out, answers in, printed output counted and dropped.

Printed output is never stored: it is counted, and past the allowance the grader says so once and keeps draining
it, so a function that prints too much is still graded (its printing cannot block it on a full pipe). Past the
allowance it is drained at a bounded rate (``FLOOD_BYTES`` per ``FLOOD_TICK``): drained as fast as it came, a
child writing megabyte buffers in a loop cost the parent half a core (34 s of its CPU in a 66 s run at 3 GB/s),
where ``print`` at any rate a person would use is still never held up.

Everything that arrives is hostile until decoded: a frame's sizes are checked against what the parent expects
before anything is allocated for it, the answers of one child have a byte and frame budget, and the reading loop
checks the caller's deadline on every turn, so no stream of frames can hold the parent past it.
"""
from __future__ import annotations

import fcntl
import math
import os
import select
import threading
import time
from dataclasses import dataclass

from .runner import wire
from .sandbox import MIB, Launched

#: JSON the child may send over one launch, all answers and notes together (payload bytes are capped per call).
MAX_JSON_BYTES = 16 * MIB
#: note frames one launch may send; the runner itself sends at most 30 distinct notes
MAX_NOTE_FRAMES = 100
#: once the output is past its allowance, at most this much of it is read per tick (200 MiB/s): a writer faster
#: than that waits on the full pipe, and the parent's share of the flood costs it about 3 % of a core
FLOOD_TICK, FLOOD_BYTES = 0.005, MIB
#: Linux's fcntl to resize a pipe (``fcntl.F_SETPIPE_SZ``, absent on macOS)
SET_PIPE_SIZE = getattr(fcntl, "F_SETPIPE_SZ", None)


_READ = select.POLLIN | select.POLLPRI
#: one read takes at most this much; it lands in a buffer of the reading thread's own, made once
READ_BYTES = 1 << 20
_local = threading.local()


def _scratch() -> memoryview:
    """The calling thread's read buffer: a fresh megabyte per read would cost an mmap, page faults and an munmap
    (about 15 microseconds) for the usual answer of a few hundred bytes."""
    view = getattr(_local, "view", None)
    if view is None:
        view = _local.view = memoryview(bytearray(READ_BYTES))
    return view


class ProtocolError(Exception):
    """The child sent something the protocol does not allow: the submission wrote on the grader's channel."""


class ChildEnded(Exception):
    """The child's channel closed or its process exited before it answered."""


class DeadlinePassed(Exception):
    """No answer came before the deadline."""


@dataclass
class Frame:
    message: dict
    payload: bytearray


class Channel:
    """Frames to and from one launched child. Not thread-safe: one run drives one channel."""

    def __init__(self, launched: Launched, output_limit: int) -> None:
        self.launched = launched
        self.output_limit = output_limit
        self.printed = 0
        self.flooded = False  # printed past the allowance: the rest is read and dropped, so the child never blocks
        self.json_bytes = 0
        self.notes = 0
        self.buffer = bytearray()
        self.outbox = bytearray()
        # poll(2) itself, not ``selectors``: three descriptors, and one wait per answer, where the selector's own
        # bookkeeping cost as much as the system call
        self.poller = select.poll()
        self.poller.register(launched.channel, _READ)
        self.poller.register(launched.output, _READ)
        self.stdin = launched.process.stdin.fileno() if launched.process.stdin else -1
        if self.stdin >= 0:
            os.set_blocking(self.stdin, False)
        self.writing = False
        self.open_reads = 2
        self.drain_at = 0.0  # past the allowance: when the output is next read (0: read whenever it is ready)

    def close(self) -> None:
        self.poller = None

    def send(self, message: dict | str, payload: bytes = b"") -> None:
        """Write a command, as much of it as the pipe takes now; the rest is written while the parent waits for the
        answer, never blocking on a full pipe. ``message`` is a dict, or its JSON text already (planned commands
        are encoded once, not on every send)."""
        if isinstance(message, str):
            body = message.encode()
            self.outbox += wire.HEADER.pack(len(body), len(payload))
            self.outbox += body
            self.outbox += payload
        else:
            self.outbox += wire.encode_frame(message, payload)
        if not self.writing and self.stdin >= 0:
            self._write_some()
        self._want_write(bool(self.outbox))

    def _want_write(self, on: bool) -> None:
        if self.stdin < 0 or on == self.writing:
            return
        if on:
            self.poller.register(self.stdin, select.POLLOUT)
        else:
            self.poller.unregister(self.stdin)
        self.writing = on

    def receive(self, deadline: float, max_payload: int) -> Frame:
        """The next frame from the child, waiting until ``deadline`` at most.

        ``max_payload`` is the largest payload the awaited answer may carry; a header that claims more is a
        protocol error before a byte of it is stored.
        """
        while True:
            frame = self._take(max_payload)
            if frame is not None:
                return frame
            now = time.monotonic()
            if now >= deadline:
                raise DeadlinePassed()
            if self.open_reads == 0:
                raise ChildEnded()
            wait = min(deadline - now, 0.5)
            if self.drain_at:
                if now >= self.drain_at:
                    self._drain()
                wait = min(wait, max(self.drain_at - now, 0.0)) if self.drain_at else wait
            # poll's resolution is a millisecond: rounded up, so a wait never ends before the deadline it aims at
            events = self.poller.poll(math.ceil(wait * 1000))
            for fd, _ in events:
                if fd == self.stdin:
                    self._write_some()
                else:
                    self._read_some(fd)
            if not events and self.launched.process.poll() is not None:
                raise ChildEnded()

    def _write_some(self) -> None:
        try:
            written = os.write(self.stdin, self.outbox[: 1 << 16])
        except BlockingIOError:
            return
        except OSError:  # the child closed its end: it is gone or going, and the read side will say so
            self.outbox.clear()
            written = 0
        del self.outbox[:written]
        if not self.outbox:
            self._want_write(False)

    def _read_some(self, fd: int) -> None:
        scratch = _scratch()
        try:
            size = os.readv(fd, [scratch])
        except OSError:
            size = 0
        if not size:
            self.poller.unregister(fd)
            self.open_reads -= 1
            if fd == self.launched.channel:
                self.open_reads = 0  # no answer can come any more, whatever still holds the output pipe
            return
        if fd == self.launched.output:
            self.printed += size
            if self.printed > self.output_limit and not self.flooded:
                self.flooded = True
                self.poller.unregister(fd)  # read by ``_drain`` from now on, at its own pace
                os.set_blocking(fd, False)
                _widen(fd)
                self.drain_at = time.monotonic() + FLOOD_TICK
            return
        self.buffer += scratch[:size]

    def _drain(self) -> None:
        """Read and drop up to ``FLOOD_BYTES`` of a flooding output, then wait a tick before the next read."""
        scratch, fd, got = _scratch(), self.launched.output, 0
        while got < FLOOD_BYTES:
            try:
                size = os.readv(fd, [scratch])
            except BlockingIOError:
                break
            except OSError:
                size = 0
            if not size:  # every writer is gone
                self.open_reads -= 1
                self.drain_at = 0.0
                return
            got += size
        self.printed += got
        self.drain_at = time.monotonic() + FLOOD_TICK

    def _take(self, max_payload: int) -> Frame | None:
        """Cut one complete frame off the front of the buffer, checking its sizes first."""
        if len(self.buffer) < wire.HEADER.size:
            return None
        try:
            body_len, payload_len = wire.frame_sizes(bytes(self.buffer[: wire.HEADER.size]), max_payload)
        except wire.WireError as exc:
            raise ProtocolError(str(exc)) from None
        self.json_bytes += body_len
        if self.json_bytes > MAX_JSON_BYTES:
            raise ProtocolError(f"sent more than {MAX_JSON_BYTES // MIB} MiB of messages")
        end = wire.HEADER.size + body_len + payload_len
        if len(self.buffer) < end:
            self.json_bytes -= body_len  # counted again once the frame is complete
            return None
        try:
            message = wire.decode_message(bytes(self.buffer[wire.HEADER.size: wire.HEADER.size + body_len]))
        except wire.WireError as exc:
            raise ProtocolError(str(exc)) from None
        payload = self.buffer[wire.HEADER.size + body_len: end]  # one copy, owned: arrays are built on it
        del self.buffer[:end]
        if message.get("t") == "note":
            self.notes += 1
            if self.notes > MAX_NOTE_FRAMES:
                raise ProtocolError(f"sent more than {MAX_NOTE_FRAMES} notes")
        return Frame(message, payload)


def _widen(fd: int) -> None:
    """Make a flooding output's pipe hold one tick's read (``FLOOD_BYTES``), so the drain's rate is what it says.

    A tick's read stops when the pipe is empty, and a pipe holds 64 KiB by default: the drain then let through 6 to
    30 MiB/s instead of 200, depending on how the child and the parent happened to be scheduled, so the same flood
    of 64 MiB took 6.4 s of its call's limit in ``fork`` mode and 2 s in ``rlimits`` mode, and a call that printed
    256 MiB was killed at its limit in one mode and answered in another. Where the pipe cannot grow (macOS; a user
    past its pipe quota) it stays as it was."""
    if SET_PIPE_SIZE is None:
        return
    try:
        fcntl.fcntl(fd, SET_PIPE_SIZE, FLOOD_BYTES)
    except OSError:
        pass
