"""The page's side of the odds Worker: which question is current, which
answer is stale (docs/SPEED.md, "Odds beside the page").

``Questions`` is pure: it numbers every question with a serial, keeps at
most one in flight and one waiting (a newer question replaces the waiting
one: the older is dropped, never asked), and hands an answer on only if it
answers its tab's newest question, so a late answer never overwrites a
newer one. The Worker computes one question at a time and cannot be
interrupted mid-question; an overtaken question in flight is let finish
and its answer thrown away. ``Transport`` starts the Worker and carries the
messages (the only part that touches JavaScript).

>>> sent = []
>>> qs = Questions(sent.append)
>>> qs.ask("mirage", {"n": 1}, print)     # before the Worker is ready: waits
1
>>> qs.started(True); [m["serial"] for m in sent]
[1]
>>> qs.ask("mirage", {"n": 2}, print), qs.ask("mirage", {"n": 3}, print)   # 2 overtaken by 3 while 1 is in flight
(2, 3)
>>> qs.received({"serial": 1, "answers": {}})   # 1 is stale: not shown; 3 is sent, 2 never
>>> [m["serial"] for m in sent]
[1, 3]
>>> qs.received({"serial": 3, "answers": {"x": 1}})
{'serial': 3, 'answers': {'x': 1}}
>>> qs.pending("mirage")
False
"""

from __future__ import annotations

import os

from odds import oddswork

__all__ = ["Questions", "Transport", "START_TIMEOUT_MS", "ANSWER_TIMEOUT_MS", "page_files"]

#: A Worker that has not started by then (a starved device, a broken file)
#: is given up: the page answers on its own thread from then on.
START_TIMEOUT_MS = 60_000
#: No watchdog on an answer: a question that takes long on a slow device
#: is still better answered beside the page than moved onto it (a heavy
#: question worked out here would freeze the page, which is what the
#: Worker is for); a Worker that dies reports an error and is given up.
ANSWER_TIMEOUT_MS = None


class Questions:
    """The odds questions asked of the Worker, by serial."""

    def __init__(self, post):
        self.post = post  #: sends one question (a dict) to the Worker
        self.state = "starting"  #: starting | ready | failed
        self.serial = 0
        self.latest = {}  #: system -> serial of its newest question
        self.answered = {}  #: system -> serial of the answer it shows
        self.in_flight = None  #: (serial, message) sent and not yet answered
        self.waiting = None  #: the newest question not yet sent
        self.callbacks = {}  #: serial -> (system, fn(answer))

    @property
    def usable(self) -> bool:
        return self.state != "failed"

    def ask(self, system: str, message: dict, on_answer) -> int:
        """Ask ``message`` for ``system``; ``on_answer(answer)`` runs only if
        no newer question for any tab has overtaken it by then."""
        self.serial += 1
        s = self.serial
        self.latest[system] = s
        self.callbacks = {k: v for k, v in self.callbacks.items()
                          if self.in_flight and k == self.in_flight[0]}
        self.callbacks[s] = (system, on_answer)
        self.waiting = {**message, "serial": s, "system": system}
        self._send()
        return s

    def pending(self, system: str) -> bool:
        """Whether ``system``'s newest question is still unanswered."""
        return self.latest.get(system, 0) > self.answered.get(system, 0)

    def _send(self):
        if self.state == "ready" and self.in_flight is None and self.waiting is not None:
            m, self.waiting = self.waiting, None
            self.in_flight = (m["serial"], m)
            self.post(m)

    def received(self, answer: dict):
        """An answer from the Worker: handed on if current, else dropped."""
        s = answer.get("serial")
        if self.in_flight and self.in_flight[0] == s:
            self.in_flight = None
        system, fn = self.callbacks.pop(s, (None, None))
        self._send()
        if fn is not None and self.latest.get(system) == s:
            self.answered[system] = s
            return fn(answer)
        return None

    def started(self, ok: bool):
        """The Worker is ready (send what waits) or could not start."""
        if self.state != "starting":
            return
        self.state = "ready" if ok else "failed"
        self._send()

    def failed(self) -> list:
        """Give the Worker up: the systems whose newest question is still
        unanswered, for the page to answer itself."""
        self.state = "failed"
        self.in_flight = self.waiting = None
        self.callbacks = {}
        return [s for s in self.latest if self.pending(s)]


def page_files(cwd: str | None = None) -> list[str]:
    """Every file the page's start wrote (``[files]`` and the bytecode zip
    unpacked), which the Worker is given instead of fetching anything.

    >>> import tempfile, pathlib
    >>> d = tempfile.mkdtemp(); _ = pathlib.Path(d, "a.py").write_text("x")
    >>> [os.path.basename(p) for p in page_files(d)]
    ['a.py']
    """
    cwd = cwd or os.getcwd()
    out = []
    for folder, dirs, found in os.walk(cwd):
        dirs.sort()
        out.extend(os.path.join(folder, f) for f in sorted(found))
    return out


class Transport:
    """The Worker itself (static/js/odds-worker.mjs): started with the
    page's files and, where this start was restored from one, the memory
    snapshot's key; every failure ends in ``on_fail`` (the page then answers
    on its own thread)."""

    def __init__(self, window, url, on_message, on_fail):
        from pyodide.ffi import create_proxy, to_js

        self.window = window
        self.to_js = to_js
        self.on_fail = on_fail
        self._proxies = []
        self._timer = None
        self.worker = window.Worker.new(url, to_js({"type": "module", "name": "odds"},
                                                   dict_converter=window.Object.fromEntries))
        self.worker.onmessage = self._proxy(lambda e: self._message(e.data, on_message))
        self.worker.onerror = self._proxy(self._error)
        self._ready = None
        self.failed = False

    def _proxy(self, fn):
        from pyodide.ffi import create_proxy

        p = create_proxy(fn)
        self._proxies.append(p)
        return p

    def start(self, on_ready, snapshot_key=None):
        import js

        self._ready = on_ready
        cwd = os.getcwd()
        paths = page_files(cwd)
        contents = [js.Uint8Array.new(self.to_js(open(p, "rb").read())) for p in paths]
        msg = js.Object.new()
        msg.type = "start"
        msg.cwd = cwd
        msg.files = self.to_js(paths)
        msg.contents = self.to_js(contents)
        msg.key = snapshot_key
        self.worker.postMessage(msg)
        self.arm(START_TIMEOUT_MS)

    def arm(self, ms):
        """(Re)start the watchdog: the Worker answers within ``ms`` or is given up."""
        self.disarm()
        self._timer = self.window.setTimeout(self._proxy(lambda *_: self.fail("timeout")), ms)

    def disarm(self):
        if self._timer is not None:
            self.window.clearTimeout(self._timer)
            self._timer = None

    def post(self, message: dict):
        self.worker.postMessage(oddswork.pack(message))

    def _message(self, data, on_message):
        if isinstance(data, str):
            self.disarm()
            on_message(oddswork.unpack(data))
        else:
            self._control(data)

    def _control(self, data):
        if str(data.type) == "ready":
            self.disarm()
            body = self.window.document.body
            body.dataset.odds = "worker-" + str(data.start)
            body.dataset.oddsStartMs = data.ms  # how long the Worker took to start, its wasm memory
            body.dataset.oddsWasm = data.wasm
            self._ready()
        else:
            self.fail(str(getattr(data, "reason", "error")))

    def _error(self, event):
        event.preventDefault()  # the page answers the odds itself: nothing alarming in the console
        self.fail("error")

    def fail(self, reason):
        if self.failed:
            return
        self.failed = True
        self.disarm()
        try:
            self.worker.terminate()
        finally:
            self.window.document.body.dataset.odds = "page-" + reason
            self.on_fail()
