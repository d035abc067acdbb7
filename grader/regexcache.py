"""The programs of the regular expressions the grader compiles as it starts, kept between runs.

Why: the grader's modules and the libraries it loads (numpy, Jinja, tomllib, json, argparse, platform...) compile
about 270 regular expressions before a batch's first run. Parsing a pattern and generating its program is Python
code (``re._parser``, ``re._compiler``): 29 ms of CPU (``time.thread_time``) of the 190 that start took, on the one
core it runs on; served from here, 5 ms, and 2 more to read the file. The program depends only on the pattern, its flags and the Python that made it; the last
step, which builds the pattern object from the program, is C (``_sre.compile``) and fast.

How: ``install()`` puts a ``compile`` of its own in ``re._compiler`` (``re`` calls that module's ``compile`` for
every pattern its own cache does not hold). For a text pattern it looks the program up by (pattern, flags) and hands
it to ``_sre.compile`` exactly as ``re._compiler.compile`` would; otherwise it makes the program with
``re._compiler``'s own functions and keeps it. ``re.DEBUG`` and anything not a str or bytes go to the original.
The file is written at exit when something was added (``keptfile``). Only the Python versions whose
``re._compiler.compile`` this mirrors step for step are served; any other leaves ``re`` untouched.
"""
from __future__ import annotations

import atexit
import os
import sys
from importlib.util import MAGIC_NUMBER

from . import classcache, keptfile

#: what an entry file was written by: the program's opcodes belong to one ``_sre`` (its MAGIC) of one Python
HEADER = (b"grader-regex-cache/1 " + MAGIC_NUMBER.hex().encode() + f" {sys.version_info[:3]}".encode())
#: the versions whose ``re._compiler.compile`` is mirrored here (the ones the grader is tested on)
MIRRORED = ((3, 11),)
#: the most entries a file keeps (a batch's start uses about 270): this process's first, then earlier ones'
MAX_ENTRIES = 800
#: runs of the grader an entry stays kept without being used: the commands that use other patterns find theirs
#: (``grader check``, ``grader merge``), while a pattern made from text that changes from run to run (tokenize's
#: own, whose prefixes come in set order) does not pile up
MAX_AGE = 8

_programs: dict[tuple, tuple] = {}
#: how many runs ago each entry read from the file was last used
_ages: dict[tuple, int] = {}
_used: set[tuple] = set()
_added = 0
_path: str | None = None
_original = None
_modules: tuple = ()


def install() -> None:
    """Serve ``re``'s compilations from the kept programs from now on (once per process; never raises)."""
    global _path, _original, _modules
    try:
        if _path is not None or sys.version_info[:2] not in MIRRORED:
            return
        import _sre
        from re import _compiler, _parser

        folder = classcache.user_folder("regex")
        if folder is None:
            return
        header = HEADER + f" {_sre.MAGIC}\n".encode()
        _path = os.path.join(folder, "programs.marshal")
        for key, (program, age) in _entries(keptfile.read(_path, header)).items():
            _programs[key], _ages[key] = program, age
        _original, _modules = _compiler.compile, (_compiler, _parser, _sre)
        _compiler.compile = _compile
        atexit.register(_write, header)
    except Exception:  # noqa: BLE001  (an optimisation only: without it, every pattern compiles as before)
        pass


def _compile(p, flags=0):
    """``re._compiler.compile``, with the program of a text pattern made once per user."""
    global _added
    _compiler, _parser, _sre = _modules
    if not isinstance(p, (str, bytes)) or type(flags) is not int or flags & _compiler.SRE_FLAG_DEBUG:
        return _original(p, flags)
    key = (type(p) is bytes, p, flags)
    kept = _programs.get(key)
    if kept is not None:
        try:
            pattern = _build(_sre, p, kept)
        except Exception:  # noqa: BLE001  (a damaged entry, refused by _sre's own check: made again below)
            pass
        else:
            _used.add(key)
            return pattern
    parsed = _parser.parse(p, flags)
    groupindex = dict(parsed.state.groupdict)
    indexgroup = [None] * parsed.state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    kept = _programs[key] = (int(flags | parsed.state.flags), [int(op) for op in _compiler._code(parsed, flags)],
                             parsed.state.groups - 1, groupindex, tuple(indexgroup))
    _added += 1
    _used.add(key)
    return _build(_sre, p, kept)


def _build(_sre, pattern, kept: tuple):
    """The pattern object, from its program: the last step of ``re._compiler.compile``, with its arguments."""
    final_flags, code, groups, groupindex, indexgroup = kept
    return _sre.compile(pattern, final_flags, code, groups, dict(groupindex), indexgroup)


def _entries(read: dict) -> dict[tuple, tuple]:
    """The entries of a file shaped as this module writes them, as (program, age); anything else is dropped (and
    made again when used). A program is not checked op by op: ``_sre.compile`` validates it and refuses a damaged
    one."""
    return {key: (value[:5], value[5]) for key, value in read.items()
            if type(key) is tuple and len(key) == 3 and type(value) is tuple and len(value) == 6
            and type(value[1]) is list and type(value[3]) is dict and type(value[4]) is tuple and type(value[5]) is int}


def _write(header: bytes) -> None:
    """Write the programs back if this process made new ones (at exit): those it used, then earlier ones not yet
    too old, one run older."""
    if not _added or _path is None:
        return
    kept = {key: (*program, 0) for key, program in _programs.items() if key in _used}
    for key, program in _programs.items():
        age = _ages.get(key, MAX_AGE) + 1
        if len(kept) >= MAX_ENTRIES:
            break
        if key not in kept and age <= MAX_AGE:
            kept[key] = (*program, age)
    keptfile.write(_path, header, kept, ".regex-")
