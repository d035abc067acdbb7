import os

import numpy as np


def public_cases():
    """The public cases, built exactly as `grader check` builds them: same seed, same sizes, same order."""
    rng = np.random.default_rng(1958)
    cases = []
    #            name              leading  in out  bias
    for name, leading, n, m, bias in [("public-batch", (3,), 5, 4, "given"),
                                      ("public-vector", (), 5, 4, "given"),
                                      ("public-leading", (2, 3), 5, 4, "given"),
                                      ("public-square", (2,), 3, 3, "given"),
                                      ("public-no-bias", (2,), 3, 2, "omitted")]:
        x = rng.standard_normal(leading + (n,))
        bound = 1.0 / np.sqrt(n)
        weight = rng.uniform(-bound, bound, (m, n))
        b = rng.uniform(-bound, bound, m)
        cases.append((name, (x, weight, b) if bias == "given" else (x, weight)))
    return cases


NAMES = ["x", "weight", "bias"]


def describe(args):
    x, weight = args[0], args[1]
    text = f"x {x.shape}, weight {weight.shape}"
    return text + (f", bias {args[2].shape}" if len(args) > 2 else ", no bias")


def close(actual, expected):
    """Elementwise: is each value within the tolerance stated above EXPECTED?"""
    scale = np.abs(expected).max() if expected.size else 0.0
    return np.abs(actual - expected) <= RTOL * np.abs(expected) + ATOL_SCALE * scale


def call(function, args):
    """Call on copies of the inputs; return (result, names of the inputs it changed)."""
    copies = [a.copy() for a in args]
    result = function(*copies)
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
    x, weight = args[0], args[1]
    bias = args[2] if len(args) > 2 else None
    if out is not None and not same_output(function, args, out):
        return ["Two calls on the same inputs gave different results: the layer must not involve randomness."]
    # A function that reads the weight as (in, out) gives the expected output when handed it transposed.
    if same_output(function, (x, weight.T.copy()) + tuple(args[2:]), expected):
        found.append("Your function seems to multiply by the weight as stored. It is stored (out, in), as in "
                     "nn.Linear: each output is the dot product of x with one ROW of weight, i.e. x times weight "
                     "transposed.")
    if bias is None and error and ("NoneType" in error or "bias" in error):
        found.append("The call without a bias failed: give the parameter the default None and add the bias only "
                     "when one is given.")
    if out is not None and out.shape != expected.shape and out.size == expected.size:
        if x.ndim == 1:
            found.append("For a single vector x of shape (in,) the result must have shape (out,), with no axis "
                         "added.")
        else:
            found.append("Your result has the right number of values in the wrong shape: keep every leading axis "
                         "of x and change only the last one.")
    if out is not None and bias is not None:
        base = expected - bias
        for moved in (bias.reshape((-1,) + (1,) * (base.ndim - 1)), bias[:, None]):
            try:
                wrong = base + moved
            except ValueError:
                continue
            if wrong.shape == out.shape and np.all(close(out, wrong)):
                found.append("The bias seems to be added along another axis than the last one (bias[:, None], or "
                             "a transpose around the addition): output j of every vector gets bias[j].")
                break
        if out.shape == expected.shape and all(
                same_output(function, (x, weight, other), out) for other in (np.zeros_like(bias), bias + 10.0)):
            found.append("Changing the bias does not change your output: the bias is never added.")
    if error and "broadcast" in error and bias is not None:
        found.append("NumPy could not broadcast the bias: it belongs to the last axis of the result, one value per "
                     "output.")
    if out is not None and out.shape == expected.shape:
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
        print("✗ Not implemented yet: linear returned None. Write your solution in place of `pass` in the cell "
              "under Your solution, run that cell, then run this one again.")
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
        linear
    except NameError:
        print("✗ There is no function named linear yet: run the cell with your code first "
              "(and keep the function's name).")
    else:
        self_check(linear)
