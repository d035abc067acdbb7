"""What an exception's own text does not say: added to a student's error message where the grader knows more.

A notebook written for NumPy 1.x fails under NumPy 2 with ``AttributeError: module 'numpy' has no attribute
'product'``; the message does not say that the name was removed, nor what replaced it. The grader's sandbox runs
the NumPy it was installed with, so the hint names that version too. The same holds for what a later NumPy removed
after a deprecation (``np.trapz``, ``np.reshape(a, newshape=...)``), which a notebook last run on Colab may still use.

A system call the sandbox refuses fails with a bare ``PermissionError: [Errno 1] Operation not permitted``. Correct
code meets it through ``multiprocessing``: a pool of the 'forkserver' start method (Python 3.14's default on Linux,
and so ``ProcessPoolExecutor``'s) opens a Unix socket, which the seccomp filter denies. The student
read only "Operation not permitted" at their own ``with Pool(...)`` line and could not tell why.
"""
from __future__ import annotations

import re
import sys

import numpy as np

#: names NumPy 2.0 removed from its main namespace, and what to write instead (from NumPy 2.0's migration guide)
REMOVED_IN_NUMPY_2 = {
    "alltrue": "np.all", "sometrue": "np.any", "product": "np.prod", "cumproduct": "np.cumprod",
    "asfarray": "np.asarray(x, dtype=np.float64)", "cast": "np.asarray(x, dtype=...)",
    "float_": "np.float64", "complex_": "np.complex128", "cfloat": "np.complex128", "longfloat": "np.longdouble",
    "singlecomplex": "np.complex64", "clongfloat": "np.clongdouble", "longcomplex": "np.clongdouble",
    "string_": "np.bytes_", "unicode_": "np.str_", "round_": "np.round", "mat": "np.asmatrix",
    "msort": "np.sort(a, axis=0)", "Inf": "np.inf", "Infinity": "np.inf", "infty": "np.inf", "PINF": "np.inf",
    "NINF": "-np.inf", "NaN": "np.nan", "PZERO": "0.0", "NZERO": "-0.0",
    "find_common_type": "np.result_type", "fastCopyAndTranspose": "a.T.copy()", "safe_eval": "ast.literal_eval",
    "set_string_function": "np.set_printoptions", "issubclass_": "issubclass", "source": "inspect.getsource",
    "disp": "print", "byte_bounds": "np.lib.array_utils.byte_bounds",
}
#: names NumPy 2.0 deprecated and a later release removed (2.4 for these), and what to write instead: a notebook
#: that ran on Colab's NumPy 2.0 fails here with nothing in the error to say why
REMOVED_AFTER_NUMPY_2 = {"trapz": "np.trapezoid", "in1d": "np.isin"}
#: keyword arguments a later NumPy removed after deprecating them: (functions, what to write instead)
REMOVED_KEYWORDS = {
    "newshape": (("reshape",), "pass the shape on its own, np.reshape(a, (B, -1)), or as shape=(B, -1) "
                 "(newshape= was deprecated in NumPy 2.1)"),
    "interpolation": (("percentile", "quantile", "nanpercentile", "nanquantile"),
                      "write method= instead (interpolation= was deprecated in NumPy 1.22)"),
}
#: what EPERM's message is; the sandbox's refusals are the only way student code meets it here (seccomp: sockets,
#: System V IPC, namespaces...), and multiprocessing's socket is the one correct code opens
_REFUSED = "[Errno 1] Operation not permitted"
_MISSING = re.compile(r"^module 'numpy' has no attribute '([A-Za-z_]\w*)'")
_KEYWORD = re.compile(r"^(\w+)\(\) got an unexpected keyword argument '(\w+)'")
_NO_MODULE = re.compile(r"^No module named '([A-Za-z_][\w.]*)'")


def error_hint(kind: str, message: str) -> str:
    """A sentence to add to the message of an exception of type ``kind``, or ""."""
    found = _MISSING.match(message) if kind == "AttributeError" else None
    if found and found.group(1) in REMOVED_IN_NUMPY_2:
        return (f"np.{found.group(1)} was removed in NumPy 2.0 (the grader runs NumPy {np.__version__}): "
                f"use {REMOVED_IN_NUMPY_2[found.group(1)]} instead.")
    if found and found.group(1) in REMOVED_AFTER_NUMPY_2 and not hasattr(np, found.group(1)):
        return (f"np.{found.group(1)}, deprecated since NumPy 2.0, is gone from NumPy {np.__version__}, which the "
                f"grader runs: use {REMOVED_AFTER_NUMPY_2[found.group(1)]} instead.")
    keyword = _KEYWORD.match(message) if kind == "TypeError" else None
    if keyword and keyword.group(2) in REMOVED_KEYWORDS and keyword.group(1) in REMOVED_KEYWORDS[keyword.group(2)][0]:
        return (f"{keyword.group(1)}()'s {keyword.group(2)}= keyword is gone from NumPy {np.__version__}, which the "
                f"grader runs: {REMOVED_KEYWORDS[keyword.group(2)][1]}.")
    module = _NO_MODULE.match(message) if kind == "ModuleNotFoundError" else None
    if module and module.group(1).partition(".")[0] not in (*sys.stdlib_module_names, "numpy"):
        return ("only numpy and Python's standard library are installed where the grader runs, and a submission is "
                "graded on its own, without the files beside it: write that step with numpy, or define it in the "
                "submission itself")
    if kind == "PermissionError" and message.startswith(_REFUSED):
        return ("Errno 1 is the grading sandbox refusing a system call: student code may not open sockets, Unix ones "
                "included, nor use System V IPC. multiprocessing's 'forkserver' start method, Python 3.14's default on "
                "Linux, needs one: compute in this process, as NumPy works on the whole batch at "
                "once, or use threads or multiprocessing.get_context('fork')")
    return ""
