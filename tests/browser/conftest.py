"""Browser tests: the folder served on a free port (also from a sub-path, as
on GitHub Pages), Debian's Chromium driven by Playwright, every request that
is not to 127.0.0.1 blocked and recorded. A page error, a console error, a
Python traceback or a blocked request fails the test in teardown, even when
every assertion passed: that is our proof of offline use."""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlparse

import pytest
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
LAUNCH_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost",
    # A container's /dev/shm may be 64 MB: the renderer's shared memory there
    # runs out under a long suite and the page crashes ("Page crashed").
    "--disable-dev-shm-usage",
]
READY = "body[data-ready]"
FIRST_LOAD_MS = 120_000


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(directory: Path):
    """Serve ``directory`` on a free port; returns (server, base URL)."""
    handler = functools.partial(_Quiet, directory=str(directory))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}/"


@pytest.fixture(scope="session")
def base_url():
    if not (ROOT / "static" / "vendor" / "pyodide" / "pyodide.mjs").exists():
        pytest.exit("static/vendor is missing: run `bash .ci/dev test` (it vendors Pyodide)", 2)
    httpd, url = serve(ROOT)
    yield url
    httpd.shutdown()


@pytest.fixture(scope="session")
def subpath_url():
    """The same folder served as /dice/ under another root."""
    top = Path(tempfile.mkdtemp(prefix="dice-subpath-"))
    os.symlink(ROOT, top / "dice")
    httpd, url = serve(top)
    yield url + "dice/"
    httpd.shutdown()
    shutil.rmtree(top, ignore_errors=True)


@pytest.fixture(scope="session")
def playwright_instance():
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def browser(playwright_instance):
    b = playwright_instance.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
    yield b
    b.close()


class Watch:
    """Records what must fail a test: page errors, console errors, Python
    tracebacks, blocked (non-local) requests, dialogs."""

    def __init__(self):
        self.problems: list[str] = []
        self.dialogs: list[str] = []
        self.allowed: list[str] = []  # substrings of console errors a test expects
        self.accept_dialogs = 0  # how many coming confirm() dialogs a test accepts

    def attach(self, context, page, route=True):
        if route:
            context.route("**/*", self._route)
        page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        page.on("console", self._console)
        page.on("dialog", self._dialog)

    def _route(self, route):
        host = urlparse(route.request.url).hostname
        if host in ("127.0.0.1", "localhost"):
            route.continue_()
        else:
            self.problems.append(f"blocked request: {route.request.url}")
            route.abort()

    def _console(self, msg):
        text = msg.text
        if any(a in text for a in self.allowed):
            return
        if msg.type == "error" or "Traceback (most recent call last)" in text:
            self.problems.append(f"console {msg.type}: {text[:2000]}")

    def _dialog(self, dialog):
        self.dialogs.append(f"{dialog.type}: {dialog.message}")
        if self.accept_dialogs > 0:
            self.accept_dialogs -= 1
            dialog.accept()
        else:
            dialog.dismiss()

    def check(self, page=None):
        if page is not None and not page.is_closed():
            errors = page.locator(".py-error").all_inner_texts()
            self.problems += [f"python error shown on the page: {t[:2000]}" for t in errors]
        problems, self.problems = self.problems, []
        assert not problems, "\n".join(problems)


def open_app(browser, url, watch: Watch | None = None, *, viewport=(1024, 768), route=True,
             init_script: str | None = None, **ctx):
    """A fresh context and page on the app, ready to roll; ``init_script``
    runs before any of the page's own scripts."""
    context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]}, **ctx)
    if init_script:
        context.add_init_script(init_script)
    page = context.new_page()
    watch = watch or Watch()
    watch.attach(context, page, route=route)
    page.goto(url)
    page.wait_for_selector(READY, timeout=FIRST_LOAD_MS, state="attached")
    return context, page, watch


def show_history(page):
    """Open the roll history where it is a drawer (below 1280 px wide)."""
    toggle = page.locator("#history-toggle")
    if toggle.is_visible() and toggle.get_attribute("aria-expanded") != "true":
        toggle.click()
    page.wait_for_selector("#history", state="visible")



def pages_by_size(browser, base_url, init_script: str | None = None):
    """For a module-scoped fixture (``yield from``): one watched page per
    screen size, opened on first use; each is checked for console errors,
    page errors and blocked requests at the end, then closed."""
    opened = {}

    def get(size):
        if size not in opened:
            opened[size] = open_app(browser, base_url, viewport=size, init_script=init_script)
        return opened[size][1]

    yield get
    try:
        for _, page, watch in opened.values():
            watch.check(page)
    finally:
        for context, _, _ in opened.values():
            context.close()

@contextmanager
def watched_page(browser, url, **kw):
    """``open_app`` as a block: the page (its Watch as ``page.watch``) is
    checked when the block ends, and its context closed whatever happens."""
    context, page, watch = open_app(browser, url, **kw)
    page.watch = watch
    try:
        yield page
        watch.check(page)
    finally:
        context.close()


@pytest.fixture(scope="module")
def app(browser, base_url):
    """One page per test module (opening Pyodide costs seconds), watched."""
    with watched_page(browser, base_url) as page:
        yield page


@pytest.fixture
def watched(app):
    """Fails the test that produced a problem, not only the module."""
    yield app
    app.watch.check(app)
