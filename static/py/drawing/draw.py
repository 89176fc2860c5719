"""SVG dice, drawn from result dicts. Pure Python: returns SVG text, touches
no DOM, and is unit-tested under CPython.

A die's outline tells its size (d4 triangle, d6 square, d8 diamond, d10
the kite of a pentagonal trapezohedron with its facets, d12 pentagon); a
die with a symbol (ALKEMY's axe, sword, mace) shows the number above a
large glyph; its role is shown by a mark as well as by colour
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
from typing import NamedTuple

from rules.milhamah import model as milhamah

__all__ = ["die_svg", "tray", "drawn_keys", "thumbnails", "LAYOUTS", "shape_points", "HEBREW_NAMES", "COLOURS", "WILD",
           "describe", "escape"]

#: What ``html.escape(text, quote=True)`` replaces. Importing ``html`` costs
#: a start its entity table and a large regex (about 30 ms in the browser,
#: docs/SPEED.md), for a function this page uses only in this form.
_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;"})


def escape(text: str) -> str:
    """``html.escape(text)``: the five characters HTML gives a meaning.

    >>> print(escape("<b class='x'>Tom & Jerry</b>"))
    &lt;b class=&#x27;x&#x27;&gt;Tom &amp; Jerry&lt;/b&gt;
    """
    return text.translate(_ESCAPES)


#: The token a wild face carries, and the Hebrew letters' names, as the
#: rules define them once (rules/milhamah/dice.json); a wild is drawn as a star.
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


#: Die outlines in a 100×100 box, by number of faces.
SHAPES = {
    4: [(50, 5), (96, 88), (4, 88)],
    6: [(8, 8), (92, 8), (92, 92), (8, 92)],
    8: [(50, 3), (97, 50), (50, 97), (3, 50)],
    # a d10 seen face-on: the top kite face, two side faces, a lower point
    10: [(50, 3), (96, 44), (92, 66), (50, 97), (8, 66), (4, 44)],
    12: [(50 + 48 * math.cos(math.radians(-90 + 72 * i)), 53 + 48 * math.sin(math.radians(-90 + 72 * i)))
         for i in range(5)],
}
#: The d10's facet edges: the kite face the number sits on, and its lower edges.
D10_FACETS = "M 50 3 L 80 56 L 50 72 L 20 56 Z M 80 56 L 92 66 M 20 56 L 8 66 M 50 72 L 50 97"
#: Where the number's middle sits, by number of faces (the d10's on its kite face).
TEXT_Y = {4: 64, 10: 46, 12: 62}


def shape_points(n: int) -> str | None:
    """The outline of a die with ``n`` faces in a 100×100 box, or None for a
    circle (sizes with no classic shape).

    >>> shape_points(6) is not None and shape_points(7) is None
    True
    >>> shape_points(8) != shape_points(10)
    True
    """
    pts = SHAPES.get(n)
    return " ".join(f"{x:.1f},{y:.1f}" for x, y in pts) if pts else None


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


def _spoken_face(text: str) -> str:
    if text == WILD:
        return "a wild face"
    return f"{HEBREW_NAMES[text]} ({text})" if text in HEBREW_NAMES else text


def _earlier(hist) -> str:
    """A rerolled die's earlier faces in words ("earlier 3, 5"); none for a
    die rolled once."""
    if isinstance(hist, list) and len(hist) > 1:
        return "earlier " + ", ".join(_face_text(h) for h in hist[:-1])
    return ""


def _role_words(die: dict, role: str, text: str) -> list:
    """The role in words, and the flags the role (or a wild face) does not
    already say."""
    said = {role, "wild" if text == WILD else None}
    words = [_ROLE_WORDS.get(role, str(role))]
    words += [flag for flag in ("success", "wild") if die.get(flag) and flag not in said]
    words.append(_earlier(die.get("history")))
    return [w for w in words if w]


def describe(die: dict, colour_name: str | None = None) -> str:
    """The text equivalent of a die, e.g. 'red d12 showing resh (ר), frozen'.

    >>> describe({"faces": ["ר"] * 12, "face": "ר", "role": "frozen", "colour": "red"})
    'red d12 showing resh (ר), frozen'
    >>> describe({"sides": 6, "face": {"value": 4}, "symbol": "axe", "role": "kept", "success": True})
    'd6 showing 4 with axe, kept, success'
    """
    colour = colour_name or die.get("colour")
    text = _face_text(die.get("face"))
    named = f"{colour} " if isinstance(colour, str) and _CSS_COLOUR.match(colour) else ""
    head = f"{named}d{_n_faces(die)} showing {_spoken_face(text)}"
    if die.get("symbol"):
        head += f" with {die['symbol']}"
    return ", ".join([head] + _role_words(die, die.get("role", "rolled"), text))


def _star(cx: float, cy: float, r: float, points: int = 5, inner: float = 0.45) -> str:
    pts = []
    for i in range(points * 2):
        rad = r if i % 2 == 0 else r * inner
        a = math.radians(-90 + 180 / points * i)
        pts.append(f"{cx + rad * math.cos(a):.1f},{cy + rad * math.sin(a):.1f}")
    return " ".join(pts)


_BADGE_RING = '<circle r="15" fill="#ffffff" stroke="#1d1d1d" stroke-width="3"/>'

#: Each badge's drawing in a ±16 box, by the kind it marks (a role, or
#: success): shape, not colour, tells them apart.
BADGES = {
    "frozen": _BADGE_RING + "".join(
        f'<line x1="0" y1="-10" x2="0" y2="10" stroke="#1d4e89" stroke-width="3" transform="rotate({a})"/>'
        for a in (0, 60, 120)),
    "rerolled": _BADGE_RING + '<path d="M -7 -3 A 8 8 0 1 1 -3 7" fill="none" stroke="#1d1d1d" stroke-width="3"/>'
                              '<polygon points="-11,-6 -3,-6 -7,2" fill="#1d1d1d"/>',
    "exploded": f'<polygon points="{_star(0, 0, 16, 8, 0.5)}" fill="#ffd54a" stroke="#1d1d1d" stroke-width="2"/>',
    "success": _BADGE_RING + '<path d="M -8 0 L -2 7 L 9 -7" fill="none" stroke="#1b7a43" stroke-width="4"/>',
    "dropped": _BADGE_RING + '<path d="M -7 -7 L 7 7 M 7 -7 L -7 7" stroke="#1d1d1d" stroke-width="3"/>',
    "kept": _BADGE_RING + '<circle r="6" fill="#1d1d1d"/>',
    "wild": _BADGE_RING + f'<polygon points="{_star(0, 1, 10)}" fill="#1d1d1d"/>',
}


def _badge(kind: str) -> str:
    """A small mark in the die's top-right corner (``BADGES``); none for a
    kind that has no badge."""
    body = BADGES.get(kind)
    return f'<g class="badge badge-{kind}" transform="translate(80 18)">{body}</g>' if body else ""


def _outline(pts: str | None, role: str, fill: str, rim: str) -> str:
    """The die's body: dashed when dropped, dotted and hollow when imaginary."""
    dash = {"dropped": ' stroke-dasharray="8 6"', "imaginary": ' stroke-dasharray="3 5"'}.get(role, "")
    body = "none" if role == "imaginary" else fill
    if pts:
        return (f'<polygon points="{pts}" fill="{body}" stroke="{rim}" stroke-width="5" '
                f'stroke-linejoin="round"{dash}/>')
    return f'<circle cx="50" cy="50" r="45" fill="{body}" stroke="{rim}" stroke-width="5"{dash}/>'


def _rims(n: int, pts: str | None, role: str, success: bool, rim: str) -> str:
    """The d10's facets; a frozen die's second rim; a success's inner ring."""
    out = f'<path class="facets" d="{D10_FACETS}" fill="none" stroke="{rim}" stroke-width="2.5"/>' if n == 10 else ""
    if role == "frozen":
        out += _second_rim(pts)
    if success and pts:
        out += f'<polygon points="{pts}" fill="none" stroke="#ffd54a" stroke-width="3" transform="translate(7 7) scale(0.86)"/>'
    return out


#: A face's font size by its length in characters (longer faces: 26).
FONT_SIZES = {0: 44, 1: 44, 2: 36}
#: The largest font a d4's and a d10's kite leave room for.
FONT_ROOM = {4: 34, 10: 32}


def _second_rim(pts: str | None) -> str:
    """A frozen die's second rim, in white: its outline shrunk inside
    itself (a round die's, a smaller circle)."""
    if pts:
        return (f'<polygon points="{pts}" fill="none" stroke="#ffffff" stroke-width="3" '
                'transform="translate(12 12) scale(0.76)"/>')
    return '<circle cx="50" cy="50" r="36" fill="none" stroke="#ffffff" stroke-width="3"/>'


def _font_size(text: str, n: int, symbol: str | None) -> int:
    """Long faces smaller; a d4, a d10's kite and a symbol face leave less room."""
    fs = FONT_SIZES.get(len(text), 26)
    return min(fs, 30 if symbol else FONT_ROOM.get(n, fs))


def _face(text: str, n: int, symbol: str | None, ink: str) -> str:
    """The face: a wild star, a letter or a number; with a symbol, the
    number sits high and the symbol's glyph fills the lower half."""
    ty = 30 if symbol else TEXT_Y.get(n, 58)
    if text == WILD:
        return f'<polygon class="wild" points="{_star(50, ty - 10, 24)}" fill="{ink}"/>'
    return _number(text, n, symbol, ink, ty) + (_symbol(symbol, ink) if symbol else "")


def _number(text: str, n: int, symbol: str | None, ink: str, ty: float) -> str:
    """The face's number or letter, its middle at height ``ty``; a letter
    in a Hebrew font; nothing on a blank face."""
    if not text:
        return ""
    family = "'Noto Sans Hebrew', sans-serif" if text in HEBREW_NAMES else "system-ui, sans-serif"
    return (f'<text x="50" y="{ty}" text-anchor="middle" dominant-baseline="middle" '
            f'font-size="{_font_size(text, n, symbol)}" font-weight="700" font-family="{family}" '
            f'fill="{ink}">{escape(text)}</text>')


def _old_face(role: str, hist, ink: str) -> str:
    """A rerolled die's earlier face, struck through, in its corner."""
    if role != "rerolled" or not isinstance(hist, list) or len(hist) < 2:
        return ""
    old = escape(_face_text(hist[-2]))
    return (f'<g class="old-face"><text x="16" y="20" font-size="20" font-family="system-ui, sans-serif" '
            f'fill="{ink}">{old}</text><line x1="8" y1="14" x2="28" y2="14" stroke="{ink}" stroke-width="2.5"/></g>')


def _strike(role: str, rim: str) -> str:
    """A dropped die is struck through, corner to corner."""
    return f'<line x1="12" y1="88" x2="88" y2="12" stroke="{rim}" stroke-width="5"/>' if role == "dropped" else ""


def _badge_of(die: dict, role: str, text: str) -> str:
    """Which badge a die wears: its role's, or success's for a plain die
    that counts; none on a wild star (the star is the mark)."""
    if die.get("success") and role not in ("frozen", "rerolled", "exploded", "dropped"):
        return "success"
    return "" if role == "wild" and text == WILD else role


def _tap_attrs(key, selected: bool) -> list[str]:
    """A tappable die's attributes (its marker, a button role, keyboard
    focus, whether it is selected); a die with no key is an image."""
    if key is None:
        return ['role="img"']
    return [f'data-die="{escape(str(key))}"', 'role="button"', 'tabindex="0"',
            f'aria-pressed="{"true" if selected else "false"}"', 'focusable="true"']


def _svg_attrs(n: int, role: str, die: dict, aria: str, key, size: int, selected: bool) -> str:
    classes = ["die", f"d{n}", f"role-{re.sub(r'[^a-z_]', '', role)}"]
    classes += ["is-success"] if die.get("success") else []
    classes += ["is-selected"] if selected else []
    attrs = [f'class="{" ".join(classes)}"', 'viewBox="-4 -4 108 108"', f'width="{size}"', f'height="{size}"',
             f'aria-label="{escape(aria)}"'] + _tap_attrs(key, selected)
    if role == "dropped":
        attrs.append('opacity="0.55"')
    return " ".join(attrs)


def _symbol_name(die: dict) -> str | None:
    """The symbol a die's face carries (ALKEMY's weapons), if any."""
    symbol = die.get("symbol")
    return symbol if isinstance(symbol, str) and symbol else None


SELECT_RING = ('<rect class="select-ring" x="-3" y="-3" width="106" height="106" rx="14" fill="none" '
               'stroke="#e8590c" stroke-width="5" stroke-dasharray="10 5"/>')


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
    text = _face_text(die.get("face"))
    symbol = _symbol_name(die)
    aria = label if label is not None else describe(die, colour if isinstance(colour, str) else None)
    pts = shape_points(n)
    parts = [_outline(pts, role, fill, rim), _rims(n, pts, role, bool(die.get("success")) or role == "success", rim),
             _face(text, n, symbol, ink), _old_face(role, die.get("history"), ink),
             _strike(role, rim), _badge(_badge_of(die, role, text))]
    return (f'<svg {_svg_attrs(n, role, die, aria, key, size, selected)}><title>{escape(aria)}</title>'
            f'{SELECT_RING if selected else ""}{"".join(parts)}</svg>')


#: Weapon glyphs for symbol faces (ALKEMY), drawn in a ±10 box: a sword
#: (blade, guard, grip, pommel), a bearded axe, a flanged mace.
GLYPHS = {
    "sword": ('<polygon points="0,-10.5 2.8,-7.5 2.8,3 -2.8,3 -2.8,-7.5" fill="{ink}"/>'
              '<line x1="-7.5" y1="4" x2="7.5" y2="4" stroke="{ink}" stroke-width="2.8" stroke-linecap="round"/>'
              '<line x1="0" y1="4.5" x2="0" y2="8.5" stroke="{ink}" stroke-width="2.6"/>'
              '<circle cx="0" cy="9.6" r="1.9" fill="{ink}"/>'),
    "axe": ('<line x1="-3" y1="-9" x2="-3" y2="10.5" stroke="{ink}" stroke-width="2.8" stroke-linecap="round"/>'
            '<path d="M -3 -6 L 3 -4.5 L 7 -10 Q 12.5 -1 7 8 L 3 2.5 L -3 2 Z" fill="{ink}"/>'),
    "mace": ('<line x1="0" y1="0" x2="0" y2="10.5" stroke="{ink}" stroke-width="2.8" stroke-linecap="round"/>'
             '<polygon points="{head}" fill="{ink}"/>'),
}


def _symbol(name: str, ink: str) -> str:
    """A weapon glyph filling the lower half of the face (ALKEMY); an
    unknown symbol is written out in small letters."""
    key = name.lower()
    glyph = GLYPHS.get(key)
    body = (glyph.format(ink=ink, head=_star(0, -4, 7, 8, 0.6)) if glyph
            else f'<text x="0" y="4" text-anchor="middle" font-size="9" fill="{ink}">{escape(key[:6])}</text>')
    return (f'<g class="symbol symbol-{escape(re.sub("[^a-z]", "", key))}" '
            f'transform="translate(50 68) scale(2.2)">{body}</g>')


class Layout(NamedTuple):
    """How ``tray`` lays its dice out: the elements around them, what joins
    the dice of one slot, and where the caption goes."""
    outer: str          # the element around the row ("figure"; "span" inside a button)
    base: str           # its class
    items: str          # the element around the slots ("" for none)
    slot: str           # each slot's element when it is wrapped
    join: str           # the mark between the dice of one slot (not read out)
    numbered: str       # an attribute numbering each slot ("" for none)
    spoken_tags: bool   # the tags say what the dice's labels do not
    caption_last: bool  # the caption under the dice rather than above
    follow: float       # the size of a slot's later dice, against the first's


#: The layouts of the one dice row. ``row``: one die a slot (a tag under it).
#: ``pairs``: matched columns, e.g. Jadeclaw's damage die over its soak die
#: with the hits under them. ``chain``: a die, then its explosions as
#: smaller dice after arrows, its caption under them (Open Tale).
#: ``thumbs``: small plain dice inside a history entry's button.
LAYOUTS = {
    "row": Layout("figure", "dice-row", "div", "span", "", "", False, False, 1.0),
    "pairs": Layout("figure", "dice-row", "ol", "li", "vs", "data-pair", True, False, 1.0),
    "chain": Layout("figure", "dice-chain", "div", "span", "→", "", False, True, 44 / 64),
    "thumbs": Layout("span", "", "", "span", "", "", False, False, 1.0),
}


def _class_names(*names) -> str:
    """Class names joined by spaces, leaving out the empty ones."""
    return " ".join(c for c in names if c)


def _tag_html(tag: str | None, tag_class: str, lay: Layout) -> str:
    """A slot's tag, a word or mark under its dice: in a row it is for
    sighted players only (the die's label already says it)."""
    if tag is None:
        return ""
    hidden = "" if lay.spoken_tags else ' aria-hidden="true"'
    return f'<span class="{escape(_class_names("die-tag", tag_class))}"{hidden}>{escape(tag)}</span>'


def _slot(inner: str, i: int, tag: str | None, cls: str | None, lay: Layout, tag_class: str) -> str:
    """A slot: its dice with their tag (``_tag_html``); the dice alone
    where there is no tag, no class and no list item to make."""
    if tag is None and not cls and lay.slot != "li":
        return inner
    number = f' {lay.numbered}="{i}"' if lay.numbered else ""
    return (f'<{lay.slot} class="{escape(_class_names("die-slot", cls))}"{number}>{inner}'
            f'{_tag_html(tag, tag_class, lay)}</{lay.slot}>')


def _at(items: list | None, i: int):
    """``items[i]``, or None where the list is missing or short."""
    return items[i] if items is not None and i < len(items) else None


def _tray_die(d: dict | None, key, label, colour, size: int, selected: set, tappable: bool) -> str:
    """One die of a row: a button when it may be tapped; otherwise an
    image that keeps its ``data-die`` marker. No die (a column with one
    side short): a dash."""
    if d is None:
        return '<span class="die-empty" aria-hidden="true">–</span>'
    if tappable or key is None:
        return die_svg(d, key, size=size, colour=colour, selected=key is not None and key in selected, label=label)
    return die_svg(d, None, size=size, colour=colour, label=label).replace(
        "<svg ", f'<svg data-die="{escape(str(key))}" ', 1)


def _group(item, i: int, per_die: tuple) -> list[tuple]:
    """A slot's dice, each with its key, label and colour: ``item`` is one
    die or a list of dice (a column, a chain); the per-die lists follow
    the same shape."""
    if isinstance(item, dict):
        return [(item, *(_at(x, i) for x in per_die))]
    nested = [_at(x, i) for x in per_die]
    return [(d, *(_at(x, j) for x in nested)) for j, d in enumerate(item)]


def _slot_dice(cells: list[tuple], lay: Layout, size: int, selected: set, tappable: bool) -> str:
    join = f'<span class="die-join" aria-hidden="true">{escape(lay.join)}</span>' if lay.join else ""
    return join.join(_tray_die(d, key, label, colour, size if j == 0 else round(size * lay.follow),
                               selected, tappable) for j, (d, key, label, colour) in enumerate(cells))


def _attrs_html(attrs: dict | None) -> str:
    """Extra attributes of the row: ``True`` gives a bare attribute;
    ``False`` or None, none."""
    return "".join(f" {escape(k)}" if v is True else f' {escape(k)}="{escape(str(v))}"'
                   for k, v in (attrs or {}).items() if v is not None and v is not False)


def _frame(lay: Layout, items: str, *, caption: str | None, caption_html: str | None, row_class: str,
           dice_class: str, attrs: dict | None) -> str:
    """The row around its slots: the caption (above, or under a chain), a
    group role with the caption as its name."""
    if caption_html is None and caption:
        caption_html = escape(caption)
    cap = f"<figcaption>{caption_html}</figcaption>" if caption_html else ""
    box = escape(_class_names("dice", dice_class))
    body = f'<{lay.items} class="{box}">{items}</{lay.items}>' if lay.items else items
    head = _row_head(lay, row_class, caption, attrs)
    return head + (body + cap if lay.caption_last else cap + body) + f"</{lay.outer}>"


def _row_head(lay: Layout, row_class: str, caption: str | None, attrs: dict | None) -> str:
    """The row's opening tag: its classes, a group role named by the
    caption when it is a figure, its other attributes."""
    head = f'<{lay.outer} class="{escape(_class_names(lay.base, row_class))}"'
    head += ' role="group"' if lay.outer == "figure" else ""
    head += (f' aria-label="{escape(caption)}"' if caption else "") + _attrs_html(attrs) + ">"
    return head


def drawn_keys(keys: list | None, dice: list) -> list | None:
    """The keys of the entries of ``dice`` that are dice (an entry that is
    not a die is not drawn); None: the row is not tappable."""
    return None if keys is None else [k for k, d in zip(keys, dice) if isinstance(d, dict)]


def tray(dice: list, keys: list | None = None, *, layout: str = "row", selected=(), size: int = 64,
         caption: str | None = None, caption_html: str | None = None, labels: list | None = None,
         colours: list | None = None, tags: list | None = None, tag_class: str = "",
         classes: list | None = None, tappable: bool = True, row_class: str = "", dice_class: str = "",
         attrs: dict | None = None, limit: int | None = None) -> str:
    """A row of dice: the one drawer every tab and the history use.

    - ``layout`` (``LAYOUTS``): ``row``, ``pairs`` (columns), ``chain``
      (a die and its explosions) or ``thumbs`` (small, in a button). An
      item of ``dice`` is a die, or a list of dice drawn in one slot (a
      column, a chain; None in it draws a dash).
    - ``keys`` (one per die, None for a die that takes no tap) mark each die
      with ``data-die`` (docs/CONTRACT.md, "Markers the tests rely on"); a tappable
      die is also a button showing ``selected``. With ``tappable=False``
      the dice keep their marker but are not buttons (a side that may not
      choose).
    - ``labels``: each die's spoken label (default: ``describe``);
      ``colours``: each die's colour (default: the die's own). These, like
      ``keys``, take a list where the item is a list of dice.
    - ``tags``: a word or mark under each slot (None: no tag), with the
      class ``tag_class``; ``classes``: a class for each slot (e.g. its
      colour or kind); ``row_class``, ``dice_class`` and ``attrs``: the
      row's class, its dice box's class, its other attributes.
    - ``caption`` is text (also the group's name); ``caption_html`` is
      already escaped HTML (e.g. with Hebrew runs isolated).
    - ``limit``: at most this many slots, then "+N".

    >>> row = tray([{"sides": 4, "face": 3}, {"sides": 12, "face": 9}], ["0", "1"], selected=["1"])
    >>> row.count("data-die=") == 2 and 'aria-pressed="true"' in row
    True
    >>> row = tray([{"sides": 6, "face": 2}], ["a"], tappable=False, tags=["kept"], classes=["k"])
    >>> 'data-die="a"' in row, 'role="button"' in row, '<span class="die-tag" aria-hidden="true">kept</span>' in row
    (True, False, True)
    >>> cols = tray([[None, {"sides": 4, "face": 1}]], [[None, "p0.s"]], layout="pairs", tags=["unused"])
    >>> cols.count("<li "), 'data-pair="0"' in cols, "die-empty" in cols, ">vs<" in cols
    (1, True, True, True)
    >>> chain = tray([[{"sides": 6, "face": 6}, {"sides": 6, "face": 2}]], [["0", "0.1"]], layout="chain",
    ...              caption_html="d6 = 8")
    >>> chain.count("→"), 'width="44"' in chain, chain.endswith("</div><figcaption>d6 = 8</figcaption></figure>")
    (1, True, True)
    """
    lay = LAYOUTS[layout]
    sel = set(selected or ())
    items = [d for d in dice if isinstance(d, (dict, list))]
    shown = items if limit is None else items[:limit]
    slots = [_slot(_slot_dice(_group(d, i, (keys, labels, colours)), lay, size, sel, tappable), i,
                   _at(tags, i), _at(classes, i), lay, tag_class) for i, d in enumerate(shown)]
    slots.append(_more(len(items) - len(shown)))
    return _frame(lay, "".join(slots), caption=caption, caption_html=caption_html, row_class=row_class,
                  dice_class=dice_class, attrs=attrs)


def _more(left: int) -> str:
    """How many slots ``limit`` left out ("+3"); nothing when none."""
    return f'<span class="more">+{left}</span>' if left > 0 else ""


def thumbnails(dice: list, *, size: int = 28, limit: int = 12, row_class: str = "h-dice") -> str:
    """A roll's dice, small, for the history and the table log: ``tray``'s
    ``thumbs`` layout. They keep the marks that change a result (dropped,
    rerolled...) but not the 'kept' bullseye, which at this size is only
    clutter.

    >>> small = thumbnails([{"sides": 6, "face": 5, "role": "kept"}] * 13)
    >>> small.startswith('<span class="h-dice">'), small.count("<svg"), "badge-kept" in small
    (True, 12, False)
    >>> small.endswith('<span class="more">+1</span></span>')
    True
    """
    plain = [{**d, "role": "rolled"} if d.get("role") == "kept" else d for d in dice if isinstance(d, dict)]
    return tray(plain, layout="thumbs", size=size, limit=limit, row_class=row_class)
