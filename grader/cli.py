"""Command line: parse arguments, call the stages in order, map errors to exit codes. Nothing else lives here."""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from . import classcache, regexcache

classcache.install()  # before the grader's modules define their dataclasses
regexcache.install()  # and compile their regular expressions

from . import lms  # noqa: E402
from .errors import GraderError, UsageError  # noqa: E402
from .version import version  # noqa: E402


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of exiting, so usage errors still produce a JSON document under --json."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{message} (see '{self.prog} --help')")


def _out_folder(text: str) -> Path:
    """An ``--out`` to write into. An empty one (a shell variable left unset) would quietly mean the working folder,
    and the filesystem's root is never what was meant: the grader writes, renames and removes its files there."""
    if not text:
        raise argparse.ArgumentTypeError("is empty (a shell variable left unset?): name the folder to write into")
    if os.path.realpath(text) == os.path.realpath(os.sep):
        raise argparse.ArgumentTypeError("is the filesystem's root: name a folder of its own to write into")
    return Path(text)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="grader", description="Grade numerical Python exercises in a sandbox and name the mistakes.")
    parser.add_argument("--version", action="store_true", help="print the grader's version and exit")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    grade = sub.add_parser("grade", help="grade submissions (.py or .ipynb files, or folders of them)")
    grade.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    _exercise_options(grade)
    grade.add_argument("--out", type=_out_folder,
                       help="write result.json, report.html and report.md per student here")
    grade.add_argument("--json", action="store_true", help="print the result as one JSON document on stdout")
    grade.add_argument("--no-full-scale", dest="full_scale", action="store_false",
                       help="skip the exercise's large (full-scale) case (its points leave the maximum too)")
    grade.add_argument("--secret", default=os.environ.get("GRADER_SECRET"),
                       help="course secret that seeds per-student hidden cases (default: $GRADER_SECRET)")
    grade.add_argument("--jobs", "-j", type=int, default=None, help="parallel workers, 1 or more (default: one per core)")
    grade.add_argument("--force", action="store_true", help="regrade even when a result is up to date")
    grade.add_argument("--quiet", "-q", action="store_true", help="no progress output")
    grade.add_argument("--fail-under", type=float, metavar="SCORE",
                       help="exit 1 if any score is below SCORE, naming those students (SCORE at most the maximum)")
    grade.add_argument("--student", metavar="ID",
                       help="the student's id for a single file (result, reports, hidden-case seed); default: the "
                            "file's stem")
    grade.add_argument("--layout", choices=("auto", "plain", "nbgrader"), default="auto",
                       help="plain: each file or folder is a student; nbgrader: COURSE/submitted/<student>/...; "
                            "auto (default): nbgrader when the folder holds only submitted/ and nbgrader's files")
    grade.add_argument("--assignment", metavar="NAME",
                       help="grade every exercise of assignment NAME of the course file (exercises/course.toml) "
                            "from each submission; in nbgrader's layout, also grade submitted/<student>/NAME/")
    grade.add_argument("--private", action="store_true",
                       help="write the outputs for the owner only (files 0600, folders 0700; default 0644/0755)")
    grade.add_argument("--cache-dir", type=Path, default=os.environ.get("GRADER_CACHE_DIR") or None, metavar="DIR",
                       help="where the large case is kept between runs (default: $GRADER_CACHE_DIR, else "
                            "/dev/shm/grader-cache as root, else ~/.cache/grader)")
    grade.add_argument("--no-cache", dest="use_cache", action="store_false",
                       help="build the large case for this run only, as if no run came before")
    grade.add_argument("--shard", metavar="I/N",
                       help="grade only the I-th of N stable slices of the students (by id hash); join the N "
                            "output folders with `grader merge`")
    _lms_options(grade)
    grade.add_argument("--similarity", choices=("on", "off"), default="on",
                       help="with --out, write similarity.html and similarity.csv: the pairs of submissions whose "
                            "code is unusually alike (default: on; it never changes a score)")
    grade.add_argument("--similarity-against", action="append", type=Path, default=[], metavar="DIR",
                       help="also compare with the submissions in DIR, an earlier term's class folder (read only); "
                            "repeat for several")
    grade.add_argument("--similarity-common", type=float, default=0.1, metavar="SHARE",
                       help="a passage found in more than this share of the submissions is common, not evidence "
                            "(default: 0.1)")

    changes = sub.add_parser("diff", help="say whose result changed between two output folders (exit 1 when a "
                                          "score did)")
    changes.add_argument("old", type=Path, metavar="OLD_OUT")
    changes.add_argument("new", type=Path, metavar="NEW_OUT")
    changes.add_argument("--csv", action="store_true", help="print the changes as CSV (the columns of changes.csv)")

    merge = sub.add_parser("merge", help="join the output folders of shards (grade --shard I/N) into one")
    merge.add_argument("inputs", nargs="+", type=Path, metavar="OUT_I")
    merge.add_argument("--out", type=_out_folder, required=True,
                       help="the merged output folder (a new or an older merge)")
    merge.add_argument("--allow-incomplete", action="store_true",
                       help="merge even when a shard is missing or was stopped (the class files then say so)")
    merge.add_argument("--secret", default=os.environ.get("GRADER_SECRET"),
                       help="course secret the shards were graded and signed with (default: $GRADER_SECRET)")
    merge.add_argument("--private", action="store_true", help="write the outputs for the owner only")
    _lms_options(merge)

    export = sub.add_parser("export", help="write the grade file an LMS imports from a graded output folder")
    export.add_argument("folder", type=Path, metavar="OUT")
    export.add_argument("--format", dest="gradebook_format", choices=lms.FORMATS, required=True,
                        help="canvas: Canvas gradebook import; moodle: Moodle grading worksheet / CSV import; "
                        "blackboard: Grade Center upload (tab-delimited blackboard.xls)")
    export.add_argument("--lms-assignment", metavar="NAME", help="the assignment's column name (default: the "
                        "exercise's title)")
    _template_option(export)
    export.add_argument("--to", metavar="FILE", help="where to write (default: OUT/<format>.csv; - for standard "
                        "output)")
    export.add_argument("--secret", default=os.environ.get("GRADER_SECRET"),
                        help="course secret the results were signed with (default: $GRADER_SECRET)")

    bundle = sub.add_parser("gradescope", help="build the Gradescope autograder zip of an exercise or an assignment")
    _exercise_options(bundle)
    bundle.add_argument("--assignment", metavar="NAME",
                        help="bundle every exercise of assignment NAME of the course file, graded together from "
                             "each submission (--exercise a,b: those exercises, weight 1 each)")
    bundle.add_argument("--out", type=_out_folder, required=True, help="folder to write autograder.zip to")
    bundle.add_argument("--secret", default=os.environ.get("GRADER_SECRET"),
                        help="course secret put in the bundle (readable by root only on Gradescope; default: "
                             "$GRADER_SECRET)")
    bundle.add_argument("--no-full-scale", dest="full_scale", action="store_false",
                        help="grade without the exercise's large (full-scale) case, which can need gigabytes of memory")
    bundle.add_argument("--visibility", choices=gradescope_visibilities(), default="visible",
                        help="Gradescope visibility of the result and its tests (default: visible)")

    run = sub.add_parser("gradescope-run", help="grade a Gradescope submission (run by the bundle's run_autograder)")
    run.add_argument("--bundle", type=Path, required=True, help="the unpacked bundle (/autograder/source)")
    run.add_argument("--root", type=Path, required=True, help="Gradescope's root folder (/autograder)")

    cache = sub.add_parser("cache", help="list or clear the large cases kept between runs")
    cache.add_argument("action", choices=("list", "clear"))
    cache.add_argument("--cache-dir", type=Path, default=os.environ.get("GRADER_CACHE_DIR") or None, metavar="DIR",
                       help="the cache folder (default: as for grade)")

    check = sub.add_parser("check", help="run the public checks on your own submission and name the mistakes")
    check.add_argument("path", type=Path, metavar="NOTEBOOK_OR_PY")
    _exercise_options(check)
    check.add_argument("--assignment", metavar="NAME",
                       help="check every exercise of assignment NAME of the course file (default: the one the "
                            "notebook's metadata names, or the exercises whose functions the file defines)")

    notebook = sub.add_parser("notebook", help="generate the student notebook of an exercise or an assignment")
    _exercise_options(notebook)
    notebook.add_argument("--assignment", metavar="NAME",
                          help="one notebook with every exercise of assignment NAME of the course file")
    notebook.add_argument("--out", type=_out_folder, default=Path("notebooks"),
                          help="folder (or .ipynb file) to write to (default: notebooks/)")
    return parser


def gradescope_visibilities() -> tuple[str, ...]:
    """Gradescope's visibility settings (``gradescope_results.VISIBILITIES``, not imported here: it loads Jinja)."""
    return ("visible", "after_due_date", "after_published", "hidden")


def _lms_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--gradebook-format", choices=lms.FORMATS,
                        help="also write OUT/canvas.csv, OUT/moodle.csv or OUT/blackboard.xls, the grade file that LMS "
                             "imports")
    parser.add_argument("--lms-assignment", metavar="NAME",
                        help="the assignment's name in the LMS file (default: the exercise's title); with "
                             "--lms-template, the name or id of the template's column to fill")
    _template_option(parser)


def _template_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--lms-template", type=Path, metavar="FILE",
                        help="blackboard: the Grade Center download (Work Offline > Download) whose column, id "
                             "included, the grades fill; without it the upload makes a new column")


def _exercise_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--exercise", "-e", help="exercise id (default: the only exercise there is; with several, "
                        "`grade` and `check` take the one the submissions define the function of, `check` after "
                        "the notebook's metadata and the file's name); `grade`, `check`, `notebook` and "
                        "`gradescope` also take several ids separated by commas, graded together from each submission")
    parser.add_argument("--exercises-dir", type=Path, metavar="DIR",
                        help="folder of exercise folders (default: the repository's exercises/)")
    parser.add_argument("--solutions-dir", type=Path, metavar="DIR",
                        help="folder of reference solutions (default: solutions/ beside the exercises; "
                             "`grader check` uses the stored public outputs instead unless this is given)")


def usage_document(message: str, kind: str = "usage", result_type: type | None = None) -> dict:
    """The JSON document printed for a usage error under --json: the result schema with nothing graded.

    Derived from the fields of ``result_type`` (``GradeResult``), so a field added there appears here too: a field
    with a default keeps it (an empty list for a tuple, so ``sections`` is ``[]`` and nothing recurses), and one
    without (what only a graded submission knows: exercise, submission, student) is null. (``results`` is imported
    here, not with this module: the command line starts the sandbox before it imports the rest.)
    """
    from dataclasses import MISSING, asdict, fields

    from .results import ErrorInfo, GradeResult

    given = {"status": "error", "score": 0.0, "max_score": 0.0, "error": asdict(ErrorInfo(kind, message))}
    document = {}
    for item in fields(result_type or GradeResult):
        if item.name in given:
            value = given[item.name]
        elif item.default is not MISSING:
            value = item.default
        elif item.default_factory is not MISSING:
            value = item.default_factory()
        else:
            value = None
        document[item.name] = list(value) if isinstance(value, tuple) else value
    return {"schema": document.pop("schema"), **document}  # schema first, as in a result


def _workers_ahead(args: argparse.Namespace) -> int:
    """How many workers a command will likely run, before the submissions are found: one for ``check`` or a single
    file, else one per core (or ``--jobs``, at most one per core). ``Sandbox.warm`` starts any more it needs."""
    if args.command != "grade" or (len(args.paths) == 1 and args.paths[0].is_file()):
        return 1
    try:
        cores = max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux: no fork templates anyway
        return 1
    return max(1, min(args.jobs or cores, cores))


def _what_to_grade(args: argparse.Namespace, plan, choose):
    """``choose.what_to_grade``; when no exercise can be chosen for one file that is no submission at all
    (``hw.ipynb.txt``, a zip, an HTML export), the error says what the file is rather than asking for the exercise
    (which would not make it gradable)."""
    try:
        return choose.what_to_grade(args, plan)
    except UsageError:
        from .brokenjson import unsupported_name
        from .submission import SUFFIXES

        entry = plan.entries[0] if plan.single_file and len(plan.entries) == 1 else None
        if entry is None or entry.problem is not None or entry.path.suffix.lower() in SUFFIXES:
            raise
        raise UsageError(f"{unsupported_name(entry.path)} (No exercise was chosen: nothing in it can be "
                         "graded.)") from None


def main(argv: list[str] | None = None) -> int:
    """The command, with stdout and stderr unable to carry a CI workflow command (``escape.CommandSafeStream``):
    every line printed, by any module, may hold a student's file name, id or message."""
    from .escape import CommandSafeStream

    streams = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = (s if s is None or isinstance(s, CommandSafeStream) else CommandSafeStream(s)
                              for s in streams)
    try:
        return _main(argv)
    finally:
        sys.stdout, sys.stderr = streams


def _main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    wants_json = "--json" in argv
    # The grader's own numpy uses one BLAS thread, as each run does, unless the environment says otherwise: its
    # products are small or bound by memory bandwidth, its workers are threads already, and OpenBLAS's extra threads
    # spin for about 0.1 s of CPU when numpy is imported, on the core the first template is starting on. Set before
    # numpy is imported: the library reads it once, when it loads.
    from .sandbox import BLAS_THREADS

    for name in BLAS_THREADS:
        os.environ.setdefault(name, "1")
    try:
        args = build_parser().parse_args(argv)
        if args.version:
            print(f"grader {version()}")
            return 0
        if args.command is None:
            build_parser().print_help(sys.stderr)
            return 2
        if args.command in ("grade", "check"):
            from . import sandbox

            sandbox.prestart(_workers_ahead(args))  # fork templates start while the grader imports numpy and the rest
        from . import choose  # numpy, the exercises and the sandbox: imported once the template is on its way

        if args.command == "grade":
            from . import commands

            # the exercise is chosen once the submissions are found (and the output folder checked), so a typo in a
            # path or an unwritable --out is said first, and with several exercises the submissions can name theirs
            return commands.grade(args, lambda plan: _what_to_grade(args, plan, choose))
        if args.command == "check":
            from . import commands, student_check

            student_check.checkable(args.path)  # a mistyped path is said before the exercise is chosen from it
            return commands.check(args, choose.what_to_check(args))
        if args.command == "notebook":
            from . import commands

            return commands.notebook(args, choose.what_to_write(args))
        if args.command == "diff":
            from . import commands

            return commands.diff(args)
        if args.command == "merge":
            from . import commands

            return commands.merge_outputs(args)
        if args.command == "cache":
            from . import commands

            return commands.cache(args)
        if args.command == "export":
            from . import commands

            return commands.export(args)
        if args.command == "gradescope":
            from . import gradescope

            return gradescope.build_command(args, choose.what_to_write(args))  # what `notebook` writes, bundled
        if args.command == "gradescope-run":
            from . import gradescope

            return gradescope.run_command(args)
        raise UsageError(f"unknown command {args.command}")
    except GraderError as exc:
        if wants_json:
            print(json.dumps(usage_document(exc.full_message(), exc.kind), indent=2))
        print(f"grader: error: {exc.full_message()}", file=sys.stderr)
        return exc.exit_code or 2
    except KeyboardInterrupt:
        print("grader: interrupted; run the same command again to finish (finished results are kept)",
              file=sys.stderr)
        return INTERRUPTED
    except Exception as exc:  # a bug in the grader itself: one clear line, never a traceback
        message = f"internal error ({type(exc).__name__}: {exc}); please report it with the command you ran"
        if wants_json:
            print(json.dumps(usage_document(message, "internal"), indent=2))
        print(f"grader: {message}", file=sys.stderr)
        return 3


def run() -> None:
    """The ``grader`` command: ``main``, then the process ends without Python's own teardown.

    SIGTERM (a CI job or a container stopped, ``kill``) ends it as Ctrl-C does: a batch writes the class files of what
    finished, marked incomplete, the templates and cgroups are cleaned up, and the exit code is 143."""
    import signal

    signal.signal(signal.SIGTERM, _terminated)
    code = main()
    leave(TERMINATED if _stopped_by_term and code == INTERRUPTED else code)


INTERRUPTED, TERMINATED = 130, 143
_stopped_by_term = False


def _terminated(signum, frame) -> None:
    global _stopped_by_term
    _stopped_by_term = True
    raise KeyboardInterrupt


def leave(code: int) -> None:
    """End the process with ``code`` once what an exit must do is done: other threads finished, the ``atexit``
    handlers run (templates stopped, the grader's cgroups removed), stdout and stderr flushed.

    Python's own teardown would then free every object and unload every module one by one: 40 to 60 ms after a
    batch, for nothing, since every result is on disk by then. A flush that fails (a closed pipe) makes the code
    120, as Python's own exit does."""
    import atexit
    import threading

    for thread in threading.enumerate():
        if thread is not threading.current_thread() and not thread.daemon:
            thread.join()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            code = code or 120
    os._exit(code or 0)
