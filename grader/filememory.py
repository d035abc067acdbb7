"""The inputs' memory where no sealed memfd can be had (macOS): an unlinked file the parent reads and writes with
``pread`` and ``pwrite``, never through a mapping of its own.

The child maps the same file and, unsealed, can cut it with ``ftruncate``. Had the parent mapped it too, its next
read of the cut part would be a SIGBUS, which kills the whole grader (exit 135: no result for the submission, nor
for any graded after it in the batch). ``pread`` on a cut file returns fewer bytes instead, and a short read
differs from the inputs written there, so the cut is what it is: the submission changed its inputs.
"""
from __future__ import annotations

import os


class FileMemory:
    """The slices ``execute`` and ``calls`` take of the inputs' memory (``memory[a:b]``, ``memory[a:b] = data``),
    on a file descriptor."""

    def __init__(self, fd: int, size: int) -> None:
        self.fd, self.size = fd, size

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, span: slice) -> bytes:
        start, stop, _ = span.indices(self.size)
        chunks, at = [], start
        while at < stop:
            chunk = os.pread(self.fd, stop - at, at)
            if not chunk:  # the end of a file the child cut short
                break
            chunks.append(chunk)
            at += len(chunk)
        return b"".join(chunks)

    def __setitem__(self, span: slice, data: bytes) -> None:
        start, _, _ = span.indices(self.size)
        view, done = memoryview(data).cast("B"), 0
        while done < len(view):
            done += os.pwrite(self.fd, view[done:], start + done)

    def close(self) -> None:
        """Nothing is mapped; the descriptor is closed by its owner."""
