"""What the tests of the exercises share (``tests/test_exercise_*.py``, ``tests/test_diagnosis_vgg.py``).

The exercises were written side by side, and their tests had each grown a copy of these: a grading session with
shorter limits, a student's function called in-process the way the harness reports it, the notebook's self-check
cell run on a submission, and the checks every exercise must pass (its notebook and stored outputs are current,
its statement states its limits, its self-check rebuilds exactly the public cases). One copy here keeps them
saying the same thing; what is particular to an exercise (its mistakes, shapes and hints) stays in its own file.
"""
from __future__ import annotations

import contextlib
import dataclasses
import io
import re
import subprocess
import sys
from pathlib import Path
from typing import Callable, Iterable, Iterator

import nbformat
import numpy as np

from conftest import ROOT, SUBMISSIONS, grade_students
from grader import assignment as assignment_mod
from grader import exercise as exercise_mod
from grader import notebook as notebook_mod
from grader.grade import Session, grade_file
from grader.grade_assignment import AssignmentSession
from grader.outcomes import CallError, CallOutcome, CaseRun, Returned
from grader.sandbox import Sandbox


# -- grading ------------------------------------------------------------------------------------------------------
@contextlib.contextmanager
def session(ex, **limits) -> Iterator[Session]:
    """A session without the large case; ``limits`` replace the exercise's (short ones, for a too-slow file)."""
    sandbox = Sandbox(dataclasses.replace(ex.limits, **limits)) if limits else None
    with Session(ex, full_scale=False, sandbox=sandbox) as s:
        yield s


@contextlib.contextmanager
def assignment_session(name: str = "fc-layers") -> Iterator[AssignmentSession]:
    """A session of the course file's assignment ``name`` (the fc-layers exercises), without the large cases."""
    with AssignmentSession(assignment_mod.load_assignment(assignment_mod.read_course()[name]), full_scale=False) as s:
        yield s


def clean_mark_faults(result, notes: Iterable[str] = ()) -> list:
    """What keeps ``result`` from a clean full mark: checks not passed and findings (its sections' too), a note
    that is none of ``notes``, one of ``notes`` missing, a status other than graded or a score short of the most."""
    notes = list(notes)
    faults = [(c.id, c.message) for c in result.checks if c.status != "passed"]
    faults += [(d.id, d.evidence) for d in result.diagnoses]
    for section in getattr(result, "sections", None) or []:
        faults += [(section.exercise, c.id, c.message) for c in section.checks if c.status != "passed"]
        faults += [(section.exercise, d.id, d.evidence) for d in section.diagnoses]
    faults += [("note", w) for w in result.warnings if not any(e in w for e in notes)]
    faults += [("missing note", e) for e in notes if not any(e in w for w in result.warnings)]
    if result.status != "graded" or result.score != result.max_score:
        faults.append((result.status, f"{result.score} / {result.max_score}"))
    return faults


def class_faults(results: dict, full: dict[str, list[str]], errors: dict[str, tuple[str, str]]) -> dict:
    """For a class graded in one batch, each student whose result is not the expected one: ``full`` gives those who
    keep full marks with no finding and exactly these warnings (a substring each, in order), ``errors`` those who
    get an error of this kind whose sentence holds this text. Empty when every result is as expected."""
    wrong = {}
    for name, needles in full.items():
        result = results[name]
        warnings = list(result.warnings)
        if result.status != "graded" or result.score != result.max_score or result.diagnoses or len(warnings) != len(
                needles) or not all(n in w for n, w in zip(needles, warnings)):
            wrong[name] = (result.score, failed_checks(result), warnings)
    for name, (kind, says) in errors.items():
        error = results[name].error
        if error is None or error.kind != kind or says not in error.message:
            wrong[name] = error
    return wrong


def failed_checks(result) -> list[tuple[str, str]]:
    """What to show when a result was expected to pass: each check that did not, with its message."""
    return [(c.id, c.message) for c in result.checks if c.status != "passed"]


def findings(result) -> list[tuple[str, str]]:
    """What to show when a diagnosis was not the expected one: each finding with its evidence."""
    return [(d.id, d.evidence) for d in result.diagnoses]


def assert_example_class_gets(session, folder: Path, expected: dict[str, set[str]]) -> None:
    """The example class in ``folder`` gets the findings ``expected`` names per student (full marks for none),
    as the exercise's README shows it."""
    files = sorted(p for p in folder.iterdir() if p.suffix in (".py", ".ipynb"))
    assert {p.stem for p in files} == set(expected)
    for path in files:
        result = grade_file(path, session, student=path.stem)
        assert {d.id for d in result.diagnoses} == expected[path.stem], (path.stem, findings(result))
        assert (result.score == result.max_score) == (not expected[path.stem])


def grader_check(exercise_id: str, path: Path, cwd: Path) -> subprocess.CompletedProcess:
    """``grader check`` on ``path`` in a fresh interpreter, which fails if the reference solution was imported
    (a student has none: the stored public outputs stand in)."""
    code = ("import sys; from grader import cli; code = cli.main(['check', sys.argv[1], '--exercise', sys.argv[2]]); "
            "assert not [m for m in sys.modules if m.startswith('_grader_solution')], 'the reference was imported'; "
            "sys.exit(code)")
    return subprocess.run([sys.executable, "-c", code, str(path), exercise_id], capture_output=True, text=True,
                          cwd=cwd, timeout=120)


# -- a student's function, called in-process ------------------------------------------------------------------------
def load_function(path: Path, name: str) -> Callable:
    """The function ``name`` a submission file defines (trusted test code, run in this process)."""
    namespace: dict = {"__name__": "student"}
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), namespace)
    return namespace[name]


def _returned(value) -> Returned:
    """One value as the grader rebuilds it: an array only when it is plain numbers (the wire refuses the rest)."""
    array = None if value is None or isinstance(value, dict) else np.asarray(value)
    if array is not None and array.dtype.kind not in "biufc":
        array = None
    return Returned(type_name=type(value).__name__, exact_ndarray=type(value) is np.ndarray, array=array,
                    shape=None if array is None else tuple(array.shape))


def call_outcome(case, fn: Callable, outputs: int = 1) -> CallOutcome:
    """What the harness reports for ``fn`` called on copies of ``case``'s arguments: what it raised, or what it
    returned; with several declared ``outputs``, one part per output (``execute``'s ``parts``)."""
    try:
        with np.errstate(all="ignore"):
            value = fn(*(a.copy() if isinstance(a, np.ndarray) else a for a in case.args))
    except Exception as exc:  # noqa: BLE001 - a student's error is data here
        return CallOutcome(case=case.name, status="raised", exception=CallError(type(exc).__name__, str(exc)))
    if outputs == 1:
        first = _returned(value)
        return CallOutcome(case=case.name, status="ok", type_name=first.type_name,
                           exact_ndarray=first.exact_ndarray, array=first.array, shape=first.shape)
    several = isinstance(value, (tuple, list))
    parts = [_returned(v) for v in (list(value[:outputs]) if several else [value])]
    parts += [Returned(type_name="nothing")] * (outputs - len(parts))
    first = parts[0]
    return CallOutcome(case=case.name, status="ok", type_name=first.type_name, exact_ndarray=first.exact_ndarray,
                       array=first.array, shape=first.shape, parts=tuple(parts),
                       count=len(value) if several else 1)


def case_runs(ex, fn: Callable, cases: Iterable, expected: Iterable | None = None) -> list[CaseRun]:
    """The runs the exercise's diagnosis reads, for ``fn`` on ``cases`` (``expected``: their outputs, if known)."""
    cases = list(cases)
    expected = [ex.expected(c) for c in cases] if expected is None else list(expected)
    outputs = max(1, len(ex.outputs))
    return [CaseRun(case=c, expected=e, outcome=call_outcome(c, fn, outputs)) for c, e in zip(cases, expected)]


# -- the notebook's self-check ----------------------------------------------------------------------------------------
def notebook_path(ex) -> Path:
    return ROOT / "notebooks" / f"{ex.id}.ipynb"


def selfcheck_cell(ex) -> str:
    """The self-check cell of the notebook the generator writes for ``ex``."""
    nb = nbformat.reads(notebook_mod.render(ex), as_version=4)
    return next(c for c in nb.cells if c.get("id") == "self-check").source


def run_selfcheck(code: str, source: str | None) -> str:
    """What a student sees when the self-check cell runs after ``source`` (None: a notebook with nothing defined)."""
    namespace: dict = {"__name__": "__main__"}
    if source is not None:
        exec(compile(source, "<student>", "exec"), namespace)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), np.errstate(all="ignore"):
        exec(code, namespace)  # must never raise, whatever the student's function does
    return out.getvalue()


# -- what every exercise must pass ------------------------------------------------------------------------------------
def assert_each_mistake_is_explained_and_has_a_buggy_file(ex) -> None:
    """Every catalog entry explains itself in a paragraph, supersedes only entries of the catalog and names its
    buggy submission, which exists; every buggy file's name starts with an entry's id (``id--variant.py``)."""
    buggy = ROOT / "tests" / "submissions" / ex.id / "buggy"
    for mistake in ex.catalog.values():
        assert len(mistake.explanation) > 80, mistake.id
        assert set(mistake.supersedes) <= set(ex.catalog), mistake.id
        assert mistake.example == f"tests/submissions/{ex.id}/buggy/{mistake.id}.py", mistake.id
        assert (ROOT / mistake.example).is_file(), f"no buggy submission for {mistake.id}"
    stems = {p.stem.split("--")[0] for p in buggy.glob("*.py")}
    assert stems <= set(ex.catalog), stems - set(ex.catalog)


def assert_notebook_and_public_outputs_are_up_to_date(ex) -> None:
    """The committed notebook is the generator's, its starter cell is ``starter.py``, and the stored public
    outputs are the reference's."""
    committed = notebook_path(ex).read_text(encoding="utf-8")
    assert committed == notebook_mod.render(ex), (
        f"notebooks/{ex.id}.ipynb is stale: run `grader notebook --exercise {ex.id} --out notebooks`")
    stored = (ex.folder / exercise_mod.PUBLIC_EXPECTED).read_text(encoding="utf-8")
    assert stored == notebook_mod.public_expected_text(ex), f"run `grader notebook --exercise {ex.id}`"
    nb = nbformat.reads(committed, as_version=4)
    assert nb.metadata.grader.exercise == ex.id
    starter = next(c for c in nb.cells if c.get("id") == "solution").source
    assert starter == (ex.folder / "starter.py").read_text(encoding="utf-8").strip()


def assert_stored_outputs_stand_in_for_the_reference(ex) -> None:
    """Loaded without the reference (as ``grader check`` is, on a student's machine), the exercise still knows
    the public cases' and probes' outputs, from ``public_expected.json``."""
    public = exercise_mod.load(ex.id, require_reference=False)
    assert public.reference is None
    for case in public.public_cases() + public.probe_cases():
        for stored, computed in zip(_outputs(public.expected(case)), _outputs(ex.expected(case))):
            np.testing.assert_allclose(stored, computed, rtol=1e-12, atol=1e-12)
    assert [p.name for p in public.probe_cases()] == [p.name for p in ex.probe_cases()]


def assert_statement_states_the_limits(ex, *, sentence: bool = False) -> None:
    """``statement.md`` states the call time and memory of ``exercise.toml`` (``sentence``: in the standard
    sentence, with the cell and submission times too)."""
    text = (ex.folder / "statement.md").read_text(encoding="utf-8")
    limits = ex.limits
    assert f"{limits.call_seconds:g} seconds" in text and limits.describe_memory() in text
    if sentence:
        assert (f"Each call must finish within {limits.call_seconds:g} seconds, each code cell within "
                f"{limits.cell_seconds:g} seconds and the whole submission within {limits.submission_seconds:g} "
                f"seconds, using at most {limits.describe_memory()} of memory") in text


def assert_selfcheck_builds_exactly_the_public_cases(ex, code: str, monkeypatch) -> None:
    """The self-check cell, run standalone, rebuilds each public case argument for argument (arrays equal, other
    arguments of the same type and value) and holds the reference's output for it."""
    monkeypatch.setenv("GRADER_PARENT", "1")
    namespace: dict = {}
    exec(code, namespace)
    mine, theirs = namespace["public_cases"](), ex.public_cases()
    assert [name for name, _ in mine] == [c.name for c in theirs]
    for (name, args), case in zip(mine, theirs):
        assert len(args) == len(case.args), name
        for a, b in zip(args, case.args):
            if isinstance(b, np.ndarray):
                assert np.array_equal(a, b), name
            else:
                assert type(a) is type(b) and a == b, (name, a, b)
        for stored, computed in zip(_outputs(namespace["EXPECTED"][name], len(ex.outputs)),
                                    _outputs(ex.expected(case))):
            np.testing.assert_allclose(np.array(stored), computed, rtol=1e-11, atol=0)


def assert_selfcheck_holds_no_solution(code: str, forbidden: Iterable[str]) -> None:
    """The self-check ships to students: no piece of the computation, and nothing but os and numpy imported."""
    for piece in forbidden:
        assert piece not in code, piece
    imports = {line.split()[1] for line in code.splitlines() if line.startswith(("import ", "from "))}
    assert imports <= {"os", "numpy"}


def assert_selfcheck_says(output: str, needles: Iterable[str]) -> None:
    """Each needle is in the self-check's output, which holds no traceback and congratulates only when it should
    (a needle says so)."""
    needles = list(needles)
    for needle in needles:
        assert needle in output, f"{needle!r} not in:\n{output}"
    assert "Traceback" not in output
    if "All public checks passed" not in needles:
        assert "All public checks passed" not in output


def assert_selfcheck_passes_every_correct_style_and_greets_the_starter(ex, code: str) -> None:
    for path in sorted((ROOT / "tests" / "submissions" / ex.id / "correct").glob("*.py")):
        output = run_selfcheck(code, path.read_text(encoding="utf-8"))
        assert "All public checks passed" in output and "Traceback" not in output, (path.name, output)
    output = run_selfcheck(code, (ex.folder / "starter.py").read_text(encoding="utf-8"))
    assert "Not implemented yet" in output and "All public checks passed" not in output, output


def assert_cases_are_drawn_per_student_and_reproducible(ex, drawn: str = "drawn") -> None:
    """Two students get the same case names with other values; one student gets the same cases every time. Only
    the case named ``drawn`` may change its shapes between students."""
    a, b, again = ex.hidden_cases(1), ex.hidden_cases(2), ex.hidden_cases(1)
    assert [c.name for c in a] == [c.name for c in b] == [c.name for c in again]
    for x, y, z in zip(a, b, again):
        assert not np.array_equal(x.args[0], y.args[0]), x.name
        assert x.args[0].shape == y.args[0].shape or x.name == drawn
        assert x.description == z.description
        assert all(np.array_equal(p, q) if isinstance(p, np.ndarray) else p == q for p, q in zip(x.args, z.args))


def assert_case_names_are_unique(ex) -> None:
    """The harness matches results to cases by name: a probe named like a hidden case would take its place."""
    names = [c.name for c in ex.hidden_cases(0) + ex.public_cases() + ex.probe_cases()]
    assert len(names) == len(set(names))


def assert_named_alone_whatever_the_student_s_cases(ex, path: Path, diagnose: Callable, seeds: int = 12) -> None:
    """In-process, over many students' hidden cases (their drawn shapes differ): the mistake the file's name
    starts with is the one finding."""
    fn = load_function(path, ex.function)
    for seed in range(seeds):
        found = {f.id for f in diagnose(ex, fn, ex.hidden_cases(seed) + ex.probe_cases())}
        assert found == {path.stem.split("--")[0]}, (seed, found)


def assert_evidence_quotes_no_hidden_value(found, cases) -> None:
    """No number in a finding's evidence is a value of a hidden case (probes are public, and may be quoted)."""
    for finding in found:
        for number in re.findall(r"-?\d+\.\d+", finding.evidence):
            assert not any(np.isclose(float(number), np.asarray(a, dtype=float)).any()
                           for c in cases if c.group != "probe" for a in c.args if isinstance(a, np.ndarray)
                           ), (number, finding.evidence)


def assert_every_departure_is_seen_by_the_public_cases_and_probes(ex) -> None:
    """``grader check`` runs only these: each departure of the diagnosis's model (``OPTIONS``, ``Spec``,
    ``_differs``) must change at least one of their results."""
    model = ex.diagnosis_module
    cases = ex.public_cases() + ex.probe_cases()
    for flag, options in model.OPTIONS.items():
        for option in options[1:]:
            spec = model.Spec(**{flag: option})
            assert any(model._differs(c.args, spec, model.REFERENCE) for c in cases), (flag, option)


def _outputs(value, count: int = 0) -> list:
    """One entry per output: a function with several declared outputs gives a tuple, any other one value."""
    return list(value) if count > 1 or isinstance(value, tuple) else [value]


def diagnose_vgg(fn, seed: int = 7):
    """The VGG diagnosis of ``fn`` run in this process on the hidden cases (``seed``) and the probes."""
    ex = exercise_mod.load("vgg_classifier")
    cases = ex.hidden_cases(seed) + ex.diagnosis_module.probe_cases()
    return ex.diagnosis_module.diagnose(case_runs(ex, fn, cases, [ex.expected(c) for c in cases]), ex)


def vgg_findings(fn, seed: int = 7, declared=None):
    """Both halves of the VGG diagnosis of ``fn`` (the harness's generic one and the exercise's), after superseding,
    as a report lists them: run in this process on the hidden cases of one student (``seed``) and the probes, which
    is what grading does minus the sandbox. ``declared``: the signature the child would have read, when a test
    needs what it says (that the body calls print). Every finding is checked to quote no hidden value."""
    from grader import diagnose as grader_diagnose  # here: only the tests of the diagnosis need it
    from grader.outcomes import Execution
    ex = exercise_mod.load("vgg_classifier")
    cases = ex.hidden_cases(seed) + ex.diagnosis_module.probe_cases()
    runs = case_runs(ex, fn, cases)
    execution = Execution(function_found=True, function_callable=True, declared=declared,
                          calls=tuple(r.outcome for r in runs))
    diagnoses, _ = grader_diagnose.diagnose(runs, execution, ex)
    assert_evidence_quotes_no_hidden_value(diagnoses, cases)
    return diagnoses


def vgg_loses_points(fn, seed: int = 7) -> bool:
    """Whether ``fn`` departs from the reference on some hidden case of the VGG head."""
    ex = exercise_mod.load("vgg_classifier")
    return any(not np.allclose(fn(*c.args), ex.expected(c), rtol=1e-9, atol=1e-12) for c in ex.hidden_cases(seed))


# -- the same code, many students -------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class SeedGrade:
    """What one student (one seed) gets for a submission, in-process: the values checks it fails, their points,
    and the mistakes the diagnosis names."""
    seed: int
    failed: tuple[str, ...]
    points: float
    named: tuple[str, ...]


def student_seeds(exercise_id: str, count: int, start: int = 0) -> list[int]:
    """The seeds ``grader grade`` gives students ``student-<start>`` ... under the default secret."""
    from grader.session import DEFAULT_SECRET, student_seed

    return [student_seed(DEFAULT_SECRET, exercise_id, f"student-{i}") for i in range(start, start + count)]


def submission_source(path: Path) -> str:
    """The code of a .py submission, or of a notebook's code cells (magics and shell lines left out)."""
    if path.suffix != ".ipynb":
        return path.read_text(encoding="utf-8")
    nb = nbformat.reads(path.read_text(encoding="utf-8"), as_version=4)
    return "\n".join("\n".join(line for line in c.source.splitlines() if not line.lstrip().startswith(("%", "!")))
                     for c in nb.cells if c.cell_type == "code")


def load_submission(path: Path, name: str) -> Callable | None:
    """``name`` as a fresh run of the submission defines it (None: it defines none, or cannot run in-process)."""
    namespace: dict = {"__name__": "student"}
    try:
        with contextlib.redirect_stdout(io.StringIO()), np.errstate(all="ignore"):
            exec(compile(submission_source(path), str(path), "exec"), namespace)
    except BaseException:  # noqa: BLE001 - a submission that cannot run here is left out, not a test error
        return None
    fn = namespace.get(name)
    return fn if callable(fn) else None


def grade_seed(ex, fn: Callable, seed: int, probes: tuple[list, list] | None = None,
               named: bool = True, hidden: tuple[list, list] | None = None) -> SeedGrade:
    """``fn`` judged on the hidden cases of ``seed`` (and the probes: cases, expected) by the grader's own checks
    (``checks.run_checks``) and diagnosis (``diagnose.diagnose``), as one sandboxed run would have it; only the
    values checks are kept (no second call is made here, so determinism is not assessed). ``named``: run the
    diagnosis too (it costs most of the time; without it, no mistake is named). ``hidden``: the seed's cases and
    their expected outputs, when already built."""
    from grader import checks, diagnose, facts
    from grader.outcomes import Execution

    cases, expected = hidden if hidden is not None else (ex.hidden_cases(seed), None)
    expected = [ex.expected(c) for c in cases] if expected is None else expected
    probe_cases, probe_expected = probes if probes is not None else (ex.probe_cases(), None)
    if probe_expected is None:
        probe_expected = [ex.expected(c) for c in probe_cases]
    runs = case_runs(ex, fn, cases + list(probe_cases), expected + list(probe_expected))
    execution = Execution(function_found=True, function_callable=True, calls=tuple(r.outcome for r in runs))
    established = facts.establish(runs, execution, ex)
    values = {s.id for s in ex.checks if s.kind == "values"}
    results = [r for r in checks.run_checks(ex, runs, execution, established) if r.id in values]
    found = diagnose.diagnose(runs, execution, ex, established)[0] if named else []
    return SeedGrade(seed, tuple(r.id for r in results if r.status != "passed"),
                     round(sum(r.points for r in results), 6), tuple(sorted(d.id for d in found)))


def grades_over_seeds(ex, paths: Iterable[Path], seeds: Iterable[int], named: bool = True
                      ) -> dict[Path, list[SeedGrade]]:
    """Each submission graded in-process for every seed, loaded afresh per seed (as each student's run starts
    afresh: a cache kept from another student's cases would be a difference the grader never sees)."""
    probes = ex.probe_cases()
    probe_expected = [ex.expected(c) for c in probes]
    paths = list(paths)
    grades: dict[Path, list[SeedGrade]] = {p: [] for p in paths}
    for seed in seeds:
        cases = ex.hidden_cases(seed)
        hidden = (cases, [ex.expected(c) for c in cases])
        for path in paths:
            fn = load_submission(path, ex.function)
            if fn is not None:
                grades[path].append(grade_seed(ex, fn, seed, (probes, probe_expected), named, hidden))
    return grades


def differing(grades: list[SeedGrade]) -> dict[tuple, list[int]]:
    """The distinct (failed values checks, points, named mistakes) among ``grades``, with the seeds of each:
    one key when every student got the same."""
    seen: dict[tuple, list[int]] = {}
    for g in grades:
        seen.setdefault((g.failed, g.points, g.named), []).append(g.seed)
    return seen


def assert_buggy_file_named_alone_over_seeds(exercise_id: str, stem: str, seeds: Iterable[int] = (1, 2, 3)) -> None:
    """The catalog's buggy file ``stem`` loses value points and is named alone (by the part of its name before
    ``--``) on the hidden cases and probes of every student seed, in process."""
    ex = exercise_mod.load(exercise_id)
    path = SUBMISSIONS / exercise_id / "buggy" / f"{stem}.py"
    full = sum(s.points for s in ex.checks if s.kind == "values")
    seeds = tuple(seeds)
    grades = grades_over_seeds(ex, [path], seeds)[path]
    assert len(grades) == len(seeds)
    for grade in grades:
        assert grade.points < full, grade
        assert grade.named == (stem.split("--")[0],), grade


def exercise_findings(exercise_id: str, fn: Callable, seed: int = 7) -> list:
    """What the exercise's diagnosis finds for ``fn`` on one student's hidden cases and the probes."""
    ex = exercise_mod.load(exercise_id)
    return ex.diagnosis_module.diagnose(case_runs(ex, fn, ex.hidden_cases(seed) + ex.probe_cases()), ex)


def buggy_evidence(exercise_id: str, stem: str) -> str:
    """The evidence of the one finding the catalog's buggy file ``stem`` gets."""
    ex = exercise_mod.load(exercise_id)
    found = exercise_findings(exercise_id, load_function(SUBMISSIONS / exercise_id / "buggy" / f"{stem}.py",
                                                         ex.function))
    assert len(found) == 1, [(f.id, f.evidence) for f in found]
    return found[0].evidence


def assert_reports_name(results: dict, expected: dict[str, set[str]], words: dict[str, tuple[str, str]]) -> None:
    """Each graded result (by student) names exactly the mistakes ``expected`` gives it and loses points, and the
    evidence of each finding ``words`` lists (student: (finding, words)) holds those words."""
    wrong = {name: sorted(d.id for d in r.diagnoses) for name, r in results.items()
             if {d.id for d in r.diagnoses} != expected[name]}
    assert not wrong, wrong
    for name, result in results.items():
        assert result.status == "graded" and result.score < result.max_score, (name, result.score)
    for name, (finding, needle) in words.items():
        evidence = next(d.evidence for d in results[name].diagnoses if d.id == finding)
        assert needle in evidence, (name, evidence)


def assert_round(folder: Path, session, sources: dict[str, str], right: dict[str, str],
                 expected: dict[str, set[str]], words: dict[str, tuple[str, str]]) -> None:
    """A round of wrong heads (``sources``) and right ones (``right``), written to ``folder`` and graded in one batch:
    every right head keeps a clean full mark, and every wrong one's report is what ``assert_reports_name`` asks."""
    assert set(sources) == set(expected)
    for name, source in {**sources, **right}.items():
        (folder / f"{name}.py").write_text(source)
    results = grade_students(folder, session, [*sources, *right])
    faults = {name: clean_mark_faults(results.pop(name)) for name in right}
    assert not any(faults.values()), faults
    assert_reports_name(results, expected, words)


VGG_PRE = "import numpy as np\n\n"
VGG_SIG = "def vgg_classifier(features, W1, b1, W2, b2, W3, b3):\n"


def vgg_head(x="x = features.reshape(features.shape[0], -1)", z1="x @ W1 + b1", a1="np.maximum(z1, 0)",
             z2="h1 @ W2 + b2", a2="np.maximum(z2, 0)", z3="h2 @ W3 + b3", out="return z3", pre="", mod="") -> str:
    """A VGG head written step by step, with any step replaced (``pre``: lines first; ``mod``: module-level lines):
    the rounds of wrong heads (``tests/test_mistakes_round14.py`` on) each change a step or two."""
    lines = [pre, x, f"z1 = {z1}", f"h1 = {a1}", f"z2 = {z2}", f"h2 = {a2}", f"z3 = {z3}", out]
    return VGG_PRE + mod + VGG_SIG + "".join(f"    {line}\n"
                                             for line in "\n".join(s for s in lines if s).splitlines())


def vgg_raw(text: str) -> str:
    """A VGG head whose body is ``text``."""
    return VGG_PRE + VGG_SIG + "".join(f"    {line}\n" for line in text.splitlines())
