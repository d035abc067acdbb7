"""Cells of a script that Jupytext wrote from a notebook (``jupytext --to py:percent`` or ``py:light``, or a notebook
paired with a .py file), read back as Jupytext reads them.

Jupytext keeps a notebook's IPython syntax in a .py file by commenting it out: ``%%writefile helpers.py`` becomes
``# %%writefile helpers.py``, ``%time x = f()`` becomes ``# %time x = f()``, ``!pip install`` becomes ``# !pip
install``; reading the file back, it removes that one ``# `` again. Read as plain Python, the commented lines are
comments: ``x`` was never assigned, ``helpers.py`` was never written and ``import helpers`` failed, and a right
solution lost every point. Worse, the percent format's cell marker is ``# %%`` followed by a blank or the line's
end, so a ``# %%writefile`` line is not a marker for Jupytext, though a loose reading of ``# %%`` takes it for one.

The light format has no marker on every cell: a code cell is a paragraph (cells are separated by blank lines), or
a region between ``# +`` and ``# -`` when it holds blank lines; a paragraph made only of comments is markdown
unless one of its lines is a commented magic. A paragraph split where Jupytext would not split it runs the same
in one namespace, so the rule below only has to find every boundary Jupytext wrote.

Only a file that starts with Jupytext's header (``# ---`` / ``# jupyter:`` ... ``jupytext:`` ... ``# ---``) is read
this way: without it a ``# %%`` file may be VS Code's or Spyder's, which comment nothing out. Every step is one pass
over the file's lines, since the file is the student's and is read in the grader's own process.
"""
from __future__ import annotations

import re
from itertools import chain, compress, islice, repeat
from operator import and_, contains, itemgetter, not_, or_
from typing import Iterator

#: the header's first and last line, and the key that says Jupytext wrote it
_FENCE = re.compile(r"#[ \t]*---[ \t]*\r?\n?\Z")
_JUPYTEXT_KEY = re.compile(r"#[ \t]+jupytext:")
_FORMAT = re.compile(r"#[ \t]+format_name:[ \t]*(\w+)")
#: lines the header may have before it: a shebang, an encoding declaration
_PREAMBLE = re.compile(r"#!|#.*coding[:=]")
HEADER_LINES = 200
#: longer scripts are read as the plain scripts they also are (cut at '# %%' markers, their magics left commented):
#: reading one is a step in Python per line that holds a '#' or a quote, 3.5 s for 8 MiB of '#' lines; no
#: notebook's cells, at most 10,000 of them, come near this many lines
MAX_LINES = 200_000
#: Jupytext's percent marker: '# %%' then a blank or the line's end ('# %%writefile' is a commented magic)
PERCENT_MARKER = re.compile(r"[ \t]*#[ \t]*%%(%*)(?:[ \t]|\r?\n?\Z)")
_TEXT_OPTIONS = re.compile(r"\[(?:markdown|md|raw)\]")
#: the light format's explicit region: '# +' (with options) opens a cell, '# -' closes it
_LIGHT_START = re.compile(r"#[ \t]*\+(?:[ \t]|\r?\n?\Z)")
_LIGHT_END = re.compile(r"#[ \t]*-[ \t]*\r?\n?\Z")
#: the IPython syntax Jupytext comments out (its own patterns for Python, less a bare 'ls' or 'cd' and a trailing
#: '?', which a comment written in English may look like and which would do nothing while grading anyway). The
#: leading blanks and '# ' are taken possessively: no alternative starts with a '#', and the one that starts with
#: blanks reads them itself, so giving them back one at a time (each time reading the rest again: 14 s for a
#: line of 60,000 blanks) never found a match.
_MAGIC = re.compile(r"[ \t]*+(?:# ?)*+(?:%{1,3}[A-Za-z]|[?!][ \t]*[A-Za-z.~$\\/{}]"
                    r"|[ \t]*[A-Za-z_][\w$]*[ \t]*=[ \t]*(?:%{1,3}|!)[A-Za-z])")
_NOT_ESCAPED = re.compile(r"[ \t]*+(?:# ?)*+%{1,3}[A-Za-z].*#[ \t]*noescape")
_CONTINUED = re.compile(r".*\\[ \t]*\r?\n?\Z")


def _first_lines(text: str, count: int) -> list[str]:
    """``text.splitlines(keepends=True)[:count]``, without splitting the whole text (every .py file is asked for its
    header: 8 MiB of short lines took 0.3 s and 300 MB to split): a longer and longer start of it is split, until it
    holds a line more than asked for (the last line of a start may be cut short) or is the whole text."""
    size = 1 << 14
    while True:
        lines = text[:size].splitlines(keepends=True)
        if len(lines) > count or size >= len(text):
            return lines[:count]
        size *= 8


def format_name(text: str) -> str | None:
    """'percent' or 'light' (or another name the header gives) when ``text`` starts with Jupytext's header, else
    None. A header without a format name is read as percent when a line is a percent marker, else as light."""
    lines = _first_lines(text, HEADER_LINES + 3)
    first = 0
    while first < min(2, len(lines)) and _PREAMBLE.match(lines[first]):
        first += 1
    if first >= len(lines) or not _FENCE.match(lines[first]):
        return None
    last = next((i for i in range(first + 1, len(lines)) if _FENCE.match(lines[i]) or not lines[i].startswith("#")),
                len(lines))
    if last >= len(lines) or not _FENCE.match(lines[last]):
        return None
    header = lines[first + 1: last]
    if not any(_JUPYTEXT_KEY.match(h) for h in header):
        return None
    for h in header:
        if found := _FORMAT.match(h):
            return found[1]
    return "percent" if any(PERCENT_MARKER.match(h) for h in islice(text.splitlines(), MAX_LINES)) else "light"


#: where ``_in_string_after`` has something to do: a comment, or a quote opening a string
_STRING_OR_COMMENT = re.compile(r"[#'\"]")
#: the rest of a single-quoted string's body after its quote, to its closing quote or the line's end (an escaped
#: character skipped, as the tokenizer skips it)
_REST_OF_STRING = {c: re.compile(rf"(?:[^{c}\n\\]++|\\.?)*+", re.S) for c in "'\""}


def _in_string_after(line: str, quote: str | None) -> str | None:
    """The triple quote still open after ``line`` (``quote`` the one open before it): a commented magic inside a
    docstring is text, which Jupytext leaves alone. Single-quoted strings and comments are skipped on the way, each
    by a search of ``re`` rather than a step per character, since a file holds millions of them."""
    i = 0
    while True:
        if quote:
            end = line.find(quote, i)
            if end < 0:
                return quote
            i, quote = end + 3, None
            continue
        found = _STRING_OR_COMMENT.search(line, i)
        if found is None or found.group() == "#":
            return None
        i = found.start()
        c = line[i]
        if line.startswith(c * 3, i):
            quote, i = c * 3, i + 3
            continue
        i = _REST_OF_STRING[c].match(line, i + 1).end() + 1


def is_magic(line: str) -> bool:
    """Whether ``line`` is IPython syntax, commented out or not, as Jupytext's reader tells."""
    return bool(_MAGIC.match(line)) and not _NOT_ESCAPED.match(line)


def uncomment_magics(source: str) -> str:
    """A code cell's source with the one '# ' Jupytext put before each line of IPython syntax taken away (a line that
    was a comment in the notebook was written with two, and keeps one); every line keeps its place."""
    if not any(c in source for c in "%!?"):  # every magic has one of these: most cells are read in C alone
        return source
    lines = source.splitlines(keepends=True)
    quote, continued = None, False
    for n, line in enumerate(lines):
        if quote is None and (continued or is_magic(line)):
            stripped = line.lstrip(" \t")
            if stripped.startswith("#"):
                lines[n] = line[: len(line) - len(stripped)] + stripped[2 if stripped.startswith("# ") else 1:]
            continued = bool(_CONTINUED.match(line))
        else:
            continued = False
        quote = _in_string_after(line, quote)
    return "".join(lines)


def _header_end(lines: list[str]) -> int:
    """Index of the first line after the header."""
    first = next(i for i, line in enumerate(lines) if _FENCE.match(line))
    return next(i for i in range(first + 1, len(lines)) if _FENCE.match(lines[i])) + 1


def _marked(lines: list[str], start: int) -> Iterator[bool]:
    """For each line from ``start``, whether it holds a '#' or a quote, the lines where a cell's marker or a string
    may be: told in C, with no object kept per line (a match object per line of an 8 MiB file took 1 GB and the
    collector's time)."""
    rest = [islice(lines, start, None) for _ in "#'\""]
    return map(or_, map(or_, map(contains, rest[0], repeat("#")), map(contains, rest[1], repeat("'"))),
               map(contains, rest[2], repeat('"')))


def _percent_parts(lines: list[str], start: int, most: int) -> list[tuple[int, int, bool]]:
    """(first line, end line, is text) of each cell of a percent file, the marker's line left out; the reading
    stops once there are more than ``most``. Only lines holding a '#' (a marker) or a quote (a string opening or
    closing) can change anything, so only those are looked at, found by ``re`` (a file of millions of plain
    lines took seconds line by line)."""
    parts, begin, text, quote = [], start, False, None
    for i in compress(range(start, len(lines)), _marked(lines, start)):
        if quote is None and PERCENT_MARKER.match(lines[i]):
            parts.append((begin, i, text))
            if len(parts) > most:
                return parts
            begin, text = i + 1, bool(_TEXT_OPTIONS.search(lines[i]))
        quote = _in_string_after(lines[i], quote)
    parts.append((begin, len(lines), text))
    return parts


def _light_parts(lines: list[str], start: int, most: int) -> list[tuple[int, int, bool]]:
    """(first line, end line, is text) of each cell of a light file: '# +' ... '# -' regions, and paragraphs that
    start at column 0 after a blank line; a paragraph of comments alone is text unless it holds a magic. Jupytext
    writes '# -' only where no '# +' follows: the next '# +' ends a region too. The reading stops once there are
    more than ``most`` (a file of 8 MiB of short paragraphs took 4 s to cut into its million cells).

    Only lines holding a '#' or a quote, and blank lines before a line at the margin, can change anything (a blank
    line holds no quote and no marker), so only those are looked at, found in C (``re``, ``map``, ``compress``): a
    file of millions of blank or plain lines took seconds line by line."""
    parts: list[tuple[int, int, bool]] = []
    blank = list(map(str.isspace, lines))  # (no line is empty: each keeps its end)
    begin, region, quote = start, False, None

    def close(end: int, explicit: bool = False) -> None:
        body = list(compress(lines[begin:end], map(not_, blank[begin:end])))  # its lines that are not blank
        text = not explicit and all(line.lstrip().startswith("#") for line in body) and not any(
            is_magic(line) for line in body)
        if body:
            parts.append((begin, end, text and not _TEXT_OPTIONS.search(lines[begin - 1] if begin else "")))

    at_margin = map(not_, map(str.isspace, map(itemgetter(0), islice(lines, start + 1, None))))  # a paragraph's start
    before_margin = map(and_, islice(blank, start, None), chain(at_margin, [False]))
    seen = map(or_, _marked(lines, start), before_margin)
    for i in compress(range(start, len(lines)), seen):
        line = lines[i]
        if quote is None and _LIGHT_START.match(line):  # it also ends an open region, as Jupytext writes it
            close(i, explicit=region)
            begin, region = i + 1, not _TEXT_OPTIONS.search(line)
        elif quote is None and region and _LIGHT_END.match(line):
            close(i, explicit=True)
            begin, region = i + 1, False
        elif quote is None and not region and blank[i] and i + 1 < len(lines) and not lines[i + 1][0].isspace():
            close(i)
            begin = i + 1
        if len(parts) > most:
            return parts
        quote = _in_string_after(line, quote)
    close(len(lines), explicit=region)
    return parts


def sources(text: str, max_cells: int) -> tuple[list[tuple[str, int, int, str, int]], list[tuple[int, str]]] | None:
    """The code cells of a Jupytext script, each as (source with its magics uncommented, cell number, code cell
    number, 'the cell at line N', line offset), and its text cells as (line, text); the whole file as one cell when
    it has no code cell. None when ``text`` is not a Jupytext script of a format read here, or has more than
    ``max_cells`` cells or ``MAX_LINES`` lines (the caller's own reading then refuses it or reads it as the plain
    script it also is)."""
    name = format_name(text)
    if name not in ("percent", "light"):
        return None
    lines = text.splitlines(keepends=True)
    if len(lines) > MAX_LINES:
        return None
    start = _header_end(lines)
    parts = (_percent_parts if name == "percent" else _light_parts)(lines, start, max_cells)
    if len(parts) > max_cells:
        return None
    code, prose = [], []
    for number, (begin, end, is_text) in enumerate(parts, start=1):
        body = "".join(lines[begin:end])
        if is_text:
            prose.append((begin + 1, body))
        elif body.strip():
            code.append((uncomment_magics(body), number, len(code) + 1, f"the cell at line {begin + 1}", begin))
    return code or [(text, 1, 1, "the file", 0)], prose
