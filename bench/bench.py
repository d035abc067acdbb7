"""Benchmark: grade a synthetic class and compare against a bare ``python -c "import numpy"`` start.

    .venv/bin/python bench/bench.py [--students 200] [--jobs N] [--modes fork,bwrap] [--full-scale] [--keep DIR]

Builds a class of at least 200 submissions in a temporary folder (correct ones in every style of
``tests/submissions/correct``, notebooks, every mistake of ``tests/submissions/buggy``, broken files, and a few hostile
ones: an infinite loop, a memory bomb, a stdout flood), grades it with ``--no-full-scale`` through the CLI, and
prints a table: submissions per second, the batch cost per submission, the cold time of one
``grader grade FILE --no-full-scale``, each against the baseline measured in the same run. The hostile
submissions run under small limits (a copy of the exercise with 1 s per call) so that the figures show the grader,
not the time limits. Targets on 2 cores: batch cost per submission <= 1x a bare numpy start; one cold grade <= 5x.

``--modes`` compares sandbox designs in one run (``GRADER_SANDBOX`` for each): ``fork``, children forked from a
warm template with numpy loaded, and ``bwrap``, a fresh Python and numpy in a fresh bubblewrap per child. Modes
the machine cannot run are left out with a note. The cold grades of the modes are interleaved, so that a change
of load on the machine weighs on each mode alike; the batches run one after the other.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SUBMISSIONS = ROOT / "tests" / "submissions"
BIN = Path(sys.executable).parent
GRADER = [str(BIN / "grader")] if (BIN / "grader").exists() else [sys.executable, "-m", "grader"]
#: nbgrader autograde, seconds per notebook inside one batch process (../shared/notes/peers.md)
NBGRADER_SECONDS = 0.78

SMALL_LIMITS = """[limits]
call_seconds = 1.0
cell_seconds = 1.5
submission_seconds = 6.0
memory_mib = 256
output_mib = 1
file_mib = 4
processes = 16
"""

HOSTILE = {
    "infinite-loop.py": "while True:\n    pass\n",
    "memory-bomb.py": "x = []\nwhile True:\n    x.append(bytearray(64 << 20))\n",
    "stdout-flood.py": "import sys\nwhile True:\n    sys.stdout.write('spam ' * 1000)\n",
}
BROKEN = {
    "syntax-error.py": "import numpy as np\ndef vgg_classifier(features, W1, b1, W2, b2, W3, b3)\n    return 0\n",
    "not-json.ipynb": "this is not a notebook\n",
}


def build_class(folder: Path, students: int) -> dict[str, int]:
    """Write ``students`` submissions (about 55% correct, 35% buggy, the rest notebooks, broken and hostile)."""
    correct = sorted((SUBMISSIONS / "correct").glob("*.py"))
    buggy = sorted(p for p in (SUBMISSIONS / "buggy").rglob("*.py") if p.name != "too-slow.py")
    notebooks = sorted((SUBMISSIONS / "notebooks").glob("correct-*.ipynb")) + [SUBMISSIONS / "notebooks" / "buggy-softmax.ipynb"]
    folder.mkdir(parents=True, exist_ok=True)
    counts = {"correct": 0, "buggy": 0, "notebook": 0, "broken": 0, "hostile": 0}
    fixed = [("hostile", name, text) for name, text in HOSTILE.items()]
    fixed += [("hostile", "too-slow.py", (SUBMISSIONS / "buggy" / "too-slow.py").read_text(encoding="utf-8"))]
    fixed += [("broken", name, text) for name, text in BROKEN.items()]
    n = 0
    for kind, name, text in fixed:
        (folder / f"s{n:04d}-{name}").write_text(text, encoding="utf-8")
        counts[kind] += 1
        n += 1
    while n < students:
        share = n % 20
        if share < 11:
            kind, source = "correct", correct[n % len(correct)]
        elif share < 18:
            kind, source = "buggy", buggy[n % len(buggy)]
        else:
            kind, source = "notebook", notebooks[n % len(notebooks)]
        shutil.copyfile(source, folder / f"s{n:04d}-{source.name}")
        counts[kind] += 1
        n += 1
    return counts


def small_exercise(folder: Path) -> Path:
    """A copy of the exercise with small limits, so hostile submissions cost seconds, not minutes."""
    target = folder / "exercises" / "vgg_classifier"
    shutil.copytree(ROOT / "exercises" / "vgg_classifier", target, ignore=shutil.ignore_patterns("examples"))
    toml = target / "exercise.toml"
    text = re.sub(r"\[limits\][^\[]*", SMALL_LIMITS + "\n", toml.read_text(encoding="utf-8"), count=1)
    toml.write_text(text, encoding="utf-8")
    return folder / "exercises"


def timed(command: list[str], mode: str = "", **kwargs) -> float:
    env = {**os.environ, "GRADER_SANDBOX": mode} if mode else None
    started = time.perf_counter()
    subprocess.run(command, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, **kwargs)
    return time.perf_counter() - started


def hostile_seconds(out: Path) -> float:
    """Worker time the hostile and too-slow submissions of the last batch took (their time limits, mostly)."""
    import json

    names = {Path(name).stem for name in HOSTILE} | {"too-slow"}
    seconds = 0.0
    for result in out.glob("students/*/result.json"):
        data = json.loads(result.read_text(encoding="utf-8"))
        if Path(str(data.get("submission", ""))).stem.split("-", 1)[-1] in names:
            seconds += float(data.get("timing", {}).get("total", 0.0))
    return seconds


def unavailable(mode: str) -> str:
    """Why ``mode`` cannot run here (empty when it can), asked of a separate grader process."""
    code = ("import sys; from grader.sandbox import Limits, Sandbox\n"
            "try:\n    Sandbox(Limits(), mode=sys.argv[1])\nexcept Exception as exc:\n    print(exc)")
    done = subprocess.run([sys.executable, "-c", code, mode], capture_output=True, text=True, cwd=ROOT)
    return (done.stdout.strip() or done.stderr.strip()[-200:]) if done.returncode or done.stdout.strip() else ""


def median_time(command: list[str], runs: int) -> float:
    return statistics.median(timed(command) for _ in range(runs))


def full_scale_figures(work: Path, jobs: int) -> list[tuple[str, str]]:
    """The VGG16-scale case's extra cost per submission, beside the reference's own time on that case."""
    sys.path.insert(0, str(ROOT))
    from grader import exercise as exercise_mod
    from grader.grade import Session

    exercise = exercise_mod.load("vgg_classifier")
    with Session(exercise, full_scale=True) as session:  # the build a batch does once: inputs, files, expected
        started = time.perf_counter()
        case = session.full_scale_case()[0]
        build = time.perf_counter() - started
        reference = statistics.median(_time_call(exercise.expected, case) for _ in range(5))
    folder = work / "full-class"
    folder.mkdir()
    # the reference's own formulation, so the figure is the harness's cost, not the speed of a slow style
    # (a long-double or unoptimised-einsum solution is correct but takes seconds at this scale)
    k = 2 * jobs * 6
    for i in range(k):
        shutil.copyfile(SUBMISSIONS / "correct" / "matmul.py", folder / f"f{i:03d}.py")
    base = GRADER + ["grade", str(folder), "--exercise", "vgg_classifier", "-q", "--jobs", str(jobs)]
    without = timed(base + ["--no-full-scale", "--out", str(work / "o1")])
    with_full = timed(base + ["--out", str(work / "o2")])
    return [
        ("VGG16-scale case: reference on it (in-process, median of 5)", f"{reference * 1000:.0f} ms"),
        ("VGG16-scale case: one-time build (inputs as shared files, expected output)", f"{build:.2f} s"),
        (f"VGG16-scale case: extra batch time per submission ({k} copies of matmul.py, build excluded)",
         f"{(with_full - without - build) / k * 1000:.0f} ms = "
         f"{(with_full - without - build) / k / reference:.2f}x the reference (target <= 2x)"),
    ]


def _time_call(function, *args) -> float:
    started = time.perf_counter()
    function(*args)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--modes", default="fork,bwrap", help="sandbox modes to compare, comma-separated")
    parser.add_argument("--full-scale", action="store_true", help="also measure the VGG16-scale case's extra cost")
    parser.add_argument("--keep", type=Path, help="build and grade in this folder and keep it")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="grader-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        counts = build_class(work / "class", max(args.students, 200))
        exercises = small_exercise(work)
        total = sum(counts.values())
        print(f"class of {total}: " + ", ".join(f"{v} {k}" for k, v in counts.items()), file=sys.stderr)

        modes = []
        for mode in [m.strip() for m in args.modes.split(",") if m.strip()]:
            why = unavailable(mode)
            if why:
                print(f"mode {mode} left out: {why}", file=sys.stderr)
            else:
                modes.append(mode)
        numpy_start = median_time([sys.executable, "-c", "import numpy"], 10)
        single = SUBMISSIONS / "correct" / "matmul.py"
        one = GRADER + ["grade", str(single), "--exercise", "vgg_classifier", "--no-full-scale", "-q"]
        colds: dict[str, list[float]] = {mode: [] for mode in modes}
        for _ in range(5):
            for mode in modes:
                colds[mode].append(timed(one, mode))
        command = GRADER + ["grade", str(work / "class"), "--exercise", "vgg_classifier", "--exercises-dir",
                            str(exercises), "--solutions-dir", str(ROOT / "solutions"), "--no-full-scale", "-q",
                            "--jobs", str(args.jobs), "--out", str(work / "out")]
        batches, held = {}, {}
        for mode in modes:
            batches[mode] = timed(command + ["--force"], mode)
            held[mode] = hostile_seconds(work / "out")
        rerun = timed(command)  # everything up to date: the resume path
        rows = [
            ("cores used (--jobs)", f"{args.jobs}"),
            ("baseline: python -c 'import numpy' (median of 10)", f"{numpy_start * 1000:.0f} ms"),
        ]
        for mode in modes:
            batch, cold = batches[mode], statistics.median(colds[mode])
            per = batch / total
            rows += [
                (f"{mode}: batch of {total} (--no-full-scale), wall time",
                 f"{batch:.1f} s ({total / batch:.1f} submissions/s)"),
                (f"{mode}: batch cost per submission",
                 f"{per * 1000:.0f} ms = {per / numpy_start:.2f}x numpy start (target <= 1x); "
                 f"{NBGRADER_SECONDS / per:.0f}x faster than nbgrader's {NBGRADER_SECONDS:g} s"),
                (f"{mode}: of which the hostile submissions (time limits), worker time",
                 f"{held[mode]:.1f} s = {held[mode] / args.jobs / total * 1000:.0f} ms per submission with "
                 f"{args.jobs} workers"),
                (f"{mode}: cold `grader grade FILE --no-full-scale` (median of 5)",
                 f"{cold * 1000:.0f} ms = {cold / numpy_start:.2f}x numpy start (target <= 5x)"),
            ]
        rows.append((f"rerun with all {total} up to date", f"{rerun:.2f} s"))
        if args.full_scale:
            rows += full_scale_figures(work, args.jobs)
        width = max(len(r[0]) for r in rows)
        print(f"| {'measure':<{width}} | value |")
        print(f"|{'-' * (width + 2)}|-------|")
        for name, value in rows:
            print(f"| {name:<{width}} | {value} |")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
