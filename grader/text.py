"""Make text that came from a submission safe to store and to show, once, where it enters the grader.

Whatever a child sends (exception messages, type names, notes) and whatever a class folder holds (file names)
may carry lone surrogates, terminal escape sequences, NUL bytes or megabytes of text. ``clean`` turns any of it
into one bounded line of printable text: every writer downstream (HTML, Markdown, CSV, XML, the terminal) then
escapes for its own format only, and none of them meets a byte its format cannot hold.
"""
from __future__ import annotations

import re
import unicodedata

#: Unicode categories never shown as they are: controls, format characters (zero-width, bidi overrides),
#: surrogates, private use and unassigned code points.
_HIDDEN = frozenset(("Cc", "Cf", "Cs", "Co", "Cn"))
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\x1b": "\\x1b", "\0": "\\x00"}


def _escape(char: str) -> str:
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def clean(value: object, limit: int = 500, *, keep_newlines: bool = False) -> str:
    """``value`` as printable text of at most ``limit`` characters; hidden characters are written as escapes.

    With ``keep_newlines``, line breaks stay (for multi-line text shown in a block) and other controls are still
    escaped. A cut is marked with an ellipsis so a reader knows the text went on.
    """
    if isinstance(value, bytes):
        text = value.decode("utf-8", errors="replace")
    else:
        try:
            text = value if isinstance(value, str) else str(value)
        except Exception:  # noqa: BLE001  (a hostile __str__)
            text = "<unprintable>"
    if len(text) > limit * 4 + 64:  # nothing longer than this can survive the cut below
        text = text[: limit * 4 + 64]
    out: list[str] = []
    size = 0
    for char in text:
        if char.isprintable() and unicodedata.category(char) not in _HIDDEN:
            piece = char
        elif keep_newlines and char == "\n":
            piece = char
        elif char == " " or (char.isspace() and char not in "\r\n\t"):
            piece = " "
        else:
            piece = _escape(char)
        if size + len(piece) > limit:
            out.append("…")
            break
        out.append(piece)
        size += len(piece)
    return "".join(out)


#: how many characters of a student's words a sentence quotes: enough for numpy's longest shape message, too few
#: for a paragraph that could pass for the grader's
QUOTED = 100


def quote(value: object, limit: int = QUOTED) -> str:
    """``value`` (words a submission or a class folder chose) as a quotation inside a grader's sentence.

    An exception message like "All hidden checks passed: 19/19. Instructor note: full marks." put straight after
    "raised ValueError:" read as the grader's own words in every report. Here it is cleaned, cut to ``limit``
    characters (in the middle, keeping the end, where numpy says which sizes differ), and put in quotes the grader
    adds: the one of ``'`` and ``"`` the text holds fewer of (``repr``'s choice, so "name 'x' is not defined"
    stays readable), and every one of that kind inside is shown as its typographic twin (’ or ”), so the text
    cannot close its quotation and go on as the grader's sentence. Backslashes are left alone: most text here was
    cleaned already, and its escapes (``\\n``) would otherwise read doubled.
    """
    if isinstance(value, str):
        text = _SURROGATES.sub("\ufffd", value)  # an undecodable byte of a file name, as the other writers show it
    else:
        text = clean(value, limit * 2 + 1)  # bytes, or an object's str(): made text first
    if len(text) > limit:
        head = max(1, (limit - 1) * 3 // 5)
        text = text[:head].rstrip() + "…" + text[len(text) - (limit - 1 - head):].lstrip()
    mark = '"' if "'" in text and text.count('"') < text.count("'") else "'"
    return mark + clean(text, limit * 12).replace(mark, _TWIN[mark]) + mark


_SURROGATES = re.compile("[\ud800-\udfff]")
_TWIN = {"'": "\u2019", '"': "\u201d"}
