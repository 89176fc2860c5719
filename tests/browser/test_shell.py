"""The page shell: loads offline from the vendored runtime, at the root and
from a sub-path, opens every form filled with a valid roll, and rolls."""

import pytest

from conftest import READY, open_app  # noqa: E402  (tests/browser/conftest.py)

import rules

pytestmark = pytest.mark.browser


def test_ready_marker_enables_roll_buttons(watched):
    """Once Python is ready every tab's Roll button is enabled and the
    loading indicator is gone."""
    page = watched
    assert page.locator("[data-roll]").count() == len(rules.SYSTEMS)
    assert page.locator("[data-roll]:disabled").count() == 0
    assert page.locator("#loading").is_hidden()


def test_tabs_switch_by_click_and_keyboard(watched):
    """Each tab opens its panel and hides the others; arrow keys move along."""
    page = watched
    first, last = rules.SYSTEMS[0], rules.SYSTEMS[-1]  # the registry's order is the tabs' order
    page.click(f"#tabbtn-{last}")
    assert page.locator(f"#tab-{last}").is_visible()
    assert page.locator(f"#tab-{first}").is_hidden()
    page.focus(f"#tabbtn-{last}")
    page.keyboard.press("ArrowRight")
    assert page.locator(f"#tab-{first}").is_visible()
    assert page.get_attribute(f"#tabbtn-{first}", "aria-selected") == "true"


def test_a_roll_draws_dice_and_says_why(watched):
    """Form → spec → rules → result → SVG, end to end, with the network
    blocked: the dice drawn match the pool and the text names the Score."""
    page = watched
    page.click("#tabbtn-jadeclaw")
    page.fill("#form-jadeclaw [name=dice]", "2d12 & d4")
    page.click("#form-jadeclaw [data-roll]")
    page.wait_for_selector("#tray-jadeclaw [data-die]")
    dice = page.locator('#tray-jadeclaw svg[data-die^="r0."]')  # the roller's dice (opposing ones follow)
    assert dice.count() == 3
    labels = [dice.nth(i).get_attribute("aria-label") for i in range(3)]
    assert sorted(l.split(" showing")[0] for l in labels) == ["d12", "d12", "d4"]  # drawn sorted by face
    faces = [int(l.split("showing ")[1].split(",")[0]) for l in labels]
    text = page.inner_text("#tray-jadeclaw")
    assert f"Score {max(faces)}" in text or f"Score: {max(faces)}" in text or f"score {max(faces)}" in text.lower()
    assert page.locator("#tray-jadeclaw").get_attribute("aria-live") == "polite"
    assert page.locator("#history-list [data-history-entry]").count() >= 1


def test_bad_input_is_shown_at_the_field(watched):
    """A pool the rules reject gets a message beside the field, not a crash."""
    page = watched
    page.click("#tabbtn-jadeclaw")
    page.fill("#form-jadeclaw [name=dice]", "2d7")
    page.click("#form-jadeclaw [data-roll]")
    err = page.locator('#form-jadeclaw [data-error-for="dice"]')
    err.wait_for()
    assert "d7" in err.inner_text()
    assert page.get_attribute("#form-jadeclaw [name=dice]", "aria-invalid") == "true"
    page.fill("#form-jadeclaw [name=dice]", "d8")
    page.click("#form-jadeclaw [data-roll]")
    page.wait_for_function("() => !document.querySelector('#form-jadeclaw [name=dice]').hasAttribute('aria-invalid')")


def test_every_form_opens_with_a_valid_roll(watched):
    """Roll works at once on every tab: no field error."""
    page = watched
    for system in rules.SYSTEMS:
        page.click(f"#tabbtn-{system}")
        page.click(f"#form-{system} [data-roll]")
        page.wait_for_selector(f"#tray-{system} [data-die]")
        errors = page.locator(f"#form-{system} .field-error").all_inner_texts()
        assert not any(e.strip() for e in errors), (system, errors)


def test_works_from_a_sub_path(browser, subpath_url):
    """Served as /dice/ (GitHub Pages style) it loads and rolls too."""
    context, page, watch = open_app(browser, subpath_url)
    try:
        page.click("#tabbtn-jadeclaw")
        page.click("#form-jadeclaw [data-roll]")
        page.wait_for_selector("#tray-jadeclaw [data-die]")
        watch.check(page)
    finally:
        context.close()
