"""Name the mistakes behind failed checks: generic findings here, exercise-specific ones from its folder.

Generic findings need nothing but the outcomes (a list returned, float32, a mutated input...). The exercise's
``diagnosis.diagnose`` adds the ones that need to know what the function computes (a missing bias, a wrong
flatten order). Both are turned into catalog entries; an entry that explains another (``supersedes``) hides it.
"""
from __future__ import annotations

import re

import numpy as np

from .checks import value_error
from .exercise import PROBE, Exercise, Finding
from .outcomes import CallError, CaseRun, Execution
from .results import Diagnosis

#: relative error band that float32 (or float16) arithmetic leaves in an otherwise right answer
PRECISION_BAND = 1e-3


def generic_findings(runs: list[CaseRun], execution: Execution, exercise: Exercise) -> list[Finding]:
    graded = [r for r in runs if r.case.group != PROBE]
    findings: list[Finding] = []
    outcomes = [r.outcome for r in graded]
    if outcomes and all(o.status == "ok" and o.type_name == "NoneType" for o in outcomes):
        return [Finding("not-implemented", "The function returned None on every case.")]
    timeouts = [r for r in graded if r.outcome.status == "timeout"]
    if timeouts:
        findings.append(Finding("too-slow", f"The call on the '{timeouts[0].case.name}' case "
                                            f"{timeouts[0].outcome.error}."))
    raised = [r for r in graded if r.outcome.status == "raised"]
    refused = [r for r in raised if _signature_error(r.outcome.exception)]
    if refused:
        findings.append(Finding("wrong-signature", f"Python refused the call: {refused[0].outcome.error}."))
    if raised:
        findings.append(Finding("raises-error", f"On the '{raised[0].case.name}' case ({raised[0].case.description})"
                                                f" it raised {raised[0].outcome.error}."))
    returned = [r for r in graded if r.outcome.status == "ok" and r.outcome.type_name != "NoneType"]
    odd = [r for r in returned if not r.outcome.exact_ndarray]
    if odd:
        kind = odd[0].outcome.type_name + (" (an ndarray subclass)" if odd[0].outcome.subclass else "")
        findings.append(Finding("not-an-array", f"It returned a {kind} instead of a numpy.ndarray."))
    arrays = [r for r in returned if r.outcome.array is not None]
    wrong_dtype = [r for r in arrays if r.outcome.array.dtype != r.expected.dtype]
    if wrong_dtype:
        findings.append(Finding("wrong-dtype", f"The result's dtype is {wrong_dtype[0].outcome.array.dtype}, "
                                               f"not {wrong_dtype[0].expected.dtype}."))
    wrong_shape = [r for r in returned if r.outcome.shape is not None and tuple(r.outcome.shape) != r.expected.shape]
    if wrong_shape:
        r = wrong_shape[0]
        findings.append(Finding("wrong-shape", f"On the '{r.case.name}' case the result has shape "
                                               f"{tuple(r.outcome.shape)}; expected {r.expected.shape}."))
    if any(r.outcome.array.dtype.kind in "fc" and not np.isfinite(r.outcome.array).all() for r in arrays):
        findings.append(Finding("non-finite", "The result contains NaN or infinite values."))
    mutated = sorted({name for r in graded for name in r.outcome.mutated})
    if mutated:
        findings.append(Finding("mutates-input", f"Modified in place: {', '.join(mutated)}."))
    if _nondeterministic(graded, execution, exercise):
        findings.append(Finding("nondeterministic", "Two calls with identical inputs returned different values."))
    if not wrong_dtype and _precision_loss(arrays, exercise):
        findings.append(Finding("precision-loss", "The values are right to about single precision only: "
                                                  "errors around 1e-7 of the output's scale."))
    return findings


def _signature_error(error: CallError | None) -> bool:
    """A TypeError raised by the call itself (no line of student code ran): the parameters do not fit."""
    return error is not None and error.type == "TypeError" and error.line is None and bool(
        re.search(r"positional argument|takes \d+ positional|required (keyword-only |positional )?argument",
                  error.message)
    )


def _nondeterministic(runs: list[CaseRun], execution: Execution, exercise: Exercise) -> bool:
    first = {r.case.name: r.outcome.array for r in runs}
    for again in (o for o in execution.calls if o.repeat):
        before = first.get(again.case)
        if before is None or again.array is None or again.array.shape != before.shape:
            continue
        if not value_error(again.array, before, exercise.tolerance)[0] and not np.array_equal(
            again.array, before, equal_nan=True
        ):
            return True
    return False


def _precision_loss(arrays: list[CaseRun], exercise: Exercise) -> bool:
    """Every returned result is off, and only by the amount low-precision arithmetic explains."""
    errors = []
    for run in arrays:
        if run.outcome.array.shape != run.expected.shape:
            return False
        ok, _, relative = value_error(run.outcome.array, run.expected, exercise.tolerance)
        errors.append((ok, relative))
    failing = [rel for ok, rel in errors if not ok]
    return bool(failing) and all(rel <= PRECISION_BAND for _, rel in errors)


def diagnose(runs: list[CaseRun], execution: Execution, exercise: Exercise) -> tuple[list[Diagnosis], list[str]]:
    """Catalog diagnoses for this run, plus warnings about the diagnosis itself (never an exception)."""
    findings = generic_findings(runs, execution, exercise)
    warnings = []
    module = exercise.diagnosis_module
    if module is not None and hasattr(module, "diagnose") and not any(f.id == "not-implemented" for f in findings):
        first_calls = [r for r in runs if not r.outcome.repeat]
        try:
            findings += list(module.diagnose(first_calls, exercise))
        except Exception as exc:  # an instructor-side bug: report it, keep the grade
            warnings.append(f"The exercise's diagnosis failed ({type(exc).__name__}: {exc}); "
                            "the checks above are unaffected.")
    return to_diagnoses(findings, exercise), warnings


def to_diagnoses(findings: list[Finding], exercise: Exercise) -> list[Diagnosis]:
    merged: dict[str, list[str]] = {}
    for finding in findings:
        merged.setdefault(finding.id, [])
        if finding.evidence and finding.evidence not in merged[finding.id]:
            merged[finding.id].append(finding.evidence)
    hidden = {s for i in merged for s in (exercise.catalog[i].supersedes if i in exercise.catalog else ())}
    order = {mistake_id: n for n, mistake_id in enumerate(exercise.catalog)}
    diagnoses = []
    for mistake_id in sorted(merged, key=lambda i: order.get(i, len(order))):
        if mistake_id in hidden:
            continue
        entry = exercise.catalog.get(mistake_id)
        diagnoses.append(Diagnosis(
            id=mistake_id,
            title=entry.title if entry else mistake_id,
            explanation=entry.explanation if entry else "",
            evidence=" ".join(merged[mistake_id]),
        ))
    return diagnoses
