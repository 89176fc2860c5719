"""The party as HTML, and a sheet's editor read back: pure, no DOM.

Everything is drawn from the rules: a game's sheet fields and situation
(``rules.SHEETS[system].FIELDS``, ``SITUATION``, read the same way by
``rules.sheets``), its checks and what each applies (``rules.sheet_checks``).
So a sixth game's party needs nothing here. Every text is escaped.

The markers (docs/CONTRACT.md, "Markers the tests rely on"): ``data-character`` (the
name) on each character or NPC in the party, ``data-npc`` on NPCs,
``data-check`` (the check's name) on each check's roll button,
``data-against`` on each possible opponent (``data-npc`` again on NPCs).

>>> import rules
>>> wu = {"id": "a1", "system": "jadeclaw", "time": 1,
...       "sheet": rules.normalize_sheet("jadeclaw", rules.SHEETS["jadeclaw"].EXAMPLE_SHEETS["wu"])}
>>> html = party_html("jadeclaw", [wu], {"selected": "a1"})
>>> 'data-character="Wu Shousu"' in html, 'data-check="Fast-Talk"' in html
(True, True)
"""

from __future__ import annotations

import re

import rules
from drawing import views
from rules.dice import format_pool
from rules.sheets import COMMON, key_of

__all__ = ["party_html", "card_html", "editor_html", "control_html", "choices_html", "read_sheet",
           "read_situation", "read_play", "rows_of", "display", "roll_label", "changes_text", "opposing_check"]

esc = views.esc


# ---------------------------------------------------------------- values shown and read

def display(f: dict, value) -> str:
    """A field's value as its control shows it."""
    kind = f["kind"]
    if kind == "dice":
        return format_pool(value) if value else ""
    if kind == "texts":
        return ", ".join(value or [])
    if kind == "bool":
        return "on" if value else ""
    return "" if value is None else str(value)


def _one(fields: dict, name: str) -> str:
    return (fields.get(name) or [""])[0]


def _read(f: dict, fields: dict, path: str):
    """One declared field from the form's fields (name -> [values])."""
    kind = f["kind"]
    if kind == "picks":
        return list(fields.get(path, []))
    if kind == "bool":
        return bool(fields.get(path))
    if kind == "group":
        return _read_all(f["fields"], fields, path + ".")
    if kind == "entries":
        return [_read_all(f["fields"], fields, f"{path}.{i}.") for i in rows_of(fields, path)]
    return _one(fields, path)


def _read_all(decl: tuple, fields: dict, prefix: str = "") -> dict:
    return {f["name"]: _read(f, fields, prefix + f["name"]) for f in decl}


def rows_of(fields: dict, path: str) -> list:
    """The row numbers of an entries field present in the form, in order.

    >>> rows_of({"skills.0.name": ["a"], "skills.2.name": ["b"], "skills.x": []}, "skills")
    [0, 2]
    """
    pattern = re.compile(re.escape(path) + r"\.(\d{1,3})\.")
    return sorted({int(m.group(1)) for name in fields if (m := pattern.match(name))})


def read_sheet(system: str, fields: dict) -> dict:
    """The editor's form (name -> [values]) as a sheet for ``rules.normalize_sheet``."""
    return _read_all(COMMON + tuple(rules.SHEETS[system].FIELDS), fields)


def read_play(system: str, fields: dict, sheet: dict) -> dict:
    """``sheet`` with its play fields as the card's form holds them."""
    decl = [f for f in rules.SHEETS[system].FIELDS if f.get("play")]
    return {**sheet, **_read_all(tuple(decl), fields)}


def read_situation(system: str, fields: dict) -> dict:
    """The situation form's fields (an empty one: the check's default)."""
    return {f["name"]: _read(f, fields, f["name"]) for f in rules.SHEETS[system].SITUATION
            if f["kind"] == "bool" or _one(fields, f["name"]).strip()}


# ---------------------------------------------------------------- controls

def _error(path: str) -> str:
    return f'<p class="field-error" data-error-for="{esc(path)}"></p>'


def _options(choices, value, blank: str = "") -> str:
    opts = [f'<option value="">{esc(blank)}</option>'] if blank else []
    for v, label in choices:
        sel = " selected" if str(v) == str(value) else ""
        opts.append(f'<option value="{esc(v)}"{sel}>{esc(label)}</option>')
    return "".join(opts)


def _size_choices(f: dict) -> list:
    sizes = list(f.get("sizes", (4, 6, 8, 10, 12)))
    return ([(0, "none")] if f.get("zero") else []) + [(s, f"d{s}") for s in sizes]


def _input(f: dict, path: str, value) -> str:
    kind = f["kind"]
    if kind == "int":
        return (f'<input name="{esc(path)}" type="number" inputmode="numeric" step="1" min="{f["min"]}" '
                f'max="{f["max"]}" value="{esc(display(f, value))}">')
    if kind in ("choice", "size"):
        choices = f["choices"] if kind == "choice" else _size_choices(f)
        return f'<select name="{esc(path)}">{_options(choices, value, f.get("blank", ""))}</select>'
    size = {"dice": 12, "texts": 40}.get(kind, 24)
    hint = {"dice": ' placeholder="e.g. d10" autocapitalize="off"', "texts": ' placeholder="separated by commas"'}
    return (f'<input name="{esc(path)}" type="text" size="{size}" maxlength="{4 * f.get("most", 40) if kind == "text" else 400}"'
            f' value="{esc(display(f, value))}"{hint.get(kind, "")} autocomplete="off">')


def _check_box(path: str, value: str, label: str, on: bool) -> str:
    return (f'<label class="tick"><input type="checkbox" name="{esc(path)}" value="{esc(value)}"'
            f'{" checked" if on else ""}> {esc(label)}</label>')


def _picks(f: dict, path: str, value) -> str:
    boxes = "".join(_check_box(path, v, label, v in (value or [])) for v, label in f["choices"])
    return f'<fieldset class="picks"><legend>{esc(f["label"])}</legend>{boxes}</fieldset>{_error(path)}'


def _group(f: dict, path: str, value) -> str:
    inner = "".join(control_html(sub, f"{path}.{sub['name']}", (value or {}).get(sub["name"])) for sub in f["fields"])
    return f'<fieldset class="sheet-group"><legend>{esc(f["label"])}</legend>{inner}</fieldset>{_error(path)}'


def _row(f: dict, path: str, i: int, row: dict) -> str:
    inner = "".join(control_html(sub, f"{path}.{i}.{sub['name']}", row.get(sub["name"])) for sub in f["fields"])
    name = row.get("name") or f"row {i + 1}"
    return (f'<fieldset class="sheet-row"><legend>{esc(name)}</legend>{inner}'
            f'<button type="button" class="row-remove" data-sheet-remove="{esc(path)}.{i}">Remove {esc(name)}</button>'
            f'</fieldset>')


def _entries(f: dict, path: str, value) -> str:
    rows = "".join(_row(f, path, i, row if isinstance(row, dict) else {}) for i, row in enumerate(value or []))
    one = f["fields"][0]["label"].lower()
    return (f'<fieldset class="sheet-entries"><legend>{esc(f["label"])}</legend>{rows}'
            f'<button type="button" data-sheet-add="{esc(path)}">Add a {esc(one)}</button></fieldset>{_error(path)}')


def _tick(f: dict, path: str, value) -> str:
    """A yes-or-no field: one box."""
    return _check_box(path, "on", f["label"], bool(value)) + _error(path)


def _field(f: dict, path: str, value) -> str:
    """A field of one value: its input (``_input``) labelled."""
    return f'<label class="field">{esc(f["label"])} {_input(f, path, value)}</label>{_error(path)}'


#: How each kind of field is drawn; any other kind is one value (``_field``).
_CONTROLS = {"bool": _tick, "picks": _picks, "group": _group, "entries": _entries}


def control_html(f: dict, path: str, value) -> str:
    """One declared field as a labelled control, its error slot under it."""
    return _CONTROLS.get(f["kind"], _field)(f, path, value)


def editor_html(system: str, sheet: dict) -> str:
    """The sheet's editor: every field of the game's sheet, filled."""
    decl = COMMON + tuple(rules.SHEETS[system].FIELDS)
    return "".join(control_html(f, f["name"], sheet.get(f["name"])) for f in decl)


# ---------------------------------------------------------------- the party

def _chip(e: dict, pressed: bool, attr: str = "data-character") -> str:
    s = e["sheet"]
    npc = ' data-npc=""' if s["npc"] else ""
    tag = _chip_tags(e, attr)
    who = f'<span class="chip-player">{esc(s["player"])}</span>' if s["player"] else ""
    value = esc(s["name"]) if attr == "data-character" else esc(e["id"])
    return (f'<button type="button" class="party-chip" {attr}="{value}" data-sheet="{esc(e["id"])}"{npc} '
            f'aria-pressed="{"true" if pressed else "false"}"><span class="chip-name">{esc(s["name"])}</span>'
            f'{tag}{who}</button>')


def _chip_tags(e: dict, attr: str) -> str:
    """A chip's tags: NPC; on the party's own chips, a choice a roll waits on."""
    npc = '<span class="chip-tag">NPC</span>' if e["sheet"]["npc"] else ""
    wait = e.get("waiting") and attr == "data-character"
    return npc + ('<span class="chip-tag chip-wait">to choose</span>' if wait else "")


def _listing(title: str, entries: list, selected) -> str:
    """The game's sheets as chips, the one selected pressed (none: no list)."""
    if not entries:
        return ""
    chips = "".join(f"<li>{_chip(e, e['id'] == selected)}</li>" for e in entries)
    return f'<ul class="party-list" aria-label="{title} characters and NPCs">{chips}</ul>'


def party_html(system: str, entries: list, ui: dict) -> str:
    """The game's party: each sheet a chip (the players' characters, then
    NPCs), the one selected opened as its card."""
    title = esc(rules.TITLES[system])
    listing = _listing(title, entries, ui.get("selected"))
    chosen = next((e for e in entries if e["id"] == ui.get("selected")), None)
    tools = "" if chosen else (f'<div class="party-tools"><button type="button" data-party-new aria-label="New {title} '
                               'character">New</button><button type="button" data-party-examples aria-label="Add '
                               f'{title} examples: the rules text\'s own characters">Examples</button></div>')
    card = card_html(system, chosen, [e for e in entries if e is not chosen], ui) if chosen else ""
    return f'{listing}{tools}{card}'


def _applied(check: dict) -> str:
    items = "".join(f'<li><strong>{esc(a["what"])}</strong>: {esc(a["why"])}</li>' for a in check["applied"])
    return f'<ul class="applied">{items}</ul>' if items else ""


def _checks(checks: list) -> str:
    items = "".join(f'<li><button type="button" class="check-roll" data-check="{esc(c["name"])}">'
                    f'{views.bidi_text(c["label"])}</button>{_applied(c)}</li>' for c in checks)
    return f'<ul class="party-checks" aria-label="Checks: tap one to roll it">{items}</ul>'


def opposing_check(system: str, check: str, names: list, chosen=None):
    """The check of the other side a roll of ``check`` meets: the one the GM
    chose, else the one the rules text sets against it (the game's
    ``OPPOSES``), else the one of the same name, else their first.

    >>> opposing_check("mirage", "Shadowcraft", ["Might", "Observation"])
    'Observation'
    >>> opposing_check("alkemy", "Reflex", ["Spirit", "Reflex"]), opposing_check("alkemy", "Reflex", ["Spirit"], "Spirit")
    ('Reflex', 'Spirit')
    """
    keys = {key_of(n): n for n in names}
    if chosen in names:
        return chosen
    paired = getattr(rules.SHEETS[system], "OPPOSES", {}).get(key_of(check), ())
    for k in tuple(paired) + (key_of(check),):
        if k in keys:
            return keys[k]
    return names[0] if names else None


def _against(others: list, ui: dict) -> str:
    """Who the roll is against: nobody, or another sheet (NPCs first) and
    which of its checks."""
    rivals = sorted(others, key=lambda e: not e["sheet"]["npc"])
    nobody = (f'<button type="button" class="party-chip" data-against="" '
              f'aria-pressed="{"false" if ui.get("against") else "true"}">nobody</button>')
    chips = "".join(_chip(e, e["id"] == ui.get("against"), "data-against") for e in rivals)
    rival = next((e for e in rivals if e["id"] == ui.get("against")), None)
    picks = "" if rival is None else _their_checks(rival, ui)
    return (f'<div class="party-against" role="group" aria-label="Against"><span class="row-title">Against</span>'
            f'{nobody}{chips}</div>{picks}')


def _their_checks(rival: dict, ui: dict) -> str:
    """The checks of the sheet the roll is against, the one chosen pressed
    (none chosen: the one that meets the roller's, said so)."""
    names = [c["name"] for c in rules.sheet_checks(rival["system"], rival["sheet"])]
    chosen = ui.get("against_check") if ui.get("against_check") in names else None
    picks = "".join(f'<button type="button" class="party-chip" data-against-check="{esc(n)}" '
                    f'aria-pressed="{"true" if n == chosen else "false"}">{esc(n)}</button>' for n in names)
    note = "" if chosen else '<span class="row-note">theirs: the one that meets yours, or tap one</span>'
    return (f'<div class="against-checks" role="group" aria-label="Their check">'
            f'<span class="row-title">Their check</span>{picks}{note}</div>')


def _situation(system: str, checks: list, values: dict) -> str:
    own = {k for c in checks for k in c["defaults"]}
    controls = "".join(control_html({**f, "blank": "the check's own"} if f["name"] in own else f, f["name"],
                                    values.get(f["name"], "" if f["name"] in own else f.get("default")))
                       for f in rules.SHEETS[system].SITUATION)
    return (f'<form id="party-situation" class="party-situation" aria-label="This roll" novalidate>'
            f'{controls}<p class="field-error" data-error-for="_form"></p></form>')


def _play(system: str, sheet: dict) -> str:
    decl = [f for f in rules.SHEETS[system].FIELDS if f.get("play")]
    if not decl:
        return ""
    controls = "".join(control_html(f, f["name"], sheet.get(f["name"])) for f in decl)
    return f'<form id="party-play" class="party-play" aria-label="In play" novalidate>{controls}</form>'


def choices_html(ask: dict, sheet_id: str) -> str:
    """The choices a roll's consequence waits on, one button each.

    >>> choices_html({"prompt": "Which?", "choices": [["battered", "Battered"]]}, "a1")
    '<button type="button" data-consequence="battered" data-for="a1">Battered</button>'
    """
    return "".join(f'<button type="button" data-consequence="{esc(v)}" data-for="{esc(sheet_id)}">{esc(label)}</button>'
                   for v, label in ask["choices"])


def _pending(ask: dict | None, sheet_id: str) -> str:
    if not ask:
        return ""
    return (f'<div class="party-pending" role="group" aria-labelledby="party-pending-q">'
            f'<p id="party-pending-q">{esc(ask["prompt"])}</p>{choices_html(ask, sheet_id)}</div>')


def _card_head(s: dict, ui: dict) -> str:
    """A card's head: the sheet's name, who plays it, its tools (a
    character is sent to the live table only while at one)."""
    npc = ' <span class="chip-tag">NPC</span>' if s["npc"] else ""
    player = f'<span class="card-player">played by {esc(s["player"])}</span>' if s["player"] else ""
    send = ('<button type="button" data-sheet-send>Send to the table</button>'
            if ui.get("table") and not s["npc"] else "")
    return (f'<div class="card-head"><h3 id="party-card-title">{esc(s["name"])}{npc}</h3>{player}'
            f'<span class="card-tools"><button type="button" data-sheet-edit>Edit sheet</button>'
            f'<button type="button" data-sheet-share>Share sheet</button>{send}</span></div>')


def card_html(system: str, entry: dict, others: list, ui: dict) -> str:
    """One sheet opened: its tools, the choice a roll waits on, who the
    roll is against, every check with what the sheet applies to it (a tap
    rolls it), the situation beside them, and what changes in play."""
    s = entry["sheet"]
    checks = rules.sheet_checks(system, s)
    head = _card_head(s, ui)
    last = f'<p class="party-last" role="status">{esc(ui["last"])}</p>' if ui.get("last") else ""
    return (f'<section class="party-card" data-card="{esc(entry["id"])}" aria-labelledby="party-card-title">'
            f'{head}{_pending(ui.get("pending"), entry["id"])}{_against(others, ui)}{_checks(checks)}'
            f'{_situation(system, checks, ui.get("situation") or {})}{_play(system, s)}{last}</section>')


# ---------------------------------------------------------------- words

def roll_label(sheet: dict, check: str, rival: dict | None = None, rival_check: str | None = None) -> str:
    """The history's label of a roll from a sheet: "Wu Shousu: Fast-Talk"
    (against: "… vs Wu's father: Psychology").

    >>> roll_label({"name": "Wu"}, "Fast-Talk", {"name": "Father"}, "Psychology")
    'Wu: Fast-Talk vs Father: Psychology'
    """
    label = f"{sheet['name']}: {check}"
    return label + (f" vs {rival['name']}: {rival_check}" if rival is not None else "")


def _shown(f: dict, value) -> str:
    """A field's value in words (a choice by its label)."""
    labels = {str(v): label for v, label in f.get("choices", ())}
    if f["kind"] == "picks":
        return ", ".join(labels.get(str(v), str(v)) for v in value) or "none"
    if f["kind"] == "bool":
        return "yes" if value else "no"
    return labels.get(str(value), display(f, value))


def changes_text(system: str, before: dict, after: dict) -> str:
    """What a roll's consequence changed on a sheet, in words.

    >>> changes_text("mirage", {"name": "S", "conditions": []}, {"name": "S", "conditions": ["battered"]})
    'Recorded on S: Conditions: Battered.'
    """
    parts = [f"{f['label']}: {_shown(f, after.get(f['name']))}" for f in rules.SHEETS[system].FIELDS
             if before.get(f["name"]) != after.get(f["name"])]
    return f"Recorded on {after['name']}: {'; '.join(parts)}." if parts else ""
