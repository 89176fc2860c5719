"""The roll history drawer: every roll made or opened here, stored in
localStorage (``store``), drawn a page at a time (each entry replayed from
its draws when first drawn), filtered, opened again in its tab; and the
name put on this device's rolls.

The state, in ``HISTORY``: the entries, how many were dropped, the filter
and how many are drawn, each drawn entry's replay, and the roller's name.
"""

import rules
from drawing import views
from records import store
from rules.dice import SpecError
from shell.page import (
    banner,
    create_once,
    document,
    fair,
    hook,
    js_none,
    now,
    q,
    merge_synced,
    read_kept,
    read_store,
    save_synced,
    ui_for,
    window,
    write_store,
)
from table import table_ui
from tabs import tab
from tabs.forms import fill_form, schedule_forms_save
from tabs.trayview import STATE, open_tab, set_result

HISTORY_KEY = "dice-table/history"
ROLLER_KEY = "dice-table/roller"
#: History entries drawn at a time (each is replayed when first drawn).
PAGE = 20

#: "shown": entry id -> (result or None, how it came), replayed when first
#: drawn; "roller": the name put on this device's rolls.
#: The stored history as this tab last read or wrote it (merged on each write).
KEPT = store.synced_history()

HISTORY = {"entries": [], "dropped": 0, "serial": 0, "pending": False, "limit": PAGE, "game": "", "text": "",
           "shown": {}, "roller": ""}


def add_history(system, result, label="", source="here"):
    """A roll made or opened here goes into the history, under the name set
    on this device. A step of the turn on show updates that turn's entry in
    place (one turn, one entry: docs/RULES-DECISIONS.md, The page)."""
    st = STATE[system]
    i = next((n for n, e in enumerate(HISTORY["entries"]) if e.get("id") == st["entry"]), None)
    if i is not None and source == "here" and store.continues(HISTORY["entries"][i], result):
        advance_entry(i, result)
        return
    entry = store.new_entry(result, time=now(), label=label, roller=HISTORY["roller"], source=source)
    st["entry"] = add_entry(entry, result)


def advance_entry(i, result):
    """Entry ``i`` takes the turn's new stages; its item is drawn again where
    it stands."""
    HISTORY["entries"] = store.advance(HISTORY["entries"], i, result)
    e = HISTORY["entries"][i]
    HISTORY["shown"][e["id"]] = (result, fair.provenance({**e, "result": result}))
    item = q(f'#history-list [data-history-entry="{e["id"]}"]')
    if item is not None:
        item.outerHTML = history_item(e)
    schedule_save()
    table_ui.on_history(e, result, step=True)  # the step reaches the live table too (same roll)


def add_entry(entry, result=None):
    """Prepend one stored entry: only its item is drawn (the panel keeps
    its page: the oldest item drawn goes) and the store is written after
    the paint, so a roll costs the same with 200 entries as with none, at
    the first roll of the evening as at the six hundredth. A roll from a
    link that is already there (the link opened again) is not added twice.
    Returns the new entry's id (None if not added)."""
    if entry["source"] != "here" and in_history(entry):
        return None
    HISTORY["serial"] += 1
    entry = {**entry, "id": HISTORY["serial"]}
    if result is not None:
        HISTORY["shown"][entry["id"]] = (result, fair.provenance({**entry, "result": result}))
    before = HISTORY["entries"]
    HISTORY["entries"], dropped = store.add(before, entry)
    HISTORY["dropped"] += dropped
    forget_oldest(before, dropped)
    if store.matches(entry, HISTORY["game"], HISTORY["text"]):
        q("#history-list").insertAdjacentHTML("afterbegin", history_item(entry))
        keep_page()
    render_history_note()
    schedule_save()
    table_ui.on_history(entry, result)  # the live table's log and channels
    return entry["id"]


def in_history(entry):
    """Whether the history holds this roll already (``store.key``)."""
    key = store.key(entry)
    return any(store.key(e) == key for e in HISTORY["entries"])


def keep_page():
    """The panel draws ``limit`` items, as on load: past that, the oldest
    drawn goes (it waits for "Show older rolls", replayed again then)."""
    items = q("#history-list").children
    while items.length > HISTORY["limit"]:
        last = items.item(items.length - 1)
        HISTORY["shown"].pop(int(last.dataset.historyEntry), None)
        last.remove()


def forget_item(key):
    """An entry gone from the history: its item and its replay too."""
    HISTORY["shown"].pop(key, None)
    item = q(f'#history-list [data-history-entry="{key}"]')
    if item is not None:
        item.remove()


def schedule_save():
    if not HISTORY["pending"]:
        HISTORY["pending"] = True
        window.setTimeout(create_once(lambda *_: flush_history()), 30)


def flush_history(*_):
    if HISTORY["pending"]:
        HISTORY["pending"] = False
        save_history()


def save_history():
    """Store the history, merged first with the rolls another tab of the
    page stored since (``records.synced``): nothing is lost whichever tab
    saves last."""
    entries = save_synced(HISTORY_KEY, KEPT, HISTORY["entries"], "the roll history")
    if entries is not HISTORY["entries"]:
        take_entries(entries)


def on_stored(text):
    """Another tab stored the history: its rolls merged into this one's,
    drawn, and stored back if this tab holds what that one did not."""
    entries = merge_synced(HISTORY_KEY, KEPT, HISTORY["entries"], text)
    if entries is not HISTORY["entries"]:
        take_entries(entries)
    if KEPT.ahead:
        schedule_save()


def take_entries(entries):
    """The history as merged with another tab's: an entry this tab had
    keeps its number (so the turn on show goes on in it), a new one is
    numbered, a changed one is replayed again; past ``CAP`` the oldest go;
    the page drawn again."""
    old = {store.turn_key(e): e["id"] for e in HISTORY["entries"]}
    for e in entries:
        if "id" not in e:
            number_entry(e, old)
    HISTORY["dropped"] += max(0, len(entries) - store.CAP)
    HISTORY["entries"] = entries[:store.CAP]
    forget_shown()
    render_history()


def forget_shown():
    """The results kept for entries no longer in the history are let go."""
    ids = {e["id"] for e in HISTORY["entries"]}
    for key in [k for k in HISTORY["shown"] if k not in ids]:
        del HISTORY["shown"][key]


def number_entry(e, old):
    """A merged entry without a number takes the one its turn had here
    (``old``: turn key -> number), else a new one; its result is replayed
    again when it is shown."""
    e["id"] = old.get(store.turn_key(e))
    if e["id"] is None:
        HISTORY["serial"] += 1
        e["id"] = HISTORY["serial"]
    HISTORY["shown"].pop(e["id"], None)


def load_history():
    entries, text, warning = read_kept(HISTORY_KEY, KEPT.read)
    set_entries(entries)
    if entries and not warning and not store.is_current(text):  # a first-version store: written back compact
        schedule_save()
    render_history()


def forget_oldest(entries, n):
    """The items of the oldest ``n`` of ``entries`` (none when ``n`` is 0)
    are let go."""
    for gone in entries[len(entries) - n:]:
        forget_item(gone["id"])


def drop_oldest(n):
    """The player agreed to let the oldest ``n`` rolls go (to make room in
    a full storage); the store is written by the caller."""
    forget_oldest(HISTORY["entries"], n)
    HISTORY["entries"] = HISTORY["entries"][:len(HISTORY["entries"]) - n]
    HISTORY["pending"] = False
    render_history_note()


def adopt_turns(systems):
    """The turns a reload brought back (``trayview.restore_trays``) go on
    in their history entries: a step taken now advances the entry."""
    for system in systems:
        result = STATE[system]["result"]
        STATE[system]["entry"] = next((e["id"] for e in HISTORY["entries"] if store.holds(e, result)), None)


def set_entries(entries):
    """The history from now on: each entry numbered once (its replay is
    kept under that number), the first page to be drawn."""
    HISTORY["shown"].clear()
    for e in entries:
        HISTORY["serial"] += 1
        e["id"] = HISTORY["serial"]
    HISTORY["entries"] = entries
    HISTORY["limit"] = PAGE


def _when(ms):
    try:
        return str(window.Date.new(ms).toLocaleString([], {"dateStyle": "short", "timeStyle": "short"}))
    except Exception:
        return ""


def shown(e):
    """(result, how it came) of an entry: replayed from its draws when it
    is first drawn; (None, …) if its dice do not fit its roll."""
    if e["id"] not in HISTORY["shown"]:
        try:
            result = store.replay(e)
        except (SpecError, RecursionError):
            result = None
        HISTORY["shown"][e["id"]] = (result, fair.provenance({**e, "result": result}) if result else "")
    return HISTORY["shown"][e["id"]]


UNFIT = "Its dice do not fit its roll (a damaged store or file): it cannot be shown again."


def history_item(e):
    system = e["system"]
    result, how = shown(e)
    try:
        summary = ui_for(system).summary(result) if result else UNFIT
    except Exception:  # a tab that cannot summarize it: show it without a summary
        summary = ""
    return views.history_entry({**e, "result": result or {}, "time": _when(e.get("time"))}, e["id"],
                               rules.TITLES[system], summary, roller=e.get("roller", ""), how=how,
                               so_far=tab.in_progress(ui_for(system), result))


def render_history():
    """Draw the first page of the (filtered) list, on load, import, clear
    and a change of filter; older entries wait for "Show older rolls"."""
    matching = store.filtered(HISTORY["entries"], HISTORY["game"], HISTORY["text"])
    q("#history-list").innerHTML = "".join(history_item(e) for e in matching[:HISTORY["limit"]])
    render_history_note()


def more_history(_el=None):
    """Draw the next page of older entries under the list."""
    matching = store.filtered(HISTORY["entries"], HISTORY["game"], HISTORY["text"])
    start, HISTORY["limit"] = HISTORY["limit"], HISTORY["limit"] + PAGE
    q("#history-list").insertAdjacentHTML("beforeend", "".join(history_item(e) for e in matching[start:HISTORY["limit"]]))
    render_history_note()


def render_history_note():
    total = len(HISTORY["entries"])
    q("#history-count").textContent = str(total or "")
    note = q("#history-note")
    if note is not None:
        note.textContent = dropped_words(HISTORY["dropped"])
    filtering = bool(HISTORY["game"] or HISTORY["text"])
    matching = len(store.filtered(HISTORY["entries"], HISTORY["game"], HISTORY["text"])) if filtering else total
    q("#history-shown").textContent = f"{matching} of {total} rolls match." if filtering else ""
    rest = matching - min(matching, HISTORY["limit"])
    more = q("#history-more")
    more.hidden = rest <= 0
    more.textContent = f"Show older rolls ({rest} more)"


def dropped_words(dropped):
    """The history's note of the oldest rolls dropped past its cap (none:
    no note)."""
    if not dropped:
        return ""
    return (f"{dropped} oldest roll(s) dropped: the history keeps the newest {store.CAP}. Export it to keep a "
            "full campaign log.")


def set_filter(_el=None):
    HISTORY["game"] = str(q("#history-game").value or "")
    HISTORY["text"] = str(q("#history-search").value or "")
    HISTORY["limit"] = PAGE
    render_history()


def set_roller(el):
    """The name put on this device's rolls (kept in this browser)."""
    HISTORY["roller"] = store.clean_name(el.value)
    save_roller()


def save_roller():
    write_store(ROLLER_KEY, HISTORY["roller"], "your name")


def load_roller():
    HISTORY["roller"] = store.clean_name(read_store(ROLLER_KEY) or "")
    q("#roller-name").value = HISTORY["roller"]


def open_history(key):
    e = next((x for x in HISTORY["entries"] if x.get("id") == key), None)
    if e is None:
        return
    system = e["system"]
    result, how = shown(e)
    if result is None:
        banner(f"That {rules.TITLES[system]} roll cannot be shown: {UNFIT[:1].lower()}{UNFIT[1:]}", "warning")
        return
    hook("leave_fair", system)
    open_tab(system)
    form = q(f"#form-{system}")
    fill_form(form, ui_for(system).form_values(result["spec"]))
    STATE[system]["spec"] = result["spec"]
    schedule_forms_save(system)
    if window.matchMedia(DRAWER).matches:  # the drawer would cover the result
        show_history(False)
    note = shared_note(e, how)
    set_result(system, result, record=False, readonly=bool(note), note=note)
    STATE[system]["entry"] = key  # a step taken now goes on this entry's turn


def shared_note(e, how):
    """The note over a result opened from the history that was not rolled
    here: how it came (none for one's own)."""
    if e["source"] == "here":
        return ""
    return f'<p class="shared-label">{views.esc(how[:1].upper() + how[1:])}.</p>'


#: Where the history is a drawer over the page (app.css says the same).
DRAWER = "(max-width: 1279.98px)"


def show_history(open_=None, _el=None):
    """Open or close (None: toggle) the history drawer; the focus goes in
    with it and comes back to the toggle."""
    body = document.body
    open_ = not body.classList.contains("drawer-open") if open_ is None else open_
    body.classList.toggle("drawer-open", open_)
    q("#history-toggle").setAttribute("aria-expanded", "true" if open_ else "false")
    if open_:
        q("#history-title").focus()
    elif js_none(document.activeElement) is None or js_none(document.activeElement.closest("#history")):
        q("#history-toggle").focus()


def clear_history(_=None):
    if not window.confirm("Clear the whole roll history? Export it first to keep it."):
        return
    set_entries([])
    HISTORY["dropped"] = 0
    HISTORY["pending"] = False
    save_history()
    render_history()
