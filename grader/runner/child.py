"""The sandboxed child: runs the cells and calls the parent sends, one at a time, and answers each.

Runs as ``python -I -S child.py CHANNEL_FD`` with only the standard library and numpy importable. The parent
drives: it sends command frames on stdin (setup, a cell, the function lookup, a call, the end; a function's calls
may be queued ahead) and waits for the answers on the channel, one per command, in order. This side reads the next
command only once it has answered the last. Nothing here decides a grade: the answers are data the parent checks,
and student code shares this process, so it can reach these objects and forge answers. It gains nothing by it:
the parent owns the clock (each step's deadline from the moment this side can start it), the sequence (an answer
to anything but the command the parent awaits ends the run) and every verdict (inputs sit in memory the parent
reads back after the call).
"""
from __future__ import annotations

import mmap
import os
import signal
import sys
import time

_here = os.path.dirname(os.path.abspath(__file__))
_HEADER = 8  # two big-endian uint32: JSON length, payload length
ALLOW_TOP_LEVEL_AWAIT, CO_COROUTINE = 0x2000, 0x80  # ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, inspect.CO_COROUTINE


class _OutOfTime(BaseException):
    """Raised by the alarm in the middle of student code, as Jupyter's interrupt would, so the run goes on."""


class _KernelRestart(BaseException):
    """Raised by ``os.kill(os.getpid(), 9)`` (or Colab's older ``os._exit(00)``) in a notebook's cell: Colab's
    documented way to restart the runtime after a ``!pip install``. There the kernel restarts and the student runs
    the cells below; here nothing was installed, so the rest of that cell is skipped and the cells below run (a note
    names it), where the kill ended the run and cost the 'completes' point of a working notebook. Only the cell's
    own thread in the kernel's own process restarts: a forked process or a thread ends as it did."""


#: signals that end a kernel killed by its own code (SIGKILL, SIGTERM, SIGQUIT, SIGHUP)
_ENDING = (9, 15, 3, 1)


class _Clock:
    """A soft limit counts the run's own time: wall time less what it spent waiting for a core (the run delay in
    its /proc/self/schedstat, opened before Landlock hides /proc). On a machine loaded from outside, a correct but
    slow call was stopped at its limit after a fraction of it on a core; the alarm now grants such a wait again,
    up to twice the limit, and the parent's deadline does the same from its own reading of the same counter."""

    def __init__(self) -> None:
        self.fd, self.start, self.granted, self.most = -1, 0, 0.0, 0.0
        try:
            self.fd = os.open("/proc/self/schedstat", os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            pass

    def delay(self) -> int:
        try:
            return int(os.pread(self.fd, 100, 0).split()[1])
        except (OSError, ValueError, IndexError):  # closed or replaced by student code: no grant
            return -1

    def arm(self, seconds: float, most: float = 2.0, grace: float = 2.0) -> None:
        """A new limit of ``seconds``: waits are granted up to what the parent grants its deadline (``most`` times
        the limit and its grace), less that grace, so the alarm still answers before the parent's kill."""
        self.start, self.granted, self.most = self.delay(), 0.0, most * (seconds + grace) - grace

    def waited(self) -> float:
        """Seconds spent waiting for a core since the limit was armed (0 where unknown)."""
        now = self.delay()
        return (now - self.start) / 1e9 if now >= 0 and self.start >= 0 else 0.0

    def more(self) -> float:
        """Seconds to grant now: the wait for a core since the limit was armed, not yet granted."""
        grant = min(self.waited() - self.granted, self.most - self.granted)
        if grant < 0.005:
            return 0.0
        self.granted += grant
        return grant


_CLOCK: _Clock | None = None
#: once a soft limit is up, its alarm goes off again this often until the step ends: Python swallows an exception
#: raised in a ``__del__`` (or a weakref callback), so one alarm that landed there left the step running unstopped
REPEAT = 0.1
#: whether the alarm went off since the last limit was armed, even where Python swallowed it (a ``__del__``)
_FIRED = [False]


def _alarm(signum, frame) -> None:
    grant = _CLOCK.more() if _CLOCK is not None else 0.0
    if grant:
        signal.setitimer(signal.ITIMER_REAL, grant, REPEAT)
        return
    _FIRED[0] = True
    raise _OutOfTime()


def _read_exactly(fd: int, n: int) -> bytes:
    chunks, got = [], 0
    while got < n:
        chunk = os.read(fd, min(n - got, 1 << 20))
        if not chunk:
            raise EOFError("the grader closed the command pipe")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def _read_command(fd: int) -> tuple[dict, bytes]:
    import json
    import struct

    body_len, payload_len = struct.unpack(">II", _read_exactly(fd, _HEADER))
    message = json.loads(_read_exactly(fd, body_len))
    return message, (_read_exactly(fd, payload_len) if payload_len else b"")


def main() -> None:
    # Commands arrive on stdin; move them off fd 0 so that input() in student code reads /dev/null (EOF), as in
    # a kernel with no frontend, instead of eating the parent's next command.
    commands = os.dup(0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    setup, _ = _read_command(commands)
    sys.path[:0] = [_here, *setup.get("paths", [])]

    import confine  # noqa: E402  (the sandbox's in-process layers, applied before any student code)

    global _CLOCK
    _CLOCK = _Clock()  # before Landlock, which hides /proc
    confine.apply(setup.get("confine", {}))

    import numpy as np  # noqa: E402
    import rows  # noqa: E402, F401
    import standins  # noqa: E402, F401
    import wire  # noqa: E402

    _hide_runner()
    Child(setup, commands, np, wire).serve()


#: the runner's own modules, imported from its folder while it starts
RUNNER_MODULES = ("wire", "child", "confine", "guarded", "rows", "standins", "template", "landlock", "seccomp",
                  "rootfs")
#: those the runner still needs once student code runs, kept here rather than in ``sys.modules``
_RUNNER: dict = {}


def _hide_runner() -> None:
    """Take the runner's folder off ``sys.path`` and its modules out of ``sys.modules`` before any student code runs.

    Left there, a student's ``import wire`` gave the runner's module (a name the student's own machine does not
    have), a ``wire.py`` the student wrote with ``%%writefile`` was never imported, and one named ``rows.py`` was
    what the runner imported later, in the student's place. Now the student's own file wins, a missing one fails
    as it would at home, and the runner keeps its modules to itself."""
    for name in RUNNER_MODULES:
        module = sys.modules.pop(name, None)
        if module is not None:
            _RUNNER[name] = module
    try:
        here = os.stat(_here)
    except OSError:
        return

    def runner_folder(entry) -> bool:  # by inode: confine may have renamed it /proc/self/fd/N
        try:
            return os.path.samestat(os.stat(entry), here)
        except (OSError, TypeError, ValueError):
            return False

    sys.path[:] = [entry for entry in sys.path if not runner_folder(entry)]


class Child:
    def __init__(self, setup: dict, commands: int, np, wire) -> None:
        self.np = np
        self.wire = wire
        self.commands = commands
        channel_fd = int(sys.argv[1])
        self.channel = os.dup(channel_fd)  # moved off the number the student could guess from argv
        os.close(channel_fd)
        self.write = os.write
        self.runner, self.end = os.getpid(), os._exit  # kept before student code can fork or replace os._exit
        self.ndarray = np.ndarray
        self.run_name = setup.get("run_name", "__main__")
        self.notebook = setup.get("source") == "ipynb"  # else a .py file, run as a module or a script
        self.loop = None  # the event loop of a notebook's top-level ``await``, made on first use
        self.limits = setup.get("soft_limits", {})
        self.inputs = None
        if setup.get("inputs_size"):
            import mmap

            # The parent's memory: it wrote each call's inputs here and reads them back after the call.
            self.inputs = mmap.mmap(int(setup["inputs_fd"]), int(setup["inputs_size"]))
        self.notes: set[str] = set()
        self.namespace: dict = {}
        self.functions: dict = {}  # what each lookup found, by name: an assignment asks for several
        # IPython's input and output history (In, Out, _, _i, _N...), kept when a notebook's code reads any of it
        self.history = self.notebook and bool(setup.get("history"))
        self.count = 0  # the execution count of the last cell run
        self.unders: list = ["", "", ""]  # the last three outputs, as IPython's display hook keeps them
        self.address_space = _address_space()  # the grader's limit, before any student code can lower it
        signal.signal(signal.SIGALRM, _alarm)

    def timed(self, seconds: float | None, action):
        """Run ``action()`` under a soft time limit; return (timed_out, exception or None, value).

        The alarm is one-shot, so the outer handler catches the single late alarm that could fire between the
        action's end and the disarm. Code that blocks SIGALRM is still stopped: by the parent's hard deadline.
        """
        try:
            if seconds:
                _FIRED[0] = False
                if _CLOCK is not None:
                    _CLOCK.arm(float(seconds), float(self.limits.get("wait_most", 2.0)),
                               float(self.limits.get("grace", 2.0)))
                signal.setitimer(signal.ITIMER_REAL, float(seconds), REPEAT)
            try:
                return False, None, action()
            except _OutOfTime:
                return True, None, None
            except BaseException as exc:  # SystemExit and KeyboardInterrupt too, as Jupyter would
                return False, exc, None
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
        except _OutOfTime:
            signal.setitimer(signal.ITIMER_REAL, 0)
            return True, None, None

    # -- plumbing -------------------------------------------------------------------------------------------
    def send(self, message: dict, payload=b"") -> None:
        """One frame; ``payload`` is bytes or a list of buffers, written as they are (a result is never copied)."""
        if os.getpid() != self.runner:  # a copy the student's os.fork() made, back in this loop: it ends quietly,
            self.end(0)  # as a forked kernel's copy would be of no use (it used to answer too: a protocol error)
        chunks = payload if isinstance(payload, list) else [payload]
        size = sum(memoryview(c).nbytes for c in chunks)
        for chunk in [self.wire.encode_header(message, size), *chunks]:
            view = memoryview(chunk).cast("B")
            while view:
                written = self.write(self.channel, view)
                view = view[written:]

    def serve(self) -> None:
        self.send({"t": "ready", "seq": 0})
        handlers = {"cell": self.run_cell, "lookup": self.lookup, "call": self.call}
        while True:
            try:  # its imports go through builtins.__import__, which student code may have replaced
                message, _ = _read_command(self.commands)
            except BaseException:  # noqa: BLE001  (was exit code 0, read as the student's own os._exit(0))
                os._exit(self.wire.RUNNER_BROKEN)
            kind = message.get("t")
            if kind == "end":  # gone at once: unwinding the student's objects would only cost time (ms per run)
                _leave()
            try:
                handlers[kind](message)
            except BaseException:  # noqa: BLE001  (student code broke this side: a replaced builtin, a closed fd)
                os._exit(self.wire.RUNNER_BROKEN)  # the parent names that, not an os._exit(0) of the student's

    # -- stages ---------------------------------------------------------------------------------------------
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
        namespace["__builtins__"] = __builtins__
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
        shell = _Shell(namespace, self)
        namespace["get_ipython"] = lambda: shell
        namespace["display"] = lambda *objs, **kw: None
        _RUNNER["standins"].install(self.note, shell)  # IPython's own get_ipython() gives this shell too
        self.in_cell, self.pid, self.thread = False, os.getpid(), _stdlib("_thread").get_ident()
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
        error = _describe(exc) if exc is not None else None
        self.send({"t": "cell-done", "seq": command["seq"], "error": error, "timed_out": out_of_time})

    def execute(self, source: str, filename: str) -> None:
        """Run one cell in the student's namespace; in a notebook, a cell may ``await`` at its top level, as IPython
        allows: it then runs to its end on the notebook's event loop."""
        flags = ALLOW_TOP_LEVEL_AWAIT if self.notebook else 0
        self.filename = filename  # a %%time cell's body is compiled under it too: its errors are the cell's
        # its lines where inspect.getsource() and tracebacks look, as IPython keeps each cell's (no mtime: kept)
        _stdlib("linecache").cache[filename] = (len(source), None, source.splitlines(True), filename)
        if not self.notebook:
            self.save_source(source)
        if self.history:
            self.execute_with_history(source, filename, flags)
            return
        self.evaluate(compile(source, filename, "exec", flags=flags, dont_inherit=True))

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
        asyncio = _stdlib("asyncio")
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
        self.evaluate(compile(tree, filename, "exec", flags=flags, dont_inherit=True))
        value = self.evaluate(compile(last, filename, "eval", flags=flags, dont_inherit=True)) if last else None
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

    def lookup(self, command: dict) -> None:
        namespace = self.namespace or self.start_namespace()
        name = str(command["name"])
        function = namespace.get(name)
        if function is None and not self.notebook and callable(namespace.get("__getattr__")):
            # a module's own __getattr__ (PEP 562) answers ``from submission import name`` for names it lacks
            out_of_time, failed, found = self.timed(self.wire.SIGNATURE_SECONDS,
                                                    lambda: namespace["__getattr__"](name))
            function = found if not out_of_time and failed is None else None
        reply = {"t": "function", "seq": command["seq"], "found": function is not None,
                 "callable": function is not None and callable(function), "type": _type_name(function)}
        if not reply["callable"]:
            reply["candidates"] = sorted(  # names cut: globals()['f' * 10**7] = print is a name too
                k[:100] for k, v in list(namespace.items()) if isinstance(k, str) and callable(v)
                and not k.startswith("__"))[:200]
        else:  # its parameters, for the parent to compare with the exercise's: reading them may run student code
            out_of_time, failed, declared = self.timed(self.wire.SIGNATURE_SECONDS, lambda: _signature(function,
                                                                                                      self.wire))
            reply["signature"] = declared if not out_of_time and failed is None else None
        self.functions[name] = function
        self.send(reply)

    def argument(self, spec: dict, base: int = 0):
        np = self.np
        if "value" in spec:  # a Python scalar or None, passed as it is
            return spec["value"]
        if "period" in spec:  # raw rows that repeat (see rows.py): mapped copy-on-write, as below
            return _RUNNER["rows"].repeated(spec["file"], spec["dtype"], tuple(spec["shape"]), spec["period"],
                                            writable=True)
        if "file" in spec:
            # Large shared inputs are mapped copy-on-write: no copy per submission, and writes stay private. The
            # header is read unbuffered: on a huge-page tmpfs a buffered open reads 2 MiB (st_blksize) per file.
            form = np.lib.format
            with open(spec["file"], "rb", buffering=0) as handle:
                version = form.read_magic(handle)
                if version not in ((1, 0), (2, 0)):
                    return np.load(spec["file"], mmap_mode="c", allow_pickle=False).view(np.ndarray)
                read = form.read_array_header_1_0 if version == (1, 0) else form.read_array_header_2_0
                shape, fortran, dtype = read(handle)
                if dtype.hasobject:
                    raise ValueError("a shared input holds objects")
                mapped = np.memmap(handle, dtype=dtype, mode="c", offset=handle.tell(), shape=shape,
                                   order="F" if fortran else "C")
                return mapped.view(np.ndarray)  # what the caller hands over is a plain array, not a np.memmap
        dtype = np.dtype(spec["dtype"])
        count = 1
        for n in spec["shape"]:
            count *= n
        return np.frombuffer(self.inputs, dtype=dtype, count=count, offset=base + spec["offset"]).reshape(spec["shape"])

    def call(self, command: dict) -> None:
        base = command.get("base", 0)  # inline offsets count from the call's place in the shared memory
        try:
            args = [self.argument(spec, base) for spec in command["args"]]
        except (MemoryError, OSError, ValueError) as exc:
            error = _own_limit_error(command["args"], self.address_space, exc)
            if error is None:
                raise  # the runner's own failure, named as such by the parent
            self.send({"t": "result", "seq": command["seq"], "status": "raised", "error": error, "reshaped": []})
            return
        forms = [_form(arg) for arg in args]
        function = self.functions[command["function"]]
        reply = {"t": "result", "seq": command["seq"], "status": "ok", "error": None}
        payload = b""
        seconds = command.get("seconds", self.limits.get("call_seconds"))
        started = time.monotonic()
        out_of_time, exc, value = self.timed(seconds, lambda: function(*args))
        held = [value, exc]  # what the call made, released below while its own time still runs
        raised = exc is not None
        del value, exc

        def left() -> float | None:
            own = time.monotonic() - started - (_CLOCK.waited() if _CLOCK is not None else 0.0)
            return max(seconds - own, 0.01) if seconds else None
        if not out_of_time:
            # Describing runs student code too (``__str__``, ``__array__``, properties): under what is left of the
            # call's own alarm, so a loop there is the call's timeout, not a silence until the parent's deadline.
            max_bytes, outputs = int(command["max_bytes"]), int(command.get("outputs", 1))
            describe = (lambda: _describe(held[1])) if raised else \
                (lambda: self.describe_result(held[0], reply, max_bytes, outputs))
            out_of_time, failed, described = self.timed(left(), describe)
            if failed is not None and raised:
                described = {"type": "Exception", "message": "<unprintable>", "file": None, "line": None}
            elif failed is not None:  # the value broke its own description: unreadable, said with its error's type
                reply["parts"], reply["count"], described = [_unreadable(failed)], 1, b""
            elif not raised and not out_of_time:
                described = [self.detached(chunk) for chunk in described]
            failed = None  # its traceback holds the frames of the student's code
        # The result and the exception's frames are released here, in the call's time: released after the answer,
        # a slow ``__del__`` was charged to the next call (its case then timed out and was blamed). An alarm that
        # goes off in a ``__del__`` is swallowed by Python, so whether it went off is asked of the alarm itself.
        stopped, _, _ = self.timed(left(), held.clear)
        if seconds and (stopped or _FIRED[0]):
            out_of_time = True
        if out_of_time:
            reply["status"] = "timeout"
            reply.pop("parts", None)
        elif raised:
            reply.update(status="raised", error=described)
        else:
            payload = described
        # arrays whose shape, strides or dtype the call reassigned (``x.shape = ...`` changes no byte)
        reply["reshaped"] = [i for i, (arg, was) in enumerate(zip(args, forms))
                             if was is not None and _form(arg) != was]
        self.send(reply, payload)

    def detached(self, chunk):
        """A result's bytes that no object of the student's keeps alive: a view of an ndarray subclass, or of
        memory a student object owns, is copied, so releasing that object (its ``__del__``) happens in the call."""
        if not isinstance(chunk, self.ndarray):  # b"": nothing was sent for this value
            return chunk
        base = chunk
        while isinstance(base, self.ndarray):
            if type(base) is not self.ndarray and type(base) is not self.np.memmap:
                return chunk.copy()
            base = base.base
        return chunk if base is None or type(base) is mmap.mmap else chunk.copy()

    def describe_result(self, value, reply: dict, max_bytes: int, outputs: int) -> bytes:
        """One description per returned value: the value itself, or each item of the tuple a function with
        several outputs returns (at most ``outputs`` of them; ``count`` says how many there were)."""
        if outputs > 1 and isinstance(value, (tuple, list)):
            reply["count"] = len(value)
            values = list(value[:outputs])
        else:
            reply["count"] = 1
            values = [value]
        parts, chunks = [], []
        for item in values:
            part: dict = {}
            data = self.describe_value(item, part, max_bytes)
            max_bytes -= memoryview(data).nbytes
            parts.append(part)
            chunks.append(data)
        reply["parts"] = parts
        return chunks

    def describe_value(self, value, reply: dict, max_bytes: int) -> bytes:
        np = self.np
        reply["type"] = _type_name(value)
        kind = type(value)  # not isinstance(): a ``__class__`` property can claim to be an ndarray
        reply["exact"] = kind is self.ndarray
        reply["subclass"] = issubclass(kind, self.ndarray) and not reply["exact"]
        try:
            if issubclass(kind, self.ndarray):
                array = self.ndarray.view(value, self.ndarray)
            elif value is None:
                return b""
            else:
                array = np.asarray(value)
        except _OutOfTime:  # the call's alarm, in a looping ``__array__``: the call's timeout, not unreadable
            raise
        except BaseException as exc:
            reply["note"] = "unreadable"
            reply["detail"] = str(type(exc).__name__)[:60]
            return b""
        if not self.wire.describable(array.shape):
            reply["note"] = "unreadable"
            reply["detail"] = f"{array.ndim} dimensions" if array.ndim > self.wire.MAX_DIMS else \
                f"a dimension of {self.wire.MAX_EXTENT:,} or more"
            return b""
        reply["shape"] = list(array.shape)
        reply["dtype"] = str(array.dtype)[:60]  # a structured dtype's field names can be megabytes long
        if array.dtype.kind not in "biufc" or array.dtype.fields is not None:
            reply["note"] = "not-numeric"
            return b""
        if array.nbytes > max_bytes:
            reply["note"] = "too-large"
            reply["nbytes"] = int(array.nbytes)
            return b""
        if not array.flags.c_contiguous:
            array = array.copy(order="C")  # not ascontiguousarray: it turns a 0-d array into a 1-d one
        reply["array"] = {"dtype": array.dtype.str, "shape": list(array.shape)}
        return array.reshape(-1).view(np.uint8) if array.size else b""  # the array's own memory, not a copy

    def note(self, kind: str, *parts: str) -> None:
        """Tell the parent of a note by its kind and quoted words; the parent writes the sentence (``grader.notes``)."""
        parts = tuple(str(part)[:100] for part in parts)  # a magic's or a module's name, as written: any length
        if (kind, parts) not in self.notes and len(self.notes) < 30:
            self.notes.add((kind, parts))
            self.send({"t": "note", "kind": kind, "parts": list(parts)})


class _Shell:
    """Enough of IPython's shell for rewritten magics: run what defines code, skip what touches the system."""

    RUN_LINE = {"time"}
    RUN_CELL = {"time", "capture", "prun"}  # each runs its body in the notebook's namespace, as IPython does
    QUIET = {"matplotlib", "load_ext", "config", "pinfo", "pinfo2", "who", "whos", "precision", "autoreload",
             "psearch", "pdoc", "pdef", "psource", "xmode", "colors", "reload_ext", "lsmagic"}

    def __init__(self, namespace: dict, child: Child) -> None:
        self.user_ns = namespace
        self.child = child
        self.config = {"IPKernelApp": {}} if child.notebook else {}  # what "am I in a notebook?" checks read

    def __getattr__(self, name: str):
        """Any other part of the shell does nothing, as the stand-in modules do."""
        if name.startswith("__"):
            raise AttributeError(name)
        return _RUNNER["standins"].StandIn()

    def run_line_magic(self, name: str, line: str, _stack_depth: int = 1):
        if name in self.RUN_LINE:  # 'y = %time f(x)' binds f(x): an expression's value is given back, as IPython does
            try:
                expression = compile(line, f"<%{name}>", "eval", dont_inherit=True)
            except SyntaxError:
                exec(compile(line, f"<%{name}>", "exec", dont_inherit=True), self.user_ns)
            else:
                return eval(expression, self.user_ns)
        elif name == "run":
            self.run_file(line)
        elif name == "aimport":  # autoreload's import: the modules become names of the notebook
            importlib = _stdlib("importlib")
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
                return _RUNNER["standins"].StandIn()
        return None

    def run_cell_magic(self, name: str, line: str, cell: str):
        if name in self.RUN_CELL:
            # '%%capture out' binds out, and so does '%%capture --no-stderr out' or '%%capture out --no-display':
            # the name is the one word that is not a flag, wherever it stands (IPython reads the line with argparse)
            names = [w for w in line.split() if not w.startswith("-")] if name == "capture" else []
            if names and names[0].isidentifier():
                self.user_ns[names[0]] = self.__getattr__("captured")  # a stand-in: nothing is captured
            exec(compile(cell, getattr(self.child, "filename", "") or f"<%%{name}>", "exec", dont_inherit=True),
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
        pattern = _stdlib("re").compile(words[0]) if name == "reset_selective" and words else None
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
        target = os.path.realpath(os.path.join(here, names[0].strip("'\"")) if names else here)
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
            words = _stdlib("shlex").split(line)
        except ValueError:
            words = line.split()
        options = {w for w in words if w.startswith("-")}
        rest = [w for w in words if not w.startswith("-")]
        here = os.path.realpath(os.getcwd())
        path = os.path.realpath(os.path.join(here, rest[0])) if rest else ""
        if not path.endswith(".py") or not path.startswith(here + os.sep) or not os.path.isfile(path):
            self.child.note("run", line.strip()[:60])
            return
        with open(path, encoding="utf-8") as handle:
            source = handle.read()
        shared = "-i" in options
        namespace = self.user_ns if shared else {"__builtins__": __builtins__}
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
                                     if k not in ("__builtins__", "__name__", "__file__")})

    def run_cell(self, raw_cell: str, *args, **kwargs) -> None:
        """``get_ipython().run_cell(code)`` runs plain Python in the notebook's namespace; as in IPython, an error
        in it is shown, not raised, so the cell that asked goes on."""
        try:
            self.child.evaluate(compile(raw_cell, "<run_cell>", "exec", dont_inherit=True))
        except Exception as exc:  # noqa: BLE001  (IPython shows any error of the code it runs)
            self.child.note("run-cell", type(exc).__name__)

    def push(self, variables, interactive: bool = True) -> None:
        """``get_ipython().push({'name': value})`` (or names of the caller's variables) binds them in the notebook."""
        if isinstance(variables, (str, list, tuple)):
            caller = sys._getframe(1)
            names = variables.replace(",", " ").split() if isinstance(variables, str) else variables
            variables = {name: eval(name, caller.f_globals, caller.f_locals) for name in names}
        self.user_ns.update(variables)

    def system(self, command: str) -> None:
        self.child.note("shell", command[:60])

    def getoutput(self, command: str, split: bool = True) -> list:
        self.system(command)
        return []

    magic = run_line_magic


def _restarting(child) -> bool:
    """Whether ending the process now is a kernel restart: a cell runs, in the kernel's own process and thread."""
    return child.in_cell and os.getpid() == child.pid and _stdlib("_thread").get_ident() == child.thread


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


def _form(value) -> tuple | None:
    """An array argument's shape, strides and dtype (None for anything else), read before and after a call."""
    try:
        return (tuple(value.shape), tuple(value.strides), str(value.dtype)) if type(value).__name__ == "ndarray" \
            else None
    except Exception:  # noqa: BLE001  (the student replaced a property: that is a change too)
        return ("changed",)


def _type_name(value) -> str:
    cls = type(value)
    try:  # a metaclass can make either attribute a property that raises, or anything but text
        module = getattr(cls, "__module__", "") or ""
        name = getattr(cls, "__qualname__", cls.__name__)
        return str(name if module in ("builtins", "") else f"{module}.{name}")[:200]  # a __qualname__ of 10 MB
    except BaseException:  # noqa: BLE001
        return "(unnamed type)"


def _signature(function, wire) -> dict | None:
    """The function's parameters as plain data: names, kinds, whether each has a default; None when it has no
    signature Python can read (a builtin, a ``__signature__`` that is not one). At most ``wire.MAX_PARAMETERS`` are
    listed and ``count`` says how many there are; everything here is the student's and is checked by the parent."""
    inspect = _stdlib("inspect")
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return None
    parameters = signature.parameters
    kinds = dict(zip((inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                      inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.KEYWORD_ONLY,
                      inspect.Parameter.VAR_KEYWORD), wire.PARAMETER_KINDS))
    listed = []
    for parameter in _stdlib("itertools").islice(parameters.values(), wire.MAX_PARAMETERS):
        kind = kinds.get(parameter.kind)
        if kind is None:
            return None
        listed.append({"name": str(parameter.name)[:wire.MAX_PARAMETER_NAME], "kind": kind,
                       "default": parameter.default is not inspect.Parameter.empty})
    own = ""
    try:  # a function bound to another name (``linear = dense_scores``) is named by what it calls itself
        name = function.__name__
        own = name[:wire.MAX_PARAMETER_NAME] if type(name) is str else ""
    except Exception:  # noqa: BLE001  (a callable object's __getattr__ may raise anything)
        pass
    return {"count": int(len(parameters)), "parameters": listed, "own_name": own}


def _unreadable(exc: BaseException) -> dict:
    """A returned value whose description raised: the parent says it could not be read, and why in a word."""
    try:
        detail = str(type(exc).__name__)
    except BaseException:  # noqa: BLE001
        detail = "an error"
    return {"type": "(unknown)", "exact": False, "subclass": False, "note": "unreadable", "detail": detail[:60]}


def _describe(exc: BaseException) -> dict:
    """Exception type, message and the innermost line of student code, without the runner's frames."""
    location = {"file": None, "line": None}
    try:
        tb = exc.__traceback__  # a property on the exception's class can raise here
    except BaseException:  # noqa: BLE001
        tb = None
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if filename.startswith("<cell") or filename.startswith("<%"):
            location = {"file": filename, "line": tb.tb_lineno}
        tb = tb.tb_next
    try:
        text = str(exc)
    except BaseException:
        text = "<unprintable>"
    try:
        kind = str(type(exc).__name__)
    except BaseException:
        kind = "Exception"
    described = {"type": kind[:100], "message": text[:500], **location}
    if isinstance(exc, MemoryError):
        described["reserved"] = _reserved()
        described["address_space"] = _address_space()  # the student's code may have lowered it (setrlimit)
    return described


def _stdlib(name: str):
    """The standard library's module ``name``, imported now if it must be: the working folder, which ``%%writefile``
    puts first on ``sys.path``, is left out while it is, so that a student's ``logging.py`` is not what asyncio gets
    (in Jupyter these are loaded before any cell runs)."""
    if name in sys.modules:
        return sys.modules[name]
    import importlib

    here = os.path.realpath(os.getcwd())
    saved = sys.path[:]
    sys.path[:] = [p for p in saved if p and os.path.realpath(p) != here]
    try:
        return importlib.import_module(name)
    finally:
        sys.path[:] = saved


def _address_space() -> int:
    """This process's soft address-space limit (RLIMIT_AS) in bytes; -1 when it has none or it cannot be read."""
    try:
        return int(_stdlib("resource").getrlimit(_stdlib("resource").RLIMIT_AS)[0])
    except Exception:  # noqa: BLE001  (student code may have replaced the module)
        return -1


def _own_limit_error(specs: list, grader_limit: int, exc: BaseException) -> dict | None:
    """The error to report when a call's inputs could not be mapped because the submission lowered its own
    address-space limit (``resource.setrlimit(RLIMIT_AS, ...)``) below the grader's: its own limit stopped the call.
    Without this, the failure ended the child as a broken runner ("replacing a builtin"), which was not the cause.
    None when the limit is the grader's: then the failure is the runner's own."""
    own = _address_space()
    if own < 0 or (0 <= grader_limit <= own):
        return None
    size = 0
    for spec in specs:
        try:  # a shared file holds the array (and its small header); repeated rows name their full shape
            count = int(_stdlib("numpy").dtype(spec["dtype"]).itemsize) if "period" in spec else 0
            for n in spec["shape"] if "period" in spec else ():
                count *= int(n)
            size += count or (os.stat(spec["file"]).st_size if "file" in spec else 0)
        except Exception:  # noqa: BLE001
            pass
    below = f", below the grader's {grader_limit / 2**20:,.0f} MiB" if grader_limit >= 0 else ""
    return {"type": "OSError", "message": (
        f"its inputs ({size / 2**20:,.0f} MiB) could not be mapped into memory ({type(exc).__name__}): the submission "
        f"had lowered its own address-space limit (resource.setrlimit(RLIMIT_AS, ...)) to {own / 2**20:,.0f} MiB"
        f"{below}, so its own memory limit stopped the call")[:500], "file": None, "line": None}


def _reserved() -> int | None:
    """The address space this process has reserved (VmSize), to say how far a failed allocation would have gone."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _leave() -> None:
    """Flush what the student printed and end the process now, never waiting for the student's threads."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:  # noqa: BLE001
        pass
    os._exit(0)


if __name__ == "__main__":
    try:
        main()
    finally:
        _leave()
