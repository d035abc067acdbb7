"""A .py file exported from a notebook, cut into the cells the notebook had, code and text apart.

Jupyter's "# In[3]:", VS Code's, Jupytext's and Spyder's "# %%", IPython 1-2's "# <codecell>" and Databricks'
"# COMMAND ----------" each start a cell; Jupytext's own formats and marimo's notebooks are read by their modules,
and Colab's export, which has no markers, by ``colabexport``. Each code cell runs on its own, as in the notebook the
student ran, so one failing cell does not stop the rest. A text cell (a markdown cell the editor shows and never
runs) is kept apart, by its line, so that a sentence can say when the function was written there. This is text
work only: turning the code cells' sources into ``Cell`` objects (compiling them, translating IPython syntax) is the
caller's ``load``, which ``grader.submission`` gives.
"""
from __future__ import annotations

import re
from typing import Callable

from . import colabexport, jupytext, marimo
from .errors import SubmissionError

#: A notebook's cell boundary in an exported script: Jupyter's "# In[3]:", "# %%" (VS Code, Jupytext, Spyder),
#: IPython 1-2's "# <codecell>", or Databricks' "# COMMAND ----------".
CELL_MARKER = re.compile(r"^(?:# ?(?:In\[[ \d]*\]:|%%|<codecell>)|# COMMAND -{10}[ \t]*$)", re.M)
#: A cell marker of a text cell, which editors show and never run: Jupytext's and VS Code's "# %% [markdown]" (or
#: [md], [raw]), PyCharm's "#%% md".
TEXT_MARKER = re.compile(r"# ?%%(?:[^\n]*\[(?:markdown|md|raw)\]|[ \t]*md[ \t]*$)", re.M)
#: Databricks' source export writes a markdown cell as a '%md' command, every line of it behind '# MAGIC '
DATABRICKS_HEADER = "# Databricks notebook source"
_MAGIC_LINE = re.compile(r"# MAGIC(?: |$)")
_MARKDOWN_COMMAND = re.compile(r"# MAGIC %md(?:-sandbox)?[ \t]*$")
#: how a Databricks markdown command's text is kept (``markdown_command``): its first line, then the markdown
DATABRICKS_MARKDOWN = "%md"

#: (source, cell number, code cell number, 'the cell at line N', line offset), as ``jupytext.sources`` gives them
Source = tuple[str, int, int, str, "int | None"]
Loader = Callable[[list[Source]], tuple[list, list[str]]]


def cells(text: str, name: str, load: Loader, max_cells: int) -> tuple[list, list[str], list[tuple[int, str]]]:
    """The code cells of ``text`` as ``load`` makes them, its notes, and its text cells as (line, text).

    A .py file is one cell, unless it was exported from a notebook or is one (marimo's ``@app.cell``): then each
    part is a cell. A part marked as markdown or raw (``# %% [markdown]``, PyCharm's ``#%% md``) and a Databricks
    ``# MAGIC %md`` command are text that those editors never run: kept as prose, by the line that starts them."""
    if (found := jupytext.sources(text, max_cells) or marimo.sources(text, max_cells)) is not None:
        return *load(found[0]), found[1]
    starts = []
    for match in CELL_MARKER.finditer(text):
        starts.append(match.start())
        if len(starts) > max_cells:
            raise SubmissionError.with_kind(
                "too-many-cells", f"{name} has more than {max_cells:,} cell markers ('# %%' or '# In[ ]:'); an "
                f"exported script may have at most {max_cells:,} cells.")
    if not starts:
        return *colabexport.cells(text, load, max_cells), []
    if preamble := bool(text[: starts[0]].strip()):
        starts.insert(0, 0)
    sources, prose, line, counted = [], [], 1, 0
    for n, (start, end) in enumerate(zip(starts, starts[1:] + [len(text)]), start=1):
        line += text.count("\n", counted, start)  # counted once, from the previous start: linear in the file
        counted = start
        body, offset = start, line - 1
        if n > 1 or not preamble:  # the marker's line is left out, as the editor leaves it out of the cell it
            newline = text.find("\n", start, end)  # runs: a '%%time' on the next line is the cell's first line
            body, offset = (end if newline < 0 else newline + 1), line
            if TEXT_MARKER.match(text, start, body):
                prose.append((line, text[body:end]))
                continue
        if (markdown := markdown_command(text[body:end])) is not None:
            prose.append((offset + 1 + markdown[0], markdown[1]))
            continue
        sources.append((text[body:end], n, len(sources) + 1, f"the cell at line {line}", offset))
    if not sources:  # nothing but text cells: the file is graded as the code it is
        return *load([(text, 1, 1, "the file", 0)]), []
    return *load(sources), prose


def markdown_command(part: str) -> tuple[int, str] | None:
    """A Databricks markdown command (``# MAGIC %md`` and every line after it behind ``# MAGIC``) as the line of
    the part it starts on (0 for the first) and its text, '%md' then the markdown as the student typed it; None
    for any other part. The export's header line may come first. Such a cell is a comment to Python: it runs
    nothing, so a function written there was never defined, which the student is told as for a notebook's
    markdown cell."""
    lines = part.split("\n")
    first = next((i for i, line in enumerate(lines) if line.strip() and line.rstrip() != DATABRICKS_HEADER), None)
    if first is None or not _MARKDOWN_COMMAND.match(lines[first]):
        return None
    rest = [line for line in lines[first + 1:] if line.strip()]
    if not all(_MAGIC_LINE.match(line) for line in rest):
        return None
    shown = [_MAGIC_LINE.sub("", line, count=1) for line in lines[first + 1:]]
    return first, "\n".join([DATABRICKS_MARKDOWN, *shown]).rstrip("\n") + "\n"
