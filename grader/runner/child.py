"""The sandboxed child: run the submission's cells, then call its function on the cases it was sent.

Runs as ``python -I -S child.py`` with only the standard library and numpy importable. It reads one request
frame on stdin, reports on the inherited channel fd as length-prefixed JSON frames (arrays as raw bytes after
them) and never sees an expected value: judging happens in the parent. Whatever the student's code does to this
process, the worst it can do is send wrong data, which the parent decodes strictly.
"""
from __future__ import annotations

import os
import signal
import sys
import time

_here = os.path.dirname(os.path.abspath(__file__))


class _OutOfTime(BaseException):
    """Raised by the alarm in the middle of student code, as Jupyter's interrupt would, so the run goes on."""


def _alarm(signum, frame) -> None:
    raise _OutOfTime()


def _read_exactly(fd: int, n: int) -> bytes:
    chunks, got = [], 0
    while got < n:
        chunk = os.read(fd, min(n - got, 1 << 20))
        if not chunk:
            raise EOFError("request truncated")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def main() -> None:
    request_header = _read_exactly(0, 8)
    import json
    import struct

    body_len, payload_len = struct.unpack(">II", request_header)
    request = json.loads(_read_exactly(0, body_len))
    payload = _read_exactly(0, payload_len) if payload_len else b""
    os.close(0)
    sys.path[:0] = [_here, *request.get("paths", [])]

    import confine  # noqa: E402  (the sandbox's in-process layers, applied before any student code)

    confine.apply(request.get("confine", {}))

    import numpy as np  # noqa: E402
    import wire  # noqa: E402

    Child(request, payload, np, wire).run()


class Child:
    def __init__(self, request: dict, payload: bytes, np, wire) -> None:
        self.request = request
        self.np = np
        self.wire = wire
        channel_fd = int(sys.argv[1])
        self.channel = os.dup(channel_fd)  # moved off the number the student could guess from argv
        os.close(channel_fd)
        self.write = os.write
        self.clock = time.perf_counter
        self.ndarray = np.ndarray
        self.max_result = int(request.get("max_result_bytes", 64 << 20))
        self.inputs = [self._input(spec, payload) for spec in request["inputs"]]
        self.notes: set[str] = set()
        self.limits = request.get("soft_limits", {})
        signal.signal(signal.SIGALRM, _alarm)

    def timed(self, seconds: float | None, action):
        """Run ``action()`` under a soft time limit; return (timed_out, exception or None, value).

        The alarm is one-shot, so the outer handler catches the single late alarm that could fire between the
        action's end and the disarm. Code that blocks SIGALRM is still stopped: by the parent's hard deadline.
        """
        try:
            if seconds:
                signal.setitimer(signal.ITIMER_REAL, float(seconds))
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
    def send(self, message: dict, payload: bytes = b"") -> None:
        data = self.wire.encode_frame(message, payload)
        view = memoryview(data)
        while view:
            written = self.write(self.channel, view)
            view = view[written:]

    def _input(self, spec: dict, payload: bytes):
        np = self.np
        if "file" in spec:
            # Large shared inputs are mapped copy-on-write: no copy per submission, and writes stay private.
            return np.load(spec["file"], mmap_mode="c", allow_pickle=False)
        start = spec["offset"]
        raw = bytearray(payload[start : start + spec["nbytes"]])
        return np.frombuffer(raw, dtype=np.dtype(spec["dtype"])).reshape(spec["shape"])

    # -- stages ---------------------------------------------------------------------------------------------
    def run(self) -> None:
        request = self.request
        namespace = {"__name__": request.get("run_name", "__main__"), "__builtins__": __builtins__}
        namespace["get_ipython"] = lambda shell=_Shell(namespace, self): shell
        namespace["display"] = lambda *objs, **kw: None
        import standins  # on sys.path since main()

        standins.install(self.note)
        for cell in request["cells"]:
            self.run_cell(cell, namespace)
        name = request["function"]
        function = namespace.get(name)
        if function is None or not callable(function):
            candidates = sorted(k for k, v in list(namespace.items()) if callable(v) and not k.startswith("__"))
            self.send({"t": "function", "found": function is not None, "callable": False,
                       "type": _type_name(function), "candidates": candidates[:200]})
            self.send({"t": "done"})
            return
        self.send({"t": "function", "found": True, "callable": True, "type": _type_name(function)})
        for call in request["calls"]:
            self.call(call, function)
        self.send({"t": "done"})

    def run_cell(self, cell: dict, namespace: dict) -> None:
        self.send({"t": "cell-start", "number": cell["number"]})
        started = self.clock()
        seconds = self.limits.get("cell_seconds")
        out_of_time, exc, _ = self.timed(
            seconds, lambda: exec(compile(cell["source"], cell["filename"], "exec", dont_inherit=True), namespace)
        )
        error = _describe(exc, cell["filename"]) if exc is not None else None
        if out_of_time:
            error = {"type": "timeout", "message": f"{seconds:g}", "where": None}
        self.send({"t": "cell", "number": cell["number"], "error": error, "seconds": self.clock() - started})

    def call(self, call: dict, function) -> None:
        np = self.np
        case = self.request["cases"][call["case"]]
        originals = [self.inputs[i] for i in case["args"]]
        args = [a if call.get("shared") else a.copy() for a in originals]
        self.send({"t": "start", "call": call["id"]})
        started = self.clock()
        message = {"t": "result", "call": call["id"], "status": "ok", "error": None}
        payload = b""
        out_of_time, exc, value = self.timed(self.limits.get("call_seconds"), lambda: function(*args))
        if out_of_time:
            message["status"] = "timeout"
        elif exc is not None:
            message.update(status="raised", error=_describe(exc, None))
        message["seconds"] = self.clock() - started
        if message["status"] == "ok":
            payload = self.describe_value(value, message)
        if call.get("check_mutation"):
            names = self.request["parameters"]
            message["mutated"] = [
                names[i] if i < len(names) else f"argument {i + 1}"
                for i, (a, o) in enumerate(zip(args, originals))
                if not _same(np, a, o)
            ]
        self.send(message, payload)

    def describe_value(self, value, message: dict) -> bytes:
        np = self.np
        message["type"] = _type_name(value)
        message["exact"] = type(value) is self.ndarray
        message["subclass"] = isinstance(value, self.ndarray) and not message["exact"]
        try:
            if isinstance(value, self.ndarray):
                array = self.ndarray.view(value, self.ndarray)
            elif value is None:
                return b""
            else:
                array = np.asarray(value)
        except BaseException as exc:
            message["note"] = f"could not be read as an array ({type(exc).__name__})"
            return b""
        if array.dtype.kind not in "biufc" or array.dtype.fields is not None:
            message["note"] = f"holds {array.dtype} values"
            message["shape"] = list(array.shape)
            return b""
        message["shape"] = list(array.shape)
        if array.nbytes > self.max_result:
            message["note"] = f"is {array.nbytes} bytes, too large to compare"
            return b""
        array = np.ascontiguousarray(array)
        message["array"] = {"dtype": array.dtype.str, "shape": list(array.shape)}
        return array.tobytes()

    def note(self, text: str) -> None:
        if text not in self.notes and len(self.notes) < 50:
            self.notes.add(text)
            self.send({"t": "note", "text": text})


class _Shell:
    """Enough of IPython's shell for rewritten magics: run what defines code, skip what touches the system."""

    RUN_LINE = {"time"}
    RUN_CELL = {"time", "capture"}
    QUIET = {"matplotlib", "load_ext", "config", "pinfo", "pinfo2", "who", "whos", "precision", "autoreload",
             "psearch", "pdoc", "pdef", "psource", "xmode", "colors", "reload_ext", "lsmagic"}

    def __init__(self, namespace: dict, child: Child) -> None:
        self.user_ns = namespace
        self.child = child

    def run_line_magic(self, name: str, line: str, _stack_depth: int = 1):
        if name in self.RUN_LINE:
            exec(compile(line, f"<%{name}>", "exec", dont_inherit=True), self.user_ns)
        elif name not in self.QUIET:
            self.child.note(f"The line magic %{name} was not run during grading.")
        return None

    def run_cell_magic(self, name: str, line: str, cell: str):
        if name in self.RUN_CELL:
            exec(compile(cell, f"<%%{name}>", "exec", dont_inherit=True), self.user_ns)
        elif name in ("writefile", "file"):
            self.write_file(line, cell)
        else:
            self.child.note(f"A %%{name} cell was not run during grading.")
        return None

    def write_file(self, line: str, cell: str) -> None:
        """``%%writefile [-a] name``: into the scratch folder only, which is importable as in Jupyter."""
        words = line.split()
        append = "-a" in words or "--append" in words
        names = [w for w in words if not w.startswith("-")]
        here = os.path.realpath(os.getcwd())
        target = os.path.realpath(os.path.join(here, names[0].strip("'\"")) if names else here)
        if not names or os.path.dirname(target) != here:
            self.child.note(f"%%writefile {line.strip()[:60]} was not run: only files in the working folder "
                            "can be written during grading.")
            return
        with open(target, "a" if append else "w", encoding="utf-8") as handle:
            handle.write(cell)
        if here not in sys.path:
            sys.path.insert(0, here)

    def system(self, command: str) -> None:
        self.child.note(f"The shell command '!{command[:60]}' was not run during grading.")

    def getoutput(self, command: str, split: bool = True) -> list:
        self.system(command)
        return []

    magic = run_line_magic


def _type_name(value) -> str:
    cls = type(value)
    module = getattr(cls, "__module__", "") or ""
    name = getattr(cls, "__qualname__", cls.__name__)
    return name if module in ("builtins", "") else f"{module}.{name}"


def _same(np, a, b) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype and bool(np.array_equal(a, b, equal_nan=True))


def _describe(exc: BaseException, _filename) -> dict:
    """Exception type, message and the innermost line of student code, without the runner's frames."""
    location = None
    tb = exc.__traceback__
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if filename.startswith("<cell") or filename.startswith("<%"):
            location = {"file": filename, "line": tb.tb_lineno}
        tb = tb.tb_next
    try:
        text = str(exc)
    except BaseException:
        text = "<unprintable>"
    return {"type": type(exc).__name__, "message": text[:500], "where": location}


if __name__ == "__main__":
    try:
        main()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except BaseException:
            pass
        os._exit(0)  # never wait for the student's threads
