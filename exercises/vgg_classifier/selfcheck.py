import os

import numpy as np


def public_cases():
    """The public cases, built exactly as `grader check` builds them: same seed, same sizes."""
    rng = np.random.default_rng(2014)
    cases = []
    #             name             B  H  W  C  D1 D2  K
    for name, B, H, W, C, D1, D2, K in [("public-single", 1, 3, 2, 4, 6, 5, 3),
                                        ("public-batch", 3, 2, 3, 4, 8, 7, 5)]:
        args = [rng.standard_normal((B, H, W, C))]
        widths = [H * W * C, D1, D2, K]
        for fan_in, fan_out in zip(widths[:-1], widths[1:]):
            args.append((rng.random((fan_in, fan_out)) - 0.5) * (2.0 * np.sqrt(6.0 / fan_in)))  # weights
            args.append(rng.random(fan_out) - 0.5)  # biases
        cases.append((name, tuple(args)))
    return cases


def describe(args):
    B, H, W, C = args[0].shape
    widths = " -> ".join(str(a.shape[1]) for a in args[1::2])
    return f"B={B}, features {H}x{W}x{C} -> {H * W * C} -> {widths}"


def close(actual, expected):
    """Elementwise: is each value within the tolerance stated above EXPECTED?"""
    scale = np.abs(expected).max()
    return np.abs(actual - expected) <= RTOL * np.abs(expected) + ATOL_SCALE * scale


def call(function, args):
    """Call on copies of the inputs; return (result, names of the inputs it changed)."""
    copies = [a.copy() for a in args]
    result = function(*copies)
    names = ["features", "W1", "b1", "W2", "b2", "W3", "b3"]
    changed = [n for n, a, c in zip(names, args, copies) if not np.array_equal(a, c)]
    return result, changed


def same_output(function, args, out):
    """Does `function` on these (altered) inputs return the same values as `out`?"""
    try:
        other, _ = call(function, args)
        return isinstance(other, np.ndarray) and other.shape == out.shape and bool(np.all(close(other, out)))
    except Exception:
        return False


def hints(function, args, expected, out=None, error=""):
    """Guesses at what went wrong, from the output (if any), the error message (if any) and a few more calls."""
    found = []
    features, W1 = args[0], args[1]
    B, H, W, C = features.shape
    vgg = [n for n in ("25088", "4096", "1000") if n in error]
    if vgg:
        found.append(f"The error mentions {vgg[0]}, one of VGG16's sizes: read every size from the arrays you "
                     "are given instead.")
    elif B > 1 and str(B * H * W * C) in error:
        found.append(f"The error mentions {B * H * W * C} = B*H*W*C: the batch axis seems to have been flattened "
                     "together with the features. Flatten only the H, W and C axes of each sample.")
    if out is not None and not same_output(function, args, out):
        return ["Two calls on the same inputs gave different results: the computation must not involve "
                "randomness (no dropout, no noise)."]
    if out is not None:
        scale = np.abs(expected).max()
        if np.abs(out - expected).max() <= 1e-4 * scale:
            found.append("Your values are right to about single precision (float32) only: keep every step of "
                         "the computation in float64.")
        if np.all(out > 0) and np.allclose(out.sum(axis=1), 1.0):
            found.append("Every row of your output is positive and sums to 1: it looks like probabilities (a "
                         "softmax). Return the raw logits of the last layer instead.")
        elif np.all(out >= 0) and np.any(out == 0) and np.any(expected < 0):
            found.append("None of your outputs is negative, but some expected logits are: is there an activation "
                         "(such as ReLU) after the last layer? The logits must stay raw.")
    # A function that flattens in another order gives the expected logits once W1's rows are put in that order.
    position = np.arange(H * W * C).reshape(H, W, C)
    orders = [("column-major (Fortran) order", position.ravel(order="F")),
              ("channels first, (C, H, W), the PyTorch NCHW habit", position.transpose(2, 0, 1).ravel()),
              ("height and width swapped, (W, H, C)", position.transpose(1, 0, 2).ravel())]
    for label, order in orders:
        if same_output(function, (features, W1[order]) + tuple(args[2:]), expected):
            found.append(f"Your features seem to be flattened in {label}. Flatten each sample's (H, W, C) volume "
                         "in row-major order, as the statement describes.")
    # A function that reads the weights as (out, in) gives the expected logits when handed them transposed.
    transposed = tuple(a.T.copy() if a.ndim == 2 else a for a in args[1:])
    if same_output(function, (features,) + transposed, expected):
        found.append("Your function treats the weight matrices as (out, in), as PyTorch's nn.Linear stores them. "
                     "Here they are stored (in, out): one row per input unit.")
    # A function that ignores a bias gives the same output whatever that bias holds (zeros, or large values).
    if out is not None:
        for index, name in [(2, "b1"), (4, "b2"), (6, "b3")]:
            if all(same_output(function, args[:index] + (other,) + args[index + 1:], out)
                   for other in (np.zeros_like(args[index]), args[index] + 10.0, args[index] - 10.0)):
                found.append(f"Changing {name} does not change your output: {name} is never added.")
    return found


def check_case(function, args, expected):
    """Return (passed, message, hints) for one public case."""
    B = args[0].shape[0]
    try:
        out, changed = call(function, args)
    except Exception as exc:
        text = str(exc).strip()
        message = f"your function raised {type(exc).__name__}" + (f": {text.splitlines()[0][:200]}" if text else "")
        return False, message, hints(function, args, expected, error=text)
    if out is None:
        return False, "not implemented yet: your function returned None", []
    if type(out) is not np.ndarray:
        return False, f"returned a {type(out).__name__}, not a numpy.ndarray", []
    if out.shape != expected.shape:
        tips = []
        if out.shape == expected.shape[::-1]:
            tips.append("The result looks transposed: it needs one row per sample and one column per class.")
        elif out.ndim != 2 or out.shape[0] != B:
            tips.append(f"Keep the batch axis: the result needs one row per sample ({B} here), "
                        "so flatten only the H, W and C axes of each sample.")
        return False, f"wrong shape: expected {expected.shape}, got {out.shape}", tips
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
        message = (f"values differ: {wrong} of {good.size} {'is' if wrong == 1 else 'are'} wrong; the largest error is "
                   f"{error[worst]:.3g} at {where} (expected {expected[worst]:.6g}, got {out[worst]:.6g})")
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
        print("✗ Not implemented yet: vgg_classifier returned None. Write your solution in place of `pass` in "
              "the cell under Your solution, run that cell, then run this one again.")
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
        print("All public checks passed. When grading, hidden cases of other sizes and VGG16's full size "
              "are checked too.")


# The grader runs its own checks, so this cell does nothing while your submission is being graded.
if not os.environ.get("GRADER_PARENT"):
    try:
        vgg_classifier
    except NameError:
        print("✗ There is no function named vgg_classifier yet: run the cell with your code first "
              "(and keep the function's name).")
    else:
        self_check(vgg_classifier)
