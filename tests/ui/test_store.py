"""The history store (static/py/store.py): the cap drops the oldest
visibly, a damaged store keeps what is sound, export/import round-trips."""

import json

import store


def entry(t, system="jadeclaw"):
    return {"system": system, "time": t, "label": "",
            "result": {"spec": {"dice": [8]}, "stages": [{"do": "roll", "draws": [t % 8 + 1]}], "dice": [], "outcome": "scored"}}


def test_cap_drops_oldest_and_says_how_many():
    entries = []
    dropped = 0
    for t in range(store.CAP + 5):
        entries, d = store.add(entries, entry(t))
        dropped += d
    assert len(entries) == store.CAP and dropped == 5
    assert entries[0]["time"] == store.CAP + 4 and entries[-1]["time"] == 5


def test_damaged_store_keeps_the_sound_entries():
    text = json.dumps({"v": 1, "entries": [entry(1), {"system": "x"}, "junk", entry(2)]})
    good, warning = store.load(text)
    assert [e["time"] for e in good] == [1, 2]
    assert "2 stored roll(s) could not be read" in warning


def test_newer_version_is_refused():
    good, warning = store.load(json.dumps({"v": store.VERSION + 1, "entries": [entry(1)]}))
    assert good == [] and "newer version" in warning


def test_export_import_round_trip_merges_without_duplicates():
    mine = [entry(3), entry(2)]
    setups = store.save_setup([], "jadeclaw", "Wu", {"dice": [12]})
    text = store.export_text(mine, setups)
    merged, new_setups, msg = store.import_text(text, [entry(2), entry(9)], [])
    assert [e["time"] for e in merged] == [9, 3, 2]
    assert new_setups == setups
    assert msg.startswith("Imported 1 roll(s) and 1 saved setup(s)")


def test_import_of_garbage_changes_nothing():
    mine = [entry(1)]
    for bad in ("[]", '{"entries": 5}', "x" * 10, json.dumps({"v": 99, "entries": []})):
        merged, setups, msg = store.import_text(bad, mine, [])
        assert merged == mine and setups == [] and "nothing was changed" in msg
