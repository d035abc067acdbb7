"""What the child tells the parent of the student's objects: a returned value, an exception, a function's signature.

Everything described here belongs to the student and may run student code when read (``__str__``, ``__array__``,
properties, a metaclass): each reading is guarded, cut to a bounded size, and sent as plain data the parent checks.
A returned array's own memory is sent as it is, never pickled, and only once no student object can change it.
"""
from __future__ import annotations

import mmap
import weakref

import alarms
import stdlib


#: how many earlier results of each function are remembered, to tell one that shares their memory
KEPT_RESULTS = 64


class Results:
    """The child's part that describes what a call returned (``describe_result``) for the answer to a call."""

    #: by function name: (step, weak reference to the memory's owner, first address, end address), oldest first
    kept_results: dict
    inputs_range: list  # the inputs' address range, once read

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

    def describe_result(self, value, reply: dict, max_bytes: int, outputs: int, call: tuple | None = None) -> bytes:
        """One description per returned value: the value itself, or each item of the tuple a function with
        several outputs returns (at most ``outputs`` of them; ``count`` says how many there were). ``call``: the
        function's name, the call's step and its arguments mapped from files, to say when a returned array lies in the memory an
        earlier call of that function returned (``overwrites``)."""
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
            earlier = self.reused(*call, values)
            if earlier is not None:
                reply["overwrites"] = earlier
        return chunks

    def reused(self, name: str, seq: int, mapped: list, values: list) -> int | None:
        """The step of the latest earlier call of ``name`` whose returned array shares memory with an array among
        ``values`` (None when none does): a module-level buffer filled and returned, or a cached array, hands every
        caller the same memory, so the next call overwrites the result a caller kept (the parent reads each result
        at once and would never see it otherwise).

        An earlier result is remembered by its address range and a weak reference to the object that owns its
        memory, never the array itself: a 1 GB result is not kept alive, and once its owner is gone the range may
        be reused by a fresh allocation, which then shares nothing. Arrays in the parent's inputs (an argument
        returned, or a view of one: the inline inputs' memory, or a file ``mapped`` for this call) are no result
        of the function's and are left out. About 3 us a call; reads only numpy's own C attributes, so no student
        code runs."""
        try:
            kept = self.kept_results.setdefault(name, [])
            kept[:] = [entry for entry in kept if entry[1]() is not None]
            found, new, given, inputs = None, [], None, self.inputs_span()
            for value in values:
                span = self.span(value)
                if span is None or inputs is not None and span[0] < inputs[1] and inputs[0] < span[1]:
                    continue
                owner = self.owner(value)
                if mapped and given is None:  # the mapped files' owners: a view of one returned is an argument
                    given = [self.owner(arg) for arg in mapped]
                if mapped and any(owner is other for other in given):
                    continue
                for step, _, lo, hi in kept:
                    if span[0] < hi and lo < span[1] and (found is None or step > found):
                        found = step
                try:
                    new.append((seq, _weakref(owner), *span))
                except TypeError:  # an owner without weak references (a bytearray): not remembered
                    pass
            kept.extend(new)
            del kept[:-KEPT_RESULTS]
            return found
        except Exception:  # noqa: BLE001  (a fact that could not be read is not told; the grade is unchanged)
            return None

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
        """The object at the end of an array's chain of bases: the one whose memory it is."""
        for _ in range(64):
            if not issubclass(type(value), self.ndarray):
                break
            base = self.ndarray.base.__get__(value)
            if base is None:
                break
            value = base
        return value

    def inputs_span(self) -> tuple[int, int] | None:
        """The address range of the parent's shared memory of inline inputs, read once."""
        if self.inputs is None:
            return None
        if not self.inputs_range:
            self.inputs_range.append(self.span(self.np.frombuffer(self.inputs, self.np.uint8)))
        return self.inputs_range[0]

    def describe_value(self, value, reply: dict, max_bytes: int) -> bytes:
        np = self.np
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
                array = np.asarray(value)
        except alarms.OutOfTime:  # the call's alarm, in a looping ``__array__``: the call's timeout, not unreadable
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


def type_name(value) -> str:
    cls = type(value)
    try:  # a metaclass can make either attribute a property that raises, or anything but text
        module = getattr(cls, "__module__", "") or ""
        name = getattr(cls, "__qualname__", cls.__name__)
        return str(name if module in ("builtins", "") else f"{module}.{name}")[:200]  # a __qualname__ of 10 MB
    except BaseException:  # noqa: BLE001
        return "(unnamed type)"


def _code_type() -> None:
    """Its ``__code__`` gives the type of a real code object: one the student cannot stand in for."""


def signature(function, wire) -> dict | None:
    """The function's parameters as plain data: names, kinds, whether each has a default; None when it has no
    signature Python can read (a builtin, a ``__signature__`` that is not one). At most ``wire.MAX_PARAMETERS`` are
    listed and ``count`` says how many there are; everything here is the student's and is checked by the parent."""
    inspect = stdlib.load("inspect")
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
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
        listed.append({"name": str(parameter.name)[:wire.MAX_PARAMETER_NAME], "kind": kind,
                       "default": parameter.default is not inspect.Parameter.empty})
    own = ""
    try:  # a function bound to another name (``linear = dense_scores``) is named by what it calls itself
        name = function.__name__
        own = name[:wire.MAX_PARAMETER_NAME] if type(name) is str else ""
    except Exception:  # noqa: BLE001  (a callable object's __getattr__ may raise anything)
        pass
    chain = None
    try:  # a body that calls print, its own or a helper's whose result it returns: the parent's sentence says so
        chain = _printed_by(function, _RETURN_DEPTH, _Budget(), {id(function)})
    except Exception:  # noqa: BLE001  (a callable object's __getattr__ may raise anything)
        pass
    reply = {"count": int(len(parameters)), "parameters": listed, "own_name": own, "prints": chain is not None}
    if chain:
        reply["printed_by"] = [name[:wire.MAX_PARAMETER_NAME] for name in chain]
    return reply


#: how many functions deep a returned result is followed, and how many code objects are read in all
_RETURN_DEPTH, _MAX_CODES = 4, 64
#: how many entries (instructions, names, constants, steps back over a call's arguments) the walk reads in all: a
#: function of a few hundred lines reads a few thousand. Unbounded, a generated function of 40,000 statements took
#: 1.2 s to list and one of 3,000 ``return out`` 2 s (the signature's whole time, so its parameters were lost too)
_MAX_UNITS = 20_000
#: instructions that call, and how many stack slots above the callable each one's argument count leaves out
_CALLS = {"CALL": 0, "CALL_FUNCTION": 0, "CALL_METHOD": 0, "CALL_FUNCTION_KW": 1, "CALL_KW": 1}
#: instructions between the callable and the call that move no value of the call's; 3.11's PRECALL is one only
#: for the call's own arguments (``needed`` counts them): a nested call's pops its arguments, as ``dis`` says
_INERT = frozenset({"KW_NAMES", "CACHE", "EXTENDED_ARG", "NOP"})


class _Budget:
    """What one walk may still read: code objects, and entries of any kind (``_MAX_UNITS``); and which globals
    dicts were found safe to look a name up in (``_plain_globals``), by id."""

    def __init__(self) -> None:
        self.codes, self.units, self.plain = _MAX_CODES, _MAX_UNITS, {}

    def spend(self, units: int) -> bool:
        """Take ``units`` entries; False (and nothing taken) when fewer are left."""
        if units > self.units:
            return False
        self.units -= units
        return True


def _printed_by(function, depth: int, budget: _Budget, seen: set) -> list[str] | None:
    """Where a None the function returns may come from a print: ``[]`` when its own body calls print (what it
    always said), ``["g", "h"]`` when it returns what ``g()`` returns, which returns what ``h()`` returns, whose body
    calls print; None otherwise. Only a helper whose result is returned counts: a helper called for its effect that
    prints (a log line) has nothing to do with a None the function hands back (``def f(x): show(x)`` has no return
    statement, and is told so). Read from the bytecode, never run; a claim the parent only words, never a verdict."""
    if type(function) is _method_type:  # a bound method graded (``f = model.forward``): its function
        function = function.__func__
    code = function.__code__ if type(function) is _function_type else None
    if type(code) is not _code_type_:
        return None
    if _calls_print(code, budget):
        return []
    if depth <= 0 or not _names_a_printer(function, code, depth, budget):
        return None
    for callee in _returned_callees(function, code, budget):
        if id(callee) in seen or budget.codes <= 0:
            continue
        seen.add(id(callee))
        found = _printed_by(callee, depth - 1, budget, seen)
        if found is not None:
            name = callee.__code__.co_name
            return [name if type(name) is str else "?"] + found
    return None


def _calls_print(code, budget: _Budget) -> bool:
    """Whether ``code`` or a code object nested in it (a comprehension, a lambda, an inner def) names print."""
    budget.codes -= 1
    if not budget.spend(len(code.co_names) + len(code.co_consts)):
        return False
    if "print" in code.co_names:
        return True
    return any(type(const) is _code_type_ and budget.codes > 0 and _calls_print(const, budget)
               for const in code.co_consts)


def _names_a_printer(function, code, depth: int, budget: _Budget) -> bool:
    """Whether a plain function ``function`` names (a global, a closure's variable), or one that names, calls print,
    ``depth`` deep: only then is the bytecode read for the calls whose result is returned. Most graded functions
    name no such function, and their runs never load ``dis`` (about 1 ms each)."""
    namespace = _plain_globals(function, budget)
    if not budget.spend(len(code.co_names)):
        return False
    values = [dict.get(namespace, name) for name in code.co_names] if namespace is not None else []
    for cell in function.__closure__ or ():
        try:
            values.append(cell.cell_contents)
        except ValueError:  # an empty cell
            pass
    for value in values:
        if type(value) is not _function_type or value is function or budget.codes <= 0:
            continue
        inner = value.__code__
        if type(inner) is _code_type_ and (_calls_print(inner, budget)
                                           or depth > 1 and _names_a_printer(value, inner, depth - 1, budget)):
            return True
    return False


def _plain_globals(function, budget: _Budget) -> dict | None:
    """The function's globals when each of their keys is a plain ``str``, so that looking a name up compares no
    object of the student's: a key whose ``__hash__`` was a name's and whose ``__eq__`` looped ran in the walk, for
    the signature's whole time. None otherwise (no helper is then followed). Checked once per dict and walk."""
    namespace = function.__globals__
    if not isinstance(namespace, dict):
        return None
    plain = budget.plain.get(id(namespace))
    if plain is None and budget.spend(len(namespace)):
        plain = budget.plain[id(namespace)] = all(type(key) is str for key in list(namespace))
    return namespace if plain else None


def _returned_callees(function, code, budget: _Budget) -> list:
    """The plain Python functions whose result ``function`` returns: ``return helper(...)``, or ``out = helper(...)``
    then ``return out``; a callable named by a global or a closure's variable, nothing else. The instructions are
    listed from a copy of the code without its constants: ``dis`` gives each constant it loads with its ``repr()``,
    which a constant of the student's own class (``code.replace(co_consts=...)``) can make loop or end the run."""
    dis = stdlib.load("dis")
    if not budget.spend(len(code.co_code) // 2):
        return []
    instructions = list(dis.get_instructions(code.replace(co_consts=(None,) * len(code.co_consts))))
    stored: dict = {}  # each local a call's result is stored in: the calls, by the local's name
    for j, ins in enumerate(instructions):
        if j and ins.opname == "STORE_FAST" and instructions[j - 1].opname in _CALLS:
            stored.setdefault(ins.argval, []).append(j - 1)
    calls = []
    for i, ins in enumerate(instructions):
        if ins.opname != "RETURN_VALUE" or i == 0:
            continue
        before = instructions[i - 1]
        if before.opname in _CALLS:
            calls.append(i - 1)
        elif before.opname.startswith("LOAD_FAST") and isinstance(before.argval, str):
            calls.extend(stored.get(before.argval, ()))
    callees = []
    for at in dict.fromkeys(calls):  # each call once: a local returned in many places was walked back each time
        try:
            callee = _callee(function, code, instructions, at, dis, budget)
        except (ValueError, TypeError):  # an instruction whose stack effect this interpreter does not give
            continue
        if type(callee) is _function_type and callee not in callees:
            callees.append(callee)
    return callees


def _callee(function, code, instructions: list, at: int, dis, budget: _Budget):
    """The function the call at ``instructions[at]`` calls, when the instruction that loaded it names it: walking
    back over the arguments' instructions, the callable is what the first one to fill the stack past them loaded.
    A jump among them (``helper(a if c else b)``) or an unknown instruction gives None: no guess."""
    call = instructions[at]
    needed, pushed, own = (call.arg or 0) + 1 + _CALLS[call.opname], 0, True
    for j in range(at - 1, -1, -1):
        ins = instructions[j]
        if ins.opcode in dis.hasjrel or ins.opcode in dis.hasjabs or not budget.spend(1):
            return None
        if ins.opname in _INERT or own and ins.opname == "PRECALL":
            continue
        own = False
        pushed += dis.stack_effect(ins.opcode, ins.arg if ins.opcode >= dis.HAVE_ARGUMENT else None, jump=False)
        if pushed >= needed:
            if ins.opname == "PUSH_NULL" and j:  # 3.13 pushes the NULL after the callable
                ins = instructions[j - 1]
            return _named_value(function, code, ins, budget)
        if ins.is_jump_target:
            return None
    return None


def _named_value(function, code, ins, budget: _Budget):
    """The value a ``LOAD_GLOBAL``, ``LOAD_NAME`` or ``LOAD_DEREF`` of ``function`` loads, read without running
    anything of the student's (a plain dict's item, a closure's cell); None for any other instruction."""
    name = ins.argval
    if not isinstance(name, str):
        return None
    if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME"):
        namespace = _plain_globals(function, budget)
        return dict.get(namespace, name) if namespace is not None else None
    if ins.opname == "LOAD_DEREF" and name in code.co_freevars and function.__closure__ is not None:
        try:
            return function.__closure__[code.co_freevars.index(name)].cell_contents
        except (IndexError, ValueError):  # an empty cell: the variable is not assigned yet
            return None
    return None


_function_type = type(_code_type)
_weakref = weakref.ref  # kept at the runner's start, before the student's code could replace the module
_method_type = type(Results().detached)
_code_type_ = type(_code_type.__code__)


def unreadable(exc: BaseException) -> dict:
    """A returned value whose description raised: the parent says it could not be read, and why in a word."""
    try:
        detail = str(type(exc).__name__)
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
        described["address_space"] = address_space()  # the student's code may have lowered it (setrlimit)
    return described


def address_space() -> int:
    """This process's soft address-space limit (RLIMIT_AS) in bytes; -1 when it has none or it cannot be read."""
    try:
        return int(stdlib.load("resource").getrlimit(stdlib.load("resource").RLIMIT_AS)[0])
    except Exception:  # noqa: BLE001  (student code may have replaced the module)
        return -1


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
