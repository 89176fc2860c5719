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

import js

js.performance.mark("dice:main")  # the start's phases, for tests/benchmark.py (docs/SPEED.md)

import rules
from fairrolls import fairpanel
from links import sharedialog
from odds import oddspanel
from records import backup, history, setups
from shell import page
from shell.page import CURRENT, banner, create_proxy, document, guard, js_none, q, system_of, ui_for, window
from table import table_ui
from tabs import forms, trayview
from tabs.trayview import STATE


def tab_shown(system, first):
    """A tab on show: its odds, its Share button, its saved setups."""
    oddspanel.tab_shown(system, first)
    sharedialog.update_share_buttons()
    setups.render_setups()


def wire():
    """The hooks by which a feature calls one above it (``page.HOOKS``)."""
    page.HOOKS.update({
        "odds": oddspanel.render_odds, "recorded": history.add_history, "shown": sharedialog.update_share_buttons,
        "tab_shown": tab_shown, "fair_tray": fairpanel.render_fair_tray, "fair_step": fairpanel.fair_step,
        "leave_fair": fairpanel.leave_fair,
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
    trayview.set_result(system, rules.roll(system, spec, advise=False))


#: Clicks on a marker inside a tab, checked before the table tools (CLICKS).
TAB_CLICKS = (
    ("[data-tab]", lambda el: trayview.open_tab(el.dataset.tab, focus=False)),
    (".tray [data-die]", lambda el: trayview.toggle_die(el)),
    ("[data-act]", lambda el: trayview.do_action(el)),
    ("[data-insert]", lambda el: forms.insert_text(el)),
    ("[data-history-open]", lambda el: history.open_history(int(el.dataset.historyOpen))),
    ("[data-fair]", lambda el: fairpanel.fair_button(el)),
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
    elif not hasattr(t, "closest"):
        return
    elif event.key in ("Enter", " ") and js_none(t.closest("[data-die]")):
        event.preventDefault()
        trayview.toggle_die(t.closest("[data-die]"))
    elif event.key in ("ArrowRight", "ArrowLeft") and js_none(t.closest("[data-tab]")):
        order = list(rules.SYSTEMS)
        i = order.index(t.dataset.tab)
        nxt = order[(i + (1 if event.key == "ArrowRight" else -1)) % len(order)]
        trayview.open_tab(nxt, focus=True)


@guard
def on_input(event):
    page.painted()  # what the last event left for after the paint comes first
    t = event.target
    if not hasattr(t, "closest"):
        return
    if str(t.id or "") in INPUTS:
        INPUTS[str(t.id)](t)
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
#: Forms of the page other than the roll forms.
FORMS_SUBMIT = {"save-form": setups.save_current_setup, "ask-form": fairpanel.make_request}

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


def start():
    window.performance.mark("dice:start")
    wire()
    for name, fn in (("submit", on_submit), ("click", on_click), ("input", on_input),
                     ("change", on_input), ("keydown", on_keydown)):
        page.listen(document, name, fn)
    page.listen(q("#history-import"), "change", lambda event: asyncio.ensure_future(backup.import_history(event)))
    page.listen(window, "hashchange", guard(open_fragment))
    for flush in (page.painted, history.flush_history, forms.flush_forms):  # a roll or an edit just before the tab closes is kept
        page.listen(window, "pagehide", flush)
    guard(oddspanel.prepare_odds)()
    history.load_roller()
    history.load_history()
    setups.load_setups()
    fairpanel.load_requests()
    table_ui.install(table_api())
    opened = guard(forms.restore_forms)()
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
            "open_setup": guard(setups.fill_system_form), "open_fair_link": guard(fairpanel.open_fair_link),
            "ask_player": ask, "current_spec": lambda: (lambda s: (CURRENT["system"], s) if s is not None else None)(
                forms.read_spec(CURRENT["system"]))}


start()
