"""Judge what the child returned against the reference: one CheckResult per check of the exercise.

Only plain arrays rebuilt in the grader are compared; nothing the student returned is trusted with a method
call. Messages say what was expected against what came back (shape, dtype, how many values are wrong and
the largest error's order of magnitude), never a hidden input, an expected value or where a value is wrong.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from . import escape
from .exercise import PROBE, CheckSpec, Exercise
from .facts import Facts, establish, per_output, value_error  # noqa: F401  (value_error: a public name here too)
from .memory import memory_error_sentence
from .outcomes import CaseRun, Execution
from .results import CheckResult


@dataclass(frozen=True)
class Verdict:
    passed: bool
    message: str
    status: str = ""  # override: "timeout" or "error"


def _label(run: CaseRun) -> str:
    return f"the '{run.case.name}' case ({run.case.description})" if run.case.description else run.case.name


def _failure_of_call(run: CaseRun, execution: Execution) -> str:
    outcome = run.outcome
    error = outcome.exception
    if outcome.status == "raised":
        if error is not None and error.type == "MemoryError" and execution.memory is not None:
            sentence = memory_error_sentence(error.message, execution.memory, error.reserved,
                                             error.address_space)
            return f"On {_label(run)} the function {sentence}" + (f" ({error.where})." if error.where else ".")
        return f"On {_label(run)} the function raised {outcome.error}."
    if outcome.status == "not-run":
        label = _label(run)
        return f"{label[0].upper()}{label[1:]} was not run: {outcome.error}."
    return f"On {_label(run)} the call {outcome.error}."


def _got(run: CaseRun, shape) -> str:
    """The shape that came back, said as what it is: a tuple of two outputs (scores, probabilities) reads as one
    array with an extra leading axis, and "got (2, 4, 6)" alone would claim the student built an array they never
    built."""
    outcome = run.outcome
    if outcome.exact_ndarray or outcome.subclass:
        return str(tuple(shape))
    return f"a {outcome.type_name} that reads as an array of shape {tuple(shape)}"


def _returned(runs: list[CaseRun]) -> list[CaseRun]:
    return [r for r in runs if r.outcome.status == "ok" and r.outcome.type_name != "NoneType"]


def _with_arrays(runs: list[CaseRun]) -> list[CaseRun]:
    return [r for r in runs if r.outcome.array is not None]


def check_returns(runs: list[CaseRun], execution: Execution, facts: Facts) -> Verdict:
    for run in runs:
        if run.outcome.status != "ok":
            status = "timeout" if run.outcome.status == "timeout" else ""
            return Verdict(False, _failure_of_call(run, execution), status)
        if run.outcome.type_name == "NoneType":
            if execution.declared is not None and execution.declared.prints:
                return Verdict(False, f"On {_label(run)} the function returned None: {execution.declared.printing()}"
                                      ", but prints are not returned; only a return statement hands a value back.")
            return Verdict(False, f"On {_label(run)} the function returned None: it has no return statement "
                                  "(or still ends in the starter's 'pass').")
    return Verdict(True, f"Returned on all {len(runs)} cases.")


def check_type(runs: list[CaseRun], execution: Execution, facts: Facts) -> Verdict:
    returned = _returned(runs)
    if not returned:
        return Verdict(False, "Not assessed: the function returned no value.")
    for run in returned:
        outcome = run.outcome
        if facts.outputs > 1 and outcome.count > facts.outputs:  # the extra values would otherwise go unseen
            return Verdict(False, f"On {_label(run)} the function returned {outcome.count} values; "
                                  f"{facts.outputs} are expected.")
        if not outcome.exact_ndarray:
            kind = f"a {outcome.type_name}" + (", a subclass of numpy.ndarray" if outcome.subclass else "")
            return Verdict(False, f"On {_label(run)} the function returned {kind}, not a numpy.ndarray.")
    return Verdict(True, "Every result is a numpy.ndarray.")


def check_shape(runs: list[CaseRun], execution: Execution, facts: Facts) -> Verdict:
    returned = _returned(runs)
    if not returned:
        return Verdict(False, "Not assessed: the function returned no value.")
    for run in returned:
        shape = run.outcome.shape
        if shape is None:  # the note says why, when there is one: "could not be read as an array (42 dimensions)"
            why = run.outcome.note or "has no shape"
            return Verdict(False, f"On {_label(run)} the result ({run.outcome.type_name}) {why}.")
        if not facts[run].shape_ok:
            return Verdict(False, f"On {_label(run)} expected shape {run.expected.shape}, got {_got(run, shape)}.")
    return Verdict(True, "Every result has the expected shape.")


def check_dtype(runs: list[CaseRun], execution: Execution, facts: Facts) -> Verdict:
    arrays = _with_arrays(_returned(runs))
    if not arrays:
        return Verdict(False, "Not assessed: no numeric array was returned.")
    for run in arrays:
        if not facts[run].dtype_ok:
            return Verdict(False, f"On {_label(run)} expected dtype {run.expected.dtype}, "
                                  f"got {run.outcome.array.dtype}.")
    return Verdict(True, f"Every result is {arrays[0].expected.dtype}.")


def check_finite(runs: list[CaseRun], execution: Execution, facts: Facts) -> Verdict:
    arrays = _with_arrays(_returned(runs))
    if not arrays:
        return Verdict(False, "Not assessed: no numeric array was returned.")
    for run in arrays:
        fact = facts[run]
        if fact.nan or fact.inf:
            return Verdict(False, f"On {_label(run)} the result holds {fact.nan} NaN and {fact.inf} infinite "
                                  "values.")
    return Verdict(True, "No NaN or infinity.")


def check_values(runs: list[CaseRun], execution: Execution, facts: Facts) -> Verdict:
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
                                  f"got {_got(run, outcome.array.shape)}.")
        ok, message, _ = facts[run].values
        if not ok:
            return Verdict(False, f"On {_label(run)}: {message}.")
    return Verdict(True, f"Matches the reference on {len(runs)} case{'s' if len(runs) != 1 else ''}.")


def check_unmodified(runs: list[CaseRun], execution: Execution, facts: Facts) -> Verdict:
    if not _with_arrays(_returned(runs)):
        return Verdict(False, "Not assessed: the function never returned an array.")
    for run in runs:
        if run.outcome.mutated:
            names = ", ".join(run.outcome.mutated)
            return Verdict(False, f"The function modified its input {names} in place (on {_label(run)}); "
                                  "the caller's arrays must stay as they were.")
    overwritten = overwritten_result(runs, execution)
    if overwritten:
        return Verdict(False, f"{overwritten} Allocate the result inside the function, or return a copy.")
    return Verdict(True, "No input was modified, and no call's result was overwritten by a later call.")


def overwritten_result(runs: list[CaseRun], execution: Execution) -> str:
    """A sentence for a call whose returned array lies in the memory an earlier call had returned (a buffer the
    function fills and returns each time, or a cached array), as the child reported it; "" when none did. Said of
    the graded cases when it can be: a probe (an input the grader adds to tell mistakes apart) is not named."""
    labels = {r.case.name: _label(r) for r in runs}
    found = [o for o in execution.calls if o.overwrote]
    if not found:
        return ""
    later = min(found, key=lambda o: (o.case not in labels, o.overwrote not in labels))
    if later.repeat and later.overwrote == later.case:
        return (f"A second call on {labels.get(later.case, 'the same inputs')} returned the very memory the first "
                "call had returned: a caller that keeps the first result holds the same array as the second, and "
                "changing either changes the other.")
    first = labels.get(later.overwrote, "an earlier call")
    return (f"The array returned on {first} was overwritten by a later call (on {labels.get(later.case, 'another')}"
            "): both calls returned the same memory, so a caller that keeps the first result sees it change when "
            "it calls again.")


def check_deterministic(runs: list[CaseRun], execution: Execution, facts: Facts) -> Verdict:
    compared = 0
    for run in runs:
        again = facts[run].again
        if again is None:
            continue
        if again:
            return Verdict(False, f"Two calls on the same inputs ({_label(run)}) {again}." if facts[run].again_values
                           else f"A second call on {_label(run)} {again}.")
        compared += 1
    if not compared:
        return Verdict(False, "Not assessed: the function never returned an array twice.")
    return Verdict(True, "A second call gave the same output.")


def check_completes(runs: list[CaseRun], execution: Execution, facts: Facts) -> Verdict:
    """The submission as a whole ran to its end: no cell hit a time limit, crashed or flooded the output."""
    if execution.cell_incidents:
        return Verdict(False, execution.cell_incidents[0][1])
    if runs and all(r.outcome.status == "ok" and r.outcome.type_name == "NoneType" for r in runs):
        # the untouched starter runs to its end too, but earns nothing for it
        if execution.declared is not None and execution.declared.prints:
            return Verdict(False, f"Not assessed: the function returned None on every case "
                                  f"({execution.declared.printing()}, but what it prints is not what it returns).")
        return Verdict(False, "Not assessed: the function returned None on every case, as one not written yet, or "
                              "with no return statement, does.")
    if runs and all(r.outcome.status == "raised" and r.outcome.exception is not None
                    and r.outcome.exception.type == "NotImplementedError" for r in runs):  # nbgrader's stub
        return Verdict(False, "Not assessed: the function is not written yet (it raised NotImplementedError on "
                              "every case).")
    if execution.cell_errors:  # raised, not stopped: a notebook goes on, as Jupyter does; the warnings say where
        raised = len(execution.cell_errors)
        return Verdict(True, f"No code ran out of time or crashed; {raised} "
                             f"{'place' if raised == 1 else 'places'} raised an error (see the warnings).")
    return Verdict(True, "Every cell ran to its end within the limits.")


PROPERTY_CHECKS: dict[str, Callable[[list[CaseRun], Execution, Facts], Verdict]] = {
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


def run_checks(exercise: Exercise, runs: list[CaseRun], execution: Execution,
               facts: Facts | None = None) -> list[CheckResult]:
    """Every applicable check of the exercise, in its declared order; a check that errors is an error, not a crash.

    ``facts``: the run's facts as ``facts.establish`` found them (established here when not given)."""
    facts = facts or establish(runs, execution, exercise)
    runs = facts.runs
    graded = [r for r in runs if r.case.group != PROBE]
    groups = {r.case.group for r in graded}
    results = []
    for spec in exercise.checks:
        if not applicable(spec, groups):
            continue
        judged = graded if not spec.output else [r for r in graded if r.part == exercise.outputs.index(spec.output)]
        try:
            if spec.kind == "values":
                verdict = check_values([r for r in judged if r.case.group == spec.group], execution, facts)
            elif spec.kind in PROPERTY_CHECKS:
                verdict = PROPERTY_CHECKS[spec.kind](judged, execution, facts)
            else:
                verdict = Verdict(False, f"Unknown check kind '{spec.kind}' in the exercise settings.", "error")
        except Exception as exc:  # a bug in a check must not lose the rest of the grade
            verdict = Verdict(False, internal_failure(exc), "error")
        status = "passed" if verdict.passed else (verdict.status or "failed")
        results.append(CheckResult(
            id=spec.id, title=spec.title, status=status,  # type: ignore[arg-type]
            points=spec.points if verdict.passed else 0.0, max_points=spec.points, message=verdict.message,
        ))
    return results


def internal_failure(exc: Exception) -> str:
    """The sentence for a check whose own code raised: its exception's text is left out (it may hold a host path,
    or a value the submission chose, of any length), its type is kept for the instructor to look for."""
    name = escape.terminal(type(exc).__name__, 60)
    return (f"This check could not be judged: the grader's own code for it failed ({name}), which is no mistake of "
            "the submission; tell the instructor.")
