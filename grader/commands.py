"""The CLI's commands: each calls the stages in order and returns an exit code."""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import threading
from pathlib import Path
from typing import Callable, Sequence

from . import (batch, escape, forked, gradebook, gradescope_results, lms, merge, outfolder, regrade, report,
               similarity_report)
from .errors import UsageError
from .classfolder import Plan
from .exercise import Exercise
from .assignment import Assignment, file_names, read_course
from .grade import DEFAULT_SECRET, Session, grading, most_points
from .grade_assignment import AssignmentSession
from .progress import Progress
from .signing import NO_SECRET, Signer


#: The similarity copy yields the cores to the runs and the graders: its value is needed only once the class is
#: graded, and it finds idle time before then (it ended at the same time at niceness 0 and 19, and the batch sooner).
SIMILARITY_NICENESS = 19


def course_secret(args: argparse.Namespace) -> tuple[str, list[str]]:
    """The secret to use, and the warning to give when it is the built-in default."""
    if args.secret:
        return args.secret, []
    return DEFAULT_SECRET, [NO_SECRET]


def open_session(what: Exercise | Assignment, args: argparse.Namespace, secret: str):
    """The session that grades ``what``: one exercise's, or an assignment's (one sandbox, a session per exercise)."""
    if isinstance(what, Assignment):
        return AssignmentSession(what, full_scale=args.full_scale, secret=secret, cache=_cache(args))
    return Session(what, full_scale=args.full_scale, secret=secret, cache=_cache(args))


def grade(args: argparse.Namespace,
          exercise: Exercise | Assignment | Callable[[Plan], Exercise | Assignment]) -> int:
    """``grader grade``. ``exercise`` may be an assignment (several exercises from each submission), or a
    function of the plan (the CLI's: it can read the submissions)."""
    jobs = _jobs(args.jobs)
    shard = merge.parse_shard(args.shard) if args.shard else (1, 1)
    for flag, given in (("--shard", args.shard), ("--gradebook-format", getattr(args, "gradebook_format", None))):
        if given and not args.out:
            raise UsageError(f"{flag} writes into an output folder: give --out OUT too.")
    if args.out:
        outfolder.outside_the_class(Path(args.out), args.paths)
        outfolder.check_writable(Path(args.out), bool(getattr(args, "private", False)))
        similarity_report.check_options(args)
    lms_template = lms_template_of(args)  # a template that names no column is said before anything is graded
    asked = getattr(args, "assignment", None)
    in_course = asked is not None and asked in read_course(getattr(args, "exercises_dir", None))
    if args.student is not None and len(args.paths) == 1 and Path(args.paths[0]).is_dir() \
            and not Path(args.paths[0]).is_symlink():  # a student's repository: the folder is theirs
        _check_student_id(args.student)
        from .classfolder import one_student

        whole = one_student(Path(args.paths[0]), args.student, _names_of(exercise, args))
    else:
        whole = batch.discover(args.paths, getattr(args, "layout", "auto"), asked, in_course=in_course)
    if args.student is not None:
        whole = _with_student(whole, args.student)
    if not whole.entries:
        raise UsageError("No .py or .ipynb submission was found in "
                         + ", ".join(escape.terminal(p) for p in args.paths) + "."
                         + "".join(f" {escape.terminal(note)}" for note in whole.notes))
    if not isinstance(exercise, (Exercise, Assignment)):
        exercise = exercise(whole)
    secret, secret_notes = course_secret(args)
    top = most_points(exercise, args.full_scale)
    if args.fail_under is not None and args.fail_under > top:  # said before any sandbox or large case starts
        name = exercise.plan.name if isinstance(exercise, Assignment) else exercise.id
        raise UsageError(f"--fail-under {args.fail_under:g} is above the most a submission can score here "
                         f"({top:g} points for '{name}'{'' if args.full_scale else ' with --no-full-scale'}): "
                         "no submission could pass. Give a score between 0 and the maximum.")
    if args.out:
        _same_exercise(Path(args.out), exercise.plan.name if isinstance(exercise, Assignment) else exercise.id)
    plan = merge.select(whole, *shard) if shard != (1, 1) else whole
    progress = Progress("none" if args.quiet else "auto")
    for note in whole.notes:
        progress.note(note)
    for note in secret_notes:  # always said, even under --quiet: the grades depend on it
        print(f"grader: warning: {note}", file=sys.stderr)
    if shard != (1, 1):
        progress.note(f"Shard {shard[0]}/{shard[1]}: {len(plan.entries)} of the {len(whole.entries)} students "
                      f"(merge the shards' output folders with `grader merge`).")
    private = bool(getattr(args, "private", False))
    out = Path(args.out) if args.out else None
    if out is not None:
        merge.remove_manifest(out)  # written again at the end: a run killed before then leaves none
    writers = (report.write_pages, gradescope_results.write)
    # Nothing below needs the session: done now, while the first template starts (the session waits for it), and
    # once for the similarity copy (Jinja, which it renders the given code with, and numpy.random) as for the rest.
    batch.warm_up(writers if out is not None else ())
    fingerprint = batch.grader_fingerprint()
    # read while the class is graded, in a copy of the grader forked now, before any thread starts (``forked``):
    # its Python then never holds the lock the workers feed the runs with; used once all are in
    similarity = None
    if out is not None and similarity_report.enabled(args):
        similarity = forked.Task(similarity_report.plain_for_report, args, whole,
                                 exercise.exercises if isinstance(exercise, Assignment) else exercise,
                                 niceness=SIMILARITY_NICENESS)
    session = open_session(exercise, args, secret)
    graded = grading(session)
    with session:
        if len(plan.entries) > 1:  # fork mode: one template per worker, started before the workers need them
            session.sandbox.warm(min(jobs, len(plan.entries)))
        machine = machine_notes(session)
        for note in machine:
            progress.note(note)
        notes = (*whole.notes, *secret_notes, *machine)
        settings = merge.run_settings(graded.id, graded.version, session.full_scale, fingerprint)
        signer = Signer(secret, settings)
        lms_format = getattr(args, "gradebook_format", None)
        lms_title = getattr(args, "lms_assignment", None) or graded.title

        def finish(outcomes: list, complete: bool) -> list[str]:
            """The class files, the LMS file and the manifest (last) of what is graded; problems as lines."""
            # similarity read the whole class's files (never a shard's slice) while it was graded; used once all are in
            similar, problems = similarity_report.from_plain(similarity.result()) if complete and similarity \
                else (None, [])
            similar_line = similarity_report.summary(similar)
            problems += batch.write_class_files(plan, outcomes, out, graded.id, private=private, notes=notes,
                                                similarity=similar_line)
            problems += similarity_report.write(similar, out, graded.id, private=private)
            if lms_format:
                finished = {o.entry.student for o in outcomes}
                waiting = [e.student for e in plan.entries if e.student not in finished]
                _warn_collisions(lms_format, [o.result for o in outcomes], waiting, lms_template)
                try:
                    report.write_atomic(out / lms.filename(lms_format), lms.data(lms_format, lms.render(
                        lms_format, [o.result for o in outcomes], lms_title, waiting, lms.graded_at(out),
                        lms_template)), private=private)
                except Exception as exc:  # noqa: BLE001  (one file lost, never the others)
                    problems.append(f"{lms.filename(lms_format)} could not be written ({type(exc).__name__}: "
                                    f"{escape.terminal(exc, 300)})")
            for said in lms.remove_stale(out, lms_format):
                print(f"grader: {said}", file=sys.stderr)
            try:
                merge.write_manifest(out, whole=whole, shard=shard, graded=[o.entry for o in outcomes],
                                     settings=settings, notes=notes, complete=complete, secret=secret,
                                     private=private, assignment=getattr(args, "assignment", None),
                                     title=graded.title, similarity=similar_line)
            except OSError as exc:
                problems.append(f"{merge.MANIFEST} could not be written ({escape.terminal(exc, 300)})")
            return problems

        def on_outcome(outcome) -> None:
            progress.advance(outcome.result, outcome.reused)
            if similarity is not None:  # with no copy (``forked.can_fork``), a thread from the first result on:
                similarity.start()  # before that, the grader's lock is what the first runs wait for

        try:
            try:
                outcomes = batch.grade_all(
                    plan.entries, session, jobs=jobs, out=out, force=args.force,
                    writers=writers,
                    on_start=progress.start,
                    on_outcome=on_outcome,
                    private=private, signer=signer, copies=True,
                )
            finally:
                progress.close()
        except batch.Interrupted as stopped:  # the class files of what finished, marked incomplete; then exit 130
            if similarity is not None:
                similarity.close()
            if out is not None:
                for problem in finish(stopped.outcomes, complete=False):
                    print(f"grader: {problem}", file=sys.stderr)
                print(f"grader: {len(stopped.outcomes)} of {len(plan.entries)} students were graded before the stop; "
                      f"the class files in {escape.terminal(out)} list them, marked incomplete", file=sys.stderr)
            raise
    results = [o.result for o in outcomes]
    for note in session.notes:  # the cache could not be used: said to the person running the grader
        print(f"grader: note: {escape.terminal(note)}", file=sys.stderr)
    unwritten = finish(outcomes, complete=True) if out is not None else []
    _say_unwritten(unwritten, out)
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if step_summary and results:
        try:
            gradebook.append_step_summary(results, Path(step_summary))
        except OSError as exc:
            unwritten.append(f"the GitHub step summary could not be written ({escape.terminal(exc)})")
            print(f"grader: {unwritten[-1]}", file=sys.stderr)
    if args.json:
        if whole.single_file and len(results) == 1:
            print(results[0].to_json())
        else:
            print("[" + ",\n".join(r.to_json() for r in results) + "]")
    elif not args.quiet:
        for result in results:
            print(summary_line(result))
        if out is not None and len(results) > 1 and not _lost("summary.html", unwritten):
            print(f"Class summary: {out / 'summary.html'}", file=sys.stderr)
    failed = _say_failed(results)
    if unwritten or failed:
        return 3
    if args.fail_under is not None:
        below = [r for r in results if r.score < args.fail_under]
        if below:
            print(f"grader: {len(below)} of {len(results)} below --fail-under {args.fail_under:g}: "
                  + "; ".join(_below(r) for r in below[:20])
                  + (f"; and {len(below) - 20} more" if len(below) > 20 else ""), file=sys.stderr)
            return 1
    return 0


def _cache(args: argparse.Namespace):
    """The large case's cache for ``grade`` (None under --no-cache, --no-full-scale or a missing --cache-dir)."""
    if not getattr(args, "use_cache", True) or not args.full_scale:
        return None
    from .cache import Cache

    return Cache(getattr(args, "cache_dir", None))


def cache(args: argparse.Namespace) -> int:
    """``grader cache list|clear``: the large cases kept between runs; clear removes every one no grader maps."""
    from .cache import Cache, CacheUnavailable

    store = Cache(args.cache_dir)
    try:
        if args.action == "clear":
            removed, busy = store.clear()
            print(f"removed {removed} entr{'y' if removed == 1 else 'ies'} from {escape.terminal(store.root)}"
                  + (f"; {busy} in use by a running grader kept" if busy else ""))
            return 0
        store.prepare()
    except CacheUnavailable as exc:
        raise UsageError(f"The cache folder cannot be used: {escape.terminal(exc)}.") from None
    entries = store.list()
    print(f"{escape.terminal(store.root)}: {len(entries)} entr{'y' if len(entries) == 1 else 'ies'}, "
          f"{sum(e.nbytes for e in entries) / (1 << 30):.2f} GiB of {store.max_bytes / (1 << 30):.1f} GiB, "
          f"{'huge pages' if store.huge_pages() else '4 KiB pages'}")
    for e in sorted(entries, key=lambda e: -e.last_used):
        state = "condemned" if e.condemned else "in use" if e.busy else "idle"
        print(f"  {e.name[:16]}  {escape.terminal(e.exercise)} {escape.terminal(e.version)}  "
              f"{e.nbytes / (1 << 20):.0f} MiB  {state}")
    return 0


def _below(result) -> str:
    student = escape.terminal(result.student, 80)
    if result.status == "error":
        return f"{student} (not graded: {escape.terminal(result.error.kind if result.error else 'error', 40)})"
    short = [_section_score(part) for part in result.sections
             if part.status == "error" or part.score < part.max_score]
    return f"{student} ({result.score:g}/{result.max_score:g}{'; ' + ', '.join(short) if short else ''})"


def _jobs(value: int | None) -> int:
    if value is None:
        return batch.default_jobs()
    if value < 1:
        raise UsageError(f"--jobs takes a number of parallel workers, 1 or more (got {value}); leave it out for one "
                         f"per core ({batch.default_jobs()} here).")
    return value


def _check_student_id(student: str) -> None:
    if not student.strip() or len(student) > 200:
        raise UsageError("--student takes a non-empty id of at most 200 characters (a login, an email, a "
                         "repository owner).")


def _with_student(plan, student: str):
    """``--student ID``: one submission graded under the id given (result, reports, hidden-case seed)."""
    if not plan.single_file or len(plan.entries) != 1:
        raise UsageError("--student names the student of one submission: give one file, or one folder that is "
                         "all theirs (a class folder takes its ids from its file and folder names).")
    _check_student_id(student)
    from .classfolder import display_ids

    shown = display_ids([student])[student]
    entry = dataclasses.replace(plan.entries[0], student=shown, raw=student, folder=outfolder.folder_name(shown))
    return dataclasses.replace(plan, entries=(entry,))


def machine_notes(session: Session) -> tuple[str, ...]:
    """What this machine's sandbox lacks, said once to the person running the batch (and in summary.html)."""
    sandbox = session.sandbox
    if sandbox is None or not sandbox.warnings:
        return ()
    return (f"Isolation on this machine: {sandbox.mode} mode ({', '.join(sandbox.layers)}). "
            + " ".join(sandbox.warnings),)


def merge_outputs(args: argparse.Namespace) -> int:
    """``grader merge OUT_1 ... OUT_N --out OUT``: the shards' outputs as one run's (see ``merge``)."""
    secret, secret_notes = course_secret(args)
    for note in secret_notes:
        print(f"grader: warning: {note}", file=sys.stderr)
    out = Path(args.out)
    given = {os.path.realpath(p) for p in args.inputs}
    if os.path.realpath(out) in given:
        raise UsageError("--out must be a folder of its own, not one of the shards' output folders.")
    template = lms_template_of(args)
    merged = merge.combine(args.inputs, secret, allow_incomplete=args.allow_incomplete)
    for note in secret_notes:
        if note not in merged.notes:
            merged.notes.append(note)
    private = bool(args.private)
    outfolder.check_writable(out, private)
    merge.remove_manifest(out)
    problems = merge.write(merged, out, secret, private=private)
    if args.gradebook_format:
        _warn_collisions(args.gradebook_format, merged.results, [p.student for p in merged.pending], template)
        try:
            report.write_atomic(out / lms.filename(args.gradebook_format), lms.data(args.gradebook_format, lms.render(
                args.gradebook_format, merged.results, args.lms_assignment or merged.title,
                [p.student for p in merged.pending], lms.graded_at(out), template)), private=private)
        except OSError as exc:
            problems.append(f"{lms.filename(args.gradebook_format)} could not be written ({escape.terminal(exc)})")
    for said in lms.remove_stale(out, args.gradebook_format):
        print(f"grader: {said}", file=sys.stderr)
    _say_unwritten(problems, out)
    print(f"Merged {len(merged.results)} students from {len(args.inputs)} output folder"
          f"{'s' if len(args.inputs) > 1 else ''} into {escape.terminal(out)}"
          + ("." if merged.complete else f"; INCOMPLETE: {len(merged.pending)} students not graded"
             + (f", shard(s) {', '.join(map(str, merged.missing_shards))} missing" if merged.missing_shards else "")
             + (f", stopped: {'; '.join(merged.incomplete_shards)}" if merged.incomplete_shards else "") + "."),
          file=sys.stderr)
    if not _lost("summary.html", problems):
        print(f"Class summary: {out / 'summary.html'}", file=sys.stderr)
    return 3 if problems else 0


def _warn_collisions(fmt: str, results: list, pending: list[str], template=None) -> None:
    """Say on stderr what the LMS file cannot do: users several entries belong to (lms.py scores them 0), rows
    its import cannot match, a Blackboard column it would create."""
    for sentence in lms.warnings(fmt, results, pending, template):
        print(f"grader: warning: {sentence}", file=sys.stderr)


def lms_template_of(args: argparse.Namespace):
    """The Blackboard template (``--lms-template``) read and its column chosen, or None; a usage error, before
    anything is graded, when it cannot name one column or is given for another format."""
    path = getattr(args, "lms_template", None)
    if path is None:
        return None
    if getattr(args, "gradebook_format", None) != "blackboard":
        raise UsageError("--lms-template is a Blackboard Grade Center download: give it with --gradebook-format "
                         "blackboard (export: --format blackboard).")
    from .blackboard import TemplateError, read_template
    try:
        return read_template(Path(path), getattr(args, "lms_assignment", None))
    except TemplateError as exc:
        raise UsageError(str(exc)) from None


def export(args: argparse.Namespace) -> int:
    """``grader export OUT --format canvas|moodle``: the LMS grade file of an output folder, every result checked."""
    secret, secret_notes = course_secret(args)
    for note in secret_notes:
        print(f"grader: warning: {note}", file=sys.stderr)
    merged = merge.verified_results(Path(args.folder), secret)
    target = Path(args.to) if args.to else Path(args.folder) / lms.filename(args.gradebook_format)
    template = lms_template_of(args)
    _warn_collisions(args.gradebook_format, merged.results, [p.student for p in merged.pending], template)
    text = lms.render(args.gradebook_format, merged.results, args.lms_assignment or merged.title,
                      [p.student for p in merged.pending], lms.graded_at(Path(args.folder)), template)
    if args.to not in (None, "-") and not target.parent.is_dir():  # a typo in a folder name makes no new folders
        raise UsageError(f"Cannot write {escape.terminal(target)}: the folder {escape.terminal(target.parent)} does "
                         "not exist.")
    if args.to == "-":  # the usual spelling of standard output: the file itself goes there, the notes to stderr
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        try:
            report.write_atomic(target, lms.data(args.gradebook_format, text))
        except OSError as exc:
            raise UsageError(f"Cannot write {escape.terminal(target)}: {exc.strerror or exc}.") from None
    if not merged.complete:
        these = "1 student of" if len(merged.pending) == 1 else f"{len(merged.pending)} students of"
        print(f"grader: warning: {these} {escape.terminal(args.folder)} {'is' if len(merged.pending) == 1 else 'are'} "
              "not graded (an interrupted run or one shard of several): their grade cells are empty", file=sys.stderr)
    where = "standard output" if args.to == "-" else escape.terminal(target)
    print(f"wrote: {where} ({len(merged.results)} students)", file=sys.stderr if args.to == "-" else sys.stdout)
    return 0


def _same_exercise(out: Path, name: str) -> None:
    """Refuse an output folder whose last run graded another exercise or assignment: its students would be taken for
    a regrade (changes.csv blaming an "exercise version"), and those of the other class left beside the new ones."""
    try:
        before = json.loads(merge._read_regular(out / merge.MANIFEST)).get("exercise")  # no link, no pipe
    except (OSError, ValueError, AttributeError, RecursionError):  # none yet, or unreadable: nothing to mix with
        return
    if isinstance(before, str) and before != name:
        raise UsageError(f"--out {escape.terminal(out)} holds the reports of '{escape.terminal(before)}' (its "
                         f"{merge.MANIFEST} says so), not of '{escape.terminal(name)}': grading into it would mix the "
                         "two classes' students. Give another --out, or delete that folder first.")


def _lost(name: str, problems: Sequence[str]) -> bool:
    """Is class file ``name`` among the ones that could not be written?"""
    return any(problem.startswith(f"{name} ") for problem in problems)


def _names_of(exercise, args: argparse.Namespace) -> set[str]:
    """What a student's file is named after when it is the one to grade: the exercise's id and function (each
    exercise's, and the assignment's name), or what the command line named when the exercise is not chosen yet."""
    names = {name for name in (getattr(args, "exercise", None), getattr(args, "assignment", None)) if name}
    if isinstance(exercise, (Exercise, Assignment)):
        names |= file_names(exercise)
    return {name for name in names if isinstance(name, str)}


def _say_failed(results: Sequence) -> int:
    """How many students the grader itself failed on (a bug, or their files that could not be written), said on
    stderr: their rows score 0 for no fault of theirs, and a batch that exited 0 (under ``-q`` in silence) left
    that to be found in the gradebook."""
    failed = [r.student for r in results if r.error is not None and r.error.kind == "internal"]
    if failed:
        shown = ", ".join(escape.terminal(student, 80) for student in failed[:10])
        more = f" and {len(failed) - 10} more" if len(failed) > 10 else ""
        have = "students have" if len(failed) > 1 else "student has"
        print(f"grader: error: {len(failed)} {have} no grade ({shown}{more}): "
              "the grader failed on their submission or could not write their files, and each row says which. "
              "Fix that, then run the same command again.", file=sys.stderr)
    return len(failed)


def _say_unwritten(problems: Sequence[str], out: Path | None) -> None:
    """Each class file that could not be written, then one sentence on what to do (the results are kept)."""
    for problem in problems:
        print(f"grader: {problem}", file=sys.stderr)
    if problems:
        print(f"grader: error: {len(problems)} class file{'s' if len(problems) > 1 else ''} could not be written in "
              f"{escape.terminal(out)}; the students' results written before are kept: free some space or fix "
              "the folder's permissions, then run the same command again.", file=sys.stderr)


def summary_line(result) -> str:
    """One terminal line per student: whatever the id or the message holds, no control character is printed.
    An assignment's line gives each exercise's score after the total, and its mistakes as ``exercise:id``."""
    student = escape.terminal(result.student)
    if result.status == "error":
        return f"{student}: not graded ({escape.terminal(result.error.kind)}): {escape.terminal(result.error.message)}"
    mistakes = escape.terminal(", ".join(gradebook.diagnosis_ids(result)))
    each = f" ({', '.join(_section_score(part) for part in result.sections)})" if result.sections else ""
    return f"{student}: {result.score:g}/{result.max_score:g}{each}" + (f"  [{mistakes}]" if mistakes else "")


def _section_score(part) -> str:
    """``linear 20/20``, or ``gap_head 0/18 not graded (missing-function)``: one exercise of a summary line."""
    text = f"{escape.terminal(part.exercise, 60)} {part.score:g}/{part.max_score:g}"
    if part.status == "error":
        text += f" not graded ({escape.terminal(part.error.kind if part.error else 'error', 40)})"
    return text


def diff(args: argparse.Namespace) -> int:
    """``grader diff OLD_OUT NEW_OUT``: whose result changed and why; 1 when any score changed."""
    changes = regrade.diff(args.old, args.new)
    if args.csv:
        sys.stdout.write(regrade.render_csv(changes))
    else:
        print("\n".join(regrade.diff_lines(changes, args.old, args.new)))
    return 1 if any(c.score_changed for c in changes) else 0


def check(args: argparse.Namespace, exercise: Exercise | Assignment) -> int:
    """``grader check``: the public cases and the diagnosis on one file, of one exercise or of every exercise of
    an assignment (one sandboxed run); 0 when every public check passes."""
    from . import student_check

    return student_check.main(args.path, exercise)


def notebook(args: argparse.Namespace, exercise: Exercise | Assignment) -> int:
    """``grader notebook``: (re)generate the student notebook of an exercise, or the one notebook of an
    assignment's exercises, and each exercise's stored public outputs."""
    from . import notebook as notebook_mod

    for each in exercise.exercises if isinstance(exercise, Assignment) else (exercise,):
        path, changed = notebook_mod.write_public_expected(each)  # what `grader check` compares with
        print(f"{'wrote' if changed else 'unchanged'}: {path}")
    if isinstance(exercise, Assignment):
        path, changed = notebook_mod.write_assignment(exercise, args.out)
    else:
        path, changed = notebook_mod.write(exercise, args.out)
    print(f"{'wrote' if changed else 'unchanged'}: {path}")
    return 0
