"""The first build of the large case's cache entry, phase by phase: where its seconds go, and what each way of
building it costs.

    .venv/bin/python bench/first_build.py [--runs 3] [--variants huge,huge-noprefault,small,small-noprefault]
                                          [--rest 5] [--exercise vgg_classifier]

Each run builds an entry into an empty cache of its own (under /dev/shm, its entries on a huge-page tmpfs or not)
in a fresh process, after ``--rest`` seconds of rest: memory freed shortly before is handed out again at once,
while memory that has been free a while may cost more to touch again (a virtual machine's host may have taken it
back, free page reporting), which is what a grader meets when it builds an entry for the first time. Printed:
the wall time of ``Session.full_scale_case()`` into the empty cache (the median of the runs), the process's user and
system CPU, and the time of each phase: ``generate`` (the exercise's generator writing the files), ``digest``
(SHA-256 of the files), ``expected`` (the reference on the case), ``intermediate`` (the exercise's cached
intermediate), ``persist`` (the entry's own small files); ``prefault join`` is the wait for ``largecase.Prefault``
once the generator is done, ``seal`` the sealing of the files with their digest, ``entry`` the whole of
``Cache._build``. Not part of ``make test``.

Variants: ``huge`` (the default as root: entries on a tmpfs with huge pages), ``small`` (``GRADER_CACHE_HUGE=0``:
4 KiB pages); ``-noprefault``: without ``largecase.Prefault`` (the generator faults every page in itself).
"""
from __future__ import annotations

import argparse
import functools
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PHASES = (("generate", "exercise", "full_scale_case"), ("prefault join", "FileAllocator", "close"),
          ("digest", "largecase", "digest_files"), ("seal", "SharedArrays", "write"),
          ("expected", "exercise", "expected"), ("intermediate", "exercise", "full_scale_cache"),
          ("persist", "cacheentry", "persist"), ("entry", "Cache", "_build"))


def _timed(times: dict, label: str, function, *args, **kwargs):
    started = time.perf_counter()
    try:
        return function(*args, **kwargs)
    finally:
        times[label] = times.get(label, 0.0) + time.perf_counter() - started


def _method(wrapped, holder):
    """A partial is no descriptor: as a class attribute it needs one to receive ``self``."""
    if not isinstance(holder, type):
        return wrapped
    return functools.wraps(wrapped)(lambda *args, **kwargs: wrapped(*args, **kwargs))


def one(variant: str, exercise_id: str, rest: float) -> dict:
    """Build once in this process (called in a fresh one); return the timings."""
    sys.path.insert(0, str(ROOT))
    from grader import cache as cache_mod
    from grader import cacheentry, largecase
    from grader import exercise as exercise_mod
    from grader.session import Session

    exercise = exercise_mod.load(exercise_id)
    times: dict[str, float] = {}
    owners = {"exercise": type(exercise), "largecase": largecase, "cacheentry": cacheentry,
              "FileAllocator": largecase.FileAllocator, "SharedArrays": largecase.SharedArrays,
              "Cache": cache_mod.Cache}
    for label, owner, name in PHASES:
        holder = owners[owner]
        raw = vars(holder).get(name) if isinstance(holder, type) else None
        function = raw.__func__ if isinstance(raw, classmethod) else getattr(holder, name)
        wrapped = functools.wraps(function)(functools.partial(_timed, times, label, function))
        setattr(holder, name, classmethod(wrapped) if isinstance(raw, classmethod) else _method(wrapped, holder))
    if "-noprefault" in variant:
        largecase.Prefault.supported = classmethod(lambda cls: False)
    root = Path("/dev/shm") / f"grader-first-build-{os.getpid()}"
    cache = cache_mod.Cache(root, huge=variant.startswith("huge"))
    cache.prepare()
    try:
        with Session(exercise, full_scale=True, cache=cache, secret="first-build") as session:  # its sandbox too
            time.sleep(rest)
            before, started = os.times(), time.perf_counter()
            session.full_scale_case()
            wall = time.perf_counter() - started
            after = os.times()
        huge = cache.huge_pages()
    finally:
        cache.clear()
        shutil.rmtree(root, ignore_errors=True)
    return {"wall": wall, "user": after.user - before.user, "system": after.system - before.system,
            "huge_pages": huge, **times}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--variants", default="huge,huge-noprefault,small,small-noprefault")
    parser.add_argument("--rest", type=float, default=5.0, help="seconds of rest before each build")
    parser.add_argument("--exercise", default="vgg_classifier")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(args.one, args.exercise, args.rest)))
        return 0
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    found: dict[str, list[dict]] = {v: [] for v in variants}
    for _ in range(args.runs):  # interleaved, so that a change of load weighs on every variant alike
        for variant in variants:
            done = subprocess.run([sys.executable, __file__, "--one", variant, "--exercise", args.exercise,
                                   "--rest", str(args.rest)], capture_output=True, text=True, cwd=ROOT)
            if done.returncode:
                print(f"{variant}: failed\n{done.stderr[-2000:]}", file=sys.stderr)
                return 1
            found[variant].append(json.loads(done.stdout.strip().splitlines()[-1]))
    keys = ["wall", "user", "system", *(label for label, _, _ in PHASES)]
    print(f"load average {os.getloadavg()[0]:.2f}; medians of {args.runs}, seconds")
    print("| variant | " + " | ".join(keys) + " |")
    print("|---|" + "---|" * len(keys))
    for variant, runs in found.items():
        cells = [f"{statistics.median(r.get(k, 0.0) for r in runs):.2f}" for k in keys]
        shown = variant + ("" if all(r["huge_pages"] == variant.startswith("huge") for r in runs) else " (!)")
        print(f"| {shown} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
