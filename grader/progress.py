"""Progress of a batch on stderr: a bar on a terminal, a few plain count lines otherwise, or nothing.

Without a terminal (a CI log, a Slurm output file) every student's score is printed once, by the summary at the
end; the progress lines only count (about every tenth of the class), so the log does not hold each student twice.

stdout is never touched, so ``--json`` output stays clean whatever the mode. Ids and notes come from file names,
so they are printed through ``escape.terminal``: no escape sequence, BEL or line break reaches the terminal.
"""
from __future__ import annotations

import sys
from typing import TextIO

from . import escape
from .results import GradeResult


def short(result: GradeResult) -> str:
    if result.status == "error":
        return f"not graded ({escape.terminal(result.error.kind, 60)})" if result.error else "not graded"
    return f"{result.score:g}/{result.max_score:g}"


class Progress:
    """``start(total, reused)``, then ``advance(result, reused)`` per student, then ``close()``."""

    def __init__(self, mode: str = "auto", stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        if mode == "auto":
            mode = "bar" if _isatty(self.stream) else "lines"
        self.mode = mode  # "bar", "lines" or "none"
        self.total = 0
        self.count = 0
        self.bar = None

    def note(self, text: str) -> None:
        if self.mode == "none":
            return
        text = escape.terminal(text, 2000)
        if self.bar is not None:
            self.bar.write(text, file=self.stream)
        else:
            print(text, file=self.stream, flush=True)

    def start(self, to_grade: int, reused: int) -> None:
        self.total = to_grade + reused
        self.count = reused
        if reused:
            self.note(f"{reused} of {self.total} result(s) are up to date and were kept (--force regrades them).")
        if self.mode == "bar" and to_grade:
            from tqdm import tqdm

            self.bar = tqdm(total=self.total, initial=reused, file=self.stream, unit="sub", dynamic_ncols=True,
                            desc="grading")

    def advance(self, result: GradeResult, reused: bool) -> None:
        if reused:
            return  # counted in start()
        self.count += 1
        if self.bar is not None:
            self.bar.set_postfix_str(f"{escape.terminal(result.student, 60)}: {short(result)}", refresh=False)
            self.bar.update(1)
        elif self.mode == "lines" and self.total > 1:
            step = max(1, self.total // 10)
            if self.count % step == 0 or self.count == self.total:
                print(f"graded {self.count} of {self.total}", file=self.stream, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
