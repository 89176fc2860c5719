"""Install and offline: after one visit the service worker
has precached everything, so the page loads and rolls with the server gone;
a new version installs beside the old one and takes over only when the user
says "reload", never mixing files; the precache list covers every file a
cold load fetches and every [files] entry.

No request routing here: Playwright's routing bypasses service workers. The
resolver rule in LAUNCH_ARGS sends every non-local host nowhere, and the
tests record what the page asked for with ``page.on("request")``, and what
the server answered in its own log. Each test serves its own copy of the
site, from a sub-path, with its own precache list built by .ci/precache.mjs."""

from __future__ import annotations

import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path
from urllib.parse import urlparse

import pytest

from conftest import CHROMIUM, FIRST_LOAD_MS, LAUNCH_ARGS, READY, ROOT, Watch

pytestmark = pytest.mark.browser

CONTROLLED = "body[data-offline-ready]"
SW_MS = 90_000


class _Logged(http.server.SimpleHTTPRequestHandler):
    """Records (path, status) of every request it answers."""

    def log_message(self, *args):
        pass

    def log_request(self, code="-", size="-"):
        try:
            code = int(code)
        except (TypeError, ValueError):
            pass
        self.server.log.append((urlparse(self.path).path, code))


def serve_logged(directory: Path):
    handler = functools.partial(_Logged, directory=str(directory))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.log = []
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}/"


def stop(httpd):
    httpd.shutdown()
    httpd.server_close()


def build_site(top: Path) -> Path:
    """A copy of the site at top/dice/ (the vendored runtime linked, not
    copied) with its precache list generated for that copy."""
    site = top / "dice"
    site.mkdir(parents=True)
    for name in ("index.html", "pyscript.toml", "sw.js"):
        shutil.copy(ROOT / name, site / name)
    skip = shutil.ignore_patterns("__pycache__", "vendor", "precache.js")
    shutil.copytree(ROOT / "rules", site / "rules", ignore=skip)
    shutil.copytree(ROOT / "static", site / "static", ignore=skip)
    os.symlink(ROOT / "static" / "vendor", site / "static" / "vendor")
    regenerate(site)
    return site


def regenerate(site: Path):
    subprocess.run(["node", str(ROOT / ".ci" / "precache.mjs"), str(site)], check=True,
                   capture_output=True, text=True)


def precache_of(site: Path) -> dict:
    text = (site / "static" / "precache.js").read_text()
    return json.loads(text[text.index("{"):text.rindex("}") + 1])


@pytest.fixture
def site():
    top = Path(tempfile.mkdtemp(prefix="dice-offline-"))
    try:
        yield build_site(top)
    finally:
        shutil.rmtree(top, ignore_errors=True)


@pytest.fixture
def persistent(playwright_instance):
    """A browser profile on disk, as a player's tablet has (HTTP cache, caches, workers)."""
    profile = tempfile.mkdtemp(prefix="dice-profile-")
    ctx = playwright_instance.chromium.launch_persistent_context(
        profile, executable_path=CHROMIUM, args=LAUNCH_ARGS, viewport={"width": 1024, "height": 768})
    try:
        yield ctx
    finally:
        ctx.close()
        shutil.rmtree(profile, ignore_errors=True)


def watched_page(ctx):
    page = ctx.pages[0] if ctx.pages else ctx.new_page()
    watch = Watch()
    watch.attach(ctx, page, route=False)
    seen = []
    page.on("request", lambda r: seen.append(r.url))
    return page, watch, seen


def non_local(urls):
    return [u for u in urls if urlparse(u).scheme in ("http", "https")
            and urlparse(u).hostname not in ("127.0.0.1", "localhost")]


def roll_jadeclaw(page):
    page.click("#tabbtn-jadeclaw")
    page.click("#form-jadeclaw [data-roll]")
    page.wait_for_selector("#tray-jadeclaw [data-die]", timeout=10_000)


def test_offline_after_one_visit(site, persistent):
    """One visit from a sub-path installs the worker; with the server
    stopped, a reload still reaches ready and a Jadeclaw roll draws dice. The
    install reused the HTTP cache: the server sent Pyodide's wasm once."""
    httpd, base = serve_logged(site.parent)
    url = base + "dice/"
    page, watch, seen = watched_page(persistent)
    try:
        page.goto(url)
        page.wait_for_selector(READY, state="attached", timeout=FIRST_LOAD_MS)
        page.wait_for_selector(CONTROLLED, state="attached", timeout=SW_MS)
        keys = page.evaluate("caches.keys()")
        assert keys == ["dice-table-" + precache_of(site)["version"]]
    finally:
        stop(httpd)
    wasm = [code for path, code in httpd.log if path.endswith("/pyodide.asm.wasm")]
    assert wasm.count(200) == 1, f"the wasm was sent {wasm.count(200)} times: {wasm}"
    served = {path for path, _ in httpd.log}
    assert not any(p.startswith("/dice/static/vendor/pyscript/codemirror") for p in served)

    page.reload()
    page.wait_for_selector(READY, state="attached", timeout=FIRST_LOAD_MS)
    roll_jadeclaw(page)
    assert page.locator("#tray-jadeclaw [data-die]").count() >= 2
    assert not non_local(seen), non_local(seen)
    watch.check(page)


def test_new_version_without_mixing(site, persistent):
    """A changed file makes a new version: it installs in the background
    while the old one keeps serving the old file; the page says "Updated —
    reload"; after the click the new file is served and the old cache is
    gone."""
    httpd, base = serve_logged(site.parent)
    url = base + "dice/"
    page, watch, seen = watched_page(persistent)
    fetch_css = "() => fetch('./static/css/app.css').then(r => r.text())"
    try:
        page.goto(url)
        page.wait_for_selector(READY, state="attached", timeout=FIRST_LOAD_MS)
        page.wait_for_selector(CONTROLLED, state="attached", timeout=SW_MS)
        old = "dice-table-" + precache_of(site)["version"]
        assert page.evaluate("caches.keys()") == [old]
        assert page.is_hidden("#update-banner")

        marker = "/* version two of the dice table */"
        css = site / "static" / "css" / "app.css"
        css.write_text(css.read_text() + "\n" + marker + "\n")
        regenerate(site)
        new = "dice-table-" + precache_of(site)["version"]
        assert new != old

        page.reload()
        page.wait_for_selector(READY, state="attached", timeout=FIRST_LOAD_MS)
        page.wait_for_selector("#update-banner:not([hidden])", timeout=SW_MS)
        assert "Updated" in page.inner_text("#update-banner")
        # The old version still serves its own file until the user reloads.
        assert marker not in page.evaluate(fetch_css)
        assert sorted(page.evaluate("caches.keys()")) == sorted([old, new])

        with page.expect_navigation():
            page.click("#update-reload")
        page.wait_for_selector(READY, state="attached", timeout=FIRST_LOAD_MS)
        page.wait_for_selector(CONTROLLED, state="attached", timeout=SW_MS)
        assert page.evaluate("caches.keys()") == [new]
        assert page.is_hidden("#update-banner")
    finally:
        stop(httpd)
    # Served by the new version's cache, with the server gone.
    assert marker in page.evaluate(fetch_css)
    assert not non_local(seen), non_local(seen)
    watch.check(page)


def test_precache_covers_what_the_page_loads(site, browser):
    """Every [files] entry of pyscript.toml and every local file a cold load
    fetches (before any worker exists) is in the precache list, and each
    listed hash is that of the file served; the standard library fetched
    is the page's own."""
    import hashlib

    listed = {e["url"].removeprefix("./") for e in precache_of(site)["files"]}
    toml = (site / "pyscript.toml").read_text()
    sources = re.findall(r'^\s*"\./([^"]+)"\s*=', toml, re.M)
    assert sources and not set(sources) - listed

    httpd, base = serve_logged(site.parent)
    url = base + "dice/"
    ctx = browser.new_context(service_workers="block")
    page = ctx.new_page()
    watch = Watch()
    watch.attach(ctx, page, route=False)
    seen = []
    page.on("request", lambda r: seen.append(r.url))
    try:
        page.goto(url)
        page.wait_for_selector(READY, state="attached", timeout=FIRST_LOAD_MS)
        page.click("#tabbtn-milhamah")  # Hebrew text: the font files
        page.wait_for_timeout(500)
        watch.check(page)
    finally:
        ctx.close()
        stop(httpd)
    assert not non_local(seen), non_local(seen)
    fetched = {urlparse(u).path.removeprefix("/dice/") for u in seen if u.startswith(url)}
    assert "static/vendor/pyodide/pyodide.asm.wasm" in fetched
    # The page's own standard library, not Pyodide's whole one, and no lock file (docs/SPEED.md).
    assert "static/stdlib.zip" in fetched and "static/stdlib.zip" in listed
    assert not {"static/vendor/pyodide/python_stdlib.zip", "static/vendor/pyodide/pyodide-lock.json"} & (fetched | listed)
    assert not fetched - listed - {""}, f"fetched but not precached: {sorted(fetched - listed)}"
    for e in precache_of(site)["files"]:
        path = site / ("index.html" if e["url"] == "./" else e["url"].removeprefix("./"))
        assert hashlib.sha256(path.read_bytes()).hexdigest() == e["sha256"], e["url"]


def test_manifest_installs_the_page_from_its_folder(site):
    """The manifest is linked from index.html and its start_url and scope
    are the page's folder (it lives in static/, so "./" would be wrong),
    with PNG icons of the sizes installers ask for, all precached."""
    from urllib.parse import urljoin

    html = (site / "index.html").read_text()
    link = re.search(r'<link rel="manifest" href="([^"]+)"', html)
    assert link
    page_url = "https://example.org/dice/"
    manifest_url = urljoin(page_url, link.group(1))
    manifest = json.loads((site / urlparse(manifest_url).path.removeprefix("/dice/")).read_text())
    assert urljoin(manifest_url, manifest["start_url"]) == page_url
    assert urljoin(manifest_url, manifest["scope"]) == page_url
    assert manifest["display"] == "standalone" and manifest["name"] and manifest["short_name"]
    listed = {e["url"].removeprefix("./") for e in precache_of(site)["files"]}
    sizes = set()
    for icon in manifest["icons"]:
        path = urlparse(urljoin(manifest_url, icon["src"])).path.removeprefix("/dice/")
        data = (site / path).read_bytes()
        assert path in listed
        if icon["type"] == "image/png":
            assert data[:8] == b"\x89PNG\r\n\x1a\n"
            w, h = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
            assert icon["sizes"] == f"{w}x{h}"
            sizes.add(w)
    assert {192, 512} <= sizes
