"""The CLI's commands: each calls the stages in order and returns an exit code."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from . import batch, gradebook
from .errors import UsageError
from .exercise import Exercise
from .grade import DEFAULT_SECRET, Session
from .progress import Progress


def grade(args: argparse.Namespace, exercise: Exercise) -> int:
    if args.out:
        _check_writable(Path(args.out))
    plan = batch.discover(args.paths)
    if not plan.entries:
        raise UsageError("No .py or .ipynb submission was found in " + ", ".join(str(p) for p in args.paths) + ".")
    progress = Progress("none" if args.quiet else "auto")
    for note in plan.notes:
        progress.note(note)
    jobs = args.jobs if args.jobs and args.jobs > 0 else batch.default_jobs()
    with Session(exercise, full_scale=args.full_scale, secret=args.secret or DEFAULT_SECRET) as session:
        try:
            outcomes = batch.grade_all(
                plan.entries, session, jobs=jobs, out=args.out, force=args.force,
                extra_writer=gradebook.write_gradescope,
                on_start=progress.start,
                on_outcome=lambda o: progress.advance(o.result, o.reused),
            )
        finally:
            progress.close()
    results = [o.result for o in outcomes]
    if args.out:
        gradebook.write_class(results, args.out, exercise.id, plan.notes)
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if step_summary and results:
        gradebook.append_step_summary(results, Path(step_summary))
    if args.json:
        if plan.single_file and len(results) == 1:
            print(results[0].to_json())
        else:
            print("[" + ",\n".join(r.to_json() for r in results) + "]")
    elif not args.quiet:
        for result in results:
            print(summary_line(result))
        if args.out and len(results) > 1:
            print(f"Class summary: {Path(args.out) / 'summary.html'}", file=sys.stderr)
    if args.fail_under is not None and any(r.score < args.fail_under for r in results):
        return 1
    return 0


def _check_writable(out: Path) -> None:
    """Fail before grading anything when the output folder cannot be written."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".grader-write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        raise UsageError(f"Cannot write the reports to {out}: {exc.strerror or exc}.") from None


def summary_line(result) -> str:
    if result.status == "error":
        return f"{result.student}: not graded ({result.error.kind}): {result.error.message}"
    mistakes = ", ".join(d.id for d in result.diagnoses)
    return f"{result.student}: {result.score:g}/{result.max_score:g}" + (f"  [{mistakes}]" if mistakes else "")


def check(args: argparse.Namespace, exercise: Exercise) -> int:
    """``grader check``: the public cases and the diagnosis on one file; 0 when every public check passes."""
    from . import selfcheck

    return selfcheck.main(args.path, exercise)


def notebook(args: argparse.Namespace, exercise: Exercise) -> int:
    """``grader notebook``: (re)generate the exercise's student notebook."""
    from . import notebook as notebook_mod

    path, changed = notebook_mod.write(exercise, args.out)
    print(f"{'wrote' if changed else 'unchanged'}: {path}")
    return 0
