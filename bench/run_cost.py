"""The CPU a graded submission costs in the run's own processes (template, init, runner), apart from the grader's.

    .venv/bin/python bench/run_cost.py [--checkout DIR ...] [--submissions 60] [--rounds 5] [--file FILE]

Each round, for each checkout in turn (a ``git worktree`` each, alternated so that both see the same load): a fresh
Python grades ``FILE`` (default: a correct submission) once, and another 1 + ``--submissions`` times, in one
``fork`` sandbox, one worker, without the VGG16-scale case; each then stops its template, which has reaped its
runs. The figure is the difference of their children's CPU (``getrusage(RUSAGE_CHILDREN)``: the template and every
run it reaped), per submission: the template's start and the session's set-up cancel out. The grader's own CPU is
printed beside it, the same way. CPU time,
not wall time: the machine may be shared. Medians over rounds, with the spread.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import json, resource, sys
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from grader import exercise, grade, sandbox, template
def cpu(who):
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime
limits = exercise.load("vgg_classifier").limits
box = sandbox.Sandbox(limits, mode="fork")
with grade.Session(exercise.load("vgg_classifier"), full_scale=False, sandbox=box) as session:
    path, n = Path(sys.argv[2]), int(sys.argv[3])
    result = grade.grade_file(path, session)
    for _ in range(n):
        result = grade.grade_file(path, session)
template.POOL.close()  # the template ends: its CPU and its runs' (it reaped them) count as this process's children
children, own = cpu(resource.RUSAGE_CHILDREN), cpu(resource.RUSAGE_SELF)
print(json.dumps({"children": children, "own": own, "status": result.status, "score": result.score}))
"""


def one(checkout: Path, path: Path, n: int) -> dict:
    """One Python that grades ``path`` 1 + ``n`` times: CPU of its children (template, runs) and its own."""
    env = {**os.environ, "GRADER_SECRET": os.environ.get("GRADER_SECRET", "run-cost-secret")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    done = subprocess.run([sys.executable, "-c", CHILD, str(checkout), str(path), str(n)], capture_output=True,
                          text=True, env=env, cwd=str(checkout), timeout=600)
    if done.returncode != 0:
        raise SystemExit(done.stderr[-2000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkout", type=Path, action="append", help="a checkout of the grader (default: this one)")
    parser.add_argument("--submissions", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--file", type=Path, default=ROOT / "tests" / "submissions" / "correct" / "matmul.py")
    args = parser.parse_args()
    checkouts = args.checkout or [ROOT]
    found: dict[Path, list[dict]] = {c: [] for c in checkouts}
    for _ in range(args.rounds):
        for checkout in checkouts:
            base, more = one(checkout, args.file.resolve(), 0), one(checkout, args.file.resolve(), args.submissions)
            found[checkout].append({**more, **{k: more[k] - base[k] for k in ("children", "own")}})
    n = args.submissions
    print(f"{args.file.name} graded {n} times per round, {args.rounds} rounds; ms of CPU per submission, "
          "median (min..max)")
    print("| checkout | the run's processes (template and runs, its start left out) | the grader's own | "
          "the run's processes against the first checkout, same round |")
    print("|---|---|---|---|")
    first = found[checkouts[0]]
    for checkout, rounds in found.items():
        cells = []
        for key in ("children", "own"):
            values = [r[key] * 1000 / n for r in rounds]
            cells.append(f"{statistics.median(values):.2f} ({min(values):.2f}..{max(values):.2f})")
        change = [(r["children"] - f["children"]) * 1000 / n for r, f in zip(rounds, first)]
        cells.append(f"{statistics.median(change):+.2f} ({min(change):+.2f}..{max(change):+.2f})")
        status = {f"{r['status']} {r['score']}" for r in rounds}
        print(f"| {checkout} | {' | '.join(cells)} | {', '.join(sorted(status))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
