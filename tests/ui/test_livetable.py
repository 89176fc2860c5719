"""The live table's protocol (static/py/livetable.py): the join codes carry
only the ICE credentials, the fingerprint and the candidates (nothing
that names a device), and a valid SDP is rebuilt from them; a seat is
taken back only with its key; every message is checked for size, shape,
order, rate and names; entries are rebuilt by the rules; what is sent is
queued, paced and acknowledged, so honest bursts arrive whole. The
tablet and phones here talk through ``Table`` below: every text goes
through ``pump`` and ``receive`` as it would over a channel, on a clock
the test moves."""

from __future__ import annotations

import json
import random
import re

import pytest

import rules
from fairrolls import fair
from rules.dice import ScriptedRng
from shell import device, names
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
    answer = lt.encode_join("a", desc(), {"t": "AbCdEf12", "s": 3, "w": "Dana"})
    got = lt.decode_join("https://example.org/dice/#" + offer)
    assert got == {"kind": "o", "desc": desc(), "meta": {"t": "AbCdEf12", "s": 3, "g": "The GM"}}
    assert lt.decode_join(answer)["meta"]["w"] == "Dana"
    assert len(offer) < len(CHROME_OFFER) / 2 and len(answer) < 400


def _payload(obj):
    return "t2.o." + lt.pack(obj)


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
    "t2.o.", "t2.x." + lt.pack(GOOD), "t3.o." + lt.pack(GOOD), "t2.o.!!!", "t2.o." + "A" * 2000,
    _payload(GOOD[:4]), _payload(_with(0, "a")), _payload(_with(1, "short")), _payload(_with(2, "AAAA")),
    _payload(_with(3, [["h", "not-an-ip", 1]])), _payload(_with(3, [["h", "1.2.3.4", 0]])),
    _payload(_with(3, [["r", "1.2.3.4", 9]])), _payload(_with(3, [[["h"], "1.2.3.4", 9]])), _payload(_with(3, [["h", "1.2.3.4", 9]] * 13)),
    _payload(_with(4, {"t": "AbCdEf12", "s": 0, "g": ""})), _payload(_with(4, {"t": "x", "s": 0, "g": "GM"})),
    _payload(_with(4, {"t": "AbCdEf12", "s": -1, "g": "GM"})),
    _payload(_with(4, {"t": "AbCdEf12", "s": 0, "g": "GM", "x": 1})),
    "t2.o." + lt.pack("[" * 30 + "]" * 30)[:10], _payload(json.loads("[" * 25 + "]" * 25)),
], ids=["empty", "kind", "version", "alphabet", "huge", "short-list", "ufrag", "pwd", "fingerprint",
        "address", "port", "relay", "type-list", "too-many", "no-name", "table", "seat", "extra-key", "cut", "deep"])
def test_damaged_join_codes_are_refused(fragment):
    """Every damaged, oversized or hostile join code is a TableError with
    a message, never another exception."""
    with pytest.raises(lt.TableError):
        lt.decode_join(fragment)


def test_a_join_code_of_the_older_page_is_refused_in_words():
    """A code from a page before seats were proved (``t1``) is not read as
    another kind of link: it says to reload both devices."""
    old = "t1.o." + lt.pack(GOOD)
    assert lt.is_join_link(old)
    with pytest.raises(lt.TableError, match="older version of the page"):
        lt.decode_join(old)


def test_zip_bomb_is_refused():
    import base64
    import zlib

    bomb = base64.urlsafe_b64encode(zlib.compress(b"[" + b" " * 100_000 + b"]", 9)).decode().rstrip("=")
    with pytest.raises(lt.TableError):
        lt.decode_join("t2.o." + bomb)


# ---------------------------------------------------------------- a table in a test

def fp(n: int) -> str:
    """A certificate fingerprint (64 hex digits) for connection ``n``."""
    return f"{n:02x}" * 32


def answer_of(meta, who, n):
    """The phone's answer to the offer ``meta`` (decoded, as the tablet reads it)."""
    return lt.decode_join(lt.encode_join("a", {**desc(), "f": fp(n)}, {"t": meta["t"], "s": meta["s"], "w": who}))


class Table:
    """A tablet and its phones, each channel a pair of queues of texts;
    ``run`` pumps and delivers until nothing moves (or ``until``), on a
    clock in ms that only the test moves. Every refusal is kept."""

    def __init__(self, gm="The GM", seed=1):
        self.now = 0
        self.rand = random.Random(seed)
        self.host = lt.new_host(gm, self.rand.randbytes)
        self.phones = {}     # name -> phone table
        self.key = {}        # name -> the tablet's key of that phone's channel
        self.me = {}         # name -> the phone's identity (shell.device)
        self.events = {"host": []}
        self.conn = 100
        self.sent = {"host": 0}

    def offer(self):
        self.host, meta = lt.next_offer_meta(self.host)
        self.conn += 1
        offer = lt.decode_join(lt.encode_join("o", {**desc(), "f": fp(self.conn)}, meta))
        return offer, meta

    def join(self, who, me=None, phone=None, run=True):
        """``who``'s phone scans the next code: a new player, or (``phone``:
        its table as kept) a rejoin. ``me``: the phone's identity."""
        me = me or self.me.get(who) or device.new(self.rand.randbytes, who)
        offer, meta = self.offer()
        tk = device.table_key(me, meta["t"])
        p = lt.join_again(phone, offer, who, me["id"], tk) if phone else lt.new_player(offer, who, me["id"], tk)
        self.conn += 1
        p = lt.player_link(p, offer["desc"]["f"], fp(self.conn))
        self.host, x = lt.add_link(self.host, answer_of(meta, p["name"], self.conn), offer["desc"]["f"])
        self.host = lt.opened(self.host, x["key"], self.rand.randbytes)
        p = lt.opened(p, "host", self.rand.randbytes)
        self.phones[who], self.key[who], self.me[who] = p, x["key"], me
        self.events.setdefault(who, [])
        self.sent.setdefault(who, 0)
        if run:
            self.run()
        return x["key"]

    def drop(self, who):
        """``who``'s channel closes on both sides, whatever was in flight lost."""
        self.host = lt.closed(self.host, self.key[who])
        self.phones[who] = lt.closed(self.phones[who], "host")

    def _deliver(self, side, key, text):
        if side == "host":
            self.host, ev = lt.receive(self.host, key, text, self.now)
            self.events["host"] += ev
        else:
            self.phones[side], ev = lt.receive(self.phones[side], "host", text, self.now)
            self.events[side] += ev

    def step(self):
        """One round: every connection pumps, every text is delivered.
        The earliest time something is due again (None: nothing)."""
        moved, wake = False, []
        for who, p in list(self.phones.items()):
            key = self.key.get(who)
            if lt.link(self.host, key) is not None and lt.link(p, "host") is not None:
                self.host, texts, due = lt.pump(self.host, key, self.now)
                for t in texts:
                    self._deliver(who, None, t)
                self.sent["host"] += len(texts)
                wake.append(due)
                self.phones[who], texts, due = lt.pump(self.phones[who], "host", self.now)
                for t in texts:
                    self._deliver("host", key, t)
                self.sent[who] += len(texts)
                wake.append(due)
                moved |= bool(texts)
        return moved, min((w for w in wake if w is not None), default=None)

    def run(self, until=None, limit=100_000):
        """Deliver until nothing is due (or the clock passes ``until``)."""
        for _ in range(limit):
            moved, wake = self.step()
            if moved:
                continue
            if wake is None or (until is not None and wake > until):
                if until is not None:
                    self.now = max(self.now, until)
                return
            self.now = max(self.now, int(wake) + 1)
        raise AssertionError("the table never went quiet")

    def roll(self, who, result=None, step=False, label="", secret=False):
        result = result or jadeclaw_result()
        if who == "host":
            self.host, e = lt.own_entry(self.host, result, label, self.now, self.rand.randbytes, step, secret)
        else:
            self.phones[who], e = lt.own_entry(self.phones[who], result, label, self.now, self.rand.randbytes, step)
        return e

    def refused(self, side="host"):
        return [ev[1] for ev in self.events[side] if ev[0] in ("refused", "turned-away", "bye")]

    def log(self, side, by=None):
        t = self.host if side == "host" else self.phones[side]
        return [e for e in t["log"] if by is None or e["by"] == by]

    def to_phone(self, who, msg):
        """The tablet's text straight onto ``who``'s channel (a tablet that
        lies), numbered as the phone expects next; the phone's events."""
        if isinstance(msg, dict) and "n" in msg:
            msg = {**msg, "n": lt.link(self.phones[who], "host")["n_in"]}
        text = msg if isinstance(msg, str) else json.dumps(msg)
        before = len(self.events[who])
        self._deliver(who, None, text)
        return self.events[who][before:]

    def send_raw(self, who, msg):
        """A hostile phone's text straight onto its channel (no pump)."""
        text = msg if isinstance(msg, str) else json.dumps(msg)
        before = len(self.events["host"])
        self._deliver("host", self.key[who], text)
        return self.events["host"][before:]


def jadeclaw_result(faces=(5,)):
    return rules.roll("jadeclaw", {"dice": [8] * len(faces)}, rng=ScriptedRng(list(faces)))


def refusal(events):
    """The one refusal among ``events`` (its words)."""
    got = [ev[-1] for ev in events if ev[0] in ("refused", "turned-away")]
    assert len(got) == 1, events
    return got[0]


def plain(text):
    """Words without the isolates that wrap names in a banner."""
    return text.replace("\u2068", "").replace("\u2069", "")


# ---------------------------------------------------------------- joining and rolls

def test_a_phone_sits_down_and_its_roll_reaches_the_tablet_under_its_name():
    """The tablet greets, the phone gives its id and table key, the tablet
    welcomes it under its name; its roll is rebuilt by the rules there,
    logged as rolled on Dana's phone, and acknowledged (the phone's queue
    empties)."""
    t = Table()
    t.join("Dana")
    assert [s["name"] for s in t.host["seats"]] == ["Dana"] and t.phones["Dana"]["seated"]
    assert ("welcome", "Dana", False) in t.events["Dana"]
    e = t.roll("Dana", jadeclaw_result((6,)))
    assert lt.waiting(t.phones["Dana"], "host") == 1
    t.run()
    [got] = t.log("host", "Dana")
    assert got["how"] == "phone" and lt.provenance(got) == "rolled on Dana's phone"
    assert rules.replay(got["y"], got["p"], got["g"]) == rules.replay("jadeclaw", e["p"], e["g"])
    assert lt.waiting(t.phones["Dana"], "host") == 0 and t.refused() == []


def test_a_step_keeps_the_roll_id_and_replaces_it():
    """A Milhamah reroll after the roll: the same id, the log entry
    replaced by the longer one (the steps show as they happen)."""
    t = Table()
    t.join("Dana")
    spec = {"shoresh": "שלם"}
    r0 = rules.roll("milhamah", spec, rng=ScriptedRng([1] * 8))
    e0 = t.roll("Dana", r0)
    t.run()
    r1 = rules.act("milhamah", r0["spec"], r0, {"do": "reroll", "dice": [0]}, rng=ScriptedRng([2]))
    e1 = t.roll("Dana", r1, step=True)
    t.run()
    assert e1["id"] == e0["id"] and len(t.log("Dana")) == 1
    assert len(t.log("host")) == 1 and t.log("host")[0]["g"] == r1["stages"]


def test_four_rolls_with_the_same_dice_are_four_entries():
    """Every roll gets its own id, never derived from its dice: four
    single-d4 Jadeclaw rolls all showing 3 are four entries on the phone,
    on the tablet and on another phone (once a step was taken for a
    resend)."""
    t = Table()
    t.join("Dana")
    t.join("Eli")
    same = rules.roll("jadeclaw", {"dice": [4]}, rng=ScriptedRng([3]))
    ids = {t.roll("Dana", same)["id"] for _ in range(4)}
    t.run()
    assert len(ids) == 4
    assert len(t.log("Dana")) == len(t.log("host", "Dana")) == len(t.log("Eli", "Dana")) == 4


def test_the_tablet_passes_rolls_on_but_never_under_the_phone_own_name():
    """A roll the tablet passes on names its roller; the tablet's own reads
    "rolled on the tablet"; one named as this phone (or a look-alike of
    its name) is refused."""
    t = Table()
    t.join("Dana")
    t.join("Eli")
    t.roll("Eli")
    t.roll("host")
    t.run()
    by = {e["by"]: lt.provenance(e) for e in t.log("Dana")}
    assert by == {"Eli": "rolled on Eli's phone", "The GM": "rolled on the tablet"}
    phone = t.phones["Dana"]
    e = lt.wire(t.log("host")[0])
    for who in ("Dana", "Dаna"):
        x = lt.link(phone, "host")
        msg = json.dumps({"t": "roll", "n": x["n_in"], "a": 0, "r": [{"e": {**e, "id": "z9"}, "by": who}]})
        phone, ev = lt.receive(phone, "host", msg, t.now)
        assert "own name" in refusal(ev)


def test_a_push_is_normalized_and_a_bad_one_refused():
    t = Table()
    t.join("Dana")
    dev = t.host["seats"][0]["device"]
    t.host = lt.post(t.host, dev, "push", y="jadeclaw", p={"dice": [8]}, l="Climb")
    t.host = lt.post(t.host, dev, "push", y="jadeclaw", p={"dice": [7]}, l="")
    t.run()
    pushes = [ev for ev in t.events["Dana"] if ev[0] == "push"]
    assert pushes == [("push", "jadeclaw", rules.normalize("jadeclaw", {"dice": [8]}), "Climb")]
    assert "rules refuse" in refusal(t.events["Dana"])


# ---------------------------------------------------------------- a character sheet for the tablet's party

def wu_entry(**sheet):
    """Wu Shousu (Jadeclaw, Fast-Talk) as a phone's party keeps her."""
    base = rules.normalize_sheet("jadeclaw", rules.SHEETS["jadeclaw"].EXAMPLE_SHEETS["wu"])
    return {"id": "0123abcd0123abcd", "system": "jadeclaw", "time": 5, "sheet": {**base, **sheet}}


def test_a_seated_phone_sends_its_character_to_the_tablet():
    """The phone queues Wu's sheet; the tablet takes it checked by the
    rules, as played by the seat it came from (whatever Player said), and
    acknowledges it (the phone's queue empties). Sent again, the same id
    comes again (the party merges by id); a second send waiting unsent
    gives way to the newer one."""
    t = Table()
    t.join("Eli")
    t.phones["Eli"] = lt.share_sheet(t.phones["Eli"], wu_entry(player="Dana"))
    assert lt.waiting(t.phones["Eli"], "host") == 1
    t.run()
    [got] = [ev for ev in t.events["host"] if ev[0] == "sheet"]
    want = rules.normalize_sheet("jadeclaw", {**wu_entry()["sheet"], "player": "Eli"})
    assert got == ("sheet", {"id": "0123abcd0123abcd", "system": "jadeclaw", "sheet": want}, "Eli")
    assert lt.waiting(t.phones["Eli"], "host") == 0 and t.refused() == []
    t.drop("Eli")
    for level in (3, 4):
        skills = [{**wu_entry()["sheet"]["skills"][0], "level": level}]
        t.phones["Eli"] = lt.share_sheet(t.phones["Eli"], wu_entry(skills=skills))
    assert lt.waiting(t.phones["Eli"], "host") == 1
    kept, _ = lt.load(lt.dump(t.phones["Eli"]))  # a reload keeps it queued
    assert lt.waiting(kept, "host") == 1
    t.join("Eli", phone=t.phones["Eli"])
    sheets = [ev[1]["sheet"] for ev in t.events["host"] if ev[0] == "sheet"]
    assert len(sheets) == 2 and sheets[-1]["skills"][0]["level"] == 4 and t.refused() == []


def test_a_sheet_cannot_be_sent_from_no_seat_nor_an_npc():
    """A phone at no table (or not seated yet) has nothing to send to, and
    an NPC's sheet stays with the GM: refused in words before it is queued."""
    t = Table()
    t.join("Eli", run=False)
    with pytest.raises(lt.TableError, match="sits at no table"):
        lt.share_sheet(t.phones["Eli"], wu_entry())
    with pytest.raises(lt.TableError, match="sits at no table"):
        lt.share_sheet(None, wu_entry())
    t.run()
    with pytest.raises(lt.TableError, match="NPC"):
        lt.share_sheet(t.phones["Eli"], wu_entry(npc=True))
    with pytest.raises(lt.TableError, match="sits at no table"):
        lt.share_sheet(t.host, wu_entry())


def _sheet_msg(n, **kw):
    return {"t": "sheet", "n": n, "a": 0, "i": "0123abcd0123abcd", "y": "jadeclaw", "p": wu_entry()["sheet"], **kw}


@pytest.mark.parametrize("change,why", [
    ({"p": {"name": "Wu", "traits": {"will": "d7"}}}, "rules refuse (traits.will"),
    ({"p": {"name": "Wu", "skills": "lots"}}, "rules refuse (skills"),
    ({"p": {"name": "Wu\u202eusuohS"}}, "rules refuse (name"),
    ({"p": {"name": "W\u200bu Shousu"}}, "invisible or look-alike"),
    ({"p": {"name": "\uff37u Shousu"}}, "invisible or look-alike"),
    ({"p": {"name": "Wu", "npc": True}}, "NPC's sheet"),
    ({"p": []}, "no known game"),
    ({"y": "chess"}, "no known game"),
    ({"i": "../party"}, "no proper id"),
    ({"i": "f" * 33}, "no proper id"),
    ({"p": {"name": "Wu", "x": 1}}, "rules refuse"),
    ({"w": 5}, "other fields"),
    ({"p": {"name": "Wu", "traits": json.loads("[" * 30 + "]" * 30)}}, "nested"),
    ({"p": {"name": "Wu", "player": "x" * (lt.MAX_MESSAGE + 1)}}, "larger than"),
], ids=["die", "shape", "bidi", "zero-width", "fullwidth", "npc", "not-a-dict", "game", "id", "long-id", "field",
        "extra-key", "deep", "oversize"])
def test_a_hostile_sheet_is_refused_naming_the_phone(change, why):
    """Malformed, oversized, deep, hostile names (a bidi override, a
    zero-width space, fullwidth letters), an NPC, an unknown game or id:
    each refused in words naming the phone, never a Python error, and no
    sheet reaches the party."""
    t = Table()
    t.join("Eli")
    words = plain(refusal(t.send_raw("Eli", _sheet_msg(lt.link(t.host, t.key["Eli"])["n_in"], **change))))
    assert "From Eli: refused" in words and why in words, words
    assert not re.search(r"Error|Traceback|'\w+' object|NoneType", words)
    assert not [ev for ev in t.events["host"] if ev[0] == "sheet"]


def test_a_sheet_from_an_unseated_channel_or_the_tablet_is_refused():
    """Before the phone sits down (the greeting not done) a sheet is
    refused and not taken; a tablet that sends a phone a sheet is refused
    there (only a phone sends one)."""
    t = Table()
    key = t.join("Eli", run=False)
    assert lt.link(t.host, key)["state"] == "hello"  # greeted by the tablet; no seat answered yet
    t.host, ev = lt.receive(t.host, key, json.dumps(_sheet_msg(0)), t.now)
    assert "before the phone sat down" in refusal(ev) and lt.link(t.host, key)["n_in"] == 0
    t.run()
    assert t.phones["Eli"]["seated"]
    words = refusal(t.to_phone("Eli", _sheet_msg(0)))
    assert "only the phone sends" in words


def test_the_tablet_party_takes_a_seat_sheet_only_in_place_of_its_own():
    """What the channel let through joins the tablet's party by its id
    (``party.roster.from_seat``): new, or in place of that seat's own
    character (a choice waiting on it kept); never in place of the GM's
    NPC, another game's sheet or another player's character, and never
    past the party's cap."""
    from party import roster

    t = Table()
    t.join("Eli")
    t.phones["Eli"] = lt.share_sheet(t.phones["Eli"], wu_entry())
    t.run()
    [(_, got, who)] = [ev for ev in t.events["host"] if ev[0] == "sheet"]
    party, had = roster.from_seat([], got, who, 10)
    assert had is None and [e["sheet"]["player"] for e in party] == ["Eli"]
    party[0]["waiting"] = {"spec": {}, "stages": [{}]}
    party2, had = roster.from_seat(party, got, "Eli", 11)  # sent again, later
    assert had is party[0] and party2[0]["time"] == 11 and "waiting" in party2[0]
    npc = roster.new_entry("jadeclaw", {**rules.SHEETS["jadeclaw"].EXAMPLE_SHEETS["father"]}, got["id"], 1)
    dana = roster.new_entry("jadeclaw", {**got["sheet"], "player": "Dana"}, got["id"], 1)
    other_game = roster.new_entry("alkemy", rules.SHEETS["alkemy"].EXAMPLE_SHEETS["patrick"], got["id"], 1)
    for mine in (npc, dana, other_game):
        with pytest.raises(ValueError, match="would take the place of"):
            roster.from_seat([mine], got, "Eli", 12)
    full = [roster.new_entry("jadeclaw", {"name": f"N{i}"}, f"{i:x}", 1) for i in range(roster.MAX_SHEETS)]
    with pytest.raises(roster.Full):
        roster.from_seat(full, got, "Eli", 12)


# ---------------------------------------------------------------- hostile messages

def test_hostile_messages_are_refused_and_nothing_changes():
    """Malformed, oversized, unknown, forged (a name, a verified mark, a
    push from a phone, a bogus acknowledgement), out-of-order messages:
    each refused naming the peer, the log unchanged; a message already
    taken is ignored (it changes nothing either)."""
    t = Table()
    t.join("Dana")
    e = lt.wire(t.roll("Dana"))
    t.run()
    log = json.dumps(t.host["log"])

    def roll(n, **kw):
        return {"t": "roll", "n": n, "a": 0, "r": [{"e": {**e, "id": "z1"}, **kw}]}

    hostile = [lambda n: "{not json", lambda n: "x" * (lt.MAX_MESSAGE + 1), lambda n: {"t": "shout", "n": n, "a": 0},
               lambda n: {"t": [], "n": n}, lambda n: roll(n, by="Eli"), lambda n: {**roll(n), "v": True},
               lambda n: {"t": "roll", "n": n, "a": 0, "r": [{"e": {**e, "v": 1}}]},
               lambda n: {"t": "push", "n": n, "a": 0, "y": "jadeclaw", "p": {}, "l": ""},
               lambda n: {"t": "roll", "n": n, "a": 0, "r": [{"e": {**e, "id": "z2", "g": [{"do": "roll", "draws": [9]}]}}]},
               lambda n: {"t": "roll", "n": n, "a": 0, "r": [{"e": {**e, "id": "z3", "l": "<script>" * 20}}]},
               lambda n: {**roll(n), "n": n + 1}, lambda n: {**roll(n), "a": 99}, lambda n: {"t": "ack", "a": 50},
               lambda n: {"t": "seat", "d": "A" * 12, "k": "0" * 64}, lambda n: {"t": "hello", "c": "0" * 32}]
    for make in hostile:
        n = lt.link(t.host, t.key["Dana"])["n_in"]
        assert "Dana" in plain(refusal(t.send_raw("Dana", make(n)))), make(n)
    assert json.dumps(t.host["log"]) == log
    n = lt.link(t.host, t.key["Dana"])["n_in"]
    assert t.send_raw("Dana", roll(n - 1)) == []  # taken already: ignored
    forged = {"t": "roll", "n": n, "a": 0, "r": [{"e": {**e, "g": [{"do": "roll", "draws": [1]}]}}]}
    assert "forgery" in refusal(t.send_raw("Dana", forged))  # same id, other dice
    assert json.dumps(t.host["log"]) == log


def test_a_flood_is_refused_past_the_rate_without_using_up_numbers():
    """Past RATE messages in WINDOW a message is refused, and not taken:
    the same message, sent again once the window has passed, is."""
    t = Table()
    t.join("Dana")
    x = lt.link(t.host, t.key["Dana"])
    for i in range(lt.RATE - len(x["times"])):
        assert t.send_raw("Dana", {"t": "ack", "a": 0}) == []
    e = lt.wire(t.roll("Dana"))
    msg = {"t": "roll", "n": 0, "a": 0, "r": [{"e": e}]}
    assert "messages in" in refusal(t.send_raw("Dana", msg))
    assert lt.link(t.host, t.key["Dana"])["n_in"] == 0 and t.log("host") == []
    t.now += lt.WINDOW
    assert t.send_raw("Dana", msg)[0][0] == "entry"


def test_an_honest_burst_of_35_each_way_arrives_whole_and_a_roll_12_s_later_too():
    """35 rolls on the phone and 35 on the tablet, one every 100 ms: every
    one arrives, nothing is refused, no side sends more than the rate a
    receiver takes; a roll 12 s later arrives too (the old flow lost rolls
    here and refused every message after the first refusal)."""
    t = Table()
    t.join("Dana")
    start = t.now
    for i in range(35):
        t.roll("Dana")
        t.roll("host")
        t.run(until=t.now + 100)
    t.run()
    assert len(t.log("host", "Dana")) == 35 and len(t.log("Dana", "The GM")) == 35
    assert t.now - start < 10_000
    t.now += 12_000
    t.roll("Dana")
    t.roll("host")
    t.run()
    assert len(t.log("host", "Dana")) == 36 and len(t.log("Dana", "The GM")) == 36
    assert t.refused() == [] and t.refused("Dana") == []


def test_eight_phones_bursting_at_once_each_get_every_roll():
    """Eight phones each roll 35 in 3.5 s while the tablet rolls 35: the
    tablet passes on every roll to every other phone (8 × 35 + 35 = 315
    rolls on each phone) with nothing refused anywhere."""
    t = Table()
    players = [f"P{i}" for i in range(lt.MAX_PEERS)]
    for who in players:
        t.join(who)
    for _ in range(35):
        for who in players + ["host"]:
            t.roll(who)
        t.run(until=t.now + 100)
    t.run()
    for who in players:
        assert len(t.log(who)) == 35 * 9
        assert len(t.log("host", who)) == 35
    assert all(t.refused(side) == [] for side in t.events)


def test_a_message_lost_with_its_channel_is_sent_again_on_the_next():
    """The channel drops while rolls are in flight (sent, never taken):
    they wait in the seat's queue and arrive once the phone rejoins, none
    twice; the tablet's rolls made meanwhile reach the phone too."""
    t = Table()
    t.join("Dana")
    t.roll("Dana")
    t.run()
    t.roll("Dana")
    t.phones["Dana"], texts, _ = lt.pump(t.phones["Dana"], "host", t.now)
    assert len(texts) == 1  # sent into a channel that is about to die
    t.drop("Dana")
    t.roll("Dana")
    t.roll("host")
    t.roll("host")
    t.join("Dana", phone=t.phones["Dana"])
    t.run()
    assert len(t.log("host", "Dana")) == 3 and len(t.log("Dana", "The GM")) == 2
    assert [s["name"] for s in t.host["seats"]] == ["Dana"]


def test_a_link_that_stops_answering_says_so():
    """Messages sent and not acknowledged for STALL_MS: the connection's
    state is "stalled", not "open"; once they are taken it is open again."""
    t = Table()
    t.join("Dana")
    t.roll("host")
    key = t.key["Dana"]
    t.host, texts, _ = lt.pump(t.host, key, t.now)
    assert texts and lt.status(t.host, lt.link(t.host, key), t.now) == "open"
    t.now += lt.STALL_MS
    assert lt.status(t.host, lt.link(t.host, key), t.now) == "stalled"
    t.run()
    assert lt.status(t.host, lt.link(t.host, key), t.now) == "open"


# ---------------------------------------------------------------- seats

def test_a_copied_device_id_takes_no_seat():
    """Mallory copies Dana's device id (seen nowhere now, but say he has
    it), names himself Dana and answers the next code: turned away, in
    words that name the seat; Dana's seat, connection and log are
    unchanged, her next roll and its reroll are still hers, his phone is
    told."""
    t = Table()
    t.join("Dana")
    t.roll("Dana")
    t.run()
    before = json.dumps(t.host["seats"])
    mallory = {**device.new(random.Random(7).randbytes, "Dana"), "id": t.me["Dana"]["id"]}
    t.join("Mallory", me=mallory, run=False)
    t.phones["Mallory"] = {**t.phones["Mallory"], "name": "Dana"}
    t.run()
    words = plain(refusal(t.events["host"]))
    assert "claimed Dana's seat but could not prove it" in words
    assert any(ev[0] == "bye" and "could not prove" in ev[1] for ev in t.events["Mallory"])
    assert json.dumps(t.host["seats"]) == before
    assert lt.status(t.host, lt.seat_link(t.host, t.host["seats"][0]["device"]), t.now) == "open"
    t.roll("Dana")
    t.run()
    assert len(t.log("host", "Dana")) == 2


def test_a_proof_made_for_another_connection_is_refused():
    """A phone once seated proves its seat with an HMAC over the
    challenge and both certificates: a proof relayed from another
    connection (or made with another key) is refused."""
    t = Table()
    t.join("Dana")
    t.drop("Dana")
    dana = t.phones["Dana"]
    offer, meta = t.offer()
    t.host, x = lt.add_link(t.host, answer_of(meta, "Dana", 90), offer["desc"]["f"])
    t.host = lt.opened(t.host, x["key"], t.rand.randbytes)
    t.host, [hello], _ = lt.pump(t.host, x["key"], t.now)
    c = json.loads(hello)["c"]
    relayed = lt.proof(dana["tk"], dana["table"], dana["device"], c, fp(1), fp(90))  # another tablet's cert
    t.host, ev = lt.receive(t.host, x["key"], json.dumps({"t": "seat", "d": dana["device"], "m": relayed}), t.now)
    assert "could not prove" in plain(refusal(ev))
    assert lt.seat_link(t.host, dana["device"]) is None


def test_a_seated_phone_rejoins_its_seat_with_its_proof_and_an_old_connection_is_told():
    """Dana's phone on a second connection (a second tab of it) proves its
    seat: the seat moves, the older connection gets a bye saying why."""
    t = Table()
    t.join("Dana")
    first = t.phones["Dana"]
    old_key = t.key["Dana"]
    t.join("Dana", phone=first)
    assert ("welcome", "Dana", True) in t.events["Dana"]
    assert any(ev[0] == "pushed" and ev[1] == old_key for ev in t.events["host"])
    old = lt.link(t.host, old_key)
    assert old["state"] == "gone" and old["ctl"][0]["t"] == "bye"
    assert [s["name"] for s in t.host["seats"]] == ["Dana"]


def test_look_alike_names_are_turned_away():
    """With Dana seated, "Dana" with a zero-width space, "Dаna" with a
    Cyrillic а, "dana", and a right-to-left override cannot sit: each is
    turned away, naming both; a name that only shares letters can."""
    t2 = Table()
    t2.join("Dana")
    for who in ["Da\u200bna", "D\u0430na", "dana", "\u202eDana", "ＤＡＮＡ", "The GΜ"]:
        t2.join(who)
        assert lt.seat_link(t2.host, t2.phones[who]["device"]) is None, who
        assert any(ev[0] == "bye" and "looks the same" in ev[1] for ev in t2.events[who])
    t2.join("Danae")
    assert [s["name"] for s in t2.host["seats"]] == ["Dana", "Danae"]


def test_names_are_cleaned_and_shown_isolated():
    """NFKC, no invisible or bidi-control character, each name in <bdi>."""
    assert lt.name("\u202eDana\u200b") == "Dana" and lt.name("Ｄａｎａ") == "Dana"
    with pytest.raises(lt.TableError):
        lt.name("\u200b\u202e")
    assert names.looks_alike("Dana", "D\u0430na") and not names.looks_alike("Dana", "Dina")
    r = jadeclaw_result()
    entry = {"id": "1", "by": "דנה", "how": "phone", "y": "jadeclaw", "p": r["spec"], "g": r["stages"],
             "l": "", "at": 0}
    html = lt.log_item(entry, r, "Jadeclaw", "")
    assert '<bdi class="h-by">דנה</bdi>' in html and "rolled on <bdi>דנה</bdi>" in html
    assert '<bdi class="peer-name">' in lt.peer_row("Dana", "", "open", False)


def test_seats_and_the_cap():
    """An answer for another table or an unoffered seat is refused, and one
    used already; at most MAX_PEERS phones sit."""
    t = Table()
    t.join("Dana")
    _, meta = t.offer()
    with pytest.raises(lt.TableError):
        lt.add_link(t.host, answer_of({**meta, "t": "ZZZZZZZZ"}, "Eli", 5), fp(1))
    with pytest.raises(lt.TableError):
        lt.add_link(t.host, answer_of({**meta, "s": 99}, "Eli", 5), fp(1))
    with pytest.raises(lt.TableError):
        lt.add_link(t.host, answer_of({**meta, "s": 0}, "Eli", 5), fp(1))  # seat 0's answer was used
    for i in range(1, lt.MAX_PEERS):
        t.join(f"P{i}")
    t.join("One more")
    assert len(t.host["seats"]) == lt.MAX_PEERS
    assert any(ev[0] == "bye" and "full" in ev[1] for ev in t.events["One more"])


# ---------------------------------------------------------------- fair rolls over the table

def _fair_request(player, seed=3):
    rng = random.Random(seed).randbytes
    return fair.new_request("alkemy", {}, player, existing=(), now=0, entropy=rng)


def test_a_fair_roll_from_a_phone_is_taken_only_for_a_request_sent_to_that_seat():
    """Fay plays both sides of a fair roll on her own machine, naming Eli,
    and sends its final link, then its answer: both refused, naming Fay.
    The tablet's request to Eli goes over Eli's channel; Eli's answer is
    taken; the same answer from Fay's phone is refused."""
    t = Table()
    t.join("Fay")
    t.join("Eli")
    # Fay's forgery: a whole exchange made on her machine, Eli as the player
    gm, _ = _fair_request("Eli", seed=5), None
    pl = fair.open_link(fair.request_link(gm))["state"]
    pl, answer = fair.answer(pl, entropy=random.Random(6).randbytes)
    gm_got = fair.open_link(answer, [gm])
    final = fair.reveal_link(gm_got["state"]) if gm_got["state"]["revealed"] else gm_got["reply"]
    fay = lt.link(t.phones["Fay"], "host")
    for link, why in ((final, "a phone sends only answers"), (answer, "did not send to Fay")):
        n = lt.link(t.host, t.key["Fay"])["n_in"]
        words = plain(refusal(t.send_raw("Fay", {"t": "fair", "n": n, "a": fay["n_in"], "f": link})))
        assert words.startswith("From Fay: refused") and why in words
    # the tablet's own request to Eli, over the table
    st = _fair_request("Eli", seed=8)
    t.host, dev = lt.route_fair(t.host, st["rid"], "q", "Eli")
    assert dev == t.host["seats"][1]["device"]
    t.host = lt.post(t.host, dev, "fair", f=fair.request_link(st))
    t.run()
    [(_, link)] = [ev for ev in t.events["Eli"] if ev[0] == "fair"]
    eli = fair.open_link(link)["state"]
    eli, eli_answer = fair.answer(eli, entropy=random.Random(9).randbytes)
    t.phones["Eli"], dev = lt.route_fair(t.phones["Eli"], st["rid"], "a", "Eli")
    assert dev == "host"
    n = lt.link(t.host, t.key["Fay"])["n_in"]
    assert "did not send to Fay" in plain(refusal(t.send_raw("Fay", {"t": "fair", "n": n, "a": 0, "f": eli_answer})))
    t.phones["Eli"] = lt.post(t.phones["Eli"], "host", "fair", f=eli_answer)
    t.run()
    assert ("fair", eli_answer) in t.events["host"]


@pytest.mark.parametrize("link", ["v1.s.eJyrVqpUsjLQUcpMSc0rySypBAAgPQRL", "v1.q.x", "hello", "v1.r.abc", "#t2.o.x"],
                         ids=["share-setup", "damaged-request", "text", "result", "join"])
def test_a_fair_message_that_is_not_a_fair_link_is_refused_naming_the_peer(link):
    t = Table()
    t.join("Dana")
    words = plain(refusal(t.send_raw("Dana", {"t": "fair", "n": 0, "a": 0, "f": link})))
    assert words.startswith("From Dana: refused a fair-roll message that is not a fair-roll link")


def test_a_request_link_from_a_phone_is_refused_and_a_phone_refuses_dice_it_never_asked_for():
    t = Table()
    t.join("Dana")
    req = fair.request_link(_fair_request("Dana"))
    assert "only answers" in plain(refusal(t.send_raw("Dana", {"t": "fair", "n": 0, "a": 0, "f": req})))
    gm = _fair_request("Dana", seed=11)
    pl = fair.open_link(fair.request_link(gm))["state"]
    pl, answer = fair.answer(pl, entropy=random.Random(2).randbytes)
    reveal = fair.reveal_link(fair.open_link(answer, [gm])["state"])
    phone = t.phones["Dana"]
    phone, ev = lt.receive(phone, "host", json.dumps({"t": "fair", "n": 0, "a": 0, "f": reveal}), t.now)
    assert "did not come over this table" in refusal(ev)


# ---------------------------------------------------------------- this device and storage

def test_the_two_old_device_stores_are_read_without_losing_the_key():
    """The fair rolls' old ``{"key", "name"}`` keeps its key (the
    fingerprint friends know) and name; the live table's old bare id keeps
    the id; the new form reads back as it was; damaged text gets a new
    identity and a warning."""
    key = "ab" * 16
    me, warning, changed = device.parse(json.dumps({"key": key, "name": "Dana's phone"}), entropy=bytes)
    assert (me["key"], me["name"], warning, changed) == (key, "Dana's phone", "", True)
    assert fair.device_fingerprint(me["key"]) == fair.device_fingerprint(key)
    old_id = "Xy9_abcdEFGH"
    me2, warning, changed = device.parse(old_id, entropy=random.Random(1).randbytes, name="Dana")
    assert me2["id"] == old_id and len(me2["key"]) == 32 and changed and not warning
    again, warning, changed = device.parse(device.dump(me), entropy=bytes)
    assert again == me and not changed
    for bad in ("[1]", '{"key": 5}', "{", '{"v": 1, "id": "x", "key": "' + key + '", "name": ""}'):
        _, warning, _ = device.parse(bad, entropy=bytes)
        assert "could not be read" in warning


def test_the_same_device_after_a_reload_takes_its_seat_back():
    """A phone's key for a table comes from its secret alone: after a
    reload (its identity read again from storage, its table from the
    store) it rejoins as Dana, not "Dana (2)", with the same fingerprint."""
    t = Table()
    t.join("Dana")
    stored_me = device.dump(t.me["Dana"])
    stored = lt.dump(t.phones["Dana"])
    t.drop("Dana")
    me, _, _ = device.parse(stored_me)
    phone, warning = lt.load(stored)
    assert not warning
    t.join("Dana", me=me, phone=phone)
    assert [s["name"] for s in t.host["seats"]] == ["Dana"]
    assert ("welcome", "Dana", True) in t.events["Dana"]
    assert fair.device_fingerprint(me["key"]) == fair.device_fingerprint(t.me["Dana"]["key"])


def test_stored_table_round_trips_with_its_queues():
    t = Table()
    t.join("Dana")
    t.drop("Dana")
    t.roll("host", label="Climb")
    for side in (t.host, t.phones["Dana"]):
        table, warning = lt.load(lt.dump(side))
        assert not warning and table["log"] == side["log"] and table["seats"] == [
            {**s, "out": [{k: v for k, v in i.items() if k != "x"} for i in s["out"]]} for s in side["seats"]]
    assert lt.waiting(lt.load(lt.dump(t.host))[0], t.host["seats"][0]["device"]) == 1


@pytest.mark.parametrize("change,why", [
    ({"next_slot": "x"}, "its next seat is not a number"),
    ({"table": 5}, "its table id is not one"),
    ({"seats": {}}, "its seats are not a list"),
    ({"name": ""}, "its name is not a name"),
    ({"fair": []}, "its fair rolls"),
    ({"log": "x"}, "its log is not a list"),
    ({"extra": 1}, "its fields are not a table's"),
], ids=["next-slot", "table", "seats", "name", "fair", "log", "extra"])
def test_a_damaged_stored_table_is_refused_in_words(change, why):
    """A field of the wrong kind: no table, a warning that says which
    field, in words (never a Python error)."""
    t = Table()
    stored = {**json.loads(lt.dump(t.host)), **change}
    table, warning = lt.load(json.dumps(stored))
    assert table is None and why in warning and "set aside under a backup key" in warning
    assert not re.search(r"Error|'\w+' object|concatenate|unsupported|NoneType", warning)


def test_damaged_entries_are_counted_and_an_old_store_keeps_its_log():
    t = Table()
    t.join("Dana")
    t.roll("Dana", label="Climb")
    stored = json.loads(lt.dump(t.phones["Dana"]))
    stored["log"].append({**stored["log"][0], "id": "x-1", "g": [{"do": "roll", "draws": [99]}]})
    table, warning = lt.load(json.dumps(stored))
    assert "1 table-log entry could not be read" in warning and table["log"] == t.phones["Dana"]["log"]
    old = {"role": "host", "table": "AbCdEf12", "name": "The GM", "next_slot": 3,
           "peers": [{"key": 0, "name": "Dana", "device": "dev-dana", "n_in": 0, "n_out": 0, "times": []}],
           "log": stored["log"][:1], "serial": 4}
    table, warning = lt.load(json.dumps(old))
    assert table["seats"] == [] and len(table["log"]) == 1 and table["next_slot"] == 3 and not warning
    assert lt.load("[" * 100)[0] is None and lt.load('{"role": "host"}')[0] is None


def test_a_fair_entry_is_the_only_verified_one():
    t = Table()
    r = jadeclaw_result()
    host, e = lt.fair_entry(t.host, {"result": r, "roller": "Dana", "label": "", "time": 3, "fair": "v1.v.abc"})
    assert lt.provenance(e) == "fair roll, verified" and host["log"][0] is e


def test_a_turn_in_progress_says_so_far_until_its_roller_rolls_again():
    """A roller's newest roll is the one whose turn may go on (the page
    asks the tab whether a step could still change it); their next roll
    ends it; a fair roll is never "so far"."""
    log = [{"by": "Dana", "id": "b", "how": "phone"}, {"by": "Eli", "id": "c", "how": "fair"},
           {"by": "Dana", "id": "a", "how": "phone"}, {"by": "Eli", "id": "d", "how": "phone"}]
    assert lt.turns_open(log) == {("Dana", "b")}
    r = jadeclaw_result()
    entry = {"id": "1", "by": "Dana", "how": "phone", "y": "jadeclaw", "p": r["spec"], "g": r["stages"],
             "l": "", "at": 0}
    assert "So far: " in lt.log_item(entry, r, "Jadeclaw", "", so_far=True)
    assert "So far" not in lt.log_item(entry, r, "Jadeclaw", "")


def test_log_item_escapes_every_text():
    r = jadeclaw_result()
    entry = {"id": "1", "by": "<b>x</b>", "how": "phone", "y": "jadeclaw", "p": r["spec"], "g": r["stages"],
             "l": "<img src=x onerror=alert(1)>", "at": 0}
    html = lt.log_item(entry, r, "Jadeclaw", "<i>")
    assert "<img" not in html and "<b>" not in html and "<i>" not in html
    assert 'data-by="&lt;b&gt;x&lt;/b&gt;"' in html


# ---------------------------------------------------------------- the GM's secret rolls

def milhamah_turn():
    """A Milhamah roll and a reroll of it (a step: the same roll, longer)."""
    r0 = rules.roll("milhamah", {"shoresh": "שלם"}, rng=ScriptedRng([1] * 8))
    return r0, rules.act("milhamah", r0["spec"], r0, {"do": "reroll", "dice": [0]}, rng=ScriptedRng([6]))


def test_a_secret_roll_is_hidden_on_the_phones_and_its_reveal_matches():
    """The GM rolls in secret and takes a step on it: each phone logs only
    "The GM rolled (hidden)" with one commitment per state of the roll, and
    nothing it got names the dice or the label. The reveal shows the roll
    on every phone as "revealed, matches what was rolled", with the very
    stages the tablet holds; it survives a reload of the phone's store."""
    t = Table()
    t.join("Dana")
    t.join("Eli")
    r0, r1 = milhamah_turn()
    e = t.roll("host", r0, label="The guard's Perception", secret=True)
    t.run()
    t.roll("host", r1, step=True, secret=True)
    t.run()
    assert lt.provenance(t.log("host")[0]) == "rolled in secret: the phones see only that you rolled"
    for who in ("Dana", "Eli"):
        [got] = t.log(who, "The GM")
        assert got["how"] == "hidden" and "g" not in got and "l" not in got
        assert [k for k, _ in got["c"]] == [len(r0["stages"]), len(r1["stages"])]
        html = lt.log_item(got, None, "", "")
        assert "rolled (hidden)" in html and "Perception" not in html
    wire = [ev for ev in t.events["Dana"] if ev[0] == "entry"]
    assert all(ev[2] is None for ev in wire)  # no result reached the page before the reveal
    t.host = lt.reveal(t.host, e["id"])
    t.run()
    for who in ("Dana", "Eli"):
        [got] = t.log(who, "The GM")
        assert got["how"] == "revealed" and got["g"] == r1["stages"] and got["l"] == "The guard's Perception"
        assert lt.provenance(got) == "rolled in secret on the tablet; revealed, matches what was rolled"
        assert rules.replay("milhamah", got["p"], got["g"]) == rules.replay("milhamah", r1["spec"], r1["stages"])
        again, warning = lt.load(lt.dump(t.phones[who]))
        assert not warning and again["log"] == t.phones[who]["log"]
    assert t.log("host")[0]["shown"] and t.refused("Dana") == [] and t.refused() == []


def test_a_phone_away_when_the_gm_rolled_in_secret_gets_the_commitment_before_the_reveal():
    """Dana's channel is down while the GM rolls in secret and reveals: when
    she rejoins, the commitment and the reveal arrive in that order and the
    reveal is checked against it."""
    t = Table()
    t.join("Dana")
    t.drop("Dana")
    e = t.roll("host", secret=True)
    t.host = lt.reveal(t.host, e["id"])
    t.join("Dana", phone=t.phones["Dana"])
    [got] = t.log("Dana", "The GM")
    assert got["how"] == "revealed" and len(got["c"]) == 1 and t.refused("Dana") == []


def _hidden_on(t, who):
    """The GM's secret roll, hidden on ``who``'s phone; the roll and its salt."""
    e = t.roll("host", jadeclaw_result((3, 7)), secret=True)
    t.run()
    return lt.wire(e), t.log("host")[0]["salt"]


@pytest.mark.parametrize("change,why", [
    (lambda e, s: ({**e, "g": rules.roll("jadeclaw", {"dice": [8, 8]}, rng=ScriptedRng([8, 8]))["stages"]}, s),
     "does not match"),
    (lambda e, s: (e, "ab" * 16), "does not match"),
    (lambda e, s: ({**e, "l": "Another label"}, s), "does not match"),
    (lambda e, s: ({**e, "at": e["at"] + 1}, s), "does not match"),
    (lambda e, s: ({**e, "id": "zzz"}, s), "never saw"),
    (lambda e, s: (e, "nope"), "no proper salt"),
], ids=["other-dice", "other-salt", "other-label", "other-time", "never-hidden", "bad-salt"])
def test_a_reveal_that_does_not_match_is_refused_and_the_roll_stays_hidden(change, why):
    """A tablet that sends other dice, another salt, label or time than it
    committed to, or a reveal of a roll the phone never saw hidden: refused
    naming the GM; the roll stays hidden (marked where the reveal did not
    match)."""
    t = Table()
    t.join("Dana")
    e, salt = _hidden_on(t, "Dana")
    e2, salt2 = change(e, salt)
    words = plain(refusal(t.to_phone("Dana", {"t": "roll", "n": 0, "a": 0, "r": [{"e": e2, "s": salt2}]})))
    assert words.startswith("From The GM: refused") and why in words
    [got] = t.log("Dana", "The GM")
    assert got["how"] == "hidden" and got.get("bad", False) == (why == "does not match")
    if got.get("bad"):
        assert "did not match what was rolled was refused" in lt.log_item(got, None, "", "")
    t.to_phone("Dana", {"t": "roll", "n": 0, "a": 0, "r": [{"e": e, "s": salt}]})  # the true reveal still opens it
    assert t.log("Dana", "The GM")[0]["how"] == "revealed"


def test_secret_roll_forgeries_are_refused():
    """The GM's roll shown without its reveal, a changed commitment, a
    phone that sends the tablet a "secret roll" or a reveal: refused,
    naming the sender, nothing changed."""
    t = Table()
    t.join("Dana")
    e, salt = _hidden_on(t, "Dana")
    before = json.dumps(t.phones["Dana"]["log"])
    assert "without its reveal" in refusal(t.to_phone("Dana", {"t": "roll", "n": 0, "a": 0, "r": [{"e": e}]}))
    h = {"id": e["id"], "k": 1, "c": "ab" * 32, "at": e["at"]}
    assert "changed after it was made" in refusal(t.to_phone("Dana", {"t": "roll", "n": 0, "a": 0, "r": [{"h": h}]}))
    assert json.dumps(t.phones["Dana"]["log"]) == before
    dana = lt.wire(t.roll("Dana"))
    for item in ({"h": {**h, "id": "mine"}}, {"e": dana, "s": "ab" * 16}):
        n = lt.link(t.host, t.key["Dana"])["n_in"]
        words = plain(refusal(t.send_raw("Dana", {"t": "roll", "n": n, "a": 0, "r": [item]})))
        assert words.startswith("From Dana: refused a secret roll")
    assert t.log("host", "Dana") == []


def test_a_stored_secret_roll_is_checked_again_on_load():
    """The tablet keeps its secret roll's salt and whether it was shown; a
    phone's stored revealed roll whose dice no longer fit its commitments
    is left out with a warning, like any damaged entry."""
    t = Table()
    t.join("Dana")
    e = t.roll("host", secret=True)
    host, warning = lt.load(lt.dump(t.host))
    assert not warning and host["log"][0]["salt"] == t.log("host")[0]["salt"] and not host["log"][0]["shown"]
    t.host = lt.reveal(t.host, e["id"])
    t.run()
    stored = json.loads(lt.dump(t.phones["Dana"]))
    stored["log"][0]["g"] = rules.roll("jadeclaw", {"dice": [8]}, rng=ScriptedRng([1]))["stages"]
    phone, warning = lt.load(json.dumps(stored))
    assert phone["log"] == [] and "1 table-log entry could not be read" in warning


def test_a_message_from_an_ended_connection_is_ignored_quietly():
    """Mallory is turned away; what his phone still sends before its
    channel closes, and anything on a connection already closed, raises
    no banner ("a message from no one at this table" was shown before)."""
    t = Table()
    t.join("Dana")
    mallory = {**device.new(random.Random(7).randbytes, "Mal"), "id": t.me["Dana"]["id"]}
    t.join("Mal", me=mallory)
    assert lt.link(t.host, t.key["Mal"])["state"] == "gone"
    before = len(t.events["host"])
    assert t.send_raw("Mal", {"t": "roll", "n": 0, "a": 0, "r": []}) == []
    t.host, ev = lt.receive(t.host, 999, "{}", t.now)
    assert ev == [] and len(t.events["host"]) == before


# ---------------------------------------------------------------- a tablet reload: one pairing re-admits the table

class Mesh:
    """The phones' channels to each other, as ``peers`` and ``peer``
    messages set them up through the tablet (each pair once: the phone
    that sits down later offers)."""

    def __init__(self, t):
        self.t, self.pairs, self.seen = t, set(), {who: 0 for who in t.events}

    def settle(self):
        """Act on what each phone was told: link to the phones listed
        (offer, the tablet passes it on, the other answers, passed back)."""
        t = self.t
        for _ in range(20):
            moved = False
            for who in list(t.phones):
                evs = t.events[who][self.seen.get(who, 0):]
                self.seen[who] = len(t.events[who])
                for ev in evs:
                    moved = True
                    if ev[0] == "peers":
                        for other in ev[1]:
                            if frozenset((who, other)) not in self.pairs:
                                t.phones[who] = lt.post(t.phones[who], "host", "peer", w=other, k="o", d=desc())
                    elif ev[0] == "peer" and ev[2] == "o":
                        t.phones[who] = lt.post(t.phones[who], "host", "peer", w=ev[1], k="a", d=desc())
                    elif ev[0] == "peer" and ev[2] == "a":
                        self.pairs.add(frozenset((who, ev[1])))
            t.run()
            if not moved:
                return

    def pass_on(self, offer_event, via, to, answer_as=None):
        """``via`` passes the tablet's offer (``("relay", to, f, m)``) to
        ``to`` over their channel; ``to`` (or ``answer_as``, a phone that
        answers it itself) answers, and ``via`` passes the answer back."""
        t = self.t
        assert frozenset((via, to)) in self.pairs
        _, name, f, m = offer_event
        assert name == to
        if answer_as is None:
            who, got = to, lt.passed_offer(t.phones[to], f, m)
        else:  # a second page of that phone, which answers the offer itself
            who, got = answer_as + "*", lt.decode_join(f)
            t.phones[who], t.me[who] = t.phones[answer_as], t.me[answer_as]
            t.events.setdefault(who, [])
            t.sent.setdefault(who, 0)
        phone = lt.join_again(t.phones[who], got, who, t.me[who]["id"], device.table_key(t.me[who], got["meta"]["t"]))
        t.conn += 1
        t.phones[who] = lt.player_link(phone, got["desc"]["f"], fp(t.conn))
        answer = lt.encode_join("a", {**desc(), "f": fp(t.conn)}, {"t": got["meta"]["t"], "s": got["meta"]["s"],
                                                                   "w": t.phones[who]["name"]})
        t.phones[via] = lt.post(t.phones[via], "host", "relay", f=lt.passed_answer(t.phones[via], answer))
        before = len(t.events["host"])
        t.run()
        [(_, back)] = [ev for ev in t.events["host"][before:] if ev[0] == "relay-answer"]
        t.host, x = lt.add_link(t.host, lt.decode_join(back), got["desc"]["f"])
        t.key[who] = x["key"]
        t.host = lt.opened(t.host, x["key"], t.rand.randbytes)
        t.phones[who] = lt.opened(t.phones[who], "host", t.rand.randbytes)
        t.run()


def reload_tablet(t):
    """The tablet's page reloads: its table read back from its store, every
    channel to it gone (the phones' channels to each other stay)."""
    t.host, warning = lt.load(lt.dump(t.host))
    assert not warning
    for who in t.phones:
        t.phones[who] = lt.closed(t.phones[who], "host")


def offers_out(t):
    """The tablet makes a fresh offer for each away seat and passes it on
    through every connected phone (as the page does when a phone sits
    down); the relay events each phone got."""
    away, via = lt.relay_wanted(t.host)
    seen = {who: len(t.events[who]) for who in t.phones}
    for dev in away:
        offer, _ = t.offer()
        t.host = lt.relay_offer(t.host, dev, lt.encode_join("o", offer["desc"], offer["meta"]))
    t.run()
    return {who: [ev for ev in t.events[who][seen[who]:] if ev[0] == "relay"] for who in t.phones}


def test_after_a_tablet_reload_one_pairing_re_admits_the_whole_table():
    """Four phones sit down and link to each other through the tablet
    (6 channels). The tablet reloads: every phone is away. Ana scans its
    new code (one pairing, two scans); the tablet passes offers for the
    other three through her, each tagged under that seat's key; each phone
    checks the tag, answers, and proves its seat on the new channel (so
    each is "back", under its own name). Nothing is refused, and rolls
    made while they were away arrive."""
    t = Table()
    mesh = Mesh(t)
    players = ["Ana", "Ben", "Cy", "Di"]
    for who in players:
        t.join(who)
        mesh.seen.setdefault(who, 0)
        mesh.settle()
    assert len(mesh.pairs) == 6
    reload_tablet(t)
    assert all(lt.seat_link(t.host, s["device"]) is None for s in t.host["seats"])
    t.roll("Ben")
    t.roll("host")
    t.join("Ana", phone=t.phones["Ana"])  # the one pairing
    relayed = offers_out(t)
    assert [ev[1] for ev in relayed["Ana"]] == ["Ben", "Cy", "Di"] and not relayed["Ben"]
    for ev in relayed["Ana"]:
        mesh.pass_on(ev, "Ana", ev[1])
    for who in players:
        assert ("welcome", who, True) in t.events[who]
        assert lt.status(t.host, lt.seat_link(t.host, t.phones[who]["device"]), t.now) == "open"
    assert [s["name"] for s in t.host["seats"]] == players
    assert len(t.log("host", "Ben")) == 1 and len(t.log("Ben", "The GM")) == 1
    assert all(t.refused(side) == [] for side in t.events)
    mesh.settle()
    assert len(mesh.pairs) == 6  # the phones' channels stood: none made again


def test_a_phone_that_passes_codes_on_cannot_take_a_seat_with_them():
    """Ana, who passes the tablet's offers on, answers Ben's offer herself:
    the tablet seats on that channel only Ben's phone, so she is turned
    away and Ben's seat is unchanged. A code she makes up for Ben (her
    own, or the tablet's code for Cy with Cy's tag) is refused on Ben's
    phone: its tag does not fit. An answer passed back for a seat the
    tablet never passed on, and a link between phones that is damaged, are
    refused naming her; one naming a phone not at the table is dropped."""
    t = Table()
    mesh = Mesh(t)
    for who in ("Ana", "Ben", "Cy"):
        t.join(who)
        mesh.seen.setdefault(who, 0)
        mesh.settle()
    reload_tablet(t)
    t.join("Ana", phone=t.phones["Ana"])
    relayed = offers_out(t)["Ana"]
    ben_offer, cy_offer = relayed
    mesh.pass_on(ben_offer, "Ana", "Ben", answer_as="Ana")
    assert "passed on for Ben but is not that phone" in plain(refusal(t.events["host"]))
    ben_dev = t.phones["Ben"]["device"]
    assert lt.seat_link(t.host, ben_dev) is None and [s["name"] for s in t.host["seats"]] == ["Ana", "Ben", "Cy"]
    with pytest.raises(lt.TableError, match="tag does not fit"):
        lt.passed_offer(t.phones["Ben"], cy_offer[2], cy_offer[3])
    own, _ = t.offer()
    with pytest.raises(lt.TableError, match="tag does not fit"):
        lt.passed_offer(t.phones["Ben"], lt.encode_join("o", own["desc"], own["meta"]), "ab" * 32)
    mesh.pass_on(cy_offer, "Ana", "Cy")  # Cy's own offer still brings Cy back
    assert ("welcome", "Cy", True) in t.events["Cy"]
    stray = lt.encode_join("a", desc(), {"t": t.host["table"], "s": own["meta"]["s"], "w": "Ana"})
    n = lt.link(t.host, t.key["Ana"])["n_in"]
    assert "did not pass on" in refusal(t.send_raw("Ana", {"t": "relay", "n": n, "a": 0, "f": stray}))
    n += 1
    assert "damaged" in refusal(t.send_raw("Ana", {"t": "peer", "n": n, "a": 0, "w": "Cy", "k": "o", "d": {"u": 1}}))
    n += 1
    assert t.send_raw("Ana", {"t": "peer", "n": n, "a": 0, "w": "Nobody", "k": "o", "d": desc()}) == []


def test_a_connected_phone_ignores_a_passed_on_offer_and_nothing_passed_on_is_stored():
    """A phone connected to the tablet takes no passed-on offer (it needs
    none); links between phones and passed-on codes are not kept in the
    store (a reload ends the channels they are for), nor counted as
    waiting for a seat."""
    t = Table()
    mesh = Mesh(t)
    for who in ("Ana", "Ben"):
        t.join(who)
        mesh.seen.setdefault(who, 0)
        mesh.settle()
    offer, _ = t.offer()
    frag = lt.encode_join("o", offer["desc"], offer["meta"])
    ben = t.phones["Ben"]
    assert lt.passed_offer(ben, frag, lt.relay.relay_tag(ben["tk"], frag)) is None
    dev = t.host["seats"][1]["device"]
    t.host = lt.post(t.host, dev, "relay", w="Ana", f=frag, m="ab" * 32)
    assert lt.waiting(t.host, dev) == 0
    assert '"relay"' not in json.dumps(json.loads(lt.dump(t.host))["seats"])
