"""Fair rolls, second pass: a request bound to the device that
answers first, in words both pages can show; the GM voiding a wrong answer
and asking again; a choice of play fixed in the first answer ("play my turn
by the advice", "I take no steps") so the GM's page finishes the turn with
no further round trip; derived moves instead of "your turn" links; and the
hand-off counts docs/FAIR-ROLLS.md's table states, each played here.

Every exchange passes link strings between pages (``test_fair.Device``),
with fixed entropy, as test_fair.py does.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from test_fair import MILHAMAH, Device, kind, refused, repack

import rules
from fairrolls import fair
from links import share
from rules.dice import ScriptedRng

HANDOFFS = Path(__file__).resolve().parents[2] / "docs" / "FAIR-ROLLS.md"
MIL2 = {**MILHAMAH, "rounds": 2}
OPPOSED = {"shoresh": "אשר", "rerolls": 2, "opponent": {"shoresh": "שלם", "rerolls": 2}}


def device(seed: int, name: str) -> dict:
    """A page's device: a name and a random key (kept on the device)."""
    return {"name": name, "key": fair.device_key(random.Random(seed).randbytes)}


DANA, EVE = device(1, "Dana's phone"), device(2, "Eve's tablet")


def answer(page: Device, rid: str, dev=DANA, mode=None) -> str:
    return page._do(fair.answer, rid, entropy=page.entropy, device=dev, mode=mode)


def step(page: Device, rid: str, action, mode=None) -> str:
    return page._do(fair.step, rid, action, entropy=page.entropy, mode=mode)


class Table:
    """A GM's page and a player's page, counting every link handed over."""

    def __init__(self, system, spec, seed=1):
        self.gm, self.pl = Device(seed), Device(seed + 1)
        self.handoffs = []
        self.rid, q = self.gm.ask(system, spec, "Dana", "test")
        self.hand(q)
        self.pl.open(q)

    def hand(self, link):
        self.handoffs.append(kind(link))
        return link

    def to_gm(self, link):
        got = self.gm.open(self.hand(link))
        return got

    def to_player(self, link):
        return self.pl.open(self.hand(link))


# --------------------------------------------------------------------------
# The answer names its device; the GM sees who answered before the dice go.

def test_the_answer_carries_the_device_name_and_key_fingerprint():
    """The first answer carries this device's name and the fingerprint of its
    key (two words and a number), never the key; the GM's page names that
    device in its note, its view and the state it keeps, before it sends
    any dice; the final link carries it to anyone."""
    t = Table("milhamah", MILHAMAH)
    a = answer(t.pl, t.rid)
    m = share.decode(a)["data"]["m"]
    assert m["a"] == "Dana's phone" and m["f"] == fair.device_fingerprint(DANA["key"])
    assert re.fullmatch(r"[a-z]+-[a-z]+-\d\d", m["f"]) and DANA["key"] not in a
    got = t.to_gm(a)
    assert got["note"].startswith(f"Answered by Dana's phone ({m['f']}).") and kind(got["reply"]) == "d"
    assert fair.view(got["state"])["answered_by"] == {"name": "Dana's phone", "fingerprint": m["f"]}
    assert share.decode(got["reply"])["data"]["b"] == {"a": "Dana's phone", "f": m["f"]}


def test_a_device_fingerprint_depends_on_the_key_alone():
    """The same key always gives the same fingerprint; other keys, others
    (of 1000 random keys, nearly all distinct)."""
    keys = [fair.device_key(random.Random(i).randbytes) for i in range(1000)]
    prints = [fair.device_fingerprint(k) for k in keys]
    assert prints == [fair.device_fingerprint(k) for k in keys]
    assert len(set(prints)) > 990


# --------------------------------------------------------------------------
# A second device answers first.

def second_device_first(system="milhamah", spec=MILHAMAH):
    """Eve's device answers the request link first; Dana's answer comes
    second. (gm, dana, eve, rid, the GM's link for Eve, Dana's answer)."""
    gm, dana, eve = Device(11), Device(12), Device(13)
    rid, q = gm.ask(system, spec, "Dana")
    dana.open(q)
    eve.open(q)
    reply = gm.open(answer(eve, rid, EVE))["reply"]
    late = answer(dana, rid, DANA)
    return gm, dana, eve, rid, reply, late


def test_a_second_answer_is_named_in_plain_words_on_the_gms_page():
    """The GM's page refuses Dana's answer as a second answer, naming the
    device that answered first and this one; never as tampering."""
    gm, dana, _eve, rid, _reply, late = second_device_first()
    e = refused(gm, late, fair.AlreadyAnswered, "Another device already answered this request: "
                "Eve's tablet \\(.+\\). This answer came from Dana's phone \\(.+\\). If that was the wrong "
                "person, tap “Wrong person\\? Void and ask again”")
    assert "tamper" not in e.replace("Nothing was tampered with", "")


@pytest.mark.parametrize("mode", [None, "none"], ids=["dice link", "final link"])
def test_a_second_answer_is_named_in_plain_words_on_the_players_page(mode):
    """Dana's page opens what the GM sent for Eve's answer (a dice link, or
    at once the final link): refused in the same plain words, naming Eve's
    device; not reported as a changed field."""
    gm2, dana2, eve2 = Device(21), Device(22), Device(23)
    rid2, q = gm2.ask("milhamah", MILHAMAH, "Dana")
    dana2.open(q)
    eve2.open(q)
    link = gm2.open(answer(eve2, rid2, EVE, mode))["reply"]
    answer(dana2, rid2, DANA)
    assert kind(link) == ("d" if mode is None else "v")
    e = refused(dana2, link, fair.AlreadyAnswered,
                "Another device already answered this request: Eve's tablet \\([a-z]+-[a-z]+-\\d\\d\\)\\. "
                "Ask the GM for a new one\\.")
    assert "changed on the way" not in str(e)
    assert fair.status(eve2.open(link)["state"]) in ("rolled", "verified")  # Eve's own page takes it


def test_a_changed_device_claim_in_a_dice_link_is_refused():
    """The dice link's claim of who answered is checked against the page's
    own answer: changed to another device it is refused as another device's
    answer; dropped, as a changed link."""
    t = Table("milhamah", MILHAMAH)
    d = t.to_gm(answer(t.pl, t.rid))["reply"]
    other = {"a": "Eve's tablet", "f": fair.device_fingerprint(EVE["key"])}
    refused(t.pl, repack(d, lambda x: x.update(b=other)), fair.AlreadyAnswered, "Another device")
    refused(t.pl, repack(d, lambda x: x.pop("b")), fair.Tampered, "changed on the way")


def test_the_gm_voids_and_asks_again_and_the_real_player_completes_the_roll():
    """One move voids the request Eve answered and makes a new one for the
    same roll, naming the old one; every link of the old one is refused as
    voided; Dana's page marks her old request voided when it opens the new
    one, and her roll on the new request is verified by her page and by a
    third party."""
    gm, dana, eve, rid, reply, _late = second_device_first()
    old, new, q2 = fair.reissue(gm.get(rid, "gm"), existing=gm.requests, now=5, entropy=gm.entropy)
    gm.put(old)
    gm.put(new)
    assert old["voided"] and fair.status(old) == "voided" and fair.view(old)["link"] is None
    q2_data = share.decode(q2)["data"]
    assert q2_data["r"] == rid and q2_data["p"] == gm.get(rid, "gm")["msgs"][0]["p"] and q2_data["w"] == "Dana"
    refused(gm, fair.last_link(eve.get(rid, "player")), fair.Voided, "voided")
    with pytest.raises(fair.Voided):
        fair.reveal(old)
    got = dana.open(q2)
    assert "asks again for a request the GM voided" in got["note"]
    assert [s["rid"] for s in got["also"]] == [rid] and got["also"][0]["voided"]
    dana.put(got["also"][0])
    with pytest.raises(fair.Voided):
        answer(dana, rid)
    final = gm.open(answer(dana, new["rid"], DANA, "none"))["reply"]
    assert kind(final) == "v"
    mine = dana.open(final)
    assert mine["note"] == "Fair roll, verified ✓"
    third = Device(99).open(final)["verified"]
    assert third["answered_by"]["name"] == "Dana's phone" and third["result"] == mine["verified"]["result"]
    # a revealed roll may be voided too (the GM saw who answered with its final link): the
    # final link still verifies, and the next request names the one it replaces
    done, again, q3 = fair.reissue(gm.get(new["rid"], "gm"), existing=gm.requests, entropy=gm.entropy)
    assert done["voided"] and done["revealed"] and share.decode(q3)["data"]["r"] == new["rid"]
    assert Device(97).open(final)["note"] == "Fair roll, verified ✓"
    with pytest.raises(fair.Voided):
        fair.reissue(done)


def test_a_changed_replaces_field_breaks_the_commitment():
    """The id of the voided request is part of what the GM commits to."""
    gm = Device(31)
    st = fair.new_request("jadeclaw", {"dice": [8]}, "Dana", replaces="0123456789ab", entropy=gm.entropy)
    assert fair.commitment(st["msgs"][0], st["secret"]) == st["msgs"][0]["c"]
    changed = {**st["msgs"][0], "r": "ba9876543210"}
    assert fair.commitment(changed, st["secret"]) != st["msgs"][0]["c"]


# --------------------------------------------------------------------------
# Play fixed in the first answer: by the advice, or no steps.

def test_no_steps_takes_three_hand_offs_and_rolls_only_the_roll():
    """'I take no steps': the GM's page rolls, ends the player's turn and
    reveals at once; the result is the roll alone, verified by both."""
    t = Table("milhamah", MIL2)
    got = t.to_gm(answer(t.pl, t.rid, mode="none"))
    assert kind(got["reply"]) == "v"
    mine = t.to_player(got["reply"])
    assert mine["note"] == "Fair roll, verified ✓"
    assert [s["do"] for s in mine["verified"]["result"]["stages"]] == ["roll"]
    assert t.handoffs == ["q", "a", "v"]


def advised_stages(system, spec, stages):
    """Best play's step after each prefix of ``stages``, worked out here from
    the replayed result's own keys (``best_reroll``, or ``advice`` once the
    rules give it): the stages an advised turn must consist of."""
    out = []
    for i in range(1, len(stages)):
        r = rules.replay(system, spec, stages[:i])
        want = r.get("advice") if "advice" in r else (
            {"do": "reroll", "dice": r["best_reroll"]} if r.get("best_reroll") else None)
        out.append(want)
    return out


@pytest.mark.parametrize("seed", [1, 3, 5, 7])
def test_by_the_advice_the_gm_page_plays_the_turn_and_both_pages_agree(seed):
    """'Play my turn by the advice': the GM's page plays every advised step
    from the committed dice and reveals; each step is best play's step on
    the dice before it; the player's page and a third party verify it (each
    works the advice out again); the turn took three hand-offs."""
    t = Table("milhamah", MIL2, seed)
    final = t.to_gm(answer(t.pl, t.rid, mode="advice"))["reply"]
    assert kind(final) == "v"
    mine = t.to_player(final)
    assert mine["note"] == "Fair roll, verified ✓"
    result = mine["verified"]["result"]
    stages = result["stages"]
    actions = [{k: v for k, v in s.items() if k != "draws"} for s in stages[1:]]
    assert actions == advised_stages("milhamah", result["spec"], stages)[:len(actions)]
    after = rules.replay("milhamah", result["spec"], stages)
    assert not after.get("best_reroll") or "reroll" not in (after.get("allowed") or ())
    assert t.handoffs == ["q", "a", "v"]
    assert Device(98).open(final)["verified"]["result"] == result


def test_the_advised_steps_are_the_same_whoever_works_them_out():
    """With scripted dice standing in for the fair stream, fair.player_advice
    gives the step the rules advise through their public keys."""
    spec = rules.normalize("milhamah", MIL2)
    r = rules.roll("milhamah", spec, ScriptedRng([1, 2, 3, 4, 5, 6, 7, 8]))
    want = r.get("advice") if "advice" in r else (
        {"do": "reroll", "dice": r["best_reroll"]} if r.get("best_reroll") else None)
    assert fair.player_advice("milhamah", spec, r) == want


def test_a_gm_who_drops_the_choice_of_play_is_caught_by_the_players_page():
    """A GM's page that rolls the answer as if no choice of play were in it
    (to choose the steps itself) must change the answer it reveals: the
    player's page refuses the final link."""
    t = Table("milhamah", MIL2, 41)
    a = answer(t.pl, t.rid, mode="advice")
    plain = repack(a, lambda x: x["m"].pop("t"))
    d = t.gm.open(plain)["reply"]
    st, final = fair.reveal(t.gm.get(t.rid, "gm"))
    assert kind(d) == "d"
    refused(t.pl, final, fair.Tampered, "differs from the roll as your page has it")


def test_a_step_can_end_the_turn_in_the_same_link():
    """Two reroll rounds: the player rerolls once and says 'then end my
    turn' in the same link: the GM's page rolls it and reveals (five
    hand-offs, not seven)."""
    t = Table("milhamah", MIL2, 51)
    d = t.to_gm(answer(t.pl, t.rid))["reply"]
    t.to_player(d)
    final = t.to_gm(step(t.pl, t.rid, {"do": "reroll", "dice": [0]}, mode="none"))["reply"]
    assert kind(final) == "v"
    result = t.to_player(final)["verified"]["result"]
    assert [s["do"] for s in result["stages"]] == ["roll", "reroll"]
    assert t.handoffs == ["q", "a", "d", "a", "v"]


def test_play_on_by_the_advice_after_seeing_the_dice():
    """After seeing the dice, 'play the rest by the advice' (no step of my
    own): the GM's page plays it out and reveals."""
    t = Table("milhamah", MIL2, 61)
    t.to_player(t.to_gm(answer(t.pl, t.rid))["reply"])
    with pytest.raises(fair.StepRefused):
        fair.step(t.pl.get(t.rid, "player"), None)  # neither a step nor a choice of play
    final = t.to_gm(step(t.pl, t.rid, None, mode="advice"))["reply"]
    assert kind(final) == "v" and t.to_player(final)["note"] == "Fair roll, verified ✓"


def test_opposed_the_dice_and_the_gms_step_travel_in_one_link():
    """Opposed Milhamah, the player by the advice: the GM's page plays the
    player's turn, the turn passes by itself (no "your turn" link), the GM's
    step goes with the dice in one link; the player's page answers with
    the seed; five hand-offs."""
    t = Table("milhamah", OPPOSED, 71)
    got = t.to_gm(answer(t.pl, t.rid, mode="advice"))
    assert got["reply"] is None and fair.view(got["state"])["gm_may_step"]
    opp = fair.view(t.gm.get(t.rid, "gm"))["result"]["opponent"]
    g = t.gm.gm_step(t.rid, {"do": "reroll", "side": "opponent", "dice": [0]})
    t.hand(g)
    msgs = share.decode(g)["data"]["m"]
    assert [m["k"] for m in msgs][-1] == "g" and msgs[0]["k"] == "d"
    t.pl.open(g)
    seed = t.pl._do(fair.answer, t.rid, entropy=t.pl.entropy)
    final = t.to_gm(seed)["reply"]
    assert kind(final) == "v" and t.to_player(final)["note"] == "Fair roll, verified ✓"
    assert t.handoffs == ["q", "a", "d", "a", "v"] and opp


def test_stored_states_with_derived_moves_load_and_a_changed_one_does_not():
    """A page's stored requests keep the derived moves; a derived move
    changed in storage is refused on load."""
    t = Table("milhamah", MIL2, 81)
    t.to_gm(answer(t.pl, t.rid, mode="advice"))
    good, warning = fair.load_requests(fair.dump_requests(t.gm.requests))
    assert warning is None and good == t.gm.requests
    st = t.gm.get(t.rid, "gm")
    u = next(i for i, m in enumerate(st["msgs"]) if m["k"] == "u")
    bad = {**st, "msgs": st["msgs"][:u] + [{"k": "u"}] + st["msgs"][u + 1:]}
    assert fair.load_requests(fair.dump_requests([bad]))[0] == []


# --------------------------------------------------------------------------
# The hand-off table of docs/FAIR-ROLLS.md, played.

def _handoff_table():
    text = HANDOFFS.read_text(encoding="utf-8")
    block = text[text.index("**Hand-offs**"):]
    rows = re.findall(r"^\| ([^|]+?) \| (\d+) \| (\d+) \| `([a-z ]+)` \|$", block, re.M)
    return {name.strip(): (int(before), int(now), links.split()) for name, before, now, links in rows}


def _advised_turn(t, dev, fast):
    """The player's turn by the advice: fixed in the answer (``fast``), or
    as the first pass played it: each advised step sent on its own, then
    Done (``dev`` None: an answer that names no device)."""
    got = t.to_gm(answer(t.pl, t.rid, dev, "advice" if fast else None))
    if fast:
        return got
    while got["reply"] is not None and kind(got["reply"]) == "d":
        st = t.to_player(got["reply"])["state"]
        v = fair.view(st)
        if not v["player_may_step"]:
            return {**got, "reply": None}  # delivered
        action = fair.player_advice("milhamah", v["spec"], v["result"])
        link = step(t.pl, t.rid, action) if action else t.pl.pass_turn(t.rid)
        got = t.to_gm(link)
    return got


def _gm_reacts(t, got, dev):
    """The GM rerolls the opponent's first die; the player's page answers
    with the seed; the final link."""
    if got["reply"] is not None:
        t.to_player(got["reply"])
    if dev is None and not fair.view(t.gm.get(t.rid, "gm"))["gm_may_step"]:
        got = t.to_gm(t.pl.pass_turn(t.rid))  # the first pass: a "your turn" link
    t.to_player(t.gm.gm_step(t.rid, {"do": "reroll", "side": "opponent", "dice": [0]}))
    return t.to_gm(t.pl._do(fair.answer, t.rid, entropy=t.pl.entropy))


def _play(name, fast=True):
    """Each row of the hand-off table played: the links handed over, in order. ``fast``
    False: the same play as the first pass made it (no device named, no
    choice of play, a Done link for every turn that could go on)."""
    dev = DANA if fast else None
    if name.startswith("No step possible"):
        t = Table("jadeclaw", {"dice": [8, 6]})
        got = t.to_gm(answer(t.pl, t.rid, dev))
    elif name.startswith("Steps possible, none taken"):
        t = Table("milhamah", MIL2)
        got = t.to_gm(answer(t.pl, t.rid, dev, "none" if fast else None))
        if not fast:
            t.to_player(got["reply"])
            got = t.to_gm(t.pl.pass_turn(t.rid))
    elif name.startswith("By the advice"):
        t = Table("milhamah", MIL2, 3)
        got = _advised_turn(t, dev, fast)
    elif name.startswith("One step chosen"):
        t = Table("milhamah", MIL2, 51)
        t.to_player(t.to_gm(answer(t.pl, t.rid, dev))["reply"])
        got = t.to_gm(step(t.pl, t.rid, {"do": "reroll", "dice": [0]}, mode="none" if fast else None))
        if not fast:
            t.to_player(got["reply"])
            got = t.to_gm(t.pl.pass_turn(t.rid))
    elif name.startswith("Two steps chosen"):
        t = Table("milhamah", {**MIL2, "rounds": 3}, 52)
        t.to_player(t.to_gm(answer(t.pl, t.rid, dev))["reply"])
        t.to_player(t.to_gm(step(t.pl, t.rid, {"do": "reroll", "dice": [0]}))["reply"])
        got = t.to_gm(step(t.pl, t.rid, {"do": "reroll", "dice": [1]}, mode="none" if fast else None))
        if not fast:
            t.to_player(got["reply"])
            got = t.to_gm(t.pl.pass_turn(t.rid))
    else:  # opposed, the player by the advice, the GM steps for the opponent
        t = Table("milhamah", OPPOSED, 71)
        got = _gm_reacts(t, _advised_turn(t, dev, fast), dev)
    t.to_player(got["reply"])
    assert fair.status(t.pl.get(t.rid, "player")) == "verified"
    return t.handoffs


def test_the_hand_off_table_is_what_the_pages_do():
    """Every row of the hand-off table (docs/FAIR-ROLLS.md), played through the two pages:
    the links handed over are the row's; a roll with no step taken, or
    played by the advice, takes three."""
    if not HANDOFFS.exists():  # under Pyodide only the code is copied in; CPython checks the docs
        pytest.skip("docs/FAIR-ROLLS.md is not in this file system")
    table = _handoff_table()
    assert len(table) == 6
    for name, (before, now, links) in table.items():
        assert _play(name) == links and len(links) == now, name
        assert len(_play(name, fast=False)) == before, name
    assert all(now <= 3 for name, (_b, now, _l) in table.items()
               if name.startswith(("No step", "Steps possible", "By the advice")))


def test_the_turn_passes_by_itself_when_only_the_gm_may_step():
    """Opposed Milhamah, one reroll round: after the player's reroll the
    rules leave the player no step and the GM one; the GM's page takes the
    turn with no "your turn" link from the player."""
    t = Table("milhamah", OPPOSED, 91)
    t.to_player(t.to_gm(answer(t.pl, t.rid))["reply"])
    got = t.to_gm(step(t.pl, t.rid, {"do": "reroll", "dice": [0]}))
    assert got["reply"] is None and fair.view(got["state"])["gm_may_step"]
    assert [m["k"] for m in got["state"]["msgs"]][-3:] == ["s", "d", "u"]
    assert fair.status(t.pl.get(t.rid, "player")) == "answered" and t.handoffs == ["q", "a", "d", "a"]


@pytest.mark.parametrize("system, spec", [
    ("milhamah", MIL2),
    ("mirage", {"attribute": 8, "skill": 6, "gear": [6], "prayer_bonus": 1}),
    ("alkemy", {"characteristic": 5, "bonus": 2, "difficulty": 12}),
    ("alkemy", {"characteristic": 5, "bonus": 1, "opponent": {"characteristic": 5, "bonus": 1}}),
], ids=["milhamah", "mirage prayer", "alkemy bonus", "alkemy opposed"])
@pytest.mark.parametrize("mode", ["advice", "none"])
def test_every_system_with_steps_finishes_the_turn_from_the_answer(system, spec, mode):
    """With a choice of play in the answer, no system waits for the player
    again: the GM's page reveals at once, or (the GM having a step of its
    own) waits for the GM; the player's page verifies the final link."""
    for seed in (1, 2, 3):
        t = Table(system, spec, 100 + seed)
        got = t.to_gm(answer(t.pl, t.rid, mode=mode))
        if got["reply"] is None:  # the GM's own step (the opponent's keep) or reveal
            assert fair.view(got["state"])["gm_may_step"]
            _st, final = fair.reveal(got["state"])
        else:
            final = got["reply"]
        assert kind(final) == "v"
        assert t.pl.open(final)["note"] == "Fair roll, verified ✓"
