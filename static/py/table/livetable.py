"""The live table's protocol (docs/LIVE-TABLE.md): players' phones join the GM's tablet over a
WebRTC data channel, with no server; every roll made on a joined device
shows in the table log of the others. Pure: no DOM, no clock (the page
passes ``now``), no randomness of its own (the page passes ``entropy``).

**Joining** takes one offer (the tablet's) and one answer (the phone's),
each a link that fits in a QR code. A link never carries the whole SDP,
only what the other side cannot know: the ICE credentials (``ufrag``,
``pwd``), the DTLS certificate's SHA-256 fingerprint and the candidates
(address, port, host or server-reflexive), plus the table's id, the seat
the offer is for and the names. ``build_sdp`` writes a valid SDP around
them again (a data channel is all either side ever offers, so the rest is
fixed). ::

    #t2.o.<payload>   the tablet's offer for one seat
    #t2.a.<payload>   a phone's answer to it

A payload is compact JSON, deflated, base64url (``pack``/``unpack``), at
most ``MAX_PAYLOAD`` characters inflating to at most ``MAX_INFLATED``. No
link carries anything that names a device: whoever reads a code learns
the table's id, a seat number, a name and network addresses.

**Sitting down.** Once the channel is open the tablet sends a ``hello``
with a fresh challenge; the phone answers ``seat`` with its device id and
either, the first time at this table, its *table key* (``k``, derived from
the device's secret: ``device.table_key``), or, at a rejoin, a proof
(``m``): HMAC-SHA256 under that key of the table, the device, the
challenge and both certificates' fingerprints (so a proof made for one
connection is worth nothing on another: a relay is caught). The tablet
answers ``welcome`` (the name the phone sits under) or ``bye`` (why not).
A seat is taken back only with its key; a device id alone gives nothing.
A seat that moves to a new connection pushes the old one out with a
``bye``.

**Messages** are JSON objects of a known kind with exactly their keys, at
most ``MAX_MESSAGE`` characters. Those that carry something (``roll``,
``push``, ``fair``) are numbered ``n`` 0, 1, 2 ... per connection and
direction, and every message but the greeting carries ``a``, how many of
the other side's numbered messages it has taken (an ``ack`` carries only
that). What is sent waits in its seat's queue until it is acknowledged,
across reconnections and reloads; a message not acknowledged after
``RESEND_MS`` is sent again from there (go back). The receiver takes only
the next number: one already taken is ignored, one ahead is refused, and
neither uses up a number. A peer may send at most ``RATE`` messages in
``WINDOW`` ms; a message refused for that is not taken either, so it comes
again. An honest sender never meets that limit: it spends a bucket of
``BUCKET`` messages refilled one every ``REFILL_MS`` ms (at most 22 in any
ten seconds, acks included), and the rolls waiting meanwhile go as one
message (up to ``MAX_BATCH``).

=======  =========  ==================================================
kind     from       fields
=======  =========  ==================================================
hello    tablet     ``c``: the challenge
seat     phone      ``d`` device id; ``k`` table key or ``m`` proof
welcome  tablet     ``w``: the name this phone sits under; ``b`` back
bye      tablet     ``w``: why the channel ends
roll     both       ``n``, ``a``, ``r``: entries (``e``: ``id``, ``y``
                    system, ``p`` spec, ``g`` stages, ``l`` label, ``at``
                    time); the tablet adds ``by`` to another's roll
push     tablet     ``n``, ``a``, ``y``, ``p``, ``l``: a setup to roll
sheet    phone      ``n``, ``a``, ``i``, ``y``, ``p``: a character sheet
                    for the tablet's party (its id, game and sheet)
fair     both       ``n``, ``a``, ``f``: a fair-roll link (``fair.py``)
ack      both       ``a``
=======  =========  ==================================================

A received entry is rebuilt by ``rules.replay`` from its spec and stages,
never taken on trust, and it is labelled by the receiver: with the name
the peer sits under (a phone cannot name anyone else: a ``by`` from a
phone is refused) and "rolled on <name>'s phone" or "on the tablet". No
message can say "verified": only a fair roll that ``fair.py`` verified on
this device is logged as one (``fair_entry``). A fair-roll link from a
phone is taken only if it answers a request this tablet sent to that
seat; a phone takes from the tablet only requests, dice and reveals, the
last two only for requests that came over the channel. A sheet from a
phone is checked by ``rules.normalize_sheet``, must be a character (not an
NPC) whose name reads as it is stored, and is taken as played by the seat
it came from (``Player`` is that seat's name, whatever the phone said).

Each roll gets its own random id when it is made; a step of it keeps it.
Two rolls with the same dice are two rolls.

>>> offer = {"u": "GAYV", "p": "wnAB/c5xbofAVSBOgH1BvFaf", "f": "33" * 32,
...          "c": [["h", "192.0.2.2", 35534]]}
>>> sdp = build_sdp(offer, "o")
>>> parse_sdp(sdp) == offer
True
>>> link = encode_join("o", offer, {"t": "AbCdEf12", "s": 0, "g": "GM"})
>>> got = decode_join("#" + link)
>>> got["kind"], got["desc"] == offer, got["meta"]["g"]
('o', True, 'GM')
"""

from __future__ import annotations

import base64
import ipaddress
import json
import re

import rules
from links import share
from records.synced import Synced
from rules.dice import SpecError
from shell import names
from table import relay, secret

__all__ = ["TableError", "parse_sdp", "build_sdp", "encode_join", "decode_join", "is_join_link",
           "new_host", "new_player", "add_link", "opened", "closed", "receive", "pump", "post",
           "own_entry", "fair_entry", "route_fair", "share_sheet", "status", "dump", "load", "synced_table",
           "MAX_PEERS"]

VERSION = "t2"
#: Join codes of an older page, refused with words that say so.
OLD_VERSIONS = ("t1",)
#: Payload characters of a join link, and what they may inflate to.
MAX_PAYLOAD = 1200
MAX_INFLATED = 2000
MAX_CANDIDATES = 12
#: One message over the channel, in characters (a roll of 24 steps is ~6 kB).
MAX_MESSAGE = 24_000
MAX_DEPTH = 24
#: A peer may send at most RATE messages in WINDOW ms (a flood is refused).
RATE = 30
WINDOW = 10_000
#: What this side sends: at most BUCKET at once, then one every REFILL_MS
#: (BUCKET + WINDOW / REFILL_MS = 22 in any WINDOW: far below RATE).
BUCKET = 8
REFILL_MS = 700
#: A numbered message received is acknowledged within ACK_DELAY ms (acks
#: ride on the next message when there is one).
ACK_DELAY = 150
#: A message not acknowledged after RESEND_MS is sent again; after STALL_MS
#: the connection is shown as not answering.
RESEND_MS = 4_000
STALL_MS = 8_000
#: Rolls in one message.
MAX_BATCH = 40
MAX_PEERS = 8
LABEL_MAX = 80
#: The table log keeps the newest LOG_CAP entries.
LOG_CAP = 500
#: Rolls waiting in one seat's queue (the oldest go first when it is full).
OUT_CAP = 200
#: Fair-roll requests remembered (which seat each went to).
FAIR_CAP = 200
REASON_MAX = 300
ID_RE = re.compile(r"[A-Za-z0-9_-]{1,24}\Z")
DEVICE_RE = re.compile(r"[A-Za-z0-9_-]{12}\Z")
TABLE_RE = re.compile(r"[A-Za-z0-9_-]{8}\Z")
HEX64_RE = re.compile(r"[0-9a-f]{64}\Z")
RID_RE = re.compile(r"[0-9a-f]{12}\Z")
#: A character sheet's id (``party.roster``).
SHEET_ID_RE = re.compile(r"[0-9a-f]{1,32}\Z")
ICE_RE = re.compile(r"[A-Za-z0-9+/]+\Z")
MDNS_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.local\Z")
_B64 = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
_TYPES = {"h": "host", "s": "srflx"}
_TYPE_PREF = {"h": 126, "s": 100}
#: What a proof of a seat is made with (``proof``).
PROOF_TAG = b"dice-table/table/v2/seat"


class TableError(ValueError):
    """A link or message refused; the message is for the page."""


# ---------------------------------------------------------------- the SDP

def _candidate(line: str):
    """``[type, address, port]`` of one ``a=candidate`` line, or None for
    what a table does not use (TCP, relay)."""
    parts = line.split()
    if len(parts) < 8 or parts[2].lower() != "udp" or parts[6] != "typ":
        return None
    typ = {v: k for k, v in _TYPES.items()}.get(parts[7])
    if typ is None or not parts[5].isdigit():
        return None
    return [typ, parts[4], int(parts[5])]


def parse_sdp(sdp: str) -> dict:
    """What the other side needs of a local description: ``u`` ufrag, ``p``
    pwd, ``f`` the SHA-256 fingerprint as 64 hex digits, ``c`` the UDP host
    and server-reflexive candidates (at most ``MAX_CANDIDATES``)."""
    out = {"u": "", "p": "", "f": "", "c": []}
    for raw in str(sdp).splitlines():
        _take_sdp_line(out, raw.strip())
    return _check_desc(out)


def _take_sdp_line(out: dict, line: str) -> None:
    """What one line of an SDP gives ``parse_sdp`` (``out`` is filled in
    place): a connection key, the fingerprint, or one more candidate."""
    if line.startswith("a=ice-ufrag:"):
        out["u"] = line.split(":", 1)[1]
    elif line.startswith("a=ice-pwd:"):
        out["p"] = line.split(":", 1)[1]
    elif line.startswith("a=fingerprint:sha-256 "):
        out["f"] = line.split(" ", 1)[1].replace(":", "").lower()
    elif line.startswith("a=candidate:"):
        _add_candidate(out["c"], _candidate(line[len("a=candidate:"):]))


def _add_candidate(cands: list, c) -> None:
    """One more candidate (in place), unless the table does not use it,
    it is listed already or the list is full."""
    if c and c not in cands and len(cands) < MAX_CANDIDATES:
        cands.append(c)


def build_sdp(desc: dict, kind: str) -> str:
    """A valid SDP for a data channel from ``desc``: the offer's role is
    ``actpass``, the answer's ``active`` (it opens the DTLS handshake)."""
    fp = ":".join(desc["f"][i:i + 2] for i in range(0, 64, 2)).upper()
    cands = []
    for i, (typ, addr, port) in enumerate(desc["c"]):
        prio = (_TYPE_PREF[typ] << 24) | ((65535 - i) << 8) | 255
        tail = " raddr 0.0.0.0 rport 0" if typ == "s" else ""
        cands.append(f"a=candidate:{i + 1} 1 udp {prio} {addr} {port} typ {_TYPES[typ]}{tail} generation 0")
    session = int.from_bytes(desc["u"].encode()[:7].ljust(7, b"\0"), "big")
    lines = ["v=0", f"o=- {session} 2 IN IP4 127.0.0.1", "s=-", "t=0 0", "a=group:BUNDLE 0",
             "a=msid-semantic: WMS", "m=application 9 UDP/DTLS/SCTP webrtc-datachannel",
             "c=IN IP4 0.0.0.0", *cands, f"a=ice-ufrag:{desc['u']}", f"a=ice-pwd:{desc['p']}",
             "a=ice-options:trickle", f"a=fingerprint:sha-256 {fp}",
             f"a=setup:{'actpass' if kind == 'o' else 'active'}", "a=mid:0", "a=sctp-port:5000",
             "a=max-message-size:262144"]
    return "\r\n".join(lines) + "\r\n"


def _address(addr) -> str:
    if isinstance(addr, str) and MDNS_RE.match(addr):
        return addr
    try:
        return str(ipaddress.ip_address(addr))
    except (ValueError, TypeError):
        raise TableError("This join code is damaged: a network address in it is not one.") from None


def _check_cand(c) -> list:
    if not (isinstance(c, list) and len(c) == 3 and isinstance(c[0], str) and c[0] in _TYPES):
        raise TableError("This join code is damaged: a network address in it is not in the expected form.")
    port = c[2]
    if type(port) is not int or not 0 < port < 65536:
        raise TableError("This join code is damaged: a port in it is not one.")
    return [c[0], _address(c[1]), port]


def _check_desc(d) -> dict:
    """A description as a link may carry it, checked field by field."""
    if not (isinstance(d, dict) and set(d) == {"u", "p", "f", "c"}):
        raise TableError("This join code is damaged: it is not in the expected form.")
    _check_ice(d["u"], d["p"])
    if not (isinstance(d["f"], str) and re.fullmatch(r"[0-9a-f]{64}", d["f"])):
        raise TableError("This join code is damaged: its certificate fingerprint is not in the expected form.")
    return {"u": d["u"], "p": d["p"], "f": d["f"], "c": _check_cands(d["c"])}


def _check_cands(cands) -> list:
    """A description's candidates: a list of at most ``MAX_CANDIDATES``,
    each checked."""
    if not isinstance(cands, list) or len(cands) > MAX_CANDIDATES:
        raise TableError("This join code is damaged: it lists too many network addresses.")
    return [_check_cand(c) for c in cands]


def _check_ice(ufrag, pwd) -> None:
    """A description's connection keys (ICE user fragment and password)."""
    for v, lo, hi in ((ufrag, 4, 32), (pwd, 22, 64)):
        if not (isinstance(v, str) and lo <= len(v) <= hi and ICE_RE.match(v)):
            raise TableError("This join code is damaged: its connection keys are not in the expected form.")


# ---------------------------------------------------------------- the links

def pack(obj) -> str:
    """Compact JSON, deflated, base64url without padding (``share.pack``)."""
    return share.pack(obj)


def unpack(payload: str, limit: int = MAX_INFLATED):
    """The JSON a payload holds, through the links' one codec
    (``share.unpack``): damaged, oversized, deep ones and any with data
    after their end refused."""
    if len(payload) > MAX_PAYLOAD:
        raise TableError("This join code is damaged or far too long.")
    try:
        return share.unpack(payload, limit, MAX_DEPTH, "This join code")
    except share.ShareError as e:
        raise TableError(str(e)) from None


def parse_json(text: str, what: str):
    if share.nesting_depth(text) > MAX_DEPTH:
        raise TableError(f"{what} is nested far too deeply.")
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        raise TableError(f"{what} is damaged: it is not valid data.") from None


_META = {"o": {"t", "s", "g"}, "a": {"t", "s", "w"}}


def name(v, field: str = "name") -> str:
    """A person's name as the table shows it (``names.clean``: NFKC,
    nothing invisible, no bidi controls, spaces folded), 1-40 characters."""
    text = names.clean(v) if isinstance(v, str) else ""
    if not 0 < len(text) <= names.NAME_MAX:
        raise TableError(f"The {field} must be 1 to {names.NAME_MAX} characters.")
    return text


def _check_meta(kind: str, meta) -> dict:
    if not (isinstance(meta, dict) and set(meta) == _META[kind]):
        raise TableError("This join code is damaged: it is not in the expected form.")
    if not (isinstance(meta["t"], str) and TABLE_RE.match(meta["t"])):
        raise TableError("This join code is damaged: its table is not named as one.")
    _seat_number(meta["s"], "This join code is damaged: its seat is not a number.")
    who = "g" if kind == "o" else "w"
    return {**meta, who: name(meta[who], "player's name" if kind == "a" else "GM's name")}


def encode_join(kind: str, desc: dict, meta: dict) -> str:
    """The fragment (without ``#``) of an offer (``o``) or answer (``a``)."""
    desc = _check_desc(desc)
    meta = _check_meta(kind, meta)
    return f"{VERSION}.{kind}." + pack([desc["u"], desc["p"], _fp_b64(desc["f"]), desc["c"], meta])


def _fp_b64(hexfp: str) -> str:
    return base64.urlsafe_b64encode(bytes.fromhex(hexfp)).decode().rstrip("=")


def _fp_hex(b64) -> str:
    if not (isinstance(b64, str) and len(b64) == 43 and all(c in _B64 for c in b64)):
        raise TableError("This join code is damaged: its certificate fingerprint is not in the expected form.")
    return base64.urlsafe_b64decode(b64 + "=").hex()


def is_join_link(fragment) -> bool:
    """Whether a URL fragment is meant as a table's join code (even a
    damaged one: it should be refused as such, not as a share link)."""
    return str(fragment).lstrip("#").startswith(tuple(v + "." for v in (VERSION, *OLD_VERSIONS)))


def decode_join(fragment) -> dict:
    """``{"kind": "o"|"a", "desc": ..., "meta": ...}`` of a join link (the
    whole URL, the fragment, with or without ``#``); every fault refused."""
    parts = _join_parts(fragment)
    data = unpack(parts[2])
    if not (isinstance(data, list) and len(data) == 5):
        raise TableError("This join code is damaged: it is not in the expected form.")
    desc = _check_desc({"u": data[0], "p": data[1], "f": _fp_hex(data[2]), "c": data[3]})
    return {"kind": parts[1], "desc": desc, "meta": _check_meta(parts[1], data[4])}


def _join_parts(fragment) -> list:
    """A join link's version, kind and payload; an older page's code and
    anything else not a join code of this page refused."""
    parts = _fragment(fragment).split(".", 2)
    if parts[0] in OLD_VERSIONS:
        raise TableError("This join code comes from an older version of the page: reload the page on both "
                         "devices, then use a new code.")
    if len(parts) != 3 or parts[0] != VERSION or parts[1] not in _META:
        raise TableError("This is not a table's join code (or it comes from a newer page).")
    return parts


def _fragment(link) -> str:
    """What follows the ``#`` of a join link (all of it if it has none);
    one with a second link after its end is refused."""
    text = str(link).strip()
    if text.count("#") > 1 or ("#" in text and is_join_link(text.split("#", 1)[0])):
        raise TableError("This join code has more data after its end (was it pasted twice?); it was not opened.")
    return text.split("#", 1)[1] if "#" in text else text


# ---------------------------------------------------------------- the table's state

def _token(entropy, n: int = 6) -> str:
    return base64.urlsafe_b64encode(entropy(n)).decode()


def new_host(gm_name: str, entropy) -> dict:
    """A fresh table on the GM's tablet: no players yet."""
    return {"v": 2, "role": "host", "table": _token(entropy), "name": name(gm_name or "GM", "GM's name"),
            "next_slot": 0, "seats": [], "links": [], "relay": {}, "log": [], "fair": {}}


def new_player(offer: dict, player_name: str, device: str, tk: str) -> dict:
    """A phone's side of a table it joins with ``offer`` (decoded):
    ``device`` its id, ``tk`` its table key (``device.table_key``)."""
    meta = offer["meta"]
    return {"v": 2, "role": "player", "table": meta["t"], "slot": meta["s"],
            "name": name(player_name, "player's name"), "device": device, "tk": tk, "host": meta["g"],
            "seated": False, "seats": [_seat("host", meta["g"], "")], "links": [], "relay": {}, "log": [],
            "fair": {}}


def join_again(table: dict, offer: dict, player_name: str, device: str, tk: str) -> dict:
    """A phone at this table scans a new code of it: its log, its queue and
    its seat are kept (a seated phone keeps the name it sits under)."""
    meta = offer["meta"]
    who = table["name"] if table["seated"] else name(player_name, "player's name")
    seat = {**table["seats"][0], "name": meta["g"]}
    return {**table, "slot": meta["s"], "name": who, "host": meta["g"], "device": device, "tk": tk,
            "seats": [seat], "links": []}


def _seat(device: str, who: str, tk: str) -> dict:
    """A seat: who sits there, the key it proves itself with (the tablet's
    side), and what waits to be sent to it."""
    return {"device": device, "name": who, "tk": tk, "out": []}


def _link(key, fo: str, fa: str, wanted: str = "", only: str = "") -> dict:
    """One connection: the certificates' fingerprints of both ends (``fo``
    the tablet's, ``fa`` the phone's), where the greeting stands, the
    messages waiting to go before the numbered ones (``ctl``), the numbers
    and acknowledgements each way, the sender's bucket and the receiver's
    recent arrivals. ``only``: the one device that may sit down on it (an
    offer passed on for that seat by another phone)."""
    return {"key": key, "device": "", "wanted": wanted, "only": only, "fo": fo, "fa": fa, "state": "new", "nonce": "",
            "ctl": [], "n_in": 0, "acked": 0, "ack_at": None, "base": 0, "sent": 0, "progress": 0,
            "tokens": BUCKET, "tok_at": None, "times": []}


def link(table: dict, key):
    return next((x for x in table["links"] if x["key"] == key), None)


def seat(table: dict, device):
    return next((s for s in table["seats"] if s["device"] == device), None)


def seat_link(table: dict, device):
    """The open, greeted connection of a seat, or None (away)."""
    return next((x for x in table["links"] if x["device"] == device and x["state"] == "ok"), None)


def _put_link(table: dict, x: dict) -> dict:
    return {**table, "links": [x if y["key"] == x["key"] else y for y in table["links"]]}


def _put_seat(table: dict, s: dict) -> dict:
    return {**table, "seats": [s if y["device"] == s["device"] else y for y in table["seats"]]}


def next_offer_meta(table: dict) -> tuple[dict, dict]:
    """The table with one more seat offered, and the offer's meta."""
    s = table["next_slot"]
    return {**table, "next_slot": s + 1}, {"t": table["table"], "s": s, "g": table["name"]}


def add_link(table: dict, answer: dict, fo: str) -> tuple[dict, dict]:
    """The tablet takes a phone's answer (decoded) to the offer whose
    certificate fingerprint is ``fo``: a connection for that seat, not yet
    greeted (who sits there is settled over the channel)."""
    meta = answer["meta"]
    _check_answered_seat(table, meta)
    if sum(1 for x in table["links"] if x["state"] != "gone") >= MAX_PEERS + 2:
        raise TableError(f"A table holds at most {MAX_PEERS} phones.")
    relays = dict(table["relay"])
    new = _link(meta["s"], fo, answer["desc"]["f"], meta["w"], relays.pop(meta["s"], ""))
    return {**table, "links": table["links"] + [new], "relay": relays}, new


def _check_answered_seat(table: dict, meta: dict) -> None:
    """An answer is for a seat of this table that was offered and is not
    taken yet."""
    if meta["t"] != table["table"]:
        raise TableError("This answer is for another table (or for this table before it was started again).")
    if meta["s"] >= table["next_slot"]:
        raise TableError("This answer is for a seat this table never offered.")
    if link(table, meta["s"]) is not None:
        raise TableError("That seat is taken: this answer was used already. Ask the player to scan the new code.")


def player_link(table: dict, fo: str, fa: str) -> dict:
    """The phone's one connection, to the tablet (``fo`` its certificate's
    fingerprint as the offer gave it, ``fa`` this phone's)."""
    return {**table, "links": [_link("host", fo, fa)]}


def opened(table: dict, key, entropy) -> dict:
    """A channel opened: the tablet greets with a fresh challenge; the
    phone waits for it."""
    x = link(table, key)
    if x is None or x["state"] != "new":
        return table
    if table["role"] == "host":
        nonce = entropy(16).hex()
        return _put_link(table, {**x, "state": "hello", "nonce": nonce, "ctl": [{"t": "hello", "c": nonce}]})
    return _put_link(table, {**x, "state": "hello"})


def closed(table: dict, key) -> dict:
    """A channel closed: its connection is gone; what it had sent and was
    not acknowledged waits in its seat for the next one."""
    return {**table, "links": [x for x in table["links"] if x["key"] != key]}


def proof(tk: str, table_id: str, device: str, nonce: str, fo: str, fa: str) -> str:
    """A phone's proof of its seat on one connection: HMAC-SHA256 under its
    table key of the table, the device, the tablet's challenge and both
    certificates' fingerprints."""
    import hashlib  # not before ready: a first visit sits at no table
    import hmac

    msg = b"\x00".join(v.encode() for v in (table_id, device, nonce, fo, fa))
    return hmac.new(bytes.fromhex(tk), PROOF_TAG + b"\x00" + msg, hashlib.sha256).hexdigest()


def status(table: dict, x, now) -> str:
    """A connection's state in the page's words: ``joining``, ``open``,
    ``stalled`` (messages wait unacknowledged: it does not answer) or
    ``away``."""
    if x is None or x["state"] == "gone":
        return "away"
    if x["state"] != "ok":
        return "joining"
    return "stalled" if x["sent"] and now - x["progress"] >= STALL_MS else "open"


def waiting(table: dict, device) -> int:
    """How many things (rolls, setups, fair-roll links, sheets) wait to reach a seat."""
    s = seat(table, device)
    return 0 if s is None else _things(i for i in s["out"] if i["t"] in _KEPT)


def link_name(table: dict, x: dict) -> str:
    """Who is at the other end of a connection, as a banner names them."""
    if table["role"] == "player":
        return names.isolate(table["host"])
    s = seat(table, x["device"]) if x["device"] else None
    return names.isolate(s["name"]) if s else names.isolate(x["wanted"]) + " (joining)"


# ---------------------------------------------------------------- messages

_KEYS = {
    "hello": ({"t", "c"}, set()),
    "seat": ({"t", "d"}, {"k", "m"}),
    "welcome": ({"t", "w", "b"}, set()),
    "bye": ({"t", "w"}, set()),
    "roll": ({"t", "n", "a", "r"}, set()),
    "push": ({"t", "n", "a", "y", "p", "l"}, set()),
    "fair": ({"t", "n", "a", "f"}, set()),
    "sheet": ({"t", "n", "a", "i", "y", "p"}, set()),
    "ack": ({"t", "a"}, set()),
    "peers": ({"t", "n", "a", "w"}, set()),
    "peer": ({"t", "n", "a", "w", "k", "d"}, set()),
    "relay": ({"t", "n", "a", "f"}, {"w", "m"}),
}
#: What each side takes from the other.
_FROM = {"host": {"seat", "roll", "fair", "sheet", "ack", "peer", "relay"},
         "player": {"hello", "welcome", "bye", "roll", "push", "fair", "ack", "peers", "peer", "relay"}}
#: What each greeting state takes (the rest of the greeting, or a bye).
_GREETING = {("host", "hello"): {"seat"}, ("player", "hello"): {"hello", "bye"},
             ("player", "seat"): {"welcome", "bye"}}
_NUMBERED = {"roll", "push", "fair", "sheet", "peers", "peer", "relay"}
_ENTRY_KEYS = {"id", "y", "p", "g", "l", "at"}


def _shape(msg) -> dict:
    if not isinstance(msg, dict) or not isinstance(msg.get("t"), str) or msg["t"] not in _KEYS:
        raise TableError("a message of no known kind")
    need, may = _KEYS[msg["t"]]
    if not need <= set(msg) <= need | may:
        raise TableError(f"a {msg['t']} message with other fields than it should have")
    _check_places(msg)
    return msg


def _check_places(msg: dict) -> None:
    """A message's number (``n``) and acknowledgement (``a``), where it
    has them: whole numbers below a billion."""
    for k in ("n", "a"):
        if k in msg and (type(msg[k]) is not int or not 0 <= msg[k] < 10 ** 9):
            raise TableError("a message with no place in the exchange")


def _label(v) -> str:
    if not isinstance(v, str) or len(v) > LABEL_MAX:
        raise TableError(f"a label that is not text of at most {LABEL_MAX} characters")
    return names.clean(v)


def check_entry(e) -> tuple[dict, dict]:
    """An entry as it came, checked, and its result rebuilt by the rules."""
    if not (isinstance(e, dict) and set(e) == _ENTRY_KEYS):
        raise TableError("a roll with other fields than a roll has")
    if not (isinstance(e["id"], str) and ID_RE.match(e["id"])):
        raise TableError("a roll with no proper id")
    _check_game_and_time(e)
    label = _label(e["l"])
    return {**e, "l": label, "at": int(e["at"])}, _replayed(e)


def _check_game_and_time(e: dict) -> None:
    """An entry's game (its spec and stages of the kinds a roll's are) and
    when it was rolled."""
    if e["y"] not in rules.SYSTEMS or not isinstance(e["p"], dict) or not isinstance(e["g"], list):
        raise TableError("a roll of no known game")
    if type(e["at"]) not in (int, float) or not 0 <= e["at"] < 1e14:
        raise TableError("a roll with no proper time")


def _replayed(e: dict) -> dict:
    """The entry's result, rebuilt by the rules from its stages."""
    try:
        return rules.replay(e["y"], e["p"], e["g"])
    except (SpecError, RecursionError, TypeError, ValueError, KeyError):
        raise TableError("a roll whose dice do not fit its game's rules") from None


def parse_message(text) -> dict:
    if not isinstance(text, str) or len(text) > MAX_MESSAGE:
        raise TableError(f"a message larger than {MAX_MESSAGE // 1000} kB")
    return _shape(parse_json(text, "A message"))


def _allowed(table: dict, x: dict, msg: dict) -> None:
    """A kind this side takes from the other, at this point of the greeting."""
    role, kind = table["role"], msg["t"]
    if kind not in _FROM[role]:
        raise TableError(f"a {kind} message, which only the {'tablet' if role == 'host' else 'phone'} sends")
    allowed = _GREETING.get((role, x["state"]))
    if allowed is not None and kind not in allowed:
        raise TableError(f"a {kind} message before the phone sat down")
    if allowed is None and kind in ("seat", "hello", "welcome"):
        raise TableError(f"a second {kind} message on one connection")


def receive(table: dict, key, text, now) -> tuple[dict, list]:
    """One message from the connection ``key``: the new table and what
    happened: ``("entry", entry, result, fresh)``, ``("push", system, spec,
    label)``, ``("fair", link)``, ``("sheet", entry, name)`` (a phone's
    character for the party, ``name`` the seat it came from), ``("joined", name, back)``,
    ``("pushed", key)`` (an older connection of that seat: it was sent a
    bye), ``("turned-away", words)``, ``("welcome", name, back)``,
    ``("bye", words)``, or ``("refused", words)`` naming the peer. A refused
    message changes nothing but the counters: one refused for the rate or
    for its place is not taken (its number comes again), one refused for
    what it says is (its number is used; sending it again would not help)."""
    x = link(table, key)
    if x is None or x["state"] in ("new", "gone"):
        return table, []  # an ended connection's last words (it was turned away, pushed out or closed)
    who = link_name(table, x)
    x, flooded = _arrival(x, now)
    table = _put_link(table, x)
    if flooded:
        return table, [("refused", f"{who}: refused more than {RATE} messages in {WINDOW // 1000} seconds; "
                                   "what they sent comes again when they slow down.")]
    try:
        msg = parse_message(text)
        _allowed(table, x, msg)
        if msg["t"] not in _NUMBERED:
            return _CONTROL[msg["t"]](table, x, msg, now)
        table, fresh = _number_taken(table, x, msg, now)
        if not fresh:
            return table, []
        return _HANDLERS[msg["t"]](table, link(table, key), msg)
    except TableError as e:  # the table as it stands: a message refused for what it says used its number
        return table, [("refused", f"From {who}: refused {e}; nothing was changed.")]


def _arrival(x: dict, now) -> tuple[dict, bool]:
    """A message arrives on the link: its time is counted; True when the
    peer had sent ``RATE`` already within ``WINDOW`` (a flood, refused)."""
    times = [t for t in x["times"] if now - t < WINDOW]
    return {**x, "times": times + [now]}, len(times) >= RATE


def _number_taken(table: dict, x: dict, msg: dict, now) -> tuple[dict, bool]:
    """A numbered message takes the next number (and what it acknowledges
    leaves the queue): True. One taken already (its acknowledgement was
    late) is acknowledged again and nothing else: False. One ahead is
    refused."""
    if msg["n"] < x["n_in"]:
        return _put_link(table, {**x, "ack_at": x["ack_at"] or now + ACK_DELAY}), False
    if msg["n"] > x["n_in"]:
        raise TableError("a message out of order (one before it is missing)")
    table = _acked(table, x, msg["a"], now)
    x = link(table, x["key"])
    return _put_link(table, {**x, "n_in": x["n_in"] + 1, "ack_at": x["ack_at"] or now + ACK_DELAY}), True


def _acked(table: dict, x: dict, a: int, now) -> dict:
    """The other side has taken our numbered messages below ``a``: they
    leave the seat's queue."""
    if a < x["base"]:
        return table
    k = a - x["base"]
    if k > x["sent"]:
        raise TableError("an acknowledgement of messages never sent")
    if k == 0:
        return table
    s = seat(table, x["device"])
    table = _put_seat(table, {**s, "out": s["out"][k:]})
    return _put_link(table, {**x, "base": a, "sent": x["sent"] - k, "progress": now})


def _on_ack(table: dict, x: dict, msg: dict, now) -> tuple[dict, list]:
    if x["state"] != "ok":
        raise TableError("an acknowledgement before the phone sat down")
    return _acked(table, x, msg["a"], now), []


def _on_hello(table: dict, x: dict, msg: dict, now) -> tuple[dict, list]:
    """The tablet's challenge: this phone's id and, the first time at this
    table, its table key; afterwards only a proof made with it."""
    c = msg["c"]
    if not (isinstance(c, str) and re.fullmatch(r"[0-9a-f]{32}", c)):
        raise TableError("a greeting with no proper challenge")
    answer = {"t": "seat", "d": table["device"]}
    if table["seated"]:
        answer["m"] = proof(table["tk"], table["table"], table["device"], c, x["fo"], x["fa"])
    else:
        answer["k"] = table["tk"]
    return _put_link(table, {**x, "state": "seat", "ctl": x["ctl"] + [answer]}), []


def _on_welcome(table: dict, x: dict, msg: dict, now) -> tuple[dict, list]:
    who = name(msg["w"]) if isinstance(msg["w"], str) else ""
    if not who or type(msg["b"]) is not bool:
        raise TableError("a welcome that names no one")
    table = {**table, "name": who, "seated": True}
    return _put_link(table, {**x, "device": "host", "state": "ok", "progress": now}), [("welcome", who, msg["b"])]


def _on_bye(table: dict, x: dict, msg: dict, now) -> tuple[dict, list]:
    words = names.clean(msg["w"])[:REASON_MAX] if isinstance(msg["w"], str) else ""
    return _put_link(table, {**x, "state": "gone"}), [("bye", words or "The tablet ended the connection.")]


def _turn_away(table: dict, x: dict, to_phone: str, to_gm: str) -> tuple[dict, list]:
    x = {**x, "state": "gone", "ctl": x["ctl"] + [{"t": "bye", "w": to_phone}]}
    return _put_link(table, x), [("turned-away", to_gm)]


def _on_seat(table: dict, x: dict, msg: dict, now) -> tuple[dict, list]:
    """A phone says who it is: a seat taken back with its key's proof, a new
    seat under a name that looks like no one else's, or turned away."""
    dev, key = _claim(msg)
    s = seat(table, dev)
    if x["only"] and dev != x["only"]:
        who = seat(table, x["only"])["name"]
        return _turn_away(table, x, f"This code was passed on for {who}'s phone, not this one.",
                          f"A phone answered the code passed on for {names.isolate(who)} but is not that phone: "
                          "it was turned away.")
    if s is not None:
        return _take_back(table, x, s, msg)
    if "m" in msg:
        return _turn_away(table, x, "This tablet does not know this phone: on the phone, leave the table "
                                    "(Table → Leave this table), then scan the code again.",
                          f"A phone that says it sat at this table before, but that this tablet does not "
                          f"know, was turned away ({names.isolate(x['wanted'])}).")
    return _new_seat(table, x, dev, key)


def _claim(msg: dict) -> tuple[str, str]:
    """The device id a seat message names and the key or proof it holds,
    each in its form; refused otherwise."""
    dev = msg["d"]
    key = msg.get("k", msg.get("m"))
    if not (isinstance(dev, str) and DEVICE_RE.match(dev)) or len(msg) != 3 or not (
            isinstance(key, str) and HEX64_RE.match(key)):
        raise TableError("a greeting with no proper device or key")
    return dev, key


def _new_seat(table: dict, x: dict, dev: str, key: str) -> tuple[dict, list]:
    """A phone new to this table sits down under the name it asked for,
    unless that name looks like someone's at the table or the table is
    full."""
    wanted = name(x["wanted"])
    for other in [table["name"]] + [y["name"] for y in table["seats"]]:
        if names.looks_alike(wanted, other):
            return _turn_away(table, x, f"The name “{wanted}” looks the same as {other}'s, who is at this "
                                        "table: change your name, then scan the table's code again.",
                              f"A phone asking to sit as {names.isolate(wanted)} was turned away: that name "
                              f"looks the same as {names.isolate(other)}'s.")
    if len(table["seats"]) >= MAX_PEERS:
        return _turn_away(table, x, f"This table is full ({MAX_PEERS} phones).",
                          f"{names.isolate(wanted)} was turned away: the table is full.")
    table = {**table, "seats": table["seats"] + [_seat(dev, wanted, key)]}
    return _sit(table, x, dev, wanted, False), [("joined", wanted, False)]


def _take_back(table: dict, x: dict, s: dict, msg: dict) -> tuple[dict, list]:
    """A known device takes its seat back only with its key: a proof made
    for this connection, or (a phone that forgot it sat here) the key
    itself. The older connection, if still open, is told and ended."""
    from hmac import compare_digest

    if "m" in msg:
        ok = compare_digest(msg["m"], proof(s["tk"], table["table"], s["device"], x["nonce"], x["fo"], x["fa"]))
    else:
        ok = compare_digest(msg["k"], s["tk"])
    if not ok:
        return _turn_away(table, x, f"This phone claims {s['name']}'s seat but could not prove it is that phone.",
                          f"A phone claimed {names.isolate(s['name'])}'s seat but could not prove it is that "
                          f"phone: it was turned away. {names.isolate(s['name'])}'s seat is unchanged.")
    events = []
    old = seat_link(table, s["device"])
    if old is not None and old["key"] != x["key"]:
        bye = {"t": "bye", "w": "Your seat was taken up again by this phone on a newer connection (another "
                                "page or tab of it): this one is ended."}
        table = _put_link(table, {**old, "state": "gone", "device": "", "ctl": old["ctl"] + [bye]})
        events.append(("pushed", old["key"]))
    return _sit(table, x, s["device"], s["name"], True), events + [("joined", s["name"], True)]


def _sit(table: dict, x: dict, dev: str, who: str, back: bool) -> dict:
    """The phone sits down: welcomed, then told which phones are connected
    (it links to each it has no channel with)."""
    welcome = {"t": "welcome", "w": who, "b": back}
    table = _put_link(table, {**x, "device": dev, "state": "ok", "ctl": x["ctl"] + [welcome]})
    return _enqueue(table, dev, {"t": "peers"})


def _by(table: dict, x: dict, item: dict) -> str:
    """Who rolled: a phone's rolls are its own; the tablet names the player
    whose roll it passes on (never one who looks like this phone)."""
    if "by" not in item:
        return seat(table, x["device"])["name"] if table["role"] == "host" else table["host"]
    if table["role"] == "host":
        raise TableError("a roll that names who rolled it (a phone's rolls are its own)")
    return _passed_by(table, item["by"])


def _passed_by(table: dict, v) -> str:
    """The player the tablet names for a roll it passes on: a name, and
    never one that looks like this phone's."""
    by = name(v) if isinstance(v, str) else ""
    if not by or names.looks_alike(by, table["name"]):
        raise TableError("a roll under this phone's own name")
    return by


def _on_roll(table: dict, x: dict, msg: dict) -> tuple[dict, list]:
    """Rolls (and the GM's secret rolls' commitments and reveals), each
    checked and rebuilt before it is logged; a refusal of any keeps the
    table as it was (all or none). The tablet passes each new roll on to
    every other seat."""
    items = msg["r"]
    if not (isinstance(items, list) and 1 <= len(items) <= 2 * MAX_BATCH):
        raise TableError("a message of rolls with no rolls in it")
    trial, events = table, []
    for item in items:
        if not isinstance(item, dict):
            raise TableError("a roll with other fields than a roll has")
        trial, got = (_secret_item if "h" in item or "s" in item else _roll_item)(trial, x, item)
        events += got
    return trial, events


def _roll_item(table: dict, x: dict, item: dict) -> tuple[dict, list]:
    if not ("e" in item and set(item) <= {"e", "by"}):
        raise TableError("a roll with other fields than a roll has")
    by = _by(table, x, item)
    e, result = check_entry(item["e"])
    entry = _logged(table, by, e)
    table, fresh = log_add(table, entry)
    if fresh and table["role"] == "host":
        table = _to_seats(table, entry["by"], entry["id"], but=x["device"])
    return table, [("entry", entry, result, fresh)]


def _logged(table: dict, by: str, e: dict) -> dict:
    """A roll that came, as this side logs it: under who rolled, and how it
    came (on a phone, the GM's rolls came from the tablet)."""
    how = "tablet" if table["role"] == "player" and by == table["host"] else "phone"
    return {"id": e["id"], "by": by, "how": how, "y": e["y"], "p": e["p"], "g": e["g"], "l": e["l"], "at": e["at"]}


def _secret_item(table: dict, x: dict, item: dict) -> tuple[dict, list]:
    """The GM's secret roll on a phone: a commitment (``h``) or a reveal
    (``e`` with its salt ``s``)."""
    if table["role"] == "host":
        raise TableError("a secret roll (only the GM rolls in secret)")
    try:
        if set(item) == {"h"}:
            return _hidden(table, secret.check_hidden(item["h"]))
        if set(item) == {"e", "s"}:
            return _revealed(table, item["e"], secret.check_salt(item["s"]))
    except secret.SecretError as e:
        raise TableError(str(e)) from None
    raise TableError("a secret roll with other fields than it should have")


def _gm_entry(table: dict, rid: str):
    """The index and entry of the GM's roll ``rid`` in a phone's log."""
    return next(((i, e) for i, e in enumerate(table["log"]) if (e["by"], e["id"]) == (table["host"], rid)),
                (None, None))


def _to_top(table: dict, i, entry: dict) -> dict:
    log = table["log"] if i is None else table["log"][:i] + table["log"][i + 1:]
    return {**table, "log": [entry] + log[:LOG_CAP - 1]}


def _hidden(table: dict, h: dict) -> tuple[dict, list]:
    """A commitment: a new hidden roll, or a longer one for a roll the GM
    took a step on (the commitments before it are kept, never replaced)."""
    i, old = _gm_entry(table, h["id"])
    pair = [h["k"], h["c"]]
    if old is None:
        entry = {"id": h["id"], "by": table["host"], "how": "hidden", "at": h["at"], "c": [pair]}
        return _to_top(table, None, entry), [("entry", entry, None, True)]
    if old["how"] not in ("hidden", "revealed"):
        raise TableError("a secret roll under the id of a roll shown to all")
    if pair in old["c"]:
        return table, []  # the commitment again, sent with its reveal
    return _longer(table, i, old, h)


def _longer(table: dict, i: int, old: dict, h: dict) -> tuple[dict, list]:
    """A hidden roll's next commitment (a step the GM took on it): for more
    stages than the last, within ``MAX_COMMITMENTS``, at the roll's time."""
    if h["k"] <= old["c"][-1][0] or len(old["c"]) >= secret.MAX_COMMITMENTS or h["at"] != old["at"]:
        raise TableError("a secret roll's commitment changed after it was made")
    entry = {**old, "c": old["c"] + [[h["k"], h["c"]]]}
    return _to_top(table, i, entry), [("entry", entry, None, False)]


def _revealed(table: dict, e, salt: str) -> tuple[dict, list]:
    """A reveal: the roll and its salt, taken only if it fits every
    commitment this phone holds for it (then "revealed, matches what was
    rolled"). One that does not fit is refused and the roll stays hidden,
    marked so."""
    e, result = check_entry(e)
    i, old = _gm_entry(table, e["id"])
    if old is None or old["how"] not in ("hidden", "revealed"):
        raise TableError("a reveal of a secret roll this phone never saw")
    if old["how"] == "revealed" and old["g"] == e["g"] and secret.matches(old["c"], salt, e):
        return table, []  # the same reveal again
    if e["at"] != old["at"] or not secret.matches(old["c"], salt, e):
        return _reveal_refused(table, i, old)
    entry = {"id": e["id"], "by": table["host"], "how": "revealed", "y": e["y"], "p": e["p"], "g": e["g"],
             "l": e["l"], "at": e["at"], "c": old["c"], "salt": salt}
    return _to_top(table, i, entry), [("entry", entry, result, True)]


def _reveal_refused(table: dict, i: int, old: dict) -> tuple[dict, list]:
    """A reveal that does not fit: the roll stays hidden in its place,
    marked as having had a bad reveal, and the refusal is said."""
    kept = {**old, "bad": True}
    return ({**table, "log": table["log"][:i] + [kept] + table["log"][i + 1:]},
            [("refused", f"From {names.isolate(table['host'])}: refused a reveal that does not match what "
                         "was rolled in secret; the roll stays hidden.")])


def _on_push(table: dict, x: dict, msg: dict) -> tuple[dict, list]:
    if msg["y"] not in rules.SYSTEMS or not isinstance(msg["p"], dict):
        raise TableError("a setup of no known game")
    try:
        spec = rules.MODULES[msg["y"]].normalize(msg["p"])
    except (SpecError, RecursionError, TypeError, ValueError, KeyError):
        raise TableError("a setup its game's rules refuse") from None
    return table, [("push", msg["y"], spec, _label(msg["l"]))]


def _on_sheet(table: dict, x: dict, msg: dict) -> tuple[dict, list]:
    """A phone's character sheet for the tablet's party: checked by the
    rules, a character (the GM keeps the NPCs) whose name holds nothing
    invisible or look-alike, played by the seat it came from."""
    who = seat(table, x["device"])["name"]
    if not (isinstance(msg["i"], str) and SHEET_ID_RE.match(msg["i"])):
        raise TableError("a character sheet with no proper id")
    if msg["y"] not in rules.SYSTEMS or not isinstance(msg["p"], dict):
        raise TableError("a character sheet of no known game")
    sheet = _sheet_of(msg["y"], msg["p"], who)
    if sheet["npc"]:
        raise TableError("an NPC's sheet (the GM keeps the NPCs; a phone sends its character)")
    if names.clean(sheet["name"]) != sheet["name"]:
        raise TableError("a character sheet whose name holds invisible or look-alike characters")
    return table, [("sheet", {"id": msg["i"], "system": msg["y"], "sheet": sheet}, who)]


def _sheet_of(system: str, sheet: dict, who: str) -> dict:
    """A sheet from a phone as the rules normalize it, played by ``who``;
    one they refuse is refused (naming the field when they do)."""
    try:
        return rules.normalize_sheet(system, {**sheet, "player": who})
    except SpecError as e:
        raise TableError(f"a character sheet its game's rules refuse ({e})") from None
    except (RecursionError, TypeError, ValueError, KeyError):
        raise TableError("a character sheet its game's rules refuse") from None


def share_sheet(table, entry: dict) -> dict:
    """A phone's character (an entry of ``party.roster``) queued for the
    tablet's party; one queued and not yet sent gives way to it."""
    if table is None or table["role"] != "player" or not table["seated"]:
        raise TableError("This phone sits at no table: join the GM's table (Table) to send a sheet to it.")
    if entry["sheet"]["npc"]:
        raise TableError("An NPC's sheet is the GM's: only a character is sent to the table.")
    item = {"t": "sheet", "i": entry["id"], "y": entry["system"], "p": entry["sheet"]}
    if len(_text({**item, "n": 10 ** 9, "a": 10 ** 9})) > MAX_MESSAGE:
        raise TableError("This sheet is too large to send over the table: share it by link instead.")
    s = seat(table, "host")
    return _enqueue(_put_seat(table, {**s, "out": _without_sheet(s["out"], entry["id"])}), "host", item)


def _without_sheet(out: list, sheet_id: str) -> list:
    """A queue without the sheet ``sheet_id`` if it waits unsent (one sent
    stays until it is acknowledged)."""
    return [i for i in out if i.get("x") or not (i["t"] == "sheet" and i["i"] == sheet_id)]


def fair_kind(f) -> tuple[str, str]:
    """A fair-roll link's kind (``q``, ``a``, ``d``, ``v``) and request id;
    anything else refused as not a fair-roll link."""
    if not (isinstance(f, str) and len(f) <= 16_000):
        raise TableError("a fair-roll message that is not a fair-roll link")
    try:
        got = share.decode(f)
    except share.ShareError:
        raise TableError("a fair-roll message that is not a fair-roll link") from None
    rid = got.get("data", {}).get("i") if got["kind"] == "fair" else None
    if not (isinstance(rid, str) and RID_RE.match(rid)):
        raise TableError("a fair-roll message that is not a fair-roll link")
    return got["fair"], rid


_FAIR_WORDS = {"q": "request", "a": "answer", "d": "dice", "v": "reveal"}


def _on_fair(table: dict, x: dict, msg: dict) -> tuple[dict, list]:
    """A phone's fair-roll link is taken only as an answer to a request this
    tablet sent to that seat; a phone takes the tablet's requests, and
    dice and reveals only of requests that came over this table."""
    kind, rid = fair_kind(msg["f"])
    if table["role"] == "host":
        _fair_from_phone(table, x, kind, rid)
    else:
        table = _fair_from_tablet(table, kind, rid)
    return table, [("fair", msg["f"])]


def _fair_from_phone(table: dict, x: dict, kind: str, rid: str) -> None:
    """The tablet takes from a phone only the answer to a request it sent
    to that phone's seat."""
    who = seat(table, x["device"])["name"]
    if kind != "a":
        raise TableError(f"a fair-roll {_FAIR_WORDS[kind]} (a phone sends only answers to the tablet's requests)")
    if table["fair"].get(rid) != x["device"]:
        raise TableError(f"a fair-roll answer to a request this tablet did not send to {names.isolate(who)}")


def _fair_from_tablet(table: dict, kind: str, rid: str) -> dict:
    """A phone takes from the tablet a request (remembered as come over
    the table), and dice and reveals only of such requests."""
    if kind == "a":
        raise TableError("a fair-roll answer (only a phone answers)")
    if kind == "q":
        return _remember_fair(table, rid, "host")
    if table["fair"].get(rid) != "host":
        raise TableError(f"a fair-roll {_FAIR_WORDS[kind]} for a request that did not come over this table")
    return table


def _remember_fair(table: dict, rid: str, device: str) -> dict:
    kept = {k: v for k, v in table["fair"].items() if k != rid}
    kept[rid] = device
    return {**table, "fair": dict(list(kept.items())[-FAIR_CAP:])}


# ---------------------------------------------------------------- phones linked to each other

def _on_peers(table: dict, x: dict, msg: dict) -> tuple[dict, list]:
    """The phones connected when this one sat down: it links to each."""
    w = msg["w"]
    if not (isinstance(w, list) and 1 <= len(w) <= MAX_PEERS and all(isinstance(v, str) for v in w)):
        raise TableError("a list of the table's phones that is not one")
    return table, [("peers", [name(v) for v in w])]


def _on_peer(table: dict, x: dict, msg: dict) -> tuple[dict, list]:
    """An offer or answer for a channel between two phones: the tablet
    passes it on naming who sent it; a phone opens that channel."""
    other, desc = _peer_link(msg)
    if table["role"] == "player":
        return table, [("peer", other, msg["k"], desc)]
    return _pass_peer(table, seat(table, x["device"]), other, msg["k"], desc), []


def _pass_peer(table: dict, me: dict, other: str, kind: str, desc: dict) -> dict:
    """The tablet passes a link between phones from the seat ``me`` on to
    the connected phone named ``other``; if it left meanwhile, nothing."""
    to = next((s for s in table["seats"] if s["name"] == other and s is not me), None)
    if to is None or seat_link(table, to["device"]) is None:
        return table
    return post(table, to["device"], "peer", w=me["name"], k=kind, d=desc)


def _peer_link(msg: dict) -> tuple[str, dict]:
    """The other phone's name and the description of a link between phones."""
    if msg["k"] not in ("o", "a") or not isinstance(msg["w"], str):
        raise TableError("a link between phones that is neither an offer nor an answer")
    try:
        return name(msg["w"]), _check_desc(msg["d"])
    except TableError:
        raise TableError("a link between phones that is damaged") from None


def _passed(f, kind: str, table: dict) -> dict:
    """A code passed on between the tablet and a phone through another phone."""
    if not (isinstance(f, str) and len(f) <= MAX_PAYLOAD + 8 and f.startswith(f"{VERSION}.{kind}.")):
        raise TableError("a passed-on code that is not one")
    got = decode_join(f)
    if got["meta"]["t"] != table["table"]:
        raise TableError("a passed-on code of another table")
    return got


def _on_relay(table: dict, x: dict, msg: dict) -> tuple[dict, list]:
    """A phone takes from the tablet an offer for another seat, with its
    tag, to pass on; the tablet takes from a phone the answer it passed
    back, only for a seat whose offer this tablet passed on."""
    if table["role"] == "player":
        return table, [_to_pass_on(table, msg)]
    if set(msg) != {"t", "n", "a", "f"}:
        raise TableError("a passed-on answer with other fields than it should have")
    got = _passed(msg["f"], "a", table)
    if got["meta"]["s"] not in table["relay"]:
        raise TableError("an answer to a code this tablet did not pass on through the table")
    return table, [("relay-answer", msg["f"])]


def _to_pass_on(table: dict, msg: dict) -> tuple:
    """The tablet's offer for the phone ``w``, with its tag, for this phone to pass on."""
    if set(msg) != {"t", "n", "a", "f", "w", "m"} or not isinstance(msg["w"], str):
        raise TableError("a code to pass on with other fields than it should have")
    if not (isinstance(msg["m"], str) and HEX64_RE.match(msg["m"])):
        raise TableError("a code to pass on with no proper tag")
    _passed(msg["f"], "o", table)
    return ("relay", name(msg["w"]), msg["f"], msg["m"])


def relay_wanted(table: dict) -> tuple[list, list]:
    """The seats to re-admit through another phone (away, with a key, no
    offer of theirs out yet) and the connected seats that can pass an
    offer on; none of either when no phone is connected."""
    via = [s["device"] for s in table["seats"] if seat_link(table, s["device"]) is not None]
    done = set(via) | set(table["relay"].values())
    away = [s["device"] for s in table["seats"] if s["device"] not in done]
    return (away, via) if via and away else ([], [])


def relay_offer(table: dict, device: str, fragment: str) -> dict:
    """The tablet's offer (``fragment``, for a seat it opened for
    ``device``) passed on through every connected phone, tagged under that
    seat's key; only that device may sit down on it."""
    s = seat(table, device)
    table = {**table, "relay": {**table["relay"], decode_join(fragment)["meta"]["s"]: device}}
    tag = relay.relay_tag(s["tk"], fragment)
    for v in table["seats"]:
        if v["device"] != device and seat_link(table, v["device"]) is not None:
            table = post(table, v["device"], "relay", w=s["name"], f=fragment, m=tag)
    return table


def relay_over(table: dict, slot) -> dict:
    """An offer passed on that was not answered in time: no longer out."""
    return {**table, "relay": {k: v for k, v in table["relay"].items() if k != slot}}


def passed_offer(table, fragment, tag):
    """The tablet's offer another phone passed on to this one (decoded),
    taken only while this phone sits at that table and is not connected to
    it, with a tag made under this seat's key (so it comes from the
    tablet). None: not wanted now (this phone is connected)."""
    if table is None or table["role"] != "player" or not table["seated"]:
        raise TableError("a code passed on for a table this phone does not sit at")
    if not relay.tag_fits(table["tk"], fragment, tag):
        raise TableError("a code passed on as the tablet's, but its tag does not fit: it does not come from "
                         "the tablet")
    got = _passed(fragment, "o", table)
    return None if seat_link(table, "host") is not None else got


def passed_answer(table, fragment) -> str:
    """A phone's answer to an offer this phone passed on: to the tablet."""
    if table is None or table["role"] != "player":
        raise TableError("an answer passed back to a phone at no table")
    _passed(fragment, "a", table)
    return fragment


_CONTROL = {"hello": _on_hello, "welcome": _on_welcome, "bye": _on_bye, "seat": _on_seat, "ack": _on_ack}
_HANDLERS = {"roll": _on_roll, "push": _on_push, "fair": _on_fair, "sheet": _on_sheet, "peers": _on_peers, "peer": _on_peer,
             "relay": _on_relay}


# ---------------------------------------------------------------- sending

def _enqueue(table: dict, device, item: dict) -> dict:
    """Put ``item`` in a seat's queue. A roll joins the rolls waiting
    unsent (one message carries them all); one waiting unsent already is
    sent as it stands then, not twice."""
    s = seat(table, device)
    if s is None:
        return table
    out = _with_roll(s["out"], item["r"][0]) if item["t"] == "roll" else s["out"] + [item]
    if out is None:
        return table
    return _put_seat(table, {**s, "out": _capped(out)})


def _with_roll(queue: list, ref: list):
    """A new queue with the roll ``ref`` (its roller and id): it joins the
    roll message waiting unsent at the end (up to ``MAX_BATCH``) or starts
    one. None: that roll waits unsent already."""
    out = list(queue)
    fresh = [i for i in out if not i.get("x")]
    if any(ref in i["r"] for i in fresh if i["t"] == "roll"):
        return None
    if fresh and out[-1]["t"] == "roll" and not out[-1].get("x") and len(out[-1]["r"]) < MAX_BATCH:
        out[-1] = {**out[-1], "r": out[-1]["r"] + [ref]}
    else:
        out.append({"t": "roll", "r": [ref]})
    return out


def _capped(out: list) -> list:
    """At most OUT_CAP things waiting: the oldest not yet sent go first."""
    count = _things(out)
    while count > OUT_CAP:
        _drop_oldest(out)
        count -= 1
    return out


def _things(items) -> int:
    """How many things queue items hold: each roll of a roll message, and
    one for any other."""
    return sum(len(i["r"]) if i["t"] == "roll" else 1 for i in items)


def _drop_oldest(out: list) -> None:
    """One thing fewer in a queue (in place): the oldest not yet sent (of a
    roll message, its first roll)."""
    i = next((n for n, it in enumerate(out) if not it.get("x")), 0)
    it = out[i]
    if it["t"] == "roll" and len(it["r"]) > 1:
        out[i] = {**it, "r": it["r"][1:]}
    else:
        del out[i]


def post(table: dict, device, kind: str, **fields) -> dict:
    """Queue a setup (``push``) or a fair-roll link (``fair``) for a seat."""
    return _enqueue(table, device, {"t": kind, **fields})


def _materialize(table: dict, item: dict, device):
    """A queued item as a message (without ``n``, ``a``); rolls are read
    from the log as they stand now (a roll's later steps go with it), and
    the phones connected as they are now. None: nothing of it is left to
    send."""
    if item["t"] == "peers":
        return _peers_now(table, device)
    if item["t"] != "roll":
        return {k: v for k, v in item.items() if k != "x"}
    return _rolls_now(table, item["r"])


def _rolls_now(table: dict, refs: list):
    """A roll message of the rolls ``refs`` names (roller, id) as the log
    holds them now; None if none of them is left."""
    r = [i for by, rid in refs for i in _roll_items(table, by, rid)]
    return {"t": "roll", "r": r} if r else None


def _peers_now(table: dict, device):
    """The ``peers`` message for ``device``: the other phones connected
    now (None: no other is)."""
    w = [s["name"] for s in table["seats"] if s["device"] != device and seat_link(table, s["device"])]
    return {"t": "peers", "w": w} if w else None


def _roll_items(table: dict, by: str, rid: str) -> list:
    """A log entry as a roll message carries it: the roll (naming its
    roller if it is another's); the GM's secret roll as its commitment,
    and once shown its reveal too. A phone sends only its own."""
    e = next((x for x in table["log"] if x["id"] == rid and x["by"] == by), None)
    if e is None or (table["role"] == "player" and by != table["name"]):
        return []
    return _items_of(table, e)


def _items_of(table: dict, e: dict) -> list:
    """A logged roll as a roll message's items: the roll (naming its roller
    if another's), or a secret one's commitment and, once shown, reveal."""
    if "salt" not in e:
        return [{"e": wire(e)} if e["by"] == table["name"] else {"e": wire(e), "by": e["by"]}]
    return [{"h": secret.hidden_form(e)}] + ([{"e": wire(e), "s": e["salt"]}] if e["shown"] else [])


def _text(msg: dict) -> str:
    return json.dumps(msg, ensure_ascii=False, separators=(",", ":"))


def pump(table: dict, key, now) -> tuple[dict, list, float | None]:
    """What to send on connection ``key`` now, within the bucket: the
    greeting first, then the seat's queue in order (numbered, carrying the
    acknowledgement), then an acknowledgement alone if one is due; and when
    to call again (None: nothing pending)."""
    x = link(table, key)
    if x is None or x["state"] == "new":
        return table, [], None
    x, texts = _greeting_out(_refilled(x, now))
    table = _put_link(table, x)
    if x["state"] == "ok" and not x["ctl"]:
        table, more = _pump_queue(table, key, now)
        texts += more
    return table, texts, _wake(table, key, now)


def _refilled(x: dict, now) -> dict:
    """The link with its sender's bucket as it stands at ``now``: a token
    more every ``REFILL_MS``, at most ``BUCKET`` (full at first)."""
    tokens = BUCKET if x["tok_at"] is None else min(BUCKET, x["tokens"] + (now - x["tok_at"]) / REFILL_MS)
    return {**x, "tokens": tokens, "tok_at": now}


def _greeting_out(x: dict) -> tuple[dict, list]:
    """The greeting's messages the bucket lets go now, and the link
    without them."""
    texts = []
    while x["ctl"] and x["tokens"] >= 1:
        texts.append(_text(x["ctl"][0]))
        x = {**x, "ctl": x["ctl"][1:], "tokens": x["tokens"] - 1}
    return x, texts


def _pump_queue(table: dict, key, now) -> tuple[dict, list]:
    x = link(table, key)
    s = seat(table, x["device"])
    out = list(s["out"])
    x = _go_back(x, now)
    texts = []
    while x["sent"] < len(out) and x["tokens"] >= 1:
        i = x["sent"]
        text = _queued_text(table, out, i, x)
        if text is None:
            continue
        out[i] = {**out[i], "x": True}
        texts.append(text)
        x = {**x, "sent": i + 1, "tokens": x["tokens"] - 1, "acked": x["n_in"], "ack_at": None,
             "progress": now if i == 0 else x["progress"]}
    x, ack = _ack_if_due(x, now)
    table = _put_seat(table, {**s, "out": out})
    return _put_link(table, x), texts + ack


def _go_back(x: dict, now) -> dict:
    """What was sent and not acknowledged after ``RESEND_MS`` is sent
    again, from the first."""
    if x["sent"] and now - x["progress"] >= RESEND_MS:
        return {**x, "sent": 0, "progress": now}
    return x


def _queued_text(table: dict, out: list, i: int, x: dict):
    """The text to send for the queue's message ``i``; or None when the
    queue changed in its place instead (``out`` is changed in place): a
    message there is no longer anything to send for is dropped, a roll
    message too long for the channel is split in two, and one message too
    long on its own is dropped."""
    msg = _materialize(table, out[i], x["device"])
    if msg is None:
        del out[i]
        return None
    text = _text({"t": msg["t"], "n": x["base"] + i, "a": x["n_in"], **{k: v for k, v in msg.items() if k != "t"}})
    if len(text) <= MAX_MESSAGE:
        return text
    _too_long(out, i)
    return None


def _too_long(out: list, i: int) -> None:
    """The queue's message ``i`` is too long for the channel (``out`` is
    changed in place): a roll message of several rolls is split in two,
    anything else dropped."""
    if out[i]["t"] == "roll" and len(out[i]["r"]) > 1:
        half = len(out[i]["r"]) // 2
        out[i:i + 1] = [{"t": "roll", "r": out[i]["r"][:half]}, {"t": "roll", "r": out[i]["r"][half:]}]
    else:
        del out[i]


def _ack_if_due(x: dict, now) -> tuple[dict, list]:
    """The link and the texts to send: an acknowledgement when one is due
    and a token is left for it."""
    if x["n_in"] > x["acked"] and x["ack_at"] is not None and now >= x["ack_at"] and x["tokens"] >= 1:
        ack = _text({"t": "ack", "a": x["n_in"]})
        return {**x, "acked": x["n_in"], "ack_at": None, "tokens": x["tokens"] - 1}, [ack]
    return x, []


def _wake(table: dict, key, now):
    """When ``pump`` has something to do on this connection again."""
    x = link(table, key)
    token_at = now + max(0.0, 1 - x["tokens"]) * REFILL_MS
    due = [token_at] if x["ctl"] else []
    if x["state"] == "ok":
        due += _seat_due(table, x, token_at)
    return min(due) if due else None


def _seat_due(table: dict, x: dict, token_at) -> list:
    """The times a greeted connection has work: its seat's queue to send
    (when a token is there), an acknowledgement due, messages to send
    again if still not acknowledged."""
    s = seat(table, x["device"])
    due = []
    if s is not None and x["sent"] < len(s["out"]):
        due.append(token_at)
    if x["n_in"] > x["acked"] and x["ack_at"] is not None:
        due.append(max(x["ack_at"], token_at))
    if x["sent"]:
        due.append(x["progress"] + RESEND_MS)
    return due


# ---------------------------------------------------------------- the log

def wire(entry: dict) -> dict:
    """An entry as a roll message carries it."""
    return {k: entry[k] for k in ("id", "y", "p", "g", "l", "at")}


def _extends(old: dict, new: dict) -> bool:
    return (old["y"], old["p"]) == (new["y"], new["p"]) and new["g"][:len(old["g"])] == old["g"]


def log_add(table: dict, entry: dict) -> tuple[dict, bool]:
    """Put an entry in the log: new (first), or a roll's later steps in
    place of its earlier state. The same roll again adds nothing (False);
    a roll with the same id and other dice is refused."""
    log = table["log"]
    i = next((i for i, x in enumerate(log) if (x["by"], x["id"]) == (entry["by"], entry["id"])), None)
    if i is None:
        return {**table, "log": [entry] + log[:LOG_CAP - 1]}, True
    if not _new_state(log[i], entry):
        return table, False  # the same roll sent again (its ack was lost): nothing new
    return {**table, "log": [entry] + log[:i] + log[i + 1:]}, True


def _new_state(old: dict, entry: dict) -> bool:
    """Whether ``entry`` is a later state of the logged roll ``old`` (more
    steps: True) or the same roll again (False); a secret roll, or other
    dice under its id, refused."""
    if old["how"] in ("hidden", "revealed"):
        raise TableError("a secret roll shown without its reveal")
    if entry["g"] == old["g"] and _extends(old, entry) and entry["l"] == old["l"]:
        return False
    if not _extends(old, entry) or entry["g"] == old["g"]:
        raise TableError("a roll under an id already used for other dice (a forgery)")
    return True


def own_entry(table: dict, result: dict, label: str, at, entropy, step: bool = False,
              secret_roll: bool = False) -> tuple[dict, dict]:
    """A roll made on this device, for the log and queued for the others.
    A new roll gets a new random id, whatever its dice; a ``step`` of a roll
    (its turn goes on) keeps that roll's id, so the others see the roll's
    steps as they happen. On the tablet, ``secret_roll`` makes a new roll
    secret (a salt of its own; the phones get only its commitment); a step
    of a secret roll stays secret."""
    me = table["name"]
    entry = {"id": "", "by": me, "how": "tablet" if table["role"] == "host" else "phone",
             "y": result["system"], "p": result["spec"], "g": result["stages"],
             "l": _label(names.clean(label)[:LABEL_MAX]), "at": int(at)}
    prev = _stepped(table, entry) if step else None
    entry["id"] = prev["id"] if prev is not None else _token(entropy, 6)
    entry.update(_secrecy(table, prev, secret_roll, entropy))
    table, _ = log_add(table, entry)
    return _to_seats(table, me, entry["id"]), entry


def _stepped(table: dict, entry: dict):
    """This device's logged roll that ``entry`` is a later step of (its
    dice so far, then more), or None."""
    return next((x for x in table["log"] if x["by"] == entry["by"] and x["how"] in ("phone", "tablet")
                 and _extends(x, entry) and len(x["g"]) < len(entry["g"])), None)


def _secrecy(table: dict, prev, secret_roll: bool, entropy) -> dict:
    """What makes a roll secret: a step of a secret roll keeps its salt,
    its first time and label (its commitments all name them); a new roll
    on the tablet gets a salt of its own when the GM rolls in secret."""
    if prev is not None:
        return {k: prev[k] for k in ("salt", "shown", "at", "l")} if "salt" in prev else {}
    if secret_roll and table["role"] == "host":
        return {"salt": entropy(secret.SALT_BYTES).hex(), "shown": False}
    return {}


def reveal(table: dict, rid: str) -> dict:
    """The GM shows a secret roll to the table: marked shown, and queued
    again for every seat (it goes as its commitment and its reveal: the
    roll and the salt)."""
    me = table["name"]
    e = next((x for x in table["log"] if (x["by"], x["id"]) == (me, rid) and not x.get("shown", True)), None)
    if e is None:
        return table
    table = {**table, "log": [{**x, "shown": True} if x is e else x for x in table["log"]]}
    return _to_seats(table, me, rid)


def _to_seats(table: dict, by: str, rid: str, but: str = "") -> dict:
    """The roll ``rid`` of ``by`` queued for every seat (but the device
    ``but``, the one it came from)."""
    for s in table["seats"]:
        if s["device"] != but:
            table = _enqueue(table, s["device"], {"t": "roll", "r": [[by, rid]]})
    return table


def fair_entry(table: dict, entry: dict) -> tuple[dict, dict]:
    """A fair roll ``fair.py`` verified on this device (a history entry of
    source ``fair``): logged as "fair roll, verified", under the player's
    name."""
    res = entry["result"]
    e = {"id": "f-" + str(entry["fair"])[-20:].replace(".", "_"), "by": name(entry.get("roller") or "player"),
         "how": "fair", "y": res["system"], "p": res["spec"], "g": res["stages"],
         "l": _label(str(entry.get("label", ""))[:LABEL_MAX]), "at": int(entry.get("time", 0))}
    e["id"] = re.sub(r"[^A-Za-z0-9_-]", "_", e["id"])[:24]
    table, _ = log_add(table, e)
    return table, e


def route_fair(table: dict, rid: str, kind: str, player: str):
    """Where a fair-roll link this device sends goes over the table: the
    seat it is queued for (``"host"`` on a phone), or None (not at this
    table, or away: the page shows the link to send instead). The tablet
    sends a request to the connected seat named as its player, and every
    later link of it to that seat only; a phone answers over the table
    only what came over it."""
    if table["role"] == "player":
        dev = "host" if table["fair"].get(rid) == "host" and seat_link(table, "host") else None
    else:
        dev = _fair_seat(table, rid, kind, player)
    if dev is None:
        return table, None
    return _remember_fair(table, rid, dev), dev


def _fair_seat(table: dict, rid: str, kind: str, player: str):
    """On the tablet, the connected seat a fair-roll link goes to: the one
    its request went to, or for a new request the seat named as its
    player; None when that seat is away."""
    dev = table["fair"].get(rid)
    if dev is None and kind == "q":
        dev = next((s["device"] for s in table["seats"] if s["name"] == player), None)
    if dev is not None and seat_link(table, dev) is None:
        return None
    return dev


def provenance(entry: dict) -> str:
    """How a log entry came, in the page's words."""
    if entry["how"] == "tablet" and "salt" in entry:
        return "rolled in secret; revealed to the table" if entry["shown"] else \
            "rolled in secret: the phones see only that you rolled"
    if entry["how"] == "phone":
        return f"rolled on {entry['by']}'s phone"
    return _HOW_WORDS[entry["how"]]


#: How a log entry came, but for a phone's roll (named) and the GM's own
#: secret roll (shown or not).
_HOW_WORDS = {"fair": "fair roll, verified",
              "revealed": "rolled in secret on the tablet; revealed, matches what was rolled",
              "hidden": "rolled in secret on the tablet", "tablet": "rolled on the tablet"}


# ---------------------------------------------------------------- storage

_STORED = {"host": {"v", "role", "table", "name", "next_slot", "seats", "log", "fair"},
           "player": {"v", "role", "table", "slot", "name", "device", "tk", "host", "seated", "seats", "log",
                      "fair"}}
_OLD_STORED = {"host": {"role", "table", "name", "next_slot", "peers", "log", "serial"},
               "player": {"role", "table", "slot", "name", "device", "host", "peers", "log", "serial", "outbox"}}



def dump(table: dict) -> str:
    """The table as stored (the connections are not: a reload means new
    channels; what waits in each seat's queue is kept)."""
    seats = [{**s, "out": _kept_queue(s["out"])} for s in table["seats"]]
    kept = {k: v for k, v in table.items() if k not in ("links", "relay")}
    return json.dumps({**kept, "seats": seats}, ensure_ascii=False, separators=(",", ":"))


def _kept_queue(out: list) -> list:
    """A seat's queue as stored: what a reload keeps (``_KEPT``), not
    marked as sent (a reload sends it all again)."""
    return [{k: v for k, v in i.items() if k != "x"} for i in out if i["t"] in _KEPT]


def _want(ok, what: str) -> None:
    if not ok:
        raise TableError(what)


def _stored_name(v, what: str) -> str:
    try:
        return name(v)
    except TableError:
        raise TableError(f"{what} is not a name") from None


def _queued_roll(i) -> bool:
    refs = i.get("r")
    return (set(i) == {"t", "r"} and isinstance(refs, list) and 1 <= len(refs) <= MAX_BATCH
            and all(isinstance(r, list) and len(r) == 2 and all(isinstance(v, str) for v in r) for r in refs))


#: What a seat's queue keeps across a reload (links between phones and
#: passed-on codes are for channels a reload ends): each kind's check, and
#: its name in words.
_QUEUED = {
    "roll": (_queued_roll, "roll"),
    "push": (lambda i: set(i) == {"t", "y", "p", "l"} and i["y"] in rules.SYSTEMS and isinstance(i["p"], dict)
             and isinstance(i["l"], str), "setup"),
    "fair": (lambda i: set(i) == {"t", "f"} and isinstance(i["f"], str) and len(i["f"]) <= 16_000, "fair roll"),
    "sheet": (lambda i: set(i) == {"t", "i", "y", "p"} and isinstance(i["i"], str) and bool(SHEET_ID_RE.match(i["i"]))
              and i["y"] in rules.SYSTEMS and isinstance(i["p"], dict), "character sheet"),
}
_KEPT = tuple(_QUEUED)


def _load_item(i) -> dict:
    _want(isinstance(i, dict) and i.get("t") in _QUEUED, "a queued message is not one")
    ok, what = _QUEUED[i["t"]]
    _want(ok(i), f"a queued {what} is not one")
    return {"t": "roll", "r": [list(r) for r in i["r"]]} if i["t"] == "roll" else dict(i)


def _load_seat(s, role: str) -> dict:
    _want(isinstance(s, dict) and set(s) == {"device", "name", "tk", "out"}, "a seat is not one")
    _check_seat_keys(s, role)
    _want(isinstance(s["out"], list) and len(s["out"]) <= OUT_CAP, "a seat's queue is not a list")
    return {"device": s["device"], "name": _stored_name(s["name"], "a seat's name"), "tk": s["tk"],
            "out": [_load_item(i) for i in s["out"]]}


def _check_seat_keys(s: dict, role: str) -> None:
    """A stored seat's device and key: on the tablet a phone's id and its
    table key; on a phone, the tablet's seat, which has neither."""
    if role == "host":
        _want(isinstance(s["device"], str) and DEVICE_RE.match(s["device"]), "a seat's device is not one")
        _want(isinstance(s["tk"], str) and HEX64_RE.match(s["tk"]), "a seat's key is not one")
    else:
        _want(s["device"] == "host" and s["tk"] == "", "the tablet's seat is not one")


def _load_v2(t: dict) -> dict:
    role = t["role"]
    _want(set(t) == _STORED[role], "its fields are not a table's")
    out = {"v": 2, "role": role, "table": _table_id(t["table"]), "name": _stored_name(t["name"], "its name"),
           "links": [], "relay": {}}
    out.update(_load_host_fields(t) if role == "host" else _load_player_fields(t))
    out["seats"] = _load_seats(t["seats"], role)
    _want(isinstance(t["fair"], dict) and len(t["fair"]) <= FAIR_CAP and all(
        RID_RE.match(k) and isinstance(v, str) for k, v in t["fair"].items()), "its fair rolls are not a list")
    out["fair"] = dict(t["fair"])
    return out


def _load_seats(seats, role: str) -> list:
    """A stored table's seats (a phone's: the tablet's one), each checked;
    no device sits in two."""
    _want(isinstance(seats, list) and len(seats) <= MAX_PEERS
          and (role == "host" or len(seats) == 1), "its seats are not a list of seats")
    out = [_load_seat(s, role) for s in seats]
    _want(len({s["device"] for s in out}) == len(out), "two seats have one device")
    return out


def _table_id(value) -> str:
    """A stored table's id, checked."""
    _want(isinstance(value, str) and TABLE_RE.match(value), "its table id is not one")
    return value


def _seat_number(value, why: str) -> int:
    _want(type(value) is int and 0 <= value < 10_000, why)
    return value


def _load_host_fields(t: dict) -> dict:
    """What only the GM's stored table holds: the next seat's number."""
    return {"next_slot": _seat_number(t["next_slot"], "its next seat is not a number")}


def _load_player_fields(t: dict) -> dict:
    """What only a player's stored table holds: its seat, this device, the
    table key, whether it is seated, the GM's name."""
    slot = _seat_number(t["slot"], "its seat is not a number")
    _want(isinstance(t["device"], str) and (t["device"] == "" or DEVICE_RE.match(t["device"])),
          "its device is not one")
    _want(isinstance(t["tk"], str) and (t["tk"] == "" or HEX64_RE.match(t["tk"])), "its key is not one")
    _want(type(t["seated"]) is bool, "whether it is seated is not yes or no")
    return {"slot": slot, "device": t["device"], "tk": t["tk"],
            "seated": t["seated"], "host": _stored_name(t["host"], "its GM's name")}


def _load_old(t: dict) -> dict:
    """A table an older page stored: its log is kept; the players join
    again (their seats held no key to take them back with)."""
    role = t["role"]
    table_id = _table_id(t["table"])
    me = _stored_name(t["name"], "its name")
    out = {"v": 2, "role": role, "table": table_id, "name": me, "links": [], "relay": {}, "fair": {}}
    if role == "host":
        return {**out, **_load_host_fields(t), "seats": []}
    slot = _seat_number(t["slot"], "its seat is not a number")
    _want(isinstance(t["outbox"], list) and all(isinstance(i, str) for i in t["outbox"]), "its outbox is not a list")
    gm = _stored_name(t["host"], "its GM's name")
    host_seat = {**_seat("host", gm, ""), "out": [{"t": "roll", "r": [[me, i]]} for i in t["outbox"][-OUT_CAP:]]}
    return {**out, "slot": slot, "device": "", "tk": "", "host": gm, "seated": False, "seats": [host_seat]}


_HOWS = ("phone", "tablet", "fair", "hidden", "revealed")


def _load_entry(e) -> dict:
    """A stored log entry, checked as if it came over the channel; a
    secret roll's salt and commitments too (a revealed one must still fit
    them)."""
    if not isinstance(e, dict) or e.get("how") not in _HOWS:
        raise TableError("an entry")
    try:
        return _load_hidden(e) if e["how"] == "hidden" else _load_shown(e)
    except secret.SecretError as err:
        raise TableError(str(err)) from None


def _load_hidden(e: dict) -> dict:
    h = secret.check_hidden({"id": e.get("id"), "k": 1, "c": "0" * 64, "at": e.get("at")})
    out = {"id": h["id"], "by": name(e.get("by")), "how": "hidden", "at": h["at"],
           "c": secret.check_commitments(e.get("c"))}
    return {**out, "bad": True} if e.get("bad") is True else out


def _load_shown(e: dict) -> dict:
    """A roll in a stored log, rebuilt by the rules; a secret one's salt
    checked, a revealed one's dice checked against its commitments."""
    checked, _ = check_entry({k: e.get(k) for k in _ENTRY_KEYS})
    out = {**checked, "by": name(e.get("by")), "how": e["how"]}
    if e["how"] == "revealed":
        out.update(c=secret.check_commitments(e.get("c")), salt=secret.check_salt(e.get("salt")))
        _want(secret.matches(out["c"], out["salt"], out), "a revealed roll that does not fit its commitments")
    elif e["how"] == "tablet" and "salt" in e:
        _want(type(e.get("shown")) is bool, "a secret roll that is neither shown nor not")
        out.update(salt=secret.check_salt(e["salt"]), shown=e["shown"])
    return out


_UNREADABLE = ("The live table kept on this device could not be read ({why}); it was set aside under a backup "
               "key, and this device is at no table now.")


def load(text) -> tuple[dict | None, str]:
    """The stored table (None if there is none, or it cannot be read), and
    a warning for the banner: the whole table unreadable (a field of the
    wrong kind, damaged text), or some log entries that could not be
    replayed again (each is, by the rules). Every field is checked for its
    kind; none reaches the page unchecked."""
    if not isinstance(text, str) or not text:
        return None, ""
    try:
        t = _stored_data(text)
        table = _load_table(t)
    except TableError as e:
        return None, _UNREADABLE.format(why=str(e))
    if not isinstance(t["log"], list):
        return None, _UNREADABLE.format(why="its log is not a list")
    log, bad = _load_log(t["log"])
    return {**table, "log": log[:LOG_CAP]}, _left_out(bad)


def _stored_data(text: str):
    """The data the stored text holds; refused (the reason in words) when
    it is far too large or deep, or not valid JSON."""
    if len(text) > 5_000_000 or share.nesting_depth(text) > 64:
        raise TableError("it is far too large or deep")
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        raise TableError("it is not valid data") from None


def _load_table(t) -> dict:
    """The stored table without its log: of this page's form, or of an
    older page's."""
    _want(isinstance(t, dict) and isinstance(t.get("role"), str) and t["role"] in _STORED, "it is not a table")
    if t.get("v") == 2:
        return _load_v2(t)
    _want("v" not in t and set(t) == _OLD_STORED[t["role"]], "its fields are not a table's")
    return _load_old(t)


def _left_out(bad: int) -> str:
    """The banner's words for ``bad`` log entries that did not read again
    (none: no words)."""
    if not bad:
        return ""
    return (f"{bad} table-log entr{'y' if bad == 1 else 'ies'} could not be read again and were left out "
            "(the stored text is kept under a backup key).")


def synced_table() -> Synced:
    """The stored table as every tab of the page shares it
    (``records.synced``): at the same table, the log merged by roll (who
    rolled it and its id), of two copies of one roll the one with
    more steps; the rest is this tab's (the tablet's next seat number the
    higher of the two). Another table (or none) stored by another tab leaves this tab's
    as it is."""
    return Synced(lambda text: (load(text)[0], None), dump, lambda e: (e["by"], e["id"]),
                  pick=lambda mine, theirs: theirs if len(theirs["g"]) > len(mine["g"]) else mine,
                  merge_with=_merge_tables)


def _merge_tables(kept: Synced, mine, theirs):
    if mine is None or theirs is None or not _same_table(mine, theirs):
        return mine
    log = _merged_log(kept, mine, theirs)
    if "next_slot" in mine:  # the tablet's: a seat number never given twice
        return {**mine, "log": log[:LOG_CAP], "next_slot": max(mine["next_slot"], theirs.get("next_slot", 0))}
    return {**mine, "log": log[:LOG_CAP]}


def _merged_log(kept: Synced, mine: dict, theirs: dict) -> list:
    """Two tabs' logs of one table merged (against the base's log when the
    base is of this table too), newest first."""
    base = kept.value if kept.value and _same_table(kept.value, mine) else {"log": []}
    return sorted(kept.merge_list(mine["log"], theirs["log"], base["log"]), key=lambda e: -e["at"])


def _same_table(a: dict, b: dict) -> bool:
    """Whether two stored tables are this device's place at one table (the
    same table, role and name)."""
    return all(a[k] == b[k] for k in ("table", "role", "name"))


def _load_log(entries) -> tuple[list, int]:
    """The stored log entries that read again, and how many did not."""
    log, bad = [], 0
    for e in entries if isinstance(entries, list) else []:
        try:
            log.append(_load_entry(e))
        except (TableError, TypeError):
            bad += 1
    return log, bad


# ---------------------------------------------------------------- drawing (pure HTML)

def turns_open(log: list) -> set:
    """The entries whose turn may still be going on: each roller's newest
    (a roller's next roll ends the turn before it; a fair roll is done)."""
    seen, out = set(), set()
    for e in log:
        if e["how"] != "fair" and e["by"] not in seen:
            out.add((e["by"], e["id"]))
        seen.add(e["by"])
    return out


def notice(entry: dict, outcome: str, title: str) -> str:
    """A brief line for another's roll (a phone's notice).

    >>> notice({"by": "Eli", "how": "phone"}, "Success", "ALKEMY")
    '\u2068Eli\u2069 rolled ALKEMY: Success'
    """
    if entry["how"] in ("hidden", "revealed"):
        return secret.notice_words(entry, outcome, title)
    return f"{names.isolate(entry['by'])} rolled {title}: {outcome}"


def log_item(entry: dict, result, title: str, summary: str, so_far: bool = False) -> str:
    """One table-log entry: who, the game, the outcome ("So far: …" while
    its turn may go on), the small dice and how it came; every text
    escaped (``views``), every name isolated. A hidden roll shows only who
    rolled; the GM's own secret roll, not shown yet, has its Reveal
    button."""
    from drawing import draw, views

    if entry["how"] == "hidden":
        return secret.hidden_item(entry)

    dice, outcome, words = _shown_result(result, so_far)
    label = f'<bdi class="h-label">{views.esc(entry["l"])}</bdi>' if entry["l"] else ""
    how = _how_html(entry)
    secret_mark = _secret_mark(entry)
    return (f'<li class="history-item table-entry" data-table-entry data-by="{views.esc(entry["by"])}" '
            f'data-how="{views.esc(entry["how"])}" data-outcome="{views.esc(outcome)}"'
            f'{" data-so-far" if so_far else ""}{secret_mark}>'
            f'<span class="h-head"><span class="h-system">{views.esc(title)}</span>'
            f'<bdi class="h-by">{views.esc(entry["by"])}</bdi></span>'
            f'<span class="h-outcome {views.outcome_band(entry["y"], outcome)}">{views.esc(words)}</span>'
            f'<span class="h-summary">{views.bidi_text(summary)}</span>{label}'
            f'{draw.thumbnails(dice, size=24)}<span class="h-foot"><span class="h-how">'
            f'{how}</span>{_reveal_button(entry)}</span></li>')


def _shown_result(result, so_far: bool) -> tuple[list, str, str]:
    """What a log entry shows of its result (None: none): the small dice,
    the outcome and its words ("So far: …" while its turn may go on)."""
    from drawing import views

    res = result or {}
    dice = res.get("dice") if isinstance(res.get("dice"), list) else []
    outcome = str(res.get("outcome", ""))
    words = views.outcome_name(outcome)
    return dice, outcome, f"So far: {words.lower()}" if so_far else words


def _secret_mark(entry: dict) -> str:
    """The ``data-secret`` attribute of the GM's own secret roll (shown or
    hidden yet); none for any other."""
    if entry["how"] == "tablet" and "salt" in entry:
        return f' data-secret="{"shown" if entry["shown"] else "hidden"}"'
    return ""


def _how_html(entry: dict) -> str:
    """How an entry came (``provenance``) as escaped HTML; a phone's
    roller's name isolated in its own ``bdi``."""
    from drawing import views

    if entry["how"] == "phone":
        return f'rolled on <bdi>{views.esc(entry["by"])}</bdi>&#x27;s phone'
    return views.esc(provenance(entry))


def _reveal_button(entry: dict) -> str:
    from drawing import views

    if entry["how"] != "tablet" or entry.get("shown", True):
        return ""
    return f'<button type="button" class="table-reveal" data-table-reveal="{views.esc(entry["id"])}">Reveal</button>'



_STATUS_WORDS = {"open": "connected", "away": "away: rejoins with the table's code", "joining": "joining…",
                 "failed": "could not connect", "stalled": "not answering: what is sent waits for it"}


def peer_row(who: str, device: str, status: str, host: bool, waiting: int = 0) -> str:
    """A seat's row on the tablet (or the tablet's row on a phone): the
    name, isolated, the state of its connection in plain words, how many
    things wait to reach it."""
    from drawing import views

    words = _STATUS_WORDS.get(status, status)
    if waiting and status != "open":
        words += f" ({waiting} waiting to be sent)"
    tools = ""
    if host and device:
        tools = (f'<button type="button" data-table-push="{views.esc(device)}">Send this roll</button>'
                 f'<button type="button" data-table-fair="{views.esc(device)}">Fair roll</button>')
    return (f'<li class="table-peer" data-table-peer="{views.esc(who)}" data-status="{views.esc(status)}">'
            f'<bdi class="peer-name">{views.esc(who)}</bdi>'
            f'<span class="peer-status">{views.esc(words)}</span>{tools}</li>')
