"""People's names as the page shows and compares them: cleaned of what a
reader cannot see, and reduced to a *skeleton* so that two names that look
the same are known to be the same name.

``clean`` is what a name becomes before anyone sees it: NFKC (fullwidth,
mathematical and other compatibility letters become the plain ones), every
invisible character dropped (format characters, among them zero-width
spaces and joiners and every bidi control such as the right-to-left
override; control characters; Hangul fillers, the combining grapheme
joiner, variation selectors), spaces folded.

``skeleton`` is what a name looks like, after Unicode's confusable
skeleton (UTS #39, section 4) on a small table of our own: each letter of
Cyrillic or Greek drawn like a Latin one becomes that Latin letter
(``Dаna`` with a Cyrillic ``а`` is ``Dana``), ``0`` reads as ``o``, ``1``,
``I`` and ``|`` as ``l``, ``rn`` as ``m`` and ``vv`` as ``w``; then case
is folded. Accents stay (they are seen). Why a table of our own rather
than UTS #39's whole list (about 6,300 characters, a megabyte as the
maintained packages ship it): every phone would download it for names of
at most 40 characters at one table, and the look-alikes that matter there
are Latin, Cyrillic and Greek letters, which NFKC and this table cover.
Names in other scripts (Hebrew, say) are compared as they are, after NFKC
and case folding. Decided in docs/LIVE-TABLE.md, "Names".

>>> clean("Da\\u200bna"), clean("\\u202eDana"), clean("Ｄａｎａ")
('Dana', 'Dana', 'Dana')
>>> skeleton("Dаna") == skeleton("Dana") == skeleton("DANA")
True
>>> skeleton("Dána") == skeleton("Dana")
False
"""

from __future__ import annotations

import unicodedata

__all__ = ["NAME_MAX", "clean", "skeleton", "looks_alike", "isolate"]

#: The longest name a player, a device or a roller goes by (fair rolls, the
#: live table, this device).
NAME_MAX = 40

#: Invisible characters that are not of a format or control category.
_INVISIBLE = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180e\u180f\u2800\u3164\uffa0"
                       + "".join(chr(c) for c in range(0xFE00, 0xFE10)))
#: Categories dropped whole: format (bidi controls, zero-width characters,
#: soft hyphen, tags), control, surrogate, private use, unassigned, line
#: and paragraph separators.
_DROPPED = frozenset({"Cf", "Cc", "Cs", "Co", "Cn", "Zl", "Zp"})

#: Cyrillic and Greek letters drawn like a Latin letter (or like a digit
#: read as one), and the Latin look-alikes among themselves.
_LOOKS = {
    # Cyrillic capitals
    "А": "A", "В": "B", "Е": "E", "Ѕ": "S", "І": "l", "Ј": "J", "К": "K", "М": "M", "Н": "H", "О": "O",
    "Р": "P", "С": "C", "Т": "T", "У": "Y", "Х": "X", "Ү": "Y", "Һ": "h", "Ӏ": "l", "Ԁ": "d", "Ԛ": "Q",
    "Ԝ": "W", "З": "3", "Ь": "b",
    # Cyrillic small letters
    "а": "a", "в": "B", "е": "e", "ѕ": "s", "і": "i", "ј": "j", "к": "K", "м": "M", "н": "H", "о": "o",
    "р": "p", "с": "c", "т": "T", "у": "y", "х": "x", "ү": "y", "һ": "h", "ӏ": "l", "ԁ": "d", "ԛ": "q",
    "ԝ": "w", "ѵ": "v", "ɡ": "g", "ь": "b", "ѡ": "w",
    # Greek capitals
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "l", "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O",
    "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X", "Ϲ": "C", "Ϳ": "J",
    # Greek small letters
    "α": "a", "ι": "i", "κ": "K", "ν": "v", "ο": "o", "ρ": "p", "υ": "u", "χ": "x", "γ": "y", "ϲ": "c",
    "ϳ": "j", "ϱ": "p", "ϰ": "x",
    # Latin and digits
    "0": "o", "1": "l", "I": "l", "|": "l", "ı": "i", "ȷ": "j", "ɑ": "a", "ʏ": "Y",
}
#: Letter pairs that read as one letter.
_PAIRS = (("rn", "m"), ("vv", "w"))


def clean(text) -> str:
    """A name as anyone will see it: NFKC, nothing invisible, spaces folded.

    >>> clean("  Dana \\u2066Levi\\u2069 ")
    'Dana Levi'
    """
    text = unicodedata.normalize("NFKC", str(text or ""))
    kept = "".join(c for c in text if c not in _INVISIBLE and unicodedata.category(c) not in _DROPPED)
    return " ".join(kept.split())


def skeleton(text) -> str:
    """What a (clean) name looks like: look-alike letters mapped to one
    Latin letter, case folded; two names with one skeleton look the same.

    >>> skeleton("Ιlya") == skeleton("llya") == skeleton("1lya")
    True
    >>> skeleton("Ꭰana") == skeleton("Dana")  # Cherokee is not in the table
    False
    """
    text = unicodedata.normalize("NFD", clean(text))
    text = "".join(_LOOKS.get(c, c) for c in text).casefold()
    for pair, one in _PAIRS:
        text = text.replace(pair, one)
    text = "".join(_LOOKS.get(c, c) for c in text)  # what casefold made of a capital
    return unicodedata.normalize("NFD", text.casefold())


def looks_alike(a, b) -> bool:
    """Whether two names would be taken for one another.

    >>> looks_alike("Dana", "Dаna"), looks_alike("Dana", "dana"), looks_alike("Dana", "Dan")
    (True, True, False)
    """
    return skeleton(a) == skeleton(b)


def isolate(text) -> str:
    """A name inside a plain-text line (a banner), isolated by FIRST STRONG
    ISOLATE and POP DIRECTIONAL ISOLATE so its direction cannot reorder the
    words around it (HTML uses ``<bdi>`` instead).

    >>> isolate("דנה")
    '\\u2068דנה\\u2069'
    """
    return f"\u2068{clean(text)}\u2069"
