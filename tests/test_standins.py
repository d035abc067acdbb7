"""The stand-ins for notebook-environment modules let correct code run as if the module were there and idle.

Each check runs in a fresh interpreter (``-I``) that puts ``grader/runner`` on ``sys.path`` as the child does and
installs the finder, so nothing leaks into other tests. The finder is moved to the front of ``sys.meta_path`` there:
the test environment may have real tqdm or matplotlib, which the sandbox does not. End-to-end grading of such code
is covered by ``submissions/correct/progress-bar-jit.py``, ``submissions/correct/torch-optional-types.py`` and
``submissions/notebooks/correct-stand-in-types.ipynb`` (test_catalog.py, test_loading.py).
"""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

RUNNER = Path(__file__).resolve().parents[1] / "grader" / "runner"

PRELUDE = f"""
import sys
sys.path.insert(0, {str(RUNNER)!r})
import standins
assert "numpy" not in sys.modules, "standins must import without numpy"
notes = []
# the runner names each note's kind and module; the parent writes the sentence (grader/notes.py): mimicked here
standins.install(lambda kind, module: notes.append(f"'{{module}}' " + ("fallback" if kind == "module-guarded" else "")))
sys.meta_path.insert(0, sys.meta_path.pop())  # ahead of any real tqdm, matplotlib, torch of the test environment
"""


def run(code: str) -> str:
    done = subprocess.run([sys.executable, "-I", "-c", PRELUDE + textwrap.dedent(code)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_progress_bars_iterate_what_they_wrap_whatever_else_they_are_given():
    run("""
        import tqdm as tqdm_module
        from tqdm import tqdm, trange, tqdm_notebook
        from tqdm.auto import tqdm as auto_tqdm
        from tqdm.notebook import trange as notebook_trange
        from tqdm.contrib import tenumerate, tzip

        assert tqdm is auto_tqdm is tqdm_notebook is tqdm_module.tqdm
        assert list(tqdm(range(3), "FC head")) == [0, 1, 2]          # desc is the second positional argument
        assert list(tqdm("ab", "desc", 2, False)) == ["a", "b"]
        assert list(tqdm(iterable=[4, 5], desc="x", total=2, leave=False)) == [4, 5]
        assert list(tqdm(enumerate("ab"), total=2)) == [(0, "a"), (1, "b")]
        assert list(trange(3)) == [0, 1, 2] and list(notebook_trange(1, 7, 2, desc="x")) == [1, 3, 5]
        assert list(tenumerate("ab")) == [(0, "a"), (1, "b")] and list(tzip("ab", "cd")) == [("a", "c"), ("b", "d")]

        bar = tqdm(range(4))
        seen = []
        for i in bar:
            bar.set_postfix(sample=i)
            bar.set_description(f"sample {i}")
            bar.set_postfix_str("x"); bar.refresh(); bar.anything_else(1, 2)
            seen.append(i)
        bar.close()
        assert seen == [0, 1, 2, 3] and bar.n == 4 and len(bar) == 4
        with tqdm(total=10, desc="manual") as manual:
            manual.update(3)
            manual.update()
        assert manual.n == 4 and len(manual) == 10 and list(manual) == []
        tqdm.write("not shown"); tqdm.pandas()
        assert isinstance(bar, tqdm)
    """)


def test_numba_decorators_hand_back_a_working_function():
    out = run("""
        import numpy as np
        import numba
        from numba import float64, guvectorize, jit, njit, prange, vectorize

        @njit
        def plain(x):
            return x + 1

        @numba.njit("float64[:,:](float64[:,:])", cache=True)
        def with_signature(z):
            return np.maximum(z, 0.0)

        @njit(parallel=True, fastmath=True)
        def rows(x):
            out = np.empty(x.shape[0])
            for i in prange(x.shape[0]):
                out[i] = x[i].sum()
            return out

        @jit([float64(float64)], nopython=True)
        def listed(z):
            return 2 * z

        @vectorize([float64(float64)])
        def relu(z):
            return z if z > 0 else 0          # a scalar function: applied element by element, float as numba types it

        @vectorize
        def lazy(z):
            return z * z

        @guvectorize(["void(float64[:], float64[:])"], "(n)->(n)")
        def copy_into(x, out):              # handed back as written: callable with its output argument
            out[:] = x

        assert plain(1) == 2 and plain.py_func is plain
        assert numba.jit(lambda v: v * 3, cache=True)(2) == 6
        assert with_signature(np.array([[-1.0, 2.0]])).tolist() == [[0.0, 2.0]]
        assert rows(np.ones((3, 2))).tolist() == [2.0, 2.0, 2.0]
        assert listed(2.0) == 4.0
        z = np.array([[-1.0, 2.0], [3.0, -4.0]])
        assert relu(z).tolist() == [[0.0, 2.0], [3.0, 0.0]] and relu(z).dtype == np.float64
        assert relu(np.array([-1.0, -2.0])).dtype == np.float64 and relu(5.0) == 5.0
        assert lazy(np.arange(3)).tolist() == [0, 1, 4]
        assert list(prange(2, 5)) == [2, 3, 4]
        target = np.zeros(2)
        copy_into(np.ones(2), target)
        assert target.tolist() == [1.0, 1.0]
        print(numba.__version__)
    """)
    assert "stand-in" in out


def test_subplots_unpack_and_give_a_grid_of_axes():
    run("""
        import matplotlib
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots()
        ax.plot([1, 2]); ax.set_title("x")
        assert isinstance(fig, matplotlib.figure.Figure) and isinstance(ax, matplotlib.axes.Axes)
        fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
        left.imshow([[0]]); right.legend()
        fig, axes = plt.subplots(2, 3)
        axes[0, 1].plot([1]); axes[1][2].hist([1])
        assert axes.shape == (2, 3) and len(list(axes.flat)) == 6
        assert axes.ravel().shape == (6,) and axes.flatten().shape == (6,) and len(axes) == 2
        for row in axes:
            for one in row:
                one.set_xticks([])
        assert plt.subplots(3)[1].shape == (3,) and plt.subplots(nrows=1, ncols=4)[1].shape == (4,)
        assert plt.subplots(squeeze=False)[1].shape == (1, 1)
        assert fig.subplots(2, 2).shape == (2, 2)
        sub = plt.figure(1).add_subplot(111)     # numbers are not passed through as if they were the figure
        sub.plot([1]); plt.subplot(211).set_title("t"); plt.gca().grid(True)
        n, bins, patches = plt.hist([1, 2, 3])
        line, = plt.plot([1, 2, 3])
        lo, hi = plt.xlim()
        plt.show(); plt.close("all")
    """)


def test_versions_are_strings():
    out = run("""
        import matplotlib, torch, sklearn
        print("matplotlib", matplotlib.__version__, torch.__version__.split("+")[0], torch.version.cuda)
        assert isinstance(torch.__version__, str) and isinstance(sklearn.__version__, str)
        assert torch.__version__.split(".")[:2] == ["0", "0"]
    """)
    assert out.startswith("matplotlib 0.0")


def test_capitalised_names_are_classes_usable_as_types():
    run("""
        import abc, typing
        import numpy as np
        import torch
        import torch.nn as nn
        from torch import Tensor
        import pandas as pd

        assert Tensor is torch.Tensor and nn.Module is torch.nn.Module is nn.Module
        assert isinstance(torch.Tensor, type) and not isinstance(np.zeros(2), torch.Tensor)
        union = np.ndarray | torch.Tensor
        assert isinstance(np.zeros(2), union)
        assert typing.Union[np.ndarray, torch.Tensor] and typing.Optional[torch.Tensor]

        def f(x: np.ndarray | torch.Tensor, y: "torch.Tensor" = None) -> typing.List[torch.Tensor]:
            return [x]
        assert f(1) == [1]

        class Net(nn.Module):
            def __init__(self, width):
                super().__init__()
                self.width = width
                self.fc = nn.Linear(width, 3)

            def forward(self, x):
                return x

        net = Net(4)
        assert isinstance(net, nn.Module) and net.width == 4 and net.forward(5) == 5
        net.eval(); net.to("cpu"); list(net.parameters())

        class Abstract(nn.Module, abc.ABC):
            pass
        Abstract()

        t = torch.Tensor(2, 3)
        assert isinstance(t, torch.Tensor)
        t.numpy(); t.shape
        df = pd.DataFrame(np.zeros((2, 2)), columns=["a", "b"])
        assert isinstance(df, pd.DataFrame) and pd.Series[float] is pd.Series
        torch.Tensor.add; nn.Module.__init__
    """)


def test_plain_stand_ins_still_absorb_everything_and_keep_decorated_functions():
    run("""
        import numpy as np
        import torch
        import seaborn as sns
        from IPython.display import display, Markdown

        @torch.no_grad()
        def doubled(x):
            return 2 * x
        assert doubled(2) == 4
        with torch.no_grad():
            pass
        compiled = torch.compile(lambda v: v + 1)
        assert compiled(1) == 2
        items = [1, 2]
        assert torch.tensor(items) is items                      # a single wrapped object is handed back
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        device.type; torch.manual_seed(0); sns.set_theme(); display(Markdown("x"))
        x = torch.zeros(3)
        np.arange(3) - x; x * 2; -x; x @ np.eye(2); x < 1
        print(f"{x.sum().item():.3f}", len(torch.cuda.list_devices()), float(x), int(x), list(range(x)))
        for _ in torch.utils.data.DataLoader(None):
            raise AssertionError("a stand-in iterates as empty")
    """)


def test_each_top_level_module_is_reported_once():
    out = run("""
        import tqdm, tqdm.auto
        from tqdm.notebook import tqdm as t2
        import numba
        print(len(notes), sorted(n.split("'")[1] for n in notes))
    """)
    assert out.split(None, 1)[0] == "2" and "['numba', 'tqdm']" in out


def test_an_import_with_a_fallback_for_a_missing_module_fails_as_without_the_module():
    out = run("""
        import importlib
        import numpy as np

        try:
            import jax.numpy as jnp
            from jax import jit
        except ImportError:                       # every name the import binds is bound again
            jnp, jit = np, (lambda f: f)
        assert jnp is np and jit(len) is len

        try:
            import torch
            HAS_TORCH = torch.cuda.is_available()
        except (ValueError, ModuleNotFoundError) as error:   # a flag the body sets too
            HAS_TORCH = False
        assert HAS_TORCH is False and "torch" not in sys.modules

        try:
            with open(__import__("os").devnull):
                from numba import njit
        except Exception:                         # through a with block to the try around it
            njit = None
        assert njit is None

        def load():
            try:
                return importlib.import_module("sklearn"), True
            except:                               # a bare except, in a function, around importlib
                found = False
            return None, found
        assert load() == (None, False)
        print(sorted(n.split("'")[1] for n in notes), all("fallback" in n for n in notes))
    """)
    assert "['jax.numpy', 'numba', 'sklearn', 'torch'] True" in out


def test_an_import_without_a_fallback_still_gets_a_stand_in():
    """Code that only runs where the module exists keeps working as if it were there."""
    out = run("""
        try:
            import torch
            from torch import nn                  # nn is not rebound: later code uses it unconditionally
        except ImportError:
            torch = None
        class Head(nn.Module):
            pass

        try:
            import matplotlib.pyplot as plt
        except ImportError:
            print("no plots")                     # binds nothing
        try:
            import tqdm
        except ValueError:                        # does not catch ImportError
            tqdm = None
        try:
            import seaborn
        finally:
            pass
        try:
            import pandas as pd
        except ImportError:
            raise SystemExit("install pandas")
        assert all(name in sys.modules for name in ("torch", "matplotlib", "tqdm", "seaborn", "pandas"))
        assert torch is not None and tqdm is not None
        print(sorted(n.split("'")[1] for n in notes), any("fallback" in n for n in notes))
    """)
    assert "['matplotlib.pyplot', 'pandas', 'seaborn', 'torch', 'tqdm'] False" in out


def test_code_that_asks_whether_a_library_or_a_gpu_is_there_hears_no():
    out = run("""
        import importlib.util
        import numpy as np
        import torch
        import tensorflow as tf

        assert importlib.util.find_spec("jax") is None              # asked, not imported: not installed
        assert "jax" not in sys.modules
        assert torch.cuda.is_available() is False and torch.backends.mps.is_available() is False
        assert torch.is_tensor(np.zeros(2)) is False and tf.test.is_gpu_available() is False
        torch.cuda.is_available.anything                           # still a stand-in otherwise
        print(sorted(n.split("'")[1] for n in notes))
    """)
    assert "['tensorflow', 'torch']" in out


def test_device_lists_are_empty_and_a_helper_returning_none_for_a_missing_module_gets_none():
    out = run("""
        import importlib
        import tensorflow as tf
        import torch

        assert tf.config.list_physical_devices("GPU") == [] and torch.cuda.device_count() == 0

        def optional(name):
            try:
                return importlib.import_module(name)
            except ImportError:
                return None                       # the caller's fallback: None, as without the module
        assert optional("jax") is None and "jax" not in sys.modules
        print(sorted(n.split("'")[1] for n in notes))
    """)
    assert "['jax', 'tensorflow', 'torch']" in out


def test_an_import_under_contextlib_suppress_with_a_fallback_fails_as_without_the_module():
    """``suppress(ImportError)`` swallows the error as ``except ImportError: pass`` does: it counts as guarded only
    where the names it would bind are bound again, before or after, in the same cell or function."""
    out = run("""
        import contextlib
        from contextlib import suppress
        import numpy as np

        with contextlib.suppress(ImportError):
            import jax.numpy as jnp
        try:
            jnp
        except NameError:
            jnp = np
        assert jnp is np

        def jit_or_not():
            with suppress(ModuleNotFoundError, ValueError):
                from numba import njit
                return njit
            if 'njit' not in locals():
                njit = None
            return njit
        assert jit_or_not() is None

        torch = None
        with suppress(Exception):
            import torch
        assert torch is None
        print(sorted(n.split("'")[1] for n in notes), all("fallback" in n for n in notes))
    """)
    assert "['jax.numpy', 'numba', 'torch'] True" in out


def test_an_import_under_suppress_without_a_fallback_or_of_something_else_keeps_its_stand_in():
    out = run("""
        import contextlib

        with contextlib.suppress(ImportError):    # nothing binds torch again: code below needs it
            import torch
        class Head(torch.nn.Module):
            pass

        class suppress:                           # not contextlib's, whatever its name
            def __init__(self, *args): pass
            def __enter__(self): return self
            def __exit__(self, *args): return True
        with suppress(ImportError):
            import tqdm
        tqdm = tqdm

        with contextlib.suppress(KeyError):       # does not catch an ImportError
            import seaborn
        seaborn = seaborn

        with contextlib.nullcontext():            # no suppress at all
            import pandas as pd
        pd = pd
        assert all(name in sys.modules for name in ("torch", "tqdm", "seaborn", "pandas"))
        print(sorted(n.split("'")[1] for n in notes), any("fallback" in n for n in notes))
    """)
    assert "['pandas', 'seaborn', 'torch', 'tqdm'] False" in out
