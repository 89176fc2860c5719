"""One dice-row drawer: every tab's tray and the history's
thumbnails draw their dice through ``draw.tray``, and its layouts give
Jadeclaw's damage pairs as columns and Open Tale's explosions as chains.

The proof that nothing draws a die beside it: ``draw.tray`` is wrapped to
record what it returns, a result is rendered, and once every recorded row
is cut out of the page's HTML no die is left."""

from __future__ import annotations

import importlib
import random
import re

import pytest

import cases
import rules
from drawing import draw, views
from rules.dice import ScriptedRng


def _results() -> dict:
    """Each game's results, their dice forced (``cases.TRAY_ROLLS``: the
    draws a list of faces, or a seed): Jadeclaw's a Damage Roll with a
    soak die left over and a Penalty roll against a Difficulty, Open
    Tale's with a die that explodes twice."""
    return {system: [rules.roll(system, spec, ScriptedRng(draws) if isinstance(draws, list) else random.Random(draws))
                     for spec, draws in rolls]
            for system, rolls in cases.every("TRAY_ROLLS").items()}


RESULTS = _results()


@pytest.fixture
def rows(monkeypatch):
    """``draw.tray`` wrapped: each call's layout and HTML, in order."""
    calls: list[tuple[str, str]] = []
    real = draw.tray

    def spy(*args, **kw):
        html = real(*args, **kw)
        calls.append((kw.get("layout", "row"), html))
        return html

    monkeypatch.setattr(draw, "tray", spy)
    return calls


#: A die's SVG, its class wherever it stands among the attributes (a die
#: that takes no tap has its ``data-die`` first).
_DIE = re.compile(r'<svg\b[^>]*\sclass="die[\s"]')


def _dice(html: str) -> int:
    """How many dice ``html`` draws."""
    return len(_DIE.findall(html))


def _left_over(html: str, calls: list) -> str:
    """The HTML with every recorded row cut out (the outermost first: a
    row may hold no other row, so any order of cutting works)."""
    for _, row in calls:
        html = html.replace(row, "")
    return html


@pytest.mark.parametrize("system, i", [(s, i) for s, rs in RESULTS.items() for i in range(len(rs))],
                         ids=[f"{s}-{i}" for s, rs in RESULTS.items() for i in range(len(rs))])
def test_every_tray_draws_its_dice_through_the_one_drawer(rows, system, i):
    """A tab's result: every die on its tray came out of ``draw.tray``."""
    ui = importlib.import_module(f"tabs.ui_{system}")
    html = ui.render_result(RESULTS[system][i], {"selected": []})
    assert rows, "the tray drew no row"
    assert _dice(html) >= len(RESULTS[system][i].get("dice") or [])
    assert _dice(_left_over(html, rows)) == 0


def test_history_thumbnails_go_through_the_one_drawer(rows):
    """A history entry's small dice are ``draw.tray``'s ``thumbs`` layout:
    inside the entry's button (a span, no figure), 28 px, the 'kept'
    bullseye left out, and "+N" past twelve dice; the table log's too."""
    for result in [r for rs in RESULTS.values() for r in rs]:
        rows.clear()
        html = views.history_entry({"result": result}, 0, "Title", "summary")
        assert [layout for layout, _ in rows] == ["thumbs"]
        assert _dice(_left_over(html, rows)) == 0
        assert _dice(html) == min(12, len(result["dice"]))
        assert 'width="28"' in rows[0][1] and "badge-kept" not in rows[0][1] and "<figure" not in rows[0][1]
    rows.clear()
    from table import livetable
    result = RESULTS["jadeclaw"][1]
    entry = {"id": "1", "by": "Dana", "how": "phone", "y": "jadeclaw", "p": result["spec"], "g": result["stages"],
             "l": "", "at": 0}
    html = livetable.log_item(entry, result, "Jadeclaw", "summary")  # the table's log: the same thumbnails
    assert [layout for layout, _ in rows] == ["thumbs"] and _dice(_left_over(html, rows)) == 0
    assert 'width="24"' in rows[0][1]
    rows.clear()
    many = {"outcome": "scored", "dice": [{"sides": 6, "face": 6, "role": "kept"}] * 15}
    html = views.history_entry({"result": many}, 0, "Title", "summary")
    assert _dice(html) == 12 and '<span class="more">+3</span>' in html


def test_pairs_layout_draws_jadeclaw_damage_as_columns(rows):
    """Jadeclaw's Damage Roll goes through the ``pairs`` layout: an ordered
    list of columns, each the damage die over its soak die joined by "vs",
    its hits spoken under them; the soak die left over has a dash above."""
    from tabs import ui_jadeclaw
    ui_jadeclaw.render_result(RESULTS["jadeclaw"][0], {"selected": ["p1.s"]})
    pairs = [html for layout, html in rows if layout == "pairs"]
    assert len(pairs) == 1
    cols = re.findall(r'<li class="die-slot jc-pair hits-(\d)" data-pair="(\d)">(.*?)</li>', pairs[0])
    assert [(h, n) for h, n, _ in cols] == [("1", "0"), ("1", "1"), ("0", "2")]
    for n, (_, _, body) in enumerate(cols):
        assert body.count('<span class="die-join" aria-hidden="true">vs</span>') == 1
        assert f'data-die="p{n}.s"' in body
        assert body.index("vs</span>") < body.index(f'data-die="p{n}.s"')  # soak below
    assert 'class="die-empty"' in cols[2][2] and "data-die=\"p2.d\"" not in cols[2][2]
    assert '<span class="die-tag jc-hits">unused soak die</span>' in cols[2][2]  # spoken: no aria-hidden
    assert 'data-die="p1.s"' in pairs[0] and pairs[0].count('aria-pressed="true"') == 1
    assert pairs[0].startswith('<figure class="dice-row jc-pairs-wrap" role="group"')
    assert '<ol class="dice jc-pairs">' in pairs[0]


def test_chain_layout_draws_open_tale_explosions(rows):
    """Open Tale's dice go through the ``chain`` layout: the die, then each
    explosion as a smaller die after an arrow, the caption under them; a
    die that did not explode is a chain of one."""
    from tabs import ui_open_tale
    result = RESULTS["open_tale"][0]
    ui_open_tale.render_result(result, {"selected": []})
    chains = [html for layout, html in rows if layout == "chain"]
    assert len(chains) == len(result["dice"])
    for die, html in zip(result["dice"], chains):
        expl = die.get("explosions") or []
        assert _dice(html) == 1 + len(expl)
        assert html.count('aria-hidden="true">→</span>') == len(expl)
        assert html.count('width="64"') == 1 and html.count('width="44"') == len(expl)
        assert html.index("<figcaption>") > html.rindex("<svg")  # the caption under the chain
        assert re.search(r'<div class="dice ot-chain"><svg ', html)
    assert [len(d.get("explosions") or []) for d in result["dice"]] == [2, 2, 0]


def test_layouts_share_one_die_drawing():
    """Whatever the layout, a die is drawn the same: the row's die and the
    chain's first die (same die, key, size) are the same SVG."""
    die = {"sides": 8, "face": 5, "role": "rolled"}
    row = draw.tray([die], ["k"])
    chain = draw.tray([[die]], [["k"]], layout="chain")
    cols = draw.tray([[die, None]], [["k", None]], layout="pairs")
    svg = draw.die_svg(die, "k")
    assert svg in row and svg in chain and svg in cols
