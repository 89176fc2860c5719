"""The live table (docs/LIVE-TABLE.md): players' phones join the GM's tablet over a
WebRTC data channel, with no server; every roll made on a joined device
shows in the table log of the others. Pure: no DOM, no clock (the page
passes ``now``), no randomness of its own (the page passes ``entropy``).

**Joining** takes one offer (the tablet's) and one answer (the phone's),
each a link that fits in a QR code. A link never carries the whole SDP,
only what the other side cannot know: the ICE credentials (``ufrag``,
``pwd``), the DTLS certificate's SHA-256 fingerprint and the candidates
(address, port, host or server-reflexive), plus the table's id, the slot
the offer is for and the names. ``build_sdp`` writes a valid SDP around
them again (a data channel is all either side ever offers, so the rest is
fixed). ::

    #t1.o.<payload>   the tablet's offer for one slot
    #t1.a.<payload>   a phone's answer to it

A payload is compact JSON, deflated, base64url (``pack``/``unpack``), at
most ``MAX_PAYLOAD`` characters inflating to at most ``MAX_INFLATED``.

**Messages** over an open channel are JSON objects of a known kind with
exactly their keys, at most ``MAX_MESSAGE`` characters, numbered ``n``
0, 1, 2 ... per direction and per connection (a number already seen is a
replay, a number skipped is out of order: both refused). A peer may send
at most ``RATE`` messages in ``WINDOW`` ms.

====  =========  ==================================================
kind  from       fields
====  =========  ==================================================
roll  both       ``e``: an entry (``id``, ``y`` system, ``p`` spec,
                 ``g`` stages, ``l`` label, ``at`` time); the tablet
                 adds ``by`` when it passes on another player's roll
ack   both       ``id``: the entry was taken into the log
push  tablet     ``y``, ``p``, ``l``: a setup for the phone to roll
fair  both       ``f``: a fair-roll link (``fair.py``), as is
====  =========  ==================================================

A received entry is rebuilt by ``rules.replay`` from its spec and stages,
never taken on trust, and it is labelled by the receiver: with the name
the peer joined under (a phone cannot name anyone else: a ``by`` from a
phone is refused) and "rolled on <name>'s phone" or "on the tablet". No
message can say "verified": only a fair roll that ``fair.py`` verified on
this device is logged as one (``fair_entry``).

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
import zlib

import rules
from links import share
from rules.dice import SpecError

__all__ = ["TableError", "parse_sdp", "build_sdp", "encode_join", "decode_join", "is_join_link",
           "new_host", "new_player", "add_peer", "receive", "send", "own_entry", "fair_entry",
           "dump", "load", "MAX_PEERS", "token", "link_state"]

VERSION = "t1"
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
MAX_PEERS = 8
NAME_MAX = 40
LABEL_MAX = 80
#: The table log keeps the newest LOG_CAP entries.
LOG_CAP = 500
#: Rolls made on a phone while its channel was down, kept to send again.
OUTBOX_CAP = 200
ID_RE = re.compile(r"[A-Za-z0-9_-]{1,24}\Z")
TABLE_RE = re.compile(r"[A-Za-z0-9_-]{8}\Z")
ICE_RE = re.compile(r"[A-Za-z0-9+/]+\Z")
MDNS_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.local\Z")
_B64 = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
_TYPES = {"h": "host", "s": "srflx"}
_TYPE_PREF = {"h": 126, "s": 100}


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
        line = raw.strip()
        if line.startswith("a=ice-ufrag:"):
            out["u"] = line.split(":", 1)[1]
        elif line.startswith("a=ice-pwd:"):
            out["p"] = line.split(":", 1)[1]
        elif line.startswith("a=fingerprint:sha-256 "):
            out["f"] = line.split(" ", 1)[1].replace(":", "").lower()
        elif line.startswith("a=candidate:"):
            c = _candidate(line[len("a=candidate:"):])
            if c and c not in out["c"] and len(out["c"]) < MAX_CANDIDATES:
                out["c"].append(c)
    return _check_desc(out)


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
    if not isinstance(d["c"], list) or len(d["c"]) > MAX_CANDIDATES:
        raise TableError("This join code is damaged: it lists too many network addresses.")
    return {"u": d["u"], "p": d["p"], "f": d["f"], "c": [_check_cand(c) for c in d["c"]]}


def _check_ice(ufrag, pwd) -> None:
    """A description's connection keys (ICE user fragment and password)."""
    for v, lo, hi in ((ufrag, 4, 32), (pwd, 22, 64)):
        if not (isinstance(v, str) and lo <= len(v) <= hi and ICE_RE.match(v)):
            raise TableError("This join code is damaged: its connection keys are not in the expected form.")


# ---------------------------------------------------------------- the links

def pack(obj) -> str:
    """Compact JSON, deflated, base64url without padding."""
    raw = json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode().rstrip("=")


def unpack(payload: str, limit: int = MAX_INFLATED):
    """The JSON a payload holds; damaged, oversized or deep ones refused."""
    if not payload or len(payload) > MAX_PAYLOAD or any(c not in _B64 for c in payload):
        raise TableError("This join code is damaged or far too long.")
    try:
        packed = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
        d = zlib.decompressobj()
        raw = d.decompress(packed, limit + 1)
    except (ValueError, zlib.error):
        raise TableError("This join code is damaged or cut short.") from None
    if len(raw) > limit or d.unconsumed_tail or not d.eof:
        raise TableError("This join code is damaged, cut short or far too large.")
    return parse_json(raw.decode("utf-8", "replace"), "This join code")


def parse_json(text: str, what: str):
    if share.nesting_depth(text) > MAX_DEPTH:
        raise TableError(f"{what} is nested far too deeply.")
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        raise TableError(f"{what} is damaged: it is not valid data.") from None


_META = {"o": {"t", "s", "g"}, "a": {"t", "s", "w", "d"}}


def name(v, field: str = "name") -> str:
    """A person's name as the table shows it: spaces folded, 1-40 characters."""
    text = " ".join(str(v).split()) if isinstance(v, str) else ""
    if not 0 < len(text) <= NAME_MAX:
        raise TableError(f"The {field} must be 1 to {NAME_MAX} characters.")
    return text


def _check_meta(kind: str, meta) -> dict:
    if not (isinstance(meta, dict) and set(meta) == _META[kind]):
        raise TableError("This join code is damaged: it is not in the expected form.")
    if not (isinstance(meta["t"], str) and TABLE_RE.match(meta["t"])):
        raise TableError("This join code is damaged: its table is not named as one.")
    if type(meta["s"]) is not int or not 0 <= meta["s"] < 10_000:
        raise TableError("This join code is damaged: its seat is not a number.")
    if kind == "a" and not (isinstance(meta["d"], str) and ID_RE.match(meta["d"])):
        raise TableError("This join code is damaged: its device is not named as one.")
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
    return str(fragment).lstrip("#").startswith(VERSION + ".")


def decode_join(fragment) -> dict:
    """``{"kind": "o"|"a", "desc": ..., "meta": ...}`` of a join link (the
    whole URL, the fragment, with or without ``#``); every fault refused."""
    text = str(fragment).strip()
    text = text.split("#", 1)[1] if "#" in text else text
    parts = text.split(".")
    if len(parts) != 3 or parts[0] != VERSION or parts[1] not in _META:
        raise TableError("This is not a table's join code (or it comes from a newer page).")
    data = unpack(parts[2])
    if not (isinstance(data, list) and len(data) == 5):
        raise TableError("This join code is damaged: it is not in the expected form.")
    desc = _check_desc({"u": data[0], "p": data[1], "f": _fp_hex(data[2]), "c": data[3]})
    return {"kind": parts[1], "desc": desc, "meta": _check_meta(parts[1], data[4])}


# ---------------------------------------------------------------- the table's state

def token(entropy, n: int = 6) -> str:
    return base64.urlsafe_b64encode(entropy(n)).decode()


def new_host(gm_name: str, entropy) -> dict:
    """A fresh table on the GM's tablet: no players yet."""
    return {"role": "host", "table": token(entropy), "name": name(gm_name or "GM", "GM's name"),
            "next_slot": 0, "peers": [], "log": [], "serial": 0}


def new_player(offer: dict, player_name: str, device: str) -> dict:
    """A phone's side of a table it joins with ``offer`` (decoded)."""
    meta = offer["meta"]
    return {"role": "player", "table": meta["t"], "slot": meta["s"], "name": name(player_name, "player's name"),
            "device": device, "host": meta["g"], "peers": [link_state("host", meta["g"], "")],
            "log": [], "serial": 0, "outbox": []}


def link_state(key, who: str, device: str) -> dict:
    """One connection's counters: messages in and out, recent arrivals."""
    return {"key": key, "name": who, "device": device, "n_in": 0, "n_out": 0, "times": []}


def unique_name(table: dict, wanted: str, device: str) -> str:
    """The name a joining phone is shown under: its own, or with (2), (3)...
    when another device at the table has it already (a name is never shared)."""
    taken = {p["name"] for p in table["peers"] if p["device"] != device} | {table["name"]}
    out, i = wanted, 1
    while out in taken:
        i += 1
        out = f"{wanted[:NAME_MAX - 4]} ({i})"
    return out


def add_peer(table: dict, answer: dict) -> tuple[dict, dict]:
    """The tablet takes a phone's answer: the peer for that seat (a device
    joining again keeps its name and log, with fresh counters)."""
    meta = answer["meta"]
    if meta["t"] != table["table"]:
        raise TableError("This answer is for another table (or for this table before it was started again).")
    if meta["s"] >= table["next_slot"]:
        raise TableError("This answer is for a seat this table never offered.")
    if any(p["key"] == meta["s"] for p in table["peers"] if p["device"] != meta["d"]):
        raise TableError("That seat is taken: this answer was used already. Ask the player to scan the new code.")
    others = [p for p in table["peers"] if p["device"] != meta["d"]]
    if len(others) >= MAX_PEERS:
        raise TableError(f"A table holds at most {MAX_PEERS} phones.")
    peer = link_state(meta["s"], unique_name(table, meta["w"], meta["d"]), meta["d"])
    return {**table, "peers": others + [peer]}, peer


def next_offer_meta(table: dict) -> tuple[dict, dict]:
    """The table with one more seat offered, and the offer's meta."""
    s = table["next_slot"]
    return {**table, "next_slot": s + 1}, {"t": table["table"], "s": s, "g": table["name"]}


def peer(table: dict, key):
    return next((p for p in table["peers"] if p["key"] == key), None)


def _put_peer(table: dict, p: dict) -> dict:
    return {**table, "peers": [p if x["key"] == p["key"] else x for x in table["peers"]]}


def reconnected(table: dict, key) -> dict:
    """A new channel to the same peer: both directions count from 0 again."""
    p = peer(table, key)
    return table if p is None else _put_peer(table, {**p, "n_in": 0, "n_out": 0, "times": []})


# ---------------------------------------------------------------- messages

_KEYS = {
    "roll": ({"t", "n", "e"}, {"by"}),
    "ack": ({"t", "n", "id"}, set()),
    "push": ({"t", "n", "y", "p", "l"}, set()),
    "fair": ({"t", "n", "f"}, set()),
}
#: What a phone may send the tablet (the tablet may send every kind).
_FROM_PLAYER = {"roll", "ack", "fair"}
_ENTRY_KEYS = {"id", "y", "p", "g", "l", "at"}


def _shape(msg) -> dict:
    if not isinstance(msg, dict) or not isinstance(msg.get("t"), str) or msg["t"] not in _KEYS:
        raise TableError("a message of no known kind")
    need, may = _KEYS[msg["t"]]
    if not need <= set(msg) <= need | may:
        raise TableError(f"a {msg['t']} message with other fields than it should have")
    if type(msg["n"]) is not int or msg["n"] < 0:
        raise TableError("a message with no place in the exchange")
    return msg


def _label(v) -> str:
    if not isinstance(v, str) or len(v) > LABEL_MAX:
        raise TableError(f"a label that is not text of at most {LABEL_MAX} characters")
    return " ".join(v.split())


def check_entry(e) -> tuple[dict, dict]:
    """An entry as it came, checked, and its result rebuilt by the rules."""
    if not (isinstance(e, dict) and set(e) == _ENTRY_KEYS):
        raise TableError("a roll with other fields than a roll has")
    if not (isinstance(e["id"], str) and ID_RE.match(e["id"])):
        raise TableError("a roll with no proper id")
    if e["y"] not in rules.SYSTEMS or not isinstance(e["p"], dict) or not isinstance(e["g"], list):
        raise TableError("a roll of no known game")
    if type(e["at"]) not in (int, float) or not 0 <= e["at"] < 1e14:
        raise TableError("a roll with no proper time")
    label = _label(e["l"])
    return {**e, "l": label, "at": int(e["at"])}, _replayed(e)


def _replayed(e: dict) -> dict:
    """The entry's result, rebuilt by the rules from its stages."""
    try:
        return rules.replay(e["y"], e["p"], e["g"])
    except (SpecError, RecursionError, TypeError, ValueError, KeyError):
        raise TableError("a roll whose dice do not fit its game's rules") from None


def _rate(p: dict, now) -> dict:
    times = [t for t in p["times"] if now - t < WINDOW]
    if len(times) >= RATE:
        raise TableError(f"more than {RATE} messages in {WINDOW // 1000} seconds")
    return {**p, "times": times + [now]}


def _order(p: dict, n: int) -> dict:
    if n < p["n_in"]:
        raise TableError("a message sent again (a replay)")
    if n > p["n_in"]:
        raise TableError("a message out of order (one before it is missing)")
    return {**p, "n_in": n + 1}


def parse_message(text) -> dict:
    if not isinstance(text, str) or len(text) > MAX_MESSAGE:
        raise TableError(f"a message larger than {MAX_MESSAGE // 1000} kB")
    return _shape(parse_json(text, "A message"))


def receive(table: dict, key, text, now) -> tuple[dict, list]:
    """One message from the peer ``key``: the new table and what happened
    (``[("entry", entry, result)]``, ``("ack", id)``, ``("push", system,
    spec, label)``, ``("fair", link)``). A refused message raises
    ``TableError`` naming the peer and the fault; the table is unchanged,
    except that a flood or a bad message still counts against the rate."""
    p = peer(table, key)
    if p is None:
        raise TableError("A message from no one at this table was refused.")
    try:
        p = _rate(p, now)
    except TableError as e:
        raise TableError(f"{p['name']}: refused {e}.") from None
    table = _put_peer(table, p)
    try:
        msg = parse_message(text)
        return _take(table, p, msg)
    except TableError as e:
        raise TableError(f"From {p['name']}: refused {e}; nothing was changed.") from None


def _take(table: dict, p: dict, msg: dict) -> tuple[dict, list]:
    if table["role"] == "host" and msg["t"] not in _FROM_PLAYER:
        raise TableError(f"a {msg['t']} message, which only the tablet sends")
    p = _order(p, msg["n"])
    table = _put_peer(table, p)
    return _HANDLERS[msg["t"]](table, p, msg)


def _by(table: dict, p: dict, msg: dict) -> str:
    """Who rolled: a phone's rolls are its own; the tablet names the player
    whose roll it passes on (never this phone's own name)."""
    if "by" not in msg:
        return p["name"]
    if table["role"] == "host":
        raise TableError("a roll that names who rolled it (a phone's rolls are its own)")
    by = name(msg["by"]) if isinstance(msg["by"], str) else ""
    if not by or by == table["name"]:
        raise TableError("a roll under this phone's own name")
    return by


def _on_roll(table: dict, p: dict, msg: dict) -> tuple[dict, list]:
    by = _by(table, p, msg)
    e, result = check_entry(msg["e"])
    how = "tablet" if by == table.get("host") else "phone"
    entry = {"id": e["id"], "by": by, "how": how, "y": e["y"], "p": e["p"], "g": e["g"], "l": e["l"],
             "at": e["at"]}
    table, fresh = log_add(table, entry)
    return table, [("entry", entry, result, fresh)]


def _on_ack(table: dict, p: dict, msg: dict) -> tuple[dict, list]:
    if not (isinstance(msg["id"], str) and ID_RE.match(msg["id"])):
        raise TableError("an acknowledgement of no proper roll")
    if table["role"] == "player":
        table = {**table, "outbox": [x for x in table["outbox"] if x != msg["id"]]}
    return table, [("ack", msg["id"])]


def _on_push(table: dict, p: dict, msg: dict) -> tuple[dict, list]:
    if msg["y"] not in rules.SYSTEMS or not isinstance(msg["p"], dict):
        raise TableError("a setup of no known game")
    try:
        spec = rules.MODULES[msg["y"]].normalize(msg["p"])
    except (SpecError, RecursionError, TypeError, ValueError, KeyError):
        raise TableError("a setup its game's rules refuse") from None
    return table, [("push", msg["y"], spec, _label(msg["l"]))]


def _on_fair(table: dict, p: dict, msg: dict) -> tuple[dict, list]:
    f = msg["f"]
    if not (isinstance(f, str) and f.startswith("v1.") and len(f) <= 16_000):
        raise TableError("a fair-roll message that is not a fair-roll link")
    return table, [("fair", f)]


_HANDLERS = {"roll": _on_roll, "ack": _on_ack, "push": _on_push, "fair": _on_fair}


def send(table: dict, key, kind: str, **fields) -> tuple[dict, str]:
    """The text of the next message to peer ``key`` (numbered), and the
    table with its counter moved on."""
    p = peer(table, key)
    msg = {"t": kind, "n": p["n_out"], **fields}
    _shape(msg)
    text = json.dumps(msg, ensure_ascii=False, separators=(",", ":"))
    if len(text) > MAX_MESSAGE:
        raise TableError(f"This roll is too large to send over the table ({len(text)} characters).")
    return _put_peer(table, {**p, "n_out": p["n_out"] + 1}), text


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
    old = log[i]
    if entry["g"] == old["g"] and _extends(old, entry) and entry["l"] == old["l"]:
        return table, False  # the same roll sent again (its ack was lost): nothing new
    if not _extends(old, entry) or entry["g"] == old["g"]:
        raise TableError("a roll under an id already used for other dice (a forgery)")
    return {**table, "log": [entry] + log[:i] + log[i + 1:]}, True


def own_entry(table: dict, result: dict, label: str, at, prev_id=None) -> tuple[dict, dict]:
    """A roll made on this device, for the log and to send: a step of the
    roll ``prev_id`` keeps its id (the others see the roll's steps as they
    happen)."""
    prev = next((x for x in table["log"] if x["id"] == prev_id and x["by"] == table["name"]), None)
    entry = {"id": "", "by": table["name"], "how": "tablet" if table["role"] == "host" else "phone",
             "y": result["system"], "p": result["spec"], "g": result["stages"], "l": _label(label[:LABEL_MAX]),
             "at": int(at)}
    if prev is not None and _extends(prev, entry):
        entry["id"] = prev["id"]
    else:
        table = {**table, "serial": table["serial"] + 1}
        entry["id"] = f"{table.get('slot', 'h')}-{table['serial']}"
    table, _ = log_add(table, entry)
    if table["role"] == "player":
        table = {**table, "outbox": ([x for x in table["outbox"] if x != entry["id"]] + [entry["id"]])[-OUTBOX_CAP:]}
    return table, entry


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


def outbox_entries(table: dict) -> list:
    """The rolls this phone made that the tablet has not acknowledged."""
    mine = {x["id"]: x for x in table["log"] if x["by"] == table["name"] and x["how"] != "fair"}
    return [mine[i] for i in table.get("outbox", []) if i in mine]


def provenance(entry: dict) -> str:
    """How a log entry came, in the page's words."""
    if entry["how"] == "fair":
        return "fair roll, verified"
    if entry["how"] == "tablet":
        return "rolled on the tablet"
    return f"rolled on {entry['by']}'s phone"


# ---------------------------------------------------------------- storage

_TABLE_KEYS = {"host": {"role", "table", "name", "next_slot", "peers", "log", "serial"},
               "player": {"role", "table", "slot", "name", "device", "host", "peers", "log", "serial", "outbox"}}


def dump(table: dict) -> str:
    """The table as stored (counters reset: a reload means new channels)."""
    peers = [{**p, "n_in": 0, "n_out": 0, "times": []} for p in table["peers"]]
    return json.dumps({**table, "peers": peers}, ensure_ascii=False, separators=(",", ":"))


def _load_peer(p) -> dict:
    ok = (isinstance(p, dict) and (p.get("key") == "host" or type(p.get("key")) is int)
          and isinstance(p.get("device"), str))
    if not ok:
        raise TableError("a player")
    return link_state(p["key"], name(p.get("name")), p["device"])


def _load_entry(e) -> dict:
    if not isinstance(e, dict) or e.get("how") not in ("phone", "tablet", "fair"):
        raise TableError("an entry")
    checked, _ = check_entry({k: e.get(k) for k in _ENTRY_KEYS})
    return {**checked, "by": name(e.get("by")), "how": e["how"]}


def load(text) -> tuple[dict | None, int]:
    """The stored table and how many of its log entries could not be read
    again (each is replayed by the rules); None if there is none or it is
    not a table at all."""
    if not isinstance(text, str) or not text or len(text) > 5_000_000 or share.nesting_depth(text) > 64:
        return None, 0
    try:
        t = json.loads(text)
        if not (isinstance(t, dict) and t.get("role") in _TABLE_KEYS and set(t) == _TABLE_KEYS[t["role"]]):
            return None, 0
        peers = [_load_peer(p) for p in t["peers"]][:MAX_PEERS + 1]
        name(t["name"])
    except (TableError, ValueError, TypeError, RecursionError):
        return None, 0
    log, bad = _load_log(t["log"])
    return {**t, "peers": peers, "log": log[:LOG_CAP]}, bad


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

def log_item(entry: dict, result, title: str, summary: str) -> str:
    """One table-log entry: who, the game, the outcome, the small dice and
    how it came; every text escaped (``views``)."""
    from drawing import draw, views

    res = result or {}
    dice = res.get("dice") if isinstance(res.get("dice"), list) else []
    outcome = str(res.get("outcome", ""))
    label = f'<span class="h-label">{views.esc(entry["l"])}</span>' if entry["l"] else ""
    return (f'<li class="history-item table-entry" data-table-entry data-by="{views.esc(entry["by"])}" '
            f'data-how="{views.esc(entry["how"])}" data-outcome="{views.esc(outcome)}">'
            f'<span class="h-head"><span class="h-system">{views.esc(title)}</span>'
            f'<span class="h-by">{views.esc(entry["by"])}</span></span>'
            f'<span class="h-outcome outcome-{views.esc(outcome)}">{views.esc(views.outcome_name(outcome))}</span>'
            f'<span class="h-summary">{views.bidi_text(summary)}</span>{label}'
            f'{draw.thumbnails(dice, size=24)}<span class="h-foot"><span class="h-how">'
            f'{views.esc(provenance(entry))}</span></span></li>')


def peer_row(p: dict, status: str, host: bool) -> str:
    """A joined phone's row on the tablet (or the tablet's row on a phone)."""
    from drawing import views

    words = {"open": "connected", "away": "away: rejoins with the table's code",
             "failed": "could not connect"}.get(status, status)
    tools = ""
    if host:
        tools = (f'<button type="button" data-table-push="{p["key"]}">Send this roll</button>'
                 f'<button type="button" data-table-fair="{p["key"]}">Fair roll</button>')
    return (f'<li class="table-peer" data-table-peer="{views.esc(p["name"])}" data-status="{views.esc(status)}">'
            f'<span class="peer-name">{views.esc(p["name"])}</span>'
            f'<span class="peer-status">{views.esc(words)}</span>{tools}</li>')
