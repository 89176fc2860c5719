"""Character sheets: what every game's sheet shares, and the fields a game
declares (docs/PARTY.md).

A sheet is a small JSON-able record: a ``name``, the ``player``, whether it
is an ``npc``, and exactly the numbers that game's rolls read, under the
fields its ``rules/<game>/sheet.py`` declares in ``FIELDS``. A field is a
plain dict (the page draws the sheet's editor from the same declaration):

- ``{"name": "level", "kind": "int", "min": 0, "max": 60, "default": 0}``;
- ``text`` (``most`` characters, ``required``), ``choice`` (``choices``:
  ``(value, label)`` pairs), ``bool``, ``dice`` (sizes or notation, at most
  ``most`` dice), ``size`` (one die, ``zero`` allowing none), ``texts``
  (short texts, at most ``most``), ``picks`` (some of ``choices``, from
  ``least`` to ``most``);
- ``group`` (a fixed set of sub-``fields``) and ``entries`` (a list of at
  most ``most`` rows of sub-``fields``, each row's ``name`` unique);
- ``"play": True`` on a field that changes in play (Conditions, health, a
  Heroic Badge): the party shows it on the character's card, to change in
  one tap, besides in the sheet's editor.

``normalize`` reads a sheet through a declaration, so every field is checked
the same way and every refusal is a ``SpecError`` naming its field by its
path (``skills.1.level``); sizes are bounded (names, counts), so a hostile
sheet costs little. The same reading serves a check's situation (the
fields beside Roll).

>>> FIELDS = ({"name": "skills", "kind": "entries", "most": 4, "fields": (
...     {"name": "name", "kind": "text", "required": True},
...     {"name": "level", "kind": "int", "min": 0, "max": 9, "default": 1}),
... },)
>>> normalize(FIELDS, {"name": "Wu", "skills": [{"name": "Fast-Talk", "level": "5"}]})
{'name': 'Wu', 'player': '', 'npc': False, 'skills': [{'name': 'Fast-Talk', 'level': 5}]}
>>> normalize(FIELDS, {"name": "Wu", "skills": [{"name": "Fast-Talk", "level": 12}]})
Traceback (most recent call last):
...
rules.dice.SpecError: skills.0.level: must be a whole number from 0 to 9 (got 12)
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any, Callable, Mapping

from .dice import (MAX_POOL, SIZES, SpecError, get_bool, get_int, get_size, get_sizes, is_number, name_key,
                   show_value)

__all__ = ["COMMON", "MAX_NAME", "MAX_ENTRIES", "MAX_TEXTS", "normalize", "read_fields", "field_value",
           "read_situation", "clean_text", "find_entry", "key_of", "entry_check", "applied", "signed"]

#: A name (a character, a skill, a Condition) is at most this long.
MAX_NAME = 40
#: A list on a sheet (skills, abilities, gear) holds at most this many rows.
MAX_ENTRIES = 40
#: Short texts (Favored Uses) per row.
MAX_TEXTS = 8

#: The fields every sheet has, before the game's own.
COMMON = (
    {"name": "name", "kind": "text", "label": "Name", "required": True},
    {"name": "player", "kind": "text", "label": "Player"},
    {"name": "npc", "kind": "bool", "label": "NPC (the GM's)"},
)

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def clean_text(value: Any, field: str, most: int = MAX_NAME, required: bool = False) -> str:
    """A short text: spaces at either end dropped, inner runs of spaces made
    one; no control or bidi-override characters (a name shown to every
    player must read as it is stored).

    >>> clean_text("  Wu   Shousu ", "name")
    'Wu Shousu'
    >>> clean_text("Wu\\u202e", "name")
    Traceback (most recent call last):
    ...
    rules.dice.SpecError: name: may hold letters, digits, spaces and punctuation, not control characters
    """
    value = _as_text(value, field, most)
    if len(value) > 4 * most:
        raise SpecError(field, f"is too long: at most {most} characters")
    if _CONTROL.search(value):
        raise SpecError(field, "may hold letters, digits, spaces and punctuation, not control characters")
    text = " ".join(unicodedata.normalize("NFC", value).split())
    if len(text) > most:
        raise SpecError(field, f"is too long: at most {most} characters (got {len(text)})")
    if required and not text:
        raise SpecError(field, "is required")
    return text


def _as_text(value: Any, field: str, most: int) -> str:
    """The value as text before it is cleaned: none is empty, a number (a
    form may send one) its digits, anything else refused."""
    if value is None:
        value = ""
    if is_number(value):
        value = str(value)[:most + 1]
    if not isinstance(value, str):
        raise SpecError(field, f"must be text (got {show_value(value)})")
    return value


def _blank(value: Any) -> bool:
    """Is a field left empty (absent, or an empty box): its default stands."""
    return value is None or value == ""


def key_of(name: str) -> str:
    """A name as it is compared (case and spacing aside): two rows of a list
    may not share one, and a check is found by it.

    >>> key_of("Fast-Talk") == key_of(" fast-talk ")
    True
    """
    return " ".join(str(name).split()).casefold()


def _text(spec: Mapping, f: dict, path: str) -> str:
    return clean_text(spec.get(f["name"]), path, f.get("most", MAX_NAME), f.get("required", False))


def _int(spec: Mapping, f: dict, path: str) -> int:
    """A whole number; left empty (a number box), its default."""
    value = spec.get(f["name"])
    blank = value is None or (isinstance(value, str) and not value.strip())
    return get_int({} if blank else spec, f["name"], f["min"], f["max"], default=f.get("default", f["min"]), field=path)


def _choice(spec: Mapping, f: dict, path: str) -> Any:
    value = spec.get(f["name"])
    values = [c[0] for c in f["choices"]]
    if _blank(value):
        return f.get("default", values[0])
    if isinstance(value, str) and value not in values:
        value = _by_name(value, values, path)
    if isinstance(value, (str, int)) and not isinstance(value, bool):
        value = _as_listed(value, values)
        if value in values:
            return value
    raise SpecError(path, "must be one of " + ", ".join(str(c[1]) for c in f["choices"])
                    + f" (got {show_value(value)})")


def _by_name(value: str, values: list, path: str) -> Any:
    """The listed text ``value`` names, case and spacing aside (else ``value``
    as given, refused by the caller)."""
    key = name_key(value, path)
    return next((v for v in values if isinstance(v, str) and name_key(v, path) == key), value)


def _as_listed(value: Any, values: list) -> Any:
    """A number typed as text, when the choices are numbers (a form sends text)."""
    if isinstance(value, str) and value.strip().lstrip("-").isdigit() and len(value) < 10:
        number = int(value)
        return number if number in values else value
    return value


def _bool(spec: Mapping, f: dict, path: str) -> bool:
    try:
        return get_bool(spec, f["name"], f.get("default", False))
    except SpecError as e:
        raise SpecError(path, e.detail) from None


def _dice(spec: Mapping, f: dict, path: str) -> list:
    value = spec.get(f["name"])
    if _blank(value) or value == []:
        return list(f.get("default", []))
    return get_sizes(spec, f["name"], f.get("sizes", SIZES), limit=f.get("most", MAX_POOL), field=path)


def _size(spec: Mapping, f: dict, path: str) -> int:
    value = spec.get(f["name"])
    if value in (None, "", "none") and f.get("zero"):
        return 0
    return get_size(spec, f["name"], f.get("sizes", SIZES), default=f.get("default"),
                    allow_zero=bool(f.get("zero")), field=path)


def _texts(spec: Mapping, f: dict, path: str) -> list:
    value = spec.get(f["name"])
    if _blank(value):
        return []
    most = f.get("most", MAX_TEXTS)
    value = _text_list(value, path, most, f.get("length", 60))
    out = [clean_text(v, path, f.get("length", 60)) for v in value]
    return list(dict.fromkeys(t for t in out if t))


def _text_list(value: Any, path: str, most: int, length: int) -> Any:
    """Short texts as a list: a comma-separated text split (unless far too
    long to be ``most`` texts of ``length``); no list, or a longer one,
    refused."""
    if isinstance(value, str) and len(value) <= 4 * length * most:
        value = value.split(",")
    if not isinstance(value, (list, tuple)) or len(value) > most:
        raise SpecError(path, f"must list at most {most} short texts")
    return value


def _picks(spec: Mapping, f: dict, path: str) -> list:
    value = spec.get(f["name"])
    values = [c[0] for c in f["choices"]]
    if _blank(value):
        return list(f.get("default", values))
    value = _pick_list(value, values, path)
    picked = {_choice({"x": v}, {"name": "x", "choices": f["choices"]}, path) for v in value}
    least = f.get("least", 0)
    if len(picked) < least:
        raise SpecError(path, f"must list at least {least} of " + ", ".join(values))
    return [v for v in values if v in picked]


def _pick_list(value: Any, values: list, path: str) -> Any:
    """The picks as a list: a text split at ``+``, ``,``, ``&`` or spaces;
    no list, or more picks than there are choices, refused."""
    if isinstance(value, str):
        value = re.findall(r"[^+,&\s]+", value[:200])
    if not isinstance(value, (list, tuple)) or len(value) > len(values):
        raise SpecError(path, "must list some of " + ", ".join(values))
    return value


def _group(spec: Mapping, f: dict, path: str) -> dict:
    value = spec.get(f["name"])
    return read_fields(f["fields"], {} if value is None else value, path + ".")


def _entries(spec: Mapping, f: dict, path: str) -> list:
    value = spec.get(f["name"])
    if _blank(value):
        return [dict(row) for row in f.get("default", [])]
    most = f.get("most", MAX_ENTRIES)
    if not isinstance(value, (list, tuple)):
        raise SpecError(path, f"must be a list of at most {most} rows")
    if len(value) > most:
        raise SpecError(path, f"may hold at most {most} rows (got {len(value)})")
    rows = [read_fields(f["fields"], row, f"{path}.{i}.") for i, row in enumerate(value)]
    _refuse_twice_named(rows, path)
    return rows


def _refuse_twice_named(rows: list, path: str) -> None:
    """The first row whose name an earlier row holds (case and spacing
    aside) refused: a row is found by its name."""
    seen: dict = {}
    for i, row in enumerate(rows):
        k = key_of(row.get("name", i))
        if k in seen:
            raise SpecError(f"{path}.{i}.name", f"{row['name']!r} is named twice; each row needs its own name")
        seen[k] = i


_KINDS: dict[str, Callable[[Mapping, dict, str], Any]] = {
    "text": _text, "int": _int, "choice": _choice, "bool": _bool, "dice": _dice, "size": _size,
    "texts": _texts, "picks": _picks, "group": _group, "entries": _entries,
}


def field_value(spec: Mapping, f: dict, path: str) -> Any:
    """One declared field read from ``spec`` (its default when absent)."""
    return _KINDS[f["kind"]](spec, f, path)


def read_fields(fields: tuple, spec: Any, prefix: str = "") -> dict:
    """Every declared field of ``spec`` read and checked; an unknown key is
    refused by name, so a sheet holds nothing its game does not read."""
    where = prefix.rstrip(".") or "sheet"
    if not isinstance(spec, dict):
        raise SpecError(where, f"must be an object of fields (got {show_value(spec)})")
    names = [f["name"] for f in fields]
    _refuse_unknown(spec, names, prefix, where, names)
    return {f["name"]: field_value(spec, f, prefix + f["name"]) for f in fields}


def _refuse_unknown(keys: Any, names: list, prefix: str, where: str, listed: list) -> None:
    """The first of ``keys`` not among ``names`` refused, at its own path
    (``where`` when it is no usable name), listing the fields there are."""
    for k in keys:
        if k not in names:
            raise SpecError(f"{prefix}{k[:40]}" if isinstance(k, str) and k.strip() else where,
                            f"{repr(k)[:40]} is not a field here; fields: {', '.join(listed)}")


def normalize(fields: tuple, sheet: Any) -> dict:
    """A sheet read through ``COMMON`` and a game's ``fields``."""
    return read_fields(COMMON + tuple(fields), sheet)


def read_situation(fields: tuple, defaults: dict, situation: Any) -> tuple[dict, Any]:
    """A check's situation read through a game's ``SITUATION`` fields: the
    check's own ``defaults`` (its usual attribute, its colours) under what
    the situation names; an empty value means the default. Returns the
    fields and the ``opponent`` as given (checked by the caller).

    >>> FIELDS = ({"name": "helpers", "kind": "int", "min": 0, "max": 3, "default": 0},)
    >>> read_situation(FIELDS, {}, {"helpers": "2", "opponent": None})
    ({'helpers': 2}, None)
    >>> read_situation(FIELDS, {}, {"help": 1})
    Traceback (most recent call last):
    ...
    rules.dice.SpecError: help: 'help' is not a field here; fields: helpers, opponent
    """
    if situation is None:
        situation = {}
    if not isinstance(situation, dict):
        raise SpecError("situation", f"must be an object of fields (got {show_value(situation)})")
    given = _named_values(situation)
    names = [f["name"] for f in fields]
    _refuse_unknown(given, names, "", "situation", names + ["opponent"])
    return read_fields(fields, {**defaults, **given}), situation.get("opponent")


def _named(rows: list, name: Any) -> dict | None:
    """The first of ``rows`` called ``name`` (case and spacing aside); None
    when none is, or ``name`` is no text."""
    if isinstance(name, str):
        for row in rows:
            if key_of(row["name"]) == key_of(name):
                return row
    return None


def _named_values(situation: dict) -> dict:
    """The fields a situation gives a value: not the opponent (the caller
    checks it), not those left empty (their defaults stand)."""
    return {k: v for k, v in situation.items() if k != "opponent" and v is not None and v != ""}


def find_entry(rows: list, name: Any, field: str) -> dict:
    """The row called ``name`` (case and spacing aside), or a SpecError."""
    row = _named(rows, name)
    if row is not None:
        return row
    raise SpecError(field, f"{show_value(name)} is not on this sheet")


def entry_check(checks: list, check: Any) -> dict:
    """The check called ``check`` among a sheet's ``checks`` (each with a
    ``name``), or a SpecError listing those there are."""
    found = _named(checks, check)
    if found is not None:
        return found
    names = ", ".join(c["name"] for c in checks[:12]) or "none"
    raise SpecError("check", f"{show_value(check)} is not a check of this sheet; checks: {names}")


def signed(n: int) -> str:
    """+1, −1 (a minus sign), 0.

    >>> signed(2), signed(-1), signed(0)
    ('+2', '−1', '0')
    """
    return f"+{n}" if n > 0 else (f"−{-n}" if n < 0 else "0")


def applied(what: str, why: str) -> dict:
    """One thing a sheet applies to a check, and why: the page shows it as
    "what: why" beside the check ("−1: 1 physical Condition (Battered)").

    >>> applied("−1", "1 physical Condition (Battered)")
    {'what': '−1', 'why': '1 physical Condition (Battered)'}
    """
    return {"what": what, "why": why}
