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
#: what a run may print when the grader does not say (``sandbox.Limits.output_mib``)
DEFAULT_OUTPUT_BYTES = 8 << 20


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
        self.captures: list[CapturedIO] = []  # the %%capture cells running, innermost last
        #: how much captured text may still be kept: as much as the run may print (``_Kept``)
        self.capture_room = int(child.limits.get("output_bytes") or DEFAULT_OUTPUT_BYTES)
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
        elif name in ("env", "set_env"):
            return self.environment(name, line)
        elif name not in self.QUIET:
            self.child.note("line-magic", name)
            if name == "timeit" and "-o" in line.split():  # 't = %timeit -o f(x)' then 't.best': a stand-in
                return standins.StandIn()
        return None

    def run_cell_magic(self, name: str, line: str, cell: str):
        if name == "capture":
            self.capture(line, cell)
        elif name in self.RUN_CELL:
            exec(self.child.compile_cell(cell, self._cell_filename(name), "exec"), self.user_ns)
        elif name in ("writefile", "file"):
            self.write_file(line, cell)
        elif name == "cython":
            self.run_cython(cell)
        else:
            self.child.note("cell-magic", name)
        return None

    def _cell_filename(self, magic: str) -> str:
        """The running cell's name, so that an error in a magic's body is named by the cell's own line."""
        return getattr(self.child, "filename", "") or f"<%%{magic}>"

    def capture(self, line: str, cell: str) -> None:
        """``%%capture [--no-stdout] [--no-stderr] [--no-display] [name]``, as IPython runs it: what the body
        prints and displays (its last expression's value too) is kept in a ``CapturedIO`` bound to ``name`` once the
        body has run, even when it failed, so a later cell's ``assert 'done' in cap.stdout`` or ``cap.show()`` works.
        The name is the one word that is not a flag, wherever it stands (IPython reads the line with argparse).

        Nothing is shown while grading, but the text is still written where printed text goes: it counts against
        the run's output limit as printing does (past it the grader discards it, says so, and the writes wait as a
        flood's do), and no more of it than that limit is kept, over all the captures of the run."""
        words = line.split()
        names = [w for w in words if not w.startswith("-")]
        streams = {}
        for stream, flag in (("stdout", "--no-stdout"), ("stderr", "--no-stderr")):
            if flag not in words:
                streams[stream] = _Kept(getattr(sys, stream), self)
        captured = CapturedIO(streams.get("stdout"), streams.get("stderr"), None if "--no-display" in words else [])
        saved = {stream: getattr(sys, stream) for stream in streams}
        self.captures.append(captured)
        try:
            for stream, kept in streams.items():
                setattr(sys, stream, kept)
            self._run_keeping_last(cell, captured._outputs)
        finally:
            for stream, before in saved.items():
                setattr(sys, stream, before)
            self.captures.remove(captured)
            if names and names[0].isidentifier():
                self.user_ns[names[0]] = captured

    def _run_keeping_last(self, cell: str, outputs: list | None) -> None:
        """Run a cell magic's body; its last expression's value goes into ``outputs``, as IPython's display hook
        puts it there while capturing (not when a ';' ends the body, nor when the display is not captured)."""
        filename = self._cell_filename("capture")
        if outputs is None:
            exec(self.child.compile_cell(cell, filename, "exec"), self.user_ns)
            return
        ast = stdlib.load("ast")
        tree = compile(cell, filename, "exec", flags=ast.PyCF_ONLY_AST | self.child.future_flags, dont_inherit=True)
        last = None
        if tree.body and isinstance(tree.body[-1], ast.Expr) and not cell.rstrip().endswith(";"):
            last = ast.Expression(tree.body.pop().value)
        exec(self.child.compile_cell(tree, filename, "exec"), self.user_ns)
        value = eval(self.child.compile_cell(last, filename, "eval"), self.user_ns) if last is not None else None
        if value is not None:
            outputs.append(value)

    def display(self, *objs, display_id=None, **kwargs):
        """IPython's ``display``, which shows nothing while grading: inside a ``%%capture`` cell what it shows is
        kept in the capture's ``outputs``; as in Jupyter, it gives back a handle to update when asked for one
        (``h = display(bar, display_id=True)`` then ``h.update(...)`` in a progress loop)."""
        if self.captures and self.captures[-1]._outputs is not None:
            self.captures[-1]._outputs.extend(objs)
        return standins.StandIn("DisplayHandle") if display_id else None

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

    def environment(self, name: str, line: str):
        """``%env``, ``%env NAME``, ``%env NAME=value`` (or ``NAME value``) and ``%set_env NAME value``, as IPython
        runs them: they read and set the run's own environment, which a later ``os.environ["NAME"]`` reads (left
        unset, a cell that read it raised KeyError where Jupyter's did not). Only the run's process sees them."""
        words = line.strip()
        if name == "env" and not words:
            return dict(os.environ)
        parts = words.split("=" if "=" in words else None, 1)
        if len(parts) < 2 or not parts[0].strip() or len(parts[0].split()) > 1:
            if name == "env" and len(parts) == 1:
                return os.environ.get(words)
            self.child.note("line-magic", name)  # IPython's UsageError: nothing is set
            return None
        key, value = parts[0].strip(), parts[1].strip()
        os.environ[key] = value
        print(f"env: {key}={value}")
        return None

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


class _Kept:
    """``sys.stdout`` or ``sys.stderr`` while a ``%%capture`` cell runs: each write is kept for the capture, as
    IPython's ``StringIO`` keeps it, and also written on to the stream it replaced, so the grader counts it as
    printed text. What is kept is bounded by the shell's ``capture_room``: past it, the text is only written on."""

    encoding, errors = "utf-8", "strict"

    def __init__(self, through, shell: Shell) -> None:
        self.through, self.shell, self.parts = through, shell, []

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"string argument expected, got '{type(text).__name__}'")
        if self.through is not None:  # a sys.stdout set to None before the cell: the text is only kept
            self.through.write(text)
        room = self.shell.capture_room
        if room > 0:
            data = text.encode("utf-8", "surrogatepass")
            self.parts.append(text if len(data) <= room else data[:room].decode("utf-8", "ignore"))
            self.shell.capture_room = room - min(len(data), room)
        return len(text)

    def writelines(self, lines) -> None:
        for text in lines:
            self.write(text)

    def flush(self) -> None:
        if self.through is not None:
            self.through.flush()

    def isatty(self) -> bool:
        return False

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        raise stdlib.load("io").UnsupportedOperation("fileno")  # as IPython's StringIO: no descriptor to write to

    def getvalue(self) -> str:
        return "".join(self.parts)


class CapturedIO:
    """What a ``%%capture`` cell printed and displayed, as IPython's ``IPython.utils.capture.CapturedIO`` holds it:
    ``stdout`` and ``stderr`` ('' when not captured), ``outputs`` (what it displayed), and ``show()`` (or a call),
    which prints them again."""

    def __init__(self, stdout: _Kept | None, stderr: _Kept | None, outputs: list | None) -> None:
        self._stdout, self._stderr, self._outputs = stdout, stderr, outputs

    def __str__(self) -> str:
        return self.stdout

    @property
    def stdout(self) -> str:
        return self._stdout.getvalue() if self._stdout is not None else ""

    @property
    def stderr(self) -> str:
        return self._stderr.getvalue() if self._stderr is not None else ""

    @property
    def outputs(self) -> list:
        return [RichOutput(value) for value in self._outputs or ()]

    def show(self) -> None:
        sys.stdout.write(self.stdout)
        sys.stderr.write(self.stderr)
        sys.stdout.flush()
        sys.stderr.flush()

    __call__ = show


class RichOutput:
    """One thing a captured cell displayed, as IPython keeps it: its ``data`` by MIME type (the text form here,
    made when it is read) and its ``metadata``; showing it again shows nothing while grading."""

    def __init__(self, value) -> None:
        self.value, self.metadata = value, {}

    @property
    def data(self) -> dict:
        return {"text/plain": repr(self.value)}

    def display(self) -> None:
        return None
