"""Where a batch's CPU goes, per process kind, in ms per submission: the grader, its templates, the runs' inits and
runners (what the sandbox costs, as opposed to the grader's Python, which ``profile_parent.py`` splits).

    .venv/bin/python bench/run_cpu.py CLASS_DIR [--checkout DIR ...] [--runs 5] [--symbols KIND] [--grader-arg ARG]

Grades ``CLASS_DIR`` (``--no-full-scale --force -q``) under ``perf record -e sched:sched_stat_runtime`` (the
scheduler's account of every stretch each process and thread of the command ran, even those that outlive their
parent), then adds them up by process, and sorts each process into a kind by where it sits in the process tree: the grader; a template (a child of the grader that forks,
or a child of a template that forks more than one process or has grandchildren: a sibling template); an init (any
other child of a template: it forks one runner); a runner (the init's child); what the runner starts. CPU time, not
wall time: the machine may be shared. With several ``--checkout`` folders (a ``git worktree`` each), the runs
alternate between them and the medians are printed side by side. ``--symbols KIND`` lists the top functions (kernel
included) of that kind of process, from the last run. Needs ``perf`` and root (or a low perf_event_paranoid).
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: the scheduler's exact account of each stretch a task ran (ns), unlike task-clock samples: at the rate needed for
#: processes that run a few ms, their own handling doubles what the processes seem to cost on this machine
TRACE = ("-e", "sched:sched_stat_runtime")
#: samples with call chains, for ``--symbols`` (their ranking only)
SAMPLES = ("-e", "task-clock", "-c", "250000", "-g")
KINDS = ("grader", "template", "init", "runner", "run's children", "other")


def record(checkout: Path, folder: Path, data: Path, out: Path, event: tuple[str, ...] = TRACE,
           extra: tuple[str, ...] = ()) -> None:
    # as the ``grader`` command starts (``grader.launch``; ``grader.cli`` in a checkout from before it)
    entry = "launch" if (checkout / "grader" / "launch.py").exists() else "cli"
    code = (f"import sys; sys.path.insert(0, {str(checkout)!r}); "
            f"sys.argv = ['grader', 'grade', {str(folder)!r}, '--no-full-scale', '--force', '-q', '--out', "
            f"{str(out)!r}, *{list(extra)!r}]; from grader.{entry} import run; run()")
    env = {**os.environ, "GRADER_SECRET": os.environ.get("GRADER_SECRET", "run-cpu-secret")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run(["perf", "record", "-q", *event, "-o", str(data), "--",
                    sys.executable, "-c", code], check=True, env=env, cwd=str(checkout),
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def kinds(data: Path, fields: str = "pid,tid,trace") -> tuple[dict[int, str], dict[int, float]]:
    """Each process's kind and CPU (ms), from the samples and the fork events."""
    text = subprocess.run(["perf", "script", "-i", str(data), "--show-task-events", "-F", fields],
                          capture_output=True, text=True, check=True).stdout
    parent: dict[int, int] = {}
    cpu: dict[int, float] = defaultdict(float)
    root = None
    for line in text.splitlines():
        if "PERF_RECORD_FORK" in line:
            child, father = line.split("PERF_RECORD_FORK(", 1)[1].split("):(")
            child_pid, father_pid = int(child.split(":")[0]), int(father.split(":")[0])
            if child_pid != father_pid:  # a process, not a thread
                parent[child_pid] = father_pid
            continue
        if "PERF_RECORD" in line:
            continue
        fields = line.split()
        runtime = [f.split("=")[1] for f in fields if f.startswith("runtime=")] or fields[1:2]
        if not fields or not runtime or not runtime[0].isdigit():
            continue
        pid = int(fields[0].split("/")[0])
        cpu[pid] += int(runtime[0]) / 1e6
        if root is None:
            root = pid
    children: dict[int, list[int]] = defaultdict(list)
    for child, father in parent.items():
        children[father].append(child)
    # the python started by perf is the grader (the first process sampled)
    kind: dict[int, str] = {root: "grader"}

    def classify(pid: int, father_kind: str) -> None:
        mine = children.get(pid, [])
        if father_kind == "grader":
            here = "template" if mine else "other"
        elif father_kind == "template":
            # a sibling template forks inits (one per run, and one ahead), whose runners' children are its great-
            # grandchildren; an init forks one runner
            great = any(children.get(g) for c in mine for g in children.get(c, []))
            here = "template" if len(mine) > 1 or great else "init"
        elif father_kind == "init":
            here = "runner"
        elif father_kind in ("runner", "run's children"):
            here = "run's children"
        else:
            here = "other"
        kind[pid] = here
        for child in mine:
            classify(child, here)

    for child in children.get(root, []):
        classify(child, "grader")
    return kind, dict(cpu)


def summary(data: Path) -> tuple[dict[str, float], dict[str, int]]:
    kind, cpu = kinds(data)
    total: dict[str, float] = defaultdict(float)
    count: dict[str, int] = defaultdict(int)
    for pid, which in kind.items():
        total[which] += cpu.get(pid, 0.0)
        count[which] += 1
    total["other"] += sum(ms for pid, ms in cpu.items() if pid not in kind)
    return dict(total), dict(count)


def symbols(data: Path, which: str, top: int) -> str:
    kind, _ = kinds(data, "pid,tid,period")
    pids = {pid for pid, k in kind.items() if k == which}
    text = subprocess.run(["perf", "report", "-i", str(data), "--stdio", "--no-children", "-g", "none", "--sort",
                           "pid,sym"], capture_output=True, text=True).stdout
    share: dict[str, float] = defaultdict(float)
    for line in text.splitlines():
        fields = line.split(None, 2)
        if len(fields) == 3 and fields[0].endswith("%") and fields[1].split(":")[0].isdigit() \
                and int(fields[1].split(":")[0]) in pids:
            share[fields[2].strip()] += float(fields[0][:-1])
    whole = sum(share.values()) or 1.0
    ranked = sorted(share.items(), key=lambda item: -item[1])[:top]
    return "\n".join(f"{value / whole * 100:6.2f}%  {name}" for name, value in ranked)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--checkout", type=Path, action="append", help="a checkout of the grader (default: this one)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--symbols", choices=KINDS, action="append", help="list the top functions of this kind of "
                        "process (repeatable)")
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--grader-arg", action="append", default=[], metavar="ARG",
                        help="one more argument for `grader grade` (repeatable), e.g. --grader-arg=--similarity=off")
    args = parser.parse_args()
    extra = tuple(args.grader_arg)
    checkouts = args.checkout or [ROOT]
    n = sum(1 for p in args.folder.iterdir() if not p.name.startswith("."))
    results: dict[Path, list[tuple[dict[str, float], dict[str, int]]]] = defaultdict(list)
    with tempfile.TemporaryDirectory(prefix="run-cpu-") as work:
        data = Path(work) / "perf.data"
        for _ in range(args.runs):
            for checkout in checkouts:
                record(checkout, args.folder, data, Path(work) / "out", extra=extra)
                results[checkout].append(summary(data))
        if args.symbols:
            record(checkouts[-1], args.folder, data, Path(work) / "out", SAMPLES, extra)
            for which in args.symbols:
                print(f"top functions of the {which} processes (share of their task-clock samples):")
                print(symbols(data, which, args.top))
    print(f"{n} submissions, {args.runs} runs per checkout; CPU in ms per submission (median over runs), "
          "processes per run in brackets")
    print("| kind | " + " | ".join(str(c) for c in checkouts) + " |")
    print("|---|" + "---|" * len(checkouts))
    for which in (*KINDS, "all"):
        cells = []
        for checkout in checkouts:
            runs = results[checkout]
            values = [sum(t.values()) if which == "all" else t.get(which, 0.0) for t, _ in runs]
            counts = [sum(c.values()) if which == "all" else c.get(which, 0) for _, c in runs]
            spread = f"{min(values) / n:.2f}..{max(values) / n:.2f}"
            cells.append(f"{statistics.median(values) / n:.2f} ({spread}) [{statistics.median(counts):g}]")
        print(f"| {which} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
