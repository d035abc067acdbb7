"""What a start would compute again, kept between runs: the programs of regular expressions (``regexcache``) and the
parse of TOML texts (``tomlcache``). A second process builds its patterns from the first one's programs and they match
exactly as compiled ones; a damaged or foreign file is made again, and a folder others can write into is never used;
a kept parse reads back as the text parses."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from grader import regexcache

mirrored = pytest.mark.skipif(sys.version_info[:2] not in regexcache.MIRRORED,
                              reason="the kept programs serve only the Python versions regexcache mirrors")

#: a process that compiles patterns of every kind (groups, names, flags, bytes, inline flags, lookarounds) and
#: checks what they match; it prints how many programs it holds and how many it made
PROGRAM = r"""
import re, sys
from grader import regexcache
regexcache.install()
from re import _compiler
assert _compiler.compile is regexcache._compile
cases = [
    (r"(?P<year>\d{4})-(?P<month>\d\d)", 0, "on 2026-12 and", ("2026", "12"), {"year": 1, "month": 2}),
    (r"^\s*#\s*(\w+)", re.M, "x\n  # tag here", ("tag",), {}),
    (r"(?i)caf\u00e9(s)?", 0, "CAF\u00c9S", ("S",), {}),
    (r"(?<=a)b(?!c)", 0, "abd", (), {}),
    (r"(\w+)\s\1", re.ASCII, "hello hello", ("hello",), {}),
    (rb"\x00(\xff+)", 0, b"a\x00\xff\xff", (b"\xff\xff",), {}),
    (r"[^\W\d_]+", re.UNICODE | re.IGNORECASE, "42 \u00c9t\u00e9", (), {}),
    (r"a.c", re.S | re.X, "a\nc", (), {}),
]
for pattern, flags, text, groups, index in cases:
    compiled = re.compile(pattern, flags)
    assert compiled.pattern == pattern and compiled.groupindex == index, pattern
    found = compiled.search(text)
    assert found is not None and found.groups() == groups, (pattern, found)
assert re.compile(r"(?x) a b # comment").flags & re.X
assert re.sub(r"(\d+)", lambda m: str(int(m.group(1)) * 2), "3 and 21") == "6 and 42"
assert re.compile("(?P<x>a)|(?P<y>b)").match("b").lastgroup == "y"
import grader.escape, grader.hints  # the grader's own patterns, from the kept programs on the second run
print(len(regexcache._programs), regexcache._added)
"""


def _run(env):
    done = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    return [int(n) for n in done.stdout.split()]


def _entry(tmp_path):
    return tmp_path / "xdg" / "grader" / "regex" / "programs.marshal"


@mirrored
def test_a_second_process_makes_no_program_and_its_patterns_match_the_same(tmp_path):
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "xdg"))
    kept, made = _run(env)
    assert made == kept > 20  # the first makes every program and keeps it
    assert _entry(tmp_path).is_file() and _entry(tmp_path).stat().st_mode & 0o077 == 0
    assert _run(env) == [kept, 0]  # the second makes none, and its patterns pass the same checks


@mirrored
def test_a_damaged_or_foreign_file_is_made_again(tmp_path):
    import marshal

    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "xdg"))
    kept, _ = _run(env)
    entry = _entry(tmp_path)
    good = entry.read_bytes()
    header = good[:good.index(b"\n") + 1]
    entries = marshal.loads(good[len(header):])
    wrong = {key: (flags, [opcode ^ 0x55 for opcode in code], groups, index, names, age)
             for key, (flags, code, groups, index, names, age) in entries.items()}
    for damaged in (header + b"not marshal data", b"garbage", header.replace(b"/1 ", b"/0 ") + good[len(header):]):
        entry.write_bytes(damaged)
        assert _run(env) == [kept, kept]
    entry.write_bytes(header + marshal.dumps(wrong))  # programs _sre refuses: each is made again, none is used
    assert _run(env)[1] > 20


@mirrored
def test_a_folder_others_can_write_into_is_never_used(tmp_path):
    shared = tmp_path / "xdg" / "grader" / "regex"
    shared.mkdir(parents=True)
    shared.chmod(0o777)
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "xdg"), TMPDIR=str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    _run(env)
    assert not (shared / "programs.marshal").exists()


@mirrored
def test_a_pattern_that_changes_from_run_to_run_does_not_pile_up(tmp_path):
    """A pattern built from a set's order (tokenize's, for one) is new in every run: an entry unused for
    ``MAX_AGE`` runs leaves the file, so it never grows past what the runs use."""
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "xdg"))
    changing = PROGRAM.replace("print(len(", "re.compile('|'.join({'ab', 'cd', 'ef', 'gh', 'ij'}))\nprint(len(")
    sizes = []
    for seed in range(regexcache.MAX_AGE + 4):
        done = subprocess.run([sys.executable, "-c", changing], capture_output=True, text=True,
                              env=dict(env, PYTHONHASHSEED=str(seed)), timeout=60)
        assert done.returncode == 0, done.stderr[-2000:]
        sizes.append(int(done.stdout.split()[0]))
    assert max(sizes) <= sizes[0] + regexcache.MAX_AGE + 1  # the first run's, and at most one per run kept


# -- the parse of TOML texts kept per user (``grader/tomlcache.py``) ----------------------------------------------
TOML_PROGRAM = r"""
import sys
from grader import tomlcache
text = sys.stdin.read()
first = tomlcache.loads(text)
first["changed"] = True  # a caller's change never reaches the next caller
second = tomlcache.loads(text)
assert "changed" not in second, second
print(repr(second))
print(tomlcache._added)
"""


def _toml(env, text):
    done = subprocess.run([sys.executable, "-c", TOML_PROGRAM], input=text, capture_output=True, text=True,
                          env=env, timeout=60)
    return done.returncode, done.stdout.splitlines(), done.stderr


def test_a_toml_text_is_parsed_once_per_user_and_read_back_the_same(tmp_path):
    import tomllib

    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "xdg"))
    text = 'function = "f"\n[[checks]]\nid = "a"\npoints = 1.5\ntags = ["x", "y"]\n[limits]\nseconds = 2\n'
    code, (parsed, made), _ = _toml(env, text)
    assert code == 0 and made == "1" and parsed == repr(tomllib.loads(text))
    code, (again, made), _ = _toml(env, text)
    assert code == 0 and made == "0" and again == parsed  # read back, not parsed again
    code, (other, made), _ = _toml(env, text + "extra = 1\n")  # another text is another entry
    assert code == 0 and made == "1" and "extra" in other
    dated = "when = 2026-12-04T10:00:00Z\n"  # what marshal cannot keep is parsed every time, never lost
    for _ in range(2):
        code, (value, made), _ = _toml(env, dated)
        assert code == 0 and made == "0" and "datetime.datetime(2026, 12, 4, 10, 0" in value
    code, _, error = _toml(env, "bad = [\n")  # a TOML error is tomllib's own
    assert code != 0 and "TOMLDecodeError" in error
