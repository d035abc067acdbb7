"""Attacks through what the kernel shares between runs and with the host, in every sandbox mode this machine has.

The submissions in ``tests/submissions/hostile/kernel/`` use kernel keyrings, System V IPC and POSIX message
queues to hand a full solution from one run to a later one, create nested namespaces, reach sockets on the host
(UDP on the loopback, pathname and abstract Unix sockets) and fill the scratch folder with files each under the
per-file cap. The test fills in each file's ``INFO = {}`` line (a token, the ports and socket names it opened).

Besides the three modes, ``bwrap-no-seccomp`` and ``landlock-no-seccomp`` run the same sandbox with the seccomp
filter left out: what they leak is what the filter alone stops, and it proves that each attack works where
nothing stops it. Combinations that leak are in ``leaks()`` and run as strict xfails: the attack must show.
"""
from __future__ import annotations

import ctypes
import dataclasses
import json
import os
import signal
import socket
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from grader import exercise as exercise_mod
from grader import grade, sandbox

HERE = Path(__file__).resolve().parent
KERNEL = HERE / "submissions" / "hostile" / "kernel"
MODES = ("fork", "bwrap", "landlock", "rlimits", "fork-no-seccomp", "bwrap-no-seccomp", "landlock-no-seccomp")
ACROSS = ("across-keyring", "across-sysv-shm", "across-sysv-msg", "across-posix-mq")
SINGLE = ("nested-namespaces", "udp", "unix-socket-path", "unix-socket-abstract", "disk-fill-scratch")
SOCKETS = {"udp", "unix-socket-path", "unix-socket-abstract"}


def leaks(mode: str, box: sandbox.Sandbox) -> set[str]:
    """The attacks ``mode`` does not contain on this machine, from the layers it has."""
    layers = set(box.layers)
    if box.mode == "rlimits":
        return set(ACROSS) | set(SINGLE)
    found = set()
    if "seccomp" not in layers:
        found |= {"across-keyring", "nested-namespaces"}  # per uid, and not namespaced by bubblewrap
        if box.mode == "landlock":  # no IPC or network namespace; Landlock denies opening a POSIX queue
            found |= {"across-sysv-shm", "across-sysv-msg", "udp", "unix-socket-path"}
            if sandbox.landlock_abi() < 6:
                found.add("unix-socket-abstract")
    if box.mode == "landlock" and not box.scratch_mib:
        found.add("disk-fill-scratch")
    return found


#: What a contained attack must say: the denied call surfaced in student code as an ordinary error.
EXPECTED = {"disk-fill-scratch": "No space left on device"}
DENIED = "Operation not permitted"


@pytest.fixture(scope="module")
def exercise():
    return exercise_mod.load("vgg_classifier")


@pytest.fixture(scope="module", params=MODES)
def session(request, exercise):
    mode, _, variant = request.param.partition("-")
    try:
        sandbox.Sandbox(sandbox.Limits(), mode=mode)
    except sandbox.SandboxUnavailable as exc:
        pytest.skip(str(exc))
    limits = dataclasses.replace(exercise.limits, call_seconds=4, cell_seconds=4, submission_seconds=20,
                                 memory_mib=512, output_mib=8, file_mib=16)
    box = sandbox.Sandbox(limits, mode=mode)
    if variant == "no-seccomp":
        if not box.seccomp:
            pytest.skip("no seccomp filter here anyway")
        box.seccomp = False
        box.layers = tuple(layer for layer in box.layers if layer != "seccomp")
    with grade.Session(exercise, full_scale=False, sandbox=box) as graded:
        graded.mode = request.param
        yield graded


@dataclasses.dataclass
class World:
    info: dict
    udp: socket.socket
    stream: socket.socket
    dgram: socket.socket
    abstract: socket.socket
    folder: Path

    def reached(self) -> list[str]:
        """What reached the listeners on the host."""
        found = []
        for name, sock, accept in (("UDP listener", self.udp, False), ("pathname stream socket", self.stream, True),
                                   ("pathname datagram socket", self.dgram, False),
                                   ("abstract socket", self.abstract, True)):
            try:
                if accept:
                    sock.accept()[0].close()
                else:
                    sock.recv(64)
                found.append(f"something reached the {name}")
            except BlockingIOError:
                pass
        return found


@pytest.fixture
def world(tmp_path):
    token = uuid.uuid4().hex[:12]
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    stream_path, dgram_path = f"/tmp/grader-unix-{token}.sock", f"/tmp/grader-unixd-{token}.sock"
    stream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stream.bind(stream_path)
    stream.listen(4)
    dgram = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    dgram.bind(dgram_path)
    for path in (stream_path, dgram_path):
        os.chmod(path, 0o777)  # like a world-writable daemon socket: only the sandbox may stop a connection
    abstract = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    abstract.bind(f"\0grader-abstract-{token}")
    abstract.listen(4)
    for sock in (udp, stream, dgram, abstract):
        sock.setblocking(False)
    info = {"token": token, "udp_port": udp.getsockname()[1], "unix_stream": stream_path,
            "unix_dgram": dgram_path, "unix_abstract": f"grader-abstract-{token}"}
    yield World(info, udp, stream, dgram, abstract, tmp_path)
    for sock in (udp, stream, dgram, abstract):
        sock.close()
    for path in (stream_path, dgram_path):
        Path(path).unlink(missing_ok=True)
    _kill_leftovers()
    _remove_ipc(token)


def _remove_ipc(token: str) -> None:
    """Remove what an uncontained attack may have left (a read removes it already; this is for failures)."""
    subprocess.run(["ipcrm", "-M", str(int(token[:7], 16))], capture_output=True, check=False)
    subprocess.run(["ipcrm", "-Q", str(int(token[-7:], 16))], capture_output=True, check=False)
    try:
        ctypes.CDLL(None).mq_unlink(f"/grader-hostile-{token}".encode())
    except AttributeError:
        pass


def _leftovers() -> list[str]:
    tag = f"GRADER_PARENT={os.getpid()}".encode()
    found = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            environ = Path(f"/proc/{entry}/environ").read_bytes().split(b"\0")
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if tag in environ and state != "Z":
            found.append(entry)
    return found


def _kill_leftovers() -> None:
    for pid in _leftovers():
        try:
            os.kill(int(pid), signal.SIGKILL)
        except OSError:
            pass


def _prepare(name: str, info: dict, folder: Path) -> Path:
    source = (KERNEL / f"{name}.py").read_text()
    assert "\nINFO = {}\n" in source, f"{name}.py must have an INFO = {{}} line"
    source = source.replace("\nINFO = {}\n", f"\nINFO = json.loads({json.dumps(json.dumps(info))})\n", 1)
    path = folder / f"{name}-{info.get('phase', 'run')}.py"
    path.write_text("import json\n" + source)
    return path


def _full(result) -> bool:
    return result.status == "graded" and result.score >= result.max_score


def _verdict(name: str, session, problems: list[str], text: str) -> None:
    mode, box = session.mode, session.sandbox
    if name in leaks(mode, box):
        if problems:
            pytest.xfail(f"{mode} mode does not contain {name}: {problems[0]}")
        if name == "across-keyring" and box.mode != "rlimits":
            pytest.skip("the two runs had different worker uids (another grader held a slot), so a per-uid "
                        "keyring could not show the leak this time")
        said = text[text.find("nothing shared"):][:160] if "nothing shared" in text else text[:300]
        pytest.fail(f"{name} was expected to leak in {mode} mode but was contained ({said}); update leaks()")
    assert not problems, f"{name} in {mode} mode: {problems}\n{text[:1500]}"
    expected = EXPECTED.get(name, DENIED if "seccomp" in box.layers else "")
    assert expected in text, f"expected {expected!r} in the result of {name} in {mode} mode:\n{text[:1500]}"


@pytest.mark.parametrize("name", ACROSS)
def test_nothing_passes_from_one_run_to_the_next(name, session, world):
    """A correct submission leaves its code in a kernel object; a later one with no code of its own reads it."""
    store = grade.grade_file(_prepare(name, {**world.info, "phase": "store"}, world.folder), session)
    assert _full(store), f"the storing run must be graded as correct: {store.to_json()[:1500]}"
    read = grade.grade_file(_prepare(name, {**world.info, "phase": "read"}, world.folder), session)
    text = read.to_json()
    problems = []
    if _full(read):
        problems.append(f"a later run got full marks from what an earlier one stored ({read.score})")
    if "nothing shared" not in text and not problems:
        problems.append("the reading run did not say why it found nothing")
    if _leftovers():
        problems.append(f"processes left behind: {_leftovers()[:3]}")
    _verdict(name, session, problems, text)


@pytest.mark.parametrize("name", SINGLE)
def test_kernel_attack_is_contained(name, session, world):
    started = time.monotonic()
    result = grade.grade_file(_prepare(name, world.info, world.folder), session)
    text = result.to_json()
    problems = world.reached()
    if "LEAK" in text:
        problems.append("the result shows a leak: " + text[text.index("LEAK"):][:200])
    if _full(result):
        problems.append("full marks")
    if result.status not in ("graded", "error"):
        problems.append(f"status {result.status}")
    if time.monotonic() - started > 30:
        problems.append("grading took too long")
    if _leftovers():
        problems.append(f"processes left behind: {_leftovers()[:3]}")
    _verdict(name, session, problems, text)


def test_layers_named(session):
    box = session.sandbox
    if box.mode in ("bwrap", "landlock") and not session.mode.endswith("no-seccomp"):
        assert "seccomp" in box.layers or box.warnings
    if box.mode == "landlock" and os.geteuid() == 0:
        assert "worker-uid" in box.layers or any("worker uid" in w for w in box.warnings)
