"""Benchmark against nbgrader on the same notebooks, in one run: ``make bench-peers``.

    .venv/bin/python bench/peers.py [--build build/peers] [--jobs N] [--runs 5]

1. Installs nbgrader (pinned: ``NBGRADER``) with numpy and a kernel in its own venv under the build folder, once.
2. Makes an nbgrader course of the class: ``source/vgg/vgg.ipynb`` with nbgrader's cell metadata (a solution cell
   for the student's code, an autograded test cell that calls the function on a public case, a hidden test cell
   with two other sizes), ``nbgrader generate_assignment`` (release and gradebook), then 20 submissions
   (8 correct styles, 12 catalogued mistakes) written into the released notebook's solution cell under
   ``submitted/<student>/vgg/``.
3. Times, in the same run: a bare ``python -c "import numpy"`` (the baseline), ``nbgrader autograde`` on all 20
   (one process; ``--peer-runs`` times, each right after three runs of the grader's batch, medians of both) and on
   one notebook, and ``grader grade`` on the same notebooks (the course folder, nbgrader
   layout), cold and in a batch, with and without the VGG16-scale case, from the cache and without it, plus the
   first build of the cache. Prints every ratio and the peak memory of each tool (its own process and its
   whole process tree, sampled from /proc in runs of their own).

The grader's cache for the run lives in its own folder (``/dev/shm/grader-bench-peers`` when there is room), which
is cleared at the end. Not part of ``make test``.
"""
from __future__ import annotations

import argparse
import json
import os
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
GRADER = [sys.executable, "-m", "grader"]
NBGRADER = "nbgrader==0.9.6"
ASSIGNMENT = "vgg"
SECRET = "bench-peers-secret"
CORRECT = ("matmul", "np-dot", "einsum-optimize", "multidot", "helper-function", "relu-where", "relu-clip",
           "relu-mask")
BUGGY = ("flatten-order", "missing-bias", "missing-relu", "relu-after-fc3", "softmax-output", "transposed-weights",
         "wrong-dtype", "wrong-shape", "extra-activation", "hardcoded-shape", "mutates-input", "raises-error")

SOLUTION = """import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    ### BEGIN SOLUTION
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(0.0, x @ W1 + b1)
    h = np.maximum(0.0, h @ W2 + b2)
    return h @ W3 + b3
    ### END SOLUTION
"""
HELPERS = """import numpy as np


def _case(seed, B, H, W, C, D1, D2, K):
    rng = np.random.default_rng(seed)
    widths = (H * W * C, D1, D2, K)
    args = [rng.standard_normal((B, H, W, C))]
    for fan_in, fan_out in zip(widths[:-1], widths[1:]):
        args += [(rng.random((fan_in, fan_out)) - 0.5) * 2 * np.sqrt(6 / fan_in), rng.random(fan_out) - 0.5]
    return args


def _reference(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    return np.maximum(0, np.maximum(0, x @ W1 + b1) @ W2 + b2) @ W3 + b3
"""
PUBLIC_TEST = """args = _case(2014, 3, 2, 3, 4, 8, 7, 5)
out = vgg_classifier(*[a.copy() for a in args])
assert isinstance(out, np.ndarray) and out.shape == (3, 5) and out.dtype == np.float64
assert np.allclose(out, _reference(*args))
"""
HIDDEN_TEST = """### BEGIN HIDDEN TESTS
for seed, sizes in ((7, (1, 3, 2, 5, 12, 9, 7)), (8, (5, 4, 3, 2, 40, 20, 10))):
    args = _case(seed, *sizes)
    out = vgg_classifier(*[a.copy() for a in args])
    assert out.shape == (sizes[0], sizes[-1]) and out.dtype == np.float64
    assert np.allclose(out, _reference(*args), rtol=1e-9, atol=1e-9)
### END HIDDEN TESTS
"""


def cell(kind: str, source: str, grade_id: str | None = None, points: float | None = None,
         solution: bool = False) -> dict:
    metadata: dict = {}
    if grade_id is not None:
        metadata["nbgrader"] = {"grade": points is not None, "grade_id": grade_id, "locked": not solution,
                                "schema_version": 3, "solution": solution, "task": False}
        if points is not None:
            metadata["nbgrader"]["points"] = points
    made = {"cell_type": kind, "metadata": metadata, "source": source}
    if kind == "code":
        made.update(execution_count=None, outputs=[])
    return made


def source_notebook() -> dict:
    cells = [
        cell("markdown", "# VGG16 classifier head\n\nFlatten NHWC features row-major, FC+ReLU, FC+ReLU, FC.",
             "statement"),
        cell("code", SOLUTION, "solution", solution=True),
        cell("code", HELPERS, "helpers"),
        cell("code", PUBLIC_TEST, "public", points=4),
        cell("code", HIDDEN_TEST, "hidden", points=6),
    ]
    return {"cells": cells, "nbformat": 4, "nbformat_minor": 5, "metadata": {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"}}}


# -- the peer's environment and course ---------------------------------------------------------------------------
def install_nbgrader(build: Path) -> Path:
    """nbgrader, pinned, with numpy (the grader's own version) and ipykernel, in ``build/nbgrader-venv``."""
    import numpy

    venv = build / "nbgrader-venv"
    wanted = f"{NBGRADER} numpy=={numpy.__version__} ipykernel"
    stamp = venv / ".installed"
    if stamp.exists() and stamp.read_text() == wanted:
        return venv
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", *wanted.split()], check=True)
    stamp.write_text(wanted)
    return venv


def make_course(course: Path, venv: Path) -> list[str]:
    """An nbgrader course with its gradebook, the assignment released, and the class submitted."""
    shutil.rmtree(course, ignore_errors=True)
    (course / "source" / ASSIGNMENT).mkdir(parents=True)
    (course / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        "c.CourseDirectory.course_id = 'bench'\n"
        f"c.CourseDirectory.root = {str(course)!r}\n"
        "c.ExecutePreprocessor.timeout = 30\n"
        f"c.CourseDirectory.db_url = 'sqlite:///{course}/gradebook.db'\n")
    write_notebook(course / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", source_notebook())
    nbgrader(venv, course, "db", "assignment", "add", ASSIGNMENT)
    nbgrader(venv, course, "generate_assignment", ASSIGNMENT, "--force")
    released = json.loads((course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_text())
    students = []
    for kind, names in (("correct", CORRECT), ("buggy", BUGGY)):
        for name in names:
            student = f"{kind[0]}-{name}"
            notebook = json.loads(json.dumps(released))
            for item in notebook["cells"]:
                if item["metadata"].get("nbgrader", {}).get("grade_id") == "solution":
                    item["source"] = (SUBMISSIONS / kind / f"{name}.py").read_text(encoding="utf-8")
            folder = course / "submitted" / student / ASSIGNMENT
            folder.mkdir(parents=True)
            write_notebook(folder / f"{ASSIGNMENT}.ipynb", notebook)
            (folder / "timestamp.txt").write_text("2026-12-02 12:00:00.000000 UTC")
            students.append(student)
    (course / "students.csv").write_text("id\n" + "".join(f"{s}\n" for s in students))
    nbgrader(venv, course, "db", "student", "import", "students.csv")
    return students


def write_notebook(path: Path, notebook: dict) -> None:
    path.write_text(json.dumps(notebook, indent=1), encoding="utf-8")


def nbgrader(venv: Path, course: Path, *args: str) -> None:
    subprocess.run([str(venv / "bin" / "nbgrader"), *args], cwd=course, env=peer_env(venv), check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def peer_env(venv: Path) -> dict:
    env = dict(os.environ, PATH=f"{venv / 'bin'}:{os.environ.get('PATH', '')}", OPENBLAS_NUM_THREADS="1")
    env.pop("VIRTUAL_ENV", None)
    return env


# -- measuring ----------------------------------------------------------------------------------------------------
def timed(command: list[str], **kwargs) -> float:
    started = time.perf_counter()
    code = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kwargs).returncode
    if code not in (0, 1):
        print(f"note: {' '.join(command[:4])} ... exited {code}", file=sys.stderr)
    return time.perf_counter() - started


def median(command: list[str], runs: int, **kwargs) -> float:
    return statistics.median(timed(command, **kwargs) for _ in range(runs))


def peak_memory(command: list[str], **kwargs) -> tuple[int, int]:
    """Peak memory of a command's process tree, sampled every 20 ms (in runs of their own, so the sampling
    costs no timed run anything): the most its process trees held at once as proportional set size (a page
    shared by n processes counts 1/n in each: the mapped case counts once), and its own process's peak resident
    set. KiB."""
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kwargs)
    tree_peak = own_peak = 0
    while process.poll() is None:
        pids = _tree(process.pid)
        tree_peak = max(tree_peak, sum(_field(f"/proc/{pid}/smaps_rollup", "Pss:") for pid in pids))
        own_peak = max(own_peak, _field(f"/proc/{process.pid}/status", "VmHWM:"))
        time.sleep(0.02)
    return tree_peak, own_peak


def _tree(root: int) -> list[int]:
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    parents[int(entry)] = int(handle.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                pass
    found, frontier = [root], [root]
    while frontier:
        frontier = [pid for pid, parent in parents.items() if parent in frontier]
        found += frontier
    return found


def _field(path: str, name: str) -> int:
    try:
        with open(path) as handle:
            for line in handle:
                if line.startswith(name):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def cache_folder() -> Path:
    shm = Path("/dev/shm")
    try:
        if shm.is_dir() and os.access(shm, os.W_OK) and shutil.disk_usage(shm).free > (4 << 30):
            return shm / "grader-bench-peers"
    except OSError:
        pass
    return Path(tempfile.gettempdir()) / "grader-bench-peers"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", type=Path, default=ROOT / "build" / "peers")
    parser.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--runs", type=int, default=5, help="runs of each cold start (median)")
    parser.add_argument("--peer-runs", type=int, default=3,
                        help="runs of nbgrader's whole class (median), each after three of the grader's")
    args = parser.parse_args()
    build = args.build.resolve()
    build.mkdir(parents=True, exist_ok=True)
    print("installing nbgrader (once) ...", file=sys.stderr)
    venv = install_nbgrader(build)
    course = build / "course"
    print("building the nbgrader course ...", file=sys.stderr)
    students = make_course(course, venv)
    one = course / "submitted" / students[0] / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    cache = cache_folder()
    env = dict(os.environ, GRADER_SECRET=SECRET, GRADER_CACHE_DIR=str(cache))
    subprocess.run(GRADER + ["cache", "clear"], env=env, check=False, stdout=subprocess.DEVNULL)
    grade_one = GRADER + ["grade", str(one), "--exercise", "vgg_classifier", "-q"]
    grade_all = GRADER + ["grade", str(course), "--layout", "nbgrader", "--assignment", ASSIGNMENT, "--exercise",
                          "vgg_classifier", "-q", "--force", "--jobs", str(args.jobs), "--out", str(build / "out")]
    peer = [str(venv / "bin" / "nbgrader"), "autograde", ASSIGNMENT, "--force"]
    n = len(students)
    try:
        print("measuring ...", file=sys.stderr)
        numpy_start = median([sys.executable, "-c", "import numpy"], max(args.runs, 5))
        builds = []
        for _ in range(3):  # each time into an empty cache
            subprocess.run(GRADER + ["cache", "clear"], env=env, check=False, stdout=subprocess.DEVNULL)
            builds.append(timed(grade_one, env=env))
        first_build = statistics.median(builds)
        cold = median(grade_one, args.runs, env=env)  # maps it
        cold_nocache = median(grade_one + ["--no-cache"], args.runs, env=env)
        cold_small = median(grade_one + ["--no-full-scale"], args.runs, env=env)
        batch = median(grade_all, 3, env=env)
        batch_nocache = median(grade_all + ["--no-cache"], 3, env=env)
        peer_one = median(peer + ["--student", students[0]], max(1, args.runs // 2), cwd=course, env=peer_env(venv))
        # The batch ratio side by side: this machine's speed moves with the hour (nbgrader's class took 25 to 33 s
        # on one day), so each nbgrader run comes right after three of the grader's, and both sides are medians.
        smalls, peers = [], []
        for _ in range(args.peer_runs):
            smalls += [timed(grade_all + ["--no-full-scale"], env=env) for _ in range(3)]
            peers.append(timed(peer, cwd=course, env=peer_env(venv)))
        batch_small, peer_all = statistics.median(smalls), statistics.median(peers)
        print("measuring memory ...", file=sys.stderr)
        tree, own = peak_memory(grade_all, env=env)
        cold_tree, cold_own = peak_memory(grade_one, env=env)
        peer_tree, peer_own = peak_memory(peer, cwd=course, env=peer_env(venv))
    finally:
        subprocess.run(GRADER + ["cache", "clear"], env=env, check=False, stdout=subprocess.DEVNULL)
        shutil.rmtree(cache, ignore_errors=True)
    build_once = first_build - cold  # into the cache (huge pages), written out with its expected output
    vgg_cached = (batch - batch_small) / n
    vgg_uncached = (batch_nocache - batch_small - (cold_nocache - cold)) / n  # less the per-run build
    rows = [
        ("baseline: python -c 'import numpy' (median)", f"{numpy_start * 1000:.0f} ms"),
        ("cold `grader grade one.ipynb`, case from the cache (median)",
         f"{cold * 1000:.0f} ms = {cold / numpy_start:.1f}x numpy start (target <= 5x)"),
        ("cold `grader grade one.ipynb --no-cache` (the case built every run)",
         f"{cold_nocache * 1000:.0f} ms = {cold_nocache / numpy_start:.1f}x numpy start"),
        ("cold `grader grade one.ipynb --no-full-scale`",
         f"{cold_small * 1000:.0f} ms = {cold_small / numpy_start:.1f}x numpy start"),
        ("first build of the cache entry (a cold grade into an empty cache minus one from it, median of 3)",
         f"{build_once:.2f} s (target <= 1 s)"),
        ("VGG16-scale case, extra batch time per submission, from the cache",
         f"{vgg_cached * 1000:.0f} ms (target < 100 ms)"),
        ("VGG16-scale case, extra batch time per submission, --no-cache (build excluded)",
         f"{vgg_uncached * 1000:.0f} ms"),
        (f"`grader grade` course of {n} (nbgrader layout, --jobs {args.jobs}), wall (median of 3)",
         f"{batch:.2f} s = {batch / n * 1000:.0f} ms per notebook"),
        (f"`grader grade` course of {n}, --no-full-scale, wall (median of {len(smalls)}, 3 before each nbgrader run; "
         f"{min(smalls):.2f} to {max(smalls):.2f} s)", f"{batch_small:.2f} s = "
         f"{batch_small / n * 1000:.0f} ms per notebook"),
        (f"`nbgrader autograde` of {n} (one process), wall (median of {len(peers)}: "
         + ", ".join(f"{p:.1f}" for p in peers) + " s)", f"{peer_all:.2f} s = {peer_all / n * 1000:.0f} ms per notebook"),
        ("`nbgrader autograde --student` one notebook, cold (median)", f"{peer_one:.2f} s"),
        ("batch: nbgrader / grader (grader with the VGG16-scale case)", f"{peer_all / batch:.1f}x"),
        ("batch: nbgrader / grader --no-full-scale (the same checks' scale)", f"{peer_all / batch_small:.1f}x"),
        ("one cold notebook: nbgrader / grader", f"{peer_one / cold:.1f}x"),
        ("peak memory of the grader's process (VmHWM): batch / one cold grade",
         f"{own / 1024:.0f} / {cold_own / 1024:.0f} MiB"),
        ("peak memory of the grader's process tree (PSS): batch / one cold grade",
         f"{tree / 1024:.0f} / {cold_tree / 1024:.0f} MiB"),
        ("peak memory of nbgrader: its process (VmHWM) / its tree (PSS), autograde of the class",
         f"{peer_own / 1024:.0f} / {peer_tree / 1024:.0f} MiB"),
    ]
    width = max(len(r[0]) for r in rows)
    print(f"| {'measure':<{width}} | value |")
    print(f"|{'-' * (width + 2)}|-------|")
    for name, value in rows:
        print(f"| {name:<{width}} | {value} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
