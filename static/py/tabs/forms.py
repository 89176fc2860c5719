"""The roll forms: their fields read and filled, each tab's form kept in
localStorage as the player left it (``formstate``), and a form locked
while it shows a fair roll's request (not the player's own).

The state, in ``FORMS``: each form's fields as last kept, the forms
changed since, whether a save is on its way, each form's fields as the
page opens it (read once), and the forms locked by a fair request.
"""

import traceback

import rules
from rules.dice import SpecError
from shell.page import (
    CURRENT,
    clear_errors,
    create_once,
    css,
    js_none,
    keep_kept,
    q,
    read_store,
    show_errors,
    ui_for,
    window,
    write_store,
)
from tabs import formstate, tab

FORMS = {"fields": {}, "dirty": set(), "pending": False, "defaults": {}, "locked": set()}


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
    """One control's values: a box's if ticked, a select's chosen options,
    any other control's text."""
    if kind in ("checkbox", "radio"):
        return _ticked(el, default)
    if kind.startswith("select"):
        return _selected(el, kind, default)
    return [str(el.defaultValue if default else el.value)]


def _ticked(el, default):
    """A checkbox's or radio button's value while it is ticked, else none."""
    return [str(el.value)] if (el.defaultChecked if default else el.checked) else []


def _selected(el, kind, default):
    """A select's chosen options; a single select with none chosen gives
    its first, as the browser shows it."""
    options = list(el.options)
    chosen = [o for o in options if (o.defaultSelected if default else o.selected)]
    if not chosen and kind == "select-one" and options:
        chosen = options[:1]  # what a select with no selected option shows
    return [str(o.value) for o in chosen]


def default_fields(system):
    """The form's fields as the page opens it (read once)."""
    if system not in FORMS["defaults"]:
        FORMS["defaults"][system] = read_fields(q(f"#form-{system}"), default=True)
    return FORMS["defaults"][system]


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
        name = str(el.name or "")
        if name in fields:
            _fill_control(el, fields[name], seen)


def _fill_control(el, values, seen):
    """One control set from its name's values: a box ticked if its value is
    among them, a multiple select's options chosen, and the n-th text
    control of a name given the n-th value (``seen`` counts them)."""
    name, kind = str(el.name or ""), str(el.type or "").lower()
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
            _set_control(el, value)


def _set_control(el, value):
    """One control set from a form value: a checkbox ticked by it, a radio
    button ticked if it is its value, any other control given its text."""
    kind = str(el.type or "").lower()
    if kind == "checkbox":
        el.checked = _box_ticked(el, value)
    elif kind == "radio":
        el.checked = el.value == str(value)
    else:
        el.value = "" if value is None else str(value)


def _box_ticked(el, value):
    """Is a checkbox ticked by a form value: a yes/no, a list of the ticked
    boxes' values, or the one ticked value."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (list, tuple)):
        return el.value in [str(v) for v in value]
    return el.value == str(value)


def insert_text(button):
    form = js_none(button.closest("form"))
    target = q(f'[name="{css(button.dataset.target)}"]', form) if form else None
    if target is None:
        return
    text = button.dataset.insert
    target.value = target.value[:-1] if text == "⌫" else target.value + text
    target.dispatchEvent(window.Event.new("input", {"bubbles": True}))


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
    save_forms()


def save_forms():
    write_store(formstate.KEY, formstate.dump(CURRENT["system"], FORMS["fields"]), "your forms")


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
        keep_kept(formstate.KEY, text, formstate.message(problems))
    return stored.tab


# ---------------------------------------------------------------- a fair request's form

def form_locked(system):
    """The form shows a fair request still being rolled: not the player's
    own, not kept, not rolled. A finished (verified) roll gives it back."""
    return system in FORMS["locked"]


def keep_own(system):
    """The player's own form, kept before a request fills it."""
    if not form_locked(system):
        FORMS["fields"][system] = read_fields(q(f"#form-{system}"))
        FORMS["dirty"].discard(system)


def lock_request(system, values):
    """The request's setup in the form, read-only."""
    fill_form(q(f"#form-{system}"), values)
    lock_form(system, values)
    FORMS["locked"].add(system)


def unlock_form(system):
    """The player's own form back, open (the request's setup leaves it)."""
    if not form_locked(system):
        return
    FORMS["locked"].discard(system)
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
