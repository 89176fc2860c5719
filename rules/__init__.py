"""The rules of five tabletop RPGs' dice, as pure Python.

The contract (DESIGN.md, "The rules contract"): a spec (plain JSON-able dict)
goes in, a result (plain JSON-able dict) comes out.

- ``roll(system, spec, rng=None)``: validate and roll.
- ``act(system, spec, result, action, rng=None)``: a step the rules allow
  after a roll; returns a new result that keeps every earlier stage.
- ``odds(system, spec, result=None, action=None)``: the distribution.
- ``replay(system, spec, stages)``: rebuild a result from its recorded draws
  (how a shared result is checked: its outcome is recomputed from its faces).

Every result records ``stages``: the roll and each action, with the draws
each took, in order, so ``replay`` gives back the same result; and
``allowed``: the actions ``act`` accepts now (``{"do": verb}``, with its
``side`` where the system's steps take one), ``[]`` once the turn is over.

Character sheets (docs/PARTY.md), each game's ``sheet`` module:

- ``normalize_sheet(system, sheet)``: validate a sheet, fill its defaults.
- ``sheet_checks(system, sheet)``: its checks, each with what the sheet
  applies to it and why.
- ``check_spec(system, sheet, check, situation=None)``: the spec a check
  rolls, through the game's own ``normalize``.
- ``consequences(system, sheet, result, choice=None)`` and
  ``pending_choice(system, sheet, result)``: the sheet after a roll, and
  the choice it waits on.

The systems, in tab order (a game added by docs/adding-a-game.md adds its
name here too):

>>> from rules.dice import ScriptedRng
>>> SYSTEMS
('milhamah', 'open_tale', 'mirage', 'alkemy', 'jadeclaw')
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Iterator, Mapping
from typing import Any

from . import alkemy, jadeclaw, milhamah, mirage, open_tale
from .dice import RecordingRng, Rng, ScriptedRng, SpecError, system_rng
from .stages import MAX_STAGES, rebuild
from .system import Sheet, System, check, check_action, check_result, check_sheet

__all__ = ["SYSTEMS", "OUTCOMES", "TITLES", "MODULES", "MAX_STAGES", "roll", "act", "odds", "replay",
           "advise", "default_spec", "normalize", "SpecError", "ScriptedRng", "System", "SHEETS",
           "normalize_sheet", "sheet_checks", "check_spec", "consequences", "pending_choice"]

#: The game systems in tab order. A sixth game is one more module here
#: (it declares NAME, TITLE, OUTCOMES, DEFAULT_SPEC, STEPS, normalize, roll,
#: act and odds: ``rules.system.System``; docs/adding-a-game.md).
MODULES: dict[str, System] = {m.NAME: check(m) for m in (milhamah, open_tale, mirage, alkemy, jadeclaw)}

#: System keys in tab order.
SYSTEMS = tuple(MODULES)

#: Each system's title, as its tab shows it.
TITLES = {name: m.TITLE for name, m in MODULES.items()}

#: Outcome names per system, worst to best (DESIGN.md).
OUTCOMES = {name: tuple(m.OUTCOMES) for name, m in MODULES.items()}


class _Sheets(Mapping):
    """Each system's character sheet (``rules/<game>/sheet.py``, a
    ``rules.system.Sheet``). That each game has one is checked at import
    (a game without one does not import); each is imported, and its shape
    and examples checked, at its first use: a page that rolls no sheet
    never compiles them (docs/SPEED.md)."""

    def __init__(self, modules: dict):
        self._modules, self._checked = modules, {}
        for m in modules.values():
            if importlib.util.find_spec(m.__name__ + ".sheet") is None:
                check_sheet(m, None)  # a TypeError naming the file it lacks

    def __getitem__(self, system: str) -> Sheet:
        if system not in self._checked:
            m = self._modules[system]
            self._checked[system] = check_sheet(m, importlib.import_module(m.__name__ + ".sheet"))
        return self._checked[system]

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __len__(self) -> int:
        return len(self._modules)


#: Each system's character sheet, by name (``_Sheets``).
SHEETS: Mapping[str, Sheet] = _Sheets(MODULES)

def _module(system: Any) -> System:
    if not isinstance(system, str) or system not in MODULES:
        raise SpecError("system", "must be one of " + ", ".join(SYSTEMS))
    return MODULES[system]


def normalize(system: str, spec: Any) -> dict:
    """The spec validated, every default filled in."""
    return _module(system).normalize(spec)


def default_spec(system: str) -> dict:
    """A valid spec each form opens with (normalized)."""
    mod = _module(system)
    return mod.normalize(dict(mod.DEFAULT_SPEC))


def roll(system: str, spec: Any, rng: Rng | None = None, *, advise: bool = True) -> dict:
    """Validate ``spec`` and roll it. ``rng`` is anything with
    ``randint(a, b)``; None means a cryptographic source. ``advise=False``
    leaves out best play's advice (see ``advise``): the dice and outcome
    only, fast; the page asks for the advice beside the page."""
    mod = _module(system)
    norm = mod.normalize(spec)
    rec = RecordingRng(rng if rng is not None else system_rng())
    result = mod.roll(norm, rec)
    result["system"] = system
    result["spec"] = norm
    result["stages"] = [{"do": "roll", "draws": rec.draws}]
    check_result(mod, result)
    if advise:
        _attach_advice(mod, norm, result)
    return result


def act(system: str, spec: Any, result: dict, action: Any, rng: Rng | None = None, *,
        advise: bool = True) -> dict:
    """A step the rules allow after a roll (DESIGN.md verbs). A verb the
    rules do not allow at that stage, or a key the verb does not take,
    raises ``SpecError``."""
    mod = _module(system)
    norm = mod.normalize(spec)
    check_action(action, mod.STEPS, mod.TITLE)
    _check_room(result)
    rec = RecordingRng(rng if rng is not None else system_rng())
    new = mod.act(norm, result, dict(action), rec)
    new["system"] = system
    new["spec"] = norm
    new["stages"] = list(result["stages"]) + [{**action, "draws": rec.draws}]
    if len(new["stages"]) >= MAX_STAGES:
        new["allowed"] = []  # no step past the cap (above)
    check_result(mod, new)
    if advise:
        _attach_advice(mod, norm, new)
    return new


def _check_room(result: Any) -> None:
    """A result a step may follow: one of this page (its stages listed),
    with room for one more stage."""
    if not isinstance(result, dict) or not isinstance(result.get("stages"), list):
        raise SpecError("result", "is not a result of this page")
    if len(result["stages"]) >= MAX_STAGES:
        raise SpecError("action", f"a roll may take at most {MAX_STAGES - 1} steps")


def advise(system: str, spec: Any, result: dict) -> dict:
    """Best play's advice for ``result`` as it lies (bounded work): a dict
    of the keys ``roll``/``act`` attach to a result, at least ``advice``
    (the action best play takes now, as ``act`` takes it, with its
    ``side`` when opposed; None when no step is open) and ``choices``
    (each allowed action, a verb of many instances by its best one,
    ``{"action": ..., "label": words, "marks": [...], "outcome": {name: p},
    ...}``, priced when played best afterwards; ``marks`` holds
    ``best_play`` on the advised choice and, on a close call, ``best_chance``
    and ``safest``: ``rules.dice.MARKS``) and ``why`` (one line: the advised
    choice over the next best, and what separates them), and the system's
    older keys (``best_reroll``, ``best_prayer``). A system without
    decisions gives ``{"advice": None, "choices": []}``.

    >>> r = roll("jadeclaw", {"dice": "d8"}, ScriptedRng([5]), advise=False)
    >>> advise("jadeclaw", r["spec"], r)["advice"] is None
    True
    """
    mod = _module(system)
    norm = mod.normalize(spec)
    if not isinstance(result, dict) or not isinstance(result.get("stages"), list):
        raise SpecError("result", "is not a result of this page")
    fn = getattr(mod, "advise", None)
    return dict(fn(norm, result)) if fn is not None else {"advice": None, "choices": []}


def _attach_advice(mod: System, norm: dict, result: dict) -> None:
    fn = getattr(mod, "advise", None)
    if fn is not None:
        result.update(fn(norm, result))


def odds(system: str, spec: Any, result: dict | None = None, action: Any = None) -> dict:
    """The distribution of the roll, or of the next step given a result and
    an action: ``{"value": {v: p}, "outcome": {name: p}, "exact": bool, ...}``."""
    mod = _module(system)
    norm = mod.normalize(spec)
    if action is not None and not (isinstance(action, dict) and isinstance(action.get("do"), str)):
        raise SpecError("action", "must be an object with a 'do' verb")
    return mod.odds(norm, result, action)


def replay(system: str, spec: Any, stages: Any, *, advise: bool = True) -> dict:
    """Rebuild a result from its stages' recorded draws (``stages.rebuild``:
    the roll, then each step, through ``roll`` and ``act``). Every draw must
    be used and lie on its die, so a link cannot claim an outcome its dice
    don't give; at most ``MAX_STAGES`` stages.

    >>> r = roll("jadeclaw", {"dice": "d8"}, ScriptedRng([5]))
    >>> replay("jadeclaw", r["spec"], r["stages"])["value"] == r["value"]
    True
    """
    norm = normalize(system, spec)
    result = rebuild({"stages": stages}, lambda rng: roll(system, norm, rng, advise=False),
                     lambda before, action, rng: act(system, norm, before, action, rng, advise=False))
    if advise:
        _attach_advice(_module(system), norm, result)
    return result


# --------------------------------------------------------------------------
# Character sheets (docs/PARTY.md).

def _sheet(system: Any) -> Sheet:
    _module(system)
    return SHEETS[system]


def normalize_sheet(system: str, sheet: Any) -> dict:
    """The sheet validated, every default filled in; bad input raises
    ``SpecError`` naming the field by its path (``skills.0.level``).

    >>> normalize_sheet("jadeclaw", {"name": "Wu", "traits": {"will": "d10"}})["traits"]["will"]
    [10]
    """
    return _sheet(system).normalize_sheet(sheet)


def sheet_checks(system: str, sheet: Any) -> list:
    """The sheet's checks, each ``{"name", "label", "applied", "defaults",
    ...}``: ``applied`` lists what the sheet applies to the check and why
    (``{"what": "−1", "why": "1 physical Condition (Battered)"}``),
    ``defaults`` the situation's fields this check fills in.

    >>> [c["label"] for c in sheet_checks("alkemy", SHEETS["alkemy"].EXAMPLE_SHEETS["patrick"])]
    ['Reflex (2)']
    """
    mod = _sheet(system)
    return mod.checks(mod.normalize_sheet(sheet))


def _opponent(system: str, given: Any) -> tuple | None:
    """The opposing side of a situation: an NPC's sheet and its check."""
    if given is None:
        return None
    if not isinstance(given, dict) or set(given) - {"sheet", "check"}:
        raise SpecError("opponent", "must be {\"sheet\": a sheet, \"check\": one of its checks}")
    from .sheets import entry_check  # with the sheets, at their first use
    mod = _sheet(system)
    try:
        npc = mod.normalize_sheet(given.get("sheet"))
    except SpecError as e:
        raise SpecError(f"opponent.{e.field}", e.detail) from None
    return npc, entry_check(mod.checks(npc), given.get("check"))


def check_spec(system: str, sheet: Any, check: Any, situation: Any = None) -> dict:
    """The spec ``check`` of ``sheet`` rolls, with the sheet's standing
    modifiers applied, through the game's own ``normalize``: so odds,
    advice, history, sharing and fair rolls take it as any form's spec.
    ``situation`` holds the fields beside Roll (the game's ``SITUATION``:
    difficulty, modifiers, helpers, favored...) and, for an opposed roll,
    ``"opponent": {"sheet": an NPC's sheet, "check": its check}``.

    >>> from rules.jadeclaw.sheet import EXAMPLE_SHEETS as JC
    >>> s = check_spec("jadeclaw", JC["wu"], "Fast-Talk", {"opponent": {"sheet": JC["father"], "check": "Psychology"}})
    >>> s["dice"], s["quality"], s["opponent"], s["opponent_quality"]
    ([12, 10], 'basic', [12, 8, 4], 'expert')
    """
    from .sheets import entry_check, read_situation  # with the sheets, at their first use
    mod = _sheet(system)
    norm = mod.normalize_sheet(sheet)
    found = entry_check(mod.checks(norm), check)
    fields, opponent = read_situation(mod.SITUATION, found["defaults"], situation)
    return normalize(system, mod.check_spec(norm, found, fields, _opponent(system, opponent)))


def _trusted(system: str, result: Any) -> dict:
    """A result rebuilt from its own spec and draws (``replay``), so a
    consequence never rests on keys a stored or shared result carries."""
    if not isinstance(result, dict) or result.get("system") != system:
        raise SpecError("result", f"is not a {TITLES.get(system, system)} result of this page")
    return replay(system, result.get("spec"), result.get("stages"), advise=False)


def pending_choice(system: str, sheet: Any, result: Any) -> dict | None:
    """The choice a roll's consequence waits on (``{"prompt", "choices":
    [[value, label], ...]}``, e.g. which Condition a Mirage prayer cost),
    or None."""
    mod = _sheet(system)
    return mod.pending(mod.normalize_sheet(sheet), _trusted(system, result))


def consequences(system: str, sheet: Any, result: Any, choice: Any = None) -> dict:
    """The sheet after ``result``'s consequences (each game's ``sheet``
    module says which it carries: a Mirage prayer's Condition, named by
    ``choice``; a Milhamah Merit Point; an Open Tale Heroic Badge spent).
    The result is replayed from its draws first.

    >>> from rules.dice import ScriptedRng
    >>> scout = SHEETS["mirage"].EXAMPLE_SHEETS["scout"]
    >>> spec = check_spec("mirage", scout, "Might")
    >>> r = act("mirage", spec, roll("mirage", spec, ScriptedRng([2, 3])), {"do": "pray", "dice": [0, 1]},
    ...         ScriptedRng([1, 4]))
    >>> pending_choice("mirage", scout, r)["choices"][1]
    ['battered', 'Battered']
    >>> consequences("mirage", scout, r, "battered")["conditions"]
    ['battered']
    """
    mod = _sheet(system)
    norm = mod.normalize_sheet(sheet)
    return mod.normalize_sheet(mod.consequences(norm, _trusted(system, result), choice))
