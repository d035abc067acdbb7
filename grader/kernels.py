"""What a notebook's metadata says about the language and the Python that last ran it, for the sentence a student
reads when its code does not compile.

A notebook made for another kernel (R in Colab's R runtime, Julia, a TypeScript kernel) fails to compile as Python
on its first line of code, and a bare "invalid syntax" there (or worse, "the notebook last ran on Python 4.3", from
R's version number) tells the student nothing true. A notebook last run on Python 2 fails on ``print 'x'``: saying
so points at the cause. The metadata is the student's file, so every value is checked before it is used.

The saved execution counts say in which order the student last ran the cells (``order_notes``): when a function
is defined in two cells and the upper one ran last, Jupyter kept the upper definition, and the grader, which runs
the cells from top to bottom as Restart & Run All does, keeps the lower one: the report says so.
"""
from __future__ import annotations

import re
import sys

from . import pysource

#: kernel languages whose cells are Python (or a superset the grader compiles as Python when it can)
PYTHON_LIKE = {"python", "python2", "python3", "ipython", "ipython2", "ipython3", "pyodide", "sage", "sagemath",
               "cython", "xpython", "pyspark", "pyspark3", ""}
#: how a language is named in a sentence, when its kernel's spelling is not the usual one
NAMES = {"r": "R", "julia": "Julia", "typescript": "TypeScript", "javascript": "JavaScript", "c++": "C++",
         "c++17": "C++", "c++14": "C++", "c++11": "C++", "scala": "Scala", "java": "Java", "matlab": "MATLAB",
         "octave": "Octave", "bash": "Bash", "sql": "SQL", "go": "Go", "rust": "Rust", "ruby": "Ruby",
         "haskell": "Haskell", "kotlin": "Kotlin", "csharp": "C#", "c#": "C#", "fsharp": "F#", "wolfram language":
         "Wolfram Language", "stata": "Stata", "sas": "SAS", "lua": "Lua", "perl": "Perl", "powershell": "PowerShell"}


def _text(value: object, limit: int = 60) -> str:
    """A metadata value as plain text for a sentence: a short string, else ''."""
    if not isinstance(value, str):
        return ""
    return re.sub(r"[^\w .+#-]", "", value).strip()[:limit]


def format_version(notebook: object) -> int | None:
    """The notebook's ``nbformat`` major version as Jupyter reads it: a whole number, which 4.0 is too (Jupyter
    compares it with 4), or, leniently, the digits of a hand-edited "4"; None when it has none."""
    value = notebook.get("nbformat") if isinstance(notebook, dict) else None
    if isinstance(value, float) and value.is_integer() and 0 <= value < 100:
        return int(value)
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 2:
        return int(value)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def language(notebook: dict) -> tuple[str, str]:
    """(language, kernel's display name) as the metadata gives them: ``kernelspec.language``, else
    ``language_info.name``; lower-case language, '' when the metadata says nothing."""
    metadata = notebook.get("metadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    spec = metadata.get("kernelspec") if isinstance(metadata.get("kernelspec"), dict) else {}
    info = metadata.get("language_info") if isinstance(metadata.get("language_info"), dict) else {}
    name = _text(spec.get("language")) or _text(info.get("name"))
    return name.lower(), _text(spec.get("display_name")) or _text(spec.get("name"))


def foreign(notebook: dict) -> str:
    """The language's name when the notebook's kernel is not a Python one ('R', 'Julia'...), else ''."""
    name, _ = language(notebook)
    if name in PYTHON_LIKE or name.startswith("python") or name.endswith("python"):  # micropython too
        return ""
    if not re.fullmatch(r"[\w.+#-]{1,24}", name):  # not one word: what is left of markup, say, reads as noise
        return "non-Python"
    return NAMES.get(name, name[:1].upper() + name[1:])


def _a(name: str) -> str:
    """The language's name after its article, as it is read aloud ('an R', 'a Julia')."""
    return f"{'an' if name[:1] in 'AEIOU' or name in ('R', 'F#', 'SQL') else 'a'} {name}"


def _kernel_shown(notebook: dict, name: str, lead: str = "") -> str:
    """The kernel's display name in parentheses when it says more than the language's name, else ''."""
    _, kernel = language(notebook)
    return f" ({lead}'{kernel}')" if kernel and kernel.lower() != name.lower() else ""


def foreign_error(notebook: dict, file: str, first_error: str) -> str:
    """The sentence for a notebook of another language whose code does not compile as Python."""
    name = foreign(notebook)
    shown = _kernel_shown(notebook, name, "its kernel is ")
    return (f"{file} is {_a(name)} notebook{shown}, and its code does not compile as Python ({first_error}): "
            "write the solution in a Python 3 notebook (in Colab, Runtime > Change runtime type > Python 3; in "
            "Jupyter, Kernel > Change Kernel) and submit that.")


def foreign_note(notebook: dict) -> list[str]:
    """For a notebook whose metadata names another language's kernel but whose code compiled as Python (a copied
    template, a kernel picked by mistake): a sentence saying it was graded as Python and how to set the kernel, so
    the student's own Jupyter, which would start that kernel, runs it too. [] for a Python notebook."""
    name = foreign(notebook)
    if not name:
        return []
    return [f"The notebook's metadata names {_a(name)} kernel{_kernel_shown(notebook, name)}, but its code is "
            "Python and was graded as Python. Jupyter would start that kernel when the notebook is opened: choose "
            "a Python 3 kernel (in Jupyter, Kernel > Change Kernel; in Colab, Runtime > Change runtime type) and "
            "save the notebook again."]


def notes(notebook: dict, cells: list[tuple[str, str, object]]) -> list[str]:
    """Every sentence the metadata and the saved run give a notebook that compiled: its kernel, then the order
    of its cells' runs (``order_notes``)."""
    return foreign_note(notebook) + order_notes(cells)


def version_note(notebook: dict) -> str:
    """What to add to a syntax error, from the Python version that last ran the notebook: a newer Python than
    the grader's (``pysource.newer_python``), or Python 2, whose ``print 'x'`` and ``except E, e`` are not Python
    3. '' for any other notebook, and for one of another language (its version number is not Python's)."""
    if foreign(notebook):
        return ""
    metadata = notebook.get("metadata")
    info = metadata.get("language_info") if isinstance(metadata, dict) else None
    version = info.get("version") if isinstance(info, dict) else None
    found = re.match(r"2\.(\d{1,3})\b", version) if isinstance(version, str) else None
    if found is not None:
        return (f" (the notebook last ran on Python 2.{found[1]}; the grader runs Python {sys.version_info[0]}."
                f"{sys.version_info[1]}, where print is a function: write the code as Python 3)")
    return pysource.newer_python(notebook)


#: a function defined at the top level of a cell (the cell's own text, its IPython syntax not yet translated)
_TOP_DEF = re.compile(r"^(?:async[ \t]+)?def[ \t]+([A-Za-z_]\w*)[ \t]*\(", re.M)


def order_notes(cells: list[tuple[str, str, object]], most: int = 3) -> list[str]:
    """For ``cells`` given as (label, source, saved execution count) in the notebook's order: one sentence per function
    (``most`` at most) whose last definition in that order ran, in the saved run, before another cell that defines it
    too. Only whole-number counts are compared; a cell never run (count None) says nothing about the order. A
    definition the same as the last one, line for line (a cell copied as a "final answer", run before its twin), says
    nothing either: what Jupyter kept is what is graded."""
    defined: dict[str, list[tuple[str, int, str]]] = {}
    for label, source, count in cells:
        if isinstance(count, int) and not isinstance(count, bool):
            texts = _definitions(source)
            for name in dict.fromkeys(_TOP_DEF.findall(source)):
                defined.setdefault(name, []).append((label, count, texts.get(name, "")))
    notes = []
    for name, places in defined.items():
        last_label, last_count, last_text = places[-1]
        later = [(label, count) for label, count, text in places[:-1] if count > last_count and text != last_text]
        if later and len(notes) < most:
            label, count = max(later, key=lambda place: place[1])
            notes.append(f"{name}() is defined in {label} and again in {last_label}, below it; the saved notebook "
                         f"shows {label} ran later (In [{count}], after In [{last_count}]), so Jupyter kept that one, "
                         "but cells run here from top to bottom, as with Restart & Run All, so the one below is "
                         "graded: delete the one you no longer want.")
    return notes


def _definitions(source: str) -> dict[str, str]:
    """The text of the last top-level ``def name(`` in a cell, by name: its line, the lines indented under it and any
    line that closes a signature written over several lines, without blank lines or trailing spaces, so that two
    cells holding the same function compare equal, whatever else they hold. One pass over the cell's lines (each
    definition's text ends at the next line at the margin, before the next definition): read name by name, a cell
    of 8,000 one-line functions took 20 s."""
    lines = source.splitlines()
    starts = {m[1]: i for i, line in enumerate(lines) if (m := _TOP_DEF.match(line))}
    texts = {}
    for name, start in starts.items():
        kept, end = [lines[start].rstrip()], start + 1
        while end < len(lines) and not ((line := lines[end]).strip() and not line[0].isspace()
                                        and not line.startswith((")", "]"))):
            if line.strip():
                kept.append(line.rstrip())
            end += 1
        texts[name] = "\n".join(kept)
    return texts
