"""Roles and states are not carried by colour alone: each
role a die can take draws a mark of its own — a badge shape, a dash
pattern, a second rim, a struck line — that survives in greyscale, and the
die's text equivalent names the role."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "static" / "py"))

from drawing import draw  # noqa: E402

ROLES = ("kept", "dropped", "frozen", "rerolled", "exploded", "wild", "success", "imaginary")

#: The words a listener hears for each role.
SPOKEN = {"kept": "kept", "dropped": "dropped", "frozen": "frozen", "rerolled": "rerolled",
          "exploded": "exploded", "wild": "wild", "success": "success", "imaginary": "imaginary"}

_COLOUR_ATTRS = re.compile(r'\s(?:fill|stroke|color|opacity)="[^"]*"')


def _die(role: str, **extra) -> dict:
    die = {"sides": 6, "face": 3, "role": role, "history": [5, 3]}
    die.update(extra)
    return die


def marks(svg: str) -> str:
    """The SVG with every colour (fill, stroke, opacity) and every text
    equivalent taken out: what a colour-blind eye, or a greyscale print,
    still has to go on."""
    svg = re.sub(r"<title>.*?</title>", "", svg)
    svg = re.sub(r'\saria-label="[^"]*"', "", svg)
    svg = re.sub(r'\sclass="[^"]*"', "", svg)  # classes only matter through what they draw
    return _COLOUR_ATTRS.sub("", svg)


@pytest.mark.parametrize("colour", [None, "red", "white"], ids=["plain", "red", "white"])
def test_each_role_has_its_own_non_colour_mark(colour):
    """Drawn in the same colour, any two roles differ once colour is removed,
    and each differs from a plain rolled die."""
    drawn = {role: marks(draw.die_svg(_die(role), "0", colour=colour)) for role in ROLES}
    drawn["rolled"] = marks(draw.die_svg(_die("rolled"), "0", colour=colour))
    for a in drawn:
        for b in drawn:
            if a < b:
                assert drawn[a] != drawn[b], f"{a} and {b} look alike without colour"


@pytest.mark.parametrize("role", ROLES)
def test_each_role_draws_a_named_mark(role):
    """The mark is a badge of the role's own shape, or a dash pattern (the
    imaginary die's dotted outline; a dropped die's dashes and cross)."""
    svg = draw.die_svg(_die(role), "0")
    badges = re.findall(r'class="badge badge-([a-z]+)"', svg)
    dashes = re.findall(r'stroke-dasharray="([^"]+)"', svg)
    if role == "imaginary":
        assert dashes == ["3 5"] and 'fill="none"' in svg.split("<polygon", 1)[1].split(">", 1)[0]
    else:
        assert badges == [role]
    if role == "dropped":
        assert dashes == ["8 6"]


def test_a_wild_face_is_a_star_and_needs_no_badge():
    """A wild face is drawn as a star shape (not a coloured letter)."""
    svg = draw.die_svg({"faces": ["א", draw.WILD], "face": draw.WILD, "role": "wild"}, "0")
    assert 'class="wild"' in svg and "badge-" not in svg
    assert "a wild face" in draw.describe({"faces": ["א", draw.WILD], "face": draw.WILD, "role": "wild"})


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("tappable", [True, False], ids=["button", "img"])
def test_the_text_equivalent_names_the_role(role, tappable):
    """Both the aria-label and the <title> say the role in words."""
    svg = draw.die_svg(_die(role, colour="green"), "0" if tappable else None)
    label = re.search(r'aria-label="([^"]*)"', svg).group(1)
    title = re.search(r"<title>(.*?)</title>", svg).group(1)
    assert SPOKEN[role] in label and label == title
    assert label.startswith("green d6 showing 3")
    assert ('role="button"' in svg) == tappable and ('role="img"' in svg) != tappable


def test_success_flag_on_a_kept_die_is_spoken_and_drawn():
    """A flag beside the role (success on a kept die) is heard and seen too."""
    svg = draw.die_svg(_die("kept", success=True), "0")
    label = re.search(r'aria-label="([^"]*)"', svg).group(1)
    assert "kept" in label and "success" in label
    assert "badge-success" in svg


def test_selection_is_a_dashed_ring_and_a_pressed_state():
    """A tapped die shows a dashed ring (not only a colour change) and
    says so through aria-pressed."""
    plain = draw.die_svg(_die("rolled"), "0")
    tapped = draw.die_svg(_die("rolled"), "0", selected=True)
    assert 'aria-pressed="false"' in plain and 'aria-pressed="true"' in tapped
    assert "select-ring" in tapped and 'stroke-dasharray="10 5"' in tapped
    assert "select-ring" not in plain
