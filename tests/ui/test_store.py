"""The history store (static/py/records/store.py): an entry keeps
only what replays its roll, and replaying gives the whole result back; the
cap drops the oldest visibly; a damaged store keeps what is sound; stores
and exports of the first version are read and converted; an import says
how many rolls were new and how many were already there; the filter."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

import cases
import rules
from fairrolls import fair
from records import store
from rules.dice import SpecError

DATA = Path(__file__).resolve().parent / "data"


def entry(t, system="jadeclaw", **kw):
    return {"system": system, "time": t, "label": "", "roller": "", "source": "here",
            "spec": {"dice": [8]}, "stages": [{"do": "roll", "draws": [t % 8 + 1]}], **kw}


# ---------------------------------------------------------------- a realistic history

#: Realistic rolls per game and the step a player would take
#: (``cases.STORE_SPECS``, ``cases.store_step``).
SPECS = cases.every("STORE_SPECS")
STEPS = cases.every("store_step")


def results(n, seed=1):
    """``n`` rolls, every game in turn, each spec of the game in turn,
    with the step a player would take (seeded)."""
    r = random.Random(seed)
    out = []
    k = len(rules.SYSTEMS)
    for i in range(n):
        system = rules.SYSTEMS[i % k]
        specs = SPECS[system]
        spec = specs[(i // k) % len(specs)]
        res = rules.roll(system, spec, r, advise=False)  # a stored roll keeps its dice, not the advice
        action = STEPS[system](res)
        if action is not None:
            res = rules.act(system, spec, res, action, r, advise=False)
        out.append(res)
    return out


def history(n, seed=1):
    return [store.new_entry(res, time=1_760_000_000_000 + i * 60_000, roller="Dana Levi",
                            label="Etgar — Spirit Gust" if i % 3 == 0 else "")
            for i, res in enumerate(results(n, seed))][::-1]


def old_export(n, seed=1) -> str:
    """The same rolls as the first version exported them: the whole result
    in each entry, indented (the format this page first wrote)."""
    entries = [{"system": res["system"], "result": res, "label": "", "time": 1_760_000_000_000 + i}
               for i, res in enumerate(results(n, seed))]
    return json.dumps({"app": "dice-table", "v": 1, "entries": entries, "setups": []},
                      ensure_ascii=False, indent=1)


def test_a_stored_roll_replays_to_the_whole_result():
    """Every roll of a 100-roll history (every game, steps taken) goes
    through the store's text and back, and replaying it gives exactly the
    result the rules gave when it was rolled."""
    rolled = results(100)
    entries = [store.new_entry(r, time=i) for i, r in enumerate(rolled)]
    loaded, warning = store.load(store.dump(entries))
    assert warning is None and len(loaded) == 100
    for r, e in zip(rolled, loaded):
        assert "result" not in e and "dice" not in e
        assert store.replay(e) == r
    assert {r["system"] for r in rolled} == set(rules.SYSTEMS)
    assert sum(len(r["stages"]) > 1 for r in rolled) >= 20  # steps are part of it


#: Bytes a roll may take in an export. An entry is its normalized spec (the
#: largest, an opposed Milhamah roll or a Jadeclaw roll with every modifier
#: key written out, is 500-700 bytes), its draws (8-30 numbers a stage),
#: the time, label, roller and source (about 100 bytes). 1 kB a roll leaves
#: room for a longer label; the version-1 format took 3-10 kB.
BYTES_PER_ROLL = 1000


def test_an_export_costs_well_under_a_kilobyte_a_roll():
    """111 rolls (a long evening's history) export in under 111 kB, against the
    first version's whole results (measured here about 3.8 kB a roll for
    this mix; 10 kB a roll in a Milhamah-heavy history a player exported)."""
    n = 111
    text = store.export_text(history(n), [])
    per_roll = len(text.encode()) / n
    old_per_roll = len(old_export(n).encode()) / n
    print(f"export: {per_roll:.0f} bytes a roll (version 1: {old_per_roll:.0f})")
    assert per_roll < BYTES_PER_ROLL
    assert old_per_roll > 5 * per_roll
    stored = len(store.dump(history(n)).encode()) / n
    assert stored < BYTES_PER_ROLL


def test_a_full_history_stays_far_below_the_storage_limits():
    """200 rolls (the cap) in well under the 5 MB localStorage gives most
    browsers, and under the reader's own limit."""
    text = store.dump(history(store.CAP))
    assert len(text.encode("utf-16-le")) < 500_000  # localStorage counts UTF-16 units
    assert len(store.load(text)[0]) == store.CAP


def test_dump_keeps_neither_the_page_id_nor_a_result_in_memory():
    e = {**store.new_entry(results(1)[0], time=5), "id": 7, "result": {"outcome": "success"}}
    stored = json.loads(store.dump([e]))["entries"][0]
    assert set(stored) == {"system", "spec", "stages", "time", "label", "roller", "source"}


# ---------------------------------------------------------------- the cap, damage, versions

def test_cap_drops_oldest_and_says_how_many():
    entries = []
    dropped = 0
    for t in range(store.CAP + 5):
        entries, d = store.add(entries, entry(t))
        dropped += d
    assert len(entries) == store.CAP and dropped == 5
    assert entries[0]["time"] == store.CAP + 4 and entries[-1]["time"] == 5


def test_damaged_store_keeps_the_sound_entries():
    bad_source = entry(3, source="forged")
    long_label = entry(4, label="x" * (store.LABEL_MAX + 1))
    fair_without_link = entry(5, source="fair")
    text = json.dumps({"v": 2, "entries": [entry(1), {"system": "x"}, "junk", entry(2), bad_source,
                                           long_label, fair_without_link, entry(6, stages=[])]})
    good, warning = store.load(text)
    assert [e["time"] for e in good] == [1, 2]
    assert "6 stored roll(s) could not be read" in warning


def test_an_entry_whose_dice_do_not_fit_still_shows_what_it_can():
    """Dice off their die pass the shape check (the page shows the entry's
    game, time, label and roller) and are refused when replayed."""
    off = entry(1, stages=[{"do": "roll", "draws": [9]}])
    good, warning = store.load(store.dump([off]))
    assert warning is None and good[0]["label"] == ""
    with pytest.raises(SpecError):
        store.replay(good[0])


def test_newer_version_is_refused():
    good, warning = store.load(json.dumps({"v": store.VERSION + 1, "entries": [entry(1)]}))
    assert good == [] and "newer version" in warning


# ---------------------------------------------------------------- the first version

def test_a_version_1_store_is_read_and_converted():
    """A store written by the first version (tests/ui/data, made by that
    version's store.dump): every entry is kept, in the stored form, and
    replays to the result it held; "Shared link" becomes the source."""
    text = (DATA / "history-v1-store.json").read_text()
    old = json.loads(text)["entries"]
    good, warning = store.load(text)
    assert warning is None and len(good) == len(old) == 5
    for e, o in zip(good, old):
        assert set(e) == {"system", "spec", "stages", "time", "label", "roller", "source"}
        replayed = store.replay(e)
        assert replayed["stages"] == o["result"]["stages"]
        assert [d["face"] for d in replayed["dice"]] == [d["face"] for d in o["result"]["dice"]]
        assert replayed["outcome"] == o["result"]["outcome"]
    assert [e["source"] for e in good] == ["here", "here", "shared", "here", "here"]
    assert good[2]["label"] == "" and good[4]["label"] == "Wu — climb"
    assert len(store.dump(good)) < len(text) / 4
    assert store.load(store.dump(good)) == (good, None)


def test_a_version_1_export_imports():
    text = (DATA / "history-v1-export.json").read_text()
    entries, setups, msg = store.import_text(text, [], [])
    assert len(entries) == 5 and len(setups) == 1
    assert msg == "Imported 5 roll(s) and 1 saved setup(s)."
    again = store.import_text(store.export_text(entries, setups), entries, setups)
    assert again[0] == entries and again[2].startswith("Nothing new: the 5 roll(s)")


def test_a_bare_list_store_is_read():
    good, warning = store.load(json.dumps([entry(1), entry(2)]))
    assert len(good) == 2 and warning is None


# ---------------------------------------------------------------- import

def test_reimporting_ones_own_export_says_they_were_already_there():
    mine = history(12)
    setups = store.save_setup([], "jadeclaw", "Wu", {"dice": [12]})
    text = store.export_text(mine, setups)
    merged, new_setups, msg = store.import_text(text, mine, setups)
    assert merged == mine and new_setups == setups
    assert msg == "Nothing new: the 12 roll(s) in that file are already in your history."


def test_an_import_says_how_many_were_new_and_how_many_were_there():
    mine = history(5)
    theirs = history(8)  # the same five and three more (same seed, same times)
    merged, _, msg = store.import_text(store.export_text(theirs, []), mine, [])
    assert len(merged) == 8
    assert msg == ("Imported 3 roll(s) and 0 saved setup(s). 5 roll(s) were already in your history "
                   "and were not added twice.")


def test_the_same_roll_twice_in_a_file_is_added_once():
    one = history(1)
    merged, _, msg = store.import_text(store.export_text(one + one, []), [], [])
    assert len(merged) == 1 and "1 roll(s) were already" in msg


def test_the_key_ignores_label_roller_and_a_float_time():
    e = history(1)[0]
    assert store.key(e) == store.key({**e, "label": "renamed", "roller": "Wu", "time": float(e["time"])})
    assert store.key(e) != store.key({**e, "time": e["time"] + 1})


def test_a_shared_result_opened_twice_is_one_roll():
    """The same result link opened at two times (a reload keeps the link
    in the address) is one roll; two rolls of one spec with the same dice
    at two times are two."""
    e = history(1)[0]
    shared = {**e, "source": "shared"}
    assert store.key(shared) == store.key({**shared, "time": e["time"] + 5})
    assert store.key(e) != store.key({**e, "time": e["time"] + 5})


def test_a_fair_roll_from_the_gm_and_from_the_player_is_one_roll():
    """The GM's page and the player's page each add the verified roll at
    their own time; both carry the same final link, so merging their
    exports keeps one."""
    gm = fair.new_request("jadeclaw", {"dice": [12]}, "Dana", entropy=random.Random(1).randbytes)
    pl = fair.open_link(fair.request_link(gm), [])["state"]
    pl, a = fair.answer(pl, entropy=random.Random(2).randbytes)
    got = fair.open_link(a, [gm], now=5)
    mine = store.compact({**got["entry"], "time": 5})
    theirs = store.compact({**fair.open_link(got["reply"], [pl], now=9)["entry"], "time": 9})
    assert mine["source"] == theirs["source"] == "fair" and mine["roller"] == "Dana"
    merged, _, msg = store.import_text(store.export_text([theirs], []), [mine], [])
    assert merged == [mine] and msg.startswith("Nothing new")


def test_export_carries_the_requests_and_the_roller():
    e = history(2)
    text = store.export_text(e, [], [{"v": 1, "rid": "ab"}])
    data = store.read_export(text)
    assert data["requests"] == [{"v": 1, "rid": "ab"}] and data["entries"][0]["roller"] == "Dana Levi"


def test_export_import_round_trip_merges_without_duplicates():
    mine = [entry(3), entry(2)]
    setups = store.save_setup([], "jadeclaw", "Wu", {"dice": [12]})
    text = store.export_text(mine, setups)
    merged, new_setups, msg = store.import_text(text, [entry(2), entry(9)], [])
    assert [e["time"] for e in merged] == [9, 3, 2]
    assert new_setups == setups
    assert msg.startswith("Imported 1 roll(s) and 1 saved setup(s). 1 roll(s) were already")


def test_import_of_garbage_changes_nothing():
    mine = [entry(1)]
    for bad in ("[]", '{"entries": 5}', "x" * 10, json.dumps({"v": 99, "entries": []}),
                '{"entries": [], "setups": 3}', 7):
        merged, setups, msg = store.import_text(bad, mine, [])
        assert merged == mine and setups == [] and "nothing was changed" in msg


# ---------------------------------------------------------------- the filter

def test_the_filter_by_game_and_by_name():
    entries = [entry(1, "mirage", roller="Dana", label="Etgar — Spirit Gust"),
               entry(2, "jadeclaw", roller="Wu"),
               entry(3, "mirage", roller="Wu", label="Fair roll: Dana — climb"),
               entry(4, "alkemy")]
    times = lambda es: [e["time"] for e in es]  # noqa: E731
    assert times(store.filtered(entries)) == [1, 2, 3, 4]
    assert times(store.filtered(entries, "mirage")) == [1, 3]
    assert times(store.filtered(entries, "", "dana")) == [1, 3]
    assert times(store.filtered(entries, "", "  ETGAR ")) == [1]
    assert times(store.filtered(entries, "jadeclaw", "dana")) == []
    assert times(store.filtered(entries, "mirage", "wu")) == [3]
    assert times(store.filtered(entries, "", "spirit gust")) == [1]


def test_a_turn_is_one_entry_that_goes_on():
    """One turn, one entry: a step of the turn an entry holds continues it
    (same game, spec, the entry's stages first); the entry then holds the
    whole turn, keeps its place, time, label and roller, and replays to
    the final result. Another roll, a shared entry or an older step does
    not continue it; an entry stored before this change still loads."""
    spec = SPECS["milhamah"][1]
    r = rules.roll("milhamah", spec, random.Random(3), advise=False)
    e = store.new_entry(r, time=5, label="Etgar", roller="Dana")
    r2 = rules.act("milhamah", spec, r, {"do": "stand"}, random.Random(4), advise=False)
    assert store.continues(e, r2)
    assert not store.continues(e, r) and not store.continues(e, rules.roll("milhamah", spec, random.Random(3)))
    assert not store.continues({**e, "source": "shared"}, r2)
    assert not store.continues(store.new_entry(r2), r)
    entries = [entry(1), e, entry(2)]
    after = store.advance(entries, 1, r2)
    assert [x["time"] for x in after] == [1, 5, 2] and after[1]["label"] == "Etgar" and after[1]["roller"] == "Dana"
    assert store.replay(after[1]) == r2 and entries[1]["stages"] == r["stages"]
    loaded, warning = store.load(store.dump(after))
    assert warning is None and store.replay(loaded[1]) == r2
