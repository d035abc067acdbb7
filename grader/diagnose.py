"""Name the mistakes behind failed checks: generic findings here, exercise-specific ones from its folder.

Generic findings need nothing but the outcomes (a list returned, float32, a mutated input...). The exercise's
``diagnosis.diagnose`` adds the ones that need to know what the function computes (a missing bias, a wrong
flatten order). Both are turned into catalog entries; an entry that explains another (``supersedes``) hides it.
"""
from __future__ import annotations

import inspect
import re

import numpy as np

from . import escape, incidents
from .checks import overwritten_result
from .facts import Facts, establish, order
from .memory import human_bytes, lowered_by_submission
from .exercise import PROBE, Exercise, Finding
from .outcomes import CallError, CaseRun, Declared, Execution, in_sequence
from .results import Diagnosis

#: how much larger than the reference's own error in a low precision a submission's error may be and still be
#: put down to that precision (summation orders differ, so errors of one precision vary by a small factor)
PRECISION_FACTOR = 8.0
#: the precisions the reference is evaluated in again, the most likely first
LOW_PRECISIONS = ((np.float32, "float32"), (np.float16, "float16"))


def generic_findings(facts: Facts, execution: Execution, exercise: Exercise) -> list[Finding]:
    runs = facts.runs
    graded = [r for r in runs if r.case.group != PROBE]
    findings: list[Finding] = []
    outcomes = [r.outcome for r in graded]
    if outcomes and all(o.status == "ok" and o.type_name == "NoneType" for o in outcomes):
        return [Finding("not-implemented", "The function returned None on every case." + _printed(execution))]
    timeouts = [r for r in graded if r.outcome.status == "timeout"]
    if timeouts:
        findings.append(Finding("too-slow", f"The call on the '{timeouts[0].case.name}' case "
                                            f"{timeouts[0].outcome.error}."))
    starved = [r for r in graded if "out-of-memory" in exercise.catalog and (r.outcome.out_of_memory
               or (r.outcome.exception is not None and r.outcome.exception.type == "MemoryError"))]
    if starved:  # the checks say "killed"; this says what to change
        what = starved[0].outcome.incident if starved[0].outcome.out_of_memory \
            else f"raised {starved[0].outcome.error}" + _own_limit(starved[0].outcome.exception, execution)
        findings.append(Finding("out-of-memory", f"The call on the '{starved[0].case.name}' case {what}."))
    raised = [r for r in graded if r.outcome.status == "raised"]
    refused = [r for r in raised if _signature_error(r.outcome.exception)]
    if refused:
        every = len(refused) == len(graded)
        findings.append(Finding("wrong-signature", _refused(execution, exercise, refused[0].outcome.error, every)))
    moved = _reordered(execution.declared, exercise.parameters) if "parameters-reordered" in exercise.catalog \
        else None
    if moved and any(not _right(facts, r) for r in graded):
        findings.append(Finding("parameters-reordered", _reordered_text(execution.declared, exercise, moved)))
    raised_else = [r for r in raised if all(r is not s for s in starved)]  # a MemoryError: out-of-memory alone
    if raised_else:
        first = raised_else[0]
        findings.append(Finding("raises-error", f"On the '{first.case.name}' case ({first.case.description})"
                                                f" it raised {first.outcome.error}."
                                                + incidents.left_in_call(first.outcome.exception)
                                                + incidents.unwritten(_stubbed(raised_else), len(graded))))
    returned = [r for r in graded if r.outcome.status == "ok" and r.outcome.type_name != "NoneType"]
    odd = [r for r in returned if not r.outcome.exact_ndarray]
    if odd:
        kind = odd[0].outcome.type_name + (" (an ndarray subclass)" if odd[0].outcome.subclass else "")
        findings.append(Finding("not-an-array", f"It returned a {kind} instead of a numpy.ndarray."
                                                + _container_note(odd)))
    arrays = [r for r in returned if r.outcome.array is not None]
    wrong_dtype = [r for r in arrays if not facts[r].dtype_ok]
    if wrong_dtype:
        findings.append(Finding("wrong-dtype", f"The result's dtype is {wrong_dtype[0].outcome.array.dtype}, "
                                               f"not {wrong_dtype[0].expected.dtype}."))
    else:  # an ndarray of strings or Python objects is not sent, only its dtype: no check compared it at all
        # only a value that is an array or a sequence of them: a dict or a generator reads as a 0-d array of one
        # object, and "an array that holds object values" beside not-an-array (or a pair's not-a-pair) is untrue
        held = next((r for r in returned if r.outcome.array is None and r.outcome.note.startswith("holds ")
                     and (r.outcome.exact_ndarray or r.outcome.subclass or r.outcome.type_name in ("list", "tuple"))),
                    None)
        if held is not None and "wrong-dtype" in exercise.catalog:
            wrong_dtype = [held]
            want = f"{held.expected.dtype} " if isinstance(held.expected, np.ndarray) else ""
            findings.append(Finding("wrong-dtype", f"The result is an array that {held.outcome.note}, not "
                                                   f"{want}numbers, so no value could be compared."))
    wrong_shape = [r for r in returned if r.outcome.shape is not None and not facts[r].shape_ok]
    if wrong_shape:
        # the example: preferably one whose values are right in another layout, and then one with no 1-long axis
        r = min(wrong_shape, key=lambda run: (not _shape_note(run), 1 in run.expected.shape))
        plain = r.outcome.exact_ndarray or r.outcome.subclass  # a tuple's shape is np.asarray's, not the student's
        has = "has shape" if plain else f"(a {r.outcome.type_name}) reads as an array of shape"
        findings.append(Finding("wrong-shape", f"On the '{r.case.name}' case the result {has} "
                                               f"{tuple(r.outcome.shape)}; expected {r.expected.shape}."
                                               + _shape_note(r)))
    if any(facts[r].nan or facts[r].inf for r in arrays):
        findings.append(Finding("non-finite", "The result contains NaN or infinite values."))
    mutated = sorted({name for r in graded for name in r.outcome.mutated})
    if mutated:
        findings.append(Finding("mutates-input", f"After the call, the values stored in {', '.join(mutated)} "
                                                 "were no longer those that were passed in."))
    overwritten = overwritten_result(graded, execution)
    if overwritten:
        findings.append(Finding("shared-result", overwritten))
    if any(facts[r].again_values for r in graded):
        findings.append(Finding("nondeterministic", "Two calls with identical inputs returned different values."))
    stale = _stale(facts) if "stale-result" in exercise.catalog else ""
    if stale:
        findings.append(Finding("stale-result", stale))
    if not wrong_dtype:
        low = _precision_loss(arrays + [r for r in runs if r.case.group == PROBE and r.outcome.array is not None],
                              exercise, facts)
        if low:
            findings.append(Finding("precision-loss", low))
        rounded = _rounded(arrays, exercise, facts)
        if rounded:
            findings.append(Finding("rounded-output", rounded))
    return findings


def _stubbed(raised: list[CaseRun]) -> int:
    return sum(r.outcome.exception is not None and r.outcome.exception.type == "NotImplementedError" for r in raised)


def _stale(facts: Facts) -> str:
    """A graded case answered with exactly the right answer of another call whose expected answer differs: the
    function keeps answers between calls (a cache keyed by the inputs' shapes or ``id()``, a result computed once).

    The repeated answer must be right where it first belonged, so a function that returns the same wrong array
    everywhere (zeros, a constant) is never taken for one that remembers. A cache keyed by shape often gives its
    wrong answers on probes only (several probes share their sizes, the graded cases do not): a probe counts when
    at least two probes with different expected answers got that answer, because one such repeat alone can be a
    mistake that happens to turn one probe's inputs into another's answer (probes built to read one stage each
    often expect what a wrong version of another stage gives)."""
    answered = [r for r in facts.runs if r.outcome.status == "ok" and isinstance(r.outcome.array, np.ndarray)]
    repeats: dict[int, list[CaseRun]] = {}
    for run in answered:
        if _right(facts, run):
            continue
        other = _kept_from(facts, run, answered)
        if other is None:
            continue
        if run.case.group != PROBE:
            return _stale_text(run, other)
        same = repeats.setdefault(id(other), [])
        if not any(np.array_equal(run.expected, r.expected) for r in same if r.expected.shape == run.expected.shape):
            same.append(run)
        if len(same) >= 2:
            return _stale_text(same[0], other, len(same))
    return ""


def _kept_from(facts: Facts, run: CaseRun, answered: list[CaseRun]) -> CaseRun | None:
    """Another call whose right answer ``run`` returned exactly, though their expected answers differ."""
    got = run.outcome.array
    for other in answered:
        before = other.outcome.array
        if other is run or other.part != run.part or before.shape != got.shape or before.dtype != got.dtype \
                or not _right(facts, other) or not np.array_equal(before, got):  # right first: a look-up, where
            continue  # comparing every pair of 2M-element wrong results cost up to 0.85 s of the grader's own CPU
        if other.expected.shape == run.expected.shape and np.array_equal(other.expected, run.expected):
            continue  # two cases with one answer: returning it twice is right
        return other
    return None


def _stale_text(run: CaseRun, other: CaseRun, probes: int = 0) -> str:
    whose = f"the grader's probe '{other.case.name}'" if other.case.group == PROBE else f"the '{other.case.name}' case"
    where = f"the grader's probe '{run.case.name}'" if run.case.group == PROBE else f"the '{run.case.name}' case"
    more = f" ({probes} probes got that answer)" if probes > 1 else ""
    return (f"On {where} it returned exactly the array it had returned for {whose}{more}, whose inputs hold other "
            "values, so the answer was kept from another call instead of being computed from these inputs.")


def _right(facts: Facts, run: CaseRun) -> bool:
    values = facts[run].values
    return values is not None and values[0]


def _printed(execution: Execution) -> str:
    """What to add when the function's body (or a helper whose result it returns) calls print: a result printed is not
    a result returned, and the student who sees the right numbers on the screen needs to be told why the grader saw
    none."""
    if execution.declared is None or not execution.declared.prints:
        return ""
    where = execution.declared.printing()
    return (f" {where[0].upper()}{where[1:]}, but what it returns is None: print only shows a value on the screen, "
            "and the caller, the grader included, receives only what a return statement hands back. Return the "
            "result (and print it outside the function if you want to see it).")


def _own_limit(error: CallError | None, execution: Execution) -> str:
    """Why a MemoryError is the submission's own doing, when it is: its code lowered the address-space limit
    (``resource.setrlimit``) below the grader's, and that limit refused the memory. Without this the finding
    would send the student hunting for memory the grader never denied them."""
    limits = execution.memory
    if error is None or limits is None or not lowered_by_submission(limits, error.address_space):
        return ""
    return (f"; the submission's own code had lowered its address-space limit to "
            f"{human_bytes(error.address_space, limits.address_space_bytes)} (resource.setrlimit(RLIMIT_AS, ...)), "
            f"below the grader's {limits.address_space}: that limit, not the grader's, refused the memory, and "
            "removing the setrlimit call lets the function have the grader's")


def _signature_error(error: CallError | None) -> bool:
    """A TypeError raised by the call itself (no line of student code ran): the parameters do not fit."""
    return error is not None and error.type == "TypeError" and error.line is None and bool(
        re.search(r"positional argument|takes \d+ positional|required (keyword-only |positional )?argument",
                  error.message)
    )


#: spellings of one parameter name: ``weights_1``, ``Weight1`` and ``W1`` read alike, as do ``bias2`` and ``b2``
_SPELLINGS = (("weights", "w"), ("weight", "w"), ("biases", "b"), ("bias", "b"))
#: parameters shown of a declared signature, at most (a ``__signature__`` may claim a million)
SHOWN_PARAMETERS = 12


def _normal(name: str) -> str:
    text = _plain(name)
    for long, short in _SPELLINGS:
        if text.startswith(long):
            return short + text[len(long):]
    return text


def _plain(name: str) -> str:
    return name.lower().replace("_", "")


def _reading(expected: tuple[str, ...]):
    """The loosest way of reading names that keeps the exercise's own names apart: ``weight`` and ``W`` read alike
    under the spellings, so an exercise that has both compares names by case and underscores, or as they are."""
    return next((read for read in (_normal, _plain) if len({read(n) for n in expected}) == len(expected)), str)


def _reordered(declared: Declared | None, expected: tuple[str, ...]) -> list[tuple[str, str]]:
    """(declared name, the argument it receives) for each parameter that is out of place, when the function declares
    the exercise's parameters, spelled alike, in another order (at most one renamed, where it is in place); else []."""
    if declared is None or declared.count != len(expected) or len(expected) < 2 or \
            any(p.kind not in ("positional-only", "positional") for p in declared.parameters):
        return []
    read = _reading(expected)
    wanted = {read(name): i for i, name in enumerate(expected)}
    names = [read(p.name) for p in declared.parameters]
    if len(wanted) != len(expected) or len(set(names)) != len(names):
        return []
    places = [wanted.get(name) for name in names]
    taken = {place for place in places if place is not None}
    renamed = [i for i, place in enumerate(places) if place is None]
    if len(renamed) > 1 or any(i in taken for i in renamed):
        return []
    return [(p.name, expected[i]) for i, (p, place) in enumerate(zip(declared.parameters, places))
            if place is not None and place != i]


def _reordered_text(declared: Declared, exercise: Exercise, moved: list[tuple[str, str]]) -> str:
    pairs = [f"your {name} receives {argument}" for name, argument in moved[:4]]
    if len(moved) > 4:
        pairs.append(f"{len(moved) - 4} more are out of place")
    listed = ", ".join(pairs[:-1]) + " and " + pairs[-1] if len(pairs) > 1 else pairs[0]
    return (f"Your function declares {_shown(exercise.function, declared)}, but the grader passes the arguments by "
            f"position in the statement's order, {exercise.function}({', '.join(exercise.parameters)}), so "
            f"{listed}.")


def _refused(execution: Execution, exercise: Exercise, error: str, every: bool) -> str:
    """Why Python refused the call: the declared signature against the exercise's, when both are known."""
    declared = execution.declared
    if declared is None or not every:
        return f"Python refused the call: {error}."
    expected = exercise.parameters
    method = (" ('self' is the first parameter of a method of a class, and this function is not one)"
              if declared.parameters and _normal(declared.parameters[0].name) == "self"
              and declared.count == len(expected) + 1 else "")
    own = declared.own_name
    if own.isidentifier() and own.isascii() and own != exercise.function:  # 'linear = dense_scores'
        return (f"'{exercise.function}' is bound to a function named '{own}', declared as {_shown(own, declared)}"
                f"{method}, but the grader calls {exercise.function}({', '.join(expected)}) with these "
                f"{len(expected)} arguments by position, so Python refused every call ({error}).")
    return (f"Your function is declared as {_shown(exercise.function, declared)}{method}, but the grader calls "
            f"{exercise.function}({', '.join(expected)}) with these {len(expected)} arguments by position, so "
            f"Python refused every call ({error}).")


def _shown(function: str, declared: Declared) -> str:
    """A declared signature as Python would write it (``/``, ``*``, ``*args``, ``name=...``), cut when long."""
    words: list[str] = []
    listed = declared.parameters[:SHOWN_PARAMETERS]
    for n, p in enumerate(listed):
        if p.kind == "keyword-only" and not any(q.kind in ("var-positional", "keyword-only") for q in listed[:n]):
            words.append("*")
        words.append({"var-positional": "*", "var-keyword": "**"}.get(p.kind, "") + p.name +
                     ("=..." if p.default else ""))
        if p.kind == "positional-only" and (n + 1 == len(listed) or listed[n + 1].kind != "positional-only"):
            words.append("/")
    if declared.count > len(listed):
        words.append(f"... {declared.count - len(listed):,} more")
    return f"{function}({', '.join(words)})"


def _precision_loss(runs: list[CaseRun], exercise: Exercise, facts: Facts) -> str:
    """Evidence that the result is the reference computed in a lower precision, or "".

    The reference is evaluated again with its inputs cast to float32 (then float16). The submission qualifies
    when a graded case fails, and on every case it returned (probes too) its error is at most a small factor
    above that evaluation's own error: where the low-precision evaluation is exact (probes built from short
    dyadic numbers), so must the submission be. A floor under ReLU, noise or rounding the output fail that test.
    """
    graded = [r for r in runs if r.case.group != PROBE]
    failing = [r for r in graded if facts[r].values is not None and not facts[r].values[0]]
    if not failing or all(r.case.shared for r in failing):  # the large case's error is never compared below: a
        return ""  # mistake made only at its sizes is no evidence of precision (it read "off by 1e-300")
    for dtype, name in LOW_PRECISIONS:
        worst, worst_low, compared = 0.0, 0.0, 0
        for run in runs:
            actual = run.outcome.array
            if actual.shape != run.expected.shape or actual.dtype.kind not in "fc":
                return ""
            if run.case.shared:
                continue  # the large case: its error is judged by the small ones
            low = _low_precision(run, dtype, exercise)
            if low is None or low.shape != run.expected.shape:
                return ""
            with np.errstate(all="ignore"):
                expected = run.expected.astype(np.float64)
                scale = float(np.abs(expected).max()) or 1.0
                error = float(np.max(np.abs(actual.astype(np.float64) - expected))) / scale
                low_error = float(np.max(np.abs(low - expected))) / scale
            if not np.isfinite(error) or error > PRECISION_FACTOR * low_error + 1e-12:
                break
            if run.case.group != PROBE:
                worst, worst_low, compared = max(worst, error), max(worst_low, low_error), compared + 1
        else:
            if not compared:  # only the large case returned (the rest raised): nothing was compared, no evidence
                return ""
            return (f"On {len(failing)} of {len(graded)} cases the values are off, by at most "
                    f"{order(worst)}; the reference itself computed in {name} is off by "
                    f"{order(worst_low)} on the same cases. On every probe your values are as close to the "
                    f"reference as that {name} evaluation is, and exactly equal to it where it is exact.")
    return ""


def _low_precision(run: CaseRun, dtype, exercise: Exercise) -> np.ndarray | None:
    """The reference on the run's inputs cast to ``dtype`` (the output ``run.part`` of several), or None."""
    if exercise.reference is None:
        return None
    args = tuple(a.astype(dtype) if isinstance(a, np.ndarray) and a.dtype.kind == "f" else a for a in run.case.args)
    try:
        with np.errstate(all="ignore"):
            out = exercise.reference(*args)
            out = np.asarray(out[run.part] if run.part is not None else out)
    except Exception:  # noqa: BLE001 - a reference that cannot run in low precision: no finding
        return None
    return out.astype(np.float64) if out.dtype.kind in "fc" else None


def _rounded(arrays: list[CaseRun], exercise: Exercise, facts: Facts) -> str:
    """Evidence that every returned value is rounded to a fixed number of decimals (and the reference is not)."""
    graded = [r for r in arrays if r.outcome.array.shape == r.expected.shape and r.outcome.array.dtype.kind == "f"]
    if not graded or len(graded) != len(arrays) or all(facts[r].values[0] for r in graded):
        return ""  # rounding the checks cannot see is no mistake (the checks' own comparison, made once)
    for decimals in range(0, 9):
        step = 10.0 ** -decimals
        if all(_multiples(r.outcome.array, step) for r in graded):
            if all(_multiples(r.expected, step) for r in graded):
                return ""
            text = f"Every value your function returns is a multiple of {step:g}, where the right answers are not"
            with np.errstate(all="ignore"):
                gaps = [float(np.max(np.abs(r.outcome.array - r.expected))) for r in graded]
                worst = max(g / (float(np.abs(r.expected).max()) or 1.0) for g, r in zip(gaps, graded))
            if max(gaps) <= step / 2 * (1 + 1e-6):
                return (f"{text}: the outputs are rounded to {decimals} decimal{'s' if decimals != 1 else ''}, and "
                        f"the rounding accounts for all of the error the checks measure (at most {order(worst)}).")
            # further from the answers than rounding moves them: rounded, or whole numbers of another kind (ranks,
            # counts, class indices); say only what is seen
            return f"{text}; they also lie further from them than rounding alone would move them."
    return ""


def _multiples(values: np.ndarray, step: float) -> bool:
    """Every value a multiple of ``step``, and at least one whose being so says something: a nonzero value below
    half a step is no multiple (only 0 is), and a float64 of 2^40 steps or more is a multiple of any such step
    (outputs times 1e300 are not rounded to whole numbers, nor are outputs times 1e-310)."""
    with np.errstate(all="ignore"):
        scaled = values.astype(np.float64) / step
        size = np.abs(scaled)
        if not np.all(np.isfinite(scaled)) or np.any((values != 0) & (size < 0.5)):
            return False
        return bool(np.all(np.abs(scaled - np.round(scaled)) <= 1e-6) and np.any((size >= 0.5) & (size < 2.0 ** 40)))


def _container_note(odd: list[CaseRun]) -> str:
    """What a tuple or list holds when it is the answer packed otherwise: the expected values themselves (rows
    appended to a list), or the expected array as its first item (``return scores, probs``). Said only when every
    such run shows the same, so that the advice holds for the submission, not for one case."""
    if not all(r.outcome.type_name in ("tuple", "list") and isinstance(r.expected, np.ndarray) for r in odd):
        return ""

    def holds(run: CaseRun, first: bool) -> bool:
        arr, expected = run.outcome.array, run.expected
        if arr is None or arr.dtype.kind not in "biuf" or (arr[0] if first and arr.ndim else arr).shape \
                != expected.shape:
            return False
        with np.errstate(all="ignore"):
            return bool(np.allclose((arr[0] if first else arr).astype(np.float64), expected, rtol=1e-6, atol=1e-9))
    kind = odd[0].outcome.type_name
    if all(holds(r, False) for r in odd):
        return (f" Its values are the right ones: only the container is wrong, a {kind} where the statement asks "
                f"for an array (np.array of it is the expected result).")
    if all(r.outcome.array is not None and r.outcome.array.ndim == r.expected.ndim + 1 and holds(r, True)
           for r in odd):
        more = odd[0].outcome.array.shape[0] - 1
        return (f" Its first item is the expected result, followed by {more} more value{'s' if more > 1 else ''} "
                f"(return a, b returns a tuple): return the expected array alone.")
    return ""


def _shape_note(run: CaseRun) -> str:
    """What an array of the wrong shape holds when its values are the expected ones laid out otherwise: transposed,
    or the same values in another shape (an axis of length 1 dropped or added, a reshape). Empty otherwise."""
    arr, expected = run.outcome.array, run.expected
    if not isinstance(expected, np.ndarray) or arr is None or arr.dtype.kind not in "biuf" \
            or arr.size != expected.size or not expected.size:
        return ""
    with np.errstate(all="ignore"):
        arr = arr.astype(np.float64)
        if arr.ndim == 2 and expected.ndim == 2 and arr.shape == expected.shape[::-1] and 1 not in arr.shape \
                and np.allclose(arr.T, expected, rtol=1e-6, atol=1e-9):
            return (" It holds the right values with its two axes swapped (the transpose of the expected array): "
                    "the samples are its columns instead of its rows.")
        if np.allclose(arr.reshape(expected.shape), expected, rtol=1e-6, atol=1e-9):
            return (f" It holds the right values in the right order: only the shape differs, {tuple(arr.shape)} "
                    f"instead of {expected.shape} (an axis of length 1 dropped or added, or the values reshaped).")
    return ""


def diagnose(runs: list[CaseRun], execution: Execution, exercise: Exercise,
             facts: Facts | None = None) -> tuple[list[Diagnosis], list[str]]:
    """Catalog diagnoses for this run, plus warnings about the diagnosis itself (never an exception).
    ``facts``: the run's facts as the checks read them (established here when not given)."""
    findings = generic_findings(facts or establish(runs, execution, exercise), execution, exercise)
    warnings = []
    module = exercise.diagnosis_module
    # a function whose parameters are in another order gets each argument under another name: what the exercise's
    # diagnosis would read from its results is about the wrong parameters
    if module is not None and hasattr(module, "diagnose") and \
            not any(f.id in ("not-implemented", "parameters-reordered") for f in findings):
        # each with its place in the run and its repeated call: state kept between calls shows only in these
        first_calls = [r for r in runs if not r.outcome.repeat]
        if any(r.order is None for r in first_calls):  # ``grade.judge`` set them; runs built elsewhere may lack them
            first_calls = in_sequence(first_calls, execution.calls)
        try:
            # a diagnosis that reads single calls may want to know that each one shows only one random draw
            random = {"random": True} if any(f.id == "nondeterministic" for f in findings) \
                and "random" in inspect.signature(module.diagnose).parameters else {}
            findings += list(module.diagnose(first_calls, exercise, **random))
        except Exception as exc:  # an instructor-side bug: report it, keep the grade
            warnings.append(f"The exercise's diagnosis failed ({escape.terminal(type(exc).__name__, 60)}: its text "
                            "is left out, as it may name the grader's files); the checks above are unaffected.")
    return to_diagnoses(findings, exercise), warnings


def stage_trace(runs: list[CaseRun], exercise: Exercise) -> list[str]:
    """The exercise's per-stage verdicts (``diagnosis.stage_trace(runs)``), as lines for the result's trace."""
    module = exercise.diagnosis_module
    if module is None or not callable(getattr(module, "stage_trace", None)):
        return []
    try:
        return [str(line) for line in module.stage_trace([r for r in runs if not r.outcome.repeat])]
    except Exception:  # noqa: BLE001 - an instructor-side bug loses the lines, never the grade
        return []


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
