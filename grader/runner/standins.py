"""Stand-ins for the notebook environment's modules that the sandbox does not carry.

Real notebooks import plotting, progress-bar and framework modules next to their solution, often in the very cell
that defines the function (``import matplotlib.pyplot as plt``). Inside the sandbox only numpy exists, and a
failed import would stop that cell before the ``def``. For the modules listed here, an import that nothing else
can satisfy gets a stand-in that accepts any attribute or call and does nothing, and the grader is told so that
the report can say it. Modules that really are installed are never replaced. An import inside a ``try`` whose
handler provides a fallback for a missing module fails instead, as the student expects it might (``guarded``).

What correct code does with these modules must keep working as if the module were there and did nothing visible:

- a call with one positional argument that is not a plain value (a function, a class, an iterable) returns that
  argument, so decorators (``@torch.no_grad()``, ``@jax.jit``) and wrappers keep working; any other call gives a
  stand-in (``plt.figure(1)`` is a figure, not ``1``);
- progress bars (``tqdm``, ``trange``, ``tenumerate``, ... in any ``tqdm`` module) iterate what they wrap, whatever
  their other arguments, and their methods (``update``, ``set_postfix``, ``with``) do nothing;
- numba's decorators (``jit``, ``njit``, ``vectorize``, ...) accept signatures and options first and give back the
  function (``vectorize`` applies it element by element, as a ufunc would); ``prange`` is ``range``;
- matplotlib's ``subplots`` unpacks as ``fig, ax`` and gives a grid of axes (indexing, ``.flat``, ``.ravel()``)
  when asked for several; figures and axes are instances of stand-in ``Figure`` and ``Axes`` classes;
- ``__version__`` (and ``version``) is a string;
- a predicate named ``is_...`` answers False, as on a machine without a GPU (``torch.cuda.is_available()``) and for
  anything that is not the library's own type (``torch.is_tensor(features)``), ``list_...`` gives an empty list
  and ``device_count()`` 0: code that checks takes its numpy branch;
- IPython's ``get_ipython`` (``from IPython import get_ipython``, ``IPython.core.getipython.get_ipython``) gives
  the notebook's own shell, the one its cells call ``get_ipython()``, so ``run_cell_magic``, ``run_cell`` and
  ``push`` through it define what they define there;
- icecream's ``ic(x)`` gives back ``x``, as the real one does after printing it; joblib's ``Parallel`` runs the
  ``delayed`` calls it is given one after the other and returns their results;
- a capitalised name (``torch.Tensor``, ``nn.Module``, ``pd.DataFrame``) is a real class, the same one at every
  access: it can be subclassed, instantiated with any arguments (the instance is a stand-in), and used in
  ``isinstance``, ``X | Y`` and ``typing.Union``.
"""
from __future__ import annotations

import abc
import functools
import importlib.machinery
import numbers
import sys
import threading
import types
import typing

import guarded  # next to this file, in the runner folder

ENVIRONMENT_MODULES = frozenset({
    "matplotlib", "IPython", "ipywidgets", "google", "tqdm", "seaborn", "plotly", "pandas", "PIL", "cv2",
    "sklearn", "scipy", "torch", "torchvision", "tensorflow", "keras", "jax", "numba", "pytest", "nose",
    # what a notebook prints, logs or measures with, Colab's preinstalled ones among them: never the computation
    "psutil", "rich", "tabulate", "termcolor", "colorama", "wandb", "ipytest", "nest_asyncio",
    # what a solution's cell imports to debug, profile, log, check types or pin BLAS threads: never the computation
    "threadpoolctl", "icecream", "loguru", "ipdb", "memory_profiler", "line_profiler", "pyinstrument", "watermark",
    "jaxtyping", "beartype", "typeguard", "nptyping", "dotenv", "mlflow", "tensorboard", "torchinfo", "prettytable",
    "humanize", "typing_extensions",  # typing's backport: typing's own names where it has them (``_lookup``)
    "joblib",  # its Parallel runs the calls in turn (see ``_Parallel``): the computation is the student's own
    "piplite", "micropip", "pyodide", "pyodide_js", "js", "marimo",  # JupyterLite's installers (awaited), marimo
})

SILENT = frozenset({"typing_extensions"})  # no note: the names the student gets behave as the real module's
VERSION = "0.0.0+stand-in"

#: modules whose calls are awaited (``await micropip.install(["numpy"])``): a list handed back raised TypeError
_AWAITED = frozenset({"piplite", "micropip", "pyodide", "pyodide_js", "js"})
#: a single argument of these types is a value, not something being wrapped or decorated
_PLAIN = (str, bytes, bytearray, numbers.Number, type(None))


def _handed_back(value) -> bool:
    """Whether a stand-in called with ``value`` alone gives it back: what a decorator or a wrapper takes (a function,
    a class, a range, a list, an iterator), never an array or a number. A real call would compute with those, so a
    stood-in ``F.relu(z)`` or ``softmax(z)`` that gave its input back would hide the very mistake it makes;
    given a stand-in instead, the function returns no array, and the report says which module was missing."""
    if isinstance(value, _PLAIN) or hasattr(value, "__array__") or hasattr(value, "__array_interface__"):
        return False
    return callable(value) or hasattr(value, "__iter__")


def _lookup(parent: str, name: str):
    """The value of attribute ``name`` of the stand-in (module, object or class) whose dotted path is ``parent``."""
    if name in ("__version__", "version"):
        return _Version(VERSION)
    if name.startswith("__") and name.endswith("__"):
        raise AttributeError(name)
    if parent == "typing_extensions" and hasattr(typing, name):  # Final, Self, Protocol...: typing's own
        return getattr(typing, name)
    path = f"{parent}.{name}"
    if name.startswith("is_"):  # ``torch.cuda.is_available()``, ``torch.is_tensor(x)``: no GPU, no tensor here
        return _Call(path, _false)
    if name.startswith("list_") or name.endswith("device_count"):  # ``tf.config.list_physical_devices("GPU")``
        return _Call(path, _empty if name.startswith("list_") else _zero)
    special = _SPECIALS.get(parent.partition(".")[0], {}).get(name)
    if special is not None:
        return special(parent, path)
    if name[:1].isupper() and any(c.islower() for c in name):  # CamelCase: a class (ALL_CAPS stays a constant)
        return _class_for(path)
    return StandIn(path)


#: the answers of ``is_...`` (no GPU, not a tensor), ``list_...`` (a new empty list each time) and ``device_count``
_false, _empty, _zero = (lambda *a, **k: False), (lambda *a, **k: []), (lambda *a, **k: 0)


@functools.lru_cache(maxsize=None)
def _named(root: str) -> type:
    """The type of a module's plain stand-ins, named for what the student reads: a result that is a 'stand-in for
    torch', an error on an "operand 'stand-in for scipy'", where 'standins.StandIn' named no module."""
    name = f"stand-in for {root}" if root in ENVIRONMENT_MODULES else "stand-in"
    return type(name, (StandIn,), {"__module__": "", "__qualname__": name})


class StandIn:
    """Absorbs attribute access, calls, indexing, iteration, ``with`` and ``await``; never raises."""

    _standin_path = "stand-in"

    def __new__(cls, *args, **kwargs):  # a plain stand-in is of its module's type: see ``_named``
        root = str(args[0] if args else "").partition(".")[0].partition("(")[0].partition("[")[0]
        return object.__new__(_named(root) if cls is StandIn else cls)

    def __init__(self, path: str = "stand-in") -> None:
        self._standin_path = path

    def __getattr__(self, name: str):
        return _lookup(self._standin_path, name)

    def __call__(self, *args, **kwargs):
        if len(args) == 1 and _handed_back(args[0]) and self._standin_path.partition(".")[0] not in _AWAITED:
            return args[0]
        return StandIn(self._standin_path + "()")

    def __getitem__(self, key) -> StandIn:
        return StandIn(self._standin_path + "[]")

    __setitem__ = lambda self, key, value: None  # noqa: E731

    # empty (its length too), true, zero as a number, its own context manager that lets errors through
    __iter__ = lambda self: iter(())  # noqa: E731
    __len__ = __int__ = __index__ = lambda self: 0  # noqa: E731
    __bool__ = lambda self: True  # noqa: E731
    __float__ = lambda self: 0.0  # noqa: E731
    __enter__ = lambda self: self  # noqa: E731
    __exit__ = lambda self, *exc: False  # noqa: E731
    __repr__ = lambda self: "<stand-in>"  # noqa: E731
    __await__ = lambda self: (yield from ()) or self  # noqa: E731 - ``await micropip.install(...)``: itself, at once

    def __format__(self, spec: str) -> str:  # f"{accuracy:.2f}"
        return repr(self)

    def _result(self, *args) -> StandIn:
        return StandIn(self._standin_path + "()")

    # arithmetic and comparisons give stand-ins; numpy defers to them (``array - stand_in``)
    __array_ufunc__ = None
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _result
    __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = __pow__ = __rpow__ = __matmul__ = __rmatmul__ = _result
    __neg__ = __pos__ = __abs__ = __invert__ = __lt__ = __le__ = __gt__ = __ge__ = _result


class _Version(str):
    """A version string whose other attributes (``torch.version.cuda``) are stand-ins."""

    def __getattr__(self, name: str):
        return _lookup("version", name)

    __call__ = lambda self, *args, **kwargs: self  # noqa: E731


# -- classes ------------------------------------------------------------------------------------------------------
class _StandInMeta(abc.ABCMeta):
    """The type of stand-in classes: class attributes are absorbed too (``Image.open``, ``tqdm.write``).

    Derived from ``ABCMeta`` so that a student's ``class Net(nn.Module, ABC)`` has a metaclass to agree on."""

    def __getattr__(cls, name: str):
        return _lookup(cls._standin_path, name)

    def __repr__(cls) -> str:
        return f"<class '{cls.__module__}.{cls.__qualname__}'>"


class _StandInClass(StandIn, metaclass=_StandInMeta):
    """Base of the classes that capitalised names stand for; instances behave as stand-ins."""

    def __init__(self, *args, **kwargs) -> None:
        pass

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__()

    def __class_getitem__(cls, item):  # ``pd.Series[float]`` in an annotation
        return cls

    def __call__(self, *args, **kwargs):
        """An instance of the student's own subclass runs its ``forward`` (torch) or ``call`` (keras), as the real
        base class would; anything else is a stand-in's call."""
        for klass in type(self).__mro__:
            if "_standin_path" in vars(klass):  # a stand-in's own class: nothing of the student's from here on
                break
            for name in ("forward", "call"):
                method = vars(klass).get(name)
                if callable(method):
                    return method(self, *args, **kwargs)
        return StandIn.__call__(self, *args, **kwargs)


_classes: dict[str, type] = {}
_classes_lock = threading.Lock()


def _class_for(path: str, base: type = _StandInClass, namespace: dict | None = None) -> type:
    """The class standing for ``path``: created on first use, the same object afterwards."""
    with _classes_lock:
        cls = _classes.get(path)
        if cls is None:
            module, _, name = path.rpartition(".")
            body = {"__module__": module, "__qualname__": name, "_standin_path": path, **(namespace or {})}
            cls = _classes[path] = _StandInMeta(name, (base,), body)
        return cls


class _Call(StandIn):
    """A stand-in attribute that does something when called (and still absorbs attribute access)."""

    def __init__(self, path: str, function) -> None:
        super().__init__(path)
        self._standin_function = function

    def __call__(self, *args, **kwargs):
        return self._standin_function(*args, **kwargs)


# -- progress bars ------------------------------------------------------------------------------------------------
class _ProgressBar(_StandInClass):
    """``tqdm(iterable=None, desc=None, total=None, ...)``: iterates ``iterable``; every method does nothing."""

    _standin_path = "tqdm.tqdm"

    def __init__(self, iterable=None, desc=None, total=None, *args, **kwargs) -> None:
        self.iterable = iterable
        self.desc = desc
        self.total = total
        self.n = 0

    def __iter__(self):
        if self.iterable is None:
            return
        for item in self.iterable:
            yield item
            self.n += 1

    def __len__(self) -> int:
        if self.total is not None:
            return int(self.total)
        try:
            return len(self.iterable)
        except TypeError:
            return 0

    def update(self, n=1) -> None:
        try:
            self.n += n
        except TypeError:
            pass

    @staticmethod
    def write(*args, **kwargs) -> None:
        pass

    def __repr__(self) -> str:
        return "<stand-in progress bar>"


def _given(value):
    """A special that is ``value`` itself, whatever the path it is reached by."""
    return lambda parent, path: value


def _tenumerate(iterable, start=0, total=None, tqdm_class=None, **kwargs):
    return _ProgressBar(enumerate(iterable, start), total=total, **kwargs)


# -- joblib -----------------------------------------------------------------------------------------------------------
class _Parallel(_StandInClass):
    """joblib's ``Parallel(n_jobs=...)(delayed(f)(x) for x in xs)``: the calls run one after the other, in order."""

    _standin_path = "joblib.Parallel"

    def __call__(self, calls):
        return [function(*args, **kwargs) for function, args, kwargs in calls]


def _delayed(function):
    """``delayed(f)(x)`` is the call ``(f, (x,), {})``, as joblib makes it, for ``Parallel`` to run."""
    return functools.wraps(function)(lambda *args, **kwargs: (function, args, kwargs))


# -- numba ----------------------------------------------------------------------------------------------------------
def _is_function(value) -> bool:
    """Is this what a decorator decorates (a function or a class), rather than a signature or an option?"""
    if isinstance(value, (StandIn, *_PLAIN, list, tuple, dict)):
        return False
    if isinstance(value, type) and issubclass(value, StandIn):
        return False
    return callable(value)


def _compiled(function):
    if isinstance(function, types.FunctionType):
        function.py_func = function  # what numba's dispatchers expose
    return function


def _elementwise(function):
    """``@vectorize``: the scalar function applied to every element, as a ufunc would (numpy loaded lazily)."""
    try:
        import numpy
    except ImportError:  # not in the sandbox; array-at-once code still works
        return function
    each = numpy.vectorize(function, otypes=[object])

    @functools.wraps(function)
    def ufunc(*args, **kwargs):
        values = numpy.array(each(*args).tolist())
        floats = [numpy.asarray(a).dtype for a in args if numpy.asarray(a).dtype.kind in "fc"]
        if floats and values.dtype.kind in "iu":  # ``z if z > 0 else 0`` on floats is float, as numba types it
            values = values.astype(numpy.result_type(*floats))
        return values[()] if values.ndim == 0 else values

    ufunc.py_func = function
    return ufunc


def _decorator(wrap):
    def factory(parent: str, path: str):
        def decorate(*args, **kwargs):
            if args and _is_function(args[0]):  # ``@njit`` or ``njit(f, cache=True)``
                return wrap(args[0])
            # ``@njit("float64(float64)", cache=True)``, ``@vectorize([float64(float64)])``, ``@njit(parallel=True)``
            return lambda function: wrap(function) if _is_function(function) else function
        return _Call(path, decorate)
    return factory


# -- matplotlib -----------------------------------------------------------------------------------------------------
def _figure_class() -> type:
    return _class_for("matplotlib.figure.Figure")


def _axes_class() -> type:
    return _class_for("matplotlib.axes.Axes")


def _count(value) -> int:
    try:
        return max(int(value), 1)
    except (TypeError, ValueError):
        return 1


def _axes_grid(nrows=1, ncols=1, *args, squeeze=True, **kwargs):
    """What ``subplots(nrows, ncols)`` gives as axes: one Axes for 1x1, else a numpy object array of them."""
    rows, cols = _count(nrows), _count(ncols)
    axes = _axes_class()
    try:
        import numpy
    except ImportError:
        grid = [[axes() for _ in range(cols)] for _ in range(rows)]
        if not squeeze:
            return grid
        if rows == 1 and cols == 1:
            return grid[0][0]
        return grid[0] if rows == 1 else [row[0] for row in grid] if cols == 1 else grid
    grid = numpy.empty((rows, cols), dtype=object)
    for index in range(grid.size):
        grid.flat[index] = axes()
    if not squeeze:
        return grid
    grid = grid.squeeze()
    return grid.item() if grid.ndim == 0 else grid


def _subplots(parent: str, path: str):
    def subplots(*args, **kwargs):
        axes = _axes_grid(*args, **kwargs)
        return axes if parent.endswith("Figure") else (_figure_class()(), axes)
    return _Call(path, subplots)


def _subplot_mosaic(parent: str, path: str):
    def mosaic(*args, **kwargs):
        axes = StandIn(path + "()")
        return axes if parent.endswith("Figure") else (_figure_class()(), axes)
    return _Call(path, mosaic)


def _new_figure(parent: str, path: str):
    return _Call(path, lambda *args, **kwargs: _figure_class()())


def _new_axes(parent: str, path: str):
    return _Call(path, lambda *args, **kwargs: _axes_class()())


def _returns(count: int, container=tuple):
    """A call whose result is unpacked into ``count`` names (``n, bins, patches = plt.hist(x)``, ``line, = ...``)."""
    def factory(parent: str, path: str):
        return _Call(path, lambda *args, **kwargs: container(StandIn(path + "()") for _ in range(count)))
    return factory


#: the notebook's shell (``install``'s), what IPython's ``get_ipython()`` gives back
_shell: list = []


def _ic(parent: str, path: str):
    """icecream's ``ic(x)`` prints and gives back its argument (several as a tuple, none as None): ``return ic(y)``."""
    return _Call(path, lambda *args, **kwargs: args[0] if len(args) == 1 else (args or None))


_SPECIALS = {
    "IPython": {"get_ipython": lambda parent, path: _Call(path, lambda *args, **kwargs: _shell[0] if _shell
                                                          else StandIn(path + "()"))},
    "icecream": {"ic": _ic},
    "joblib": {"Parallel": _given(_Parallel), "delayed": _given(_delayed)},
    "tqdm": {
        **dict.fromkeys(("tqdm", "tqdm_notebook", "tqdm_gui", "tqdm_rich"), _given(_ProgressBar)),
        **dict.fromkeys(("trange", "tnrange"), _given(lambda *args, **kwargs: _ProgressBar(range(*args), **kwargs))),
        "tenumerate": _given(_tenumerate),
        "tzip": _given(lambda *iterables, **kwargs: _ProgressBar(zip(*iterables))),
        "tmap": _given(lambda function, *iterables, **kwargs: _ProgressBar(map(function, *iterables))),
        **dict.fromkeys(("process_map", "thread_map"), _given(lambda function, *iterables, **kwargs: list(
            map(function, *iterables)))),
    },
    "numba": {
        **{name: _decorator(_compiled) for name in (
            "jit", "njit", "guvectorize", "cfunc", "generated_jit", "stencil", "jitclass", "overload",
            "overload_method", "register_jitable", "intrinsic")},
        "vectorize": _decorator(_elementwise),
        "prange": _given(range),
    },
    "matplotlib": {
        "subplots": _subplots, "subplot_mosaic": _subplot_mosaic,
        "figure": _new_figure, "gcf": _new_figure,
        **{name: _new_axes for name in ("subplot", "add_subplot", "gca", "axes", "add_axes", "twinx", "twiny",
                                        "inset_axes")},
        "hist": _returns(3), "xlim": _returns(2), "ylim": _returns(2), "get_xlim": _returns(2),
        "get_ylim": _returns(2), "get_legend_handles_labels": _returns(2),
        **{name: _returns(1, list) for name in ("plot", "semilogx", "semilogy", "loglog", "step")},
    },
}


# -- the modules --------------------------------------------------------------------------------------------------
class _StandInModule(types.ModuleType):
    def __getattr__(self, name: str):
        value = _lookup(self.__name__, name)
        if isinstance(value, type):  # the same class at every access, even if the cache were bypassed
            setattr(self, name, value)
        return value


class _Finder:
    """Last on ``sys.meta_path``: only consulted when no real module was found. A finder and loader by its methods,
    as the import system asks (``importlib.abc`` loads pathlib, tempfile and more into every template: 5 ms)."""

    def __init__(self, report) -> None:
        self.report = report

    def find_spec(self, fullname, path=None, target=None):
        top = fullname.partition(".")[0]
        if top not in ENVIRONMENT_MODULES:
            return None
        frame, importing = guarded.importing_frame()
        if not importing:  # ``importlib.util.find_spec(name)``: is it installed? It is not.
            return None
        if frame is not None and guarded.has_fallback(frame, ENVIRONMENT_MODULES):
            if top == fullname and top not in SILENT:
                self.report("module-guarded", guarded.requested(top))
            return None  # ModuleNotFoundError, which the student's handler expects
        if top == fullname and top not in SILENT:
            self.report("module-stand-in", guarded.requested(top))
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):
        module = _StandInModule(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module) -> None:
        pass


def install(report, shell=None) -> None:
    """Add the fallback finder; ``report(kind, module)`` is called once per stood-in top-level module, with the name the
    import asked for (``google.colab``: the first one, when several submodules are imported); ``shell`` is what
    IPython's ``get_ipython()`` gives (the notebook's own shell: a stand-in lost what its magics defined)."""
    if shell is not None:
        _shell[:] = [shell]
    sys.meta_path.append(_Finder(report))
