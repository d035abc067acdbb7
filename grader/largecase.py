"""The large case's files: arrays generated straight into memory-mapped .npy files that every child maps.

Built once per grading session in the grader and never written by a child: the children map them read-only
(copy-on-write), so a writing child changes only its own private pages.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .exercise import Case


@dataclass(frozen=True)
class SharedArrays:
    """Large case inputs written once per run as .npy files the child maps copy-on-write."""

    paths: dict[tuple[str, int], Path]
    nbytes: int

    @classmethod
    def write(cls, cases: list[Case], folder: Path, allocated: FileAllocator | None = None) -> SharedArrays:
        """Save each shared input as .npy, unless it already lives in a file the allocator made."""
        paths, total = {}, 0
        for case in cases:
            if not case.shared:
                continue
            for index, array in enumerate(case.args):
                path = allocated.path_of(array) if allocated else None
                if path is None:
                    path = folder / f"{case.name}-{index}.npy"
                    np.save(path, np.ascontiguousarray(array), allow_pickle=False)
                os.chmod(path, 0o644)
                paths[(case.name, index)] = path
                total += array.nbytes
        return cls(paths, total)


class FileAllocator:
    """``alloc(shape)`` for case generators: arrays born as memory-mapped .npy files, so the large case is
    generated straight into what the children map, with no copy and no second write."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._files: list[tuple[np.ndarray, Path]] = []

    def __call__(self, shape: tuple[int, ...], dtype=np.float64) -> np.ndarray:
        path = self.folder / f"array-{len(self._files)}.npy"
        array = np.lib.format.open_memmap(path, mode="w+", dtype=dtype, shape=tuple(shape))
        self._files.append((array, path))
        return array

    def path_of(self, array: np.ndarray) -> Path | None:
        for made, path in self._files:
            if array is made:
                made.flush()
                return path
        return None
