"""Why a ``.ipynb`` file is not readable JSON, said in terms of what the student did.

A student who submits a broken notebook mostly did one of a few things: saved the browser's page instead of the
notebook (HTML), renamed a PDF or a zip, kept git's conflict markers after a merge, edited the JSON by hand and
left a trailing comma, re-saved it in a legacy encoding, or had the file cut off while copying it. A decoder's
"Expecting value: line 1 column 1" says none of that, so each case gets its own sentence.

This runs in the grader's process on hostile bytes: every test here is a prefix check or one linear search. The
count of a file's JSON values (``json_values``), taken before the file is read at all, lives here too, and so
does the sentence for a file whose name does not end in .py or .ipynb (``unsupported_name``): a browser or an editor
saved 'hw.ipynb' as 'hw.ipynb.txt', the notebook went into a zip, or it was exported as HTML or PDF instead.
"""
from __future__ import annotations

import codecs
import json
import re
from pathlib import Path

from . import escape
from .ipython import compile_error
from .text import quote

#: git's conflict markers, each at the start of a line; all three must be there
_CONFLICT = (re.compile(rb"^<<<<<<< ", re.M), re.compile(rb"^=======\r?$", re.M), re.compile(rb"^>>>>>>> ", re.M))
#: the largest text checked for being Python source instead (as ``submission.MAX_CHECKED_CELL``)
_PYTHON_CHECK_LIMIT = 128 << 10

#: JSON values (lists, objects, strings, numbers) in a notebook's file, counted before it is read (``json_values``):
#: each takes 50 to 80 bytes once read, so 64 MiB of '[],' would take 1.8 GB and of '"ab",' 1.1 GB, in the
#: grader's own process and once per worker. A real notebook holds tens of thousands; more is refused.
MAX_JSON_VALUES = 2_000_000
#: the rest of a JSON string after its opening quote, closing quote included; possessive, so a string that never
#: closes costs one pass over the text, not one per later quote
_JSON_STRING_REST = re.compile(rb'(?:[^"\\]++|\\.)*+"', re.S)


def why_not_json(raw: bytes, name: str, exc: Exception) -> str:
    """The error message for ``raw`` (the file ``name``), which ``json.loads`` refused with ``exc``."""
    if type(exc) is ValueError:  # not a decoding error: Python refuses an integer of more than 4,300 digits
        return f"{name} is not a readable notebook: it holds a number thousands of digits long, as no notebook does."
    head = raw[:1024].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if head.startswith((b"<!doctype html", b"<html", b"<head", b"<?xml")):
        return (f"{name} is a web page (HTML), not the notebook's file: it was saved from the browser (Save Page "
                "As, or GitHub's page view); download the notebook itself (File > Download > .ipynb in Jupyter or "
                "Colab, 'Download raw file' on GitHub) and submit that file.")
    if head.startswith(b"%pdf-"):
        return (f"{name} is a PDF document renamed to .ipynb, not a notebook: submit the notebook's own .ipynb "
                "file (File > Download > .ipynb), not a printout of it.")
    if raw.startswith(b"PK\x03\x04"):
        return (f"{name} is a zip archive renamed to .ipynb, not a notebook: unzip it and submit the .ipynb file "
                "inside.")
    if raw.startswith(b"\x1f\x8b"):
        return (f"{name} is a gzip-compressed file renamed to .ipynb, not a notebook: decompress it (gunzip) and "
                "submit the .ipynb file it holds.")
    if head.startswith(b"version https://git-lfs.github.com/spec/"):
        return (f"{name} is a Git LFS pointer (three lines that stand for the notebook, which git keeps elsewhere), "
                "not the notebook: run 'git lfs pull' in your repository, or download the file from GitHub's page "
                "of it, and submit the real notebook.")
    if re.match(rb"---\r?\n(?:[^\n]*\n){0,3}?jupyter:", head):
        return (f"{name} is a Jupytext Markdown file (it opens with a '---' header naming 'jupyter'), not a "
                "notebook: open it in Jupyter with Jupytext and save it as a notebook, or run 'jupytext --to "
                "notebook' on it, and submit the .ipynb file.")
    where = f" ({exc})" if str(exc) else ""
    start = f"{name} is not valid JSON, so it is not a readable notebook"
    if all(marker.search(raw) for marker in _CONFLICT):
        line = raw.count(b"\n", 0, _CONFLICT[0].search(raw).start()) + 1
        return (f"{start}: it holds git's merge conflict markers ('<<<<<<<', '=======', '>>>>>>>', the first at line "
                f"{line}); keep one side of each conflict and delete the markers (or run 'nbdime mergetool'), then "
                "open it in Jupyter, save it, and submit it again.")
    if isinstance(exc, UnicodeDecodeError):
        return (f"{start}: it is not saved as UTF-8, as every notebook is ({exc.reason}: byte "
                f"0x{exc.object[exc.start]:02x} at position {exc.start:,}), so it was converted or edited outside "
                "Jupyter.")
    if isinstance(exc, json.JSONDecodeError):
        specific = _json_mistake(exc)
        if specific:
            return f"{start}: {specific}."
    if raw.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] not in (b"{", b"[") and len(raw) <= _PYTHON_CHECK_LIMIT \
            and compile_error(raw.decode("utf-8", "replace")) is None:
        return (f"{start}{where}. It looks like Python source: save it with a .py extension, or submit the real "
                "notebook.")
    return f"{start}{where}."


def _json_mistake(exc: json.JSONDecodeError) -> str:
    """A hand edit's trailing comma, or a file cut off part-way, from where the decoder stopped; else ''."""
    doc, pos = exc.doc, exc.pos
    if pos >= len(doc.rstrip()) or exc.msg.startswith("Unterminated string"):
        return (f"it ends part-way through (line {exc.lineno:,}, column {exc.colno:,}), so it was cut off while "
                "being saved, copied or uploaded")
    if exc.msg == "Extra data":
        return (f"a complete JSON document ends before line {exc.lineno:,}, column {exc.colno:,}, and more text "
                "follows it (two files joined into one, or text added after the notebook's closing brace)")
    before = doc[max(0, pos - 256):pos].rstrip()
    if doc[pos:pos + 1] in ("}", "]") and before.endswith(","):
        return (f"there is a comma before the closing '{doc[pos]}' at line {exc.lineno:,}, column {exc.colno:,} (a "
                "trailing comma, which JSON does not allow), so the file was edited by hand; delete that comma")
    return ""


def json_values(raw: bytes) -> int:
    """How many values the JSON text ``raw`` holds, at most: its commas, '[' and '{' outside strings, and its
    strings, in the encoding ``json.loads`` reads it in. Counted over the whole text first (commas and quotes inside
    strings too: milliseconds), and again string by string, skipping what is inside each, only when that first count
    is over ``MAX_JSON_VALUES`` (a notebook that printed millions of numbers has as many commas in its outputs'
    text); that second count stops once it is over the cap."""
    encoding = json.detect_encoding(raw)  # what json.loads will read it as: in UTF-16 or -32, a 0x22 byte
    if encoding not in ("utf-8", "utf-8-sig"):  # may be half of another character, not a quote
        raw = raw.decode(encoding, errors="replace").encode("utf-8")
    rough = raw.count(b",") + raw.count(b"[") + raw.count(b"{") + raw.count(b'"') // 2 + 1
    if rough <= MAX_JSON_VALUES:
        return rough
    # string by string, left to right, each scanned once; stopped once over the cap (at most MAX_JSON_VALUES steps)
    values, position, end = 1, 0, len(raw)
    while values <= MAX_JSON_VALUES:
        quote = raw.find(b'"', position)
        stop = end if quote < 0 else quote
        values += raw.count(b",", position, stop) + raw.count(b"[", position, stop) + raw.count(b"{", position, stop)
        if quote < 0:
            break
        closed = _JSON_STRING_REST.match(raw, quote + 1)
        if closed is None:  # a string that never closes: not JSON, which reading it will say
            break
        values += 1
        position = closed.end()
    return values


#: what a notebook becomes when downloaded as something else, and archives a notebook was packed into
_EXPORTS = {".html": "a web page", ".htm": "a web page", ".pdf": "a PDF", ".md": "a Markdown", ".tex": "a LaTeX"}
_ARCHIVES = (".zip", ".tar", ".gz", ".tgz", ".7z", ".rar", ".bz2", ".xz")


def misnamed(path: Path) -> bool:
    """Whether ``path`` is most likely a submission under another name (``hw.ipynb.txt``, ``hw.zip``, ``hw.html``):
    a class folder's file of that kind gets a row saying so, where a README or a grades sheet is only left out."""
    return (Path(path.stem).suffix.lower() in (".py", ".ipynb") or path.suffix.lower() in _ARCHIVES
            or path.suffix.lower() in (".html", ".htm", ".pdf"))


def shown_name(path: Path) -> str:
    """A file's name in a sentence: the student's words, so quoted (``text.quote``) and short. A file named
    ``All checks passed. Score 19 of 19. x.py`` opened "... is a symbolic link" with what read as the grader's
    own sentence, in the report, the LMS comment and the class summary."""
    return quote(path.name, 80)


def unsupported_name(path: Path) -> str:
    """Why a file of another suffix is not graded, said as what most likely happened to it: a browser or an editor
    that saved 'hw.ipynb' as 'hw.ipynb.txt', a notebook zipped or exported (File > Download as HTML or PDF)."""
    suffix, name = path.suffix.lower(), shown_name(path)
    inner = Path(path.stem).suffix.lower()
    if inner in (".py", ".ipynb"):
        return (f"{name} is named like a {inner} file with '{escape.terminal(path.suffix, 40)}' added after it (a "
                f"browser or an editor does that when it saves): rename it to {quote(path.stem, 80)} and "
                "submit it again.")
    if suffix in _ARCHIVES:
        return f"{name} is an archive: unpack it and submit the .ipynb notebook or .py file that is inside."
    if suffix in _EXPORTS:
        return (f"{name} is {_EXPORTS[suffix]} copy of the work, which cannot be run: submit the notebook itself "
                "(the .ipynb file; in Jupyter or Colab, File > Download > .ipynb) or a .py file.")
    return (f"Cannot grade a '{escape.terminal(suffix, 40) or 'extensionless'}' file ({name}): submit a .py file or "
            "a .ipynb notebook.")


#: byte-order marks of the encodings Python never reads source in, longest first (UTF-32's starts like UTF-16's)
_WIDE_BOMS = ((codecs.BOM_UTF32_LE, "UTF-32"), (codecs.BOM_UTF32_BE, "UTF-32"), (codecs.BOM_UTF16_LE, "UTF-16"),
              (codecs.BOM_UTF16_BE, "UTF-16"))


#: encodings a '# coding:' line may name whose decoder is Python code slower than linear: punycode's took 65 s for
#: 800 KB (its insertions are quadratic), in the grader's own process; no editor saves source in it
_SLOW_DECODERS = frozenset({"punycode"})


def slow_encoding(encoding: str, name: str) -> str | None:
    """Why the ``.py`` file ``name``, whose encoding declaration names ``encoding``, is not decoded; None for an
    encoding decoded in linear time (every one a student's editor writes)."""
    if codecs.lookup(encoding).name not in _SLOW_DECODERS:
        return None
    return (f"{name} declares its encoding as '{escape.terminal(encoding, 40)}' (its '# coding:' line), which is not "
            "an encoding editors save source files in: save it as UTF-8 and delete that line.")


def undecodable_python(raw: bytes, name: str, exc: Exception | None = None) -> str | None:
    """Why the ``.py`` file ``raw`` cannot be read as Python source: saved as UTF-16 or UTF-32 (by its byte-order
    mark, or a zero byte at every other place of its start, as ASCII text in UTF-16 has), which Python never reads
    and which it calls an 'invalid encoding declaration' or 'null bytes'; else, given the decoder's ``exc``, that
    error. None when nothing is wrong yet. Windows writes such files: Notepad's 'Unicode', PowerShell 5's ``>``
    (``jupyter nbconvert --to script --stdout nb.ipynb > hw.py``)."""
    wide = next((encoding for bom, encoding in _WIDE_BOMS if raw.startswith(bom)), None)
    head = raw[:200]
    if wide is None and len(head) >= 8 and 0 in (max(head[0::2]), max(head[1::2])):
        wide = "UTF-16"
    if wide is not None:
        return (f"{name} is saved as {wide} text, which Python cannot run (Windows' Notepad saves 'Unicode' so, and "
                "PowerShell's '>' writes it): save it as UTF-8 (Save As, Encoding: UTF-8) and submit it again.")
    if exc is None:
        return None
    return (f"{name} cannot be decoded as Python source ({escape.terminal(exc, 200)}). Save it as UTF-8, or declare "
            "its encoding with a '# -*- coding: ... -*-' line.")
