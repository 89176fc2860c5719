"""The fairness view's pure module (static/py/trust/dicecheck.py): what ``run``
counts, the bounds on its size, and the HTML ``render`` makes of
a report (escaped, one chart per die, plain words)."""

from __future__ import annotations

import random
import re

import pytest

from rules.milhamah import model as milhamah
from trust import dicecheck


def test_run_counts_every_kind_n_times():
    """Each of the seven kinds is rolled n times; the expected counts add up
    to n too; df is one less than the faces; p agrees with chi2 and df."""
    r = dicecheck.run(600, random.Random(3))
    assert r["n"] == 600 and r["alpha"] == dicecheck.ALPHA
    assert [k["key"] for k in r["kinds"]] == ["d4", "d6", "d8", "d10", "d12", "letter", "symbol"]
    for k in r["kinds"]:
        assert sum(k["counts"]) == 600
        assert sum(k["expected"]) == pytest.approx(600)
        assert k["df"] == len(k["faces"]) - 1 == len(k["counts"]) - 1
        assert k["p"] == pytest.approx(dicecheck.p_value(k["chi2"], k["df"]))
        assert k["fair"] == (k["p"] >= dicecheck.ALPHA)
    sides = {k["key"]: len(k["faces"]) for k in r["kinds"]}
    assert sides == {"d4": 4, "d6": 6, "d8": 8, "d10": 10, "d12": 12, "letter": 12, "symbol": 6}


def test_the_letter_and_symbol_dice_are_the_rules_own():
    """The letter die is Milhamah's red design A, face for face; the symbol
    die shows ALKEMY's values with their symbol names."""
    r = dicecheck.run(60, random.Random(1))
    letter = next(k for k in r["kinds"] if k["key"] == "letter")
    assert letter["faces"] == milhamah.die_faces("red", "A")
    symbol = next(k for k in r["kinds"] if k["key"] == "symbol")
    assert symbol["faces"][0] == "1 Axe" and len(symbol["faces"]) == 6


def test_same_seed_same_report():
    assert dicecheck.run(300, random.Random(9)) == dicecheck.run(300, random.Random(9))


def test_default_source_is_the_pages_own(monkeypatch):
    """Without an rng the check uses ``system_rng`` (SystemRandom), the
    source every real roll uses, and says so."""
    made = []

    def spy():
        rng = random.SystemRandom()
        made.append(rng)
        return rng

    monkeypatch.setattr(dicecheck, "system_rng", spy)
    r = dicecheck.run(60)
    assert len(made) == 1 and r["source"].startswith("cryptographic")


@pytest.mark.parametrize("n", [59, 20001, -5, 0, 10 ** 9, "100", 100.0, True, None, [100]],
                         ids=repr)
def test_n_is_bounded(n):
    """n must be a whole number from 60 to 20000; anything else is a
    ValueError whose message can be shown as it is."""
    with pytest.raises(ValueError, match=r"60 to 20000"):
        dicecheck.run(n, random.Random(1))


@pytest.mark.parametrize("n", [dicecheck.MIN_N, dicecheck.MAX_N])
def test_the_bounds_themselves_run(n):
    assert dicecheck.run(n, random.Random(2))["n"] == n


class AlwaysOne:
    """The most biased die: always its first face."""

    def randint(self, a, b):
        return a


def test_render_fair_report():
    """One chart per die, each face a bar with the fair count as a dashed
    line, and the verdict in plain words with its p-value."""
    r = dicecheck.run(1000, random.Random(11))
    assert not r["flagged"]
    html = dicecheck.render(r)
    assert html.count("<svg") == 7 and html.count('class="expected"') == 4 + 6 + 8 + 10 + 12 + 12 + 6
    assert "A fair d6 would land on each face about 167 times in 1000; these counts are within " \
           "what chance gives (p = " in html
    assert "Every die's counts are within what chance gives" in html
    assert 'class="fairness-kind flagged"' not in html


def test_render_flags_a_biased_die():
    """A die that always shows its first face is flagged, in words and by
    its class, and the summary counts it."""
    html = dicecheck.render(dicecheck.run(600, AlwaysOne()))
    assert html.count('class="fairness-kind flagged"') == 7
    assert "7 of 7 dice look uneven" in html
    assert "less than once in a thousand checks (p = &lt; 0.0001)" in html


def test_render_escapes_every_text():
    """Text from a report (titles, faces, source) reaches the page escaped:
    no element or attribute can be injected."""
    r = dicecheck.run(60, random.Random(1))
    evil = '<img src=x onerror="alert(1)">'
    r["source"] = evil
    for k in r["kinds"]:
        k["title"] = evil
        k["key"] = evil
        k["faces"] = [evil] * len(k["faces"])
    html = dicecheck.render(r)
    assert "<img" not in html and 'onerror="' not in html
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in html
    # every tag in the output is one the module writes
    tags = set(re.findall(r"<([a-z0-9]+)", html))
    assert tags <= {"p", "ul", "li", "h4", "svg", "rect", "title", "line", "text"}
