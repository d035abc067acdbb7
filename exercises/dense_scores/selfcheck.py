import os

import numpy as np


def public_cases():
    """The public cases, built exactly as `grader check` builds them: same seed, same sizes, same order."""
    rng = np.random.default_rng(2015)
    cases = []
    #            name                 H  W  C  k  out
    for name, H, W, C, k, out in [("public-grid", 5, 4, 3, 2, 2),
                                  ("public-pointwise", 3, 4, 2, 1, 3),
                                  ("public-whole", 3, 3, 2, 3, 2)]:
        fmap = rng.standard_normal((H, W, C))
        bound = 1.0 / np.sqrt(k * k * C)
        weight = rng.uniform(-bound, bound, (out, k * k * C))
        bias = rng.uniform(-bound, bound, out)
        cases.append((name, (fmap, weight, bias, k)))
    return cases


NAMES = ["fmap", "weight", "bias"]


def describe(args):
    fmap, weight, _, k = args
    return f"fmap {fmap.shape}, k={k}, weight {weight.shape}"


def close(actual, expected):
    """Elementwise: is each value within the tolerance stated above EXPECTED?"""
    scale = np.abs(expected).max() if expected.size else 0.0
    return np.abs(actual - expected) <= RTOL * np.abs(expected) + ATOL_SCALE * scale


def call(function, args):
    """Call on copies of the arrays; return (result, names of the inputs it changed)."""
    copies = [a.copy() for a in args[:3]]
    result = function(*copies, args[3])
    changed = [n for n, a, c in zip(NAMES, args, copies) if not np.array_equal(a, c)]
    return result, changed


def same_output(function, args, out):
    """Does `function` on these (altered) inputs return the same values as `out`?"""
    try:
        other, _ = call(function, args)
        return isinstance(other, np.ndarray) and other.shape == out.shape and bool(np.all(close(other, out)))
    except Exception:
        return False


def hints(function, args, expected, out=None, error=""):
    """Guesses at what went wrong, from the output (if any), the error (if any) and a few more calls."""
    found = []
    fmap, weight, bias, k = args
    H, W, C = fmap.shape
    h, w, m = expected.shape
    if out is not None and not same_output(function, args, out):
        return ["Two calls on the same inputs gave different results: the scores must not involve randomness, and "
                "every entry of the result must be filled in."]
    if out is not None and out.shape != expected.shape:
        if out.shape == (w, h, m) and h != w:
            found.append("The grid's axes look swapped: the first axis of the result follows the map's rows "
                         "(H - k + 1 of them), the second its columns.")
        elif out.shape == (m, h, w):
            found.append("The scores axis comes first, as in PyTorch; here it must come last: (H - k + 1, W - k + 1, "
                         "out).")
        elif out.shape == ((H - k) // k + 1, (W - k) // k + 1, m) and k > 1:
            found.append(f"Your grid is {out.shape[0]} x {out.shape[1]}: the windows seem to be placed side by side, "
                         f"{k} apart. Put one at every position where it fits (stride 1).")
        elif out.shape[:2] in ((h - 1, w - 1), (h + 1, w + 1)):
            found.append(f"Your grid is off by one: a {k} x {k} window fits at H - k + 1 = {h} rows and "
                         f"W - k + 1 = {w} columns.")
    if error and k > 1 and ("reshape" in error or "mismatch" in error or "out of bounds" in error):
        found.append(f"Does a loop run past the edge? The last window starts at row H - k = {H - k} and column "
                     f"W - k = {W - k}.")
    # A function that reads the weight as (in, out) gives the expected output when handed it transposed.
    if same_output(function, (fmap, weight.T.copy(), bias, k), expected):
        found.append("Your function seems to multiply by the weight as stored. It is stored (out, k*k*C), as in "
                     "nn.Linear: each score is the dot product of a window with one ROW of weight.")
    # A function that flattens each window channels-first gives the expected scores once the weight's columns
    # are put in that order.
    if C > 1 and k > 1:
        kernel = weight.reshape(m, k, k, C)
        for label, order in [("channels-first, (C, k, k)", (0, 3, 1, 2)), ("column-major order", (0, 3, 2, 1))]:
            permuted = kernel.transpose(order).reshape(m, -1).copy()
            if same_output(function, (fmap, permuted, bias, k), expected):
                found.append(f"Your windows seem to be flattened {label}. Flatten each window channels-last: rows, "
                             "then columns, then channels, the channel fastest.")
    if out is not None and out.shape == expected.shape:
        if all(same_output(function, (fmap, weight, other, k), out) for other in (np.zeros_like(bias), bias + 10.0)):
            found.append("Changing the bias does not change your scores: the bias is never added.")
        scale = np.abs(expected).max()
        if np.abs(out - expected).max() <= 1e-4 * scale:
            found.append("Your values are right to about single precision (float32) only: keep every step of the "
                         "computation in float64.")
    return found


def check_case(function, args, expected):
    """Return (passed, message, hints) for one public case."""
    try:
        out, changed = call(function, args)
    except Exception as exc:
        text = str(exc).strip()
        message = f"your function raised {type(exc).__name__}" + (f": {text.splitlines()[0][:200]}" if text else "")
        return False, message, hints(function, args, expected, error=f"{type(exc).__name__}: {text}")
    if out is None:
        return False, "not implemented yet: your function returned None", []
    if type(out) is not np.ndarray:
        return False, f"returned a {type(out).__name__}, not a numpy.ndarray", []
    if out.shape != expected.shape:
        return False, f"wrong shape: expected {expected.shape}, got {out.shape}", hints(function, args, expected, out)
    if out.dtype != np.float64:
        return False, f"wrong dtype: expected float64, got {out.dtype}", []
    if not np.all(np.isfinite(out)):
        return False, "the result contains NaN or infinity", []
    good = close(out, expected)
    if not good.all():
        error = np.where(good, 0.0, np.abs(out - expected))
        worst = np.unravel_index(np.argmax(error), error.shape)
        where = "output[" + ", ".join(str(int(i)) for i in worst) + "]"
        wrong = int((~good).sum())
        message = (f"values differ: {wrong} of {good.size} {'is' if wrong == 1 else 'are'} wrong; the largest error "
                   f"is {error[worst]:.3g} at {where} (expected {expected[worst]:.6g}, got {out[worst]:.6g})")
        return False, message, hints(function, args, expected, out)
    if changed:
        return False, f"right values, but your function changed its input {', '.join(changed)} in place", []
    return True, "right shape, dtype and values", []


def self_check(function):
    results = []
    for name, args in public_cases():
        expected = np.array(EXPECTED[name], dtype=np.float64)
        results.append((name, args) + check_case(function, args, expected))
    if all(message.startswith("not implemented") for _, _, _, message, _ in results):
        print("✗ Not implemented yet: dense_scores returned None. Write your solution in place of `pass` in the "
              "cell under Your solution, run that cell, then run this one again.")
        return
    shown = set()
    for name, args, passed, message, tips in results:
        print(f"{'✓' if passed else '✗'} {name} ({describe(args)}): {message}")
        for tip in tips:
            if tip not in shown:  # the same hint on several cases is shown once
                print(f"    Hint: {tip}")
                shown.add(tip)
    failed = sum(not passed for _, _, passed, _, _ in results)
    if failed:
        print(f"{failed} of {len(results)} public checks failed.")
    else:
        print("All public checks passed. When grading, hidden cases of other sizes are checked too.")


# The grader runs its own checks, so this cell does nothing while your submission is being graded.
if not os.environ.get("GRADER_PARENT"):
    try:
        dense_scores
    except NameError:
        print("✗ There is no function named dense_scores yet: run the cell with your code first "
              "(and keep the function's name).")
    else:
        self_check(dense_scores)
