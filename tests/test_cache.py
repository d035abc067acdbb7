"""The large case's cache: built once per course secret, exercise version and setting, then mapped by later graders.

* A second session maps the entry the first built (no generation), with the same files and the same expected
  outputs per student; nothing per student is stored.
* The key: another secret or exercise version is another entry; a student id never is.
* Two graders starting at once build it once (the cache lock).
* A changed entry (stamps, signature, private files) is never served again: it is condemned, built anew, and
  removed once no grader holds it. So are stale entries and those over the cap; a held entry is never removed.
* ``grader cache list`` and ``grader cache clear``; a cache folder others can write to is refused.
"""
from __future__ import annotations

import dataclasses
import json
import os
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from grader import cache as cache_mod
from grader import cli, grade, largecase, sandbox, session as session_mod


BUILDS: list[int] = []


@pytest.fixture(scope="module")
def small_exercise():
    """The VGG exercise with a mini large case (same hooks), built in milliseconds; counts its builds."""
    from grader import exercise as exercise_mod

    vgg = exercise_mod.load("vgg_classifier")
    cases = vgg.cases_module

    def full_scale_case(rng, alloc):
        BUILDS.append(1)
        return cases._make(rng, "mini", "full-scale", 2, 3, 2, 5, 12, 9, 7, shared=True, alloc=alloc)

    module = SimpleNamespace(
        hidden_cases=cases.hidden_cases, trace=cases.trace, full_scale_case=full_scale_case,
        personalise_full_scale=cases.personalise_full_scale,
        full_scale_cache=cases.full_scale_cache, full_scale_expected=cases.full_scale_expected,
    )
    return dataclasses.replace(vgg, cases_module=module)


def _builds(exercise) -> int:
    return len(BUILDS)


def _session(exercise, store, secret="course secret", **kw) -> grade.Session:
    return grade.Session(exercise, full_scale=True, secret=secret, cache=store,
                         sandbox=sandbox.Sandbox(exercise.limits), **kw)


@pytest.fixture
def store(tmp_path):
    made = cache_mod.Cache(tmp_path / "cache", huge=False)
    yield made
    made.clear()


def _entries(store) -> list[Path]:
    return sorted(p for p in store.entries.iterdir() if cache_mod.ENTRY.fullmatch(p.name))


# -- serving -----------------------------------------------------------------------------------------------------
def test_a_second_grader_maps_the_entry_the_first_built(small_exercise, store):
    before = _builds(small_exercise)
    with _session(small_exercise, store) as first:
        ada1 = first.full_scale_for("ada")
        first.verify_shared(ada1)
        entry = first._full.entry
        assert entry.fresh and _builds(small_exercise) == before + 1
    with _session(small_exercise, store) as second:
        ada2, bob = second.full_scale_for("ada"), second.full_scale_for("bob")
        assert not second._full.entry.fresh and _builds(small_exercise) == before + 1  # mapped, not generated
        assert second._full.entry.path == entry.path
        assert ada2.shared.paths == ada1.shared.paths and ada2.shared.changes() == []
        for i in range(6):
            assert np.array_equal(ada2.case.args[i], ada1.case.args[i])
            assert not ada2.case.args[i].flags.writeable
        assert np.array_equal(ada2.case.args[6], ada1.case.args[6])  # the same student, the same b3
        assert np.array_equal(ada2.expected, ada1.expected)
        assert not np.array_equal(ada2.case.args[6], bob.case.args[6])
        reference = small_exercise.expected(bob.case)
        assert np.abs(reference - bob.expected).max() <= 1e-12 * np.abs(reference).max()
        assert second.verify_shared(ada2) == second.verify_shared(bob) == ""
    assert _entries(store) == [entry.path]  # kept for the next grader


def test_nothing_per_student_is_stored_and_the_entry_is_sealed(small_exercise, store):
    with _session(small_exercise, store) as session:
        for name in ("zoe-quinn", "yuri-voss", "walt-kim"):
            session.verify_shared(session.full_scale_for(name))
        path = session._full.entry.path
        shared_b3 = session._full.case.args[6]
    files = sorted(str(p.relative_to(path)) for p in path.rglob("*") if p.is_file())
    assert files == ["data/array-0.npy", "data/array-1.npy", "data/array-2.npy", "data/array-3.npy",
                     "data/array-4.npy", "data/array-5.npy", "lock", "meta.json", "private/arg-6.npy",
                     "private/expected.npy", "private/intermediate-h2.npy", "private/intermediate-logits.npy"]
    assert np.array_equal(np.load(path / "private" / "arg-6.npy"), shared_b3)  # the shared case's, no student's
    for item in [path, path / "data", *(path / "data").iterdir(), path / "lock", path / "meta.json"]:
        info = os.stat(item)
        assert info.st_mode & 0o222 == 0, (item, oct(info.st_mode))
        if os.geteuid() == 0:
            assert info.st_uid == largecase.OWNER_UID
    assert os.stat(path / "private").st_mode & 0o077 == 0  # expected outputs: the grader's only
    assert all(os.stat(p).st_mode & 0o277 == 0 for p in (path / "private").iterdir())
    text = (path / "meta.json").read_text()
    assert "course secret" not in text and not any(n in text for n in ("zoe-quinn", "yuri-voss", "walt-kim"))


def test_the_key_is_the_course_the_version_and_the_setting_never_the_student(small_exercise, store):
    version = f"{small_exercise.version}+{small_exercise.fingerprint}"
    base = cache_mod.key("vgg_classifier", version, "s", 1, "full-scale")
    assert base == cache_mod.key("vgg_classifier", version, "s", 1, "full-scale")
    assert len({base, cache_mod.key("vgg_classifier", version, "t", 1, "full-scale"),
                cache_mod.key("vgg_classifier", "2+abc", "s", 1, "full-scale"),
                cache_mod.key("other", version, "s", 1, "full-scale"),
                cache_mod.key("vgg_classifier", version, "s", 2, "full-scale")}) == 5
    with _session(small_exercise, store, secret="one") as a, _session(small_exercise, store, secret="two") as b:
        a.full_scale_case(), b.full_scale_case()
        assert a._full.entry.path != b._full.entry.path
        assert not np.array_equal(a._full.case.args[1], b._full.case.args[1])
    assert len(_entries(store)) == 2


def test_two_graders_starting_at_once_build_it_once(small_exercise, tmp_path):
    before = _builds(small_exercise)
    stores = [cache_mod.Cache(tmp_path / "cache", huge=False) for _ in range(4)]
    sessions = [_session(small_exercise, s) for s in stores]
    threads = [threading.Thread(target=s.full_scale_case) for s in sessions]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert _builds(small_exercise) == before + 1
    assert len({s._full.entry.path for s in sessions}) == 1
    assert sum(s._full.entry.fresh for s in sessions) == 1
    for s in sessions:
        s.close()
    stores[0].clear()


# -- a changed entry is never served ---------------------------------------------------------------------------
def _chmod_and_back(path: Path) -> None:
    mode = os.stat(path).st_mode
    os.chmod(path, 0o644)
    os.chmod(path, mode)


def _rewrite(path: Path) -> None:
    mode = os.stat(path).st_mode
    os.chmod(path, 0o644)
    with open(path, "r+b") as handle:
        handle.seek(-8, os.SEEK_END)
        handle.write(b"\x01" * 8)
    os.chmod(path, mode)


def _forge_meta(path: Path) -> None:
    meta = path.parent / "meta.json"
    os.chmod(path.parent, 0o755)
    os.chmod(meta, 0o644)
    document = json.loads(meta.read_text())
    body = json.loads(document["body"])
    body["nbytes"] += 1
    document["body"] = json.dumps(body, sort_keys=True, separators=(",", ":"))
    meta.write_text(json.dumps(document))


def _tamper_private(target: Path) -> None:
    os.chmod(target, 0o600)
    data = np.load(target)
    np.save(target, data + 1.0)
    os.chmod(target, 0o400)


TAMPERING = {
    "chmod-and-back": lambda entry: _chmod_and_back(entry / "data" / "array-1.npy"),
    "bytes-rewritten": lambda entry: _rewrite(entry / "data" / "array-5.npy"),
    "data-folder-renamed": lambda entry: (os.chmod(entry, 0o755),
                                          os.rename(entry / "data", entry / "data-moved")),
    "meta-forged": lambda entry: _forge_meta(entry / "meta.json"),
    "expected-changed": lambda entry: _tamper_private(entry / "private" / "expected.npy"),
}


@pytest.mark.parametrize("name", TAMPERING)
def test_a_tampered_entry_is_never_served_again(small_exercise, store, name):
    with _session(small_exercise, store) as first:
        first.full_scale_case()
        original = first._full.entry.path
        expected = first.full_scale_for("ada").expected
    time.sleep(0.02)
    TAMPERING[name](original)
    before = _builds(small_exercise)
    with _session(small_exercise, store) as second:
        second.full_scale_case()
        assert second._full.entry.path != original and second._full.entry.fresh
        assert any("did not verify" in note for note in second.notes), second.notes
        assert _builds(small_exercise) == before + 1
        assert np.array_equal(second.full_scale_for("ada").expected, expected)  # the same case, rebuilt
        assert not original.exists()  # condemned, and no grader held it
    with _session(small_exercise, store) as third:
        third.full_scale_case()
        assert not third._full.entry.fresh  # the rebuilt entry is served from now on


def test_with_full_verification_the_data_is_digested_again_on_every_open(small_exercise, store, monkeypatch):
    with _session(small_exercise, store) as first:
        first.full_scale_case()
        original = first._full.entry.path
    monkeypatch.setenv("GRADER_CACHE_VERIFY", "digest")
    digested = []
    real = largecase.digest_files
    monkeypatch.setattr(largecase, "digest_files", lambda paths: digested.append(paths) or real(paths))
    with _session(small_exercise, store) as second:
        second.full_scale_case()
        assert second._full.entry.path == original and len(digested[0]) == 6
    monkeypatch.setattr(largecase, "digest_files", lambda paths: {p: "0" * 64 for p in paths})
    with _session(small_exercise, store) as third:  # bytes that no longer match: condemned, built again
        third.full_scale_case()
        assert third._full.entry.path != original and third._full.entry.fresh


def test_a_change_found_during_a_run_condemns_the_entry_but_never_pulls_it_from_another_grader(small_exercise,
                                                                                                store):
    with _session(small_exercise, store) as other, _session(small_exercise, store) as session:
        other.full_scale_case()
        ada = session.full_scale_for("ada")
        held = session._full.entry.path
        assert other._full.entry.path == held
        time.sleep(0.02)
        _chmod_and_back(held / "data" / "array-2.npy")
        warning = session.verify_shared(ada)
        assert "This submission changed the shared input files of the 'mini' case" in warning
        assert session._full.entry.path != held and session._full.entry.fresh
        assert held.exists() and Path(str(held) + ".condemned").exists()  # the other grader still maps it
        assert "changed" in other.verify_shared() or other._full.entry.path != held  # it sees the change too
        bob = other.full_scale_for("bob")
        assert other._full.entry.path == session._full.entry.path  # and takes the rebuilt entry
        other.verify_shared(bob)
        rebuilt = session._full.entry.path
    assert not held.exists()  # removed once no grader held it
    assert _entries(store) == [rebuilt]


def test_a_change_another_grader_found_first_blames_no_one_here(small_exercise, store):
    with _session(small_exercise, store) as one, _session(small_exercise, store) as two:
        ada, bob = one.full_scale_for("ada"), two.full_scale_for("bob")
        time.sleep(0.02)
        _chmod_and_back(one._full.shared.paths[("mini", 1)])
        assert "This submission changed" in one.verify_shared(ada)
        warning = two.verify_shared(bob)
        assert "by it or by a submission graded at the same time" in warning and bob.compromised


# -- stale entries, the cap, clear ----------------------------------------------------------------------------------
def test_an_entry_of_another_version_is_removed_when_unused(small_exercise, store):
    old = dataclasses.replace(small_exercise, fingerprint="0ld0ld0ld0ld0ld0")
    with _session(old, store) as s:
        s.full_scale_case()
        stale = s._full.entry.path
        with _session(small_exercise, store) as new:
            new.full_scale_case()
            assert stale.exists()  # held by a running grader: kept
        with _session(dataclasses.replace(small_exercise, fingerprint="n3wn3wn3wn3wn3wn"), store) as newer:
            newer.full_scale_case()
            assert stale.exists()
    with _session(small_exercise, store, secret="another") as later:
        later.full_scale_case()
    assert not stale.exists()


def test_the_cap_removes_the_least_recently_used_entries(small_exercise, tmp_path):
    store = cache_mod.Cache(tmp_path / "cache", max_entries=2, huge=False)
    paths = {}
    for secret in ("a", "b"):
        with _session(small_exercise, store, secret=secret) as s:
            s.full_scale_case()
            paths[secret] = s._full.entry.path
        time.sleep(0.05)
    with _session(small_exercise, store, secret="a") as s:  # a is used again: b is now the oldest
        s.full_scale_case()
    time.sleep(0.05)
    with _session(small_exercise, store, secret="c") as s:
        s.full_scale_case()
        paths["c"] = s._full.entry.path
    assert _entries(store) == sorted([paths["a"], paths["c"]])
    store.clear()


def test_clear_removes_every_entry_no_grader_holds(small_exercise, store, capsys):
    with _session(small_exercise, store, secret="kept") as held:
        held.full_scale_case()
        with _session(small_exercise, store, secret="gone") as s:
            s.full_scale_case()
        assert cli.main(["cache", "list", "--cache-dir", str(store.root)]) == 0
        listing = capsys.readouterr().out
        assert "2 entries" in listing and "in use" in listing and "idle" in listing
        assert cli.main(["cache", "clear", "--cache-dir", str(store.root)]) == 0
        assert "removed 1 entry" in capsys.readouterr().out and "1 in use" not in listing
        assert _entries(store) == [held._full.entry.path]
        assert held.verify_shared() == ""
    assert cli.main(["cache", "clear", "--cache-dir", str(store.root)]) == 0
    assert _entries(store) == []


def test_a_cache_folder_others_can_write_is_refused_and_grading_goes_on(small_exercise, tmp_path):
    folder = tmp_path / "open"
    folder.mkdir()
    os.chmod(folder, 0o777)
    with _session(small_exercise, cache_mod.Cache(folder, huge=False)) as session:
        run = session.full_scale_for("ada")
        assert session._full.entry is None and run is not None
        assert "could not be used" in session.notes[0] and "others can write" in session.notes[0]
        session.verify_shared(run)
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    (tmp_path / "elsewhere").mkdir()
    with pytest.raises(cache_mod.CacheUnavailable):
        cache_mod.Cache(link, huge=False).prepare()


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a tmpfs needs root")
def test_as_root_the_entries_live_on_a_huge_page_tmpfs_that_clear_unmounts(small_exercise, tmp_path):
    store = cache_mod.Cache(tmp_path / "cache", huge=True)
    try:
        with _session(small_exercise, store) as s:
            s.full_scale_case()
            if not os.path.ismount(store.entries):
                pytest.skip("this machine does not let root mount a tmpfs")
            assert store.huge_pages()
            assert s._full.entry.path.parent == store.entries
        assert store.clear() == (1, 0)
        assert not os.path.ismount(store.entries)
    finally:
        if os.path.ismount(store.entries):
            os.system(f"umount {store.entries}")


def test_the_command_line_grades_from_the_cache(tmp_path):
    """Two cold `grader grade` runs: the second maps what the first built and gets the same result."""
    import shutil
    import subprocess
    import sys
    import tempfile

    source = Path(__file__).resolve().parent / "submissions" / "correct" / "matmul.py"
    shm = session_mod._shared_memory_dir()  # a gigabyte: in memory when there is room
    root = Path(tempfile.mkdtemp(prefix="grader-test-cache-", dir=shm or tmp_path)) / "cache"
    command = [sys.executable, "-m", "grader", "grade", str(source), "--exercise", "vgg_classifier", "--json",
               "--cache-dir", str(root), "--secret", "test-cache"]
    try:
        first = subprocess.run(command, capture_output=True, text=True, timeout=300)
        second = subprocess.run(command, capture_output=True, text=True, timeout=300)
        docs = [json.loads(r.stdout) for r in (first, second)]
        assert docs[0]["score"] == docs[0]["max_score"] == docs[1]["score"], (first.stderr, second.stderr)
        store = cache_mod.Cache(root)
        assert [e.exercise for e in store.list()] == ["vgg_classifier"]
        assert store.clear() == (1, 0)
    finally:
        cache_mod.Cache(root).clear()
        shutil.rmtree(root.parent, ignore_errors=True)


def test_an_entry_keeps_scalar_arguments_and_several_outputs_as_they_were(tmp_path):
    from grader import cacheentry
    from grader.exercise import Case

    rng = np.random.default_rng(1)
    entry = tmp_path / "entry"
    (entry / "data").mkdir(parents=True)
    (entry / "private").mkdir()
    (entry / "lock").write_text("")
    case = Case("big", "full-scale", (rng.random((4, 3)), 7, None, 2.5, rng.random(3)), shared=True, personal=(4,))
    shared = largecase.SharedArrays.write([case], entry / "data")
    case = shared.frozen(case)
    expected = (rng.random((2, 3)), rng.random(2))
    body, recompute = cacheentry.persist(entry, cacheentry.Built(case, shared, expected, {"w": case.args[0]}),
                                         "x", "1+abc")
    cacheentry.write_signed(entry / "meta.json", body, "secret")
    loaded = cacheentry.load(entry, "secret", -1).built
    assert loaded.case.args[1:4] == (7, None, 2.5) and type(loaded.case.args[1]) is int
    assert np.array_equal(loaded.case.args[0], case.args[0]) and np.array_equal(loaded.case.args[4], case.args[4])
    assert isinstance(loaded.expected, tuple) and all(np.array_equal(a, b) for a, b in zip(loaded.expected, expected))
    assert loaded.intermediate["w"] is loaded.case.args[0] and not recompute
    with pytest.raises(ValueError):
        cacheentry.load(entry, "another secret", -1)
    largecase.remove_folder(entry / "data")
