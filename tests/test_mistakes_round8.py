"""Fairness of the VGG diagnosis, eighth round: a wrong id for a change of the logits, and pairs of a bias slip and
dropout where one of the two was left out. Each test says what the report said before. Diagnosed in process, on the
hidden cases of one student and the probes, after superseding, as a report lists them.
"""
from __future__ import annotations

import numpy as np
import pytest

import exercise_helpers as helpers
from grader import exercise as exercise_mod

EX = exercise_mod.load("vgg_classifier")


_findings = helpers.vgg_findings


def _relu(z):
    return np.maximum(z, 0.0)


def _head(f, W1, b1, W2, b2, W3, b3, out=lambda y: y, biases=(1.0, 1.0, 1.0), h1_factor=1.0):
    x = f.reshape(len(f), -1)
    h1 = _relu(x @ W1 + biases[0] * b1) * h1_factor
    return out(_relu(h1 @ W2 + biases[1] * b2) @ W3 + biases[2] * b3)


# -- a factor or a shift of the logits is no activation ---------------------------------------------------------------
AFFINE = {
    "times-1.5": (lambda y: 1.5 * y, "multiplied by 1.5 (1.5 * y)"),
    "times-10": (lambda y: 10 * y, "multiplied by 10 (10 * y)"),
    "halved": (lambda y: 0.5 * y, "divided by 2"),
    "negated": (lambda y: -y, "negated"),
    "plus-one": (lambda y: y + 1, "increased by 1"),
    "double-plus-one": (lambda y: 2 * y + 1, "multiplied by 2 and shifted by 1 (2 * y + 1)"),  # was wrong-stage
    "three-minus": (lambda y: 3 - y, "multiplied by -1 and shifted by 3 (-1 * y + 3)"),  # was wrong-stage
    "centred-halved": (lambda y: (y - 1) / 2, "multiplied by 0.5 and shifted by -0.5 (0.5 * y - 0.5)"),
}


@pytest.mark.parametrize("name", sorted(AFFINE))
def test_a_factor_or_shift_of_the_logits_is_logits_changed_not_an_activation(name):
    """Before: relu-after-fc3 for 'return 1.5 * z3' (an id that tells the student a ReLU was applied), and a bare
    wrong-stage when a factor and a shift came together."""
    change, words = AFFINE[name]
    fn = lambda *p: _head(*p, out=change)  # noqa: E731
    assert helpers.vgg_loses_points(fn)
    found = _findings(fn)
    assert [f.id for f in found] == ["logits-changed"], found
    assert words in found[0].evidence, found
    assert EX.catalog["logits-changed"].title == "The logits are scaled, shifted or reordered after FC3"


def test_an_activation_on_the_logits_keeps_its_id():
    found = _findings(lambda *p: _head(*p, out=np.tanh))
    assert [f.id for f in found] == ["relu-after-fc3"], found


# -- a bias slip beside dropout: both are named ------------------------------------------------------------------------
SLIP_AND_DROPOUT = {  # (biases, h1 factor, the bias named); each got one of the two, or a bare wrong-stage
    "b3-subtracted-h1-halved": ((1.0, 1.0, -1.0), 0.5, "b3 subtracted"),  # bias-sign-or-scale alone
    "b2-subtracted-h1-doubled": ((1.0, -1.0, 1.0), 2.0, "b2 subtracted"),  # bias-sign-or-scale alone
    "b1-subtracted-h1-halved": ((-1.0, 1.0, 1.0), 0.5, "b1 subtracted"),  # wrong-stage
    "b1-halved-h1-halved": ((0.5, 1.0, 1.0), 0.5, "b1 halved"),  # wrong-stage
}


@pytest.mark.parametrize("name", sorted(SLIP_AND_DROPOUT))
def test_a_bias_slip_beside_dropout_on_h1_names_both(name):
    """bias-sign-or-scale superseded inference-dropout in the catalog, and the search never tried a bias factor on
    a scaled layer (only h1 * 2 with b1 / 2, which is the features doubled, is one change)."""
    biases, factor, words = SLIP_AND_DROPOUT[name]
    found = _findings(lambda *p: _head(*p, biases=biases, h1_factor=factor))
    assert {f.id for f in found} == {"bias-sign-or-scale", "inference-dropout"}, found
    assert words in next(f.evidence for f in found if f.id == "bias-sign-or-scale"), found
    assert f"multiplied by {factor:g}" in next(f.evidence for f in found if f.id == "inference-dropout"), found


def test_h1_doubled_with_b1_halved_is_still_the_features_doubled():
    """The one exact equivalent the search still skips: relu(x W1 + b1 / 2) * 2 is relu(2 x W1 + b1)."""
    found = _findings(lambda *p: _head(*p, biases=(0.5, 1.0, 1.0), h1_factor=2.0))
    assert [f.id for f in found] == ["features-changed"], found
