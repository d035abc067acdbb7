"""A batch size written into the code: ``features.reshape(2, -1)``, ``np.zeros((2, K))``, a loop over ``range(2)``.

Every call whose batch has that many samples gets the statement's logits, and every other call fails (an error,
or a result of another shape). Without this reading the report said only what each error was (``raises-error``)
or that the shape was wrong, while the sizes of the calls that worked say plainly which number is fixed. A fixed
size of 1 is left to ``batch-flattened``, which says the same thing in the words that fit it.
"""
from __future__ import annotations

from grader.authoring import PROBE, Finding

from . import stages as S
from . import structure as T


def fixed_batch(runs) -> Finding | None:
    """``hardcoded-shape`` when one batch size B > 1 is the only one that works, on two calls at least."""
    small = [r for r in runs if r.outcome.status in ("ok", "raised")]  # the VGG16-scale case too: its B counts
    sizes = {int(r.case.args[0].shape[0]) for r in small}
    if len(sizes) < 2:
        return None
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
    return Finding("hardcoded-shape", f"Every call with a batch of {size} samples ({len(right)} in all) returned the "
                                      f"right logits, and every call with another number of samples failed: "
                                      f"{where} your function {what}. The batch size {size} appears to be written "
                                      f"into the code (features.reshape({size}, -1), an output of {size} rows, or a "
                                      f"loop over range({size})). Read B from features.shape[0].")
