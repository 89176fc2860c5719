"""Each tab's form survives a reload (docs/RULES-DECISIONS.md, The page): the fields are
stored, loaded with every shape checked, and read through the tab and the
rules before they are filled in, so a corrupt or hostile store gives
messages and the forms' defaults, never an exception."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st

import cases
import rules
from static_form import static_form
from tab_registry import tab_modules
from tabs import formstate, tab

TABS = {ui.SYSTEM: ui for ui in tab_modules()}
DEFAULTS = {s: static_form(s).fields for s in TABS}


def read(system, fields):
    return tab.read_form(TABS[system], {**DEFAULTS[system], **fields}, DEFAULTS[system])


def roundtrip(text):
    return formstate.restore(formstate.load(text, rules.SYSTEMS), read)


#: Each game's form as a player edits it (``cases.EDITED_FORM``).
EDITED = cases.every("EDITED_FORM")


def test_every_form_and_the_open_tab_come_back():
    """Edited forms of every tab and the open tab, stored and restored:
    the same fields, the same specs, nothing reported."""
    text = formstate.dump("alkemy", EDITED)
    stored = formstate.load(text, rules.SYSTEMS)
    assert stored.tab == "alkemy" and stored.problems == []
    forms, problems = formstate.restore(stored, read)
    assert problems == []
    for system, fields in EDITED.items():
        assert {k: forms[system][k] for k in fields} == fields
        spec = read(system, forms[system]).spec
        assert spec == rules.normalize(system, TABS[system].spec_from_form({**DEFAULTS[system], **fields}))
    assert read("mirage", forms["mirage"]).spec["conditions"] != rules.default_spec("mirage")["conditions"]


def test_an_unticked_group_stays_unticked():
    """Unticking every Condition is stored as [] and comes back as none
    ticked, not as the form's default."""
    forms, problems = roundtrip(formstate.dump("mirage", {"mirage": {"conditions": []}}))
    assert forms["mirage"]["conditions"] == [] and problems == []


def test_a_value_the_rules_refuse_goes_back_to_its_default_and_is_named():
    """Mirage helpers 9 and ALKEMY characteristic −5 in the store: each is
    set back to the form's default and named; the other fields are kept."""
    text = formstate.dump("mirage", {"mirage": {"helpers": ["9"], "conditions": ["angry"]},
                                     "alkemy": {"characteristic": ["-5"], "bonus": ["2"]}})
    forms, problems = roundtrip(text)
    assert forms["mirage"]["helpers"] == DEFAULTS["mirage"]["helpers"]
    assert forms["mirage"]["conditions"] == ["angry"]
    assert forms["alkemy"]["characteristic"] == DEFAULTS["alkemy"]["characteristic"]
    assert forms["alkemy"]["bonus"] == ["2"]
    assert len(problems) == 2
    assert problems[0].startswith("Mirage: helpers") and problems[1].startswith("ALKEMY: characteristic")
    assert "backup" in formstate.message(problems)


HOSTILE = [
    ("not json", "{forms:"),
    ("a list", "[1, 2]"),
    ("no forms", '{"v": 1, "tab": "mirage"}'),
    ("newer version", json.dumps({"v": 99, "tab": "mirage", "forms": {}})),
    ("deeply nested", '{"v": 1, "forms": ' + "[" * 5000 + "]" * 5000 + "}"),
    ("enormous", json.dumps({"v": 1, "tab": "mirage", "forms": {"mirage": {"gear": ["d6" * 40_000]}}})),
]


@pytest.mark.parametrize("text", [t for _, t in HOSTILE], ids=[n for n, _ in HOSTILE])
def test_an_unreadable_store_opens_every_form_as_new_and_says_so(text):
    forms, problems = roundtrip(text)
    assert forms == {} and len(problems) == 1 and "opens as new" in problems[0]


def test_hostile_values_are_left_out_one_by_one():
    """A script as a value stays a plain value (the page sets it with
    .value, never as markup); wrong shapes, an unknown game and an unknown
    tab are left out and named; the rest is kept."""
    script = '<img src=x onerror="alert(1)">'
    text = json.dumps({"v": 1, "tab": "<script>", "forms": {
        "jadeclaw": {"dice": [script], "favored": "on", "bonuses": [1], "": ["x"], "remove": ["1"]},
        "evil": {"x": ["y"]},
        "mirage": ["not", "a", "dict"],
    }})
    stored = formstate.load(text, rules.SYSTEMS)
    assert stored.tab is None
    assert stored.forms["jadeclaw"] == {"dice": [script], "remove": ["1"]}
    assert stored.forms["mirage"] == {}
    assert len(stored.problems) == 5  # favored, bonuses, "", evil, mirage
    forms, problems = formstate.restore(stored, read)
    assert forms["jadeclaw"]["dice"] == DEFAULTS["jadeclaw"]["dice"]  # the rules refuse it as dice
    assert any("Jadeclaw: dice" in p for p in problems)


FIELD_VALUES = st.lists(st.one_of(st.text(max_size=12), st.sampled_from(["1", "-3", "99", "d8", "on", "red"])),
                        max_size=3)


@settings(max_examples=60, deadline=None)
@given(system=st.sampled_from(rules.SYSTEMS),
       fields=st.dictionaries(st.sampled_from(sorted({n for f in DEFAULTS.values() for n in f} | {"x"})),
                              FIELD_VALUES, max_size=8))
def test_any_stored_fields_restore_to_a_valid_form(system, fields):
    """Whatever strings a store holds, restoring gives fields the tab reads
    to a valid spec, or the defaults, with every refusal named: never
    another exception."""
    forms, problems = roundtrip(formstate.dump(system, {system: fields}))
    reading = read(system, forms[system])
    assert reading.errors == [] and reading.spec is not None


@settings(max_examples=80, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=8), kids, max_size=4),
                    max_leaves=30))
def test_any_json_loads_without_an_exception(value):
    for data in (value, {"v": 1, "tab": "mirage", "forms": value}, {"v": 1, "forms": {"mirage": value}}):
        stored = formstate.load(json.dumps(data), rules.SYSTEMS)
        assert all(isinstance(v, list) for f in stored.forms.values() for v in f.values())
