"""The similarity report of a batch: ``OUT/similarity.html`` and ``OUT/similarity.csv``, and its line in the summary.

``similarity`` compares; this module picks what to compare (this class's submissions, then the earlier terms' of
``--similarity-against``, read only), names the base code (the exercise's starter and its notebook's self-check
cell, as its own notebook and an assignment's notebook give it), and renders. Every text a student chose (ids, paths, code) goes through the helper of ``escape`` for its
format: the page is autoescaped, student code is shown as text in ``<pre>`` blocks, and the CSV neutralises
formulas. The report never changes a score, and says so.
"""
from __future__ import annotations

import argparse
import csv
import dataclasses
import io
import os
from pathlib import Path
from typing import Sequence
from urllib.parse import quote

import numpy as np

from . import batch, escape, gradebook, report
from .classfolder import Plan, discover
from .errors import UsageError
from .exercise import Exercise
from .similarity import Analysis, Document, Pair, Settings, Source, analyse, covered, member

FILES = ("similarity.html", "similarity.csv")
CSV_COLUMNS = ("student_a", "student_b", "term_b", "score", "shared_tokens_a", "shared_tokens_b", "share_a",
               "share_b", "file_a", "file_b")
#: Characters of one submission's code shown on the page (all of it was compared, up to similarity.MAX_CHARS).
SHOWN_CHARS = 40_000


# -- what to compare ------------------------------------------------------------------------------------------
def enabled(args: argparse.Namespace) -> bool:
    return getattr(args, "similarity", "on") != "off"


def check_options(args: argparse.Namespace) -> None:
    """Before grading: every ``--similarity-against`` folder exists, and the common share is a fraction."""
    if not enabled(args):
        return
    for folder in getattr(args, "similarity_against", None) or ():
        if not Path(folder).is_dir() or Path(folder).is_symlink():
            raise UsageError(f"--similarity-against takes a folder of earlier submissions: "
                             f"{escape.terminal(folder)} is not one.")
    common = getattr(args, "similarity_common", Settings.common)
    if not 0 < common <= 1:
        raise UsageError(f"--similarity-common takes a share of the class between 0 and 1, not {common:g}.")


def sources(plan: Plan, against: Sequence[Path] = ()) -> list[Source]:
    """This class's gradable entries first, then the earlier terms' (each under its folder's name)."""
    found = [Source(e.student, e.path, e.folder) for e in plan.entries if e.problem is None]
    here = {os.path.realpath(s.path) for s in found}
    labels: set[str] = set()
    for folder in against:
        label = escape.terminal(Path(os.path.abspath(folder)).name or "earlier", 60)
        while label in labels:
            label += "'"
        labels.add(label)
        for entry in discover([Path(folder)]).entries:
            if entry.problem is None and os.path.realpath(entry.path) not in here:
                found.append(Source(entry.student, entry.path, None, label))
    return found


def base_code(exercise: Exercise) -> list[str]:
    """Code every student was given: the starter, and the self-check cell of the exercise's notebook, both as the
    exercise's own notebook has it and as an assignment's notebook does (run inside a function of its own: the
    lines around it are given code too, or every two students of an assignment would share them)."""
    base = []
    starter = exercise.folder / "starter.py"
    if starter.is_file():
        base.append(starter.read_text(encoding="utf-8"))
    try:
        from .notebook import scoped_selfcheck_source, selfcheck_source

        checks = [selfcheck_source(exercise), scoped_selfcheck_source(exercise)]
    except Exception:  # noqa: BLE001  (an exercise without a self-check: nothing more to leave out)
        checks = []
    return base + [check for check in checks if check]


def prepare(args: argparse.Namespace, plan: Plan, exercises: Exercise | tuple[Exercise, ...]
            ) -> tuple[Analysis | None, list[str]]:
    """The analysis of the batch, or None (switched off, or one file alone); problems as lines, never raised.

    ``exercises``: every exercise graded from the submissions (an assignment's), whose given code is left out."""
    against = [Path(p) for p in getattr(args, "similarity_against", None) or ()]
    if not enabled(args) or (plan.single_file and not against):
        return None, []
    try:
        settings = Settings(common=getattr(args, "similarity_common", Settings.common))
        given = [code for e in (exercises if isinstance(exercises, tuple) else (exercises,)) for code in base_code(e)]
        return analyse(sources(plan, against), given, settings), []
    except Exception as exc:  # noqa: BLE001  (the grades and the other class files do not depend on it)
        return None, [f"the similarity report could not be made ({type(exc).__name__}: {escape.terminal(exc, 300)})"]


def for_report(args: argparse.Namespace, plan: Plan, exercises: Exercise | tuple[Exercise, ...]
               ) -> tuple[Analysis | None, list[str]]:
    """``prepare``, keeping the code and tokens of only the submissions the report shows (those of a listed
    pair): what a batch's copy of the grader (``forked``) sends back is then about those, not the whole class."""
    analysis, problems = prepare(args, plan, exercises)
    if analysis is not None:
        shown = {i for pair in (*analysis.pairs, *analysis.near) for i in (pair.a, pair.b)}
        analysis.documents = [doc if n in shown else _bare(doc) for n, doc in enumerate(analysis.documents)]
    return analysis, problems


def _bare(doc: Document) -> Document:
    return Document(doc.source, [], np.empty(0, np.uint64), np.empty((0, 3), np.int64), doc.cut)


# -- as plain data: what a forked copy of the grader sends back (JSON, never a pickle) -------------------------
_ARRAYS = {"ids": np.uint64, "where": np.int64, "hashes": np.uint64, "fp_hash": np.uint64, "fp_pos": np.int64,
           "fp_set": np.uint64}


def plain_for_report(args: argparse.Namespace, plan: Plan, exercises: Exercise | tuple[Exercise, ...]) -> dict:
    """``for_report`` in JSON's types."""
    analysis, problems = for_report(args, plan, exercises)
    if analysis is None:
        return {"analysis": None, "problems": problems}
    documents = [{"student": d.source.student, "path": str(d.source.path), "folder": d.source.folder,
                  "term": d.source.term, "cells": d.cells, "cut": d.cut, "size": d.size,
                  **{name: getattr(d, name).tolist() for name in _ARRAYS}} for d in analysis.documents]
    return {"analysis": {
        "documents": documents, "pairs": [_plain_pair(p) for p in analysis.pairs],
        "near": [_plain_pair(p) for p in analysis.near], "skipped": analysis.skipped,
        "settings": dataclasses.asdict(analysis.settings), "common_limit": analysis.common_limit,
        "base_runs": analysis.base_runs, "seconds": analysis.seconds, "terms": analysis.terms,
    }, "problems": problems}


def from_plain(data: dict) -> tuple[Analysis | None, list[str]]:
    """The analysis ``plain_for_report`` described, and its problems."""
    plain = data["analysis"]
    if plain is None:
        return None, list(data["problems"])
    documents = []
    for d in plain["documents"]:
        doc = Document(Source(d["student"], Path(d["path"]), d["folder"], d["term"]), list(d["cells"]),
                       np.array(d["ids"], np.uint64), np.array(d["where"], np.int64).reshape(-1, 3), d["cut"],
                       size=d["size"])
        for name, dtype in _ARRAYS.items():
            if name not in ("ids", "where"):
                setattr(doc, name, np.array(d[name], dtype))
        for h, p in zip(d["fp_hash"], d["fp_pos"]):
            doc.fp_map.setdefault(h, []).append(p)
        documents.append(doc)
    return Analysis(documents, [Pair(**_pair_fields(p)) for p in plain["pairs"]],
                    [Pair(**_pair_fields(p)) for p in plain["near"]],
                    [tuple(s) for s in plain["skipped"]], Settings(**plain["settings"]), plain["common_limit"],
                    plain["base_runs"], plain["seconds"], list(plain["terms"])), list(data["problems"])


def _plain_pair(pair: Pair) -> dict:
    return dataclasses.asdict(pair)


def _pair_fields(plain: dict) -> dict:
    return {**plain, "matched": tuple(plain["matched"]), "share": tuple(plain["share"])}


def summary(analysis: Analysis | None) -> dict | None:
    """What summary.html says about the report, and where it links."""
    if analysis is None:
        return None
    return {"href": FILES[0], "flagged": len(analysis.pairs), "compared": analysis.compared,
            "earlier": len(analysis.documents) - analysis.compared}


# -- regions ----------------------------------------------------------------------------------------------------
def regions(analysis: Analysis, pair: Pair) -> tuple[list[list[list[tuple[str, int]]]], int]:
    """Each side's cells as segments (text, passage): 0 is not shared, n > 0 the n-th shared passage, numbered
    along the first student's code, with the same number on both sides."""
    k = analysis.settings.k
    first, second = analysis.documents[pair.a], analysis.documents[pair.b]
    shared = np.intersect1d(first.fp_set, second.fp_set, assume_unique=True)
    in_first = member(first.fp_hash, shared)
    cover = covered(first.fp_pos[in_first], k, len(first.ids))
    label_first = np.zeros(len(first.ids), np.int64)
    starts = np.flatnonzero(cover & ~np.concatenate([[False], cover[:-1]]))
    label_first[cover] = np.searchsorted(starts, np.flatnonzero(cover), side="right")
    label_second = np.zeros(len(second.ids), np.int64)
    positions: dict[int, list[int]] = {}
    for h, p in zip(second.fp_hash.tolist(), second.fp_pos.tolist()):
        positions.setdefault(h, []).append(p)
    for h, p in sorted(zip(first.fp_hash[in_first].tolist(), first.fp_pos[in_first].tolist()), key=lambda x: x[1]):
        for q in positions.get(h, ()):
            span = label_second[q:q + k]
            span[span == 0] = label_first[p]
    return [_segments(first, label_first), _segments(second, label_second)], len(starts)


def _segments(doc: Document, labels: np.ndarray) -> list[list[tuple[str, int]]]:
    cells: list[list[tuple[str, int]]] = []
    left = SHOWN_CHARS
    # each cell's tokens, which come cell after cell: found once, not by a pass over every token per cell (that
    # was cells times tokens: seconds a pair for a notebook of thousands of one-line cells)
    bounds = np.searchsorted(doc.where[:, 0], np.arange(len(doc.cells) + 1)) if len(doc.where) else None
    for number, text in enumerate(doc.cells):
        if left <= 0:
            break
        marks = np.zeros(len(text), np.int64)
        mine = np.arange(bounds[number], bounds[number + 1]) if bounds is not None else np.empty(0, np.int64)
        for index in mine[labels[mine] > 0]:
            _, start, end = doc.where[index]
            marks[start:end] = labels[index]
        text, marks = text[:left], marks[:left]
        left -= len(text)
        cells.append(_merge([(text[s:e].replace("\t", "    "), label) for s, e, label in _runs(marks)]))
    return cells


def _runs(marks: np.ndarray) -> list[tuple[int, int, int]]:
    if len(marks) == 0:
        return []
    bounds = np.concatenate([[0], np.flatnonzero(np.diff(marks)) + 1, [len(marks)]])
    return [(int(s), int(e), int(marks[s])) for s, e in zip(bounds[:-1], bounds[1:])]


def _merge(segments: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Blanks between two parts of one passage join them, so a passage reads as one."""
    out: list[tuple[str, int]] = []
    for n, (text, label) in enumerate(segments):
        if (label == 0 and out and out[-1][1] and n + 1 < len(segments) and segments[n + 1][1] == out[-1][1]
                and not text.strip()):
            label = out[-1][1]
        if out and out[-1][1] == label:
            out[-1] = (out[-1][0] + text, label)
        else:
            out.append((text, label))
    return out


# -- rendering ----------------------------------------------------------------------------------------------------
def _side(analysis: Analysis, index: int) -> dict:
    doc = analysis.documents[index]
    source = doc.source
    return {
        "student": source.shown,
        "term": source.term,
        "link": gradebook.report_link(source.folder) if source.folder else None,
        "path": batch.shown_path(source.path),
        "file_url": "file://" + quote(os.fsencode(os.path.abspath(source.path))),
        "cut": doc.cut or sum(map(len, doc.cells)) > SHOWN_CHARS,
    }


def _row(analysis: Analysis, pair: Pair, rank: int) -> dict:
    return {"rank": rank, "a": _side(analysis, pair.a), "b": _side(analysis, pair.b), "score": pair.score,
            "matched": pair.matched, "share": pair.share, "shown": rank <= analysis.settings.shown}


def page_data(analysis: Analysis, exercise_id: str) -> dict:
    settings = analysis.settings
    rows = [_row(analysis, p, n) for n, p in enumerate(analysis.pairs, start=1)]
    for row, pair in zip(rows, analysis.pairs):
        if row["shown"]:
            (row["a"]["cells"], row["b"]["cells"]), row["passages"] = regions(analysis, pair)
    return {
        "exercise": exercise_id,
        "pairs": rows,
        "near": [_row(analysis, p, n) for n, p in enumerate(analysis.near, start=1)],
        "compared": analysis.compared,
        "earlier": len(analysis.documents) - analysis.compared,
        "terms": analysis.terms,
        "skipped": analysis.skipped,
        "common_limit": analysis.common_limit,
        "common": settings.common,
        "common_floor": settings.common_floor,
        "threshold": settings.threshold,
        "min_tokens": settings.min_tokens,
        "k": settings.k,
        "guaranteed": settings.k + settings.window - 1,
        "shown": settings.shown,
        "base": analysis.base_runs > 0,
        "seconds": analysis.seconds,
    }


def render_html(analysis: Analysis, exercise_id: str) -> str:
    return report.environment(True).get_template("similarity.html.j2").render(s=page_data(analysis, exercise_id))


def render_csv(analysis: Analysis) -> str:
    """One row per flagged pair, closest first; every text a student chose is a cell that is never evaluated."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for pair in analysis.pairs:
        a, b = (analysis.documents[i].source for i in (pair.a, pair.b))
        writer.writerow([escape.csv_cell(a.shown), escape.csv_cell(b.student), escape.csv_cell(b.term),
                         f"{pair.score:.4f}", pair.matched[0], pair.matched[1], f"{pair.share[0]:.4f}",
                         f"{pair.share[1]:.4f}", escape.csv_cell(batch.shown_path(a.path)),
                         escape.csv_cell(batch.shown_path(b.path))])
    return buffer.getvalue()


def write(analysis: Analysis | None, out: Path, exercise_id: str, *, private: bool = False) -> list[str]:
    """Write both files, each on its own; return one line per file that could not be written."""
    if analysis is None:
        return []
    problems = []
    for name, render in zip(FILES, (lambda: render_html(analysis, exercise_id), lambda: render_csv(analysis))):
        try:
            report.write_atomic(Path(out) / name, render(), private=private)
        except Exception as exc:  # noqa: BLE001  (one file lost, never the other)
            problems.append(f"{name} could not be written ({type(exc).__name__}: {escape.terminal(exc, 300)})")
    return problems
