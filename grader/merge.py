"""Many machines: ``grader grade DIR --shard I/N`` grades a stable slice of the class, ``grader merge`` joins the
slices into the output of one run.

A student belongs to shard ``1 + H(id) mod N`` (``H``: the first 8 bytes of the SHA-256 of the id as shown), so a
shard is the same slice on every machine and for every rerun. Every shard discovers the whole class folder, so the
ids, the student folders and the notes are those of one unsharded run.

Each run with ``--out`` writes ``OUT/manifest.json`` last (and removes it first, so a run killed half-way leaves
none): the shard, the run's settings, the whole class roster, the students this shard finished with a digest of
each ``result.json``, the notes and the entries left out; ``complete`` is false when the run was stopped
(Ctrl-C). The manifest and every ``result.json`` are signed with the course secret (``signing``).

``merge`` refuses, each with a sentence: a folder without a manifest (an interrupted or unfinished shard), a
manifest or result that is unsigned, signed with another secret or changed after signing, shards of another
exercise version, full-scale setting, grader version or class roster, the same shard or student twice, a result
that is not the one the manifest lists (swapped, copied from another run) or whose student is not the one its
folder and shard say. An incomplete set (a stopped shard, a missing one) is merged only with
``--allow-incomplete``, and the class files then say so. What it writes is what one run would have written: the
students' folders copied as they are, the class files made from the same results, notes and roster (only the
measured times differ from an unsharded run, as they do between any two runs).
"""
from __future__ import annotations

import hashlib
import json
import os
import stat
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Sequence

from . import escape, gradebook, outfolder, report, signing
from .classfolder import Entry, Plan
from .errors import UsageError
from .results import GradeResult

MANIFEST = "manifest.json"
SCHEMA = "grader.manifest/1"
#: files of a student's folder that merge copies (what ``grade --out`` writes there)
STUDENT_FILES = ("result.json", "report.html", "report.md", "gradescope.json", ".grade-key.json")
#: the class's similarity report (``similarity_report.FILES``), copied from a shard: each compares the whole class
SIMILARITY_FILES = ("similarity.html", "similarity.csv")


class MergeError(UsageError):
    """Shard outputs that cannot be merged as they are (exit 2, with the sentence saying why)."""

    kind = "merge"


# -- shards -----------------------------------------------------------------------------------------------------
def parse_shard(text: str) -> tuple[int, int]:
    """``"I/N"`` -> (I, N) with 1 <= I <= N."""
    index, _, count = str(text).partition("/")
    try:
        i, n = int(index), int(count)
    except ValueError:
        i = n = 0
    if not (n >= 1 and 1 <= i <= n) or n > 100_000:
        raise UsageError(f"--shard takes I/N with 1 <= I <= N (e.g. --shard 2/4 for the second of four), not "
                         f"{escape.terminal(text, 40)!r}.")
    return i, n


def shard_of(student: str, count: int) -> int:
    """The shard (1..count) of a student id: stable across machines, runs and Python versions."""
    digest = hashlib.sha256(student.encode("utf-8", "surrogatepass")).digest()
    return 1 + int.from_bytes(digest[:8], "big") % count


def select(plan: Plan, index: int, count: int) -> Plan:
    """The part of ``plan`` that shard ``index`` of ``count`` grades (notes and left-out entries are the class's)."""
    return replace(plan, entries=tuple(e for e in plan.entries if shard_of(e.student, count) == index))


# -- the manifest -----------------------------------------------------------------------------------------------
def run_settings(exercise_id: str, exercise_version: str, full_scale: bool, grader: str) -> dict:
    """What must agree between shards (and what every result's signature records)."""
    return {"exercise": exercise_id, "exercise_version": exercise_version, "full_scale": bool(full_scale),
            "grader": grader}


def remove_manifest(out: Path) -> None:
    try:
        (Path(out) / MANIFEST).unlink()
    except FileNotFoundError:
        pass


def write_manifest(out: Path, *, whole: Plan, shard: tuple[int, int], graded: Sequence[Entry], settings: dict,
                   notes: Sequence[str], complete: bool, secret: str, private: bool = False,
                   assignment: str | None = None, title: str = "", similarity: dict | None = None) -> None:
    """Write ``OUT/manifest.json``, signed; ``graded``: the entries whose ``result.json`` is on disk now."""
    out = Path(out)
    finished = []
    for entry in graded:
        path = report.student_folder(out, entry.folder) / "result.json"
        try:
            digest = signing.file_digest(path.read_bytes())
        except OSError:
            continue
        finished.append({"student": entry.student, "folder": entry.folder, "result_sha256": digest})
    document = {
        "schema": SCHEMA,
        "exercise": settings["exercise"],
        "title": title or settings["exercise"],
        "shard": {"index": shard[0], "count": shard[1]},
        "complete": bool(complete),
        "layout": whole.layout,
        "assignment": assignment,
        "class": [{"student": e.student, "folder": e.folder, "submission": escape.terminal(str(e.path), 1000)}
                  for e in whole.entries],
        "graded": sorted(finished, key=lambda item: item["student"]),
        "notes": list(notes),
        "left_out": [list(item) for item in whole.left_out],
        "similarity": similarity,  # the summary's line about similarity.html (every shard compares the whole class)
    }
    text = json.dumps(signing.sign(document, secret, settings), indent=1, ensure_ascii=False) + "\n"
    report.write_atomic(out / MANIFEST, text, private=private)


# -- reading shard outputs --------------------------------------------------------------------------------------
@dataclass
class Shard:
    out: Path
    manifest: dict
    settings: dict
    results: dict[str, tuple[GradeResult, Path]] = field(default_factory=dict)  # student -> (result, its folder)

    @property
    def label(self) -> str:
        shard = self.manifest["shard"]
        return f"{escape.terminal(self.out)} (shard {shard['index']}/{shard['count']})"


def _read_json(path: Path, what: str) -> tuple[dict, bytes]:
    try:
        data = _read_regular(path)
        document = json.loads(data)
    except FileNotFoundError:
        raise MergeError(f"{what} is missing.") from None
    except (OSError, ValueError) as exc:
        raise MergeError(f"{what} cannot be read ({escape.terminal(exc, 200)}).") from None
    except RecursionError:  # damaged, or made by hand: no file the grader writes is nested so deep
        raise MergeError(f"{what} cannot be read (its JSON is nested thousands deep: not the grader's).") from None
    if not isinstance(document, dict):
        raise MergeError(f"{what} is not a JSON object.")
    return document, data


def _read_regular(path: Path) -> bytes:
    """A regular file's bytes, never through a link."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise OSError("not a regular file")
        return handle.read()


def read_shard(out: Path, secret: str, command: str = "merge") -> Shard:
    """One output folder, its manifest and every result it lists, each checked against its signature.
    ``command`` names the command reading it (``merge`` or ``export``) in a sentence about its secret."""
    out = Path(out)
    where = escape.terminal(out)
    if not out.is_dir():  # a typo, before any talk of an interrupted run
        raise MergeError(f"{where} {'is not a folder' if out.exists() else 'does not exist'}: give the output folder "
                         "of a `grader grade --out` run.")
    if not (out / MANIFEST).exists():
        raise MergeError(f"{where} has no {MANIFEST}: the run that wrote it was interrupted before it finished "
                         "(or this is not a grader output folder). Run the same `grader grade` command again to "
                         "finish it, then this one.")
    manifest, _ = _read_json(out / MANIFEST, f"{where}/{MANIFEST}")
    verdict = signing.verify(manifest, secret)
    if not verdict.ok:
        hint = _secret_hint(manifest, secret, command) if verdict.problem == "other-secret" else ""
        raise MergeError(verdict.sentence(f"{where}/{MANIFEST}") + hint + ".")
    if manifest.get("schema") != SCHEMA:
        raise MergeError(f"{where}/{MANIFEST} is not a {SCHEMA} document.")
    shard = Shard(out, manifest, verdict.run or {})
    count = manifest["shard"]["count"]
    roster = {item["student"]: item for item in manifest["class"]}
    for item in manifest["graded"]:
        student, folder = item["student"], item["folder"]
        what = f"{where}/{report.STUDENTS}/{escape.terminal(folder)}/result.json"
        if student not in roster or roster[student]["folder"] != folder:
            raise MergeError(f"{what} is listed for student {escape.terminal(student)!r}, who is not in the class "
                             "roster under that folder.")
        if shard_of(student, count) != manifest["shard"]["index"]:
            raise MergeError(f"{what} belongs to shard {shard_of(student, count)}/{count}, not to this one.")
        document, data = _read_json(report.student_folder(out, folder) / "result.json", what)
        result_verdict = signing.verify(document, secret)
        if not result_verdict.ok:
            raise MergeError(result_verdict.sentence(what) + ". Regrade this student (grade the shard again "
                             "with --force) instead of editing results.")
        if signing.file_digest(data) != item["result_sha256"]:
            raise MergeError(f"{what} is not the result this shard's manifest lists (it was replaced after the run, "
                             "by a result of another run or another student).")
        if result_verdict.run != shard.settings:
            raise MergeError(f"{what} was graded with other settings than its shard ({_differences(result_verdict.run, shard.settings)}).")
        try:
            result = GradeResult.from_dict(signing.unsigned(document))
        except (TypeError, ValueError, KeyError) as exc:
            raise MergeError(f"{what} is not a grader result ({escape.terminal(exc, 200)}).") from None
        if result.student != student:
            raise MergeError(f"{what} holds the result of student {escape.terminal(result.student)!r}, not of "
                             f"{escape.terminal(student)!r} as its folder and the manifest say.")
        shard.results[student] = (result, report.student_folder(out, folder))
    return shard


def _roster_difference(one: list[dict], other: list[dict]) -> str:
    """Why two shards' rosters differ, said so the person merging knows what to change: other students, or the
    same students whose files were given by another path (a class folder at another place or spelled otherwise on
    each machine: the paths go into the gradebook, so one run's output needs one spelling)."""
    mine, theirs = ({item["student"]: item for item in roster} for roster in (one, other))
    only = sorted(set(mine) ^ set(theirs))
    if only:
        return (f"{len(only)} student{'s are' if len(only) > 1 else ' is'} in only one of them, such as "
                f"{escape.terminal(only[0])!r}: grade every shard from the same copy of the class")
    for student, item in mine.items():
        if item != theirs[student]:
            if item["folder"] != theirs[student]["folder"]:
                break
            return (f"the same students, but their files were given by other paths, such as "
                    f"{escape.terminal(item['submission'])!r} against {escape.terminal(theirs[student]['submission'])!r}"
                    ": give the class folder by the same path on every machine, such as a path relative to the "
                    "working folder")
    return "their rosters differ: grade every shard from the same copy of the class"


def _differences(one: dict | None, other: dict | None) -> str:
    one, other = dict(one or {}), dict(other or {})
    names = {"exercise": "exercise", "exercise_version": "exercise version", "full_scale": "full-scale setting",
             "grader": "grader version"}
    changed = [f"{names.get(k, k)} {escape.terminal(one.get(k))} against {escape.terminal(other.get(k))}"
               for k in sorted(set(one) | set(other)) if one.get(k) != other.get(k)]
    return "; ".join(changed) or "unknown difference"


# -- merging ----------------------------------------------------------------------------------------------------
@dataclass
class Merged:
    exercise: str
    title: str
    results: list[GradeResult]
    pending: list[gradebook.Pending]
    folders: dict[str, str]
    notes: list[str]
    left_out: list[tuple[str, str]]
    settings: dict
    roster: list[dict]
    sources: dict[str, Path]  # student -> the shard folder holding their files
    similarity: tuple[dict, Path] | None  # the summary's similarity line, and the shard folder with its files
    missing_shards: list[int]
    incomplete_shards: list[str]

    @property
    def complete(self) -> bool:
        return not self.pending and not self.missing_shards and not self.incomplete_shards


#: how a shard graded without GRADER_SECRET (a job the environment did not reach) is named
NO_SECRET_SET = "no secret, as GRADER_SECRET was not set where it was graded (the built-in default signed it)"


def _default_key() -> str:
    """The key id of the built-in default secret (imported here: the session module brings numpy with it)."""
    from .session import DEFAULT_SECRET

    return signing.key_id(DEFAULT_SECRET)


def _secret_hint(manifest: dict, secret: str, command: str = "merge") -> str:
    """Why a shard's signature names another secret, when the built-in default is one of the two."""
    signature = manifest.get(signing.FIELD)
    key = signature.get("key") if isinstance(signature, dict) else None
    if key == _default_key():
        return "; it was graded with " + NO_SECRET_SET
    if signing.key_id(secret) == _default_key():
        return f"; no secret is set for this {command}: set GRADER_SECRET (or --secret) to the course's own"
    return ""


def _one_secret(outs: Sequence[Path], secret: str) -> None:
    """Shards signed with two different secrets are refused naming the shards of each: read one at a time, the
    sentence named only the first that did not verify, never saying that its neighbours used another secret."""
    keys: dict[str, list[str]] = {}
    for out in outs:
        try:
            manifest = json.loads(_read_regular(Path(out) / MANIFEST))
            key = manifest[signing.FIELD]["key"]
        except (OSError, ValueError, TypeError, KeyError, RecursionError):
            continue  # read_shard says what is wrong with it
        if isinstance(key, str):
            keys.setdefault(key, []).append(escape.terminal(out))
    if len(keys) < 2:
        return
    given, default = signing.key_id(secret), _default_key()
    groups = sorted(keys.items(), key=lambda item: (item[0] != given, item[0] == default))
    others = iter("ABCDEFGHIJKLMNOPQRSTUVWXYZ")

    def which(key: str) -> str:
        if key == given:
            return "the secret given" + (", none: GRADER_SECRET is not set for this merge" if key == default else "")
        return NO_SECRET_SET if key == default else f"secret {next(others, '?')}"

    said = "; ".join(f"{', '.join(names)} with {which(key)}" for key, names in groups)
    raise MergeError(f"The shards were graded with {len(keys)} different course secrets ({said}): grade the shards "
                     "of the other secret(s) again with one GRADER_SECRET for all, then merge with it.")


def combine(outs: Sequence[Path], secret: str, *, allow_incomplete: bool = False, command: str = "merge") -> Merged:
    """Read and check every shard output; raise MergeError with a sentence at the first thing that is wrong."""
    if not outs:
        raise MergeError("Give the output folders of the shards to merge.")
    _one_secret(outs, secret)
    shards = [read_shard(Path(out), secret, command) for out in outs]
    first = shards[0]
    count = first.manifest["shard"]["count"]
    seen_index: dict[int, Shard] = {}
    for shard in shards:
        if shard.settings != first.settings:
            raise MergeError(f"{shard.label} and {first.label} were graded with other settings "
                             f"({_differences(shard.settings, first.settings)}); grade every shard with the same "
                             "exercise, grader and options.")
        if shard.manifest["shard"]["count"] != count:
            raise MergeError(f"{shard.label} and {first.label} split the class into different numbers of shards.")
        if shard.manifest["class"] != first.manifest["class"]:
            raise MergeError(f"{shard.label} and {first.label} were graded from different class folders "
                             f"({_roster_difference(shard.manifest['class'], first.manifest['class'])}).")
        index = shard.manifest["shard"]["index"]
        if index in seen_index:
            raise MergeError(f"{shard.label} and {seen_index[index].label} are the same shard; give each shard once.")
        seen_index[index] = shard
    owner: dict[str, Shard] = {}
    for shard in shards:
        for student in shard.results:
            if student in owner:
                raise MergeError(f"Student {escape.terminal(student)!r} is in both {owner[student].label} and "
                                 f"{shard.label}.")
            owner[student] = shard
    missing = [i for i in range(1, count + 1) if i not in seen_index]
    stopped = [s.label for s in shards if not s.manifest.get("complete")]
    roster = first.manifest["class"]
    pending = [gradebook.Pending(item["student"], item["submission"]) for item in roster if item["student"] not in owner]
    if (missing or stopped or pending) and not allow_incomplete:
        why = []
        if missing:
            why.append(f"shard{'s' if len(missing) > 1 else ''} {', '.join(f'{i}/{count}' for i in missing)} "
                       f"{'are' if len(missing) > 1 else 'is'} missing")
        if stopped:
            why.append(f"{'; '.join(stopped)} was stopped before it finished")
        if pending and not missing and not stopped:
            why.append(f"{len(pending)} students have no result")
        raise MergeError("The shards do not cover the class: " + "; ".join(why) + f" ({len(pending)} of "
                         f"{len(roster)} students not graded). Finish them (run the same command again) and merge, "
                         "or merge what there is with --allow-incomplete (the class files then say it is incomplete).")
    notes: list[str] = []
    for shard in shards:
        for note in shard.manifest.get("notes", []):
            if note not in notes:
                notes.append(note)
    results = [owner[item["student"]].results[item["student"]][0] for item in roster if item["student"] in owner]
    similar = next(((s.manifest["similarity"], s.out) for s in shards if s.manifest.get("similarity")), None)
    return Merged(
        exercise=first.manifest["exercise"], title=first.manifest.get("title") or first.manifest["exercise"],
        results=results, pending=pending,
        folders={item["student"]: item["folder"] for item in roster}, notes=notes,
        left_out=[tuple(item) for item in first.manifest.get("left_out", [])], settings=first.settings,
        roster=roster, sources={s: owner[s].results[s][1] for s in owner}, missing_shards=missing,
        incomplete_shards=stopped, similarity=similar,
    )


def write(merged: Merged, out: Path, secret: str, *, private: bool = False) -> list[str]:
    """Copy the students' folders, write the class files and a manifest of the whole (shard 1/1); returns the
    class files that could not be written."""
    out = Path(out)
    report.make_folder(out / report.STUDENTS, private=private)
    for student, source in merged.sources.items():
        target = report.student_folder(out, merged.folders[student])
        outfolder.own_folder(target, private=private)  # a link in its place is replaced, never written through
        (target / ".grade-key.json").unlink(missing_ok=True)
        for name in STUDENT_FILES:  # the sidecar last, as a run writes it
            path = source / name
            if not path.is_file() or path.is_symlink():
                continue
            data = _read_regular(path)
            report.write_atomic(target / name, data, private=private or name == ".grade-key.json")
    similarity = None
    if merged.similarity is not None:  # every shard compared the whole class: its files, as they are
        similarity, shard = merged.similarity
        for name in SIMILARITY_FILES:
            if (shard / name).is_file() and not (shard / name).is_symlink():
                report.write_atomic(out / name, _read_regular(shard / name), private=private)
    problems = gradebook.write_class(merged.results, out, merged.exercise, merged.notes, pending=merged.pending,
                                     folders=merged.folders, left_out=merged.left_out, private=private,
                                     similarity=similarity)
    whole = Plan(tuple(Entry(Path(item["submission"]), item["student"], folder=item["folder"])
                       for item in merged.roster), left_out=tuple(merged.left_out))
    graded = [Entry(Path(item["submission"]), item["student"], folder=item["folder"]) for item in merged.roster
              if item["student"] in merged.sources]
    write_manifest(out, whole=whole, shard=(1, 1), graded=graded, settings=merged.settings, notes=merged.notes,
                   complete=merged.complete, secret=secret, private=private, title=merged.title,
                   similarity=similarity)
    return problems


def verified_results(out: Path, secret: str) -> Merged:
    """An output folder's results, every one checked (``grader export``): the folder's own manifest must be a
    complete run (one unsharded run, or a merge)."""
    return combine([out], secret, allow_incomplete=True, command="export")
