"""The page's wiring: start-up and event routing.

Each feature lives in its own module, owning its state and its part of the
DOM (``page`` says which, and in what order they import each other); this
module listens to the document's events and sends each to the feature it
is for, fills in the hooks by which a feature calls one above it, and
starts the page. The ui modules (``ui_<system>``, pure) turn a tab's form
into a spec and a result into HTML; every text they write is escaped.
"""

import asyncio
import importlib
import json
import sys

import js

js.performance.mark("dice:main")  # the start's phases, for tests/benchmark.py (docs/SPEED.md)

import rules
from drawing import views
from fairrolls import fairpanel
from links import sharedialog
from odds import oddspanel
from records import backup, history, setups
from rules.dice import SpecError
from shell import page
from shell.page import CURRENT, banner, create_proxy, document, guard, js_none, q, system_of, ui_for, window
from table import table_ui
from tabs import forms, tab, trayview
from tabs.trayview import STATE


def tab_shown(system, first):
    """A tab on show: its odds, its Share button, its saved setups, its party."""
    oddspanel.tab_shown(system, first)
    sharedialog.update_share_buttons()
    setups.render_setups()
    if "party.panel" in sys.modules:  # drawn once it is loaded (``start``), then on every tab
        page.party.tab_shown(system, first)


def recorded(system, result, label="", source="here"):
    """A roll or a step recorded: the history's, and the party's (a
    consequence landing on the sheet that rolled it)."""
    history.add_history(system, result, label, source)
    page.party.on_result(system, result, label, source)


def later(name):
    """A handler of the party's (``page.party``), which loads once the page
    is idle, or at the first tap that needs it."""
    return lambda *args: getattr(page.party, name)(*args)


def wire():
    """The hooks by which a feature calls one above it (``page.HOOKS``)."""
    page.HOOKS.update({
        "odds": oddspanel.render_odds, "recorded": recorded, "sheet_link": later("open_sheet_link"),
        "shown": sharedialog.update_share_buttons,
        "tab_shown": tab_shown, "fair_tray": fairpanel.render_fair_tray, "fair_step": fairpanel.fair_step,
        "leave_fair": fairpanel.leave_fair, "storage_banner": backup.storage_banner,
    })
    page.SYNCED.update({  # what another tab of the page stored, merged in (the ``storage`` event)
        history.HISTORY_KEY: history.on_stored, setups.SETUPS_KEY: setups.on_stored,
        fairpanel.REQUESTS_KEY: fairpanel.on_stored, table_ui.TABLE_KEY: table_ui.on_stored,
    })


# ---------------------------------------------------------------- events

@guard
def on_submit(event):
    page.painted()  # what the last event left for after the paint comes first
    form = event.target
    if form.id in FORMS_SUBMIT:
        event.preventDefault()
        FORMS_SUBMIT[form.id](form)
        return
    if not form.matches("form.rollform"):
        return
    event.preventDefault()
    system = form.dataset.system
    if forms.form_locked(system):  # the form shows a fair roll's request: its Roll is in the tray
        return
    fairpanel.leave_fair(system)  # a finished fair roll on show: Roll rolls the form, the player's own
    spec = forms.read_spec(system, show_defaults=True)
    if spec is None:
        trayview.refused(system, form)
        return
    STATE[system]["spec"] = spec
    oddspanel.odds_before_roll(system)
    try:
        result = rules.roll(system, spec, advise=False)
    except SpecError as e:  # the rules refuse this roll (a Broken character): refused as a form error refuses it
        page.show_error(form, e)
        trayview.refused(system, form)
        return
    trayview.set_result(system, result)


#: Clicks on a marker inside a tab, checked before the table tools (CLICKS).
TAB_CLICKS = (
    ("[data-tab]", lambda el: trayview.open_tab(el.dataset.tab, focus=False)),
    (".tray [data-die]", lambda el: trayview.toggle_die(el)),
    ("[data-act]", lambda el: trayview.do_action(el)),
    ("[data-insert]", lambda el: forms.insert_text(el)),
    ("[data-history-open]", lambda el: history.open_history(int(el.dataset.historyOpen))),
    ("[data-fair]", lambda el: fairpanel.fair_button(el)),
    ("[data-character]", later("select")),
    ("[data-against-check]", later("against_check")),
    ("[data-against]", later("against")),
    ("[data-check]", later("roll_check")),
    ("[data-consequence]", later("choose")),
    ("[data-sheet-add]", later("add_row")),
    ("[data-sheet-remove]", later("remove_row")),
)


@guard
def on_click(event):
    page.painted()  # what the last event left for after the paint comes first
    t = event.target
    if not hasattr(t, "closest"):
        return
    for selector, handler in TAB_CLICKS + CLICKS:
        el = js_none(t.closest(selector))
        if el:
            handler(el)
            return


@guard
def on_keydown(event):
    page.painted()  # what the last event left for after the paint comes first
    t = event.target
    if event.key == "Escape" and document.body.classList.contains("drawer-open"):
        history.show_history(False)
    elif hasattr(t, "closest"):
        key_on(event, t)


def key_on(event, t):
    """A key on a die (Enter, Space: tap it) or on a tab (the arrows: the
    next tab's)."""
    if event.key in ("Enter", " ") and js_none(t.closest("[data-die]")):
        event.preventDefault()
        trayview.toggle_die(t.closest("[data-die]"))
    elif event.key in ("ArrowRight", "ArrowLeft") and js_none(t.closest("[data-tab]")):
        trayview.open_tab(next_tab(t.dataset.tab, event.key), focus=True)


def next_tab(system, key):
    """The tab an arrow key moves to from ``system``'s, round the ends."""
    order = list(rules.SYSTEMS)
    return order[(order.index(system) + (1 if key == "ArrowRight" else -1)) % len(order)]


@guard
def on_input(event):
    page.painted()  # what the last event left for after the paint comes first
    t = event.target
    if not hasattr(t, "closest"):
        return
    if str(t.id or "") in INPUTS:
        INPUTS[str(t.id)](t)
        return
    if js_none(t.closest("#party")) is not None and page.party.takes_input(event):
        return
    form = js_none(t.closest("form.rollform"))
    if form is not None:
        oddspanel.on_form_input(event, form)


def reset_form(button):
    """One tap: the tab's form as the page opens it (stored so)."""
    system = system_of(button)
    if forms.form_locked(system):
        return
    q(f"#form-{system}").reset()
    oddspanel.update_from_form(system)
    forms.schedule_forms_save(system)


def open_fragment(*_):
    """Open the link in the URL fragment: a live table's join code, a fair
    roll's link, or a share link."""
    frag = str(window.location.hash or "")
    if len(frag) <= 1 or table_ui.open_fragment(frag):  # a live table's join code
        return
    if page.fair.is_link(frag):
        fairpanel.open_fair_link(frag)
        return
    sharedialog.open_link(frag)


def run_fairness(_=None):
    from trust import dicecheck
    out = q("#fairness-out")
    try:
        n = int(str(q("#fairness-n").value))
        report = dicecheck.run(n)
    except ValueError as e:
        out.textContent = str(e) if str(e) else "Enter a whole number of rolls."
        return
    out.innerHTML = dicecheck.render(report)


# ---------------------------------------------------------------- start

#: Text fields of the page outside the roll forms, kept or acted on as typed.
INPUTS = {"roller-name": history.set_roller, "history-game": history.set_filter,
          "history-search": history.set_filter}
#: Forms of the page other than the roll forms (Enter in the party's forms rolls nothing).
FORMS_SUBMIT = {"save-form": setups.save_current_setup, "ask-form": fairpanel.make_request,
                "sheet-form": later("save_editor"), "party-situation": lambda form: None,
                "party-play": lambda form: None}

CLICKS = (
    ("#history-clear", history.clear_history),
    ("#history-more", history.more_history),
    ("#fair-ask", fairpanel.ask_player),
    ("#ask-cancel", lambda el: q("#ask-dialog").close()),
    ("#history-export", backup.export_history),
    ("#share-setup", sharedialog.share_setup),
    ("#share-result", sharedialog.share_result),
    ("[data-roll-again]", trayview.roll_again),
    ("[data-reset-form]", reset_form),
    ("#history-toggle", lambda el: history.show_history()),
    ("#history-close", lambda el: history.show_history(False)),
    ("#share-copy", lambda el: asyncio.ensure_future(sharedialog.copy_link())),
    ("#share-native", lambda el: asyncio.ensure_future(sharedialog.native_share())),
    ("#share-close", sharedialog.close_share),
    ("[data-setup-roll]", setups.roll_setup),
    ("[data-setup-load]", setups.load_setup),
    ("[data-setup-delete]", setups.delete_setup),
    ("[data-fairness-run]", run_fairness),
    ("#storage-export", backup.export_history),
    ("#storage-drop", backup.make_room),
    ("#storage-download", backup.download_held),
    ("#storage-overwrite", backup.store_over_held),
    ("[data-party-new]", later("new_sheet")),
    ("[data-party-examples]", later("add_examples")),
    ("[data-sheet-edit]", later("edit_selected")),
    ("[data-sheet-share]", later("share_selected")),
    ("[data-sheet-send]", later("send_selected")),
    ("#sheet-cancel", later("cancel_editor")),
    ("#sheet-delete", later("delete_sheet")),
    ("#consequence-later", later("later")),
)


def bench_hooks():
    """With ?bench in the URL, tests/benchmark.py times odds, reads the
    wasm memory and lists the modules imported through these (never
    installed otherwise)."""
    import sys
    import time

    import pyodide_js

    def odds_ms(system, spec_json, forget=None):
        """``forget``: "all" empties every Milhamah odds cache first, "model"
        all but the dice models (tests/benchmark.py says why)."""
        spec = json.loads(spec_json)
        if forget:
            from rules.milhamah import probability as milhamah_odds

            for name in dir(milhamah_odds):
                if name.endswith("_CACHE") and (forget == "all" or name != "_MODEL_CACHE"):
                    getattr(milhamah_odds, name).clear()
        t = time.perf_counter()
        rules.odds(system, spec)
        return (time.perf_counter() - t) * 1000

    def history_ms():
        t = time.perf_counter()
        history.load_history()
        return (time.perf_counter() - t) * 1000

    for name, fn in (("diceBenchOdds", odds_ms), ("diceBenchHistory", history_ms),
                     ("diceBenchWasm", lambda: pyodide_js._module.HEAP8.length),
                     ("diceBenchModules", lambda: json.dumps(sorted(sys.modules)))):
        setattr(window, name, page.kept_proxy(fn))


def listen_all():
    """The page's event listeners: its events, the history's import, the
    link in the address, another tab's storage, and what must be kept
    before the tab closes."""
    for name, fn in (("submit", on_submit), ("click", on_click), ("input", on_input),
                     ("change", on_input), ("keydown", on_keydown)):
        page.listen(document, name, fn)
    page.listen(q("#history-import"), "change", lambda event: asyncio.ensure_future(backup.import_history(event)))
    page.listen(window, "hashchange", guard(open_fragment))
    page.listen(window, "storage", guard(page.on_storage))
    for flush in (page.painted, history.flush_history, forms.flush_forms):  # a roll or an edit just before the tab closes is kept
        page.listen(window, "pagehide", flush)


def start():
    window.performance.mark("dice:start")
    wire()
    listen_all()
    guard(oddspanel.prepare_odds)()
    history.load_roller()
    history.load_history()
    setups.load_setups()
    fairpanel.load_requests()
    table_ui.install(table_api())
    opened = guard(forms.restore_forms)()
    history.adopt_turns(guard(trayview.restore_trays)() or [])
    trayview.open_tab(opened or rules.SYSTEMS[0])
    guard(open_fragment)()
    for btn in document.querySelectorAll("[data-roll], #history-toggle"):
        btn.disabled = False
    if "bench" in str(window.location.search):
        bench_hooks()
    loading = q("#loading")
    loading.hidden = True
    document.body.setAttribute("data-ready", "")
    guard(oddspanel.start_odds_worker)()
    page.when_idle(lambda *_: [importlib.import_module(m.name) for m in (page.fair, page.fairview)])
    page.when_idle(lambda *_: guard(page.party.start)())  # the party: its sheets, drawn (docs/PARTY.md)


def table_api():
    """What the live table (``table_ui``) may do to the page."""
    def set_name(name):
        q("#roller-name").value = name
        history.set_roller(q("#roller-name"))

    def ask(name):
        fairpanel.ask_player()
        q("#ask-player").value = name

    return {"banner": banner, "roller": lambda: history.HISTORY["roller"], "set_roller": set_name,
            "page_url": sharedialog.page_url, "summary": lambda result: ui_for(result["system"]).summary(result),
            "in_progress": lambda result: tab.in_progress(ui_for(result["system"]), result),
            "outcome_name": lambda result: views.outcome_name(str(result.get("outcome", ""))),
            "open_setup": guard(setups.fill_system_form), "open_fair_link": guard(fairpanel.open_fair_link),
            "ask_player": ask, "take_sheet": later("take_table_sheet"),
            "seat_changed": lambda: page.party.render_party() if "party.panel" in sys.modules else None,
            "current_spec": lambda: (lambda s: (CURRENT["system"], s) if s is not None else None)(
                forms.read_spec(CURRENT["system"]))}


start()
