"""Returning visits start from a memory snapshot (docs/SPEED.md): after a first
visit has made one in the background, the next visits restore Python from
it and roll, offline too. Every way a snapshot can be wrong — damaged bytes,
another Pyodide build or standard library, another version of the site, storage that cannot be
read or refuses the write — gives a normal start that rolls, with nothing
in the console; and the history and saved setups survive every path.

The snapshot options of Pyodide are private (``_makeSnapshot``,
``_loadSnapshot``, ``makeMemorySnapshot``): ``test_returning_visit_starts_
from_the_snapshot`` is the test that fails when a Pyodide update breaks
them (the page would then start normally, data-start="fresh").

No request routing (it bypasses service workers, and the snapshot is keyed
by the service worker's version): each test serves its own copy of the site
with its own precache list, in a browser profile on disk, and records
requests with ``page.on("request")`` as test_offline.py does."""

from __future__ import annotations

import hashlib
import json

import pytest

import rules
from conftest import FIRST_LOAD_MS, READY, ROOT
from test_offline import (CONTROLLED, SW_MS, non_local, persistent, precache_of,  # noqa: F401 (fixtures)
                          regenerate, serve_logged, site, stop, watched_page)

pytestmark = pytest.mark.browser

MAKE_MS = 180_000
PYODIDE = json.loads((ROOT / "static" / "vendor" / "versions.json").read_text())["versions"]["pyodide"]
SETUP = "Snapshot keeps me"

STORE = "./static/js/snapshot-store.mjs"

# The stored record without its bytes.
RECORD = """async (url) => {
  const store = await import(url);
  const r = await store.read();
  return r ? {key: r.key, raw: r.raw, stored: r.stored, size: r.blob.size, sha256: r.sha256} : null;
}"""

# Flip bytes in the middle of the stored blob, keeping its recorded hash.
DAMAGE = """async (url) => {
  const store = await import(url);
  const r = await store.read();
  const bytes = new Uint8Array(await r.blob.arrayBuffer());
  for (let i = 0; i < 64; i++) bytes[(bytes.length >> 1) + i] ^= 0x5a;
  r.blob = new Blob([bytes]);
  await store.write(r);
}"""

# Rewrite the snapshot as if another build of Pyodide had made it: the build
# id in Pyodide's own header (bytes 16..48) changes, and the record's hash is
# made to match, so only Pyodide's restore can refuse it.
OTHER_BUILD = """async (url) => {
  const store = await import(url);
  const r = await store.read();
  const raw = store.unpack(await r.blob.arrayBuffer());
  for (let i = 16; i < 48; i++) raw[i] ^= 0xff;
  r.blob = store.pack(raw);
  r.sha256 = await store.sha256(await r.blob.arrayBuffer());
  await store.write(r);
}"""

# A snapshot made with another standard library zip (static/stdlib.zip):
# restored, its import system would read the new zip through its index of
# the old one.
OTHER_STDLIB = """async (url) => {
  const store = await import(url);
  const r = await store.read();
  r.key = {...r.key, stdlib: "0".repeat(64)};
  await store.write(r);
}"""

# The page cannot open the snapshot's database (as in a browser that denies
# IndexedDB to the site); PyScript's own database still opens.
DENY_SNAPSHOT_DB = """(() => {
  const open = IDBFactory.prototype.open;
  IDBFactory.prototype.open = function (name, ...rest) {
    if (name === "dice-table-snapshot") throw new DOMException("denied for the test", "SecurityError");
    return open.call(this, name, ...rest);
  };
})();"""


class Table:
    """One player's tablet: the site served (``stop()`` ends the server), a
    watched page in a browser profile on disk, and its URL."""

    def __init__(self, site, ctx):
        self.site, self.ctx = site, ctx
        self.httpd, base = serve_logged(site.parent)
        self.url = base + "dice/"
        self.origin = base.rstrip("/")
        self.page, self.watch, self.seen = watched_page(ctx)

    def stop(self):
        stop(self.httpd)


@pytest.fixture
def table(site, persistent):
    """A Table, checked at the end: no request left the machine, nothing in
    the console."""
    t = Table(site, persistent)
    try:
        yield t
    finally:
        t.stop()
    assert not non_local(t.seen), non_local(t.seen)
    t.watch.check(t.page)


def visit(page, url=None):
    """Load (or reload) the page to ready; returns how Python started and
    why (data-start, data-start-reason)."""
    if url:
        page.goto(url)
    else:
        page.reload()
    page.wait_for_selector(READY, state="attached", timeout=FIRST_LOAD_MS)
    return started(page)


def started(page):
    body = page.locator("body")
    return body.get_attribute("data-start"), body.get_attribute("data-start-reason")


def tried_to_make_one(page):
    """Whether this page started a Worker to make a snapshot."""
    return page.evaluate("performance.getEntriesByName('dice:snapshot-making').length") > 0


def wait_state(page, state):
    page.wait_for_selector(f'body[data-snapshot="{state}"]', state="attached", timeout=MAKE_MS)


def history_count(page):
    return page.locator("#history-list [data-history-entry]").count()


def roll(page, system):
    """Roll one tab with its form's values: new dice in its tray and one
    more history entry."""
    before = history_count(page)
    page.click(f"#tabbtn-{system}")
    page.click(f"#form-{system} [data-roll]")
    page.wait_for_selector(f"#tray-{system} [data-die]", timeout=10_000)
    page.wait_for_function(
        f"() => document.querySelectorAll('#history-list [data-history-entry]').length > {before}")


def first_visit(page, url):
    """A first visit: a normal start, one roll, one saved setup, and the
    snapshot made and stored once a service worker controls the page.
    Returns what the player has that must survive: the newest history entry."""
    newest = play(page, url)
    wait_state(page, "stored")
    return newest


def play(page, url):
    """A first visit's start (no service worker yet), a roll and a saved
    setup, until the service worker controls the page; returns the newest
    history entry."""
    assert visit(page, url) == ("fresh", "no-worker")
    roll(page, "jadeclaw")
    page.fill("#setup-name", SETUP)
    page.click("#save-form button[type=submit]")
    page.wait_for_selector("[data-setup-roll]")
    page.wait_for_selector(CONTROLLED, state="attached", timeout=SW_MS)
    return page.inner_text("#history-list li:first-child")


def assert_kept(page, newest):
    """The history still holds the first visit's roll and the (Jadeclaw)
    setup is listed on its tab."""
    assert newest in page.locator("#history-list").inner_text()
    page.click("#tabbtn-jadeclaw")
    assert SETUP in page.inner_text("#saved-list")


def test_returning_visit_starts_from_the_snapshot(table):
    """Visit 1 starts normally and stores a snapshot keyed by the site's
    precache version and the Pyodide that made it. Visits 2 and 3 (the
    third with the server stopped) start from it, every tab rolls, the
    setup rolls in one tap, and the history is whole."""
    page, url, site = table.page, table.url, table.site
    newest = first_visit(page, url)
    record = page.evaluate(RECORD, STORE)
    assert record["key"]["site"] == precache_of(site)["version"]
    assert record["key"]["pyodide"] == PYODIDE
    assert record["key"]["build"] and len(record["key"]["build"]) == 64
    assert record["key"]["stdlib"] == hashlib.sha256((site / "static" / "stdlib.zip").read_bytes()).hexdigest()
    assert record["size"] == record["stored"] < record["raw"]
    assert "saved on this device" in page.inner_text("#start-info")

    assert visit(page) == ("snapshot", "restored")
    table.stop()
    assert visit(page) == ("snapshot", "restored")
    assert "from the snapshot" in page.inner_text("#start-info")
    assert_kept(page, newest)
    for system in rules.SYSTEMS:
        roll(page, system)
    page.click("#tabbtn-jadeclaw")
    before = history_count(page)
    page.click("[data-setup-roll]")
    page.wait_for_function(
        f"() => document.querySelectorAll('#history-list [data-history-entry]').length > {before}")
    assert SETUP in page.inner_text("#history-list li:first-child")


@pytest.mark.parametrize("spoil, reason", [(DAMAGE, "corrupt"), (OTHER_BUILD, "failed"), (OTHER_STDLIB, "stale")],
                         ids=["damaged-bytes", "other-pyodide-build", "other-stdlib"])
def test_a_bad_snapshot_starts_normally_and_is_replaced(table, spoil, reason):
    """Damaged bytes (caught by the record's hash), a snapshot of another
    Pyodide build (refused by Pyodide's restore, after our hash passed) and
    one made with another standard library (its key) each give a normal
    start that rolls, drop the bad snapshot, and a fresh one is made, from
    which the next visit starts. A restore that fails a
    second time for the same version would fail every time: no more are
    made for it."""
    page, url = table.page, table.url
    newest = first_visit(page, url)
    good = page.evaluate(RECORD, STORE)
    page.evaluate(spoil, STORE)
    spoilt = page.evaluate(RECORD, STORE)

    assert visit(page) == ("fresh", reason)
    roll(page, "jadeclaw")
    assert_kept(page, newest)
    wait_state(page, "stored")
    fresh = page.evaluate(RECORD, STORE)
    assert fresh["sha256"] != spoilt["sha256"]  # made anew, not the spoilt one kept
    assert fresh["key"] == good["key"]

    assert visit(page) == ("snapshot", "restored")
    roll(page, "mirage")
    assert_kept(page, newest)
    if reason == "failed":
        # A second failed restore for this version: no more snapshots of it.
        page.evaluate(spoil, STORE)
        assert visit(page) == ("fresh", "failed")
        wait_state(page, "failed")
        assert page.evaluate(RECORD, STORE) is None
        assert visit(page) == ("fresh", "none")
        roll(page, "alkemy")
        wait_state(page, "failed")
        assert not tried_to_make_one(page)


def test_a_new_site_version_drops_the_old_snapshot(table):
    """While a new version installs, the old one keeps its own snapshot;
    after "Updated — reload" the snapshot of the old version is not used
    (a normal start), it is dropped, and one of the new version is made."""
    page, url, site = table.page, table.url, table.site
    newest = first_visit(page, url)
    old = precache_of(site)["version"]
    css = site / "static" / "css" / "app.css"
    css.write_text(css.read_text() + "\n/* version two */\n")
    regenerate(site)
    new = precache_of(site)["version"]

    assert visit(page) == ("snapshot", "restored")  # the old version, still in charge
    page.wait_for_selector("#update-banner:not([hidden])", timeout=SW_MS)
    with page.expect_navigation():
        page.click("#update-reload")
    page.wait_for_selector(READY, state="attached", timeout=FIRST_LOAD_MS)
    assert started(page) == ("fresh", "stale")
    roll(page, "alkemy")
    assert_kept(page, newest)
    wait_state(page, "stored")
    assert page.evaluate(RECORD, STORE)["key"]["site"] == new != old

    assert visit(page) == ("snapshot", "restored")
    roll(page, "open_tale")


def test_unreadable_storage_starts_normally(table):
    """With a snapshot stored but its database denied to the page, the page
    starts normally, rolls and keeps the history; nothing in the console."""
    page, url = table.page, table.url
    newest = first_visit(page, url)
    table.ctx.add_init_script(DENY_SNAPSHOT_DB)
    assert visit(page) == ("fresh", "unreadable")
    roll(page, "milhamah")
    assert_kept(page, newest)
    page.wait_for_timeout(1000)
    assert page.get_attribute("body", "data-snapshot") == "unreadable"
    assert not tried_to_make_one(page)


def test_refused_storage_starts_normally(table):
    """A device whose quota cannot hold the snapshot (the precache fits, the
    snapshot does not) says so, starts normally on the next visit and rolls,
    and does not spend another worker on it for the same version."""
    page, url = table.page, table.url
    cdp = table.ctx.new_cdp_session(page)
    cdp.send("Storage.overrideQuotaForOrigin", {"origin": table.origin, "quotaSize": 24_000_000})
    newest = play(page, url)
    wait_state(page, "refused")
    assert page.evaluate(RECORD, STORE) is None
    assert "refused" in page.inner_text("#start-info")

    assert visit(page) == ("fresh", "none")
    roll(page, "jadeclaw")
    assert_kept(page, newest)
    wait_state(page, "refused")
    assert not tried_to_make_one(page)
