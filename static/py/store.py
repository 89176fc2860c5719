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

import rules

VERSION = 1
CAP = 200
MAX_TEXT = 5_000_000

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


def load(text) -> tuple[list, str | None]:
    """Entries from stored text, and a warning to show if any were unusable."""
    if text is None or text == "":
        return [], None
    if not isinstance(text, str) or len(text) > MAX_TEXT:
        return [], "The stored roll history is too large to read; it was left untouched and a fresh one started."
    try:
        data = json.loads(text)
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
