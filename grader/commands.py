"""The CLI's commands: each calls the stages in order and returns an exit code."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from . import batch, escape, gradebook, regrade, report, similarity_report
from .errors import UsageError
from .exercise import Exercise
from .grade import DEFAULT_SECRET, Session
from .progress import Progress


def grade(args: argparse.Namespace, exercise: Exercise) -> int:
    if args.out:
        _check_writable(Path(args.out), bool(getattr(args, "private", False)))
        similarity_report.check_options(args)
    plan = batch.discover(args.paths, getattr(args, "layout", "auto"))
    if not plan.entries:
        raise UsageError("No .py or .ipynb submission was found in "
                         + ", ".join(escape.terminal(p) for p in args.paths) + "."
                         + "".join(f" {escape.terminal(note)}" for note in plan.notes))
    progress = Progress("none" if args.quiet else "auto")
    for note in plan.notes:
        progress.note(note)
    jobs = args.jobs if args.jobs and args.jobs > 0 else batch.default_jobs()
    private = bool(getattr(args, "private", False))
    try:
        with Session(exercise, full_scale=args.full_scale, secret=args.secret or DEFAULT_SECRET) as session:
            try:
                outcomes = batch.grade_all(
                    plan.entries, session, jobs=jobs, out=args.out, force=args.force,
                    extra_writer=lambda result, folder: gradebook.write_gradescope(result, folder, private=private),
                    on_start=progress.start,
                    on_outcome=lambda o: progress.advance(o.result, o.reused),
                    private=private,
                )
            finally:
                progress.close()
    except batch.Interrupted as stopped:  # the class files of what finished, marked incomplete; then exit 130
        if args.out:
            for problem in batch.write_class_files(plan, stopped.outcomes, args.out, exercise.id, private=private):
                print(f"grader: {problem}", file=sys.stderr)
            print(f"grader: {len(stopped.outcomes)} of {len(plan.entries)} students were graded before the stop; "
                  f"the class files in {escape.terminal(args.out)} list them, marked incomplete", file=sys.stderr)
        raise
    results = [o.result for o in outcomes]
    similar, unwritten = similarity_report.prepare(args, plan, exercise) if args.out else (None, [])
    if args.out:
        unwritten += batch.write_class_files(plan, outcomes, args.out, exercise.id, private=private,
                                             similarity=similarity_report.summary(similar))
        unwritten += similarity_report.write(similar, args.out, exercise.id, private=private)
    for problem in unwritten:
        print(f"grader: {problem}; the other class files were written", file=sys.stderr)
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if step_summary and results:
        try:
            gradebook.append_step_summary(results, Path(step_summary))
        except OSError as exc:
            unwritten.append(f"the GitHub step summary could not be written ({escape.terminal(exc)})")
            print(f"grader: {unwritten[-1]}", file=sys.stderr)
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
    if unwritten:
        return 3
    if args.fail_under is not None and any(r.score < args.fail_under for r in results):
        return 1
    return 0


def _check_writable(out: Path, private: bool = False) -> None:
    """Fail before grading anything when the output folder cannot be written."""
    try:
        report.make_folder(out, private=private)
        probe = out / ".grader-write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        raise UsageError(f"Cannot write the reports to {out}: {exc.strerror or exc}.") from None


def summary_line(result) -> str:
    """One terminal line per student: whatever the id or the message holds, no control character is printed."""
    student = escape.terminal(result.student)
    if result.status == "error":
        return f"{student}: not graded ({escape.terminal(result.error.kind)}): {escape.terminal(result.error.message)}"
    mistakes = escape.terminal(", ".join(d.id for d in result.diagnoses))
    return f"{student}: {result.score:g}/{result.max_score:g}" + (f"  [{mistakes}]" if mistakes else "")


def diff(args: argparse.Namespace) -> int:
    """``grader diff OLD_OUT NEW_OUT``: whose result changed and why; 1 when any score changed."""
    changes = regrade.diff(args.old, args.new)
    if args.csv:
        sys.stdout.write(regrade.render_csv(changes))
    else:
        print("\n".join(regrade.diff_lines(changes, args.old, args.new)))
    return 1 if any(c.score_changed for c in changes) else 0


def check(args: argparse.Namespace, exercise: Exercise) -> int:
    """``grader check``: the public cases and the diagnosis on one file; 0 when every public check passes."""
    from . import selfcheck

    return selfcheck.main(args.path, exercise)


def notebook(args: argparse.Namespace, exercise: Exercise) -> int:
    """``grader notebook``: (re)generate the exercise's student notebook and its stored public outputs."""
    from . import notebook as notebook_mod

    path, changed = notebook_mod.write(exercise, args.out)
    print(f"{'wrote' if changed else 'unchanged'}: {path}")
    path, changed = notebook_mod.write_public_expected(exercise)  # what `grader check` compares with
    print(f"{'wrote' if changed else 'unchanged'}: {path}")
    return 0
