"""Whether a function that returns None may have printed its result instead: the chain of helpers whose result it
returns, down to one whose body calls print, read from the bytecode and never run.

The child's signature of a graded function carries it (``describe.signature``); the parent only words it in the
sentence for a None return, shown when each name is an identifier. Everything here belongs to the student: the
function, its globals, closures and code objects. The walk reads no object's ``repr()`` (``dis`` would, for the
constants it loads), looks names up only in globals whose keys are all plain strings, and is bounded in code objects
and in entries read (``_MAX_CODES``, ``_MAX_UNITS``).
"""
from __future__ import annotations

import stdlib

#: the runner's own (stdlib.py): it runs after student code, and a student's ``builtins.any = np.any`` (True for
#: any generator) had every function that holds a constant claimed to call print
__builtins__ = stdlib.own_builtins()


def printed_by(function) -> list[str] | None:
    """``[]`` when the function's own body calls print, the helpers' names when it returns what a chain of them
    returns and the last one calls print, None otherwise (``_printed_by``)."""
    return _printed_by(function, _RETURN_DEPTH, _Budget(), {id(function)})


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


def _code_type() -> None:
    """Its ``__code__`` gives the type of a real code object: one the student cannot stand in for."""


class _Bound:
    def method(self) -> None:
        """Its bound method gives the type of a bound method."""


_function_type = type(_code_type)
_method_type = type(_Bound().method)
_code_type_ = type(_code_type.__code__)
