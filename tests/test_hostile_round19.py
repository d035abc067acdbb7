"""Nineteenth round of hostile submissions: the parsers that read a submission's text in the grader's own process.

Loading runs before any sandbox or limit, so whatever a file holds within its size limits (8 MiB of .py, 64 MiB of
notebook, 10,000 cells, 2,000,000 JSON values, 128 KiB of code compiled per cell) must load in bounded time and
memory, and fail, if it fails, with a sentence rather than an internal error. This round timed every reader
(``fstrings``, ``pysource``, ``scriptcells``, ``jupytext``, ``marimo``, ``colabexport``, ``ipython``, the notebook
and JSON readers, ``choose.defined_functions`` and the similarity tokeniser) on generated text at those limits:
nested and unclosed f-strings, runs of '{{', backslashes, '#' and '\\r', 100,000 magic lines, 10,000 cells,
marimo cells depending on each other in reverse, a Colab export cut into 50,000 statements, JSON nested to the
limit. What it found:

- ``pysource.newer_syntax`` (which says a syntax error is Python 3.12's) searched the error's line with a pattern
  that, where no '}' followed, read to the end of the line once for every 'f"{' before it: a 128 KiB cell of
  'f"{' took 14 s to load (a notebook of two such cells, 28 s). Each line is now searched only up to its last '}'.
- ``jupytext.is_magic`` gave a line's leading blanks back one at a time, reading the rest of the line again each
  time: a Jupytext script with a line of 60,000 blanks took 14 s to load (8 MiB of them, hours). Its pattern now
  takes them possessively, which finds the same magics (no alternative starts where the blanks were given back).
- The rest of the Jupytext reader was linear, but a step in Python per line, and per character of every string:
  8 MiB of blank lines after its header took 6.8 s, of '#' lines 3.9 s, of short paragraphs 3.7 s. It now reads
  only the lines that can end a cell (a '#' or a quote in them, or a blank line before a paragraph), found in C,
  skips strings with ``re``, stops at the first cell past the cell limit, and reads scripts of up to 200,000
  lines (longer ones are read as plain scripts, as marimo's and Colab's readers leave large files): 0.3 s at most.
- A Colab export is cut into cells at its top-level statements that follow a blank line, once per statement: a line
  'import os; x = 1' gave an empty cell before its own, and 128 KiB of 'a=1;' (one line) gave 32,742 empty cells,
  each compiled. And 128 KiB of 'a=1' paragraphs became 26,000 cells, where a notebook may have 10,000. A line now
  starts one cell at most, and an export that would make more cells than a notebook may have stays one cell.
- ``kernels.order_notes`` (which says when the saved run kept an upper definition) read a cell's lines again for each
  function the cell defines: a run notebook whose cell held 8,000 one-line functions took 20 s to load (a 64 MiB
  notebook, hours). The texts of a cell's definitions are now read in one pass.
- A .py file may declare its encoding ('# coding: ...'), and the loader decodes it with that codec: punycode's
  decoder is Python code whose insertions are quadratic, 65 s for 800 KB. Such a file is now refused, with a
  sentence saying to save it as UTF-8; every encoding an editor writes decodes in C, in linear time.
- ``grader check`` on a file that names no exercise compares each function it defines with the exercises' (to name a
  near miss): 8 MiB of one-line defs are 420,000 functions, 4.5 s of comparisons. Only names whose length allows
  a near miss are compared now, the first 2,000 of them in alphabetical order (a file of thousands of such names
  may then get the plain question instead of the near miss).
- A notebook of 10,000 cells each holding an f-string that reuses its quotes got a note naming all 10,000 places
  (518 KB, in every report). The note names five, then how many more; so do the warnings on code cells without a
  readable source and on cells tagged 'skip-execution' (one sentence per cell: 9,900 of them made 614 KB).
- A .py file holding a notebook's JSON is told to be renamed .ipynb: to tell, it was read as JSON with no count of
  its values, so 8 MiB of '[],' took 270 MB and 0.75 s. Its values are counted first now, as a notebook's are.
- ``pysource.rescan_cost`` (what Python's tokenize would read again, asked before the similarity report or IPython's
  own loop tokenizes a student's text) tried its token pattern after each run of blanks, and before a '#' that
  pattern reads the comment to the line's end: a line of 40,000 '  #' took 13 s. A '#' is now known to start a
  token without reading on.
"""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from grader import jupytext
from grader.colabexport import MAX_SPLIT
from grader.errors import DecodeFailure, SubmissionError
from grader.submission import MAX_BYTES, MAX_CELLS, MAX_CHECKED_CELL, load

#: generous: each case below took from 3 to 28 s before its fix, and takes a fraction of a second now
BOUND = 4.0


def loaded(path: Path, text: str):
    """The submission ``text`` loads into from ``path``, and the processor time that took."""
    path.write_text(text, encoding="utf-8")
    started = time.process_time()
    submission = load(path)
    return submission, time.process_time() - started


def code_notebook(*sources: str, counts: tuple = ()) -> str:
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {},
                       "cells": [{"cell_type": "code", "metadata": {}, "source": s, "outputs": [],
                                  "execution_count": counts[n] if n < len(counts) else None}
                                 for n, s in enumerate(sources)]})


def test_a_line_of_opened_fstrings_is_named_in_linear_time(tmp_path):
    line = 'f"{' * ((MAX_CHECKED_CELL - 16) // 3)
    submission, seconds = loaded(tmp_path / "opened.ipynb", code_notebook(line, line + '}"'))
    assert seconds < BOUND
    errors = submission.syntax_errors()
    assert len(errors) == 2
    assert "Python 3.12 syntax" not in errors[0]  # no field closes: nothing there is 3.12's
    assert "an f-string whose {...} holds its own quotes, a backslash or a comment is Python 3.12 syntax" in errors[1]


JUPYTEXT_HEADER = ("# ---\n# jupyter:\n#   jupytext:\n#     text_representation:\n#       format_name: {}\n"
                   "# ---\n\n")


def test_a_jupytext_line_of_blanks_is_read_in_linear_time(tmp_path):
    blanks = " " * 60_000 + "\n"
    for name in ("light", "percent"):
        text = JUPYTEXT_HEADER.format(name) + "# %%\nx = 1\n" + blanks + "# %time y = 2\n\n# %%\nz = 3\n"
        submission, seconds = loaded(tmp_path / f"{name}.py", text)
        assert seconds < BOUND
        assert not submission.syntax_errors()
        sources = [cell.source for cell in submission.cells]
        assert sources[-1].endswith("\nz = 3\n") or sources[-1] == "z = 3\n", sources
        assert any("run_line_magic('time', 'y = 2')" in s for s in sources), sources  # the commented magic runs


def test_jupytext_scripts_of_millions_of_lines_load_in_bounded_time(tmp_path):
    size = MAX_BYTES[".py"] - 1024
    for name, lines in [("light", "#\n"), ("percent", "#\n"), ("light", "\n"), ("light", "x\n\n")]:
        text = JUPYTEXT_HEADER.format(name) + "x = 1\n" + lines * (size // len(lines))
        started = time.process_time()
        assert jupytext.sources(text, 10_000) is None  # past its lines (or cells): read as a plain script
        assert time.process_time() - started < BOUND
    # just under the limit of lines, every line read in Python: still well under a second
    text = JUPYTEXT_HEADER.format("light") + "# c\n" * (jupytext.MAX_LINES - 20) + "x = 1\n"
    started = time.process_time()
    found = jupytext.sources(text, 10_000)
    assert time.process_time() - started < BOUND
    assert found is not None and len(found[0]) == 1 and found[0][0][0].endswith("x = 1\n")


COLAB_HEADER = '"""student.ipynb\n\nAutomatically generated by Colab.\n"""\n\n'


def test_a_colab_line_of_several_statements_is_one_cell(tmp_path):
    text = COLAB_HEADER + "import os; x = 1; y = 2\n\ndef f():\n    return x\n"
    submission, _ = loaded(tmp_path / "semicolons.py", text)
    assert [(cell.number, cell.label, cell.source) for cell in submission.cells] == [
        (1, "the cell at line 6", "import os; x = 1; y = 2\n\n"), (2, "the cell at line 8", "def f():\n    return x\n")]


def test_a_colab_export_of_more_statements_than_a_notebook_has_cells_stays_whole(tmp_path):
    text = COLAB_HEADER + "a=1\n\n" * ((MAX_SPLIT - len(COLAB_HEADER)) // 5)
    assert text.count("a=1") > MAX_CELLS
    submission, seconds = loaded(tmp_path / "paragraphs.py", text)
    assert seconds < BOUND
    assert [cell.label for cell in submission.cells] == ["the file"]
    assert not submission.syntax_errors()
    # one line of statements: one cell (the opening docstring is a text cell), not thousands of empty ones
    submission, seconds = loaded(tmp_path / "one-line.py", COLAB_HEADER + "a=1;" * 2000 + "\n")
    assert [cell.label for cell in submission.cells] == ["the cell at line 6"]


def test_a_run_notebook_with_thousands_of_functions_in_a_cell_loads_in_linear_time(tmp_path):
    functions = "".join(f"def f{i}():\n    return {i}\n" for i in range(8000))
    later = functions.replace("def f7999():\n    return 7999", "def f7999():\n    return -1")
    text = code_notebook(functions, later, counts=(2, 1))  # the upper cell ran last, in the saved run
    submission, seconds = loaded(tmp_path / "functions.ipynb", text)
    assert seconds < BOUND
    notes = [w for w in submission.warnings if "is defined in" in w]
    assert len(notes) == 1 and notes[0].startswith("f7999() is defined in code cell 1"), notes


def test_a_py_file_declaring_a_slow_decoder_is_refused_with_a_sentence(tmp_path):
    path = tmp_path / "punycode.py"
    path.write_bytes(b"# -*- coding: punycode -*-\nx = 1" * 4 + b"-" + b"abcdefghij" * 80_000)
    started = time.process_time()
    with pytest.raises(DecodeFailure) as refused:
        load(path)
    assert time.process_time() - started < BOUND
    assert str(refused.value) == (
        "'punycode.py' declares its encoding as 'punycode' (its '# coding:' line), which is not an encoding editors "
        "save source files in: save it as UTF-8 and delete that line.")


def test_check_of_a_file_of_thousands_of_functions_compares_only_possible_near_misses(tmp_path, capsys,
                                                                                          monkeypatch):
    import difflib

    from conftest import run_cli

    compared = []
    close_matches = difflib.get_close_matches
    monkeypatch.setattr(difflib, "get_close_matches", lambda word, *rest, **named: compared.append(word) or
                        close_matches(word, *rest, **named))
    path = tmp_path / "hw.py"
    path.write_text("".join(f"def a_helper_with_a_much_longer_name_{i}(): pass\n" for i in range(100_000))  # none near
                    + "".join(f"def helper_{i}(): pass\n" for i in range(1_000))  # of about the right length
                    + "def vggClassifier(x):\n    return x\n")
    code, _, err = run_cli(capsys, "check", path)
    assert code == 2 and "did you mean to name 'vggClassifier' as 'vgg_classifier' (exercise vgg_classifier)?" in err
    assert len(compared) == 1_001  # only names whose length allows a near miss (2,000 of them at most)


def test_the_note_on_rewritten_fstrings_names_five_places_then_counts(tmp_path):
    submission, seconds = loaded(tmp_path / "requoted.ipynb", code_notebook(*['x = f"{d["k"]}"\n'] * 2000))
    assert seconds < BOUND and not submission.syntax_errors()
    [note] = [w for w in submission.warnings if w.startswith("The f-strings at")]
    assert note.startswith("The f-strings at code cell 1 (cell 1 of the notebook), line 1, code cell 2 ")
    assert "code cell 5 (cell 5 of the notebook), line 1 and 1,995 more places reuse their own quotes" in note
    assert len(note) < 1000


def test_warnings_on_thousands_of_skipped_cells_name_five_then_count(tmp_path):
    cells = ([{"cell_type": "code", "source": 5, "metadata": {}}] * 3000
             + [{"cell_type": "code", "source": "x = 1", "metadata": {"tags": ["skip-execution"]}}] * 3000
             + [{"cell_type": "code", "source": "def f():\n    return 1\n", "metadata": {}}])
    submission, _ = loaded(tmp_path / "skipped.ipynb", json.dumps({"nbformat": 4, "metadata": {}, "cells": cells}))
    assert len(submission.warnings) == 12
    assert submission.warnings[4] == "Code cell 5 has no readable source and was skipped."
    assert submission.warnings[5] == "2,995 more code cells have no readable source and were skipped."
    assert submission.warnings[6].startswith("Code cell 3001 (cell 3001 of the notebook) is tagged 'skip-execution'")
    assert submission.warnings[11] == "2,995 more code cells are tagged 'skip-execution' and were not run."


def test_a_py_file_holding_millions_of_json_values_is_told_its_extension_without_reading_them(tmp_path):
    import tracemalloc

    path = tmp_path / "notebook.py"
    path.write_text('{"nbformat": 4, "cells": [' + "[]," * ((MAX_BYTES[".py"] - 64) // 3) + "[]]}")
    tracemalloc.start()
    try:
        with pytest.raises(SubmissionError) as refused:
            load(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "holds a Jupyter notebook's JSON, not Python source: submit it with the .ipynb extension" in str(refused.value)
    assert peak < 100 << 20  # the file's text, not 2.8 million lists


def test_the_cost_of_tokenizing_a_line_of_commented_blanks_is_told_in_linear_time():
    from grader import similarity

    code = "  #" * 40_000 + "\nx = 1\n"
    started = time.process_time()
    tokens = similarity.normalise(code)
    assert time.process_time() - started < BOUND
    assert [token for token, _, _ in tokens] == ["V", "=", "N", ";"]  # the comment left out, as tokenize reads it
