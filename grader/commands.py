"""The CLI's commands: each calls the stages in order and returns an exit code."""
from __future__ import annotations

import argparse
import sys

from . import batch, report
from .exercise import Exercise
from .grade import DEFAULT_SECRET, Session


def grade(args: argparse.Namespace, exercise: Exercise) -> int:
    entries = batch.discover(args.paths)
    with Session(exercise, full_scale=args.full_scale, secret=args.secret or DEFAULT_SECRET) as session:
        results = batch.grade_all(entries, session)
    if args.out:
        for result in results:
            report.write_student(result, args.out)
    if args.json:
        if len(results) == 1:
            print(results[0].to_json())
        else:
            print("[" + ",\n".join(r.to_json() for r in results) + "]")
    elif not args.quiet:
        for result in results:
            print(summary_line(result))
    if args.fail_under is not None and any(r.score < args.fail_under for r in results):
        return 1
    return 0


def summary_line(result) -> str:
    if result.status == "error":
        return f"{result.student}: not graded ({result.error.kind}): {result.error.message}"
    mistakes = ", ".join(d.id for d in result.diagnoses)
    return f"{result.student}: {result.score:g}/{result.max_score:g}" + (f"  [{mistakes}]" if mistakes else "")
