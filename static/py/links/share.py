"""Share links: a roll setup or a result in the URL fragment, so nothing is
sent to the host. Pure; no DOM.

Format: ``#v1.s.<payload>`` (a setup) or ``#v1.r.<payload>`` (a result),
where the payload is URL-safe base64 of deflated JSON. A setup carries the
system and the spec; a result carries the spec and the recorded draws of
each stage, never an outcome: opening it replays the draws through the
rules, so a link cannot claim an outcome its dice don't give.

Fair rolls at a distance (``fair.py``) add four kinds that share the same
codec and limits: ``#v1.q.`` a roll request (GM to player), ``#v1.a.`` the
player's answer or step, ``#v1.d.`` the GM's dice or step, ``#v1.v.`` the
final reveal that anyone can verify. ``decode`` only unpacks them (kind
``"fair"``); ``fair.open_link`` checks them against the request they belong
to. ``open_link`` opens setups and results only.

A character's sheet travels as ``#v1.c.<payload>`` (docs/PARTY.md):
the game, the sheet, its id and when it was last changed; opening it
checks the sheet through the rules (``party.roster.checked``) as strictly
as a spec.

Every decoder stays in ``DECODERS``: old links keep opening.

>>> link = encode_setup("jadeclaw", {"dice": [12, 8]})
>>> link.startswith("v1.s.")
True
>>> decode(link)
{'kind': 'setup', 'system': 'jadeclaw', 'spec': {'dice': [12, 8]}}
"""

from __future__ import annotations

import base64
import json
import zlib

import rules
from rules.dice import SpecError

__all__ = ["ShareError", "pack", "unpack", "encode_setup", "encode_result", "encode_sheet", "encode_fair", "decode", "open_link",
           "FAIR_KINDS", "MAX_FRAGMENT", "MAX_JSON", "nesting_depth"]

#: Longer fragments are refused unread (a 1 MB link is not a roll).
MAX_FRAGMENT = 16_000
#: The inflated JSON may be at most this long (no zip bombs).
MAX_JSON = 64_000
#: Deeper nesting than this is refused before parsing.
MAX_DEPTH = 24


class ShareError(ValueError):
    """A link that cannot be opened; the message is for the banner."""


def pack(obj) -> str:
    """Compact JSON, deflated, URL-safe base64 without padding: the payload
    of every link the page makes (setups, results, fair rolls, and the live
    table's join codes)."""
    raw = json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode().rstrip("=")


def unpack(payload: str, limit: int = MAX_JSON, depth: int = MAX_DEPTH, what: str = "This link"):
    """The JSON a payload holds, read by the one codec every kind of link
    uses; every way it can be damaged, oversized, hostile or carry more
    than its data is a ShareError whose message begins with ``what``.

    Anything after the payload is refused, not ignored: characters after
    its base64 (a link pasted twice), base64 that does not spell its bytes
    exactly, and bytes after the end of the deflate stream.

    >>> p = pack({"y": "jadeclaw"})
    >>> unpack(p)
    {'y': 'jadeclaw'}
    >>> unpack(p + p)
    Traceback (most recent call last):
    ...
    links.share.ShareError: This link has more data after its end (was it pasted twice?); it was not opened.
    """
    if not payload or payload[0] not in _B64:
        raise ShareError(f"{what} is damaged: its data is not in the expected form.")
    if any(c not in _B64 for c in payload):
        raise ShareError(f"{what} has more data after its end (was it pasted twice?); it was not opened.")
    text = _text(_inflate(_unbase64(payload, what), limit, what), what)
    if nesting_depth(text) > depth:
        raise ShareError(f"{what}'s data is nested far too deeply; it was not opened.")
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        raise ShareError(f"{what} is damaged: its data is not valid.") from None


def _unbase64(payload: str, what: str) -> bytes:
    """The bytes the payload spells; base64 that is not exactly what
    ``pack`` writes for them (a character too many) is refused."""
    try:
        packed = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
    except (ValueError, TypeError):
        raise ShareError(f"{what} is damaged: its data cannot be decoded.") from None
    if base64.urlsafe_b64encode(packed).decode().rstrip("=") != payload:
        raise ShareError(f"{what} has more data after its end (was it pasted twice?); it was not opened.")
    return packed


def _inflate(packed: bytes, limit: int, what: str) -> bytes:
    """Inflate at most ``limit`` bytes (no zip bombs), whole or not at all,
    and nothing after the deflate stream's end."""
    d = zlib.decompressobj()
    try:
        raw = d.decompress(packed, limit + 1)
    except zlib.error:
        raise ShareError(f"{what} is damaged or cut short: its data cannot be unpacked.") from None
    if len(raw) > limit or d.unconsumed_tail:
        raise ShareError(f"{what} holds far more data than a roll needs; it was not opened.")
    if not d.eof:
        raise ShareError(f"{what} is cut short: part of it is missing.")
    if d.unused_data:
        raise ShareError(f"{what} has more data after its end (was it pasted twice?); it was not opened.")
    return raw


def _text(raw: bytes, what: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ShareError(f"{what} is damaged: its text is not readable.") from None


_B64 = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def nesting_depth(text: str) -> int:
    """The deepest bracket nesting, counted outside strings (cheap, no parse)."""
    depth = best = 0
    in_str = esc = False
    for ch in text:
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            depth += 1
            best = max(best, depth)
        elif ch in "]}":
            depth -= 1
    return best


def encode_setup(system: str, spec: dict) -> str:
    return f"v1.s.{pack({'y': system, 'p': spec})}"


def encode_result(result: dict) -> str:
    """The spec and each stage's action and draws; nothing the dice decide."""
    return f"v1.r.{pack({'y': result['system'], 'p': result['spec'], 't': result['stages']})}"


def encode_sheet(entry: dict) -> str:
    """A character's sheet (an entry of ``party.roster``).

    >>> e = {"id": "a1", "system": "alkemy", "time": 5, "sheet": {"name": "Patrick"}}
    >>> decode(encode_sheet(e))["kind"], decode(encode_sheet(e))["sheet"]
    ('sheet', {'name': 'Patrick'})
    """
    return f"v1.c.{pack({'y': entry['system'], 'p': entry['sheet'], 'i': entry['id'], 'w': entry['time']})}"


#: The fair-roll kinds (fair.py): link letter -> what the link carries.
FAIR_KINDS = {"q": "request", "a": "answer", "d": "dice", "v": "reveal"}


def encode_fair(kind: str, data: dict) -> str:
    """A fair-roll message (``fair.py`` builds and checks ``data``).

    >>> link = encode_fair("a", {"i": "0123456789ab", "n": 1})
    >>> link[:5], decode(link)
    ('v1.a.', {'kind': 'fair', 'fair': 'a', 'data': {'i': '0123456789ab', 'n': 1}})
    """
    if kind not in FAIR_KINDS:
        raise ValueError(f"not a fair-roll link kind: {kind!r}")
    return f"v1.{kind}.{pack(data)}"


def _v1(kind: str, payload: str) -> dict:
    data = unpack(payload)
    if kind in FAIR_KINDS:
        if not isinstance(data, dict):
            raise ShareError("This fair-roll link does not hold a roll.")
        return {"kind": "fair", "fair": kind, "data": data}
    if not isinstance(data, dict) or not isinstance(data.get("y"), str) or not isinstance(data.get("p"), dict):
        raise ShareError("This link does not hold a roll.")
    if data["y"] not in rules.SYSTEMS:
        raise ShareError("This link is for a game this page does not know.")
    if kind == "s":
        return {"kind": "setup", "system": data["y"], "spec": data["p"]}
    if kind == "r":
        if not isinstance(data.get("t"), list):
            raise ShareError("This result link has no dice in it.")
        return {"kind": "result", "system": data["y"], "spec": data["p"], "stages": data["t"]}
    if kind == "c":
        return {"kind": "sheet", "system": data["y"], "sheet": data["p"], "id": data.get("i"), "time": data.get("w")}
    raise ShareError("This link is neither a roll setup, a result nor a character.")


#: One decoder per link version; never remove one (old links keep opening).
DECODERS = {"v1": _v1}


def decode(fragment: str) -> dict:
    """A fragment (with or without '#') to ``{"kind", "system", "spec"[, "stages"]}``,
    not yet checked against the rules (``open_link`` does that)."""
    if not isinstance(fragment, str):
        raise ShareError("This link cannot be read.")
    frag = fragment[1:] if fragment.startswith("#") else fragment
    if len(frag) > MAX_FRAGMENT:
        raise ShareError("This link is far too long to be a roll; it was not opened.")
    parts = frag.split(".", 2)
    if len(parts) != 3:
        raise ShareError("This link is cut short or is not a dice-table link.")
    version, kind, payload = parts
    decoder = DECODERS.get(version)
    if decoder is None:
        raise ShareError("This link was made by a newer or unknown version of the dice table; "
                         "it could not be opened here.")
    return decoder(kind, payload)


def open_link(fragment: str) -> dict:
    """Decode and check a link against the rules. A setup comes back with
    its spec normalized; a result comes back replayed from its draws (its
    outcome recomputed here, whatever the sender's page said)."""
    link = decode(fragment)
    if link["kind"] == "fair":
        raise ShareError("This link is part of a fair roll at a distance, not a roll setup "
                         "or a result.")
    if link["kind"] == "sheet":
        return _open_sheet(link)
    try:
        if link["kind"] == "setup":
            link["spec"] = rules.normalize(link["system"], link["spec"])
        else:
            link["result"] = rules.replay(link["system"], link["spec"], link["stages"], advise=False)
            link["spec"] = link["result"]["spec"]
    except SpecError as e:
        raise ShareError(f"This link's roll is not valid here ({e}).") from None
    except RecursionError:
        raise ShareError("This link's data is nested far too deeply; it was not opened.") from None
    return link


def _open_sheet(link: dict) -> dict:
    """A sheet link checked whole (its id and time too); the message names
    the field the rules refused."""
    from party import roster  # with the party, at its first use
    entry = roster.checked({"id": link["id"], "system": link["system"], "time": link["time"], "sheet": link["sheet"]})
    if entry is None:
        try:
            rules.normalize_sheet(link["system"], link["sheet"])
        except SpecError as e:
            raise ShareError(f"This link's character sheet is not valid here ({e}).") from None
        except RecursionError:
            raise ShareError("This link's data is nested far too deeply; it was not opened.") from None
        raise ShareError("This link's character sheet is damaged (its id or date).")
    link["entry"] = entry
    return link
