"""The roll history as stored text: add with a visible cap, dump, and load
with every entry checked, so a corrupt, old or hostile store gives a clear
message and loses none of the entries that are sound. Pure; no DOM.

>>> entries, dropped = add([], {"system": "jadeclaw", "result": {"spec": {}, "stages": []}, "time": 1})
>>> len(entries), dropped
(1, 0)
>>> load(dump(entries))[0] == entries
True
>>> load("{not json")[1]
'The stored roll history could not be read (it is not valid JSON); it was left untouched and a fresh one started.'
"""

from __future__ import annotations

import json
import re
from itertools import accumulate, repeat
from operator import sub

import rules

VERSION = 1
CAP = 200
MAX_TEXT = 5_000_000
#: Stored text nested deeper than this is refused before it is parsed: in
#: Pyodide, parsing (or merely freeing) JSON nested ~8000 deep overflows the
#: JavaScript stack and kills Python for good (measured in Chromium: a
#: history of 10 000 nested brackets kept the page from ever loading; a
#: RecursionError is never raised). A real history nests under 12.
MAX_DEPTH = 64

__all__ = ["VERSION", "CAP", "add", "dump", "load", "valid_entry"]


def add(entries: list, entry: dict) -> tuple[list, int]:
    """Newest first; past ``CAP`` the oldest go, and how many is returned so
    the page can say so (never silently)."""
    new = [entry] + list(entries)
    dropped = max(0, len(new) - CAP)
    return new[:CAP], dropped


def dump(entries: list) -> str:
    return json.dumps({"v": VERSION, "entries": entries}, ensure_ascii=False, separators=(",", ":"))


def valid_entry(e) -> bool:
    """The shape a history entry must have before the page will show it."""
    if not isinstance(e, dict) or e.get("system") not in rules.SYSTEMS:
        return False
    r = e.get("result")
    if not isinstance(r, dict) or not isinstance(r.get("spec"), dict) or not isinstance(r.get("stages"), list):
        return False
    if not isinstance(r.get("dice", []), list) or not isinstance(r.get("outcome", ""), str):
        return False
    if "label" in e and not isinstance(e["label"], str):
        return False
    t = e.get("time", 0)
    return isinstance(t, (int, float)) and not isinstance(t, bool)


# Strings (escapes included) are cut out, then everything but brackets; the
# depth is the highest running sum of +1 per opening and -1 per closing
# bracket. Every step runs in C: a megabyte takes a few milliseconds.
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKET = re.compile(r'[^\[\]{}]+')
_STEP = str.maketrans({"[": "\x02", "{": "\x02", "]": "\x00", "}": "\x00"})


def _parse(text: str):
    """``json.loads``, refusing (ValueError) text nested past ``MAX_DEPTH``
    without parsing it.

    >>> _parse('{"a": ["[[[[", 1]}')
    {'a': ['[[[[', 1]}
    >>> _parse("[" * 100 + "]" * 100)
    Traceback (most recent call last):
    ...
    ValueError: nested deeper than 64
    """
    steps = _NOT_BRACKET.sub("", _STRING.sub("", text)).translate(_STEP).encode("latin-1")
    if max(accumulate(map(sub, steps, repeat(1))), default=0) > MAX_DEPTH:
        raise ValueError(f"nested deeper than {MAX_DEPTH}")
    return json.loads(text)


def load(text) -> tuple[list, str | None]:
    """Entries from stored text, and a warning to show if any were unusable."""
    if text is None or text == "":
        return [], None
    if not isinstance(text, str) or len(text) > MAX_TEXT:
        return [], "The stored roll history is too large to read; it was left untouched and a fresh one started."
    try:
        data = _parse(text)
    except (ValueError, RecursionError):
        return [], ("The stored roll history could not be read (it is not valid JSON); "
                    "it was left untouched and a fresh one started.")
    if isinstance(data, list):  # no version: treat as a bare list of entries
        data = {"v": 0, "entries": data}
    if not isinstance(data, dict) or not isinstance(data.get("entries"), list):
        return [], "The stored roll history has an unknown shape; a fresh one was started."
    v = data.get("v")
    if not isinstance(v, int) or v > VERSION:
        return [], f"The stored roll history is from a newer version of this page ({v!r}); a fresh one was started."
    entries = data["entries"]
    good = [e for e in entries[:CAP] if valid_entry(e)]
    bad = len(entries[:CAP]) - len(good)
    warning = None
    if bad:
        warning = f"{bad} stored roll(s) could not be read and are not shown; the other {len(good)} are."
    return good, warning


# ---------------------------------------------------------------- saved setups

MAX_SETUPS = 100
SETUP_NAME_MAX = 80


def valid_setup(s) -> bool:
    return (isinstance(s, dict) and s.get("system") in rules.SYSTEMS and isinstance(s.get("spec"), dict)
            and isinstance(s.get("name"), str) and 0 < len(s["name"]) <= SETUP_NAME_MAX)


def save_setup(setups: list, system: str, name: str, spec: dict) -> list:
    """Add or replace (same system and name) a named setup; newest first.

    >>> s = save_setup([], "jadeclaw", "Wu — climb", {"dice": [12]})
    >>> s = save_setup(s, "jadeclaw", "Wu — climb", {"dice": [12, 4]})
    >>> len(s), s[0]["spec"]
    (1, {'dice': [12, 4]})
    """
    name = " ".join(str(name).split())[:SETUP_NAME_MAX]
    if not name:
        raise ValueError("A saved setup needs a name.")
    rest = [s for s in setups if not (s["system"] == system and s["name"] == name)]
    if len(rest) >= MAX_SETUPS:
        raise ValueError(f"At most {MAX_SETUPS} setups can be saved; delete one first.")
    return [{"system": system, "name": name, "spec": spec}] + rest


def dump_setups(setups: list) -> str:
    return json.dumps({"v": VERSION, "setups": setups}, ensure_ascii=False, separators=(",", ":"))


def load_setups(text) -> tuple[list, str | None]:
    if not isinstance(text, str) or not text:
        return [], None
    try:
        data = _parse(text) if len(text) <= MAX_TEXT else None
    except (ValueError, RecursionError):
        data = None
    if not isinstance(data, dict) or not isinstance(data.get("setups"), list):
        return [], "The saved setups could not be read; they were left untouched and a fresh list started."
    good = [s for s in data["setups"][:MAX_SETUPS] if valid_setup(s)]
    bad = len(data["setups"][:MAX_SETUPS]) - len(good)
    return good, (f"{bad} saved setup(s) could not be read and are not shown." if bad else None)


# ---------------------------------------------------------------- export and import

def export_text(entries: list, setups: list) -> str:
    """One JSON file with the history and the saved setups (a campaign log)."""
    return json.dumps({"app": "dice-table", "v": VERSION, "entries": entries, "setups": setups},
                      ensure_ascii=False, indent=1)


def import_text(text, entries: list, setups: list) -> tuple[list, list, str]:
    """Merge an exported file into the current history and setups. Returns
    the new lists and a message saying what was imported or why not; the
    current lists are never lost.

    >>> e = [{"system": "jadeclaw", "result": {"spec": {}, "stages": []}, "time": 2}]
    >>> new_e, new_s, msg = import_text(export_text(e, []), [], [])
    >>> len(new_e), msg
    (1, 'Imported 1 roll(s) and 0 saved setup(s).')
    >>> import_text("nonsense", e, [])[2]
    'That file is not a dice-table export (it is not valid JSON); nothing was changed.'
    """
    if not isinstance(text, str) or len(text) > MAX_TEXT:
        return entries, setups, "That file is too large to be a dice-table export; nothing was changed."
    try:
        data = _parse(text)
    except (ValueError, RecursionError):
        return entries, setups, "That file is not a dice-table export (it is not valid JSON); nothing was changed."
    if not isinstance(data, dict) or not isinstance(data.get("entries", []), list) \
            or not isinstance(data.get("setups", []), list):
        return entries, setups, "That file is not a dice-table export; nothing was changed."
    if isinstance(data.get("v"), int) and data["v"] > VERSION:
        return entries, setups, "That file comes from a newer version of the dice table; nothing was changed."
    got = [e for e in data.get("entries", []) if valid_entry(e)]
    seen = {(e["system"], e.get("time"), json.dumps(e["result"].get("stages"), sort_keys=True)) for e in entries}
    fresh = [e for e in got if (e["system"], e.get("time"), json.dumps(e["result"].get("stages"), sort_keys=True)) not in seen]
    merged = sorted(entries + fresh, key=lambda e: -float(e.get("time") or 0))[:CAP]
    new_setups = list(setups)
    added_setups = 0
    for s in data.get("setups", []):
        if valid_setup(s) and not any(x["system"] == s["system"] and x["name"] == s["name"] for x in new_setups):
            if len(new_setups) < MAX_SETUPS:
                new_setups.append({"system": s["system"], "name": s["name"], "spec": s["spec"]})
                added_setups += 1
    skipped = len(data.get("entries", [])) - len(got)
    msg = f"Imported {len(fresh)} roll(s) and {added_setups} saved setup(s)."
    if skipped:
        msg += f" {skipped} unreadable entr{'y was' if skipped == 1 else 'ies were'} skipped."
    if len(entries) + len(fresh) > CAP:
        msg += f" The history keeps the newest {CAP}."
    return merged, new_setups, msg
