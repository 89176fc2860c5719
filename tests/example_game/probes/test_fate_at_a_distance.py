"""The proof's own checks in the copy (tests/test_sixth_game.py writes
this file there; it is no part of the recipe): a fair roll at a distance
with the new game's step, through ``fairrolls.fair``'s public functions as
tests/ui/test_fair.py plays them, and its outcomes coloured by their rank."""

from __future__ import annotations

import random

import rules
from drawing import views
from fairrolls import fair
from tabs import ui_fate


class Device:
    """One page's stored requests (both roles) and its history."""

    def __init__(self, seed: int):
        self.requests: list = []
        self.history: list = []
        self.entropy = random.Random(seed).randbytes

    def put(self, st):
        self.requests = [st] + [s for s in self.requests if (s["role"], s["rid"]) != (st["role"], st["rid"])]

    def get(self, rid, role):
        return next(s for s in self.requests if s["rid"] == rid and s["role"] == role)

    def open(self, link):
        got = fair.open_link(link, self.requests, now=1)
        if got["state"] is not None:
            self.put(got["state"])
        if got["entry"] is not None:
            self.history.append(got["entry"])
        return got


def _asked(spec, seed, mode=None):
    """The GM asks, the player rolls (the answer naming the player's
    device, and how the turn is played): (gm, player, rid, the GM's reply)."""
    gm, player = Device(seed), Device(seed + 1)
    st = fair.new_request("fate", spec, "Dana", "probe", existing=gm.requests, now=1, entropy=gm.entropy)
    gm.put(st)
    player.open(fair.request_link(st))
    device = {"name": "Dana's phone", "key": fair.device_key(player.entropy)}
    st, link = fair.answer(player.get(st["rid"], "player"), device=device, mode=mode, now=1,
                           entropy=player.entropy)
    player.put(st)
    return gm, player, st["rid"], gm.open(link)["reply"]


def test_a_fair_roll_with_the_invoke_is_verified():
    """The rolled result's ``allowed`` opens the player's step (``open_steps``
    reads it: no table of games), the invoke travels with its seed, the GM's
    page reveals, and the player and a third party verify the turn."""
    gm, player, rid, dice = _asked({"skill": 1, "difficulty": 4}, 11)
    st = player.open(dice)["state"]
    rolled = fair.view(st)["result"]
    assert rolled["allowed"] == [{"do": "invoke"}] and fair.open_steps(rolled) == (True, False)
    assert fair.view(st)["player_may_step"]
    st, link = fair.step(st, {"do": "invoke"}, now=1, entropy=player.entropy)
    player.put(st)
    reveal = gm.open(link)["reply"]
    mine = player.open(reveal)
    assert mine["note"] == "Fair roll, verified ✓"
    result = mine["verified"]["result"]
    assert [s["do"] for s in result["stages"]] == ["roll", "invoke"] and result["allowed"] == []
    assert fair.open_steps(result) == (False, False)
    assert [d["history"][0] for d in result["dice"]] == [d["face"] for d in rolled["dice"]]
    third = Device(99).open(reveal)
    assert third["note"] == "Fair roll, verified ✓" and third["verified"]["result"] == result
    again = rules.replay("fate", result["spec"], result["stages"])
    assert (again["value"], again["outcome"]) == (result["value"], result["outcome"])


def test_a_fair_roll_played_by_the_advice_invokes_where_it_says():
    """Played by the advice, the turn invokes exactly where ``rules.advise``
    says so for the first roll (found by trying seeds until both happen)."""
    seen = set()
    for seed in range(40):
        gm, player, rid, reveal = _asked({"skill": 2, "difficulty": 2}, 100 + seed, mode="advice")
        result = player.open(reveal)["verified"]["result"]
        first = rules.replay("fate", result["spec"], result["stages"][:1])
        invoked = len(result["stages"]) == 2
        assert invoked == (first["advice"] is not None)
        seen.add(invoked)
        if seen == {True, False}:
            return
    raise AssertionError(f"only {seen} in 40 turns")


def test_its_outcomes_are_coloured_by_their_rank():
    """Bands from ``OUTCOMES``, worst to best, in the tab's outcome line."""
    bands = [views.outcome_band("fate", o) for o in rules.OUTCOMES["fate"]]
    assert bands == ["outcome-band-0", "outcome-band-1", "outcome-band-3", "outcome-band-4"]
    r = rules.roll("fate", {"skill": 0, "difficulty": 8}, random.Random(1))
    assert r["outcome"] == "fail" and 'class="outcome outcome-band-0"' in ui_fate.render_result(r, {})
