"""The odds panel beside each tray: the questions a tab asks now, put to
the odds Worker (``oddsclient``) or worked out here where it could not
start (``oddswork``), and drawn when they come (docs/SPEED.md, "Odds beside the
page"); the odds follow the form as it is typed in.

The state, in ``ODDS``: the Worker's questions and transport, and each
form's pending odds after a keystroke.
"""

import json

from odds import oddsclient, oddswork
from shell.page import create_once, create_proxy, document, guard, q, ui_for, window
from tabs import tab
from tabs.forms import default_fields, fill_fields, form_locked, read_spec, schedule_forms_save
from tabs.trayview import STATE, redraw_tray_kept, reveal

#: The odds Worker's questions (oddsclient.Questions), None until it is
#: started; its transport; per tab, the odds asked a moment after the last
#: keystroke (a timer id) and the callback each timer runs.
ODDS = {"questions": None, "transport": None, "timers": {}, "proxies": {}}


def render_odds(system):
    """Ask the odds questions the tab needs now (and best play's advice for
    a result that has none yet): of the odds Worker, drawing the answer when
    it comes, or here where the Worker could not start (docs/SPEED.md, "Odds
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
    redraw = False
    if got.get("advice") is not None and oddswork.needs_advice(st["result"]):
        st["result"] = asked["result"] = oddswork.merge_advice(st["result"], got["advice"])
        redraw = True
    st["odds"] = got["answers"]
    prices = getattr(ui_for(system), "tray_prices", None)  # the tray shows the player's own choice priced
    if redraw or (callable(prices) and prices(st["result"], st["ui"])):
        redraw_tray_kept(system)
    panel = q(f"#odds-{system}")
    panel.innerHTML = ui_for(system).render_odds(st["spec"], got["answers"], st["result"])
    panel.dataset.oddsShown = got.get("serial", "here")
    odds_waiting(system, False)
    if redraw or st.pop("just_rolled", False):
        # best play's choices came, or the first odds after a roll or a step grew
        # the result column (which a tablet holds beside the form): the
        # decision, not only the dice, on screen
        reveal(system)


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


def tab_shown(system, first):
    """A tab opened: its odds after it is painted (and after start-up: the
    first roll waits for nothing), or asked again where its last question
    was dropped for another tab's."""
    if first:
        window.setTimeout(create_once(guard(lambda *_: update_from_form(system))), 0)
    elif ODDS["questions"] is not None and ODDS["questions"].pending(system):
        render_odds(system)


def on_form_input(event, form):
    """A keystroke or change in a roll form: its odds a moment later, the
    form kept."""
    t = event.target
    system = form.dataset.system
    if form_locked(system):  # the request's form, read-only: nothing of it is kept as the player's own
        return
    if str(event.type) == "change" and str(t.type or "") == "number" and t.name:  # left empty: shows its default
        fill_fields(form, tab.empty_numbers({str(t.name): [str(t.value)]}, default_fields(system),
                                            [] if t.validity.badInput else [str(t.name)]))
    timer = ODDS["timers"].get(system)
    if timer is not None:
        window.clearTimeout(timer)
    ODDS["timers"][system] = window.setTimeout(_odds_proxy(system), 120)
    schedule_forms_save(system)


def odds_before_roll(system):
    """A Roll tapped while the form's odds still wait for their moment (a
    change less than 120 ms before): they are asked now, of the spec the
    roll has just read, and their timer is dropped. Left to it, they would
    read the form again after the roll and clear what the roll said at its
    fields (a Broken character's "no actions")."""
    timer = ODDS["timers"].get(system)
    if timer is not None:
        window.clearTimeout(timer)
        ODDS["timers"][system] = None
        render_odds(system)


def _odds_proxy(system):
    if system not in ODDS["proxies"]:
        def later(*_):
            ODDS["timers"][system] = None
            update_from_form(system)
        ODDS["proxies"][system] = create_proxy(guard(later))
    return ODDS["proxies"][system]


def update_from_form(system):
    spec = read_spec(system)
    if spec is not None:
        STATE[system]["spec"] = spec
        render_odds(system)
