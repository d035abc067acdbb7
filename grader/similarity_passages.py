"""Which of the runs found in many submissions are one body of code a group shares, not the class's idioms.

A run found in more than the common share of the class is left out as a common passage (MOSS's ``-m``): the lines
every honest student writes alike (``return x @ weight.T + bias``). That rule alone has a blind spot: a solution
passed around a class is found in many submissions too, so the more students copied it, the less of it counted, and
a class where most students handed in one leaked solution had nothing flagged at all.

The two differ in who holds them. An idiom is held by whoever happened to write it, a different set of students
for each idiom; a copied solution is held by the same set of students from its first line to its last. So the
common runs are grouped by the exact set of submissions that hold them, and a set whose runs cover at least
``long_passage`` tokens of its submissions (about 16 lines: more than an honest match of short solutions, less than
one leaked assignment) is kept as evidence. A set holding nearly the whole class (more than ``given`` of it) is code
the class was given, where no pair is more alike than any other, and stays common.
"""
from __future__ import annotations

import numpy as np

#: a fixed 64-bit key per submission (splitmix64 of its index), summed into a key per set of submissions
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _keys(count: int) -> np.ndarray:
    with np.errstate(over="ignore"):
        z = (np.arange(1, count + 1, dtype=np.uint64) * _GOLDEN)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def sorted_unique(values: np.ndarray) -> np.ndarray:
    """``np.unique`` of a 1-D array (sorted, each value once), without importing ``numpy.ma``: ``np.unique`` and
    ``np.isin`` load it on first use (about 30 ms, on a thread that shares the grader's lock with the grading)."""
    ordered = np.sort(values)
    keep = np.ones(len(ordered), bool)
    keep[1:] = ordered[1:] != ordered[:-1]
    return ordered[keep]


def member(values: np.ndarray, sorted_set: np.ndarray) -> np.ndarray:
    """``np.isin`` for a sorted ``sorted_set``, without its overhead on small arrays."""
    if len(sorted_set) == 0:
        return np.zeros(len(values), bool)
    index = np.minimum(np.searchsorted(sorted_set, values), len(sorted_set) - 1)
    return sorted_set[index] == values


def shared_bodies(hashes: np.ndarray, owners: np.ndarray, common: np.ndarray, runs: list[np.ndarray], k: int,
                  long_passage: int, given: int) -> np.ndarray:
    """The sorted common run hashes that belong to a body of code one set of submissions shares.

    ``hashes`` and ``owners``: each run once per submission holding it, sorted by hash; ``common``: the sorted
    hashes found in too many submissions; ``runs``: every submission's run hashes in order; ``given``: a set of
    more submissions than this is code the class was given."""
    if len(common) == 0 or long_passage <= 0:
        return common[:0]
    held = member(hashes, common)
    hashes, owners = hashes[held], owners[held]
    starts = np.flatnonzero(np.r_[True, hashes[1:] != hashes[:-1]])
    with np.errstate(over="ignore"):
        sets = np.add.reduceat(_keys(len(runs))[owners], starts, dtype=np.uint64)
    sizes = np.diff(np.r_[starts, len(hashes)])
    values, firsts = hashes[starts], owners[starts]
    kept = []
    order = np.argsort(sets, kind="stable")
    bounds = np.flatnonzero(np.r_[True, sets[order][1:] != sets[order][:-1], True])
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        members = order[lo:hi]
        if sizes[members[0]] > given or (hi - lo) * k < long_passage:
            continue  # held by nearly everyone (given code), or too few runs to cover a long passage
        doc = runs[firsts[members[0]]]
        mine = np.flatnonzero(member(doc, sorted_unique(values[members])))
        ends = np.minimum(mine + k, len(doc) + k - 1)
        covered = 0 if len(mine) == 0 else int(np.sum(np.minimum(np.r_[mine[1:], ends[-1]], ends) - mine))
        if covered >= long_passage:
            kept.append(values[members])
    return np.sort(np.concatenate(kept)) if kept else common[:0]
