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

#: the header's first and last line, and the key that says Jupytext wrote it
_FENCE = re.compile(r"#[ \t]*---[ \t]*\r?\n?\Z")
_JUPYTEXT_KEY = re.compile(r"#[ \t]+jupytext:")
_FORMAT = re.compile(r"#[ \t]+format_name:[ \t]*(\w+)")
#: lines the header may have before it: a shebang, an encoding declaration
_PREAMBLE = re.compile(r"#!|#.*coding[:=]")
HEADER_LINES = 200
#: Jupytext's percent marker: '# %%' then a blank or the line's end ('# %%writefile' is a commented magic)
PERCENT_MARKER = re.compile(r"[ \t]*#[ \t]*%%(%*)(?:[ \t]|\r?\n?\Z)")
_TEXT_OPTIONS = re.compile(r"\[(?:markdown|md|raw)\]")
#: the light format's explicit region: '# +' (with options) opens a cell, '# -' closes it
_LIGHT_START = re.compile(r"#[ \t]*\+(?:[ \t]|\r?\n?\Z)")
_LIGHT_END = re.compile(r"#[ \t]*-[ \t]*\r?\n?\Z")
#: the IPython syntax Jupytext comments out (its own patterns for Python, less a bare 'ls' or 'cd' and a trailing
#: '?', which a comment written in English may look like and which would do nothing while grading anyway)
_MAGIC = re.compile(r"[ \t]*(?:# ?)*(?:%{1,3}[A-Za-z]|[?!][ \t]*[A-Za-z.~$\\/{}]"
                    r"|[ \t]*[A-Za-z_][\w$]*[ \t]*=[ \t]*(?:%{1,3}|!)[A-Za-z])")
_NOT_ESCAPED = re.compile(r"[ \t]*(?:# ?)*%{1,3}[A-Za-z].*#[ \t]*noescape")
_CONTINUED = re.compile(r".*\\[ \t]*\r?\n?\Z")


def format_name(text: str) -> str | None:
    """'percent' or 'light' (or another name the header gives) when ``text`` starts with Jupytext's header, else
    None. A header without a format name is read as percent when a line is a percent marker, else as light."""
    lines = text.splitlines(keepends=True)[: HEADER_LINES + 3]
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
    return "percent" if any(PERCENT_MARKER.match(h) for h in text.splitlines()) else "light"


def _in_string_after(line: str, quote: str | None) -> str | None:
    """The triple quote still open after ``line`` (``quote`` the one open before it): a commented magic inside a
    docstring is text, which Jupytext leaves alone. Single-quoted strings and comments are skipped on the way."""
    i, n = 0, len(line)
    while i < n:
        if quote:
            end = line.find(quote, i)
            if end < 0:
                return quote
            i, quote = end + 3, None
            continue
        c = line[i]
        if c == "#":
            return None
        if c in "'\"":
            if line.startswith(c * 3, i):
                quote, i = c * 3, i + 3
                continue
            end = i + 1
            while end < n and line[end] not in (c, "\n"):
                end += 2 if line[end] == "\\" else 1
            i = end + 1
            continue
        i += 1
    return quote


def is_magic(line: str) -> bool:
    """Whether ``line`` is IPython syntax, commented out or not, as Jupytext's reader tells."""
    return bool(_MAGIC.match(line)) and not _NOT_ESCAPED.match(line)


def uncomment_magics(source: str) -> str:
    """A code cell's source with the one '# ' Jupytext put before each line of IPython syntax taken away (a line that
    was a comment in the notebook was written with two, and keeps one); every line keeps its place."""
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


def _percent_parts(lines: list[str], start: int) -> list[tuple[int, int, bool]]:
    """(first line, end line, is text) of each cell of a percent file, the marker's line left out."""
    parts, begin, text, quote = [], start, False, None
    for i in range(start, len(lines)):
        if quote is None and PERCENT_MARKER.match(lines[i]):
            parts.append((begin, i, text))
            begin, text = i + 1, bool(_TEXT_OPTIONS.search(lines[i]))
        quote = _in_string_after(lines[i], quote)
    parts.append((begin, len(lines), text))
    return parts


def _light_parts(lines: list[str], start: int) -> list[tuple[int, int, bool]]:
    """(first line, end line, is text) of each cell of a light file: '# +' ... '# -' regions, and paragraphs that
    start at column 0 after a blank line; a paragraph of comments alone is text unless it holds a magic. Jupytext
    writes '# -' only where no '# +' follows: the next '# +' ends a region too."""
    parts: list[tuple[int, int, bool]] = []
    begin, region, quote, i = start, False, None, start

    def close(end: int, explicit: bool = False) -> None:
        body = lines[begin:end]
        text = not explicit and all(line.lstrip().startswith("#") or not line.strip() for line in body) and not any(
            is_magic(line) for line in body)
        if any(line.strip() for line in body):
            parts.append((begin, end, text and not _TEXT_OPTIONS.search(lines[begin - 1] if begin else "")))

    while i < len(lines):
        line = lines[i]
        if quote is None and _LIGHT_START.match(line):  # it also ends an open region, as Jupytext writes it
            close(i, explicit=region)
            begin, region = i + 1, not _TEXT_OPTIONS.search(line)
        elif quote is None and region and _LIGHT_END.match(line):
            close(i, explicit=True)
            begin, region = i + 1, False
        elif (quote is None and not region and not line.strip() and i + 1 < len(lines) and lines[i + 1].strip()
              and not lines[i + 1][0].isspace()):
            close(i)
            begin = i + 1
        quote = _in_string_after(line, quote)
        i += 1
    close(len(lines), explicit=region)
    return parts


def sources(text: str, max_cells: int) -> tuple[list[tuple[str, int, int, str, int]], list[tuple[int, str]]] | None:
    """The code cells of a Jupytext script, each as (source with its magics uncommented, cell number, code cell
    number, 'the cell at line N', line offset), and its text cells as (line, text); the whole file as one cell when
    it has no code cell. None when ``text`` is not a Jupytext script of a format read here, or has more than
    ``max_cells`` cells (the caller's own reading then refuses it or reads it as one cell)."""
    name = format_name(text)
    if name not in ("percent", "light"):
        return None
    lines = text.splitlines(keepends=True)
    start = _header_end(lines)
    parts = (_percent_parts if name == "percent" else _light_parts)(lines, start)
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
