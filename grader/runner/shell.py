"""A stand-in for IPython's shell, the object a notebook's ``get_ipython()`` returns.

The grader rewrites a notebook's magics (``%time``, ``%%capture``, ``%%writefile``, ``%run``...) into calls of this
shell, as IPython itself does, so that a cell holding one still defines what it defines. What defines code runs in
the notebook's namespace; what would touch the system (``!pip``, ``%%bash``) does nothing and is noted, so that the
report can say so.
"""
from __future__ import annotations

import os
import sys

import standins  # next to this file, in the runner folder
import stdlib

__builtins__ = stdlib.own_builtins()  # the runner's own: student code may replace those it shares (stdlib.py)


#: The folders hosted notebooks run in: Colab's ``/content`` and Kaggle's ``/kaggle/working``. A file a cell writes
#: there by its full path (``%%writefile /content/helpers.py``) lands in the notebook's working folder, where the
#: next cell imports it; while grading, that folder is the scratch folder.
NOTEBOOK_HOMES = ("/content/", "/kaggle/working/")
#: the names IPython adds to the builtins while a notebook runs (``BuiltinTrap``, ``init_builtins``)
_IPYTHON_BUILTINS = ("get_ipython", "display")


def _at_home(name: str) -> str:
    """``name`` relative to the working folder when it is a path under a hosted notebook's working folder."""
    home = next((h for h in NOTEBOOK_HOMES if name.startswith(h)), None)
    return name[len(home):] if home else name


class Shell:
    """Enough of IPython's shell for rewritten magics: run what defines code, skip what touches the system."""

    RUN_LINE = {"time"}
    RUN_CELL = {"time", "capture", "prun"}  # each runs its body in the notebook's namespace, as IPython does
    QUIET = {"matplotlib", "load_ext", "config", "pinfo", "pinfo2", "who", "whos", "precision", "autoreload",
             "psearch", "pdoc", "pdef", "psource", "xmode", "colors", "reload_ext", "lsmagic"}

    def __init__(self, namespace: dict, child) -> None:
        self.user_ns = namespace
        self.child = child
        self.config = {"IPKernelApp": {}} if child.notebook else {}  # what "am I in a notebook?" checks read

    def __getattr__(self, name: str):
        """Any other part of the shell does nothing, as the stand-in modules do."""
        if name.startswith("__"):
            raise AttributeError(name)
        return standins.StandIn()

    def run_line_magic(self, name: str, line: str, _stack_depth: int = 1):
        if name in self.RUN_LINE:  # 'y = %time f(x)' binds f(x): an expression's value is given back, as IPython does
            try:
                expression = self.child.compile_cell(line, f"<%{name}>", "eval")
            except SyntaxError:
                exec(self.child.compile_cell(line, f"<%{name}>", "exec"), self.user_ns)
            else:
                return eval(expression, self.user_ns)
        elif name == "run":
            self.run_file(line)
        elif name == "aimport":  # autoreload's import: the modules become names of the notebook
            importlib = stdlib.load("importlib")
            for module in line.replace(",", " ").split():
                if not module.startswith("-"):
                    self.user_ns[module.partition(".")[0]] = importlib.import_module(module.partition(".")[0])
                    importlib.import_module(module)
        elif name == "pylab":  # numpy's names in the notebook, as ``%pylab`` puts them there
            exec("import numpy\nimport numpy as np\nfrom numpy import *\nimport matplotlib.pyplot as plt\n",
                 self.user_ns)
        elif name in ("reset", "reset_selective", "xdel"):
            self.forget(name, line)
        elif name not in self.QUIET:
            self.child.note("line-magic", name)
            if name == "timeit" and "-o" in line.split():  # 't = %timeit -o f(x)' then 't.best': a stand-in
                return standins.StandIn()
        return None

    def run_cell_magic(self, name: str, line: str, cell: str):
        if name in self.RUN_CELL:
            # '%%capture out' binds out, and so does '%%capture --no-stderr out' or '%%capture out --no-display':
            # the name is the one word that is not a flag, wherever it stands (IPython reads the line with argparse)
            names = [w for w in line.split() if not w.startswith("-")] if name == "capture" else []
            if names and names[0].isidentifier():
                self.user_ns[names[0]] = self.__getattr__("captured")  # a stand-in: nothing is captured
            exec(self.child.compile_cell(cell, getattr(self.child, "filename", "") or f"<%%{name}>", "exec"),
                 self.user_ns)
        elif name in ("writefile", "file"):
            self.write_file(line, cell)
        elif name == "cython":
            self.run_cython(cell)
        else:
            self.child.note("cell-magic", name)
        return None

    def forget(self, name: str, line: str) -> None:
        """``%reset [-f]``, ``%reset_selective [-f] REGEX``, ``%xdel NAME``: the student's names deleted, as in
        Jupyter, where the cells after it (the self-check, the grader's lookup) no longer find them."""
        words = [w for w in line.split() if not w.startswith("-")]
        if name == "reset" and words:  # 'in', 'out', 'dhist' clear histories, 'array' only arrays: not modelled
            self.child.note("reset", line.strip()[:40])
            return
        pattern = stdlib.load("re").compile(words[0]) if name == "reset_selective" and words else None
        for key in list(self.user_ns):
            if key.startswith("__") or key in ("get_ipython", "display") or (name == "xdel" and key not in words) \
                    or (pattern is not None and not pattern.search(key)):
                continue
            del self.user_ns[key]

    def run_cython(self, cell: str) -> None:
        """``%%cython``: no compiler runs during grading, but a body that is plain Python (Cython compiles any
        Python) runs as Python, so a solution written in such a cell is graded. Real Cython (``cdef``, typed
        memoryviews, ``cimport``) is not Python and is not run."""
        try:
            code = compile(cell, "<%%cython>", "exec", dont_inherit=True)
        except SyntaxError:
            self.child.note("cython-skipped")
            return
        self.child.note("cython-python")
        exec(code, self.user_ns)

    def write_file(self, line: str, cell: str) -> None:
        """``%%writefile [-a] name``: into the scratch folder only, which is importable as in Jupyter."""
        words = line.split()
        append = "-a" in words or "--append" in words
        names = [w for w in words if not w.startswith("-")]
        here = os.path.realpath(os.getcwd())
        target = os.path.realpath(os.path.join(here, _at_home(names[0].strip("'\""))) if names else here)
        if not names or not target.startswith(here + os.sep) or not os.path.isdir(os.path.dirname(target)):
            self.child.note("writefile", line.strip()[:60])
            return
        with open(target, "a" if append else "w", encoding="utf-8") as handle:
            handle.write(cell)
        if here not in sys.path:
            sys.path.insert(0, here)

    def run_file(self, line: str) -> None:
        """``%run [-i] [-n] file.py [args]``, as IPython runs it: the file as ``__main__`` (``-n``: not) in a fresh
        namespace (``-i``: the notebook's), whose names are then the notebook's. Only a .py file in the working
        folder (one a ``%%writefile`` cell made) can be there to run."""
        try:
            words = stdlib.load("shlex").split(line)
        except ValueError:
            words = line.split()
        options = {w for w in words if w.startswith("-")}
        rest = [w for w in words if not w.startswith("-")]
        here = os.path.realpath(os.getcwd())
        path = os.path.realpath(os.path.join(here, _at_home(rest[0]))) if rest else ""
        if not path.endswith(".py") or not path.startswith(here + os.sep) or not os.path.isfile(path):
            self.child.note("run", line.strip()[:60])
            return
        with open(path, encoding="utf-8") as handle:
            source = handle.read()
        shared = "-i" in options
        # IPython's get_ipython and display are builtins there, so a script %run calls them as the cells do: without
        # them, a helper file that displays a table or asks for the shell raised NameError during grading alone
        given = {k: self.user_ns[k] for k in _IPYTHON_BUILTINS if k in self.user_ns}
        namespace = self.user_ns if shared else {"__builtins__": self.child.builtins, **given}
        saved = {k: namespace[k] for k in ("__name__", "__file__") if k in namespace}
        namespace["__name__"] = os.path.splitext(os.path.basename(path))[0] if "-n" in options else "__main__"
        namespace["__file__"] = path
        argv, sys.argv = sys.argv, [path, *rest[1:]]
        try:
            exec(compile(source, path, "exec", dont_inherit=True), namespace)
        finally:
            sys.argv = argv
            if shared:
                for key in ("__name__", "__file__"):
                    namespace.pop(key, None)
                namespace.update(saved)
            else:
                self.user_ns.update({k: v for k, v in namespace.items()
                                     if k not in ("__builtins__", "__name__", "__file__") and
                                     not (k in given and v is given[k])})

    def run_cell(self, raw_cell: str, *args, **kwargs) -> None:
        """``get_ipython().run_cell(code)`` runs plain Python in the notebook's namespace; as in IPython, an error
        in it is shown, not raised, so the cell that asked goes on."""
        try:
            self.child.evaluate(self.child.compile_cell(raw_cell, "<run_cell>", "exec"))
        except Exception as exc:  # noqa: BLE001  (IPython shows any error of the code it runs)
            self.child.note("run-cell", type(exc).__name__)

    def push(self, variables, interactive: bool = True) -> None:
        """``get_ipython().push({'name': value})`` (or names of the caller's variables) binds them in the notebook."""
        if isinstance(variables, (str, list, tuple)):
            caller = sys._getframe(1)
            names = variables.replace(",", " ").split() if isinstance(variables, str) else variables
            variables = {name: eval(name, caller.f_globals, caller.f_locals) for name in names}
        self.user_ns.update(variables)

    def ex(self, cmd: str) -> None:
        """``get_ipython().ex(code)``: plain Python run in the notebook's namespace, whose names it keeps."""
        exec(compile(cmd, "<ex>", "exec", dont_inherit=True), self.user_ns)

    def ev(self, expr: str):
        """``get_ipython().ev(expression)``: its value, evaluated in the notebook's namespace."""
        return eval(compile(expr, "<ev>", "eval", dont_inherit=True), self.user_ns)

    def system(self, command: str) -> None:
        self.child.note("shell", command[:60])

    def getoutput(self, command: str, split: bool = True) -> list:
        self.system(command)
        return []

    magic = run_line_magic
