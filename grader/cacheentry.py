"""A cache entry on disk: what ``cache.Cache`` writes beside the sealed files and reads back, verified.

``meta.json`` holds the case (its name, group, description and which arguments are files or small private arrays),
every file's digest, the stamps of the data files and folder as sealed, and the intermediate's layout; it is signed
with an HMAC keyed by the course secret. The private files (expected output, intermediate, the shared case's small
arguments) are re-digested on every open (a few kilobytes); the gigabyte of data is verified by its stamps.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from . import largecase
from .exercise import Case
from .runner import rows as rows_mod

FORMAT = 3  # 3: arguments of repeating rows (rows.py)
META_LIMIT = 1 << 20
#: ``GRADER_CACHE_VERIFY=digest``: also re-read every data file's digest when an entry is opened
VERIFY_ENV = "GRADER_CACHE_VERIFY"


@dataclass
class Built:
    """What a session makes for an entry: the frozen case, its sealed files, expected output and intermediate."""

    case: Case
    shared: largecase.SharedArrays
    expected: np.ndarray
    intermediate: object | None


@dataclass(eq=False)
class Entry:
    """An entry a grader holds (LOCK_SH on its lock file) until ``Cache.release``."""

    path: Path
    built: Built
    recompute: bool  # the intermediate is not storable: the session computes it again from the mapped case
    fresh: bool  # built by this grader
    lock_fd: int = field(default=-1, repr=False)


def persist(path: Path, built: Built, exercise_id: str, version: str) -> tuple[dict, bool]:
    """Write the private files of an entry; return the meta body and whether the intermediate must be recomputed."""
    case, shared = built.case, built.shared
    private = path / "private"
    args = []
    for index, array in enumerate(case.args):
        if (case.name, index) in shared.paths:
            file = shared.paths[(case.name, index)]
            repeat = shared.repeats.get(file)
            args.append({"file": file.name} if repeat is None else
                        {"file": file.name, "dtype": repeat[0], "shape": list(repeat[1]), "period": repeat[2]})
        elif not isinstance(array, np.ndarray):  # a scalar argument (an int, a float, None) stays one
            args.append({"value": array})
        else:
            args.append({"private": _save(private / f"arg-{index}.npy", array)})
    intermediate, recompute = _describe_intermediate(private, built.intermediate, case.args)
    files = {f"data/{p.name}": {"digest": shared.digests[p], "stamp": list(shared.stamps[p])}
             for p in shared.digests}
    files["data"] = {"stamp": list(shared.stamps[shared.folder])}
    if isinstance(built.expected, tuple):  # an exercise with several outputs: one file per output
        expected = {"parts": [_save(private / f"expected-{i}.npy", p) for i, p in enumerate(built.expected)]}
    else:
        expected = {"array": _save(private / "expected.npy", built.expected)}
    for item in sorted(private.iterdir()):
        files[f"private/{item.name}"] = {"digest": _digest_small(item)}
        os.chmod(item, 0o400)
    body = {"format": FORMAT, "exercise": exercise_id, "version": version, "numpy": np.__version__,
            "created_ns": time.time_ns(), "nbytes": shared.nbytes,
            "case": {"name": case.name, "group": case.group, "description": case.description,
                     "shared": case.shared, "personal": list(case.personal)},
            "args": args, "expected": expected, "intermediate": intermediate, "files": files}
    return body, recompute


def _describe_intermediate(private: Path, value: object, args: tuple) -> tuple[object, bool]:
    """An intermediate made of arrays (one, or a dict of them) is stored; a case argument by its position."""
    def one(name: str, array) -> dict:
        for index, arg in enumerate(args):
            if array is arg:
                return {"arg": index}
        return {"private": _save(private / f"intermediate-{name}.npy", array)}

    if value is None:
        return None, False
    if isinstance(value, np.ndarray) and value.dtype.kind in "biufc":
        return {"array": one("value", value)}, False
    if isinstance(value, dict) and all(isinstance(k, str) and re.fullmatch(r"[A-Za-z0-9_]{1,64}", k) and
                                       isinstance(v, np.ndarray) and v.dtype.kind in "biufc"
                                       for k, v in value.items()):
        return {"dict": {k: one(k, v) for k, v in value.items()}}, False
    return "recompute", True


def load(path: Path, secret: str, fd: int) -> Entry:
    """Read and verify an entry (signature, stamps of the data, digests of the private files)."""
    body = _read_signed(path / "meta.json", secret)
    files = body["files"]
    data = path / "data"
    for name, record in files.items():
        target = path / name
        if "stamp" in record and list(largecase.stamp(target) or ()) != record["stamp"]:
            raise ValueError(f"{name} changed since it was sealed")
        if name.startswith("private/") and _digest_small(target) != record["digest"]:
            raise ValueError(f"{name} does not match its digest")
    if os.environ.get(VERIFY_ENV) == "digest":  # the gigabyte read again too: 0.3 to 0.4 s per GB on two cores
        data_files = {data / name[len("data/"):]: r["digest"] for name, r in files.items() if "digest" in r
                      and name.startswith("data/")}
        if largecase.digest_files(list(data_files)) != data_files:
            raise ValueError("a data file does not match its digest")
    spec = body["case"]
    args, paths, stamps, digests, repeats = [], {}, {}, {}, {}
    for index, item in enumerate(body["args"]):
        if "file" in item:
            file = data / _plain(item["file"])
            if "period" in item:  # raw rows mapped again and again (signed with the rest of the meta)
                repeat = (np.dtype(str(item["dtype"])).str, tuple(int(n) for n in item["shape"]), int(item["period"]))
                array = rows_mod.repeated(file, repeat[0], repeat[1], repeat[2], writable=False)
                repeats[file] = repeat
            else:
                array = _map(file).view(np.ndarray)
            paths[(spec["name"], index)] = file
            stamps[file] = tuple(files[f"data/{file.name}"]["stamp"])
            digests[file] = files[f"data/{file.name}"]["digest"]
        elif "value" in item:
            args.append(item["value"])
            continue
        else:
            array = _small(path / "private" / _plain(item["private"]))
        array.flags.writeable = False
        args.append(array)
    stamps[data] = tuple(files["data"]["stamp"])
    case = Case(name=spec["name"], group=spec["group"], args=tuple(args), description=spec["description"],
                shared=bool(spec["shared"]), personal=tuple(int(i) for i in spec["personal"]))
    shared = largecase.SharedArrays(paths, int(body["nbytes"]), data, repeats=repeats, stamps=stamps,
                                    digests=digests)
    made = body["expected"]
    expected = (tuple(_small(path / "private" / _plain(n)) for n in made["parts"]) if "parts" in made
                else _small(path / "private" / _plain(made["array"])))
    intermediate, recompute = _restore_intermediate(path / "private", body["intermediate"], case.args)
    return Entry(path, Built(case, shared, expected, intermediate), recompute=recompute, fresh=False, lock_fd=fd)


def _restore_intermediate(private: Path, spec: object, args: tuple) -> tuple[object, bool]:
    def one(item: dict):
        if "arg" in item:
            return args[int(item["arg"])]
        return _small(private / _plain(item["private"]))

    if spec is None:
        return None, False
    if spec == "recompute":
        return None, True
    if "array" in spec:
        return one(spec["array"]), False
    return {k: one(v) for k, v in spec["dict"].items()}, False


def _map(path: Path) -> np.ndarray:
    """A read-only map of a sealed .npy file. Its header is read unbuffered: on a huge-page tmpfs a buffered open
    reads 2 MiB (the file's st_blksize) for a header of a hundred bytes."""
    form = np.lib.format
    with open(path, "rb", buffering=0) as handle:
        version = form.read_magic(handle)
        read = form.read_array_header_1_0 if version == (1, 0) else form.read_array_header_2_0
        shape, fortran, dtype = read(handle)
        if dtype.hasobject:
            raise ValueError(f"{path.name} holds objects")
        return np.memmap(handle, dtype=dtype, mode="r", offset=handle.tell(), shape=shape,
                         order="F" if fortran else "C")


def _small(path: Path) -> np.ndarray:
    with open(path, "rb", buffering=0) as handle:
        return np.load(handle, allow_pickle=False)


def _save(path: Path, array) -> str:
    np.save(path, np.ascontiguousarray(array), allow_pickle=False)
    return path.name


def _plain(name: object) -> str:
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_.-]{1,100}", name) or name.startswith("."):
        raise ValueError(f"a file name in the entry is not plain: {name!r}")
    return name


def _signing_key(secret: str) -> bytes:
    return hashlib.sha256(b"grader-cache-meta\0" + secret.encode()).digest()


def write_signed(path: Path, body: dict, secret: str) -> None:
    text = json.dumps(body, sort_keys=True, separators=(",", ":"))
    signature = hmac.new(_signing_key(secret), text.encode(), hashlib.sha256).hexdigest()
    path.write_text(json.dumps({"body": text, "hmac": signature}))


def _read_signed(path: Path, secret: str) -> dict:
    document = _read_json(path)
    text = document["body"]
    signature = hmac.new(_signing_key(secret), text.encode(), hashlib.sha256).hexdigest()
    if not isinstance(document.get("hmac"), str) or not hmac.compare_digest(signature, document["hmac"]):
        raise ValueError("its signature does not match")
    body = json.loads(text)
    if body.get("format") != FORMAT:
        raise ValueError("another format")
    return body


def read_body(path: Path) -> dict | None:
    """The meta body, unverified: enough to tell staleness and sizes (removal never depends on it being honest)."""
    try:
        body = json.loads(_read_json(path / "meta.json")["body"])
        return body if isinstance(body, dict) else None
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _read_json(path: Path) -> dict:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as handle:
        raw = handle.read(META_LIMIT + 1)
    if len(raw) > META_LIMIT:
        raise ValueError("meta.json is too large")
    document = json.loads(raw)
    if not isinstance(document, dict):
        raise ValueError("meta.json is not an object")
    return document


def _digest_small(path: Path) -> str:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest() if hasattr(hashlib, "file_digest") else \
            hashlib.sha256(handle.read()).hexdigest()
