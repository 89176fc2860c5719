"""The party's pure modules (static/py/party): the stored party (kept,
merged across two tabs, read back with every sheet checked), the party and
the sheet's editor as HTML, and the editor's controls read back into the
very sheet they show, for every game's rules-text characters."""

from __future__ import annotations

import json
from html.parser import HTMLParser

import pytest

import rules
from links import share
from party import roster, view

EXAMPLES = [(system, key) for system in rules.SYSTEMS for key in rules.SHEETS[system].EXAMPLE_SHEETS]
XSS = '<img src=x id="pwned" onerror="window.__pwned=1">'


def entry(system, key, sheet_id="a1", time=1):
    return roster.new_entry(system, rules.SHEETS[system].EXAMPLE_SHEETS[key], sheet_id, time)


class Form(HTMLParser):
    """The fields a browser's form would hold for this HTML (name ->
    [values], as FormData gives them): text and number boxes, ticked
    boxes, each select's selected option (else its first)."""

    def __init__(self, html):
        super().__init__()
        self.fields, self.select, self.options = {}, None, []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "input" and a.get("name"):
            if a.get("type") == "checkbox":
                self.fields.setdefault(a["name"], [])
                if "checked" in a:
                    self.fields[a["name"]].append(a.get("value", "on"))
            else:
                self.fields.setdefault(a["name"], []).append(a.get("value", ""))
        elif tag == "select":
            self.select, self.options = a["name"], []
        elif tag == "option" and self.select:
            self.options.append((a.get("value", ""), "selected" in a))

    def handle_endtag(self, tag):
        if tag == "select" and self.select:
            chosen = [v for v, on in self.options if on] or [self.options[0][0]]
            self.fields[self.select] = chosen
            self.select = None


@pytest.mark.parametrize("system, key", EXAMPLES)
def test_the_editor_reads_back_the_sheet_it_shows(system, key):
    """Every field of a game's sheet has a control, filled with the sheet's
    value, and reading the controls back gives the same sheet."""
    sheet = rules.normalize_sheet(system, rules.SHEETS[system].EXAMPLE_SHEETS[key])
    fields = Form(view.editor_html(system, sheet)).fields
    assert rules.normalize_sheet(system, view.read_sheet(system, fields)) == sheet


@pytest.mark.parametrize("system", rules.SYSTEMS)
def test_a_new_sheet_is_only_its_name_away(system):
    """The editor of an empty sheet, with a name typed, gives a valid sheet."""
    fields = Form(view.editor_html(system, {"name": ""})).fields
    fields["name"] = ["Anyone"]
    assert rules.normalize_sheet(system, view.read_sheet(system, fields))["name"] == "Anyone"


def test_the_editor_reads_rows_in_order_and_a_removed_one_is_gone():
    fields = Form(view.editor_html("jadeclaw", {"name": "W", "skills": [{"name": "A"}, {"name": "B"}, {"name": "C"}]})).fields
    del_b = {k: v for k, v in fields.items() if not k.startswith("skills.1.")}
    assert [s["name"] for s in view.read_sheet("jadeclaw", del_b)["skills"]] == ["A", "C"]


@pytest.mark.parametrize("system", rules.SYSTEMS)
def test_the_situation_as_it_opens_is_each_checks_default(system):
    """The situation's fields as drawn, untouched, roll each check exactly
    as ``rules.check_spec`` with no situation does."""
    sheet = rules.normalize_sheet(system, next(iter(rules.SHEETS[system].EXAMPLE_SHEETS.values())))
    html = view.party_html(system, [{"id": "a1", "system": system, "time": 1, "sheet": sheet}], {"selected": "a1"})
    start = html.index('<form id="party-situation"')
    fields = Form(html[start:html.index("</form>", start)]).fields
    situation = view.read_situation(system, fields)
    for c in rules.sheet_checks(system, sheet):
        assert rules.check_spec(system, sheet, c["name"], situation) == rules.check_spec(system, sheet, c["name"])


def test_the_party_carries_the_markers_and_escapes_every_name():
    wu = entry("jadeclaw", "wu")
    father = entry("jadeclaw", "father", "b2")
    evil = roster.new_entry("jadeclaw", {"name": XSS[:40], "npc": True, "skills": [{"name": XSS[:40]}]}, "c3", 1)
    html = view.party_html("jadeclaw", [wu, father, evil], {"selected": "a1", "against": "b2"})
    assert 'data-character="Wu Shousu"' in html and 'data-character="Wu&#x27;s father" data-sheet="b2" data-npc=""' in html
    assert 'data-check="Fast-Talk"' in html and 'data-against="b2"' in html and 'data-against-check="Psychology"' in html
    assert "<img" not in html and "&lt;img" in html
    assert "<img" not in view.party_html("jadeclaw", [evil], {"selected": "c3"})


def test_what_a_check_applies_is_shown_beside_it():
    scout = roster.new_entry("mirage", {**rules.SHEETS["mirage"].EXAMPLE_SHEETS["scout"], "conditions": ["battered"]},
                             "a1", 1)
    html = view.party_html("mirage", [scout], {"selected": "a1"})
    might = html[html.index('data-check="Might"'):]
    assert "<strong>−1</strong>: 1 physical Condition (Battered)" in might[:might.index("</li></ul>")]


def test_words_for_a_roll_and_its_consequence():
    assert view.roll_label({"name": "Wu Shousu"}, "Fast-Talk") == "Wu Shousu: Fast-Talk"
    before = rules.normalize_sheet("alkemy", {"name": "Patrick"})
    assert view.changes_text("alkemy", before, {**before, "health": "red"}) == \
        "Recorded on Patrick: Health (the dice's colour): Red."
    assert view.changes_text("alkemy", before, before) == ""


# ---------------------------------------------------------------- the stored party

def test_the_store_round_trips_and_keeps_deletions():
    party = [entry("jadeclaw", "wu"), entry("alkemy", "patrick", "b2")]
    gone = [{"id": "ff", "time": 3}]
    assert roster.load(roster.dump(party, gone)) == (party, gone, None)


@pytest.mark.parametrize("text, words", [
    ("{not json", "not valid JSON"),
    ("[" * 5000 + "]" * 5000, "not valid JSON"),
    (json.dumps({"v": 99, "sheets": []}), "newer version"),
    (json.dumps({"v": 1, "sheets": {}}), "unknown shape"),
    ("x" * (roster.MAX_TEXT + 1), "too large"),
], ids=["not-json", "deep", "newer", "shape", "huge"])
def test_an_unreadable_store_starts_afresh_and_says_why(text, words):
    party, gone, warning = roster.load(text)
    assert (party, gone) == ([], []) and words in warning


def test_unsound_sheets_are_skipped_the_sound_ones_kept():
    good = entry("jadeclaw", "wu")
    items = [good, {**good, "id": "b2", "sheet": {"name": "", "skills": 5}}, {**good, "id": "<b>"},
             {**good, "id": "c3", "system": "chess"}, {**good, "id": "d4", "time": "soon"}, XSS, None]
    party, gone, warning = roster.load(json.dumps({"v": 1, "sheets": items, "gone": [{"id": XSS}, 5]}))
    assert party == [good] and gone == [] and warning.startswith("6 stored character sheet(s)")


def test_two_tabs_merge_rather_than_overwrite():
    """Each tab's new sheet survives; a sheet changed in both keeps the
    later change; a deletion wins over an older change, not a newer one."""
    wu, father, mai = entry("jadeclaw", "wu", "a1", 1), entry("jadeclaw", "father", "b2", 1), entry("jadeclaw", "mai_li", "c3", 1)
    tab1 = [wu, {**father, "time": 5, "sheet": {**father["sheet"], "player": "GM"}}]
    tab2 = [wu, father, mai]
    merged, gone = roster.merge(tab1, [], tab2, [])
    assert [e["id"] for e in merged] == ["a1", "b2", "c3"] and merged[1]["sheet"]["player"] == "GM"
    merged, gone = roster.merge(tab2, [], *roster.remove(tab1, [], "a1", 4))
    assert [e["id"] for e in merged] == ["b2", "c3"] and gone == [{"id": "a1", "time": 4}]
    later = {**wu, "time": 9}
    assert [e["id"] for e in roster.merge([later], [], [], gone)[0]] == ["a1"]


def test_the_party_is_bounded():
    party = [entry("alkemy", "patrick", f"{i:x}", 1) for i in range(roster.MAX_SHEETS)]
    with pytest.raises(roster.Full):
        roster.put(party, entry("alkemy", "ghulam", "fff"))
    assert roster.put(party, {**party[0], "time": 2})[0]["time"] == 2


def test_an_import_adds_new_and_newer_sheets_and_never_removes():
    wu = entry("jadeclaw", "wu", "a1", 1)
    items = roster.export_items([{**wu, "time": 3}, entry("alkemy", "patrick", "b2", 1)]) + [{"id": "zz"}]
    party, fresh, bad = roster.import_items(items, [wu, entry("mirage", "scout", "c3")], [])
    assert (len(party), fresh, bad) == (3, 2, 1) and roster.find(party, "a1")["time"] == 3
    assert roster.import_items(None, [wu], []) == ([wu], 0, 0)


# ---------------------------------------------------------------- by link

def test_a_sheet_link_opens_checked():
    e = entry("jadeclaw", "wu")
    link = share.open_link("#" + share.encode_sheet(e))
    assert link["kind"] == "sheet" and link["entry"] == e


@pytest.mark.parametrize("data", [
    {"y": "jadeclaw", "p": {"name": "Wu", "skills": [{"name": "x", "level": 10 ** 30}]}, "i": "ab", "w": 1},
    {"y": "jadeclaw", "p": {"name": XSS, XSS: XSS}, "i": "ab", "w": 1},
    {"y": "jadeclaw", "p": {"name": "Wu"}, "i": "<b>", "w": 1},
    {"y": "jadeclaw", "p": {"name": "Wu"}, "i": "ab", "w": "yesterday"},
    {"y": "jadeclaw", "p": {"name": "Wu", "skills": [{"name": str(i)} for i in range(1000)]}, "i": "ab", "w": 1},
    {"y": "dnd", "p": {"name": "Wu"}, "i": "ab", "w": 1},
], ids=["huge-level", "script-fields", "bad-id", "bad-time", "too-many-rows", "unknown-game"])
def test_a_hostile_sheet_link_is_refused_with_a_message(data):
    with pytest.raises(share.ShareError) as e:
        share.open_link("v1.c." + share.pack(data))
    assert "link" in str(e.value).lower()


def test_an_export_carries_the_party_and_an_import_merges_it():
    """The export file holds the party beside the history and the setups
    (records.store); reading it back and importing its sheets gives them."""
    from records import store
    party = [entry("jadeclaw", "wu"), entry("alkemy", "patrick", "b2")]
    data = store.read_export(store.export_text([], [], [], party=roster.export_items(party)))
    assert roster.import_items(data["party"], [], [])[:2] == (party, 2)
    assert "party" not in store.read_export(store.export_text([], []))


def test_a_roll_waiting_on_a_choice_is_kept_with_its_sheet():
    """A Mirage prayer's Condition not yet named is stored with the sheet
    (the roll's spec and draws, not its outcome), read back, and still asks
    the same choice; one that is not a roll's shape is dropped, the sheet
    kept."""
    from rules.dice import ScriptedRng
    scout = entry("mirage", "scout")
    spec = rules.check_spec("mirage", scout["sheet"], "Might")
    r = rules.roll("mirage", spec, ScriptedRng([2, 3]))
    r = rules.act("mirage", spec, r, {"do": "pray", "dice": [0, 1]}, ScriptedRng([1, 4]))
    waiting = {**scout, "waiting": {"spec": r["spec"], "stages": r["stages"]}}
    (back,), _, _ = roster.load(roster.dump([waiting], []))
    assert back == waiting
    ask = rules.pending_choice("mirage", back["sheet"], {"system": "mirage", **back["waiting"]})
    assert [c[0] for c in ask["choices"]] == ["exhausted", "battered", "wounded"]
    (bad,), _, _ = roster.load(roster.dump([{**scout, "waiting": {"spec": [], "stages": "x"}}], []))
    assert bad == scout
