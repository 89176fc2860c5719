"""The benchmark: the app against a bare "floor" page that starts the same
vendored PyScript + Pyodide and prints one line (tests/floor/), measured in
one run, alternating, in headless Debian Chromium on this machine.

    bash .ci/dev bench            # or: .venv/bin/python tests/benchmark.py [--runs 7]

Each run keeps one browser profile on disk per page, as a player's tablet
does: a cold first visit; for the app, the memory snapshot being made in
the background (its time, sizes, and the main thread's longest task
meanwhile); a repeat visit with the server up; one with the server stopped
(the returning visit: the app from its snapshot, the floor's plain warm
start); for the app, one with its snapshot dropped (the fallback start);
then the browser is closed and started again on the same profile, server
still stopped (a returning visit after the browser was closed).

It prints one table and writes .bench/results.json. Figures are medians and
p95 over the runs; the machine is shared and noisy, so read the ratios (the
load average is printed with them). Not part of CI.

    .venv/bin/python tests/benchmark.py --sweep [--sweep-n 40] [--seed 26]

    .venv/bin/python tests/benchmark.py --evening [--evening-rolls 600] [--evening-runs 3]

``--evening`` (a long evening at the table): 600 rolls in one page, each
timed from the click to its dice painted and to the history stored, and
the main thread's CPU time for it (CDP); the medians of the 20 rolls
before rolls 50, 100, 200, 400 and 600, with the renderer's memory (PSS
and private, from /proc) and the JS heap and wasm memory after a garbage
collection at each; the median of each over the runs. The goal: roll 600 within 1.2x of roll 50, the
renderer's memory flat within 50 MB from roll 100 on (docs/SPEED.md).

``--sweep`` (the rules' work bound, CPython only, no browser): for every
system, random large specs (fixed seed) at or near the forms' limits, each
through the public contract as the page asks it, every odds cache emptied
first: ``rules.roll(..., advise=False)`` with seeded dice, ``rules.advise``,
and ``tab.answer`` of the tab's questions after that roll. It prints the
slowest ten per system with their CPU times (budget 0.5 s).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "browser"))
sys.path.insert(0, str(ROOT / "static" / "py"))

from conftest import CHROMIUM, LAUNCH_ARGS, serve  # noqa: E402  (tests/browser/conftest.py)
from playwright.sync_api import Error as PlaywrightError  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

import rules  # noqa: E402


def snapshot_site(whole_stdlib: bool = False) -> Path:
    """A copy of the site as it is now (the vendored runtime linked, not
    copied), with the floor page and its own precache list: the benchmark
    measures one version even while files are being edited, and the service
    worker's hash checks pass. ``whole_stdlib``: the app loads Pyodide's
    whole python_stdlib.zip, not its own (.ci/pycache.mjs DICE_STDLIB)."""
    import subprocess

    site = Path(tempfile.mkdtemp(prefix="bench-site-"))
    for name in ("index.html", "pyscript.toml", "sw.js"):
        shutil.copy(ROOT / name, site / name)
    skip = shutil.ignore_patterns("__pycache__", "vendor", "precache.js")
    shutil.copytree(ROOT / "rules", site / "rules", ignore=skip)
    shutil.copytree(ROOT / "static", site / "static", ignore=skip)
    shutil.copytree(ROOT / "tests" / "floor", site / "tests" / "floor", ignore=skip)
    os.symlink(ROOT / "static" / "vendor", site / "static" / "vendor")
    env = {**os.environ, "DICE_STDLIB": "whole"} if whole_stdlib else None
    subprocess.run(["node", str(ROOT / ".ci" / "precache.mjs"), str(site)], check=True, env=env)
    return site


SITE = ROOT  # replaced by a snapshot in main()
SKIP_COLD = False

ARGS = LAUNCH_ARGS + ["--enable-precise-memory-info", "--js-flags=--expose-gc"]

# Records the moment body[data-ready] appears, against navigation start.
READY_PROBE = """
(() => {
  const mark = () => { if (document.body && document.body.hasAttribute('data-ready') && !window.__readyAt)
    window.__readyAt = performance.now(); };
  new MutationObserver(mark).observe(document, {subtree: true, attributes: true, attributeFilter: ['data-ready']});
})();
"""

# In a page, the body both timings start with: clicks a tab's Roll button;
# ``painted`` resolves (ms from the click) once new dice are in the tray and
# the frame that draws them is painted and committed. It ends in a
# user-blocking task queued at that frame's start, which runs before the
# page's own tasks left for after the paint (the odds request, the history
# entry): those do not hold the dice back from the screen, and a timer
# queued there (the measure before 2026-11-28) ran after them and counted
# them. ``measure_against_trace`` checks it against Chromium's trace.
_CLICK_AND_PAINT = """
  const tray = document.querySelector('#tray-' + system);
  const button = document.querySelector('#form-' + system + ' [data-roll]');
  const before = tray.firstChild;
  const t0 = performance.now();
  const painted = new Promise((resolve) => {
    const obs = new MutationObserver(() => {
      if (tray.querySelector('[data-die]') && tray.firstChild !== before) {
        obs.disconnect();
        // the frame that draws them: a task of the highest priority queued
        // at its start runs as soon as it is painted and committed (the
        // compositor shows it from there), before the page's own later tasks
        requestAnimationFrame(() => scheduler.postTask(() => resolve(performance.now() - t0),
                                                       {priority: 'user-blocking'}));
      }
    });
    obs.observe(tray, {childList: true, subtree: true});
  });
  button.click();
"""

# Clicks a tab's Roll button; resolves when new dice are in the tray and a
# frame has been painted.
CLICK_TO_DICE = "async (system) => {" + _CLICK_AND_PAINT + "  return await painted;\n}"

# Resolves once the page's main thread is idle: what the last roll left for
# after its paint (the history entry, the odds) is done, as it is when a
# player's next roll comes, seconds later.
PAGE_IDLE = "() => new Promise((resolve) => requestIdleCallback(() => resolve(), {timeout: 2000}))"

BYTES = """
() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const res = performance.getEntriesByType('resource');
  return [[nav.name, nav.transferSize, nav.decodedBodySize],
          ...res.map(r => [r.name, r.transferSize, r.decodedBodySize])];
}
"""

# A grid of odds questions per system: the form's default and harder cases.
ODDS_GRID = {
    "milhamah": [{}, {"shoresh": "שלם", "difficulty": 3}, {"shoresh": "אשר", "rerolls": 5},
                 {"shoresh": "חננ", "pool": {"red": 4, "blue": 4, "green": 4}, "rerolls": 6},
                 {"shoresh": "רוח", "reaction": True, "difficulty": 2},
                 {"pool": {"red": 4, "green": 4, "blue": 4}, "rounds": 2}],
    "open_tale": [{}, {"level": 9, "heroic": True}, {"level": 1, "modifiers": ["superiority"]},
                  {"level": 5, "dice": [12, 4], "modifiers": ["advantage"], "heroic": True, "target": 12},
                  {"level": 9, "modifiers": ["inferiority"], "heroic": True}],
    "mirage": [{}, {"attribute": 12, "skill": 12, "gear": [8, 8]}, {"attribute": 6, "skill": 0},
               {"attribute": 10, "skill": 8, "helpers": 3, "difficulty": "formidable"},
               {"attribute": 10, "skill": 10, "opponent": {"attribute": 12, "skill": 10}}],
    "alkemy": [{}, {"characteristic": 4, "bonus": 2}, {"characteristic": 2, "malus": 2},
               {"characteristic": 3, "opponent": {"characteristic": 3, "bonus": 2}}],
    "jadeclaw": [{}, {"dice": "2d12 & d4", "difficulty": "heroic"},
                 {"dice": "3d12 & d8", "opponent": "2d12 & d10", "penalties": 2, "favored": True},
                 {"kind": "damage", "dice": "2d12 & d8", "soak": "2d10 & d6"},
                 {"kind": "damage", "dice": "4d12", "soak": "4d12", "damage_type": "slaying"}],
}


# Milhamah's odds budget: p95 <= 100 ms in the browser for the
# default roll and for 12 dice with 2 rounds, each answer computed afresh.
# The odds are cached by question, so each sample asks a variant of it with
# another difficulty (the same work: every first roll valued, the colour
# pairs ranked). "cold": every cache of rules.milhamah.probability (``*_CACHE``) is
# emptied before each answer, in CPython and on the page (nothing is kept
# warm: the dice models too are built afresh). "same dice": every cache but
# ``_MODEL_CACHE`` emptied, the model of these dice built by the question
# before: what a player sees who changes the difficulty or the rounds of the
# roll whose odds the page already shows (the budget is the cold figure).
MILHAMAH_BUDGET = {"default (8 dice, X 3, 1 round)": {},
                   "12 dice, X 3, 2 rounds": {"pool": {"red": 4, "green": 4, "blue": 4}, "rounds": 2}}
MILHAMAH_VARIANTS = (2, 3, 4, 5, 6, 1, 7)


def milhamah_odds_cold(page) -> dict:
    """{label: {"browser": summary, "cpython": summary}} of uncached odds
    (label " (same dice)": the dice model kept)."""
    out = {}
    for label, spec in MILHAMAH_BUDGET.items():
        norms = [rules.normalize("milhamah", dict(rules.default_spec("milhamah"), **spec, difficulty=d))
                 for d in MILHAMAH_VARIANTS]
        out[label] = _milhamah_times(page, norms, "all")
        out[label + " (same dice)"] = _milhamah_times(page, norms, "model")
    return out


def _milhamah_times(page, norms: list, forget: str) -> dict:
    """Each spec's odds timed after emptying the caches (``forget``: "all",
    or "model": all but the dice models; then the first spec is asked once
    before, untimed, to build them)."""
    from rules.milhamah import probability as milhamah_odds

    if forget == "model":
        rules.odds("milhamah", norms[-1])
        page.evaluate("([s, j]) => window.diceBenchOdds(s, j, 'all')", ["milhamah", json.dumps(norms[-1])])
    b, c = [], []
    for norm in norms:
        for name in dir(milhamah_odds):
            if name.endswith("_CACHE") and (forget == "all" or name != "_MODEL_CACHE"):
                getattr(milhamah_odds, name).clear()
        t = time.perf_counter()
        rules.odds("milhamah", norm)
        c.append((time.perf_counter() - t) * 1000)
        b.append(page.evaluate("([s, j, f]) => window.diceBenchOdds(s, j, f)", ["milhamah", json.dumps(norm), forget]))
    return {"browser": summary(b), "cpython": summary(c)}


def print_milhamah(cold: dict):
    for label, v in cold.items():
        b, c = v["browser"], v["cpython"]
        print(f"{'odds, milhamah ' + label:58s} browser p50 {b['p50']:6.1f} p95 {b['p95']:6.1f}"
              f" | CPython p50 {c['p50']:5.1f} p95 {c['p95']:5.1f} ms")


# Milhamah's heaviest odds questions, CPython CPU time
# per answer with every cache of rules.milhamah.probability emptied (the dice
# models too), median and max of 5, and the state count that chose exact
# or sampled (``milhamah_odds._states`` against ``STATE_LIMIT``).
MILHAMAH_HEAVY = {
    "default (8 dice, X 3, 1 round)": {},
    "8 dice, X 5, 1 round (a big exact one)": {"shoresh": "אשר", "rerolls": 5},
    "4 dice, X 3, 3 rounds (a worked figure)": {"shoresh": "דצמש", "pool": {"red": 1, "blue": 3}, "rerolls": 3,
                                          "rounds": 3, "difficulty": 1},
    "7 dice, X 6, 2 rounds, 2 colours ranked": {
        "shoresh": "טלשס", "pool": {"green": 4, "blue": 3}, "rerolls": 6, "rounds": 2, "difficulty": 3},
    "12 dice, X 3, 1 round": {"shoresh": "אשר", "pool": {"red": 4, "green": 4, "blue": 4}, "difficulty": 3},
    "12 dice, X 3, 2 rounds": {"shoresh": "אשר", "pool": {"red": 4, "green": 4, "blue": 4}, "rounds": 2,
                               "difficulty": 3},
    "9 dice, X 12, 1 round (a worked figure)": {"shoresh": "רנג", "pool": {"red": 4, "green": 4, "blue": 1},
                                         "rerolls": 12, "difficulty": 1},
    "12 dice, X 12, 4 rounds": {"shoresh": "שלום", "pool": {"red": 4, "green": 4, "blue": 4}, "rerolls": 12,
                                "rounds": 4, "difficulty": 6},
    "12 v 12 dice, X 3, 2 rounds each": {
        "shoresh": "אשר", "pool": {"red": 4, "green": 4, "blue": 4}, "rounds": 2, "difficulty": 3,
        "opponent": {"shoresh": "חנן", "pool": {"red": 4, "green": 4, "blue": 4}, "rerolls": 3, "rounds": 2}},
}


def milhamah_heavy_cpu(runs: int = 5) -> dict:
    """{label: {"states", "exact", "sampled", "margin", "p50", "max"}} (ms of CPU)."""
    from rules.milhamah import probability as milhamah_odds

    out = {}
    for label, spec in MILHAMAH_HEAVY.items():
        norm = rules.normalize("milhamah", dict(rules.default_spec("milhamah"), **spec))
        times = []
        for _ in range(runs):
            for name in dir(milhamah_odds):
                if name.endswith("_CACHE"):
                    getattr(milhamah_odds, name).clear()
            t = time.process_time()
            o = rules.odds("milhamah", norm)
            times.append((time.process_time() - t) * 1000)
        out[label] = {"states": milhamah_odds._states(milhamah_odds._Ctx(norm)), "exact": o["exact"],
                      "sampled": o.get("sampled", 0), "margin": o.get("margin"),
                      "p50": pct(times, 0.5), "max": max(times)}
    return out


def print_milhamah_heavy(rows: dict):
    from rules.milhamah import probability as milhamah_odds

    print(f"Milhamah odds, CPython CPU per cold answer (state limit {milhamah_odds.STATE_LIMIT:,}):")
    for label, r in rows.items():
        how = "exact" if r["exact"] else f"sampled {r['sampled']}, ±{r['margin'] * 100:.1f} pts"
        print(f"  {label:52s} {r['states']:>11,} states  {how:24s} p50 {r['p50']:6.1f}  max {r['max']:6.1f} ms")


def pct(values, q):
    if not values:
        return None
    s = sorted(values)
    k = (len(s) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def summary(values):
    return {"p50": pct(values, 0.5), "p95": pct(values, 0.95), "max": max(values) if values else None,
            "n": len(values)}


def gzip_size(url: str, base: str) -> int:
    path = urlparse(url).path
    local = SITE / path.lstrip("/")
    if path.endswith("/"):
        local = local / "index.html"
    try:
        return len(gzip.compress(local.read_bytes(), 9))
    except OSError:
        return 0


class CountingServer:
    """The site served on a free port, counting the bytes it sends (headers
    and bodies), so a first visit is measured including what a service
    worker fetches in the background."""

    def __init__(self, directory: Path | None = None):
        import functools
        import http.server
        import threading

        server = self
        self.sent = 0
        self.requests = 0
        self.by_path = {}  # bytes sent per path (headers and body)
        self.lock = threading.Lock()

        class Handler(http.server.SimpleHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def log_request(self, code="-", size="-"):
                with server.lock:
                    server.requests += 1

            def handle_one_request(self):
                self.sent_here = 0
                super().handle_one_request()
                path = getattr(self, "path", None)
                if path:
                    with server.lock:
                        key = urlparse(path).path
                        server.by_path[key] = server.by_path.get(key, 0) + self.sent_here

            def setup(self):
                super().setup()
                raw = self.wfile
                handler = self

                class Counted:
                    def write(_, b):
                        with server.lock:
                            server.sent += len(b)
                        handler.sent_here = getattr(handler, "sent_here", 0) + len(b)
                        return raw.write(b)

                    def __getattr__(_, name):
                        return getattr(raw, name)

                self.wfile = Counted()

        self.httpd = http.server.ThreadingHTTPServer(
            ("127.0.0.1", 0), functools.partial(Handler, directory=str(directory or SITE)))
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


# Resolves once a service worker controls the page (the app marks it on <body>;
# the floor page has no marker, so ask the browser).
CONTROLLED = """
async () => {
  for (let i = 0; i < 1200 && !navigator.serviceWorker.controller; i++)
    await new Promise((r) => setTimeout(r, 100));
  return !!navigator.serviceWorker.controller;
}
"""


def wait_controlled(page) -> bool:
    try:
        return bool(page.evaluate(CONTROLLED))
    except Exception:
        return False


def first_visit_bytes(pw, kind: str, with_sw: bool) -> int:
    """Bytes the server sends on a first visit in a fresh profile, up to
    ready and, with a service worker, until it has installed (its precache
    included), or 3 s after ready without one."""
    server = CountingServer()
    url = server.url if kind == "app" else server.url + "tests/floor/index.html"
    profile = tempfile.mkdtemp(prefix="bench-bytes-")
    ctx = pw.chromium.launch_persistent_context(profile, executable_path=CHROMIUM, args=ARGS,
                                                service_workers="allow" if with_sw else "block")
    try:
        page = ctx.new_page()
        page.goto(url)
        page.wait_for_selector("body[data-ready]", state="attached", timeout=120_000)
        if with_sw:
            wait_controlled(page)
            if kind == "app":
                wait_snapshot(page)  # the Worker that makes it fetches nothing from the server
            time.sleep(0.5)
        else:
            time.sleep(3.0)
        first_visit_bytes.requests = server.requests
        return server.sent
    finally:
        ctx.close()
        server.stop()
        shutil.rmtree(profile, ignore_errors=True)


# Collects main-thread long tasks from now on (Long Tasks API).
LONGTASK_START = """
() => {
  window.__long = [];
  new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__long.push(e.duration); })
    .observe({type: 'longtask', buffered: false});
}
"""


def tap_and_type(page) -> list[float]:
    """Once ready, for each system: open its tab, type into its fields and tap
    its buttons and Roll as a player would; returns the long tasks seen (ms)."""
    page.evaluate(LONGTASK_START)
    for system in rules.SYSTEMS:
        page.click(f"#tabbtn-{system}")
        form = f"#form-{system}"
        fields = page.locator(f"{form} input[type=number]:visible, {form} input:not([type]):visible,"
                              f" {form} input[type=text]:visible")
        for i in range(min(fields.count(), 4)):
            f = fields.nth(i)
            if f.get_attribute("readonly") is not None:
                continue
            f.click()
            if f.get_attribute("type") == "number":
                f.press("ArrowUp")
                f.press("ArrowDown")
            else:
                f.press("End")
                f.type(" ", delay=30)
                f.press("Backspace")
        for b in page.locator(f"{form} button[type=button]:visible").all()[:6]:
            b.click()
        for box in page.locator(f"{form} input[type=checkbox]:visible").all()[:3]:
            box.click()
            box.click()
        page.click(f"{form} [data-roll]")
        page.wait_for_timeout(300)
    page.wait_for_timeout(1000)
    return page.evaluate("window.__long")


# Every main-thread long task from the page's start: [start, duration] (ms).
LONGTASK_PROBE = """
(() => {
  window.__longAll = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__longAll.push([e.startTime, e.duration]);
  }).observe({type: 'longtask'});
})();
"""

SNAPSHOT_FINAL = ("stored", "refused", "unstored", "too-big", "error", "timeout")

# How the snapshot's making went: the worker's own figures, the wall time
# from "making" to its answer, and the longest main-thread task meanwhile.
SNAPSHOT_MADE = """
() => {
  const mark = (n) => performance.getEntriesByName(n)[0]?.startTime;
  const from = mark('dice:snapshot-making'), to = mark('dice:snapshot-done');
  const during = (window.__longAll || []).filter(([t, d]) => t + d >= from && t <= to).map(([, d]) => d);
  return {state: document.body.dataset.snapshot, answer: window.diceSnapshot || null,
          wall: to - from, longest: Math.max(0, ...during), long_tasks: during.length};
}
"""

DROP_SNAPSHOT = "() => import('./static/js/snapshot-store.mjs').then((s) => s.drop())"


def wait_snapshot(page, timeout_s=240) -> dict | None:
    """Waits until the app has made (or given up on) its snapshot."""
    for _ in range(timeout_s * 4):
        if page.get_attribute("body", "data-snapshot") in SNAPSHOT_FINAL:
            return page.evaluate(SNAPSHOT_MADE)
        page.wait_for_timeout(250)
    return None


def launch(pw, profile: str):
    ctx = pw.chromium.launch_persistent_context(profile, executable_path=CHROMIUM, args=ARGS,
                                                viewport={"width": 1024, "height": 768})
    ctx.add_init_script(READY_PROBE)
    ctx.add_init_script(LONGTASK_PROBE)
    return ctx


def ready_at(page, url: str, timeout=120_000) -> tuple[float, str | None]:
    """Navigates to ``url`` (via about:blank) and returns (ms from navigation
    start to body[data-ready], how Python started)."""
    page.goto("about:blank")
    page.goto(url)
    page.wait_for_selector("body[data-ready]", state="attached", timeout=timeout)
    return page.evaluate("window.__readyAt"), page.get_attribute("body", "data-start")


def load_times(pw, url: str, kind: str, server_stop) -> dict:
    """One profile on disk, as a player's tablet keeps it: a cold first
    visit; for the app, the snapshot being made; a repeat visit (service
    worker, server up); one with the server stopped; for the app, one with
    its snapshot dropped (the fallback, a plain warm start); then the
    browser is closed and started again on the same profile, server still
    stopped: the returning visit."""
    profile = tempfile.mkdtemp(prefix="bench-profile-")
    out: dict = {}
    ctx = launch(pw, profile)
    try:
        page = ctx.new_page()
        out["cold"], out["cold_start"] = ready_at(page, url)
        out["fetched"] = page.evaluate(BYTES)
        wait_controlled(page)  # let the service worker finish its precache
        if kind == "app":
            out["snapshot"] = wait_snapshot(page)
        out["warm"], out["warm_start"] = ready_at(page, url)
        server_stop()
        out["offline"], out["offline_start"] = ready_at(page, url, 30_000)
        if kind == "app":
            page.evaluate(DROP_SNAPSHOT)
            out["fallback"], out["fallback_start"] = ready_at(page, url, 30_000)
            wait_snapshot(page)  # made again, offline, for the returning visit
        ctx.close()
        ctx = launch(pw, profile)
        page = ctx.new_page()
        out["returning"], out["returning_start"] = ready_at(page, url, 60_000)
        return out
    finally:
        ctx.close()
        shutil.rmtree(profile, ignore_errors=True)


#: The heaviest Mirage specs found (the first took 15.9 s of CPU before the work limit).
MIRAGE_HEAVY = [
    {"attribute": 12, "skill": 10, "gear": [12, 10, 8, 6, 12, 10], "prayer_bonus": 1,
     "opponent": {"attribute": 10, "skill": 12, "gear": [6, 8, 10, 12, 12, 6]}},
    {"attribute": 12, "skill": 10, "gear": [12, 10, 8, 6, 12, 10], "prayer_bonus": 1,
     "opponent": {"attribute": 10, "skill": 12}},
    {"attribute": 12, "skill": 10, "gear": [12, 10, 8, 6, 12, 10], "prayer_bonus": 1},
    {"attribute": 12, "skill": 12, "gear": [12] * 6, "prayer_bonus": 2,
     "opponent": {"attribute": 12, "skill": 12, "gear": [12] * 6}},
]


def _random_mirage(rng) -> dict:
    die = lambda: rng.choice((6, 8, 10, 12))  # noqa: E731
    spec = {"attribute": die(), "skill": rng.choice((0, 6, 8, 10, 12)),
            "gear": [die() for _ in range(rng.randint(2, 6))], "prayer_bonus": rng.randint(0, 2),
            "difficulty": rng.choice(("easy", "average", "hard")), "helpers": rng.randint(0, 2)}
    if rng.random() < 0.75:
        spec["opponent"] = {"attribute": die(), "skill": rng.choice((0, 6, 8, 10, 12)),
                            "gear": [die() for _ in range(rng.randint(0, 6))]}
    return spec


def _mirage_worst_roll(norm: dict, seed: int) -> list:
    """The draws of a roll that asks the most of the advice: a tie (the
    tie-break is priced as a whole turn), else a failure, else any."""
    rng = random.Random(seed)
    found = {}
    for _ in range(300):
        r = rules.roll("mirage", norm, rng, advise=False)
        found.setdefault(r["outcome"], r["stages"][0]["draws"])
        if "tie" in found:
            break
    return found.get("tie") or found.get("failure") or next(iter(found.values()))


def mirage_sweep(n: int = 60, seed: int = 2126) -> list:
    """``MIRAGE_HEAVY`` and ``n`` random large ones (CPython, CPU
    time, every odds cache emptied first): the roll, its advice (on a tie
    where the spec can tie) and the tab's odds questions, as the page asks
    them. Returns rows (ms, spec, work, exact), slowest first."""
    from rules.mirage import prayer as mp
    from tabs import tab, ui_mirage

    rng = random.Random(seed)
    rows = []
    for spec in MIRAGE_HEAVY + [_random_mirage(rng) for _ in range(n)]:
        norm = rules.normalize("mirage", spec)
        draws = _mirage_worst_roll(norm, seed)
        for cache in (mp._TURNS,):
            cache.clear()
        for fn in (mp._option, mp._table, mp._succ, mp._base_reroll, mp._rerolled):
            fn.cache_clear()
        t = time.process_time()
        r = rules.roll("mirage", norm, rules.ScriptedRng(draws))
        tab.answer("mirage", norm, ui_mirage.questions(norm, None, {}))
        tab.answer("mirage", norm, ui_mirage.questions(norm, r, {"selected": []}))
        ms = (time.process_time() - t) * 1000
        turn = mp._turn(norm)
        rows.append((ms, spec, turn.work, turn.exact, r["outcome"]))
    rows.sort(key=lambda row: -row[0])
    return rows


def print_mirage(rows: list, top: int = 10) -> None:
    ms = sorted(r[0] for r in rows)
    print(f"Mirage sweep: {len(rows)} specs, roll + advice + the tab's odds, CPU ms: "
          f"p50 {pct(ms, 0.5):.0f}, p95 {pct(ms, 0.95):.0f}, max {ms[-1]:.0f}")
    for t, spec, work, exact, outcome in rows[:top]:
        print(f"  {t:7.0f} ms  {'exact  ' if exact else 'sampled'}  states {work:>7}  {outcome:18s} {json.dumps(spec)}")
# --------------------------------------------------------------------------
# The sweep: random large specs per system, the slowest ten.

SWEEP_BUDGET = 0.5  # CPU seconds: roll + advise + the page's odds questions


def _pool(rnd, colours=("red", "green", "blue")) -> dict:
    """8 to 12 Milhamah dice over two or three colours (at most 4 a colour)."""
    while True:
        pool = {c: rnd.randint(0, 4) for c in colours}
        if 8 <= sum(pool.values()) <= 12:
            return pool


def _milhamah_spec(rnd) -> dict:
    from rules.milhamah import model as milhamah
    side = lambda: {"shoresh": "".join(rnd.sample(milhamah.LETTERS, rnd.randint(2, 4))), "pool": _pool(rnd),
                    "rerolls": rnd.randint(2, 12), "rounds": rnd.randint(1, 4), "cipher": rnd.randint(0, 2)}
    spec = {**side(), "difficulty": rnd.randint(1, 8), "reaction": rnd.random() < 0.2}
    if rnd.random() < 0.5 and not spec["reaction"]:
        spec["opponent"] = side()
    return spec


def _mirage_side(rnd) -> dict:
    return {"attribute": rnd.choice((8, 10, 12)), "skill": rnd.choice((0, 6, 8, 10, 12)),
            "gear": [rnd.choice((6, 8, 10, 12)) for _ in range(rnd.randint(0, 6))],
            "modifier": rnd.randint(-3, 3), "helpers": rnd.randint(0, 3)}


def _mirage_spec(rnd) -> dict:
    from rules.mirage import model as mirage
    spec = {**_mirage_side(rnd), "prayer_bonus": rnd.randint(0, 2), "difficulty": rnd.choice(list(mirage.DIFFICULTY))}
    if rnd.random() < 0.6:
        spec["opponent"] = _mirage_side(rnd)
    return spec


def _open_tale_spec(rnd) -> dict:
    from rules.open_tale import model as open_tale
    level = rnd.randint(5, 9)
    spec = {"level": level, "dice": list(rnd.choice(open_tale.valid_pairs(level))), "heroic": rnd.random() < 0.7,
            "modifiers": rnd.sample(list(open_tale.MODIFIERS) * 2, rnd.randint(0, 4)),
            "tie_break": rnd.choice(open_tale.TIE_BREAKS)}
    if rnd.random() < 0.7:
        spec["target"] = rnd.randint(10, 60)
    return spec


def _alkemy_side(rnd) -> dict:
    return {"characteristic": rnd.randint(0, 30), "bonus": rnd.randint(0, 10), "malus": rnd.randint(0, 10),
            "health": rnd.choice(("white", "yellow", "red"))}


def _alkemy_spec(rnd) -> dict:
    spec = {**_alkemy_side(rnd), "faces": rnd.choice(("plain", "by_health")), "max_rerolls": rnd.randint(0, 100)}
    if rnd.random() < 0.6:
        spec["opponent"] = _alkemy_side(rnd)
        if rnd.random() < 0.5:
            spec["opponent"]["characteristic"] = spec["characteristic"]
    else:
        spec["difficulty"] = rnd.randint(0, 45)
    return spec


def _jadeclaw_dice(rnd, most: int = 40) -> str:
    sizes = [rnd.choice((4, 6, 8, 10, 12)) for _ in range(rnd.randint(1, most))]
    counts = {s: sizes.count(s) for s in sorted(set(sizes), reverse=True)}
    return " & ".join(f"{k if k > 1 else ''}d{s}" for s, k in counts.items())


def _jadeclaw_spec(rnd) -> dict:
    from rules.jadeclaw import model as jadeclaw
    mods = lambda prefix: {prefix + "bonuses": rnd.randint(0, 20), prefix + "penalties": rnd.randint(0, 20),
                           prefix + "favored": rnd.random() < 0.5}
    spec = {"dice": _jadeclaw_dice(rnd), **mods(""), "limit": rnd.choice((None, 8, 10, 12))}
    if rnd.random() < 0.5:
        spec.update(kind="damage", soak=_jadeclaw_dice(rnd), damage_type=rnd.choice(("normal", "slaying", "enervated")),
                    **mods("soak_"), soak_limit=rnd.choice((None, 10, 12)))
    elif rnd.random() < 0.5:
        spec.update(opponent=_jadeclaw_dice(rnd), **mods("opponent_"))
    else:
        spec.update(difficulty=rnd.choice(list(jadeclaw.DIFFICULTIES)), **mods("opponent_"))
    return {k: v for k, v in spec.items() if v is not None}


SWEEP_SPECS = {"milhamah": _milhamah_spec, "open_tale": _open_tale_spec, "mirage": _mirage_spec,
               "alkemy": _alkemy_spec, "jadeclaw": _jadeclaw_spec}


def _forget_odds() -> None:
    """Empty every odds cache of the rules and the page (a cold question)."""
    for name, mod in list(sys.modules.items()):
        if not (name == "rules" or name.startswith("rules.")) or mod is None:
            continue
        for attr in dir(mod):
            obj = getattr(mod, attr)
            if attr.endswith("_CACHE") and isinstance(obj, dict):
                obj.clear()
            elif callable(getattr(obj, "cache_clear", None)) and getattr(obj, "__module__", "") == name:
                obj.cache_clear()


def sweep_one(system: str, ui, spec: dict, seed: int) -> tuple[float, dict]:
    """CPU seconds of one spec as the page asks it, cold: roll (seeded
    dice), advise, the tab's questions after the roll; and what it said."""
    import random

    from tabs import tab

    _forget_odds()
    t = time.process_time()
    norm = rules.normalize(system, spec)
    result = rules.roll(system, norm, random.Random(seed), advise=False)
    result.update(rules.advise(system, norm, result))
    answers = tab.answer(system, norm, ui.questions(norm, result, {"selected": []}))
    took = time.process_time() - t
    sampled = any(not a.get("exact", True) for a in answers.values() if isinstance(a, dict)) or \
        any(not c.get("exact", True) for c in result.get("choices") or [])
    return took, {"sampled": sampled, "errors": [a["error"] for a in answers.values() if "error" in a]}


def _hand_picked(system: str) -> list:
    """test_bounds.WORST's specs of ``system`` plus ``SWEEP_EXTRA``'s."""
    sys.path.insert(0, str(ROOT / "tests" / "rules"))
    from test_bounds import WORST

    return list(WORST.get(system, [])) + SWEEP_EXTRA.get(system, [])


#: Worst specs found by hand (the heaviest Mirage spec, Milhamah's worked figures) and while
#: sweeping, beside test_bounds.WORST.
SWEEP_EXTRA = {
    "mirage": [{"attribute": 12, "skill": 10, "gear": [12, 10, 8, 6, 12, 10], "prayer_bonus": 1,
                "opponent": {"attribute": 10, "skill": 12, "gear": [6, 8, 10, 12, 12, 6]}}],
    "open_tale": [{"level": 9, "dice": [12, 12], "heroic": True, "modifiers": ["superiority"], "tie_break": "target",
                   "target": 60}],
    "alkemy": [{"characteristic": 30, "bonus": 10, "max_rerolls": 100, "faces": "plain",
                "opponent": {"characteristic": 30, "bonus": 10}}],
    "jadeclaw": [{"kind": "damage", "dice": "20d12 & 20d10", "soak": "20d12 & 20d10", "favored": True,
                  "soak_favored": True, "damage_type": "slaying"}],
    "milhamah": [{"shoresh": "דצמש", "pool": {"red": 1, "blue": 3}, "rerolls": 3, "rounds": 3, "difficulty": 1},
                 {"shoresh": "רנג", "pool": {"red": 4, "green": 4, "blue": 1}, "rerolls": 12, "difficulty": 1,
                  "rounds": 1}],
}


def sweep(n: int, seed: int, systems) -> dict:
    """{system: [(cpu s, spec, note)...] slowest first}; prints the slowest ten."""
    import importlib
    import random

    out = {}
    for system in systems:
        ui = importlib.import_module("tabs.ui_" + system)
        rnd = random.Random(f"{seed}:{system}")
        rows, refused = [], 0
        for spec in _hand_picked(system):  # the worst specs built by hand (tests/rules/test_bounds.py)
            took, note = sweep_one(system, ui, spec, seed)
            rows.append((took, spec, {**note, "hand": True}))
        while len(rows) < n + len(_hand_picked(system)) and refused < 5 * n:
            spec = SWEEP_SPECS[system](rnd)
            try:
                rules.normalize(system, spec)
            except rules.SpecError:  # e.g. Bonuses past 40 dice: the form refuses it too, draw another
                refused += 1
                continue
            took, note = sweep_one(system, ui, spec, seed + len(rows))
            rows.append((took, spec, note))
        rows.sort(key=lambda r: -r[0])
        out[system] = rows
        ok = rows
        print(f"\n{system}: {len(ok)} specs ({refused} drawn and refused by the rules), slowest ten "
              f"(CPU s, roll + advise + the tab's odds questions; budget {SWEEP_BUDGET} s):")
        for took, spec, note in ok[:10]:
            flag = " OVER" if took > SWEEP_BUDGET else ""
            extra = " sampled" if note.get("sampled") else ""
            extra += " (by hand)" if note.get("hand") else ""
            extra += f" errors {note['errors']}" if note.get("errors") else ""
            print(f"  {took:6.3f}{flag}{extra}  {json.dumps(spec, ensure_ascii=False)}")
        sys.stdout.flush()
    return out


# ---------------------------------------------------------------- odds beside the page
# The heaviest specs of each system (``MIRAGE_HEAVY`` among them): typed and
# rolled with the odds beside the page, the main thread must stay free.
HEAVY = [
    ("mirage, mixed gear vs strong opponent", "mirage",
     {"attribute": 12, "skill": 10, "gear": [12, 10, 8, 6, 12, 10], "prayer_bonus": 1,
      "opponent": {"attribute": 10, "skill": 12, "gear": [6, 8, 10, 12, 12, 6]}}),
    ("mirage, mixed gear vs 10/12", "mirage",
     {"attribute": 12, "skill": 10, "gear": [12, 10, 8, 6, 12, 10], "prayer_bonus": 1,
      "opponent": {"attribute": 10, "skill": 12}}),
    ("mirage, mixed gear unopposed", "mirage",
     {"attribute": 12, "skill": 10, "gear": [12, 10, 8, 6, 12, 10], "prayer_bonus": 1}),
    ("mirage, 2d12 + six d12 each side", "mirage",
     {"attribute": 12, "skill": 12, "gear": [12] * 6, "prayer_bonus": 2,
      "opponent": {"attribute": 12, "skill": 12, "gear": [12] * 6}}),
    ("milhamah, 12 vs 12 dice, 2 rounds", "milhamah",
     {"pool": {"red": 4, "green": 4, "blue": 4}, "rounds": 2,
      "opponent": {"shoresh": "שלם", "pool": {"red": 4, "green": 4, "blue": 4}, "rounds": 2}}),
    ("milhamah, 12 dice, X 3, 2 rounds", "milhamah", {"pool": {"red": 4, "green": 4, "blue": 4}, "rounds": 2}),
    ("open_tale, level 9 heroic, 2d12 advantage", "open_tale",
     {"level": 9, "dice": [12, 12], "modifiers": ["advantage"], "heroic": True, "target": 12}),
    ("alkemy, opposed with bonus", "alkemy", {"characteristic": 3, "opponent": {"characteristic": 3, "bonus": 2}}),
    ("jadeclaw, 4d12 slaying vs 4d12 soak", "jadeclaw",
     {"kind": "damage", "dice": "4d12", "soak": "4d12", "damage_type": "slaying"}),
]

# Click a tab's Roll; resolves with [ms to the dice painted, ms to the odds
# of the new roll shown] (the panel answering its newest question).
CLICK_TO_ODDS = """
async ([system, timeout]) => {
  const tray = document.querySelector('#tray-' + system);
  const panel = document.querySelector('#odds-' + system);
  const button = document.querySelector('#form-' + system + ' [data-roll]');
  const before = tray.firstChild, asked = +(panel.dataset.oddsAsked || 0);
  const t0 = performance.now();
  let dice = null;
  const done = new Promise((resolve) => {
    const check = () => {
      if (dice === null && tray.querySelector('[data-die]') && tray.firstChild !== before) {
        requestAnimationFrame(() => setTimeout(() => { dice = performance.now() - t0; }, 0));
      }
      const shown = panel.dataset.oddsShown;
      if (dice !== null && +(panel.dataset.oddsAsked || 0) > asked && !panel.hasAttribute('aria-busy')
          && (shown === panel.dataset.oddsAsked || shown === 'here')) {
        resolve([dice, performance.now() - t0]);
        return;
      }
      if (performance.now() - t0 > timeout) { resolve([dice, null]); return; }
      setTimeout(check, 5);
    };
    check();
  });
  button.click();
  return await done;
}
"""

ODDS_IDLE = """(s) => { const p = document.querySelector('#odds-' + s);
  return p.dataset.oddsShown && !p.hasAttribute('aria-busy')
    && (p.dataset.oddsShown === p.dataset.oddsAsked || p.dataset.oddsShown === 'here'); }"""


def renderer_memory(browser_cdp) -> int:
    """The proportional set size of every renderer process (bytes, /proc)."""
    info = browser_cdp.send("SystemInfo.getProcessInfo")["processInfo"]
    total = 0
    for p in info:
        if p.get("type") != "renderer":
            continue
        try:
            for line in Path(f"/proc/{p['id']}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1]) * 1024
        except OSError:
            pass
    return total


def odds_figures(pw, base: str, reps: int, heavy_reps: int = 3, heavy_timeout_ms: int = 60_000) -> dict:
    """The heavy specs in the browser, odds in the Worker: per heavy spec, the
    longest main-thread task while typing and rolling it, click -> dice and
    click -> odds shown; per system's default roll, click -> odds shown."""
    from links import share

    out = {"heavy": {}, "default": {}}
    browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
    try:
        page = browser.new_page(viewport={"width": 1024, "height": 768})
        page.goto(base + "?bench=1")
        page.wait_for_selector("body[data-ready]", state="attached", timeout=120_000)
        page.wait_for_selector("body[data-odds^=worker]", state="attached", timeout=120_000)
        for system in rules.SYSTEMS:
            page.click(f"#tabbtn-{system}")
            page.wait_for_function(ODDS_IDLE, arg=system, timeout=120_000)
            got = [page.evaluate(CLICK_TO_ODDS, [system, 30_000]) for _ in range(reps)]
            out["default"][system] = {"dice": summary([d for d, _ in got if d is not None]),
                                      "odds": summary([o for _, o in got if o is not None])}
            print(f"default {system}: {out['default'][system]}", flush=True)
        for label, system, spec in HEAVY:
            page.goto("about:blank")
            page.goto(base + "?bench=1#" + share.encode_setup(system, spec).lstrip("#"))
            page.wait_for_selector("body[data-ready]", state="attached", timeout=120_000)
            page.wait_for_selector("body[data-odds^=worker]", state="attached", timeout=120_000)
            page.evaluate(LONGTASK_START)
            t0 = time.perf_counter()
            try:
                page.wait_for_function(ODDS_IDLE, arg=system, timeout=heavy_timeout_ms)
                first = (time.perf_counter() - t0) * 1000
            except Exception:  # noqa: BLE001 - reported as not shown in time
                first = None
            got = []
            if first is not None:  # else its rolls would wait as long again: reported as not shown
                # typing: one number field of the form that holds a number, up and down (an
                # empty one would read 0 after it: a different spec, maybe refused)
                page.evaluate("""(s) => { const f = [...document.querySelectorAll('#form-' + s + ' input[type=number]')]
                    .find(e => e.offsetParent && e.value !== ''); if (f) f.dataset.benchTyped = ''; }""", system)
                field = page.locator(f"#form-{system} input[data-bench-typed]").first
                field.click()
                field.press("ArrowUp")
                field.press("ArrowDown")
                got = [page.evaluate(CLICK_TO_ODDS, [system, heavy_timeout_ms]) for _ in range(heavy_reps)]
            longest = max(page.evaluate("window.__long") or [0])
            out["heavy"][label] = {"first_odds_ms": first, "longest_task_ms": longest,
                                   "dice": summary([d for d, _ in got if d is not None]),
                                   "odds": summary([o for _, o in got if o is not None]),
                                   "not_shown": sum(o is None for _, o in got)}
            print(f"heavy {label}: {out['heavy'][label]}", flush=True)
    finally:
        browser.close()
    return out


FIRST_ODDS_PROBE = """
(() => {
  new MutationObserver((list) => {
    for (const m of list) if (m.target.dataset && m.target.dataset.oddsShown && !window.__firstOddsAt)
      window.__firstOddsAt = performance.now();
  }).observe(document, {subtree: true, attributes: true, attributeFilter: ['data-odds-shown']});
})();
"""


def returning_first_odds(pw, url: str, runs: int) -> dict:
    """A returning player (snapshot stored): ready, then the first odds
    shown (ms from ready), the odds Worker's own start, and how each started."""
    profile = tempfile.mkdtemp(prefix="bench-profile-")
    ctx = launch(pw, profile)
    ctx.add_init_script(FIRST_ODDS_PROBE)
    out = {"ready": [], "odds_after_ready": [], "worker_start": [], "how": []}
    try:
        page = ctx.new_page()
        ready_at(page, url)
        wait_controlled(page)
        wait_snapshot(page)
        for _ in range(runs):
            ready, how = ready_at(page, url)
            page.wait_for_function("window.__firstOddsAt", timeout=60_000)
            out["ready"].append(ready)
            out["odds_after_ready"].append(page.evaluate("window.__firstOddsAt") - ready)
            out["worker_start"].append(int(page.get_attribute("body", "data-odds-start-ms") or 0))
            out["how"].append(f"{how}/{page.get_attribute('body', 'data-odds')}")
    finally:
        ctx.close()
        shutil.rmtree(profile, ignore_errors=True)
    return {k: (summary(v) if k != "how" else v) for k, v in out.items()}


def odds_memory(pw, base: str, returning: bool) -> dict:
    """The second interpreter's cost: the renderer processes' memory (PSS)
    with the Worker against ``?odds=page`` (no Worker), each in a fresh
    browser, once the first odds are shown; the Worker's own wasm memory;
    the page's JS heap and wasm memory. ``returning``: a profile on disk with
    the snapshot stored, so the Worker restores from it."""
    out = {}
    for mode in ("page", "worker"):
        # A browser of its own (its processes are the page's alone); an
        # in-memory context keeps a service worker and IndexedDB for the session.
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            ctx = browser.new_context(viewport={"width": 1024, "height": 768})
            ctx.add_init_script(READY_PROBE)
            page = ctx.new_page()
            url = base + ("?bench=1&odds=page" if mode == "page" else "?bench=1")
            if returning:
                ready_at(page, url)
                wait_controlled(page)
                wait_snapshot(page)
            ready_at(page, url)
            if mode == "worker":
                page.wait_for_selector("body[data-odds^=worker]", state="attached", timeout=120_000)
            page.wait_for_function(ODDS_IDLE, arg=rules.SYSTEMS[0], timeout=120_000)
            page.wait_for_timeout(2000)
            page.evaluate("() => window.gc && window.gc()")
            pss = renderer_memory(browser.new_browser_cdp_session())
            out[mode] = {"pss": pss, "js_heap": page.evaluate("performance.memory.usedJSHeapSize"),
                         "page_wasm": page.evaluate("window.diceBenchWasm()"),
                         "worker_wasm": int(page.get_attribute("body", "data-odds-wasm") or 0),
                         "how": f"{page.get_attribute('body', 'data-start')}/{page.get_attribute('body', 'data-odds')}"}
        finally:
            browser.close()
    return out


def strict_cold(pw, url: str, selector: str) -> float:
    """The strict method: a fresh on-disk profile and a new browser per
    visit, the clock started before the navigation (wall time, from Python)
    and stopped when the Roll button is enabled."""
    profile = tempfile.mkdtemp(prefix="bench-profile-")
    ctx = pw.chromium.launch_persistent_context(profile, executable_path=CHROMIUM, args=ARGS,
                                                viewport={"width": 1024, "height": 768})
    try:
        page = ctx.pages[0] if ctx.pages else ctx.new_page()
        t0 = time.perf_counter()
        page.goto(url)
        page.wait_for_selector(selector, state="attached", timeout=120_000)
        return (time.perf_counter() - t0) * 1000
    finally:
        ctx.close()
        shutil.rmtree(profile, ignore_errors=True)


TABLE_ARGS = ["--allow-loopback-in-peer-connection", "--disable-features=WebRtcHideLocalIpsWithMdns"]


def _table_join(tablet, phone, link, name):
    """One join by links (two scans at a real table); (phone: link ->
    answer code, tablet: answer -> seated and open) in ms."""
    t0 = time.perf_counter()
    phone.evaluate("() => { const e = document.querySelector('[data-table-answer]');"
                   " if (e) e.removeAttribute('data-link'); }")
    phone.evaluate("(u) => { location.hash = u.split('#')[1]; }", link)
    phone.wait_for_selector("[data-table-answer][data-link]", state="attached", timeout=60_000)
    t1 = time.perf_counter()
    answer = phone.get_attribute("[data-table-answer]", "data-link")
    if not tablet.locator("#table-dialog[open]").count():
        tablet.click("[data-table-open]")
    tablet.fill("[data-table-paste]", answer)
    t2 = time.perf_counter()
    tablet.press("[data-table-paste]", "Enter")
    tablet.wait_for_selector(f'[data-table-peer="{name}"][data-status="open"]', state="attached", timeout=60_000)
    t3 = time.perf_counter()
    return (t1 - t0) * 1000, (t3 - t2) * 1000, answer


def _offer(tablet, old=None):
    tablet.wait_for_function("(old) => { const e = document.querySelector('[data-table-offer][data-link]');"
                             " return e && e.dataset.link !== old; }", arg=old, timeout=60_000)
    return tablet.get_attribute("[data-table-offer]", "data-link")


def _table_sizes(links):
    """Characters and QR versions (error correction M) of the join links,
    and each game's default roll as a message over the channel."""
    import segno

    from table import livetable as lt

    out = {k: {"chars": len(v), "qr_version": segno.make(v, error="m", micro=False).version}
           for k, v in links.items()}
    rand = random.Random(1).randbytes
    host = lt.new_host("The GM", rand)
    host, meta = lt.next_offer_meta(host)
    phone = lt.new_player({"meta": meta}, "Dana", "A" * 12, "00" * 32)
    phone = lt.player_link(phone, "11" * 32, "22" * 32)
    phone = {**phone, "seated": True, "links": [{**phone["links"][0], "state": "ok", "device": "host"}]}
    for system in rules.SYSTEMS:
        phone, _e = lt.own_entry(phone, rules.roll(system, dict(rules.MODULES[system].DEFAULT_SPEC)), "", 0, rand)
        phone, texts, _ = lt.pump(phone, "host", 0)
        out[f"roll message, {system}"] = {"chars": len(texts[-1])}
        phone = {**phone, "seats": [{**phone["seats"][0], "out": []}],
                 "links": [{**phone["links"][0], "sent": 0, "base": phone["links"][0]["base"] + 1}]}
    return out


#: Phones at the benchmark's table.
TABLE_PHONES = 4
#: The burst: rolls on one phone as fast as the page takes them.
TABLE_BURST = 35


def _page(browser, base, size, name):
    ctx = browser.new_context(viewport={"width": size[0], "height": size[1]})
    ctx.add_init_script(f"localStorage.setItem('dice-table/roller', {json.dumps(name)})")
    page = ctx.new_page()
    page.on("dialog", lambda d: d.accept())  # leaving a live table asks first
    page.goto(base)
    page.wait_for_selector("body[data-ready]", state="attached", timeout=120_000)
    return page


def _logged(tablet, by):
    return tablet.evaluate(f"() => document.querySelectorAll('#table-log [data-table-entry][data-by=\"{by}\"]').length")


def bench_table(runs, rolls):
    """Per run: a tablet (1024×768) and TABLE_PHONES phones (390×844), each
    its own context of one Chromium, join by links. Then ``rolls`` Jadeclaw
    rolls on each phone in turn, each timed from the click (in the phone's
    page) to its entry in the tablet's feed beside the tab (a
    MutationObserver there; one machine clock); a burst of TABLE_BURST
    rolls on one phone, timed from its first click until the tablet's log
    holds them all; and a reload of the tablet, timed until every phone
    sits again: the first phone with its two scans (it reads the tablet's
    new code, the tablet reads its answer), the others through its
    channels to them (a phone that is not back after 60 s would scan too:
    the scans are counted)."""
    joins, opens, lags, bursts, reloads, links, scans, passed = [], [], [], [], [], {}, [], []
    names = [f"P{i + 1}" for i in range(TABLE_PHONES)]
    with sync_playwright() as pw:
        httpd, base = serve(ROOT)
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS + TABLE_ARGS)
        for _ in range(runs):
            tablet = _page(browser, base, (1024, 768), "The GM")
            phones = [_page(browser, base, (390, 844), n) for n in names]
            tablet.click("[data-table-open]")
            tablet.click("#table-start")
            link = links["offer"] = _offer(tablet)
            for name, phone in zip(names, phones):
                a, b, links["answer"] = _table_join(tablet, phone, link, name)
                joins.append(a)
                opens.append(b)
                link = _offer(tablet, link)
            tablet.click("#table-close")
            tablet.evaluate("""() => { window.benchSeen = [];
                new MutationObserver(() => { const e = document.querySelector('#table-feed-list [data-table-entry]');
                    window.benchSeen.push([Date.now(), e ? e.dataset.by : '']); })
                  .observe(document.querySelector('#table-feed-list'), {childList: true}); }""")
            for phone in phones:
                phone.evaluate("() => document.querySelector('#table-dialog').close()")
                phone.click("#tabbtn-jadeclaw")
            for i in range(rolls):
                for name, phone in zip(names, phones):
                    seen = tablet.evaluate("() => window.benchSeen.length")
                    t = phone.evaluate("() => { const t = Date.now(); "
                                       "document.querySelector('#form-jadeclaw [data-roll]').click(); return t; }")
                    tablet.wait_for_function(f"() => window.benchSeen.slice({seen}).some(x => x[1] === '{name}')",
                                             timeout=20_000)
                    lags.append(tablet.evaluate(f"() => window.benchSeen.slice({seen}).find(x => x[1] === '{name}')[0]") - t)
            before = _logged(tablet, names[0])
            t0 = time.perf_counter()
            phones[0].evaluate(f"() => {{ for (let i = 0; i < {TABLE_BURST}; i++) "
                               "document.querySelector('#form-jadeclaw [data-roll]').click(); }")
            tablet.wait_for_function(f"() => document.querySelectorAll('#table-log [data-table-entry][data-by=\"{names[0]}\"]')"
                                     f".length >= {before + TABLE_BURST}", timeout=120_000)
            bursts.append((time.perf_counter() - t0) * 1000)
            for name, phone in zip(names, phones):  # the phones' channels to each other stand
                phone.wait_for_function(f"(ns) => ns.every(n => n === '{name}' || window.diceRtc.isOpen('p:' + n))",
                                        arg=names, timeout=60_000)
            t0 = time.perf_counter()
            tablet.reload()
            tablet.wait_for_selector("body[data-ready]", state="attached", timeout=120_000)
            tablet.click("[data-table-open]")
            link = _offer(tablet)
            _table_join(tablet, phones[0], link, names[0])
            t1, used = time.perf_counter(), 2
            for name, phone in zip(names[1:], phones[1:]):
                try:
                    tablet.wait_for_selector(f'[data-table-peer="{name}"][data-status="open"]', state="attached",
                                             timeout=60_000)
                except Exception:  # not back through the first phone: it scans
                    link = _offer(tablet, link)
                    _table_join(tablet, phone, link, name)
                    used += 2
            reloads.append((time.perf_counter() - t0) * 1000)
            passed.append((time.perf_counter() - t1) * 1000)
            scans.append(used)
            for page in [tablet] + phones:
                page.context.close()
        browser.close()
        httpd.shutdown()
    return {"runs": runs, "rolls": rolls, "phones": TABLE_PHONES, "join_phone_ms": joins, "join_open_ms": opens,
            "roll_to_feed_ms": lags, "burst_ms": bursts, "burst": TABLE_BURST, "reload_ms": reloads,
            "reload_passed_ms": passed, "reload_scans": scans, "sizes": _table_sizes(links),
            "load_average": os.getloadavg()}


# ---------------------------------------------------------------- a long evening

#: Records when the history was last written to localStorage (the page
#: writes it just after the paint of each roll).
STORED_PROBE = """(() => {
  const set = Storage.prototype.setItem;
  window.__storedAt = 0;
  Storage.prototype.setItem = function (k, v) {
    const out = set.call(this, k, v);
    if (k === 'dice-table/history') window.__storedAt = performance.now();
    return out;
  };
})();"""

# One roll, as a player at the table makes it: the click, the dice painted,
# then the roll stored. Returns [ms to the dice painted, ms until both the
# dice are painted and the history is stored].
ROLL_CYCLE = "async (system) => {" + _CLICK_AND_PAINT + """
  const dice = await painted;
  await new Promise((resolve) => {
    const check = () => (window.__storedAt > t0 ? resolve() : setTimeout(check, 1));
    check();
  });
  return [dice, Math.max(dice, window.__storedAt - t0)];
}
"""

EVENING_MARKS = (50, 100, 200, 400, 600)


def renderer_private(browser_cdp) -> int:
    """The private memory (USS: Private_Clean + Private_Dirty, /proc) of
    every renderer process: unlike PSS, it does not move when other
    programs on the machine map the same libraries."""
    total = 0
    for p in browser_cdp.send("SystemInfo.getProcessInfo")["processInfo"]:
        if p.get("type") != "renderer":
            continue
        try:
            for line in Path(f"/proc/{p['id']}/smaps_rollup").read_text().splitlines():
                if line.startswith(("Private_Clean:", "Private_Dirty:")):
                    total += int(line.split()[1]) * 1024
        except OSError:
            pass
    return total


def evening_run(pw, rolls: int, window: int, system: str, base: str) -> dict:
    """One page, ``rolls`` rolls in a row; each roll's wall time (click ->
    dice painted, click -> history stored) and the main thread's CPU time
    for it (CDP ``Performance`` ThreadTime: what the page costs, whatever
    else the machine is doing); the figures at each mark."""
    browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
    try:
        return _evening(browser, rolls, window, system, base)
    finally:
        browser.close()


def _evening(browser, rolls: int, window: int, system: str, base: str) -> dict:
    cdp = browser.new_browser_cdp_session()
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.add_init_script(STORED_PROBE)
    page.goto(base + "?bench=1")
    page.wait_for_selector("body[data-ready]", state="attached", timeout=120_000)
    metrics = page.context.new_cdp_session(page)
    metrics.send("Performance.enable")

    def cpu():
        return next(m["value"] for m in metrics.send("Performance.getMetrics")["metrics"] if m["name"] == "ThreadTime")

    # Rolls 50 and 600 of an evening come long after the start: the page's
    # background work (the service worker's precache, the start-up snapshot
    # made in a Worker) is done first, as it is then.
    snapshot = wait_snapshot(page)
    page.click(f"#tabbtn-{system}")
    page.wait_for_timeout(1000)  # the first odds and the reference tables
    dice, stored, busy, marks = [], [], [], {}
    for n in range(1, rolls + 1):
        t = cpu()
        a, b = page.evaluate(ROLL_CYCLE, system)
        busy.append((cpu() - t) * 1000)
        dice.append(a)
        stored.append(b)
        if n in EVENING_MARKS or n == rolls:
            page.evaluate("() => window.gc && window.gc()")
            heap, wasm = page.evaluate("() => [performance.memory.usedJSHeapSize, window.diceBenchWasm()]")
            marks[n] = {"dice_ms": statistics.median(dice[-window:]), "stored_ms": statistics.median(stored[-window:]),
                        "cpu_ms": statistics.median(busy[-window:]), "renderer_pss": renderer_memory(cdp),
                        "renderer_private": renderer_private(cdp), "js_heap": heap, "wasm": wasm,
                        "drawn": page.locator("#history-list [data-history-entry]").count()}
    return {"marks": marks, "dice_ms": dice, "stored_ms": stored, "cpu_ms": busy, "snapshot": snapshot}


def bench_evening(rolls: int = 600, runs: int = 3, window: int = 20, system: str = "jadeclaw") -> dict:
    """``runs`` long evenings (``evening_run``), the history beside the page
    at 1280 x 800; per mark, the median over the runs of each figure."""
    out = {"rolls": rolls, "runs": runs, "window": window, "system": system, "load_average_start": os.getloadavg(),
           "when": time.strftime("%Y-%m-%d %H:%M:%S"), "each": []}
    with sync_playwright() as pw:
        httpd, base = serve(SITE)
        for i in range(runs):
            for attempt in (1, 2):  # on this shared machine a renderer is now and then killed: run it again
                try:
                    out["each"].append(evening_run(pw, rolls, window, system, base))
                    break
                except PlaywrightError as e:
                    print(f"  run {i + 1}: {str(e).splitlines()[0]}" + ("; again" if attempt == 1 else ""))
                    if attempt == 2:
                        raise
            m = out["each"][-1]["marks"]
            print(f"  run {i + 1}: CPU per roll at {min(m)} / {max(m)}: {m[min(m)]['cpu_ms']:.1f} / "
                  f"{m[max(m)]['cpu_ms']:.1f} ms, load average {os.getloadavg()[0]:.1f}", flush=True)
        httpd.shutdown()
    out["load_average_end"] = os.getloadavg()
    out["marks"] = {n: {k: statistics.median(r["marks"][n][k] for r in out["each"]) for k in out["each"][0]["marks"][n]}
                    for n in out["each"][0]["marks"]}
    return out


def print_evening(r: dict) -> None:
    la, lb = r["load_average_start"], r["load_average_end"]
    print(f"a long evening: {r['runs']} x {r['rolls']} {r['system']} rolls in one page; medians of the "
          f"{r['window']} rolls before each mark, median over the runs; load average {la[0]:.1f} -> {lb[0]:.1f}")
    print("  roll   click->dice  ->and stored  main-thread CPU   renderer PSS / private   JS heap   wasm   drawn")
    for n, m in sorted(r["marks"].items()):
        print(f"  {n:4d}   {m['dice_ms']:7.1f} ms   {m['stored_ms']:7.1f} ms   {m['cpu_ms']:9.1f} ms"
              f"      {m['renderer_pss'] / 2**20:6.0f} / {m['renderer_private'] / 2**20:4.0f} MB"
              f"   {m['js_heap'] / 2**20:5.1f} MB   {m['wasm'] / 2**20:4.0f} MB   {m['drawn']:.0f}")
    first, last = r["marks"][min(r["marks"])], r["marks"][max(r["marks"])]
    print("  last / first: " + ", ".join(f"{k} {last[k] / first[k]:.2f}x" for k in ("dice_ms", "stored_ms", "cpu_ms"))
          + " (goal <= 1.2x)")
    for k in ("renderer_pss", "renderer_private"):
        after = [m[k] for n, m in r["marks"].items() if n >= 100] or [last[k]]
        print(f"  {k} from roll 100 on: {min(after) / 2**20:.0f} - {max(after) / 2**20:.0f} MB "
              f"(spread {(max(after) - min(after)) / 2**20:.0f} MB; goal <= 50 MB)")


def print_table(r):
    def p(xs, q):
        xs = sorted(xs)
        return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]

    print(f"live table, {r['runs']} run(s), {r['phones']} phones, {r['runs'] * r['rolls'] * r['phones']} rolls, "
          f"load {r['load_average'][0]:.1f}")
    for key, what in (("join_phone_ms", "phone: join link opened -> answer code ready"),
                      ("join_open_ms", "tablet: answer pasted -> seated, channel open"),
                      ("roll_to_feed_ms", f"roll on a phone -> entry in the tablet's feed ({r['phones']} phones)"),
                      ("burst_ms", f"a burst of {r['burst']} rolls on one phone -> all in the tablet's log"),
                      ("reload_ms", f"the tablet reloads -> all {r['phones']} phones seated again "
                                    f"(scans: {', '.join(map(str, r['reload_scans']))})"),
                      ("reload_passed_ms", f"the first phone seated again -> the other {r['phones'] - 1} "
                                           "back through it")):
        print(f"  {what}: p50 {p(r[key], 0.5):.0f} ms, p95 {p(r[key], 0.95):.0f} ms, max {max(r[key]):.0f} ms")
    for k, v in r["sizes"].items():
        print(f"  {k}: {v['chars']} characters" + (f", QR version {v['qr_version']}" if "qr_version" in v else ""))


def main():
    global SITE, SKIP_COLD
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--clicks", type=int, default=20)
    ap.add_argument("--out", default=str(ROOT / ".bench" / "results.json"))
    ap.add_argument("--milhamah-odds", action="store_true",
                    help="only Milhamah's odds budget (uncached odds, browser and CPython)")
    ap.add_argument("--mirage-sweep", action="store_true",
                    help="only Mirage's work bound: random large specs in CPython, the slowest ten")
    ap.add_argument("--milhamah-cpu", action="store_true",
                    help="only Milhamah's heaviest odds questions: state count and CPython CPU")
    ap.add_argument("--sweep", action="store_true",
                    help="only the CPython sweep of random large specs per system")
    ap.add_argument("--sweep-n", type=int, default=40, help="specs per system in the sweep")
    ap.add_argument("--seed", type=int, default=26, help="the sweep's seed")
    ap.add_argument("--systems", default=",".join(rules.SYSTEMS), help="the sweep's systems, comma-separated")
    ap.add_argument("--skip-cold", action="store_true", help="with --odds: not the strict cold start")
    ap.add_argument("--odds", action="store_true",
                    help="only the odds beside the page, their memory, the strict cold start")
    ap.add_argument("--table", action="store_true",
                    help="only the live table: join time, roll -> the tablet's feed with 4 phones, a burst of 35, "
                         "what a tablet reload costs, message and QR code sizes (written to table.json)")
    ap.add_argument("--evening", action="store_true",
                    help="only a long evening: 600 rolls in one page, time per roll and renderer memory")
    ap.add_argument("--evening-rolls", type=int, default=600)
    ap.add_argument("--evening-runs", type=int, default=3)
    ap.add_argument("--floor", action="store_true",
                    help="only the figures against the floor: first-visit bytes with the precache, cold start"
                         " (--runs alternating pairs, at least 7), returning after a browser restart, click -> dice"
                         " on every heavy spec (--clicks each)")
    ap.add_argument("--whole-stdlib", action="store_true",
                    help="measure the app with Pyodide's whole python_stdlib.zip instead of its own (static/stdlib.zip)")
    a = ap.parse_args()
    if a.evening:
        SITE = snapshot_site()
        out = bench_evening(a.evening_rolls, a.evening_runs)
        print_evening(out)
        Path(a.out).parent.mkdir(parents=True, exist_ok=True)
        Path(a.out).with_name("evening.json").write_text(json.dumps(out, indent=1))
        return
    if a.table:
        result = bench_table(a.runs, a.clicks)
        print_table(result)
        Path(a.out).parent.mkdir(parents=True, exist_ok=True)
        Path(a.out).with_name("table.json").write_text(json.dumps(result, indent=1))
        return
    if a.mirage_sweep:
        print_mirage(mirage_sweep())
        return
    if a.milhamah_cpu:
        print_milhamah_heavy(milhamah_heavy_cpu())
        return
    if a.sweep:
        sweep(a.sweep_n, a.seed, [s for s in a.systems.split(",") if s])
        return
    SITE = snapshot_site(whole_stdlib=a.whole_stdlib)
    SKIP_COLD = a.skip_cold
    if a.floor:
        with sync_playwright() as pw:
            out = against_floor(pw, a.runs, a.clicks)
        out["whole_stdlib"] = a.whole_stdlib
        Path(a.out).parent.mkdir(parents=True, exist_ok=True)
        Path(a.out).with_name("floor.json").write_text(json.dumps(out, indent=1))
        return
    if a.odds:
        with sync_playwright() as pw:
            out = odds_beside_page(pw, a.runs, a.clicks)
        Path(a.out).parent.mkdir(parents=True, exist_ok=True)
        Path(a.out).with_name("odds.json").write_text(json.dumps(out, indent=1))
        return
    if a.milhamah_odds:
        with sync_playwright() as pw:
            httpd, base = serve(SITE)
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page(viewport={"width": 1024, "height": 768})
            page.goto(base + "?bench=1")
            page.wait_for_selector("body[data-ready]", state="attached", timeout=120_000)
            print_milhamah(milhamah_odds_cold(page))
            browser.close()
            print_milhamah_heavy(milhamah_heavy_cpu())
            httpd.shutdown()
        return

    out: dict = {"runs": a.runs, "when": time.strftime("%Y-%m-%d %H:%M:%S"), "load": {}, "bytes": {},
                 "load_average_start": os.getloadavg()}
    modes = ("cold", "warm", "offline", "fallback", "returning")
    times = {k: {m: [] for m in modes} for k in ("app", "floor")}
    starts = {m: [] for m in modes}
    made = []
    bytes_seen = {}
    with sync_playwright() as pw:
        for run in range(a.runs):
            for kind in (("app", "floor") if run % 2 == 0 else ("floor", "app")):
                httpd, base = serve(SITE)
                url = base if kind == "app" else base + "tests/floor/index.html"
                r = load_times(pw, url, kind, server_stop=lambda: (httpd.shutdown(), httpd.server_close()))
                for m in modes:
                    if r.get(m) is not None:
                        times[kind][m].append(r[m])
                        if kind == "app":
                            starts[m].append(r[m + "_start"])
                if r.get("snapshot"):
                    made.append(r["snapshot"])
                if run == 0:
                    fetched = r["fetched"]
                    raw = sum(f[1] for f in fetched)
                    gz = sum(gzip_size(f[0], base) for f in fetched)
                    bytes_seen[kind] = {"raw": raw, "gzip9": gz, "requests": len(fetched)}
                print(f"run {run + 1}/{a.runs} {kind:5s} " + "  ".join(
                    f"{m} {r[m]:6.0f}" + (f" ({r[m + '_start']})" if kind == "app" else "")
                    for m in modes if r.get(m) is not None), flush=True)
                if r.get("snapshot"):
                    print(f"  snapshot: {r['snapshot']}", flush=True)

        # The precache must not download Pyodide a second time: the bytes a
        # first visit costs with the worker against without it.
        sw_bytes = {}
        for kind in ("app", "floor"):
            sw_bytes[kind] = {"without_sw": first_visit_bytes(pw, kind, False),
                              "with_sw": first_visit_bytes(pw, kind, True)}
            print(f"first visit {kind}: {sw_bytes[kind]}", flush=True)

        # Click → dice drawn, odds in the browser, memory: one app page.
        httpd, base = serve(SITE)
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1024, "height": 768})
        page.goto(base + "?bench=1")
        page.wait_for_selector("body[data-ready]", state="attached", timeout=120_000)
        clicks, odds_browser, odds_cpython = {}, {}, {}
        # The same roll with an empty history and (below) with a full one: the
        # cost a roll should not have to pay for the history's size.
        page.click("#tabbtn-jadeclaw")
        click_history = {"empty": summary([page.evaluate(CLICK_TO_DICE, "jadeclaw") for _ in range(10)])}
        for system in rules.SYSTEMS:
            page.click(f"#tabbtn-{system}")
            ms = [page.evaluate(CLICK_TO_DICE, system) for _ in range(a.clicks)]
            clicks[system] = summary(ms)
            b, c = [], []
            for spec in ODDS_GRID.get(system, [{}]):
                try:
                    norm = rules.normalize(system, spec)
                except rules.SpecError:
                    continue
                for _ in range(3):
                    t = time.perf_counter()
                    rules.odds(system, norm)
                    c.append((time.perf_counter() - t) * 1000)
                    b.append(page.evaluate("([s, j]) => window.diceBenchOdds(s, j)", [system, json.dumps(norm)]))
            odds_browser[system] = summary(b)
            odds_cpython[system] = summary(c)
        milhamah_cold = milhamah_odds_cold(page)

        def memory():
            page.evaluate("() => window.gc && window.gc()")
            return page.evaluate("() => [performance.memory.usedJSHeapSize, window.diceBenchWasm()]")

        long_tasks = tap_and_type(page)
        page.reload()
        page.wait_for_selector("body[data-ready]", state="attached", timeout=120_000)
        page.click("#tabbtn-jadeclaw")
        for _ in range(10):
            page.evaluate(CLICK_TO_DICE, "jadeclaw")
        mem10 = memory()
        for _ in range(490):
            page.evaluate(CLICK_TO_DICE, "jadeclaw")
        mem500 = memory()
        click_history["full"] = summary([page.evaluate(CLICK_TO_DICE, "jadeclaw") for _ in range(a.clicks)])
        browser.close()
        httpd.shutdown()

    for kind in times:
        out["load"][kind] = {k: summary(v) for k, v in times[kind].items() if v}
    out["app_start_path"] = starts
    out["snapshot_made"] = made
    out["load_average"] = os.getloadavg()
    out["bytes"] = bytes_seen
    out["first_visit_server_bytes"] = sw_bytes
    out["long_tasks_ms"] = {"count": len(long_tasks), "over_200": sum(t > 200 for t in long_tasks),
                            "max": max(long_tasks, default=0), "all": long_tasks}
    out["click_to_dice_ms"] = clicks
    out["click_to_dice_ms_by_history"] = click_history
    out["odds_ms_browser"] = odds_browser
    out["odds_ms_cpython"] = odds_cpython
    out["milhamah_odds_uncached_ms"] = milhamah_cold
    out["milhamah_heavy_cpu_ms"] = milhamah_heavy = milhamah_heavy_cpu()
    out["memory"] = {"after_10": {"js_heap": mem10[0], "wasm": mem10[1]},
                     "after_500": {"js_heap": mem500[0], "wasm": mem500[1]}}

    def row(label, app, floor=None, unit="ms"):
        ratio = f"{app / floor:5.2f}×" if app and floor else ""
        fl = f"{floor:9.0f}" if floor is not None else " " * 9
        print(f"{label:38s} {app:9.0f} {fl} {unit:3s} {ratio}")

    print("\n" + "=" * 72)
    print(f"{'measure':38s} {'app':>9s} {'floor':>9s}")
    labels = {"cold": "cold", "warm": "repeat, SW + server", "offline": "SW, server stopped",
              "fallback": "no snapshot, SW, no server", "returning": "returning, new browser, no server"}
    for mode in modes:
        ap_ = out["load"]["app"].get(mode)
        # The app without its snapshot is held against the floor's warm start too.
        fl_ = out["load"]["floor"].get("offline" if mode == "fallback" else mode)
        if ap_:
            row(f"ready, {labels[mode]} (p50)", ap_["p50"], fl_["p50"] if fl_ else None)
            row(f"ready, {labels[mode]} (p95)", ap_["p95"], fl_["p95"] if fl_ else None)
    for mode in modes:
        print(f"{'app started from, ' + mode:38s} {', '.join(str(x) for x in starts[mode])}")
    if made:
        ok = [m for m in made if m["answer"] and m["answer"].get("ok")]
        if ok:
            med = lambda xs: statistics.median(xs)  # noqa: E731
            print(f"{'snapshot made, worker time (p50)':38s} {med([m['answer']['makeMs'] for m in ok]):9.0f} ms"
                  f"  (wall {med([m['wall'] for m in ok]):.0f} ms)")
            print(f"{'snapshot size, raw / stored':38s} {ok[0]['answer']['raw'] / 1e6:9.1f} / "
                  f"{med([m['answer']['stored'] for m in ok]) / 1e6:.1f} MB")
        print(f"{'longest main-thread task while making':38s} {max(m['longest'] for m in made):9.0f} ms"
              f"  (long tasks: {sum(m['long_tasks'] for m in made)} in {len(made)} makings;"
              f" states {', '.join(m['state'] for m in made)})")
    print(f"{'load average (1, 5, 15 min), start / end':38s} "
          f"{' '.join(f'{x:.2f}' for x in out['load_average_start'])} / "
          f"{' '.join(f'{x:.2f}' for x in out['load_average'])}")
    row("bytes, first visit (raw)", bytes_seen["app"]["raw"] / 1e3, bytes_seen["floor"]["raw"] / 1e3, "kB")
    row("bytes, first visit (gzip -9)", bytes_seen["app"]["gzip9"] / 1e3, bytes_seen["floor"]["gzip9"] / 1e3, "kB")
    for kind in ("app", "floor"):
        v = sw_bytes[kind]
        print(f"{'server bytes, first visit, ' + kind:38s} without SW {v['without_sw'] / 1e3:8.0f} kB"
              f"  with SW (precache done) {v['with_sw'] / 1e3:8.0f} kB")
    lt = out["long_tasks_ms"]
    print(f"{'long tasks tapping/typing (>50 ms)':38s} {lt['count']:4d}, over 200 ms: {lt['over_200']},"
          f" longest {lt['max']:.0f} ms")
    for s, v in clicks.items():
        print(f"{'click → dice drawn, ' + s:38s} p50 {v['p50']:6.1f}  p95 {v['p95']:6.1f} ms")
    for k, v in click_history.items():
        print(f"{'click → dice, jadeclaw, history ' + k:38s} p50 {v['p50']:6.1f}  p95 {v['p95']:6.1f} ms")
    for s in odds_browser:
        b, c = odds_browser[s], odds_cpython[s]
        if b["n"]:
            print(f"{'odds, ' + s:38s} browser p50 {b['p50']:6.1f} p95 {b['p95']:6.1f} max {b['max']:6.1f}"
                  f" | CPython p50 {c['p50']:5.1f} p95 {c['p95']:5.1f} max {c['max']:5.1f} ms")
    print_milhamah(milhamah_cold)
    print_milhamah_heavy(milhamah_heavy)
    m = out["memory"]
    print(f"{'JS heap after 10 / 500 rolls':38s} {m['after_10']['js_heap'] / 1e6:8.1f} / {m['after_500']['js_heap'] / 1e6:.1f} MB"
          f"  ({m['after_500']['js_heap'] / m['after_10']['js_heap']:.2f}×)")
    print(f"{'wasm memory after 10 / 500 rolls':38s} {m['after_10']['wasm'] / 1e6:8.1f} / {m['after_500']['wasm'] / 1e6:.1f} MB"
          f"  ({m['after_500']['wasm'] / m['after_10']['wasm']:.2f}×)")
    with sync_playwright() as pw:
        out["odds_beside_page"] = odds_beside_page(pw, a.runs, a.clicks)
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(out, indent=1))
    print(f"\nwrote {a.out}")


def odds_beside_page(pw, runs: int, clicks: int) -> dict:
    """Odds beside the page and the strict cold start; prints its figures."""
    out: dict = {"load_average_start": os.getloadavg()}
    cold = {"app": [], "floor": []}
    for run in range(runs if not SKIP_COLD else 0):
        for kind in (("app", "floor") if run % 2 == 0 else ("floor", "app")):
            httpd, base = serve(SITE)
            url = base if kind == "app" else base + "tests/floor/index.html"
            sel = "[data-roll]:not([disabled])" if kind == "app" else "body[data-ready]"
            cold[kind].append(strict_cold(pw, url, sel))
            httpd.shutdown()
        print(f"strict cold run {run + 1}: app {cold['app'][-1]:.0f}  floor {cold['floor'][-1]:.0f} ms", flush=True)
    out["strict_cold"] = {k: summary(v) for k, v in cold.items()}
    out["first_visit_server"] = {}
    for kind in ("app", "floor") if not SKIP_COLD else ():
        sent = first_visit_bytes(pw, kind, False)
        out["first_visit_server"][kind] = {"bytes": sent, "requests": first_visit_bytes.requests}
    print(f"first visit at the server: {out['first_visit_server']}", flush=True)
    httpd, base = serve(SITE)
    try:
        out["odds"] = odds_figures(pw, base, max(5, clicks // 2))
        out["returning_first_odds"] = returning_first_odds(pw, base, max(3, runs))
        out["memory_first_visit"] = odds_memory(pw, base, returning=False)
        out["memory_returning"] = odds_memory(pw, base, returning=True)
    finally:
        httpd.shutdown()
    out["load_average_end"] = os.getloadavg()
    c = out["strict_cold"]
    print("\n" + "=" * 72)
    print(f"{'strict cold (new browser, fresh profile, wall to Roll enabled)':60s}")
    if not SKIP_COLD:
        print(f"  p50 app {c['app']['p50']:.0f} / floor {c['floor']['p50']:.0f} ms = {c['app']['p50'] / c['floor']['p50']:.2f}×;"
              f"  p95 {c['app']['p95']:.0f} / {c['floor']['p95']:.0f} = {c['app']['p95'] / c['floor']['p95']:.2f}×")
    fv = out["first_visit_server"]
    if fv:
        print(f"  first visit at the server (no SW): app {fv['app']['bytes'] / 1e3:.0f} kB in {fv['app']['requests']} requests,"
              f" floor {fv['floor']['bytes'] / 1e3:.0f} kB in {fv['floor']['requests']}:"
              f" +{(fv['app']['bytes'] - fv['floor']['bytes']) / 1e3:.0f} kB")
    for system, v in out["odds"]["default"].items():
        print(f"  default {system:10s} click→dice p50 {v['dice']['p50']:6.1f} p95 {v['dice']['p95']:6.1f}"
              f" | click→odds p50 {v['odds'].get('p50') or 0:6.0f} p95 {v['odds'].get('p95') or 0:6.0f} ms")
    for label, v in out["odds"]["heavy"].items():
        print(f"  {label:42s} longest task {v['longest_task_ms']:5.0f} ms | click→dice p50 {v['dice'].get('p50') or 0:6.1f}"
              f" p95 {v['dice'].get('p95') or 0:6.1f} | click→odds p50 {v['odds'].get('p50') or 0:6.0f}"
              f" p95 {v['odds'].get('p95') or 0:6.0f} ms | not shown {v['not_shown']}")
    r = out["returning_first_odds"]
    print(f"  returning: ready p50 {r['ready']['p50']:.0f} ms, first odds {r['odds_after_ready']['p50']:.0f} ms after"
          f" ready (p95 {r['odds_after_ready']['p95']:.0f}); Worker start p50 {r['worker_start']['p50']:.0f} ms; {r['how']}")
    for when in ("memory_first_visit", "memory_returning"):
        m = out[when]
        print(f"  {when}: renderer PSS page-only {m['page']['pss'] / 1e6:.1f} MB, with Worker {m['worker']['pss'] / 1e6:.1f} MB"
              f" (+{(m['worker']['pss'] - m['page']['pss']) / 1e6:.1f}); Worker wasm {m['worker']['worker_wasm'] / 1e6:.1f} MB;"
              f" page JS heap {m['page']['js_heap'] / 1e6:.1f} / {m['worker']['js_heap'] / 1e6:.1f} MB; {m['worker']['how']}")
    return out



# ---------------------------------------------------------------- lighter than the floor (--floor)
# The app against the floor page, each figure in one run (docs/SPEED.md,
# "Against the floor"): a whole first visit's bytes at the server until the
# page works offline (the service worker's precache included); the cold
# start in a new browser and a fresh profile; the returning visit in a
# browser started again on that profile with the server stopped; click →
# dice on every heavy spec. App and floor alternate, pair by pair, and the
# load average is noted at each pair: the machine is shared.

# Records PyScript's progress events (both pages send them) against the
# navigation: "Loading Pyodide" (the page and PyScript's core are in),
# "Loading/Loaded interpreter" (loadPyodide: the wasm, Python's start, the
# standard library), "Loading/Loaded files" ([files]), "Loaded Pyodide".
PHASE_PROBE = """
(() => {
  window.__phases = {};
  addEventListener('py:progress', (e) => { window.__phases[e.detail] = performance.now(); });
})();
"""

PHASES = """
() => {
  const mark = (n) => performance.getEntriesByName(n)[0]?.startTime;
  const res = (part) => performance.getEntriesByType('resource').find((r) => r.name.includes(part));
  const p = window.__phases || {};
  const stdlib = res('stdlib.zip') || res('python_stdlib.zip');
  return {ready: window.__readyAt, pyscript: p['Loading Pyodide'], interpreter: p['Loading interpreter'],
          loaded_interpreter: p['Loaded interpreter'], files: p['Loading files'], loaded_files: p['Loaded files'],
          loaded: p['Loaded Pyodide'], main: mark('dice:main'), start: mark('dice:start'),
          wasm_end: res('pyodide.asm.wasm')?.responseEnd, stdlib_end: stdlib?.responseEnd,
          stdlib_url: stdlib?.name, start_how: document.body.dataset.start || null};
}
"""

#: The phases of a start, each between two of the marks above (the app's
#: own marks split PyScript's Python set-up from our imports and ``start``).
PHASE_SPANS = [
    ("page and PyScript's core", None, "pyscript"),
    ("loadPyodide (wasm, Python's start, stdlib)", "interpreter", "loaded_interpreter"),
    ("[files]", "files", "loaded_files"),
    ("PyScript's own set-up", "loaded", "main"),
    ("our imports (main.py to start())", "main", "start"),
    ("start() to ready", "start", "ready"),
    ("Loaded Pyodide to ready (set-up + main.py)", "loaded", "ready"),
]


def _browser(pw, profile):
    """A new Chromium on ``profile`` (a directory), its first page probed."""
    ctx = pw.chromium.launch_persistent_context(profile, executable_path=CHROMIUM, args=ARGS,
                                                viewport={"width": 1024, "height": 768})
    for script in (READY_PROBE, PHASE_PROBE):
        ctx.add_init_script(script)
    return ctx, (ctx.pages[0] if ctx.pages else ctx.new_page())


def _settled(server, quiet_s=2.0, timeout_s=120):
    """Waits until the server has sent nothing for ``quiet_s``."""
    last, since, t0 = -1, time.perf_counter(), time.perf_counter()
    while time.perf_counter() - t0 < timeout_s:
        if server.sent != last:
            last, since = server.sent, time.perf_counter()
        elif time.perf_counter() - since >= quiet_s:
            return
        time.sleep(0.1)


def floor_run(pw, kind: str) -> dict:
    """One page (``kind``: "app" or "floor") in a fresh profile: the cold
    first visit in a new browser (timed); the whole first visit's server
    bytes, until a service worker controls the page and its precache is in
    (for the app, its snapshot too: made offline, from the cache); then the
    browser closed, the server stopped, a new browser on the same profile:
    the returning visit (timed)."""
    server = CountingServer()
    url = server.url if kind == "app" else server.url + "tests/floor/index.html"
    profile = tempfile.mkdtemp(prefix="bench-floor-")
    out = {"load": os.getloadavg()[0]}
    ctx = None
    try:
        ctx, page = _browser(pw, profile)
        t0 = time.perf_counter()
        page.goto(url)
        page.wait_for_selector("[data-roll]:not([disabled])" if kind == "app" else "body[data-ready]",
                               state="attached", timeout=180_000)
        out["cold_wall"] = (time.perf_counter() - t0) * 1000
        page.wait_for_selector("body[data-ready]", state="attached", timeout=60_000)
        out["cold"] = page.evaluate(PHASES)
        out["controlled"] = wait_controlled(page)
        if kind == "app":
            out["snapshot"] = (wait_snapshot(page) or {}).get("state")
        _settled(server)
        out["bytes"], out["requests"] = server.sent, server.requests
        out["by_file"] = dict(server.by_path)
        ctx.close()
        ctx = None
        server.stop()
        ctx, page = _browser(pw, profile)
        page.goto(url)
        page.wait_for_selector("body[data-ready]", state="attached", timeout=120_000)
        out["returning"] = page.evaluate(PHASES)
        return out
    finally:
        if ctx is not None:
            ctx.close()
        server.stop()
        shutil.rmtree(profile, ignore_errors=True)


def _next_roll(page, system) -> float:
    """Click → dice (ms) of one roll made once the page is idle."""
    page.evaluate(PAGE_IDLE)
    return page.evaluate(CLICK_TO_DICE, system)


def _frame_after_click(trace: dict) -> float | None:
    """In a Chromium trace of one click: ms from the click's dispatch to the
    end of the first frame after it that paints (its commit hands the
    picture to the compositor, which shows it without the main thread),
    or None where the trace holds no such frame."""
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    threads = {}
    for e in events:
        if e.get("name") == "FunctionCall":
            key = (e["pid"], e["tid"])
            threads[key] = threads.get(key, 0) + 1
    main = max(threads, key=threads.get)
    mine = sorted((e for e in events if (e["pid"], e["tid"]) == main and e.get("ph") == "X"), key=lambda e: e["ts"])
    clicks = [e for e in mine if e["name"] == "EventDispatch" and e.get("args", {}).get("data", {}).get("type") == "click"]
    if not clicks:
        return None
    t0 = clicks[0]["ts"]
    click_end = next(e["ts"] + e["dur"] for e in mine if e["name"] == "RunTask" and e["ts"] <= t0 <= e["ts"] + e["dur"])
    paints = [e for e in mine if e["name"] in ("Paint", "Commit") and e["ts"] >= click_end]
    if not paints:
        return None
    frame = next(e for e in mine if e["name"] == "RunTask" and e["ts"] <= paints[0]["ts"] <= e["ts"] + e["dur"])
    return (frame["ts"] + frame["dur"] - t0) / 1000


def measure_against_trace(browser, page, system: str, clicks: int = 6) -> list:
    """The click → dice measure checked by a second route: each click timed
    by ``CLICK_TO_DICE`` and traced by Chromium at once; [(measure, trace)]
    ms pairs, the trace's figure from the click's dispatch to the end of
    the frame that paints the dice (``_frame_after_click``)."""
    pairs = []
    for _ in range(clicks):
        page.evaluate(PAGE_IDLE)
        browser.start_tracing(page=page, categories=["devtools.timeline", "disabled-by-default-devtools.timeline"])
        measured = page.evaluate(CLICK_TO_DICE, system)
        traced = _frame_after_click(json.loads(browser.stop_tracing()))
        if traced is not None:
            pairs.append((measured, traced))
    return pairs


def _pairs_text(pairs: list) -> str:
    return ", ".join(f"{m:.1f}/{t:.1f}" for m, t in pairs)


def click_to_dice_heavy(pw, clicks: int) -> dict:
    """Click → dice drawn (ms, to the frame that draws them committed) on
    every heavy spec and each system's default, the odds worked out in the
    Worker meanwhile, as a
    player rolls them: each click once the page is idle (``PAGE_IDLE``: the
    last roll's after-paint work done, as at the table); ``clicks`` per
    spec. Then as many clicks back to back (``back_to_back``: each click
    runs what the last one left for after its paint first, so it pays for
    it), printed beside them. On Milhamah's default, a few more clicks are
    traced by Chromium too (``against_trace``): the measure's second route."""
    from links import share

    httpd, base = serve(SITE)
    browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
    out = {}
    try:
        page = browser.new_page(viewport={"width": 1024, "height": 768})
        specs = [(f"{s}, default", s, None) for s in rules.SYSTEMS] + HEAVY
        for label, system, spec in specs:
            page.goto("about:blank")
            link = "" if spec is None else "#" + share.encode_setup(system, spec).lstrip("#")
            page.goto(base + "?bench=1" + link)
            page.wait_for_selector("body[data-ready]", state="attached", timeout=120_000)
            page.wait_for_selector("body[data-odds^=worker]", state="attached", timeout=120_000)
            page.click(f"#tabbtn-{system}")
            page.evaluate(CLICK_TO_DICE, system)  # the first roll's own imports and caches, untimed
            out[label] = summary([_next_roll(page, system) for _ in range(clicks)])
            out[label]["back_to_back"] = summary([page.evaluate(CLICK_TO_DICE, system) for _ in range(clicks)])
            out[label]["load"] = os.getloadavg()[0]
            if label == "milhamah, default":
                out[label]["against_trace"] = measure_against_trace(browser, page, system)
                print("  the measure against Chromium's trace (ms, click → the dice's frame committed): "
                      + _pairs_text(out[label]["against_trace"]), flush=True)
            print(f"  click → dice, {label}: p50 {out[label]['p50']:.1f}  p95 {out[label]['p95']:.1f} ms"
                  f"  (back to back p95 {out[label]['back_to_back']['p95']:.1f}; load {out[label]['load']:.1f})",
                  flush=True)
    finally:
        browser.close()
        httpd.shutdown()
    return out


def _span(run: dict, a, b):
    if run is None or run.get(b) is None or (a is not None and run.get(a) is None):
        return None
    return run[b] - (run[a] if a else 0)


def against_floor(pw, pairs: int, clicks: int) -> dict:
    """Every figure against the floor in one run; prints the table."""
    out: dict = {"when": time.strftime("%Y-%m-%d %H:%M:%S"), "pairs": pairs, "load_start": os.getloadavg(),
                 "runs": {"app": [], "floor": []}}
    for i in range(pairs):
        for kind in (("app", "floor") if i % 2 == 0 else ("floor", "app")):
            r = floor_run(pw, kind)
            out["runs"][kind].append(r)
            print(f"pair {i + 1}/{pairs} {kind:5s} load {r['load']:5.1f}  cold {r['cold']['ready']:6.0f} ms"
                  f" (wall {r['cold_wall']:6.0f})  returning {r['returning']['ready']:6.0f} ms"
                  f" ({r['returning'].get('start_how')})  first visit {r['bytes'] / 1e3:7.0f} kB"
                  f" in {r['requests']} requests", flush=True)
    out["clicks"] = click_to_dice_heavy(pw, clicks) if clicks else {}
    out["load_end"] = os.getloadavg()
    print_against_floor(out)
    return out


def print_against_floor(out: dict):
    app, floor = out["runs"]["app"], out["runs"]["floor"]
    med = statistics.median

    def figures(runs, get):
        return [v for v in (get(r) for r in runs) if v is not None]

    def row(label, a, f, goal, ok, unit="ms", scale=1.0):
        ratio = f"{a / f:5.2f}×" if a and f else "     "
        fl = f"{f / scale:10.0f}" if f is not None else " " * 10
        verdict = "" if ok is None else ("yes" if ok else "NO")
        print(f"{label:58s} {a / scale:10.0f} {fl} {unit:3s} {ratio}  {goal:22s} {verdict}")

    loads = [r["load"] for r in app + floor]
    print("\n" + "=" * 110)
    print(f"Against the floor: tests/benchmark.py --floor, {out['pairs']} alternating pairs, {out['when']}")
    print(f"load average (1 min) at each run: {' '.join(f'{x:.1f}' for x in loads)}"
          f"  (median {med(loads):.1f}; start {out['load_start'][0]:.1f}, end {out['load_end'][0]:.1f};"
          " 2 cores: above 2 the figures are slowed, the ratios less so)")
    print(f"{'measure':58s} {'app':>10s} {'floor':>10s}     ratio  {'goal':22s} met?")
    ab, fb = med(figures(app, lambda r: r["bytes"])), med(figures(floor, lambda r: r["bytes"]))
    row("first visit, server bytes until it works offline", ab, fb, "≤ floor (≤ +1 MB)", ab <= fb, "kB", 1e3)
    for q, name in ((0.5, "p50"), (0.95, "p95")):
        a = pct(figures(app, lambda r: r["cold"]["ready"]), q)
        f = pct(figures(floor, lambda r: r["cold"]["ready"]), q)
        row(f"cold start, new browser + fresh profile, to ready, {name}", a, f, "≤ 1.10×", a <= 1.10 * f)
    pair_ratios = [a["cold"]["ready"] / f["cold"]["ready"] for a, f in zip(app, floor)]
    print(f"{'  the same, the median of the pairs own ratios':58s} {med(pair_ratios):21.2f}×"
          f"  ({' '.join(f'{x:.2f}' for x in pair_ratios)})")
    for q, name in ((0.5, "p50"), (0.95, "p95")):
        a = pct(figures(app, lambda r: r["cold_wall"]), q)
        f = pct(figures(floor, lambda r: r["cold_wall"]), q)
        row(f"  wall clock, goto → Roll enabled / ready, {name}", a, f, "", None)
    for q, name in ((0.5, "p50"), (0.95, "p95")):
        a = pct(figures(app, lambda r: r["returning"]["ready"]), q)
        f = pct(figures(floor, lambda r: r["returning"]["ready"]), q)
        row(f"returning, browser restarted, server stopped, {name}", a, f, "≤ 0.45×", a <= 0.45 * f)
    hows = [r["returning"].get("start_how") for r in app]
    print(f"{'  the app started from':58s} {', '.join(str(h) for h in hows)}")
    print("where a cold start's time goes, median ms (app | floor):")
    for label, a_, b_ in PHASE_SPANS:
        a = figures(app, lambda r: _span(r["cold"], a_, b_))
        f = figures(floor, lambda r: _span(r["cold"], a_, b_))
        print(f"  {label:56s} {med(a) if a else float('nan'):8.0f} | {med(f) if f else float('nan'):8.0f}")
    print("where a returning start's time goes, median ms (app | floor):")
    for label, a_, b_ in PHASE_SPANS:
        a = figures(app, lambda r: _span(r["returning"], a_, b_))
        f = figures(floor, lambda r: _span(r["returning"], a_, b_))
        print(f"  {label:56s} {med(a) if a else float('nan'):8.0f} | {med(f) if f else float('nan'):8.0f}")
    first = app[0]["by_file"]
    print("the app's first visit, largest files at the server (kB):")
    for path, n in sorted(first.items(), key=lambda kv: -kv[1])[:12]:
        print(f"  {n / 1e3:9.0f}  {path}")
    print("click → dice drawn (to their frame committed), each click once the page is idle, p95 ≤ 50 ms,"
          " odds in the Worker meanwhile (back to back: the last roll's after-paint work paid first):")
    for label, v in out["clicks"].items():
        b2b = v.get("back_to_back", {}).get("p95")
        print(f"  {label:56s} p50 {v['p50']:6.1f}  p95 {v['p95']:6.1f} ms  "
              f"{'yes' if v['p95'] <= 50 else 'NO'}  (back to back p95 "
              f"{'-' if b2b is None else f'{b2b:.1f}'}; load {v['load']:.1f})")
        if v.get("against_trace"):
            print(f"    {'checked by a Chromium trace, measure/trace ms':54s} {_pairs_text(v['against_trace'])}")


if __name__ == "__main__":
    main()
