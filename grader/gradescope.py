"""Gradescope: ``grader gradescope --exercise ID --out DIR`` writes ``DIR/autograder.zip``, the bundle Gradescope's
"Configure Autograder" page takes; Gradescope then runs its ``run_autograder`` for every submission, which runs
``grader gradescope-run``. ``--assignment NAME`` (or ``--exercise a,b``) bundles every exercise of an assignment:
each submission is graded as ``grader grade --assignment NAME`` grades it, one test per check named by exercise.

The zip's root (Gradescope unpacks it into ``/autograder/source``)::

    setup.sh          run once, as root, when Gradescope builds the image: installs Python and bubblewrap with
                      apt, the grader into .venv, creates the unprivileged account student code runs as, and
                      makes the bundle root-owned and read-only to others (solutions/ and secret: root only)
    run_autograder    run as root for each submission (Gradescope copies it to /autograder/run_autograder):
                      grades $AUTOGRADER_ROOT/submission/* into $AUTOGRADER_ROOT/results/results.json
                      (AUTOGRADER_ROOT defaults to /autograder, so the bundle can be tried on any machine)
    bundle.json       the exercise (or the assignment: its name, title, exercise ids and weights), the full-scale
                      setting, the visibility, the grader version
    grader-src/       the grader's source with this exercise only (an assignment's: each of its exercises and the
                      course file, exercises/course.toml); what setup.sh installs
    solutions/<id>.py the reference (one per exercise), read by the grader alone
    secret            the course secret (when one was set), read by the grader alone

Security without namespaces: Gradescope's container may allow neither bubblewrap nor Landlock. Whatever mode the
machine offers, the bundle's sandbox (``BundleSandbox``) runs student code as an unprivileged worker uid (in
rlimits-only mode too: the child switches to it before any student code runs), or nothing runs at all and the
result says why. That uid cannot write the results folder, the bundle or the grader, nor read the solutions or
the secret. ``results.json`` is written by the grader (root) after every child has ended and after every process
of the worker uids has been killed, through a new file renamed into place, so a process a submission leaves behind
can neither rewrite it nor race with it. The result's ``output`` says which isolation applied.
"""
from __future__ import annotations

import argparse
import io
import json
import os
import signal
import stat
import sys
import tempfile
import time
import zipfile
from dataclasses import replace
from pathlib import Path

from . import batch, escape, exercise as exercise_mod, gradescope_results, report, slots
from .assignment import COURSE_FILE, Assignment, Plan, combined_limits, file_names, load_assignment
from .errors import GraderError, UsageError
from .signing import NO_SECRET
from .version import version
from .exercise import Exercise
from .gradescope_scripts import RUN_AUTOGRADER, SETUP_SH
from .runner import confine as runner_confine
from .sandbox import Sandbox
from .slots import SandboxUnavailable

BUNDLE = "bundle.json"
SOURCE = "grader-src"
SECRET = "secret"
#: the worker uids student code may run as (one per slot), and the one the root-step probe uses
WORKER_UIDS = range(slots.FIRST_UID, slots.FIRST_UID + slots.SLOTS + 1)
WORKER_ACCOUNT = "grader-student"
PROBE_ACCOUNT = "grader-probe"
#: what a Gradescope submission may be (as a student's own file)
SUFFIXES = (".ipynb", ".py")


# -- the sandbox of a bundle's run ------------------------------------------------------------------------------
class BundleSandbox(Sandbox):
    """The machine's strongest sandbox, always with an unprivileged worker uid (or ``SandboxUnavailable``).

    bwrap mode has a worker uid, and Landlock mode as root has one when the machine allows the switch. In
    rlimits-only mode (no bubblewrap, no Landlock, as in some containers) the plain sandbox keeps the child as
    root with its capabilities dropped: root still owns the solutions and the results. Here the child switches to
    its slot's uid there too, after opening its import folders (``runner.confine``), so those files are out of its
    reach; without root nothing can switch, and nothing runs.
    """

    def __init__(self, limits, mode: str | None = None) -> None:
        super().__init__(limits, mode)
        if "worker-uid" not in self.layers and self.mode == "rlimits" and _is_root():
            uid_ok, scratch_ok, notes = runner_confine.landlock_root_steps(slots.FIRST_UID + slots.SLOTS)
            if uid_ok:
                self.worker_uid = True
                self.scratch_mib = 64 if scratch_ok else 0
                self.layers = (*self.layers, "worker-uid")
                self.warnings = (*self.warnings, *(n for n in notes if n not in self.warnings))
        self.used_uids: set[int] = set()
        if "worker-uid" not in self.layers:
            why = NOT_ROOT if not _is_root() else ("this machine does not let the grader switch the child to an "
                                                   "unprivileged uid")
            raise SandboxUnavailable(f"{MUST_SWITCH}, and {why}")

    def spawn(self, *args, **kwargs):
        launched = super().spawn(*args, **kwargs)
        if launched.slot is not None:
            self.used_uids.add(launched.slot.uid)
        return launched

    def isolation_sentence(self) -> str:
        """For the student's result: which isolation applied, in one sentence."""
        kind = {"bwrap": "in a bubblewrap sandbox (own namespaces, a read-only view of the system)",
                "fork": "in namespaces of its own with a new read-only root",
                "landlock": "under Landlock and seccomp (no namespaces on this machine)",
                "rlimits": "with resource limits only (this machine allows neither namespaces nor Landlock)"}
        where = kind.get(self.mode, f"in {self.mode} mode")
        return (f"Your code ran as an unprivileged user {where}; isolation layers: {', '.join(self.layers)}. It "
                "could not read the solutions or change the results.")


MUST_SWITCH = "student code must run as an unprivileged user here"
NOT_ROOT = "the grader does not run as root, so it cannot switch the child to an unprivileged uid"


def _is_root() -> bool:
    return sys.platform.startswith("linux") and os.geteuid() == 0


def kill_workers(uids) -> int:
    """Kill every process of the worker ``uids`` this run used (the sandbox already swept each one as its run
    ended: this is the last pass before results.json is written). A uid is swept only while its slot's lock is
    held here, so the children of another grader on the same machine, which hold that slot now, are left alone.
    Returns how many processes were killed."""
    killed = 0
    for uid in sorted(uids):
        fd = slots.POOL._lock_file(uid - slots.FIRST_UID)
        if fd is None:  # another grader's child runs as this uid now: it sweeps the uid when it ends
            continue
        try:
            killed += _sweep(uid)
        finally:
            os.close(fd)
    return killed


def _sweep(uid: int) -> int:
    killed = 0
    for _ in range(50):
        found = 0
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                if os.stat(f"/proc/{entry}").st_uid == uid:
                    os.kill(int(entry), signal.SIGKILL)
                    found += 1
            except (OSError, ProcessLookupError):
                pass
        killed += found
        if not found:
            break
        time.sleep(0.01)
    return killed


# -- building the bundle ----------------------------------------------------------------------------------------
def build(what: Exercise | Assignment, out: Path, *, secret: str | None, full_scale: bool = True,
          visibility: str = "visible") -> Path:
    """Write ``out/autograder.zip`` for one exercise or every exercise of an assignment; return its path."""
    exercises = _exercises(what)
    if any(e.reference is None for e in exercises):
        raise UsageError("The Gradescope bundle needs the exercise's reference solution (--solutions-dir).")
    if visibility not in gradescope_results.VISIBILITIES:
        raise UsageError(f"--visibility takes one of {', '.join(gradescope_results.VISIBILITIES)}.")

    package = Path(__file__).resolve().parent
    checkout = exercise_mod.REPO_ROOT
    files: list[tuple[str, bytes, int]] = []  # (name in the zip, bytes, mode)

    def add(name: str, data: bytes, mode: int = 0o644) -> None:
        files.append((name, data, mode))

    setup = SETUP_SH
    for token, value in (("@UID@", slots.FIRST_UID), ("@PROBE@", slots.FIRST_UID + slots.SLOTS),
                         ("@ACCOUNT@", WORKER_ACCOUNT), ("@PROBE_ACCOUNT@", PROBE_ACCOUNT)):
        setup = setup.replace(token, str(value))
    add("setup.sh", setup.encode(), 0o755)
    add("run_autograder", RUN_AUTOGRADER.encode(), 0o755)
    config: dict = {"exercise": what.id} if isinstance(what, Exercise) else {"assignment": {
        "name": what.plan.name, "title": what.plan.title, "exercises": list(what.plan.ids),
        "weights": dict(what.plan.weights)}}
    config.update({"full_scale": bool(full_scale), "visibility": visibility, "grader": version(),
                   "secret": bool(secret)})
    add(BUNDLE, (json.dumps(config, indent=1) + "\n").encode())
    add(f"{SOURCE}/pyproject.toml", _pyproject(checkout, package))
    add(f"{SOURCE}/README.md", b"The grader, as bundled for a Gradescope autograder. See the course's repository.\n")
    for path in sorted(package.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc" \
                and path.relative_to(package).parts[0] != "exercises":
            add(f"{SOURCE}/grader/{path.relative_to(package).as_posix()}", path.read_bytes())
    for exercise in exercises:
        for path in sorted(exercise.folder.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc" \
                    and path.relative_to(exercise.folder).parts[0] != "examples":
                add(f"{SOURCE}/exercises/{exercise.id}/{path.relative_to(exercise.folder).as_posix()}",
                    path.read_bytes())
        reference = Path(sys.modules[exercise.reference.__module__].__file__)
        add(f"solutions/{exercise.id}.py", reference.read_bytes(), 0o600)
    course = exercises[0].folder.parent / COURSE_FILE
    if isinstance(what, Assignment) and course.is_file():  # what `grader check` reads in the installed grader
        add(f"{SOURCE}/exercises/{COURSE_FILE}", course.read_bytes())
    if secret:
        add(SECRET, secret.encode() + b"\n", 0o600)
    out = Path(out)
    report.make_folder(out)
    target = out / "autograder.zip"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data, mode in files:
            info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
            info.external_attr = (stat.S_IFREG | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    fd, tmp = tempfile.mkstemp(dir=out, prefix=".autograder.zip.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(buffer.getvalue())
        os.chmod(tmp, 0o600)  # it holds the solutions (and the secret): for the instructor only
        os.replace(tmp, target)
    except OSError:  # a full disk: no half bundle (with half the solutions) left behind under a hidden name
        os.unlink(tmp)
        raise
    return target


def _exercises(what: Exercise | Assignment) -> tuple[Exercise, ...]:
    return what.exercises if isinstance(what, Assignment) else (what,)


def _name(what: Exercise | Assignment) -> str:
    return what.plan.name if isinstance(what, Assignment) else what.id


def _pyproject(checkout: Path, package: Path) -> bytes:
    """The checkout's pyproject.toml (an installed grader: a minimal one with the same dependencies, version and
    package data, course file included, so setup.sh installs what the bundle ships and `grader --version` on
    Gradescope says what bundle.json says)."""
    path = checkout / "pyproject.toml"
    if path.is_file():
        return path.read_bytes()
    from importlib.metadata import requires

    deps = [r for r in (requires("grader") or []) if "extra ==" not in r]
    return ("[build-system]\nrequires = [\"setuptools>=68\"]\nbuild-backend = \"setuptools.build_meta\"\n\n"
            f"[project]\nname = \"grader\"\nversion = {json.dumps(version())}\nrequires-python = \">=3.10\"\n"
            f"dependencies = {json.dumps(deps)}\n\n[project.scripts]\ngrader = \"grader.launch:run\"\n\n"
            "[tool.setuptools]\npackages = [\"grader\", \"grader.runner\", \"grader.exercises\"]\n"
            "package-dir = {\"grader.exercises\" = \"exercises\"}\n\n[tool.setuptools.package-data]\n"
            "grader = [\"templates/*\"]\n"
            "\"grader.exercises\" = [\"course.toml\", \"*/*.py\", \"*/*.toml\", \"*/*.md\", \"*/*.json\"]\n"
            ).encode()


def build_command(args: argparse.Namespace, what: Exercise | Assignment) -> int:
    if not args.secret:
        print(f"grader: warning: {NO_SECRET} The bundle then seeds every student's hidden cases from the default.",
              file=sys.stderr)
    try:
        target = build(what, args.out, secret=args.secret, full_scale=args.full_scale, visibility=args.visibility)
    except OSError as exc:  # a path that is a file, a read-only or full disk: the instructor's to fix, said once
        raise UsageError(f"Cannot write {escape.terminal(Path(args.out) / 'autograder.zip')}: "
                         f"{exc.strerror or exc}.") from None
    print(f"wrote: {escape.terminal(target)}")
    functions = ", ".join(f"{e.function}()" for e in _exercises(what))
    print("Upload it on Gradescope: the assignment's Configure Autograder page, Zip file upload. Students submit "
          f"{_name(what)}.ipynb or a .py file" + (f" defining {functions}" if isinstance(what, Assignment) else "")
          + ". It holds the solutions: keep it private.", file=sys.stderr)
    return 0


# -- running one submission -------------------------------------------------------------------------------------
def find_submission(folder: Path, what: Exercise | Assignment) -> tuple[Path | None, str]:
    """The file to grade in Gradescope's submission folder, or (None, why not). Among several, the one named
    after the exercise or its function (an assignment's: after the assignment, one of its exercises or functions)."""
    from .classfolder import _walk, misnamed_left

    left: list[tuple[Path, str]] = []
    try:
        files = _walk(Path(folder), os.path.realpath(folder), left)
    except OSError as exc:
        return None, f"The submission folder cannot be read ({exc})."
    usable = [path for path, problem in files if problem is None]
    if not usable:
        refused = [f"{escape.terminal(p.name)}: {problem[1].rstrip('.')}" for p, problem in files if problem]
        return None, ("" if refused else misnamed_left(left)) or (  # a zip or 'hw.ipynb.txt': said as such
            "No .ipynb or .py file was found in your submission" + (f" ({'; '.join(refused)})" if refused else "")
            + f". Submit your notebook ({_name(what)}.ipynb) or a .py file.")
    if len(usable) == 1:
        return usable[0], ""
    named = [p for p in usable if p.stem in file_names(what)]
    if len(named) == 1:
        return named[0], ""
    every = " (one file with every function)" if isinstance(what, Assignment) else ""
    if named:  # the notebook and its export, say: renaming cannot tell them apart, so never advise it
        shown = ", ".join(escape.terminal(p.relative_to(folder)) for p in named[:6])
        return None, (f"Your submission holds {len(named)} files named after the exercise ({shown}), and only one "
                      f"can be graded. Submit only one of them{every}: the notebook or its .py export.")
    shown = ", ".join(escape.terminal(p.relative_to(folder)) for p in usable[:6])
    return None, (f"Your submission holds {len(usable)} files that could be graded ({shown}). Submit only "
                  f"one{every}, or name the one to grade {_name(what)}.ipynb.")


def student_of(metadata_path: Path) -> str:
    """The submitters' ids from Gradescope's submission_metadata.json (a group shares them), for the seed."""
    try:
        data = json.loads(Path(metadata_path).read_text(encoding="utf-8"))
        users = data.get("users") or []
        ids = sorted(str(u.get("email") or u.get("id") or "").strip() for u in users if isinstance(u, dict))
        ids = [i for i in ids if i]
        if ids:
            return "+".join(ids)
    except (OSError, ValueError, AttributeError, RecursionError):
        pass
    return "gradescope-student"


def _secure_bundle(bundle: Path) -> None:
    """What setup.sh does, done again before every run (cheap): nothing of the bundle writable by others, the
    solutions and the secret root's alone. The installed grader (``.venv``, thousands of files setup.sh locked
    down) is checked at its top only: no uid but root can change a mode inside it."""
    paths = [bundle, bundle / ".venv"]
    for top in bundle.iterdir():
        if top.name != ".venv":
            paths += [top, *(top.rglob("*") if top.is_dir() and not top.is_symlink() else ())]
    for path in paths:
        try:
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                continue
            if info.st_mode & 0o022:
                os.chmod(path, stat.S_IMODE(info.st_mode) & ~0o022)
        except OSError:
            pass
    for name, mode in (("solutions", 0o700), (SECRET, 0o600)):
        if (bundle / name).exists():
            _owner_only(bundle / name, mode)
            for inner in (bundle / name).rglob("*") if (bundle / name).is_dir() else ():
                _owner_only(inner, 0o600 if inner.is_file() else 0o700, shielded=True)


def _owner_only(path: Path, mode: int, shielded: bool = False) -> None:
    """``path`` at ``mode``, changed only when it differs: Gradescope may mount the bundle read-only, where any
    chmod fails even to the mode a file already has (the run failed with 'Read-only file system' before grading).
    A file that cannot be made root's alone is refused: the student's uid could read the solutions."""
    if stat.S_IMODE(os.lstat(path).st_mode) == mode:
        return
    try:
        os.chmod(path, mode)
    except OSError as exc:  # inside a folder already root's alone (``shielded``), no other uid reaches it
        if not shielded and stat.S_IMODE(os.lstat(path).st_mode) & 0o077:
            raise BundleError(f"{path.name} of the bundle is readable by others and its mode cannot be changed "
                              f"({exc.strerror or exc}): run setup.sh before the bundle is made read-only") from None


class BundleError(Exception):
    """The bundle cannot be made safe to run a submission with (its sentence says why)."""


def _results_folder(root: Path) -> Path:
    """``ROOT/results``, a real folder of the grader's own that only it may write."""
    folder = Path(root) / "results"
    folder.mkdir(parents=True, exist_ok=True)
    info = os.lstat(folder)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
        raise UsageError(f"{folder} must be a folder owned by the grader's own user.")
    os.chmod(folder, 0o755)
    return folder


def write_results(folder: Path, document: dict) -> Path:
    """Write ``results.json`` through a new file renamed into place (never through what is at the name)."""
    report.write_atomic(folder / "results.json", json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    return folder / "results.json"


def _refusal(message: str) -> dict:
    return {"score": 0.0, "output": message, "output_format": "text", "visibility": "visible",
            "stdout_visibility": "hidden", "tests": []}


def _not_run(results: Path, why: str) -> int:
    """Refuse to run the submission, saying why in results.json (for the student) and on stdout (for the staff)."""
    print(f"refused to run the submission: {why}")
    write_results(results, _refusal(f"This submission was not run: {why}. This is a problem of the autograder's "
                                    "setup, not of your code: please tell the course staff."))
    return 1


def bundled(config: dict, bundle: Path) -> Exercise | Assignment:
    """What ``bundle.json`` says to grade, loaded from the bundle: one exercise, or an assignment with the
    exercises and weights it recorded when it was built (the bundle's own course, whatever the file says now)."""
    exercises, solutions = bundle / SOURCE / "exercises", bundle / "solutions"
    if "assignment" not in config:
        return exercise_mod.load(config["exercise"], exercises, solutions)
    spec = config["assignment"]
    weights = tuple((str(i), float(spec["weights"][i])) for i in spec["exercises"])
    if not weights:
        raise ValueError("the bundle's assignment names no exercise")
    return load_assignment(Plan(str(spec["name"]), str(spec.get("title") or spec["name"]), weights), exercises,
                           solutions)


def run_command(args: argparse.Namespace) -> int:
    """``grader gradescope-run --bundle SOURCE --root ROOT``: grade ROOT/submission into ROOT/results/results.json."""
    bundle, root = Path(args.bundle).resolve(), Path(args.root)
    results = _results_folder(root)
    try:
        config = json.loads((bundle / BUNDLE).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        write_results(results, _refusal(f"The autograder is misconfigured ({exc}). Please tell the course staff."))
        return 2
    if not _is_root():  # nothing could switch to a worker uid; and setup.sh left the secret and solutions root's
        return _not_run(results, f"{MUST_SWITCH}, and {NOT_ROOT}")
    try:
        _secure_bundle(bundle)
    except BundleError as exc:
        write_results(results, _refusal(f"The autograder is misconfigured ({exc}). This is not your fault: "
                                        "please tell the course staff."))
        return 2
    secret_file = bundle / SECRET
    secret = secret_file.read_text(encoding="utf-8").strip() if secret_file.is_file() else ""
    from .grade import DEFAULT_SECRET, Session, grading
    from .grade_assignment import AssignmentSession

    if not secret:
        print(f"warning: {NO_SECRET}")
    try:
        what = bundled(config, bundle)
    except (GraderError, KeyError, TypeError, ValueError) as exc:
        write_results(results, _refusal(f"The autograder is misconfigured ({escape.terminal(exc, 300)}). Please "
                                        "tell the course staff."))
        return 2
    submission, why = find_submission(root / "submission", what)
    student = student_of(root / "submission_metadata.json")
    sandbox = None
    try:
        try:
            sandbox = BundleSandbox(what.limits if isinstance(what, Exercise) else combined_limits(what.exercises))
        except SandboxUnavailable as exc:
            return _not_run(results, str(exc))
        print(f"isolation: {sandbox.mode} mode ({', '.join(sandbox.layers)})")
        for warning in sandbox.warnings:
            print(f"note: {warning}")
        opened = Session if isinstance(what, Exercise) else AssignmentSession
        with opened(what, full_scale=bool(config.get("full_scale", True)), secret=secret or DEFAULT_SECRET,
                    sandbox=sandbox) as session:
            if submission is None:
                result = grading(session).error(root / "submission", student, "no-submission", why,
                                                time.perf_counter())
            else:
                from .classfolder import Entry

                entry = Entry(submission, escape.terminal(student, 200), folder="student")
                result = batch.grade_entry(entry, session)
                result = replace(result, submission=escape.terminal(submission.name))
    finally:
        killed = kill_workers(sandbox.used_uids) if sandbox is not None else 0  # nothing it started outlives it
        if killed:
            print(f"killed {killed} process(es) left behind by the submission")
    ran = bool(result.isolation)  # an empty submission, a zip, a file refused unread: no code of theirs ran
    document = gradescope_results.document(result, visibility=config.get("visibility", "visible"),
                                             isolation=sandbox.isolation_sentence() if ran else "")
    path = write_results(results, document)
    print(report.render_markdown(result))
    print(f"wrote {path}")
    return 0
