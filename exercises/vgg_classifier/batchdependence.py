"""A sample's logits that depend on its batch: right for a single sample and wrong in a batch, or the other way
round, or a first row that is lost. When one variant of the head's model gives the rows that are wrong (every row
after the first, or every B = 1 call), its mistakes are named; otherwise the samples are said to be mixed.
"""
from __future__ import annotations

import numpy as np

from grader.authoring import PROBE, Finding

from . import ranges as R
from . import search as Q
from . import stages as S
from . import variants as V
from . import verdicts as L
from .detectors import _right


def batch_dependent(work, graded, probes) -> list:
    """Every call with a single sample is right, but batches are not: what a sample gets depends on the rest of its
    batch. When one variant of the head gives every row after the first (say, a ReLU applied only to the first
    sample), that variant's mistakes are named; otherwise the samples are mixed."""
    small = [r for r in graded + probes if r.case.group != "full-scale"]
    single = [r for r in small if r.expected.shape[0] == 1]
    batched = [r for r in small if r.expected.shape[0] > 1]
    if len(single) < 2 or not batched or any(S.usable(r) is None for r in small):
        return []
    if not all(_right(r) for r in single):
        return []
    wrong = [r for r in batched if not _right(r)]
    if not any(r.case.group == PROBE for r in wrong):  # the probes' batches (B = 3, distinct samples) show mixing;
        return []  # a graded batch wrong alone is wrong for another reason, such as its large values
    spec, data = work.later_rows() if all(_right(r, slice(0, 1)) for r in batched) else (None, None)
    if spec is not None and all(_later_reproduced(spec, r, work.loose) for r in graded if r.expected.shape[0] > 1):
        stack, square, actual, later = data
        findings = []
        for finding_id, sentence, undone in Q.describe(spec):
            text = (f"Every call with a single sample, and the first sample of every batch, gets the right logits; "
                    f"for the other samples of a batch {sentence}.")
            text += Q.example(stack, spec, undone, square, actual, later, work.loose)
            findings.append(Finding(finding_id, text))
        return findings
    if not R.within_reach(single, wrong):  # every wrong row has values no single sample reached: a limit explains it
        return R.beyond_singles(single, wrong)
    run = next((r for r in wrong if r.case.group == PROBE), None)
    where = ""
    if run is not None:
        _, sentence = L.probe_matches(run)
        where = f": {sentence}"
    return [Finding("samples-mixed", f"Every call with a single sample (B = 1), {len(single)} in all, returned the "
                                     f"right logits, but {len(wrong)} of the {len(batched)} calls with several "
                                     f"samples did not{where}. So the logits of a sample depend on the rest of its "
                                     f"batch: on the other samples, on how many there are, or on its place among "
                                     f"them.")]


def first_row_zeroed(work, graded, probes) -> list:
    """The first row of every output is 0 (``y[0] = 0``, a preallocated row never filled) and the other rows are
    wrong too: when one variant gives every row after the first on the probes and the graded batches, its mistakes
    are named beside the lost row (``samplerows.row_findings`` names a lost row only when the others are right)."""
    small = [r for r in graded + probes if r.case.group != "full-scale"]
    arrays = [S.usable(r) for r in small]
    if not small or any(a is None or not len(a) for a in arrays) or any(np.any(a[0] != 0) for a in arrays):
        return []
    if all(not np.any(r.expected[0]) for r in small):
        return []
    spec, data = work.later_rows()
    if spec is None or not all(_later_reproduced(spec, r, work.loose) for r in graded if r.expected.shape[0] > 1):
        return []
    stack, square, actual, later = data
    findings = [Finding("samples-dropped", "The first row of every output is all zeros, in every batch and for a "
                                           "single sample: the first sample gets no logits of its own (a row set to "
                                           "0, or a preallocated row never filled).")]
    for finding_id, sentence, undone in Q.describe(spec):
        text = f"In the rows after the first, {sentence}."
        findings.append(Finding(finding_id, text + Q.example(stack, spec, undone, square, actual, later, work.loose)))
    return findings


def _later_reproduced(spec, run, rtol: float) -> bool:
    """The variant gives a graded case's rows after the first (the first is the statement's)."""
    arr = S.usable(run)
    if arr is None:
        return True
    try:
        with np.errstate(all="ignore"):
            model = Q.case_output(run.case, spec)
    except (ValueError, KeyError):
        return False
    return model.shape == arr.shape and bool(Q.close(arr[None, 1:], model[None, 1:], rtol).all())


def single_dependent(work, graded, probes) -> list:
    """Every call with several samples is right, but some with a single sample are not: the code does something
    else when B = 1 (a branch on the batch size, say a transpose only then). The search is run again on the B = 1
    probes alone; its variant must give every graded B = 1 case. Otherwise the samples' logits are said to depend
    on how many there are, which is what the checks saw."""
    small = [r for r in graded + probes if r.case.group != "full-scale"]
    single = [r for r in small if r.expected.shape[0] == 1]
    batched = [r for r in small if r.expected.shape[0] > 1]
    if not single or len(batched) < 2 or any(S.usable(r) is None for r in batched) or not all(map(_right, batched)):
        return []
    wrong = [r for r in single if S.usable(r) is not None and not _right(r)]
    if not wrong or not any(r.case.group != PROBE for r in wrong):
        return []
    found = getattr(work, "_search", None)
    if found is not None:
        stack, square, actual, mask, starts, extra_acts, finals, exact = found
        alone = mask & np.array([r.expected.shape[0] == 1 for r in square])[:, None, None]
        spec, complete = Q.search(stack, actual, alone, starts, extra_acts, finals, work.loose, exact)
        if complete and spec != V.REFERENCE and all(S.usable(r) is None or Q.reproduces(spec, r, S.usable(r), work.loose)
                                                    for r in graded if r.expected.shape[0] == 1):
            findings = []
            for finding_id, sentence, undone in Q.describe(spec):
                text = (f"Every call with several samples, {len(batched)} in all, gets the right logits, but with "
                        f"a single sample (B = 1) {sentence}: the code takes another path when the batch holds one "
                        f"sample.")
                text += Q.example(stack, spec, undone, square, actual, alone, work.loose)
                findings.append(Finding(finding_id, text))
            return findings
    run = next((r for r in wrong if r.case.group == PROBE), None)
    where = f": {L.probe_matches(run)[1]}" if run is not None else ""
    return [Finding("samples-mixed", f"Every call with several samples, {len(batched)} in all, returned the right "
                                     f"logits, but {len(wrong)} of the {len(single)} calls with a single sample (B = 1) "
                                     f"did not{where}. So what a sample gets depends on how many samples its batch "
                                     f"holds: the code takes another path when B = 1.")]
