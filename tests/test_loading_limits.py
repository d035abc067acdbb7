"""Loading runs in the grader's own process, before any sandbox or limit: whatever a file holds, it loads in
bounded time and memory, IPython syntax is translated exactly as IPython does it, and what is refused says why."""
from __future__ import annotations

import json
import random
import time

import pytest
from IPython.core import inputtransformer2
from IPython.core.inputtransformer2 import TransformerManager

from conftest import CORRECT, SUBMISSIONS, notebook
from grader import choose, cli, student_check
from grader import ipython as ipython_mod
from grader import submission as submission_mod
from grader.submission import load

#: Generous: these took minutes before loading was bounded, and take well under a second now.
BOUND = 20.0


def timed(function, *args):
    started = time.perf_counter()
    value = function(*args)
    return value, time.perf_counter() - started


def full_marks(result):
    assert result.status == "graded", result.error
    assert result.score == result.max_score, [(c.id, c.message) for c in result.checks if c.status != "passed"]


# -- IPython syntax: bounded, and refused as Jupyter refuses it ---------------------------------------------------
def test_thousands_of_shell_lines_load_in_bounded_time(tmp_path, grade_source):
    """The attack: three exported cells of 6,000 '!echo' lines each spent 250 s in IPython's transformer."""
    source = "".join("# %%\n" + "".join(f"!echo {i}\n" for i in range(6000)) for _ in range(3)) + "# %%\n" + CORRECT
    path = tmp_path / "flood.py"
    path.write_text(source)
    submission, seconds = timed(load, path)
    assert seconds < BOUND
    errors = submission.syntax_errors()
    assert len(errors) == 3
    for error in errors:
        assert "its IPython syntax was not translated: the cell has 500 or more lines of magics, !shell or ?help" in error
        assert "Jupyter would not run it either" in error
    result, seconds = timed(grade_source, source, "flood.py")
    assert seconds < BOUND + 30  # the sandboxed run included
    full_marks(result)  # the cell that defines the function still runs
    assert any("IPython stops translating a cell after 500" in w for w in result.warnings)


def test_grader_check_on_a_flood_of_shell_lines_answers_in_seconds(tmp_path, capsys, exercise):
    flood = "".join(f"!echo {i}\n" for i in range(6000))
    path = tmp_path / "flood.py"
    path.write_text("# %%\n" + flood + "# %%\n" + flood + CORRECT)  # the function is in a refused cell
    (code, out), seconds = timed(lambda: (student_check.main(path, exercise), capsys.readouterr().out))
    assert seconds < BOUND + 30
    assert code == 1
    assert "Could not be checked: 2 places cannot be compiled; the first is SyntaxError at line 2: invalid " \
           "syntax -> '!echo 0'; its IPython syntax was not translated: the cell has 500 or more lines of magics, " \
           "!shell or ?help, and IPython stops translating a cell after 500 (Jupyter would not run it either)" in out
    assert "vgg_classifier() was never defined" in out


def test_499_magics_in_a_cell_run_and_500_are_refused_as_in_jupyter(tmp_path, grade_source):
    # IPython gives up after 500 rewrites in one cell (a RuntimeError, so Jupyter does not run it)
    assert inputtransformer2.TRANSFORM_LOOP_LIMIT == ipython_mod.IPYTHON_CELL_LIMIT == 500
    many = "".join(f"!echo {i}\n" for i in range(499))
    full_marks(grade_source(notebook(many + CORRECT), "student.ipynb"))
    result = grade_source(notebook("!echo last\n" + many + CORRECT), "student.ipynb")
    assert result.status == "error" and result.error.kind == "syntax-error"
    assert "line 1: invalid syntax -> '!echo last'" in result.error.message
    assert "IPython stops translating a cell after 500 (Jupyter would not run it either)" in result.error.message
    assert "vgg_classifier() was never defined" in result.error.message


def test_ipython_syntax_beyond_the_submission_cap_is_refused(tmp_path):
    cells = ["".join(f"%time x{i} = {i}\n" for i in range(400))] * 6  # 2,400 lines in all
    path = tmp_path / "student.ipynb"
    path.write_text(json.dumps(notebook(*cells)))
    submission, seconds = timed(load, path)
    assert seconds < BOUND
    translated = [c for c in submission.cells if c.syntax_error is None]
    assert len(translated) == 5  # 2,000 lines
    (refused,) = submission.syntax_errors()
    assert "code cell 6" in refused
    assert "the submission has more than 2,000 lines of magics, !shell or ?help" in refused


def test_cells_only_ipython_itself_can_translate_stay_bounded(tmp_path):
    """Cells the line-by-line translation cannot vouch for (a '!' line continued with a backslash, then a real
    syntax error) go through IPython's own loop, which rereads the whole cell per line: within a budget."""
    cell = "x = [" + "a," * 31_000 + "]\n" + "!echo \\\n  more\n" * 200 + "def f(:\n"
    path = tmp_path / "slow.py"
    path.write_text("".join("# %%\n" + cell for _ in range(4)))
    submission, seconds = timed(load, path)
    assert seconds < BOUND
    errors = submission.syntax_errors()
    assert len(errors) == 4
    assert all("SyntaxError" in e for e in errors)
    assert any("too large to translate within the grader's limits" in e for e in errors)


def test_blanks_before_no_token_do_not_stall_ipythons_tokenizer(tmp_path):
    """Python 3.11's tokenize (IPython's translation runs it) reads a run of blanks again from each of its blanks
    when no token follows it (a '?' in brackets, a '$'): 63 s for the first cell's 16,000 spaces, 50 s for each
    reading of the second's line, both within the old budget; each is charged what it rereads and refused."""
    cells = ["x = (\n" + " " * 16_000 + "?\n", "!x" + " " * 15_000 + "$\n", CORRECT]
    path = tmp_path / "blanks.py"
    path.write_text("".join("# %%\n" + cell for cell in cells))
    submission, seconds = timed(load, path)
    assert seconds < BOUND
    errors = submission.syntax_errors()
    assert len(errors) == 2 and all("too large to translate within the grader's limits" in e for e in errors)
    assert submission.cells[2].syntax_error is None
    # honest IPython syntax, with blanks before a '$', is still translated as IPython does it
    honest = "!echo   $HOME\nnp.mean?\nif True:\n    !ls   $x\n"
    assert load_text(tmp_path, honest).cells[0].source == TransformerManager().transform_cell(honest)


def load_text(tmp_path, source: str, name: str = "cell.py"):
    path = tmp_path / name
    path.write_text(source)
    return load(path)


def test_a_notebooks_metadata_is_not_read_past_the_loaders_cap(tmp_path, monkeypatch):
    """Which exercise a notebook names is read before loading; 64 MiB of '[],' took 1.4 GB and 6 s to read as
    JSON for it, which loading itself refuses before reading."""
    path = tmp_path / "wide.ipynb"
    path.write_text('{"nbformat": 4, "metadata": {"grader": {"exercise": "vgg_classifier"}, "x": ['
                    + "[]," * 2_100_000 + '1]}, "cells": []}')
    read = []
    real = json.loads
    monkeypatch.setattr(json, "loads", lambda *a, **k: read.append(1) or real(*a, **k))
    assert timed(submission_mod.named_exercise, path)[0] is None
    assert submission_mod.named_assignment(path) == (None, [])
    assert not read
    path.write_text('{"nbformat": 4, "metadata": {"grader": {"exercise": "vgg_classifier"}}, "cells": []}')
    assert submission_mod.named_exercise(path) == "vgg_classifier"


def test_large_cells_run_unchecked_with_a_warning(tmp_path, grade_source):
    data = "DATA = [\n" + "    1.0,\n" * 30_000 + "]\n"  # 300 KiB: more than the grader compiles in one cell
    result = grade_source(notebook(data, CORRECT), "student.ipynb")
    full_marks(result)
    assert any("it did not check code cell 1 (cell 1 of the notebook) (" in w and "It runs as written" in w
               for w in result.warnings), result.warnings
    # a whole .py file at the size cap loads at once, without compiling 8 MiB in the grader
    path = tmp_path / "huge.py"
    path.write_text("x = 1\n" * (((8 << 20) - len(CORRECT)) // 6) + CORRECT)
    submission, seconds = timed(load, path)
    assert seconds < BOUND
    assert submission.cells[0].source.endswith(CORRECT) and submission.cells[0].syntax_error is None
    assert "it did not check the file (8.0 MiB)" in submission.warnings[0]


def test_guessing_the_exercise_from_a_huge_file_parses_no_more_than_loading_does(tmp_path):
    """``grader check`` with several exercises reads the function names a file defines: an 8 MiB file took
    40 s and 3 GB to parse in full; past the loading limits a line scan names them instead."""
    path = tmp_path / "huge.py"
    path.write_text("x = 1\n" * (((8 << 20) - len(CORRECT)) // 6) + CORRECT)
    names, seconds = timed(choose.defined_functions, path)
    assert seconds < BOUND
    assert names == {"vgg_classifier"}


def test_too_many_cells_are_refused(tmp_path, grade_source):
    result = grade_source(notebook(*["x = 1"] * 10_001), "student.ipynb")
    assert result.status == "error" and result.error.kind == "too-many-cells"
    assert "more than 10,000 code cells; a notebook may have at most 10,000" in result.error.message
    source = "# %%\nx = 1\n" * 1_600_000  # every line a cell marker: 18 MiB of text, over the .py size cap
    path = tmp_path / "markers.py"
    path.write_text(source[: (8 << 20) - 100])
    with pytest.raises(submission_mod.SubmissionError, match="more than 10,000 cell markers"):
        timed(load, path)


@pytest.mark.parametrize("values", ["{}", '"ab"', "[1.5]"], ids=["objects", "short-strings", "lists"])
def test_notebooks_too_wide_to_read_are_refused_before_reading(tmp_path, values):
    """64 MiB of '[],' would take 1.8 GB and seconds to read as JSON (of '"ab",' 1.1 GB), in the grader's own
    process, and millions of cells seconds to scan."""
    path = tmp_path / "wide.ipynb"
    path.write_text('{"nbformat": 4, "metadata": {"x": [' + f"{values}," * 2_100_000 + '1]}, "cells": []}')
    error, seconds = timed(lambda: pytest.raises(submission_mod.SubmissionError, load, path).value)
    assert seconds < BOUND
    assert error.kind == "too-many-cells" and "more than 2,000,000 JSON values" in error.message


def test_counting_a_notebooks_values_takes_one_pass_whatever_its_quotes(tmp_path):
    """A string that never closes, made of escaped quotes: a search that starts again at each later quote would
    take hours (it took 94 s for 80,000 of them); each string is scanned once, and the count stops at the cap."""
    path = tmp_path / "escapes.ipynb"
    path.write_bytes(b'{"nbformat": 4, "cells": [], "metadata": {"x": "' + b'\\"' * 5_000_000)
    error, seconds = timed(lambda: pytest.raises(submission_mod.SubmissionError, load, path).value)
    assert seconds < BOUND and "not valid JSON" in error.message
    path.write_bytes(b'[' + b'"",' * 3_000_000 + b'""]')
    assert timed(lambda: submission_mod.json_values(path.read_bytes()))[1] < BOUND


def test_a_notebook_in_utf_16_is_counted_as_json_reads_it(tmp_path):
    """In UTF-16, 'Ģ' (U+0122) is the bytes 22 01: counted as bytes, a quote there hid millions of values."""
    path = tmp_path / "wide16.ipynb"
    text = '{"nbformat": 4, "cells": [], "metadata": {"x": ["a\u0122", ' + "[]," * 2_100_000 + '"end"]}}'
    path.write_bytes(text.encode("utf-16"))
    error, seconds = timed(lambda: pytest.raises(submission_mod.SubmissionError, load, path).value)
    assert seconds < BOUND and "more than 2,000,000 JSON values" in error.message


def test_a_notebook_that_printed_millions_of_numbers_is_still_read(tmp_path):
    """Commas inside strings are not values: three million of them in a printed array's text are read."""
    row = ", ".join(["0.5"] * 1000) + "\n"
    cell = {"cell_type": "code", "execution_count": 1, "metadata": {}, "source": CORRECT,
            "outputs": [{"output_type": "stream", "name": "stdout", "text": [row] * 3000}]}
    path = tmp_path / "printed.ipynb"
    path.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [cell]}))
    loaded, seconds = timed(lambda: load(path))
    assert seconds < BOUND and any("def vgg_classifier" in c.source for c in loaded.cells)


def test_notebooks_too_many_cells_are_refused(tmp_path):
    path = tmp_path / "many.ipynb"
    markdown = {"cell_type": "markdown", "metadata": {}, "source": "x"}
    path.write_text(json.dumps({"nbformat": 4, "metadata": {}, "cells": [markdown] * 100_001}))
    with pytest.raises(submission_mod.SubmissionError, match="has 100,001 cells; a notebook may have at most 100,000"):
        load(path)


def test_exported_script_cells_keep_their_line_numbers(tmp_path):
    path = tmp_path / "export.py"
    path.write_text("import numpy as np\n# %%\nx = 1\n\n# In[3]:\n\ny = 2\n# %%\n!ls\n")
    cells = load(path).cells
    assert [c.label for c in cells] == ["the cell at line 1", "the cell at line 2", "the cell at line 5",
                                        "the cell at line 8"]
    assert [c.where(1) for c in cells] == ["line 1", "line 3", "line 6", "line 9"]  # a cell's line 1 follows its marker
    assert cells[3].source == "get_ipython().system('ls')\n"


def test_json_nested_too_deeply_in_a_py_file_is_not_an_internal_error(tmp_path, grade_source):
    result = grade_source('{"nbformat": ' + "[" * 30_000 + "]" * 30_000 + "}", "deep.py")
    assert result.status == "error" and result.error.kind == "syntax-error"


# -- the translation is IPython's, exactly ------------------------------------------------------------------------
TRICKY = [
    "!echo hi\nx = 1\n", "files = !ls\n%time y = 2\n", "np.max?\n??np\n%who?\n", "if True:\n    !echo a\n    x?\n",
    "s = '''\n!echo in a string\n'''\n!echo out\n", "x = (1,\n!echo in brackets\n)\n", "!echo \\\n  continued\n",
    "!echo )\nx = (1 +\n 2)\n!ls\n", "!echo (\n1)\n", "!echo it's\n%pip install numpy\n", "a = %who_ls\nb = !pwd\n",
    ",f a b\n;f a b\n/f a b\n", ">>> x = 1\n>>> !ls\n", "In [1]: x = 1\n   ...: !ls\n", "    !indented\n    x = 1\n",
    "def f():\n    return 1\n    !echo after return\n", "async def g():\n    !echo\n    await h()\n",
    "await h()\n!echo top-level await\n", "while False:\n    !echo dead\n", "x = 1 # why?\n!echo\n",
    "%%time\n!echo\nx = 1\n", "%%writefile a.py\n!echo\n", "@dec\n!echo\ndef f(): pass\n", "x = f(\n  1)?\n",
    "!echo '''\nx = 1\n'''\n", "lambda: 1?\n", "x = 1\n\u2028!ls\n", "x = 1\r!ls\n", "!\n?\n%\n", "1?\nx?\n",
    "class C:\n    !echo\n    def m(self):\n        %time 1\n", "try:\n    !a\nexcept E:\n    !b\nfinally:\n    !c\n",
]


def _random_cells(count: int) -> list[str]:
    rng = random.Random(20240)
    ipython = ["!echo hi", "files = !ls", "%matplotlib inline", "%timeit 1 + 1", "np.max?", "?np", "a = %who_ls",
               "%pip install numpy", "!echo )", "!echo (", "!echo '''", "!echo \\", ",f a b", "/f", "x = 1?", "%%time"]
    python = ["x = 1", "print('why?')", "s = '''", "'''", "y = [1,", " 2]", "if x:", "    pass", "def f():",
              "    return 1", "z = 3 % 2", "c = x != y", "t = f'{x!r}'", "# comment?", "else:", "    !echo in block"]
    cells = []
    for _ in range(count):
        lines = [rng.choice(ipython if rng.random() < 0.4 else python) for _ in range(rng.randint(1, 10))]
        cells.append("\n".join(lines) + "\n")
    return cells


def _notebook_cells() -> list[str]:
    cells = []
    for path in sorted((SUBMISSIONS / "notebooks").glob("*.ipynb")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            continue
        for cell in data.get("cells", []) if isinstance(data, dict) else []:
            if isinstance(cell, dict) and cell.get("cell_type") == "code":
                source = cell.get("source", "")
                cells.append("".join(source) if isinstance(source, list) else source)
    return cells


def test_translation_is_ipythons():
    """Whatever path a cell takes (line by line, or IPython's own loop), the code the child runs is what
    IPython's ``transform_cell`` makes of it, and a cell IPython cannot translate is not translated."""
    cells = _notebook_cells() + TRICKY + _random_cells(400)
    line_by_line = 0
    for cell in cells:
        try:
            expected = TransformerManager().transform_cell(cell)
        except Exception:
            expected = None
        if expected is not None and ipython_mod.compile_error(expected) is not None:
            expected = None  # IPython's rewrite does not compile either: the cell's syntax error stands
        translated = ipython_mod.Translator().translate(cell)
        got = translated.source
        if got is not None and not translated.proven and ipython_mod.compile_error(got) is not None:
            got = None
        assert got == expected, cell
        line_by_line += translated.proven
    assert line_by_line > 40  # the linear path is the common one


def test_notebooks_with_magics_still_translate_the_same(tmp_path):
    """The committed test notebooks load as before: no cell refused, every rewrite IPython's."""
    for path in sorted((SUBMISSIONS / "notebooks").glob("*.ipynb")):
        try:
            submission, seconds = timed(load, path)
        except submission_mod.SubmissionError:
            continue
        assert seconds < 2.0, path.name
        assert not any("not translated" in e for e in submission.syntax_errors()), path.name
        assert not submission.warnings or all("did not check" not in w for w in submission.warnings)
