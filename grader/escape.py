"""One escaping helper per output format, used by every writer for text a class folder or a submission chose.

Student ids, paths and messages may hold anything: lone surrogates (undecodable file names), control characters,
invisible and bidirectional-control characters, Markdown, HTML, spreadsheet formulas. ``text.clean`` makes them
one printable line where they enter; each writer then escapes for its own format here, so a value that was
never cleaned (an older result.json, a message built from a file name) is still safe:

* ``terminal``: control and invisible characters shown as escapes (``shell_word``: quoted for a shell);
* ``md_code`` / ``md_cell`` / ``md_fence``: Markdown code spans and fenced blocks that nothing can close early;
* ``csv_cell``: no formula (a cell starting with ``= + - @``, tab or CR gets a leading quote);
* ``xml_text``: only characters XML 1.0 allows;
* ``html_text``: for Jinja's ``finalize``; HTML escaping itself stays with autoescape;
* ``ci_text`` / ``CommandSafeStream``: no line a CI runner would execute as a workflow command (see below).
"""
from __future__ import annotations

import re
import shlex
from typing import TextIO

from .text import clean

#: Characters XML 1.0 forbids: C0 controls but tab, LF and CR; surrogates; U+FFFE and U+FFFF.
_XML_FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_BACKTICKS = re.compile("`+")


def _clean(text: str, limit: int, keep_newlines: bool = False) -> str:
    """``text.clean``, with a fast path for text that is already printable (most of it)."""
    if len(text) <= limit and (text.replace("\n", "") if keep_newlines else text).isprintable():
        return text
    return clean(text, limit, keep_newlines=keep_newlines)


def readable(value: object) -> str:
    """``value`` as text with every lone surrogate (an undecodable byte of a file name) shown as U+FFFD."""
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    try:
        text = value if isinstance(value, str) else str(value)
    except Exception:  # noqa: BLE001  (a hostile __str__)
        return "<unprintable>"
    return _SURROGATE.sub("\ufffd", text)


def terminal(value: object, limit: int = 500) -> str:
    """One line for a terminal: escape sequences, BEL, NUL, bidi controls and line breaks shown as escapes.

    CI workflow commands (``::warning::``, ``##[``) are left to ``CommandSafeStream``, which sees whole lines: this
    text is also stored (ids, manifest paths), where '[' must stay '['."""
    return _clean(readable(value), limit)


def shell_word(value: object) -> str | None:
    """``value`` as one word a shell reads back as it is (``shlex.quote``: a space, ``<`` or ``;`` would split or
    redirect a command copied from a message), or None when it is shown with escapes, which name no file."""
    text = terminal(value)
    return shlex.quote(text) if text == value or text == str(value) else None


def md_code(value: object, limit: int = 2000, *, table: bool = False) -> str:
    """An inline code span holding ``value`` literally: nothing in it is a link, an image, HTML or emphasis.

    The fence is one backtick longer than any run inside, so the text cannot close the span; line breaks are
    escaped, so it cannot end the paragraph. In a table cell (``table``) pipes are escaped as GFM requires.
    """
    text = _clean(readable(value), limit)
    if not text:
        return ""
    if table:
        text = text.replace("|", "\\|")
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text[0] in "` " or text[-1] in "` " else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def md_cell(value: object, limit: int = 2000) -> str:
    """``md_code`` for a table cell."""
    return md_code(value, limit, table=True)


def md_fence(lines: list[str] | tuple[str, ...], limit: int = 500) -> str:
    """A fenced code block of ``lines``: the fence is longer than any backtick run, so no line can close it."""
    body = [_clean(readable(line), limit) for line in lines]
    longest = max((len(run) for line in body for run in _BACKTICKS.findall(line)), default=0)
    fence = "`" * max(3, longest + 1)
    return "\n".join([fence, *body, fence])


def md_text(value: object, limit: int = 2000) -> str:
    """Prose with every ASCII punctuation character backslash-escaped (CommonMark allows it for all of them)."""
    text = _clean(readable(value), limit)
    return re.sub(r"([!-/:-@\[-`{-~])", r"\\\1", text)


def csv_cell(value: object, limit: int = 2000) -> str:
    """A spreadsheet cell that is never evaluated: a leading quote before ``= + - @``, tab or CR."""
    text = _clean(readable(value), limit)
    if text.startswith(_FORMULA_START) or text.lstrip().startswith(_FORMULA_START):
        return "'" + text
    return text


def xml_text(value: object, limit: int = 4000) -> str:
    """Text for an XML attribute or element: controls shown as escapes, and nothing XML 1.0 forbids."""
    return _XML_FORBIDDEN.sub("", _clean(readable(value), limit, keep_newlines=True))


def html_text(value: object) -> object:
    """Jinja ``finalize`` for the HTML templates: strings lose hidden characters (autoescape does the rest)."""
    if isinstance(value, str) and not hasattr(value, "__html__"):
        return _clean(readable(value), 100_000, keep_newlines=True)
    return value


def has_surrogate(text: str) -> bool:
    return _SURROGATE.search(text) is not None


#: GitHub Actions runs a line as a command when it starts with ``::`` after leading whitespace, and a line holding
#: ``##[`` anywhere (its legacy form); Azure Pipelines runs ``##vso[`` anywhere in a line. The runners split lines
#: at LF, CR and CRLF.
_CI_BRACKET = re.compile(r"##(?:vso)?\[", re.IGNORECASE)
_LINE_BREAK = re.compile(r"(\r\n|\r|\n)")


class CommandSafeStream:
    """stdout or stderr with workflow commands neutralised, whoever prints and whatever text a student chose.

    A file named ``::add-mask::x.py`` or ``::stop-commands::t.py`` would otherwise make a summary line, a progress
    note or an error start with ``::`` and be executed by the CI runner (mask the log, stop every later command,
    raise an annotation). A line's first two non-blank characters are never ``::`` here (a backslash goes before
    them), and the ``[`` of ``##[`` or ``##vso[`` is written ``\\u005b``, which JSON reads back as ``[``: ``--json``
    output stays valid and keeps every value. The state spans ``write`` calls, since ``print`` writes a line in
    pieces. Every other attribute (``isatty``, ``fileno``, ``encoding``) is the wrapped stream's.
    """

    def __init__(self, stream: TextIO) -> None:
        self.wrapped = stream
        self._lead = ""  # the current line's first non-blank characters so far (at most two)
        self._tail = ""  # the current line's last few characters, for a ``##[`` split between writes

    def write(self, text: str) -> int:
        self.wrapped.write(self.neutralise(text))
        return len(text)

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def neutralise(self, text: str) -> str:
        out: list[str] = []
        for piece in _LINE_BREAK.split(text):
            if _LINE_BREAK.fullmatch(piece):
                out.append(piece)
                self._lead = self._tail = ""
                continue
            out.append(self._piece(piece))
        return "".join(out)

    def _piece(self, piece: str) -> str:
        if len(self._lead) < 2:
            rest = piece.lstrip() if not self._lead else piece
            if (self._lead + rest[:2]).startswith("::"):
                piece = piece[: len(piece) - len(rest)] + "\\" + rest
                rest = piece.lstrip() if not self._lead else piece
            self._lead = (self._lead + rest)[:2]
        joined = self._tail + piece
        starts = [m.end() - 1 - len(self._tail) for m in _CI_BRACKET.finditer(joined)]
        for at in reversed([s for s in starts if s >= 0]):
            piece = piece[:at] + "\\u005b" + piece[at + 1:]
        self._tail = (self._tail + piece)[-5:]
        return piece

    def __getattr__(self, name: str):
        return getattr(self.wrapped, name)


def ci_text(text: str) -> str:
    """``text`` with no line a CI runner would execute (see ``CommandSafeStream``): for the step summary."""
    return CommandSafeStream(None).neutralise(text)  # type: ignore[arg-type]
