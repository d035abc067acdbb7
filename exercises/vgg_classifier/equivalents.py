"""Readings of the search that no input can tell apart, because a positive factor passes through a ReLU.

ReLU(s z) = s ReLU(z) for any s > 0, and a product is linear, so a factor can move along the head: the features
times s with b1 times s is FC1's activations times s; with b1 left out, the features times s and FC1's activations
times s are one function; with b3 left out, FC2's activations times s and the logits times s are. The search names
the first reading it reaches, and a name is then a guess that is wrong for every student who wrote the other one.
Here a found variant is put in its simplest form (``simplest``), and the places a factor cannot be pinned to are
said as such (``unplaced_features``, ``unplaced_logits``), so the report never claims more than the evidence shows.
"""
from __future__ import annotations

from dataclasses import replace

#: activations that a positive factor passes through unchanged: act(s z) = s act(z)
HOMOGENEOUS = frozenset({"relu", "none", "abs", "min0", "leaky0.01", "leaky0.1", "leaky0.2"})


def features_factor(spec) -> float | None:
    """The factor the features are multiplied by before FC1 (``input_act`` ``scale:S``), or None."""
    if not spec.input_act.startswith("scale:"):
        return None
    try:
        return float(spec.input_act.split(":", 1)[1])
    except ValueError:
        return None


def simplest(spec):
    """``spec`` with a factor and the biases after it scaled alike read as one factor further on, the same function
    when the activations between pass a positive factor through: the features times s with b1 times s are FC1's
    activations times s; FC2's activations times s with b3 times s (FC1's with b2 and b3 too) are the logits times
    s. The student is told of one change where the search had found several made up to look like it (h1 / 2 and
    y / 2 were told as h1 and h2 halved and b3 halved). Anything else is returned as it is."""
    return _skip_after(_to_logits(_to_h1(spec)))


def _skip_after(spec):
    """A skip connection found inside a hidden layer with no activation, h1 W2 + b2 + h1, read as the usual one
    after it: without an activation between, before and after are one sum, and the evidence of the inside reading
    ("added before the ReLU instead of after it") told a student who left the ReLU out of that layer, beside a
    plain ResNet-style skip, of a placement mistake that the code does not make."""
    for i, inside in enumerate(spec.skip_inside):
        if inside and spec.act[i] == "none" and spec.scale[i] == 1.0 and not spec.residual[i] \
                and not spec.relu_before_bias[i] and not spec.bias_floor[i]:
            spec = replace(spec, skip_inside=tuple(False if j == i else x for j, x in enumerate(spec.skip_inside)),
                           residual=tuple(True if j == i else x for j, x in enumerate(spec.residual)))
    return spec


def _plain(spec, layer: int) -> bool:
    """FC ``layer`` (0, 1) adds its bias plainly before an activation that passes a positive factor through."""
    return (spec.act[layer] in HOMOGENEOUS and not spec.relu_before_bias[layer] and not spec.bias_input[layer]
            and not spec.bias_floor[layer])


def _to_h1(spec):
    s = features_factor(spec)
    if s is None or s <= 0 or not spec.bias[0] or spec.bias_scale[0] != s or spec.scale[0] != 1.0 \
            or not _plain(spec, 0):
        return spec
    return replace(spec, input_act="none", bias_scale=(1.0, *spec.bias_scale[1:]), scale=(s, spec.scale[1]))


def _to_logits(spec):
    if (spec.final != "none" and not spec.final.startswith("round:")) or spec.bias_input[2]:
        return spec
    first, second = spec.scale
    b1, b2, b3 = spec.bias_scale
    if second > 0 and second != 1.0 and spec.bias[2] and b3 == second:  # FC2's activations and b3
        s, spec = second, replace(spec, scale=(first, 1.0), bias_scale=(b1, b2, 1.0))
    elif first > 0 and first != 1.0 and second == 1.0 and _plain(spec, 1) and spec.bias[1] and b2 == first \
            and (not spec.bias[2] or b3 == first):  # FC1's activations, b2 and b3 (if added)
        s, spec = first, replace(spec, scale=(1.0, 1.0), bias_scale=(b1, 1.0, 1.0))
    else:
        return spec
    factor = {2.0: "double", 0.5: "half"}.get(s, f"times:{s!r}")
    return replace(spec, final=factor if spec.final == "none" else f"{factor}+{spec.final}")


def features_or_h1(spec) -> bool:
    """With b1 left out, the features times s and FC1's activations times s are one function (s > 0)."""
    return not spec.bias[0] and spec.act[0] in HOMOGENEOUS and not spec.bias_floor[0]


def unplaced_features(factor: float, undone) -> tuple[str, str, object]:
    """The item for a positive ``factor`` on the features or on FC1's activations, with b1 left out."""
    return ("wrong-stage", f"FC1's activations come out multiplied by {factor:g}; with b1 left out, the features (or "
                           f"W1) multiplied by {factor:g} and FC1's activations multiplied by {factor:g} (as "
                           "dropout's rescaling does when it is left on at inference) are the same function, so no "
                           "input can tell which of the two the code does, and the grader does not guess", undone)


def dropout_on_both(factor: float, undone) -> tuple[str, str, object]:
    """The item for FC2's activations times a positive ``factor`` with b3 left out, when FC1's are multiplied by the
    same factor: dropout's rescaling left on in both hidden layers. The logits times the factor would be the same
    function, but the factor already on FC1 makes that reading the far less likely one; a ``wrong-stage`` that says
    the grader cannot choose, beside the dropout it did name, told the student of a third mistake that is not
    there."""
    return ("inference-dropout", f"FC2's activations are multiplied by {factor:g} too, as FC1's are (with b3 left "
                                 f"out, the logits multiplied by {factor:g} would be the same function; the same "
                                 "factor on both hidden layers is dropout's rescaling left on at inference)", undone)


def unplaced_logits(factor: float, undone) -> tuple[str, str, object]:
    """The item for a positive ``factor`` on FC2's activations or on the logits, with b3 left out."""
    after = {2.0: "multiplied by 2 after FC3 (2 * y)", 0.5: "divided by 2 after FC3 (y / 2)"}.get(
        factor, f"multiplied by {factor:g} after FC3")
    return ("wrong-stage", f"the logits come out multiplied by {factor:g}; with b3 left out, FC2's activations (or "
                           f"W3) multiplied by {factor:g}, as dropout's rescaling does when it is left on at "
                           f"inference, and the logits {after} are the same function, so no input can tell which "
                           "of the two the code does, and the grader does not guess", undone)
