"""The roll history as stored text: add with a visible cap, dump, and load
with every entry checked, so a corrupt, old or hostile store gives a clear
message and loses none of the entries that are sound. Pure; no DOM.

**What is stored** (docs/TRUST.md, "A link cannot lie"): only what replays a roll, never the
result the rules rebuild from it. An entry is ``system``, ``spec`` (as the
rules normalized it), ``stages`` (each action with its draws), ``time``
(ms), ``label``, ``roller`` (the name set on the device that rolled, or the
player named in a fair roll), ``source`` (``"here"``, ``"shared"``: a result
opened from a link, faces as reported; ``"fair"``: a fair roll at a
distance, with its final link under ``fair``). The page rebuilds the result
with ``replay`` when it shows the entry, so a stored outcome can never lie
and a roll costs a few hundred bytes instead of kilobytes. Stores and
exports of version 1 (the whole result in each entry) are read and
converted (``compact``).

>>> r = rules.roll("jadeclaw", {"dice": [8]}, rules.ScriptedRng([5]))
>>> e = new_entry(r, time=1, roller="Dana")
>>> sorted(e)
['label', 'roller', 'source', 'spec', 'stages', 'system', 'time']
>>> entries, dropped = add([], e)
>>> load(dump(entries))[0] == entries, replay(entries[0]) == r
(True, True)
>>> load("{not json")[1]
'The stored roll history could not be read (it is not valid JSON); a fresh one was started.'
"""

from __future__ import annotations

import json
import re
from itertools import accumulate, repeat
from operator import sub

import rules
from rules.dice import is_number
from shell.names import NAME_MAX
from records.synced import Synced, as_json

VERSION = 2
CAP = 200
MAX_TEXT = 5_000_000
#: Stored text nested deeper than this is refused before it is parsed: in
#: Pyodide, parsing (or merely freeing) JSON nested ~8000 deep overflows the
#: JavaScript stack and kills Python for good (measured in Chromium: a
#: history of 10 000 nested brackets kept the page from ever loading; a
#: RecursionError is never raised). A real history nests under 12.
MAX_DEPTH = 64
LABEL_MAX = 200
FAIR_LINK_MAX = 16_000
SOURCES = ("here", "shared", "fair")
#: The fields an entry is stored with; anything else (the page's own id,
#: a result kept in memory) stays out of the store and the export.
STORED = ("system", "spec", "stages", "time", "label", "roller", "source", "fair")
#: The label version 1 gave a result opened from a link.
OLD_SHARED_LABEL = "Shared link"

__all__ = ["VERSION", "CAP", "add", "dump", "load", "new_entry", "compact", "replay", "key",
           "matches", "filtered", "is_current", "export_text", "read_export", "merge", "import_text",
           "save_setup", "dump_setups", "load_setups", "valid_setup", "clean_name", "turn_key", "further",
           "newest_first", "synced_history", "synced_setups", "parse_json"]


# ---------------------------------------------------------------- one entry

def clean_name(text, limit: int = NAME_MAX) -> str:
    """A name or label as stored: spaces folded, at most ``limit`` characters.

    >>> clean_name("  Dana   Levi  ")
    'Dana Levi'
    """
    return " ".join(str(text or "").split())[:limit]


def new_entry(result: dict, *, time=0, label="", roller="", source="here", fair=None) -> dict:
    """The stored entry of a result: what replays it, and how it came."""
    e = {"system": result["system"], "spec": result["spec"], "stages": result["stages"],
         "time": _whole(time), "label": clean_name(label, LABEL_MAX),
         "roller": clean_name(roller), "source": source}
    if fair:
        e["fair"] = fair
    return e


def _whole(t):
    """A time as JSON keeps it: 1.7e12 and 1700000000000 are one time."""
    return int(t) if isinstance(t, float) and t.is_integer() else t


def _is_time(t) -> bool:
    return is_number(t) and t == t


def _is_text(v, limit: int) -> bool:
    return isinstance(v, str) and len(v) <= limit


def _stages_ok(stages) -> bool:
    return (isinstance(stages, list) and 0 < len(stages) <= rules.MAX_STAGES
            and all(isinstance(s, dict) for s in stages))


def _fair_ok(e: dict) -> bool:
    if e["source"] != "fair":
        return "fair" not in e
    return _is_text(e.get("fair"), FAIR_LINK_MAX)


def _valid(e: dict) -> bool:
    """The shape an entry must have before the page will show it (its
    dice are checked when it is replayed)."""
    return (e.get("system") in rules.SYSTEMS and isinstance(e.get("spec"), dict)
            and _stages_ok(e.get("stages")) and _is_time(e.get("time"))
            and _is_text(e.get("label"), LABEL_MAX) and _is_text(e.get("roller"), NAME_MAX)
            and e.get("source") in SOURCES and _fair_ok(e))


def _from_old(e: dict) -> dict:
    """A version-1 entry (the whole result inside) as a stored one."""
    r = e["result"]
    label = e.get("label", "")
    source = e.get("source")
    if source not in SOURCES:
        source = "shared" if label == OLD_SHARED_LABEL else "here"
    out = {"system": e.get("system"), "spec": r.get("spec"), "stages": r.get("stages"),
           "time": e.get("time", 0), "label": "" if label == OLD_SHARED_LABEL else label,
           "roller": e.get("roller", ""), "source": source}
    if "fair" in e:
        out["fair"] = e["fair"]
    return out


def compact(e):
    """The stored form of an entry of either version, or None if it is not
    one. (The page's id and any result kept in memory are left out.)

    >>> old = {"system": "jadeclaw", "time": 3, "label": "Shared link",
    ...        "result": {"spec": {"dice": [8]}, "stages": [{"do": "roll", "draws": [2]}], "dice": []}}
    >>> compact(old)["source"], compact(old)["label"], "result" in compact(old)
    ('shared', '', False)
    >>> compact({"system": "chess"}) is None
    True
    """
    if not isinstance(e, dict):
        return None
    if isinstance(e.get("result"), dict):
        e = _from_old(e)
    out = {k: e[k] for k in STORED if k in e}
    out.setdefault("label", "")
    out.setdefault("roller", "")
    out.setdefault("source", "here")
    if not _valid(out):
        return None
    out["time"] = _whole(out["time"])
    return out


def replay(e: dict) -> dict:
    """The entry's result, rebuilt by the rules from its draws (a
    ``SpecError`` if they do not fit the roll), without best play's
    advice: the page asks for that beside the page when it shows it."""
    return rules.replay(e["system"], e["spec"], e["stages"], advise=False)


def key(e: dict) -> str:
    """What makes two entries the same roll (so an import, or a link opened
    again, does not add it twice): a fair roll's final link (the same on
    the GM's page and the player's); a shared result's game, spec and draws
    (the link's content, whenever it was opened); else those and the time
    it was rolled."""
    if e.get("source") == "fair" and e.get("fair"):
        return "fair:" + e["fair"]
    when = "shared" if e.get("source") == "shared" else _whole(e.get("time"))
    return json.dumps([e["system"], when, e["spec"], e["stages"]], sort_keys=True,
                      separators=(",", ":"), ensure_ascii=False)


def turn_key(e: dict) -> str:
    """What makes two tabs' copies of an entry the same turn: a step
    changes a turn's stages, not which turn it is (its game, time, spec
    and first roll). Any other entry: ``key``.

    >>> r = rules.roll("milhamah", {"shoresh": "אשר", "pool": ["red"]}, rules.ScriptedRng([1, 2, 3, 4]))
    >>> later = rules.act("milhamah", r["spec"], r, {"do": "reroll", "dice": [0]}, rules.ScriptedRng([5]))
    >>> turn_key(new_entry(r, time=5)) == turn_key(new_entry(later, time=5)), key(new_entry(r, time=5)) == key(new_entry(later, time=5))
    (True, False)
    """
    if e.get("source") != "here":
        return key(e)
    return json.dumps([e["system"], _whole(e.get("time")), e["spec"], e["stages"][:1]], sort_keys=True,
                      separators=(",", ":"), ensure_ascii=False)


def further(mine: dict, theirs: dict) -> dict:
    """Of two tabs' copies of one turn that both went on, the one that went
    further (a turn only ever gains stages)."""
    return theirs if len(theirs.get("stages") or ()) > len(mine.get("stages") or ()) else mine


def newest_first(entries: list) -> list:
    return sorted(entries, key=lambda e: -float(e.get("time") or 0))


def synced_history() -> Synced:
    """The stored history as every tab of the page shares it: merged by
    turn (``turn_key``), in time order; the page caps it (``add``)."""
    return Synced(load, dump, turn_key, form=lambda e: as_json(_stored(e)), pick=further, order=newest_first)


def synced_setups() -> Synced:
    """The saved setups as every tab shares them: one per game and name."""
    return Synced(load_setups, dump_setups, lambda s: (s["system"], s["name"]))


# ---------------------------------------------------------------- the list

def add(entries: list, entry: dict) -> tuple[list, int]:
    """Newest first; past ``CAP`` the oldest go, and how many is returned so
    the page can say so (never silently)."""
    new = [entry] + list(entries)
    dropped = max(0, len(new) - CAP)
    return new[:CAP], dropped


def continues(e: dict, result: dict) -> bool:
    """Is ``result`` a later step of the turn ``e`` holds (one turn
    is one entry)? The same game and spec, and the entry's stages are the
    first stages of the result's, with more after them. A result made here
    only: a shared or fair entry is a record of someone else's turn.

    >>> r = rules.roll("milhamah", {"shoresh": "אשר", "pool": ["red"]}, rules.ScriptedRng([1, 2, 3, 4]))
    >>> e = new_entry(r)
    >>> later = rules.act("milhamah", r["spec"], r, {"do": "reroll", "dice": [0]}, rules.ScriptedRng([5]))
    >>> continues(e, later), continues(e, r), continues(new_entry(later), r)
    (True, False, False)
    """
    stages = e.get("stages") or []
    new = result.get("stages") or []
    return _own_setup(e, result) and len(new) > len(stages) and new[:len(stages)] == stages


def holds(e: dict, result: dict) -> bool:
    """Is ``e`` this page's own entry of exactly ``result`` (the turn a
    reload brought back to its tab)?"""
    return _own_setup(e, result) and e.get("stages") == result.get("stages")


def _own_setup(e: dict, result: dict) -> bool:
    """Is ``e`` this page's own entry of ``result``'s game and spec?"""
    return (e.get("source") == "here" and e.get("system") == result.get("system")
            and e.get("spec") == result.get("spec"))


def advance(entries: list, index: int, result: dict) -> list:
    """The history with entry ``index`` holding ``result``'s stages (the
    turn went on): it keeps its place, time, label and roller."""
    out = list(entries)
    out[index] = {**out[index], "stages": result["stages"]}
    return out


def _stored(e: dict) -> dict:
    return {k: e[k] for k in STORED if k in e}


#: Each entry's stored line, made once (id -> (entry, line)): the page
#: replaces an entry when its turn goes on, never changes one in place, so
#: writing the history after a roll costs one new line, not two hundred.
_LINES: dict = {}


def _line(e: dict) -> str:
    got = _LINES.get(id(e))
    if got is None or got[0] is not e:
        got = _LINES[id(e)] = (e, json.dumps(_stored(e), ensure_ascii=False, separators=(",", ":")))
    return got[1]


def _entries_json(entries: list) -> str:
    if len(_LINES) > 3 * CAP:  # entries long gone are let go
        _LINES.clear()
    return ",\n".join(map(_line, entries))


def dump(entries: list) -> str:
    return f'{{"v":{VERSION},"entries":[\n{_entries_json(entries)}]}}'


def matches(e: dict, system: str = "", text: str = "") -> bool:
    """The history filter: one game (``""``: all), and a piece of the
    roller's name or of the label (a character, a saved setup, a fair
    roll's player), in any case.

    >>> e = {"system": "mirage", "roller": "Dana", "label": "Etgar — Spirit Gust"}
    >>> matches(e, "mirage", "etgar"), matches(e, "", "DANA"), matches(e, "alkemy"), matches(e, "", "wu")
    (True, True, False, False)
    """
    if system and e.get("system") != system:
        return False
    needle = " ".join(str(text or "").split()).casefold()
    return not needle or needle in f"{e.get('roller', '')}\n{e.get('label', '')}".casefold()


def filtered(entries: list, system: str = "", text: str = "") -> list:
    return [e for e in entries if matches(e, system, text)]


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


#: The guarded ``json.loads`` (``_parse``), for the page's other stores too.
parse_json = _parse


class Unreadable(ValueError):
    """Stored or imported text that holds no history; the message says why."""


def _document(text, what: str, bare_list: bool = False) -> dict:
    """The parsed ``{"v", "entries", ...}`` document, or ``Unreadable``
    (``bare_list``: a plain list of entries, as the first stores held)."""
    data = _parsed(text, what)
    if isinstance(data, list) and bare_list:  # no version: a bare list of entries
        data = {"v": 0, "entries": data}
    if not isinstance(data, dict) or not isinstance(data.get("entries", []), list):
        raise Unreadable(f"{what} has an unknown shape")
    v = data.get("v", 0)
    if not isinstance(v, int) or v > VERSION:
        raise Unreadable(f"{what} is from a newer version of this page ({v!r})")
    return data


def _parsed(text, what: str):
    """The data stored or imported text holds, or ``Unreadable`` (too
    large, or not JSON, or nested too deep)."""
    if not isinstance(text, str) or len(text) > MAX_TEXT:
        raise Unreadable(f"{what} is too large to read")
    try:
        return _parse(text)
    except (ValueError, RecursionError):
        raise Unreadable(f"{what} could not be read (it is not valid JSON)") from None


def _sound(items: list) -> tuple[list, int]:
    """The entries that are sound (in stored form), and how many were not."""
    good = [c for c in map(compact, items[:CAP]) if c is not None]
    return good, len(items[:CAP]) - len(good)


def load(text) -> tuple[list, str | None]:
    """Entries from stored text (either version), and a warning to show if
    any were unusable."""
    if text is None or text == "":
        return [], None
    try:
        data = _document(text, "The stored roll history", bare_list=True)
    except Unreadable as e:
        return [], f"{e}; a fresh one was started."
    if "entries" not in data:
        return [], "The stored roll history has an unknown shape; a fresh one was started."
    good, bad = _sound(data["entries"])
    warning = None
    if bad:
        warning = f"{bad} stored roll(s) could not be read and are not shown; the other {len(good)} are."
    return good, warning


def is_current(text) -> bool:
    """Whether stored text is already in this version's form (else the page
    writes the converted entries back, so the next start reads less).

    >>> is_current(dump([])), is_current('{"v":1,"entries":[]}')
    (True, False)
    """
    return isinstance(text, str) and text.startswith(f'{{"v":{VERSION},')


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
    name = clean_name(name, SETUP_NAME_MAX)
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
        data = _parsed(text, "The saved setups")
    except Unreadable:
        data = None
    if not isinstance(data, dict) or not isinstance(data.get("setups"), list):
        return [], "The saved setups could not be read; a fresh list was started."
    return _sound_setups(data["setups"][:MAX_SETUPS])


def _sound_setups(items: list) -> tuple[list, str | None]:
    """The stored setups that are sound, and a warning if any was not."""
    good = [s for s in items if valid_setup(s)]
    bad = len(items) - len(good)
    return good, (f"{bad} saved setup(s) could not be read and are not shown." if bad else None)


# ---------------------------------------------------------------- export and import

def export_text(entries: list, setups: list, requests: list | None = None, party: list | None = None) -> str:
    """One JSON file with the history (one roll a line), the saved setups
    and, given, the fair-roll requests (a campaign log, and the GM's backup
    of its open requests) and the party's sheets (``party.roster``)."""
    extra = "" if requests is None else ',\n"requests":' + json.dumps(list(requests), ensure_ascii=False)
    extra += "" if party is None else ',\n"party":' + json.dumps(list(party), ensure_ascii=False)
    setups_json = json.dumps(setups, ensure_ascii=False, indent=1)
    return (f'{{"app":"dice-table","v":{VERSION},\n"entries":[\n{_entries_json(entries)}],\n'
            f'"setups":{setups_json}{extra}}}\n')


def read_export(text) -> dict:
    """An exported file's document, or ``Unreadable`` with the reason."""
    data = _document(text, "That file")
    if not isinstance(data.get("setups", []), list):
        raise Unreadable("That file has an unknown shape")
    return data


def _merge_entries(items: list, entries: list) -> tuple[list, int, int, int]:
    """(the merged history, new, already there, unreadable)."""
    got = [c for c in map(compact, items) if c is not None]
    fresh = _not_yet_in(got, entries)
    merged = sorted(list(entries) + fresh, key=lambda e: -float(e.get("time") or 0))[:CAP]
    return merged, len(fresh), len(got) - len(fresh), len(items) - len(got)


def _not_yet_in(got: list, entries: list) -> list:
    """The entries of ``got`` that ``entries`` does not hold (by ``key``),
    each once."""
    seen = {key(e) for e in entries}
    fresh = []
    for e in got:
        k = key(e)
        if k not in seen:
            seen.add(k)
            fresh.append(e)
    return fresh


def _merge_setups(items: list, setups: list) -> tuple[list, int]:
    out = list(setups)
    have = {(s["system"], s["name"]) for s in out}
    for s in items:
        if valid_setup(s) and (s["system"], s["name"]) not in have and len(out) < MAX_SETUPS:
            out.append({"system": s["system"], "name": s["name"], "spec": s["spec"]})
            have.add((s["system"], s["name"]))
    return out, len(out) - len(setups)


def _imported_words(fresh: int, twice: int, setups: int) -> str:
    """What an import added, and the rolls that were there already."""
    if fresh or setups or not twice:
        msg = f"Imported {fresh} roll(s) and {setups} saved setup(s)."
        if twice:
            msg += f" {twice} roll(s) were already in your history and were not added twice."
        return msg
    return f"Nothing new: the {twice} roll(s) in that file are already in your history."


def _import_message(fresh: int, twice: int, setups: int, skipped: int, over: bool) -> str:
    msg = _imported_words(fresh, twice, setups)
    if skipped:
        msg += f" {skipped} unreadable entr{'y was' if skipped == 1 else 'ies were'} skipped."
    if over:
        msg += f" The history keeps the newest {CAP}."
    return msg


def merge(data: dict, entries: list, setups: list) -> tuple[list, list, str]:
    """An export's rolls and setups merged into the current ones; a roll
    already there (``key``) is not added twice, and the message says how
    many were new and how many were there already."""
    items = data.get("entries", [])
    merged, fresh, twice, skipped = _merge_entries(items, entries)
    new_setups, added = _merge_setups(data.get("setups", []), setups)
    msg = _import_message(fresh, twice, added, skipped, len(entries) + fresh > CAP)
    return merged, new_setups, msg


def import_text(text, entries: list, setups: list) -> tuple[list, list, str]:
    """Merge an exported file into the current history and setups. Returns
    the new lists and a message saying what was imported or why not; the
    current lists are never lost.

    >>> e = [new_entry(rules.roll("jadeclaw", {"dice": [8]}), time=2)]
    >>> new_e, new_s, msg = import_text(export_text(e, []), [], [])
    >>> len(new_e), msg
    (1, 'Imported 1 roll(s) and 0 saved setup(s).')
    >>> import_text(export_text(e, []), new_e, [])[2]
    'Nothing new: the 1 roll(s) in that file are already in your history.'
    >>> import_text("nonsense", e, [])[2]
    'That file could not be read (it is not valid JSON); nothing was changed.'
    """
    try:
        data = read_export(text)
    except Unreadable as e:
        return entries, setups, f"{e}; nothing was changed."
    return merge(data, entries, setups)
