"""What every part of the page shares: the browser, the DOM helpers, the
banner and the handler guard, the field errors, localStorage, the tabs'
registry and the open tab, and the hooks by which one feature calls
another that sits above it (filled in by ``main``, the wiring).

Importing this module touches nothing of the browser: ``window`` and
``document`` are looked up when first used, so the start-up bytecode
(.ci/pycache.py) and the memory snapshot (``snapshot``) import it, and the
features built on it, in Node or a Worker, where there is no page.

The features, each owning its state and its part of the DOM, in the order
they import each other (a module imports only those before it):
``shell.device`` (this device's id, name and secret key), ``table.table_ui``
(the live table: its dialog, channels and log), ``tabs.forms`` (the roll forms), ``tabs.trayview`` (each tab's game and its
tray), ``odds.oddspanel`` (the odds beside it), ``records.history`` (the
roll history drawer), ``records.setups`` (saved setups),
``links.sharedialog`` (share links and QR), ``party.panel`` (the party:
characters and NPCs), ``fairrolls.fairpanel`` (fair rolls at a distance),
``records.backup`` (export and import).
"""

import importlib
import traceback

import rules
from rules.dice import SpecError
from tabs import tab, ui_alkemy, ui_jadeclaw, ui_milhamah, ui_mirage, ui_open_tale

#: One tab per game system, in rules.SYSTEMS order. A sixth game is one
#: more ui module here (and in rules.MODULES and index.html:
#: docs/adding-a-game.md).
TABS = {ui.SYSTEM: tab.check(ui) for ui in (ui_milhamah, ui_open_tale, ui_mirage, ui_alkemy, ui_jadeclaw)}
assert tuple(TABS) == rules.SYSTEMS, "TABS and rules.SYSTEMS must list the same systems in the same order"

#: The tab on show.
CURRENT = {"system": rules.SYSTEMS[0]}

#: What a feature calls in one above it (name -> function), set by
#: ``main.wire``: "odds" (oddspanel.render_odds), "recorded"
#: (history.add_history), "shown" (sharedialog.update_share_buttons),
#: "tab_shown" (main), "fair_tray", "fair_step", "leave_fair" (fairpanel),
#: "sheet_link" (party: a character's sheet opened from a link).
HOOKS = {}

BACKUP_SUFFIX = "/unreadable-backup"
_proxies = []  # keep event proxies alive


def hook(name, *args, **kw):
    return HOOKS[name](*args, **kw)


class _Browser:
    """``pyscript.window`` or ``pyscript.document``, looked up at each use."""

    __slots__ = ("_name",)

    def __init__(self, name):
        object.__setattr__(self, "_name", name)

    def __getattr__(self, attr):
        if attr.startswith("__"):  # Python's own probes (doctest, inspect), never the browser's
            raise AttributeError(attr)
        return getattr(_pyscript(self._name), attr)

    def __setattr__(self, attr, value):
        setattr(_pyscript(self._name), attr, value)


def _pyscript(name):
    import pyscript

    return getattr(pyscript, name)


window = _Browser("window")
document = _Browser("document")


def create_proxy(fn):
    from pyodide.ffi import create_proxy as make

    return make(fn)


def create_once(fn):
    from pyodide.ffi import create_once_callable

    return create_once_callable(fn)


def kept_proxy(fn):
    """A proxy of ``fn`` for JavaScript to call, kept alive for the page's life."""
    p = create_proxy(fn)
    _proxies.append(p)
    return p


def listen(target, name, fn):
    """``target.addEventListener(name, fn)``, the proxy kept alive."""
    target.addEventListener(name, kept_proxy(fn))


class Later:
    """A module of ours imported at its first use, not before ready. A first
    visit has no fair-roll request, link or entry, so it starts without
    ``fair`` (and the hashlib, hmac and secrets it imports) or ``fairview``;
    ``main.start`` imports them once the page is idle (docs/SPEED.md)."""

    def __init__(self, name):
        self.name = name

    def __getattr__(self, attr):
        return getattr(importlib.import_module(self.name), attr)


fair = Later("fairrolls.fair")
fairview = Later("fairrolls.fairview")
#: The party (characters and NPCs): loaded once the page is idle, or at the
#: first tap that needs it, so a first visit starts without compiling it.
party = Later("party.panel")


def js_obj(d):
    """A Python dict as a plain JavaScript object (options for DOM calls)."""
    from pyodide.ffi import to_js

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


def now():
    return window.Date.now()


def system_of(el):
    panel = js_none(el.closest("section[data-system]"))
    return panel.dataset.system if panel else None


def set_html(selector, html):
    el = q(selector)
    if el is not None:
        el.innerHTML = html


def when_idle(fn):
    """Run ``fn`` once the page is idle (soon after, where the browser has no
    idle callbacks): what a first roll may need, not before ready."""
    once = create_once(fn)
    if hasattr(window, "requestIdleCallback"):
        window.requestIdleCallback(once, js_obj({"timeout": 2000}))
    else:
        window.setTimeout(once, 200)


#: What handlers left for after the paint (``after_paint``), in order.
_AFTER_PAINT = []


def after_paint(fn):
    """Run ``fn`` once the browser has drawn what the page holds now: in a
    task after the next frame (or 200 ms on, where a hidden page has no
    frames). A roll draws its dice first; what follows them waits here.
    The next event runs what is still waiting first (``painted``), so work
    is never taken out of order."""
    _AFTER_PAINT.append(fn)
    if len(_AFTER_PAINT) == 1:
        run = create_once(lambda *_: painted())
        window.requestAnimationFrame(create_once(lambda *_: window.setTimeout(run, 0)))
        window.setTimeout(create_once(lambda *_: painted()), 200)


def painted(*_):
    """Run, in order, what ``after_paint`` left waiting (each guarded)."""
    while _AFTER_PAINT:
        guard(_AFTER_PAINT.pop(0))()


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


# ---------------------------------------------------------------- field errors

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


# ---------------------------------------------------------------- localStorage

#: When storage is full: the keys whose last write the browser refused
#: (key -> what it holds, in words), and the unreadable stored texts that no
#: copy could be kept of (key -> text): nothing is written over those until
#: the player chooses (the storage banner's buttons, ``records.backup``).
STORAGE = {"refused": {}, "held": {}}
#: What a feature does when another tab of the page writes its key (the
#: ``storage`` event): key -> fn(text).
SYNCED = {}


def read_store(key):
    """The text stored under ``key`` in localStorage, or None (nothing
    stored, or no storage at all)."""
    try:
        text = window.localStorage.getItem(key)
    except Exception:
        return None
    return text if isinstance(text, str) else None  # JS null arrives as pyodide's jsnull, not None


def _kept():
    """``window.diceStore`` (static/js/store.mjs): the stored keys' texts as
    this tab last read or wrote them; None before it is loaded."""
    return getattr(window, "diceStore", None)


def read_synced(key):
    """``read_store``, the text remembered as this tab's (``unchanged``)."""
    try:
        text = _kept().read(key) if _kept() is not None else window.localStorage.getItem(key)
    except Exception:
        return None
    return text if isinstance(text, str) else None


def unchanged(key):
    """Whether the text under ``key`` is still the one this tab last read
    or wrote: no other tab stored anything since (asked without bringing
    the text into Python)."""
    try:
        return bool(_kept() is not None and _kept().unchanged(key))
    except Exception:
        return False


def write_store(key, text, what):
    """Store ``text``; True if it was. A key held (an unreadable store no
    copy could be kept of) is not written over. If the browser refuses
    (quota, private mode), the storage banner names ``what`` was not
    stored and offers a way out (``hook("storage_banner")``)."""
    if key in STORAGE["held"]:
        return False
    try:
        if _kept() is not None:
            _kept().write(key, text)
        else:
            window.localStorage.setItem(key, text)
    except Exception:
        STORAGE["refused"][key] = what
        hook("storage_banner")
        return False
    if STORAGE["refused"].pop(key, None) is not None:
        hook("storage_banner")
    return True


def save_synced(key, synced, value, what):
    """Store ``value`` under ``key``, merged first with what another tab of
    the page stored there since this one last read or wrote it
    (``records.synced``). Returns the merged value: the feature's state
    from now on (``value`` itself when no other tab wrote)."""
    text = synced.text if unchanged(key) else read_synced(key)
    merged = merge_synced(key, synced, value, text)
    out = synced.dump(merged)
    if write_store(key, out, what):
        synced.remember(out, merged)
    return merged


def merge_synced(key, synced, value, text):
    """``value`` merged with ``text``, stored under ``key`` by another tab
    (``records.synced``); text this tab cannot read (a newer page's) is
    kept under the backup key before anything is written over it."""
    merged, warning = synced.merged(value, text)
    if warning:
        keep_kept(key, text, warning)
    return merged


def read_kept(key, loader):
    """What ``loader`` makes of the text stored under ``key`` (and that
    text); its warning goes to the banner, and the text it could not read
    is kept under a backup key before anything overwrites it (or, with no
    room for a copy, held: not written over)."""
    text = read_synced(key)
    value, warning = loader(text)
    if warning:
        keep_kept(key, text, warning)
    return value, text, warning


def keep_kept(key, text, warning):
    """The banner for a store not all readable, saying truly where its
    text is: under the backup key, or held where it is (no room for a
    copy, so nothing is written over it until the player chooses)."""
    if keep_backup(key, text):
        banner(f"{warning} The unreadable text is kept in this browser under a backup key.", "warning")
    else:
        STORAGE["held"][key] = text
        banner(f"{warning} There is no room in this browser's storage to keep a copy of the unreadable text, "
               "so it is left where it is and nothing is stored over it until you choose below.", "warning")
        hook("storage_banner")


def keep_backup(key, text):
    """Before an unreadable store can be overwritten, its text is kept
    under a second key, so nothing is lost. True if it was (or there was
    nothing to keep); False if the browser refused (storage full)."""
    if not text:
        return True
    try:
        window.localStorage.setItem(key + BACKUP_SUFFIX, text)
    except Exception:
        return False
    return True


def on_storage(event):
    """Another tab of the page wrote a key: the feature that owns it
    merges it in (``SYNCED``)."""
    fn = SYNCED.get(str(event.key or ""))
    if fn is not None:
        text = event.newValue
        fn(text if isinstance(text, str) else None)
