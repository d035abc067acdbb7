"""Similarity of the code students submitted: the pairs that are unusually alike, for a person to look at.

It never changes a score. Nothing here runs student code: each file is read as text, its cells split as
``submission.load`` splits them (every code cell of a notebook, every part of an exported script), and Python's
``tokenize`` reads the code.

How it works (MOSS's method: Schleimer, Wilkerson and Aiken, "Winnowing", SIGMOD 2003):

* **Normalised tokens.** Identifiers become ``V`` (keywords, builtins and attribute names after a dot stay, as a
  copier cannot rename them without changing what the code does), numbers ``N``, strings ``S``; comments,
  docstrings, blank lines, line breaks inside brackets, indentation and IPython line magics are dropped, and a
  ``%%time`` cell is read as the code inside it. So renamed variables, comments, docstrings and blank lines hide
  nothing, and reordered functions only cut the few runs that span a function's edge.
* **Fingerprints.** Every run of ``k`` tokens is hashed with a fixed hash (two runs give the same report) and
  winnowing keeps the smallest hash of every window of ``window`` runs: any run of ``k + window - 1`` tokens that
  two submissions share is found, whatever surrounds it.
* **What is not evidence.** The starter code and the exercise notebook's own cells (the self-check) are base code,
  and a run found in more than ``common`` of the submissions compared (10% by default, and more than 3) is a common
  passage, as MOSS does with its base files and its ``-m`` limit. Both are left out before anything is compared,
  so a class of short, correct, alike solutions has nothing left to match; but code one set of students shares end
  to end stays evidence however many hold it (``similarity_passages``: a solution passed around the class).
* **Cost.** Fingerprints are indexed by hash; only pairs that share enough of them are compared in full.

Why not a library: ``copydetect`` (the maintained Python winnowing tool) requires matplotlib and imports it with
any of its modules (0.9 s, and matplotlib would then sit on the sandboxed child's import path in place of the
stand-in), hashes with Python's salted ``hash()`` (scores change from one run to the next), and fingerprints a
file in 2-3 ms of pure Python. Winnowing itself is the ten lines of ``winnow`` below.

A pair is flagged when the code it shares covers at least ``threshold`` of the distinctive code (what is left
after base code and common passages) of one of the two, and at least ``min_tokens`` tokens of each.
"""
from __future__ import annotations

import ast
import builtins
import hashlib
import io
import json
import keyword
import os
import re
import stat
import time
import tokenize
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from . import escape, pysource
from .similarity_passages import member, shared_bodies, sorted_unique  # noqa: F401  (member: for the report)
from .submission import CELL_MARKER, MAX_BYTES, MAX_JSON_VALUES, SUFFIXES, decode_python, json_values

#: Characters of code compared per submission (the rest of a huge file is left out, and the page says so).
MAX_CHARS = 200_000
#: What ``tokenize`` may read again per character of a cell (``pysource.rescan_cost``); code that compiles reads
#: nothing again, and a cell over this is read with rough tokens (so a submission costs 0.2 s at most).
MAX_RESCAN = 4
_UINT64_MAX = np.uint64(np.iinfo(np.uint64).max)
_KEEP_NAMES = frozenset(dir(builtins)) | frozenset(keyword.kwlist)
_DROPPED = {tokenize.COMMENT, tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING, tokenize.ENDMARKER}
_FSTRING_START = getattr(tokenize, "FSTRING_START", None)  # Python 3.12+: f-strings come as several tokens
_FSTRING_END = getattr(tokenize, "FSTRING_END", None)
_FALLBACK = re.compile(r"#[^\n]*|[A-Za-z_]\w*|\d[\w.]*|\"[^\"\n]*\"?|'[^'\n]*'?|\n|[^\s\w]")
_CELL_MAGIC = "get_ipython().run_cell_magic("
#: IPython lines that are not Python (``%magic``, ``%%magic``, ``!shell``, ``?help``, ``name?``).
#: possessive blanks: else ``[^#\n]*`` takes them back one by one (a line of blanks took O(n^2), 1 s for 20,000)
_IPYTHON_LINE = re.compile(r"^[ \t]*+(?:[%!?].*|[^#\n]*\?)$", re.M)


@dataclass(frozen=True)
class Settings:
    k: int = 12  # tokens per fingerprinted run
    window: int = 6  # winnowing window: runs of k + window - 1 tokens are always found
    common: float = 0.10  # a run in more than this share of the submissions is a common passage...
    common_floor: int = 3  # ...and in more than this many (so a small class still shows a copy among three)
    long_passage: int = 200  # ...unless one set of them shares this many tokens of such runs (a copy), and is
    given: float = 0.9  # at most this share of the class (more: code the class was given, still common)
    threshold: float = 0.5  # share of one side's distinctive code that the pair shares
    min_tokens: int = 100  # shared tokens, on each side (about 8 lines of code)
    shown: int = 50  # flagged pairs shown side by side on the page (all are in the CSV)
    near: int = 10  # closest pairs below the threshold, listed for calibration

    def common_limit(self, documents: int) -> int:
        """A run found in more submissions than this is a common passage."""
        return max(self.common_floor, round(self.common * documents))


@dataclass(frozen=True)
class Source:
    """One submission to compare: ``folder`` is its report folder under OUT/students (None for an earlier term)."""

    student: str
    path: Path
    folder: str | None = None
    term: str = ""  # "" for this class, else the earlier term's label

    @property
    def shown(self) -> str:
        return f"{self.term}/{self.student}" if self.term else self.student


@dataclass
class Document:
    source: Source
    cells: list[str]  # the code compared, one text per cell
    ids: np.ndarray  # token hashes (uint64)
    where: np.ndarray  # (tokens, 3): cell, start, end of each token in its cell's text
    cut: bool = False  # longer than MAX_CHARS: only the start was compared
    hashes: np.ndarray = field(default_factory=lambda: np.empty(0, np.uint64))  # of every run of k tokens
    fp_hash: np.ndarray = field(default_factory=lambda: np.empty(0, np.uint64))  # winnowed, distinctive
    fp_pos: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    fp_set: np.ndarray = field(default_factory=lambda: np.empty(0, np.uint64))  # fp_hash sorted, once each
    fp_map: dict = field(default_factory=dict)  # fingerprint -> its positions, for comparing pairs
    size: int = 0  # distinctive tokens


@dataclass(frozen=True)
class Pair:
    a: int
    b: int
    score: float
    matched: tuple[int, int]
    share: tuple[float, float]
    flagged: bool


@dataclass
class Analysis:
    documents: list[Document]
    pairs: list[Pair]  # flagged, best first
    near: list[Pair]  # the closest pairs that were not flagged
    skipped: list[tuple[str, str]]  # (student as shown, why)
    settings: Settings
    common_limit: int
    base_runs: int
    seconds: float = 0.0
    terms: list[str] = field(default_factory=list)

    @property
    def compared(self) -> int:
        return sum(1 for d in self.documents if not d.source.term)


# -- reading ------------------------------------------------------------------------------------------------
def read_cells(path: Path) -> list[str]:
    """The code cells of a submission as text, split exactly as ``submission.load`` splits them.

    Only the loader's text steps are used (``decode_python``, ``CELL_MARKER``, the notebook's cell list): no cell
    is compiled or translated, which is what ``load`` spends its time on (3 ms for a notebook with the 10 KB
    self-check cell) and what a comparison does not need. The file is opened without following a link or
    blocking on a pipe, and only within the loader's size limits. Raises ``ValueError`` with a sentence.
    """
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise ValueError("not a .py or .ipynb file")
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise ValueError(f"it cannot be opened ({exc.strerror or exc})") from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise ValueError("not a regular file")
        if info.st_size > MAX_BYTES[suffix]:
            raise ValueError(f"larger than {MAX_BYTES[suffix] >> 20} MiB")
        raw = handle.read(MAX_BYTES[suffix] + 1)
    if suffix == ".py":
        text = decode_python(raw, path.name)
        starts = [m.start() for m in CELL_MARKER.finditer(text)]
        if not starts or text[: starts[0]].strip():
            starts.insert(0, 0)
        return [text[a:b] for a, b in zip(starts, starts[1:] + [len(text)])]
    if json_values(raw) > MAX_JSON_VALUES:  # a gigabyte once read, and ``load`` refuses it too
        raise ValueError(f"more than {MAX_JSON_VALUES:,} JSON values, far more than a notebook holds: not read")
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        raise ValueError("not a readable notebook (not JSON)") from None
    major = data.get("nbformat") if isinstance(data, dict) else None
    if major == 4 and isinstance(data.get("cells"), list):
        cells, key = data["cells"], "source"
    elif major == 3 and isinstance(data.get("worksheets"), list):
        cells = [c for w in data["worksheets"] if isinstance(w, dict) and isinstance(w.get("cells"), list)
                 for c in w["cells"]]
        key = "input"
    else:
        raise ValueError("not a notebook of format 3 or 4")
    out = []
    for cell in cells:
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            source = cell.get(key) or ""
            if isinstance(source, list) and all(isinstance(line, str) for line in source):
                source = "".join(source)
            if isinstance(source, str):
                out.append(source.replace("\r\n", "\n"))
    return out


# -- normalised tokens ----------------------------------------------------------------------------------------
def cell_code(source: str) -> str:
    """A cell's code for the tokenizer: IPython lines (``%magic``, ``!shell``, ``?help``) become blanks of the
    same length, so offsets still point into the cell as the student wrote it; a ``%%time`` cell is its body.
    A cell the loader rewrote as ``get_ipython().run_cell_magic(...)`` is read as the body it carries."""
    if source.lstrip().startswith(_CELL_MAGIC):
        try:
            tree = pysource.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return source
        call = tree.body[0].value if len(tree.body) == 1 and isinstance(tree.body[0], ast.Expr) else None
        if (isinstance(call, ast.Call) and len(call.args) == 3
                and all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in call.args)):
            return call.args[2].value
    if "%" in source or "!" in source or "?" in source:
        return _IPYTHON_LINE.sub(lambda m: " " * len(m.group()), source)
    return source


def normalise(code: str) -> list[tuple[str, int, int]]:
    """(normalised token, start, end) for each token of ``code`` that counts; offsets are into ``code``.

    Code that ``tokenize`` would read many times over (runs of blanks where no token starts: quadratic, hours for
    a submission's 200,000 characters) is read with the rough tokens of ``_fallback`` instead."""
    if pysource.rescan_cost(code) > MAX_RESCAN * len(code):
        return _normalised(_fallback(code, 0))
    starts = [0]
    for line in code.split("\n"):
        starts.append(starts[-1] + len(line) + 1)
    raw: list[tuple[int, str, int, int]] = []
    rest = 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(code).readline):
            start = starts[token.start[0] - 1] + token.start[1]
            end = starts[token.end[0] - 1] + token.end[1]
            raw.append((token.type, token.string, start, end))
            rest = max(rest, end)
    except (tokenize.TokenError, SyntaxError, ValueError, RecursionError):
        raw += _fallback(code, rest)
    return _normalised(raw)


def _fallback(code: str, offset: int) -> list[tuple[int, str, int, int]]:
    """Rough tokens for what ``tokenize`` could not read (broken code): names, numbers, strings, operators."""
    out = []
    for match in _FALLBACK.finditer(code, offset):
        text = match.group()
        if text.startswith("#"):
            kind = tokenize.COMMENT
        elif text == "\n":
            kind = tokenize.NEWLINE
        elif text[0].isalpha() or text[0] == "_":
            kind = tokenize.NAME
        elif text[0].isdigit():
            kind = tokenize.NUMBER
        elif text[0] in "'\"":
            kind = tokenize.STRING
        else:
            kind = tokenize.OP
        out.append((kind, text, match.start(), match.end()))
    return out


def _normalised(raw: list[tuple[int, str, int, int]]) -> list[tuple[str, int, int]]:
    out: list[tuple[str, int, int]] = []
    significant = [t for t in raw if t[0] not in _DROPPED]
    n, i = len(significant), 0
    while i < n:
        kind, text, start, end = significant[i]
        at_start = not out or out[-1][0] == ";"
        if at_start and kind == tokenize.STRING:  # a docstring, or any string standing alone as a statement
            j = i
            while j < n and significant[j][0] == tokenize.STRING:
                j += 1
            if j == n or significant[j][0] == tokenize.NEWLINE or significant[j][1] == ";":
                i = j + 1
                continue
        if at_start and kind == tokenize.NAME and text == "get_ipython":  # a magic the loader rewrote
            while i < n and significant[i][0] != tokenize.NEWLINE and significant[i][1] != ";":
                i += 1
            i += 1
            continue
        if kind == _FSTRING_START:  # the whole f-string is one string
            depth, j = 0, i
            while j < n:
                depth += (significant[j][0] == _FSTRING_START) - (significant[j][0] == _FSTRING_END)
                j += 1
                if depth == 0:
                    break
            out.append(("S", start, significant[j - 1][3]))
            i = j
            continue
        if kind == tokenize.NEWLINE or text == ";":
            if not at_start:
                out.append((";", start, end))
        elif kind == tokenize.NAME:
            keep = text in _KEEP_NAMES or (out and out[-1][0] == ".")
            out.append((text if keep else "V", start, end))
        elif kind == tokenize.NUMBER:
            out.append(("N", start, end))
        elif kind == tokenize.STRING:
            out.append(("S", start, end))
        elif text.strip():
            out.append((text, start, end))
        i += 1
    return out


# -- fingerprints ---------------------------------------------------------------------------------------------
class _Hasher:
    """A fixed 64-bit hash per normalised token and per run of ``k`` tokens (never Python's salted ``hash``)."""

    def __init__(self, k: int) -> None:
        self.k = k
        self.ids: dict[str, int] = {}
        self.cells: dict[str, list[tuple[str, int, int]]] = {}  # a cell many students carry is read once
        self.powers = np.array([pow(0x100000001B3, k - 1 - j, 1 << 64) for j in range(k)], dtype=np.uint64)

    def token_ids(self, tokens: Sequence[str]) -> np.ndarray:
        ids = self.ids
        for text in tokens:
            if text not in ids:
                ids[text] = int.from_bytes(hashlib.blake2b(text.encode("utf-8", "replace"), digest_size=8).digest(),
                                           "little")
        return np.fromiter((ids[t] for t in tokens), dtype=np.uint64, count=len(tokens))

    def runs(self, ids: np.ndarray) -> np.ndarray:
        if len(ids) < self.k:
            return np.empty(0, np.uint64)
        return (sliding_window_view(ids, self.k) * self.powers).sum(axis=1, dtype=np.uint64)


def winnow(hashes: np.ndarray, window: int) -> np.ndarray:
    """Positions that winnowing selects: the rightmost smallest hash of every window of ``window`` hashes."""
    if len(hashes) == 0:
        return np.empty(0, np.int64)
    size = min(window, len(hashes))
    windows = sliding_window_view(hashes, size)
    rightmost = size - 1 - np.argmin(windows[:, ::-1], axis=1)
    return sorted_unique(rightmost + np.arange(len(windows)))


def covered(positions: np.ndarray, k: int, tokens: int) -> np.ndarray:
    """Which tokens the runs of ``k`` starting at ``positions`` cover."""
    if len(positions) == 0:
        return np.zeros(tokens, bool)
    edges = np.bincount(positions, minlength=tokens + 1)[: tokens + 1]
    edges = edges - np.bincount(np.minimum(positions + k, tokens), minlength=tokens + 1)[: tokens + 1]
    return np.cumsum(edges)[:tokens] > 0


def _covered_count(positions: list[int], k: int) -> int:
    """How many tokens the runs of ``k`` starting at the sorted ``positions`` cover (plain Python: a pair's
    fingerprints are few, and numpy's overhead per call is what a class of pairs would pay)."""
    total, end = 0, 0
    for p in positions:
        total += k if p >= end else p + k - end
        end = p + k
    return total


def document(source: Source, cells: Iterable[str], hasher: _Hasher, skip: frozenset[str] = frozenset()) -> Document:
    """Tokens of ``cells`` (cells whose text is in ``skip``, the notebook's own, are left out)."""
    texts, tokens, where, total, cut = [], [], [], 0, False
    for text in cells:
        if not text.strip() or text.strip() in skip:
            continue
        if total + len(text) > MAX_CHARS:
            text, cut = text[: MAX_CHARS - total], True
        number = len(texts)
        texts.append(text)
        total += len(text)
        found = hasher.cells.get(text)
        if found is None:
            found = hasher.cells[text] = normalise(cell_code(text))
        for token, start, end in found:
            tokens.append(token)
            where.append((number, start, end))
        if tokens and tokens[-1] != ";":
            tokens.append(";")
            where.append(where[-1])
        if cut:
            break
    positions = np.array(where, dtype=np.int64).reshape(-1, 3)
    return Document(source, texts, hasher.token_ids(tokens), positions, cut)


def base_runs(base: Iterable[str], hasher: _Hasher) -> np.ndarray:
    runs = [hasher.runs(document(Source("", Path()), [text], hasher).ids) for text in base]
    return sorted_unique(np.concatenate(runs)) if runs else np.empty(0, np.uint64)


# -- the class ------------------------------------------------------------------------------------------------
def read(sources: Sequence[Source], hasher: _Hasher, skip: frozenset[str]) -> tuple[list[Document], list]:
    """Read and tokenise each submission (never run); one unreadable file is one line of ``skipped``."""
    documents, skipped = [], []
    for source in sources:
        try:
            documents.append(document(source, read_cells(source.path), hasher, skip))
        except Exception as exc:  # noqa: BLE001  (one file that cannot be read costs only itself)
            skipped.append((source.shown, escape.terminal(str(exc) or type(exc).__name__, 300)))
    return documents, skipped


def analyse(sources: Sequence[Source], base: Sequence[str] = (), settings: Settings = Settings()) -> Analysis:
    """Compare every submission of this class with every other one, and with the earlier terms' ones.

    ``sources`` lists this class first; ``base`` holds the starter code and the notebook's own cells.
    """
    started = time.perf_counter()
    hasher = _Hasher(settings.k)
    skip = frozenset(text.strip() for text in base if text.strip())
    base_hashes = base_runs(base, hasher)
    documents, skipped = read(sources, hasher, skip)
    limit = settings.common_limit(len(documents))
    runs = [hasher.runs(doc.ids) for doc in documents]
    every = np.concatenate(runs) if runs else np.empty(0, np.uint64)
    owner = np.repeat(np.arange(len(runs)), [len(r) for r in runs])
    keep = ~member(every, base_hashes)
    # document frequency of each run: in how many submissions it is, counted once per submission
    order = np.lexsort((owner[keep], every[keep]))
    hashes, owners = every[keep][order], owner[keep][order]
    first = np.ones(len(hashes), bool)
    first[1:] = (hashes[1:] != hashes[:-1]) | (owners[1:] != owners[:-1])
    values, counts = np.unique(hashes[first], return_counts=True)
    common = values[counts > limit]
    given = int(settings.given * sum(1 for doc in documents if not doc.source.term))
    copied = shared_bodies(hashes[first], owners[first], common, runs, settings.k, settings.long_passage, given)
    keep &= ~member(every, common[~member(common, copied)])  # a body of code one group shares stays evidence
    bounds = np.cumsum([0] + [len(r) for r in runs])
    for n, doc in enumerate(documents):
        doc.hashes, mine = runs[n], keep[bounds[n]:bounds[n + 1]]
        doc.size = int(covered(np.flatnonzero(mine), settings.k, len(doc.ids)).sum())
        chosen = winnow(np.where(mine, doc.hashes, _UINT64_MAX), settings.window)
        chosen = chosen[mine[chosen]]
        doc.fp_hash, doc.fp_pos = doc.hashes[chosen], chosen.astype(np.int64)
        doc.fp_set = sorted_unique(doc.fp_hash)
        for h, p in zip(doc.fp_hash.tolist(), doc.fp_pos.tolist()):
            doc.fp_map.setdefault(h, []).append(p)
    pairs = [compare(documents, a, b, settings) for a, b in candidates(documents, settings)]
    flagged = sorted((p for p in pairs if p.flagged), key=lambda p: (-p.score, -min(p.matched), p.a, p.b))
    near = sorted((p for p in pairs if not p.flagged), key=lambda p: (-p.score, p.a, p.b))[: settings.near]
    terms = sorted({d.source.term for d in documents if d.source.term})
    return Analysis(documents, flagged, near, skipped, settings, limit, len(base_hashes),
                    time.perf_counter() - started, terms)


def candidates(documents: list[Document], settings: Settings) -> list[tuple[int, int]]:
    """Pairs that share enough fingerprints to be worth a full comparison, from an index of fingerprints."""
    if len(documents) < 2:
        return []
    hashes = np.concatenate([d.fp_set for d in documents])
    owners = np.repeat(np.arange(len(documents)), [len(d.fp_set) for d in documents])
    order = np.argsort(hashes, kind="stable")
    hashes, owners = hashes[order], owners[order]
    earlier = np.array([bool(d.source.term) for d in documents])
    keys = []
    for step in range(1, len(documents)):  # a fingerprint is in at most common_limit submissions: few steps
        same = hashes[:-step] == hashes[step:]
        if not same.any():
            break
        a, b = owners[:-step][same], owners[step:][same]
        both_earlier = earlier[a] & earlier[b]
        keys.append(a[~both_earlier].astype(np.int64) * len(documents) + b[~both_earlier])
    if not keys:
        return []
    pairs, shared = np.unique(np.concatenate(keys), return_counts=True)
    worth = shared * settings.k >= settings.min_tokens  # fewer shared runs cannot cover min_tokens
    return [(int(p // len(documents)), int(p % len(documents))) for p in pairs[worth]]


def compare(documents: list[Document], a: int, b: int, settings: Settings) -> Pair:
    """The pair's shared code: on each side, the tokens covered by the fingerprints the other side has too."""
    first, second = documents[a], documents[b]
    shared = first.fp_map.keys() & second.fp_map.keys()
    matched, share = [], []
    for doc in (first, second):
        count = _covered_count(sorted(p for h in shared for p in doc.fp_map[h]), settings.k)
        matched.append(count)
        share.append(min(1.0, count / doc.size) if doc.size else 0.0)
    score = max(share)
    flagged = score >= settings.threshold and min(matched) >= settings.min_tokens
    return Pair(a, b, round(score, 4), (matched[0], matched[1]), (round(share[0], 4), round(share[1], 4)), flagged)
