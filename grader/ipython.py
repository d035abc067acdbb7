"""IPython's translation of magics, ``!shell`` and ``?help``, in the grader's process, with its cost bounded.

Jupyter rewrites IPython syntax into calls on ``get_ipython()`` before Python compiles a cell; the grader does the
same (the child answers those calls without running a shell). This runs before any sandbox or limit, on hostile
text, so every step has a budget: a cell or a submission over it keeps its syntax error, and the message says why.
"""
from __future__ import annotations

import ast
import re
import secrets
import textwrap
import tokenize
import types
import warnings
from dataclasses import dataclass

from . import pysource
from .text import quote

#: IPython stops translating a cell after 500 transformations (``TRANSFORM_LOOP_LIMIT``): Jupyter refuses it.
IPYTHON_CELL_LIMIT = 500
#: Lines of IPython syntax (magics, !shell, ?help) translated in one submission.
MAX_IPYTHON_LINES = 2_000
#: Characters compiled again to translate IPython syntax (the rewritten cells), in one submission.
TRANSLATE_COMPILE_BUDGET = 192 << 10
#: Characters IPython's tokenizer may reread for cells that must go through its own loop, which rereads the
#: whole cell for each line of IPython syntax (about 3 us per character; see ``_read_cost`` for long lines).
IPYTHON_READ_BUDGET = 200_000


#: what ``compile_error`` said about a source, by the source itself: a class's notebooks share the statement's cells
#: (imports, the self-check), so most of a notebook's cells were compiled already for another student
_COMPILED: dict[str, tuple[str, int | None, str] | None] = {}
_COMPILED_MAX_CELL = 64 << 10  # larger cells are compiled every time: a student's data, never shared
_COMPILED_MAX_TOTAL = 4 << 20  # characters kept in all; then the memo starts again
_compiled_total = 0


def compile_error(source: str) -> tuple[str, int | None, str] | None:
    """(kind, line, text) of the first error compiling ``source``, or None when it compiles (an AST only)."""
    global _compiled_total
    try:
        return _COMPILED[source]
    except KeyError:
        pass
    if "\0" in source:  # Python refuses it without naming a line, and an editor shows it as nothing or a box
        return ("SyntaxError", source.count("\n", 0, source.index("\0")) + 1,
                "a null byte (NUL, character 0), which Python cannot read: the file was damaged, or written by a "
                "program rather than an editor; delete the character, or copy the code into a new file")
    try:
        pysource.compile_source(source, flags=ast.PyCF_ONLY_AST)
    except SyntaxError as exc:  # IndentationError and TabError are subclasses
        text = exc.msg + _pasted_character(exc.msg)
        if exc.text and exc.text.strip():
            text += f" -> {quote(exc.text.strip(), 80)}"  # the student's line: quoted, never read as ours
        at = exc.lineno if isinstance(exc.lineno, int) else 0  # a .py file has no metadata naming its Python: say it
        lines = source.split("\n") if at > 0 else []
        text += pysource.newer_syntax(exc.msg, lines[at - 1] if 0 < at <= len(lines) else exc.text)
        error = type(exc).__name__, exc.lineno, text
    except UnicodeEncodeError as exc:  # a lone surrogate: half of an emoji, cut apart by an editor or a copy
        line = source.count("\n", 0, exc.start) + 1
        return (type(exc).__name__, line, f"a broken character, U+{ord(source[exc.start]):04X} (half of a two-part "
                "character such as an emoji), which Python cannot read: delete it")
    except (ValueError, MemoryError, RecursionError) as exc:  # null bytes, absurd nesting: not kept (memory and
        return type(exc).__name__, None, str(exc) or "the source cannot be compiled"  # depth vary by call)
    else:
        error = None
    if len(source) <= _COMPILED_MAX_CELL:
        if _compiled_total + len(source) > _COMPILED_MAX_TOTAL:
            _COMPILED.clear()
            _compiled_total = 0
        _COMPILED[source] = error
        _compiled_total += len(source)
    return error


#: characters that code copied from a web page, a PDF, slides or a chat brings along, and what each is
_PASTED = {**dict.fromkeys((0x00A0, 0x202F, 0x2007), "a no-break space, which copying from a web page or a PDF "
                           "leaves: retype the spaces"),
           **dict.fromkeys((0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF), "an invisible zero-width character, which "
                           "copying from a web page, a PDF or a chat leaves: retype the line"),
           **dict.fromkeys((0x2018, 0x2019, 0x201C, 0x201D), "a curly quote, as word processors, slides and chat "
                           "apps type them: use a straight ' or \""),
           **dict.fromkeys((0x2013, 0x2014, 0x2212), "a dash, not the minus sign: type -"),
           0x00D7: "a multiplication sign: type * (or @ for a matrix product)"}
_CODE_POINT = re.compile(r"U\+([0-9A-F]{4,6})\b")


def _pasted_character(message: str) -> str:
    """What the character an 'invalid character' error names is, when it is one that pasting brings along."""
    found = _CODE_POINT.search(message) if "invalid" in message and "character" in message else None
    if found is None:
        return ""
    point = int(found[1], 16)
    if 0xFF01 <= point <= 0xFF5E:
        return " (a full-width character, as an East Asian input mode types it: type it in half-width, ASCII)"
    return f" ({_PASTED[point]})" if point in _PASTED else ""


@dataclass(frozen=True)
class Translation:
    source: str | None = None  # the cell as IPython rewrites it; None when it was not rewritten
    refused: str | None = None  # why its IPython syntax was not translated, for the syntax error's message
    proven: bool = False  # the rewrite is valid Python by construction: no need to compile it again


#: A line IPython's token transforms may act on: an escape first (!shell, %magic, ?help, and ``,;/`` autocall), a
#: '?' anywhere (help), or an assignment from a magic or a shell command. Lines that match none are never changed.
_SUSPECT = re.compile(r"^[ \t\f]*[!%?,;/]|\?|=[ \t\f]*[%!]")
#: Characters that end a line for IPython (``str.splitlines``) but not for Python's compiler, or the other way.
_ODD_BREAKS = re.compile("[\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")
_TOO_MANY_IN_CELL = (f"the cell has {IPYTHON_CELL_LIMIT} or more lines of magics, !shell or ?help, and IPython stops "
                     f"translating a cell after {IPYTHON_CELL_LIMIT} (Jupyter would not run it either)")
_TOO_MANY_IN_FILE = (f"the submission has more than {MAX_IPYTHON_LINES:,} lines of magics, !shell or ?help, the most "
                     "the grader translates")
TOO_COSTLY = ("the submission's cells with IPython syntax are too large to translate within the grader's limits "
               f"(it compiles {TRANSLATE_COMPILE_BUDGET >> 10} KiB of rewritten cells and rereads "
               f"{IPYTHON_READ_BUDGET:,} characters for IPython's own translation loop, per submission)")


class OverBudget(Exception):
    """The submission's budget for translating IPython syntax is spent."""


# Compiling student code may warn (an invalid escape, "is" with a literal): those warnings are the child's to
# report, not noise on the grader's terminal.
warnings.filterwarnings("ignore", category=SyntaxWarning, module="<submission>$")
warnings.filterwarnings("ignore", category=DeprecationWarning, module="<submission>$")
# IPython's own loop warns on a cell whose lines end in a break only str.splitlines knows ('\x1c'): the cell is
# the student's, and the warning said so on the grader's terminal, not in any report
warnings.filterwarnings("ignore", message="`make_tokens_by_line` received a list of lines", category=UserWarning)


class Translator:
    """IPython's own translation of magics, ``!shell`` and ``?help`` (``TransformerManager.transform_cell``), with
    its result unchanged and its cost bounded.

    IPython finds one piece of special syntax, rewrites it, and tokenises the whole cell again to find the next:
    the time grows with the square of the cell (minutes for a few thousand ``!`` lines). Here each line that holds
    IPython syntax is rewritten on its own, with IPython's own transformers, when that provably gives IPython's
    result (see ``_line_by_line``); only the cells where it cannot be proven go through IPython's loop, within a
    budget. Beyond the limits a cell keeps its syntax error, and the message says why.
    """

    def __init__(self) -> None:
        self.lines_left = MAX_IPYTHON_LINES
        self.read_left = IPYTHON_READ_BUDGET
        self.compile_left = TRANSLATE_COMPILE_BUDGET
        self._manager = None
        self._available = True

    def _charge(self, text: str) -> None:
        self._charge_cost(len(text))

    def _charge_cost(self, cost: int) -> None:
        if cost > self.compile_left:
            raise OverBudget
        self.compile_left -= cost

    def compile_error(self, source: str) -> tuple[str, int | None, str] | None:
        """``compile_error``, counted against the budget (raises ``OverBudget`` when it is spent)."""
        self._charge(source)
        return compile_error(source)

    def manager(self):
        if self._manager is None and self._available:
            try:
                from IPython.core.inputtransformer2 import TransformerManager
            except ImportError:
                self._available = False
                return None
            self._manager = TransformerManager()
        return self._manager

    def translate(self, source: str) -> Translation:
        manager = self.manager()
        if manager is None:
            return Translation()
        cell = source if source.endswith("\n") else source + "\n"
        try:  # transform_cell's first steps, each linear: leading blank lines, indentation, prompts, %%magic
            lines = cell.splitlines(keepends=True)
            for transform in manager.cleanup_transforms + manager.line_transforms:
                lines = transform(lines)
        except Exception:  # IPython's own parse can fail on broken input; then the syntax error stands
            return Translation()
        suspects = [i for i, line in enumerate(lines) if _SUSPECT.search(line)]
        if not suspects:  # no token transform can apply: this is transform_cell's result
            return Translation("".join(lines))
        if not _ODD_BREAKS.search(cell):
            done = self._line_by_line(manager, lines, suspects)
            if done is not None:
                return done
        return self._ipython_loop(manager, lines)

    def _line_by_line(self, manager, lines: list[str], suspects: list[int]) -> Translation | None:
        """IPython's result, one line at a time, when that is provably the same; None when it is not.

        Each suspect line is rewritten on its own by IPython's transformers (``do_one_token_transform``). It is
        kept only if it is a whole logical line by itself (it ends where its tokens end: no open bracket or
        string, no backslash before or after it) and its rewrite is one complete Python line. Every such line
        is then replaced by a placeholder statement of the same indentation and the cell is compiled: the
        cell must be valid Python, with every placeholder a statement of its own (its name is in the compiled
        code, so it is not inside a string). Then, in IPython's loop, the earliest special syntax is always the
        next of these lines, tokenised exactly as on its own (the code before it tokenises as the compiled cell
        does), rewritten the same way; and once they are all rewritten the cell is valid Python, in which no
        IPython transform finds anything. So the result is IPython's, in time linear in the cell.
        """
        rewritten: dict[int, tuple[str, str]] = {}
        for index in suspects:
            line = lines[index]
            if line.endswith("\\\n") or (index and lines[index - 1].endswith("\\\n")):
                continue
            body = line.lstrip(" \t")
            new = self._rewrite_line(manager, body)
            if new is None:
                continue
            if len(rewritten) + 1 >= IPYTHON_CELL_LIMIT:
                return Translation(refused=_TOO_MANY_IN_CELL)
            if self.lines_left <= 0:
                return Translation(refused=_TOO_MANY_IN_FILE)
            self.lines_left -= 1
            rewritten[index] = (line[: len(line) - len(body)], new)
        tag = secrets.token_hex(8)
        for _ in range(2):  # once more without the placeholders that landed inside a string
            candidate = list(lines)
            for index, (indent, _new) in rewritten.items():
                candidate[index] = f"{indent}pass; _grader_ipython_{tag}_{index}\n"
            text = "".join(candidate)
            self._charge(text)
            try:
                code = pysource.compile_source(text, flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)  # await: valid in a notebook
            except Exception:  # a syntax error of its own, or syntax left that only IPython's loop can judge
                return None
            names = _code_names(code)
            stray = [i for i in rewritten if f"_grader_ipython_{tag}_{i}" not in names]
            if not stray:
                for index, (indent, new) in rewritten.items():
                    candidate[index] = indent + new
                return Translation("".join(candidate), proven=True)
            for index in stray:
                del rewritten[index]
        return None

    def _ipython_loop(self, manager, lines: list[str]) -> Translation:
        """IPython's ``do_token_transforms``, pass for pass, stopped when the cell's rereading exceeds the budget."""
        for _ in range(IPYTHON_CELL_LIMIT):
            size = _read_cost(lines)
            if size > self.read_left:
                return Translation(refused=TOO_COSTLY)
            self.read_left -= size
            try:
                changed, lines = manager.do_one_token_transform(lines)
            except Exception:  # IPython's own parse can fail on broken input; then the syntax error stands
                return Translation()
            if not changed:
                return Translation("".join(lines))
        return Translation(refused=_TOO_MANY_IN_CELL)  # IPython raises here: Jupyter does not run the cell

    def _rewrite_line(self, manager, line: str) -> str | None:
        self._charge_cost(_read_cost([line]))  # read twice by the tokenizer, and its rewrite compiled
        return _rewrite_line(manager, line)


def _rewrite_line(manager, line: str) -> str | None:
    """IPython's rewrite of ``line`` (no indentation) on its own, if it is one that can be used in place:
    ``line`` is one whole logical line for the tokenizer, and its rewrite is one complete line of Python."""
    from IPython.core.inputtransformer2 import make_tokens_by_line

    try:
        changed, new = manager.do_one_token_transform([line])
        if not changed or len(new) != 1:
            return None
        new_line = new[0]
        if not new_line.endswith("\n") or new_line.endswith("\\\n") or "\n" in new_line[:-1]:
            return None
        tokens = [token for group in make_tokens_by_line([line]) for token in group]
    except Exception:
        return None
    ends = any(t.type == tokenize.NEWLINE for t in tokens) or (
        bool(tokens) and tokens[-1].type == tokenize.ERRORTOKEN and tokens[-1].string == "")  # a stop, 3.12+
    depth = 0  # brackets must balance, never closing more than opened: '!echo )' leaves the tokenizer (and
    for token in tokens:  # IPython's grouping of the lines after it) in a state the cell's other lines feel
        if token.type == tokenize.OP and token.string in ("(", "[", "{"):
            depth += 1
        elif token.type == tokenize.OP and token.string in (")", "]", "}"):
            depth -= 1
            if depth < 0:
                return None
    if not ends or depth or compile_error(new_line) is not None:
        return None
    return new_line


def _read_cost(lines: list[str]) -> int:
    """What tokenizing ``lines`` costs, in characters: their length, plus a term that grows with the square of
    each line's, as the tokenizer of Python 3.12.0 to 3.12.3 does (each token copies its whole line: 1.9 s for a
    32 KiB line of short tokens; python/cpython#119118), plus what the pure-Python tokenizer of 3.11 reads again
    after a run of blanks where no token starts (``pysource.rescan_cost``: 0.25 us a character, 65 s for 16,000
    spaces before a '?' in brackets)."""
    return sum(len(line) + len(line) ** 2 // 1600 + pysource.rescan_cost(line) // 8 for line in lines)


def _code_names(code: types.CodeType) -> set[str]:
    """Every name a compiled module and the functions and classes in it refer to."""
    names: set[str] = set()
    stack = [code]
    while stack:
        current = stack.pop()
        names.update(current.co_names)
        stack.extend(c for c in current.co_consts if isinstance(c, types.CodeType))
    return names


#: Cell magics whose body the child runs as Python: a syntax error in the body is the cell's syntax error.
PYTHON_CELL_MAGICS = ("time", "capture", "prun")  # as runner.shell.Shell.RUN_CELL; not cython, whose body may be Cython
_BLANK_LINES = re.compile(r"(?:[ \t\f\v]*+\n)*+")


def leading_blank_lines(source: str) -> int:
    """How many lines of blanks ``source`` opens with (the lines IPython's ``leading_empty_lines`` drops)."""
    return _BLANK_LINES.match(source).group().count("\n")


def error_on_own_line(source: str, rewritten: str,
                      error: tuple[str, int | None, str]) -> tuple[str, int | None, str] | None:
    """``error``, found compiling ``rewritten`` (IPython's translation of ``source``), as an error of ``source``,
    when it is on a line the translation left as it was; else None.

    Python stops at a cell's first magic (``%matplotlib inline``, ``!pip``), so the untranslated cell's error names
    that line, which is fine once translated; IPython compiles the translation and names the student's own line
    (an unclosed bracket further down). The lines are matched one for one, after the blank lines IPython drops
    before the first and the indentation it removes from every line (``leading_indent``: a cell indented as a
    whole, '  %matplotlib inline' first, is dedented, so that its lines compile); when the translation changed the
    number of lines (a magic continued with a backslash), the match is not proven and None says so."""
    kind, line, text = error
    cell = source if source.endswith("\n") else source + "\n"
    dropped = leading_blank_lines(cell)
    before, after = textwrap.dedent("\n".join(cell.split("\n")[dropped:])).split("\n"), rewritten.split("\n")
    if not line or len(before) != len(after) or not 0 < line <= len(after) or before[line - 1] != after[line - 1]:
        return None
    return kind, line + dropped, text


def python_cell_magic(source: str) -> tuple[str, str, str, int] | None:
    """(magic name, its arguments, the body, lines before the body) for a ``%%time``-like cell, else None. Lines of
    blanks before the magic are dropped first, as IPython drops them (``leading_empty_lines``)."""
    blank = _BLANK_LINES.match(source).group()
    first, _, body = source[len(blank):].partition("\n")
    if not first.startswith("%%"):
        return None
    name, _, line = first[2:].partition(" ")
    if name not in PYTHON_CELL_MAGICS:
        return None
    return name, line.strip(), body, blank.count("\n") + 1
