"""Misconception diagnosis for the linear layer, y = x W^T + b.

The diagnosis is a search over a model of the layer with a few switches, one per kind of mistake:

* ``weight``: ``x @ weight.T`` (right) or ``x @ weight`` (not transposed: a shape mismatch when out != in, other
  numbers when out == in);
* ``bias``: added along the output axis (right), not added, or added along a leading axis (``bias[:, None]``, or
  ``bias`` reshaped to the first axis), which numpy broadcasts to other shapes or refuses;
* ``shape``: how x's leading axes are treated: kept (right), merged into one (``x.reshape(-1, in)``), a single
  vector turned into a (1, in) row, or some number of axes refused (a code path written only for 2-D input);
* ``none``: a missing or None bias handled (right) or refused.

Each combination is run in the grader on the same inputs (trusted code, tiny arrays) and compared with what the
student's function did on every case: where it returned an array, the model must return the same shape and the
same values (to 1e-6 of the largest value, so float32 arithmetic does not hide a mistake); where it raised, the
model must raise too. The combination with the fewest departures that explains every call is taken, and each of
its departures is a finding, with a case where that departure changes the result as evidence. Four square
probes (out == in == N == 4) let an untransposed weight and a misplaced bias run instead of raising.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, replace

import numpy as np

from grader.authoring import PROBE, Case, Finding

MATCH = 1e-6  # relative to the largest expected magnitude: float32 and float64 formulations match, mistakes do not
MAX_DEPARTURES = 3


@dataclass(frozen=True)
class Spec:
    weight: str = "ok"  # ok | untransposed
    bias: str = "ok"  # ok | missing | first-axis | row-axis
    shape: str = "ok"  # ok | merged | vector-as-row | needs-2d | no-vector | no-3d
    none: str = "ok"  # ok | refused

    def departures(self) -> list[str]:
        return [name for name in ("weight", "bias", "shape", "none") if getattr(self, name) != "ok"]


OPTIONS = {
    "weight": ("ok", "untransposed"),
    "bias": ("ok", "missing", "first-axis", "row-axis"),
    "shape": ("ok", "merged", "vector-as-row", "needs-2d", "no-vector", "no-3d"),
    "none": ("ok", "refused"),
}
FINDING = {"weight": "weight-not-transposed", "none": "bias-none-refused", "shape": "only-2d-input",
           "missing": "missing-bias", "first-axis": "bias-wrong-axis", "row-axis": "bias-wrong-axis"}
REFERENCE = Spec()


def _specs() -> list[Spec]:
    specs = [Spec(*values) for values in itertools.product(*OPTIONS.values())]
    specs = [s for s in specs if len(s.departures()) <= MAX_DEPARTURES]
    return sorted(specs, key=lambda s: len(s.departures()))  # stable: option order breaks ties


SPECS = _specs()


class Raised(Exception):
    """The model of a mistake that makes the call fail."""


def bias_of(args):
    return args[2] if len(args) > 2 else None


def model(args, spec: Spec, einsum: bool = False) -> np.ndarray:
    """What a function with the departures of ``spec`` returns on ``args`` (raises where it would raise)."""
    x, weight, bias = args[0], args[1], bias_of(args)
    if spec.none == "refused" and bias is None:
        raise Raised("bias refused")
    if spec.shape == "merged":
        x = x.reshape(-1, x.shape[-1])
    elif spec.shape == "vector-as-row" and x.ndim == 1:
        x = x[None, :]
    elif (spec.shape == "needs-2d" and x.ndim != 2) or (spec.shape == "no-vector" and x.ndim == 1) or (
            spec.shape == "no-3d" and x.ndim > 2):
        raise Raised("rank refused")
    if spec.weight == "untransposed" and einsum:
        y = np.einsum("...i,ij->...j", x, weight)  # einsum broadcasts a size-1 axis where @ refuses it
    else:
        y = x @ (weight if spec.weight == "untransposed" else weight.T)
    if bias is None or spec.bias == "missing":
        return y
    if spec.bias == "first-axis":
        return y + bias.reshape((-1,) + (1,) * (y.ndim - 1))
    if spec.bias == "row-axis":
        return y + bias[:, None]
    return y + bias


def _run_model(args, spec: Spec):
    """The model's possible results on ``args``: arrays, or None where it raises. An untransposed weight has two,
    the product's and einsum's, which differ only when a size-1 axis meets a larger one."""
    found = []
    for einsum in ((False, True) if spec.weight == "untransposed" else (False,)):
        try:
            with np.errstate(all="ignore"):
                found.append(model(args, spec, einsum))
        except (Raised, ValueError, IndexError, TypeError):
            found.append(None)  # None: the model raises
    return found


def _first(args, spec: Spec):
    return _run_model(args, spec)[0]


def _same(actual: np.ndarray, predicted: np.ndarray | None) -> bool:
    if predicted is None or actual.shape != predicted.shape:
        return False
    with np.errstate(all="ignore"):
        actual = actual.astype(np.float64)
        scale = float(np.max(np.abs(predicted))) if predicted.size else 0.0
        return bool(np.all(np.abs(actual - predicted) <= MATCH * max(scale, 1e-300)))


# -- probes ------------------------------------------------------------------------------------------------------
N = 4
X2 = (np.array([[3, -1, 2, 0], [1, 2, -2, 1], [-1, 0, 1, 3], [2, 1, 0, -2]], dtype=np.float64) / 2)
W = np.array([[1, 2, 0, -1], [0, 1, 3, 1], [-2, 0, 1, 2], [1, -1, 2, 0]], dtype=np.float64) / 4
B = np.array([0.5, -1.0, 1.5, -2.0])


def probe_cases() -> list[Case]:
    """Four square probes (in == out == 4, and 4 samples along the first axis): an untransposed weight and a bias
    added along a leading axis run there, so their numbers can be read instead of an error; the last one has no
    bias, so refusing a missing bias shows even when the weight is used untransposed."""
    x3 = np.stack([X2[:3], X2[1:] * 2, X2[::-1][:3], -X2[1:]])  # (4, 3, 4): a row loop's W @ row cannot run
    return [
        Case("probe-square", PROBE, (X2.copy(), W.copy(), B.copy()),
             "x (4, 4), weight (4, 4), bias (4,): as many samples as outputs and inputs"),
        Case("probe-3d", PROBE, (x3, W.copy(), B.copy()),
             "x (4, 3, 4), weight (4, 4), bias (4,): two leading axes"),
        Case("probe-vector", PROBE, (X2[0].copy(), W.copy(), B.copy()),
             "x (4,), weight (4, 4), bias (4,): a single vector"),
        Case("probe-no-bias", PROBE, (X2[:3].copy(), W.copy()), "x (3, 4), weight (4, 4), bias left out"),
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
    for index, run in enumerate(runs):
        key = (index, spec)
        if key not in cache:
            cache[key] = _run_model(run.case.args, spec)
        predicted = cache[key]
        if run.outcome.status == "raised":
            if all(p is not None for p in predicted):
                return False
        elif not any(_same(run.outcome.array, p) for p in predicted):
            return False
    return True


def search(runs) -> Spec | None:
    """The simplest combination of switches that reproduces every usable call, or None."""
    usable = _usable(runs)
    if not any(r.outcome.status == "ok" for r in usable):
        return None
    cache: dict = {}
    for spec in SPECS:
        if _explains(spec, usable, cache):
            return spec
    return None


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


def _weight_evidence(runs, spec: Spec) -> str:
    ran = _witness(runs, spec, "weight", "ok")
    failed = _witness(runs, spec, "weight", "raised")
    parts = []
    if ran is not None:
        plus = " + bias" if bias_of(ran.case.args) is not None and spec.bias == "ok" else ""
        parts.append(f"On {_where(ran)}, where the weight is square so every shape fits, your output equals "
                     f"x @ weight{plus}, not x @ weight.T{plus}")
    if failed is not None:
        out, inp = failed.case.args[1].shape
        parts.append(f"on {_where(failed)} your function raised {_error(failed)}: weight is stored "
                     f"(out, in) = ({out}, {inp}), so x @ weight only lines up when out == in")
    return _sentences(parts)


def _bias_evidence(runs, spec: Spec) -> str:
    if spec.bias == "missing":
        run = _witness(runs, spec, "bias", "ok")
        if run is None:
            return ""
        return (f"On {_where(run)} your output equals x @ weight.T with no bias added: changing the bias would "
                "not change it.")
    axis = "the first axis of the result" if spec.bias == "first-axis" else "the second-to-last axis (bias[:, None])"
    ran = _witness(runs, spec, "bias", "ok")
    failed = _witness(runs, spec, "bias", "raised")
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
    return _sentences(parts)


def _shape_evidence(runs, spec: Spec) -> str:
    run = _witness(runs, spec, "shape", "ok")
    failed = _witness(runs, spec, "shape", "raised")
    two_d = [r for r in runs if r.case.args[0].ndim == 2 and r.outcome.status == "ok"]
    parts = []
    if spec.shape == "merged" and run is not None:
        lead = run.case.args[0].shape[:-1]
        what = ("a single vector x came back as a row, with an axis added" if not lead else
                f"the leading axes {lead} were merged into one axis of {int(np.prod(lead))}")
        parts.append(f"On {_where(run)} your output has shape {_shape(run)} instead of {tuple(run.expected.shape)}"
                     f" and the right values in it: {what}")
    elif spec.shape == "vector-as-row" and run is not None:
        parts.append(f"On {_where(run)} your output has shape {_shape(run)} instead of {tuple(run.expected.shape)}:"
                     " a single vector x of shape (in,) came back as a (1, out) row")
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
    return (f"Called {how}, on {_where(failed)}, your function raised {_error(failed)}. A call without a bias "
            "must work and give x @ weight.T.")


def _sentences(parts: list[str]) -> str:
    if not parts:
        return ""
    text = "; ".join(parts)
    return text[0].upper() + text[1:] + "."


EVIDENCE = {"weight": _weight_evidence, "bias": _bias_evidence, "shape": _shape_evidence, "none": _none_evidence}


def diagnose(runs, exercise) -> list[Finding]:
    usable = _usable(runs)
    spec = search(usable)
    if spec is None or spec == REFERENCE:
        return []
    findings = []
    for flag in spec.departures():
        finding_id = FINDING[flag] if flag != "bias" else FINDING[spec.bias]
        findings.append(Finding(finding_id, EVIDENCE[flag](usable, spec)))
    return findings
