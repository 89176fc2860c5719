"""The table's state survives a reload (docs/RULES-DECISIONS.md, The page): each
tab's form and the open tab come back, online and with the server gone;
Mirage's Conditions are the character's state; "Reset form" is one tap; a
corrupt or hostile stored state gives a banner and the defaults, never a
crash or a script; bad input is named at its field, every field at once."""

from __future__ import annotations

import json

import pytest

from conftest import FIRST_LOAD_MS, READY, watched_page
from test_offline import CONTROLLED, SW_MS, persistent, serve_logged, site, stop  # noqa: F401  (fixtures)
from test_offline import watched_page as offline_page

pytestmark = pytest.mark.browser

KEY = "dice-table/forms"


def reload(page):
    page.reload()
    page.wait_for_selector(READY, state="attached", timeout=FIRST_LOAD_MS)


def edit_forms(page):
    """Jadeclaw's dice, Milhamah's shoresh and X, two Mirage Conditions;
    Mirage left open."""
    page.click("#tabbtn-jadeclaw")
    page.fill("#form-jadeclaw [name=dice]", "2d12 & d4")
    page.check("#form-jadeclaw [name=favored]")
    page.click("#tabbtn-milhamah")
    page.fill("#form-milhamah [name=shoresh]", "רוח")
    page.fill("#form-milhamah [name=rerolls]", "5")
    page.click("#tabbtn-mirage")
    page.check('#form-mirage [name=conditions][value="battered"]')
    page.check('#form-mirage [name=conditions][value="angry"]')
    page.wait_for_function(f"() => (localStorage.getItem('{KEY}') || '').includes('battered')")


def assert_edited(page):
    assert page.locator("#tab-mirage").is_visible()
    assert page.get_attribute("#tabbtn-mirage", "aria-selected") == "true"
    ticked = page.locator("#form-mirage [name=conditions]:checked").evaluate_all("els => els.map(e => e.value)")
    assert sorted(ticked) == ["angry", "battered"]
    assert page.input_value("#form-jadeclaw [name=dice]") == "2d12 & d4"
    assert page.is_checked("#form-jadeclaw [name=favored]")
    assert page.input_value("#form-milhamah [name=shoresh]") == "רוח"
    assert page.input_value("#form-milhamah [name=rerolls]") == "5"


def test_every_form_and_the_open_tab_survive_a_reload(browser, base_url):
    """Edited forms on three tabs come back after a reload, and a roll
    uses them: the Conditions step the Mirage dice down."""
    with watched_page(browser, base_url) as page:
        edit_forms(page)
        reload(page)
        assert_edited(page)
        assert page.is_hidden("#banner")
        page.click("#form-mirage [data-roll]")
        page.wait_for_selector("#tray-mirage [data-die]")
        assert "battered" in page.inner_text("#tray-mirage").lower() or \
            "condition" in page.inner_text("#tray-mirage").lower()


def test_reset_form_is_one_tap_and_is_kept(browser, base_url):
    """One tap on Mirage's Reset form unticks the Conditions and restores
    the skill die; the reset form is what a reload brings back. The other
    tabs keep their edits."""
    with watched_page(browser, base_url) as page:
        edit_forms(page)
        page.select_option("#form-mirage [name=skill]", "12")
        page.click("#tab-mirage [data-reset-form]")
        assert page.locator("#form-mirage [name=conditions]:checked").count() == 0
        assert page.input_value("#form-mirage [name=skill]") == "8"
        page.wait_for_function(f"() => !(localStorage.getItem('{KEY}') || '').includes('battered')")
        reload(page)
        assert page.locator("#form-mirage [name=conditions]:checked").count() == 0
        assert page.input_value("#form-jadeclaw [name=dice]") == "2d12 & d4"


XSS = '<img src=x onerror="window.__pwned=1">'
HOSTILE = json.dumps({"v": 1, "tab": "<script>window.__pwned=1</script>", "forms": {
    "jadeclaw": {"dice": [XSS], "bonuses": "3", "remove": ["1"]},
    "mirage": {"helpers": ["9"], "conditions": ["angry"], "gear": [XSS]},
    "evil": {"x": ["y"]},
}})


@pytest.mark.parametrize("text", [HOSTILE, "{not json", "[" * 20_000],
                         ids=["hostile values", "not json", "deeply nested"])
def test_a_hostile_stored_state_gives_a_banner_and_the_defaults(browser, base_url, text):
    """Values the rules refuse go back to their defaults and are named in
    the banner; the stored text is kept under a backup key; no script
    runs, nothing is injected, and the page rolls."""
    with watched_page(browser, base_url) as page:
        # the page stores its forms once after start-up; the hostile text goes in after that
        page.wait_for_function(f"() => localStorage.getItem('{KEY}') !== null")
        page.evaluate("([k, t]) => localStorage.setItem(k, t)", [KEY, text])
        reload(page)
        banner = page.inner_text("#banner")
        assert "could not be restored" in banner and "backup" in banner
        assert page.evaluate(f"localStorage.getItem('{KEY}/unreadable-backup')") == text
        assert page.evaluate("window.__pwned") is None and page.locator("img[src=x]").count() == 0
        assert page.locator("#tab-milhamah").is_visible()  # an unknown tab opens the first
        if text == HOSTILE:
            assert "Jadeclaw: dice" in banner and "Mirage: helpers" in banner
            assert page.input_value("#form-jadeclaw [name=dice]") == "d12 & d8"  # refused: the default
            assert page.input_value("#form-jadeclaw [name=remove]") == "1"  # sound: kept
            assert page.is_checked('#form-mirage [name=conditions][value="angry"]')
        for system in ("jadeclaw", "mirage"):
            page.click(f"#tabbtn-{system}")
            page.click(f"#form-{system} [data-roll]")
            page.wait_for_selector(f"#tray-{system} [data-die]")


def test_text_in_a_number_box_is_named_at_the_field(browser, base_url):
    """Text that is not a number in Milhamah's X does not roll as X = 3:
    the field says so and nothing is rolled."""
    with watched_page(browser, base_url) as page:
        entries = page.locator("[data-history-entry]").count()
        page.fill("#form-milhamah [name=rerolls]", "")
        page.type("#form-milhamah [name=rerolls]", "1e")
        assert page.evaluate("document.querySelector('#form-milhamah [name=rerolls]').validity.badInput")
        page.click("#form-milhamah [data-roll]")
        err = page.locator('#form-milhamah [data-error-for="rerolls"]')
        err.wait_for()
        assert "not" in err.inner_text() and "number" in err.inner_text()
        assert page.get_attribute("#form-milhamah [name=rerolls]", "aria-invalid") == "true"
        assert page.locator("[data-history-entry]").count() == entries
        assert page.locator("#tray-milhamah [data-die]").count() == 0


def test_every_wrong_field_is_named_at_once(browser, base_url):
    """ALKEMY characteristic −5 with bonus 50: both fields say what is
    wrong; fixing one leaves the other's message."""
    with watched_page(browser, base_url) as page:
        page.click("#tabbtn-alkemy")
        page.fill("#form-alkemy [name=characteristic]", "-5")
        page.fill("#form-alkemy [name=bonus]", "50")
        page.click("#form-alkemy [data-roll]")
        for field in ("characteristic", "bonus"):
            page.locator(f'#form-alkemy [data-error-for="{field}"]').wait_for()
            assert page.get_attribute(f"#form-alkemy [name={field}]", "aria-invalid") == "true"
        assert "-5" in page.inner_text('#form-alkemy [data-error-for="characteristic"]')
        assert "50" in page.inner_text('#form-alkemy [data-error-for="bonus"]')
        page.fill("#form-alkemy [name=characteristic]", "8")
        page.click("#form-alkemy [data-roll]")
        page.wait_for_function("""() => !document.querySelector('#form-alkemy [data-error-for="characteristic"]')
            .textContent && document.querySelector('#form-alkemy [data-error-for="bonus"]').textContent""")
        assert page.locator("#tray-alkemy [data-die]").count() == 0


def test_forms_come_back_offline(site, persistent):  # noqa: F811
    """After one visit, with the server stopped, a reload (from the service
    worker) brings back every edited form and the open tab."""
    httpd, base = serve_logged(site.parent)
    page, watch, _ = offline_page(persistent)
    try:
        page.goto(base + "dice/")
        page.wait_for_selector(READY, state="attached", timeout=FIRST_LOAD_MS)
        page.wait_for_selector(CONTROLLED, state="attached", timeout=SW_MS)
        edit_forms(page)
    finally:
        stop(httpd)
    reload(page)
    assert_edited(page)
    watch.check(page)
