"""The page's DOM glue: the one module that touches the browser.

It reads a tab's form into fields, lets that tab's ``ui_<system>`` module
(a ``tab.Tab``, registered in ``TABS``) turn them into a spec, calls
``rules`` (the odds through ``tab.answer``, for the questions the tab asks),
and puts the HTML the ui module returns into the page. It keeps the game state (spec, result, taps) in
Python, never reads it back out of the DOM, and writes only HTML that the
pure modules built with every text escaped (or plain ``textContent``).
"""

import asyncio
import importlib
import json
import traceback

from pyodide.ffi import create_once_callable as create_once
from pyodide.ffi import create_proxy, to_js
from pyscript import document, window

import formstate
import oddsclient
import oddswork
import rules
import share
import store
import tab
import table_ui
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
ROLLER_KEY = "dice-table/roller"
REQUESTS_KEY = "dice-table/requests"
BACKUP_SUFFIX = "/unreadable-backup"
#: History entries drawn at a time (each is replayed when first drawn).
PAGE = 20

#: Per tab: "fair" is (role, request id) while a fair roll at a distance is
#: on show there (its form then shows the request, read-only); "note" the
#: HTML over a read-only result (shared, verified).
STATE = {s: {"spec": None, "result": None, "ui": {"selected": []}, "opened": False, "timer": None,
             "readonly": False, "defaults": None, "fair": None, "note": "", "entry": None,
             "stale": False}
         for s in rules.SYSTEMS}
HISTORY = {"entries": [], "dropped": 0, "serial": 0, "pending": False, "limit": PAGE, "game": "", "text": ""}
#: entry id -> (result or None, how it came): replayed when first drawn.
SHOWN = {}
ROLLER = {"name": ""}
REQUESTS = {"list": []}
#: This device's name and key for fair-roll answers (``this_device``).
DEVICE = {}
FORMS = {"fields": {}, "dirty": set(), "pending": False}
SETUPS = {"list": []}
CURRENT = {"system": rules.SYSTEMS[0]}
_proxies = []  # keep event proxies alive


class Later:
    """A module of ours imported at its first use, not before ready. A first
    visit has no fair-roll request, link or entry, so it starts without
    ``fair`` (and the hashlib, hmac and secrets it imports) or ``fairview``;
    ``start`` imports them once the page is idle (README "Speed")."""

    def __init__(self, name):
        self.name = name

    def __getattr__(self, attr):
        return getattr(importlib.import_module(self.name), attr)


fair = Later("fair")
fairview = Later("fairview")


def js_obj(d):
    """A Python dict as a plain JavaScript object (options for DOM calls)."""
    return to_js(d, dict_converter=window.Object.fromEntries)


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


def number_names(form):
    return [str(el.name) for el in form.querySelectorAll("input[type=number]") if el.name]


def read_spec(system, show_defaults=False):
    """The form's spec, normalized, or None with every field at fault
    shown beside it (``tab.read_form``). An empty number box reads as its
    default; ``show_defaults`` (a Roll) writes that default into the box."""
    form = q(f"#form-{system}")
    reading = tab.read_form(ui_for(system), read_fields(form), default_fields(system), bad_numbers(form),
                            number_names(form))
    if show_defaults and reading.filled:
        fill_fields(form, reading.filled)
        schedule_forms_save(system)
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
        for el in (slot, control):  # an error is shown where it can be seen: its closed group opens
            group = js_none(el.closest("details")) if el is not None else None
            if group is not None and not group.open:
                group.open = True


# ---------------------------------------------------------------- rolling

def system_of(el):
    panel = js_none(el.closest("section[data-system]"))
    return panel.dataset.system if panel else None


def set_html(selector, html):
    el = q(selector)
    if el is not None:
        el.innerHTML = html


SHARED_NOTE = ('<p class="shared-label">Shared result, faces as reported: a result shared by someone '
               'else, shown read-only. Its outcome was worked out again here from its dice.</p>')
#: Beside the outcome: roll the same spec again.
TRAY_TOOLS = '<div class="tray-tools"><button type="button" class="roll-again" data-roll-again>Roll again</button></div>'


def render_tray(system):
    st = STATE[system]
    tray = q(f"#tray-{system}")
    if st["fair"]:
        render_fair_tray(system, tray)
        return
    stale = bool(st["stale"] and st["result"])
    tray.classList.toggle("is-stale", stale)
    if not st["result"]:
        tray.innerHTML = ""
        return
    html = ui_for(system).render_result(st["result"], {**st["ui"], "readonly": bool(st["readonly"])})
    tray.innerHTML = STALE_NOTE * stale + (st["note"] if st["readonly"] else "") + TRAY_TOOLS + html
    if st["readonly"]:  # a shared or verified result takes no further steps: no step button, no tappable die
        for b in tray.querySelectorAll("[data-act]"):
            b.remove()
        for d in tray.querySelectorAll("[data-die]"):
            for attr in ("role", "tabindex", "aria-pressed"):  # drawn, not tappable (toggle_die ignores it)
                d.removeAttribute(attr)


def render_odds(system):
    """Ask the odds questions the tab needs now (and best play's advice for
    a result that has none yet): of the odds Worker, drawing the answer when
    it comes, or here where the Worker could not start (README "Odds
    beside the page")."""
    st = STATE[system]
    if st["spec"] is None:
        return
    asked = {"spec": st["spec"], "result": st["result"], "ui": st["ui"],
             "advise": oddswork.needs_advice(st["result"]) and not st["readonly"]}
    questions = ODDS["questions"]
    if questions is not None and questions.usable:
        odds_waiting(system, True)
        ask = {**asked, "ui": json.loads(json.dumps(st["ui"]))}  # the taps as they are now
        serial = questions.ask(system, ask, lambda got: show_odds(system, asked, got))
        q(f"#odds-{system}").dataset.oddsAsked = serial  # for the tests: which question is current
        return
    show_odds(system, asked, odds_here(system, asked))


#: The odds Worker's questions (oddsclient.Questions), None until it is
#: started; and its transport.
ODDS = {"questions": None, "transport": None}


def odds_here(system, asked):
    """The odds worked out on the page's own thread (no Worker, or it failed)."""
    return oddswork.work(system, asked["spec"], asked["result"], asked["ui"], asked["advise"])


def odds_waiting(system, waiting):
    """The panel says the odds are being worked out, at its height (the old
    figures stay, dimmed, under the note: no layout jump)."""
    panel = q(f"#odds-{system}")
    if waiting:
        panel.setAttribute("aria-busy", "true")
        if not panel.innerHTML.strip():
            panel.innerHTML = '<p class="odds-note">Working out the odds…</p>'
    else:
        panel.removeAttribute("aria-busy")


@guard
def show_odds(system, asked, got):
    """Draw an answer for the question ``asked``, merging its advice into
    the result on show (the ↻ marks, the advised buttons, the choices)."""
    st = STATE[system]
    if st["spec"] is not asked["spec"] or not oddswork.same_result(st["result"], asked["result"]):
        return  # overtaken (a newer question is on its way)
    if "error" in got:  # the Worker could not answer this one: answer it here
        got = odds_here(system, asked)
    if got.get("advice") is not None and oddswork.needs_advice(st["result"]):
        st["result"] = asked["result"] = oddswork.merge_advice(st["result"], got["advice"])
        redraw_tray_kept(system)
    panel = q(f"#odds-{system}")
    panel.innerHTML = ui_for(system).render_odds(st["spec"], got["answers"], st["result"])
    panel.dataset.oddsShown = got.get("serial", "here")
    odds_waiting(system, False)


def redraw_tray_kept(system):
    """The tray drawn again with the advice (a later task than the roll),
    the focus kept on the die or button it was on."""
    active = js_none(document.activeElement)
    tray = q(f"#tray-{system}")
    key = None
    if active is not None and tray.contains(active):
        for attr in ("data-die", "data-act"):
            if active.hasAttribute(attr):
                key = (attr, active.getAttribute(attr))
    tray.setAttribute("aria-live", "off")  # the roll was read out already
    render_tray(system)
    window.setTimeout(create_once(lambda *_: tray.setAttribute("aria-live", "polite")), 0)
    if key is not None:
        el = q(f'[{key[0]}="{css(key[1])}"]', tray)
        if el is not None:
            el.focus(js_obj({"preventScroll": True}))


def prepare_odds():
    """Before the page's first question: questions wait for the odds Worker
    (started once the page is ready, ``start_odds_worker``) rather than being
    worked out here. ``?odds=page`` keeps the odds on the page's own thread
    (a test of the fallback), as does a browser without Workers."""
    if "odds=page" in str(window.location.search) or not hasattr(window, "Worker"):
        document.body.dataset.odds = "page"
        return
    ODDS["questions"] = oddsclient.Questions(lambda m: ODDS["transport"].post(m))


def start_odds_worker():
    """The odds Worker, started with the files this start wrote (nothing
    fetched again); any failure: the page answers what waits, itself."""
    questions = ODDS["questions"]
    if questions is None:
        return

    def failed():
        for system in questions.failed():
            render_odds(system)  # here, now

    try:
        url = window.URL.new("./static/js/odds-worker.mjs", document.baseURI).href
        transport = oddsclient.Transport(window, url, guard(questions.received), guard(failed))
        ODDS["transport"] = transport
        transport.start(lambda: questions.started(True), getattr(window, "diceSnapshotKey", None))
    except Exception:  # noqa: BLE001 - no Worker here: the page answers itself
        document.body.dataset.odds = "page-error"
        failed()


def set_result(system, result, record=True, label="", readonly=False, note=SHARED_NOTE, source="here"):
    st = STATE[system]
    st["result"] = result
    st["ui"] = {"selected": []}
    st["stale"] = False
    st["readonly"] = readonly
    st["note"] = note if readonly else ""
    q(f"#tab-{system}").classList.toggle("is-shared", bool(readonly and result))
    render_tray(system)
    update_share_buttons()
    if record:
        add_history(system, result, label, source)
    if record and result is not None and not readonly:  # a shared result never changes the reader's character
        changes = ui_for(system).fields_after(result, read_fields(q(f"#form-{system}")))
        if changes:  # e.g. a Condition gained: the character's state, kept with the form
            fill_form(q(f"#form-{system}"), changes)
            st["spec"] = read_spec(system)
            schedule_forms_save(system)
    if result is not None:
        reveal(system)
    render_odds_later(system, again=result is not None)


def render_odds_later(system, again=False):
    """The odds of the next step come in a later task: the dice paint first.
    ``again``: then bring the result into view again, should the new odds
    have moved it."""
    def later(*_):
        render_odds(system)
        if again:
            reveal(system)
    window.setTimeout(create_once(guard(later)), 0)


def _in_view(el):
    """Inside the screen, and inside the result column where that scrolls
    on its own (a part scrolled out of it is hidden, though on screen)."""
    if el is None:
        return True
    r = el.getBoundingClientRect()
    pane = js_none(el.closest(".result-pane"))
    top, bottom = 0, window.innerHeight
    if pane is not None and str(window.getComputedStyle(pane).overflowY) != "visible":
        p = pane.getBoundingClientRect()
        top, bottom = max(top, p.top), min(bottom, p.bottom)
    return r.top >= top - 0.5 and r.bottom <= bottom + 0.5


def reveal(system):
    """Bring the outcome and the dice into view where the layout has not
    kept them there (a phone, an upright tablet, a step button far down),
    smoothly unless the player asked for reduced motion."""
    tray = q(f"#tray-{system}")
    # every row of dice (a row's box, not a die's: a die that is landing is drawn smaller and higher)
    dice = list(tray.querySelectorAll(".dice, .ot-chain")) or list(tray.querySelectorAll("svg.die"))
    steps = tray.querySelectorAll("[data-act]:not([data-act=reuse]):not([data-act=effect])")  # rules steps, not form fillers
    last_step = steps.item(steps.length - 1) if steps.length else None  # every step button, down to the last
    if all(_in_view(el) for el in [q(".outcome", tray), last_step] + dice):
        return
    still = window.matchMedia("(prefers-reduced-motion: reduce)").matches
    tray.scrollIntoView(js_obj({"block": "start", "behavior": "auto" if still else "smooth"}))


@guard
def on_submit(event):
    form = event.target
    if form.id in FORMS_SUBMIT:
        event.preventDefault()
        FORMS_SUBMIT[form.id](form)
        return
    if not form.matches("form.rollform"):
        return
    event.preventDefault()
    system = form.dataset.system
    if form_locked(system):  # the form shows a fair roll's request: its Roll is in the tray
        return
    leave_fair(system)  # a finished fair roll on show: Roll rolls the form, the player's own
    spec = read_spec(system, show_defaults=True)
    if spec is None:
        refused(system, form)
        return
    STATE[system]["spec"] = spec
    set_result(system, rules.roll(system, spec, advise=False))


STALE_NOTE = ('<p class="stale-note" data-stale role="alert">Not rolled: the form has an error (marked in red '
              'beside its field). The dice below are the previous roll, not this one.</p>')


def refused(system, form):
    """A Roll the form's errors refused (issue 22 item 3): the result on
    show is marked as the previous roll, not this one, and the first error
    is brought into view (centred: never under the fixed Roll button)."""
    if STATE[system]["result"] is not None:
        STATE[system]["stale"] = True
        render_tray(system)
    first = q("[aria-invalid]", form) or next((el for el in form.querySelectorAll("[data-error-for]")
                                                if str(el.textContent).strip()), None)
    if first is not None:
        still = window.matchMedia("(prefers-reduced-motion: reduce)").matches
        first.scrollIntoView(js_obj({"block": "center", "behavior": "auto" if still else "smooth"}))
        if str(first.tagName) in ("INPUT", "SELECT", "TEXTAREA"):
            first.focus(js_obj({"preventScroll": True}))


def roll_again(_el=None):
    """Roll the spec of the result on show again (whatever the form says now)."""
    system = CURRENT["system"]
    result = STATE[system]["result"]
    if result is not None:
        set_result(system, rules.roll(system, result["spec"], advise=False))


#: Clicks on a marker inside a tab, checked before the table tools (CLICKS).
TAB_CLICKS = (
    ("[data-tab]", lambda el: open_tab(el.dataset.tab, focus=False)),
    (".tray [data-die]", lambda el: toggle_die(el)),
    ("[data-act]", lambda el: do_action(el)),
    ("[data-insert]", lambda el: insert_text(el)),
    ("[data-history-open]", lambda el: open_history(int(el.dataset.historyOpen))),
    ("[data-fair]", lambda el: fair_button(el)),
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
    if event.key == "Escape" and document.body.classList.contains("drawer-open"):
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
    if st["readonly"]:  # a shared result's dice are not tapped
        return
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
        focus.focus(js_obj({"preventScroll": True}))
    render_odds(system)


def do_action(button):
    system = system_of(button)
    st = STATE[system]
    if st["readonly"]:
        return
    form = q(f"#form-{system}")
    ui = ui_for(system)
    if oddswork.needs_advice(st["result"]) and oddswork.advised_step(button.dataset.act, st["ui"]):
        # pressed before the Worker's advice came: worked out here, at once (bounded work)
        st["result"] = oddswork.merge_advice(st["result"], rules.advise(system, st["result"]["spec"], st["result"]))
    try:
        action = ui.action_for(button.dataset.act, st["result"], st["ui"], read_fields(form))
    except SpecError as e:
        show_error(form, e)
        return
    if st["fair"]:
        fair_step(system, action)
        return
    if "fill" in action:  # a flow step that fills the form (e.g. Jadeclaw's combination roll)
        fill_form(form, action["fill"])
        st["spec"] = read_spec(system)
        schedule_forms_save(system)
        render_odds(system)
        return
    try:  # the step acts on the spec the roll was made with, whatever the form says now
        result = rules.act(system, st["result"]["spec"], st["result"], action, advise=False)
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
    if form_locked(system):
        return
    q(f"#form-{system}").reset()
    update_from_form(system)
    schedule_forms_save(system)


@guard
def on_input(event):
    t = event.target
    if not hasattr(t, "closest"):
        return
    if str(t.id or "") in INPUTS:
        INPUTS[str(t.id)](t)
        return
    form = js_none(t.closest("form.rollform"))
    if form is None:
        return
    system = form.dataset.system
    st = STATE[system]
    if form_locked(system):  # the request's form, read-only: nothing of it is kept as the player's own
        return
    if str(event.type) == "change" and str(t.type or "") == "number" and t.name:  # left empty: shows its default
        fill_fields(form, tab.empty_numbers({str(t.name): [str(t.value)]}, default_fields(system),
                                            [] if t.validity.badInput else [str(t.name)]))
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
        if not form_locked(system):  # a form showing a fair request keeps the player's own
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
    elif ODDS["questions"] is not None and ODDS["questions"].pending(system):
        render_odds(system)  # its last question was dropped for another tab's: ask it again
    update_share_buttons()
    render_setups()


# ---------------------------------------------------------------- history

def now():
    return window.Date.now()


def add_history(system, result, label="", source="here"):
    """A roll made or opened here goes into the history, under the name set
    on this device. A step of the turn on show updates that turn's entry in
    place (one turn, one entry: issue 22)."""
    st = STATE[system]
    i = next((n for n, e in enumerate(HISTORY["entries"]) if e.get("id") == st["entry"]), None)
    if i is not None and source == "here" and store.continues(HISTORY["entries"][i], result):
        advance_entry(i, result)
        return
    entry = store.new_entry(result, time=now(), label=label, roller=ROLLER["name"], source=source)
    st["entry"] = add_entry(entry, result)


def advance_entry(i, result):
    """Entry ``i`` takes the turn's new stages; its item is drawn again where
    it stands."""
    HISTORY["entries"] = store.advance(HISTORY["entries"], i, result)
    e = HISTORY["entries"][i]
    SHOWN[e["id"]] = (result, fair.provenance({**e, "result": result}))
    item = q(f'#history-list [data-history-entry="{e["id"]}"]')
    if item is not None:
        item.outerHTML = history_item(e)
    schedule_save()
    table_ui.on_history(e, result)  # the step reaches the live table too


def add_entry(entry, result=None):
    """Prepend one stored entry: only its item is drawn and the store is
    written after the paint, so a roll costs the same with 200 entries as
    with none. A roll from a link that is already there (the link opened
    again) is not added twice. Returns the new entry's id (None if not
    added)."""
    if entry["source"] != "here":
        key = store.key(entry)
        if any(store.key(e) == key for e in HISTORY["entries"]):
            return None
    HISTORY["serial"] += 1
    entry = {**entry, "id": HISTORY["serial"]}
    if result is not None:
        SHOWN[entry["id"]] = (result, fair.provenance({**entry, "result": result}))
    HISTORY["entries"], dropped = store.add(HISTORY["entries"], entry)
    HISTORY["dropped"] += dropped
    if dropped:
        render_history()
    elif store.matches(entry, HISTORY["game"], HISTORY["text"]):
        q("#history-list").insertAdjacentHTML("afterbegin", history_item(entry))
        HISTORY["limit"] += 1
        render_history_note()
    else:
        render_history_note()
    schedule_save()
    table_ui.on_history(entry, result)  # the live table's log and channels
    return entry["id"]


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


def read_kept(key, loader):
    """What ``loader`` makes of the text stored under ``key`` (and that
    text); its warning goes to the banner, and the text it could not read
    is kept under a backup key before anything overwrites it."""
    text = read_store(key)
    value, warning = loader(text)
    if warning:
        keep_backup(key, text)
        banner(warning, "warning")
    return value, text, warning


def load_history():
    entries, text, warning = read_kept(HISTORY_KEY, store.load)
    set_entries(entries)
    if entries and not warning and not store.is_current(text):  # a first-version store: written back compact
        schedule_save()
    render_history()


def set_entries(entries):
    """The history from now on: each entry numbered once (its replay is
    kept under that number), the first page to be drawn."""
    SHOWN.clear()
    for e in entries:
        HISTORY["serial"] += 1
        e["id"] = HISTORY["serial"]
    HISTORY["entries"] = entries
    HISTORY["limit"] = PAGE


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


def shown(e):
    """(result, how it came) of an entry: replayed from its draws when it
    is first drawn; (None, …) if its dice do not fit its roll."""
    if e["id"] not in SHOWN:
        try:
            result = store.replay(e)
        except (SpecError, RecursionError):
            result = None
        SHOWN[e["id"]] = (result, fair.provenance({**e, "result": result}) if result else "")
    return SHOWN[e["id"]]


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
        note.textContent = (f"{HISTORY['dropped']} oldest roll(s) dropped: the history keeps the newest "
                            f"{store.CAP}. Export it to keep a full campaign log.") if HISTORY["dropped"] else ""
    filtering = bool(HISTORY["game"] or HISTORY["text"])
    matching = len(store.filtered(HISTORY["entries"], HISTORY["game"], HISTORY["text"])) if filtering else total
    q("#history-shown").textContent = f"{matching} of {total} rolls match." if filtering else ""
    rest = matching - min(matching, HISTORY["limit"])
    more = q("#history-more")
    more.hidden = rest <= 0
    more.textContent = f"Show older rolls ({rest} more)"


def set_filter(_el=None):
    HISTORY["game"] = str(q("#history-game").value or "")
    HISTORY["text"] = str(q("#history-search").value or "")
    HISTORY["limit"] = PAGE
    render_history()


def set_roller(el):
    """The name put on this device's rolls (kept in this browser)."""
    ROLLER["name"] = store.clean_name(el.value)
    write_store(ROLLER_KEY, ROLLER["name"], "The browser refused to store your name (storage full?).")


def load_roller():
    ROLLER["name"] = store.clean_name(read_store(ROLLER_KEY) or "")
    q("#roller-name").value = ROLLER["name"]


def open_history(key):
    e = next((x for x in HISTORY["entries"] if x.get("id") == key), None)
    if e is None:
        return
    system = e["system"]
    result, how = shown(e)
    if result is None:
        banner(f"That {rules.TITLES[system]} roll cannot be shown: {UNFIT[:1].lower()}{UNFIT[1:]}", "warning")
        return
    leave_fair(system)
    open_tab(system)
    form = q(f"#form-{system}")
    fill_form(form, ui_for(system).form_values(result["spec"]))
    STATE[system]["spec"] = result["spec"]
    schedule_forms_save(system)
    if window.matchMedia(DRAWER).matches:  # the drawer would cover the result
        show_history(False)
    note = "" if e["source"] == "here" else f'<p class="shared-label">{views.esc(how[:1].upper() + how[1:])}.</p>'
    set_result(system, result, record=False, readonly=bool(note), note=note)
    STATE[system]["entry"] = key  # a step taken now goes on this entry's turn


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


def export_history(_=None):
    text = store.export_text(HISTORY["entries"], SETUPS["list"], REQUESTS["list"])
    blob = window.Blob.new([text], js_obj({"type": "application/json"}))
    url = window.URL.createObjectURL(blob)
    a = document.createElement("a")
    a.href = url
    a.download = "dice-table-" + str(window.Date.new().toISOString())[:10] + ".json"
    document.body.append(a)
    a.click()
    a.remove()
    window.setTimeout(create_once(lambda *_: window.URL.revokeObjectURL(url)), 1000)


def import_file(text):
    """An exported file merged into the history, the setups and the
    requests; the message says what was new."""
    try:
        data = store.read_export(text)
    except store.Unreadable as e:
        banner(f"{e}; nothing was changed.", "info")
        return
    entries, SETUPS["list"], message = store.merge(data, HISTORY["entries"], SETUPS["list"])
    REQUESTS["list"], added, warning = fair.merge_requests(REQUESTS["list"], data.get("requests"))
    set_entries(entries)
    save_history()
    save_setups()
    save_requests()
    render_history()
    render_setups()
    if added or warning:
        message += f" {added} fair-roll request(s) added or brought up to date." + (f" {warning}" if warning else "")
    banner(message, "info")


async def import_history(event):
    try:
        files = event.target.files
        if not files or files.length == 0:
            return
        text = await files.item(0).text()
        event.target.value = ""
        import_file(str(text))
    except Exception:
        banner("That file could not be imported; nothing was changed.")
        window.console.error("dice table: " + traceback.format_exc())


# ---------------------------------------------------------------- saved setups

def load_setups():
    SETUPS["list"] = read_kept(SETUPS_KEY, store.load_setups)[0]


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
        result = rules.roll(s["system"], s["spec"], advise=False)
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
    leave_fair(system)
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
    q("#share-result").disabled = st["result"] is None or bool(st["fair"])


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


def open_share_dialog(fragment, what, title="Share", handoff=False):
    """The share dialog: one tap sends the link on a phone (Share…, the Web
    Share API, where the browser has it; Copy link otherwise, then the
    primary button). ``handoff``: a fair roll's link, whose QR code (for a
    phone at the same table) is folded, one tap away."""
    url = page_url() + "#" + fragment
    native = hasattr(window.navigator, "share")
    q("#share-title").textContent = title
    q("#share-what").textContent = what
    q("#share-link").value = url
    q("#share-status").textContent = ""
    q("#share-native").hidden = not native
    q("#share-copy").classList.toggle("share-main", not native)
    q("#share-qr").innerHTML = ""
    q("#share-qr-box").open = not handoff
    dialog = q("#share-dialog")
    dialog.showModal()
    q("#share-link").select()
    q("#share-native" if native else "#share-copy").focus()
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
        await window.navigator.share(js_obj({"title": "The dice table", "url": str(q("#share-link").value)}))
        q("#share-status").textContent = "Shared."
    except Exception:
        pass  # the player closed the share sheet


def close_share(_=None):
    q("#share-dialog").close()


def open_fragment(*_):
    """Open a share link in the URL fragment: a setup fills its form; a
    result is replayed from its dice and shown read-only."""
    frag = str(window.location.hash or "")
    if len(frag) <= 1 or table_ui.open_fragment(frag):  # a live table's join code
        return
    if fair.is_link(frag):
        open_fair_link(frag)
        return
    try:
        link = share.open_link(frag)
    except share.ShareError as e:
        banner(str(e) + " Your own rolls and history are untouched.", "error")
        return
    system = link["system"]
    form = q(f"#form-{system}")
    own = {n: v for n, v in read_fields(form).items() if n in getattr(ui_for(system), "CHARACTER", ())}
    fill_system_form(system, link["spec"])
    if link["kind"] == "result":
        if own:  # someone else's result: the form keeps the reader's own character (Mirage's Conditions)
            fill_fields(form, own)
            STATE[system]["spec"] = read_spec(system) or STATE[system]["spec"]
        set_result(system, link["result"], readonly=True, source="shared")
        banner("Opened a shared result: the dice are the sender's, the outcome is recomputed here.", "info")
    else:
        banner(f"Opened a shared {rules.TITLES[system]} roll setup: the form is filled in; press Roll.", "info")



# ---------------------------------------------------------------- fair rolls at a distance

def find_request(role, rid):
    return next((st for st in REQUESTS["list"] if st["role"] == role and st["rid"] == rid), None)


def fair_of(system):
    """The request on show in a tab (its stored state), or None."""
    key = STATE[system]["fair"]
    return find_request(*key) if key else None


def put_request(st):
    """Keep a request's new state in place of its old one, stored at once
    (the GM's secret must survive a reload)."""
    key = (st["role"], st["rid"])
    REQUESTS["list"] = [st] + [x for x in REQUESTS["list"] if (x["role"], x["rid"]) != key]
    save_requests()
    render_requests()


def save_requests():
    write_store(REQUESTS_KEY, fair.dump_requests(REQUESTS["list"]),
                "The browser refused to store your fair-roll requests (storage full?); "
                "export the history to keep them.")


def load_requests():
    if read_store(REQUESTS_KEY) is not None:  # none stored: nothing to read or show
        REQUESTS["list"] = read_kept(REQUESTS_KEY, fair.load_requests)[0]
        render_requests()


def render_requests():
    t = now()
    html = fairview.requests_list([fair.view(st, t) for st in REQUESTS["list"]], t) if REQUESTS["list"] else ""
    q("#requests-list").innerHTML = html
    q("#requests").hidden = not html


#: Tabs whose form shows a request's setup, read-only (a roll still going).
FAIR_FORM = {"locked": set()}


def form_locked(system):
    """The form shows a fair request still being rolled: not the player's
    own, not kept, not rolled. A finished (verified) roll gives it back."""
    return system in FAIR_FORM["locked"]


def show_fair(st, note=""):
    """Show a request in its tab: while it is rolled, the form holds its
    setup, read-only; once it is done (verified, voided) the form is the
    player's own again. The tray shows its panel, its dice and the steps
    this side may take now."""
    system = st["msgs"][0]["y"]
    open_tab(system)
    form = q(f"#form-{system}")
    if not form_locked(system):  # the player's own form is kept before the request fills it
        FORMS["fields"][system] = read_fields(form)
        FORMS["dirty"].discard(system)
    STATE[system]["fair"] = (st["role"], st["rid"])
    clear_errors(form)
    if st.get("revealed") or st.get("voided"):
        unlock_fair_form(system)
        spec = read_spec(system) or st["msgs"][0]["p"]
    else:
        spec = st["msgs"][0]["p"]
        values = ui_for(system).form_values(spec)
        fill_form(form, values)
        lock_form(system, values)
        FAIR_FORM["locked"].add(system)
    q(f"#tab-{system}").classList.add("is-fair")
    q(f"#tab-{system}").classList.toggle("is-fair-done", not form_locked(system))
    STATE[system].update(spec=spec, readonly=False, note=note)
    if window.matchMedia(DRAWER).matches:
        show_history(False)
    refresh_fair(system)


def unlock_fair_form(system):
    """The player's own form back, open (the request's setup leaves it)."""
    if not form_locked(system):
        return
    FAIR_FORM["locked"].discard(system)
    lock_form(system)
    fill_fields(q(f"#form-{system}"), {**default_fields(system), **FORMS["fields"].get(system, {})})


def lock_form(system, names=None):
    """A request's setup is read-only: each field its spec fills and the
    form's own buttons (Roll, the letter pads, Reset) are disabled; the
    step fields (a prayer's bonus, the hit location's numbers) stay open.
    ``names`` None: everything open again."""
    form = q(f"#form-{system}")
    for el in form.elements:
        el.disabled = names is not None and (str(el.name or "") in names or str(el.tagName) == "BUTTON")
    for el in q(f"#tab-{system}").querySelectorAll("[data-reset-form]"):
        el.disabled = names is not None


def leave_fair(system):
    """Back to this tab's own form and rolls (the request stays in the list)."""
    st = STATE[system]
    if st["fair"] is None:
        return
    st["fair"] = None
    unlock_fair_form(system)
    q(f"#tab-{system}").classList.remove("is-fair", "is-fair-done")
    st["spec"] = read_spec(system) or st["spec"]
    set_result(system, None, record=False)  # draws the odds of the form, after the paint


def refresh_fair(system):
    """Draw the request on show from its stored state."""
    st = fair_of(system)
    if st is None:  # deleted meanwhile
        leave_fair(system)
        return
    view = fair.view(st, now())
    STATE[system].update(result=view["result"], ui={"selected": []})
    render_tray(system)
    update_share_buttons()
    if view["result"] is not None:
        reveal(system)
    render_odds_later(system)


def render_fair_tray(system, tray):
    """The fair panel, then the dice and the rules' steps this side may use
    now (they go to fair.step or fair.gm_step), then the fair roll's own
    secondary buttons (end my turn, reveal, send again, close)."""
    st = STATE[system]
    view = fair.view(fair_of(system), now())
    html = ui_for(system).render_result(st["result"], st["ui"]) if st["result"] else ""
    if view["role"] == "gm":  # the GM's page shows the player's dice
        html = fairview.others_dice(html, view["player"])
    tray.innerHTML = fairview.panel(view, now(), st["note"], this_device()) + html + fairview.foot(view)
    for b in tray.querySelectorAll("[data-act]"):
        if not fairview.keeps_step(view, str(b.dataset.act)):
            b.remove()


def fair_call(fn, st, *args, **kw):
    """One move of ``fair``; a refusal goes to the banner (nothing changed)."""
    try:
        return fn(st, *args, now=now(), **kw)
    except (fair.FairError, SpecError) as e:
        banner(f"{e} Nothing was changed.", "error")
        return None


def after_move(got, note=""):
    """A move made here: keep the new state, show it, offer its link."""
    if got is None:
        return
    st, link = got
    put_request(st)
    if st.get("revealed"):
        add_fair_entry(fair.history_entry(st))
    show_fair(st, note)
    if link:
        send_link(st, link)


def send_link(st, link):
    if table_ui.route_fair(st, link):  # the other side is at this live table: no copying
        return
    q0 = st["msgs"][0]
    open_share_dialog(link, fairview.send_text(st["role"], link, q0["w"], fair.view(st)),
                      "Send this link", handoff=True)


def add_fair_entry(entry):
    add_entry(store.compact({**entry, "time": now()}), entry["result"])


DEVICE_KEY = "dice-table/device"


def this_device():
    """This device's name and key (kept in localStorage; made on first use,
    named after the roller's name): what a player's answer names."""
    if "key" not in DEVICE:
        try:
            kept = json.loads(read_store(DEVICE_KEY) or "{}")
            key, name = str(kept["key"]), str(kept.get("name", ""))[:40]
            fair.device_fingerprint(key)
            if len(key) != 2 * fair.DEVICE_KEY_BYTES:
                raise ValueError(key)
        except (ValueError, KeyError, TypeError, AttributeError):
            key, name = fair.device_key(), ROLLER["name"][:40]
            save_device(key, name)
        DEVICE.update(key=key, name=name)
    return {**DEVICE, "fingerprint": fair.device_fingerprint(DEVICE["key"])}


def save_device(key, name):
    write_store(DEVICE_KEY, json.dumps({"key": key, "name": name}),
                "The browser refused to store this device's name and key (storage full?).")


def answer_as(mode):
    """The player's answer (Roll), naming this device as its name field
    says now, with a choice of play (or None)."""
    def go(st):
        dev = this_device()
        field = q("#fair-device-name")
        if field is not None:
            name = " ".join(str(field.value).split())[:40]
            if name != dev["name"]:
                DEVICE["name"] = name
                save_device(DEVICE["key"], name)
        after_move(fair_call(fair.answer, st, device={"name": DEVICE["name"], "key": DEVICE["key"]},
                             mode=mode))
    return go


def chosen_then():
    """What the player chose to follow a step ("" none: show me the dice)."""
    el = q("#fair-then")
    return (str(el.value) or None) if el is not None else None


def fair_step(system, action):
    """A tray step on a fair roll: the player's goes to ``fair.step`` with
    what follows it (Stand is their end of turn), the GM's to
    ``fair.gm_step`` (the opponent standing is the GM revealing)."""
    st = fair_of(system)
    ends = action.get("do") == fair.END_TURN["do"]
    if st["role"] == "player":
        after_move(fair_call(fair.pass_turn, st) if ends else
                   fair_call(fair.step, st, action, mode=chosen_then()))
    else:
        after_move(fair_call(fair.reveal, st) if ends else fair_call(fair.gm_step, st, action))


def reissue_request(st):
    """Void a request (answered by the wrong person) and ask again: the new
    request shown and offered to send, in one tap."""
    try:
        old, new, link = fair.reissue(st, existing=REQUESTS["list"], now=now())
    except fair.FairError as e:
        banner(f"{e} Nothing was changed.", "error")
        return
    put_request(old)
    put_request(new)
    show_fair(new, "The old request is voided; this one asks the same roll again.")
    send_link(new, link)


def delete_request(st):
    q0 = st["msgs"][0]
    if not window.confirm(f"Delete the fair-roll request for {q0['w']} ({rules.TITLES[q0['y']]})? "
                          "Its links will no longer open here."):
        return
    REQUESTS["list"] = [x for x in REQUESTS["list"] if x is not st]
    save_requests()
    render_requests()
    for system in rules.SYSTEMS:
        if STATE[system]["fair"] == (st["role"], st["rid"]):
            leave_fair(system)


#: The fair panel's and the Requests list's buttons (``data-fair``).
FAIR_VERBS = {
    "answer": lambda st: answer_as(None)(st),
    "answer-advice": lambda st: answer_as("advice")(st),
    "answer-none": lambda st: answer_as("none")(st),
    "advice": lambda st: after_move(fair_call(fair.step, st, None, mode="advice")),
    "done": lambda st: after_move(fair_call(fair.pass_turn, st)),
    "reissue": reissue_request,
    "reveal": lambda st: after_move(fair_call(fair.reveal, st)),
    "send": lambda st: send_link(st, fair.last_link(st)) if fair.last_link(st) else None,
    "open": lambda st: show_fair(st),
    "leave": lambda st: leave_fair(st["msgs"][0]["y"]),
    "delete": delete_request,
}


def fair_button(el):
    st = find_request(str(el.dataset.role), str(el.dataset.rid))
    verb = FAIR_VERBS.get(str(el.dataset.fair))
    if st is None or verb is None:
        banner("That fair-roll request is no longer on this page.", "warning")
        return
    verb(st)


def open_fair_link(frag):
    """A fair-roll link: its new state kept and shown (or, for anyone else's
    final link, the verified roll), a verified roll put in the history, the
    reply offered to send back."""
    try:
        got = fair.open_link(frag, REQUESTS["list"], now=now())
    except (fair.FairError, SpecError) as e:
        mine = find_request("gm", getattr(e, "rid", ""))
        if mine is not None:  # a second answer: the request it came for, with its Void and ask again
            show_fair(mine)
        banner(f"{e} Your own rolls and history are untouched.", "error")
        return
    # opened: the address forgets the link, so a reload does not open it again
    window.history.replaceState(None, "", page_url())
    for other in got["also"]:  # a request the GM voided and asked again
        put_request(other)
    if got["state"] is not None:
        put_request(got["state"])
        show_fair(got["state"], "" if got["kind"] == "request" else got["note"])
    else:
        show_verified(got["verified"])
    if got["entry"] is not None:
        add_fair_entry(got["entry"])
    banner(got["note"], "info")
    if got["reply"]:
        send_link(got["state"], got["reply"])


def show_verified(ver):
    """Anyone's final link, verified: the roll read-only, said so."""
    system = ver["result"]["system"]
    leave_fair(system)
    open_tab(system)
    STATE[system]["spec"] = ver["result"]["spec"]
    set_result(system, ver["result"], record=False, readonly=True, note=fairview.verified_panel(ver))
    tray = q(f"#tray-{system}")
    tray.innerHTML = fairview.others_dice(str(tray.innerHTML), ver["player"])


def ask_player(_el=None):
    """"Ask a player to roll": the tab's form as it stands, to a player named
    in a small dialog."""
    system = CURRENT["system"]
    if form_locked(system):
        banner("This tab shows a fair roll: close it (Close in its panel) to ask for another.", "info")
        return
    leave_fair(system)  # a finished fair roll on show: the form is the GM's own again
    if read_spec(system) is None:
        return
    q("#ask-what").textContent = (f"The {rules.TITLES[system]} roll as the form says now. The player "
                                  "rolls it on their own page; neither of you can steer the dice.")
    q("#ask-error").textContent = ""
    q("#ask-dialog").showModal()
    q("#ask-player").focus()


def make_request(_form):
    system = CURRENT["system"]
    spec = read_spec(system)
    if spec is None:
        q("#ask-dialog").close()
        return
    try:
        st = fair.new_request(system, spec, str(q("#ask-player").value), str(q("#ask-label").value),
                              existing=REQUESTS["list"], now=now())
    except SpecError as e:
        what = {"player": "The player's name", "label": "The label"}.get(getattr(e, "field", ""), "The request")
        q("#ask-error").textContent = f"{what} {getattr(e, 'detail', str(e))}."
        return
    q("#ask-dialog").close()
    q("#ask-label").value = ""
    put_request(st)
    send_link(st, fair.request_link(st))


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

#: Text fields of the page outside the roll forms, kept or acted on as typed.
INPUTS = {"roller-name": set_roller, "history-game": set_filter, "history-search": set_filter}
#: Forms of the page other than the roll forms.
FORMS_SUBMIT = {"save-form": lambda form: save_current_setup(form), "ask-form": lambda form: make_request(form)}

CLICKS = (
    ("#history-clear", clear_history),
    ("#history-more", more_history),
    ("#fair-ask", ask_player),
    ("#ask-cancel", lambda el: q("#ask-dialog").close()),
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
        load_history()
        return (time.perf_counter() - t) * 1000

    for name, fn in (("diceBenchOdds", odds_ms), ("diceBenchHistory", history_ms),
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
    guard(prepare_odds)()
    load_roller()
    load_history()
    load_setups()
    load_requests()
    table_ui.install(table_api())
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
    guard(start_odds_worker)()
    when_idle(lambda *_: [importlib.import_module(m.name) for m in (fair, fairview)])


def table_api():
    """What the live table (``table_ui``) may do to the page."""
    def set_name(name):
        q("#roller-name").value = name
        set_roller(q("#roller-name"))

    def ask(name):
        ask_player()
        q("#ask-player").value = name

    return {"banner": banner, "roller": lambda: ROLLER["name"], "set_roller": set_name, "page_url": page_url,
            "summary": lambda result: ui_for(result["system"]).summary(result),
            "open_setup": guard(fill_system_form), "open_fair_link": guard(open_fair_link), "ask_player": ask,
            "current_spec": lambda: (lambda s: (CURRENT["system"], s) if s is not None else None)(
                read_spec(CURRENT["system"]))}


def when_idle(fn):
    """Run ``fn`` once the page is idle (soon after, where the browser has no
    idle callbacks): what a first roll may need, not before ready."""
    once = create_once(fn)
    if hasattr(window, "requestIdleCallback"):
        window.requestIdleCallback(once, js_obj({"timeout": 2000}))
    else:
        window.setTimeout(once, 200)


start()
