"""The page escapes text without importing ``html`` at start (docs/SPEED.md,
"What changed"): ``draw.escape`` must give what ``html.escape`` gives, on any text,
and ``views.esc`` every text the tabs show."""

from __future__ import annotations

import html
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from drawing import draw, views

ROOT = Path(__file__).resolve().parents[2]

TRICKY = ['<img src=x onerror="alert(1)">', "Tom & Jerry's", "&amp; already", "שלום <b>", "\"'<>&", "", "a\x00b"]


def test_escape_is_html_escape_on_tricky_text():
    for text in TRICKY:
        assert draw.escape(text) == html.escape(text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("&<>\"'ab ;#x") + ["ש", "\u202e"]) | st.characters(), max_size=40))
def test_escape_is_html_escape_on_any_text(text):
    assert draw.escape(text) == html.escape(text, quote=True)
    assert views.esc(text) == html.escape(text, quote=True)


@pytest.mark.skipif(sys.platform == "emscripten", reason="needs a subprocess")
def test_the_tabs_start_without_html_or_the_fair_modules():
    """What ``main.py`` imports before ready, in a fresh interpreter: not
    ``html`` (its entity table), not ``fairrolls.fair``/``fairrolls.fairview`` nor the hashing
    they bring (imported after ready)."""
    code = ("import sys; import rules, tabs.formstate, links.share, records.store, tabs.tab, drawing.views, "
            "tabs.ui_alkemy, tabs.ui_jadeclaw, tabs.ui_milhamah, tabs.ui_mirage, tabs.ui_open_tale, shell.page, "
            "tabs.forms, tabs.trayview, odds.oddspanel, records.history, records.setups, links.sharedialog, "
            "fairrolls.fairpanel, records.backup; "
            "print(sorted(m for m in ('html', 'fairrolls.fair', 'fairrolls.fairview', 'hashlib', 'hmac', 'secrets') "
            "if m in sys.modules))")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "static" / "py")])}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
