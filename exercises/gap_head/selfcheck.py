import os

import numpy as np


def public_cases():
    """The public cases, built exactly as `grader check` builds them: same seed, same sizes."""
    rng = np.random.default_rng(2016)
    cases = []
    for name, h, w, C, K in [("public-square", 3, 3, 4, 2), ("public-non-square", 2, 5, 3, 4)]:
        bound = 1.0 / np.sqrt(C)
        fmap = rng.random((h, w, C))
        V = (rng.random((K, C)) - 0.5) * (2.0 * bound)
        c = (rng.random(K) - 0.5) * (2.0 * bound)
        cases.append((name, (fmap, V, c)))
    return cases


def describe(args):
    fmap, V, _ = args
    h, w, C = fmap.shape
    return f"map {h}x{w}x{C}, K={V.shape[0]}"


def close(actual, expected):
    """Elementwise: is each value within the tolerance stated above EXPECTED?"""
    scale = np.abs(expected).max()
    return np.abs(actual - expected) <= RTOL * np.abs(expected) + ATOL_SCALE * scale


def same(a, b):
    return isinstance(a, np.ndarray) and a.shape == b.shape and bool(np.all(close(a, b)))


def hints(args, logits, cmap, want_logits, want_cmap):
    """Guesses at what went wrong, from the two outputs (either may be None) and the expected ones."""
    fmap, V, c = args
    h, w, C = fmap.shape
    found = []
    if isinstance(logits, np.ndarray) and logits.shape == want_logits.shape and not same(logits, want_logits):
        if h * w > 1 and any(same(logits, (want_logits - c) * (h * w) + extra) for extra in (c, 0 * c, h * w * c)):
            found.append(f"Your logits (minus the bias) are {h * w} = h*w times too large: the positions were summed, "
                         "not averaged. Divide by the number of positions.")
        elif same(logits, want_logits - c):
            found.append("Your logits are right without the bias: add c once.")
        elif same(logits, want_logits + c):
            found.append("Your logits hold the bias twice: add c once.")
    if isinstance(cmap, np.ndarray) and cmap.ndim == 3 and cmap.shape != want_cmap.shape:
        if cmap.shape == (want_cmap.shape[2], h, w):
            found.append("Your class map is laid out (K, h, w): put the classes last, (h, w, K).")
        elif cmap.shape == (w, h, want_cmap.shape[2]):
            found.append("Your class map has height and width swapped: it should be (h, w, K).")
    if isinstance(cmap, np.ndarray) and cmap.shape == want_cmap.shape and not same(cmap, want_cmap):
        if same(cmap + c, want_cmap):
            found.append("Your class map has no bias: the class map applies the whole layer at each position, "
                         "bias included, so that its mean over positions equals the logits.")
        elif same(cmap, want_cmap + (h * w - 1) * c):
            found.append(f"Your class map holds the bias {h * w} = h*w times: add c once per position.")
    if isinstance(cmap, np.ndarray) and cmap.shape == want_cmap.shape and isinstance(logits, np.ndarray) \
            and logits.shape == want_logits.shape and not same(cmap.mean(axis=(0, 1)), logits):
        found.append("The mean of your class map over the positions is not your logits: for the right pair, it is.")
    return found


def check_case(function, args, expected):
    """Return (passed, message, hints) for one public case."""
    want_logits, want_cmap = expected
    copies = [a.copy() for a in args]
    try:
        result = function(*copies)
    except Exception as exc:
        text = str(exc).strip()
        message = f"your function raised {type(exc).__name__}" + (f": {text.splitlines()[0][:200]}" if text else "")
        tips = []
        if "mismatch" in text or "aligned" in text:
            tips.append("A shape mismatch: V is (K, C), one row per class, and the map is (h, w, C), channels last.")
        return False, message, tips
    if result is None:
        return False, "not implemented yet: your function returned None", []
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        kind = f"{len(result)} values" if isinstance(result, (tuple, list)) else f"a {type(result).__name__}"
        return False, f"returned {kind}, not the pair (logits, class_map)", []
    logits, cmap = result
    if isinstance(logits, np.ndarray) and isinstance(cmap, np.ndarray) and logits.shape == want_cmap.shape \
            and cmap.shape == want_logits.shape:
        return False, "the outputs are in the other order", ["Return (logits, class_map): the logits first."]
    for name, got, want in (("logits", logits, want_logits), ("class_map", cmap, want_cmap)):
        if type(got) is not np.ndarray:
            return False, f"{name} is a {type(got).__name__}, not a numpy.ndarray", []
        if got.shape != want.shape:
            return False, f"{name} has shape {got.shape}, expected {want.shape}", \
                hints(args, logits, cmap, want_logits, want_cmap)
        if got.dtype != np.float64:
            return False, f"{name} has dtype {got.dtype}, expected float64", []
        if not np.all(np.isfinite(got)):
            return False, f"{name} contains NaN or infinity", []
    wrong = [(name, int((~close(got, want)).sum()), got.size)
             for name, got, want in (("logits", logits, want_logits), ("class_map", cmap, want_cmap))
             if not close(got, want).all()]
    if wrong:
        message = "values differ: " + "; ".join(f"{n} of {size} values of {name} are wrong" for name, n, size in wrong)
        return False, message, hints(args, logits, cmap, want_logits, want_cmap)
    changed = [n for n, a, b in zip(("fmap", "V", "c"), args, copies) if not np.array_equal(a, b)]
    if changed:
        return False, f"right values, but your function changed its input {', '.join(changed)} in place", []
    return True, "right shapes, dtypes and values", []


def self_check(function):
    results = []
    for name, args in public_cases():
        logits, cmap = EXPECTED[name]
        expected = (np.array(logits, dtype=np.float64), np.array(cmap, dtype=np.float64))
        results.append((name, args) + check_case(function, args, expected))
    if all(message.startswith("not implemented") for _, _, _, message, _ in results):
        print("✗ Not implemented yet: gap_head returned None. Write your solution in place of `pass` in the cell "
              "under Your solution, run that cell, then run this one again.")
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
        print("All public checks passed. When grading, hidden cases of other sizes (a single position, one channel, "
              "one class, GoogLeNet's 7x7x1024 map among them) are checked too.")


# The grader runs its own checks, so this cell does nothing while your submission is being graded.
if not os.environ.get("GRADER_PARENT"):
    try:
        gap_head
    except NameError:
        print("✗ There is no function named gap_head yet: run the cell with your code first "
              "(and keep the function's name).")
    else:
        self_check(gap_head)
