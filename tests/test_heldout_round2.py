"""What a second blind held-out class (helper-71's, in /tmp/helper-71/class: 35 executed notebooks, 33 .py files
with mistakes, 15 correct solutions in unusual styles) showed the reports getting wrong; each test failed before
its fix.

- Dropout left on: the evidence counted over the whole 12-value ramp ("1 of the 6 positive values come out
  multiplied by 2") but listed only six of its values, all of them 0, so the sentence contradicted the numbers it
  showed. It now lists every value it counts over.
"""
from __future__ import annotations

import re

import numpy as np

import exercise_helpers as helpers
from grader.exercise import load

EX = load("vgg_classifier")
D = EX.diagnosis_module
CASES = EX.hidden_cases(11) + D.probe_cases()
EXPECTED = [EX.expected(c) for c in CASES]


def _relu(z):
    return np.maximum(z, 0.0)


def _dropout_keeping_unit_8(f, W1, b1, W2, b2, W3, b3):
    """Inverted dropout with a mask that, on a 12-wide layer, keeps only unit 8: on the ramp probes that unit holds
    the value 1, which is not among the handful of values a ramp sentence usually shows."""
    def drop(z):
        keep = (np.arange(z.shape[1]) % 12) == 8
        return _relu(z) * keep * 2.0
    x = f.reshape(f.shape[0], -1)
    h = drop(x @ W1 + b1)
    h = drop(h @ W2 + b2)
    return h @ W3 + b3


def _numbers(text: str) -> list[float]:
    return [float(t) for t in re.findall(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", text)]


def test_dropout_evidence_shows_every_value_it_counts():
    findings = D.diagnose(helpers.case_runs(EX, _dropout_keeping_unit_8, CASES, EXPECTED), EX)
    text = " ".join(f.evidence for f in findings if f.id == "inference-dropout")
    assert text, [(f.id, f.evidence) for f in findings]
    assert "1 of the 6 positive values comes out multiplied by 2" in text, text
    # the value that was kept (1, doubled to 2) is among those listed, so the count can be checked by the reader
    sentence = text.split(":")[0]
    turned = sentence.split(" into ")[1].split(";")[0]
    assert _numbers(turned).count(2.0) == 1, sentence
    assert len(_numbers(turned)) == 12, sentence
