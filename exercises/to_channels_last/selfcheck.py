import os

import numpy as np


def public_cases():
    """The public cases, built exactly as `grader check` builds them: same seed, same sizes."""
    rng = np.random.default_rng(2015)
    cases = []
    for name, out, C, H, W in [("public-distinct", 3, 2, 3, 4), ("public-square", 4, 3, 2, 2)]:
        n = C * H * W
        weight = (rng.random((out, n)) - 0.5) * (2.0 / np.sqrt(n))  # PyTorch's U(-1/sqrt(n), 1/sqrt(n))
        cases.append((name, (weight, C, H, W)))
    return cases


def describe(args):
    weight, C, H, W = args
    return f"out={weight.shape[0]}, C={C}, H={H}, W={W}, weight {weight.shape}"


def close(actual, expected):
    """Elementwise: is each value within the tolerance stated above EXPECTED?"""
    scale = np.abs(expected).max()
    return np.abs(actual - expected) <= RTOL * np.abs(expected) + ATOL_SCALE * scale


def same(a, b):
    return isinstance(a, np.ndarray) and a.shape == b.shape and bool(np.all(close(a, b)))


def source(row, value):
    """The column of `row` that holds `value` (values are distinct, EXPECTED is rounded)."""
    return int(np.argmin(np.abs(row - value)))


def cell(j, dims, axes):
    """Column j of a row laid out over `axes` (a string of C, H, W) as 'c=.., h=.., w=..'."""
    index = dict(zip(axes, np.unravel_index(j, [dims[a] for a in axes])))
    return f"c={index['C']}, h={index['H']}, w={index['W']}"


def hints(function, args, expected, out=None, error=""):
    """Guesses at what went wrong, from the output (if any), the error message (if any) and one more call."""
    weight, C, H, W = args
    found = []
    fc6 = [n for n in ("4096", "25088", "512") if n in error]
    if fc6:
        found.append(f"The error mentions {fc6[0]}, one of fc6's sizes: take every size from C, H, W and "
                     "weight.shape instead.")
    if "axis 0" in error and f"size {weight.shape[0]}" in error:
        found.append("The error indexes axis 0, the rows, whose size is the number of outputs: the rows (the "
                     "layer's outputs) were reordered instead of the columns, axis 1.")
    if out is None or not isinstance(out, np.ndarray) or out.ndim != 2:
        return found
    if out.shape == weight.shape and np.array_equal(out, weight):
        found.append("Your result is the weight unchanged: reshaping alone never moves a value. The columns have "
                     "to be reordered (a transpose between two reshapes, or indexing with a permutation).")
        return found
    if out.shape == expected.shape[::-1] and np.all(close(out.T, expected)):
        found.append("Your result is the right weight transposed, the (in, out) layout of a Keras kernel. Return "
                     "it as (out, H*W*C), one row per output, like the weight you were given.")
        return found
    if out.shape[1] == weight.shape[1] and all(np.any(np.all(weight == row, axis=1)) for row in out) \
            and not np.array_equal(out, weight):
        found.append("Every row of your result is a row of the weight, unchanged: the rows (the layer's outputs) "
                     "were reordered instead of the columns.")
        return found
    if out.shape != expected.shape:
        return found
    try:
        back = function(expected.copy(), C, H, W)
        if same(back, weight):
            found.append("Your function turns the right answer back into the weight you were given: it converts "
                         "channels-last to channels-first, the opposite direction.")
    except Exception:
        pass
    if np.allclose(np.sort(out, axis=1), np.sort(weight, axis=1)):
        dims = {"C": C, "H": H, "W": W}
        k = int(np.argmax(~np.all(close(out, expected), axis=0)))
        got = source(weight[0], out[0, k])
        found.append(f"Each row holds its own values, in another order. Column {k} holds the weight of "
                     f"({cell(got, dims, 'CHW')}), but channels-last puts ({cell(k, dims, 'HWC')}) there: "
                     "check which axes you transpose, and that you read the columns as (C, H, W).")
    return found


def check_case(function, args, expected):
    """Return (passed, message, hints) for one public case."""
    weight = args[0]
    given = weight.copy()
    try:
        out = function(given, *args[1:])
    except Exception as exc:
        text = str(exc).strip()
        message = f"your function raised {type(exc).__name__}" + (f": {text.splitlines()[0][:200]}" if text else "")
        return False, message, hints(function, args, expected, error=text)
    if out is None:
        return False, "not implemented yet: your function returned None", []
    if type(out) is not np.ndarray:
        return False, f"returned a {type(out).__name__}, not a numpy.ndarray", []
    if out.shape != expected.shape:
        return False, f"wrong shape: expected {expected.shape}, got {out.shape}", hints(function, args, expected, out)
    if out.dtype != np.float64:
        return False, f"wrong dtype: expected float64, got {out.dtype}", []
    good = close(out, expected)
    if not good.all():
        wrong = int((~good).sum())
        message = f"values differ: {wrong} of {good.size} {'is' if wrong == 1 else 'are'} in the wrong place"
        return False, message, hints(function, args, expected, out)
    if not np.array_equal(given, weight):
        return False, "right values, but your function changed the weight it was given", []
    return True, "right shape, dtype and values", []


def self_check(function):
    results = []
    for name, args in public_cases():
        expected = np.array(EXPECTED[name], dtype=np.float64)
        results.append((name, args) + check_case(function, args, expected))
    if all(message.startswith("not implemented") for _, _, _, message, _ in results):
        print("✗ Not implemented yet: to_channels_last returned None. Write your solution in place of `pass` in "
              "the cell under Your solution, run that cell, then run this one again.")
        return
    shown = set()
    for name, args, passed, message, tips in results:
        print(f"{'✓' if passed else '✗'} {name} ({describe(args)}): {message}")
        for tip in tips:
            if tip not in shown:
                print(f"    Hint: {tip}")
                shown.add(tip)
    failed = sum(not passed for _, _, passed, _, _ in results)
    if failed:
        print(f"{failed} of {len(results)} public checks failed.")
    else:
        print("All public checks passed. When grading, hidden cases of other sizes (edge sizes among them) and "
              "VGG-16's fc6 itself are checked too.")


# The grader runs its own checks, so this cell does nothing while your submission is being graded.
if not os.environ.get("GRADER_PARENT"):
    try:
        to_channels_last
    except NameError:
        print("✗ There is no function named to_channels_last yet: run the cell with your code first "
              "(and keep the function's name).")
    else:
        self_check(to_channels_last)
