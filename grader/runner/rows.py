"""An array whose rows repeat with a period, stored once: one file holds ``period`` rows, mapped again and again.

A large case's biggest weight matrix can be most of a gigabyte, and each student's product with it streams all of
it from memory: on two cores sharing about 13 GB/s, tens of milliseconds per student and a minute per thousand.
When its rows repeat every ``period`` rows (a few MiB), the product reads the same few MiB over and over, from the
shared L3 cache, and costs what its arithmetic costs. The shapes, the dtype, the memory layout and every value a
student's code sees are those of an ordinary C-contiguous array; only its memory is shared between repetitions.

The file holds the raw rows (no header) so that every repetition starts on a page boundary and the array is one
contiguous range of addresses: ``period * row bytes`` must be a multiple of the page size. A multiple of 2 MiB
lets a huge-page tmpfs map each repetition with huge pages (a few page-table entries instead of 200,000).

Used by the grader (read-only) and by the child (copy-on-write: a write changes only the writer's private copy of
that page of that repetition, as with any mapped input). Linux only; needs ``mmap`` with ``MAP_FIXED``.
"""
from __future__ import annotations

import ctypes
import mmap
import os

import numpy as np

# the runner's own builtins, copied before student code runs (see stdlib.own_builtins; the grader imports this module
# too, where nothing replaces them): the child maps a large case's rows after student code ran, and a student's
# ``builtins.any = np.any`` (True for any generator) made every layout look unmappable, a break of the grader's code
__builtins__ = dict(vars(__import__("builtins")))

#: virtual alignment of the array's start: a huge page
ALIGN = 2 << 20
_MAP_FIXED = 0x10
_PROT_NONE = 0
_FAILED = ctypes.c_void_p(-1).value


def _libc():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
    libc.munmap.restype = ctypes.c_int
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    return libc


#: What ``repeated`` calls, kept now: the child maps a large case's rows after student code ran, and the student's
#: code shares numpy, os, mmap and ctypes with it. Read at call time, ``np.prod``, ``os.stat``, ``mmap.PAGESIZE`` or
#: ``ctypes.CDLL`` replaced after a right definition broke the mapping (the large case lost as a break of the
#: grader's own code), and an ``np.frombuffer`` that answered zeros gave the right function zero weights (its values
#: called wrong). The C library's two functions are looked up once here, not on every call (a few microseconds less).
_LIBC = _libc()
_mmap_at, _munmap = _LIBC.mmap, _LIBC.munmap
_dtype, _frombuffer, _get_errno, _char = np.dtype, np.frombuffer, ctypes.get_errno, ctypes.c_char
_stat, _open, _close, _fspath, _strerror, _RDONLY = os.stat, os.open, os.close, os.fspath, os.strerror, os.O_RDONLY
_PAGE, _PRIVATE, _ANONYMOUS = mmap.PAGESIZE, mmap.MAP_PRIVATE, mmap.MAP_ANONYMOUS
_READ, _WRITE = mmap.PROT_READ, mmap.PROT_WRITE


def _count(shape) -> int:
    """The product of ``shape``'s extents, in Python integers (``np.prod`` is student-replaceable numpy code)."""
    count = 1
    for n in shape:
        count *= int(n)
    return count


def check(shape: tuple[int, ...], dtype, period: int) -> int:
    """The bytes of one period of rows; ValueError when the layout cannot be mapped as repetitions."""
    if len(shape) < 1 or any(int(n) <= 0 for n in shape) or not 0 < period <= shape[0]:
        raise ValueError(f"rows repeating every {period} cannot make an array of shape {tuple(shape)}")
    row = _count(shape[1:]) * _dtype(dtype).itemsize
    if (period * row) % _PAGE:
        raise ValueError(f"{period} rows of {row} bytes are not a whole number of {_PAGE}-byte pages")
    return period * row


def repeated(path: str | os.PathLike, dtype, shape: tuple[int, ...], period: int, writable: bool) -> np.ndarray:
    """The C-contiguous array of ``shape`` whose row ``i`` is row ``i % period`` of the raw file at ``path``.

    ``writable``: mapped copy-on-write (private writes); else read-only, and the array says so."""
    dtype = _dtype(dtype)
    tile = check(shape, dtype, period)
    total = _count(shape) * dtype.itemsize
    if _stat(path).st_size < tile:
        raise ValueError(f"{_fspath(path)} holds fewer than {period} rows")
    # reserve the range (and room to align it), keep the aligned part, give the rest back
    reserved = _mmap_at(None, total + ALIGN, _PROT_NONE, _PRIVATE | _ANONYMOUS, -1, 0)
    if reserved in (None, _FAILED):
        raise OSError(_get_errno(), f"no room to map {total} bytes")
    start = -(-reserved // ALIGN) * ALIGN
    if start > reserved:
        _munmap(reserved, start - reserved)
    _munmap(start + total, reserved + total + ALIGN - (start + total))
    protection = _READ | (_WRITE if writable else 0)
    fd = _open(path, _RDONLY)
    try:
        for offset in range(0, total, tile):
            length = min(tile, total - offset)
            got = _mmap_at(start + offset, length, protection, _PRIVATE | _MAP_FIXED, fd, 0)
            if got != start + offset:
                error = _get_errno()
                _munmap(start, total)
                raise OSError(error, f"could not map {_fspath(path)}: {_strerror(error)}")
    finally:
        _close(fd)

    def release(_self, start=start, total=total, munmap=_munmap) -> None:
        munmap(start, total)

    region = type("Repeated", (_char * total,), {"__del__": release}).from_address(start)
    array = _frombuffer(region, dtype=dtype).reshape(shape)  # keeps ``region`` (and so the map) alive
    if not writable:
        array.flags.writeable = False
    return array
