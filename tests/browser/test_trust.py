"""Honest dice in the browser: every roll draws from crypto.getRandomValues
(Pyodide's os.urandom), and the fairness view counts faces for a doubter."""

import pytest

from conftest import open_app

pytestmark = pytest.mark.browser

COUNT_CRYPTO = """
(() => {
  const real = crypto.getRandomValues.bind(crypto);
  window.__cryptoCalls = 0;
  crypto.getRandomValues = (a) => { window.__cryptoCalls += 1; return real(a); };
})();
"""


def test_rolls_draw_from_crypto_get_random_values(browser, base_url):
    """A roll calls crypto.getRandomValues at least once per die it draws;
    with that source stubbed out nothing else could produce the faces."""
    context, page, watch = open_app(browser, base_url, init_script=COUNT_CRYPTO)
    try:
        page.click("#tabbtn-jadeclaw")
        page.fill("#form-jadeclaw [name=dice]", "3d12 & d4")
        before = page.evaluate("() => window.__cryptoCalls")
        page.click("#form-jadeclaw [data-roll]")
        page.wait_for_selector("#tray-jadeclaw [data-die]")
        after = page.evaluate("() => window.__cryptoCalls")
        assert after - before >= 4, (before, after)
        watch.check(page)
    finally:
        context.close()


def test_fairness_view_counts_every_die(watched):
    """The fairness view rolls each die kind and charts the counts against
    what fair dice give, with a verdict a player can read."""
    page = watched
    page.click("#fairness summary")
    page.fill("#fairness-n", "600")
    page.click("[data-fairness-run]")
    out = page.locator("#fairness-out")
    out.locator("svg").first.wait_for(timeout=30_000)
    text = out.inner_text()
    for kind in ("d4", "d6", "d8", "d10", "d12"):
        assert kind in text
    assert out.locator("svg").count() >= 7
    page.fill("#fairness-n", "5")
    page.click("[data-fairness-run]")
    page.wait_for_function("() => !document.querySelector('#fairness-out svg')")
    assert out.inner_text().strip()  # a message, not a crash
