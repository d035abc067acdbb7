"""What a fifth blind held-out class (helper-83's, in /tmp/h83/class: 53 submissions made by the real tools, the
shipped notebook filled in, executed with nbclient and saved by nbformat as 4.4 and 4.5, exported with nbconvert
``--to script`` and Jupytext ``py:percent`` and ``py:light``, VS Code ``# %%`` files) showed the reports getting
wrong; each test failed before its fix. The rest of that class (out-of-order execution counts, a kernel still busy
when saved, a solution over three cells with its helpers defined after it, a signed notebook, an R or Julia
kernelspec over Python code, widget state, ``%store``, ``%run``, ``input()`` in a try, a plot with matplotlib, huge
printed arrays, 16 mistakes) was graded right already.

- Jupytext comments IPython syntax out in the scripts it writes (``# %%writefile helpers.py``, ``# %time x =
  f()``, ``# !pip install``) and takes the ``# `` away when it reads them back. The grader read them as comments:
  ``helpers.py`` was never written, so ``import helpers`` failed and a right solution got 0/17 ("vgg_classifier()
  was never defined"); ``x`` was never bound. In the percent format, ``# %%writefile`` was also taken for a cell
  marker (Jupytext's marker is ``# %%`` followed by a blank). In the light format, cells (paragraphs, ``# +`` ...
  ``# -`` regions) were not told apart, so a ``%%writefile`` in the middle of the file could not be a cell magic
  and one failing cell stopped every later one. Files that start with Jupytext's header are now read as Jupytext
  reads them (grader/jupytext.py).
"""
from __future__ import annotations

from conftest import SUBMISSIONS, grade_students
from grader import jupytext, submission

FOLDER = SUBMISSIONS / "heldout5"


def test_jupytext_scripts_run_their_commented_magics_as_the_notebook_did(session):
    """The notebook and its percent and light exports, one batch: each writes helpers.py with %%writefile, binds
    ramp under %time, and gets full marks; only the '!echo' line is said not to have run, as for the notebook."""
    results = grade_students(FOLDER, session, ["jupytext-magics", "jupytext-percent", "jupytext-light"])
    for name, result in results.items():
        assert result.status == "graded", (name, result.error)
        assert result.score == result.max_score, (name, [(c.id, c.message) for c in result.checks
                                                         if c.status != "passed"])
        assert list(result.warnings) == ["The shell command '!echo checked' was not run during grading."], (
            name, result.warnings)


def test_only_the_escape_jupytext_added_is_taken_away():
    """A comment that held a magic in the notebook was written with two '# ' and keeps one; a '%time' inside a
    docstring is text; a line continued after a magic is uncommented with it; line numbers never move."""
    source = ('# # %matplotlib inline\n# %time x = f(1, \\\n#     2)\ny = """\n# %time inside\n"""\n'
              "# !pip install numpy\n# plain comment\n# ls the folder\n")
    assert jupytext.uncomment_magics(source) == ('# %matplotlib inline\n%time x = f(1, \\\n    2)\ny = """\n'
                                                 '# %time inside\n"""\n!pip install numpy\n# plain comment\n'
                                                 '# ls the folder\n')


def test_a_percent_file_without_jupytexts_header_is_read_as_before():
    """VS Code and Spyder write '# %%' files too, and comment nothing out: without the header nothing changes,
    and their '# %%' followed by anything stays a cell marker."""
    text = "# %%\nimport numpy as np\n# %time x = 1\n# %%time\ny = 2\n"
    assert jupytext.format_name(text) is None
    cells, _, _ = submission._script_cells(text)
    assert [c.source for c in cells][0] == "import numpy as np\n# %time x = 1\n"
    assert len(cells) == 2


def test_the_light_format_splits_where_jupytext_does():
    """Paragraphs at column 0 are cells, a '# +' region keeps its blank lines, a comment paragraph is text."""
    text = ("# ---\n# jupyter:\n#   jupytext:\n#     text_representation:\n#       format_name: light\n# ---\n\n"
            "# # Title\n\nimport numpy as np\n\n# +\ndef f():\n    return 1\n\n\nz = f()\n# -\n\nbad\n")
    code, prose = jupytext.sources(text, 100)
    assert [c[0] for c in code] == ["import numpy as np\n", "def f():\n    return 1\n\n\nz = f()\n", "bad\n"]
    assert [c[3] for c in code] == ["the cell at line 10", "the cell at line 13", "the cell at line 20"]
    assert prose == [(8, "# # Title\n")]


def test_a_skipped_layer_is_not_read_as_an_activation_that_zeroes_everything(grade_source):
    source = ("import numpy as np\n\ndef vgg_classifier(features, W1, b1, W2, b2, W3, b3):\n"
              "    x = features.reshape(features.shape[0], -1)\n    h = np.maximum(0, x @ W1 + b1)\n"
              "    return h @ W3 + b3\n")
    result = grade_source(source)
    assert [d.id for d in result.diagnoses] == ["missing-layer"]
    second = next(line for line in result.trace if line.strip().startswith("second activation"))
    assert second == "  second activation: departs: FC2 (W2, b2) is skipped: the output of FC1 goes straight into FC3"


def test_builtins_is_the_module_in_every_mode_as_in_jupyter(grade_source):
    """``__builtins__`` in a notebook or a script is the builtins module (Jupyter gives it so); a run forked from the
    template got the module's dict instead, so ``__builtins__.sum(...)`` (a student who had shadowed ``sum``) raised
    AttributeError there and nowhere else."""
    source = ("import numpy as np\nsum = 0\n\ndef vgg_classifier(features, W1, b1, W2, b2, W3, b3):\n"
              "    assert __builtins__.sum([1, 2]) == 3 and __builtins__.len is len\n"
              "    h = np.maximum(features.reshape(len(features), -1) @ W1 + b1, 0)\n"
              "    return np.maximum(h @ W2 + b2, 0) @ W3 + b3\n")
    result = grade_source(source)
    assert result.score == result.max_score, result.to_json()[:1500]
