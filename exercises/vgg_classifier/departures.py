"""The departures of a variant of the head's model (``variants.py``) from the statement, as the findings name them.

``describe`` turns a ``Spec`` into (finding id, sentence, the spec with that one departure undone) for each of its
departures, which is what the report says and what the search prunes with; ``stage_of`` groups the same sentences by
the stage of the head they happen in, for the stage-by-stage trace. Kept apart from ``search.py``, which finds the
variant: the sentences grow with every mistake the model learns, the search does not.
"""
from __future__ import annotations

from dataclasses import replace

from . import activations as A
from . import equivalents as Eq
from . import finals as Fn
from . import variants as V

LAYER = ("FC1", "FC2", "FC3")


def _cleared(flags: tuple[bool, ...], i: int) -> tuple[bool, ...]:
    """``flags`` with the i-th one off: the model without that one departure."""
    return tuple(False if j == i else f for j, f in enumerate(flags))


def describe(spec) -> list[tuple[str, str, object]]:
    """(id, sentence, spec with this one departure undone) for every departure of ``spec`` from the reference."""
    ref = V.REFERENCE
    items = []
    if spec.flatten != ref.flatten:
        finding = ("samples-mixed" if spec.flatten in V.MIXING else "samples-dropped" if spec.flatten in V.MOVED
                   else "flatten-order")
        items.append((finding, f"the features are flattened {V.FLATTEN_NAMES[spec.flatten]}",
                      replace(spec, flatten=ref.flatten)))
    if spec.sequence != ref.sequence:
        items.append(("missing-layer", V.SEQUENCE_NAMES[spec.sequence], replace(spec, sequence=ref.sequence)))
    if any(spec.transposed):
        names = [f"W{i + 1}" for i, t in enumerate(spec.transposed) if t]
        items.append(("transposed-weights",
                      f"{_join(names)} {'is' if len(names) == 1 else 'are'} used as (out, in) matrices "
                      "(x @ W.T, or W @ x with samples as columns), but the weights are stored (in, out)",
                      replace(spec, transposed=ref.transposed)))
    for i, present in enumerate(spec.bias):
        if not present:
            items.append(("missing-bias", f"the bias b{i + 1} ({LAYER[i]}) is not added",
                          replace(spec, bias=tuple(True if j == i else b for j, b in enumerate(spec.bias)))))
    if spec.act[0] == spec.act[1] != "relu":  # the same function in both layers: one sentence
        act = spec.act[0]
        undone = replace(spec, act=("relu", "relu"))
        if act == "none":
            items.append(("missing-relu", "FC1 and FC2 have no ReLU", undone))
        elif act in _AFTER_RELU:
            items.append((_AFTER_RELU[act][0], f"in FC1 and FC2 {_AFTER_RELU[act][1].format(h='h1 and h2')}", undone))
        else:
            items.append(("wrong-activation", f"FC1 and FC2 use {A.activation_name(act)} instead of ReLU"
                          + (", so FC3 only adds b3: the logits are b3 on every row, whatever the input"
                             if act == "zero" else ""), undone))
    else:
        for i, act in enumerate(spec.act):
            if act == "relu":
                continue
            undone = replace(spec, act=tuple("relu" if j == i else a for j, a in enumerate(spec.act)))
            if act == "none":
                items.append(("missing-relu", f"{LAYER[i]} has no ReLU", undone))
            elif act in _AFTER_RELU:
                items.append((_AFTER_RELU[act][0], f"in {LAYER[i]} {_AFTER_RELU[act][1].format(h=f'h{i + 1}')}",
                              undone))
            else:
                text = f"{LAYER[i]} uses {A.activation_name(act)} instead of ReLU"
                if act == "zero" and i == 1:
                    text += ", so FC3 only adds b3: the logits are b3 on every row, whatever the input"
                items.append(("wrong-activation", text, undone))
    if all(spec.relu_before_bias):
        items.append(("relu-before-bias", "in FC1 and FC2 the ReLU is applied before the bias (b1, b2) is added",
                      replace(spec, relu_before_bias=(False, False))))
    else:
        for i, flag in enumerate(spec.relu_before_bias):
            if flag:
                items.append(("relu-before-bias", f"in {LAYER[i]} the ReLU is applied before b{i + 1} is added",
                              replace(spec, relu_before_bias=_cleared(spec.relu_before_bias, i))))
    if all(spec.averaged):
        items.append(("mean-not-sum", "every layer averages the products of its inputs with its weights instead of "
                                      "summing them, as if x @ W1, h1 @ W2 and h2 @ W3 were each divided by the "
                                      "number of rows of the weight matrix (a .mean(axis=1) where the matrix "
                                      "product takes a sum)", replace(spec, averaged=(False, False, False))))
    for i, mean in enumerate(spec.averaged if not all(spec.averaged) else ()):
        if mean:
            h = ("x", "h1", "h2")[i]
            items.append(("mean-not-sum", f"{LAYER[i]} averages the products of its inputs with W{i + 1} instead of "
                                          f"summing them, as if {h} @ W{i + 1} were divided by the number of rows of "
                                          f"W{i + 1} (a .mean(axis=1) where the matrix product takes a sum)",
                          replace(spec, averaged=_cleared(spec.averaged, i))))
    for i, moved in enumerate(spec.bias_input):
        if moved and spec.bias[i]:
            h = ("x", "h1", "h2")[i]
            items.append(("bias-misplaced", f"{LAYER[i]} adds b{i + 1} to its input before multiplying by "
                                            f"W{i + 1}, ({h} + b{i + 1}) W{i + 1}, instead of adding it to the "
                                            f"product, {h} W{i + 1} + b{i + 1}",
                          replace(spec, bias_input=_cleared(spec.bias_input, i))))
    for i, floor in enumerate(spec.bias_floor):
        if floor and spec.bias[i]:
            h = ("x", "h1")[i]
            items.append(("bias-misplaced", f"{LAYER[i]} uses b{i + 1} as the floor of its ReLU, "
                                            f"np.maximum({h} W{i + 1}, b{i + 1}), instead of adding it before a "
                                            f"ReLU whose floor is 0, max({h} W{i + 1} + b{i + 1}, 0)",
                          replace(spec, bias_floor=_cleared(spec.bias_floor, i))))
    items += _bias_scale_items(spec)
    items += _rare_items(spec)
    first, second = spec.scale
    if first != 1.0 and first * second == 1.0 and spec.bias[1]:
        # FC1's activations times s and FC2's times 1/s: ReLU(h1 W2 + b2 / s), b2 alone scaled (added twice, 2 b2)
        items.append(("wrong-stage", f"FC2 adds b2 multiplied by {second:g}, ReLU(h1 W2 + {second:g} b2), instead of "
                                     f"b2 itself{' (b2 added twice)' if second == 2.0 else ''}: the same as FC1's "
                                     f"activations multiplied by {first:g} and FC2's by {second:g}",
                      replace(spec, scale=(1.0, 1.0))))
    else:
        for i, s in enumerate(spec.scale):
            if s != 1.0:
                undone = replace(spec, scale=tuple(1.0 if j == i else x for j, x in enumerate(spec.scale)))
                if i == 1 and s > 0 and not spec.bias[2] and spec.final == "none":
                    items.append(Eq.dropout_on_both(s, undone) if first == s else Eq.unplaced_logits(s, undone))
                    continue
                if i == 0 and s > 0 and Eq.features_or_h1(spec) and spec.input_act == "none":
                    items.append(Eq.unplaced_features(s, undone))
                    continue
                # twice ReLU is also max(z, 0) written as z + |z| without its halving: said, since no dropout is
                # in that code, and the numbers cannot tell the two apart
                doubled = "; so does a ReLU written as z + |z|, without the division by 2" if s == 2.0 else ""
                items.append(("inference-dropout", f"{LAYER[i]}'s activations are multiplied by {s:g} (or, what "
                                                   f"comes to the same, W{i + 2} is{doubled})", undone))
    factor = Eq.features_factor(spec)
    if factor is not None and factor > 0 and Eq.features_or_h1(spec) and spec.scale[0] == 1.0:
        items.append(Eq.unplaced_features(factor, replace(spec, input_act="none")))
    elif spec.input_act.startswith("scale:"):
        factor = float(spec.input_act.split(":", 1)[1])
        how = (f"divided by {1 / factor:.6g} (x / {1 / factor:.6g})" if 0 < factor < 1
               else f"multiplied by {factor:.6g} (x * {factor:.6g})")
        items.append(("features-changed", f"the features are {how} before FC1 (or, what comes to the same, W1 is)",
                      replace(spec, input_act="none")))
    elif spec.input_act.startswith("clip:"):
        lo, hi = (v if v == "None" else f"{float(v):.6g}" for v in spec.input_act.split(":")[1:])
        bounds = f"[{lo}, {hi}]" if lo != "None" else f"at most {hi}"
        items.append(("features-changed", f"the features are clipped to {bounds} before FC1 (np.clip(features, "
                                          f"{lo}, {hi}))", replace(spec, input_act="none")))
    elif spec.input_act == V.CENTRED:
        items.append(("features-changed", "the mean over the samples of the batch is subtracted from the features "
                                          "before FC1 (x - x.mean(axis=0)), so each sample's logits depend on the "
                                          "rest of its batch, and a sample alone gets features of 0",
                      replace(spec, input_act="none")))
    elif spec.input_act != "none":
        items.append(("extra-activation", f"{V.INPUT_ACT_NAMES[spec.input_act]} is applied to the features before FC1",
                      replace(spec, input_act="none")))
    finals = spec.final.split("+")  # "relu+round:2": a function, then rounding, each named and undone alone
    for k, final in enumerate(finals):
        factor = _factor(final)
        if factor is not None and factor > 0 and not spec.bias[2] and len(finals) == 1:
            items.append(Eq.unplaced_logits(factor, replace(spec, final="none")))
            continue
        found = _final_item(final)
        if found is not None and not spec.bias[2] and final in ("double", "half", "negated") + tuple(
                f for f in finals if f.startswith("times:")):  # no b3: a factor on h2 or W3 is the same thing
            found = (found[0], found[1] + " (or, with b3 left out, what comes to the same: h2 or W3 is scaled)")
        if found is not None:
            rest = "+".join(finals[:k] + finals[k + 1:]) or "none"
            items.append((*found, replace(spec, final=rest)))
    return items


def _factor(final: str) -> float | None:
    """The number a change after FC3 multiplies the logits by, when it is only that (y / 2, 2 y, y * k)."""
    if final in ("double", "half"):
        return 2.0 if final == "double" else 0.5
    if final.startswith("times:"):
        try:
            return float(final.split(":", 1)[1])
        except ValueError:
            return None
    return None


#: hidden activations that are a ReLU and then something more: (finding, what is done, with {h} the values)
_AFTER_RELU = {
    "relu-trunc": ("rounded-output", "the values after the ReLU ({h}) are cut to whole numbers, as .astype(int) does, "
                                     "so the next layer sees truncated values"),
    "layernorm": ("wrong-stage", "the values after the ReLU ({h}) are normalised per sample over the units (a layer "
                                 "norm, (h - h.mean(axis=1)) / h.std(axis=1)), a layer the head does not have"),
    "batchnorm": ("samples-mixed", "the values after the ReLU ({h}) are normalised per unit over the samples of the "
                                   "batch (a batch norm, (h - h.mean(axis=0)) / h.std(axis=0)), so each sample's "
                                   "logits depend on the rest of its batch (a single sample's hidden values are all 0)"),
}
_BIAS_SLIPS = {-1.0: ("subtracted", "-"), 0.5: ("halved", "0.5 "), 2.0: ("added twice", "2 ")}


def _bias_scale_items(spec) -> list:
    """(id, sentence, undone) for biases subtracted, halved or doubled; every bias subtracted is one sentence."""
    scaled = [i for i, s in enumerate(spec.bias_scale) if s != 1.0 and spec.bias[i]]
    if len(scaled) == 3 and all(s == -1.0 for s in spec.bias_scale):
        return [("bias-sign-or-scale", "every bias is subtracted instead of added (x W1 - b1, h1 W2 - b2, h2 W3 - b3)",
                 replace(spec, bias_scale=(1.0, 1.0, 1.0)))]
    items = []
    for i in scaled:
        word, factor = _BIAS_SLIPS[spec.bias_scale[i]]
        h = ("x", "h1", "h2")[i]
        items.append(("bias-sign-or-scale",
                      f"{LAYER[i]} adds {factor}b{i + 1} instead of b{i + 1} (b{i + 1} {word}): {h} W{i + 1} "
                      f"{'-' if factor == '-' else '+'} {'' if factor == '-' else factor}b{i + 1}",
                      replace(spec, bias_scale=tuple(1.0 if j == i else x for j, x in enumerate(spec.bias_scale)))))
    return items


def _final_item(final: str) -> tuple[str, str] | None:
    """(id, sentence) for one function applied after FC3, or None for none."""
    if final in ("softmax", "log-softmax", "softmax-batch", "softmax-all", "sum-norm") or final.startswith("softmax:"):
        what = {"log-softmax": "log-probabilities", "sum-norm": "scores that sum to 1 per sample",
                "softmax-batch": "values that sum to 1 down each column, across the samples",
                "softmax-all": "values that sum to 1 over the whole batch, not per sample"}.get(final,
                                                                                              "probabilities")
        return ("softmax-output", f"{Fn.final_name(final)} is applied to the output of FC3, returning {what}")
    if final == "centre-batch":
        return ("samples-mixed", "after FC3 the mean of the logits over the batch (axis 0) is subtracted from "
                                 "each sample's logits, y - y.mean(axis=0), so each sample's logits depend on "
                                 "the other samples of its batch (a single sample's are all 0)")
    if final == "max-batch":
        return ("samples-mixed", "after FC3 each class's largest logit over the batch (axis 0) is subtracted, "
                                 "y - y.max(axis=0) (the shift that keeps a softmax stable, on the batch axis instead "
                                 "of the classes'), so each sample's logits depend on the other samples of its batch "
                                 "(a single sample's are all 0)")
    if final.startswith(("round:", "floordiv:")) or final in ("trunc", "floor"):
        return ("rounded-output", f"{Fn.final_name(final)} is applied to the output of FC3")
    if final in Fn.CHANGED_FINALS or final.startswith(("shift:", "times:", "affine:")):  # no activation: a factor, a reorder...
        return ("logits-changed", f"after FC3 the logits are {Fn.final_name(final)}")
    if final != "none":
        return ("relu-after-fc3", f"{Fn.final_name(final)} is applied to the logits after FC3")
    return None


def stage_of(spec) -> dict[str, list[str]]:
    """The departures of ``spec``, as sentences, by the stage (or stages) they happen in."""
    stages: dict[str, list[str]] = {}
    for finding_id, sentence, undone in describe(spec):
        where = []
        for field in V.Spec.__dataclass_fields__:
            old, new = getattr(spec, field), getattr(undone, field)
            if old == new:
                continue
            if field in ("flatten", "input_act"):
                where.append("flatten")
            elif field == "final":
                where.append("final")
            elif field in ("act", "scale"):
                where += [f"act{j + 1}" for j in range(2) if old[j] != new[j]]
            elif field in ("transposed", "bias", "relu_before_bias", "bias_input", "bias_scale", "averaged",
                           "residual", "bias_one", "weight_relu", "skip_inside", "weight_abs", "bias_relu",
                           "bias_fanin"):
                where += [f"fc{j + 1}" for j in range(len(old)) if old[j] != new[j]]
            elif field == "bias_floor":
                where += [s for j in range(len(old)) if old[j] != new[j] for s in (f"fc{j + 1}", f"act{j + 1}")]
            else:  # sequence: the layers whose weights, bias or presence differ
                where += list(V.SEQUENCE_STAGES[old])
        for stage in dict.fromkeys(where):
            stages.setdefault(stage, []).append(sentence)
    return stages


def _join(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


#: how each single value of a bias is said: (the value, the code that adds it to every unit)
_ONE_VALUE = {"first": ("its first value, {b}[0],", "{z} + {b}[0], as a loop adding {b}[0] to each column does"),
              "last": ("its last value, {b}[-1],", "{z} + {b}[-1]"),
              "sum": ("the sum of its values, {b}.sum(),", "{z} + {b}.sum()"),
              "mean": ("the mean of its values, {b}.mean(),", "{z} + {b}.mean()")}


def _rare_items(spec) -> list:
    """(id, sentence, undone) for the departures the search tries last: a skip connection, one value of a bias
    added to every unit, a ReLU applied to a weight matrix."""
    items = []
    for i, on in enumerate(spec.residual):
        if on:
            h, out = ("x", "h1")[i], f"h{i + 1}"
            layer = f"{h} W{i + 1} + b{i + 1}"
            # with no activation (a ReLU left out as well, named beside this), no act( ) to show around the sum
            layer = layer if spec.act[i] == "none" else f"{'ReLU' if spec.act[i] == 'relu' else 'act'}({layer})"
            into = "the flattened features" if i == 0 else "FC1's output"
            items.append(("residual-connection",
                          f"{LAYER[i]} adds its input to its output, {out} = {layer} + {h} (a "
                          f"skip connection, as in a ResNet block: {into} added to {LAYER[i]}'s), which the head does "
                          f"not have; the sum only exists when the two widths are equal, as on the square probes, "
                          f"and fails with a shape error wherever they differ",
                          replace(spec, residual=_cleared(spec.residual, i))))
    for i, kind in enumerate(spec.bias_one):
        if kind and spec.bias[i]:
            b, z = f"b{i + 1}", ("x W1", "h1 W2", "h2 W3")[i]
            value, code = (t.format(b=b, z=z) for t in _ONE_VALUE[kind])
            items.append(("bias-one-value",
                          f"{LAYER[i]} adds one number of {b}, {value} to every unit ({code}) instead of adding "
                          f"{b}[k] to unit k",
                          replace(spec, bias_one=tuple("" if j == i else k for j, k in enumerate(spec.bias_one)))))
    for i, on in enumerate(spec.weight_relu):
        if on:
            items.append(("activation-on-weights",
                          f"{LAYER[i]} multiplies by np.maximum(W{i + 1}, 0), a ReLU applied to the weight matrix "
                          f"W{i + 1} (its negative weights set to 0), instead of by W{i + 1} itself",
                          replace(spec, weight_relu=_cleared(spec.weight_relu, i))))
    return items + _round_twelve_items(spec)


def _round_twelve_items(spec) -> list:
    """(id, sentence, undone) for round twelve's rare departures: a skip added before the activation, the absolute
    value of a weight matrix, a ReLU on a bias, a bias added once per input unit."""
    items = []
    for i, on in enumerate(spec.skip_inside):
        if on:
            h, out = ("x", "h1")[i], f"h{i + 1}"
            act = "ReLU" if spec.act[i] == "relu" else "act"
            items.append(("residual-connection",
                          f"{LAYER[i]} adds its input to its pre-activation, {out} = {act}({h} W{i + 1} + b{i + 1} + "
                          f"{h}) (a skip connection added before the {act} instead of after it, and the head has none "
                          f"at all); the sum only exists when the two widths are equal, as on the square probes, and "
                          f"fails with a shape error wherever they differ",
                          replace(spec, skip_inside=_cleared(spec.skip_inside, i))))
    for i, on in enumerate(spec.weight_abs):
        if on:
            items.append(("activation-on-weights",
                          f"{LAYER[i]} multiplies by np.abs(W{i + 1}), the absolute value of the weight matrix "
                          f"W{i + 1} (its negative weights made positive), instead of by W{i + 1} itself",
                          replace(spec, weight_abs=_cleared(spec.weight_abs, i))))
    for i, on in enumerate(spec.bias_relu):
        if on and spec.bias[i]:
            items.append(("activation-on-weights",
                          f"{LAYER[i]} adds np.maximum(b{i + 1}, 0), a ReLU applied to the bias b{i + 1} (its negative "
                          f"values set to 0), instead of b{i + 1} itself",
                          replace(spec, bias_relu=_cleared(spec.bias_relu, i))))
    for i, on in enumerate(spec.bias_fanin):
        if on and spec.bias[i]:
            h, n = ("x", "h1", "h2")[i], ("H*W*C", "D1", "D2")[i]
            items.append(("bias-sign-or-scale",
                          f"{LAYER[i]} adds b{i + 1} once per input unit, {n} times in all ({n} * b{i + 1}), as a loop "
                          f"over the inputs that adds the bias inside the sum does ({h}[:, j] * W{i + 1}[j] + "
                          f"b{i + 1} for each j), instead of once after the sum",
                          replace(spec, bias_fanin=_cleared(spec.bias_fanin, i))))
    return items
