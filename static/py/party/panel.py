"""The party on the page: each game's characters and NPCs above its tab,
two taps to roll (a character, a check), an NPC as the other side, a roll's
consequences landing on the sheet, the sheet's editor, a sheet shared by
link, and the party kept in this browser (merged, never overwritten, when
two tabs are open).

The state, in ``PARTY``: the sheets and the deletions (``party.roster``),
and per game what is selected, who the roll is against, the situation's
fields as last set, the turn a roll from a sheet started (so its
consequence lands once) and the choice it waits on. The DOM is drawn from
it (``party.view``), never read back for state.
"""

import os

import rules
from links import share
from links.sharedialog import open_share_dialog
from party import roster, view
from records.setups import fill_system_form
from rules.dice import SpecError
from shell import names
from shell.page import (CURRENT, banner, clear_errors, guard, js_none, js_obj, listen, now, q, read_kept,
                        read_store, show_errors, window, write_store)
from table import table_ui
from table.livetable import TableError
from tabs.forms import read_fields
from tabs.trayview import STATE, open_tab, set_result

PARTY_KEY = "dice-table/party"
#: Per game: "selected" (a sheet's id), "against" (a sheet's id or None) and
#: "against_check", "situation" (field -> text), "last" (what the last
#: roll's consequence changed), "turn" (the roll from a sheet on show:
#: {"id", "spec", "stages", "landed"}). A choice a roll waits on is the
#: sheet's own (``waiting``, kept with it: ``party.roster``).
PARTY = {"list": [], "gone": [], "editing": None,
         "ui": {s: {"selected": None, "against": None, "against_check": None, "situation": {}, "last": "",
                    "turn": None} for s in rules.SYSTEMS}}

REFUSED = "The browser refused to store the party (storage full?); export it to keep it."


# ---------------------------------------------------------------- kept

def start():
    """Once the page is idle: the stored party, drawn; another tab's
    changes merged as they are stored."""
    load_party()
    listen(window, "storage", guard(on_storage))
    render_party()


def load_party():
    """The stored party (its unreadable text kept under a backup key)."""
    (PARTY["list"], PARTY["gone"], _warn), _text, _w = read_kept(PARTY_KEY, _loader)


def _loader(text):
    party, gone, warning = roster.load(text)
    return (party, gone, warning), warning


def save_party():
    """Merge what another tab stored since, then store the whole party."""
    stored, gone, _ = roster.load(read_store(PARTY_KEY))
    PARTY["list"], PARTY["gone"] = roster.merge(PARTY["list"], PARTY["gone"], stored, gone)
    write_store(PARTY_KEY, roster.dump(PARTY["list"], PARTY["gone"]), REFUSED)


def on_storage(event):
    """Another tab stored its party: merged into this one, drawn again."""
    if str(event.key or "") != PARTY_KEY:
        return
    stored, gone, _ = roster.load(str(event.newValue or ""))
    PARTY["list"], PARTY["gone"] = roster.merge(PARTY["list"], PARTY["gone"], stored, gone)
    render_party()


def _store_entry(entry):
    PARTY["list"] = roster.put(PARTY["list"], entry)
    save_party()


# ---------------------------------------------------------------- drawn

def _ui(system=None):
    return PARTY["ui"][system or CURRENT["system"]]


def render_party(system=None):
    """The open game's party, drawn from ``PARTY``; the focus kept on the
    control it was on."""
    system = system or CURRENT["system"]
    if system != CURRENT["system"]:
        return
    ui = _ui(system)
    entries = roster.of_system(PARTY["list"], system)
    if roster.find(entries, ui["selected"]) is None:
        ui["selected"] = None
    if roster.find(entries, ui["against"]) is None:
        ui["against"] = None
    body = q("#party-body")
    keep = _focus_key(body)
    body.innerHTML = view.party_html(system, entries, {**ui, "pending": asked(_entry(ui["selected"])),
                                                       "table": table_ui.seated()})
    q("#party-count").textContent = str(len(entries) or "")
    _refocus(body, keep)


_KEYS = ("data-check", "data-character", "data-against", "data-against-check", "data-consequence", "name")


def _focus_key(root):
    active = js_none(window.document.activeElement)
    if active is None or not root.contains(active):
        return None
    for attr in _KEYS:
        if active.hasAttribute(attr):
            return attr, str(active.getAttribute(attr)), str(active.getAttribute("value") or "")
    return None


def _refocus(root, key):
    if key is None:
        return
    attr, value, extra = key
    for el in root.querySelectorAll(f"[{attr}]"):
        if str(el.getAttribute(attr)) == value and str(el.getAttribute("value") or "") == extra:
            el.focus(js_obj({"preventScroll": True}))
            return


def tab_shown(system, _first=False):
    render_party(system)


# ---------------------------------------------------------------- taps

def _new_id():
    return os.urandom(8).hex()


def _entry(sheet_id):
    return roster.find(PARTY["list"], sheet_id)


def select(el):
    """A character or NPC tapped: its card opens (tapped again: closes)."""
    ui = _ui()
    sheet_id = str(el.dataset.sheet)
    ui["selected"] = None if ui["selected"] == sheet_id else sheet_id
    if ui["against"] == ui["selected"]:
        ui["against"] = None
    ui["last"] = ""
    render_party()


def against(el):
    """Who the roll is against: another sheet (tapped again, or nobody: none)."""
    ui = _ui()
    sheet_id = str(el.dataset.against) or None
    ui["against"] = None if sheet_id == ui["against"] else sheet_id
    ui["against_check"] = None
    render_party()


def against_check(el):
    """Their check, chosen (tapped again: back to the one that meets yours)."""
    ui = _ui()
    check = str(el.dataset.againstCheck)
    ui["against_check"] = None if ui["against_check"] == check else check
    render_party()


def takes_input(event):
    """A field of the party's typed or changed: the situation's is kept as
    typed; one that changes in play is kept once changed. False: not the
    party's."""
    form = js_none(event.target.closest("#party-situation, #party-play"))
    if form is None:
        return False
    if str(form.id) == "party-situation":
        situation_input(form)
    elif str(event.type) == "change":
        play_input(form)
    return True


def situation_input(form):
    """The situation's fields as set, kept (drawn again from here)."""
    _ui()["situation"] = {name: values[0] if values else "" for name, values in read_fields(form).items()}
    for el in form.querySelectorAll("input[type=checkbox]"):
        _ui()["situation"][str(el.name)] = "on" if el.checked else ""


def _situation(system):
    raw = {k: [v] if v else [] for k, v in _ui(system)["situation"].items()}
    return view.read_situation(system, raw)


def _opponent(system, check):
    """The sheet the roll is against and its check (``view.opposing_check``)."""
    ui = _ui(system)
    rival = _entry(ui["against"]) if ui["against"] else None
    if rival is None:
        return None, None
    names = [c["name"] for c in rules.sheet_checks(system, rival["sheet"])]
    return rival, view.opposing_check(system, check, names, ui["against_check"])


def roll_check(el):
    """Tap a check: its spec (the sheet, the situation, the opponent), the
    tab's form filled with it, rolled as the form's Roll would."""
    system = CURRENT["system"]
    entry = _entry(_ui(system)["selected"])
    if entry is None:
        return
    check = str(el.dataset.check)
    rival, rival_check = _opponent(system, check)
    situation = _situation(system)
    if rival is not None:
        situation["opponent"] = {"sheet": rival["sheet"], "check": rival_check}
    form = q("#party-situation")
    try:
        spec = rules.check_spec(system, entry["sheet"], check, situation)
    except SpecError as e:
        show_errors(form, [e if q(f'[data-error-for="{e.field}"]', form) else SpecError("_form", str(e))])
        return
    clear_errors(form)
    fill_system_form(system, spec)
    result = rules.roll(system, spec, advise=False)
    STATE[system]["spec"] = result["spec"]
    label = view.roll_label(entry["sheet"], check, rival and rival["sheet"], rival_check)
    _ui(system)["turn"] = {"id": entry["id"], "spec": result["spec"], "stages": result["stages"], "landed": False}
    _ui(system)["last"] = ""
    set_result(system, result, label=label)


# ---------------------------------------------------------------- consequences

def _continues(turn, result):
    stages = result.get("stages") or []
    return (turn is not None and result.get("spec") == turn["spec"]
            and stages[:len(turn["stages"])] == turn["stages"])


def on_result(system, result, _label="", source="here"):
    """Every roll or step recorded: a step of the turn a sheet rolled lands
    its consequence on that sheet, once a turn (``land``)."""
    turn = _ui(system)["turn"]
    if source != "here" or result is None or not _continues(turn, result):
        return
    turn["stages"] = result["stages"]
    land(system, result)


def land(system, result):
    """The turn's consequence on the sheet that rolled: at once, or, where
    the rules leave a choice to the player, stored with the sheet as
    waiting (so a reload loses nothing) and asked."""
    ui = _ui(system)
    turn, entry = ui["turn"], _entry(ui["turn"]["id"])
    if turn["landed"] or entry is None:
        return
    ask = rules.pending_choice(system, entry["sheet"], result)
    if ask is None:
        _apply(system, entry, rules.consequences(system, entry["sheet"], result))
        return
    turn["landed"] = True
    ui["selected"] = entry["id"]
    _store_entry({**entry, "waiting": {"spec": result["spec"], "stages": result["stages"]}, "time": now()})
    render_party(system)
    _open_choice(ask, entry["id"])


def _apply(system, entry, after):
    """``entry``'s sheet becomes ``after`` (nothing waits on it any more)."""
    ui = _ui(system)
    if ui["turn"] is not None and ui["turn"]["id"] == entry["id"]:
        ui["turn"]["landed"] = after != entry["sheet"] or ui["turn"]["landed"]
    if after != entry["sheet"] or entry.get("waiting"):
        _record(ui, system, entry, after)
    render_party(system)


def _record(ui, system, entry, after):
    """The sheet as the consequence left it is stored (no roll waits on it
    now), and what changed is said."""
    ui["last"] = view.changes_text(system, entry["sheet"], after)
    _store_entry({k: v for k, v in entry.items() if k != "waiting"} | {"sheet": after, "time": now()})
    if ui["last"]:
        banner(ui["last"], "info")


def _waiting(entry):
    """The roll ``entry`` waits on, as the rules take it, or None."""
    w = entry.get("waiting") if entry else None
    return {"system": entry["system"], **w} if w else None


def asked(entry):
    """The choice ``entry``'s waiting roll asks (None if none; a stored roll
    the rules no longer replay is dropped)."""
    ref = _waiting(entry)
    if ref is None:
        return None
    try:
        return rules.pending_choice(entry["system"], entry["sheet"], ref)
    except SpecError:
        return None


def _open_choice(ask, sheet_id):
    dialog = q("#consequence-dialog")
    q("#consequence-q").textContent = ask["prompt"]
    q("#consequence-choices").innerHTML = view.choices_html(ask, sheet_id)
    if not dialog.open:
        dialog.showModal()


def choose(el):
    """The player names the consequence (a Mirage Condition): it lands on
    the sheet the roll waits on."""
    q("#consequence-dialog").close()
    entry = _entry(str(el.getAttribute("data-for")))
    ref = _waiting(entry)
    if ref is None:
        return
    try:
        after = rules.consequences(entry["system"], entry["sheet"], ref, str(el.dataset.consequence))
    except SpecError as e:
        banner(f"{e} Nothing was recorded.", "warning")
        return
    _apply(entry["system"], entry, after)


def later(_el=None):
    """The choice waits on the card (and in the store)."""
    q("#consequence-dialog").close()


def play_input(form):
    """A field that changes in play (a Condition cleared, the health, the
    Heroic Badge), changed on the card: kept at once."""
    system = CURRENT["system"]
    entry = _entry(_ui(system)["selected"])
    if entry is None:
        return
    try:
        sheet = rules.normalize_sheet(system, view.read_play(system, read_fields(form), entry["sheet"]))
    except SpecError as e:
        show_errors(form, [e])
        return
    _store_entry({**entry, "sheet": sheet, "time": now()})
    render_party(system)


# ---------------------------------------------------------------- the editor

def _editor_form():
    return q("#sheet-form")


def open_editor(sheet_id=None, sheet=None):
    """The sheet's editor (a new sheet: the game's fields, empty)."""
    system = CURRENT["system"]
    entry = _entry(sheet_id) if sheet_id else None
    PARTY["editing"] = {"system": system, "id": entry["id"] if entry else None}
    q("#sheet-title").textContent = (f"{entry['sheet']['name']}'s sheet" if entry else
                                     f"New {rules.TITLES[system]} character")
    q("#sheet-delete").hidden = entry is None
    _draw_editor(_editor_sheet(entry, sheet))
    clear_errors(_editor_form())
    dialog = q("#sheet-dialog")
    if not dialog.open:
        dialog.showModal()
    q('#sheet-form [name="name"]').focus()


def _editor_sheet(entry, sheet):
    """What the editor opens with: the sheet given, else the entry's, else
    a blank one."""
    if sheet is not None:
        return sheet
    return entry["sheet"] if entry else {"name": ""}


def _draw_editor(sheet):
    q("#sheet-fields").innerHTML = view.editor_html(PARTY["editing"]["system"], sheet)


def _draft():
    return view.read_sheet(PARTY["editing"]["system"], read_fields(_editor_form()))


def add_row(el):
    """One more row of a list (a skill, an ability), drawn from the draft."""
    sheet = _draft()
    path = str(el.dataset.sheetAdd).split(".")
    rows = _at(sheet, path)
    if isinstance(rows, list) and len(rows) < 40:
        rows.append({})
    _draw_editor(sheet)


def remove_row(el):
    sheet = _draft()
    *path, i = str(el.dataset.sheetRemove).split(".")
    rows = _at(sheet, path)
    if isinstance(rows, list) and i.isdigit() and int(i) < len(rows):
        rows.pop(int(i))
    _draw_editor(sheet)


def _at(sheet, path):
    node = sheet
    for part in path:
        node = node[int(part)] if isinstance(node, list) else node.get(part)
    return node


def save_editor(_form=None):
    """The sheet checked by the rules: saved, or every error at its field."""
    editing = PARTY["editing"]
    form = _editor_form()
    try:
        sheet = rules.normalize_sheet(editing["system"], _draft())
        entry = roster.new_entry(editing["system"], sheet, editing["id"] or _new_id(), now())
        _store_entry(entry)
    except SpecError as e:
        show_errors(form, [e])
        return
    except roster.Full as e:
        show_errors(form, [SpecError("_form", str(e))])
        return
    q("#sheet-dialog").close()
    _ui(editing["system"])["selected"] = entry["id"]
    render_party(editing["system"])


def cancel_editor(_el=None):
    q("#sheet-dialog").close()


def delete_sheet(_el=None):
    editing = PARTY["editing"]
    entry = _entry(editing["id"]) if editing else None
    if entry is None or not window.confirm(f"Delete {entry['sheet']['name']}'s sheet?"):
        return
    PARTY["list"], PARTY["gone"] = roster.remove(PARTY["list"], PARTY["gone"], entry["id"], now())
    save_party()
    q("#sheet-dialog").close()
    render_party()


def edit_selected(_el=None):
    open_editor(_ui()["selected"])


def new_sheet(_el=None):
    open_editor(None)


def add_examples(_el=None):
    """The rules text's own characters (those not in the party yet)."""
    system = CURRENT["system"]
    have = {e["sheet"]["name"] for e in roster.of_system(PARTY["list"], system)}
    added = 0
    for sheet in rules.SHEETS[system].EXAMPLE_SHEETS.values():
        norm = rules.normalize_sheet(system, sheet)
        if norm["name"] not in have:
            try:
                PARTY["list"] = roster.put(PARTY["list"], roster.new_entry(system, norm, _new_id(), now()))
            except roster.Full as e:
                banner(str(e), "warning")
                break
            added += 1
    save_party()
    render_party(system)
    banner(f"Added {added} of the rules text's {rules.TITLES[system]} characters." if added else
           f"The rules text's {rules.TITLES[system]} characters are in the party already.", "info")


# ---------------------------------------------------------------- by link

def share_selected(_el=None):
    entry = _entry(_ui()["selected"])
    if entry is not None:
        open_share_dialog(share.encode_sheet(entry), f"A link to {entry['sheet']['name']}'s sheet: whoever opens "
                          "it has the character in their party.", title="Share a character")


def send_selected(_el=None):
    """The character on show, sent to the table this phone sits at."""
    entry = _entry(_ui()["selected"])
    if entry is None:
        return
    try:
        banner(table_ui.send_sheet(entry), "info")
    except TableError as e:
        banner(str(e), "warning")


def take_table_sheet(entry, who):
    """A character a seated phone sent (checked at the channel): into this
    party (``roster.from_seat``); the words of a refusal for the banner
    (None: taken)."""
    name = names.isolate(entry["sheet"]["name"])
    try:
        PARTY["list"], had = roster.from_seat(PARTY["list"], entry, who, now())
    except ValueError as e:  # another's sheet, or the party is full
        return f"From {names.isolate(who)}: refused the sheet {name}: {str(e).rstrip('.')}; nothing was changed."
    save_party()
    banner(f"{names.isolate(who)} sent the sheet {name}: {'updated in' if had else 'added to'} the "
           f"{rules.TITLES[entry['system']]} party.", "info")
    render_party(entry["system"])
    return None


def open_sheet_link(link):
    """A sheet from a link (checked by ``share.open_link``): added to this
    party, or the same sheet brought up to date."""
    entry = link["entry"]
    had = _entry(entry["id"])
    if had is not None and had["time"] >= entry["time"]:
        banner(f"{entry['sheet']['name']} is in your party already, as recent as the link.", "info")
    else:
        try:
            _store_entry(entry)
        except roster.Full as e:
            banner(str(e), "warning")
            return
        banner(f"{'Updated' if had else 'Added'} {entry['sheet']['name']} in your {rules.TITLES[entry['system']]} "
               "party.", "info")
    open_tab(entry["system"])
    _ui(entry["system"])["selected"] = entry["id"]
    render_party(entry["system"])


# ---------------------------------------------------------------- export and import

def export_items():
    return roster.export_items(PARTY["list"])


def import_items(items):
    """An export's sheets merged in; the words for the import's message."""
    PARTY["list"], fresh, bad = roster.import_items(items, PARTY["list"], PARTY["gone"])
    save_party()
    render_party()
    if not fresh and not bad:
        return ""
    return f" {fresh} character sheet(s) added or brought up to date." + (f" {bad} unreadable sheet(s) skipped." if bad else "")

