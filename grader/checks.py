"""Judge what the child returned against the reference: one CheckResult per check of the exercise.

Only plain arrays rebuilt in the grader are compared; nothing the student returned is trusted with a method
call. Messages say what was expected against what came back (shape, dtype, how many values are wrong and
the largest error's order of magnitude), never a hidden input, an expected value or where a value is wrong.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

import numpy as np

from .exercise import PROBE, CheckSpec, Exercise, Tolerance
from .memory import memory_error_sentence
from .outcomes import CaseRun, Execution
from .results import CheckResult


@dataclass(frozen=True)
class Verdict:
    passed: bool
    message: str
    status: str = ""  # override: "timeout" or "error"


def value_error(actual: np.ndarray, expected: np.ndarray, tolerance: Tolerance) -> tuple[bool, str, float]:
    """Compare elementwise; return (within tolerance, a message, largest error / the output's largest magnitude).

    The message gives counts and the largest error's order of magnitude relative to the output, never a position
    or an absolute value: over repeated submissions on the same fixed cases, (position, error) pairs would let a
    student rebuild the expected output one value at a time.
    """
    with np.errstate(all="ignore"):
        # a complex array is compared as complex (abs() of the difference is its modulus), never cast to real
        # (in place where it can: a result may be hundreds of megabytes, and each temporary is as large again)
        kind = np.complex128 if np.iscomplexobj(expected) or np.iscomplexobj(actual) else np.float64
        expected, actual = (a.astype(kind, copy=False) for a in (expected, actual))
        bound = np.abs(expected)
        scale = float(bound.max()) if expected.size else 0.0
        bound *= tolerance.rtol
        bound += tolerance.atol_scale * scale
        diff = actual - expected
        diff = np.abs(diff, out=diff) if isinstance(diff, np.ndarray) and kind is np.float64 else np.abs(diff)
        bad = ~(diff <= bound)  # NaN counts as bad
        del bound
        if not bad.any():
            return True, "", float(diff.max() / scale) if scale and diff.size else 0.0
        finite = diff[np.isfinite(diff)]
        worst = float(finite.max()) if finite.size else float("inf")
        relative = worst / scale if scale else float("inf")
        broken = int(np.count_nonzero(~np.isfinite(actual)))
    wrong = int(bad.sum())
    message = f"{wrong} of {bad.size} values {'is' if wrong == 1 else 'are'} wrong"
    if broken:
        message += f", {broken} of them NaN or infinite"
    if finite.size and broken < bad.sum():
        message += f"; the largest error is {_order(relative)}"
    message += f" (the tolerance is {tolerance.rtol:.0e} relative)"
    return False, message, relative if not broken else float("inf")


def _order(relative: float) -> str:
    """An error's size as a power of ten of the output's largest magnitude: enough to tell rounding (1e-7 for
    float32) from a wrong formula (1e-1), too coarse to rebuild any value from."""
    if not relative < 1.0:
        return "as large as the output's largest magnitude or larger"
    exponent = int(np.clip(np.round(np.log10(relative)), -300, 0)) if relative > 0 else -300
    if exponent >= 0:
        return "of the order of the output's largest magnitude"
    return f"about 1e{exponent:03d} of the output's largest magnitude"


def _label(run: CaseRun) -> str:
    return f"the '{run.case.name}' case ({run.case.description})" if run.case.description else run.case.name


def _failure_of_call(run: CaseRun, execution: Execution) -> str:
    outcome = run.outcome
    error = outcome.exception
    if outcome.status == "raised":
        if error is not None and error.type == "MemoryError" and execution.memory is not None:
            sentence = memory_error_sentence(error.message, execution.memory, error.reserved)
            return f"On {_label(run)} the function {sentence}" + (f" ({error.where})." if error.where else ".")
        return f"On {_label(run)} the function raised {outcome.error}."
    if outcome.status == "not-run":
        label = _label(run)
        return f"{label[0].upper()}{label[1:]} was not run: {outcome.error}."
    return f"On {_label(run)} the call {outcome.error}."


def _returned(runs: list[CaseRun]) -> list[CaseRun]:
    return [r for r in runs if r.outcome.status == "ok" and r.outcome.type_name != "NoneType"]


def _with_arrays(runs: list[CaseRun]) -> list[CaseRun]:
    return [r for r in runs if r.outcome.array is not None]


def check_returns(runs: list[CaseRun], execution: Execution, exercise: Exercise) -> Verdict:
    for run in runs:
        if run.outcome.status != "ok":
            status = "timeout" if run.outcome.status == "timeout" else ""
            return Verdict(False, _failure_of_call(run, execution), status)
        if run.outcome.type_name == "NoneType":
            return Verdict(False, f"On {_label(run)} the function returned None: it has no return statement "
                                  "(or still ends in the starter's 'pass').")
    return Verdict(True, f"Returned on all {len(runs)} cases.")


def check_type(runs: list[CaseRun], execution: Execution, exercise: Exercise) -> Verdict:
    returned = _returned(runs)
    if not returned:
        return Verdict(False, "Not assessed: the function returned no value.")
    for run in returned:
        outcome = run.outcome
        if not outcome.exact_ndarray:
            kind = f"a {outcome.type_name}" + (", a subclass of numpy.ndarray" if outcome.subclass else "")
            return Verdict(False, f"On {_label(run)} the function returned {kind}, not a numpy.ndarray.")
    return Verdict(True, "Every result is a numpy.ndarray.")


def check_shape(runs: list[CaseRun], execution: Execution, exercise: Exercise) -> Verdict:
    returned = _returned(runs)
    if not returned:
        return Verdict(False, "Not assessed: the function returned no value.")
    for run in returned:
        shape = run.outcome.shape
        if shape is None:
            return Verdict(False, f"On {_label(run)} the result ({run.outcome.type_name}) has no shape.")
        if tuple(shape) != run.expected.shape:
            return Verdict(False, f"On {_label(run)} expected shape {run.expected.shape}, got {tuple(shape)}.")
    return Verdict(True, "Every result has the expected shape.")


def check_dtype(runs: list[CaseRun], execution: Execution, exercise: Exercise) -> Verdict:
    arrays = _with_arrays(_returned(runs))
    if not arrays:
        return Verdict(False, "Not assessed: no numeric array was returned.")
    for run in arrays:
        if run.outcome.array.dtype != run.expected.dtype:
            return Verdict(False, f"On {_label(run)} expected dtype {run.expected.dtype}, "
                                  f"got {run.outcome.array.dtype}.")
    return Verdict(True, f"Every result is {arrays[0].expected.dtype}.")


def check_finite(runs: list[CaseRun], execution: Execution, exercise: Exercise) -> Verdict:
    arrays = _with_arrays(_returned(runs))
    if not arrays:
        return Verdict(False, "Not assessed: no numeric array was returned.")
    for run in arrays:
        array = run.outcome.array
        if array.dtype.kind in "fc" and not np.isfinite(array).all():
            nan, inf = int(np.isnan(array).sum()), int(np.isinf(array).sum())
            return Verdict(False, f"On {_label(run)} the result holds {nan} NaN and {inf} infinite values.")
    return Verdict(True, "No NaN or infinity.")


def check_values(runs: list[CaseRun], execution: Execution, exercise: Exercise) -> Verdict:
    for run in runs:
        outcome = run.outcome
        if outcome.status != "ok":
            status = "timeout" if outcome.status == "timeout" else ""
            return Verdict(False, _failure_of_call(run, execution), status)
        if outcome.array is None:
            detail = f" ({outcome.note})" if outcome.note else ""
            return Verdict(False, f"On {_label(run)} the function returned {outcome.type_name}{detail}, "
                                  "which cannot be compared with the expected output.")
        if outcome.array.shape != run.expected.shape:
            return Verdict(False, f"On {_label(run)} expected shape {run.expected.shape}, "
                                  f"got {outcome.array.shape}.")
        ok, message, _ = value_error(outcome.array, run.expected, exercise.tolerance)
        if not ok:
            return Verdict(False, f"On {_label(run)}: {message}.")
    return Verdict(True, f"Matches the reference on {len(runs)} case{'s' if len(runs) != 1 else ''}.")


def check_unmodified(runs: list[CaseRun], execution: Execution, exercise: Exercise) -> Verdict:
    if not _with_arrays(_returned(runs)):
        return Verdict(False, "Not assessed: the function never returned an array.")
    for run in runs:
        if run.outcome.mutated:
            names = ", ".join(run.outcome.mutated)
            return Verdict(False, f"The function modified its input {names} in place (on {_label(run)}); "
                                  "the caller's arrays must stay as they were.")
    return Verdict(True, "No input was modified.")


def check_deterministic(runs: list[CaseRun], execution: Execution, exercise: Exercise) -> Verdict:
    repeats = [o for o in execution.calls if o.repeat]
    compared = 0
    for again in repeats:
        for run in (r for r in runs if r.case.name == again.case):
            if run.outcome.array is None:
                continue
            array = (again.parts[run.part].array if run.part is not None and len(again.parts) > run.part
                     else again.array)
            if array is None:
                return Verdict(False, f"A second call on {_label(run)} did not return an array "
                                      f"({again.error or again.type_name}).")
            if array.shape != run.outcome.array.shape:
                return Verdict(False, f"A second call on {_label(run)} returned shape {array.shape} instead of "
                                      f"{run.outcome.array.shape}.")
            same, message, _ = value_error(array, run.outcome.array, exercise.tolerance)
            if not same and not np.array_equal(array, run.outcome.array, equal_nan=True):
                return Verdict(False, f"Two calls on the same inputs ({_label(run)}) disagree: {message}.")
            compared += 1
    if not compared:
        return Verdict(False, "Not assessed: the function never returned an array twice.")
    return Verdict(True, "A second call gave the same output.")


def check_completes(runs: list[CaseRun], execution: Execution, exercise: Exercise) -> Verdict:
    """The submission as a whole ran to its end: no cell hit a time limit, crashed or flooded the output."""
    if execution.cell_incidents:
        return Verdict(False, execution.cell_incidents[0][1])
    if runs and all(r.outcome.status == "ok" and r.outcome.type_name == "NoneType" for r in runs):
        # the untouched starter runs to its end too, but earns nothing for it
        return Verdict(False, "Not assessed: the function is not written yet (it returned None on every case).")
    return Verdict(True, "Every cell ran to its end within the limits.")


PROPERTY_CHECKS: dict[str, Callable[[list[CaseRun], Execution, Exercise], Verdict]] = {
    "returns": check_returns,
    "type": check_type,
    "shape": check_shape,
    "dtype": check_dtype,
    "finite": check_finite,
    "unmodified": check_unmodified,
    "deterministic": check_deterministic,
    "completes": check_completes,
}


def applicable(spec: CheckSpec, groups: set[str]) -> bool:
    """A values check whose cases were not run (full scale turned off) leaves the grade, points and all."""
    return spec.kind != "values" or spec.group in groups


def per_output(runs: list[CaseRun], exercise: Exercise) -> list[CaseRun]:
    """For a function with several declared outputs, one run per case and output, so that every check judges
    each output (and names it); for a function with one output, the runs as they are."""
    if len(exercise.outputs) < 2:
        return runs
    split = []
    for run in runs:
        outcome = run.outcome
        for index, name in enumerate(exercise.outputs):
            if outcome.status == "ok" and len(outcome.parts) > index:
                got = outcome.parts[index]
                outcome_i = replace(outcome, type_name=got.type_name, exact_ndarray=got.exact_ndarray,
                                    subclass=got.subclass, array=got.array, shape=got.shape, note=got.note)
            else:
                outcome_i = outcome
            what = f"output '{name}'"
            case = replace(run.case, description=f"{run.case.description}; {what}" if run.case.description else what)
            split.append(CaseRun(case, run.expected[index], outcome_i, part=index))
    return split


def run_checks(exercise: Exercise, runs: list[CaseRun], execution: Execution) -> list[CheckResult]:
    """Every applicable check of the exercise, in its declared order; a check that errors is an error, not a crash."""
    runs = per_output(runs, exercise)
    graded = [r for r in runs if r.case.group != PROBE]
    groups = {r.case.group for r in graded}
    results = []
    for spec in exercise.checks:
        if not applicable(spec, groups):
            continue
        try:
            if spec.kind == "values":
                verdict = check_values([r for r in graded if r.case.group == spec.group], execution, exercise)
            elif spec.kind in PROPERTY_CHECKS:
                verdict = PROPERTY_CHECKS[spec.kind](graded, execution, exercise)
            else:
                verdict = Verdict(False, f"Unknown check kind '{spec.kind}' in the exercise settings.", "error")
        except Exception as exc:  # a bug in a check must not lose the rest of the grade
            verdict = Verdict(False, f"The check itself failed ({type(exc).__name__}: {exc}).", "error")
        status = "passed" if verdict.passed else (verdict.status or "failed")
        results.append(CheckResult(
            id=spec.id, title=spec.title, status=status,  # type: ignore[arg-type]
            points=spec.points if verdict.passed else 0.0, max_points=spec.points, message=verdict.message,
        ))
    return results
