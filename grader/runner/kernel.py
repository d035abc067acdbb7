"""What one run keeps between the parent's commands, and how it answers them: one frame per command, in order.

``Child`` is the kernel the parent drives: the student's namespace, the functions each lookup found, the notes
already sent, the shared memory of the inputs. Its parts do one thing each: ``Cells`` runs code, ``Calls`` looks a
function up and calls it, ``Results`` describes what came back, ``Limits`` keeps each step under its soft limit.
Here are only the state they share and the two ways of answering (``send`` and ``note``).
"""
from __future__ import annotations

import os
import signal
import sys

import alarms
from calls import Calls
from cells import Cells
from describe import Results, address_space

import stdlib

__builtins__ = stdlib.own_builtins()  # the runner's own: student code may replace those it shares (stdlib.py)


#: the most buffers one ``writev`` takes (the kernel's limit is 1024)
IOV_MAX = 512


class Child(alarms.Limits, Cells, Calls, Results):
    """One run of the student's code, driven by the parent's commands (``child.serve`` reads them)."""

    def __init__(self, setup: dict, commands: int, np, wire, builtins) -> None:
        self.np = np
        self.wire = wire
        self.commands = commands
        self.builtins = builtins  # the __builtins__ the runner was started with: given to the student's module
        channel_fd = int(sys.argv[1])
        self.channel = os.dup(channel_fd)  # moved off the number the student could guess from argv
        os.close(channel_fd)
        self.writev = os.writev
        self.getpid = os.getpid  # kept, as os._exit: an os.getpid made to lie had the runner take itself for a fork
        self.runner, self.end = self.getpid(), os._exit  # kept before student code can fork or replace os._exit
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
        self.kept_results: dict = {}  # what each function's last calls returned, by address (Results.reused)
        self.inputs_range: list = []
        # IPython's input and output history (In, Out, _, _i, _N...), kept when a notebook's code reads any of it
        self.history = self.notebook and bool(setup.get("history"))
        self.count = 0  # the execution count of the last cell run
        self.unders: list = ["", "", ""]  # the last three outputs, as IPython's display hook keeps them
        self.address_space = address_space()  # the grader's limit, before any student code can lower it
        signal.signal(signal.SIGALRM, alarms.alarm)

    def send(self, message: dict, payload=b"") -> None:
        """One frame; ``payload`` is bytes or a list of buffers, written as they are (a result is never copied).

        The header and the payload go in one ``writev``: written apart, the grader woke up for a header whose frame
        was not complete yet, then again for the rest (about 25 frames a run)."""
        if self.getpid() != self.runner:  # a copy the student's os.fork() made, back in this loop: it ends quietly,
            self.end(0)  # as a forked kernel's copy would be of no use (it used to answer too: a protocol error)
        chunks = payload if isinstance(payload, list) else [payload]
        views = [memoryview(c).cast("B") for c in chunks]
        views = [memoryview(self.wire.encode_header(message, sum(v.nbytes for v in views))), *(v for v in views if v)]
        while views:
            written = self.writev(self.channel, views[:IOV_MAX])
            while views and written >= views[0].nbytes:
                written -= views[0].nbytes
                views.pop(0)
            if written:
                views[0] = views[0][written:]

    def note(self, kind: str, *parts: str) -> None:
        """Tell the parent of a note by its kind and quoted words; the parent writes the sentence (``grader.notes``)."""
        parts = tuple(str(part)[:100] for part in parts)  # a magic's or a module's name, as written: any length
        if (kind, parts) not in self.notes and len(self.notes) < 30:
            self.notes.add((kind, parts))
            self.send({"t": "note", "kind": kind, "parts": list(parts)})
