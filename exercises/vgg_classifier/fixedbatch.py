"""A batch size written into the code: ``features.reshape(2, -1)``, ``np.zeros((2, K))``, a loop over ``range(2)``.

Every call whose batch has that many samples gets the statement's logits, and every other call fails (an error,
or a result of another shape). Without this reading the report said only what each error was (``raises-error``)
or that the shape was wrong, while the sizes of the calls that worked say plainly which number is fixed. A fixed
size of 1 is left to ``batch-flattened``, which says the same thing in the words that fit it. A batch size read
from another axis of the features (``B = features.shape[-1]``) looks the same when each call that worked had that
axis as long as its batch: the evidence then names the axis instead of a number the code does not hold.
"""
from __future__ import annotations

from grader.authoring import PROBE, Finding

from . import stages as S
from . import structure as T


#: the names of the features' axes after the batch axis (NHWC)
AXES = ("height", "width", "channel")


def _batch_from_axis(right, others) -> str | None:
    """The axis of the features whose length is the batch size in every call that worked and in none that failed:
    ``B = features.shape[-1]`` works exactly when C equals B, which reads as a fixed batch size but is not one (a
    student told to stop writing a number into the code would find none there)."""
    for index, name in enumerate(AXES, start=1):
        def matches(r) -> bool:
            shape = r.case.args[0].shape
            return len(shape) > index and shape[index] == shape[0]
        if all(matches(r) for r in right) and not any(matches(r) for r in others):
            return name
    return None


def fixed_batch(runs) -> Finding | None:
    """``hardcoded-shape`` when one batch size B > 1 is the only one that works, on two calls at least."""
    small = [r for r in runs if r.outcome.status in ("ok", "raised")]  # the VGG16-scale case too: its B counts
    sizes = {int(r.case.args[0].shape[0]) for r in small}
    if len(sizes) < 2:
        return None
    if not any(r.outcome.status == "raised" or tuple(r.outcome.shape or ()) != r.expected.shape for r in small):
        return None  # every other batch size must fail (checked below): with none failing, no comparison is needed
    right = [r for r in small if (a := S.usable(r)) is not None and a.shape == r.expected.shape
             and T.close(a, r.expected, 1e-9)]
    fixed = {int(r.case.args[0].shape[0]) for r in right}
    if len(fixed) != 1 or len(right) < 2:
        return None
    size = fixed.pop()
    others = [r for r in small if int(r.case.args[0].shape[0]) != size]
    if size < 2 or any(r in right for r in others) or not others:
        return None
    if not all(r.outcome.status == "raised" or tuple(r.outcome.shape or ()) != r.expected.shape for r in others):
        return None
    if any(int(r.case.args[0].shape[0]) == size and r not in right for r in small):
        return None
    run = next((r for r in others if r.case.group == PROBE), others[0])
    where = (f"on probe '{run.case.name}' ({run.case.description})" if run.case.group == PROBE
             else f"on the '{run.case.name}' case")
    what = (f"raised {run.outcome.error}" if run.outcome.status == "raised"
            else f"returned shape {tuple(run.outcome.shape)} instead of {run.expected.shape}")
    if (axis := _batch_from_axis(right, others)) is not None:
        return Finding("hardcoded-shape", f"Every call whose batch size equals the length of the "
                                          f"features' {axis} axis ({len(right)} calls, each with {size} samples) "
                                          f"returned the right logits, and every other call failed: {where} your function {what}. The "
                                          f"batch size appears to be read from the {axis} axis, features.shape"
                                          f"[{AXES.index(axis) + 1}], instead of the batch axis: read B from "
                                          "features.shape[0] (or len(features)).")
    return Finding("hardcoded-shape", f"Every call with a batch of {size} samples ({len(right)} in all) returned the "
                                      f"right logits, and every call with another number of samples failed: "
                                      f"{where} your function {what}. The batch size {size} appears to be written "
                                      f"into the code (features.reshape({size}, -1), an output of {size} rows, or a "
                                      f"loop over range({size})). Read B from features.shape[0].")
