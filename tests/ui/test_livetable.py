"""The live table's protocol (static/py/table/livetable.py, docs/LIVE-TABLE.md): the join
codes carry only the ICE credentials, the fingerprint and the candidates,
and a valid SDP is rebuilt from them; every message is checked for size,
shape, order, replay, rate and names; entries are rebuilt by the rules."""

from __future__ import annotations

import json
import random

import pytest

import rules
from rules.dice import ScriptedRng
from table import livetable as lt

#: A Chromium offer as measured on these machines (host candidates, a TCP
#: one added to show it is left out).
CHROME_OFFER = "\r\n".join([
    "v=0", "o=- 7776451038087003669 2 IN IP4 127.0.0.1", "s=-", "t=0 0", "a=group:BUNDLE 0",
    "a=extmap-allow-mixed", "a=msid-semantic: WMS", "m=application 35534 UDP/DTLS/SCTP webrtc-datachannel",
    "c=IN IP4 192.0.2.2",
    "a=candidate:1606044901 1 udp 2113937151 192.0.2.2 35534 typ host generation 0 network-cost 999",
    "a=candidate:1489510485 1 udp 2113942271 fd00::2 44102 typ host generation 0 network-cost 999",
    "a=candidate:3 1 tcp 1518280447 192.0.2.2 9 typ host tcptype active generation 0",
    "a=candidate:4 1 udp 1685921535 0b2b3b3c-1111-2222-3333-444455556666.local 5000 typ host generation 0",
    "a=candidate:5 1 udp 1677729535 203.0.113.7 61000 typ srflx raddr 192.0.2.2 rport 35534 generation 0",
    "a=ice-ufrag:GAYV", "a=ice-pwd:wnAB/c5xbofAVSBOgH1BvFaf", "a=ice-options:trickle",
    "a=fingerprint:sha-256 33:3B:E1:62:68:0E:58:78:BF:E1:F7:AB:95:83:8A:0A:16:5D:EF:6F:E9:65:F3:FF:61:FC:C1:D7:DC"
    ":3A:60:60",
    "a=setup:actpass", "a=mid:0", "a=sctp-port:5000", "a=max-message-size:262144", ""])


def entropy(seed=1):
    return random.Random(seed).randbytes


def desc():
    return lt.parse_sdp(CHROME_OFFER)


def test_parse_keeps_only_what_the_other_side_needs():
    """ufrag, pwd, the fingerprint and the UDP host/srflx candidates (the
    TCP one left out, an mDNS name kept); nothing else of the SDP."""
    d = desc()
    assert d["u"] == "GAYV" and d["p"] == "wnAB/c5xbofAVSBOgH1BvFaf"
    assert d["f"] == "333be162680e5878bfe1f7ab95838a0a165def6fe965f3ff61fcc1d7dc3a6060"
    assert d["c"] == [["h", "192.0.2.2", 35534], ["h", "fd00::2", 44102],
                      ["h", "0b2b3b3c-1111-2222-3333-444455556666.local", 5000],
                      ["s", "203.0.113.7", 61000]]


@pytest.mark.parametrize("kind,setup", [("o", "actpass"), ("a", "active")])
def test_rebuilt_sdp_is_a_data_channel_description(kind, setup):
    """The SDP rebuilt from a code has the data-channel media line, the
    credentials, fingerprint and candidates, and the DTLS role of its kind;
    parsed again it gives the same description."""
    sdp = lt.build_sdp(desc(), kind)
    lines = sdp.split("\r\n")
    assert "m=application 9 UDP/DTLS/SCTP webrtc-datachannel" in lines
    assert f"a=setup:{setup}" in lines and "a=ice-ufrag:GAYV" in lines
    assert any(x.startswith("a=fingerprint:sha-256 33:3B:E1") for x in lines)
    assert sum(x.startswith("a=candidate:") for x in lines) == 4
    assert lt.parse_sdp(sdp) == desc()


def test_join_codes_round_trip_and_are_small():
    """An offer and an answer decode to what was encoded; both stay far
    under the SDP's size (the whole SDP is never sent)."""
    offer = lt.encode_join("o", desc(), {"t": "AbCdEf12", "s": 3, "g": "The GM"})
    answer = lt.encode_join("a", desc(), {"t": "AbCdEf12", "s": 3, "w": "Dana", "d": "dev-1"})
    got = lt.decode_join("https://example.org/dice/#" + offer)
    assert got == {"kind": "o", "desc": desc(), "meta": {"t": "AbCdEf12", "s": 3, "g": "The GM"}}
    assert lt.decode_join(answer)["meta"]["w"] == "Dana"
    assert len(offer) < len(CHROME_OFFER) / 2 and len(answer) < 400


def _payload(obj):
    return "t1.o." + lt.pack(obj)


GOOD = ["GAYV", "wnAB/c5xbofAVSBOgH1BvFaf", lt._fp_b64("33" * 32),
        [["h", "192.0.2.2", 35534]], {"t": "AbCdEf12", "s": 0, "g": "GM"}]


def test_the_base_of_the_damaged_codes_opens():
    """Each damaged code below differs from this one in one thing."""
    assert lt.decode_join(_payload(GOOD))["meta"]["g"] == "GM"


def _with(i, v):
    x = json.loads(json.dumps(GOOD))
    x[i] = v
    return x


@pytest.mark.parametrize("fragment", [
    "t1.o.", "t1.x." + lt.pack(GOOD), "t2.o." + lt.pack(GOOD), "t1.o.!!!", "t1.o." + "A" * 2000,
    _payload(GOOD[:4]), _payload(_with(0, "a")), _payload(_with(1, "short")), _payload(_with(2, "AAAA")),
    _payload(_with(3, [["h", "not-an-ip", 1]])), _payload(_with(3, [["h", "1.2.3.4", 0]])),
    _payload(_with(3, [["r", "1.2.3.4", 9]])), _payload(_with(3, [[["h"], "1.2.3.4", 9]])), _payload(_with(3, [["h", "1.2.3.4", 9]] * 13)),
    _payload(_with(4, {"t": "AbCdEf12", "s": 0, "g": ""})), _payload(_with(4, {"t": "x", "s": 0, "g": "GM"})),
    _payload(_with(4, {"t": "AbCdEf12", "s": -1, "g": "GM"})),
    _payload(_with(4, {"t": "AbCdEf12", "s": 0, "g": "GM", "x": 1})),
    "t1.o." + lt.pack("[" * 30 + "]" * 30)[:10], _payload(json.loads("[" * 25 + "]" * 25)),
], ids=["empty", "kind", "version", "alphabet", "huge", "short-list", "ufrag", "pwd", "fingerprint",
        "address", "port", "relay", "type-list", "too-many", "no-name", "table", "seat", "extra-key", "cut", "deep"])
def test_damaged_join_codes_are_refused(fragment):
    """Every damaged, oversized or hostile join code is a TableError with
    a message, never another exception."""
    with pytest.raises(lt.TableError):
        lt.decode_join(fragment)


def test_zip_bomb_is_refused():
    import base64
    import zlib

    bomb = base64.urlsafe_b64encode(zlib.compress(b"[" + b" " * 100_000 + b"]", 9)).decode().rstrip("=")
    with pytest.raises(lt.TableError):
        lt.decode_join("t1.o." + bomb)


# ---------------------------------------------------------------- joining and messages

def tables():
    """A tablet and a phone joined at seat 0 (the phone's answer taken)."""
    host = lt.new_host("The GM", entropy(1))
    host, meta = lt.next_offer_meta(host)
    offer = lt.decode_join(lt.encode_join("o", desc(), meta))
    phone = lt.new_player(offer, "Dana", "dev-dana")
    answer = lt.decode_join(lt.encode_join("a", desc(), {"t": meta["t"], "s": 0, "w": "Dana", "d": "dev-dana"}))
    host, peer = lt.add_peer(host, answer)
    return host, phone, peer["key"]


def jadeclaw_result(faces=(5,)):
    return rules.roll("jadeclaw", {"dice": [8] * len(faces)}, rng=ScriptedRng(list(faces)))


def test_a_phone_roll_reaches_the_tablet_under_the_phone_name():
    """The phone logs its roll and sends it; the tablet rebuilds it by the
    rules, logs it under Dana (as the peer joined), and acks it."""
    host, phone, key = tables()
    phone, e = lt.own_entry(phone, jadeclaw_result((6,)), "", 1000)
    phone, text = lt.send(phone, "host", "roll", e=lt.wire(e))
    host, events = lt.receive(host, key, text, 0)
    kind, entry, result, fresh = events[0]
    assert (kind, entry["by"], entry["how"], fresh) == ("entry", "Dana", "phone", True)
    assert result == rules.replay("jadeclaw", e["p"], e["g"])
    assert lt.provenance(entry) == "rolled on Dana's phone"
    assert phone["outbox"] == [e["id"]]
    host, ack = lt.send(host, key, "ack", id=e["id"])
    phone, _ = lt.receive(phone, "host", ack, 0)
    assert phone["outbox"] == []


def test_a_step_keeps_the_roll_id_and_replaces_it():
    """A Milhamah reroll after the roll: the same id, the log entry
    replaced by the longer one (the steps show as they happen)."""
    host, phone, key = tables()
    spec = {"shoresh": "שלם"}
    r0 = rules.roll("milhamah", spec, rng=ScriptedRng([1] * 8))
    phone, e0 = lt.own_entry(phone, r0, "", 1)
    r1 = rules.act("milhamah", r0["spec"], r0, {"do": "reroll", "dice": [0]}, rng=ScriptedRng([2]))
    phone, e1 = lt.own_entry(phone, r1, "", 2, e0["id"])
    assert e1["id"] == e0["id"] and len(phone["log"]) == 1
    for e in (e0, e1):
        phone, text = lt.send(phone, "host", "roll", e=lt.wire(e))
        host, events = lt.receive(host, key, text, 0)
    assert len(host["log"]) == 1 and host["log"][0]["g"] == r1["stages"]


def _msg(n, **fields):
    return json.dumps({"n": n, **fields})


def _refused(host, key, text, now=0):
    before = json.dumps(host["log"])
    with pytest.raises(lt.TableError) as err:
        lt.receive(host, key, text, now)
    assert json.dumps(host["log"]) == before
    return str(err.value)


def test_hostile_messages_are_refused_and_nothing_changes():
    """Malformed, oversized, unknown, forged (a name, a verified mark, a
    push from a phone), replayed and out-of-order messages: each a
    TableError naming the peer, the log unchanged."""
    host, phone, key = tables()
    e = lt.wire(lt.own_entry(phone, jadeclaw_result(), "", 5)[1])
    assert "Dana" in _refused(host, key, "{not json")
    _refused(host, key, "x" * (lt.MAX_MESSAGE + 1))
    _refused(host, key, _msg(0, t="shout"))
    _refused(host, key, _msg(0, t=[]))                                     # (found by hypothesis)
    _refused(host, key, _msg(0, t="roll", e=e, by="Eli"))                 # a phone naming another roller
    _refused(host, key, _msg(0, t="roll", e={**e, "v": True}))            # "verified" is no field
    _refused(host, key, _msg(0, t="roll", e=e, how="fair"))
    _refused(host, key, _msg(0, t="push", y="jadeclaw", p={}, l=""))      # only the tablet pushes
    _refused(host, key, _msg(0, t="roll", e={**e, "g": [{"do": "roll", "draws": [9]}]}))  # a d8 showing 9
    _refused(host, key, _msg(0, t="roll", e={**e, "l": "<script>" * 20}))
    _refused(host, key, _msg(1, t="roll", e=e))                           # out of order
    host, _ = lt.receive(host, key, _msg(0, t="roll", e=e), 0)
    assert "replay" in _refused(host, key, _msg(0, t="roll", e=e))
    _refused(host, key, _msg(1, t="roll", e={**e, "l": "relabelled"}))   # same dice, another label
    forged = {**e, "g": [{"do": "roll", "draws": [1]}]}
    assert "forgery" in _refused(host, key, _msg(1, t="roll", e=forged))  # same id, other dice
    assert len(host["log"]) == 1


def test_a_flood_is_refused_past_the_rate():
    host, phone, key = tables()
    e = lt.wire(lt.own_entry(phone, jadeclaw_result(), "", 5)[1])
    for n in range(lt.RATE):
        host, _ = lt.receive(host, key, _msg(n, t="ack", id=e["id"]), 10 * n)
    assert "messages in" in _refused(host, key, _msg(lt.RATE, t="ack", id=e["id"]), 10 * lt.RATE)
    host, _ = lt.receive(host, key, _msg(lt.RATE, t="ack", id=e["id"]), lt.WINDOW + 10 * lt.RATE)


def test_the_tablet_passes_rolls_on_but_never_under_the_phone_own_name():
    host, phone, key = tables()
    e = lt.wire(lt.own_entry(host, jadeclaw_result(), "", 5)[1])
    phone, events = lt.receive(phone, "host", _msg(0, t="roll", e=e, by="Eli"), 0)
    assert events[0][1]["by"] == "Eli" and events[0][1]["how"] == "phone"
    phone, events = lt.receive(phone, "host", _msg(1, t="roll", e={**e, "id": "h-9"}), 0)
    assert events[0][1]["by"] == "The GM" and lt.provenance(events[0][1]) == "rolled on the tablet"
    _refused(phone, "host", _msg(2, t="roll", e={**e, "id": "h-10"}, by="Dana"))


def test_a_push_is_normalized_and_a_bad_one_refused():
    host, phone, key = tables()
    phone, events = lt.receive(phone, "host", _msg(0, t="push", y="jadeclaw", p={"dice": [8]}, l="Climb"), 0)
    assert events == [("push", "jadeclaw", rules.normalize("jadeclaw", {"dice": [8]}), "Climb")]
    _refused(phone, "host", _msg(1, t="push", y="jadeclaw", p={"dice": [7]}, l=""))


def test_seats_names_and_the_cap():
    """An answer for another table or an unoffered seat is refused; a
    second Dana is shown as Dana (2); at most MAX_PEERS phones."""
    host, phone, key = tables()
    ans = lambda t, s, w, d: lt.decode_join(lt.encode_join("a", desc(), {"t": t, "s": s, "w": w, "d": d}))
    with pytest.raises(lt.TableError):
        lt.add_peer(host, ans("ZZZZZZZZ", 0, "Eli", "dev-eli"))
    with pytest.raises(lt.TableError):
        lt.add_peer(host, ans(host["table"], 5, "Eli", "dev-eli"))
    with pytest.raises(lt.TableError):
        lt.add_peer(host, ans(host["table"], 0, "Eli", "dev-eli"))   # seat 0 is Dana's
    host, _ = lt.next_offer_meta(host)
    host, p = lt.add_peer(host, ans(host["table"], 1, "Dana", "dev-other"))
    assert p["name"] == "Dana (2)"
    for i in range(2, 2 + lt.MAX_PEERS - 2):
        host, _ = lt.next_offer_meta(host)
        host, _ = lt.add_peer(host, ans(host["table"], i, f"P{i}", f"dev-{i}"))
    host, _ = lt.next_offer_meta(host)
    with pytest.raises(lt.TableError):
        lt.add_peer(host, ans(host["table"], lt.MAX_PEERS, "One more", "dev-x"))


def test_rejoining_keeps_the_name_and_the_log():
    """The same device answering a later seat keeps its row (one peer) and
    the tablet's log; its counters start again."""
    host, phone, key = tables()
    phone, e = lt.own_entry(phone, jadeclaw_result(), "", 5)
    phone, text = lt.send(phone, "host", "roll", e=lt.wire(e))
    host, _ = lt.receive(host, key, text, 0)
    host, meta = lt.next_offer_meta(host)
    again = lt.decode_join(lt.encode_join("a", desc(), {"t": host["table"], "s": meta["s"], "w": "Dana",
                                                         "d": "dev-dana"}))
    host, p = lt.add_peer(host, again)
    assert [x["name"] for x in host["peers"]] == ["Dana"] and p["n_in"] == 0
    # the resent roll (its ack was lost) is no new entry
    host, events = lt.receive(host, p["key"], _msg(0, t="roll", e=lt.wire(e)), 0)
    assert events[0][3] is False and len(host["log"]) == 1


def test_stored_table_round_trips_and_damaged_entries_are_counted():
    host, phone, key = tables()
    phone, e = lt.own_entry(phone, jadeclaw_result(), "Climb", 5)
    stored = json.loads(lt.dump(phone))
    stored["log"].append({**stored["log"][0], "id": "x-1", "g": [{"do": "roll", "draws": [99]}]})
    table, bad = lt.load(json.dumps(stored))
    assert bad == 1 and table["log"] == phone["log"] and table["outbox"] == phone["outbox"]
    assert lt.load("[" * 100)[0] is None and lt.load('{"role": "host"}')[0] is None


def test_a_fair_entry_is_the_only_verified_one():
    host, phone, key = tables()
    r = jadeclaw_result()
    host, e = lt.fair_entry(host, {"result": r, "roller": "Dana", "label": "", "time": 3, "fair": "v1.v.abc"})
    assert lt.provenance(e) == "fair roll, verified" and host["log"][0] is e


def test_log_item_escapes_every_text():
    host, phone, key = tables()
    r = jadeclaw_result()
    entry = {"id": "1", "by": "<b>x</b>", "how": "phone", "y": "jadeclaw", "p": r["spec"], "g": r["stages"],
             "l": "<img src=x onerror=alert(1)>", "at": 0}
    html = lt.log_item(entry, r, "Jadeclaw", "<i>")
    assert "<img" not in html and "<b>" not in html and "<i>" not in html
    assert 'data-by="&lt;b&gt;x&lt;/b&gt;"' in html
