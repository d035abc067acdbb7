"""The ``grader`` command's first steps: start the sandbox's templates before the grader loads the rest of itself.

A batch's first runs wait for the first template's Python and numpy start (about 0.1 s of one core), and the grader
has its own imports to do meanwhile (numpy, the exercise, the reports' templates). The sooner the template starts,
the sooner both are done: here it starts once ``dataclasses`` and the sandbox's modules are loaded, before argparse,
the command line's other modules and numpy (about 20 ms sooner than from ``cli``, a tenth of a batch's start).

How many to start is read from the raw arguments, since the parsed ones need most of the command line loaded. It
is a guess, and only a count: ``cli`` parses the arguments as usual and starts any template still missing, and a
template that was not needed is stopped at exit. Nothing else is decided here.
"""
from __future__ import annotations

import os
import sys

#: the commands that grade, and so run student code in the sandbox's templates
GRADING = ("grade", "check")


def run() -> None:
    """The ``grader`` command (``python -m grader`` too)."""
    try:  # an optimisation only: whatever fails here, cli does the same work and reports what went wrong
        from . import classcache, regexcache

        classcache.install()  # before the sandbox's modules (and then the rest) define their dataclasses
        regexcache.install()  # before they compile their regular expressions
        count = templates_ahead(sys.argv[1:])
        if count:
            from . import sandbox

            sandbox.prestart(count)
    except Exception:  # noqa: BLE001
        pass
    from . import cli

    cli.run()


def templates_ahead(argv: list[str]) -> int:
    """How many templates the command will likely use: none unless it grades; one for ``check`` or a single file (one
    existing path on the command line, a file); else one per core, or ``--jobs`` if fewer. A path given as an
    option's value (``--out OUT``) may count as a second path: that costs one idle template, forked, not started."""
    words = [word for word in argv if not word.startswith("-")]
    if not words or words[0] not in GRADING:
        return 0
    if words[0] == "check":
        return 1
    after = argv[argv.index("grade") + 1:]
    paths = [word for word in after if not word.startswith("-") and os.path.exists(word)]
    if len(paths) == 1 and os.path.isfile(paths[0]):
        return 1
    try:
        cores = max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not Linux: no fork templates
        return 0
    jobs = _jobs(after)
    return max(1, min(jobs or cores, cores))


def _jobs(argv: list[str]) -> int | None:
    """``--jobs N``, ``--jobs=N``, ``-j N`` or ``-jN`` (the last one given), if it is a number."""
    found = None
    for index, word in enumerate(argv):
        value = None
        if word in ("--jobs", "-j") and index + 1 < len(argv):
            value = argv[index + 1]
        elif word.startswith("--jobs="):
            value = word.partition("=")[2]
        elif word.startswith("-j") and len(word) > 2:
            value = word[2:]
        if value is not None:
            try:
                found = int(value)
            except ValueError:
                pass
    return found if found is not None and found > 0 else None
