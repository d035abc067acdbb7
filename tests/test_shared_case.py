"""The large case: shared by every student but personal in a small part, sealed, and checked after every run.

* Two students share the weight files (one build, the same paths) but get their own b3 and expected output, so a
  copied output fails ``values-full-scale``.
* The stamps catch any change made to the files or their folder, from outside (rename, truncation, rewrite...)
  or by a child: the case is then rebuilt, and the run that did it is named.
* ``tamper-shared.py`` attacks the files in every sandbox mode: where it lands (rlimits, a child with the grader's
  uid) the grader repairs it, and a later correct submission still gets full marks.
"""
from __future__ import annotations

import dataclasses
import os
import shutil
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from conftest import check
from grader import grade, largecase, sandbox, session as session_mod
from grader.exercise import Case

HERE = Path(__file__).resolve().parent
CORRECT = HERE / "submissions" / "correct" / "matmul.py"
TAMPER = HERE / "submissions" / "hostile" / "tamper-shared.py"
MODES = ("fork", "bwrap", "landlock", "rlimits")
#: Modes whose child can change the shared files (it has the grader's uid and no Landlock): there the attack
#: lands and the grader must repair it. Everywhere else every attempt must fail.
TAMPER_LANDS = {"rlimits"}


# -- a small stand-in for the VGG-scale case, same hooks, built in milliseconds ----------------------------------
@pytest.fixture(scope="module")
def small_exercise():
    from grader import exercise as exercise_mod

    vgg = exercise_mod.load("vgg_classifier")
    cases = vgg.cases_module
    module = SimpleNamespace(
        hidden_cases=cases.hidden_cases, trace=cases.trace,
        full_scale_case=lambda rng, alloc: cases._make(rng, "mini", "full-scale", 2, 3, 2, 5, 12, 9, 7,
                                                       shared=True, alloc=alloc),
        personalise_full_scale=cases.personalise_full_scale,
        full_scale_cache=cases.full_scale_cache, full_scale_expected=cases.full_scale_expected,
    )
    return dataclasses.replace(vgg, cases_module=module)


@pytest.fixture
def small_session(small_exercise):
    with grade.Session(small_exercise, full_scale=True, sandbox=sandbox.Sandbox(small_exercise.limits)) as s:
        s.full_scale_case()
        yield s


def _without(exercise, *hooks):
    module = SimpleNamespace(**{k: v for k, v in vars(exercise.cases_module).items() if k not in hooks})
    return dataclasses.replace(exercise, cases_module=module)


def test_without_a_shortcut_the_reference_gives_each_students_expected_output(small_exercise, monkeypatch):
    exercise = _without(small_exercise, "full_scale_cache", "full_scale_expected")
    calls = []
    monkeypatch.setattr(type(exercise), "expected", lambda self, case: calls.append(case) or
                        np.asarray(self.reference(*case.args)))
    with grade.Session(exercise, full_scale=True, sandbox=sandbox.Sandbox(exercise.limits)) as session:
        session.full_scale_case()
        built = len(calls)
        ada = session.full_scale_for("ada")
        assert len(calls) == built + 1 and calls[-1] is ada.case  # the reference ran on ada's own case
        assert np.array_equal(ada.expected, exercise.reference(*ada.case.args))
        session.verify_shared(ada)


def test_without_personal_arguments_every_student_gets_the_shared_case(small_exercise):
    exercise = _without(small_exercise, "personalise_full_scale")
    with grade.Session(exercise, full_scale=True, sandbox=sandbox.Sandbox(exercise.limits)) as session:
        ada, bob = session.full_scale_for("ada"), session.full_scale_for("bob")
        assert ada.case.personal == () and len(ada.shared.paths) == len(ada.case.args) == 7
        assert ada.expected is bob.expected and ada.case.args[6] is bob.case.args[6]
        session.verify_shared(ada), session.verify_shared(bob)


def _our_folders() -> list[Path]:
    parent = Path(session_mod._shared_memory_dir() or "/tmp")
    return sorted(parent.glob(f"{session_mod.SHARED_PREFIX}{os.getpid()}-*"))


# -- per student ------------------------------------------------------------------------------------------------
def test_students_share_the_weight_files_but_get_their_own_b3(exercise, monkeypatch):
    builds = []
    original = exercise.cases_module.full_scale_case
    monkeypatch.setattr(exercise.cases_module, "full_scale_case",
                        lambda rng, alloc: builds.append(1) or original(rng, alloc))
    with grade.Session(exercise, full_scale=True) as session:
        ada, bob = session.full_scale_for("ada"), session.full_scale_for("bob")
        again = session.full_scale_for("ada")
        assert len(builds) == 1
        assert ada.shared is bob.shared and ada.shared.paths == bob.shared.paths
        assert ada.case.personal == bob.case.personal == (6,)
        assert ("vgg16", 6) not in ada.shared.paths  # b3 goes inline, per student
        assert {i for _, i in ada.shared.paths} == {0, 1, 2, 3, 4, 5}
        assert sorted(os.listdir(ada.shared.folder)) == sorted(p.name for p in ada.shared.paths.values())
        for i in range(6):
            assert ada.case.args[i] is bob.case.args[i]  # the very same mapped arrays
        assert not np.array_equal(ada.case.args[6], bob.case.args[6])
        assert np.array_equal(ada.case.args[6], again.case.args[6])  # a regrade gives the same case
        assert np.mean(np.abs(ada.expected - bob.expected) > 1e-6) > 0.99  # (nearly) every logit differs
        np.testing.assert_allclose(ada.expected - bob.expected,
                                   np.broadcast_to(ada.case.args[6] - bob.case.args[6], ada.expected.shape),
                                   atol=1e-12)
        for run in (ada, bob):  # the cached shortcut is what the reference says
            reference = exercise.expected(run.case)
            assert np.abs(reference - run.expected).max() <= 1e-12 * np.abs(reference).max()
        for run in (ada, bob, again):
            assert session.verify_shared(run) == ""


def test_expected_output_per_student_never_runs_the_reference(exercise, monkeypatch):
    """A student's expected output comes from the cached intermediate (microseconds), not from a pass over W1."""
    with grade.Session(exercise, full_scale=True) as session:
        session.full_scale_case()
        calls = []
        reference = exercise.reference
        monkeypatch.setattr(type(exercise), "expected", lambda self, case: calls.append(case) or reference(*case.args))
        for n in range(20):
            session.verify_shared(session.full_scale_for(f"student-{n}"))
    assert calls == [], f"the reference ran {len(calls)} times for 20 students"


def _copying(expected: np.ndarray) -> str:
    """A correct solution, except that at VGG16 scale it returns ``expected``, copied from a classmate."""
    rows = repr(expected.tolist())
    return ("import numpy as np\n\n"
            f"COPIED = np.array({rows})\n\n"
            "def vgg_classifier(features, W1, b1, W2, b2, W3, b3):\n"
            "    if features.shape[1:] == (7, 7, 512):\n"
            "        return COPIED.copy()\n"
            "    x = features.reshape(features.shape[0], -1)\n"
            "    h = np.maximum(0.0, x @ W1 + b1)\n"
            "    h = np.maximum(0.0, h @ W2 + b2)\n"
            "    return h @ W3 + b3\n")


def test_an_output_copied_from_a_classmate_fails_the_full_scale_check(exercise, tmp_path):
    with grade.Session(exercise, full_scale=True) as session:
        run = session.full_scale_for("ada")
        session.verify_shared(run)
        path = tmp_path / "copy.py"
        path.write_text(_copying(run.expected))
        as_bob = grade.grade_file(path, session, student="bob")
        as_ada = grade.grade_file(path, session, student="ada")  # the control: ada's own output passes
    assert check(as_ada, "values-full-scale").status == "passed", as_ada.to_json()[:800]
    assert check(as_bob, "values-full-scale").status == "failed"
    assert "values are wrong" in check(as_bob, "values-full-scale").message
    assert all(c.status == "passed" for c in as_bob.checks if c.id != "values-full-scale"), as_bob.to_json()[:800]


# -- stamps: any change from outside is seen ----------------------------------------------------------------------
def _swap(first: Path, second: Path) -> None:
    os.rename(first, first.with_suffix(".tmp"))
    os.rename(second, first)
    os.rename(first.with_suffix(".tmp"), second)


def _rewrite(path: Path, data: bytes | None = None) -> None:
    """Overwrite the last bytes in place (the same bytes again if ``data`` is None) and put the mtime back."""
    info = os.stat(path)
    with open(path, "r+b") as handle:
        handle.seek(-8, os.SEEK_END)
        old = handle.read(8)
        handle.seek(-8, os.SEEK_END)
        handle.write(old if data is None else data)
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))


def _replace_with_copy(path: Path) -> None:
    copy = path.with_suffix(".copy")
    shutil.copyfile(path, copy)
    os.rename(copy, path)


def _chmod_and_back(path: Path) -> None:
    mode = os.stat(path).st_mode
    os.chmod(path, 0o644)
    os.chmod(path, mode)


def _link_and_unlink(path: Path) -> None:
    os.link(path, path.with_suffix(".link"))
    os.unlink(path.with_suffix(".link"))


def _rename_and_back(path: Path) -> None:
    os.rename(path, path.with_suffix(".moved"))
    os.rename(path.with_suffix(".moved"), path)


# (change, whether the bytes at the paths end up different)
CHANGES = {
    "rename-and-back": (lambda a, b: _rename_and_back(a), False),
    "truncate": (lambda a, b: os.truncate(a, os.path.getsize(a) - 8), True),
    "rewrite-mtime-restored": (lambda a, b: _rewrite(a, b"\x01" * 8), True),
    "rewrite-same-bytes": (lambda a, b: _rewrite(a), False),
    "swap-two-files": (lambda a, b: _swap(a, b), True),
    "replace-with-identical-copy": (lambda a, b: _replace_with_copy(a), False),
    "hard-link-and-unlink": (lambda a, b: _link_and_unlink(a), False),
    "chmod-and-back": (lambda a, b: _chmod_and_back(a), False),
    "new-file-in-folder": (lambda a, b: (a.parent / "extra.npy").write_bytes(b""), False),
}


@pytest.fixture
def sealed(tmp_path):
    rng = np.random.default_rng(0)
    case = Case("mini", "full-scale", (rng.random((3, 4)), rng.random(5), rng.random(5)), shared=True, personal=(2,))
    folder = tmp_path / "shared"
    folder.mkdir()
    shared = largecase.SharedArrays.write([case], folder)
    yield shared
    largecase.remove_folder(folder)


def test_sealed_files_are_read_only_and_not_the_childs(sealed):
    assert set(sealed.paths) == {("mini", 0), ("mini", 1)}  # the personal argument is not written
    for path in [sealed.folder, *sealed.paths.values()]:
        info = os.stat(path)
        assert info.st_mode & 0o222 == 0, oct(info.st_mode)
        if os.geteuid() == 0:  # a root child without capabilities is then not their owner
            assert info.st_uid == largecase.OWNER_UID
    assert sealed.changes() == [] and sealed.altered_contents() == []


@pytest.mark.parametrize("name", CHANGES)
def test_any_change_from_outside_moves_a_stamp(sealed, name):
    change, bytes_differ = CHANGES[name]
    first, second = sealed.paths[("mini", 0)], sealed.paths[("mini", 1)]
    assert sealed.changes() == []
    time.sleep(0.02)  # children run long after the build; keep the change off the seal's clock tick here too
    change(first, second)
    assert sealed.changes(), f"{name} was not seen"
    assert bool(sealed.altered_contents()) == bytes_differ


def test_the_full_digest_sees_one_changed_byte(tmp_path):
    path = tmp_path / "big.npy"
    np.save(path, np.zeros(32 << 20 >> 3))  # 32 MiB
    before = largecase.digest_files([path])[path]
    with open(path, "r+b") as handle:
        handle.seek(20 << 20)
        handle.write(b"\1")
    assert len(before) == 64 and largecase.digest_files([path])[path] != before


def test_pages_faulted_in_ahead_never_change_what_the_generator_wrote(tmp_path):
    """The allocator's prefault thread works on the arrays while the generator writes them: it must leave every
    byte as the generator wrote it, whichever of the two reaches a page first."""
    allocate = largecase.FileAllocator(tmp_path)
    assert allocate._prefault is not None or not largecase.Prefault.supported()
    made = [allocate((3 << 20,)), allocate((1 << 10,)), allocate((5 << 20,))]  # 24 MiB, 8 KiB, 40 MiB
    expected = []
    for seed, array in enumerate(made):  # the way the exercises fill them: in place, front to back
        np.random.default_rng(seed).random(out=array)
        array -= 0.5
        expected.append(np.array(array))
    paths = [allocate.path_of(array) for array in made]
    allocate.discard(keep=set(paths))
    for path, wanted in zip(paths, expected):
        assert np.array_equal(np.load(path), wanted)


# -- the session repairs a change and names who made it -------------------------------------------------------
def test_a_swap_found_after_a_run_rebuilds_the_case_and_names_the_run(small_session):
    session = small_session
    before = session._full
    ada = session.full_scale_for("ada")
    time.sleep(0.02)
    _swap(before.shared.paths[("mini", 2)], before.shared.paths[("mini", 4)])
    warning = session.verify_shared(ada)
    assert "This submission changed the shared input files of the 'mini' case" in warning
    assert "b1 and b2" in warning and "no longer match their digest" in warning
    after = session._full
    assert after.generation == before.generation + 1
    assert after.shared.folder != before.shared.folder and not before.shared.folder.exists()
    assert before.shared.same_bytes(after.shared)  # the rebuild has the original bytes
    assert _our_folders() == [after.shared.folder]
    bob = session.full_scale_for("bob")
    assert "rebuilt before this submission ran" in bob.note
    assert np.array_equal(bob.expected, session.exercise.expected(bob.case))
    assert session.verify_shared(bob) == bob.note
    assert session.verify_shared() == ""


def test_a_replaced_folder_is_found_and_both_copies_removed(small_session):
    session = small_session
    before = session._full
    folder = before.shared.folder
    ada = session.full_scale_for("ada")
    moved = folder.with_name(folder.name + "-moved")
    os.rename(folder, moved)
    folder.mkdir()
    for path in before.shared.paths.values():
        os.symlink(moved / path.name, path)
    warning = session.verify_shared(ada)
    assert "their folder was moved, replaced" in warning
    assert not moved.exists() and session._full.shared.folder != folder
    assert not folder.exists() or folder == session._full.shared.folder


def test_runs_that_overlapped_a_change_are_graded_again(small_session):
    session = small_session
    ada, bob = session.full_scale_for("ada"), session.full_scale_for("bob")
    time.sleep(0.02)
    _chmod_and_back(session._full.shared.paths[("mini", 1)])
    for run in (bob, ada):  # the later run first: runs are told apart by identity, never by their arrays
        warning = session.verify_shared(run)
        assert "by it or by a submission graded at the same time" in warning
        assert run.compromised
    carol = session.full_scale_for("carol")
    assert not carol.compromised and session.verify_shared(carol).startswith("The shared input files")


def test_a_change_between_runs_is_repaired_before_the_next_one(small_session):
    session = small_session
    session.verify_shared(session.full_scale_for("ada"))
    time.sleep(0.02)
    _rewrite(session._full.shared.paths[("mini", 3)], b"\x02" * 8)  # a process left behind, say
    bob = session.full_scale_for("bob")
    assert "between two runs" in bob.note and "W2" in bob.note
    assert session._full.shared.changes() == [] and session._full.shared.altered_contents() == []
    session.verify_shared(bob)


# -- a hostile child in every mode ------------------------------------------------------------------------------
def _unavailable(mode: str) -> str:
    try:
        sandbox.Sandbox(sandbox.Limits(), mode=mode)
    except sandbox.SandboxUnavailable as exc:
        return str(exc)
    return ""


@pytest.mark.parametrize("mode", MODES)
def test_a_child_that_tampers_with_the_shared_files_does_not_hurt_later_students(exercise, mode):
    why = _unavailable(mode)
    if why:
        pytest.skip(why)
    with grade.Session(exercise, full_scale=True, sandbox=sandbox.Sandbox(exercise.limits, mode=mode)) as session:
        first = session.full_scale_case()[2]
        bad = grade.grade_file(TAMPER, session, student="mallory")
        good = grade.grade_file(CORRECT, session, student="ada")
        final = session.verify_shared()
        rebuilt = session._full.shared.folder != first.folder
    assert not _our_folders(), "a large-case folder was left behind"
    assert not list(Path("/dev/shm").glob("*-moved")) and not Path("/dev/shm/grader-hostile-link.npy").exists()
    said = check(bad, "values-full-scale").message
    assert good.status == "graded" and good.score == good.max_score, good.to_json()[:1500]
    assert final == ""
    if mode in TAMPER_LANDS:
        assert "tampered" in said and "folder-replaced" in said, said
        assert any("This submission changed the shared input files" in w for w in bad.warnings), bad.warnings
        assert any("rebuilt before this submission ran" in w for w in good.warnings), good.warnings
        assert rebuilt
    else:
        assert "contained: every attempt failed" in said, said
        assert not any("shared input files" in w for w in bad.warnings + good.warnings)
        assert not rebuilt


def test_without_the_check_the_tampering_would_fail_the_next_student(exercise, monkeypatch):
    """The control: the attack is real. With the stamps ignored, the swapped b1 and b2 cost a correct student."""
    if _unavailable("rlimits"):
        pytest.skip("rlimits mode unavailable")
    monkeypatch.setattr(grade.Session, "_check", lambda self: "")
    with grade.Session(exercise, full_scale=True, sandbox=sandbox.Sandbox(exercise.limits, mode="rlimits")) as s:
        folder = s.full_scale_case()[2].folder
        try:
            grade.grade_file(TAMPER, s, student="mallory")
            good = grade.grade_file(CORRECT, s, student="ada")
        finally:  # nothing checked the files, so nothing removed what the attack left
            for leftover in folder.parent.glob(folder.name + "?*"):
                largecase.remove_folder(leftover)
    assert check(good, "values-full-scale").status == "failed", good.to_json()[:800]


def test_a_regrade_has_the_files_to_itself(small_session):
    """A regrade waits for the runs in progress and keeps new ones waiting, so what it sees is its own doing."""
    import threading

    session = small_session
    ada = session.full_scale_for("ada")
    got: dict[str, grade.FullScaleRun] = {}
    regrade = threading.Thread(target=lambda: got.update(again=session.full_scale_for("bob", exclusive=True)))
    regrade.start()
    time.sleep(0.2)
    assert "again" not in got  # waits for ada's run
    later = threading.Thread(target=lambda: got.update(carol=session.full_scale_for("carol")))
    later.start()
    session.verify_shared(ada)
    regrade.join(5)
    time.sleep(0.2)
    assert "again" in got and "carol" not in got  # carol waits for the regrade
    session.verify_shared(got["again"])
    later.join(5)
    assert "carol" in got
    session.verify_shared(got["carol"])


def test_in_a_batch_a_run_that_overlapped_the_tampering_is_graded_again(exercise, tmp_path):
    """mallory tampers while ada's slow call is in progress: ada is graded again, alone, and keeps full marks."""
    from concurrent.futures import ThreadPoolExecutor

    if _unavailable("rlimits"):
        pytest.skip("rlimits mode unavailable")
    slow = tmp_path / "ada.py"
    slow.write_text("import time\n\nimport numpy as np\n\n\n"
                    "def vgg_classifier(features, W1, b1, W2, b2, W3, b3):\n"
                    "    if features.shape[1:] == (7, 7, 512):\n"
                    "        time.sleep(3)\n"
                    "    h = np.maximum(0.0, features.reshape(features.shape[0], -1) @ W1 + b1)\n"
                    "    return np.maximum(0.0, h @ W2 + b2) @ W3 + b3\n")
    with grade.Session(exercise, full_scale=True, sandbox=sandbox.Sandbox(exercise.limits, mode="rlimits")) as s:
        s.full_scale_case()
        with ThreadPoolExecutor(2) as pool:
            ada = pool.submit(grade.grade_file, slow, s, "ada")
            time.sleep(1.0)  # ada's VGG-scale call is under way when mallory starts
            mallory = pool.submit(grade.grade_file, TAMPER, s, "mallory")
            good, bad = ada.result(), mallory.result()
    assert good.score == good.max_score, good.to_json()[:1500]
    assert "graded again" in good.warnings[0], good.warnings
    assert any("This submission changed the shared input files" in w for w in bad.warnings), bad.warnings
    assert not _our_folders()


# -- rows that repeat: a large matrix stored as one period of its rows ------------------------------------------------
def test_repeated_rows_are_an_ordinary_array_of_the_tiles_values_stored_once(tmp_path):
    from grader.authoring import repeat_rows

    alloc = largecase.FileAllocator(tmp_path, prefault=False)
    tile = alloc((256, 1024))
    tile[...] = np.random.default_rng(3).random(tile.shape)
    full = repeat_rows(alloc, tile, 1000)
    assert full.shape == (1000, 1024) and full.dtype == np.float64 and full.flags.c_contiguous
    assert not full.flags.writeable
    assert np.array_equal(full, np.resize(np.array(tile), (1000, 1024)))  # what any other allocator gives
    assert np.array_equal(repeat_rows(np.empty, np.array(tile), 1000), full)
    x = np.random.default_rng(4).random((2, 1000))
    assert np.allclose(x @ full, x @ np.resize(np.array(tile), (1000, 1024)))
    path = alloc.path_of(full)
    assert path is not None and path.stat().st_size == tile.nbytes  # one period on disk, not 1000 rows


def test_a_private_write_into_repeated_rows_changes_only_that_page_of_that_repetition(tmp_path):
    from grader.runner import rows

    data = np.arange(2 * 512, dtype=np.float64).reshape(2, 512)  # two rows of 4 KiB: one page each
    path = tmp_path / "tile.rows"
    data.tofile(path)
    mine = rows.repeated(path, np.float64, (7, 512), 2, writable=True)
    mine[2, 0] = -1.0  # the first row of the second repetition
    assert mine[0, 0] == 0.0 and mine[4, 0] == 0.0 and mine[2, 0] == -1.0
    theirs = rows.repeated(path, np.float64, (7, 512), 2, writable=False)
    assert np.array_equal(theirs, np.resize(data, (7, 512)))  # the file and every other map are unchanged
    with pytest.raises(ValueError):
        theirs[0, 0] = 1.0


@pytest.mark.parametrize("period, shape", [(3, (10, 100)), (0, (10, 512)), (11, (10, 512))])
def test_rows_that_cannot_repeat_on_page_boundaries_are_refused(tmp_path, period, shape):
    from grader.runner import rows

    with pytest.raises(ValueError):
        rows.check(shape, np.float64, period)


def test_the_full_scale_w1_repeats_in_the_child_and_in_the_cache(exercise, tmp_path):
    """W1 reaches the grader (from a cache entry too) as repeating rows; a correct student still gets full marks
    and the catalogued flatten mistake still fails at full scale."""
    from grader import cache as cache_mod

    store = cache_mod.Cache(tmp_path / "cache")
    for _ in range(2):  # built into the cache, then mapped from it
        with grade.Session(exercise, full_scale=True, cache=store, secret="rows") as session:
            case = session.full_scale_case()[0]
            W1 = case.args[1]
            period = exercise.cases_module.W1_PERIOD
            assert np.array_equal(W1[:period], W1[period:2 * period]) and not np.array_equal(W1[0], W1[1])
            assert session.full_scale_case()[2].repeats  # sent to the child as repeating rows
            good = grade.grade_file(CORRECT, session)
            assert good.score == good.max_score
            bad = grade.grade_file(HERE / "submissions" / "buggy" / "flatten-order.py", session)
            assert next(c for c in bad.checks if c.id == "values-full-scale").status == "failed"
