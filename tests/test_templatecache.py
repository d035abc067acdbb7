"""Compiled templates kept between runs: the same pages, an edited template recompiled, only a safe folder used."""
from __future__ import annotations

import os
import subprocess
import sys

import jinja2
from grader import templatecache


def _environment(folder, cache_folder):
    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(folder)), autoescape=True,
                              bytecode_cache=templatecache.TemplateCache(str(cache_folder), "html"))


def test_an_edited_template_is_compiled_again_not_served_from_the_cache(tmp_path):
    pages, cache = tmp_path / "pages", tmp_path / "cache"
    pages.mkdir()
    cache.mkdir(mode=0o700)
    (pages / "p.j2").write_text("old {{ x }}")
    assert _environment(pages, cache).get_template("p.j2").render(x="<b>") == "old &lt;b&gt;"
    assert len(list(cache.iterdir())) == 1
    assert _environment(pages, cache).get_template("p.j2").render(x=1) == "old 1"  # from the cache
    (pages / "p.j2").write_text("new {{ x }}")
    assert _environment(pages, cache).get_template("p.j2").render(x=1) == "new 1"


def test_a_damaged_entry_is_compiled_again(tmp_path):
    pages, cache = tmp_path / "pages", tmp_path / "cache"
    pages.mkdir()
    cache.mkdir(mode=0o700)
    (pages / "p.j2").write_text("page {{ x }}")
    _environment(pages, cache).get_template("p.j2")
    entry = next(cache.iterdir())
    header = entry.read_bytes().split(b"\n", 2)
    entry.write_bytes(header[0] + b"\n" + header[1] + b"\nnot marshal data")
    assert _environment(pages, cache).get_template("p.j2").render(x=2) == "page 2"
    entry.write_bytes(b"garbage")
    assert _environment(pages, cache).get_template("p.j2").render(x=3) == "page 3"


def test_a_folder_others_can_write_into_is_never_used(tmp_path, monkeypatch):
    shared = tmp_path / "xdg" / "grader" / "templates"
    shared.mkdir(parents=True)
    shared.chmod(0o777)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr(templatecache.tempfile, "gettempdir", lambda: str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    folder = templatecache.user_folder()
    assert folder == str(tmp_path / "tmp" / f"grader-templates-{os.getuid()}")
    link = tmp_path / "tmp" / f"grader-templates-{os.getuid()}"
    os.rmdir(link)
    os.symlink(shared, link)  # a link to the unsafe folder is not followed either
    assert templatecache.user_folder() is None


def test_the_report_templates_load_from_the_cache_as_compiled(tmp_path):
    """A first process compiles the page templates into the user's folder; a second one loads exactly that code."""
    code = ("import marshal, sys; from grader import report, templatecache\n"
            "for name, html in [('report.html.j2', True), ('report.md.j2', False), ('summary.html.j2', True), "
            "('similarity.html.j2', True)]:\n"
            "    env = report.environment(html); env.get_template(name)\n"
            "    source, filename, _ = env.loader.get_source(env, name)\n"
            "    cache = env.bytecode_cache; bucket = cache.get_bucket(env, name, filename, source)\n"
            "    assert bucket.code == env.compile(source, name, filename), name\n")
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "xdg"))
    for _ in range(2):
        run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
        assert run.returncode == 0, run.stderr[-2000:]
    entries = sorted(p.name for p in (tmp_path / "xdg" / "grader" / "templates").iterdir())
    assert len(entries) == 4 and all(name.endswith(".code") for name in entries), entries
