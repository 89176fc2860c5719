"""SVG dice, drawn from result dicts. Pure Python: returns SVG text, touches
no DOM, and is unit-tested under CPython.

A die's outline tells its size (d4 triangle, d6 square, d8 diamond, d10
kite, d12 pentagon); its role is shown by a mark as well as by colour
(kept: a bullseye; dropped: struck through, dashed and faded, with a cross;
frozen: a snowflake and a double rim; rerolled: a turning arrow and the old
face; exploded: a burst; success: a check and an inner ring; wild: a star;
imaginary: a dotted, hollow outline), so nothing depends on colour alone.
Every die carries a text equivalent for screen readers.

>>> svg = die_svg({"sides": 6, "face": 4, "role": "kept"}, "0")
>>> 'data-die="0"' in svg and ">4<" in svg and "d6 showing 4" in svg
True
"""

from __future__ import annotations

import math
import re
from html import escape

from rules import milhamah

__all__ = ["die_svg", "tray", "shape_points", "HEBREW_NAMES", "COLOURS", "WILD", "describe"]

#: The token a wild face carries, and the Hebrew letters' names, as the
#: rules define them once (rules/milhamah_dice.json); a wild is drawn as a star.
WILD = milhamah.WILD
HEBREW_NAMES = {ch: name.lower() for ch, name in milhamah.LETTER_NAMES.items()}

#: Named die colours: (fill, ink, rim).
COLOURS = {
    "red": ("#b3261e", "#ffffff", "#6d1610"),
    "green": ("#1b7a43", "#ffffff", "#0e4526"),
    "blue": ("#1f5fa8", "#ffffff", "#113763"),
    "white": ("#f7f4ec", "#1d1d1d", "#6b675e"),
    "yellow": ("#f2c230", "#1d1d1d", "#8a6a00"),
    "black": ("#262626", "#ffffff", "#000000"),
    "purple": ("#6a3d9a", "#ffffff", "#3c1f5c"),
    "orange": ("#d4661c", "#ffffff", "#7a3608"),
    "teal": ("#13807a", "#ffffff", "#0a4a46"),
    "grey": ("#8a8f98", "#ffffff", "#4a4f57"),
}
DEFAULT_COLOUR = ("#fbfaf7", "#1d1d1d", "#4b4740")

_CSS_COLOUR = re.compile(r"^(#[0-9a-fA-F]{3,8}|[a-z]{3,20})$")

_ROLE_WORDS = {
    "kept": "kept", "dropped": "dropped", "frozen": "frozen", "rerolled": "rerolled",
    "exploded": "exploded", "wild": "wild", "success": "success", "fail": "no success",
    "imaginary": "imaginary (not rolled)", "rolled": "",
}


def shape_points(n: int) -> str | None:
    """The outline of a die with ``n`` faces in a 100×100 box, or None for a
    circle (sizes with no classic shape).

    >>> shape_points(6) is not None and shape_points(7) is None
    True
    """
    if n == 4:
        pts = [(50, 5), (96, 88), (4, 88)]
    elif n == 6:
        pts = [(8, 8), (92, 8), (92, 92), (8, 92)]
    elif n == 8:
        pts = [(50, 3), (97, 50), (50, 97), (3, 50)]
    elif n == 10:
        pts = [(50, 3), (95, 42), (50, 97), (5, 42)]
    elif n == 12:
        pts = [(50 + 48 * math.cos(math.radians(-90 + 72 * i)),
                53 + 48 * math.sin(math.radians(-90 + 72 * i))) for i in range(5)]
    else:
        return None
    return " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)


def _palette(colour) -> tuple[str, str, str]:
    if isinstance(colour, str):
        c = colour.strip().lower()
        if c in COLOURS:
            return COLOURS[c]
        if _CSS_COLOUR.match(c):
            return (c, "#1d1d1d" if c in ("white", "ivory", "yellow", "gold") else "#ffffff", "#333333")
    return DEFAULT_COLOUR


def _n_faces(die: dict) -> int:
    if isinstance(die.get("sides"), int):
        return die["sides"]
    faces = die.get("faces")
    if isinstance(faces, list):
        return len(faces)
    return 6


def _face_text(face) -> str:
    if isinstance(face, dict):  # a symbol face such as {"value": 4, "symbol": "axe"}
        face = face.get("value", "")
    if face is None:
        return ""
    return str(face)[:4]


def describe(die: dict, colour_name: str | None = None) -> str:
    """The text equivalent of a die, e.g. 'red d12 showing resh (ר), frozen'.

    >>> describe({"faces": ["ר"] * 12, "face": "ר", "role": "frozen", "colour": "red"})
    'red d12 showing resh (ר), frozen'
    """
    n = _n_faces(die)
    colour = colour_name or die.get("colour")
    face = die.get("face")
    text = _face_text(face)
    if text == WILD:
        shown = "a wild face"
    elif text in HEBREW_NAMES:
        shown = f"{HEBREW_NAMES[text]} ({text})"
    else:
        shown = text
    parts = [f"{colour + ' ' if isinstance(colour, str) and _CSS_COLOUR.match(colour) else ''}d{n} showing {shown}"]
    if die.get("symbol"):
        parts[0] += f" with {die['symbol']}"
    role = die.get("role", "rolled")
    word = _ROLE_WORDS.get(role, str(role))
    if word:
        parts.append(word)
    if die.get("success") and role != "success":
        parts.append("success")
    if die.get("wild") and role != "wild" and text != WILD:
        parts.append("wild")
    hist = die.get("history")
    if isinstance(hist, list) and len(hist) > 1:
        parts.append("earlier " + ", ".join(_face_text(h) for h in hist[:-1]))
    return ", ".join(parts)


def _star(cx: float, cy: float, r: float, points: int = 5, inner: float = 0.45) -> str:
    pts = []
    for i in range(points * 2):
        rad = r if i % 2 == 0 else r * inner
        a = math.radians(-90 + 180 / points * i)
        pts.append(f"{cx + rad * math.cos(a):.1f},{cy + rad * math.sin(a):.1f}")
    return " ".join(pts)


def _badge(kind: str) -> str:
    """A small mark in the die's top-right corner; shape, not colour, tells it."""
    g = '<g class="badge badge-{k}" transform="translate(80 18)">{body}</g>'
    circle = '<circle r="15" fill="#ffffff" stroke="#1d1d1d" stroke-width="3"/>'
    if kind == "frozen":
        lines = "".join(
            f'<line x1="0" y1="-10" x2="0" y2="10" stroke="#1d4e89" stroke-width="3" transform="rotate({a})"/>'
            for a in (0, 60, 120))
        return g.format(k=kind, body=circle + lines)
    if kind == "rerolled":
        return g.format(k=kind, body=circle + '<path d="M -7 -3 A 8 8 0 1 1 -3 7" fill="none" stroke="#1d1d1d" stroke-width="3"/>'
                        '<polygon points="-11,-6 -3,-6 -7,2" fill="#1d1d1d"/>')
    if kind == "exploded":
        return g.format(k=kind, body=f'<polygon points="{_star(0, 0, 16, 8, 0.5)}" fill="#ffd54a" stroke="#1d1d1d" stroke-width="2"/>')
    if kind == "success":
        return g.format(k=kind, body=circle + '<path d="M -8 0 L -2 7 L 9 -7" fill="none" stroke="#1b7a43" stroke-width="4"/>')
    if kind == "dropped":
        return g.format(k=kind, body=circle + '<path d="M -7 -7 L 7 7 M 7 -7 L -7 7" stroke="#1d1d1d" stroke-width="3"/>')
    if kind == "kept":
        return g.format(k=kind, body=circle + '<circle r="6" fill="#1d1d1d"/>')
    if kind == "wild":
        return g.format(k=kind, body=circle + f'<polygon points="{_star(0, 1, 10)}" fill="#1d1d1d"/>')
    return ""


def die_svg(die: dict, key: str | None = None, *, size: int = 64, colour: str | None = None,
            selected: bool = False, label: str | None = None) -> str:
    """One die as an ``<svg>`` element. With a ``key`` it is tappable
    (``data-die``, a button role, keyboard focus) and shows ``selected``.

    >>> 'stroke-dasharray' in die_svg({"sides": 8, "face": 2, "role": "dropped"})
    True
    """
    n = _n_faces(die)
    fill, ink, rim = _palette(colour or die.get("colour"))
    role = str(die.get("role", "rolled"))
    face = die.get("face")
    text = _face_text(face)
    aria = label if label is not None else describe(die, colour if isinstance(colour, str) else None)
    classes = ["die", f"d{n}", f"role-{re.sub(r'[^a-z_]', '', role)}"]
    if die.get("success"):
        classes.append("is-success")
    if selected:
        classes.append("is-selected")

    pts = shape_points(n)
    dash = ' stroke-dasharray="8 6"' if role in ("dropped",) else ""
    dash = ' stroke-dasharray="3 5"' if role == "imaginary" else dash
    body_fill = "none" if role == "imaginary" else fill
    if pts:
        outline = f'<polygon points="{pts}" fill="{body_fill}" stroke="{rim}" stroke-width="5" stroke-linejoin="round"{dash}/>'
    else:
        outline = f'<circle cx="50" cy="50" r="45" fill="{body_fill}" stroke="{rim}" stroke-width="5"{dash}/>'
    parts = [outline]
    if role == "frozen":  # a second rim, inside the first
        inner = f'<polygon points="{pts}" fill="none" stroke="#ffffff" stroke-width="3" transform="translate(12 12) scale(0.76)"/>' if pts \
            else '<circle cx="50" cy="50" r="36" fill="none" stroke="#ffffff" stroke-width="3"/>'
        parts.append(inner)
    if die.get("success") or role == "success":
        parts.append(f'<polygon points="{pts}" fill="none" stroke="#ffd54a" stroke-width="3" transform="translate(7 7) scale(0.86)"/>' if pts else "")

    ty = 64 if n == 4 else 60 if n == 10 else 62 if n == 12 else 58
    symbol = die.get("symbol")
    has_symbol = isinstance(symbol, str) and bool(symbol)
    if has_symbol:  # the number moves up so the weapon glyph below it has room
        ty -= 10
    if text == WILD:
        parts.append(f'<polygon class="wild" points="{_star(50, ty - 10, 24)}" fill="{ink}"/>')
    elif text:
        hebrew = text in HEBREW_NAMES
        fs = 44 if len(text) <= 1 else 36 if len(text) == 2 else 26
        if n == 4 or has_symbol:
            fs = min(fs, 34)
        family = "'Noto Sans Hebrew', sans-serif" if hebrew else "system-ui, sans-serif"
        parts.append(f'<text x="50" y="{ty}" text-anchor="middle" dominant-baseline="middle" font-size="{fs}" '
                     f'font-weight="700" font-family="{family}" fill="{ink}">{escape(text)}</text>')
    if has_symbol:
        parts.append(_symbol(symbol, ink))
    hist = die.get("history")
    if role == "rerolled" and isinstance(hist, list) and len(hist) > 1:
        old = escape(_face_text(hist[-2]))
        parts.append(f'<g class="old-face"><text x="16" y="20" font-size="20" font-family="system-ui, sans-serif" fill="{ink}">{old}</text>'
                     f'<line x1="8" y1="14" x2="28" y2="14" stroke="{ink}" stroke-width="2.5"/></g>')
    if role == "dropped":
        parts.append(f'<line x1="12" y1="88" x2="88" y2="12" stroke="{rim}" stroke-width="5"/>')
    badge = "success" if (die.get("success") and role not in ("frozen", "rerolled", "exploded", "dropped")) else role
    if badge == "wild" and text == WILD:
        badge = ""  # the star face is the mark
    parts.append(_badge(badge))

    attrs = [f'class="{" ".join(classes)}"', 'viewBox="-4 -4 108 108"', f'width="{size}"', f'height="{size}"',
             f'aria-label="{escape(aria)}"']
    if key is not None:
        attrs += [f'data-die="{escape(str(key))}"', 'role="button"', 'tabindex="0"',
                  f'aria-pressed="{"true" if selected else "false"}"', 'focusable="true"']
    else:
        attrs.append('role="img"')
    if role == "dropped":
        attrs.append('opacity="0.55"')
    ring = ('<rect class="select-ring" x="-3" y="-3" width="106" height="106" rx="14" fill="none" '
            'stroke="#e8590c" stroke-width="5" stroke-dasharray="10 5"/>') if selected else ""
    return f'<svg {" ".join(attrs)}><title>{escape(aria)}</title>{ring}{"".join(parts)}</svg>'


def _symbol(name: str, ink: str) -> str:
    """A small weapon glyph under the number (ALKEMY faces)."""
    name = name.lower()
    if name == "sword":
        body = (f'<line x1="0" y1="-9" x2="0" y2="9" stroke="{ink}" stroke-width="3"/>'
                f'<line x1="-6" y1="4" x2="6" y2="4" stroke="{ink}" stroke-width="3"/>')
    elif name == "axe":
        body = (f'<line x1="0" y1="-9" x2="0" y2="9" stroke="{ink}" stroke-width="3"/>'
                f'<path d="M 0 -9 Q 9 -6 8 2 L 0 0 Z" fill="{ink}"/>')
    elif name == "mace":
        body = (f'<line x1="0" y1="-2" x2="0" y2="9" stroke="{ink}" stroke-width="3"/>'
                f'<polygon points="{_star(0, -5, 7, 6, 0.55)}" fill="{ink}"/>')
    else:
        body = f'<text x="0" y="4" text-anchor="middle" font-size="12" fill="{ink}">{escape(name[:6])}</text>'
    return f'<g class="symbol symbol-{escape(re.sub("[^a-z]", "", name))}" transform="translate(50 78) scale(1.35)">{body}</g>'


def _slot(svg: str, tag: str | None, cls: str | None) -> str:
    """A die with its tag (a word or mark under it, for sighted players;
    the die's label already says it to screen readers)."""
    if tag is None and not cls:
        return svg
    classes = " ".join(c for c in ("die-slot", cls) if c)
    tag_html = f'<span class="die-tag" aria-hidden="true">{escape(tag)}</span>' if tag is not None else ""
    return f'<span class="{escape(classes)}">{svg}{tag_html}</span>'


def tray(dice: list, keys: list | None = None, *, selected=(), size: int = 64,
         caption: str | None = None, caption_html: str | None = None, labels: list | None = None,
         tags: list | None = None, classes: list | None = None, tappable: bool = True,
         row_class: str = "") -> str:
    """A row of dice, the one every tab draws.

    - ``keys`` (one per die, None for a die that takes no tap) mark each die
      with ``data-die`` (DESIGN.md); a tappable die is also a button showing
      ``selected``. With ``tappable=False`` the dice keep their marker but
      are not buttons (a side that may not choose).
    - ``labels``: each die's spoken label (default: ``describe``).
    - ``tags``: a word or mark under each die (None: no tag); ``classes``:
      a class for each die's slot (e.g. its colour or kind).
    - ``caption`` is text; ``caption_html`` is already escaped HTML (e.g.
      with Hebrew runs isolated).

    >>> row = tray([{"sides": 4, "face": 3}, {"sides": 12, "face": 9}], ["0", "1"], selected=["1"])
    >>> row.count("data-die=") == 2 and 'aria-pressed="true"' in row
    True
    >>> row = tray([{"sides": 6, "face": 2}], ["a"], tappable=False, tags=["kept"], classes=["k"])
    >>> 'data-die="a"' in row, 'role="button"' in row, '<span class="die-tag" aria-hidden="true">kept</span>' in row
    (True, False, True)
    """
    sel = set(selected or ())
    items = []
    for i, d in enumerate(dice):
        if not isinstance(d, dict):
            continue
        k = keys[i] if keys is not None and i < len(keys) else None
        label = labels[i] if labels is not None and i < len(labels) else None
        if tappable or k is None:
            svg = die_svg(d, k, size=size, selected=k is not None and k in sel, label=label)
        else:
            svg = die_svg(d, None, size=size, label=label)
            svg = svg.replace("<svg ", f'<svg data-die="{escape(str(k))}" ', 1)
        tag = tags[i] if tags is not None and i < len(tags) else None
        cls = classes[i] if classes is not None and i < len(classes) else None
        items.append(_slot(svg, tag, cls))
    if caption_html is None and caption:
        caption_html = escape(caption)
    cap = f"<figcaption>{caption_html}</figcaption>" if caption_html else ""
    label = f' aria-label="{escape(caption)}"' if caption else ""
    row = " ".join(c for c in ("dice-row", row_class) if c)
    return f'<figure class="{row}" role="group"{label}>{cap}<div class="dice">{"".join(items)}</div></figure>'
