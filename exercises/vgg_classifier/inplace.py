"""A weight matrix changed in place before it is used (``W1 /= np.linalg.norm(W1, axis=0)``), read from the values.

The harness names ``mutates-input`` from the bytes of the arguments after the call, but not what the change was,
and the wrong values beside it got only a generic ``wrong-stage`` ("no catalogued mistake reproduces them"). When
the change is made before the head uses the matrix, the logits are the statement's for the changed matrix: each
usual normalisation of the argument the harness found changed is tried on every graded case and probe (as
``hidden.py`` tries its changes), and one that gives them all says that the change made in place is also what
makes the values wrong. Only the weights the harness saw changed are tried, so every other submission costs
nothing here.
"""
from __future__ import annotations

import numpy as np

from grader.authoring import Finding

from . import hidden as X

#: (what was done, with {w} for the matrix's name; the change)
NORMALISATIONS = (
    ("each column divided by its Euclidean norm ({w} /= np.linalg.norm({w}, axis=0))",
     lambda w: w / np.linalg.norm(w, axis=0)),
    ("each row divided by its Euclidean norm ({w} /= np.linalg.norm({w}, axis=1, keepdims=True))",
     lambda w: w / np.linalg.norm(w, axis=1, keepdims=True)),
    ("divided by its norm ({w} /= np.linalg.norm({w}))", lambda w: w / np.linalg.norm(w)),
    ("divided by its largest absolute value ({w} /= np.abs({w}).max())", lambda w: w / np.abs(w).max()),
    ("standardised ({w} -= {w}.mean(); {w} /= {w}.std())", lambda w: (w - w.mean()) / w.std()),
)
WEIGHTS = ("w1", "w2", "w3")


def changed_in_place(graded, probes) -> list:
    """The logits of the statement for a weight matrix the call changed, normalised one of the usual ways."""
    changed = {n.lower() for r in graded for n in r.outcome.mutated} & set(WEIGHTS)
    runs = X._usable_runs(graded, probes) if changed else None
    if runs is None:
        return []
    for name in sorted(changed):
        for what, change in NORMALISATIONS:
            weights = tuple(change if w == name else None for w in WEIGHTS)
            if X._fits(runs, lambda args, t=weights: X._head(args, X._relu, -1, t)):
                shown = what.format(w=name.upper())
                return [Finding("wrong-stage", f"The logits are the statement's for {name.upper()} as your function "
                                               f"changed it in place before using it, {shown}: the change that "
                                               f"leaves the caller's {name.upper()} modified is also what makes the "
                                               f"values wrong. The head must use the weights as they are passed in."
                                               + X._shown(runs, lambda a: a))]
    return []
