"""The compiled methods of dataclasses kept between runs (``grader/classcache.py``): a second process builds its
classes from the first one's code and they behave exactly as compiled ones; a damaged, foreign or unsafe cache is
never used."""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile

from grader import classcache

#: a process that defines classes with every kind of generated method and checks what they do
PROGRAM = r"""
import dataclasses, sys
from grader import classcache
classcache.install()
assert dataclasses.exec is classcache._exec
from dataclasses import dataclass, field, FrozenInstanceError

@dataclass(frozen=True, order=True)
class Point:
    x: int
    y: int = 2
    tags: tuple = ()

@dataclass
class Bag:
    items: list = field(default_factory=list)
    name: str = "bag"

p = Point(1)
assert (p.x, p.y, p.tags) == (1, 2, ()) and repr(p) == "Point(x=1, y=2, tags=())"
assert p == Point(1, 2) and p < Point(2) and hash(p) == hash(Point(1, 2))
try:
    p.x = 3
except FrozenInstanceError:
    pass
else:
    raise AssertionError("a frozen instance was changed")
a, b = Bag(), Bag()
a.items.append(1)
assert b.items == [] and repr(a) == "Bag(items=[1], name='bag')" and a != b
import grader.results, grader.outcomes  # the grader's own classes, from the cache on the second run
print(len(classcache._codes), classcache._added)
"""


def _run(env):
    done = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    return [int(n) for n in done.stdout.split()]


def test_a_second_process_compiles_nothing_and_its_classes_behave_the_same(tmp_path):
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "xdg"))
    cached, added = _run(env)
    assert added == cached > 20  # the first compiles every method and keeps it
    entry = tmp_path / "xdg" / "grader" / "classes" / "dataclass-methods.code"
    assert entry.is_file() and entry.stat().st_mode & 0o077 == 0
    assert _run(env) == [cached, 0]  # the second compiles none, and its classes pass the same checks


def test_a_damaged_or_foreign_cache_is_compiled_again(tmp_path):
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "xdg"))
    cached, _ = _run(env)
    entry = tmp_path / "xdg" / "grader" / "classes" / "dataclass-methods.code"
    for damaged in (classcache.HEADER + b"not marshal data", b"garbage",
                    classcache.HEADER.replace(b"/1 ", b"/0 ") + entry.read_bytes()[len(classcache.HEADER):]):
        entry.write_bytes(damaged)
        assert _run(env) == [cached, cached]


def test_a_folder_others_can_write_into_is_never_used(tmp_path, monkeypatch):
    shared = tmp_path / "xdg" / "grader" / "classes"
    shared.mkdir(parents=True)
    shared.chmod(0o777)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr(tempfile, "gettempdir", lambda: str(tmp_path / "tmp"))  # loaded by classcache on use
    (tmp_path / "tmp").mkdir()
    assert classcache.user_folder("classes") == str(tmp_path / "tmp" / f"grader-classes-{os.getuid()}")
    link = tmp_path / "tmp" / f"grader-classes-{os.getuid()}"
    os.rmdir(link)
    os.symlink(shared, link)
    assert classcache.user_folder("classes") is None


def test_entries_no_class_uses_any_more_drop_out_past_the_limit(tmp_path):
    """Classes renamed or changed leave their methods behind: a file stays within ``MAX_ENTRIES``, keeping what the
    last process used first."""
    import marshal

    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "xdg"))
    cached, _ = _run(env)
    entry = tmp_path / "xdg" / "grader" / "classes" / "dataclass-methods.code"
    current = marshal.loads(entry.read_bytes()[len(classcache.HEADER):])
    stale = {f"def __create_fn__():\n def old_{n}(self):\n  return {n}\n return old_{n}": compile("0", "<s>", "exec")
             for n in range(classcache.MAX_ENTRIES)}
    entry.write_bytes(classcache.HEADER + marshal.dumps({**stale, **current}))
    extra = "@dataclass\nclass Brand_new:\n    only_here: int = 0\n"
    done = subprocess.run([sys.executable, "-c", PROGRAM.replace("p = Point(1)", extra + "p = Point(1)")],
                          capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    kept = marshal.loads(entry.read_bytes()[len(classcache.HEADER):])
    assert len(kept) == classcache.MAX_ENTRIES
    assert set(current) <= set(kept) and any("only_here" in text for text in kept)
    assert _run(env) == [len(kept), 0]  # nothing compiled again
