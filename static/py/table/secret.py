"""The GM's secret rolls at the live table (docs/LIVE-TABLE.md, Secret
rolls): pure, no DOM, no clock.

A roll the GM makes in secret stays whole on the tablet (with a random
128-bit *salt*); a phone gets only a **commitment**: SHA-256 of a tag, the
salt and the roll (its id, game, setup, stages, label and time) as
canonical JSON, with how many stages it covers. Each step the GM takes on
the roll sends a commitment to the longer roll. The **reveal** is the roll
and the salt: a phone checks it against every commitment it holds, and
shows the roll as "revealed, matches what was rolled" only if each one
fits; a reveal that does not fit is refused and the roll stays hidden.

>>> e = {"id": "r1", "y": "jadeclaw", "p": {"dice": [8]}, "g": [{"do": "roll"}], "l": "", "at": 5}
>>> c = commitment("00" * 16, e, 1)
>>> matches([[1, c]], "00" * 16, e), matches([[1, c]], "01" * 16, e)
(True, False)
"""

from __future__ import annotations

import json
import re

from shell import names

__all__ = ["TAG", "SecretError", "commitment", "hidden_form", "check_hidden", "check_salt", "check_commitments",
           "matches", "hidden_item", "notice_words"]

#: What a commitment is made with.
TAG = b"dice-table/table/v2/secret"
SALT_BYTES = 16
SALT_RE = re.compile(r"[0-9a-f]{32}\Z")
HEX64_RE = re.compile(r"[0-9a-f]{64}\Z")
ID_RE = re.compile(r"[A-Za-z0-9_-]{1,24}\Z")
#: Stages a roll may have, and commitments one phone keeps for one roll.
MAX_STAGES = 1000
MAX_COMMITMENTS = 50


class SecretError(ValueError):
    """A commitment or a reveal refused (the words go in a banner)."""


def commitment(salt: str, entry: dict, k: int) -> str:
    """The commitment to the first ``k`` stages of a secret roll."""
    import hashlib  # not before ready: a first visit rolls no secret

    body = json.dumps([entry["id"], entry["y"], entry["p"], entry["g"][:k], entry["l"], entry["at"]],
                      sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(TAG + b"\x00" + bytes.fromhex(salt) + body.encode()).hexdigest()


def hidden_form(entry: dict) -> dict:
    """What a phone gets of a secret roll: its id, its time and the
    commitment to it as it stands now (``k`` stages)."""
    k = len(entry["g"])
    return {"id": entry["id"], "k": k, "c": commitment(entry["salt"], entry, k), "at": entry["at"]}


def _text(v, pattern) -> bool:
    return isinstance(v, str) and bool(pattern.match(v))


def _stages(v) -> bool:
    return type(v) is int and 1 <= v <= MAX_STAGES


def _pair(p) -> bool:
    return isinstance(p, list) and len(p) == 2 and _stages(p[0]) and _text(p[1], HEX64_RE)


def check_hidden(h) -> dict:
    """A hidden roll as it came (a commitment), checked field by field."""
    fields = isinstance(h, dict) and set(h) == {"id", "k", "c", "at"}
    if not (fields and _text(h["id"], ID_RE) and _pair([h["k"], h["c"]])):
        raise SecretError("a secret roll's commitment that is not one")
    if type(h["at"]) not in (int, float) or not 0 <= h["at"] < 1e14:
        raise SecretError("a secret roll's commitment with no proper time")
    return {**h, "at": int(h["at"])}


def check_salt(salt) -> str:
    if not _text(salt, SALT_RE):
        raise SecretError("a reveal with no proper salt")
    return salt


def check_commitments(c) -> list:
    """A stored list of ``[stages, commitment]``, each longer than the last."""
    if not (isinstance(c, list) and 1 <= len(c) <= MAX_COMMITMENTS and all(map(_pair, c))):
        raise SecretError("a secret roll's commitments are not a list of them")
    if any(a[0] >= b[0] for a, b in zip(c, c[1:])):
        raise SecretError("a secret roll's commitments are out of order")
    return [list(p) for p in c]


def matches(commitments: list, salt: str, entry: dict) -> bool:
    """Whether a revealed roll fits every commitment a phone holds for it."""
    return all(k <= len(entry["g"]) and commitment(salt, entry, k) == c for k, c in commitments)


def hidden_item(entry: dict) -> str:
    """A hidden roll in a phone's table log: who rolled, "(hidden)", and
    whether a reveal was refused; every name isolated and escaped."""
    from drawing import views

    who = views.esc(entry["by"])
    bad = ('<span class="h-note">A reveal that did not match what was rolled was refused: it stays '
           'hidden.</span>') if entry.get("bad") else ""
    return (f'<li class="history-item table-entry table-hidden" data-table-entry data-by="{who}" '
            f'data-how="hidden" data-outcome=""><span class="h-head"><span class="h-system">Secret roll</span>'
            f'<bdi class="h-by">{who}</bdi></span><span class="h-outcome"><bdi>{who}</bdi> rolled (hidden)</span>'
            f'{bad}<span class="h-foot"><span class="h-how">rolled in secret on the tablet</span></span></li>')


def notice_words(entry: dict, outcome: str, title: str) -> str:
    """A phone's brief notice of a hidden roll or a reveal."""
    if entry["how"] == "hidden":
        return f"{names.isolate(entry['by'])} rolled (hidden)"
    return f"{names.isolate(entry['by'])} revealed a secret roll: {title}: {outcome}"
