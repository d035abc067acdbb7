"""What one run's outcomes are, established once: the checks score these facts and the diagnosis reads them.

Whether a result came back, is an array of the right shape and dtype, holds NaN or infinities, matches the
reference, or differs on a second call: each is decided here, once per case (and output), so a check and the
diagnosis can never disagree about it, and a large result is compared with the reference only once.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np

from .exercise import Exercise, Tolerance
from .outcomes import CaseRun, Execution


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
        message += f"; the largest error is {order(relative)}"
    message += f" (the tolerance is {tolerance.rtol:.0e} relative)"
    return False, message, relative if not broken else float("inf")


def order(relative: float) -> str:
    """An error's size as a power of ten of the output's largest magnitude: enough to tell rounding (1e-7 for
    float32) from a wrong formula (1e-1), too coarse to rebuild any value from."""
    if not relative < 1.0:
        return "as large as the output's largest magnitude or larger"
    exponent = int(np.clip(np.round(np.log10(relative)), -300, 0)) if relative > 0 else -300
    if exponent >= 0:
        return "of the order of the output's largest magnitude"
    return f"about 1e{exponent:03d} of the output's largest magnitude"


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
            split.append(replace(run, case=case, expected=run.expected[index], outcome=outcome_i, part=index))
    return split


@dataclass(frozen=True)
class RunFacts:
    """The facts of one case (one output of it, for a function with several)."""

    returned: bool  # the call answered with a value other than None
    shape_ok: bool  # that value has the expected shape
    dtype_ok: bool  # it is an array of the expected dtype (False when no array came back)
    nan: int = 0  # NaN and infinite values in a float or complex result
    inf: int = 0
    #: the second call on the same inputs: None (not made), "" (same output), else how it differed
    again: str | None = None
    again_values: bool = False  # ... and it differed in its values (not in type or shape)
    #: (result, expected, tolerance) that ``values`` compares, when shapes agree
    compared: tuple | None = field(default=None, repr=False, compare=False)

    @cached_property
    def values(self) -> tuple[bool, str, float] | None:
        """``value_error`` against the reference, when shapes agree; decided on first use, once: no check reads
        the probes' values, so a probe's comparison is never made."""
        return value_error(*self.compared) if self.compared is not None else None


@dataclass
class Facts:
    """Every run's facts, keyed by (case name, output index)."""

    runs: list[CaseRun]  # split per output, first calls only
    of_run: dict[tuple[str, int | None], RunFacts]
    outputs: int = 1  # how many values the exercise's function returns (its declared outputs)

    def __getitem__(self, run: CaseRun) -> RunFacts:
        return self.of_run[(run.case.name, run.part)]


def establish(runs: list[CaseRun], execution: Execution, exercise: Exercise) -> Facts:
    """The facts of every run (``runs`` as the grade has them: first calls, not yet split per output)."""
    split = per_output([r for r in runs if not r.outcome.repeat], exercise)
    repeats = [o for o in execution.calls if o.repeat]
    of_run = {}
    for run in split:
        outcome, expected = run.outcome, run.expected
        returned = outcome.status == "ok" and outcome.type_name != "NoneType"
        array = outcome.array if returned else None
        nan = inf = 0
        if array is not None and array.dtype.kind in "fc":
            with np.errstate(all="ignore"):
                finite = np.isfinite(array)
                if not finite.all():
                    nan, inf = int(np.isnan(array).sum()), int(np.isinf(array).sum())
        compared = (array, expected, exercise.tolerance) if array is not None and array.shape == expected.shape \
            else None
        again, again_values = _again(run, repeats, exercise.tolerance)
        of_run[(run.case.name, run.part)] = RunFacts(
            returned=returned,
            shape_ok=returned and outcome.shape is not None and tuple(outcome.shape) == expected.shape,
            dtype_ok=array is not None and array.dtype == expected.dtype,
            nan=nan, inf=inf, again=again, again_values=again_values, compared=compared,
        )
    return Facts(split, of_run, max(1, len(exercise.outputs)))


def _again(run: CaseRun, repeats: list, tolerance: Tolerance) -> tuple[str | None, bool]:
    """How a second call on the run's inputs compared with the first: (None: not made or nothing to compare,
    "" the same, else the difference; whether the values themselves differed)."""
    first = run.outcome.array
    if first is None:
        return None, False
    for again in (o for o in repeats if o.case == run.case.name):
        array = (again.parts[run.part].array if run.part is not None and len(again.parts) > run.part
                 else again.array)
        if array is None:
            return f"did not return an array ({again.error or again.type_name})", False
        if array.shape != first.shape:
            return f"returned shape {array.shape} instead of {first.shape}", False
        same, message, _ = value_error(array, first, tolerance)
        if not same and not np.array_equal(array, first, equal_nan=True):
            return f"disagree: {message}", True
        return "", False
    return None, False
