"""Each tab's form and the open tab, as stored text, so that a reload, or a
tablet that kills the browser tab, keeps the table's state: Jadeclaw's
dice, Milhamah's shoresh and X, Mirage's Conditions (the character's
state). And each tab's turn on show (``dump_trays``, ``load_trays``), so
that a reload in the middle of a turn brings it back ready for its next
step. Pure; no DOM.

A form is kept as its fields (name -> [values], as ``forms.read_fields``
reads them, an unticked group as ``[]``). Loading checks the shape of
everything (a corrupt or hostile store gives messages, never an
exception); ``restore`` then reads each form through its tab and the rules
(``tab.read_form``), so a value the rules refuse goes back to the form's
default and is named.

>>> text = dump("mirage", {"mirage": {"conditions": ["angry"], "skill": ["8"]}})
>>> stored = load(text, ["mirage", "alkemy"])
>>> stored.tab, stored.forms, stored.problems
('mirage', {'mirage': {'conditions': ['angry'], 'skill': ['8']}}, [])
>>> load('{"v": 1, "tab": "mirage", "forms": {"mirage": {"skill": [{"x": 1}]}}}', ["mirage"]).problems
['Mirage: the saved value of “skill” was not a form value; it was left out.']
"""

from __future__ import annotations

import json
from typing import Callable, NamedTuple

import rules

__all__ = ["KEY", "VERSION", "Stored", "dump", "load", "restore", "message", "TRAYS_KEY", "dump_trays",
           "load_trays"]

KEY = "dice-table/forms"
VERSION = 1
#: A saved set of five forms is a few kB; more than this is not ours.
MAX_TEXT = 64_000
#: Brackets bound the nesting before parsing (Pyodide dies on JSON nested
#: thousands deep); five forms of lists use about thirty.
MAX_BRACKETS = 500
MAX_FIELDS = 200
MAX_NAME = 64
MAX_VALUES = 40
MAX_VALUE = 2_000
#: The banner names this many problems at most.
SHOWN = 6


class Stored(NamedTuple):
    tab: str | None  #: the tab that was open, if it is one of ours
    forms: dict  #: system -> fields, every name and value a string
    problems: list  #: what was left out, in words


def dump(tab: str, forms: dict) -> str:
    return json.dumps({"v": VERSION, "tab": tab, "forms": forms}, ensure_ascii=False, separators=(",", ":"))


def _title(system: str) -> str:
    return rules.TITLES.get(system, system)


def _too_large(text: str, most: int, brackets: int) -> bool:
    """Longer than ``most`` characters, or more than ``brackets`` brackets
    (counted before parsing, which deep nesting would break)."""
    return len(text) > most or text.count("[") + text.count("{") > brackets


def _parse(text) -> tuple[dict | None, str | None]:
    """The stored object, or a reason it cannot be read."""
    if not isinstance(text, str) or not text:
        return None, None
    if _too_large(text, MAX_TEXT, MAX_BRACKETS):
        return None, "it is far larger than a set of forms"
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None, "it is not valid JSON"
    why = _not_forms(data)
    return (None, why) if why else (data, None)


def _not_forms(data) -> str | None:
    """Why a parsed object is not our stored forms, or None when it is."""
    if not isinstance(data, dict) or not isinstance(data.get("forms"), dict):
        return "it does not hold forms"
    if data.get("v") != VERSION:
        return "it was saved by another version of the page"
    return None


def _clean_value(values) -> list | None:
    if not isinstance(values, list) or len(values) > MAX_VALUES:
        return None
    if not all(isinstance(v, str) and len(v) <= MAX_VALUE for v in values):
        return None
    return list(values)


def _clean_field(name, values) -> list | None:
    """A field's values when its name and values have a form's shape, else None."""
    return _clean_value(values) if isinstance(name, str) and 0 < len(name) <= MAX_NAME else None


def _clean_fields(system: str, fields) -> tuple[dict, list]:
    """The fields whose name and values have the right shape, and a problem
    for each one left out."""
    if not isinstance(fields, dict) or len(fields) > MAX_FIELDS:
        return {}, [f"{_title(system)}: the saved form was not readable; it opens as new."]
    out, problems = {}, []
    for name, values in fields.items():
        clean = _clean_field(name, values)
        if clean is None:
            problems.append(f"{_title(system)}: the saved value of “{str(name)[:MAX_NAME]}” was not a form "
                            "value; it was left out.")
        else:
            out[name] = clean
    return out, problems


def load(text, systems) -> Stored:
    """The stored forms of the ``systems`` this page has; anything else is
    left out and said in ``problems`` (never an exception).

    >>> load(None, ["mirage"])
    Stored(tab=None, forms={}, problems=[])
    >>> load("[" * 10_000, ["mirage"]).problems
    ['The saved forms could not be read (it is far larger than a set of forms); every form opens as new.']
    """
    data, why = _parse(text)
    if data is None:
        return Stored(None, {}, [f"The saved forms could not be read ({why}); every form opens as new."] if why else [])
    forms, problems = {}, []
    for system, fields in data["forms"].items():
        if system not in systems:
            problems.append(f"A saved form for a game this page does not know ({str(system)[:40]}) was left out.")
            continue
        forms[system], lost = _clean_fields(system, fields)
        problems += lost
    tab = data.get("tab") if data.get("tab") in systems else None
    return Stored(tab, forms, problems)


def restore(stored: Stored, read: Callable[[str, dict], object]) -> tuple[dict, list]:
    """Each stored form read through ``read(system, fields)`` (a
    ``tab.Reading``): the fields to fill in, every value the rules refuse
    set back to its default, and a problem naming each.

    >>> class R(NamedTuple):
    ...     spec: dict | None
    ...     errors: list
    ...     fields: dict
    >>> def read(system, fields):
    ...     bad = [rules.SpecError("skill", "must be d6-d12")] if fields.get("skill") == ["7"] else []
    ...     return R({}, bad, {**fields, "skill": ["8"]} if bad else fields)
    >>> restore(Stored("mirage", {"mirage": {"skill": ["7"], "gear": ["d6"]}}, []), read)
    ({'mirage': {'skill': ['8'], 'gear': ['d6']}}, ['Mirage: skill must be d6-d12; set back to its default.'])
    """
    forms, problems = {}, list(stored.problems)
    for system, fields in stored.forms.items():
        reading = read(system, fields)
        problems += [f"{_title(system)}: {e.field.lstrip('_')} {e.detail}; set back to its default."
                     for e in reading.errors]
        forms[system] = reading.fields if reading.spec is not None else {}
    return forms, problems


def message(problems: list) -> str | None:
    """The banner for what could not be restored (None: all was); the page
    adds where the saved text is kept.

    >>> message(["Mirage: skill must be d6-d12; set back to its default."])
    'Some saved form values could not be restored (Mirage: skill must be d6-d12; set back to its default.)'
    """
    if not problems:
        return None
    shown = " ".join(problems[:SHOWN]) + (f" … and {len(problems) - SHOWN} more." if len(problems) > SHOWN else "")
    return f"Some saved form values could not be restored ({shown})"


# ---------------------------------------------------------------- each tab's turn on show

#: Kept per browser tab (sessionStorage): a reload brings back this tab's
#: turns, and two tabs of the page never take each other's.
TRAYS_KEY = "dice-table/trays"
#: Five trays of at most ``rules.MAX_STAGES`` stages are a few kB.
MAX_TRAYS_TEXT = 200_000
MAX_TRAYS_BRACKETS = 4_000


def dump_trays(trays: dict) -> str:
    """Each tab's turn on show: ``{system: {"spec", "stages", "selected"}}``
    (what replays it, and the dice tapped for the next step)."""
    return json.dumps({"v": VERSION, "trays": trays}, ensure_ascii=False, separators=(",", ":"))


def _tray_ok(t) -> bool:
    """A kept tray's shape: a spec, its stages and the tapped dice."""
    return (isinstance(t, dict) and isinstance(t.get("spec"), dict) and _stages_ok(t.get("stages"))
            and _tapped_ok(t.get("selected")))


def _stages_ok(stages) -> bool:
    """One to ``rules.MAX_STAGES`` stages, each an object."""
    return isinstance(stages, list) and 0 < len(stages) <= rules.MAX_STAGES and all(
        isinstance(x, dict) for x in stages)


def _tapped_ok(selected) -> bool:
    """At most ``MAX_VALUES`` tapped dice, each a short key."""
    return isinstance(selected, list) and len(selected) <= MAX_VALUES and all(
        isinstance(k, str) and len(k) <= MAX_NAME for k in selected)


def _parse_trays(text):
    """The kept object, or None when the text is none, too large or not JSON."""
    if not isinstance(text, str) or _too_large(text, MAX_TRAYS_TEXT, MAX_TRAYS_BRACKETS):
        return None
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def load_trays(text, systems) -> dict:
    """The kept trays of the ``systems`` this page has, each of the right
    shape (its dice are checked when it is replayed); anything else is
    left out.

    >>> load_trays(dump_trays({"jadeclaw": {"spec": {"dice": [8]}, "stages": [{"do": "roll", "draws": [3]}],
    ...                                     "selected": []}, "chess": {}}), rules.SYSTEMS)
    {'jadeclaw': {'spec': {'dice': [8]}, 'stages': [{'do': 'roll', 'draws': [3]}], 'selected': []}}
    >>> load_trays("[" * 10_000, rules.SYSTEMS), load_trays(None, rules.SYSTEMS)
    ({}, {})
    """
    data = _parse_trays(text)
    trays = data.get("trays") if isinstance(data, dict) and data.get("v") == VERSION else None
    if not isinstance(trays, dict):
        return {}
    return {s: t for s, t in trays.items() if s in systems and _tray_ok(t)}
