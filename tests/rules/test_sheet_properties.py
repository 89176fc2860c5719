"""Hostile sheets (docs/PARTY.md): property tests over every game in
the registry. Any JSON value given as a sheet either normalizes to a sheet
that meets the invariants or raises ``rules.SpecError`` naming a field;
nothing else escapes. The same for a check's situation, the opponent in
it, and a roll's consequences.

The invariants: a normalized sheet is a fixed point (normalizing it again
changes nothing), survives a JSON round trip, stays small (every text at
most ``MAX_NAME`` characters or its field's own bound, the whole at most
``MOST_BYTES``), and every check it lists gives a spec that the game's own
``normalize`` keeps as it is and that rolls (or is refused, as a Broken
Mirage character's is). The consequences of any roll of a check give a
sheet that is again a fixed point.

Sheets are built from each game's declared ``FIELDS`` (so a new game is
covered as soon as it declares them): mostly valid values, sometimes a
value off the edge or any JSON value. Runs on CPython only (hypothesis is
not in Pyodide). ``derandomize=True``: the same examples on every run.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import rules
from rules import dice, sheets
from rules.dice import SpecError

from test_properties import StrictRng, edge_values, json_values

SETTINGS = dict(deadline=None, derandomize=True, database=None, max_examples=100,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                       HealthCheck.data_too_large])

#: A normalized sheet is at most this big as JSON (forty rows of everything).
MOST_BYTES = 64_000

texts = st.one_of(st.sampled_from(["Wu", "Fast-Talk", "BLE", "אשר", "רוח", "Reflex", " Strength ", "<b>x</b>",
                                   "Survival Instincts", "x" * 40]),
                  st.text(max_size=12))


def value_of(f: dict):
    """Valid values of one declared field (``rules.sheets``), as a player
    or a form would give them (numbers as text, names in any case)."""
    kind = f["kind"]
    if kind == "text":
        return texts
    if kind == "int":
        n = st.integers(f["min"], f["max"])
        return n | n.map(str)
    if kind == "choice":
        return st.sampled_from([c[0] for c in f["choices"]] + [str(c[0]).upper() for c in f["choices"]])
    if kind == "bool":
        return st.booleans()
    if kind == "dice":
        sizes = st.sampled_from(list(f.get("sizes", dice.SIZES)))
        pool = st.lists(sizes, min_size=1, max_size=f.get("most", 4))
        return pool | pool.map(dice.format_pool)
    if kind == "size":
        sizes = list(f.get("sizes", dice.SIZES)) + ([0] if f.get("zero") else [])
        return st.sampled_from(sizes + [f"d{s}" for s in sizes if s])
    if kind == "texts":
        return st.lists(texts, max_size=3)
    if kind == "picks":
        return st.lists(st.sampled_from([c[0] for c in f["choices"]]), max_size=len(f["choices"]), unique=True)
    if kind == "group":
        return record_of(f["fields"])
    return st.lists(record_of(f["fields"]), max_size=4)  # entries


def record_of(fields: tuple):
    """A dict of some of ``fields``, mostly valid, sometimes one field off
    the edge, junk, or an unknown key."""
    keys = {f["name"]: value_of(f) for f in fields}
    valid = st.fixed_dictionaries({}, optional=keys)
    one_bad = st.tuples(valid, st.sampled_from(sorted(keys)), st.one_of(edge_values, json_values)
                        ).map(lambda t: {**t[0], t[1]: t[2]})
    unknown = st.tuples(valid, st.text(max_size=8), json_values).map(lambda t: {**t[0], t[1]: t[2]})
    return st.sampled_from([0] * 12 + [1, 2]).flatmap(lambda k: (valid, one_bad, unknown)[k])


def sheet_of(system: str):
    mod = rules.SHEETS[system]
    named = st.fixed_dictionaries({"name": texts}) | st.just({"name": "Wu Shousu"})
    body = record_of(mod.FIELDS)
    examples = st.sampled_from(list(mod.EXAMPLE_SHEETS.values()))
    return st.one_of(st.tuples(named, body).map(lambda t: {**t[1], **t[0]}), examples,
                     st.tuples(examples, body).map(lambda t: {**t[0], **t[1]}))


def situation_of(system: str):
    return record_of(rules.SHEETS[system].SITUATION)


def check_refusal(e: SpecError) -> None:
    assert isinstance(e.field, str) and e.field, str(e)
    assert 0 < len(str(e)) < 600


def normalized_or_refused(system: str, sheet):
    try:
        out = rules.normalize_sheet(system, sheet)
    except SpecError as e:
        check_refusal(e)
        event("refused")
        return None
    event("normalized")
    check_sheet(system, out)
    return out


def _texts_in(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _texts_in(v)
    elif isinstance(value, list):
        for v in value:
            yield from _texts_in(v)


def check_sheet(system: str, sheet: dict) -> None:
    assert rules.normalize_sheet(system, sheet) == sheet
    text = json.dumps(sheet, ensure_ascii=False)
    assert json.loads(text) == sheet and len(text.encode()) <= MOST_BYTES
    assert all(len(t) <= 60 for t in _texts_in(sheet))
    assert sheet["name"] and len(sheet["name"]) <= sheets.MAX_NAME


def spec_or_refused(system: str, sheet, check, situation):
    try:
        spec = rules.check_spec(system, sheet, check, situation)
    except SpecError as e:
        check_refusal(e)
        event("situation refused")
        return None
    assert rules.normalize(system, spec) == spec
    return spec


@pytest.mark.parametrize("system", rules.SYSTEMS)
@settings(**SETTINGS)
@given(data=st.data())
def test_any_json_is_a_sheet_or_a_refusal(system, data):
    """Any JSON value at all: a sheet meeting the invariants, or SpecError."""
    normalized_or_refused(system, data.draw(json_values))


@pytest.mark.parametrize("system", rules.SYSTEMS)
@settings(**SETTINGS)
@given(data=st.data())
def test_declared_sheets_normalize_and_their_checks_roll(system, data):
    """Sheets built from the game's fields: normalized, each check's spec
    (with any situation, against any other sheet's check) normalizes to
    itself and rolls, or is refused by name."""
    sheet = normalized_or_refused(system, data.draw(sheet_of(system)))
    if sheet is None:
        return
    checks = rules.sheet_checks(system, sheet)
    assert len({sheets.key_of(c["name"]) for c in checks}) == len(checks)
    for c in checks:
        assert all(set(a) == {"what", "why"} and all(isinstance(v, str) for v in a.values()) for a in c["applied"])
    if not checks:
        return
    check = data.draw(st.sampled_from([c["name"] for c in checks]))
    situation = data.draw(situation_of(system))
    if data.draw(st.booleans()):
        other = data.draw(sheet_of(system) | json_values)
        names = [c["name"] for c in rules.sheet_checks(system, other)] if normalized_or_refused(system, other) else []
        situation["opponent"] = {"sheet": other, "check": data.draw(st.sampled_from(names or ["x"]) | json_values)}
    spec = spec_or_refused(system, sheet, check, situation)
    if spec is None:
        return
    try:
        result = rules.roll(system, spec, StrictRng(data.draw(st.integers(0, 2 ** 32))), advise=False)
    except SpecError as e:
        check_refusal(e)
        event("roll refused")
        return
    after = rules.consequences(system, sheet, result, _choice(system, sheet, result, data))
    check_sheet(system, after)


def _choice(system, sheet, result, data):
    ask = rules.pending_choice(system, sheet, result)
    if ask is None:
        return None
    assert ask["choices"] and all(isinstance(v, str) and isinstance(label, str) for v, label in ask["choices"])
    return data.draw(st.sampled_from([c[0] for c in ask["choices"]]))


@pytest.mark.parametrize("system", rules.SYSTEMS)
@settings(**SETTINGS)
@given(data=st.data())
def test_consequences_of_anything_land_or_are_refused(system, data):
    """Any JSON as a result or a choice, or a real result with its keys or
    draws changed: a sheet meeting the invariants, or SpecError."""
    sheet = rules.normalize_sheet(system, data.draw(st.sampled_from(list(rules.SHEETS[system].EXAMPLE_SHEETS.values()))))
    checks = rules.sheet_checks(system, sheet)
    spec = rules.check_spec(system, sheet, data.draw(st.sampled_from([c["name"] for c in checks])))
    result = rules.roll(system, spec, random.Random(data.draw(st.integers(0, 999))), advise=False)
    result = data.draw(st.one_of(st.just(result), json_values,
                                 st.tuples(st.sampled_from(sorted(result)), json_values).map(
                                     lambda kv: {**result, kv[0]: kv[1]})))
    for fn, args in ((rules.consequences, (data.draw(json_values),)), (rules.pending_choice, ())):
        try:
            out = fn(system, sheet, result, *args)
        except SpecError as e:
            check_refusal(e)
            continue
        if fn is rules.consequences:
            check_sheet(system, out)
