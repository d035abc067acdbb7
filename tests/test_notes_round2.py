"""Two notes students misread, and a None handed back from a helper that prints.

- ``from google.colab import drive`` was noted as "The module 'google' is not available": a module the student never
  wrote (Python looks for the package first). The note now names what the import asked for, 'google.colab', with a
  stand-in or guarded, and the name stays a bounded, escaped quotation.
- ``return helper(...)`` where the helper prints its result and returns None was told only "it has no return
  statement", which it has. The child now follows the functions whose result is returned (``return helper(x)``,
  ``out = helper(x); return out``, a chain of them) to the one that calls print, and the sentence names them; a
  helper that prints but whose result is not returned (a log line before a forgotten return) is not named.

All the students are graded in one batch of two workers.
"""
from __future__ import annotations

import json

import pytest

from conftest import grade_students, notebook
from grader import notes

STAND_IN = "The module {} is not available while grading; a stand-in that does nothing was used for it."
GUARDED = ("The module {} is not available while grading; its import, guarded (a try statement or "
           "contextlib.suppress) with a fallback for a missing module, failed as it would on a machine without it.")
LAYERS = ("    x = features.reshape(features.shape[0], -1)\n"
          "    h = np.maximum(0.0, x @ W1 + b1)\n"
          "    h = np.maximum(0.0, h @ W2 + b2)\n")
HEAD = "import numpy as np\n\ndef vgg_classifier(features, W1, b1, W2, b2, W3, b3):\n" + LAYERS
CORRECT = HEAD + "    return h @ W3 + b3\n"
PRINTER = "import numpy as np\n\ndef show_logits(h, W3, b3):\n    print(h @ W3 + b3)\n\n"

STUDENTS = {
    "colab-drive": notebook("from google.colab import drive\ndrive.mount('/content/drive')", CORRECT),
    "colab-drive-guarded": notebook("try:\n    from google.colab import drive\nexcept ImportError:\n    drive = None",
                                    CORRECT),
    # a name no import statement can write, through importlib: still one quotation, cut short, its quotes escaped
    "odd-module-name": "import importlib\nimportlib.import_module(\"google.\" + \"it's\" * 30)\n" + CORRECT,
    "helper-prints": PRINTER + "def vgg_classifier(features, W1, b1, W2, b2, W3, b3):\n" + LAYERS
                     + "    return show_logits(h, W3, b3)\n",
    "helper-chain-prints": PRINTER + "def head(h, W3, b3):\n    out = show_logits(h, W3, b3)\n    return out\n\n"
                           "def vgg_classifier(features, W1, b1, W2, b2, W3, b3):\n" + LAYERS
                           + "    return head(h, W3, b3)\n",
    "helper-logs-no-return": "import numpy as np\n\ndef log(message):\n    print(message)\n\n"
                             "def vgg_classifier(features, W1, b1, W2, b2, W3, b3):\n    log('start')\n" + LAYERS
                             + "    logits = h @ W3 + b3\n",
    "own-print": HEAD + "    print(h @ W3 + b3)\n",
}


@pytest.fixture(scope="module")
def results(tmp_path_factory, session):
    folder = tmp_path_factory.mktemp("notes-round2")
    for name, source in STUDENTS.items():
        if isinstance(source, dict):
            (folder / f"{name}.ipynb").write_text(json.dumps(source), encoding="utf-8")
        else:
            (folder / f"{name}.py").write_text(source, encoding="utf-8")
    return grade_students(folder, session, list(STUDENTS))


def _returns(result) -> str:
    check = next(c for c in result.checks if c.id == "returns")
    assert check.status != "passed"
    return check.message


def test_a_colab_drive_import_names_google_colab(results):
    result = results["colab-drive"]
    assert result.score == result.max_score, result.checks
    assert list(result.warnings) == [STAND_IN.format("'google.colab'")]


def test_a_guarded_colab_drive_import_names_google_colab(results):
    result = results["colab-drive-guarded"]
    assert result.score == result.max_score
    assert list(result.warnings) == [GUARDED.format("'google.colab'")]


def test_a_module_name_of_the_submissions_choosing_stays_one_short_escaped_quotation(results):
    [warning] = results["odd-module-name"].warnings
    before, after = STAND_IN.split("{}")
    assert warning.startswith(before + "'google.it\\'sit\\'s") and warning.endswith("…'" + after), warning
    shown = warning[len(before) + 1:-len(after) - 1]  # inside the quotes the grader adds, "…" where it was cut
    assert len(shown) <= notes.SHOWN + 1 and "'" not in shown.replace("\\'", ""), shown


def test_a_helper_that_prints_what_is_returned_is_named(results):
    assert _returns(results["helper-prints"]).endswith(
        " the function returned None: it returns the result of show_logits(), which calls print, but prints are "
        "not returned; only a return statement hands a value back.")


def test_a_chain_of_helpers_down_to_the_print_is_named(results):
    assert _returns(results["helper-chain-prints"]).endswith(
        " the function returned None: it returns the result of head(), which returns that of show_logits(), which "
        "calls print, but prints are not returned; only a return statement hands a value back.")


def test_a_helper_that_prints_a_log_line_is_not_blamed_for_a_missing_return(results):
    assert _returns(results["helper-logs-no-return"]).endswith(
        " the function returned None: it has no return statement (or still ends in the starter's 'pass').")


def test_a_print_in_the_function_s_own_body_is_told_as_before(results):
    assert _returns(results["own-print"]).endswith(
        " the function returned None: its body calls print, but prints are not returned; only a return statement "
        "hands a value back.")


def test_a_forged_helper_name_is_never_shown_and_a_long_chain_is_the_submissions_protocol_error():
    """The names come from the child, which student code shares: only identifiers are shown, at most four."""
    from grader import answers
    from grader.channel import ProtocolError

    spec = {"count": 0, "parameters": [], "own_name": "", "prints": True,
            "printed_by": ["head", "x'. Your score was raised to 19/19 by the instructor. '"]}
    assert answers.declared(spec).printing() == ("it returns the result of head(), which returns that of a "
                                                 "function, which calls print")
    with pytest.raises(ProtocolError):
        answers.declared({**spec, "printed_by": ["f"] * 5})
