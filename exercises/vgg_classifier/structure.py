"""Structural findings for the VGG classifier head: what an exception says (what happened to the samples of a
batch is read from the returned rows in ``samplerows.py``).

Exceptions are read from their structured fields (``CallError.type``, ``.message``, ``.where``), never from a
sentence: the sizes and shapes NumPy puts in a message are matched against the sizes of the case that raised
(B, H*W*C, D1, D2, K and the shapes of every array and intermediate), which names the operands and the stage.
The ``sizes`` probe has every size different (B=2, 3x4x5 -> 60 -> 7 -> 9 -> 6), so its messages are
unambiguous and, being public, can be quoted.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from grader.authoring import PROBE, Case, Finding


def sizes_probe() -> Case:
    """A small probe whose sizes are all different from one another (and nothing is square)."""
    B, H, W, C, D1, D2, K = 2, 3, 4, 5, 7, 9, 6
    d = H * W * C
    idx = np.arange(1, B * d + 1, dtype=np.float64)
    features = (np.sin(idx * 1.7) * 0.75).reshape(B, H, W, C)
    args = [features]
    for n, (fan_in, fan_out) in enumerate(((d, D1), (D1, D2), (D2, K))):
        grid = np.arange(fan_in * fan_out, dtype=np.float64).reshape(fan_in, fan_out)
        args.append(np.cos(grid * (0.9 + n)) / np.sqrt(fan_in))
        args.append(np.sin(np.arange(fan_out) * (1.3 + n)) * 0.25)
    return Case(name="sizes", group=PROBE, args=tuple(np.ascontiguousarray(a) for a in args),
                description=f"B={B}, features {H}x{W}x{C} -> {d} -> {D1} -> {D2} -> {K}, every size different")


# -- the sizes and shapes of a case ----------------------------------------------------------------------------
def dims(case: Case) -> dict[str, int]:
    features, W1, _, W2, _, W3, _ = case.args
    B, H, W, C = features.shape
    return {"B": B, "H": H, "W": W, "C": C, "d": H * W * C, "D1": W1.shape[1], "D2": W2.shape[1],
            "K": W3.shape[1], "Bd": B * H * W * C}


def shape_names(case: Case) -> dict[tuple[int, ...], str]:
    """Every array or intermediate a student's code may hold, by shape; shapes two of them share are dropped."""
    n = dims(case)
    B, d, D1, D2, K = n["B"], n["d"], n["D1"], n["D2"], n["K"]
    named = [
        ((B, d), "x (B x H*W*C)"), ((d, B), "x with samples as columns (H*W*C x B)"),
        ((d, D1), "W1"), ((D1, d), "W1 transposed"), ((D1, D2), "W2"), ((D2, D1), "W2 transposed"),
        ((D2, K), "W3"), ((K, D2), "W3 transposed"),
        ((B, D1), "FC1's output (B x D1)"), ((D1, B), "FC1's output with samples as columns (D1 x B)"),
        ((B, D2), "FC2's output (B x D2)"), ((D2, B), "FC2's output with samples as columns (D2 x B)"),
        ((B, K), "the logits (B x K)"), ((K, B), "the logits with samples as columns (K x B)"),
        ((D1,), "b1"), ((D2,), "b2"), ((K,), "b3"), ((d,), "one sample's flattened features"),
        ((B * d,), "the whole batch as one vector"), ((1, B * d), "the whole batch as one row"),
    ]
    count: dict[tuple, int] = {}
    for shape, _ in named:
        count[shape] = count.get(shape, 0) + 1
    return {shape: name for shape, name in named if count[shape] == 1}


def _shape(text: str) -> tuple[int, ...]:
    return tuple(int(t) for t in re.findall(r"\d+", text))


# -- reading one exception ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ErrorReading:
    kind: str  # none, tuple, scalar, truth, reshape, product, broadcast, other
    finding: str  # the catalog id it points to ("raises-error" when nothing more specific)
    stage: str  # flatten, fc1, act1, ... or "" when unknown
    sentence: str  # what the error means for this case, or ""
    fixed: int | None = None  # a size written into the code (reshape), for the consistency check
    backwards: int = 0  # layer i whose product met W_i's shape the other way round (W_i used from the left?)
    column: bool = False  # a bias added as a row to a result that holds the samples as columns
    rows: int = 0  # FC1's product met the features reshaped into this many rows (B*H*W*C / its columns), not B
    otherwise: "ErrorReading | None" = None  # a window pooling's width can be a reshape's by chance: that reading


MODULE_NONE = re.compile(r"'NoneType' object has no attribute '(\w+)'")
MATMUL = re.compile(r"mismatch in its core dimension \d.*?\(size (\d+) is different from (\d+)\)")
DOT = re.compile(r"shapes \(([\d, ]*)\) and \(([\d, ]*)\) not aligned")
BROADCAST = re.compile(r"could not be broadcast together with shapes \(([\d, ]*)\) \(([\d, ]*)\)")
REMAPPED = re.compile(r"remapped shapes \[original->remapped\]: \(([\d, ]*)\)->\S+ \(([\d, ]*)\)->")
RESHAPE = re.compile(r"cannot reshape array of size (\d+) into shape \(([^)]*)\)")
LAYER_OF = {"D1": 1, "D2": 2, "K": 3}
IN_OF = {1: "d", 2: "D1", 3: "D2"}
OUT_OF = {1: "D1", 2: "D2", 3: "K"}


def read_error(run) -> ErrorReading | None:
    error = run.outcome.exception
    if run.outcome.status != "raised" or error is None:
        return None
    message = error.message
    module = MODULE_NONE.search(message)
    if module and hasattr(np, module.group(1)) and not hasattr(np.ndarray, module.group(1)):
        return ErrorReading("module-none", "raises-error", "", f"the name the code calls {module.group(1)}() on is "
                            f"None when the function runs, where NumPy (np) was meant: code that ran after the "
                            f"function was defined, such as a later cell, assigned None to that name (np = None), "
                            f"and the function looks the name up only when it is called")
    if "'NoneType'" in message:
        return ErrorReading("none", "helper-result", "", "a value the code uses there is None, which is what a helper "
                                                       "function returns when it ends without a return statement")
    if "'tuple'" in message or "inhomogeneous shape" in message:
        return ErrorReading("tuple", "helper-result", "", "a value used there as an array is a tuple or a list of "
                                                        "arrays, such as the (out, cache) pair a layer function "
                                                        "written for backpropagation returns")
    if "does not have enough dimensions (has 0" in message:  # None and a number give the same message
        return ErrorReading("scalar", "helper-result", "", "an operand of that matrix product is a single value, not "
                                                         "an array: None, as a helper without a return statement "
                                                         "gives, or one number, as a reduction gives: np.max(z, 0) or "
                                                         "np.max(z) take the largest value along an axis or of the "
                                                         "whole array, where the element-wise ReLU is "
                                                         "np.maximum(z, 0)")
    if "truth value of an array" in message:
        return ErrorReading("truth", "raises-error", "", "a whole array was used where Python needs one True or False: "
                                                        "Python's max() or min(), an `if` on an array, or `and`/`or` "
                                                        "between arrays. ReLU must be taken element by element, "
                                                        "for example with np.maximum")
    if "shape-mismatch for sum" in message:  # np.tensordot: two axes it pairs differ in size
        return ErrorReading("tensordot", "raises-error", "", "np.tensordot sums over the axes it is given in pairs, "
                                                            "the first axis listed for one array with the first for "
                                                            "the other, and a pair here has two sizes. With W1 "
                                                            "reshaped to (H, W, C, D1), the features' axes 1, 2, 3 "
                                                            "meet W1's axes 0, 1, 2 in that order, axes=([1, 2, 3], "
                                                            "[0, 1, 2]); another pairing runs only when the swapped "
                                                            "axes have equal sizes (H = W, as in VGG16's 7 x 7), and "
                                                            "then multiplies each feature by another position's "
                                                            "weights")
    n = dims(run.case)
    names = shape_names(run.case)
    match = RESHAPE.search(message)
    if match:
        return _reshape(int(match.group(1)), match.group(2), n)
    match = DOT.search(message) or REMAPPED.search(message)
    if match:
        left, right = _shape(match.group(1)), _shape(match.group(2))
        if left and right and left[-1] != right[0]:  # equal sizes: not where the product failed (an einsum's axes)
            return _product(left[-1], right[0], n, names, left, right)
    match = MATMUL.search(message)
    if match:
        return _product(int(match.group(2)), int(match.group(1)), n, names)
    match = BROADCAST.search(message)
    if match:
        return _broadcast(_shape(match.group(1)), _shape(match.group(2)), n, names)
    return None


def _roles(value: int, n: dict[str, int]) -> list[str]:
    return [k for k in ("B", "d", "D1", "D2", "K", "Bd") if n[k] == value]


ROLE_TEXT = {"B": "B, the batch size", "d": "H*W*C, the flattened width", "D1": "D1, FC1's width",
             "D2": "D2, FC2's width", "K": "K, the number of classes", "Bd": "B*H*W*C, every value of the batch"}


def _say(value: int, n: dict[str, int]) -> str:
    roles = _roles(value, n)
    return f"{value} ({' or '.join(ROLE_TEXT[r] for r in roles)})" if roles else str(value)


def _reshape(size: int, target: str, n: dict[str, int]) -> ErrorReading:
    numbers = [int(t) for t in re.findall(r"\d+", target)]
    known = {n[k] for k in ("B", "H", "W", "C", "d", "Bd")}
    fixed = [x for x in numbers if x not in known]
    if size == n["Bd"] and fixed:
        return ErrorReading("reshape", "hardcoded-shape", "flatten",
                            f"the features ({size} values, B = {n['B']}) were reshaped to ({target}): {fixed[0]} is "
                            f"not a size of this case, so it is written into the code", fixed[0])
    return ErrorReading("reshape", "raises-error", "flatten",
                        f"a reshape of {size} values to ({target}) is impossible")


def _product(left_cols: int, right_rows: int, n, names, left=None, right=None, windows: bool = True) -> ErrorReading:
    """A matrix product whose left operand has ``left_cols`` columns and whose right one ``right_rows`` rows
    (``windows``: whether a width that a 2x2 pooling leaves is read as that pooling)."""
    lname = names.get(tuple(left)) if left else None
    rname = names.get(tuple(right)) if right else None
    operands = (f"{lname or 'an operand with ' + _say(left_cols, n) + ' columns'} times "
                f"{rname or 'one with ' + _say(right_rows, n) + ' rows'}")
    lroles, rroles = _roles(left_cols, n), _roles(right_rows, n)
    if "Bd" in lroles and "d" in rroles:
        return ErrorReading("product", "batch-flattened", "flatten",
                            f"{operands}: the whole batch was flattened into one row of {left_cols} values", rows=1)
    pools = {(h * w * n["C"], how) for h, w, how in ((n["H"] // 2, n["W"] // 2, "dropping an odd last row or "
                                                        "column"), (-(-n["H"] // 2), -(-n["W"] // 2), "padding"))}
    pooled = next((how for width, how in pools if width == left_cols), None)
    if windows and "d" in rroles and pooled and left_cols not in (n["d"], n["C"]) and not lname:
        rest = _product(left_cols, right_rows, n, names, left, right, windows=False)
        return ErrorReading("product", "spatial-pooling", "flatten", otherwise=rest, sentence=
                            f"{operands}: FC1 received {left_cols} values per sample, which is what a pooling of "
                            f"height and width in 2x2 windows leaves ({n['H']}x{n['W']} positions become "
                            f"{left_cols // n['C']}, {pooled}, times C = {n['C']}), where W1 expects all "
                            f"H*W*C = {n['d']}")
    if "d" in rroles and left_cols != n["d"] and left_cols and n["Bd"] % left_cols == 0 and not lname \
            and not set(lroles) & {"B", "D1", "D2", "K"}:
        rows = n["Bd"] // left_cols
        return ErrorReading("product", "raises-error", "flatten",
                            f"{operands}: the features (B*H*W*C = {n['Bd']} values) were reshaped into {rows} rows "
                            f"of {left_cols} values instead of B = {n['B']} rows of H*W*C = {n['d']}", rows=rows)
    for layer in (1, 2, 3):
        if OUT_OF[layer] in lroles and IN_OF[layer] in rroles and (lname in (None, f"W{layer}")):
            layout = rname and "samples as columns" in rname
            if lname == f"W{layer}" or layout:
                return ErrorReading("product", "transposed-weights", f"fc{layer}",
                                    f"{operands}: W{layer} is multiplied from the left, as if it were stored "
                                    f"(out, in), but it is stored (in, out) = ({n[IN_OF[layer]]}, {n[OUT_OF[layer]]})")
            return ErrorReading("product", "raises-error", f"fc{layer}",
                                f"{operands}: the product meets a matrix with {n[IN_OF[layer]]} rows where it has "
                                f"{n[OUT_OF[layer]]} columns, W{layer}'s shape read the other way round "
                                f"(W{layer} used from the left, or another layer's matrix)", backwards=layer)
    foreign = right_rows not in set(n.values()) and not rname
    layer = next((k for k in (1, 2, 3) if IN_OF[k] in lroles), None)
    if foreign and layer is not None:  # the matrix has a size no array of this call has: it is not an argument
        return ErrorReading("product", "raises-error", f"fc{layer}",
                            f"{operands}: {right_rows} is none of this call's sizes, so the matrix is not this "
                            f"call's W{layer} ({n[IN_OF[layer]]} rows) but an array from elsewhere, such as a "
                            f"variable of that name left over from another cell or a test and used in place of "
                            f"the parameter (check the spelling of the parameter too)")
    if "B" in rroles:
        return ErrorReading("product", "raises-error", "",
                            f"{operands}: the batch axis ended up where a width was expected")
    return ErrorReading("product", "raises-error", "", f"{operands}: the sizes do not line up")


def _broadcast(a: tuple, b: tuple, n, names) -> ErrorReading:
    big, small = (a, b) if len(a) >= len(b) else (b, a)
    bname, sname = names.get(big), names.get(small)
    text = f"{bname or big} plus {sname or small}"
    if small == (n["B"],) and not sname and len(big) == 2 and big[0] == n["B"] != big[1]:
        # no argument has B values: they are a per-sample reduction (e / e.sum(axis=1)) that lost its axis
        return ErrorReading("broadcast", "raises-error", "",
                            f"{bname or big} and {small}: one value per sample, as a sum, mean or maximum over "
                            f"axis 1 without keepdims=True leaves, meets a result whose {big[0]} rows are the "
                            f"samples; numpy lines a 1-D array up with the last axis (the {big[1]} columns), so the "
                            f"reduction needs keepdims=True (or [:, None]) to act on each sample's row")
    if len(big) == 2 and len(small) == 1 and big[0] == small[0] != big[1]:
        return ErrorReading("broadcast", "raises-error", "",
                            f"{text}: a vector of {small[0]} values is added as a row to a result with {small[0]} "
                            f"rows and {big[1]} columns" + (", the samples as columns" if big[1] == n["B"] else "")
                            + "; in that layout a bias must be a column, b[:, None]", column=True)
    if len(a) == len(b) == 2 and small[1] == 1 and small[0] == big[1] != 1 and big[0] != small[0]:
        # a bias reshaped to a column, b.reshape(-1, 1), added to a layer's output that holds the samples as rows
        return ErrorReading("broadcast", "raises-error", "",
                            f"{bname or big} plus {small}: a vector of {small[0]} values made a column ({small[0]} x "
                            f"1, as b.reshape(-1, 1) or b[:, None] makes it) is added to a result whose rows are the "
                            f"samples and whose {big[1]} columns are the units; a bias must then be a row, b itself or"
                            f" b[None, :] (a column only lines up when the samples are the columns; with one sample "
                            f"it spreads the result over a {small[0]} x {small[0]} grid)")
    if len(big) == 2 and len(small) == 1 and bname and sname and sname.startswith("b"):
        layer = int(sname[1])
        if big[1] == n["B"]:
            return ErrorReading("broadcast", "raises-error", f"fc{layer}",
                                f"{text}: the layer's output holds the samples as columns, so adding {sname} as a "
                                f"row does not line up; in that layout it must be a column, {sname}[:, None]")
        other = [k for k, v in OUT_OF.items() if big == (n["B"], n[v])]
        if other:
            k = other[0]
            # the same array is the next layer's input: b{k+1} may be added there, before the product it follows
            before = (f", or to FC{k + 1}'s input before the product with W{k + 1}, where {sname} does not belong "
                      f"either (it is added to that product)" if sname == f"b{k + 1}" else "")
            return ErrorReading("broadcast", "missing-layer", f"fc{k}",
                                f"{text}: {sname} is added to FC{k}'s output, which needs "
                                f"b{k} ({n[OUT_OF[k]]} values){before}")
    # the error does not say which operator it was: a mask (z2 * (z1 > 0)) fails the same way as a sum
    return ErrorReading("broadcast", "raises-error", "", f"{bname or big} and {sname or small} cannot be combined "
                                                         f"element by element (added, multiplied or compared)")


# -- findings from the exceptions -----------------------------------------------------------------------------------
def _where(run) -> str:
    error = run.outcome.error.rstrip(". ")  # a sentence follows after a colon
    if run.case.group == PROBE:
        return f"on probe '{run.case.name}' ({run.case.description}) your function raised {error}"
    return f"on a graded case your function raised {error}"


def _cap(text: str) -> str:
    return text[0].upper() + text[1:]


def _pick(pairs):
    """The example to quote: the ``sizes`` probe first (every size different), then any probe, then a graded case."""
    return min(pairs, key=lambda p: (p[0].case.name != "sizes", p[0].case.group != PROBE))


def error_findings(runs) -> list:
    """Findings read from the structured exceptions of every call that raised."""
    read = [(r, e) for r in runs if (e := read_error(r)) is not None]
    if not read:
        return []
    if any(e.finding == "spatial-pooling" for _, e in read):
        if any(e.rows and not _poolable(r, e) for r, e in read):  # a reshape into other rows: pooled by chance
            read = [(r, e.otherwise if e.finding == "spatial-pooling" else e) for r, e in read]
        else:  # rows of C values where 2x2 windows leave one position: pooled too
            read = [(r, None if e.rows else e) for r, e in read]
        read = [(r, e) for r, e in read if e is not None]
    findings = []
    helper = [(r, e) for r, e in read if e.finding == "helper-result"]
    if helper:
        run, reading = _pick(helper)
        findings.append(Finding("helper-result", f"{_cap(_where(run))}: {reading.sentence}. "
                                                 f"{len(helper)} of {len(runs)} calls failed this way."))
    fixed = [(r, e) for r, e in read if e.finding == "hardcoded-shape"]
    small = [r for r in runs if r.case.group != "full-scale" and r.outcome.status in ("ok", "raised")]
    sizes = {e.fixed for _, e in fixed}
    if fixed and len(sizes) == 1 and all(r.outcome.status == "raised" or dims(r.case)["B"] == next(iter(sizes))
                                         for r in small):
        run, reading = _pick(fixed)
        findings.append(Finding("hardcoded-shape", f"The size {reading.fixed} appears to be written into the code: "
                                                   f"{_where(run)}; {reading.sentence}. Every call whose batch is "
                                                   f"not {reading.fixed} fails the same way."))
    backwards = [(r, e) for r, e in read if e.backwards]
    column = [(r, e) for r, e in read if e.column]
    if backwards and column:  # W @ x with the samples as columns: the weights are read (out, in)
        (run, reading), (crun, creading) = _pick(backwards), _pick(column)
        findings.append(Finding("transposed-weights", f"The samples are held as columns and W{reading.backwards} "
                                                      f"multiplies from the left, as for weights stored (out, in): "
                                                      f"{_where(run)}; {reading.sentence}. And {_where(crun)}; "
                                                      f"{creading.sentence}."))
    reshaped = [(r, e) for r, e in read if e.rows]
    flattened = bool(reshaped) and all(e.rows == 1 for _, e in reshaped)
    if reshaped and not flattened:  # the row count of the features' reshape, read on every call that failed there
        findings.append(_rows_from(reshaped, len(runs)))
    for finding_id in ("transposed-weights", "missing-layer", "batch-flattened", "spatial-pooling"):
        hits = [(r, e) for r, e in read if e.finding == finding_id and (flattened or not e.rows)]
        if hits:
            run, reading = _pick(hits)
            findings.append(Finding(finding_id, f"{_cap(_where(run))}: {reading.sentence}."))
    plain = [(r, e) for r, e in read if e.finding == "raises-error" and e.sentence and not (e.rows and reshaped)]
    if plain:
        run, reading = _pick(plain)
        findings.append(Finding("raises-error", f"Read from the error: {_where(run)}; {reading.sentence}."))
    return findings


def _poolable(run, reading: ErrorReading) -> bool:
    """FC1's product met rows of a width that pooling leaves (one value per channel, or 2x2 windows)."""
    n = dims(run.case)
    width = n["Bd"] // reading.rows
    return width in {n["C"], n["H"] // 2 * (n["W"] // 2) * n["C"], -(-n["H"] // 2) * -(-n["W"] // 2) * n["C"]}


AXES = {"H": ("H, the height", "features.shape[1], or len(features[0])"),
        "W": ("W, the width", "features.shape[2]"), "C": ("C, the number of channels", "features.shape[3]")}


def _rows_from(reshaped: list, total: int) -> Finding:
    """The features were reshaped into a number of rows that is not B, on every call that failed at FC1's product:
    when it is the same axis's size every time (H, W or C), the batch size was read from that axis. One batch
    flattened into one row (a B = 1 reading) is only that when every such call says so."""
    common = None
    for run, reading in reshaped:
        n = dims(run.case)
        axes = {a for a in AXES if n[a] == reading.rows}
        common = axes if common is None else common & axes
    run, reading = _pick(reshaped)
    text = f"Read from the error: {_where(run)}; {reading.sentence}."
    if common:
        axis = next(a for a in AXES if a in common)
        text += (f" On each of the {len(reshaped)} calls that failed there the number of rows is {AXES[axis][0]} "
                 f"of that call's features ({AXES[axis][1]}), so the batch size was read from the wrong axis: "
                 f"in NHWC layout it is features.shape[0], or len(features).")
    else:
        text += f" {len(reshaped)} of {total} calls failed this way: each sample's row must hold its H*W*C features."
    return Finding("raises-error", text)


# -- comparing an output with a model ----------------------------------------------------------------------------
def close(actual: np.ndarray, model: np.ndarray, rtol: float = 1e-4) -> bool:
    """Every value within ``rtol`` of the model's largest value and of its own. Called a thousand times per
    diagnosis: with a finite model nothing here can be invalid (inf - inf), so no ``np.errstate`` is entered."""
    size = np.abs(model)
    scale = float(size.max()) if model.size else 0.0
    if scale - scale == 0.0:  # finite
        return bool((np.abs(actual - model) <= rtol * (scale + size) + 1e-12).all())
    with np.errstate(invalid="ignore"):
        return bool(np.all(np.abs(actual - model) <= rtol * (scale + size) + 1e-12))
