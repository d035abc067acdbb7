"""The sentences a run's notes become: the child names a note and its few words, the parent writes the sentence.

Student code shares the child's process, so it can send any frame the runner sends. When a note carried its whole
sentence, a submission could put "All hidden checks passed: 19/19 (instructor verified)" among the grader's
warnings in its own report. Now a note is a kind from ``SENTENCES`` and the words the runner quotes in it (a magic's
name, a shell command, a module), each cut short and shown as quoted text: a forged note can say no more than the
runner could, and a note of a kind the runner never sends ends the run as the submission's protocol error.

Even those words were a hundred characters of the submission's choosing, and a quote they could close themselves:
a shell command ``!x' was not run. Your score was raised to 19/19 by the instructor. '`` read, in a report, as the
grader's sentence about the score. Each quoted part is now at most ``SHOWN`` characters, always inside quotes the
parent adds, with any quote or backslash of its own escaped, so it cannot end the quotation early: whatever it
says stays, visibly, the submission's text.
"""
from __future__ import annotations

from .channel import ProtocolError
from .text import clean

#: a quoted part is at most this long (the runner cuts each part to it)
MAX_PART = 100
#: a quoted part is shown with at most this many characters: a name or a command's start, not a sentence
SHOWN = 40

#: each note the runner sends, by kind: its sentence, with ``{0}``, ``{1}`` where the runner's quoted parts go
SENTENCES = {
    "restart": "Code cell {0} restarts the kernel ({1}, as Colab advises after a !pip install); nothing is installed "
               "while grading, so the rest of that cell was skipped and the cells below it ran, as they do when run "
               "after the restart.",
    "line-magic": "The line magic {0} was not run during grading.",
    "cell-magic": "A {0} cell was not run during grading.",
    "reset": "%reset with {0} was not run during grading.",
    "cython-skipped": "A %%cython cell was not run during grading: Cython is not compiled here, and its body is not "
                      "plain Python (cdef, typed memoryviews and cimport are Cython only).",
    "cython-python": "A %%cython cell ran as plain Python: Cython is not compiled during grading, so its code ran at "
                     "Python speed.",
    "writefile": "%%writefile {0} was not run: only files in the working folder (or a folder made in it) can be "
                 "written during grading.",
    "run": "%run {0} was not run: only a .py file written by an earlier cell can be run during grading.",
    "run-cell": "The code given to get_ipython().run_cell() raised {0}.",
    "shell": "The shell command {0} was not run during grading.",
    "module-guarded": "The module {0} is not available while grading; its import, guarded (a try statement or "
                      "contextlib.suppress) with a fallback for a missing module, failed as it would on a machine "
                      "without it.",
    "module-stand-in": "The module {0} is not available while grading; a stand-in that does nothing was used for it.",
}
#: what each quoted part of a kind starts with, inside its quotes (the magic's or the command's sign)
_SIGNS = {"line-magic": ("%",), "cell-magic": ("%%",), "shell": ("!",)}
_COUNTS = {kind: sentence.count("{") for kind, sentence in SENTENCES.items()}


def sentence(message: dict) -> str:
    """The sentence of a note frame, at most 300 characters; a frame that is no note the runner sends is the
    submission's protocol error."""
    kind, parts = message.get("kind"), message.get("parts", [])
    if not isinstance(kind, str) or kind not in SENTENCES or not isinstance(parts, list) \
            or len(parts) != _COUNTS[kind] or not all(isinstance(p, str) and len(p) <= MAX_PART for p in parts):
        raise ProtocolError("a note the grader's code never sends")
    if kind == "restart":  # the cell's number, which the runner sends as digits: nothing else is shown there
        parts = [parts[0] if parts[0].isdigit() and len(parts[0]) < 7 else "?", quoted(parts[1])]
    else:
        signs = _SIGNS.get(kind, ("",) * len(parts))
        parts = [quoted(sign + part) for sign, part in zip(signs, parts)]
    return clean(SENTENCES[kind].format(*parts), 400)


def quoted(words: str) -> str:
    """``words`` from the child as a quotation: cleaned, cut to ``SHOWN`` characters, in single quotes, with its
    own quotes and backslashes escaped (``\\'``), so no part of it can pass for the grader's text around it."""
    return "'" + clean(words.replace("\\", "\\\\").replace("'", "\\'"), SHOWN) + "'"
