"""Fair rolls at a distance, on the page: the requests this device keeps
(``fair`` decides every move, ``fairview`` draws it), a request shown in
its tab (its form locked, its panel and steps in the tray), the links sent
and opened, this device's name and key, and "Ask a player to roll".

The state, in ``FAIR``: every request's stored state; which tab shows
which request is that tab's ``trayview.STATE[system]["fair"]``. This
device's name and key for fair-roll answers are ``shell.device``'s (the
live table uses the same identity).
"""

import rules
from links.sharedialog import open_share_dialog, page_url, update_share_buttons
from records import store
from records.history import DRAWER, HISTORY, add_entry, show_history
from rules.dice import SpecError
from shell import device
from shell.page import (
    CURRENT,
    banner,
    clear_errors,
    fair,
    fairview,
    merge_synced,
    now,
    js_obj,
    q,
    read_kept,
    read_store,
    save_synced,
    ui_for,
    window,
)
from table import table_ui
from tabs.forms import form_locked, keep_own, lock_request, read_spec, unlock_form
from tabs.trayview import STATE, open_tab, render_odds_later, render_tray, reveal, set_result

REQUESTS_KEY = "dice-table/requests"
#: ``said``: per request (role, rid), what the page says in its panel until
#: the next move: a second answer on the GM's page ("alert"), another
#: device's answer on the player's page ("elsewhere"). Not stored: a link
#: opened again says it again.
FAIR = {"requests": [], "said": {}, "kept": None}


def find_request(role, rid):
    return next((st for st in FAIR["requests"] if st["role"] == role and st["rid"] == rid), None)


def fair_of(system):
    """The request on show in a tab (its stored state), or None."""
    key = STATE[system]["fair"]
    return find_request(*key) if key else None


def put_request(st):
    """Keep a request's new state in place of its old one, stored at once
    (the GM's secret must survive a reload)."""
    key = (st["role"], st["rid"])
    FAIR["requests"] = [st] + [x for x in FAIR["requests"] if (x["role"], x["rid"]) != key]
    save_requests()
    render_requests()


def kept():
    """The stored requests as this tab last read or wrote them (merged on
    each write; made at first use: ``fair`` is imported after ready)."""
    if FAIR["kept"] is None:
        FAIR["kept"] = fair.synced_requests()
    return FAIR["kept"]


def save_requests():
    """Store the requests, merged first with what another tab stored since."""
    FAIR["requests"] = save_synced(REQUESTS_KEY, kept(), FAIR["requests"], "your fair-roll requests")


def load_requests():
    if read_store(REQUESTS_KEY) is not None:  # none stored: nothing to read or show
        FAIR["requests"] = read_kept(REQUESTS_KEY, kept().read)[0]
        render_requests()


def on_stored(text):
    """Another tab stored the requests: merged in, listed, and a request
    on show here drawn as it stands now."""
    FAIR["requests"] = merge_synced(REQUESTS_KEY, kept(), FAIR["requests"], text)
    render_requests()
    for system in rules.SYSTEMS:
        if STATE[system]["fair"]:
            refresh_fair(system)


def render_requests():
    t = now()
    html = fairview.requests_list([fair.view(st, t) for st in FAIR["requests"]], t) if FAIR["requests"] else ""
    q("#requests-list").innerHTML = html
    q("#requests").hidden = not html


def show_fair(st, note=""):
    """Show a request in its tab: while it is rolled, the form holds its
    setup, read-only; once it is done (verified, voided) the form is the
    player's own again. The tray shows its panel, its dice and the steps
    this side may take now."""
    system = st["msgs"][0]["y"]
    open_tab(system)
    form = q(f"#form-{system}")
    keep_own(system)  # the player's own form is kept before the request fills it
    STATE[system]["fair"] = (st["role"], st["rid"])
    clear_errors(form)
    if st.get("revealed") or st.get("voided"):
        unlock_form(system)
        spec = read_spec(system) or st["msgs"][0]["p"]
    else:
        spec = st["msgs"][0]["p"]
        lock_request(system, ui_for(system).form_values(spec))
    q(f"#tab-{system}").classList.add("is-fair")
    q(f"#tab-{system}").classList.toggle("is-fair-done", not form_locked(system))
    STATE[system].update(spec=spec, readonly=False, note=note)
    if window.matchMedia(DRAWER).matches:
        show_history(False)
    refresh_fair(system)


def leave_fair(system):
    """Back to this tab's own form and rolls (the request stays in the list)."""
    st = STATE[system]
    if st["fair"] is None:
        return
    key = st["fair"]
    st["fair"] = None
    FAIR["said"].pop(tuple(key), None)
    unlock_form(system)
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
    secondary buttons (end my turn, reveal, send again, close). A side that
    may not step now sees the dice read-only (no tap, no step), the other
    side's choices named; the GM's page names the dice by the device that
    answered."""
    st = STATE[system]
    req = fair_of(system)
    view = fair.view(req, now())
    said = FAIR["said"].get((req["role"], req["rid"]), {})
    steps = view["player_may_step"] if view["role"] == "player" else view["gm_may_step"]
    html = ""
    if st["result"]:
        html = ui_for(system).render_result(st["result"], {**st["ui"], "readonly": not steps})
    if view["role"] == "gm":
        html = gm_dice(html, view, st["result"], steps)
    elif not steps:
        html = fairview.watching(html, "the GM")
    tray.innerHTML = (fairview.panel(view, now(), st["note"], this_device(), said.get("alert", ""),
                                     said.get("elsewhere", ""))
                      + html + fairview.foot(view, said.get("alert", ""), said.get("elsewhere", "")))
    drop_steps(tray, view)


def drop_steps(tray, view):
    """Take away the tray's step buttons this side may not use now
    (``fairview.keeps_step``)."""
    for b in tray.querySelectorAll("[data-act]"):
        if not fairview.keeps_step(view, str(b.dataset.act)):
            b.remove()


def gm_dice(html, view, result, steps):
    """The dice on the GM's page, named by the device that answered; while
    the GM may not step, read-only, after the player's choices (named when
    the player may take one)."""
    who = (view.get("answered_by") or {}).get("name") or view["player"]
    html = fairview.others_dice(html, who)
    if steps:
        return html
    if view["player_may_step"]:
        html = fairview.choices_line(result, who) + html
    return fairview.watching(html, who)


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
    FAIR["said"].pop((st["role"], st["rid"]), None)
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


def this_device():
    """This device's name and the fingerprint of its key (``shell.device``
    keeps both, with the id the live table knows it by): what a player's
    answer names."""
    me = device.this_device(HISTORY["roller"])
    return {"name": me["name"], "fingerprint": fair.device_fingerprint(me["key"])}


def answer_as(mode):
    """The player's answer (Roll), naming this device as its name field
    says now, with a choice of play (or None)."""
    def go(st):
        me = device.this_device(HISTORY["roller"])
        field = q("#fair-device-name")
        if field is not None:
            name = " ".join(str(field.value).split())[:fair.NAME_MAX]
            if not name:  # a fresh device is asked for a name before its first answer
                said = q("#fair-device-error")
                if said is not None:
                    said.textContent = fairview.NAME_FIRST
                field.setAttribute("aria-invalid", "true")
                field.focus()
                return
            if name != me["name"]:
                me = device.set_name(name)
        after_move(fair_call(fair.answer, st, device={"name": me["name"], "key": me["key"]}, mode=mode))
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
        old, new, link = fair.reissue(st, existing=FAIR["requests"], now=now())
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
    FAIR["requests"] = [x for x in FAIR["requests"] if x is not st]
    save_requests()
    render_requests()
    leave_shown(st)


def leave_shown(st):
    """Close request ``st`` in the tab that shows it, if one does."""
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
        got = fair.open_link(frag, FAIR["requests"], now=now())
    except (fair.FairError, SpecError) as e:
        refused_link(e)
        return
    # opened: the address forgets the link, so a reload does not open it again
    window.history.replaceState(None, "", page_url())
    show_opened(got)
    if got["entry"] is not None:
        add_fair_entry(got["entry"])
    banner(got["note"], "info")
    if got["reply"]:
        send_link(got["state"], got["reply"])


def show_opened(got):
    """What an opened link brought, kept and shown: a request it voided,
    its new state (in its tab), or anyone's verified roll."""
    for other in got["also"]:  # a request the GM voided and asked again
        put_request(other)
    if got["state"] is not None:
        put_request(got["state"])
        show_fair(got["state"], "" if got["kind"] == "request" else got["note"])
    else:
        show_verified(got["verified"])


def refused_link(e):
    """A refused fair-roll link: a second answer shows the request it came
    for (on the GM's page, with its Void and ask again; on the player's,
    saying another device answered first); the banner says why."""
    mine = find_request("gm", getattr(e, "rid", ""))
    theirs = find_request(*getattr(e, "request", ("", "")))
    if mine is not None:  # a second answer: the request it came for, its Void and ask again in view
        said_on(mine, {"alert": str(e)})
    elif theirs is not None and theirs["role"] == "player":  # another device answered first
        said_on(theirs, {"elsewhere": str(e)})
    banner(f"{e} Your own rolls and history are untouched.", "error")


def said_on(st, said):
    """Show request ``st`` with what its panel must say (``FAIR["said"]``),
    its panel brought into view."""
    FAIR["said"][(st["role"], st["rid"])] = said
    show_fair(st)
    bring_panel(st["msgs"][0]["y"])


def bring_panel(system):
    """The fair panel into view (what it says now needs a tap: the banner at
    the page's top may be off screen)."""
    el = q(f"#tray-{system} [data-fair-panel]")
    if el is not None:
        el.scrollIntoView(js_obj({"block": "start"}))


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
                              existing=FAIR["requests"], now=now())
    except SpecError as e:
        what = {"player": "The player's name", "label": "The label"}.get(getattr(e, "field", ""), "The request")
        q("#ask-error").textContent = f"{what} {getattr(e, 'detail', str(e))}."
        return
    q("#ask-dialog").close()
    q("#ask-label").value = ""
    put_request(st)
    send_link(st, fair.request_link(st))
