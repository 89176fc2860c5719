"""Saved setups: a tab's form kept under a name (``store``), listed under
the form of its game, rolled or filled in again with one tap.

The state: ``SETUPS`` (the saved list).
"""

import rules
from drawing import views
from odds.oddspanel import render_odds
from records import store
from shell.page import CURRENT, clear_errors, hook, q, read_kept, ui_for, window, write_store
from tabs.forms import fill_form, read_spec, schedule_forms_save
from tabs.trayview import STATE, open_tab, set_result

SETUPS_KEY = "dice-table/setups"
SETUPS = {"list": []}


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
    hook("leave_fair", system)
    open_tab(system)
    form = q(f"#form-{system}")
    clear_errors(form)
    fill_form(form, ui_for(system).form_values(spec))
    STATE[system]["spec"] = spec
    schedule_forms_save(system)
    render_odds(system)
