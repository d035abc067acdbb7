"""Round nineteen: two of round eighteen's partial readings, graded through the grader's sandbox in one batch.

- A product summed over the samples as well as the inputs, ``np.einsum('bi,ij->j', h2, W3)`` (one row for the whole
  batch): a bare ``wrong-shape`` before; now ``wrong-sum-axis`` with the reduction named (``wrongaxis.FORMS``).
- A hidden layer divided by half its width in whole numbers (``h1 / (W1.shape[1] // 2)``): a ``wrong-stage`` that
  only showed the ramp; now the same finding names the division (``hidden._rescaled``), whose factor changes with
  each call's sizes, so no variant of fixed scale reproduces it. (Divided by the whole width, FC2's activations are
  already read as FC3's product averaged, ``mean-not-sum``, which is the same computation.)

Still partial, and asserted as round eighteen has them (its test must pass unchanged): ``(x @ W1) // 1 + b1``, a
class cut beside a missing b3, channel means beside a missing b1.
"""
from __future__ import annotations

import exercise_helpers as helpers

body = helpers.vgg_head

SOURCES = {
    "einsum-bi-ij-j": body(z3="np.einsum('bi,ij->j', h2, W3) + b3"),
    "sum-axis-0-1": body(z3="(h2[:, :, None] * W3).sum(axis=(0, 1)) + b3"),
    "fc1-over-half-width": body(a1="np.maximum(z1, 0) / (W1.shape[1] // 2)"),
    "fc2-over-half-width": body(a2="np.maximum(z2, 0) / (z2.shape[1] // 2)"),
}
EXPECTED = {
    "einsum-bi-ij-j": {"wrong-sum-axis"},
    "sum-axis-0-1": {"wrong-sum-axis"},
    "fc1-over-half-width": {"wrong-stage"},
    "fc2-over-half-width": {"wrong-stage"},
}
WORDS = {
    "einsum-bi-ij-j": ("wrong-sum-axis", "np.einsum('bi,ij->j', h, W)"),
    "sum-axis-0-1": ("wrong-sum-axis", "as well as over the layer's inputs"),
    "fc1-over-half-width": ("wrong-stage", "divided by half the layer's width (h1 / (h1.shape[1] // 2)"),
    "fc2-over-half-width": ("wrong-stage", "In FC2 the values after the ReLU (h2) are divided by half"),
}
RIGHT = {
    "ok-einsum-bj": body(z3="np.einsum('bi,ij->bj', h2, W3) + b3"),
    "ok-width-undone": body(a1="np.maximum(z1, 0) / (W1.shape[1] // 2) * (W1.shape[1] // 2)"),
}


def test_round_nineteen_mistakes_are_named_and_never_get_full_marks(tmp_path, session):
    helpers.assert_round(tmp_path, session, SOURCES, RIGHT, EXPECTED, WORDS)
