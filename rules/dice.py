"""Dice primitives shared by every system: sizes and steps, pools and their
notation, the rng protocol, result pieces that keep their history, spec
validation helpers, exact distributions, and the one error family.

Nothing here imports from the browser; it runs unchanged under CPython 3.11
and Pyodide (CPython 3.14).

>>> rng = ScriptedRng([6, 1, 4])
>>> [roll_die(rng, 6) for _ in range(3)]
[6, 1, 4]
>>> parse_pool("2d12 & d4")
[12, 12, 4]
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Iterable, Mapping, Protocol, Sequence

__all__ = [
    "SIZES", "MAX_POOL", "ROLES",
    "SpecError", "Rng", "ScriptedRng", "RecordingRng", "system_rng",
    "roll_die", "roll_face", "Die",
    "step_up", "step_down", "parse_pool", "format_pool",
    "name_key", "check_keys", "get_int", "get_bool", "get_choice", "get_size",
    "get_sizes", "get_dict", "show_value", "is_int", "is_number",
    "Dist", "die_dist", "convolve", "poly_mul", "normalize_dist", "dist_to_json", "spec_seed",
    "percent", "MARKS", "over", "mark_choices", "why_line",
]

#: The die sizes the five systems use, smallest first; one "size step" moves
#: one place along this tuple (Jadeclaw, Mirage).
SIZES = (4, 6, 8, 10, 12)

#: No pool anywhere may hold more dice than this (bounded work: docs/TRUST.md).
MAX_POOL = 40

#: One word per die saying what became of it; the drawing shows each by a
#: mark as well as by colour.
ROLES = ("rolled", "kept", "dropped", "frozen", "rerolled", "exploded", "wild",
         "success", "fail", "imaginary")


class SpecError(ValueError):
    """An invalid spec or action. The message names the field and what is
    allowed; ``field`` holds the field's name so the page can show the
    message beside it.

    >>> e = SpecError("level", "must be a whole number from 1 to 9 (got 12)")
    >>> str(e), e.field
    ('level: must be a whole number from 1 to 9 (got 12)', 'level')
    """

    def __init__(self, field: str, message: str):
        self.field = field
        self.detail = message
        super().__init__(f"{field}: {message}" if field else message)


# --------------------------------------------------------------------------
# Randomness: passed in, never global.

class Rng(Protocol):
    def randint(self, a: int, b: int) -> int: ...


def system_rng() -> random.SystemRandom:
    """The default source: cryptographic (os.urandom; in Pyodide that is
    crypto.getRandomValues). ``randint`` goes through ``_randbelow``, which
    draws whole bits and rejects, so no face is favoured by a modulo."""
    return random.SystemRandom()


class ScriptedRng:
    """Returns the given values in order: forces the dice of a worked example
    and replays a recorded result. A value outside the asked range, or
    running out, is a ``SpecError`` (a replayed link must not invent dice).

    >>> rng = ScriptedRng([3])
    >>> rng.randint(1, 6)
    3
    >>> rng.randint(1, 6)
    Traceback (most recent call last):
    ...
    rules.dice.SpecError: draws: ran out of recorded dice (1 given)
    """

    def __init__(self, values: Iterable[int]):
        self.values = list(values)
        self.pos = 0

    def randint(self, a: int, b: int) -> int:
        if self.pos >= len(self.values):
            raise SpecError("draws", f"ran out of recorded dice ({len(self.values)} given)")
        v = self.values[self.pos]
        if isinstance(v, bool) or not isinstance(v, int) or not a <= v <= b:
            raise SpecError("draws", f"draw {self.pos + 1} must be a whole number from {a} to {b} "
                                     f"(got {show_value(v)})")
        self.pos += 1
        return v

    @property
    def exhausted(self) -> bool:
        return self.pos >= len(self.values)


class RecordingRng:
    """Wraps an rng and records every draw, so a result can be replayed."""

    def __init__(self, inner: Rng):
        self.inner = inner
        self.draws: list[int] = []

    def randint(self, a: int, b: int) -> int:
        v = self.inner.randint(a, b)
        self.draws.append(v)
        return v


def roll_die(rng: Rng, sides: int) -> int:
    """One numbered die: exactly one ``rng.randint(1, sides)``."""
    return rng.randint(1, sides)


def roll_face(rng: Rng, faces: Sequence[Any]) -> Any:
    """One letter or symbol die: one ``rng.randint(1, n)`` indexing its faces.

    >>> roll_face(ScriptedRng([2]), ["א", "ב", "ג"])
    'ב'
    """
    return faces[rng.randint(1, len(faces)) - 1]


# --------------------------------------------------------------------------
# Result pieces.

@dataclass(frozen=True)
class Die:
    """One die of a result. ``history`` lists every face it showed, oldest
    first (the last is ``face``), so rerolled, exploded and dropped dice stay
    visible. ``sides`` for a numbered die, ``faces`` for a letter or symbol
    die. ``extra`` carries system flags (``success``, ``colour``, ``label``...).

    >>> Die(sides=6, face=4, role="kept", history=(2, 4)).to_dict()
    {'type': 'die', 'sides': 6, 'face': 4, 'role': 'kept', 'history': [2, 4]}
    """

    face: Any
    role: str = "rolled"
    sides: int | None = None
    faces: tuple | None = None
    history: tuple = ()
    extra: Mapping[str, Any] = field(default_factory=dict, hash=False, compare=True)

    def to_dict(self) -> dict:
        d: dict[str, Any] = {"type": "die"}
        if self.sides is not None:
            d["sides"] = self.sides
        if self.faces is not None:
            d["faces"] = list(self.faces)
        d["face"] = self.face
        d["role"] = self.role
        d["history"] = list(self.history) if self.history else [self.face]
        d.update(self.extra)
        return d


# --------------------------------------------------------------------------
# Sizes, steps and notation.

def step_up(size: int, steps: int = 1) -> int:
    """The size ``steps`` places larger, stopping at d12.

    >>> step_up(8), step_up(12), step_up(4, 2)
    (10, 12, 8)
    """
    return SIZES[min(len(SIZES) - 1, SIZES.index(size) + steps)]


def step_down(size: int, steps: int = 1) -> int:
    """The size ``steps`` places smaller, stopping at d4.

    >>> step_down(10), step_down(4)
    (8, 4)
    """
    return SIZES[max(0, SIZES.index(size) - steps)]


_TERM = re.compile(r"^(\d*)\s*d\s*(\d+)$")


def parse_pool(text: str, field: str = "dice", sizes: Sequence[int] = SIZES,
               limit: int = MAX_POOL) -> list[int]:
    """Dice notation to a list of sizes, largest first. Terms are joined by
    ``&``, ``,``, ``+`` or "and"; each is ``d8`` or ``3d8``.

    >>> parse_pool("d10, d6")
    [10, 6]
    >>> parse_pool("3d8")
    [8, 8, 8]
    >>> parse_pool("2d7")
    Traceback (most recent call last):
    ...
    rules.dice.SpecError: dice: 'd7' is not a die here; sizes are d4, d6, d8, d10, d12
    """
    if not isinstance(text, str):
        raise SpecError(field, f"must be dice notation such as '2d12 & d4' (got {type(text).__name__})")
    if len(text) > 200:
        raise SpecError(field, "is too long for dice notation")
    parts = [p.strip() for p in re.split(r"&|,|\+|\band\b", text.lower()) if p.strip()]
    if not parts:
        raise SpecError(field, "needs at least one die, e.g. 'd10, d6'")
    return sorted(_terms_sizes(parts, field, sizes, limit), reverse=True)


def _terms_sizes(parts: list, field: str, sizes: Sequence[int], limit: int) -> list[int]:
    """The sizes the terms of dice notation name, each term read in turn
    (``_term``), refused as soon as a term has no dice or the dice pass
    ``limit``."""
    out: list[int] = []
    for p in parts:
        n, s = _term(p, field, sizes)
        if n < 1 or len(out) + n > limit:
            raise SpecError(field, f"must hold from 1 to {limit} dice")
        out += [s] * n
    return out


def _term(text: str, field: str, sizes: Sequence[int]) -> tuple[int, int]:
    """(count, size) of one term of dice notation, ``d8`` or ``3d8``."""
    m = _TERM.match(text)
    if not m:
        raise SpecError(field, f"cannot read {text!r}; write dice as 'd8' or '2d12 & d4'")
    s = int(m.group(2))
    if s not in sizes:
        raise SpecError(field, f"'d{s}' is not a die here; sizes are " + ", ".join(f"d{x}" for x in sizes))
    return int(m.group(1) or 1), s


def format_pool(sizes: Iterable[int]) -> str:
    """The text's own notation, largest first.

    >>> format_pool([4, 12, 12])
    '2d12 & d4'
    >>> format_pool([])
    'no dice'
    """
    counts: dict[int, int] = {}
    for s in sorted(sizes, reverse=True):
        counts[s] = counts.get(s, 0) + 1
    if not counts:
        return "no dice"
    return " & ".join(f"{n if n > 1 else ''}d{s}" for s, n in counts.items())


# --------------------------------------------------------------------------
# Spec validation: every field checked, every message names it.

def name_key(value: Any, field: str) -> str:
    """Names are snake_case, accepted in any case with spaces or hyphens.

    >>> name_key("For Experts Only", "difficulty")
    'for_experts_only'
    """
    if not isinstance(value, str):
        raise SpecError(field, f"must be a name (got {type(value).__name__})")
    if len(value) > 60:
        raise SpecError(field, "is too long for a name")
    return re.sub(r"[\s\-]+", "_", value.strip()).lower()


def check_keys(spec: Any, allowed: Iterable[str], field: str = "spec") -> dict:
    """The spec must be a dict whose keys are all known."""
    if not isinstance(spec, dict):
        raise SpecError(field, f"must be an object of settings (got {type(spec).__name__})")
    allowed = list(allowed)
    for k in spec:
        if k not in allowed:
            shown = repr(k)[:40]
            raise SpecError(field if field != "spec" else (str(k)[:40] or "spec"),
                            f"{shown} is not a setting here; allowed: {', '.join(allowed)}")
    return spec


def get_int(spec: Mapping, key: str, lo: int, hi: int, default: Any = None,
            field: str | None = None) -> int:
    """A whole number from ``lo`` to ``hi``; numeric strings are accepted
    (form fields arrive as text). ``default`` is used when the key is absent
    or None; pass ``default=...`` to require it."""
    name = field or key
    v = _value(spec, key, default) if isinstance(spec, Mapping) else default
    if v is ...:
        raise SpecError(name, f"is required: a whole number from {lo} to {hi}")
    v = _as_int(v)
    if not is_int(v) or not lo <= v <= hi:
        raise SpecError(name, f"must be a whole number from {lo} to {hi} (got {show_value(v)})")
    return v


def is_int(v: Any) -> bool:
    """A whole number, not a bool (a bool is an int to Python, never to a form)."""
    return isinstance(v, int) and not isinstance(v, bool)


def is_number(v: Any) -> bool:
    """An int or a float, not a bool (NaN and the infinities are floats: a
    caller that must refuse them says so)."""
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _value(spec: Mapping, key: str, default: Any) -> Any:
    """The key's value; ``default`` when it is absent or None."""
    v = spec.get(key, default)
    return default if v is None else v


def _as_int(v: Any) -> Any:
    """A numeric string (up to 9 digits) or a whole float as an int; any
    other value unchanged."""
    if isinstance(v, str) and re.fullmatch(r"\s*[+-]?\d{1,9}\s*", v):
        return int(v)
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e9:
        return int(v)
    return v


def get_bool(spec: Mapping, key: str, default: bool = False) -> bool:
    v = spec.get(key, default)
    if v is None:
        return default
    if isinstance(v, bool):
        return v
    if v in (0, 1) and isinstance(v, int):
        return bool(v)
    if isinstance(v, str) and v.lower() in ("true", "on", "yes", "1", "false", "off", "no", "0", ""):
        return v.lower() in ("true", "on", "yes", "1")
    raise SpecError(key, f"must be true or false (got {show_value(v)})")


def get_choice(spec: Mapping, key: str, choices: Sequence[str], default: Any = None,
               field: str | None = None) -> str:
    """One of ``choices`` (snake_case names, any case accepted)."""
    name = field or key
    v = _value(spec, key, default)
    if v is None or v is ...:
        raise SpecError(name, "is required; one of " + ", ".join(choices))
    k = name_key(v, name)
    if k not in choices:
        raise SpecError(name, f"must be one of {', '.join(choices)} (got {show_value(v)})")
    return k


def get_size(spec: Mapping, key: str, sizes: Sequence[int] = SIZES, default: Any = None,
             allow_zero: bool = False, field: str | None = None) -> int:
    """A die size given as 8, "8" or "d8"."""
    name = field or key
    v = _as_size(_value(spec, key, default))
    if not is_int(v) or not (v in sizes or (allow_zero and v == 0)):
        raise SpecError(name, f"must be a die size: {_sizes_text(sizes, allow_zero)} (got {show_value(v)})")
    return v


def _sizes_text(sizes: Sequence[int], allow_zero: bool) -> str:
    """The sizes a field allows, for its message: "d4, d6 or 0 for none"."""
    return ", ".join(f"d{s}" for s in sizes) + (" or 0 for none" if allow_zero else "")


def _as_size(v: Any) -> Any:
    """A size written "8" or "d8", or a whole float, as an int; any other
    value unchanged."""
    m = re.fullmatch(r"\s*[dD]?(\d{1,3})\s*", v) if isinstance(v, str) else None
    if m:
        return int(m.group(1))
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return v


def get_sizes(spec: Mapping, key: str, sizes: Sequence[int] = SIZES, default: Any = None,
              limit: int = MAX_POOL, field: str | None = None) -> list[int]:
    """A list of die sizes, or dice notation text; largest first."""
    name = field or key
    v = _value(spec, key, default)
    if isinstance(v, str):
        return parse_pool(v, name, sizes, limit)
    if not isinstance(v, (list, tuple)):
        raise SpecError(name, f"must be a list of die sizes or notation such as '2d12 & d4' (got {show_value(v)})")
    if len(v) > limit:
        raise SpecError(name, f"may hold at most {limit} dice")
    out = [get_size({"x": x}, "x", sizes, field=name) for x in v]
    return sorted(out, reverse=True)


def get_dict(spec: Mapping, key: str, default: Any = None) -> dict:
    v = spec.get(key, default)
    if v is None:
        v = {} if default is None else default
    if not isinstance(v, dict):
        raise SpecError(key, f"must be an object (got {show_value(v)})")
    return v


def show_value(v: Any) -> str:
    """A short, safe rendering of a bad value for a message: never the
    whole of a container (a hostile link may nest one thousands deep, whose
    repr raises RecursionError, or send a megabyte) nor of a huge number.

    >>> show_value("red"), show_value([1, [2]]), show_value({"a": 1})
    ("'red'", 'a list of 2 items', 'an object of 1 key')
    >>> show_value(10 ** 5000), show_value("x" * 99)[-6:]
    ('a number of about 5001 digits', 'xxx...')
    """
    summary = _summary(v)
    if summary:
        return summary
    s = repr(v[:60] if isinstance(v, str) else v)
    return s if len(s) <= 40 else s[:37] + "..."


def _summary(v: Any) -> str:
    """What ``show_value`` says instead of a repr, or "" to show the repr."""
    if isinstance(v, (list, tuple, dict)):
        what = "a list of {} item{}" if isinstance(v, (list, tuple)) else "an object of {} key{}"
        return what.format(len(v), "" if len(v) == 1 else "s")
    if is_int(v) and abs(v) >= 10 ** 40:
        # str() of a number past 4300 digits raises ValueError (CPython 3.11+)
        return f"a number of about {int(v.bit_length() * 0.30103) + 1} digits"
    return "" if isinstance(v, (str, int, float, bool, type(None))) else f"a {type(v).__name__}"


# --------------------------------------------------------------------------
# Exact distributions: {value: Fraction}. Small and dependency-free.

Dist = dict


def die_dist(sides: int) -> Dist:
    """A fair die.

    >>> die_dist(4)[3]
    Fraction(1, 4)
    """
    p = Fraction(1, sides)
    return {v: p for v in range(1, sides + 1)}


def poly_mul(p: list, q: list) -> list:
    """The product of two polynomials given as coefficient lists: the
    distribution (or weights) of the sum of two independent counts.

    >>> poly_mul([1, 1], [1, 2, 1])
    [1, 3, 3, 1]
    """
    out = [0] * (len(p) + len(q) - 1)
    for i, a in enumerate(p):
        for j, b in enumerate(q):
            out[i + j] += a * b
    return out


def convolve(a: Mapping, b: Mapping, op=lambda x, y: x + y) -> Dist:
    """The distribution of ``op(x, y)`` for independent x ~ a, y ~ b.

    >>> d = convolve(die_dist(6), die_dist(6))
    >>> d[7]
    Fraction(1, 6)
    """
    out: dict = {}
    for x, px in a.items():
        for y, py in b.items():
            k = op(x, y)
            out[k] = out.get(k, 0) + px * py
    return out


def normalize_dist(d: Mapping) -> Dist:
    total = sum(d.values())
    return {k: v / total for k, v in d.items()}


def dist_to_json(d: Mapping) -> dict:
    """Values sorted, probabilities as floats (the odds contract)."""
    return {k: float(v) for k, v in sorted(d.items(), key=lambda kv: (str(type(kv[0])), kv[0]))}


def spec_seed(system: str, spec: Any, extra: Any = None) -> int:
    """A seed derived from the question, so sampled odds give the same answer
    to the same question."""
    import hashlib  # here, not at start: only sampled odds need it (docs/SPEED.md)

    text = json.dumps([system, spec, extra], sort_keys=True, default=str, ensure_ascii=False)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def percent(p: Any) -> str:
    """A probability as a percentage, with one decimal, never a misleading
    0 % or 100 % for an outcome that can happen or fail (the one wording of
    a chance, in the rules' words and on the page).

    >>> percent(0.4213), percent(0.00001), percent(1.0), percent(0.99999), percent(None)
    ('42.1 %', '< 0.1 %', '100 %', '> 99.9 %', '–')
    """
    try:
        p = float(p)
    except (TypeError, ValueError):
        return "–"
    if p <= 0:
        return "0 %"
    if p >= 1:
        return "100 %"
    if p < 0.0005:
        return "< 0.1 %"
    if p > 0.9995:
        return "> 99.9 %"
    return f"{p * 100:.1f} %"


#: The marks a decision's choices may carry (``rules.advise``'s ``marks``):
#: ``best_play`` on the advised choice; on a close call between a better
#: chance and a smaller risk (Mirage's Conditions), ``best_chance`` on the
#: one that wins more often and ``safest`` on the one that risks less.
MARKS = ("best_play", "best_chance", "safest")


def over(advised: str, runner_up: str, reason: str) -> str:
    """A decision's why line: what separates the advised choice from the
    next best, each named by its label.

    >>> over("Tie-break", "Pray with die 1", "it wins 77.0 % against 27.0 %")
    '“Tie-break” over “Pray with die 1”: it wins 77.0 % against 27.0 %.'
    """
    return f"“{advised}” over “{runner_up}”: {reason}."


def mark_choices(choices: list, advice: Any, label) -> Any:
    """Each choice given its ``label`` (``label(choice)``) and its
    ``marks`` (``best_play`` on the one whose action is ``advice``);
    returns that choice (None: none is advised)."""
    for c in choices:
        c["label"] = label(c)
        c["marks"] = ["best_play"] if c["action"] == advice else []
    return next((c for c in choices if c["action"] == advice), None)


def why_line(adv: Any, others: list, rank, reason) -> tuple:
    """(the next best of ``others`` by ``rank``, the why line: ``adv`` over
    it, with ``reason(adv, it)``); with no other choice, (None, "The only
    step now: …").

    >>> a, b = {"label": "Stand"}, {"label": "Reroll die 1", "p": 0.2}
    >>> why_line(a, [b], lambda c: c["p"], lambda x, y: "the same chances")[1]
    '“Stand” over “Reroll die 1”: the same chances.'
    """
    if adv is None:
        return None, None
    if not others:
        return None, f"The only step now: {adv['label']}."
    runner = max(others, key=rank)
    return runner, over(adv["label"], runner["label"], reason(adv, runner))
