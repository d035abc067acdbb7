"""The cell runner: a notebook's cells (or a .py file's code) run in the student's module, as Jupyter runs them.

The student's namespace is set up as a kernel or a script would have it, a cell may ``await`` at its top level,
IPython's history (``_``, ``In``, ``Out``) is kept when the notebook reads it, and a cell that kills its own kernel
(Colab's restart after a ``pip install``) skips to the next cell. Each cell runs under its soft limit.
"""
from __future__ import annotations

import os
import sys

import standins  # next to this file, in the runner folder
import stdlib
from describe import describe_error
from shell import Shell

__builtins__ = stdlib.own_builtins()  # the runner's own: student code may replace those it shares (stdlib.py)

ALLOW_TOP_LEVEL_AWAIT, CO_COROUTINE = 0x2000, 0x80  # ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, inspect.CO_COROUTINE
#: the compiler flags of every ``from __future__ import ...`` (annotations, generator_stop...): what a cell's code
#: object carries when the cell imported one, and what IPython's compiler keeps for the cells after it
FUTURE_FLAGS = 0
for _name in stdlib.load("__future__").all_feature_names:
    FUTURE_FLAGS |= getattr(stdlib.load("__future__"), _name).compiler_flag
del _name


class _KernelRestart(BaseException):
    """Raised by ``os.kill(os.getpid(), 9)`` (or Colab's older ``os._exit(00)``) in a notebook's cell: Colab's
    documented way to restart the runtime after a ``!pip install``. There the kernel restarts and the student runs
    the cells below; here nothing was installed, so the rest of that cell is skipped and the cells below run (a note
    names it), where the kill ended the run and cost the 'completes' point of a working notebook. Only the cell's
    own thread in the kernel's own process restarts: a forked process or a thread ends as it did."""


#: signals that end a kernel killed by its own code (SIGKILL, SIGTERM, SIGQUIT, SIGHUP)
_ENDING = (9, 15, 3, 1)


class Cells:
    """The child's part that answers ``cell`` commands, and makes the student's namespace for the first of them."""

    def start_namespace(self) -> dict:
        """The student's module, as Python or Jupyter would have it: registered in ``sys.modules`` under its name
        (pickle, ``dataclasses`` with string annotations and ``sys.modules[__name__]`` look it up there), with
        ``__file__`` and ``sys.argv`` of a script for a .py file and of a kernel for a notebook, the builtins
        the ``site`` module adds (``help``, ``exit``, ``quit``), which this ``-S`` interpreter lacks, a
        ``breakpoint()`` that reads ``PYTHONBREAKPOINT`` as one without ``-I`` does, and a user name."""
        import builtins
        import types

        import _sitebuiltins

        module = types.ModuleType(self.run_name)
        namespace = module.__dict__
        namespace["__builtins__"] = self.builtins
        if self.notebook:
            sys.argv = ["ipykernel_launcher.py", "-f", "kernel.json"]
        else:
            namespace["__file__"] = os.path.join(os.getcwd(), "submission.py")
            sys.argv = [namespace["__file__"]]
            self.source_file = namespace["__file__"]
            if os.getcwd() not in sys.path:  # where a spawned worker imports the module from, as at home
                sys.path.append(os.getcwd())
        self.replaced = sys.modules.get(self.run_name)  # the runner's own ``__main__``: its functions keep its dict
        sys.modules[self.run_name] = module
        for name in ("exit", "quit"):
            if not hasattr(builtins, name):
                setattr(builtins, name, _sitebuiltins.Quitter(name, "Ctrl-D (i.e. EOF)"))
        if not hasattr(builtins, "help"):
            builtins.help = _sitebuiltins._Helper()
        sys.breakpointhook = _breakpoint
        for name in ("USER", "LOGNAME"):  # getpass.getuser() reads these first; the worker uid has no passwd entry
            os.environ.setdefault(name, "student")
        shell = Shell(namespace, self)
        namespace["get_ipython"] = lambda: shell
        namespace["display"] = shell.display
        standins.install(self.note, shell)  # IPython's own get_ipython() gives this shell too
        self.in_cell, self.pid, self.thread = False, os.getpid(), stdlib.load("_thread").get_ident()
        if self.notebook or self.run_name == "__main__":  # cells: a notebook, or a script exported from one
            os.kill, os._exit = _restart_kill(os.kill, self), _restart_exit(os._exit, self)
        return namespace

    def run_cell(self, command: dict) -> None:
        if not self.namespace:
            self.namespace = self.start_namespace()
        seconds = self.limits.get("cell_seconds")
        self.in_cell = True
        try:
            out_of_time, exc, _ = self.timed(seconds, lambda: self.execute(command["source"], command["filename"]))
        finally:
            self.in_cell = False
        if isinstance(exc, _KernelRestart):
            self.note("restart", str(command.get("number", "?")), str(exc.args[0]))
            exc = None
        error = describe_error(exc) if exc is not None else None
        self.send({"t": "cell-done", "seq": command["seq"], "error": error, "timed_out": out_of_time})

    def execute(self, source: str, filename: str) -> None:
        """Run one cell in the student's namespace; in a notebook, a cell may ``await`` at its top level, as IPython
        allows: it then runs to its end on the notebook's event loop."""
        flags = (ALLOW_TOP_LEVEL_AWAIT if self.notebook else 0) | self.future_flags
        self.filename = filename  # a %%time cell's body is compiled under it too: its errors are the cell's
        # its lines where inspect.getsource() and tracebacks look, as IPython keeps each cell's (no mtime: kept)
        stdlib.load("linecache").cache[filename] = (len(source), None, source.splitlines(True), filename)
        if not self.notebook:
            self.save_source(source)
        if self.history:
            self.execute_with_history(source, filename, flags)
            return
        self.evaluate(self.compile_cell(source, filename, "exec", flags))

    #: the ``from __future__`` flags of the cells run so far (a class default: the kernel makes the child)
    future_flags = 0

    def compile_cell(self, source, filename: str, mode: str, flags: int = 0):
        """``source`` compiled with the ``from __future__`` imports of the cells before it, as IPython compiles a
        cell: its compiler keeps the flags of each future import for the cells after it, so one
        ``from __future__ import annotations`` in a notebook's first cell leaves every later annotation a string.
        Compiled on its own, ``def f(x: Tensor)`` in a later cell raised NameError, and a function Jupyter ran was
        said never to be defined."""
        code = compile(source, filename, mode, flags=flags | self.future_flags, dont_inherit=True)
        self.future_flags |= code.co_flags & FUTURE_FLAGS
        return code

    def save_source(self, source: str) -> None:
        """Put a .py file's code, cell after cell, at its ``__file__`` in the scratch folder, as it is on the student's
        disk: a process pool of the ``spawn`` (or ``forkserver``) kind starts fresh interpreters that import the
        module, or run the script, from that file to find the function they are given. Without it each worker
        failed to start ("No module named 'submission'"), the pool waited for good and the call was 'too slow'."""
        flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if getattr(self, "source_saved", False) else os.O_TRUNC)
        try:
            fd = os.open(getattr(self, "source_file", ""), flags, 0o644)
            try:
                data = (source if source.endswith("\n") else source + "\n").encode("utf-8", "surrogatepass")
                while data:
                    data = data[os.write(fd, data):]
            finally:
                os.close(fd)
            self.source_saved = True
        except Exception:  # noqa: BLE001  (a file-size limit, a full folder, a replaced os: the pool fails as before)
            pass

    def evaluate(self, code):
        """Run compiled code in the student's namespace; its value (an expression's, or None)."""
        if not code.co_flags & CO_COROUTINE:
            return eval(code, self.namespace)
        asyncio = stdlib.load("asyncio")
        if self.loop is None or self.loop.is_closed():
            try:  # the loop an earlier cell got (asyncio.get_event_loop()), as the kernel's would be
                self.loop = asyncio.get_event_loop_policy().get_event_loop()
            except RuntimeError:
                self.loop = None
            if self.loop is None or self.loop.is_closed():
                self.loop = asyncio.new_event_loop()
            asyncio.set_event_loop(self.loop)
        return self.loop.run_until_complete(eval(code, self.namespace))

    def execute_with_history(self, source: str, filename: str, flags: int) -> None:
        """Run a cell as IPython does when the notebook reads its history: a last expression's value (unless a
        ``;`` ends the cell) becomes ``_``, ``_N`` and ``Out[N]``, the older ones ``__`` and ``___``, and the
        cell's code ``_i``, ``_iN`` and ``In[N]``; ``_`` and its kin are left alone once the student assigns
        them, as IPython leaves them."""
        import ast

        namespace = self.namespace
        if "In" not in namespace:
            namespace.update({"In": [""], "Out": {}, "_": "", "__": "", "___": "", "_i": "", "_ii": "", "_iii": ""})
        self.count += 1
        count = self.count
        tree = compile(source, filename, "exec", flags=flags | ast.PyCF_ONLY_AST, dont_inherit=True)
        last = None
        if tree.body and isinstance(tree.body[-1], ast.Expr) and not source.rstrip().endswith(";"):
            last = ast.Expression(tree.body.pop().value)
        inputs = namespace.get("In")
        if isinstance(inputs, list):
            inputs.append(source)
        namespace.update({"_iii": namespace.get("_ii", ""), "_ii": namespace.get("_i", ""), "_i": source,
                          f"_i{count}": source})
        self.evaluate(self.compile_cell(tree, filename, "exec", flags))
        value = self.evaluate(self.compile_cell(last, filename, "eval", flags)) if last else None
        if value is None:
            return
        untouched = all(namespace.get(name, mine) is mine for name, mine in zip(("_", "__", "___"), self.unders))
        self.unders = [value, *self.unders[:2]]
        if untouched:
            namespace.update(zip(("_", "__", "___"), self.unders))
        namespace[f"_{count}"] = value
        outputs = namespace.get("Out")
        if isinstance(outputs, dict):
            outputs[count] = value


def _restarting(child) -> bool:
    """Whether ending the process now is a kernel restart: a cell runs, in the kernel's own process and thread."""
    return child.in_cell and os.getpid() == child.pid and stdlib.load("_thread").get_ident() == child.thread


def _restart_kill(kill, child):
    """``os.kill`` for the student: the kernel killing itself with an ending signal from a cell's code is a kernel
    restart (``_KernelRestart``); any other call is the real one."""
    def restartable_kill(pid, sig, /):
        if pid in (0, os.getpid()) and sig in _ENDING and _restarting(child):
            raise _KernelRestart("os.kill(os.getpid(), ...)")
        return kill(pid, sig)
    restartable_kill.__name__ = restartable_kill.__qualname__ = "kill"
    return restartable_kill


def _restart_exit(exit, child):
    """``os._exit`` for the student: from a cell's code in the kernel's process, a kernel restart, as above."""
    def restartable_exit(status, /):
        if _restarting(child):
            raise _KernelRestart("os._exit()")
        return exit(status)
    restartable_exit.__name__ = restartable_exit.__qualname__ = "_exit"
    return restartable_exit


def _breakpoint(*args, **kwargs):
    """``breakpoint()`` as Python calls it when started without ``-I``: ``PYTHONBREAKPOINT`` is read from the
    environment at each call, so a student's ``os.environ["PYTHONBREAKPOINT"] = "0"`` turns it off; any other
    value is left to the default hook, which opens the debugger."""
    if os.environ.get("PYTHONBREAKPOINT") == "0":
        return None
    return sys.__breakpointhook__(*args, **kwargs)
