"""Phones' channels to each other at the live table (docs/LIVE-TABLE.md, A
tablet reload): pure, no DOM, no clock of its own.

Each phone that sits down links to every phone already connected, the
offer and the answer passed on by the tablet (which names who sends
them, so a phone knows whose channel it opens). These channels carry one
thing: after the tablet reloads and one phone sits down again (two
scans), the tablet's fresh offers for the other seats, each passed on by
that phone to the phone it is for, and their answers back. So one
pairing re-admits the whole table.

An offer passed on this way carries a **tag**: HMAC-SHA256 under the
seat's table key (which only that phone and the tablet hold) of the
offer's text. The phone it is for takes the offer only with a tag that
fits, so no other phone can pass off a code of its own as the tablet's.
The answer needs no tag: the phone proves its seat on the new channel
(the proof is bound to that channel's certificates), and the tablet
seats there only the phone the offer was made for.

>>> tk = "11" * 32
>>> tag = relay_tag(tk, "t2.o.abc")
>>> tag_fits(tk, "t2.o.abc", tag), tag_fits(tk, "t2.o.abd", tag)
(True, False)
"""

from __future__ import annotations

import json
import re

__all__ = ["TAG", "RelayError", "relay_tag", "tag_fits", "parse", "offer_text", "answer_text", "rate_ok",
           "MESH_KEY"]

#: What a tag is made with.
TAG = b"dice-table/table/v2/relay"
HEX64_RE = re.compile(r"[0-9a-f]{64}\Z")
#: A message between two phones: at most this many characters, at most
#: RATE of them in WINDOW ms from one phone.
MAX_TEXT = 3000
RATE = 12
WINDOW = 10_000
#: The prefix of a phone-to-phone channel's key in ``rtc.mjs``.
MESH_KEY = "p:"


class RelayError(ValueError):
    """A message between phones refused (the words go in a banner)."""


def relay_tag(tk: str, fragment: str) -> str:
    """The tag of an offer passed on for the seat whose table key is ``tk``."""
    import hashlib
    import hmac

    return hmac.new(bytes.fromhex(tk), TAG + b"\x00" + fragment.encode(), hashlib.sha256).hexdigest()


def tag_fits(tk: str, fragment: str, tag: str) -> bool:
    from hmac import compare_digest

    return bool(tk) and isinstance(tag, str) and compare_digest(relay_tag(tk, fragment), tag)


def offer_text(fragment: str, tag: str) -> str:
    """The tablet's offer as one phone passes it to another."""
    return json.dumps({"t": "offer", "f": fragment, "m": tag}, separators=(",", ":"))


def answer_text(fragment: str) -> str:
    """A phone's answer, back to the phone that passed the offer on."""
    return json.dumps({"t": "answer", "f": fragment}, separators=(",", ":"))


def parse(text) -> dict:
    """A message from another phone: ``{"t": "offer", "f", "m"}`` or
    ``{"t": "answer", "f"}``, each field checked for its form (what it
    means is checked by the table: the tag, the code itself)."""
    msg = _json(text)
    if not (isinstance(msg, dict) and set(msg) == _KEYS.get(msg.get("t"))):
        raise RelayError("a message that is not a passed-on code")
    if not (isinstance(msg["f"], str) and msg["f"].startswith(f"t2.{msg['t'][0]}.")):
        raise RelayError("a message that is not a passed-on code")
    if msg["t"] == "offer" and not (isinstance(msg["m"], str) and HEX64_RE.match(msg["m"])):
        raise RelayError("a passed-on code with no proper tag")
    return msg


_KEYS = {"offer": {"t", "f", "m"}, "answer": {"t", "f"}}


def _json(text):
    if not isinstance(text, str) or len(text) > MAX_TEXT:
        raise RelayError("a message larger than a passed-on code")
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        raise RelayError("a message that is not valid data") from None


def rate_ok(times: list, now) -> tuple[list, bool]:
    """The arrival times kept (within WINDOW) and whether one more may come."""
    kept = [t for t in times if now - t < WINDOW]
    return kept + [now], len(kept) < RATE
