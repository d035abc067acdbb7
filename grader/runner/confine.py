"""In-process confinement the child applies to itself before any student code runs.

The parent decides the settings (``grader.sandbox``); this module only applies them, with the standard library.
Every layer is best effort where the platform lacks it; the parent already knows which layers the machine has
(``Sandbox.layers``) and a layer that was asked for but did not take hold makes the child stop (``required``).

Order matters: rlimits; a size-capped private scratch (a mount, so while still root); the imports made
reachable and the Landlock rules built (they open paths, so with root's access); the switch to the worker uid;
PR_SET_PDEATHSIG (the kernel clears it on a uid change); Landlock enforced; the seccomp filter last (it denies
``mount`` and ``unshare``, which the steps before it need).
"""
from __future__ import annotations

import os
import stat
import sys

try:
    import resource
except ImportError:  # not on Windows
    resource = None

_LIMITS = {
    "address_space": "RLIMIT_AS",
    "cpu_seconds": "RLIMIT_CPU",
    "file_size": "RLIMIT_FSIZE",
    "open_files": "RLIMIT_NOFILE",
    "processes": "RLIMIT_NPROC",
    "core": "RLIMIT_CORE",
}
PR_SET_PDEATHSIG = 1
PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS = 24, 38
CLONE_NEWNS = 0x00020000
MS_NOSUID, MS_NODEV, MS_REC, MS_PRIVATE = 0x2, 0x4, 0x4000, 0x40000
#: The environment variable through which the parent names the worker uid of the slot it took for this run.
WORKER_UID_VARIABLE = "GRADER_WORKER_UID"
SCRATCH_INODES = 8192
_here = os.path.dirname(os.path.abspath(__file__))


def apply(settings: dict) -> list[str]:
    applied = []
    linux = sys.platform.startswith("linux")
    required = bool(settings.get("required"))
    _set_rlimits(settings.get("rlimits", {}), applied)
    uid = os.environ.pop(WORKER_UID_VARIABLE, None)
    uid = int(uid) if uid and uid.isdigit() and settings.get("worker_uid") and linux else None
    if settings.get("worker_uid") and uid is None:
        _stop(required, "no worker uid was given for this run")
    if settings.get("scratch_mib") and linux:
        try:
            private_scratch(int(settings["scratch_mib"]), uid)
            applied.append("scratch-cap")
        except OSError as exc:
            _stop(required, f"the scratch folder could not be capped ({exc})")
    if uid is not None:
        reach_imports()
    ruleset = None
    rules = settings.get("landlock")
    if rules:
        import landlock  # noqa: E402  (next to this file, in the runner folder)

        write = list(rules.get("write", ()))
        if rules.get("write_cwd"):
            write.append(os.getcwd())
        try:
            ruleset, _ = landlock.prepare(list(rules.get("read", ())), write, deny_tcp=True, scope=True)
        except OSError as exc:
            _stop(rules.get("required"), f"Landlock could not be applied ({exc})")
    if uid is not None:
        try:
            become(uid)
            applied += ["worker-uid", "caps-dropped"]
        except OSError as exc:
            _stop(required, f"the worker uid could not be taken ({exc})")
    elif settings.get("drop_caps") and linux:
        if _drop_capabilities():
            applied.append("caps-dropped")
        else:
            _stop(required, "capabilities could not be dropped")
    if settings.get("pdeathsig") and linux:
        # After the uid switch (the kernel clears it then): die with the process that started us.
        try:
            import signal

            _libc().prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
            if os.getppid() == 1 and not settings.get("pid_namespace"):
                os._exit(70)  # the grader is already gone
            applied.append("pdeathsig")
        except (OSError, AttributeError):
            pass
    if ruleset is not None:
        import landlock  # noqa: E402

        try:
            landlock.enforce(ruleset)
            applied.append("landlock")
        except OSError as exc:
            _stop(rules.get("required"), f"Landlock could not be applied ({exc})")
    if settings.get("seccomp") and linux:
        import seccomp  # noqa: E402  (next to this file, in the runner folder)

        try:
            seccomp.install()
            applied.append("seccomp")
        except OSError as exc:
            _stop(required, f"the seccomp filter could not be installed ({exc})")
    return applied


def _stop(required, why: str) -> None:
    if required:
        os.write(2, f"grader sandbox: {why}\n".encode())
        os._exit(71)


def _set_rlimits(values: dict, applied: list[str]) -> None:
    if resource is None:
        return
    for key, value in values.items():
        name = _LIMITS.get(key)
        if name is None or not hasattr(resource, name):
            continue
        which = getattr(resource, name)
        try:
            _, hard = resource.getrlimit(which)
            value = int(value)
            if hard != resource.RLIM_INFINITY:
                value = min(value, hard)
            resource.setrlimit(which, (value, value))
            applied.append(key)
        except (ValueError, OSError):
            pass


_libc_handle = None


def _libc():
    """The C library, loaded once per process (a forked child finds it loaded: loading it again would cost the child
    its time and, touching memory it shares with its template, its copies of pages)."""
    global _libc_handle
    if _libc_handle is None:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
        libc.syscall.restype = ctypes.c_long
        for name in ("prctl", "unshare", "setns"):  # looked up now, not in each child
            getattr(libc, name)
        _libc_handle = libc
    return _libc_handle


def _check(result: int, what: str) -> None:
    if result != 0:
        import ctypes

        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def private_scratch(mib: int, uid: int | None) -> None:
    """Mount a size-capped tmpfs over the working folder, seen by this process and its children only.

    Needs root (CAP_SYS_ADMIN), once: a private mount namespace, so the host's mount table never changes and the
    mount goes away with the last process of the run. Its pages are also charged to the run's memory cgroup.
    """
    libc = _libc()
    here = os.getcwd()
    _check(libc.unshare(CLONE_NEWNS), "unshare(CLONE_NEWNS)")
    _check(libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None), "mount --make-rprivate /")
    options = f"size={int(mib)}m,nr_inodes={SCRATCH_INODES},mode=0700"
    if uid is not None:
        options += f",uid={uid},gid={uid}"
    _check(libc.mount(b"tmpfs", here.encode(), b"tmpfs", MS_NOSUID | MS_NODEV, options.encode()), "mount tmpfs")
    os.chdir(here)  # onto the new mount


def _others_can_read(path: str, searchable: dict[str, bool] | None = None) -> bool:
    """Whether a uid that owns nothing and is in no group can list ``path`` (every parent searchable).

    ``searchable``: what is known of parents already (the import folders share most of theirs), filled in."""
    searchable = {} if searchable is None else searchable
    real = os.path.realpath(path)
    try:
        if os.stat(real).st_mode & (stat.S_IROTH | stat.S_IXOTH) != stat.S_IROTH | stat.S_IXOTH:
            return False
        parent = real
        while parent != os.path.dirname(parent):
            parent = os.path.dirname(parent)
            if parent not in searchable:
                searchable[parent] = bool(os.stat(parent).st_mode & stat.S_IXOTH)
            if not searchable[parent]:
                return False
    except OSError:
        return False
    return True


def reach_imports(force: bool = False) -> dict[str, str]:
    """Keep the import folders reachable after the switch to a worker uid; returns {old: new} paths.

    A Python under root's 0700 home folder cannot be reached by another uid. A directory opened now (O_PATH)
    stays reachable as /proc/self/fd/N: resolving that magic link skips the permission checks of its parents.
    The folders' own files must be readable by others (they are in a normal install). Landlock still decides
    which files may be read: it looks at where a file really is, not at the path used.
    """
    moved: dict[str, str] = {}
    # per entry: others can read it (True), it must be moved (False), not a folder (None); sys.path repeats entries
    state: dict[str, bool | None] = {}
    searchable: dict[str, bool] = {}
    for index, entry in enumerate(sys.path):
        if not isinstance(entry, str) or not os.path.isabs(entry):
            continue
        if entry not in state:
            state[entry] = (not force and _others_can_read(entry, searchable)) if os.path.isdir(entry) else None
        if state[entry] is not False:
            continue
        if entry not in moved:
            fd = os.open(entry, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
            moved[entry] = f"/proc/self/fd/{fd}"
        sys.path[index] = moved[entry]
    if not moved:
        return moved

    def rename(path):
        for old, new in moved.items():
            if isinstance(path, str) and (path == old or path.startswith(old + os.sep)):
                return new + path[len(old):]
        return path

    for module in list(sys.modules.values()):  # packages already imported look for submodules in __path__
        search = getattr(module, "__path__", None)
        if isinstance(search, list):
            search[:] = [rename(p) for p in search]
    sys.path_importer_cache.clear()
    return moved


def become(uid: int) -> None:
    """Switch for good to ``uid`` (its own group, no supplementary groups, no capabilities left)."""
    libc = _libc()
    clear_bounding_set()
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)  # all three non-zero: the kernel clears the permitted and effective sets
    libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    if os.getresuid() != (uid, uid, uid) or os.getresgid() != (uid, uid, uid) or os.getgroups():
        raise OSError(1, "the uid switch did not take hold")
    if not _no_capabilities():
        raise OSError(1, "capabilities remain after the uid switch")


def _no_capabilities() -> bool:
    fd = os.open("/proc/self/status", os.O_RDONLY | os.O_CLOEXEC)  # no buffered text layer: little to allocate
    try:
        data = b""
        while True:
            more = os.read(fd, 4096)
            if not more:
                break
            data += more
    finally:
        os.close(fd)
    sets = [line.split()[1] for line in data.splitlines()
            if line.startswith((b"CapEff", b"CapPrm", b"CapBnd", b"CapAmb"))]
    return len(sets) == 4 and all(value.strip(b"0") == b"" for value in sets)


_bounding_set_empty = False


def clear_bounding_set() -> None:
    """Empty the bounding set, while CAP_SETPCAP is held: no capability can be gained by exec any more (those held
    stay until dropped).

    Once every drop took, it is done for this process's children too: they inherit the set, which can only shrink.
    A template clears its own before it forks anything, so its runs' inits and runners find it done (about 0.15 ms
    of CPU each, 41 system calls through ctypes in a freshly forked process); a runner's ``become`` still checks,
    from ``/proc``, that its set is empty."""
    global _bounding_set_empty
    if _bounding_set_empty:
        return
    import ctypes

    libc = _libc()
    complete = True
    for cap in range(64):
        if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            if ctypes.get_errno() == 22:  # EINVAL: past the last
                break
            complete = False
    _bounding_set_empty = complete


_capset: tuple = ()


def capset_arguments() -> tuple:
    """(the C library, capset's number, its header, its data: no capability at all), made once per process."""
    global _capset
    if not _capset:
        import ctypes
        import struct

        header = ctypes.create_string_buffer(struct.pack("=Ii", 0x20080522, 0), 8)  # _LINUX_CAPABILITY_VERSION_3
        data = ctypes.create_string_buffer(b"\0" * 24, 24)  # effective, permitted, inheritable: none
        _capset = (_libc(), 126 if _x86_64() else 91, header, data)
    return _capset


def drop_held() -> bool:
    """Drop every capability held (effective, permitted, inheritable) and set no_new_privs; True when both took. A
    forked init calls it with its bounding set already empty and its arguments made before the fork: few pages to
    copy."""
    try:
        libc, number, header, data = capset_arguments()
        return libc.syscall(number, header, data) == 0 and libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _drop_capabilities() -> bool:
    """A root child without a worker uid keeps uid 0 but loses every capability, for good (bounding set too)."""
    try:
        clear_bounding_set()
    except (OSError, AttributeError):
        return False
    return drop_held() and _no_capabilities()


def _x86_64() -> bool:
    import platform

    return platform.machine() == "x86_64"


_steps: dict[int, tuple[bool, bool, list[str]]] = {}


def landlock_root_steps(uid: int) -> tuple[bool, bool, list[str]]:
    """For the parent, once per process: (worker uid works, scratch cap works, warnings) in Landlock mode.

    Both need root; they are tried in a throw-away child (``probe``) started as root with ``uid`` (a uid no slot
    uses, so that no other grader's sweep kills the probe).
    """
    if uid in _steps:
        return _steps[uid]
    import json
    import shutil
    import subprocess
    import tempfile

    per_file = "The scratch folder is capped per file only (file_mib), not in total"
    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        return False, False, [f"{per_file}: run as root for a size-capped one."]
    folder = tempfile.mkdtemp(prefix="grader-probe-")
    code = ("import json, sys; sys.path.insert(0, sys.argv[1]); import confine; "
            "print(json.dumps(confine.probe(int(sys.argv[2]), sys.argv[3])))")
    try:
        done = subprocess.run([os.path.realpath(sys.executable), "-I", "-S", "-B", "-c", code, _here, str(uid),
                               folder], capture_output=True, timeout=30, env={"PATH": "/usr/bin:/bin"})
        found = json.loads(done.stdout.decode() or "{}")
        if done.returncode != 0 or not isinstance(found, dict):
            raise ValueError(done.stderr.decode(errors="replace").strip()[-200:] or f"exit code {done.returncode}")
    except (OSError, ValueError, subprocess.TimeoutExpired) as exc:
        found = {"scratch": f"the probe failed ({exc})", "uid": f"the probe failed ({exc})"}
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    why_uid, why_scratch = str(found.get("uid", "not probed"))[:160], str(found.get("scratch", "not probed"))[:160]
    notes = []
    if why_uid:
        notes.append(f"Student code runs as root with capabilities dropped, not as a worker uid ({why_uid}): the "
                     "processes limit does not hold.")
    if why_scratch:
        notes.append(f"{per_file} ({why_scratch}).")
    _steps[uid] = (not why_uid, not why_scratch, notes)
    return _steps[uid]


def probe(uid: int, folder: str) -> dict[str, str]:
    """Run by the parent once, in a throw-away process started as root in an empty ``folder``: which of the
    root-only steps work on this machine. Values are empty when the step works, else why not."""
    found = {"scratch": "", "uid": ""}
    try:
        os.chdir(folder)
        private_scratch(1, uid)
        with open("probe", "wb") as handle:
            handle.write(b"x")
    except OSError as exc:
        found["scratch"] = str(exc)
    try:
        reach_imports()
        become(uid)
        import fractions  # noqa: F401  (not imported yet: read from the stdlib after the switch)
    except (OSError, ImportError) as exc:
        found["uid"] = f"{type(exc).__name__}: {exc}"
    return found
