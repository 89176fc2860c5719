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
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
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
from playwright.sync_api import sync_playwright  # noqa: E402

import rules  # noqa: E402

def snapshot_site() -> Path:
    """A copy of the site as it is now (the vendored runtime linked, not
    copied), with the floor page and its own precache list: the benchmark
    measures one version even while files are being edited, and the service
    worker's hash checks pass."""
    import subprocess

    site = Path(tempfile.mkdtemp(prefix="bench-site-"))
    for name in ("index.html", "pyscript.toml", "sw.js"):
        shutil.copy(ROOT / name, site / name)
    skip = shutil.ignore_patterns("__pycache__", "vendor", "precache.js")
    shutil.copytree(ROOT / "rules", site / "rules", ignore=skip)
    shutil.copytree(ROOT / "static", site / "static", ignore=skip)
    shutil.copytree(ROOT / "tests" / "floor", site / "tests" / "floor", ignore=skip)
    os.symlink(ROOT / "static" / "vendor", site / "static" / "vendor")
    subprocess.run(["node", str(ROOT / ".ci" / "precache.mjs"), str(site)], check=True)
    return site


SITE = ROOT  # replaced by a snapshot in main()

ARGS = LAUNCH_ARGS + ["--enable-precise-memory-info", "--js-flags=--expose-gc"]

# Records the moment body[data-ready] appears, against navigation start.
READY_PROBE = """
(() => {
  const mark = () => { if (document.body && document.body.hasAttribute('data-ready') && !window.__readyAt)
    window.__readyAt = performance.now(); };
  new MutationObserver(mark).observe(document, {subtree: true, attributes: true, attributeFilter: ['data-ready']});
})();
"""

# Clicks a tab's Roll button; resolves when new dice are in the tray and a
# frame has been painted.
CLICK_TO_DICE = """
async (system) => {
  const tray = document.querySelector('#tray-' + system);
  const button = document.querySelector('#form-' + system + ' [data-roll]');
  const before = tray.firstChild;
  const t0 = performance.now();
  const done = new Promise((resolve) => {
    const obs = new MutationObserver(() => {
      if (tray.querySelector('[data-die]') && tray.firstChild !== before) {
        obs.disconnect();
        requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - t0), 0));
      }
    });
    obs.observe(tray, {childList: true, subtree: true});
  });
  button.click();
  return await done;
}
"""

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


# Milhamah's odds budget (issue 13): p95 <= 100 ms in the browser for the
# default roll and for 12 dice with 2 rounds, each answer computed afresh.
# The odds are cached by question, so each sample asks a variant of it with
# another difficulty (the same work: every first roll valued, the colour
# pairs ranked). "cold": every cache of rules.milhamah_odds (``*_CACHE``) is
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
    from rules import milhamah_odds

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
        self.lock = threading.Lock()

        class Handler(http.server.SimpleHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def setup(self):
                super().setup()
                raw = self.wfile

                class Counted:
                    def write(_, b):
                        with server.lock:
                            server.sent += len(b)
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


TABLE_ARGS = ["--allow-loopback-in-peer-connection", "--disable-features=WebRtcHideLocalIpsWithMdns"]


def _table_join(tablet, phone, link):
    """One join by links; (phone: link -> answer code, tablet: answer -> channel open) in ms."""
    t0 = time.perf_counter()
    phone.evaluate("(u) => { location.hash = u.split('#')[1]; }", link)
    phone.wait_for_selector("[data-table-answer][data-link]", timeout=60_000)
    t1 = time.perf_counter()
    answer = phone.get_attribute("[data-table-answer]", "data-link")
    tablet.fill("[data-table-paste]", answer)
    t2 = time.perf_counter()
    tablet.press("[data-table-paste]", "Enter")
    tablet.wait_for_selector('[data-table-peer][data-status="open"]', state="attached", timeout=60_000)
    t3 = time.perf_counter()
    return (t1 - t0) * 1000, (t3 - t2) * 1000, answer


def _table_sizes(links):
    """Characters and QR versions (error correction M) of the join links,
    and each game's default roll as a message over the channel."""
    import segno

    import livetable as lt

    out = {k: {"chars": len(v), "qr_version": segno.make(v, error="m", micro=False).version}
           for k, v in links.items()}
    host = lt.new_host("The GM", lambda n: bytes(n))
    host, meta = lt.next_offer_meta(host)
    phone = {**lt.new_player({"meta": meta}, "Dana", "dev"), "peers": [lt._link_state("host", "The GM", "")]}
    for system in rules.SYSTEMS:
        phone, e = lt.own_entry(phone, rules.roll(system, dict(rules.MODULES[system].DEFAULT_SPEC)), "", 0)
        phone, text = lt.send(phone, "host", "roll", e=lt.wire(e))
        out[f"roll message, {system}"] = {"chars": len(text)}
    return out


def bench_table(runs, rolls):
    """Per run: a tablet and a phone (two contexts of one Chromium) join by
    links; then ``rolls`` Jadeclaw rolls on the phone, each timed from the
    click (in the phone's page) to its entry in the tablet's log (a
    MutationObserver there; one machine clock)."""
    joins, opens, lags, links = [], [], [], {}
    with sync_playwright() as pw:
        httpd, base = serve(ROOT)
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS + TABLE_ARGS)
        for _ in range(runs):
            pages = []
            for size in ((1024, 768), (390, 844)):
                ctx = browser.new_context(viewport={"width": size[0], "height": size[1]})
                ctx.add_init_script("localStorage.setItem('dice-table/roller', 'Dana')")
                page = ctx.new_page()
                page.goto(base)
                page.wait_for_selector("body[data-ready]", state="attached", timeout=120_000)
                pages.append(page)
            tablet, phone = pages
            tablet.click("[data-table-open]")
            tablet.click("#table-start")
            tablet.wait_for_selector("[data-table-offer][data-link]", state="attached", timeout=60_000)
            links["offer"] = tablet.get_attribute("[data-table-offer]", "data-link")
            a, b, links["answer"] = _table_join(tablet, phone, links["offer"])
            joins.append(a)
            opens.append(b)
            tablet.evaluate("""() => { window.benchSeen = [];
                new MutationObserver(() => window.benchSeen.push(Date.now()))
                  .observe(document.querySelector('#table-log'), {childList: true}); }""")
            phone.evaluate("() => document.querySelector('#table-dialog').close()")
            phone.click("#tabbtn-jadeclaw")
            for i in range(rolls):
                t = phone.evaluate("() => { const t = Date.now(); "
                                   "document.querySelector('#form-jadeclaw [data-roll]').click(); return t; }")
                tablet.wait_for_function(f"() => window.benchSeen.length > {i}", timeout=10_000)
                lags.append(tablet.evaluate(f"() => window.benchSeen[{i}]") - t)
            for page in pages:
                page.context.close()
        browser.close()
        httpd.shutdown()
    return {"runs": runs, "rolls": rolls, "join_phone_ms": joins, "join_open_ms": opens, "roll_to_log_ms": lags,
            "sizes": _table_sizes(links), "load_average": os.getloadavg()}


def print_table(r):
    def p(xs, q):
        xs = sorted(xs)
        return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]

    print(f"live table, {r['runs']} joins, {r['runs'] * r['rolls']} rolls, load {r['load_average'][0]:.1f}")
    for key, what in (("join_phone_ms", "phone: join link opened -> answer code ready"),
                      ("join_open_ms", "tablet: answer pasted -> channel open"),
                      ("roll_to_log_ms", "roll on the phone -> entry in the tablet's log")):
        print(f"  {what}: p50 {p(r[key], 0.5):.0f} ms, p95 {p(r[key], 0.95):.0f} ms, max {max(r[key]):.0f} ms")
    for k, v in r["sizes"].items():
        print(f"  {k}: {v['chars']} characters" + (f", QR version {v['qr_version']}" if "qr_version" in v else ""))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--clicks", type=int, default=20)
    ap.add_argument("--out", default=str(ROOT / ".bench" / "results.json"))
    ap.add_argument("--milhamah-odds", action="store_true",
                    help="only Milhamah's odds budget (uncached odds, browser and CPython)")
    ap.add_argument("--table", action="store_true",
                    help="only the live table: join time, roll -> tablet log, message and QR code sizes")
    a = ap.parse_args()
    if a.table:
        print_table(bench_table(a.runs, a.clicks))
        return
    global SITE
    SITE = snapshot_site()
    if a.milhamah_odds:
        with sync_playwright() as pw:
            httpd, base = serve(SITE)
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page(viewport={"width": 1024, "height": 768})
            page.goto(base + "?bench=1")
            page.wait_for_selector("body[data-ready]", state="attached", timeout=120_000)
            print_milhamah(milhamah_odds_cold(page))
            browser.close()
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
    m = out["memory"]
    print(f"{'JS heap after 10 / 500 rolls':38s} {m['after_10']['js_heap'] / 1e6:8.1f} / {m['after_500']['js_heap'] / 1e6:.1f} MB"
          f"  ({m['after_500']['js_heap'] / m['after_10']['js_heap']:.2f}×)")
    print(f"{'wasm memory after 10 / 500 rolls':38s} {m['after_10']['wasm'] / 1e6:8.1f} / {m['after_500']['wasm'] / 1e6:.1f} MB"
          f"  ({m['after_500']['wasm'] / m['after_10']['wasm']:.2f}×)")
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(out, indent=1))
    print(f"\nwrote {a.out}")


if __name__ == "__main__":
    main()
