"""The fc-layers rounds' notebooks (``tests/test_fc_round10.py`` on): each holds one function per exercise, written
into the solution cells of the student notebook, and all are graded as the assignment in one batch."""
from __future__ import annotations

import copy
import textwrap
from pathlib import Path

import nbformat

import exercise_helpers as helpers
from conftest import ROOT, grade_students

FC_IDS = ("linear", "to_channels_last", "dense_scores", "gap_head")


def grade_books(folder: Path, books: dict[str, dict[str, str]]) -> dict:
    """Each book (student -> exercise -> code) written as the fc-layers notebook in ``folder`` and graded in one
    batch; the results by student."""
    template = nbformat.read(str(ROOT / "notebooks" / "fc-layers.ipynb"), as_version=4)
    for name, cells in books.items():
        nb = copy.deepcopy(template)
        for exercise_id in FC_IDS:
            cell = next(c for c in nb.cells if c.get("id") == f"{exercise_id}-solution")
            cell.source = "import numpy as np\n\n" + textwrap.dedent(cells[exercise_id]).strip() + "\n"
        nbformat.write(nb, str(folder / f"{name}.ipynb"))
    with helpers.assignment_session() as grading:
        return grade_students(folder, grading, list(books))


def section(result, exercise_id: str):
    """The section of a graded notebook for ``exercise_id``."""
    return next(s for s in result.sections if s.exercise == exercise_id)


def assert_loses_points_with(result, exercise_id: str, ids: set[str]) -> None:
    """The section of ``exercise_id`` lost points and its findings are exactly ``ids`` (the evidence shown if not)."""
    graded_section = section(result, exercise_id)
    found = {d.id: d.evidence for d in graded_section.diagnoses}
    assert graded_section.score < graded_section.max_score, found
    assert set(found) == ids, found


def books_and_cells(correct: dict[str, dict[str, str]], mistakes: dict[str, list], right: dict[str, str]
                    ) -> tuple[dict[str, dict[str, str]], list[tuple[str, str, tuple]]]:
    """The round's notebooks and its mistakes by notebook: each right style as a notebook ``ok<n>``, and the n-th
    mistake of every exercise together in notebook ``bad<n>`` (``right``'s function for an exercise with fewer);
    the cells as (notebook, exercise, mistake), a mistake being (id, code, expected findings)."""
    rows = max(len(v) for v in mistakes.values())
    books = {**{f"ok{n}": cells for n, cells in enumerate(correct.values())},
             **{f"bad{n}": {e: mistakes[e][n][1] if n < len(mistakes.get(e, ())) else right[e] for e in FC_IDS}
                for n in range(rows)}}
    cells = [(f"bad{n}", e, m) for e, ms in mistakes.items() for n, m in enumerate(ms)]
    return books, cells
