"""Stand-ins for the notebook environment's modules that the sandbox does not carry.

Real notebooks import plotting, progress-bar and framework modules next to their solution, often in the very cell
that defines the function (``import matplotlib.pyplot as plt``). Inside the sandbox only numpy exists, and a
failed import would stop that cell before the ``def``. For the modules listed here, an import that nothing else
can satisfy gets a stand-in that accepts any attribute or call and does nothing, and the grader is told so that
the report can say it. A call with one positional argument returns that argument, so decorators (``@njit``) and
wrappers (``tqdm(range(n))``) keep working. Modules that really are installed are never replaced.
"""
from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import types

ENVIRONMENT_MODULES = frozenset({
    "matplotlib", "IPython", "ipywidgets", "google", "tqdm", "seaborn", "plotly", "pandas", "PIL", "cv2",
    "sklearn", "scipy", "torch", "torchvision", "tensorflow", "keras", "jax", "numba", "pytest", "nose",
})


class StandIn:
    """Absorbs attribute access, calls, indexing, iteration and ``with``; never raises."""

    def __getattr__(self, name: str) -> StandIn:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return StandIn()

    def __call__(self, *args, **kwargs):
        return args[0] if len(args) == 1 else StandIn()

    def __getitem__(self, key) -> StandIn:
        return StandIn()

    def __setitem__(self, key, value) -> None:
        pass

    def __iter__(self):
        return iter(())

    def __enter__(self) -> StandIn:
        return self

    def __exit__(self, *exc) -> bool:
        return False

    def __repr__(self) -> str:
        return "<stand-in>"


class _StandInModule(types.ModuleType):
    def __getattr__(self, name: str):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return StandIn()


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Last on ``sys.meta_path``: only consulted when no real module was found."""

    def __init__(self, report) -> None:
        self.report = report

    def find_spec(self, fullname, path=None, target=None):
        top = fullname.partition(".")[0]
        if top not in ENVIRONMENT_MODULES:
            return None
        if top == fullname:
            self.report(f"The module '{top}' is not available while grading; a stand-in that does nothing "
                        "was used for it.")
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):
        module = _StandInModule(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module) -> None:
        pass


def install(report) -> None:
    """Add the fallback finder; ``report(text)`` is called once per stood-in top-level module."""
    sys.meta_path.append(_Finder(report))
