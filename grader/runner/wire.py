"""Framing shared by the grader and the child: length-prefixed JSON frames, each optionally followed by raw bytes.

No pickle anywhere. The parent decodes what the child sends with ``read_frame`` and ``decode_array``, which
refuse anything that is not a plain numeric array of exactly the declared size. This module must import only
the standard library and numpy: it is mounted into the sandbox next to ``child.py``.
"""
from __future__ import annotations

import json
import struct

import numpy as np

# the runner's own builtins, copied before student code runs (see stdlib.own_builtins; this module is imported by the
# grader too, where nothing replaces them): a student's ``builtins.len`` made every frame's header lie about its size
__builtins__ = dict(vars(__import__("builtins")))

HEADER = struct.Struct(">II")  # JSON length, payload length
MAX_JSON = 4 * 1024 * 1024
MAX_DIMS, MAX_EXTENT = 32, 2**40  # numpy allows 64 dimensions; no result needs more than these
#: dtype kinds that may cross: bool, signed and unsigned ints, floats, complex. Nothing with objects or fields.
PLAIN_KINDS = frozenset("biufc")
#: the child's exit code when its own code failed while it answered (student code replaced a builtin it uses, closed
#: its channel, gave it an object that breaks it): the parent says so instead of "exited with code 0"
RUNNER_BROKEN = 86
#: a lookup's answer lists at most this many of the function's parameters (and says how many it has), each name cut
#: to ``MAX_PARAMETER_NAME`` characters: a ``__signature__`` may claim a million parameters with names of any length
MAX_PARAMETERS, MAX_PARAMETER_NAME = 64, 100
#: the parameter kinds a lookup may name, as ``inspect.Parameter.kind`` has them
PARAMETER_KINDS = ("positional-only", "positional", "var-positional", "keyword-only", "var-keyword")
#: how long the child spends reading a signature (student code may run: a ``__signature__`` property, a metaclass)
SIGNATURE_SECONDS = 2.0


def _refuse(value):
    """What json's encoder calls for a value it cannot write: no message holds one."""
    raise TypeError(f"{type(value).__name__} is not part of a protocol message")


def _kept_encoder():
    """json's C encoder, made now with the protocol's settings and kept: ``json.dumps`` is Python code that looks up
    ``json.dumps``, ``JSONEncoder.iterencode`` and ``json.encoder.c_make_encoder`` each time it runs, and student
    code shares those modules with the child. A ``json.dumps`` replaced with public names alone rewrote every frame
    the child sent (a returned subclass called an exact ndarray, a reassigned shape or a result overwritten by the
    next call left unsaid): three wrong full marks. The C encoder keeps its separators and string encoder, and
    writes floats with ``float.__repr__``, as ``json.dumps`` does; None where this Python has no C encoder."""
    from json import encoder

    try:
        kept = encoder.c_make_encoder(None, _refuse, encoder.encode_basestring_ascii, None, ":", ",", False, False,
                                      True)
        return kept if "".join(kept({"t": [1.5, float("nan"), None, True, "\u00e9"]}, 0)) == \
            '{"t":[1.5,NaN,null,true,"\\u00e9"]}' else None
    except Exception:  # noqa: BLE001  (another Python's signature: json.dumps, as before)
        return None


_ENCODE = _kept_encoder()


def _dumps(message: dict) -> bytes:
    """A message as compact JSON bytes, NaN and infinities allowed (as ``json.dumps`` writes them)."""
    if _ENCODE is not None:
        return "".join(_ENCODE(message, 0)).encode("utf-8")
    return json.dumps(message, separators=(",", ":"), allow_nan=True).encode("utf-8")


class WireError(ValueError):
    """The byte stream does not follow the protocol (a student may have written into the channel)."""


def encode_header(message: dict, payload_size: int) -> bytes:
    """The frame's sizes and JSON; its payload follows as it is."""
    body = _dumps(message)
    return HEADER.pack(len(body), payload_size) + body


def encode_frame(message: dict, payload: bytes | memoryview = b"") -> bytes:
    body = _dumps(message)
    return HEADER.pack(len(body), len(payload)) + body + bytes(payload)


def frame_sizes(prefix: bytes, max_payload: int) -> tuple[int, int]:
    """Validate a frame header before anything is allocated for it."""
    body_len, payload_len = HEADER.unpack(prefix)
    if body_len > MAX_JSON:
        raise WireError(f"a frame of {body_len} bytes is larger than the protocol allows")
    if payload_len > max_payload:
        raise WireError(f"a payload of {payload_len} bytes is larger than the protocol allows")
    return body_len, payload_len


def decode_message(body: bytes) -> dict:
    try:
        message = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise WireError(f"unreadable frame: {exc}") from None
    except ValueError:  # a number of more than 4,300 digits, which int() refuses to read (no answer has one)
        raise WireError("unreadable frame: a number too long to read") from None
    except RecursionError:  # a frame nested deeper than any message the child sends
        raise WireError("unreadable frame: nested too deeply") from None
    if not isinstance(message, dict) or not isinstance(message.get("t"), str):
        raise WireError("a frame is not a protocol message")
    return message


def array_spec(array: np.ndarray) -> dict:
    return {"dtype": array.dtype.str, "shape": list(array.shape)}


def checked_dtype(spec: object) -> np.dtype:
    if not isinstance(spec, dict) or not isinstance(spec.get("dtype"), str):
        raise WireError("an array description has no dtype")
    try:
        dtype = np.dtype(spec["dtype"])
    except (TypeError, ValueError, OverflowError):  # '(-1,)f8' and '(10**14,)f8' are ValueErrors, not TypeErrors
        raise WireError(f"unknown dtype {spec['dtype'][:40]!r}") from None
    if dtype.kind not in PLAIN_KINDS or dtype.fields is not None or dtype.subdtype is not None:
        raise WireError(f"dtype {dtype} is not a plain numeric type")
    return dtype


def describable(shape: tuple[int, ...]) -> bool:
    """Whether a shape fits the wire's rules: the child says an array that does not is unreadable, not its shape."""
    return len(shape) <= MAX_DIMS and all(0 <= n < MAX_EXTENT for n in shape)


def checked_shape(spec: dict) -> tuple[int, ...]:
    shape = spec.get("shape")
    if not isinstance(shape, list) or len(shape) > MAX_DIMS:
        raise WireError("an array description has no valid shape")
    if not all(isinstance(n, int) and not isinstance(n, bool) and 0 <= n < MAX_EXTENT for n in shape):
        raise WireError(f"invalid shape {shape!r}")
    return tuple(shape)


def decode_array(spec: object, payload: bytes) -> np.ndarray:
    """Rebuild a plain, writable ndarray from its description and bytes; refuse any mismatch."""
    dtype = checked_dtype(spec)
    shape = checked_shape(spec)  # type: ignore[arg-type]
    count = 1
    for n in shape:
        count *= n
    if count * dtype.itemsize != len(payload):
        raise WireError(f"array of shape {shape} and dtype {dtype} does not match its {len(payload)} bytes")
    owned = payload if isinstance(payload, bytearray) else bytearray(payload)  # writable, and ours alone
    return np.frombuffer(owned, dtype=dtype).reshape(shape)
