"""How every file of an output folder is written: whole or not at all, with the modes asked for whatever the umask,
never through a link, and without a temporary file left behind."""
from __future__ import annotations

import os
import stat
import threading

import pytest

from grader import outfolder


def mode(path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


@pytest.fixture(params=[0o022, 0o077, 0o000], ids=["umask-022", "umask-077", "umask-000"])
def umask(request):
    previous = os.umask(request.param)
    yield request.param
    os.umask(previous)


@pytest.mark.parametrize("private", [False, True])
def test_write_atomic_writes_text_as_utf8_and_bytes_as_they_are_with_the_mode_asked(tmp_path, umask, private):
    outfolder.write_atomic(tmp_path / "a.txt", "é\ud800\n", private=private)  # a lone surrogate cannot be encoded
    outfolder.write_atomic(tmp_path / "b.bin", b"\x00\xff", private=private)
    assert (tmp_path / "a.txt").read_bytes() == "é?\n".encode()
    assert (tmp_path / "b.bin").read_bytes() == b"\x00\xff"
    expected = outfolder.PRIVATE_FILE_MODE if private else outfolder.FILE_MODE
    assert mode(tmp_path / "a.txt") == mode(tmp_path / "b.bin") == expected
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "b.bin"]  # no temporary file left


def test_write_atomic_replaces_a_file_and_a_link_without_following_it(tmp_path):
    target = tmp_path / "elsewhere.txt"
    target.write_text("not ours\n")
    (tmp_path / "report.html").symlink_to(target)
    outfolder.write_atomic(tmp_path / "report.html", "new\n")
    assert not (tmp_path / "report.html").is_symlink() and (tmp_path / "report.html").read_text() == "new\n"
    assert target.read_text() == "not ours\n"
    outfolder.write_atomic(tmp_path / "report.html", "")  # an empty file is a file too
    assert (tmp_path / "report.html").read_bytes() == b""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elsewhere.txt", "report.html"]


def test_write_atomic_makes_missing_folders_with_the_folder_mode(tmp_path, umask):
    outfolder.write_atomic(tmp_path / "x" / "y" / "f.json", "{}\n", private=True)
    assert mode(tmp_path / "x") == mode(tmp_path / "x" / "y") == outfolder.PRIVATE_FOLDER_MODE
    outfolder.write_atomic(tmp_path / "p" / "f.json", "{}\n")
    assert mode(tmp_path / "p") == outfolder.FOLDER_MODE and (tmp_path / "p" / "f.json").read_text() == "{}\n"


def test_a_temporary_file_left_by_a_killed_run_is_neither_reused_nor_changed(tmp_path):
    """A killed run of the same process id (a container's pid 1 restarted) left its temporary file: the write
    takes another name, and the leftover (or a link planted at that name) is left as it was."""
    leftover = tmp_path / f".result.json.{os.getpid()}-{threading.get_ident()}.tmp"
    leftover.symlink_to(tmp_path / "planted")
    outfolder.write_atomic(tmp_path / "result.json", "done\n")
    assert (tmp_path / "result.json").read_text() == "done\n" and not (tmp_path / "planted").exists()
    assert leftover.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([leftover.name, "result.json"])


def test_a_name_without_a_folder_is_written_in_the_working_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    outfolder.write_atomic("plain.txt", "a\n")
    (tmp_path / f".plain.txt.{os.getpid()}-{threading.get_ident()}.tmp").write_text("left by a killed run\n")
    outfolder.write_atomic("plain.txt", "b\n")  # through a random name, still here
    assert (tmp_path / "plain.txt").read_text() == "b\n" and len(os.listdir(tmp_path)) == 2


def test_a_failed_write_leaves_what_was_there_and_no_temporary_file(tmp_path):
    (tmp_path / "report.html").mkdir()  # a folder where the file goes: the rename fails
    with pytest.raises(IsADirectoryError):
        outfolder.write_atomic(tmp_path / "report.html", "x")
    assert (tmp_path / "report.html").is_dir() and os.listdir(tmp_path) == ["report.html"]


def test_own_folder_makes_a_folder_or_resets_its_mode(tmp_path, umask):
    folder = outfolder.own_folder(tmp_path / "students" / "ana", private=True)
    assert folder == tmp_path / "students" / "ana" and folder.is_dir()
    assert mode(tmp_path / "students") == mode(folder) == outfolder.PRIVATE_FOLDER_MODE
    outfolder.own_folder(folder)  # a rerun without --private opens it again
    assert mode(folder) == outfolder.FOLDER_MODE
    os.chmod(folder, 0o711)
    outfolder.own_folder(folder, private=True)
    assert mode(folder) == outfolder.PRIVATE_FOLDER_MODE


def test_own_folder_refuses_a_file_in_its_place_and_leaves_the_file_alone(tmp_path):
    taken = tmp_path / "ben"
    taken.write_text("a file where ben's folder goes\n")
    os.chmod(taken, 0o640)
    with pytest.raises(FileExistsError):
        outfolder.own_folder(taken)
    assert mode(taken) == 0o640 and taken.read_text() == "a file where ben's folder goes\n"
