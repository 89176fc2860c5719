"""The party as stored text: every character and NPC of every game, kept,
merged and read back with each sheet checked by the rules, so a corrupt,
old or hostile store (or an imported file, or a sheet from a link) gives a
clear message and loses none of the sheets that are sound. Pure; no DOM.

An entry is ``{"id", "system", "time", "sheet"}``: a random ``id`` (the
same sheet on every tab and device it travels to), the game, when it was
last changed (ms), and the sheet as ``rules.normalize_sheet`` gives it;
and ``waiting`` while a roll's consequence waits on the player's choice
(the roll's ``spec`` and ``stages``, replayed by the rules when asked), so
a reload before the choice loses nothing.
A deleted sheet leaves ``{"id", "time"}`` under ``gone``, so a second tab
that still holds it does not bring it back when the two are merged.

**Merged, never overwritten** (docs/PARTY.md): two tabs of the page
each write the whole party; each merges what is stored before writing
(``merge``): the union by id, the later change of each sheet winning, a
deletion winning over an older change.

>>> import rules
>>> wu = new_entry("jadeclaw", rules.SHEETS["jadeclaw"].EXAMPLE_SHEETS["wu"], "a1", 5)
>>> party, gone, warning = load(dump([wu], []))
>>> party == [wu], gone, warning
(True, [], None)
>>> later = {**wu, "time": 9, "sheet": {**wu["sheet"], "player": "Ana"}}
>>> [e["sheet"]["player"] for e in merge([wu], [], [later], [])[0]]
['Ana']
"""

from __future__ import annotations

import json

import rules
from records import store
from rules.dice import SpecError, is_number

__all__ = ["VERSION", "MAX_SHEETS", "new_entry", "checked", "waiting_ok", "load", "dump", "merge", "put", "remove",
           "of_system", "find", "from_seat", "export_items", "import_items", "Full"]

VERSION = 1
#: Sheets kept in all (every game together): a campaign's party and its NPCs.
MAX_SHEETS = 120
#: Deletions remembered (the newest), so another tab's copy stays deleted.
MAX_GONE = 240
#: A stored or imported party larger than this is not read.
MAX_TEXT = 4_000_000
ID_CHARS = frozenset("0123456789abcdef")


class Full(ValueError):
    """No room for another sheet; the message is for the banner."""


def _id_ok(v) -> bool:
    return isinstance(v, str) and 1 <= len(v) <= 32 and set(v) <= ID_CHARS


def _time_ok(v) -> bool:
    return is_number(v) and v == v and 0 <= v < 1e15


def new_entry(system: str, sheet, sheet_id: str, time) -> dict:
    """An entry, its sheet normalized (a SpecError names the field)."""
    return {"id": sheet_id, "system": system, "time": time, "sheet": rules.normalize_sheet(system, sheet)}


def waiting_ok(w) -> bool:
    """The shape of a roll waiting on a choice (its dice are checked when
    the rules replay it)."""
    return (isinstance(w, dict) and set(w) == {"spec", "stages"} and isinstance(w["spec"], dict)
            and isinstance(w["stages"], list) and 0 < len(w["stages"]) <= rules.MAX_STAGES
            and all(isinstance(s, dict) for s in w["stages"]))


def checked(item) -> dict | None:
    """A stored or imported entry, checked whole: its sheet normalized by
    its game; None if any part of it is unsound (a waiting roll that is
    not one is dropped, the sheet kept)."""
    if not (isinstance(item, dict) and _id_ok(item.get("id")) and item.get("system") in rules.SYSTEMS
            and _time_ok(item.get("time"))):
        return None
    try:
        entry = new_entry(item["system"], item.get("sheet"), item["id"], item["time"])
    except (SpecError, RecursionError):
        return None
    if waiting_ok(item.get("waiting")):
        entry["waiting"] = {"spec": item["waiting"]["spec"], "stages": item["waiting"]["stages"]}
    return entry


def _gone_ok(g) -> bool:
    return isinstance(g, dict) and _id_ok(g.get("id")) and _time_ok(g.get("time"))


def _document(text):
    if not isinstance(text, str) or len(text) > MAX_TEXT:
        raise ValueError("is too large to read")
    try:
        data = store.parse_json(text)
    except (ValueError, RecursionError):
        raise ValueError("could not be read (it is not valid JSON)") from None
    return _party_shape(data)


def _party_shape(data) -> dict:
    """A stored party's data as this page reads it: its sheets and
    deletions are lists, its version no newer than this page's."""
    if not isinstance(data, dict) or not isinstance(data.get("sheets"), list) or not isinstance(data.get("gone", []), list):
        raise ValueError("has an unknown shape")
    if not isinstance(data.get("v"), int) or data["v"] > VERSION:
        raise ValueError("is from a newer version of this page")
    return data


def load(text) -> tuple[list, list, str | None]:
    """(the sheets, the deletions, a warning for the banner or None)."""
    if text is None or text == "":
        return [], [], None
    try:
        data = _document(text)
    except ValueError as e:
        return [], [], f"The stored party {e}; it was left untouched and a fresh one started."
    items = data["sheets"][:MAX_SHEETS]
    good = _unique([c for c in map(checked, items) if c is not None])
    return good, _sound_gone(data.get("gone", [])[:MAX_GONE]), _unread_warning(len(items) - len(good), len(good))


def _sound_gone(items: list) -> list:
    """The stored deletions that are sound, each as ``{"id", "time"}``."""
    return [{"id": g["id"], "time": g["time"]} for g in items if _gone_ok(g)]


def _unread_warning(bad: int, good: int) -> str | None:
    """The banner's words for stored sheets that could not be read (None
    when all could)."""
    if not bad:
        return None
    return f"{bad} stored character sheet(s) could not be read and are not shown; the other {good} are."


def _unique(entries: list) -> list:
    """One entry an id (the later change)."""
    by_id: dict = {}
    for e in entries:
        if e["id"] not in by_id or e["time"] > by_id[e["id"]]["time"]:
            by_id[e["id"]] = e
    return list(by_id.values())


def dump(entries: list, gone: list) -> str:
    return json.dumps({"v": VERSION, "sheets": entries, "gone": gone[-MAX_GONE:]}, ensure_ascii=False,
                      separators=(",", ":"))


def merge(mine: list, my_gone: list, theirs: list, their_gone: list) -> tuple[list, list]:
    """Two copies of the party as one: each sheet's later change wins (a
    tie keeps ``mine``), a deletion wins over a change made before it."""
    gone = _deleted_at(list(their_gone) + list(my_gone))
    kept = [e for e in _later_of_each(mine, theirs) if gone.get(e["id"], -1) < e["time"]]
    order: dict = {}
    for i, e in enumerate(list(mine) + list(theirs)):
        order.setdefault(e["id"], i)
    kept.sort(key=lambda e: order[e["id"]])
    gone_list = sorted(({"id": k, "time": t} for k, t in gone.items()), key=lambda g: g["time"])[-MAX_GONE:]
    return kept[:MAX_SHEETS], gone_list


def _deleted_at(gone: list) -> dict:
    """Each deleted id and when it was last deleted."""
    out: dict = {}
    for g in gone:
        out[g["id"]] = max(out.get(g["id"], 0), g["time"])
    return out


def _later_of_each(mine: list, theirs: list) -> list:
    """Of each sheet in either copy, its later change (a tie keeps ``mine``)."""
    by_id = {e["id"]: e for e in theirs}
    for e in mine:
        if e["id"] not in by_id or e["time"] >= by_id[e["id"]]["time"]:
            by_id[e["id"]] = e
    return list(by_id.values())


def put(entries: list, entry: dict) -> list:
    """The party with ``entry`` added, or in place of the one with its id."""
    if any(e["id"] == entry["id"] for e in entries):
        return [entry if e["id"] == entry["id"] else e for e in entries]
    if len(entries) >= MAX_SHEETS:
        raise Full(f"The party holds at most {MAX_SHEETS} character sheets; delete one first.")
    return list(entries) + [entry]


def from_seat(entries: list, entry: dict, seat: str, time) -> tuple[list, dict | None]:
    """A character a phone at the live table sent (checked at the channel,
    played by ``seat``): added, or in place of the same sheet (by its id)
    when that one is the seat's own character; a choice waiting on it
    stays. The party and the sheet it replaced (None: new). A sheet that
    would take the place of an NPC, another game's or another player's is
    refused (ValueError, the words for the banner); so is one past
    ``MAX_SHEETS`` (``Full``).

    >>> import rules
    >>> wu = new_entry("jadeclaw", {"name": "Wu", "player": "Eli"}, "a1", 5)
    >>> [e["time"] for e in from_seat([wu], {**wu, "time": 1}, "Eli", 9)[0]]
    [9]
    >>> from_seat([wu], wu, "Dana", 9)
    Traceback (most recent call last):
    ...
    ValueError: it would take the place of Wu, who is not Dana's
    """
    had = find(entries, entry["id"])
    if had is not None:
        _check_seats_own(had, entry, seat)
    kept = {"waiting": had["waiting"]} if had is not None and "waiting" in had else {}
    return put(entries, {**entry, **kept, "time": time}), had


def _check_seats_own(had: dict, entry: dict, seat: str) -> None:
    """The sheet a seat's character would replace must be that seat's
    character in the same game (never an NPC, another game's or
    another player's)."""
    if had["system"] != entry["system"] or had["sheet"]["npc"] or had["sheet"]["player"] != seat:
        raise ValueError(f"it would take the place of {had['sheet']['name']}, who is not {seat}'s")


def remove(entries: list, gone: list, sheet_id: str, time) -> tuple[list, list]:
    return [e for e in entries if e["id"] != sheet_id], (list(gone) + [{"id": sheet_id, "time": time}])[-MAX_GONE:]


def of_system(entries: list, system: str) -> list:
    """One game's sheets: the players' characters, then the NPCs, each by name.

    >>> a = {"id": "1", "system": "mirage", "sheet": {"name": "Zed", "npc": False}}
    >>> b = {"id": "2", "system": "mirage", "sheet": {"name": "Guard", "npc": True}}
    >>> [e["id"] for e in of_system([b, a], "mirage")]
    ['1', '2']
    """
    mine = [e for e in entries if e["system"] == system]
    return sorted(mine, key=lambda e: (bool(e["sheet"]["npc"]), e["sheet"]["name"].casefold(), e["id"]))


def find(entries: list, sheet_id) -> dict | None:
    return next((e for e in entries if e["id"] == sheet_id), None)


def export_items(entries: list) -> list:
    """The party as an export file carries it."""
    return [dict(e) for e in entries]


def import_items(items, entries: list, gone: list) -> tuple[list, int, int]:
    """An export's sheets merged into the party: (the party, how many were
    new or newer, how many could not be read). An import never removes."""
    if not isinstance(items, list):
        return entries, 0, 0 if items is None else 1
    got = _unique([c for c in map(checked, items[:MAX_SHEETS]) if c is not None])
    merged, _ = merge(entries, gone, got, [])
    return merged, _newer(got, entries), len(items[:MAX_SHEETS]) - len(got)


def _newer(got: list, entries: list) -> int:
    """How many sheets of ``got`` the party lacks or holds an older change of."""
    before = {e["id"]: e["time"] for e in entries}
    return sum(1 for e in got if e["id"] not in before or e["time"] > before[e["id"]])
