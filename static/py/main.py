"""The page's DOM glue: the one module that touches the browser.

It reads a tab's form into fields, lets that tab's ``ui_<system>`` module
(a ``tab.Tab``, registered in ``TABS``) turn them into a spec, calls
``rules`` (the odds through ``tab.answer``, for the questions the tab asks),
and puts the HTML the ui module returns into the page. It keeps the game state (spec, result, taps) in
Python, never reads it back out of the DOM, and writes only HTML that the
pure modules built with every text escaped (or plain ``textContent``).
"""

import asyncio
import json
import traceback

from pyodide.ffi import create_once_callable as create_once
from pyodide.ffi import create_proxy, to_js
from pyscript import document, window

import formstate
import rules
import share
import store
import tab
import ui_alkemy
import ui_jadeclaw
import ui_milhamah
import ui_mirage
import ui_open_tale
import views
from rules.dice import SpecError

#: One tab per game system, in rules.SYSTEMS order. A sixth game is one
#: more ui module here (and in rules.MODULES, index.html, pyscript.toml).
TABS = {ui.SYSTEM: tab.check(ui) for ui in (ui_milhamah, ui_open_tale, ui_mirage, ui_alkemy, ui_jadeclaw)}
assert tuple(TABS) == rules.SYSTEMS, "TABS and rules.SYSTEMS must list the same systems in the same order"

HISTORY_KEY = "dice-table/history"
SETUPS_KEY = "dice-table/setups"
BACKUP_SUFFIX = "/unreadable-backup"

STATE = {s: {"spec": None, "result": None, "ui": {"selected": []}, "opened": False, "timer": None,
             "readonly": False, "defaults": None}
         for s in rules.SYSTEMS}
HISTORY = {"entries": [], "dropped": 0, "serial": 0, "pending": False}
FORMS = {"fields": {}, "dirty": set(), "pending": False}
SETUPS = {"list": []}
CURRENT = {"system": rules.SYSTEMS[0]}
_proxies = []  # keep event proxies alive


def ui_for(system):
    return TABS[system]


def q(selector, root=None):
    """querySelector, with JS null turned into None (Pyodide gives jsnull)."""
    return js_none((root or document).querySelector(selector))


def js_none(value):
    """None for JS null/undefined, which Pyodide may hand over as jsnull."""
    return value if value else None


def css(text):
    return window.CSS.escape(str(text))


# ---------------------------------------------------------------- banners

def banner(message, kind="error"):
    el = q("#banner")
    el.textContent = message
    el.className = f"banner banner-{kind}"
    el.hidden = False


def clear_banner():
    q("#banner").hidden = True


def guard(fn):
    """Run a handler; a SpecError goes beside its field, anything else to
    the banner and the console (tests fail on console errors)."""
    def run(*args):
        try:
            return fn(*args)
        except SpecError as e:
            form = _form_of_event(args[0]) if args else None
            if form is not None:
                show_error(form, e)
            else:
                banner(str(e))
        except Exception:  # a bug: say so, keep the page alive, keep the history
            banner("Something went wrong; nothing was lost. Details are in the browser console.")
            window.console.error("dice table: " + traceback.format_exc())
    return run


def _form_of_event(event):
    try:
        t = js_none(event.target)
        if t is None or not hasattr(t, "closest"):
            return None
        form = js_none(t.closest("form.rollform"))
        if form is None:
            panel = js_none(t.closest("section[data-system]"))
            form = q("form.rollform", panel) if panel else None
        return form
    except Exception:
        return None


# ---------------------------------------------------------------- forms

def read_fields(form, *, default=False):
    """Every named control, as FormData would give it: name -> [values],
    and a group with nothing ticked as [] (so a stored form keeps it
    unticked). ``default``: the values the page's HTML gives, i.e. the
    form as it opens."""
    fields = {}
    for el in form.elements:
        kind = str(el.type or "").lower()
        if el.name and kind not in ("submit", "button", "reset", "fieldset"):
            fields.setdefault(str(el.name), []).extend(_values(el, kind, default))
    return fields


def _values(el, kind, default):
    if kind in ("checkbox", "radio"):
        return [str(el.value)] if (el.defaultChecked if default else el.checked) else []
    if kind.startswith("select"):
        options = list(el.options)
        chosen = [o for o in options if (o.defaultSelected if default else o.selected)]
        if not chosen and kind == "select-one" and options:
            chosen = options[:1]  # what a select with no selected option shows
        return [str(o.value) for o in chosen]
    return [str(el.defaultValue if default else el.value)]


def default_fields(system):
    """The form's fields as the page opens it (read once)."""
    st = STATE[system]
    if st["defaults"] is None:
        st["defaults"] = read_fields(q(f"#form-{system}"), default=True)
    return st["defaults"]


def bad_numbers(form):
    """Number boxes holding text that is not a number: the browser reports
    their value as "" (which would read as the default) and badInput."""
    return [str(el.name) for el in form.querySelectorAll("input[type=number]") if el.name and el.validity.badInput]


def read_spec(system):
    """The form's spec, normalized, or None with every field at fault
    shown beside it (``tab.read_form``)."""
    form = q(f"#form-{system}")
    reading = tab.read_form(ui_for(system), read_fields(form), default_fields(system), bad_numbers(form))
    if reading.errors:
        show_errors(form, reading.errors)
        return None
    clear_errors(form)
    return reading.spec


def fill_fields(form, fields):
    """Set the controls named in ``fields`` (name -> [values], as
    ``read_fields`` gives them); the others keep their values."""
    seen = {}
    for el in form.elements:
        name, kind = str(el.name or ""), str(el.type or "").lower()
        if name not in fields:
            continue
        values = fields[name]
        if kind in ("checkbox", "radio"):
            el.checked = str(el.value) in values
        elif kind == "select-multiple":
            for o in el.options:
                o.selected = str(o.value) in values
        else:
            i = seen[name] = seen.get(name, -1) + 1
            el.value = values[i] if i < len(values) else ""


def fill_form(form, values):
    """Set controls from ``ui.form_values(spec)`` (share links, saved rolls)."""
    for name, value in values.items():
        for el in form.querySelectorAll(f'[name="{css(name)}"]'):
            kind = str(el.type or "").lower()
            if kind == "checkbox":
                if isinstance(value, bool):
                    el.checked = value
                elif isinstance(value, (list, tuple)):
                    el.checked = el.value in [str(v) for v in value]
                else:
                    el.checked = el.value == str(value)
            elif kind == "radio":
                el.checked = el.value == str(value)
            else:
                el.value = "" if value is None else str(value)


def clear_errors(form):
    for el in form.querySelectorAll("[data-error-for]"):
        el.textContent = ""
    for el in form.querySelectorAll("[aria-invalid]"):
        el.removeAttribute("aria-invalid")


def show_error(form, err):
    show_errors(form, [err])


def show_errors(form, errors):
    """Each error beside its field (or under the form when it names no
    field there), each control at fault marked aria-invalid."""
    clear_errors(form)
    for err in errors:
        field = getattr(err, "field", "") or "_form"
        slot = q(f'[data-error-for="{css(field)}"]', form)
        text = getattr(err, "detail", str(err))
        if slot is None:
            slot, text = q('[data-error-for="_form"]', form), str(err)
        if slot is not None:
            slot.textContent = f"{slot.textContent} {text}".strip()
        control = q(f'[name="{css(field)}"]', form)
        if control is not None:
            control.setAttribute("aria-invalid", "true")


# ---------------------------------------------------------------- rolling

def system_of(el):
    panel = js_none(el.closest("section[data-system]"))
    return panel.dataset.system if panel else None


def set_html(selector, html):
    el = q(selector)
    if el is not None:
        el.innerHTML = html


SHARED_NOTE = ('<p class="shared-label">A result shared by someone else, shown read-only. Its outcome '
               'was worked out again here from its dice.</p>')
#: Beside the outcome: roll the same spec again.
TRAY_TOOLS = '<div class="tray-tools"><button type="button" class="roll-again" data-roll-again>Roll again</button></div>'


def render_tray(system):
    st = STATE[system]
    tray = q(f"#tray-{system}")
    if not st["result"]:
        tray.innerHTML = ""
        return
    html = ui_for(system).render_result(st["result"], st["ui"])
    tray.innerHTML = TRAY_TOOLS + (SHARED_NOTE + html if st["readonly"] else html)
    if st["readonly"]:  # a shared result takes no further steps
        for b in tray.querySelectorAll("[data-act]"):
            b.remove()


def render_odds(system):
    """Ask the rules the odds questions the tab needs now, and let the tab
    draw the answers."""
    st = STATE[system]
    if st["spec"] is None:
        return
    ui = ui_for(system)
    answers = tab.answer(system, st["spec"], ui.questions(st["spec"], st["result"], st["ui"]))
    q(f"#odds-{system}").innerHTML = ui.render_odds(st["spec"], answers, st["result"])


def set_result(system, result, record=True, label="", readonly=False):
    st = STATE[system]
    st["result"] = result
    st["ui"] = {"selected": []}
    st["readonly"] = readonly
    q(f"#tab-{system}").classList.toggle("is-shared", bool(readonly and result))
    render_tray(system)
    update_share_buttons()
    if record:
        add_history(system, result, label)
    if record and result is not None:
        changes = ui_for(system).fields_after(result, read_fields(q(f"#form-{system}")))
        if changes:  # e.g. a Condition gained: the character's state, kept with the form
            fill_form(q(f"#form-{system}"), changes)
            st["spec"] = read_spec(system)
            schedule_forms_save(system)
    if result is not None:
        reveal(system)
    # the odds of the next step come in a later task: the dice paint first
    window.setTimeout(create_once(guard(lambda *_: render_odds(system))), 0)


def _in_view(el):
    if el is None:
        return True
    r = el.getBoundingClientRect()
    return r.top >= 0 and r.bottom <= window.innerHeight


def reveal(system):
    """Bring the outcome and the dice into view where the layout has not
    kept them there (a phone, an upright tablet, a step button far down),
    smoothly unless the player asked for reduced motion."""
    tray = q(f"#tray-{system}")
    if _in_view(q(".outcome", tray)) and _in_view(q("svg.die", tray)):
        return
    still = window.matchMedia("(prefers-reduced-motion: reduce)").matches
    tray.scrollIntoView(to_js({"block": "start", "behavior": "auto" if still else "smooth"},
                              dict_converter=window.Object.fromEntries))


@guard
def on_submit(event):
    form = event.target
    if form.id == "save-form":
        event.preventDefault()
        save_current_setup(form)
        return
    if not form.matches("form.rollform"):
        return
    event.preventDefault()
    system = form.dataset.system
    spec = read_spec(system)
    if spec is None:
        return
    STATE[system]["spec"] = spec
    set_result(system, rules.roll(system, spec))


def roll_again(_el=None):
    """Roll the spec of the result on show again (whatever the form says now)."""
    system = CURRENT["system"]
    result = STATE[system]["result"]
    if result is not None:
        set_result(system, rules.roll(system, result["spec"]))


#: Clicks on a marker inside a tab, checked before the table tools (CLICKS).
TAB_CLICKS = (
    ("[data-tab]", lambda el: open_tab(el.dataset.tab, focus=False)),
    (".tray [data-die]", lambda el: toggle_die(el)),
    ("[data-act]", lambda el: do_action(el)),
    ("[data-insert]", lambda el: insert_text(el)),
    ("[data-history-open]", lambda el: open_history(int(el.dataset.historyOpen))),
)


@guard
def on_click(event):
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
    t = event.target
    if event.key == "Escape" and document.body.classList.contains("history-open"):
        show_history(False)
    elif not hasattr(t, "closest"):
        return
    elif event.key in ("Enter", " ") and js_none(t.closest("[data-die]")):
        event.preventDefault()
        toggle_die(t.closest("[data-die]"))
    elif event.key in ("ArrowRight", "ArrowLeft") and js_none(t.closest("[data-tab]")):
        order = list(rules.SYSTEMS)
        i = order.index(t.dataset.tab)
        nxt = order[(i + (1 if event.key == "ArrowRight" else -1)) % len(order)]
        open_tab(nxt, focus=True)


def toggle_die(die):
    system = system_of(die)
    st = STATE[system]
    key = die.dataset.die
    sel = st["ui"]["selected"]
    if key in sel:
        sel.remove(key)
    else:
        sel.append(key)
    # A tap redraws the tray; the live region must not read the whole roll
    # out again (aria-pressed on the die already says what changed).
    tray = q(f"#tray-{system}")
    tray.setAttribute("aria-live", "off")
    render_tray(system)
    window.setTimeout(create_once(lambda *_: tray.setAttribute("aria-live", "polite")), 0)
    focus = q(f'#tray-{system} [data-die="{css(key)}"]')
    if focus is not None:
        focus.focus(to_js({"preventScroll": True}, dict_converter=window.Object.fromEntries))
    render_odds(system)


def do_action(button):
    system = system_of(button)
    st = STATE[system]
    if st["readonly"]:
        return
    form = q(f"#form-{system}")
    ui = ui_for(system)
    try:
        action = ui.action_for(button.dataset.act, st["result"], st["ui"], read_fields(form))
    except SpecError as e:
        show_error(form, e)
        return
    if "fill" in action:  # a flow step that fills the form (e.g. Jadeclaw's combination roll)
        fill_form(form, action["fill"])
        st["spec"] = read_spec(system)
        schedule_forms_save(system)
        render_odds(system)
        return
    try:  # the step acts on the spec the roll was made with, whatever the form says now
        result = rules.act(system, st["result"]["spec"], st["result"], action)
    except SpecError as e:
        show_error(form, e)
        return
    clear_errors(form)
    set_result(system, result)


def insert_text(button):
    form = js_none(button.closest("form"))
    target = q(f'[name="{css(button.dataset.target)}"]', form) if form else None
    if target is None:
        return
    text = button.dataset.insert
    target.value = target.value[:-1] if text == "⌫" else target.value + text
    target.dispatchEvent(window.Event.new("input", {"bubbles": True}))


def reset_form(button):
    """One tap: the tab's form as the page opens it (stored so)."""
    system = system_of(button)
    q(f"#form-{system}").reset()
    update_from_form(system)
    schedule_forms_save(system)


@guard
def on_input(event):
    form = js_none(event.target.closest("form.rollform")) if hasattr(event.target, "closest") else None
    if form is None:
        return
    system = form.dataset.system
    st = STATE[system]
    if st["timer"] is not None:
        window.clearTimeout(st["timer"])
    st["timer"] = window.setTimeout(_odds_proxy(system), 120)
    schedule_forms_save(system)


_odds_cache = {}


def _odds_proxy(system):
    if system not in _odds_cache:
        def later(*_):
            STATE[system]["timer"] = None
            update_from_form(system)
        _odds_cache[system] = create_proxy(guard(later))
    return _odds_cache[system]


def update_from_form(system):
    spec = read_spec(system)
    if spec is not None:
        STATE[system]["spec"] = spec
        render_odds(system)


# ---------------------------------------------------------------- kept forms

def schedule_forms_save(system=None):
    """Note a form as changed; every changed form is stored a moment later
    (and when the page is hidden), not on every keystroke."""
    if system is not None:
        FORMS["dirty"].add(system)
    if not FORMS["pending"]:
        FORMS["pending"] = True
        window.setTimeout(create_once(lambda *_: flush_forms()), 300)


def flush_forms(*_):
    if not FORMS["pending"]:
        return
    FORMS["pending"] = False
    for system in FORMS["dirty"]:
        FORMS["fields"][system] = read_fields(q(f"#form-{system}"))
    FORMS["dirty"] = set()
    write_store(formstate.KEY, formstate.dump(CURRENT["system"], FORMS["fields"]),
                "The browser refused to store your forms (storage full?); they open as new on reload.")


def _read_stored_form(system, fields):
    """A stored form through its tab and the rules; a tab that fails on it
    (a bug) gives the defaults, never a crash at start-up."""
    defaults = default_fields(system)
    try:
        return tab.read_form(ui_for(system), {**defaults, **fields}, defaults)
    except Exception:
        window.console.warn("dice table: stored form: " + traceback.format_exc())
        return tab.Reading(None, [SpecError("_form", "could not be read; it opens as new")], {})


def restore_forms():
    """Fill each form as it was left and return the tab that was open. What
    cannot be restored is named in a banner, its text kept under a backup
    key, and that field (or form) opens as new."""
    text = read_store(formstate.KEY)
    stored = formstate.load(text, rules.SYSTEMS)
    forms, problems = formstate.restore(stored, _read_stored_form)
    for system, fields in forms.items():
        if fields:
            fill_fields(q(f"#form-{system}"), fields)
            FORMS["fields"][system] = fields
    if problems:
        keep_backup(formstate.KEY, text)
        banner(formstate.message(problems), "warning")
    return stored.tab


# ---------------------------------------------------------------- tabs

def open_tab(system, focus=False):
    if system not in rules.SYSTEMS:
        return
    CURRENT["system"] = system
    for s in rules.SYSTEMS:
        btn = q(f"#tabbtn-{s}")
        btn.setAttribute("aria-selected", "true" if s == system else "false")
        btn.tabIndex = 0 if s == system else -1
        q(f"#tab-{s}").hidden = s != system
    if focus:
        q(f"#tabbtn-{system}").focus()
    schedule_forms_save()  # the open tab is kept with the forms
    st = STATE[system]
    if not st["opened"]:
        st["opened"] = True
        ui = ui_for(system)
        # the reference tables wait until the tab is on screen
        window.setTimeout(create_once(guard(lambda *_: set_html(f"#ref-{system}", ui.render_reference()))), 0)
        # odds after the tab is painted (and after start-up: the first roll waits for nothing)
        window.setTimeout(create_once(guard(lambda *_: update_from_form(system))), 0)
    update_share_buttons()
    render_setups()


# ---------------------------------------------------------------- history

def add_history(system, result, label=""):
    """Prepend one entry: only the new item is drawn and the store is
    written after the paint, so a roll costs the same with 200 entries as
    with none."""
    HISTORY["serial"] += 1
    entry = {"system": system, "result": result, "label": label, "time": window.Date.now(),
             "id": HISTORY["serial"]}
    HISTORY["entries"], dropped = store.add(HISTORY["entries"], entry)
    HISTORY["dropped"] += dropped
    ol = q("#history-list")
    ol.insertAdjacentHTML("afterbegin", history_item(entry))
    for _ in range(dropped):
        last = js_none(ol.lastElementChild)
        if last:
            last.remove()
    render_history_note()
    schedule_save()


def schedule_save():
    if not HISTORY["pending"]:
        HISTORY["pending"] = True
        window.setTimeout(create_once(lambda *_: flush_history()), 30)


def flush_history(*_):
    if HISTORY["pending"]:
        HISTORY["pending"] = False
        save_history()


def save_history():
    write_store(HISTORY_KEY, store.dump(HISTORY["entries"]),
                "The browser refused to store the roll history (storage full?). "
                "Your rolls stay on this page until you reload; export them to keep them.")


def read_store(key):
    """The text stored under ``key`` in localStorage, or None (nothing
    stored, or no storage at all)."""
    try:
        text = window.localStorage.getItem(key)
    except Exception:
        return None
    return text if isinstance(text, str) else None  # JS null arrives as pyodide's jsnull, not None


def write_store(key, text, refused):
    """Store ``text``; if the browser refuses (quota, private mode), say
    ``refused`` in the banner."""
    try:
        window.localStorage.setItem(key, text)
    except Exception:
        shown = q("#banner")
        said = "" if shown.hidden else str(shown.textContent)
        if refused not in said:  # one refusal does not hide another (history, setups, forms)
            banner(f"{said} {refused}".strip() if "refused" in said else refused, "warning")


def load_history():
    text = read_store(HISTORY_KEY)
    entries, warning = store.load(text)
    HISTORY["entries"] = entries
    if warning:
        keep_backup(HISTORY_KEY, text)
        banner(warning, "warning")
    render_history()


def keep_backup(key, text):
    """Before an unreadable store can be overwritten, its text is kept
    under a second key, so nothing is lost."""
    if not text:
        return
    try:
        window.localStorage.setItem(key + BACKUP_SUFFIX, text)
    except Exception:
        pass


def _when(ms):
    try:
        return str(window.Date.new(ms).toLocaleString([], {"dateStyle": "short", "timeStyle": "short"}))
    except Exception:
        return ""


def history_item(e):
    system = e["system"]
    try:
        summary = ui_for(system).summary(e["result"])
    except Exception:  # a stored result of an older shape: show it without a summary
        summary = ""
    return views.history_entry({**e, "time": _when(e.get("time"))}, e["id"], rules.TITLES[system], summary)


def render_history():
    """Draw the whole list (on load, import, clear); entry ids are given
    afresh, never taken from storage."""
    for e in HISTORY["entries"]:
        HISTORY["serial"] += 1
        e["id"] = HISTORY["serial"]
    q("#history-list").innerHTML = "".join(history_item(e) for e in HISTORY["entries"])
    render_history_note()


def render_history_note():
    q("#history-count").textContent = str(len(HISTORY["entries"]) or "")
    note = q("#history-note")
    if note is not None:
        note.textContent = (f"{HISTORY['dropped']} oldest roll(s) dropped: the history keeps the newest "
                            f"{store.CAP}. Export it to keep a full campaign log.") if HISTORY["dropped"] else ""


def open_history(key):
    e = next((x for x in HISTORY["entries"] if x.get("id") == key), None)
    if e is None:
        return
    system = e["system"]
    result = rules.replay(system, e["result"]["spec"], e["result"]["stages"])
    open_tab(system)
    form = q(f"#form-{system}")
    fill_form(form, ui_for(system).form_values(result["spec"]))
    STATE[system]["spec"] = result["spec"]
    schedule_forms_save(system)
    if window.matchMedia(DRAWER).matches:  # the drawer would cover the result
        show_history(False)
    set_result(system, result, record=False)


#: Where the history is a drawer over the page (app.css says the same).
DRAWER = "(max-width: 1279.98px)"


def show_history(open_=None, _el=None):
    """Open or close (None: toggle) the history drawer; the focus goes in
    with it and comes back to the toggle."""
    body = document.body
    open_ = not body.classList.contains("history-open") if open_ is None else open_
    body.classList.toggle("history-open", open_)
    q("#history-toggle").setAttribute("aria-expanded", "true" if open_ else "false")
    if open_:
        q("#history-title").focus()
    elif js_none(document.activeElement) is None or js_none(document.activeElement.closest("#history")):
        q("#history-toggle").focus()


def clear_history(_=None):
    if not window.confirm("Clear the whole roll history? Export it first to keep it."):
        return
    HISTORY["entries"] = []
    HISTORY["dropped"] = 0
    HISTORY["pending"] = False
    save_history()
    render_history()


def export_history(_=None):
    text = store.export_text(HISTORY["entries"], SETUPS["list"])
    blob = window.Blob.new([text], to_js({"type": "application/json"}, dict_converter=window.Object.fromEntries))
    url = window.URL.createObjectURL(blob)
    a = document.createElement("a")
    a.href = url
    a.download = "dice-table-" + str(window.Date.new().toISOString())[:10] + ".json"
    document.body.append(a)
    a.click()
    a.remove()
    window.setTimeout(create_once(lambda *_: window.URL.revokeObjectURL(url)), 1000)


async def import_history(event):
    try:
        files = event.target.files
        if not files or files.length == 0:
            return
        text = await files.item(0).text()
        event.target.value = ""
        entries, setups, message = store.import_text(str(text), HISTORY["entries"], SETUPS["list"])
        HISTORY["entries"], SETUPS["list"] = entries, setups
        save_history()
        save_setups()
        render_history()
        render_setups()
        banner(message, "info")
    except Exception:
        banner("That file could not be imported; nothing was changed.")
        window.console.error("dice table: " + traceback.format_exc())


# ---------------------------------------------------------------- saved setups

def load_setups():
    text = read_store(SETUPS_KEY)
    SETUPS["list"], warning = store.load_setups(text)
    if warning:
        keep_backup(SETUPS_KEY, text)
        banner(warning, "warning")


def save_setups():
    write_store(SETUPS_KEY, store.dump_setups(SETUPS["list"]),
                "The browser refused to store your saved setups (storage full?).")


def save_current_setup(form):
    system = CURRENT["system"]
    name = str(q("#setup-name").value)
    err = q("#save-error")
    err.textContent = ""
    spec = read_spec(system)
    if spec is None:
        err.textContent = "Fix the form first: each field at fault says what is wrong."
        return
    try:
        SETUPS["list"] = store.save_setup(SETUPS["list"], system, name, spec)
    except ValueError as e:
        err.textContent = str(e)
        return
    q("#setup-name").value = ""
    save_setups()
    render_setups()


def render_setups():
    system = CURRENT["system"]
    items = []
    for i, s in enumerate(SETUPS["list"]):
        if s["system"] != system:
            continue
        name = views.esc(s["name"])
        items.append(f'<li><span class="setup-name">{name}</span>'
                     f'<button type="button" data-setup-roll="{i}" aria-label="Roll {name}">Roll</button>'
                     f'<button type="button" data-setup-load="{i}" aria-label="Edit {name}">Edit</button>'
                     f'<button type="button" data-setup-delete="{i}" aria-label="Delete {name}">Delete</button></li>')
    title = views.esc(rules.TITLES[system])
    q("#saved-list").innerHTML = (f'<h3>Saved {title} setups</h3><ul class="setups">{"".join(items)}</ul>'
                                  if items else "")


def _setup(el, attr):
    i = int(el.getAttribute(attr))
    return SETUPS["list"][i] if 0 <= i < len(SETUPS["list"]) else None


def load_setup(el):
    s = _setup(el, "data-setup-load")
    if s:
        fill_system_form(s["system"], s["spec"])
        q("#setup-name").value = s["name"]


def roll_setup(el):
    s = _setup(el, "data-setup-roll")
    if s:
        fill_system_form(s["system"], s["spec"])
        result = rules.roll(s["system"], s["spec"])
        STATE[s["system"]]["spec"] = result["spec"]
        set_result(s["system"], result, label=s["name"])


def delete_setup(el):
    s = _setup(el, "data-setup-delete")
    if s and window.confirm(f"Delete the saved setup “{s['name']}”?"):
        SETUPS["list"] = [x for x in SETUPS["list"] if x is not s]
        save_setups()
        render_setups()


def fill_system_form(system, spec):
    spec = rules.normalize(system, spec)
    open_tab(system)
    form = q(f"#form-{system}")
    clear_errors(form)
    fill_form(form, ui_for(system).form_values(spec))
    STATE[system]["spec"] = spec
    schedule_forms_save(system)
    render_odds(system)


# ---------------------------------------------------------------- share links

def update_share_buttons():
    st = STATE[CURRENT["system"]]
    q("#share-result").disabled = st["result"] is None


def page_url():
    loc = window.location
    return str(loc.origin) + str(loc.pathname) + str(loc.search)


def share_setup(_=None):
    system = CURRENT["system"]
    spec = read_spec(system)
    if spec is None:
        return
    open_share_dialog(share.encode_setup(system, spec),
                      f"A link to this {rules.TITLES[system]} roll setup: whoever opens it gets the form filled in.")


def share_result(_=None):
    system = CURRENT["system"]
    result = STATE[system]["result"]
    if result is None:
        return
    open_share_dialog(share.encode_result(result),
                      f"A link to this {rules.TITLES[system]} result: whoever opens it sees these dice, "
                      "and the outcome is worked out again from them.")


def open_share_dialog(fragment, what):
    url = page_url() + "#" + fragment
    q("#share-what").textContent = what
    q("#share-link").value = url
    q("#share-status").textContent = ""
    q("#share-native").hidden = not hasattr(window.navigator, "share")
    q("#share-qr").innerHTML = ""
    dialog = q("#share-dialog")
    dialog.showModal()
    q("#share-link").select()
    asyncio.ensure_future(draw_qr(url))


async def draw_qr(url):
    try:
        import qr
        await qr.load()
        q("#share-qr").innerHTML = qr.svg(url)
    except Exception:
        q("#share-qr").textContent = "The QR code could not be drawn; copy the link instead."
        window.console.warn("dice table: QR: " + traceback.format_exc())


async def copy_link(_=None):
    url = str(q("#share-link").value)
    try:
        await window.navigator.clipboard.writeText(url)
        q("#share-status").textContent = "Link copied."
    except Exception:
        q("#share-link").select()
        ok = document.execCommand("copy")
        q("#share-status").textContent = "Link copied." if ok else "Select the link and copy it."


async def native_share(_=None):
    try:
        await window.navigator.share(to_js({"title": "The dice table", "url": str(q("#share-link").value)},
                                           dict_converter=window.Object.fromEntries))
    except Exception:
        pass  # the player closed the share sheet


def close_share(_=None):
    q("#share-dialog").close()


def open_fragment(*_):
    """Open a share link in the URL fragment: a setup fills its form; a
    result is replayed from its dice and shown read-only."""
    frag = str(window.location.hash or "")
    if len(frag) <= 1:
        return
    try:
        link = share.open_link(frag)
    except share.ShareError as e:
        banner(str(e) + " Your own rolls and history are untouched.", "error")
        return
    system = link["system"]
    fill_system_form(system, link["spec"])
    if link["kind"] == "result":
        set_result(system, link["result"], label="Shared link", readonly=True)
        banner("Opened a shared result: the dice are the sender's, the outcome is recomputed here.", "info")
    else:
        banner(f"Opened a shared {rules.TITLES[system]} roll setup: the form is filled in; press Roll.", "info")


# ---------------------------------------------------------------- fairness

def run_fairness(_=None):
    import fairness
    out = q("#fairness-out")
    try:
        n = int(str(q("#fairness-n").value))
        report = fairness.run(n)
    except ValueError as e:
        out.textContent = str(e) if str(e) else "Enter a whole number of rolls."
        return
    out.innerHTML = fairness.render(report)


# ---------------------------------------------------------------- start

CLICKS = (
    ("#history-clear", clear_history),
    ("#history-export", export_history),
    ("#share-setup", share_setup),
    ("#share-result", share_result),
    ("[data-roll-again]", roll_again),
    ("[data-reset-form]", reset_form),
    ("#history-toggle", lambda el: show_history()),
    ("#history-close", lambda el: show_history(False)),
    ("#share-copy", lambda el: asyncio.ensure_future(copy_link())),
    ("#share-native", lambda el: asyncio.ensure_future(native_share())),
    ("#share-close", close_share),
    ("[data-setup-roll]", roll_setup),
    ("[data-setup-load]", load_setup),
    ("[data-setup-delete]", delete_setup),
    ("[data-fairness-run]", run_fairness),
)


def bench_hooks():
    """With ?bench in the URL, tests/benchmark.py times odds and reads the
    wasm memory through these (never installed otherwise)."""
    import time

    import pyodide_js

    def odds_ms(system, spec_json):
        spec = json.loads(spec_json)
        t = time.perf_counter()
        rules.odds(system, spec)
        return (time.perf_counter() - t) * 1000

    for name, fn in (("diceBenchOdds", odds_ms),
                     ("diceBenchWasm", lambda: pyodide_js._module.HEAP8.length)):
        p = create_proxy(fn)
        _proxies.append(p)
        setattr(window, name, p)


def start():
    for name, fn in (("submit", on_submit), ("click", on_click), ("input", on_input),
                     ("change", on_input), ("keydown", on_keydown)):
        p = create_proxy(fn)
        _proxies.append(p)
        document.addEventListener(name, p)
    imp = create_proxy(lambda event: asyncio.ensure_future(import_history(event)))
    _proxies.append(imp)
    q("#history-import").addEventListener("change", imp)
    hc = create_proxy(guard(open_fragment))
    _proxies.append(hc)
    window.addEventListener("hashchange", hc)
    for flush in (flush_history, flush_forms):  # a roll or an edit just before the tab closes is kept
        fl = create_proxy(flush)
        _proxies.append(fl)
        window.addEventListener("pagehide", fl)
    load_history()
    load_setups()
    opened = guard(restore_forms)()
    open_tab(opened or rules.SYSTEMS[0])
    guard(open_fragment)()
    for btn in document.querySelectorAll("[data-roll], #history-toggle"):
        btn.disabled = False
    if "bench" in str(window.location.search):
        bench_hooks()
    loading = q("#loading")
    loading.hidden = True
    document.body.setAttribute("data-ready", "")


start()
