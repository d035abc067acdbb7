"""How a student id is shown: printable, at most ``ID_CHARS`` long, and unique even to the eye.

The shown id is the student's row in ``gradebook.csv`` and the LMS files, their folder's name and their hidden
cases' seed, so it must stay the same from one run to the next and tell apart ids a reader (or an LMS) would take
for one. Split from ``classfolder`` (which finds the students) so that module keeps to finding them.
"""
from __future__ import annotations

import hashlib
import unicodedata

from . import escape
from .text import quote

ID_CHARS = 120  # an id longer than this is shown cut (and so gets a hash of the whole id)


def display_ids(raws: list[str]) -> dict[str, str]:
    """Each raw id as shown: printable, at most ``ID_CHARS`` long (and its hash), and unique even to the eye.

    Undecodable bytes show as U+FFFD, hidden characters as escapes and a long id cut short: each such id, whose
    shown text is not the id itself, gets a short hash of the raw id, whoever else is in the batch. The shown id
    is the student's row in gradebook.csv and the LMS files and their hidden cases' seed, so it must tell
    ``caf\\xe9`` from ``caf\\xe8`` (both ``caf\ufffd``) in an LMS import, and stay the same when a later batch
    adds or drops the other one. Ids that would still read the same (NFKC-equal ids, a hash prefix shared) get a
    longer hash.

    Spaces at either end are shown as escapes (an id ``"alice "`` or ``"   "`` read as ``alice`` or as nothing, and
    an LMS that trims its cells would have given alice the other file's grade), and ids equal but for case
    (``Case.py`` beside ``case.py``) each get a hash: an LMS matching logins without case would otherwise put
    both rows on one student, the last one winning.
    """
    level = {raw: 0 if _display(raw, 0) == raw else 1 for raw in raws}
    for _ in range(3):
        shown = {raw: _display(raw, level[raw]) for raw in raws}
        groups: dict[str, list[str]] = {}
        for raw, text in shown.items():
            groups.setdefault(unicodedata.normalize("NFKC", text).casefold(), []).append(raw)
        clashing = [raw for group in groups.values() if len(group) > 1 for raw in group]
        if not clashing:
            return shown
        for raw in clashing:
            level[raw] = min(level[raw] + 1, 2)
    return {raw: _display(raw, 2) for raw in raws}


def _display(raw: str, level: int) -> str:
    text = escape.terminal(raw, ID_CHARS)
    body = text.strip(" ")
    if body != text:  # spaces at an end, or nothing but spaces: shown, not trimmed away by a reader or an LMS
        start = len(text) - len(text.lstrip(" "))
        text = "\\x20" * start + body + "\\x20" * (len(text) - len(body) - start)
    if level == 0:
        return text
    digest = hashlib.sha256(raw.encode("utf-8", "surrogateescape" if _escaped_bytes(raw) else "surrogatepass"))
    return f"{text} #{digest.hexdigest()[:8] if level == 1 else digest.hexdigest()}"


def _escaped_bytes(raw: str) -> bool:
    try:
        raw.encode("utf-8", "surrogateescape")
        return True
    except UnicodeEncodeError:
        return False


def case_clashes(shown: dict[str, str]) -> list[str]:
    """A note per group of ids that differ only in letter case (``Bob.ipynb`` beside ``bob.py``) or only in how
    Unicode writes them (``café`` composed beside ``cafe`` and a combining accent), for the person running the batch:
    each got a hash, with no word of why, and a row whose id carries a hash matches no LMS login, so the two grades
    never reached the gradebook. Most often they are one student's two uploads. The note says which of the two
    differences it is: a composed and a decomposed ``café`` have the same letters in the same case, and "differ only
    in letter case" sent the reader looking for a capital that is not there."""
    groups: dict[str, list[str]] = {}
    for raw in shown:
        groups.setdefault(unicodedata.normalize("NFKC", raw).casefold(), []).append(raw)
    return [f"{len(raws)} ids differ only {_difference(raws)} "
            f"({', '.join(quote(shown[r], 80) for r in sorted(raws))}): they are graded as different students, each "
            "shown with a short hash so that neither a reader nor an LMS matching logins without case can give one "
            "the other's grade, and no LMS login matches such an id. If they are one student's uploads, keep one "
            "file and grade again; if not, rename them after their logins."
            for raws in groups.values() if len(raws) > 1]


def _difference(raws: list[str]) -> str:
    """What tells the ids of one group apart: letter case, Unicode's way of writing the same text, or both."""
    normal = {unicodedata.normalize("NFKC", raw) for raw in raws}
    case = len(normal) > 1
    encoding = len(normal) < len(raws)
    if case and encoding:
        return "in letter case and in how Unicode writes their characters (é as one character or as e and a " \
            "combining accent, say)"
    if encoding:
        return ("in how Unicode writes their characters (é as one character or as e and a combining accent, a "
                "ligature or its letters), so they read the same")
    return "in letter case"
