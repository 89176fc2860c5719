"""The fairness check a doubting player can run (docs/TRUST.md, "Honest dice"):
roll every kind of die the page uses many times, through the same code path
and the same random source as a real roll, count the faces, and compare the
counts with what a fair die gives by Pearson's chi-square goodness of fit.

Pure: no DOM. ``run`` computes, ``render`` returns HTML (every text
escaped); the page puts one into ``#fairness-out``.

The p-value is the chance that a fair die gives counts at least this far
from even. It is computed here (no scipy in the browser) from the
regularized upper incomplete gamma function: for ``df`` degrees of freedom,
``p = Q(df / 2, chi2 / 2)``. A die is flagged only below ``ALPHA`` = 0.001,
so a fair die is flagged about once in a thousand checks.

>>> import random
>>> report = run(600, random.Random(7))
>>> [k["key"] for k in report["kinds"]]
['d4', 'd6', 'd8', 'd10', 'd12', 'letter', 'symbol']
>>> d6 = report["kinds"][1]
>>> sum(d6["counts"]), d6["expected"][0], d6["df"]
(600, 100.0, 5)
>>> round(p_value(11.07, 5), 3)      # the 5 % point of chi-square with 5 df
0.05
"""

from __future__ import annotations

import math
from html import escape

from rules.alkemy import model as alkemy
from rules.dice import roll_die, roll_face, system_rng
from rules.milhamah import model as milhamah

__all__ = ["MIN_N", "MAX_N", "ALPHA", "KINDS", "run", "render", "chi_square", "p_value",
           "critical_value"]

#: Rolls per die: at least 5 expected per face on the 12-face dice (the
#: usual condition for the chi-square approximation), at most what stays
#: quick in the browser (about 140 000 draws in all).
MIN_N = 60
MAX_N = 20000

#: Flag a die only when counts this uneven come from a fair die less than
#: once in a thousand.
ALPHA = 0.001

#: Milhamah's letter die shown: the red die of design A (12 different
#: letters); ALKEMY's symbol die: the white die of the default face set.
LETTER_DIE = ("red", "A")
SYMBOL_DIE = (alkemy.DEFAULT_FACES, "white")


def _letter_faces() -> list:
    return milhamah.die_faces(*LETTER_DIE)


def _symbol_faces() -> list:
    name, colour = SYMBOL_DIE
    return list(alkemy.FACE_SETS[name][colour])


#: (key, title, how one die is drawn). Numbered dice go through
#: ``roll_die``; the letter and symbol dice through ``roll_face`` on the
#: rules' own face data: the same calls a roll makes.
KINDS = (
    ("d4", "d4", 4), ("d6", "d6", 6), ("d8", "d8", 8), ("d10", "d10", 10), ("d12", "d12", 12),
    ("letter", "Milhamah letter die (red, design A)", "letter"),
    ("symbol", "ALKEMY symbol die (white)", "symbol"),
)


# --------------------------------------------------------------------------
# Statistics.

def chi_square(counts, expected) -> float:
    """Pearson's statistic: the sum of (observed - expected)^2 / expected.

    >>> chi_square([10, 20], [15, 15])
    3.3333333333333335
    """
    return math.fsum((o - e) ** 2 / e for o, e in zip(counts, expected))


def _gamma_q(a: float, x: float) -> float:
    """The regularized upper incomplete gamma function Q(a, x): a series
    for x < a + 1, else a continued fraction (modified Lentz), each to
    about 1e-14 (Numerical Recipes, 6.2)."""
    if x <= 0:
        return 1.0
    log_front = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1:
        return max(0.0, 1.0 - _gamma_series(a, x) * math.exp(log_front))
    return min(1.0, math.exp(log_front) * _gamma_fraction(a, x))


def _gamma_series(a: float, x: float) -> float:
    """The series for the lower function P(a, x), without its front factor
    x^a e^-x / Gamma(a) (it converges quickly for x < a + 1)."""
    term = total = 1.0 / a
    ap = a
    for _ in range(1000):
        ap += 1
        term *= x / ap
        total += term
        if abs(term) < abs(total) * 1e-15:
            break
    return total


def _gamma_fraction(a: float, x: float) -> float:
    """The continued fraction for Q(a, x), without its front factor, by
    the modified Lentz method (it converges quickly for x >= a + 1)."""
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 1000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return h


def p_value(statistic: float, df: int) -> float:
    """P(chi-square with ``df`` degrees of freedom >= ``statistic``).

    >>> round(p_value(3.841, 1), 4), round(p_value(20.515, 5), 5), p_value(0, 3)
    (0.05, 0.001, 1.0)
    """
    return _gamma_q(df / 2, statistic / 2)


def critical_value(df: int, alpha: float = ALPHA) -> float:
    """The chi-square value a fair die exceeds with chance ``alpha``, by
    the Wilson–Hilferty approximation (within about 1 % for df >= 3): a
    cross-check of ``p_value`` that shares no code with it.

    >>> round(critical_value(11), 1)        # tables: 31.26
    31.4
    """
    z = _normal_upper(alpha)
    c = 2 / (9 * df)
    return df * (1 - c + z * math.sqrt(c)) ** 3


def _normal_upper(alpha: float) -> float:
    """z with P(N(0, 1) > z) = alpha, by bisection on erfc."""
    lo, hi = -10.0, 10.0
    for _ in range(100):
        mid = (lo + hi) / 2
        if 0.5 * math.erfc(mid / math.sqrt(2)) > alpha:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


# --------------------------------------------------------------------------
# Rolling and counting.

def _check_n(n) -> int:
    if isinstance(n, bool) or not isinstance(n, int):
        raise ValueError(f"Enter a whole number of rolls from {MIN_N} to {MAX_N}.")
    if not MIN_N <= n <= MAX_N:
        raise ValueError(f"Rolls per die must be from {MIN_N} to {MAX_N} (got {n}).")
    return n


def _face_label(face) -> str:
    if isinstance(face, tuple):  # ALKEMY: (value, symbol)
        value, symbol = face
        return f"{value} {alkemy.SYMBOLS.get(symbol, symbol)}" if symbol else str(value)
    if face == milhamah.WILD:
        return "wild"
    return str(face)


def _count(rng, how, n: int) -> tuple[list, list, list]:
    """Roll one kind ``n`` times; the faces (distinct, in die order), their
    counts, and their expected counts (a face printed twice counts twice)."""
    if isinstance(how, int):
        return _count_numbered(rng, how, n)
    return _count_faces(rng, _letter_faces() if how == "letter" else _symbol_faces(), n)


def _count_numbered(rng, sides: int, n: int) -> tuple[list, list, list]:
    """A numbered die rolled ``n`` times through ``roll_die``."""
    tally = [0] * sides
    for _ in range(n):
        tally[roll_die(rng, sides) - 1] += 1
    faces = list(range(1, sides + 1))
    return faces, tally, [n / sides] * sides


def _count_faces(rng, faces_all: list, n: int) -> tuple[list, list, list]:
    """A die of printed faces (letters, symbols) rolled ``n`` times through
    ``roll_face``: a face printed twice is expected twice as often."""
    faces = _distinct_faces(faces_all)
    where = {f: i for i, f in enumerate(faces)}
    tally = [0] * len(faces)
    for _ in range(n):
        tally[where[roll_face(rng, faces_all)]] += 1
    share = [faces_all.count(f) / len(faces_all) for f in faces]
    return faces, tally, [n * s for s in share]


def run(n: int, rng=None) -> dict:
    """Roll ``n`` of each kind of die (d4 to d12, a Milhamah letter die, an
    ALKEMY symbol die) and test each against a fair die. ``rng`` None is
    the page's own source, ``random.SystemRandom`` (in the browser
    ``crypto.getRandomValues``). A bad ``n`` is a ValueError whose message
    can be shown as it is.

    >>> run(10)
    Traceback (most recent call last):
    ...
    ValueError: Rolls per die must be from 60 to 20000 (got 10).
    """
    n = _check_n(n)
    source = "cryptographic (the page's own)" if rng is None else "seeded (a test)"
    rng = rng if rng is not None else system_rng()
    kinds = [_kind_report(rng, key, title, how, n) for key, title, how in KINDS]
    return {"n": n, "alpha": ALPHA, "source": source, "kinds": kinds,
            "flagged": [k["key"] for k in kinds if not k["fair"]]}


def _distinct_faces(faces_all: list) -> list:
    """Each face a die shows, once, in the die's order."""
    faces: list = []
    for f in faces_all:
        if f not in faces:
            faces.append(f)
    return faces


def _kind_report(rng, key: str, title: str, how, n: int) -> dict:
    """One kind of die rolled ``n`` times and tested against a fair one:
    its faces, counts and expected counts, the statistic and its p."""
    faces, counts, expected = _count(rng, how, n)
    stat = chi_square(counts, expected)
    df = len(faces) - 1
    p = p_value(stat, df)
    return {"key": key, "title": title, "faces": [_face_label(f) for f in faces],
            "counts": counts, "expected": expected, "chi2": stat, "df": df, "p": p,
            "fair": p >= ALPHA}


# --------------------------------------------------------------------------
# Drawing.

def _esc(text) -> str:
    return escape(str(text), quote=True)


def _p_text(p: float) -> str:
    """p for people: two significant figures, never a bare 0.

    >>> _p_text(0.4213), _p_text(0.0123), _p_text(1e-9)
    ('0.42', '0.012', '< 0.0001')
    """
    if p < 0.0001:
        return "< 0.0001"
    return f"{p:.2g}" if p < 0.1 else f"{p:.2f}"


def _about(expected: list, n: int) -> str:
    lo, hi = round(min(expected)), round(max(expected))
    if lo == hi:
        return f"about {lo} times in {n}"
    return f"about {lo} to {hi} times in {n} (a face printed twice, twice as often)"


def sentence(kind: dict, n: int) -> str:
    """The verdict in plain words.

    >>> k = {"title": "d6", "expected": [1000 / 6] * 6, "p": 0.42, "fair": True}
    >>> sentence(k, 1000)
    'A fair d6 would land on each face about 167 times in 1000; these counts are within what chance gives (p = 0.42).'
    """
    head = f"A fair {kind['title']} would land on each face {_about(kind['expected'], n)}; "
    if kind["fair"]:
        return head + f"these counts are within what chance gives (p = {_p_text(kind['p'])})."
    return head + (f"counts this uneven come from a fair die less than once in a thousand "
                   f"checks (p = {_p_text(kind['p'])}). Run the check again: a fair die "
                   "rarely fails twice, a biased one keeps failing.")


def chart(kind: dict, width: int = 300, height: int = 120) -> str:
    """An SVG bar chart: one bar per face (its count), a dashed line at the
    count a fair die would give; a text summary for screen readers."""
    counts, expected, faces = kind["counts"], kind["expected"], kind["faces"]
    top = max(max(counts), max(expected)) * 1.1 or 1
    pad_l, pad_b, pad_t = 4, 20, 6
    inner = height - pad_b - pad_t
    bw = (width - 2 * pad_l) / len(counts)
    parts = []
    for i, (face, c, e) in enumerate(zip(faces, counts, expected)):
        x = pad_l + i * bw
        h = inner * c / top
        y = pad_t + inner - h
        ey = pad_t + inner - inner * e / top
        parts.append(f'<rect class="bar" x="{x + 1:.1f}" y="{y:.1f}" width="{max(bw - 2, 1):.1f}" '
                     f'height="{max(h, 0.5):.1f}"><title>{_esc(face)}: {c} (fair: {e:.0f})</title></rect>')
        parts.append(f'<line class="expected" x1="{x:.1f}" x2="{x + bw:.1f}" y1="{ey:.1f}" y2="{ey:.1f}" '
                     f'stroke-dasharray="3 2"/>')
        label = face if len(face) <= 4 else face[:1]
        parts.append(f'<text class="tick" x="{x + bw / 2:.1f}" y="{height - 6}" '
                     f'text-anchor="middle">{_esc(label)}</text>')
    summary = (f"{kind['title']}: " + ", ".join(f"{f} {c}" for f, c in zip(faces, counts))
               + f"; a fair die gives about {round(sum(expected) / len(expected))} each")
    return (f'<svg class="chart fairness-chart" viewBox="0 0 {width} {height}" role="img" '
            f'aria-label="{_esc(summary)}">{"".join(parts)}</svg>')


def render(report: dict) -> str:
    """The report as HTML: a line on the source, then per die its chart and
    its sentence, flagged dice marked.

    >>> import random
    >>> html = render(run(60, random.Random(1)))
    >>> html.count("<svg"), html.count('data-fairness-kind=')
    (7, 7)
    """
    n = report["n"]
    flagged = report["flagged"]
    head = (f'<p class="fairness-summary">Rolled {n} of each die with the {_esc(report["source"])} '
            f'random source. ')
    if flagged:
        head += (f"{len(flagged)} of {len(report['kinds'])} dice look uneven at this size; "
                 "run it again to see whether it repeats.")
    else:
        head += "Every die's counts are within what chance gives a fair die."
    head += " Bars: the counts; dashed lines: what a fair die would give.</p>"
    items = []
    for k in report["kinds"]:
        cls = "fair" if k["fair"] else "flagged"
        items.append(f'<li class="fairness-kind {cls}" data-fairness-kind="{_esc(k["key"])}">'
                     f'<h4>{_esc(k["title"])}</h4>{chart(k)}<p>{_esc(sentence(k, n))}</p>'
                     f'<p class="fairness-figures">χ² = {k["chi2"]:.2f}, {k["df"]} degrees of freedom, '
                     f'p = {_esc(_p_text(k["p"]))}</p></li>')
    return head + f'<ul class="fairness-list">{"".join(items)}</ul>'
