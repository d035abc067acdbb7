"""The warm templates of ``fork`` mode: what they hold, and what happens when one dies or misbehaves.

The attacks from inside a run (``reach-template`` and every other hostile submission) are in ``test_sandbox.py``;
here the grader's side: a template holds no run's descriptors and nothing secret, a dead one is replaced, and one
that says anything unexpected on its socket is stopped and never used again.
"""
from __future__ import annotations

import dataclasses
import os
import signal
import sys
import threading
import time
from pathlib import Path

import pytest

from grader import exercise as exercise_mod
from grader import grade, processes, sandbox, slots, template

HERE = Path(__file__).resolve().parent
CORRECT = HERE / "submissions" / "correct" / "matmul.py"
SECRET = "grader-template-secret"


@pytest.fixture(scope="module")
def session():
    os.environ["GRADER_TEMPLATE_TEST_SECRET"] = SECRET
    try:
        box = sandbox.Sandbox(sandbox.Limits(), mode="fork")
    except sandbox.SandboxUnavailable as exc:
        pytest.skip(str(exc))
    exercise = exercise_mod.load("vgg_classifier")
    limits = dataclasses.replace(exercise.limits, call_seconds=2, cell_seconds=8, submission_seconds=20)
    box = sandbox.Sandbox(limits, mode="fork")
    with grade.Session(exercise, full_scale=False, sandbox=box) as graded:
        yield graded


def _full(result) -> bool:
    return result.status == "graded" and result.score == result.max_score


def _templates() -> list[template.Template]:
    with template.POOL.lock:
        return [t for t in template.POOL.all if t.alive()]


def _descriptors(pid: int) -> list[str]:
    """What the process's descriptors are ("socket", "pipe", a path...), sorted; one closed while it is read (the
    template forks the next run ahead, and closes its end of that run's socket) is left out."""
    kinds = []
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            kinds.append(os.readlink(f"/proc/{pid}/fd/{fd}").split(":")[0])
        except FileNotFoundError:
            pass
    return sorted(kinds)


def test_a_template_holds_only_its_socket_and_nothing_secret(session):
    assert _full(grade.grade_file(CORRECT, session))
    for warm in _templates():
        pid = warm.process.pid
        for _ in range(100):  # the template may be forking the next run ahead: both ends of its socketpair, briefly
            kinds = _descriptors(pid)
            if kinds.count("socket") <= 2:
                break
            time.sleep(0.01)
        assert kinds.count("socket") <= 2, kinds  # the grader's socketpair, a prepared run's; no run's pipe or memory
        assert not any(kind.startswith("/dev/shm") or "memfd" in kind for kind in kinds), kinds
        environ = Path(f"/proc/{pid}/environ").read_bytes()
        assert SECRET.encode() not in environ and b"GRADER_PARENT=" not in environ
        assert os.stat(f"/proc/{pid}").st_uid == 0
        status = Path(f"/proc/{pid}/status").read_text()
        # started by the grader, or forked by the template it started with it (``Pool.prestart``)
        parent = warm.process.parent.process.pid if isinstance(warm.process, template.Sibling) else os.getpid()
        assert "\nPPid:\t%d\n" % parent in status
    # A slot's template waits in the slot's cgroups, and the sweep after a run spared it (alive ones only: tests
    # mix modes in one process, and another mode's sweep of a slot kills the idle template there).
    by_slot = {uid: warm for uid, warm in template.POOL.slots.items() if warm.alive()}
    if session.sandbox.cgroups:
        assert by_slot
        for uid, warm in by_slot.items():
            cgroups = Path(f"/proc/{warm.process.pid}/cgroup").read_text()
            assert f"/grader/{os.getpid()}-{uid}" in cgroups, cgroups


def test_a_killed_template_is_replaced(session):
    assert _full(grade.grade_file(CORRECT, session))
    before = _templates()
    assert before
    for warm in before:
        os.kill(warm.process.pid, signal.SIGKILL)
        warm.process.wait()
    assert _full(grade.grade_file(CORRECT, session))
    after = _templates()
    assert after and not {t.process.pid for t in after} & {t.process.pid for t in before}


def test_a_template_killed_during_a_run_ends_only_that_run(session, tmp_path):
    slow = tmp_path / "slow.py"
    slow.write_text("import time\ntime.sleep(6)\n" + CORRECT.read_text())
    results = []
    thread = threading.Thread(target=lambda: results.append(grade.grade_file(slow, session)))
    thread.start()
    time.sleep(2.5)
    busy = [t for t in template.POOL.all if t.alive() and t not in template.POOL.idle()]
    assert busy, "the slow submission should hold a template"
    for warm in busy:
        os.kill(warm.process.pid, signal.SIGKILL)
    thread.join(60)
    assert results and not _full(results[0])
    assert "SIGKILL" in results[0].to_json() or results[0].status == "error"
    assert _full(grade.grade_file(CORRECT, session))


def test_a_run_starts_as_pid_1_of_its_own_pid_namespace_forked_by_the_template(session, tmp_path):
    """The template forks a run's init straight into a new pid namespace and its later children back into its own:
    during a run, its one child is that init, pid 1 there, and the runner is the init's child in the same namespace
    (no process of the run outside it)."""
    slow = tmp_path / "slow.py"
    slow.write_text("import time\ntime.sleep(4)\n" + CORRECT.read_text())
    results = []
    thread = threading.Thread(target=lambda: results.append(grade.grade_file(slow, session)))
    thread.start()
    try:
        busy, deadline = [], time.monotonic() + 20
        while not busy and time.monotonic() < deadline:
            time.sleep(0.2)
            busy = [t for t in template.POOL.all if t.alive() and t not in template.POOL.idle()]
        assert busy, "the slow submission should hold a template"
        pid = busy[0].process.pid
        own = os.readlink(f"/proc/{os.getpid()}/ns/pid")
        assert os.readlink(f"/proc/{pid}/ns/pid") == own
        assert os.readlink(f"/proc/{pid}/ns/pid_for_children") == own
        inits = processes.children(pid)
        assert len(inits) == 1, inits
        init_ns = os.readlink(f"/proc/{inits[0]}/ns/pid")
        assert init_ns != own
        assert Path(f"/proc/{inits[0]}/status").read_text().split("NSpid:")[1].split("\n")[0].split()[1:] == ["1"]
        runners = processes.children(inits[0])
        assert len(runners) == 1 and os.readlink(f"/proc/{runners[0]}/ns/pid") == init_ns, runners
    finally:
        thread.join(60)
    assert results and _full(results[0])


def test_runs_of_one_template_draw_different_random_numbers(session, tmp_path):
    """numpy's and random's generators are seeded afresh in every run, not once in the template."""
    draw = tmp_path / "draw.py"
    draw.write_text("import random\nimport numpy as np\n\ndef vgg_classifier(*args):\n"
                    "    raise RuntimeError(f'DRAW {np.random.rand():.15f} {random.random():.15f}')\n")
    seen = set()
    for _ in range(3):
        text = grade.grade_file(draw, session).to_json()
        seen.add(text[text.index("DRAW"):][:40])
    assert len(seen) == 3, seen


FAKE = """
import json, os, socket, sys
sock = socket.socket(fileno=int(sys.argv[1]))
sock.recv(1 << 16)  # the probe's settings
sock.send(json.dumps({"t": "ready", "pid": os.getpid(), "probe": 0}).encode())
sock.recv(1 << 16)  # a run's request
sock.send(json.dumps(%s).encode())
sock.recv(1 << 16)
"""


@pytest.mark.parametrize("answer", [{"t": "forked", "pid": 1}, {"t": "error", "message": "no"}, "garbage"])
def test_a_template_that_answers_wrong_is_stopped_and_never_reused(session, tmp_path, monkeypatch, answer):
    script = tmp_path / "fake_template.py"
    script.write_text(FAKE % repr(answer))
    monkeypatch.setattr(template.Template, "script", script)
    config = dataclasses.replace(session.sandbox.template_config, paths=("fake",))  # no warm template matches
    started = []
    real_init = template.Template.__init__

    def tracked(self, *args):
        real_init(self, *args)
        started.append(self)

    monkeypatch.setattr(template.Template, "__init__", tracked)
    with pytest.raises(template.TemplateError):
        template.launch(config, {"uid": 0}, ())
    assert len(started) == 2, "one replacement is tried, then the run is refused"
    assert all(t.broken and t.process.poll() is not None for t in started)
    assert not any(t in template.POOL.idle() for t in started)


def _probe_run(session) -> tuple[template.Template, int]:
    """A run with no student code (the probe's: namespaces, new root, worker uid), from the pool's next template."""
    request = {**session.sandbox._fork_request(slots.FIRST_UID + slots.SLOTS, ()), "probe": True}
    forked, channel, output = template.launch(session.sandbox.template_config, request, ())
    os.close(channel)
    os.close(output)
    return forked, forked.wait(30)


def test_templates_started_together_are_one_python_start_the_others_forked_from_it(session, monkeypatch):
    """``prestart(3)`` starts one template, which forks two more once numpy is imported: each has a session, a
    socket and no secret of its own, serves runs like any template, and outlives the one it was forked from."""
    pool = template.Pool()
    monkeypatch.setattr(template, "POOL", pool)
    pool.prestart(session.sandbox.template_config, count=3)
    try:
        first, *siblings = pool.free[::-1]
        assert [isinstance(t.process, template.Sibling) for t in (first, *siblings)] == [False, True, True]
        runs = [_probe_run(session) for _ in range(3)]  # held at once: one run from each template
        assert [code for _, code in runs] == [0, 0, 0]
        assert {id(forked.template) for forked, _ in runs} == {id(t) for t in (first, *siblings)}
        for forked, _ in runs:
            template.kill(forked, processes.children)
        assert len({t.process.pid for t in (first, *siblings)}) == 3
        for sibling in siblings:
            pid = sibling.process.pid
            assert f"\nPPid:\t{first.process.pid}\n" in Path(f"/proc/{pid}/status").read_text()
            assert os.getsid(pid) == pid != os.getsid(first.process.pid)
            for _ in range(100):  # its own socket, a prepared run's (both ends, briefly, while it forks it)
                kinds = _descriptors(pid)
                if kinds.count("socket") <= 2:
                    break
                time.sleep(0.01)
            assert kinds.count("socket") <= 2, kinds
            assert SECRET.encode() not in Path(f"/proc/{pid}/environ").read_bytes()
        os.kill(first.process.pid, signal.SIGKILL)
        first.process.wait()
        runs = [_probe_run(session) for _ in range(2)]
        assert [code for _, code in runs] == [0, 0]
        assert {id(forked.template) for forked, _ in runs} == {id(t) for t in siblings}
        for forked, _ in runs:
            template.kill(forked, processes.children)
        assert len(pool.all) == 3, "no template was started for the two runs"
    finally:
        pool.close()
    assert all(t.process.poll() is not None for t in (first, *siblings))


def test_more_templates_than_one_message_can_carry_sockets_for_are_started_in_groups(session):
    pool = template.Pool()
    try:
        pool.prestart(session.sandbox.template_config, count=template.MAX_SIBLINGS + 3)
        for t in pool.free:
            t.ready()
        started = [t for t in pool.free if not isinstance(t.process, template.Sibling)]
        assert len(started) == 2 and len(pool.free) == template.MAX_SIBLINGS + 3
        assert len({t.process.pid for t in pool.free}) == len(pool.free) and all(t.alive() for t in pool.free)
    finally:
        pool.close()


def test_templates_a_first_template_did_not_fork_fail_and_are_never_used(session, tmp_path, monkeypatch):
    script = tmp_path / "fake_template.py"
    script.write_text(FAKE % repr({"t": "forked", "pid": 1}))  # says ready, and forks nothing
    monkeypatch.setattr(template.Template, "script", script)
    pool = template.Pool()
    config = dataclasses.replace(session.sandbox.template_config, paths=("fake",))
    pool.prestart(config, count=2)
    sibling, first = pool.free
    with pytest.raises(template.TemplateError, match="the template it was to be forked from failed"):
        sibling.ready()
    with pytest.raises(template.TemplateError):
        first.ready()
    assert not sibling.alive() and not first.alive() and first.process.poll() is not None
    pool.close()


def test_the_launcher_runs_the_template_as_main_with_its_arguments_and_its_cached_bytecode(tmp_path):
    """The template starts as ``python -c LAUNCHER script ...``: the script sees what a script sees (its name, its
    path, its arguments), and runs from the bytecode compileall left beside it, unless the source has changed."""
    import py_compile
    import subprocess

    script = tmp_path / "fake.py"
    script.write_text("import sys\nprint(__name__, __file__ == sys.argv[0], sys.argv[1:], 'cache!')\n")
    py_compile.compile(str(script), doraise=True)  # records the source's size and mtime
    mtime = script.stat().st_mtime_ns
    script.write_text(script.read_text().replace("cache!", "source"))  # same size: only the mtime tells
    argv = [sys.executable, "-I", "-S", "-B", "-c", template.Template.launcher, str(script), "7", "x"]
    os.utime(script, ns=(mtime, mtime))
    assert subprocess.run(argv, capture_output=True, text=True).stdout == "__main__ True ['7', 'x'] cache!\n"
    os.utime(script, ns=(mtime + 10**9, mtime + 10**9))  # edited since it was compiled: the source runs
    assert subprocess.run(argv, capture_output=True, text=True).stdout == "__main__ True ['7', 'x'] source\n"


def test_the_pool_is_usable_again_after_a_failure(session):
    assert _full(grade.grade_file(CORRECT, session))


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))


def test_fork_mode_works_from_a_checkout_under_tmp(session, tmp_path):
    """The run's scratch /tmp is a fresh tmpfs: a grader whose own files lie under /tmp (a CI clone, a
    temporary checkout) must still have its runner visible inside the sandbox, not fall back to another mode."""
    import json
    import shutil
    import subprocess

    root = HERE.parent
    copy = tmp_path / "checkout"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "examples", "course_examples")
    for name in ("grader", "exercises", "solutions"):
        shutil.copytree(root / name, copy / name, ignore=ignore)
    if not str(copy).startswith("/tmp/"):
        pytest.skip("pytest's temporary folder is not under /tmp here")
    done = subprocess.run(
        [sys.executable, "-m", "grader", "grade", str(CORRECT), "--exercise", "vgg_classifier", "--no-full-scale",
         "--json", "--exercises-dir", str(copy / "exercises"), "--solutions-dir", str(copy / "solutions")],
        cwd=copy, capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": str(copy), "GRADER_SANDBOX": "fork"})
    result = json.loads(done.stdout)
    assert result["status"] == "graded" and result["score"] == result["max_score"], done.stderr[-2000:]
    assert "worker-uid" in result["isolation"] and "namespaces" in result["isolation"]


def test_a_template_started_ahead_is_the_one_the_sandbox_takes(session):
    """``sandbox.prestart()`` (called first thing by a grader about to grade) starts the template in the
    background; the sandbox made later takes that one, ready and probed, rather than starting another."""
    import json
    import subprocess

    code = (
        "import json\n"
        "from grader import sandbox, template\n"
        "sandbox.prestart()\n"
        "ahead = [t.process.pid for t in template.POOL.free if t.pending]\n"
        "box = sandbox.Sandbox(sandbox.Limits())\n"
        "alive = [t for t in template.POOL.all if t.alive()]\n"
        "print(json.dumps({'mode': box.mode, 'ahead': ahead, 'alive': [t.process.pid for t in alive],\n"
        "                  'pending': [t.pending for t in alive]}))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "GRADER_SANDBOX"}
    done = subprocess.run([sys.executable, "-c", code], cwd=HERE.parent, capture_output=True, text=True,
                          timeout=120, env=env)
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["mode"] == "fork", done.stderr[-2000:]
    assert len(found["ahead"]) == 1 and found["alive"] == found["ahead"] and found["pending"] == [False]


def test_warm_starts_one_template_per_worker_and_the_runs_use_them(session):
    box = session.sandbox
    box.warm(2)
    with template.POOL.lock:
        ready = [t for t in [*template.POOL.free, *template.POOL.slots.values()] if t.config == box.template_config]
    assert len(ready) >= 2
    box.warm(2)  # already there: nothing more is started
    with template.POOL.lock:
        again = [t for t in [*template.POOL.free, *template.POOL.slots.values()] if t.config == box.template_config]
    assert len(again) == len(ready)
    assert _full(grade.grade_file(CORRECT, session))


def test_a_run_whose_slot_another_grader_took_moves_an_idle_template_instead_of_starting_one(session):
    """Grader processes share the worker slots (a ``flock`` each). When another grader takes the slot this one's
    idle template sits in, between two runs, the next run moves that template into the slot it gets: a cgroup
    write, where a new template is a Python and numpy start (about 0.15 s of CPU)."""
    import fcntl

    assert _full(grade.grade_file(CORRECT, session))
    with template.POOL.lock:
        idle = set(template.POOL.slots)
        free, template.POOL.free = template.POOL.free, []  # only templates that sit in a slot
    held = []
    try:
        if not idle:
            pytest.skip("no cgroups here: a template serves any slot")
        started = {t.process.pid for t in template.POOL.all if t.alive()}
        for uid in idle:  # another grader takes them
            fd = os.open(slots.POOL.folder / f"{uid}.lock", os.O_RDWR | os.O_CLOEXEC)
            held.append(fd)
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        assert _full(grade.grade_file(CORRECT, session))
        assert {t.process.pid for t in template.POOL.all if t.alive()} <= started
        with template.POOL.lock:
            moved = {uid: t for uid, t in template.POOL.slots.items() if uid not in idle}
        assert moved
        for uid, warm in moved.items():
            assert warm.cgroups and all(f"-{uid}/" in path for path in warm.cgroups), warm.cgroups
    finally:
        for fd in held:
            os.close(fd)
        with template.POOL.lock:
            template.POOL.free += free


def test_a_slot_is_taken_from_the_preferred_ones_first(tmp_path, monkeypatch):
    """The sandbox asks first for the slots its idle templates sit in, else the lowest free one."""
    pool = slots.SlotPool()
    monkeypatch.setattr(pool, "folder", tmp_path)
    first = pool.acquire(prefer=[7, 3])
    assert first.index == 7
    assert pool.acquire(prefer=[7, 3]).index == 3
    assert pool.acquire().index == 0
    pool.release(first)
    assert pool.acquire(prefer=[9, 7]).index == 9


def test_a_template_stopped_before_it_was_ready_fails_the_ones_it_was_to_fork_cleanly(session):
    """The first template of a group dies while it starts (killed, out of memory) and the pool drops it: the
    templates it was to fork then fail with a clear error, and a run gets a fresh template instead of the grader
    stopping on an internal error."""
    config = session.sandbox.template_config
    with template.POOL.lock:
        aside, template.POOL.free, template.POOL.slots = (template.POOL.free, template.POOL.slots), [], {}
    try:
        template.POOL.prestart(config, count=2)
        with template.POOL.lock:
            group = list(template.POOL.free)
        first = next(t for t in group if not isinstance(t.process, template.Sibling))
        os.kill(first.process.pid, signal.SIGKILL)
        first.process.wait()
        fresh = template.POOL.acquire(config)  # drops the dead first one, then the one it never forked
        try:
            assert fresh.alive() and fresh not in group
            for warm in group:
                assert not warm.alive()
                with pytest.raises(template.TemplateError):
                    warm.ready()
        finally:
            template.POOL.release(fresh)
    finally:
        with template.POOL.lock:
            template.POOL.free += aside[0]
            template.POOL.slots.update(aside[1])
    assert _full(grade.grade_file(CORRECT, session))


ROOT_SCRIPT = r"""
import json, os, stat, sys
sys.path.insert(0, sys.argv[1])
import rootfs
folder, data = sys.argv[2], sys.argv[3]
if rootfs._c().unshare(0x00020000) != 0:  # CLONE_NEWNS: this process's mounts only
    raise SystemExit("unshare failed")
rootfs.prepare([["/usr", "/usr"], ["/usr/lib", "/usr/lib"], [data, "/tmp/deep/er/input.bin"], [folder, "/opt/a/b"],
                [data, "/opt/a/file"]], [["usr/lib", "/lib"]], 1 << 20, 1 << 20)
rootfs.finish([[data, "/dev/shm/run/input"], [folder, "/opt/a/c/d"]])
print(json.dumps({
    "input": open("/tmp/deep/er/input.bin").read(), "shm": open("/dev/shm/run/input").read(),
    "opt": sorted(os.listdir("/opt/a/b")), "nested": sorted(os.listdir("/opt/a/c/d")),
    "file": open("/opt/a/file").read(), "lib": os.readlink("/lib"), "usr": os.path.isdir("/usr/lib"),
    "null": stat.S_ISCHR(os.stat("/dev/null").st_mode), "proc": os.path.isdir("/proc/self"),
    "root": sorted(os.listdir("/")), "old": os.path.exists("/oldroot")}))
"""


def test_the_root_a_run_sees_holds_every_bind_at_its_path_nested_ones_too(tmp_path):
    """The new root is put together from what the parent binds into it: folders and files at their paths inside,
    below the scratch tmpfs, below another bound folder, below a folder made for another bind, and a run's own
    inputs bound last (as a prepared run does); the host's root is gone."""
    if os.geteuid() != 0 or not sys.platform.startswith("linux"):
        pytest.skip("a mount namespace needs root on Linux")
    import json
    import subprocess

    folder = tmp_path / "shown"
    folder.mkdir()
    (folder / "one.txt").write_text("1")
    data = tmp_path / "data.bin"
    data.write_text("inputs")
    done = subprocess.run([sys.executable, "-I", "-S", "-c", ROOT_SCRIPT, str(template.RUNNER_DIR), str(folder),
                           str(data)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout)
    assert seen["input"] == seen["shm"] == seen["file"] == "inputs"
    assert seen["opt"] == seen["nested"] == ["one.txt"]
    assert seen["lib"] == "usr/lib" and seen["usr"] and seen["null"] and seen["proc"] and not seen["old"]
    assert seen["root"] == ["dev", "lib", "opt", "proc", "tmp", "usr"]
