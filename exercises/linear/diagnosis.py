"""Misconception diagnosis for the linear layer, y = x W^T + b.

The diagnosis is a search over a model of the layer (``model.py``) with a few switches, one per kind of mistake:

* ``weight``: ``x @ weight.T`` (right), ``x @ weight`` (an error when out != in, other numbers when out == in),
  ``x @ weight`` only for a square weight (transposed only when the shapes refuse), ``weight.reshape(in, out)``
  (runs on every shape), ``(x * weight).sum(-1)`` or the column form ``weight @ x`` (right for one vector only),
  ``x @ weight`` on the path for a single vector only or for a call without a bias only, ``weight @ x.T +
  bias[:, None]`` left (out, N), or the finished result transposed (``.T``, every axis reversed);
* ``reduce``: the sum over the inputs (right), their mean, or a sum without the last or the first input;
* ``bias``: added along the output axis (right), not added (or not for a single vector), along a leading axis
  (``bias[:, None]``, the first axis, or the first axis only from two leading axes on), as a (1, out) row (a
  vector comes back as a row), twice, multiplied or subtracted, added to x before the product, or tested with
  ``if bias:`` or ``if bias == None:``, which numpy refuses for an array of several values;
* ``shape``: x's leading axes kept (right), merged into one (``x.reshape(-1, in)``), a vector made a (1, in)
  row, some ranks refused (code written for 2-D input), a vector made a row and more axes refused, the result
  reshaped to ``(x.shape[0], -1)``, or an output allocated like x (``np.zeros_like(x)``, ``np.empty_like(x)``:
  the entries past out_features are never written, so the model leaves them free), or x taken as one vector
  (flattened, its samples averaged or summed, or x[0] kept);
* ``none``: no bias handled (right), refused both ways, or only as None (``bias=0``) or only left out, or
  replaced by ``np.zeros(weight.shape[1])``, in_features zeros that fit only a square weight;
* ``activation``: the result as it is (right), or passed through ReLU, a sigmoid, tanh or a softmax.

Each combination is run in the grader on the same inputs (trusted code, tiny arrays) and compared with what the
student's function did on every case: where it returned an array, the model must return the same shape and the
same values (to 1e-6 of the largest value, so float32 arithmetic does not hide a mistake); where it raised, the
model must raise too. The combination with the fewest departures that explains every call is taken, and each of
its departures is a finding, with a case where that departure changes the result as evidence. Five square
probes (out == in == N == 4) let an untransposed weight and a misplaced bias run instead of raising.
When no combination explains the calls, a weight kept from an earlier call and the whole-result patterns of
``unmodelled.py`` (a reused row buffer, one bias value for all outputs, a scaled product, an int cast, the last
output never written, a scaled bias, a bias column at the wrong end, a normalised weight or input, the weights'
absolute values) are tried.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from grader.authoring import PROBE, Case, Finding

from .model import (FINDING, MATCH, ONE_VECTOR, OPTIONS, REFERENCE, SPECS, WEIGHT_FORMS, Raised, Spec,  # noqa: F401
                    _first, _run_model, _same, _seen, arguments_swapped, bias_of, finding_id, model)
from .kept import kept_parameters
from .unmodelled import unmodelled


# -- probes ------------------------------------------------------------------------------------------------------
N = 4
X2 = (np.array([[3, -1, 2, 0], [1, 2, -2, 1], [-1, 0, 1, 3], [2, 1, 0, -2]], dtype=np.float64) / 2)
W = np.array([[1, 2, 0, -1], [0, 1, 3, 1], [-2, 0, 1, 2], [1, -1, 2, 0]], dtype=np.float64) / 4
B = np.array([0.5, -1.0, 1.5, -2.0])


def probe_cases() -> list[Case]:
    """Five square probes (in == out == 4, and 4 samples along the first axis): an untransposed weight and a bias
    added along a leading axis run there, so their numbers can be read instead of an error; the last two have no
    bias, left out and passed as None, so refusing a missing bias shows even when the weight is used
    untransposed, and so does refusing only one of the two ways."""
    x3 = np.stack([X2[:3], X2[1:] * 2, X2[::-1][:3], -X2[1:]])  # (4, 3, 4): a row loop's W @ row cannot run
    return [
        Case("probe-square", PROBE, (X2.copy(), W.copy(), B.copy()),
             "x (4, 4), weight (4, 4), bias (4,): as many samples as outputs and inputs"),
        Case("probe-3d", PROBE, (x3, W.copy(), B.copy()),
             "x (4, 3, 4), weight (4, 4), bias (4,): two leading axes"),
        Case("probe-vector", PROBE, (X2[0].copy(), W.copy(), B.copy()),
             "x (4,), weight (4, 4), bias (4,): a single vector"),
        Case("probe-no-bias", PROBE, (X2[:3].copy(), W.copy()), "x (3, 4), weight (4, 4), bias left out"),
        Case("probe-bias-none", PROBE, (X2[1:].copy(), W.copy(), None), "x (3, 4), weight (4, 4), bias=None"),
    ]


PROBE_NAMES = frozenset(c.name for c in probe_cases())


# -- the search ------------------------------------------------------------------------------------------------
def _usable(runs) -> list:
    """The calls that tell something: a returned numeric array, or an exception."""
    out = []
    for run in runs:
        o = run.outcome
        if o.status == "raised" or (o.status == "ok" and o.array is not None and o.array.dtype.kind in "biuf"):
            out.append(run)
    return out


def _explains(spec: Spec, runs, cache: dict) -> bool:
    """Whether ``spec`` reproduces every call. What each call says of a combination is kept under the combination
    reduced to the switches that can change that call (``_seen``): about 6,800 combinations share far fewer
    results, and an output no combination explains (NaNs, noise, a mix of mistakes) is otherwise compared with
    all of them, which cost the grader 100-200 ms per submission."""
    for index, run in enumerate(runs):
        key = (index, _seen(spec, run.case.args))
        if key not in cache:
            cache[key] = _matches(run, _run_model(run.case.args, spec))
        if not cache[key]:
            return False
    return True


def _matches(run, predicted: list) -> bool:
    if run.outcome.status == "raised":
        return not all(p is not None for p in predicted)
    return any(_same(run.outcome.array, p) for p in predicted)


def _telling_first(runs) -> list:
    """The calls in the order the search asks them: those without a bias first (how a bias is added cannot change
    them, so they hold the fewest distinct results to compute), then the rest as they came. The search's answer
    is the same in any order; its cost on an output nothing explains is the first call's."""
    return sorted(runs, key=lambda run: bias_of(run.case.args) is not None)


def search(runs) -> Spec | None:
    """The simplest combination of switches that reproduces every usable call, or None."""
    usable = _usable(runs)
    if not any(r.outcome.status == "ok" for r in usable):
        return None
    cache: dict = {}
    ordered = _telling_first(usable)
    for spec in SPECS:
        if _explains(spec, ordered, cache) and _plausible(spec, usable):
            return spec
    return None


def _plausible(spec: Spec, runs) -> bool:
    """``if bias:`` is known only by raising when a bias is given: it must raise numpy's own complaint."""
    if spec.bias != "truth-test":
        return True
    return all("truth value" in r.outcome.exception.message for r in runs if r.outcome.status == "raised"
               and r.outcome.exception is not None and bias_of(r.case.args) is not None)


# -- evidence ----------------------------------------------------------------------------------------------------
def _where(run) -> str:
    kind = "probe" if run.case.group == PROBE else "case"
    return f"the {kind} '{run.case.name}' ({run.case.description})"


def _ranked(runs) -> list:
    """Probes and public cases first (the student can rerun them), then the hidden ones."""
    return sorted(runs, key=lambda r: (r.case.group != PROBE and not r.case.name.startswith("public-")))


def _differs(args, spec: Spec, other: Spec) -> bool:
    a, b = _first(args, spec), _first(args, other)
    if a is None or b is None:
        return (a is None) != (b is None)
    return a.shape != b.shape or not _same(a, b)


def _witness(runs, spec: Spec, flag: str, want=None):
    """A call where resetting ``flag`` to right changes the result (optionally one that raised or returned)."""
    base = replace(spec, **{flag: "ok"})
    for run in _ranked(runs):
        if want is not None and (run.outcome.status == "raised") != (want == "raised"):
            continue
        if _differs(run.case.args, spec, base):
            return run
    return None


def _error(run) -> str:
    """The exception as a sentence part, without the trailing space numpy leaves in some messages."""
    error = run.outcome.exception
    if error is None:
        return run.outcome.error
    text = f"{error.type}: {error.message.strip()}" if error.message.strip() else error.type
    return f"{text} ({error.where})" if error.where else text


def _shape(run) -> tuple:
    return tuple(run.outcome.array.shape)


def _plus(run, spec: Spec) -> str:
    return " + bias" if bias_of(run.case.args) is not None and spec.bias == "ok" else ""


def _right_elsewhere(runs, spec: Spec, flag: str, keep) -> str:
    """A returned call the departure leaves right, among those ``keep`` selects, as a clause, or ""."""
    base = replace(spec, **{flag: "ok"})
    for run in _ranked(runs):
        if run.outcome.status == "ok" and keep(run) and not _differs(run.case.args, spec, base) and _same(
                run.outcome.array, run.expected):
            return f"on {_where(run)} your output is right"
    return ""


def _weight_evidence(runs, spec: Spec) -> str:
    ran = _witness(runs, spec, "weight", "ok")
    failed = _witness(runs, spec, "weight", "raised")
    parts = []
    if spec.weight == "reshaped":
        if ran is not None:
            out, inp = ran.case.args[1].shape
            parts.append(f"On {_where(ran)} your output equals x @ weight.reshape({inp}, {out}){_plus(ran, spec)}, "
                         f"not x @ weight.T{_plus(ran, spec)}: the reshape gives the shape (in, out) of the transpose "
                         "but keeps the values in their stored order, so they land in other places")
        return _sentences(parts)
    if spec.weight == "elementwise":
        if ran is not None:
            parts.append(f"On {_where(ran)} your output has shape {_shape(ran)} where "
                         f"{tuple(ran.expected.shape)} is expected, and equals (x * weight).sum(axis=-1)"
                         f"{_plus(ran, spec)}")
        if failed is not None:
            parts.append(f"on {_where(failed)} your function raised {_error(failed)}: x * weight lines the "
                         "leading axis of x up with the rows of weight")
        right = _right_elsewhere(runs, spec, "weight", lambda r: r.case.args[0].ndim == 1)
        if right and parts:
            parts.append(right + ", a single vector being the one case where x * weight pairs each row of the "
                         "weight with the whole input")
        return _sentences(parts)
    if spec.weight in WEIGHT_FORMS:
        ran = next((r for r in _ranked(runs) if r.outcome.status == "ok" and _shape(r) != tuple(r.expected.shape)),
                   ran)
        code, why = WEIGHT_FORMS[spec.weight]
        if ran is not None:
            parts.append(f"On {_where(ran)} your output, shape {_shape(ran)} where {tuple(ran.expected.shape)} is "
                         f"expected, equals {code}{_plus(ran, spec)}: {why}")
        if failed is not None:
            parts.append(f"on {_where(failed)} your function raised {_error(failed)}")
        return _sentences(parts)
    if spec.weight == "columns":
        ran = next((r for r in _ranked(runs) if r.outcome.status == "ok" and r.case.args[0].ndim > 1
                    and _shape(r) != tuple(r.expected.shape)), ran)
        if ran is not None:
            parts.append(f"On {_where(ran)} your output has shape {_shape(ran)} where {tuple(ran.expected.shape)} is "
                         f"expected, and equals weight @ x.T{' + bias[:, None]' if _plus(ran, spec) else ''}: the "
                         "samples were made columns, as for the textbook's W x, and the result, one column per "
                         "sample, was never turned back into rows")
        if failed is not None:
            parts.append(f"on {_where(failed)} your function raised {_error(failed)}: x.T reverses every axis of x")
        return _sentences(parts)
    if spec.weight == "column-form":
        if ran is not None:
            parts.append(f"On {_where(ran)} your output equals weight @ x{_plus(ran, spec)}, the textbook's W x for "
                         "a column vector x, which here pairs the weight with the wrong axis of x")
        if failed is not None:
            parts.append(f"on {_where(failed)} your function raised {_error(failed)}")
        right = _right_elsewhere(runs, spec, "weight", lambda r: r.case.args[0].ndim == 1)
        if right and parts:
            parts.append(right + ": for a single vector W x is the layer, but the samples of x lie along its "
                                 "leading axes, one vector per row")
        return _sentences(parts)
    if ran is not None:
        parts.append(f"On {_where(ran)}, where the weight is square so every shape fits, your output equals "
                     f"x @ weight{_plus(ran, spec)}, not x @ weight.T{_plus(ran, spec)}")
    if spec.weight == "nobias-untransposed":
        right = _right_elsewhere(runs, spec, "weight", lambda r: bias_of(r.case.args) is not None)
        parts.append((right or "with a bias the weight is transposed") + ": only the code path without a bias "
                     "leaves the transpose out")
    if spec.weight == "vector-untransposed":
        right = _right_elsewhere(runs, spec, "weight", lambda r: r.case.args[0].ndim > 1)
        parts.append((right or "with leading axes the weight is transposed") + ": only the code path for a single "
                     "vector x leaves the transpose out")
    if spec.weight == "square-untransposed":
        right = _right_elsewhere(runs, spec, "weight", lambda r: r.case.args[1].shape[0] != r.case.args[1].shape[1])
        if right:
            parts.append(right + ", where out != in: the weight seems to be transposed only when x @ weight "
                                 "would not line up, but a square weight needs its transpose too")
    if failed is not None:
        out, inp = failed.case.args[1].shape
        parts.append(f"on {_where(failed)} your function raised {_error(failed)}: weight is stored "
                     f"(out, in) = ({out}, {inp}), so x @ weight only lines up when out == in")
    return _sentences(parts)


def _reduce_evidence(runs, spec: Spec) -> str:
    ran = _witness(runs, spec, "reduce", "ok")
    if ran is None:
        return ""
    inp = ran.case.args[1].shape[1]
    if spec.reduce == "mean":
        return _sentences([f"On {_where(ran)} your output equals the layer with the sum over the {inp} inputs "
                           f"replaced by their mean: x @ weight.T divided by {inp}"])
    which = "last" if spec.reduce == "skips-last" else "first"
    return _sentences([f"On {_where(ran)} your output equals the layer computed without the {which} input: the "
                       f"sum runs over {inp - 1} of the {inp} products x[..., i] * weight[j, i]"])


def _bias_evidence(runs, spec: Spec) -> str:
    ran = _witness(runs, spec, "bias", "ok")
    failed = _witness(runs, spec, "bias", "raised")
    if spec.bias == "missing":
        if ran is None:
            return ""
        return (f"On {_where(ran)} your output equals x @ weight.T with no bias added: changing the bias would "
                "not change it.")
    if spec.bias == "twice":
        if ran is None:
            return ""
        return f"On {_where(ran)} your output equals x @ weight.T + 2 * bias: the bias was added twice."
    if spec.bias == "missing-vector":
        if ran is None:
            return ""
        return (f"On {_where(ran)} your output equals weight @ x with no bias added, while with a leading axis the "
                "bias is added: the code path for a single vector leaves it out.")
    if spec.bias in ("multiplied", "subtracted"):
        if ran is None:
            return ""
        how = "x @ weight.T times the bias, value by value" if spec.bias == "multiplied" else "x @ weight.T - bias"
        return f"On {_where(ran)} your output equals {how}: the bias must be added."
    if spec.bias == "in-weight":
        if ran is None:
            return ""
        return (f"On {_where(ran)} your output equals x @ (weight.T + bias): the bias was added to every weight of "
                "its output, so each output gets its bias times the sum of the inputs instead of the bias once.")
    if spec.bias == "as-row":
        if ran is None:
            return ""
        return (f"On {_where(ran)} your output has shape {_shape(ran)} instead of {tuple(ran.expected.shape)}: the "
                "bias was added as a (1, out) row, which turns the result for a single vector x into a row too; "
                "without a bias the shape is right.")
    if spec.bias == "input":
        parts = []
        if ran is not None:
            parts.append(f"On {_where(ran)}, where in == out so the shapes fit, your output equals "
                         "(x + bias) @ weight.T: the bias was added to the input before the product")
        if failed is not None:
            parts.append(f"on {_where(failed)} your function raised {_error(failed)}: the bias has out_features "
                         "values and x has in_features along its last axis")
        return _sentences(parts)
    if spec.bias == "truth-test":
        if failed is None:
            return ""
        return _sentences([f"On {_where(failed)}, called with a bias, your function raised {_error(failed)}; "
                           "the calls without a bias returned. Python's if asks numpy for one True or False, and "
                           "an array of several values (or the array that bias == None gives) has none"])
    axis = ("the first axis of the result" if spec.bias in ("first-axis", "first-axis-nd")
            else "the second-to-last axis (bias[:, None])")
    parts = []
    if ran is not None:
        expected = ran.expected.shape
        if _shape(ran) != tuple(expected):
            parts.append(f"On {_where(ran)} your output has shape {_shape(ran)} instead of {tuple(expected)}: "
                         f"the bias was broadcast along {axis} rather than the output axis")
        else:
            parts.append(f"On {_where(ran)} your output equals x @ weight.T with bias[i] added to every output at "
                         f"position i of {axis}, instead of to output i of every sample")
    if failed is not None:
        parts.append(f"on {_where(failed)} your function raised {_error(failed)}, numpy refusing to line "
                     "up the bias with that axis")
    if spec.bias == "first-axis-nd" and parts:
        right = _right_elsewhere(runs, spec, "bias", lambda r: r.case.args[0].ndim <= 2 and bias_of(r.case.args)
                                 is not None)
        parts.append((right or "with a single vector or a 2-D batch the bias is added right") +
                     ": only the code path for inputs with two or more leading axes misplaces it")
    if spec.bias == "row-axis-batch" and parts:
        right = _right_elsewhere(runs, spec, "bias", lambda r: r.case.args[0].ndim == 1 and bias_of(r.case.args)
                                 is not None)
        parts.append((right or "with a single vector the bias is added right") +
                     ": with a batch it was added while the samples ran along the last axis (before a final "
                     "transpose, say), so it lined up with the samples")
    return _sentences(parts)


def _shape_evidence(runs, spec: Spec) -> str:
    run = _witness(runs, spec, "shape", "ok")
    failed = _witness(runs, spec, "shape", "raised")
    two_d = [r for r in runs if r.case.args[0].ndim == 2 and r.outcome.status == "ok"]
    parts = []
    got = "" if run is None else f"On {_where(run)} your output has shape {_shape(run)} instead of " \
                                 f"{tuple(run.expected.shape)}"
    if spec.shape == "merged" and run is not None:
        lead = run.case.args[0].shape[:-1]
        what = ("a single vector x came back as a row, with an axis added" if not lead else
                f"the leading axes {lead} were merged into one axis of {int(np.prod(lead))}")
        parts.append(f"{got} and the right values in it: {what}")
    elif spec.shape in ("vector-as-row", "row-no-3d") and run is not None:
        parts.append(f"{got}: a single vector x of shape (in,) came back as a (1, out) row")
    elif spec.shape == "first-kept" and run is not None:
        parts.append(f"{got}, the right values in another shape: the result was reshaped to (x.shape[0], -1), "
                     "which keeps only the first leading axis and folds the others into the last")
    elif spec.shape in ONE_VECTOR and run is not None:
        how = {"flattened": "flattened into one long vector (x.ravel())", "batch-mean": "averaged into one vector "
               "(x.mean(axis=0))", "batch-sum": "summed into one vector (x.sum(axis=0))",
               "first-sample": "reduced to the first one (x[0])"}[spec.shape]
        parts.append(f"{got}: the samples of x were {how}, as if x were always a single vector; the leading axes "
                     "must stay, one output vector for every input vector")
    elif spec.shape == "like-x" and run is not None:
        parts.append(f"{got}: the output has the shape of x, one entry per input where there should be one per "
                     "output, the first out entries of its last axis right and the rest never written (0 from "
                     "np.zeros_like, whatever the memory held from np.empty_like)")
    if spec.shape in ONE_VECTOR:
        if failed is not None:
            parts.append(f"on {_where(failed)} your function raised {_error(failed)}")
        return _sentences(parts)
    if spec.shape == "like-x":
        if failed is not None:
            parts.append(f"on {_where(failed)}, with more outputs than inputs, your function raised "
                         f"{_error(failed)}")
        return _sentences(parts)
    failures = [failed] if failed is not None else []
    if spec.shape == "needs-2d" and failed is not None:  # one call without a leading axis, one with several
        other = [r for r in _ranked(runs) if r.outcome.status == "raised" and r.case.args[0].ndim != 2
                 and (r.case.args[0].ndim == 1) != (failed.case.args[0].ndim == 1)
                 and _differs(r.case.args, spec, replace(spec, shape="ok"))]
        failures += other[:1]
    for n, run in enumerate(failures):
        ndim = run.case.args[0].ndim
        which = "no leading axis" if ndim == 1 else f"{ndim - 1} leading axes"
        lead = ("Calls with a 2-D x returned, but on " if n == 0 and two_d and not parts else "on ")
        parts.append(f"{lead}{_where(run)}, with {which}, your function raised {_error(run)}")
    return _sentences(parts)


def _none_evidence(runs, spec: Spec) -> str:
    failed = _witness(runs, spec, "none", "raised")
    if failed is None:
        return ""
    how = "as linear(x, weight), the bias left out" if len(failed.case.args) == 2 else "with bias=None"
    text = (f"Called {how}, on {_where(failed)}, your function raised {_error(failed)}. A call without a bias "
            "must work and give x @ weight.T.")
    if spec.none == "in-zeros":
        text += (" The zeros put in for the missing bias have in_features entries (weight.shape[1]), where the bias "
                 "has one per output (weight.shape[0]): they line up only when the two are equal.")
    elif spec.none == "none-refused":
        text += " Left out of the call, the bias was handled; passed as None, it was not."
    elif spec.none == "omitted-refused":
        text += " Passed as None, the bias was handled; left out of the call, it was not."
    return text


def _activation_evidence(runs, spec: Spec) -> str:
    ran = _witness(runs, spec, "activation", "ok")
    if ran is None:
        return ""
    name = {"relu": "ReLU, max(0, y), its negative values set to 0", "sigmoid": "a sigmoid, 1 / (1 + exp(-y))",
            "tanh": "tanh", "softmax": "a softmax over the last axis"}[spec.activation]
    return _sentences([f"On {_where(ran)} your output equals the layer's output y = x @ weight.T{_plus(ran, spec)} "
                       f"passed through {name}"])


def _sentences(parts: list[str]) -> str:
    if not parts:
        return ""
    text = "; ".join(parts)
    return text[0].upper() + text[1:] + ("" if text.endswith(".") else ".")


EVIDENCE = {"weight": _weight_evidence, "reduce": _reduce_evidence, "bias": _bias_evidence, "shape": _shape_evidence,
            "none": _none_evidence, "activation": _activation_evidence}


def diagnose(runs, exercise) -> list[Finding]:
    usable = _usable(runs)
    spec = search(usable)
    if spec is None:
        found = kept_parameters(usable) or unmodelled(usable)
        return [found] if found else []
    if spec == REFERENCE or (spec.weight == "outputs-first" and arguments_swapped(usable)):
        return []
    findings = []
    for flag in spec.departures():
        findings.append(Finding(finding_id(spec, flag), EVIDENCE[flag](usable, spec)))
    return findings
