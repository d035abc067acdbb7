"""Compiled page templates kept between grader runs.

Jinja compiles a template to Python before its first render: for the reports' and class pages' templates that costs
a grader process about 0.15 s of CPU on every run, as much as grading a few submissions. Loading the compiled code
from here costs about 1 ms. The folder is this user's own (mode 0700, owned by this user, never followed through a
link), the way Python trusts its own ``__pycache__``: each entry holds the compiled code (``marshal``, as a ``.pyc``
does) after a header with the template's source checksum, and an entry whose header does not match is compiled
again. Jinja's own file cache would do the same but reads its header with ``pickle``, which the grader never uses.
"""
from __future__ import annotations

import marshal
import os
import sys
import tempfile

import jinja2
from jinja2.bccache import Bucket

from . import classcache

#: what an entry was written by: a new Python, Jinja or entry format never reads another's code
MAGIC = f"grader-template-cache/1 jinja2 {jinja2.__version__} python {sys.version_info[0]}.{sys.version_info[1]}\n"


class TemplateCache(jinja2.BytecodeCache):
    """One folder per user; ``flavour`` keeps apart environments whose settings compile a template differently."""

    def __init__(self, folder: str, flavour: str) -> None:
        self.folder = folder
        self.flavour = flavour

    def _path(self, bucket: Bucket) -> str:
        return os.path.join(self.folder, f"{self.flavour}-{bucket.key}.code")

    def load_bytecode(self, bucket: Bucket) -> None:
        try:
            fd = os.open(self._path(bucket), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            return
        with os.fdopen(fd, "rb") as file:
            header = f"{MAGIC}{bucket.checksum}\n".encode()
            if file.read(len(header)) != header:
                return
            try:
                bucket.code = marshal.load(file)
            except (EOFError, ValueError, TypeError):
                bucket.reset()

    def dump_bytecode(self, bucket: Bucket) -> None:
        if bucket.code is None:
            return
        path = self._path(bucket)
        try:  # a reader sees the old entry, the new one or none: never half of one
            fd, temporary = tempfile.mkstemp(dir=self.folder, prefix=".entry-")
            with os.fdopen(fd, "wb") as file:
                file.write(f"{MAGIC}{bucket.checksum}\n".encode())
                marshal.dump(bucket.code, file)
            os.replace(temporary, path)
        except OSError:  # a full or read-only disk: the next run compiles again
            try:
                os.unlink(temporary)
            except (OSError, UnboundLocalError):
                pass


def user_folder() -> str | None:
    """This user's folder for compiled templates (made if missing), or None where none is safe to use."""
    return classcache.user_folder("templates")


def for_environment(flavour: str) -> TemplateCache | None:
    """The cache for one environment's settings, or None (compile every run)."""
    folder = user_folder()
    return TemplateCache(folder, flavour) if folder else None
