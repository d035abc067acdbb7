"""Signed documents: every ``result.json`` and shard ``manifest.json`` carries an HMAC-SHA256 made with the course
secret, so a file changed after grading (a raised score, a forged student, a result copied from another run) is
refused by ``grader merge`` and ``grader export`` with a sentence, and regraded by a rerun instead of reused.

The signature sits in the document itself, under ``"signature"``::

    "signature": {"alg": "HMAC-SHA256", "key": "<key id>", "run": {...settings...}, "value": "<hex>"}

``value`` covers the canonical JSON of the whole document without ``value`` (sorted keys, no spaces, UTF-8), the
``run`` settings included. ``key`` names the secret without revealing more of it than the signature itself does
(an HMAC of a fixed label), so "signed with another secret" is told apart from "changed after signing".
"""
from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass
from typing import Any

FIELD = "signature"
ALGORITHM = "HMAC-SHA256"


def key_id(secret: str) -> str:
    return hmac.new(secret.encode("utf-8", "surrogatepass"), b"grader signing key id", hashlib.sha256).hexdigest()[:16]


def canonical(document: dict) -> bytes:
    """The bytes a signature covers: the document with its signature's ``value`` left out, in canonical JSON."""
    data = dict(document)
    signature = data.get(FIELD)
    if isinstance(signature, dict):
        data[FIELD] = {k: v for k, v in signature.items() if k != "value"}
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "surrogatepass")


def _mac(secret: str, document: dict) -> str:
    return hmac.new(secret.encode("utf-8", "surrogatepass"), canonical(document), hashlib.sha256).hexdigest()


def sign(document: dict, secret: str, run: dict[str, Any] | None = None) -> dict:
    """``document`` with its signature (any earlier signature replaced)."""
    signed = {k: v for k, v in document.items() if k != FIELD}
    signed[FIELD] = {"alg": ALGORITHM, "key": key_id(secret), "run": dict(run or {})}
    signed[FIELD]["value"] = _mac(secret, signed)
    return signed


@dataclass(frozen=True)
class Verdict:
    ok: bool
    problem: str = ""  # "unsigned", "other-secret", "changed", "malformed" when not ok
    run: dict | None = None

    def sentence(self, what: str) -> str:
        return {
            "unsigned": f"{what} carries no signature: it was not written by this grader version with a course "
                        "secret, or the signature was removed",
            "other-secret": f"{what} was signed with another course secret than the one given (--secret or "
                            "$GRADER_SECRET)",
            "changed": f"{what} does not match its signature: it was changed after grading (a score, a student, a "
                       "check, anything in it)",
            "malformed": f"{what} has a malformed signature",
        }.get(self.problem, f"{what} is not acceptable")


def verify(document: Any, secret: str) -> Verdict:
    if not isinstance(document, dict) or FIELD not in document:
        return Verdict(False, "unsigned")
    signature = document[FIELD]
    if not isinstance(signature, dict) or not isinstance(signature.get("value"), str) \
            or signature.get("alg") != ALGORITHM or not isinstance(signature.get("run", {}), dict):
        return Verdict(False, "malformed")
    if signature.get("key") != key_id(secret):
        return Verdict(False, "other-secret")
    try:
        expected = _mac(secret, document)
    except (TypeError, ValueError, UnicodeError):
        return Verdict(False, "malformed")
    if not hmac.compare_digest(expected, signature["value"]):
        return Verdict(False, "changed")
    return Verdict(True, run=dict(signature.get("run") or {}))


def unsigned(document: dict) -> dict:
    return {k: v for k, v in document.items() if k != FIELD}


def file_digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class Signer:
    """Signs the ``result.json`` files of one run: the course secret and the run's settings."""

    secret: str
    run: dict

    def result_text(self, result) -> str:
        """``result.json``'s text: the result contract, plus its signature."""
        return json.dumps(sign(result.to_dict(), self.secret, self.run), indent=2, ensure_ascii=False) + "\n"

    def accepts(self, text: str) -> bool:
        """Whether a stored ``result.json`` is this run's own, untouched (else it is regraded, not reused)."""
        try:
            verdict = verify(json.loads(text), self.secret)
        except (ValueError, RecursionError):  # not JSON, or nested thousands deep: regraded, never reused
            return False
        return verdict.ok and verdict.run == self.run


#: What the person running the grader is told when no course secret was given.
NO_SECRET = ("No course secret is set (--secret or $GRADER_SECRET): the hidden cases are seeded from the grader's "
             "built-in default, which anyone with the grader's source can reproduce, and the results are signed with "
             "it. Set GRADER_SECRET to a long random value kept private, for example the output of "
             "`python3 -c 'import secrets; print(secrets.token_hex(32))'`, and use the same one for every run of "
             "the course.")
