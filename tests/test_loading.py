"""Loading submissions: encodings, notebook formats, IPython syntax, and a clear error for every broken file."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from conftest import CORRECT, SUBMISSIONS, check, diagnosis_ids, notebook


def full_marks(result):
    assert result.status == "graded", result.error
    assert result.score == result.max_score, [(c.id, c.message) for c in result.checks if c.status != "passed"]
    assert not result.diagnoses


def test_plain_python_file_gets_full_marks(grade_source):
    full_marks(grade_source(CORRECT))


def test_latin1_coding_cookie(grade_source):
    source = "# -*- coding: latin-1 -*-\n# r\xe9sum\xe9 of my work\n" + CORRECT
    full_marks(grade_source(source.encode("latin-1")))


def test_utf8_bom_and_crlf_line_ends(grade_source):
    full_marks(grade_source(b"\xef\xbb\xbf" + CORRECT.replace("\n", "\r\n").encode()))


def test_undecodable_file_is_a_clear_error(grade_source):
    result = grade_source(b"# \xff\xfe\xfa broken\n" + CORRECT.encode())
    assert result.status == "error"
    assert result.error.kind == "encoding"
    assert "UTF-8" in result.error.message


@pytest.mark.parametrize("as_string", [False, True], ids=["source-list", "source-string"])
def test_notebook_v4(grade_source, as_string):
    nb = notebook("# MD# The head", "import numpy as np", CORRECT.replace("import numpy as np\n", ""),
                  as_string=as_string)
    full_marks(grade_source(nb, "student.ipynb"))


def test_notebook_v3_is_upgraded(grade_source):
    nb = {"nbformat": 3, "nbformat_minor": 0, "metadata": {"name": ""},
          "worksheets": [{"cells": [{"cell_type": "code", "input": CORRECT, "language": "python",
                                     "metadata": {}, "outputs": []}], "metadata": {}}]}
    full_marks(grade_source(nb, "student.ipynb"))


def test_cell_magic_around_the_def_still_defines_it(grade_source):
    full_marks(grade_source(notebook("%%time\n" + CORRECT), "student.ipynb"))


def test_shell_lines_and_help_do_no_harm_and_run_no_shell(grade_source, tmp_path):
    canary = tmp_path / "shell-ran"
    nb = notebook(f"!touch {canary}\nfiles = !ls\n%matplotlib inline\n?np.maximum\nimport numpy as np\nnp.max?",
                  "%pip install numpy\n%timeit 1 + 1\n" + CORRECT)
    result = grade_source(nb, "student.ipynb")
    full_marks(result)
    assert not canary.exists()
    assert any("shell command" in w for w in result.warnings)


def test_a_raising_cell_does_not_stop_later_cells(grade_source):
    nb = notebook("import numpy as np\nundefined_name + 1", CORRECT, "import sys\nsys.exit('done')", "1 / 0")
    result = grade_source(nb, "student.ipynb")
    full_marks(result)
    joined = " ".join(result.warnings)
    assert "NameError" in joined and "ZeroDivisionError" in joined and "SystemExit" in joined


def test_the_last_definition_wins_and_helpers_from_other_cells_are_visible(grade_source):
    wrong = "def vgg_classifier(*args):\n    return None\n"
    right = ("def vgg_classifier(features, W1, b1, W2, b2, W3, b3):\n"
             "    x = flat(features)\n"
             "    return relu(relu(x @ W1 + b1) @ W2 + b2) @ W3 + b3\n")
    nb = notebook("import numpy as np", wrong, "def relu(z):\n    return np.maximum(z, 0.0)",
                  "flat = lambda f: f.reshape(len(f), -1)", right)
    full_marks(grade_source(nb, "student.ipynb"))


def test_a_callable_object_counts_as_the_function(grade_source):
    source = CORRECT.replace("def vgg_classifier(", "def _head(") + (
        "\nclass Head:\n    def __call__(self, *args):\n        return _head(*args)\n\nvgg_classifier = Head()\n")
    full_marks(grade_source(source))


def test_main_block_of_a_py_file_does_not_run(grade_source):
    source = CORRECT + "\nif __name__ == '__main__':\n    raise SystemExit('demo code')\n"
    full_marks(grade_source(source))


@pytest.mark.parametrize("name", sorted(p.name for p in (SUBMISSIONS / "notebooks").glob("correct-*.ipynb")))
def test_bundled_correct_notebooks(session, name):
    from grader.grade import grade_file

    full_marks(grade_file(SUBMISSIONS / "notebooks" / name, session))


def test_not_json(grade_source):
    result = grade_source('{"cells": [', "student.ipynb")
    assert (result.status, result.error.kind) == ("error", "not-json")
    assert "not valid JSON" in result.error.message
    assert result.score == 0


def test_empty_notebook_file(grade_source):
    result = grade_source("", "student.ipynb")
    assert result.error.kind == "not-json" and "empty" in result.error.message


def test_json_that_is_not_a_notebook(grade_source):
    result = grade_source({"hello": 1}, "student.ipynb")
    assert result.error.kind == "not-a-notebook"


def test_syntax_error_names_line_and_cell(grade_source):
    bad = CORRECT.replace("h = np.maximum(0.0, x @ W1 + b1)", "h = np.maximum(0.0, x @ W1 + b1")
    result = grade_source(notebook("import numpy as np", "# MD text", bad), "student.ipynb")
    assert result.status == "error" and result.error.kind == "syntax-error"
    assert "code cell 2" in result.error.message and "cell 3 of the notebook" in result.error.message
    assert "line" in result.error.message


def test_indentation_error_in_py_names_the_line(grade_source):
    bad = CORRECT.replace("    h = np.maximum(0.0, h @ W2", "      h = np.maximum(0.0, h @ W2")
    result = grade_source(bad)
    assert result.error.kind == "syntax-error"
    assert "IndentationError" in result.error.message and "line 6" in result.error.message


def test_missing_function_suggests_close_names(grade_source):
    result = grade_source(CORRECT.replace("def vgg_classifier", "def vggClassifier"))
    assert result.status == "error" and result.error.kind == "missing-function"
    assert "vggClassifier" in result.error.message
    assert "missing-function" in diagnosis_ids(result)


def test_a_file_that_fails_before_its_def_says_so_not_that_the_name_is_wrong(grade_source):
    result = grade_source("import numpy as np\nsettings = {}\nscale = settings['scale']\n\n" + CORRECT)
    assert result.status == "error" and result.error.kind == "definition-failed"
    message = result.error.message
    assert "never defined" in message and "KeyError" in message and "line 3" in message
    assert "Did you mean" not in message and "missing-function" not in diagnosis_ids(result)


def test_a_notebook_cell_that_fails_before_its_def_is_named(grade_source):
    result = grade_source(notebook("import numpy as np", "# MD the head", "fig, ax = (1,)\n" + CORRECT),
                          "student.ipynb")
    assert result.error.kind == "definition-failed"
    assert "code cell 2 (cell 3 of the notebook)" in result.error.message and "ValueError" in result.error.message


def test_a_failing_cell_elsewhere_still_reads_as_a_missing_function(grade_source):
    result = grade_source(notebook("import numpy as np\n1 / 0", CORRECT.replace("vgg_classifier", "vgg_head")),
                          "student.ipynb")
    assert result.error.kind == "missing-function" and "Some cells raised errors" in result.error.message


def test_name_bound_to_a_non_callable(grade_source):
    result = grade_source("vgg_classifier = 3\n")
    assert result.error.kind == "missing-function" and "int" in result.error.message


def test_unsupported_file_type(grade_source):
    result = grade_source(CORRECT, "student.txt")
    assert result.error.kind == "unsupported-file-type" and ".py" in result.error.message


def test_missing_file(session, tmp_path):
    from grader.grade import grade_file

    result = grade_file(tmp_path / "nobody.py", session)
    assert result.status == "error" and result.error.kind == "missing-file"


def test_sys_exit_at_import_after_the_def_still_grades(grade_source):
    full_marks(grade_source(CORRECT + "\nimport sys\nsys.exit(0)\n"))


def test_os_exit_at_import_is_an_error_not_a_grader_crash(grade_source):
    result = grade_source("import os\nos._exit(3)\n" + CORRECT)
    assert result.status == "error"
    assert "exit code 3" in result.error.message or "os._exit" in result.error.message
    assert os.getpid()  # still here
    assert check(result, "returns").status == "error"


def test_notebook_without_optional_keys_is_read_as_jupyter_would(grade_source):
    nb = {"cells": [{"cell_type": "raw", "source": "notes"}, {"cell_type": "code", "source": CORRECT}],
          "nbformat": 4, "nbformat_minor": 99}
    full_marks(grade_source(nb, "student.ipynb"))


def test_python_saved_as_ipynb_gets_a_hint(grade_source):
    result = grade_source(CORRECT, "student.ipynb")
    assert result.error.kind == "not-json" and ".py extension" in result.error.message


def test_notebook_json_saved_as_py_gets_a_hint(grade_source):
    import json

    result = grade_source(json.dumps(notebook(CORRECT)), "student.py")
    assert result.error.kind == "unsupported-file-type" and ".ipynb" in result.error.message


def test_notebook_with_a_broken_cell_list(grade_source):
    result = grade_source({"cells": "oops", "metadata": {}, "nbformat": 4, "nbformat_minor": 4}, "s.ipynb")
    assert result.error.kind == "not-a-notebook" and "no list of cells" in result.error.message


def test_file_without_the_function_is_missing_function_not_a_crash(grade_source):
    result = grade_source("import numpy as np\nx = {'a': [1, 2]}\n")
    assert result.error.kind == "missing-function"


def test_a_symbolic_link_is_refused_so_it_cannot_point_at_the_solution(session, tmp_path):
    from conftest import ROOT
    from grader.grade import grade_file

    link = tmp_path / "mallory.py"
    link.symlink_to(ROOT / "solutions" / "vgg_classifier.py")
    result = grade_file(link, session)
    assert result.status == "error" and result.score == 0
    assert "symbolic link" in result.error.message


def test_a_named_pipe_is_refused_without_blocking(session, tmp_path):
    import os

    from grader.grade import grade_file

    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)
    result = grade_file(fifo, session)
    assert result.status == "error" and "regular file" in result.error.message


def test_environment_modules_imported_beside_the_def_get_stand_ins(grade_source):
    source = ("import numpy as np\nimport matplotlib.pyplot as plt\nfrom tqdm import tqdm\nfrom numba import njit\n"
              "from IPython.display import display, Markdown\n\n"
              "@njit\ndef relu(z):\n    return np.maximum(z, 0.0)\n\n"
              "def vgg_classifier(features, W1, b1, W2, b2, W3, b3):\n"
              "    rows = [relu(relu(f.ravel() @ W1 + b1) @ W2 + b2) @ W3 + b3 for f in tqdm(features)]\n"
              "    return np.array(rows)\n\n"
              "plt.figure(figsize=(3, 2))\nplt.plot([1, 2])\nplt.show()\ndisplay(Markdown('done'))\n")
    result = grade_source(notebook(source), "student.ipynb")
    full_marks(result)
    assert any("'matplotlib.pyplot' is not available" in w for w in result.warnings)  # the module it imports


def test_a_missing_module_outside_the_environment_list_still_fails_its_import(grade_source):
    result = grade_source(notebook("import numpyy as np", CORRECT), "student.ipynb")
    full_marks(result)
    assert any("ModuleNotFoundError" in w and "numpyy" in w for w in result.warnings)


def test_writefile_then_import_works_as_in_jupyter(grade_source):
    helper = "%%writefile layers.py\nimport numpy as np\n\ndef relu(z):\n    return np.maximum(z, 0.0)\n"
    solution = ("import numpy as np\nfrom layers import relu\n\n"
                "def vgg_classifier(features, W1, b1, W2, b2, W3, b3):\n"
                "    x = features.reshape(len(features), -1)\n"
                "    return relu(relu(x @ W1 + b1) @ W2 + b2) @ W3 + b3\n")
    full_marks(grade_source(notebook(helper, solution), "student.ipynb"))


def test_writefile_outside_the_working_folder_is_refused(grade_source, tmp_path):
    target = tmp_path / "planted.py"
    result = grade_source(notebook(f"%%writefile {target}\nx = 1\n", CORRECT), "student.ipynb")
    full_marks(result)
    assert not target.exists()
    assert any("%%writefile" in w for w in result.warnings)


def test_absurdly_nested_notebook_json_is_a_clear_error(grade_source):
    result = grade_source("[" * 100000 + "]" * 100000, "student.ipynb")
    assert result.error.kind == "not-json" and "nested" in result.error.message


def test_null_bytes_in_a_py_file_are_a_syntax_error(grade_source):
    result = grade_source(b"import numpy as np\x00\n" + CORRECT.encode())
    assert result.error.kind == "syntax-error" and "line 1: a null byte" in result.error.message


EXPORTED = """#!/usr/bin/env python
# coding: utf-8

# In[1]:


import numpy as np
from google.colab import drive
drive.mount('/content/drive')


# In[2]:


get_ipython().run_line_magic('matplotlib', 'inline')
undefined_thing()


# In[3]:


""" + CORRECT.replace("import numpy as np\\n", "")


def test_a_script_exported_from_jupyter_runs_cell_by_cell(grade_source):
    result = grade_source(EXPORTED)
    full_marks(result)
    assert any("The cell at line 12 raised NameError" in w and "(line 16)" in w for w in result.warnings)


def test_percent_cells_run_cell_by_cell_and_errors_give_file_lines(grade_source):
    source = "# %%\nimport numpy as np\n\n# %%\n1 / 0\n\n# %%\n" + CORRECT.replace("import numpy as np\n", "")
    result = grade_source(source)
    full_marks(result)
    assert any("ZeroDivisionError" in w and "(line 5)" in w for w in result.warnings)
    broken = grade_source(source.replace("h = np.maximum(0.0, x @ W1 + b1)", "h = np.maximum(0.0, x @ W1 + b1"))
    assert broken.error.kind == "syntax-error" and "at line" in broken.error.message


def test_syntax_error_inside_a_time_cell_is_reported_as_such(grade_source):
    bad = "%%time\n" + CORRECT.replace("h = np.maximum(0.0, x @ W1 + b1)", "h = np.maximum(0.0, x @ W1 + b1")
    result = grade_source(notebook(bad), "student.ipynb")
    assert result.error.kind == "syntax-error"
    assert "code cell 1" in result.error.message and "line 6" in result.error.message


def test_the_function_pasted_into_a_markdown_cell_gets_a_hint(grade_source):
    result = grade_source(notebook("import numpy as np", "# MD" + CORRECT), "student.ipynb")
    assert result.error.kind == "missing-function"
    assert "Cell 2 of the notebook" in result.error.message and "markdown" in result.error.message


def test_line_magics_inside_a_time_cell_are_handled_as_ipython_does(grade_source):
    cell = "%%time\n" + CORRECT + "\n%timeit -n1 -r1 1 + 1\n!echo hi\n"
    result = grade_source(notebook(cell), "student.ipynb")
    full_marks(result)


def test_notebook_saved_as_utf16_or_with_a_bom_is_read(grade_source):
    import json

    text = json.dumps(notebook(CORRECT))
    full_marks(grade_source(text.encode("utf-16"), "utf16.ipynb"))
    full_marks(grade_source(b"\xef\xbb\xbf" + text.encode(), "bom.ipynb"))


@pytest.mark.parametrize("reshape", ["logits.reshape(logits.shape + (1,) * 38)",
                                     "np.lib.stride_tricks.as_strided(logits, shape=(2**41, logits.shape[1]), "
                                     "strides=(0, 8))"], ids=["40-dimensions", "2**41-rows"])
def test_a_result_the_wire_cannot_describe_is_graded_as_unreadable_not_as_tampering(grade_source, reshape):
    source = CORRECT.replace("    return h @ W3 + b3", f"    logits = h @ W3 + b3\n    return {reshape}")
    result = grade_source(source)
    assert result.status == "graded" and result.error is None
    values = next(c for c in result.checks if c.id == "values-single")
    assert values.status == "failed" and "could not be read as an array" in values.message
    assert "result channel" not in " ".join(c.message for c in result.checks)


def test_an_object_that_claims_to_be_an_ndarray_is_called_what_it_is(grade_source):
    source = CORRECT.replace("def vgg_classifier", "class Fake:\n    __class__ = property(lambda self: np.ndarray)\n\n\n"
                             "def real_head") + "\n\ndef vgg_classifier(*args):\n    return Fake()\n"
    result = grade_source(source)
    kind = next(c for c in result.checks if c.id == "type")
    assert kind.status == "failed" and "subclass" not in kind.message and "Fake" in kind.message


def test_notebook_detection_through_the_shell_does_not_break_the_run(grade_source):
    detect = ("shell = get_ipython()\nIN_NOTEBOOK = 'IPKernelApp' in shell.config\n"
              "shell.events.register('post_run_cell', print)\n")
    result = grade_source(notebook(detect + CORRECT), "student.ipynb")  # a failing line would lose the def
    assert result.status == "graded" and result.score == result.max_score, result.error


def test_a_name_numpy_2_removed_is_named_with_its_replacement(grade_source):
    result = grade_source(CORRECT.replace("features.shape[0], -1", "features.shape[0], np.product(features.shape[1:])"))
    evidence = " ".join(d.evidence for d in result.diagnoses if d.id == "raises-error")
    assert "np.product was removed in NumPy 2.0" in evidence and "use np.prod instead" in evidence


def test_completes_does_not_say_every_cell_ran_to_its_end_when_one_raised(grade_source):
    result = grade_source(notebook(CORRECT, "undefined_name + 1"), "student.ipynb")
    completes = check(result, "completes")
    assert completes.status == "passed" and "1 place raised an error" in completes.message
    assert any(w.startswith("Code cell 2 (cell 2 of the notebook) raised NameError") for w in result.warnings), \
        result.warnings


def test_a_scalar_result_leaves_the_diagnosis_working(grade_source):
    result = grade_source(CORRECT.replace("    return h @ W3 + b3", "    return (h @ W3 + b3).sum()"))
    assert not any("diagnosis failed" in w for w in result.warnings), result.warnings
    assert "not-an-array" in diagnosis_ids(result)


def test_a_constant_result_is_not_called_a_clip(grade_source):
    result = grade_source(CORRECT.replace("    return h @ W3 + b3", "    return np.full((len(features), W3.shape[1]), 2.0)"))
    assert result.score < result.max_score
    assert not any("clip(" in d.evidence.lower() for d in result.diagnoses), [d.evidence for d in result.diagnoses]


@pytest.mark.parametrize("wrapped", ["F.relu(logits)", "softmax(logits, axis=1)", "nn.ReLU()(logits)"])
def test_a_stood_in_library_call_on_an_array_earns_nothing(grade_source, wrapped):
    """Without the library, its call cannot compute: given back unchanged, the logits would earn full marks for a
    ReLU or a softmax on them, the catalogued mistakes."""
    source = ("import torch.nn.functional as F\nimport torch.nn as nn\nfrom scipy.special import softmax\n"
              + CORRECT.replace("    return h @ W3 + b3", f"    logits = h @ W3 + b3\n    return {wrapped}"))
    result = grade_source(source)
    assert result.score < result.max_score and "not-an-array" in diagnosis_ids(result)
    assert any("stand-in" in w for w in result.warnings)


def test_run_magic_runs_only_files_of_the_working_folder(grade_source):
    readable = Path(os.__file__).resolve().with_name("this.py")  # the standard library's: readable in the sandbox
    outside = notebook(f"%run {readable}\n%run ../../etc/x.py\n" + CORRECT)
    result = grade_source(outside, "student.ipynb")
    assert result.score == result.max_score
    assert sum("was not run: only a .py file written by an earlier cell" in w for w in result.warnings) == 2
