"""Every field at fault is named at once (docs/RULES-DECISIONS.md, The page): ``tab.read_form``
sets each wrong field back to its default and reads the form again, so a
form with two mistakes shows two messages, each at its own field; a number
box holding text that is not a number is a mistake too, not its default."""

from __future__ import annotations

import pytest

import rules
from static_form import static_form
from tab_registry import tab_modules
from tabs import tab, ui_alkemy, ui_milhamah

TABS = tab_modules()
GARBAGE = ["!!"]


@pytest.mark.parametrize("ui", TABS, ids=lambda u: u.SYSTEM)
def test_the_form_as_it_opens_reads_cleanly(ui):
    form = static_form(ui.SYSTEM)
    reading = tab.read_form(ui, form.fields, form.fields)
    assert reading.errors == []
    assert reading.spec == rules.normalize(ui.SYSTEM, ui.spec_from_form(form.fields))


@pytest.mark.parametrize("ui", TABS, ids=lambda u: u.SYSTEM)
def test_every_wrong_field_is_named_at_once(ui):
    """Each control that is refused when it alone holds garbage is named,
    at its own error slot, when all of them hold garbage together; the
    fields come back set to their defaults, which make a valid spec."""
    form = static_form(ui.SYSTEM)
    defaults = form.fields
    alone = set()
    for name in form.names:
        errors = tab.read_form(ui, {**defaults, name: GARBAGE}, defaults).errors
        if errors:
            assert [e.field for e in errors] == [name], (name, errors)
            alone.add(name)
    assert len(alone) >= 2  # "at once" needs two fields the rules check (a game may have only two)
    reading = tab.read_form(ui, {**defaults, **{n: GARBAGE for n in alone}}, defaults)
    assert {e.field for e in reading.errors} == alone
    assert all(e.field in form.slots for e in reading.errors)  # each has a place to be shown
    assert reading.spec is not None
    assert all(reading.fields[n] == defaults.get(n, []) for n in alone)
    # read once, the form and the rules stop at the first
    with pytest.raises(rules.SpecError):
        rules.normalize(ui.SYSTEM, ui.spec_from_form({**defaults, **{n: GARBAGE for n in alone}}))


def test_alkemy_characteristic_and_bonus_are_both_named():
    """Two faults: characteristic −5 with bonus 50 names both, with
    the rules' own words."""
    defaults = static_form("alkemy").fields
    reading = tab.read_form(ui_alkemy, {**defaults, "characteristic": ["-5"], "bonus": ["50"]}, defaults)
    assert [e.field for e in reading.errors] == ["characteristic", "bonus"]
    assert "-5" in reading.errors[0].detail and "50" in reading.errors[1].detail


def test_text_in_a_number_box_is_an_error_not_the_default():
    """'abc' in Milhamah's X: the browser reports the value as '' (which
    spec_from_form reads as X = 3) and validity.badInput; read_form names
    the field."""
    defaults = static_form("milhamah").fields
    fields = {**defaults, "rerolls": [""]}
    assert tab.read_form(ui_milhamah, fields, defaults).errors == []  # what went wrong before
    reading = tab.read_form(ui_milhamah, fields, defaults, bad=["rerolls"])
    assert [(e.field, e.detail) for e in reading.errors] == [("rerolls", tab.NOT_A_NUMBER)]


def test_an_error_no_field_explains_stops_the_search():
    """A cross-field error whose field already holds its default is named
    once, and the search ends (no endless loop, no spec)."""
    class Stubborn:
        SYSTEM = "jadeclaw"
        calls = 0

        @classmethod
        def spec_from_form(cls, fields):
            cls.calls += 1
            raise rules.SpecError("_form", "these fields do not go together")

    reading = tab.read_form(Stubborn, {"dice": ["d8"]}, {"dice": ["d8"]})
    assert [e.field for e in reading.errors] == ["_form"] and reading.spec is None
    assert Stubborn.calls == 1


def _number_boxes(system: str) -> list[str]:
    """The names of ``#form-<system>``'s number boxes, read from index.html."""
    import re

    from static_form import INDEX
    html = INDEX.read_text(encoding="utf-8")
    start = html.index(f'id="form-{system}"')
    form = html[start:html.index("</form>", start)]
    return [m.group(1) for m in re.finditer(r'<input name="([^"]+)" type="number"', form)]


CASES = [(ui, name) for ui in TABS for name in _number_boxes(ui.SYSTEM)]


@pytest.mark.parametrize("ui,name", CASES, ids=[f"{u.SYSTEM}-{n}" for u, n in CASES])
def test_every_empty_number_box_means_its_default(ui, name):
    """docs/RULES-DECISIONS.md, "The page": each number box of each tab, left
    empty, reads as the value the form opens with (and is named in
    ``filled``, for the page to show it); one that opens empty (Open Tale's
    target) stays empty and means none. Never an error."""
    form = static_form(ui.SYSTEM)
    fields = {**form.fields, name: [""]}
    reading = tab.read_form(ui, fields, form.fields, numbers=_number_boxes(ui.SYSTEM))
    assert reading.errors == []
    assert reading.spec == tab.read_form(ui, form.fields, form.fields).spec
    opens_with = form.fields.get(name, [""])
    assert reading.filled == ({name: opens_with} if "".join(opens_with).strip() else {})


def test_each_tab_has_number_boxes():
    assert {ui.SYSTEM for ui, _ in CASES} == set(rules.SYSTEMS) and len(CASES) > 30
