"""Two tabs of the page writing one stored key (static/py/records/synced.py):
whatever order they roll, step, delete, save and hear each other in,
nothing either tab added is lost, every step taken is kept, and what one
tab deleted stays deleted. Checked by playing two tabs against one stored
text, as the page does (read, merge, write), and for each stored key of the
page: the history, the setups, the fair requests and the table's log."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rules
from records import store
from records.synced import Synced, merge
from rules.dice import ScriptedRng

# ---------------------------------------------------------------- a model of two tabs

#: A stored item: its identity and how far it went (a turn's steps).
LOAD = (lambda text: (json.loads(text) if text else [], None))


def items_synced():
    return Synced(LOAD, lambda v: json.dumps(v), lambda x: x["k"],
                  pick=lambda mine, theirs: theirs if theirs["n"] > mine["n"] else mine)


class Tab:
    """One tab of the page: its list, its Synced, and the browser's store
    (shared by both tabs)."""

    def __init__(self, disk):
        self.disk, self.kept = disk, items_synced()
        self.items, _ = self.kept.read(disk["text"])

    def save(self):
        """page.save_synced: read what is stored, merge, write."""
        self.items, _ = self.kept.merged(self.items, self.disk["text"])
        out = self.kept.dump(self.items)
        self.disk["text"] = out
        self.kept.remember(out, self.items)

    def hear(self):
        """The ``storage`` event: another tab's write merged in."""
        self.items, _ = self.kept.merged(self.items, self.disk["text"])


OPS = st.lists(st.tuples(st.sampled_from(["add", "step", "delete", "save", "hear"]), st.integers(0, 1),
                         st.integers(0, 50)), max_size=40)


@settings(max_examples=300, deadline=None)
@given(OPS)
def test_two_tabs_lose_nothing_whoever_saves_last(ops):
    """Each tab adds items, steps them on (``n`` grows), deletes some, and
    saves or hears the other at random; at the end both save. The store
    then holds every item either added and no tab deleted, each as far as
    any tab took it, and both tabs hold what is stored. (A deletion racing
    the other tab's step may lose to the step: a step is never lost.)"""
    disk = {"text": None}
    tabs = [Tab(disk), Tab(disk)]
    furthest, deleted, serial = {}, set(), 0
    for op, who, pick in ops:
        tab = tabs[who]
        if op == "add":
            serial += 1
            key = f"{who}-{serial}"
            tab.items = [{"k": key, "n": 0}] + tab.items
            furthest[key] = 0
        elif op in ("step", "delete") and tab.items:
            item = tab.items[pick % len(tab.items)]
            if op == "step":
                stepped = {"k": item["k"], "n": furthest[item["k"]] + 1}
                tab.items = [stepped if x is item else x for x in tab.items]
                furthest[item["k"]] = stepped["n"]
            else:
                tab.items = [x for x in tab.items if x is not item]
                deleted.add(item["k"])
        elif op == "save":
            tab.save()
        elif op == "hear":
            tab.hear()
    tabs[0].save()
    tabs[1].save()
    tabs[0].hear()
    got = {x["k"]: x["n"] for x in json.loads(disk["text"])}
    assert set(furthest) - deleted <= set(got), "an item was lost"
    for k in set(furthest) - deleted:
        assert got[k] == furthest[k], f"{k}: stored at step {got[k]}, but a tab took it to {furthest[k]}"
    assert {x["k"]: x["n"] for x in tabs[0].items} == got == {x["k"]: x["n"] for x in tabs[1].items}


def test_a_deletion_stays_deleted():
    """Tab A deletes an item tab B never changed: after B saves, it is gone."""
    disk = {"text": json.dumps([{"k": "a", "n": 0}, {"k": "b", "n": 0}])}
    a, b = Tab(disk), Tab(disk)
    a.items = [x for x in a.items if x["k"] != "a"]
    a.save()
    b.items = [{"k": "c", "n": 0}] + b.items
    b.save()
    assert [x["k"] for x in json.loads(disk["text"])] == ["c", "b"]


def test_a_tab_that_never_read_keeps_the_other_tabs_rolls():
    """The first report's case: A stores 3 rolls; B, opened before them,
    rolls 3 and saves without having heard anything: all six are kept."""
    disk = {"text": None}
    a, b = Tab(disk), Tab(disk)
    for i in range(3):
        a.items = [{"k": f"a{i}", "n": 0}] + a.items
        a.save()
    for i in range(3):
        b.items = [{"k": f"b{i}", "n": 0}] + b.items
        b.save()
    assert sorted(x["k"] for x in json.loads(disk["text"])) == ["a0", "a1", "a2", "b0", "b1", "b2"]


def test_ahead_only_when_this_tab_holds_more():
    """A tab answers another's write only when it holds something the
    written list lacks: never for the same items in another order (two
    tabs would write back and forth for ever)."""
    kept = items_synced()
    kept.read(json.dumps([{"k": "a", "n": 0}, {"k": "b", "n": 0}]))
    kept.merged([{"k": "a", "n": 0}, {"k": "b", "n": 0}], json.dumps([{"k": "b", "n": 0}, {"k": "a", "n": 0}]))
    assert not kept.ahead
    kept.merged([{"k": "c", "n": 0}, {"k": "b", "n": 0}, {"k": "a", "n": 0}],
                json.dumps([{"k": "b", "n": 0}, {"k": "a", "n": 1}]))
    assert kept.ahead  # "c" is only here
    kept.merged([{"k": "b", "n": 0}], json.dumps([{"k": "b", "n": 0}, {"k": "a", "n": 1}, {"k": "d", "n": 0}]))
    assert kept.ahead  # "a" was deleted here (it is as this tab last saw it)
    kept.merged([{"k": "b", "n": 0}], json.dumps([{"k": "b", "n": 0}, {"k": "e", "n": 0}]))
    assert not kept.ahead


def test_merge_keeps_the_changed_side():
    base = {"x": json.dumps(1)}
    ident = (lambda v: "x")
    assert merge(base, [1], [2], ident, form=json.dumps) == [2]
    assert merge(base, [2], [1], ident, form=json.dumps) == [2]
    assert merge(base, [2], [3], ident, form=json.dumps) == [2]  # both changed: this tab's, by default


# ---------------------------------------------------------------- the page's stored keys

def _turn(system, spec, draws, time):
    r = rules.roll(system, spec, ScriptedRng(draws))
    return r, store.new_entry(r, time=time)


def test_history_two_tabs_and_a_turn_that_went_on():
    """The stored history: A rolls a Milhamah turn and rerolls it (one
    entry, two stages); B, which read the store before the reroll, rolls a
    Jadeclaw and saves: A's entry is kept with its reroll, B's is added,
    newest first."""
    first, entry = _turn("milhamah", {"shoresh": "אשר", "pool": ["red"]}, [1, 2, 3, 4], 100)
    disk = store.dump([entry])
    a, b = store.synced_history(), store.synced_history()
    mine_a, _ = a.read(disk)
    mine_b, _ = b.read(disk)
    later = rules.act("milhamah", first["spec"], first, {"do": "reroll", "dice": [0]}, ScriptedRng([5]))
    mine_a = store.advance(mine_a, 0, later)
    disk = a.dump(mine_a)
    a.remember(disk, mine_a)
    _, jade = _turn("jadeclaw", {"dice": [8]}, [6], 200)
    merged, _ = b.merged([jade] + mine_b, disk)
    assert [e["system"] for e in merged] == ["jadeclaw", "milhamah"]
    assert merged[1]["stages"] == later["stages"]
    assert store.load(b.dump(merged))[0] == [store.compact(e) for e in merged]


def test_setups_two_tabs():
    a, b = store.synced_setups(), store.synced_setups()
    a.read(None)
    b.read(None)
    mine = store.save_setup([], "jadeclaw", "Wu", {"dice": [12]})
    text = a.dump(mine)
    a.remember(text, mine)
    merged, _ = b.merged(store.save_setup([], "mirage", "Etgar", {}), text)
    assert sorted(s["name"] for s in merged) == ["Etgar", "Wu"]


def test_fair_requests_two_tabs_keep_the_further_copy():
    """The GM's two tabs both hold a request; one answered it further: that
    copy is kept, and a request only the other tab made is kept too."""
    from fairrolls import fair

    gm = fair.new_request("jadeclaw", {"dice": [8]}, "Dana", "", existing=[], now=1)
    other = fair.new_request("mirage", {}, "Eli", "", existing=[gm], now=2)
    text = fair.dump_requests([gm])
    a, b = fair.synced_requests(), fair.synced_requests()
    a.read(text)
    b.read(text)
    player = fair.open_link(fair.request_link(gm), [], now=3)["state"]
    player, answer = fair.answer(player, now=4)
    went_on = fair.open_link(answer, [gm], now=5)["state"]
    mine = [went_on]
    stored_a = a.dump(mine)
    a.remember(stored_a, mine)
    merged, _ = b.merged([other, gm], stored_a)
    assert {(s["rid"], len(s["msgs"])) for s in merged} == {(other["rid"], 1), (gm["rid"], len(went_on["msgs"]))}


def test_table_log_two_tabs():
    """The live table's log: two tabs at one table each log a roll while
    neither had seen the other's: both are kept, newest first; a roll that
    one tab took a step further is kept with its steps; the tablet's next
    seat number is the higher of the two."""
    import os

    from table import livetable as lt

    table = lt.new_host("GM", os.urandom)
    text = lt.dump(table)
    a, b = lt.synced_table(), lt.synced_table()
    ta, tb = a.read(text)[0], b.read(text)[0]
    ta, first = lt.own_entry(ta, rules.roll("jadeclaw", {"dice": [8]}, ScriptedRng([3])), "", 10, os.urandom)
    tb, other = lt.own_entry(tb, rules.roll("jadeclaw", {"dice": [6]}, ScriptedRng([2])), "", 11, os.urandom)
    assert first["id"] != other["id"]
    out = a.dump(ta)
    a.remember(out, ta)
    merged, _ = b.merged({**tb, "next_slot": 2}, out)
    assert [e["at"] for e in merged["log"]] == [11, 10] and merged["next_slot"] == 2
    assert lt.load(b.dump(merged))[0]["log"] == merged["log"]
    # tab a takes a Milhamah roll a step further; tab b still holds its first stage
    roll = rules.roll("milhamah", {"shoresh": "אשר", "pool": {"red": 1}, "rerolls": 1}, ScriptedRng([5]))
    ta, started = lt.own_entry(ta, roll, "", 12, os.urandom)
    out = a.dump(ta)
    a.remember(out, ta)
    tb, _ = b.merged(tb, out)
    stepped = rules.act("milhamah", roll["spec"], roll, {"do": "reroll", "dice": [0]}, ScriptedRng([7]))
    ta, again = lt.own_entry(ta, stepped, "", 13, os.urandom, step=True)
    assert again["id"] == started["id"] and len(again["g"]) == 2
    merged, _ = b.merged(tb, a.dump(ta))
    kept = [e for e in merged["log"] if e["id"] == started["id"]]
    assert len(kept) == 1 and len(kept[0]["g"]) == 2


@pytest.mark.parametrize("seed", range(5))
def test_a_merge_of_random_histories_keeps_every_roll(seed):
    """Two tabs' histories of random rolls (every game), each added to on
    its side of one stored base: the merge holds exactly the union, newest
    first, none twice."""
    rnd = random.Random(seed)
    base, t = [], 0

    def roll():
        nonlocal t
        t += rnd.randint(1, 1000)
        system = rnd.choice(rules.SYSTEMS)
        return store.new_entry(rules.roll(system, rules.default_spec(system), rnd, advise=False), time=t)

    base = [roll() for _ in range(5)][::-1]
    kept = store.synced_history()
    kept.read(store.dump(base))
    theirs = [roll() for _ in range(rnd.randint(0, 6))][::-1] + base
    mine = [roll() for _ in range(rnd.randint(0, 6))][::-1] + base
    merged, _ = kept.merged(mine, store.dump(theirs))
    keys = [store.key(e) for e in merged]
    assert len(keys) == len(set(keys))
    assert set(keys) == {store.key(store.compact(e)) for e in mine + theirs}
    assert [e["time"] for e in merged] == sorted((e["time"] for e in merged), reverse=True)
