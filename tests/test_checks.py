"""Each check, failing with a message that says what was expected against what came back."""
from __future__ import annotations

import re

import numpy as np
import pytest

from conftest import check, diagnosis_ids

HEAD = "import numpy as np\n\ndef vgg_classifier(features, W1, b1, W2, b2, W3, b3):\n"
BODY = ("    x = features.reshape(features.shape[0], -1)\n"
        "    h = np.maximum(0.0, x @ W1 + b1)\n"
        "    h = np.maximum(0.0, h @ W2 + b2)\n"
        "    y = h @ W3 + b3\n")


def returning(expression: str, extra: str = "") -> str:
    return HEAD + BODY + extra + f"    return {expression}\n"


def failed(result, *check_ids):
    statuses = {c.id: c.status for c in result.checks}
    for check_id in check_ids:
        assert statuses[check_id] != "passed", check_id
    assert result.score < result.max_score


def test_max_score_and_check_ids_come_from_the_exercise(grade_source, exercise):
    result = grade_source(returning("y"))
    assert [c.id for c in result.checks] == [c.id for c in exercise.checks if c.group != "full-scale"]
    assert result.max_score == sum(c.points for c in exercise.checks if c.group != "full-scale")


def test_returning_none_is_not_implemented(grade_source):
    result = grade_source(HEAD + "    pass\n")
    assert result.score == 0
    assert "returned None" in check(result, "returns").message
    assert diagnosis_ids(result) == {"not-implemented"}


def test_a_list_is_reported_as_a_list(grade_source):
    result = grade_source(returning("y.tolist()"))
    assert check(result, "type").status == "failed"
    assert "a list, not a numpy.ndarray" in check(result, "type").message
    assert "not-an-array" in diagnosis_ids(result)


def test_an_ndarray_subclass_is_reported_as_such(grade_source):
    extra = "    class Logits(np.ndarray):\n        pass\n"
    result = grade_source(returning("y.view(Logits)", extra))
    message = check(result, "type").message
    assert "Logits" in message and "subclass" in message
    assert check(result, "values-single").status == "passed"


def test_a_matrix_is_not_an_ndarray(grade_source):
    result = grade_source(returning("np.asmatrix(y)"))
    assert "matrix" in check(result, "type").message


def test_a_scalar_is_not_an_array(grade_source):
    result = grade_source(returning("float(y.sum())"))
    failed(result, "type", "shape", "values-single")
    assert "float" in check(result, "type").message


def test_wrong_shape_says_expected_and_got(grade_source):
    result = grade_source(returning("y.T"))
    message = check(result, "shape").message
    assert "expected shape (1, 7), got (7, 1)" in message
    assert "wrong-shape" in diagnosis_ids(result)


def test_float32_result_fails_dtype_and_values(grade_source):
    result = grade_source(returning("y.astype(np.float32)"))
    assert "expected dtype float64, got float32" in check(result, "dtype").message
    failed(result, "values-single", "values-batch")
    assert "wrong-dtype" in diagnosis_ids(result)


def test_float32_arithmetic_returned_as_float64_is_rejected(grade_source):
    source = ("import numpy as np\n\ndef vgg_classifier(features, W1, b1, W2, b2, W3, b3):\n"
              "    f = lambda a: a.astype(np.float32)\n"
              "    x = f(features).reshape(len(features), -1)\n"
              "    h = np.maximum(0, x @ f(W1) + f(b1))\n"
              "    h = np.maximum(0, h @ f(W2) + f(b2))\n"
              "    return (h @ f(W3) + f(b3)).astype(np.float64)\n")
    result = grade_source(source)
    assert check(result, "dtype").status == "passed"
    failed(result, "values-single", "values-batch", "values-shapes")
    assert "largest error" in check(result, "values-batch").message
    assert "precision-loss" in diagnosis_ids(result)


def test_nan_is_reported(grade_source):
    result = grade_source(returning("np.where(y > 0, y, np.nan)"))
    assert "NaN" in check(result, "finite").message
    assert "non-finite" in diagnosis_ids(result)


def test_values_message_gives_counts_and_relative_size_only(grade_source):
    """No position and no absolute value: over repeated submissions they would rebuild the expected output."""
    result = grade_source(returning("y + 1.23e-3 * (np.arange(y.size).reshape(y.shape) % 2)"))
    message = check(result, "values-batch").message
    assert "values are wrong" in message and "of the output's largest magnitude" in message
    wrong, total = (int(n) for n in message.split(": ", 1)[1].split(" values")[0].split(" of "))
    assert (wrong, total) == (12, 24)  # the batch case's (4, 6) output, every other value off
    assert "output[" not in message and "at " not in message.split("largest error", 1)[1]
    assert "0.00123" not in message and "1.23" not in message  # the absolute error is not given either
    verdict = message.split("): ", 1)[1]  # after the case's label: nothing but counts and an order of magnitude
    assert re.fullmatch(r"12 of 24 values are wrong; the largest error is about 1e-0\d of the output's largest "
                        r"magnitude \(the tolerance is 1e-09 relative\)\.", verdict), verdict


def test_values_message_gives_the_order_of_the_relative_error(exercise):
    from grader.checks import value_error

    expected = np.array([[2.0, -4.0, 1.0]])
    ok, message, relative = value_error(expected + np.array([[0.0, 4e-3, 0.0]]), expected, exercise.tolerance)
    assert not ok and relative == pytest.approx(1e-3)
    assert message.startswith("1 of 3 values is wrong;") and "about 1e-03 of the output's largest magnitude" in message
    ok, message, _ = value_error(np.array([[np.nan, -4.0, 1.0]]), expected, exercise.tolerance)
    assert message.startswith("1 of 3 values is wrong, 1 of them NaN or infinite")


def test_values_within_float64_rounding_pass(grade_source):
    result = grade_source(returning("y * (1 + 1e-13)"))
    assert result.score == result.max_score


def test_mutating_an_input_names_it(grade_source):
    result = grade_source(returning("y", "    W2 *= 1.0000001\n"))
    assert "W2" in check(result, "unmodified").message
    assert "mutates-input" in diagnosis_ids(result)
    assert any("W2" in d.evidence for d in result.diagnoses if d.id == "mutates-input")


def test_reassigning_an_inputs_shape_is_a_mutation_though_no_byte_changes(grade_source):
    """``b3.shape = (1, -1)`` changes the caller's array without writing to it: the bytes compare equal, so the
    child's report of each argument's shape, strides and dtype after the call says it (a report that can only
    cost the submission points, never earn them)."""
    result = grade_source(returning("y", "    b3.shape = (1, b3.size)\n    y = y.reshape(len(y), -1)\n"))
    assert check(result, "unmodified").status == "failed" and "b3" in check(result, "unmodified").message
    assert "mutates-input" in diagnosis_ids(result)


def test_reassigning_an_inputs_dtype_is_a_mutation_too(grade_source):
    """The child compares each array argument's dtype before and after the call: reading the same bytes as another
    dtype of the same size (``b2.dtype = np.int64``) changes no byte."""
    result = grade_source(returning("y", "    b2.dtype = np.int64\n"))
    assert check(result, "unmodified").status == "failed" and "b2" in check(result, "unmodified").message


def test_mutation_is_seen_under_renamed_parameters(grade_source):
    source = ("import numpy as np\n\ndef vgg_classifier(a, b, c, d, e, f, g):\n"
              "    y = np.maximum(np.maximum(a.reshape(len(a), -1) @ b + c, 0) @ d + e, 0) @ f + g\n"
              "    a[...] = 0\n    return y\n")
    result = grade_source(source)
    assert "features" in check(result, "unmodified").message


def test_nondeterminism_is_caught(grade_source):
    result = grade_source(returning("y + np.random.default_rng().normal(size=y.shape)"))
    assert check(result, "deterministic").status == "failed"
    assert "nondeterministic" in diagnosis_ids(result)


def test_state_carried_between_calls_is_caught(grade_source):
    source = HEAD + BODY + "    global calls\n    calls = globals().get('calls', 0) + 1\n    return y * calls\n"
    result = grade_source(source)
    assert check(result, "deterministic").status == "failed"


def test_exception_names_type_message_and_line(grade_source):
    result = grade_source(HEAD + "    raise ValueError('not yet')\n")
    message = check(result, "returns").message
    assert "ValueError: 'not yet' (line 4)" in message  # the student's words quoted, the grader's after


def test_hardcoded_vgg_width_fails_on_other_shapes(grade_source):
    result = grade_source(HEAD + BODY.replace("features.shape[0], -1", "features.shape[0], 25088") + "    return y\n")
    assert result.score <= 2
    assert "cannot reshape" in check(result, "values-single").message


def test_lost_batch_axis_passes_single_and_fails_batch(grade_source):
    source = HEAD + BODY.replace("features.reshape(features.shape[0], -1)", "features.reshape(-1)") + "    return y[None]\n"
    result = grade_source(source)
    assert check(result, "values-single").status == "passed"
    failed(result, "values-batch", "values-shapes")


def test_sys_exit_inside_the_call_is_an_exception(grade_source):
    result = grade_source(HEAD + "    import sys\n    sys.exit(0)\n")
    assert "SystemExit" in check(result, "returns").message


def test_os_exit_inside_the_call_is_reported_and_other_cases_still_run(grade_source):
    source = HEAD + BODY + "    if features.shape[0] == 4:\n        import os\n        os._exit(7)\n    return y\n"
    result = grade_source(source)
    assert result.status == "graded"
    assert "exit code 7" in check(result, "values-batch").message
    assert check(result, "values-single").status == "passed"
    assert check(result, "values-shapes").status == "passed"


def test_segfault_inside_the_call_is_reported(grade_source):
    source = HEAD + "    import ctypes\n    ctypes.string_at(0)\n"
    result = grade_source(source)
    assert "segmentation fault" in check(result, "returns").message


def test_memory_error_is_named(grade_source):
    result = grade_source(HEAD + "    return np.ones((1 << 40,))\n")
    message = check(result, "returns").message
    assert "MemoryError: it asked for 8 TiB at once" in message and "memory limit of 2 GiB" in message, message


def test_call_timeout_is_a_timeout_and_the_grade_finishes(grade_source, one_second_session):
    import time

    started = time.monotonic()
    result = grade_source(returning("y", "    import time\n    time.sleep(60)\n"), use=one_second_session)
    assert time.monotonic() - started < 15
    assert check(result, "returns").status == "timeout"
    assert "killed after 1 s" in check(result, "returns").message
    assert "too-slow" in diagnosis_ids(result)


def test_infinite_loop_in_a_later_cell_is_stopped_and_reported(tmp_path, quick_session):
    from conftest import notebook
    from grader.grade import grade_file

    path = tmp_path / "loop.ipynb"
    import json

    path.write_text(json.dumps(notebook(returning("y"), "while True:\n    pass\n")))
    result = grade_file(path, quick_session)
    assert result.score == result.max_score - 1  # only "runs to its end" is lost
    assert check(result, "completes").status == "failed"
    assert any("stopped after 3 s" in w for w in result.warnings)


def test_output_flood_is_cut_and_the_function_still_graded(grade_source, quick_session):
    result = grade_source(returning("y", "    print('x' * 4_000_000)\n"), use=quick_session)
    assert result.score == result.max_score, result.to_json()[:800]
    assert any("printed more than 1 MiB in the call on the" in w for w in result.warnings), result.warnings


def test_outputs_copied_between_students_fail(tmp_path, session, exercise):
    """Per-student seeds: hidden inputs differ by student id, so one student's outputs are wrong for another."""
    from grader.grade import student_seed

    a = exercise.hidden_cases(student_seed(session.secret, exercise.id, "ada"))
    b = exercise.hidden_cases(student_seed(session.secret, exercise.id, "ben"))
    assert not np.allclose(exercise.expected(a[0]), exercise.expected(b[0]))
    again = exercise.hidden_cases(student_seed(session.secret, exercise.id, "ada"))
    assert np.array_equal(exercise.expected(a[1]), exercise.expected(again[1]))


def test_hidden_cases_cover_the_promised_shapes(exercise):
    cases = exercise.hidden_cases(1)
    batches = {c.args[0].shape[0] for c in cases}
    assert 1 in batches and max(batches) > 1
    for case in cases:
        _, H, W, C = case.args[0].shape
        widths = [case.args[i].shape for i in (1, 3, 5)]
        assert all(w[0] != w[1] for w in widths), "non-square weights"
        assert all(a.dtype == np.float64 for a in case.args)
    assert any(len({c.args[0].shape[1], c.args[0].shape[2], c.args[0].shape[3]}) == 3 for c in cases)


def test_every_students_cases_show_a_relu_on_the_logits_and_a_missing_relu():
    """The same code must score the same for every student: in every sample of every hidden case, each layer's
    pre-activations and the logits have both signs, so a ReLU on the logits or a missing ReLU fails every values
    check, whatever the student's draw (1 student in 128 had the 'single' case's logits all positive, and a ReLU
    on the logits kept those 3 points)."""
    from exercises.vgg_classifier import cases as vgg_cases

    for seed in range(300):
        for case in vgg_cases.hidden_cases(np.random.default_rng(seed)):
            features, W1, b1, W2, b2, W3, b3 = case.args
            z1 = features.reshape(len(features), -1) @ W1 + b1
            z2 = np.maximum(z1, 0.0) @ W2 + b2
            y = np.maximum(z2, 0.0) @ W3 + b3
            for z in (z1, z2, y):
                assert np.all(z.min(axis=1) < 0) and np.all(z.max(axis=1) > 0), (seed, case.name)


def test_full_scale_case_gives_full_marks_and_a_trace(exercise, tmp_path):
    from grader.grade import Session, grade_file

    path = tmp_path / "ada.py"
    path.write_text(returning("y"))
    with Session(exercise, full_scale=True) as session:
        result = grade_file(path, session)
    assert result.score == result.max_score
    assert "values-full-scale" in {c.id for c in result.checks}
    assert any("25088" in line for line in result.trace)
    assert any("123,642,856" in line for line in result.trace)


def test_a_py_file_that_loops_after_the_def_is_graded_and_marked(grade_source, quick_session):
    """The alarm stops the loop as Jupyter's interrupt would: the definitions made before it are kept."""
    result = grade_source(returning("y") + "\nwhile True:\n    pass\n", use=quick_session)
    assert result.status == "graded"
    assert check(result, "completes").status == "failed"
    assert "stopped after 3 s" in check(result, "completes").message
    assert result.score == result.max_score - check(result, "completes").max_points


def test_code_that_ignores_the_alarm_is_still_killed(grade_source, one_second_session):
    import time

    started = time.monotonic()
    source = "import signal\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\n" + returning("y", "    while True: pass\n")
    result = grade_source(source, use=one_second_session)
    assert time.monotonic() - started < 20
    assert "killed after 1 s" in check(result, "returns").message


def test_completes_is_about_the_script_not_the_function(grade_source):
    """A script that runs to its end keeps `completes` even when its function raises; the starter does not."""
    result = grade_source(HEAD + "    raise ValueError('not done')\n")
    assert check(result, "completes").status == "passed"
    assert check(result, "returns").status == "failed" and "ValueError: 'not done'" in check(result, "returns").message
    starter = grade_source(HEAD + "    pass\n")
    assert "not written yet" in check(starter, "completes").message


def test_an_error_result_counts_the_checks_a_graded_one_counts(session, exercise, tmp_path):
    """One rule for which checks count: a submission that cannot be graded has the maximum of one that can,
    whether it is graded on its hidden cases or checked on the public ones (``grader check``)."""
    from grader import student_check
    from grader.grade import grade_file

    from conftest import SUBMISSIONS

    empty = tmp_path / "empty.py"
    empty.write_text("import numpy as np\n")
    unreadable = tmp_path / "broken.ipynb"
    unreadable.write_text("{ not json")
    right = SUBMISSIONS / "correct" / "matmul.py"
    graded = grade_file(right, session, "ann")
    for path in (empty, unreadable):
        failed_result = grade_file(path, session, "ann")
        assert failed_result.status == "error"
        assert [c.id for c in failed_result.checks] == [c.id for c in graded.checks]
        assert failed_result.max_score == graded.max_score
    checked = student_check.check_file(right, exercise)
    for path in (empty, unreadable):
        not_checked = student_check.check_file(path, exercise)
        assert not_checked.status == "error"
        assert (not_checked.max_score, len(not_checked.checks)) == (checked.max_score, len(checked.checks))


def test_a_restart_does_not_replay_a_cell_that_ran_out_of_time(grade_source, quick_session):
    """Three cells stopped at their 3 s limit, then one that ignores the alarm and is killed: the restart replays
    the definition, not the 9 s of stopped cells, so the submission stays within its 20 s and is graded."""
    import time

    from conftest import notebook

    loop = "while True:\n    pass\n"
    deaf = "import signal\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\n" + loop
    started = time.monotonic()
    result = grade_source(notebook(returning("y"), loop, loop, loop, deaf), "student.ipynb", use=quick_session)
    assert time.monotonic() - started < 20
    assert result.status == "graded", result.error
    assert check(result, "completes").status == "failed"
    assert result.score == result.max_score - check(result, "completes").max_points
