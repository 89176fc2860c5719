"""The test-side scripted dice (``scripted_dice``): the byte it gives each
face is the one CPython's own ``SystemRandom`` turns into that face at the
first draw, for every die of up to 255 faces; in the page, a default roll
with scripted faces shows exactly those faces and records exactly those
draws; and a roll that takes fewer or more one-byte draws than were
scripted fails the block loudly."""

from __future__ import annotations

import json
import random

import pytest
from conftest import watched_page  # noqa: E402  (tests/browser/conftest.py)
from scripted_dice import SCRIPT, byte_of, forced, roll_dice

import rules

SLOW = 60_000


def test_each_face_is_drawn_from_its_byte_at_once(monkeypatch):
    """For every n from 1 to 255 and every face f of a dn, the byte
    ``byte_of(f, n)`` as ``os.urandom``'s only answer makes CPython's
    ``random.SystemRandom().randint(1, n)`` give f, asking one byte once (no
    rejected draw: a second request would find no byte)."""
    asked = []

    def urandom(n):
        asked.append(n)
        assert len(asked) == 1, "a second draw: the first was rejected"
        return bytes([queue.pop()])

    monkeypatch.setattr(random, "_urandom", urandom)
    system = random.SystemRandom()
    for sides in range(1, 256):
        for face in range(1, sides + 1):
            queue, asked[:] = [byte_of(face, sides)], []
            assert system.randint(1, sides) == face, (face, sides)
            assert asked == [1]
    with pytest.raises(ValueError):
        byte_of(1, 256)


def _roll_jadeclaw(page):
    page.evaluate("document.querySelector('#tray-jadeclaw').innerHTML = ''")
    page.click("#form-jadeclaw [data-roll]")
    page.wait_for_selector("#tray-jadeclaw .outcome", timeout=SLOW)


def _stored_draws(page, count):
    """The draws of the newest stored roll, once the store holds ``count``
    rolls (it is written just after the paint)."""
    page.wait_for_function("(n) => (JSON.parse(localStorage.getItem('dice-table/history') || '{}')"
                           ".entries || []).length === n", arg=count, timeout=SLOW)
    stored = json.loads(page.evaluate("localStorage.getItem('dice-table/history')"))
    return stored["entries"][0]["stages"]


@pytest.mark.browser
def test_a_default_roll_shows_the_scripted_faces_and_nothing_else_takes_them(browser, base_url):
    """Jadeclaw's default roll (d12 & d8 against the difficulty's 2d6),
    scripted to each die's top face but one at 1: the tray reads out exactly
    those faces, the stored roll holds exactly those draws, and the queue
    was drained exactly. Scripting one die more, or one fewer, than the roll
    draws fails the block."""
    spec = rules.default_spec("jadeclaw")
    faces = [12, 1, 6, 5]
    dice = roll_dice("jadeclaw", spec, faces)
    assert [sides for _, sides in dice] == [12, 8, 6, 6]
    with watched_page(browser, base_url, init_script=SCRIPT) as page:
        page.click("#tabbtn-jadeclaw")
        page.wait_for_selector("#form-jadeclaw [data-roll]:not([disabled])", timeout=SLOW)
        with forced(page, dice):
            _roll_jadeclaw(page)
        labels = page.eval_on_selector_all("#tray-jadeclaw svg[data-die]", "ds => ds.map(d => d.getAttribute('aria-label'))")
        assert [label.split(",")[0] for label in labels] == [
            "d12 showing 12", "d8 showing 1", "grey d6 showing 6", "grey d6 showing 5"], labels
        assert _stored_draws(page, 1) == [{"do": "roll", "draws": faces}]

        with pytest.raises(AssertionError, match='"left": 1'):
            with forced(page, dice + [(3, 6)]):  # a die the roll does not draw
                _roll_jadeclaw(page)
        with pytest.raises(AssertionError, match=r'"over": [1-9]'):
            with forced(page, dice[:3]):  # the last die left to chance
                _roll_jadeclaw(page)
        assert _stored_draws(page, 3)[0]["draws"][:3] == faces[:3]
