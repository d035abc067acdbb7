"""Python 3.12's f-strings that reuse their own quotes, written the 3.11 way, when that is provably the same code.

Colab and current Jupyter run Python 3.12, where PEP 701 lets a replacement field hold the f-string's own quote:
``f"{d["k"]}"``, ``f"{", ".join(names)}"``. The grader runs 3.11, which cannot compile that, so a right function
in such a cell was never defined (0 marks for code that ran for the student). ``older`` rewrites only what it can
prove means the same: a string literal inside a field, delimited by the enclosing f-string's quote, whose text holds
no quote of either kind, no backslash and no line break, gets the other quote (``"k"`` becomes ``'k'``). Its value
is unchanged (its characters are read the same between either quote), and the rewrite keeps every line and column.

It is a scanner of the text, never running it, and it gives up (None) on anything it does not model exactly: a
backslash, a comment or a line break inside a field, a ``{x=}`` debug field whose text would change (3.12 prints
that text), a third level of nesting, a quote in a format spec, an unterminated string. The caller compiles the
result and uses it only when it compiles; a cell it gives up on keeps its syntax error and its sentence.
"""
from __future__ import annotations

import sys

from . import pysource

_PREFIXES = {"", "r", "u", "f", "b", "br", "rb", "fr", "rf"}
_OTHER = {'"': "'", "'": '"'}
#: fields inside fields (a nested f-string's, a format spec's) followed at most: 3.11 can write only two levels
_MAX_DEPTH = 4


class _GiveUp(Exception):
    """The text holds something the scanner does not model exactly: no rewrite."""


def older(source: str) -> str | None:
    """``source`` with 3.12's reused quotes inside f-string fields swapped for the other quote, or None when there
    is nothing to swap or something it cannot prove the same (see the module's docstring). The caller keeps it
    from cell magics whose body is not Python (``%%writefile`` writes its body as it is)."""
    scanner = _Scanner(source)
    try:
        scanner.code()
    except _GiveUp:
        return None
    if not scanner.edits:
        return None
    text = list(source)
    for at, quote in scanner.edits:
        text[at] = quote
    return "".join(text)


class _Scanner:
    """Reads code as 3.12's tokenizer does, as far as strings, comments and f-string fields go."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.edits: list[tuple[int, str]] = []  # (index, the quote character written there)
        self.depth = 0  # fields open around the scan: bounded, so hostile nesting cannot exhaust the grader's stack

    def code(self) -> None:
        """Top-level code: comments skipped, every string literal read (f-strings field by field)."""
        text, i = self.text, 0
        while i < len(text):
            ch = text[i]
            if ch == "#":
                end = text.find("\n", i)
                i = len(text) if end < 0 else end
            elif ch.isalnum() or ch == "_" or ch in "'\"":
                i = self.word_or_string(i, None)
            else:
                i += 1

    def word_or_string(self, i: int, enclosing: str | None) -> int:
        """Past the name, number or string literal at ``i``; ``enclosing`` is the quote of the f-string whose field
        holds it (None at top level)."""
        text, start = self.text, i
        while i < len(text) and (text[i].isalnum() or text[i] == "_"):
            i += 1
        if i >= len(text) or text[i] not in "'\"" or text[start:i].lower() not in _PREFIXES:
            return i  # a name or a number (a quote after a name that is no prefix starts a string of its own)
        return self.string(start, i, text[start:i].lower(), enclosing)

    def string(self, start: int, at: int, prefix: str, enclosing: str | None) -> int:
        """Past the string literal whose prefix starts at ``start`` and whose quote is at ``at``."""
        text = self.text
        quote = text[at] * 3 if text.startswith(text[at] * 3, at) else text[at]
        body = at + len(quote)
        if "f" in prefix:
            end = self.fstring(body, quote, "r" in prefix, enclosing)
        else:
            end = body
            while not text.startswith(quote, end):
                if end >= len(text) or (text[end] == "\n" and len(quote) == 1):
                    raise _GiveUp  # unterminated: the compiler's own error stands
                end += 2 if text[end] == "\\" else 1
        if enclosing is not None:
            self.nested(at, end, quote, enclosing)
        return end + len(quote)

    def nested(self, at: int, end: int, quote: str, enclosing: str) -> None:
        """A literal inside a field of an f-string quoted with ``enclosing``, from its quote at ``at`` to its closing
        quote at ``end``: given the other quote when it uses the enclosing one, if its text allows it exactly."""
        inner = self.text[at + len(quote):end]
        if len(enclosing) == 3:  # a triple-quoted f-string: 3.11 reads single quotes of its kind inside it
            if quote == enclosing:
                raise _GiveUp
            return
        if any(c in inner for c in "'\"\\\n"):  # a quote, an escape or a line break: no longer the same text
            if quote[0] == enclosing or enclosing in inner or "\\" in inner or "\n" in inner:
                raise _GiveUp
            return  # the other quote, holding quotes of its own: a third level, which 3.11 cannot write
        if quote[0] == enclosing:
            other = _OTHER[enclosing]
            for index in range(len(quote)):
                self.edits.append((at + index, other))
                self.edits.append((end + index, other))

    def fstring(self, i: int, quote: str, raw: bool, enclosing: str | None) -> int:
        """Past the body of an f-string (to its closing quote), reading each replacement field."""
        text = self.text
        while not text.startswith(quote, i):
            if i >= len(text) or (text[i] == "\n" and len(quote) == 1):
                raise _GiveUp
            ch = text[i]
            if ch == "\\":
                if text[i + 1:i + 2] in ("{", "}", ""):
                    raise _GiveUp  # a backslash before a brace: rules this scanner does not model
                if not raw and text.startswith("N{", i + 1):  # \N{NAME}: a character's name, not a field
                    close = text.find("}", i)
                    if close < 0 or "\n" in text[i:close]:
                        raise _GiveUp
                    i = close + 1
                else:
                    i += 2
            elif text.startswith(("{{", "}}"), i):
                i += 2
            elif ch == "{":
                i = self.field(i + 1, quote if enclosing is None else enclosing)
            elif ch == "}":
                raise _GiveUp
            else:
                i += 1
        return i

    def field(self, i: int, quote: str) -> int:
        """Past a replacement field whose '{' is just before ``i``, to its '}'; ``quote`` is the outermost
        f-string's, which no literal in the field may use once rewritten."""
        self.depth += 1
        if self.depth > _MAX_DEPTH:
            raise _GiveUp
        try:
            return self._field(i, quote)
        finally:
            self.depth -= 1

    def _field(self, i: int, quote: str) -> int:
        text, depth, first_edit, debug = self.text, 0, len(self.edits), False
        while True:
            if i >= len(text):
                raise _GiveUp
            ch = text[i]
            if ch in "#\\" or (ch == "\n" and len(quote) == 1):
                raise _GiveUp  # 3.11 allows none of these in a field
            if ch.isalnum() or ch == "_" or ch in "'\"":
                i = self.word_or_string(i, quote)
                continue
            if ch in "([{":
                depth += 1
            elif ch in ")]":
                if depth == 0:
                    raise _GiveUp
                depth -= 1
            elif ch == "}" and depth:
                depth -= 1
            elif text.startswith(("==", "!=", "<=", ">="), i):
                i += 2
                continue
            elif depth == 0 and ch == "=":
                debug = True  # '{x=}': 3.12 prints the field's text, so it must stay as written
            elif depth == 0 and ch in "!:}":
                break
            i += 1
        if ch == "!":
            i += 1
            while i < len(text) and text[i].isalnum():
                i += 1
            ch = text[i] if i < len(text) else ""
        if ch == ":":
            i = self.spec(i + 1, quote)
        elif ch != "}":
            raise _GiveUp
        if debug and len(self.edits) > first_edit:
            raise _GiveUp
        return i + 1

    def spec(self, i: int, quote: str) -> int:
        """A format spec, to the field's closing '}': literal text with fields of its own (``{x:>{w}}``)."""
        text = self.text
        while i < len(text) and text[i] != "}":
            if text[i] in "'\"\\\n" or text.startswith("{{", i):
                raise _GiveUp
            i = self.field(i + 1, quote) if text[i] == "{" else i + 1
        if i >= len(text):
            raise _GiveUp
        return i


def first_line(source: str, rewritten: str) -> int:
    """The line of ``source`` where ``rewritten`` (``older``'s result, of the same length) first differs from it."""
    at = next((i for i, (a, b) in enumerate(zip(source, rewritten)) if a != b), 0)
    return source.count("\n", 0, at) + 1


#: places a note names, at most (then how many more)
_MOST_PLACES = 5


def note(places: list[str]) -> str:
    """The note for a submission whose f-strings at ``places`` ("code cell 2 (...), line 8") ran as ``older``
    rewrote them: the score stands, but the student should know the code needs Python 3.12 as written."""
    shown = places if len(places) <= _MOST_PLACES + 1 else [
        *places[:_MOST_PLACES], f"{len(places) - _MOST_PLACES:,} more places"]  # 10,000 cells: not 500 KB of note
    where = shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} and {shown[-1]}"
    return (f"The f-strings at {where} reuse their own quotes inside {{...}} (f\"{{d[\"k\"]}}\"), which is Python "
            f"3.12 syntax; {pysource.GRADER_RUNS} {sys.version_info[0]}.{sys.version_info[1]}, so it ran them with "
            "those inner quotes switched to the other kind (f\"{d['k']}\"), which gives the same text: write them "
            "that way for Python 3.11 and older.")
