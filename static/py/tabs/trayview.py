"""Each tab's game and its tray: the spec, the result on show and the dice
tapped (held in ``STATE``, never read back out of the DOM), the tray drawn
from them by the tab's ``ui_<system>`` module, the steps the rules offer
(``rules.act``), and switching tabs.

What follows a result in the features above this one (the odds, the
history, the Share button, a fair roll's own tray and steps) goes through
``page.hook``.
"""

import rules
from odds import oddswork
from drawing.views import esc
from rules.dice import SpecError
from shell.page import (
    CURRENT,
    after_paint,
    clear_errors,
    create_once,
    css,
    document,
    guard,
    hook,
    js_none,
    js_obj,
    q,
    set_html,
    show_error,
    system_of,
    ui_for,
    window,
)
from tabs import formstate
from tabs.forms import fill_form, read_fields, read_spec, schedule_forms_save

#: Per tab: "fair" is (role, request id) while a fair roll at a distance is
#: on show there (its form then shows the request, read-only); "note" the
#: HTML over a read-only result (shared, verified); "entry" the history
#: entry the turn on show goes on; "stale" a Roll the form's errors refused.
STATE = {s: {"spec": None, "result": None, "ui": {"selected": []}, "opened": False,
             "readonly": False, "fair": None, "note": "", "entry": None, "stale": False, "odds": None, "label": ""}
         for s in rules.SYSTEMS}

SHARED_NOTE = ('<p class="shared-label">Shared result, faces as reported: a result shared by someone '
               'else, shown read-only. Its outcome was worked out again here from its dice.</p>')
#: Beside the outcome: roll the same spec again.
TRAY_TOOLS = '<div class="tray-tools"><button type="button" class="roll-again" data-roll-again>Roll again</button></div>'


def render_tray(system):
    st = STATE[system]
    tray = q(f"#tray-{system}")
    if st["fair"]:
        hook("fair_tray", system, tray)
        return
    stale = bool(st["stale"] and st["result"])
    tray.classList.toggle("is-stale", stale)
    if not st["result"]:
        tray.innerHTML = ""
        return
    tray.innerHTML = STALE_NOTE * stale + _tray_html(system, st)
    if st["readonly"]:  # a shared or verified result takes no further steps: no step button, no tappable die
        _drawn_only(tray)


def _tray_html(system, st):
    """The result on show drawn by its tab, under the read-only note or the
    label of who rolled what, and the tray's tools."""
    # the odds answers on show price the player's own choice in the tray (it checks they are for its dice)
    html = ui_for(system).render_result(st["result"], {**st["ui"], "readonly": bool(st["readonly"]),
                                                       "odds": st["odds"]})
    label = f'<p class="tray-label">{esc(st["label"])}</p>' if st["label"] and not st["readonly"] else ""
    return (st["note"] if st["readonly"] else "") + TRAY_TOOLS + label + html


def _drawn_only(tray):
    """A read-only tray: its step buttons taken out, its dice no longer tappable."""
    for b in tray.querySelectorAll("[data-act]"):
        b.remove()
    for d in tray.querySelectorAll("[data-die]"):
        for attr in ("role", "tabindex", "aria-pressed"):  # drawn, not tappable (toggle_die ignores it)
            d.removeAttribute(attr)


def redraw_tray_kept(system):
    """The tray drawn again with the advice (a later task than the roll),
    the focus kept on the die or button it was on."""
    tray = q(f"#tray-{system}")
    key = _focused_key(tray)
    tray.setAttribute("aria-live", "off")  # the roll was read out already
    render_tray(system)
    window.setTimeout(create_once(lambda *_: tray.setAttribute("aria-live", "polite")), 0)
    if key is not None:
        el = q(f'[{key[0]}="{css(key[1])}"]', tray)
        if el is not None:
            el.focus(js_obj({"preventScroll": True}))


def _focused_key(tray):
    """The marker (attribute, value) of the die or step button the focus is
    on inside the tray, or None."""
    active = js_none(document.activeElement)
    key = None
    if active is not None and tray.contains(active):
        for attr in ("data-die", "data-act"):
            if active.hasAttribute(attr):
                key = (attr, active.getAttribute(attr))
    return key


def set_result(system, result, record=True, label="", readonly=False, note=SHARED_NOTE, source="here"):
    st = STATE[system]
    st["result"] = result
    st["ui"] = {"selected": []}
    st["stale"] = False
    st["odds"] = None
    refused_note(system, False)
    st["readonly"] = readonly
    st["note"] = note if readonly else ""
    st["label"] = label  # who rolled what ("Wu Shousu: Fast-Talk", a saved setup's name), over the dice
    q(f"#tab-{system}").classList.toggle("is-shared", bool(readonly and result))
    render_tray(system)
    if record and result is not None and not readonly:  # a shared result never changes the reader's character
        _character_after(system, result)
    if result is not None:
        reveal(system)
        st["just_rolled"] = True  # the odds to come bring it into view again (odds.oddspanel)
    after_paint(lambda: after_result(system, result, record, label, source))
    render_odds_later(system, again=result is not None)
    keep_trays()


def _character_after(system, result):
    """What a roll changes on the roller's form (e.g. a Condition gained:
    the character's state, kept with the form)."""
    changes = ui_for(system).fields_after(result, read_fields(q(f"#form-{system}")))
    if changes:
        fill_form(q(f"#form-{system}"), changes)
        STATE[system]["spec"] = read_spec(system)
        schedule_forms_save(system)


def keep_trays():
    """Each tab's own turn on show (not a shared or fair roll's), kept for
    this browser tab: a reload brings it back (``restore_trays``)."""
    trays = {s: _kept_turn(st) for s, st in STATE.items()
             if st["result"] is not None and not st["readonly"] and not st["fair"]}
    try:
        window.sessionStorage.setItem(formstate.TRAYS_KEY, formstate.dump_trays(trays))
    except Exception:  # noqa: BLE001 - no session storage (or no room): the turn is still in the history
        pass


def _kept_turn(st):
    """What replays a tab's turn: its spec, its stages and the dice tapped."""
    return {"spec": st["result"]["spec"], "stages": st["result"]["stages"], "selected": list(st["ui"]["selected"])}


def restore_trays():
    """Each tab's turn as it was before a reload, replayed from its draws:
    its dice (those tapped still tapped) and its steps in the tray, its
    odds to follow. A kept turn whose dice do not replay is left out (its
    history entry still holds it). Returns the tabs brought back."""
    try:
        text = window.sessionStorage.getItem(formstate.TRAYS_KEY)
    except Exception:  # noqa: BLE001 - no session storage: nothing kept
        return []
    kept = formstate.load_trays(text if isinstance(text, str) else None, rules.SYSTEMS)
    return [system for system, turn in kept.items() if _replay_kept(system, turn)]


def _replay_kept(system, kept):
    """One tab's kept turn replayed into its tray, its odds to follow;
    False when its dice do not replay."""
    try:
        result = rules.replay(system, kept["spec"], kept["stages"], advise=False)
    except (SpecError, RecursionError):
        return False
    STATE[system].update(spec=result["spec"], result=result, ui={"selected": kept["selected"]})
    render_tray(system)
    render_odds_later(system)
    return True


def after_result(system, result, record, label, source):
    """What follows a result on show once its dice and outcome are drawn
    (docs/SPEED.md, "Click → dice"): the Share button, the history entry."""
    hook("shown")
    if record:
        hook("recorded", system, result, label, source)


def render_odds_later(system, again=False):
    """The odds of the next step come in a later task: the dice paint first.
    ``again``: then bring the result into view again, should the new odds
    have moved it."""
    def later(*_):
        hook("odds", system)
        if again:
            reveal(system)
    window.setTimeout(create_once(guard(later)), 0)


def covered_top():
    """How far down the screen the storage banner covers (it stays in view
    while storage is full); 0 without it."""
    banner = q("#storage-banner")
    return max(0, banner.getBoundingClientRect().bottom) if banner is not None and not banner.hidden else 0


def _in_view(el):
    """Inside the screen, and inside the result column where that scrolls
    on its own (a part scrolled out of it is hidden, though on screen)."""
    if el is None:
        return True
    r = el.getBoundingClientRect()
    top, bottom = _seen_band(el)
    return r.top >= top - 0.5 and r.bottom <= bottom + 0.5


def _seen_band(el):
    """The top and bottom of the part of the screen where ``el`` can be
    seen: under the game tabs (and the storage banner while shown), and
    inside the result column where that scrolls on its own."""
    pane = js_none(el.closest(".result-pane"))
    tabs = q(".tabs")  # the game tabs stay over the top of the screen, the storage banner too while shown
    top = max(tabs.getBoundingClientRect().bottom if tabs is not None else 0, covered_top())
    bottom = window.innerHeight
    if pane is not None and str(window.getComputedStyle(pane).overflowY) != "visible":
        p = pane.getBoundingClientRect()
        top, bottom = max(top, p.top), min(bottom, p.bottom)
    return top, bottom


def _tray_in_view(tray):
    """Are the outcome, every row of dice, the why and every step button
    in view?"""
    # every row of dice (a row's box, not a die's: a die that is landing is drawn smaller and higher)
    dice = list(tray.querySelectorAll(".dice, .ot-chain")) or list(tray.querySelectorAll("svg.die"))
    steps = tray.querySelectorAll("[data-act]:not([data-act=reuse]):not([data-act=effect])")  # rules steps, not form fillers
    last_step = steps.item(steps.length - 1) if steps.length else None  # every step button, down to the last
    return all(_in_view(el) for el in [q(".outcome", tray), last_step, q("[data-why]", tray)] + dice)


def reveal(system):
    """Bring the outcome and the dice into view where the layout has not
    kept them there (a phone, an upright tablet, a step button far down),
    smoothly unless the player asked for reduced motion."""
    tray = q(f"#tray-{system}")
    if _tray_in_view(tray):
        return
    still = window.matchMedia("(prefers-reduced-motion: reduce)").matches
    pane = js_none(tray.closest(".result-pane"))
    if pane is not None and str(window.getComputedStyle(pane).overflowY) != "visible":
        _reveal_in_column(tray, pane, "auto" if still else "smooth")
        return
    tray.scrollIntoView(js_obj({"block": "start", "behavior": "auto" if still else "smooth"}))


def _reveal_in_column(tray, pane, behavior):
    """The result column beside the form (a tablet held sideways) is held
    under the game tabs while the page scrolls, but near the form's end the
    page's scroll pushes it up past them (an outcome once ended at y −110):
    the page is scrolled back until the column sits at its place, then the
    column itself brings the tray to its top."""
    tabs = q(".tabs")
    place = (tabs.offsetHeight if tabs is not None else 0) + 4  # where it sticks: under the tabs, stuck at the top
    off = pane.getBoundingClientRect().top - place
    if abs(off) > 0.5:
        window.scrollBy(js_obj({"top": off, "behavior": "auto"}))
    top = pane.scrollTop + tray.getBoundingClientRect().top - pane.getBoundingClientRect().top
    pane.scrollTo(js_obj({"top": top, "behavior": behavior}))


STALE_NOTE = ('<p class="stale-note" data-stale role="alert">Not rolled: the form has an error (marked in red '
              'beside its field). The dice below are the previous roll, not this one.</p>')


#: Said in the Roll bar, which stays on screen wherever the first error is.
REFUSED = "Not rolled: the field marked in red needs fixing first."


def refused_note(system, on):
    """The Roll bar's "Not rolled" line (docs/RULES-DECISIONS.md, The page):
    shown while the last Roll was refused, in the bar that stays on
    screen, so it never scrolls off with the tray above a field far down."""
    bar = q(f"#form-{system} .roll-bar")
    note = q(".roll-refused", bar) if bar is not None else None
    if bar is None or (note is None and not on):
        return
    if note is None:
        note = _new_refused_note(bar)
    note.hidden = not on


def _new_refused_note(bar):
    """The "Not rolled" line, made once, at the top of the Roll bar."""
    note = document.createElement("p")
    note.className = "roll-refused"
    note.setAttribute("role", "status")
    note.dataset.refused = ""
    note.textContent = REFUSED
    bar.prepend(note)
    return note


def refused(system, form):
    """A Roll the form's errors, or the rules, refused (docs/RULES-DECISIONS.md, The page): the result on
    show is marked as the previous roll, not this one, the Roll bar says
    "Not rolled", and the first error is brought into view (centred: never
    under the fixed Roll button)."""
    refused_note(system, True)
    if STATE[system]["result"] is not None:
        STATE[system]["stale"] = True
        render_tray(system)
    first = _first_error(form)
    if first is not None:
        _show_error_field(first)


def _first_error(form):
    """The first field at fault: a control marked invalid, else the first
    error message that says something; None if neither."""
    return q("[aria-invalid]", form) or next((el for el in form.querySelectorAll("[data-error-for]")
                                              if str(el.textContent).strip()), None)


def _show_error_field(first):
    """The first error brought to the screen's centre, its control focused."""
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
    hook("odds", system)
    keep_trays()


def _advise_now(system, st, verb):
    """A step that takes best play's advice, pressed before the Worker's
    advice came: the advice worked out here, at once (bounded work)."""
    if oddswork.needs_advice(st["result"]) and oddswork.advised_step(verb, st["ui"]):
        st["result"] = oddswork.merge_advice(st["result"], rules.advise(system, st["result"]["spec"], st["result"]))


def do_action(button):
    system = system_of(button)
    st = STATE[system]
    if st["readonly"]:
        return
    form = q(f"#form-{system}")
    ui = ui_for(system)
    _advise_now(system, st, button.dataset.act)
    try:
        action = ui.action_for(button.dataset.act, st["result"], st["ui"], read_fields(form))
    except SpecError as e:
        show_error(form, e)
        return
    if st["fair"]:
        hook("fair_step", system, action)
        return
    if "fill" in action:  # a flow step that fills the form (e.g. Jadeclaw's combination roll)
        _fill_step(system, form, action["fill"])
        return
    try:  # the step acts on the spec the roll was made with, whatever the form says now
        result = rules.act(system, st["result"]["spec"], st["result"], action, advise=False)
    except SpecError as e:
        show_error(form, e)
        return
    clear_errors(form)
    set_result(system, result, label=st["label"])  # a step of the turn keeps its label


def _fill_step(system, form, values):
    """A step that fills the form: its values in, the spec read again, the
    form kept and the odds asked anew."""
    fill_form(form, values)
    STATE[system]["spec"] = read_spec(system)
    schedule_forms_save(system)
    hook("odds", system)


def _select_tab_button(system):
    """The tab buttons and panels: ``system``'s selected and shown, the others not."""
    for s in rules.SYSTEMS:
        btn = q(f"#tabbtn-{s}")
        btn.setAttribute("aria-selected", "true" if s == system else "false")
        btn.tabIndex = 0 if s == system else -1
        q(f"#tab-{s}").hidden = s != system


def open_tab(system, focus=False):
    if system not in rules.SYSTEMS:
        return
    CURRENT["system"] = system
    _select_tab_button(system)
    if focus:
        q(f"#tabbtn-{system}").focus()
    # on a phone the tabs are a strip that scrolls sideways: the open one in it
    q(f"#tabbtn-{system}").scrollIntoView(js_obj({"block": "nearest", "inline": "nearest"}))
    schedule_forms_save()  # the open tab is kept with the forms
    st = STATE[system]
    first = not st["opened"]
    if first:
        st["opened"] = True
        _draw_reference_later(system)
    hook("tab_shown", system, first)


def _draw_reference_later(system):
    """The tab's reference tables, drawn once, in a later task: they wait
    until the tab is on screen."""
    ui = ui_for(system)
    window.setTimeout(create_once(guard(lambda *_: set_html(f"#ref-{system}", ui.render_reference()))), 0)
