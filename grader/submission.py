"""Load a submission (.py or .ipynb) into the ordered list of code cells the child will execute.

Loading is pure text work in the grader's process: nothing here executes student code. Notebooks are read
leniently as JSON (formats 3 and 4, as Jupyter would open them); IPython syntax (magics, ``!shell``, ``?help``) is
rewritten as IPython's own input transformer rewrites it, into calls on ``get_ipython()``, which the child answers
without running a shell. Since this runs before any sandbox or limit, every step is bounded (see the limits
below): a hostile file costs the grader a few seconds at most.
"""
from __future__ import annotations

import functools
import hashlib
import io
import json
import os
import re
import stat
import tokenize
from dataclasses import dataclass, replace
from pathlib import Path

from .errors import DecodeFailure, MissingFile, NotANotebook, NotJson, SubmissionError, UnsupportedFileType
from . import fstrings, kernels, pysource, scriptcells
from .brokenjson import (MAX_JSON_VALUES, json_values, shown_name, slow_encoding, undecodable_python,  # noqa: F401
                         unsupported_name, why_not_json)
from .ipython import (TOO_COSTLY, OverBudget, Translation, Translator, compile_error, error_on_own_line,
                      leading_blank_lines, python_cell_magic)

#: Python files are code only; notebooks also carry their outputs (plots as base64), so they may be larger.
MAX_BYTES = {".py": 8 << 20, ".ipynb": 64 << 20}
SUFFIXES = (".py", ".ipynb")
CELL_MARKER, TEXT_MARKER = scriptcells.CELL_MARKER, scriptcells.TEXT_MARKER  # where an exported script's cells start

# Loading runs in the grader's own process, before any sandbox or limit applies, so every step is bounded:
# the work grows linearly with the file, and the costly steps (compiling a cell to find its syntax errors,
# IPython's translation of magics) have a budget no honest notebook comes near.
#: Code cells in a notebook, or parts of an exported script; more is refused.
MAX_CELLS = 10_000
#: Cells of any kind in a notebook; more is refused.
MAX_NOTEBOOK_CELLS = 100_000
#: said after a syntax error in a cell whose source list held lines without line ends, which Jupyter joins as they are
JOINED_LINES = (" (the file stores this cell's lines without their line ends, so Jupyter joins them into one line, as "
                "here: the notebook was written by a program or by hand; put the line breaks back in Jupyter and save it)")
#: The grader compiles (checks) and translates cells up to this size, and this much code per submission, the
#: smallest cells first. Larger cells run as they are: a syntax error shows when the child runs them. (Compiling
#: costs up to 5 us and a few hundred bytes per character when it fails, and it is the grader's own time.)
MAX_CHECKED_CELL = 128 << 10
MAX_CHECKED_TOTAL = 256 << 10


@dataclass(frozen=True)
class Cell:
    """One unit of code, run in order in one namespace, as a notebook kernel would."""

    number: int  # 1-based position among the notebook's cells (1 for a .py file)
    code_number: int  # 1-based position among code cells
    source: str  # what the child compiles (IPython syntax already rewritten)
    syntax_error: str | None = None  # set when the cell cannot compile; the child skips it
    label: str = "the file"  # how a person finds it: "code cell 2 (cell 3 of the notebook)", "the cell at line 40"
    line_offset: int | None = None  # .py files: lines are counted in the file, from this offset; else in the cell
    raises_tagged: bool = False  # tagged 'raises-exception', nbclient's mark of a cell meant to fail: told so
    never_run: bool = False  # saved with no execution count while other cells have one: a warning may say so

    def where(self, line: int | None = None) -> str:
        """Where ``line`` of this cell is, for a sentence: "line 12", or "code cell 2 (...), line 3"."""
        if line is None:
            return self.label
        if self.line_offset is not None:
            return f"line {line + self.line_offset}"
        return f"{self.label}, line {line}"

    def short(self, line: int) -> str:
        """The same, to put in parentheses after an error: "line 12" or "line 3 of code cell 2"."""
        if self.line_offset is not None:
            return f"line {line + self.line_offset}"
        return f"line {line} of code cell {self.code_number}"


@dataclass(frozen=True)
class Submission:
    path: Path
    student: str
    kind: str  # "py" or "ipynb"
    cells: tuple[Cell, ...]
    sha256: str
    warnings: tuple[str, ...] = ()
    prose: tuple[tuple[int, str], ...] = ()  # (cell number, text) of markdown and raw cells, for hints
    raw_cells: frozenset[int] = frozenset()  # which of those are raw cells: a hint names the cell's kind
    skipped: tuple[tuple[int, str], ...] = ()  # (cell number, source) of code cells tagged 'skip-execution'

    @property
    def is_notebook(self) -> bool:
        return self.kind == "ipynb"

    @property
    def has_cells(self) -> bool:
        """A notebook, or a .py file exported from one (cell markers): a failing cell does not stop the rest."""
        return self.is_notebook or len(self.cells) > 1

    @property
    def run_name(self) -> str:
        """``__name__`` while the cells run: a notebook's, or an imported module's for a plain .py file, so
        its ``if __name__ == "__main__":`` demo does not run."""
        return "__main__" if self.has_cells else "submission"

    def cell(self, code_number: int) -> Cell | None:
        return self._by_code_number.get(code_number)

    @functools.cached_property
    def _by_code_number(self) -> dict[int, Cell]:
        """Each code cell by its number, made once: the child names a cell for each error it reports, and a scan
        of the cells for each would cost cells times errors."""
        found: dict[int, Cell] = {}
        for cell in self.cells:
            found.setdefault(cell.code_number, cell)
        return found

    def syntax_errors(self) -> list[str]:
        return [c.syntax_error for c in self.cells if c.syntax_error]


def student_id(path: Path) -> str:
    return path.stem


def load(path: Path, student: str | None = None, raw: bytes | None = None) -> Submission:
    """Read ``path`` into a Submission, or raise a SubmissionError whose message a student can act on.

    ``raw``: the file's bytes as the caller already read them (a batch reads each file once, to key its result
    and to grade it, so both see the same bytes)."""
    name = shown_name(path := Path(path))  # the student's words: quoted in every sentence below
    if raw is not None:
        return parse(path, raw, student)
    if path.is_symlink():  # a link in a class folder could point at the solutions or another student's work
        raise UnsupportedFileType(f"{name} is a symbolic link; a submission must be a regular file.")
    if not path.exists():
        raise MissingFile(f"The file {name} does not exist (it was moved or deleted before "
                          "it was read).")
    if path.is_dir():
        raise UnsupportedFileType(f"{name} is a folder, not a submission file.")
    if not path.is_file():
        raise UnsupportedFileType(f"{name} is not a regular file (a pipe or a device?).")
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise UnsupportedFileType(unsupported_name(path))
    try:
        size, limit = path.stat().st_size, MAX_BYTES[suffix]
        if size > limit:
            raise SubmissionError(f"{name} is {size / 2**20:.1f} MiB; {suffix} submissions are limited to "
                                  f"{limit >> 20} MiB{_advice(suffix)}.")
        raw = read_regular(path)
    except OSError as exc:
        raise SubmissionError(f"{name} cannot be read: {exc.strerror or type(exc).__name__}.") from None
    if raw is None:
        raise UnsupportedFileType(f"{name} is not a regular file of at most {MAX_BYTES[suffix] >> 20} MiB "
                                  "(it changed while it was being read?).")
    return parse(path, raw, student)

def read_regular(path: Path) -> bytes | None:
    """The bytes of a regular file within the size limit, never through a link and never blocking on a pipe;
    None when ``path`` is not such a file. Raises OSError when it cannot be opened or read."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    with os.fdopen(os.open(path, flags), "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_size > max(MAX_BYTES.values()):
            return None
        return handle.read(max(MAX_BYTES.values()) + 1)


def parse(path: Path, raw: bytes, student: str | None = None) -> Submission:
    """A submission from the bytes of its file (suffix and size already checked against ``path``'s)."""
    suffix, name = path.suffix.lower(), shown_name(path)
    if suffix not in SUFFIXES:
        raise UnsupportedFileType(unsupported_name(path))
    if len(raw) > MAX_BYTES[suffix]:
        raise SubmissionError(f"{name} is {len(raw) / 2**20:.1f} MiB; {suffix} submissions are limited to "
                              f"{MAX_BYTES[suffix] >> 20} MiB{_advice(suffix)}.")
    digest = hashlib.sha256(raw).hexdigest()
    if suffix == ".py":
        text = decode_python(raw, name)
        if _looks_like_notebook(text):
            raise UnsupportedFileType(f"{name} holds a Jupyter notebook's JSON, not Python source: "
                                      "submit it with the .ipynb extension.")
        (cells, warnings, prose), raw_numbers, skipped = _script_cells(text, name), set(), []
    else:
        cells, warnings, prose, raw_numbers, skipped = _notebook_cells(raw, name)
    return Submission(
        path=path,
        student=student or student_id(path),
        kind=suffix[1:],
        cells=tuple(cells),
        sha256=digest,
        warnings=tuple(warnings),
        prose=tuple(prose),
        raw_cells=frozenset(raw_numbers),
        skipped=tuple(skipped),
    )


#: what to do about a notebook too large to read: its outputs (plots, printed arrays, a plot's data) make it so
CLEAR_OUTPUTS = ("its outputs (plots, printed arrays, interactive figures' data) are most of it: clear them (Edit > "
                 "Clear All Outputs in Jupyter or Colab, 'Clear All Outputs' in VS Code), save, and submit it again")


def _advice(suffix: str) -> str:
    return f"; {CLEAR_OUTPUTS}" if suffix == ".ipynb" else ""


def _looks_like_notebook(text: str) -> bool:
    stripped = text.lstrip()
    if not stripped.startswith("{") or '"nbformat"' not in stripped:
        return False
    if json_values(stripped.encode("utf-8", "surrogatepass")) > MAX_JSON_VALUES:  # not read: 8 MiB of '[],' takes
        return True  # 270 MB; as a notebook it is refused for that, and the sentence names the extension first
    try:
        return isinstance(json.loads(stripped), dict)
    except (ValueError, RecursionError):  # too deep, or a number of thousands of digits: compiled as Python
        return False


def decode_python(raw: bytes, name: str) -> str:
    """Decode Python source as the interpreter would (PEP 263 cookie, UTF-8 BOM), with newlines normalised."""
    if (wide := undecodable_python(raw, name)) is not None:  # UTF-16: Python's 'null bytes' says not what to do
        raise DecodeFailure(wide)
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
        if (slow := slow_encoding(encoding, name)) is not None:
            raise DecodeFailure(slow)
        text = raw.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError) as exc:
        raise DecodeFailure(undecodable_python(raw, name, exc)) from None
    return text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


def _notebook_cells(raw: bytes, name: str) -> tuple[list[Cell], list[str], list[tuple[int, str]], set[int],
                                                 list[tuple[int, str]]]:
    if not raw.strip():
        raise NotJson(f"{name} is empty: it is not a notebook. Save the notebook in Jupyter and submit it again.")
    if json_values(raw) > MAX_JSON_VALUES:
        raise SubmissionError.with_kind(
            "too-many-cells", f"{name} holds more than {MAX_JSON_VALUES:,} JSON values (lists, objects, strings and "
            f"numbers): far more than a notebook has, so it is not read; {CLEAR_OUTPUTS}.")
    try:
        data = json.loads(raw)  # bytes: UTF-8 (with or without BOM), UTF-16 and UTF-32 are detected
    except RecursionError:
        raise NotJson(f"{name} is not a readable notebook: its JSON is nested too deeply to be a notebook.") from None
    except (UnicodeDecodeError, ValueError) as exc:  # ValueError: a JSONDecodeError, or a 5,000-digit number
        raise NotJson(why_not_json(raw, name, exc)) from None
    major = kernels.format_version(data)
    if major is None:
        raise NotANotebook(f"{name} is JSON but not a Jupyter notebook (it has no 'nbformat' version number).")
    if major not in (3, 4):
        raise NotANotebook(f"{name} uses notebook format {major}; only formats 3 and 4 can be graded.")
    raw_cells = _raw_cells(data, major)
    if raw_cells is None:
        raise NotANotebook(f"{name} has a notebook version but no list of cells: its structure is broken.")
    if len(raw_cells) > MAX_NOTEBOOK_CELLS:
        raise SubmissionError.with_kind("too-many-cells", f"{name} has {len(raw_cells):,} cells; a notebook may have "
                                        f"at most {MAX_NOTEBOOK_CELLS:,} (and {MAX_CELLS:,} code cells).")
    sources, unreadable, tagged, code_number, skipped, joined, counted, raising = [], [], [], 0, [], set(), [], set()
    prose: list[tuple[int, str]] = []
    raw_numbers = {n for n, c in enumerate(raw_cells, start=1) if isinstance(c, dict) and c.get("cell_type") == "raw"}
    for number, cell in enumerate(raw_cells, start=1):
        if isinstance(cell, dict) and cell.get("cell_type") in ("markdown", "raw"):
            text = cell.get("source", "")
            text = "".join(text) if isinstance(text, list) and all(isinstance(t, str) for t in text) else text
            if isinstance(text, str):
                prose.append((number, text))
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        code_number += 1
        source = cell.get("source" if major == 4 else "input")
        if source is None:  # a hand conversion between formats 3 and 4 may leave the other format's key
            source = cell.get("input" if major == 4 else "source") or ""
        if isinstance(source, list) and all(isinstance(line, str) for line in source):
            if len(source) > 1 and not any(line.endswith(("\n", "\r")) for line in source[:-1]):
                joined.add(code_number)  # a program wrote one string per line without its '\n'
            source = "".join(source)
        if not isinstance(source, str):
            unreadable.append(f"Code cell {code_number} has no readable source and was skipped.")
            continue
        if code_number > MAX_CELLS:
            raise SubmissionError.with_kind("too-many-cells", f"{name} has more than {MAX_CELLS:,} code cells; a "
                                            f"notebook may have at most {MAX_CELLS:,}.")
        label = f"code cell {code_number} (cell {number} of the notebook)"
        if _skip_tagged(cell):
            tagged.append(f"{label[0].upper()}{label[1:]} is tagged 'skip-execution', so it was not run: "
                          "nbclient, nbconvert and nbgrader skip such cells too.")
            skipped.append((number, source))
            continue
        if _has_tag(cell, "raises-exception"):
            raising.add(code_number)
        counted.append((label, source, cell.get("execution_count" if major == 4 else "prompt_number")))
        sources.append((source.replace("\r\n", "\n"), number, code_number, label, None))
    warnings = _at_most(unreadable, "code cells have no readable source and were skipped") + _at_most(
        tagged, "code cells are tagged 'skip-execution' and were not run")
    if not sources and skipped:
        raise SubmissionError.with_kind("missing-function", f"Every code cell of {name} is tagged 'skip-execution', "
                                        "so none runs (nbclient, nbconvert and nbgrader skip such cells): remove the "
                                        "tag from the cells with your code and submit again.")
    if not sources:  # code written in a raw cell (never run, never shown as code): say which cell to turn into code
        pasted = [n for n, text in prose if n in raw_numbers and re.search(r"^(?:def|import|from) \w", text, re.M)]
        raise NotANotebook(f"{name} is a notebook without any code cell: there is nothing to grade."
                           + (f" Cell {pasted[0]} holds Python code, but it is a raw cell, which never runs: change "
                              "its type to Code (in Jupyter, select it and press Y) and submit again." if pasted else ""))
    cells, notes = _Loader(sources).cells()
    cells = [replace(c, syntax_error=c.syntax_error + JOINED_LINES) if c.syntax_error and c.code_number in joined
             else c for c in cells]
    cells = [replace(c, raises_tagged=True) if c.code_number in raising else c for c in cells]
    if any(count is not None for _, _, count in counted):  # the notebook was run, but not these cells
        unrun = {entry[2] for entry, (_, _, count) in zip(sources, counted) if count is None}
        cells = [replace(c, never_run=True) if c.code_number in unrun else c for c in cells]
    first = next((c.syntax_error for c in cells if c.syntax_error), None)
    if first and kernels.foreign(data):  # R, Julia...: one sentence for the file, not a Python syntax error
        raise UnsupportedFileType(kernels.foreign_error(data, name, first))
    newer = kernels.version_note(data)  # the student's Python (newer, or 2.7) lacks the grader's syntax: say so
    cells = [replace(c, syntax_error=c.syntax_error.replace(pysource.newer_syntax_tail(), "") + newer)
             if c.syntax_error and newer else c for c in cells]  # the grader's Python named once
    return cells, warnings + notes + kernels.notes(data, counted), prose, raw_numbers, skipped


def _at_most(sentences: list[str], rest: str, most: int = 5) -> list[str]:
    """The first ``most`` sentences, then one that counts the rest: one per cell of 10,000 was 600 KB of report."""
    return sentences if len(sentences) <= most + 1 else [*sentences[:most], f"{len(sentences) - most:,} more {rest}."]


def _skip_tagged(cell: dict) -> bool:
    """Whether the cell carries the 'skip-execution' tag, which nbclient (and so nbconvert --execute, papermill and
    nbgrader's autograder) honours by not running the cell: a course that autograded with those tells students to
    tag slow training loops or cells meant to fail, and the work graded is what those tools would have run."""
    return _has_tag(cell, "skip-execution")


def _has_tag(cell: dict, tag: str) -> bool:
    """Whether the cell's metadata lists ``tag`` (read leniently: a hand-edited notebook may hold anything there)."""
    metadata = cell.get("metadata")
    tags = metadata.get("tags") if isinstance(metadata, dict) else None
    return isinstance(tags, list) and tag in tags


def _raw_cells(data: dict, major: int) -> list | None:
    """The cells, read leniently: Jupyter opens notebooks that lack optional keys, and so do we.

    Only the cell list and each code cell's source matter for grading; nbformat's strict validation would
    reject files that Jupyter, Colab and VS Code open without complaint (no metadata, no outputs...).
    """
    if major == 4:
        cells = data.get("cells")
        return cells if isinstance(cells, list) else None
    worksheets = data.get("worksheets")
    if not isinstance(worksheets, list):
        return None
    return [cell for sheet in worksheets if isinstance(sheet, dict)
            for cell in (sheet.get("cells") if isinstance(sheet.get("cells"), list) else [])]


def _script_cells(text: str, name: str = "the file") -> tuple[list[Cell], list[str], list[tuple[int, str]]]:
    """A .py file's cells, its notes and its text cells (``scriptcells.cells``), each code cell checked here."""
    return scriptcells.cells(text, name, lambda sources: _Loader(sources).cells(), MAX_CELLS)


class _Loader:
    """Turns the cells' sources into Cells, within the budget of one submission.

    A cell is compiled here so that a syntax error is reported with its cell and line before anything runs, and
    IPython syntax is rewritten as Jupyter would. Both cost time and memory in the grader's own process (a
    compiled syntax tree is hundreds of bytes per character), so only cells up to ``MAX_CHECKED_CELL`` and
    ``MAX_CHECKED_TOTAL`` in all are checked, the smallest first: a huge cell of data does not leave the
    student's code unchecked. The other cells go to the child as they are, and a warning says so.
    """

    def __init__(self, sources: list[tuple[str, int, int, str, int | None]]) -> None:
        self.sources = sources
        self.translator = Translator()
        self.checked: set[int] = set()
        self.requoted: list[str] = []  # where cells' 3.12 f-strings were written the 3.11 way (first line each)
        total = 0
        for index in sorted(range(len(sources)), key=lambda i: len(sources[i][0])):
            size = len(sources[index][0])
            if size > MAX_CHECKED_CELL or total + size > MAX_CHECKED_TOTAL:
                break  # the rest are larger still
            total += size
            self.checked.add(index)

    def cells(self) -> tuple[list[Cell], list[str]]:
        cells, unchecked = [], []
        for index, (source, number, code_number, label, line_offset) in enumerate(self.sources):
            if index in self.checked:
                cells.append(self.python_cell(source, number, code_number, label, line_offset))
            else:
                cells.append(Cell(number, code_number, source, label=label, line_offset=line_offset))
                unchecked.append(f"{label} ({_size(len(source))})")
        notes = [fstrings.note(self.requoted)] if self.requoted else []
        if unchecked:
            shown = "; ".join(unchecked[:5]) + (f"; and {len(unchecked) - 5} more" if len(unchecked) > 5 else "")
            these, run = (shown, "it runs") if len(unchecked) == 1 else (f"these {len(unchecked)} cells: {shown}",
                                                                         "they run")
            notes.append(
                f"The grader checks cells of up to {_size(MAX_CHECKED_CELL)}, and {_size(MAX_CHECKED_TOTAL)} of code "
                f"in all, before they run; it did not check {these}. {run.capitalize()} as written: a syntax error "
                f"shows only when {run}, and IPython syntax (magics, !shell, ?help) is not translated."
            )
        return cells, notes

    def python_cell(self, source: str, number: int, code_number: int, label: str, line_offset: int | None,
                    requote: bool = True) -> Cell:
        """The cell with IPython syntax rewritten, or with its syntax error described."""
        cell = Cell(number, code_number, source, label=label, line_offset=line_offset)
        first = compile_error(source)
        if first is None:
            return cell
        magic = python_cell_magic(source)
        python = magic is not None or not source.lstrip().startswith("%%")  # not a %%writefile body, say
        older = fstrings.older(source) if requote and python else None  # 3.12's f-strings reusing quotes, the 3.11 way
        if older is not None:
            done = self.python_cell(older, number, code_number, label, line_offset, requote=False)
            if done.syntax_error is None:
                self.requoted.append(cell.where(fstrings.first_line(source, older)))
                return done
        translated = Translation()
        try:
            if magic is not None:  # IPython runs such a body through its transformer too: %timeit lines inside work
                chain = [magic]  # '%%capture' then '%%time': each body is a cell IPython transforms in turn
                while len(chain) < 8 and (inner := python_cell_magic(chain[-1][2])) is not None:
                    chain.append(inner)
                body = chain[-1][2]
                translated = self.translator.translate(body)
                body_source = translated.source or body
                error = None if translated.proven else self.translator.compile_error(body_source)
                if error is None:  # the body keeps its lines in the cell (IPython drops its leading blank lines)
                    lines = sum(m[3] for m in chain) + leading_blank_lines(body) - leading_blank_lines(body_source)
                    body_source = "\n" * lines + body_source  # so the child names an error by the cell's line
                    for name, line, _body, _start in reversed(chain):
                        body_source = f"get_ipython().run_cell_magic({name!r}, {line!r}, {body_source!r})\n"
                    return replace(cell, source=body_source)
                kind, at, text = error
                first = (kind, at + sum(m[3] for m in chain) if at else None, text)
            else:
                translated = self.translator.translate(source)
                rewritten = translated.source
                if rewritten is not None and rewritten not in (source, source + "\n"):  # unchanged: it fails
                    if translated.proven or (after := self.translator.compile_error(rewritten)) is None:
                        return replace(cell, source=rewritten)
                    first = error_on_own_line(source, rewritten, after) or first  # IPython's line, not the magic's
        except OverBudget:
            translated = Translation(refused=TOO_COSTLY)
        kind, line, text = first
        preposition = "at" if line and line_offset is not None else "in"
        message = f"{kind} {preposition} {cell.where(line)}: {text}"
        if translated.refused:
            message += f"; its IPython syntax was not translated: {translated.refused}"
        return replace(cell, syntax_error=message)


def _size(characters: int) -> str:
    return f"{characters / 2**20:.1f} MiB" if characters >= 1 << 20 else f"{max(1, round(characters / 1024))} KiB"


# -- what a notebook says it is -------------------------------------------------------------------------------
def named_exercise(path: Path) -> str | None:
    """The exercise id a notebook generated by ``grader notebook`` records in its metadata (``metadata.grader.
    exercise``), if it is a string (never raises; the caller checks it is a known plain id: the file is the
    student's)."""
    value = _grader_metadata(path).get("exercise")
    return value if isinstance(value, str) and value else None


def named_assignment(path: Path) -> tuple[str | None, list[str]]:
    """The assignment a generated notebook records in its metadata and its exercise ids, as far as they are
    strings (never raises; the caller checks them against the course)."""
    metadata = _grader_metadata(path)
    name, ids = metadata.get("assignment"), metadata.get("exercises")
    ids = [i for i in ids if isinstance(i, str)] if isinstance(ids, list) else []
    return (name if isinstance(name, str) and name else None), ids


def _grader_metadata(path: Path) -> dict:
    if Path(path).suffix.lower() != ".ipynb":
        return {}
    try:
        raw = read_regular(Path(path))  # never through a link, never blocking on a pipe swapped in since discovery
        if raw is None or json_values(raw) > MAX_JSON_VALUES:  # a gigabyte once read, which loading refuses too
            return {}
        value = json.loads(raw.decode("utf-8-sig")).get("metadata", {}).get("grader", {})
        return value if isinstance(value, dict) else {}
    except (OSError, ValueError, AttributeError):
        return {}
