"""Where the grader's own process spends its CPU in a batch: per stage, in ms per submission.

    .venv/bin/python bench/profile_parent.py [--students 200] [--jobs N] [--class DIR] [--full-scale]
                                             [--runs 3] [--cprofile [--top 25]]

Builds the bench's class (``bench.build_class``, with its small limits) unless ``--class`` names one, then grades it
in this process through ``grader.cli.main``, after one warm-up run: ``--runs`` plain runs, for the parent's own CPU
time (``getrusage``: its threads, not its children) and the wall time; one run with the functions of ``STAGES``
wrapped to add up their inclusive CPU time per thread (``time.thread_time``), for the split by stage; and with
``--cprofile`` one more with a ``cProfile`` per thread (on the thread's CPU clock), for the functions by their own
time (it slows Python code several times more than system calls, so only its ranking is of use). Not part of
``make test``.
"""
from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import resource
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

#: (stage, module, function or method): inclusive CPU of each, summed over threads; indented stages are inside the one
#: above them.
STAGES = [
    ("grade one submission (grade_entry)", "grader.batch", "grade_entry"),
    ("  load the submission", "grader.submission", "load"),
    ("  prepare (cases, expected outputs, probes)", "grader.grade", "prepare"),
    ("    hidden cases", "grader.exercise", "hidden_cases"),
    ("    expected outputs (reference)", "grader.exercise", "expected"),
    ("  execute.run_many (the child's whole run)", "grader.execute", "run_many"),
    ("    execute._plan", "grader.execute", "_plan"),
    ("    execute._outcome", "grader.execute", "_outcome"),
    ("    sandbox.spawn", "grader.sandbox", "spawn"),
    ("      cgroup set-up (_enter_cgroup)", "grader.sandbox", "_enter_cgroup"),
    ("      template.launch", "grader.template", "launch"),
    ("    channel.receive (waiting, reading frames)", "grader.channel", "receive"),
    ("    channel.send", "grader.channel", "send"),
    ("    answers.returned (decode results)", "grader.answers", "returned"),
    ("    sandbox.exit_report", "grader.sandbox", "exit_report"),
    ("    sandbox.peak_memory", "grader.sandbox", "peak_memory"),
    ("    sandbox.kill", "grader.sandbox", "kill"),
    ("      template.kill", "grader.template", "kill"),
    ("      template.empty_cgroup", "grader.template", "empty_cgroup"),
    ("      processes.sweep_uid", "grader.processes", "sweep_uid"),
    ("  verify_shared (stamps of the large case)", "grader.session", "verify_shared"),
    ("  judge (checks, diagnosis, result)", "grader.grade", "judge"),
    ("  checks.run_checks", "grader.checks", "run_checks"),
    ("  diagnose.diagnose", "grader.diagnose", "diagnose"),
    ("  diagnose.stage_trace", "grader.diagnose", "stage_trace"),
    ("write a student's outputs (write_outputs)", "grader.batch", "write_outputs"),
    ("  gradescope.json", "grader.gradescope_results", "write"),
    ("  render_html", "grader.report", "render_html"),
    ("  render_markdown", "grader.report", "render_markdown"),
    ("  write_atomic (every file)", "grader.outfolder", "write_atomic"),
    ("  sign (result.json)", "grader.signing", "result_text"),
    ("GradeResult.to_dict (every caller)", "grader.results", "to_dict"),
    ("json.dumps (every caller)", "json", "dumps"),
    ("stored results (grade_key, stored_result)", "grader.batch", "stored_result"),
    ("grade keys (file hashes)", "grader.batch", "grade_key"),
    ("class files (gradebook, summary, junit, similarity)", "grader.batch", "write_class_files"),
    ("similarity (analyse)", "grader.similarity", "analyse"),
    ("find the class (discover)", "grader.classfolder", "discover"),
    ("probes (Session.probes)", "grader.session", "probes"),
    ("large case (Session.full_scale_case)", "grader.session", "full_scale_case"),
]


class Timers:
    """Inclusive CPU time of the ``STAGES`` functions, per thread (``time.thread_time``), by wrapping each of them
    wherever a grader module holds it: a few microseconds per call, unlike a profiler that slows all Python code."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.calls: dict[str, int] = {}
        self.lock = threading.Lock()
        self.local = threading.local()
        self.undo: list[tuple[object, str, object]] = []

    def __enter__(self) -> Timers:
        import importlib
        import types

        for module in ("grader.cli", "grader.commands", "grader.batch", "grader.grade", "grader.execute",
                       "grader.session", "grader.similarity", "grader.similarity_report", "grader.gradebook",
                       "grader.report", "grader.outfolder", "grader.gradescope_results"):
            importlib.import_module(module)
        for label, name, function in STAGES:
            try:
                module = sys.modules.get(name) or importlib.import_module(name)
            except ImportError:  # a stage of another version of the grader
                continue
            for holder in [module, *(v for v in vars(module).values() if isinstance(v, type)
                                     and v.__module__ == name)]:
                original = vars(holder).get(function)
                if not isinstance(original, types.FunctionType):
                    continue
                wrapped = self._wrap(label, original)
                self._replace(holder, function, original, wrapped)
                if holder is module:  # and wherever a grader module imported it by name
                    for other in list(sys.modules.values()):
                        if getattr(other, "__name__", "").startswith("grader") and other is not module:
                            for attr, value in list(vars(other).items()):
                                if value is original:
                                    self._replace(other, attr, original, wrapped)
        return self

    def _replace(self, holder, attr: str, original, wrapped) -> None:
        setattr(holder, attr, wrapped)
        self.undo.append((holder, attr, original))

    def _wrap(self, label: str, original):
        import functools

        timers = self

        @functools.wraps(original)
        def wrapper(*args, **kwargs):
            depth = getattr(timers.local, label, 0)
            setattr(timers.local, label, depth + 1)
            started = time.thread_time()
            try:
                return original(*args, **kwargs)
            finally:
                setattr(timers.local, label, depth)
                if depth == 0:
                    spent = time.thread_time() - started
                    with timers.lock:
                        timers.seconds[label] = timers.seconds.get(label, 0.0) + spent
                        timers.calls[label] = timers.calls.get(label, 0) + 1

        return wrapper

    def __exit__(self, *exc) -> None:
        for holder, attr, original in reversed(self.undo):
            setattr(holder, attr, original)


class Threads:
    """A cProfile per thread (the main one and every ``threading.Thread``), timed by the thread's own CPU clock."""

    def __init__(self) -> None:
        self.profiles: list[cProfile.Profile] = []
        self.lock = threading.Lock()
        self.original = threading.Thread.run

    def __enter__(self) -> Threads:
        owner = self

        def run(thread) -> None:
            profile = cProfile.Profile(time.thread_time)
            with owner.lock:
                owner.profiles.append(profile)
            profile.enable()
            try:
                owner.original(thread)
            finally:
                profile.disable()

        threading.Thread.run = run
        self.main = cProfile.Profile(time.thread_time)
        self.profiles.append(self.main)
        self.main.enable()
        return self

    def __exit__(self, *exc) -> None:
        self.main.disable()
        threading.Thread.run = self.original

    def stats(self) -> pstats.Stats:
        stats = pstats.Stats(self.profiles[0], stream=io.StringIO())
        for profile in self.profiles[1:]:
            try:
                stats.add(profile)
            except TypeError:  # a thread that never ran anything
                pass
        return stats


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def grade(argv: list[str]) -> tuple[float, float]:
    from grader import cli

    wall, used = time.perf_counter(), cpu()
    code = cli.main(argv)
    if code not in (0, 1):
        print(f"note: the grader exited {code}", file=sys.stderr)
    return time.perf_counter() - wall, cpu() - used


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--class", dest="folder", type=Path, help="grade this class folder instead")
    parser.add_argument("--exercise", default="vgg_classifier")
    parser.add_argument("--full-scale", action="store_true", help="with the VGG16-scale case (default: without)")
    parser.add_argument("--no-hostile", action="store_true", help="correct submissions instead of the hostile ones")
    parser.add_argument("--runs", type=int, default=3, help="plain runs (median)")
    parser.add_argument("--cprofile", action="store_true", help="also list functions by own CPU (cProfile)")
    parser.add_argument("--only", action="append", help="with --cprofile: only functions whose file matches")
    parser.add_argument("--top", type=int, default=25, help="functions listed by their own CPU time")
    args = parser.parse_args()
    import bench

    work = Path(tempfile.mkdtemp(prefix="grader-profile-"))
    try:
        extra = []
        if args.folder is None:
            bench.build_class(work / "class", args.students)
            if args.no_hostile:  # the hostile ones replaced by correct ones: the figures show ordinary runs only
                for path in (work / "class").iterdir():
                    if path.name.split("-", 1)[-1] in {*bench.HOSTILE, "too-slow.py"}:
                        correct = bench.SUBMISSIONS / "correct" / "matmul.py"
                        shutil.copyfile(correct, path.with_name(path.stem + "-ok.py"))
                        path.unlink()
            extra = ["--exercises-dir", str(bench.small_exercise(work)), "--solutions-dir", str(ROOT / "solutions")]
        folder = args.folder or work / "class"
        n = sum(1 for p in folder.iterdir() if not p.name.startswith("."))
        argv = ["grade", str(folder), "--exercise", args.exercise, *extra, "-q", "--force", "--jobs", str(args.jobs),
                "--out", str(work / "out")]
        if not args.full_scale:
            argv.append("--no-full-scale")
        os.environ.setdefault("GRADER_SECRET", "profile-secret")
        grade(argv)  # warms the cache entry (with --full-scale) and the file system
        plain = [grade(argv) for _ in range(args.runs)]
        wall, used = (sorted(values)[len(values) // 2] for values in zip(*plain))
        with Timers() as timers:
            timed_wall, timed = grade(argv)
        print(f"class of {n}, --jobs {args.jobs}, {'with' if args.full_scale else 'without'} the VGG16-scale case; "
              f"load average {os.getloadavg()[0]:.2f}")
        print(f"plain runs (medians of {args.runs}): wall {wall:.2f} s = {wall / n * 1000:.1f} ms per submission; "
              f"the grader's own CPU {used:.2f} s = {used / n * 1000:.1f} ms per submission")
        print(f"timed run: wall {timed_wall:.2f} s, own CPU {timed:.2f} s = {timed / n * 1000:.1f} ms per "
              "submission\n")
        print("| stage (inclusive CPU of the grader's threads) | calls | ms per submission |")
        print("|---|---|---|")
        for label, _, _ in STAGES:
            if timers.calls.get(label):
                print(f"| {label} | {timers.calls[label]} | {timers.seconds[label] / n * 1000:.2f} |")
        print(f"| whole process (all threads) | | {timed / n * 1000:.2f} |")
        if not args.cprofile:
            return 0
        with Threads() as threads:
            profiled_wall, profiled = grade(argv)
        stats = threads.stats()
        print(f"\ncProfile run: wall {profiled_wall:.2f} s, own CPU {profiled:.2f} s (x{profiled / used:.2f})")
        out = io.StringIO()
        stats.stream = out
        stats.sort_stats("tottime").print_stats(*(args.only or []), args.top)
        print("functions by own CPU time (profiled):")
        print("\n".join(out.getvalue().splitlines()[-(args.top + 2):]))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
