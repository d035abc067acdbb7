"""What the child tells the parent of the student's objects: a returned value, an exception, a function's signature.

Everything described here belongs to the student and may run student code when read (``__str__``, ``__array__``,
properties, a metaclass): each reading is guarded, cut to a bounded size, and sent as plain data the parent checks.
A returned array's own memory is sent as it is, never pickled, and only once no student object can change it.
"""
from __future__ import annotations

import mmap
import os
import sys
import weakref

import alarms
import maps
import printchain
import stdlib

__builtins__ = stdlib.own_builtins()  # the runner's own: student code may replace those it shares (stdlib.py)


#: how many earlier results of each function are remembered, to tell one that shares their memory
KEPT_RESULTS = 64
#: the items of a returned tuple or list whose memory is compared with earlier results (``return buf, extra``)
ITEMS_COMPARED = 4
#: the largest result whose owner takes no weak reference is remembered: such an owner is held (``_Held``) until
#: the end of the next call, which could double a correct 822 MB result's memory; past this, it is not remembered
HELD_MOST_BYTES = 64 << 20


class Results:
    """The child's part that describes what a call returned (``describe_result``) for the answer to a call."""

    #: by function name, oldest first: (step, what tells whether the memory's owner lives, first, end, key): a weak
    #: reference to the owner, a ``_Held`` owner that takes none, a ``_Wrapped`` owner that only points at memory, a
    #: ``_FileHeld`` file, or None (always); key None
    #: for an address range, ("id", id(owner)) for a ``_Held`` owner, or (device, inode, path) for file offsets
    kept_results: dict

    def detached(self, chunk):
        """A result's bytes that no object of the student's keeps alive: a view of an ndarray subclass, or of
        memory a student object owns, is copied, so releasing that object (its ``__del__``) happens in the call."""
        if not isinstance(chunk, self.ndarray):  # b"": nothing was sent for this value
            return chunk
        base = chunk
        while isinstance(base, self.ndarray):
            if type(base) is not self.ndarray and type(base) is not _MEMMAP:
                return chunk.copy()
            base = base.base
        return chunk if base is None or type(base) is _MMAP else chunk.copy()

    def describe_result(self, value, reply: dict, max_bytes: int, outputs: int, call: tuple | None = None) -> bytes:
        """One description per returned value: the value itself, or each item of the tuple a function with
        several outputs returns (at most ``outputs`` of them; ``count`` says how many there were). ``call``: the
        function's name, the call's step, its arguments mapped from files and those in the inputs' memory, to say when a
        returned array lies in the memory an earlier call of that function returned (``overwrites``)."""
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
        if call is not None:
            earlier = self.reused(*call[:3], values, *call[3:])
            if earlier is not None:
                reply["overwrites"] = earlier
        return chunks

    def reused(self, name: str, seq: int, mapped: list, values: list, inline: list = ()) -> int | None:
        """The step of the latest earlier call of ``name`` whose returned array shares memory with an array among
        ``values``, or among the first items of a tuple or list there (None when none does): a module-level buffer
        filled and returned, or a cached array, hands every caller the same memory, so the next call overwrites the
        result a caller kept (the parent reads each result at once and would never see it otherwise).

        An earlier result is never kept alive: a 1 GB result costs nothing, and memory freed may be reused by a
        fresh allocation, which then shares nothing. So it is remembered by what names its memory while it lives:
        its address range and a weak reference to the object that owns the memory (gone: the entry is forgotten);
        for an owner that takes no weak reference (a ``bytearray`` or ``bytes`` under ``np.frombuffer``), its id and
        range, the owner held only while the student's code holds it too (``_Held``, settled by ``release``); for a
        shared file mapping (mapped again on every call, at a new address), the file and offsets, the file held open
        while it is still the student's (``_FileHeld``). The call's own arguments (one returned, or a view of one: the
        ``inline`` arrays' memory, or a file ``mapped`` for the call) are no result of the function's and are left
        out; the rest of the inputs' memory is not: left out whole, it held one place every call filled and returned
        ('unmodified' kept). About 3 us a call; reads only numpy's and Python's own C attributes, so no student code
        runs."""
        try:
            kept = self.kept_results.setdefault(name, [])
            kept[:] = [entry for entry in kept if entry[1] is None or entry[1]() is not None]
            found, new, given, arguments = None, [], None, None
            table: list = []  # /proc/self/maps, read once a call, and only when an mmap owns a result
            for value in self.compared(values):
                span = self.span(value)
                if span is None:
                    continue
                owner = self.owner(value)
                if owner is self.inputs:  # in the inputs' memory: left out when it is one of the call's arguments
                    arguments = arguments or [part for part in map(self.span, inline) if part is not None]
                    if any(span[0] < high and low < span[1] for low, high in arguments):
                        continue
                if mapped and given is None:  # the mapped files' owners: a view of one returned is an argument
                    given = [self.owner(arg) for arg in mapped]
                if mapped and any(owner is other for other in given):
                    continue
                identity = _identity(owner)
                in_file = None
                wrapped = not issubclass(type(owner), _OWNERS)  # it only points at memory: held a call (``_Wrapped``)
                if wrapped or issubclass(type(owner), _MMAP):  # a wrapper may point into a file's shared mapping too
                    table = table or [maps.table()]
                    in_file = maps.file_range(*span, table[0])
                for entry in kept:
                    step, _, lo, hi, key = entry
                    if key is None:
                        here = span
                    elif key[0] == "id" and key[1] == identity:  # held (``_Held``): the id is still that owner's
                        here = span
                    elif in_file is not None and key == in_file[0]:
                        here = in_file[1:]
                    else:
                        continue
                    if here[0] < hi and lo < here[1] and (found is None or step > found):
                        found = step
                if in_file is not None:
                    new.append((seq, self.holder(in_file[0], new), in_file[1], in_file[2], in_file[0]))
                    continue
                if wrapped:
                    if span[1] - span[0] <= HELD_MOST_BYTES:
                        new.append((seq, _Wrapped(owner), *span, None))
                    continue
                try:
                    new.append((seq, _weakref(owner), *span, None))
                except TypeError:  # no weak references: held, while the student's code holds it too (``release``)
                    if span[1] - span[0] > HELD_MOST_BYTES:
                        continue
                    key = ("id", identity)
                    twice = [i for i, entry in enumerate(new) if entry[4] == key]
                    if twice:  # two views of one owner: one entry, over both
                        ref, lo, hi = new[twice[0]][1:4]
                        new[twice[0]] = (seq, ref, min(lo, span[0]), max(hi, span[1]), key)
                    else:
                        new.append((seq, self.holder(owner, new), *span, key))
            kept.extend(new)
            del kept[:-KEPT_RESULTS]
            return found
        except Exception:  # noqa: BLE001  (a fact that could not be read is not told; the grade is unchanged)
            return None

    def compared(self, values: list) -> list:
        """The values whose memory is compared: each one, or the first few items of a tuple or list (read by their
        types' own C methods, so a subclass's ``__getitem__`` never runs)."""
        found = []
        for value in values:
            kind = type(value)
            if issubclass(kind, (tuple, list)):
                items = tuple if issubclass(kind, tuple) else list
                found.extend(items.__getitem__(value, i) for i in range(min(items.__len__(value), ITEMS_COMPARED)))
            else:
                found.append(value)
        return found

    def holder(self, owner, new: list):
        """The one holder of ``owner`` (an object without weak references, or a file's key), an earlier entry's
        when one still holds it: one per owner, so that its reference count (or the file's descriptors) tells
        whether anything but the holder still holds it. None for a file no descriptor is open on, or past
        ``MOST_FILES_HELD`` (the file then named by its key alone, as long as its entry is kept)."""
        kind = _FileHeld if type(owner) is tuple else _Held
        for entry in (entry for kept in (*self.kept_results.values(), new) for entry in kept):
            if type(entry[1]) is kind and entry[1].holds(owner):
                return entry[1]
        if kind is _Held:
            return _Held(owner)
        if _FileHeld.open_count >= MOST_FILES_HELD:
            return None
        fd = maps.hold(owner)
        return _FileHeld(fd, owner) if fd >= 0 else None

    def release(self, held: list) -> None:
        """Drop what the call made (``held``), then let go of every owner and file that nothing but its holder
        holds any more, and forget their entries: a fresh ``bytearray`` that died with its result, a temporary file
        the call made and dropped, or an earlier call's owner the student let go of during this call (the latest
        kept in a global, replaced), all let go here, in the call's time, so none outlives the student's hold by
        more than a call; a module-level ``bytearray``, a memfd kept open, a file with a name stay."""
        try:
            held.clear()
        finally:
            holders = {_identity(entry[1]): entry[1] for kept in self.kept_results.values() for entry in kept
                       if type(entry[1]) in _HOLDERS}
            table = maps.table() if any(type(h) is _FileHeld for h in holders.values()) else None
            for holder in holders.values():
                holder.settle(table)
            if any(holder() is None for holder in holders.values()):
                for kept in self.kept_results.values():
                    kept[:] = [entry for entry in kept if type(entry[1]) not in _HOLDERS or entry[1]()]

    def span(self, value) -> tuple[int, int] | None:
        """The address range an ndarray's elements lie in (None for anything else, or an empty array); read by
        ndarray's own descriptors, so a subclass's properties are never run."""
        if not issubclass(type(value), self.ndarray):
            return None
        array = self.ndarray
        face = array.__array_interface__.__get__(value)
        shape, strides, start = face["shape"], face["strides"], face["data"][0]
        size = 1
        for n in shape:
            size *= n
        if not size:
            return None
        itemsize = array.itemsize.__get__(value)
        if strides is None:
            return start, start + size * itemsize
        low = high = start
        for n, stride in zip(shape, strides):
            if stride < 0:
                low += (n - 1) * stride
            else:
                high += (n - 1) * stride
        return low, high + itemsize

    def owner(self, value):
        """The object at the end of an array's chain of bases, through memoryviews (``np.frombuffer``'s base) to
        the object they export: the one whose memory it is."""
        for _ in range(64):
            kind = type(value)
            if issubclass(kind, self.ndarray):
                base = self.ndarray.base.__get__(value)
            elif kind is memoryview:
                try:
                    base = _exporter(value)
                except ValueError:  # released
                    break
            else:
                break
            if base is None:
                break
            value = base
        return value

    def describe_value(self, value, reply: dict, max_bytes: int) -> bytes:
        reply["type"] = type_name(value)
        kind = type(value)  # not isinstance(): a ``__class__`` property can claim to be an ndarray
        reply["exact"] = kind is self.ndarray
        reply["subclass"] = issubclass(kind, self.ndarray) and not reply["exact"]
        try:
            if issubclass(kind, self.ndarray):
                array = self.ndarray.view(value, self.ndarray)
            elif value is None:
                return b""
            else:
                array = _asarray(value)
        except alarms.OutOfTime:  # the call's alarm, in a looping ``__array__``: the call's timeout, not unreadable
            raise
        except BaseException as exc:
            reply["note"] = "unreadable"
            reply["detail"] = plain(type(exc).__name__, 60)
            return b""
        if not self.wire.describable(array.shape):
            reply["note"] = "unreadable"
            reply["detail"] = f"{array.ndim} dimensions" if array.ndim > self.wire.MAX_DIMS else \
                f"a dimension of {self.wire.MAX_EXTENT:,} or more"
            return b""
        reply["shape"], dtype = list(array.shape), array.dtype
        if dtype.kind not in "biufc" or dtype.fields is not None:
            reply["dtype"], reply["note"] = _dtype_text(dtype), "not-numeric"
            return b""
        reply["dtype"] = dtype.str  # numpy's C attribute ('<f8'): str(dtype) is numpy Python code (_dtype_text)
        if array.nbytes > max_bytes:
            reply["note"] = "too-large"
            reply["nbytes"] = int(array.nbytes)
            return b""
        if not array.flags.c_contiguous:
            array = array.copy(order="C")  # not ascontiguousarray: it turns a 0-d array into a 1-d one
        reply["array"] = {"dtype": array.dtype.str, "shape": list(array.shape)}
        return array.reshape(-1).view(_UINT8) if array.size else b""  # the array's own memory, not a copy


def _dtype_text(dtype) -> str:
    """How numpy prints a dtype ('object'), cut; its code ('|O') when that fails. Numpy Python code a file can break
    (``numpy._core._dtype._name_get = None``): run for every result, it made a right function's unreadable (2/17)."""
    try:
        return plain(dtype, 60)
    except Exception:  # noqa: BLE001
        return dtype.str


def type_name(value) -> str:
    cls = type(value)
    try:  # a metaclass can make either attribute a property that raises, or anything but text
        module = getattr(cls, "__module__", "") or ""
        name = getattr(cls, "__qualname__", cls.__name__)
        return plain(name if module in ("builtins", "") else f"{module}.{name}", 200)  # a __qualname__ of 10 MB
    except BaseException:  # noqa: BLE001
        return "(unnamed type)"


def signature(function, wire) -> dict | None:
    """The function's parameters as plain data: names, kinds, whether each has a default; None when it has no
    signature Python can read (a builtin, a ``__signature__`` that is not one). At most ``wire.MAX_PARAMETERS`` are
    listed and ``count`` says how many there are; everything here is the student's and is checked by the parent."""
    inspect = stdlib.load("inspect")
    try:
        signature = inspect.signature(function)
    except Exception:  # noqa: BLE001  (inspect's Python code reads the builtins the student may have replaced)
        return None
    parameters = signature.parameters
    kinds = dict(zip((inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                      inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.KEYWORD_ONLY,
                      inspect.Parameter.VAR_KEYWORD), wire.PARAMETER_KINDS))
    listed = []
    for parameter in stdlib.load("itertools").islice(parameters.values(), wire.MAX_PARAMETERS):
        kind = kinds.get(parameter.kind)
        if kind is None:
            return None
        listed.append({"name": plain(parameter.name, wire.MAX_PARAMETER_NAME), "kind": kind,
                       "default": parameter.default is not inspect.Parameter.empty})
    own = ""
    try:  # a function bound to another name (``linear = dense_scores``) is named by what it calls itself
        name = function.__name__
        own = name[:wire.MAX_PARAMETER_NAME] if type(name) is str else ""
    except Exception:  # noqa: BLE001  (a callable object's __getattr__ may raise anything)
        pass
    chain = None
    try:  # a body that calls print, its own or a helper's whose result it returns: the parent's sentence says so
        chain = printchain.printed_by(function)
    except Exception:  # noqa: BLE001  (a callable object's __getattr__ may raise anything)
        pass
    reply = {"count": int(len(parameters)), "parameters": listed, "own_name": own, "prints": chain is not None}
    if chain:
        reply["printed_by"] = [name[:wire.MAX_PARAMETER_NAME] for name in chain]
    return reply


#: the class of a mapping, kept for the same reason: a student's ``mmap.mmap = ...`` (their own mappings made with the
#: class they kept) hid a result mapped anew from one file on every call
_MMAP = mmap.mmap
_weakref = weakref.ref  # kept at the runner's start, before the student's code could replace the module
#: numpy's, kept at the runner's start (numpy is imported before this module): a student's ``np.frombuffer`` that
#: copied made each call's inline inputs a private copy, so a function that zeroed its features kept the
#: 'unmodified' point (the parent compares the memory it shares, which the copy never touched)
frombuffer = sys.modules["numpy"].frombuffer
#: and the rest of numpy's that describing a result uses. Replaced after a right definition, ``np.uint8`` made every
#: result unreadable (``'S3'``: its bytes are no whole number of 3-byte items), and an ndarray subclass there made
#: the inputs' range unreadable, which hid a result overwritten by the next call (the 'unmodified' point kept)
_UINT8, _asarray, _MEMMAP = sys.modules["numpy"].uint8, sys.modules["numpy"].asarray, sys.modules["numpy"].memmap
_refcount = sys.getrefcount
#: an object's address, shifted (``object.__hash__``): ``id()`` raises the audit event ``builtins.id``, and an audit
#: hook raising there silenced ``reused``: a function returning one buffer on every call kept the 'unmodified' point
_identity = object.__hash__
_exporter = memoryview.obj.__get__


#: the most files held open at once for the entries of results in mapped files (the child may open 256 in all)
MOST_FILES_HELD = 16


class _Held:
    """A strong reference in place of a weak one, for a result's owner that takes none (a ``bytearray`` or
    ``bytes`` under ``np.frombuffer``). Remembered by id and address alone, such an owner that died (a fresh
    ``bytearray`` per call, the latest kept in a global, or one held by a reference cycle until a collection) left
    both free for a later call's fresh one, which was then called the same memory: shared-result on correct code.
    Held, its id and memory stay its own. Called like a weak reference: the owner, or None once let go."""

    __slots__ = ("obj",)

    def __init__(self, obj) -> None:
        self.obj = obj

    def __call__(self):
        return self.obj

    def holds(self, owner) -> bool:
        return self.obj is owner

    def count(self) -> int:
        return _refcount(self.obj)

    def settle(self, _table) -> None:
        """Let go of the owner when nothing but this holder holds it (no student object can then reach it)."""
        if self.obj is not None and self.count() <= _ALONE:
            self.obj = None


#: what ``_Held.count`` reads for an owner that nothing else holds (the interpreter's own references included)
_ALONE = _Held(bytearray(1)).count()
_FileHeld = maps.FileHeld
#: the owners whose memory is their own; any other object at the end of a result's bases only points at memory that
#: lives on without it (``_Wrapped``)
_OWNERS = (sys.modules["numpy"].ndarray, bytes, bytearray, _MMAP, stdlib.load("array").array)


class _Wrapped(_Held):
    """A result's owner that only points at memory (``as_strided``'s ``DummyArray``, an object with an
    ``__array_interface__``, a ctypes array ``from_address``), held until the end of the call after the next. Fresh
    on each call over one module-level buffer, it died with its result, its entry was forgotten, and a function
    returning that buffer on every call kept the 'unmodified' point (17/17). Held, a fresh one per call keeps its
    memory from going to the next call's result; a wrapper that does not keep it returns memory already freed."""

    __slots__ = ("releases",)

    def __init__(self, obj) -> None:
        super().__init__(obj)
        self.releases = 0

    def __call__(self):  # itself, not the student's object, whose truth may be anything
        return self if self.obj is not None else None

    def settle(self, _table) -> None:
        self.releases += 1
        if self.releases > 1:
            self.obj = None


_HOLDERS = (_Held, _FileHeld, _Wrapped)




def plain(value, limit: int) -> str:
    """``str(value)`` as a plain ``str`` of at most ``limit`` characters. A ``__str__`` may return a subclass of
    ``str`` (and a class's ``__name__`` or ``__qualname__`` may be one), whose own slicing can give anything back:
    an int sent as an exception's message made the parent call the whole run a protocol error. ``str.__str__`` of
    a subclass is a plain copy, and slicing that runs no student code."""
    text = str(value)
    return (text if type(text) is str else str.__str__(text))[:limit]


def unreadable(exc: BaseException) -> dict:
    """A returned value whose description raised: the parent says it could not be read, and why in a word."""
    try:
        detail = plain(type(exc).__name__, 60)
    except BaseException:  # noqa: BLE001
        detail = "an error"
    return {"type": "(unknown)", "exact": False, "subclass": False, "note": "unreadable", "detail": detail[:60]}


def describe_error(exc: BaseException) -> dict:
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
        text = plain(exc, 500)
    except BaseException:
        text = "<unprintable>"
    compiled = _compiled_in_cell(exc)
    if compiled is not None:
        location, text = compiled
    try:
        kind = plain(type(exc).__name__, 100)
    except BaseException:
        kind = "Exception"
    described = {"type": kind[:100], "message": text[:500], **location}
    if isinstance(exc, MemoryError):
        described["reserved"] = maps.reserved()
        described["address_space"] = address_space()  # the student's code may have lowered it (setrlimit)
    return described


def _compiled_in_cell(exc: BaseException) -> tuple[dict, str] | None:
    """A SyntaxError in a magic's body (``%%capture``, ``%%time``: compiled as the cell runs) is on its own line, not
    on the magic's call: its place, and its message without the cell's name ("... (<cell 2>, line 3)" was line 1)."""
    try:
        filename, line, message = exc.filename, exc.lineno, exc.msg  # a student's class may raise here
        if isinstance(exc, SyntaxError) and type(filename) is str and type(line) is int and type(message) is str \
                and (filename.startswith("<cell") or filename.startswith("<%")):
            return {"file": filename, "line": line}, plain(message, 500)
    except BaseException:  # noqa: BLE001
        pass
    return None


#: read with resource's ``getrlimit`` as it was before student code ran (``maps``): a student's own replacement
#: could otherwise blame a failure of the runner's on an address-space limit the submission never set
address_space = maps.address_space
