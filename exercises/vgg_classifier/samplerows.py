"""What happened to the samples of a batch, read from the rows a call returned: rows missing, repeated, moved to
another sample's place, or mixed from several samples (``row_findings``), and what the flatten did to each value of
probe 'flatten-order' (``flatten_reading``).

The exceptions are read in ``structure.py``; these read values that came back, never an error.
"""
from __future__ import annotations

import numpy as np

from grader.authoring import PROBE, Finding

from .structure import close


def row_pattern(run) -> tuple | None:
    """How the returned rows relate to the samples of a batch: ("first", m) when only the first m samples have a
    row, ("repeat", B) when every row is sample 1's, ("missing", rows) when those rows are wrong and the others
    right; None when the rows are right or unrelated."""
    out, expected = run.outcome, run.expected
    B, K = expected.shape
    arr = out.array
    if out.status != "ok" or arr is None or arr.dtype.kind not in "biuf" or B < 2 or arr.size % K or arr.size == 0:
        return None
    if arr.shape[-1] != K or arr.ndim > 2:
        return None
    rows = arr.reshape(-1, K).astype(np.float64)
    m = rows.shape[0]
    if m < B:
        if all(close(rows[i], expected[i]) for i in range(m)):
            return ("first", m)
        match = [next((j for j in range(B) if close(rows[i], expected[j])), None) for i in range(m)]
        if None not in match and len(set(match)) == m:
            return ("subset", tuple(match))
        return None
    if m != B or close(rows, expected):
        return None
    if all(close(rows[i], expected[0]) for i in range(B)) and not close(expected, expected[:1].repeat(B, 0)):
        return ("repeat", B)
    moved = [next((j for j in range(B) if close(rows[i], expected[j])), None) for i in range(B)]
    if None not in moved and not _alike(expected):  # every row is some sample's logits, not every one its own
        return ("moved", tuple(moved))
    if not _alike(expected) and any(j is not None and j != i for i, j in enumerate(moved)) \
            and all(j is not None or not np.any(rows[i]) for i, j in enumerate(moved)):
        # a loop that writes every sample into one row (out[0] = ...): that row holds another sample's logits and
        # the rows it never wrote keep the zeros they were made with; None stands for such a row
        return ("moved", tuple(moved))
    good = [i for i in range(B) if close(rows[i], expected[i])]
    bad = tuple(i for i in range(B) if i not in good)
    return ("missing", bad) if good else None


def _alike(expected: np.ndarray) -> bool:
    """Two samples of the batch with the same logits: then a row cannot tell which sample it came from."""
    return any(close(expected[i], expected[j]) for i in range(len(expected)) for j in range(i))


def row_findings(runs) -> list:
    batched = [r for r in runs if r.expected.ndim == 2 and r.expected.shape[0] > 1 and r.outcome.status == "ok"
               and r.outcome.array is not None]
    if not batched:
        return []
    patterns = [(r, row_pattern(r)) for r in batched]
    kinds = {p[0] if p is not None else None for _, p in patterns}
    if kinds == {"repeat", "moved"}:  # sample 1's logits in every row of a pair, in the wrong rows of larger batches
        patterns = [(r, ("moved", (0,) * r.expected.shape[0]) if p[0] == "repeat" else p) for r, p in patterns]
        kinds = {"moved"}
    if None in kinds or not (len(kinds) == 1 or kinds == {"first", "subset"}):
        return []
    probes = [(r, p) for r, p in patterns if r.case.group == PROBE]
    if not probes:
        return []
    run, (kind, what) = min(probes, key=lambda rp: rp[0].case.name != "flatten-order")
    B = run.expected.shape[0]
    head = f"On probe '{run.case.name}' ({run.case.description}) your function returned "
    if kind == "first":
        text = head + (f"one row for {B} samples, the logits of sample 1 alone" if what == 1 else
                       f"{what} rows for {B} samples, the logits of samples 1 to {what}; the "
                       f"{'last sample has' if B - what == 1 else f'last {B - what} samples have'} none")
    elif kind == "subset":
        rows = ", ".join(str(j + 1) for j in what)
        missing = ", ".join(str(j + 1) for j in range(B) if j not in what)
        text = head + (f"{len(what)} row{'s' if len(what) > 1 else ''} for {B} samples, the logits of sample"
                       f"{'s' if len(what) > 1 else ''} {rows}; sample{'s' if B - len(what) > 1 else ''} {missing} "
                       f"{'have' if B - len(what) > 1 else 'has'} none")
    elif kind == "repeat":
        text = head + f"{B} rows that all hold the logits of sample 1"
    elif kind == "moved" and None in what:
        held = [f"row {i + 1} holds sample {j + 1}'s logits" for i, j in enumerate(what) if j is not None and i != j]
        empty = [str(i + 1) for i, j in enumerate(what) if j is None]
        text = head + (f"{B} rows in which {', '.join(held)} and row{'s' if len(empty) > 1 else ''} "
                       f"{', '.join(empty)} {'hold' if len(empty) > 1 else 'holds'} only zeros, as when a loop writes "
                       f"every sample into the same row (out[0] = ... instead of out[i] = ...) and never fills the "
                       f"others")
        return [Finding("samples-dropped", text + f". Every case with several samples ({len(patterns)}) shows the "
                                                  f"same.")]
    elif kind == "moved":
        held = [f"row {i + 1} holds sample {j + 1}'s" for i, j in enumerate(what) if i != j]
        text = head + (f"{B} rows, each the logits of one of the samples but not every one in its own row: "
                       f"{', '.join(held)}")
    else:
        rows = ", ".join(str(i + 1) for i in what)
        zero = all(np.all(run.outcome.array.reshape(B, -1)[i] == 0) for i in what)
        mixed = _mixed_rows(run, what) if run.case.name == "flatten-order" and not zero else None
        if mixed:
            return [Finding("samples-mixed", f"On probe '{run.case.name}' ({run.case.description}, so each sample's "
                                             f"logits are its own flattened features) your function returned the "
                                             f"right logits for every sample except row{'s' if len(what) > 1 else ''}"
                                             f" {rows}, and {mixed}: the logits of a sample depend on other samples "
                                             f"of the batch, as when a value is carried over from one sample to the "
                                             f"next. On every case with several samples ({len(patterns)}) some rows "
                                             f"are right and the others wrong.")]
        text = head + (f"the right logits for every sample except row{'s' if len(what) > 1 else ''} {rows}, which "
                       f"{'hold only zeros' if zero else 'hold other values'}")
    if kind == "moved":
        return [Finding("samples-dropped", text + f". In every case with several samples ({len(patterns)}) each row "
                                                  f"holds the logits of a sample, and some not of its own.")]
    return [Finding("samples-dropped", text + f". Every case with several samples ({len(patterns)}) shows the same.")]


def _mixed_rows(run, wrong) -> str:
    """On a probe whose logits are the samples' flattened features (identity layers, all positive), each wrong row
    as the sum or the mean of its own sample's row and other samples' rows, as a phrase ("row 2 is the sum of the
    rows of samples 1 and 2"), or "" when a wrong row is not one."""
    from itertools import combinations
    arr = run.outcome.array.reshape(run.expected.shape).astype(np.float64)
    expected = run.expected
    B = expected.shape[0]
    parts = []
    for i in wrong:
        found = ""
        for size in range(2, B + 1):
            for group in combinations(range(B), size):
                if i not in group:
                    continue
                for how, value in (("sum", expected[list(group)].sum(0)), ("mean", expected[list(group)].mean(0))):
                    if not found and close(arr[i], value, 1e-9):
                        names = ", ".join(str(j + 1) for j in group[:-1]) + f" and {group[-1] + 1}"
                        found = f"row {i + 1} is the {how} of the rows of samples {names}"
        if not found:
            return ""
        parts.append(found)
    return ", ".join(parts)


_AXES = ("H", "W", "C")
_FLIPS = {("H",): "a vertical flip", ("W",): "a horizontal flip, as data augmentation does",
          ("H", "W"): "a rotation by 180 degrees", ("C",): "the channels in reverse order, as RGB read as BGR"}


def _flip(position: np.ndarray, shape: tuple[int, int, int]) -> str | None:
    """Each sample's features reversed along one or more of H, W and C before a row-major flatten (``positions``:
    where each of x's values comes from in its own sample): a sentence that says along which, or None. A reversal
    is a change of the features, not of the flatten order, which is why the finding names it apart."""
    grid = np.arange(int(np.prod(shape))).reshape(shape)
    for mask in range(1, 7):  # all three reversed is x[:, ::-1], as much W1's rows reversed: a flatten order
        axes = tuple(a for a in range(3) if mask >> a & 1)
        if any(shape[a] < 2 for a in axes):
            continue
        if np.all(position == np.flip(grid, axis=axes).reshape(-1)[None, :]):
            names = tuple(_AXES[a] for a in axes)
            index = ", ".join("::-1" if a in axes else ":" for a in range(3))
            what = _FLIPS.get(names, f"the order of {' and '.join(names)} reversed")
            return (f"the features of each sample reach FC1 reversed along {' and '.join(names)} "
                    f"(features[:, {index}], {what}) and then flattened row-major: on probe 'flatten-order' (every "
                    f"layer the identity) each sample gets all of its own features, from the mirrored positions; "
                    f"every later stage computes what the statement says")
    return None


def flatten_reading(run) -> tuple[str, str] | None:
    """What the flatten did, read from the 'flatten-order' probe (identity layers, every input value distinct and
    k/8): ("as stated" | "departs" | "changed" | "mixes", sentence), or None when the output is not a rearrangement of the
    input values (another stage departs too)."""
    arr = run.outcome.array
    features = run.case.args[0]
    if run.outcome.status != "ok" or arr is None or arr.shape != run.expected.shape:
        return None
    codes = arr.astype(np.float64) * 8.0 - 1.0
    if not np.all(np.abs(codes - np.round(codes)) < 1e-9):
        return None
    index = np.round(codes).astype(np.int64)
    B, width = arr.shape
    if index.min() < 0 or index.max() >= features.size or len(np.unique(index)) != index.size:
        return None
    expected_index = np.arange(features.size).reshape(B, width)
    if np.array_equal(index, expected_index):
        return ("as stated", "")
    sample_of = index // width
    position = index % width
    Hh, Ww, Cc = features.shape[1:]
    if np.all(sample_of == np.arange(B)[:, None]):
        flipped = _flip(position, (Hh, Ww, Cc))
        if flipped is not None:
            return ("changed", flipped)
        j = int(np.flatnonzero(position[0] != np.arange(width))[0])
        h, w, c = np.unravel_index(int(position[0, j]), (Hh, Ww, Cc))
        eh, ew, ec = np.unravel_index(j, (Hh, Ww, Cc))
        return ("departs", f"your flatten puts F[{h}, {w}, {c}] at position {j} of x, where the row-major flatten "
                           f"puts F[{eh}, {ew}, {ec}]")
    row = int(np.flatnonzero([len(set(sample_of[r])) > 1 or sample_of[r][0] != r for r in range(B)])[0])
    samples = sorted({int(s) + 1 for s in sample_of[row]})
    return ("mixes", f"row {row + 1} of your flattened input holds values of sample"
                     f"{'s' if len(samples) > 1 else ''} {', '.join(map(str, samples))}: the samples are mixed")


def extra_rows(runs) -> list:
    """Every call that returned an array returned each sample's right logits, in order, and the same number of rows
    more above them (or below): a result stacked onto a first row it was seeded with (``np.vstack([out, row])`` from
    ``out = np.zeros((1, K))``), or allocated one row too long. The shape alone says only that it is wrong; the right
    rows beside the extra ones say what happened, on the batches and the single samples alike."""
    seen, sides, extras = [], {"top", "bottom"}, set()
    for run in runs:
        out, expected = run.outcome, run.expected
        if out.status != "ok" or out.array is None:
            continue
        arr = out.array
        if arr.dtype.kind not in "biuf" or arr.ndim != 2 or expected.ndim != 2 or arr.shape[1] != expected.shape[1]:
            return []
        B = expected.shape[0]
        extra = arr.shape[0] - B
        if extra <= 0:
            return []
        rows = arr.astype(np.float64)
        sides &= {side for side, part in (("top", rows[extra:]), ("bottom", rows[:B])) if close(part, expected)}
        if not sides:
            return []
        extras.add(extra)
        seen.append(run)
    if len(seen) < 2 or len(extras) != 1 or not any(r.case.group == PROBE for r in seen) \
            or all(r.case.group == PROBE for r in seen):
        return []
    side, extra = ("top" if "top" in sides else "bottom"), extras.pop()
    leftover = [r.outcome.array[:extra] if side == "top" else r.outcome.array[-extra:] for r in seen]
    what = ("only zeros" if all(not np.any(part) for part in leftover) else
            "values that are no sample's logits")
    run = min(seen, key=lambda r: (r.case.group != PROBE, r.case.name != "flatten-order"))
    B, K = run.expected.shape
    rows = "one row" if extra == 1 else f"{extra} rows"
    where = "first" if side == "top" else "last"
    seed = (" as when the result is stacked (np.vstack, np.concatenate, np.append) onto a first row it was seeded "
            f"with, out = np.zeros((1, K)), which is never removed" if side == "top" and extra == 1 else
            " as when the result is allocated too long and the extra rows are never filled or removed")
    return [Finding("extra-rows", f"On probe '{run.case.name}' ({run.case.description}) your function returned "
                                  f"{B + extra} rows for {B} sample{'s' if B > 1 else ''}: the {where} "
                                  f"{'row holds' if extra == 1 else rows + ' hold'} {what}, and the other {B} are the "
                                  f"right logits of the samples in order,{seed}. Every call that returned an array "
                                  f"({len(seen)}) has {rows} more, so every sample's logits are right "
                                  f"and only the shape is wrong, ({B + extra}, {K}) where ({B}, {K}) is expected.")]
