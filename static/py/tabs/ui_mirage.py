"""The Mirage tab: form fields to spec, result to HTML. Pure; no DOM.

Form controls are named after the spec's fields (``attribute``,
``skill_name``, ``conditions``, ``opponent.helpers``...), so a ``SpecError``
from ``rules.normalize`` lands beside its control unchanged. The six
Condition checkboxes and Broken share the name ``conditions`` (values are the
Condition names), which the spec accepts as a list. ``prayer_bonus`` is the
spec's (the advice and the odds with a prayer use it) and goes into the
``pray`` action; ``opposed`` is form-only: it says whether the opponent's
fields make an ``opponent`` spec.

After a roll that may still be prayed for, the dice best play prays with
(``result["best_prayer"]``) are marked ↻ until the player taps a die, and
"Pray the advised dice" takes them in one tap.

>>> spec = spec_from_form({"attribute": ["10"], "skill": ["8"], "skill_name": ["grace"],
...                        "conditions": ["exhausted"]})
>>> rules.normalize("mirage", spec)["attribute_name"], spec["conditions"]
('agility', ['exhausted'])
"""

from __future__ import annotations

import rules
from drawing import draw, views
from rules.dice import SpecError, format_pool, is_int
from rules.mirage import model as mirage
from tabs import tab

SYSTEM = "mirage"

#: Form-only controls (not spec fields).
PRAYER_BONUS = {"0": 0, "1": 1, "2": 2}
BONUS_NAMES = {0: "No bonus", 1: "Preparatory +1", 2: "Temple +2"}
OPPONENT_FIELDS = ("attribute", "skill", "gear", "helpers", "modifier")
KIND_NAMES = {"attribute": "Attribute", "skill": "Skill", "gear": "Gear"}


def _one(fields: dict, name: str, default: str = "") -> str:
    v = fields.get(name) or [default]
    return str(v[0]).strip()


def _text(fields: dict, name: str, default):
    """The control's text, or ``default`` when it is missing or blank."""
    return _one(fields, name) or default


def _title(name) -> str:
    return str(name or "").replace("_", " ").title()


def _plural(n, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"


def _successes(n) -> str:
    return _plural(n, "success", "successes")


# --------------------------------------------------------------------------
# Form <-> spec.

def _gear(text: str):
    """Gear dice as typed; none, "-" or "0" for no gear."""
    return [] if not text or text.lower() in ("none", "-", "0") else text


def _opponent_spec(fields: dict) -> dict:
    """The opponent's filled controls (``opponent.attribute``...)."""
    opp = {k: _one(fields, f"opponent.{k}") for k in OPPONENT_FIELDS}
    opp = {k: v for k, v in opp.items() if v}
    if "gear" in opp and not _gear(opp["gear"]):
        del opp["gear"]
    return opp


def spec_from_form(fields: dict) -> dict:
    """Every named control of ``#form-mirage`` to a spec. The attribute is
    the skill's own unless the player picks another ("Core Skills").

    >>> spec_from_form({"opposed": ["on"], "opponent.attribute": ["d8"]})["opponent"]["attribute"]
    'd8'
    """
    return {
        "attribute": _one(fields, "attribute", "8"),
        "skill": _text(fields, "skill", "0"),
        "skill_name": _text(fields, "skill_name", None),
        "attribute_name": _text(fields, "attribute_name", None),
        "gear": _gear(_one(fields, "gear")),
        "difficulty": _text(fields, "difficulty", "average"),
        "helpers": _text(fields, "helpers", "0"),
        "conditions": [str(v) for v in fields.get("conditions", [])],
        "modifier": _text(fields, "modifier", "0"),
        "passive": bool(fields.get("passive")),
        "prayer_bonus": _text(fields, "prayer_bonus", "0"),
        "opponent": _opponent_spec(fields) if fields.get("opposed") else None,
    }


def _condition_boxes(conditions: dict) -> list[str]:
    """The ticked Condition boxes: the first n names of each type, and Broken."""
    boxes = [n for kind in ("physical", "mental") for n in mirage.CONDITION_NAMES[kind][: conditions[kind]]]
    return boxes + (["broken"] if conditions.get("broken") else [])


def _opponent_values(spec: dict) -> dict:
    """The opponent's controls; without an opponent, the form's own
    defaults for one (d8 & d6), so ticking Opposed gives a sensible roll."""
    opp = spec["opponent"] or {**rules.normalize(SYSTEM, {"attribute": 8}), "skill": 6}
    return {f"opponent.{k}": _opponent_text(k, opp[k]) for k in OPPONENT_FIELDS}


def _opponent_text(k: str, v) -> str:
    """An opponent control's text: the gear as dice ("d6, d4"), the others as they are."""
    return ", ".join(f"d{s}" for s in v) if k == "gear" else str(v)


def _own_attribute(spec: dict) -> bool:
    """Is the roll's attribute its skill's own ("Core Skills")?"""
    return bool(spec["skill_name"]) and mirage.SKILLS[spec["skill_name"]] == spec["attribute_name"]


def form_values(spec: dict) -> dict:
    """The inverse of ``spec_from_form``: control name -> value (share
    links, saved rolls).

    >>> v = form_values(rules.normalize("mirage", {"conditions": {"physical": 2, "mental": 1}}))
    >>> v["conditions"], v["opposed"]
    (['exhausted', 'battered', 'angry'], False)
    """
    spec = rules.normalize(SYSTEM, spec)
    # "the skill's own" when it is, so a later change of skill brings its attribute along
    own = _own_attribute(spec)
    return {
        "attribute": str(spec["attribute"]),
        "skill": str(spec["skill"]),
        "skill_name": spec["skill_name"] or "",
        "attribute_name": "" if own else spec["attribute_name"],
        "gear": ", ".join(f"d{s}" for s in spec["gear"]),
        "difficulty": spec["difficulty"],
        "helpers": str(spec["helpers"]),
        "conditions": _condition_boxes(spec["conditions"]),
        "modifier": str(spec["modifier"]),
        "passive": spec["passive"],
        "prayer_bonus": str(spec["prayer_bonus"]),
        "opposed": spec["opponent"] is not None,
        **_opponent_values(spec),
    }


def _last_step(result: dict) -> str | None:
    stages = result.get("stages")
    last = stages[-1] if isinstance(stages, list) and stages else None
    return last.get("do") if isinstance(last, dict) else None


def _just_prayed(result: dict) -> bool:
    """The result's latest step is its prayer (not a tie-break after it)."""
    return bool(result.get("prayed")) and _last_step(result) in ("pray", None)


def fields_after(result: dict, fields: dict) -> dict | None:
    """After a prayer that gained a Condition, tick the next box of that
    type (the player may untick it and tick another: "a physical condition
    of your choice"); with all three ticked, tick Broken. The Conditions
    persist for the character between rolls, so only the prayer's own step
    ticks a box: a tie-break after it does not tick another.

    >>> fields_after({"condition_gained": "physical", "prayed": {"dice": [0]}},
    ...              {"conditions": ["exhausted", "angry"]})
    {'conditions': ['exhausted', 'angry', 'battered']}
    >>> fields_after({"condition_gained": "physical", "prayed": {"dice": [0]},
    ...               "stages": [{"do": "roll"}, {"do": "pray"}, {"do": "tiebreak"}]}, {}) is None
    True
    """
    kind = result.get("condition_gained") if isinstance(result, dict) else None
    if kind not in mirage.CONDITION_NAMES or not _just_prayed(result):
        return None
    held = [str(v) for v in fields.get("conditions", [])]
    box = _next_box(kind, held)
    return None if box in held else {"conditions": held + [box]}


def _next_box(kind: str, held: list) -> str:
    """The first unticked Condition of that type; with all of them ticked, Broken."""
    return ([n for n in mirage.CONDITION_NAMES[kind] if n not in held] or ["broken"])[0]


# --------------------------------------------------------------------------
# The tray.

def _kind(die: dict) -> str:
    return die.get("kind") if die.get("kind") in KIND_NAMES else "gear"


def _label(die: dict) -> str:
    two = ", 2 successes" if die.get("successes") == 2 else ""
    return f"{die.get('label') or KIND_NAMES.get(die.get('kind'), 'Die')}: {draw.describe(die)}{two}"


def _tag(die: dict, advised: bool = False) -> str:
    return ("Added" if die.get("added") else KIND_NAMES[_kind(die)]) + (
        " \u00d72" if die.get("successes") == 2 else "") + (" \u21bb" if advised else "")


def _labels(shown: list, advised) -> list[str]:
    """Each shown (position, die)'s spoken label, the advised ones said so."""
    return [_label(d) + (", advised for the prayer" if i in advised else "") for i, d in shown]


def dice_row(dice: list, *, keys: list | None = None, selected=(), caption: str = "",
             size: int = 64, advised=()) -> str:
    """A row of dice (``draw.tray``), each die named by its kind
    (attribute, skill, gear) for screen readers, with a kind tag under it;
    the ``advised`` positions (best play prays with them) tagged ↻."""
    keys = draw.drawn_keys(keys, dice)
    shown = [(i, d) for i, d in enumerate(dice) if isinstance(d, dict)]
    dice = [d for _, d in shown]
    return draw.tray(dice, keys, selected=selected, size=size, caption=caption or None,
                     labels=_labels(shown, advised),
                     tags=[_tag(d, i in advised) for i, d in shown],
                     classes=[f"mirage-die kind-{_kind(d)}" for d in dice])


def _tapped(dice: list, ui: dict) -> list[int]:
    """The positions of the tapped dice, in tap order, each once."""
    out: list[int] = []
    for k in ui.get("selected") or ():
        i = int(k) if str(k).isdigit() else -1
        if 0 <= i < len(dice) and i not in out:
            out.append(i)
    return out


def _pray_targets(result: dict, ui: dict) -> list[int]:
    """The dice a prayer would reroll: the tapped ones (a die showing 1
    cannot be rerolled, so a tap on one is ignored), or if none is tapped,
    every die without a success that does not show 1."""
    dice = result.get("dice") or []
    sel = sorted(i for i in _tapped(dice, ui) if dice[i].get("face") != 1)
    return sel or _blank(dice)


def _blank(dice: list) -> list[int]:
    """The dice without a success that a prayer may reroll (not showing 1)."""
    return [i for i, d in enumerate(dice) if not d.get("success") and d.get("face") != 1]


def _can_pray(result: dict) -> bool:
    return bool(result.get("can_pray")) and not result.get("prayed")


#: Fields that are the character's own state, kept between rolls: a result
#: shared by someone else never changes them on the reader's form.
CHARACTER = ("conditions",)


def in_progress(result: dict) -> bool:
    """A prayer or a tie-break may still change the outcome (the history
    reads "so far"): ``tab.in_progress``."""
    return _can_pray(result) or (result.get("outcome") == "tie" and bool(result.get("can_tiebreak")))


def _headline(result: dict) -> str:
    """What the outcome rests on, after a dash: "Success with a bonus — 2
    successes" (a player's words, not "Success with bonus 2 successes")."""
    text = "— " + _successes(result.get("successes", result.get("value")))
    opp = result.get("opponent")
    if isinstance(opp, dict):
        text += f" against {opp.get('successes')}: net {result.get('value')}"
    if result.get("prayed"):
        text += ", after a prayer"
    if result.get("tiebreaks"):
        text += f", tie-break {result['tiebreaks']}"
    return text


def _step_figures(result: dict) -> tuple | None:
    """The base pool, the stepped pool, the net steps and the steps lost at
    the limits, or None when the result does not hold them."""
    try:
        base = format_pool([int(s) for _, s in result["base"]])
        after = format_pool([int(s) for _, s in result["stepped"]])
        return base, after, int(result["steps"]["net"]), int(result["steps"].get("lost", 0))
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def _steps_line(result: dict) -> str:
    """The base dice before and after stepping (the result shows
    both), e.g. 'Base dice d10 & d6, steps +1: d10 & d8'.

    >>> _steps_line({"base": [["attribute", 10], ["skill", 6]], "stepped": [["attribute", 10], ["skill", 8]],
    ...              "steps": {"net": 1, "lost": 0}})
    'Base dice d10 & d6, steps +1: d10 & d8'
    """
    figures = _step_figures(result)
    if figures is None:
        return ""
    base, after, net, lost = figures
    if net == 0:
        return f"Base dice {base}, no steps"
    text = f"Base dice {base}, steps {'+' if net > 0 else chr(0x2212)}{abs(net)}: {after}"
    return text + (f" ({lost} lost: {_step_limit(net)})" if lost else "")


def _step_limit(net: int) -> str:
    """The limit that steps up or down were lost at ("Steps")."""
    return f"never above 2d{mirage.DIE_SIZES[-1]}" if net > 0 else f"never below one d{mirage.DIE_SIZES[0]}"


def _banner(result: dict, ui: dict) -> str:
    return views.outcome_banner(SYSTEM, result.get("outcome", ""), _headline(result))


def _extra(result: dict, ui: dict) -> str:
    extra = result.get("extra_successes") or 0
    if not extra:
        return ""
    return (f'<p class="mirage-extra">{views.esc(_plural(extra, "extra success", "extra successes"))}: '
            f'a bonus effect (in combat +{views.esc(extra)} damage).</p>')


def _condition(result: dict, ui: dict) -> str:
    gained = result.get("condition_gained")
    if not gained or not _just_prayed(result):
        return ""
    return (f'<p class="mirage-condition" role="status" data-condition-gained="{views.esc(gained)}">'
            f"{views.esc(_condition_words(gained, result.get('broken')))}</p>")


def _condition_words(gained: str, broken) -> str:
    """What the prayer's Condition means: one of that type to choose, or
    one too many: Broken."""
    if broken:
        return (f"A die shows {mirage.CONDITION_FACE} after the prayer: one {gained} Condition too many. "
                "You are Broken: no actions until a Condition heals (Broken is ticked in the form).")
    return (f"A die shows {mirage.CONDITION_FACE} after the prayer: you gain a {gained} Condition of your choice. "
            "The next box is ticked in the form; change it if you choose another.")


def _steps(result: dict, ui: dict) -> str:
    steps = _steps_line(result)
    return f'<p class="mirage-steps">{views.esc(steps)}</p>' if steps else ""


def advice(result: dict) -> list | None:
    """The dice best play prays with now ([] = best play does not pray:
    its advice is another step, ``result["advice"]``), or None when the
    result gives no advice (no prayer allowed). A result without
    ``advice`` (an older one) falls back to ``best_prayer``.

    >>> advice({"can_pray": True, "dice": [{}, {}], "best_prayer": [1, 0, 7]}), advice({"dice": []})
    ([0, 1], None)
    >>> advice({"can_pray": True, "dice": [{}, {}], "best_prayer": [0], "advice": {"do": "tiebreak"}})
    []
    """
    best = _advised(result)
    if not _can_pray(result) or not isinstance(best, list):
        return None
    return _positions(best, len(result.get("dice") or []))


def _positions(best: list, n: int) -> list[int]:
    """The die positions in ``best`` that are whole numbers below ``n``, each once, in order."""
    return sorted({i for i in best if is_int(i) and 0 <= i < n})


def _advised(result: dict):
    """The dice the advice prays with ([] when it takes another step); a
    result without ``advice`` (an older one): its ``best_prayer``, unchecked."""
    if "advice" not in result:
        return result.get("best_prayer")
    act = result.get("advice")
    return list(act.get("dice") or []) if isinstance(act, dict) and act.get("do") == "pray" else []


def _marked(result: dict, ui: dict) -> set:
    """The dice marked ↻: the advice, until the player taps a die."""
    return set() if ui.get("selected") else set(advice(result) or ())


def _their_row(result: dict, dice: list) -> str:
    """A shared result's dice: nothing to tap, no advice, and whether the
    roller could still pray."""
    note = " (shared before any prayer: the roller could still pray)" if _can_pray(result) else ""
    return dice_row(dice, keys=None, selected=(), caption="Their dice" + note, advised=set())


def _own_row(result: dict, ui: dict) -> str:
    dice = result.get("dice") or []
    if ui.get("readonly"):  # a shared result: nothing to tap, no advice
        return _their_row(result, dice)
    can = _can_pray(result)
    return dice_row(dice, keys=[str(i) for i in range(len(dice))] if can else None,
                    selected=ui.get("selected", ()), caption=_own_caption(result, can), advised=_marked(result, ui))


def _own_caption(result: dict, can: bool) -> str:
    """The roller's dice: tappable while a prayer is allowed, ↻ on the advised ones."""
    if advice(result):
        return "Your dice (tap the dice to pray with; \u21bb = advised)"
    return "Your dice (tap the dice to pray with)" if can else "Your dice"


def _before_row(result: dict, ui: dict) -> str:
    before = result.get("before_prayer")
    if not (isinstance(before, dict) and isinstance(before.get("dice"), list)):
        return ""
    return dice_row(before["dice"], size=40, caption=(
        f"Before the prayer: {_successes(before.get('successes'))}, "
        f"{views.outcome_name(before.get('outcome'))}"))


def _opponent_row(result: dict, ui: dict) -> str:
    opp = result.get("opponent")
    if not (isinstance(opp, dict) and isinstance(opp.get("dice"), list)):
        return ""
    return dice_row(opp["dice"], caption=f"Opponent's dice: {_successes(opp.get('successes'))} "
                    "(each cancels one of yours)")


def _pray_button(targets: list, tapped: bool) -> str:
    which = "The tapped dice" if tapped else "Every die without a success"
    return (f'<p class="mirage-pray"><button type="button" data-act="pray" class="pray">'
            f"Pray: reroll {_plural(len(targets), 'die', 'dice')}</button> "
            f'<span class="hint">{views.esc(which)}; a 1 afterwards costs a Condition. '
            "The bonus is the form's Prayer setting.</span></p>")


def _bonus_words(result: dict) -> str:
    b = _roll_bonus(result)
    return f", {BONUS_NAMES[b].lower()}" if b else ""


def _advice_part(result: dict, ui: dict) -> str:
    """"Pray the advised dice" (one tap), or why best play does not pray."""
    best = advice(result)
    if best is None:
        return ""
    if not best:
        return _no_prayer_advice(result)
    return (f'<p class="mirage-advice"><button type="button" data-act="advice" class="pray advice">'
            f"Pray the advised {_plural(len(best), 'die', 'dice')} (\u21bb best{views.esc(_bonus_words(result))})"
            "</button></p>")


def _no_prayer_advice(result: dict) -> str:
    """Why best play does not pray (nothing when it asks for the tie-break:
    the choices say it)."""
    if (result.get("advice") or {}).get("do") == "tiebreak":
        return ""  # the choices say it: best play asks for the tie-break
    why = ("you already succeed, and a prayer only adds the risk of a Condition"
           if result.get("outcome") in ("success", "success_with_bonus")
           else "no prayer can change the outcome, and any prayer risks a Condition")
    return f'<p class="hint mirage-advice" data-advice="keep">Best play: don\'t pray ({views.esc(why)}).</p>'


def _pray_part(result: dict, ui: dict) -> str:
    """The prayer's buttons before best play's choices have come (once
    they have, the choices hold the advised prayer and the player's own)."""
    if not _can_pray(result) or ui.get("readonly") or _has_choices(result):
        return ""
    return _advice_part(result, ui) + _own_pray_part(result, ui)


ONES_HINT = '<p class="hint">A die showing 1 cannot be rerolled: that tap is ignored.</p>'


def _ones(dice: list, tapped: list[int]) -> list[int]:
    """The tapped dice showing 1, which a prayer cannot reroll."""
    return [i for i in tapped if dice[i].get("face") == 1]


def _own_choice(result: dict, ui: dict) -> str:
    """The player's own prayer beside best play's choices: tap the dice to
    pray with, then Pray (at the form's prayer bonus)."""
    if not _can_pray(result) or ui.get("readonly"):
        return ""
    dice = result.get("dice") or []
    tapped = _tapped(dice, ui)
    ones = _ones(dice, tapped)
    hint = ONES_HINT if ones else ""
    targets = _pray_targets(result, ui) if len(ones) < len(tapped) else []
    if not targets:
        return hint + ('<p class="hint mirage-own" data-own>Your own choice: tap the dice to pray with '
                       "(at the form's prayer bonus; a 1 afterwards costs a Condition).</p>")
    return hint + _own_button(targets)


def _own_button(targets: list) -> str:
    """"Your choice: pray with dice 1 and 3" (counted from 1)."""
    n = [str(i + 1) for i in targets]
    words = f"die {n[0]}" if len(n) == 1 else "dice " + ", ".join(n[:-1]) + " and " + n[-1]
    return (f'<p class="mirage-pray" data-own><button type="button" data-act="pray" class="pray">'
            f'Your choice: pray with {views.esc(words)}</button> <span class="hint">at the form\'s '
            "prayer bonus; a 1 afterwards costs a Condition.</span></p>")


def _has_choices(result: dict) -> bool:
    """Has best play's decision come (``advice`` and its ``choices``)?"""
    choices = result.get("choices")
    return isinstance(choices, list) and len(choices) > 1 and result.get("advice") is not None


def _nothing_to_pray(dice: list) -> str:
    """Why no die is picked for a prayer: each die without a success shows
    the Condition face, or every die already succeeds."""
    blank = any(not d.get("success") for d in dice)
    words = (f"Every die without a success shows {mirage.CONDITION_FACE}, which cannot be rerolled: "
             "tap the dice to reroll, "
             "or keep the roll." if blank else "Every die shows a success: tap the dice to reroll, or keep "
             "the roll.")
    return f'<p class="hint">{views.esc(words)}</p>'


def _own_pray_part(result: dict, ui: dict) -> str:
    dice = result.get("dice") or []
    ones = _ones(dice, _tapped(dice, ui))
    hint = ONES_HINT if ones else ""
    targets = _pray_targets(result, ui)
    if not targets:
        return hint + _nothing_to_pray(dice)
    tapped = len(ones) < len(_tapped(dice, ui))
    if not tapped and targets == advice(result):  # the advised button already prays with these
        return hint
    return hint + _pray_button(targets, tapped)


def _tiebreak_offered(result: dict) -> bool:
    """Is the tie-break one of best play's choices?"""
    return any((c.get("action") or {}).get("do") == "tiebreak" for c in result.get("choices") or []
               if isinstance(c, dict))


def _tiebreak_part(result: dict, ui: dict) -> str:
    """A tie: the button that rolls the opposed roll again (only on a tie,
    and only while the rules allow another)."""
    if result.get("outcome") != "tie" or not result.get("can_tiebreak"):
        return ""
    if _tiebreak_offered(result) or ui.get("readonly"):  # the choices hold it, and their why says what it is worth
        return ""
    button = '<button type="button" data-act="tiebreak" class="tiebreak">Tie-break: roll again</button> '
    return ('<p class="mirage-tiebreak">' + button +
            '<span class="hint">A tie fails the active side, unless the GM asks for the opposed '
            "roll to be rolled again: both sides roll.</span></p>")


def _tied_row(t: dict) -> str:
    opp = t.get("opponent") if isinstance(t.get("opponent"), dict) else {}
    after = " after the prayer" if t.get("prayed") else ""
    return (dice_row(t.get("dice") or [], size=40,
                     caption=f"Roll {t.get('round')}{after}: {_successes(t.get('successes'))}, a tie")
            + dice_row(opp.get("dice") or [], size=40,
                       caption=f"Opponent, roll {t.get('round')}: {_successes(opp.get('successes'))}"))


def _tied_rows(result: dict, ui: dict) -> str:
    """The earlier rolls that tied, smaller, under the current one."""
    rows = "".join(_tied_row(t) for t in result.get("tied_rounds") or [] if isinstance(t, dict))
    return f'<div class="mirage-tied">{rows}</div>' if rows else ""


def _explain(result: dict, ui: dict) -> str:
    return views.explain_list(result.get("explain"))


def _margin(c: dict) -> str:
    return f" \u00b1{views.pct(c['margin'])}" if c.get("sampled") else ""


def choice_figures(c: dict) -> str:
    """A choice's odds when played best afterwards, in words; after a
    prayer that cost a Condition, "no further Condition" (``condition``
    counts only those still to come).

    >>> choice_figures({"win": 0.635, "tie": 0.0, "condition": 0.0, "exact": True})
    'win 63.5 %'
    >>> choice_figures({"win": 0.41, "condition": 1.0, "exact": True})
    'win 41.0 %, Condition 100 %'
    >>> choice_figures({"win": 0.0, "tie": 1.0, "condition": 0.0, "condition_paid": True})
    'win 0 %, no further Condition'
    """
    word, p = ("win", c.get("win")) if "win" in c else ("success", c.get("success", 0.0))
    text = f"{word} {views.pct(p)}{_margin(c)}"
    if c.get("condition"):
        text += (", a further Condition " if c.get("condition_paid") else ", Condition ") + views.pct(c["condition"])
    elif c.get("condition_paid"):
        text += ", no further Condition"
    return text


def _choices_part(result: dict, ui: dict) -> str:
    """The decision on one screen: best play's choice as the main button,
    why, every other choice beside it with its odds when played best
    afterwards (the rules' labels and marks: best chance and safest on a
    close call), and the player's own prayer."""
    if not _has_choices(result) or ui.get("readonly"):
        return ""  # a shared result offers no step (docs/RULES-DECISIONS.md, The page)
    return views.choices_html(result, None, choice_figures, "Your choice · odds played best afterwards",
                              extra=_own_choice(result, ui))


_RESULT_PARTS = (_banner, _extra, _condition, _steps, _own_row, _before_row, _opponent_row,
                 _choices_part, _pray_part, _tiebreak_part, _tied_rows, _explain)


def render_result(result: dict, ui: dict) -> str:
    """The tray: outcome, the dice by kind (tappable while a prayer is
    allowed), the roll before the prayer, the opponent's dice, any Condition
    gained, the Pray and Tie-break buttons, the earlier tied rolls and the
    explanation."""
    ui = ui or {}
    return "".join(part(result, ui) for part in _RESULT_PARTS)


def action_for(verb: str, result: dict, ui: dict, fields: dict) -> dict:
    """``pray``: the tapped dice (or every die without a success and not
    showing 1), with the bonus chosen in the form. ``tiebreak``: roll the
    opposed roll again.

    >>> r = {"dice": [{"face": 3}, {"face": 7, "success": True}, {"face": 1}], "can_pray": True}
    >>> action_for("pray", r, {"selected": []}, {"prayer_bonus": ["1"]})
    {'do': 'pray', 'dice': [0], 'bonus': 1}
    >>> action_for("tiebreak", {"outcome": "tie"}, {}, {})
    {'do': 'tiebreak'}
    >>> action_for("choice-1", {"choices": [{"action": {"do": "accept"}}, {"action": {"do": "tiebreak"}}]}, {}, {})
    {'do': 'tiebreak'}
    """
    chosen = tab.choice_action(verb, result)
    if chosen is not None:
        return chosen
    if verb == "tiebreak":
        return {"do": "tiebreak"}
    if verb == "advice":
        return _advice_action(result)
    if verb != "pray":
        raise SpecError("_form", f"Mirage has no step called {verb!r}; only Pray and Tie-break")
    return _pray_action(result, ui, fields)


def _pray_action(result: dict, ui: dict, fields: dict) -> dict:
    """Pray with the dice ``_pray_targets`` picks, at the form's bonus."""
    bonus = _one(fields, "prayer_bonus", "0")
    if bonus not in PRAYER_BONUS:
        raise SpecError("prayer_bonus", "must be none, preparatory prayer (+1) or temple (+2)")
    targets = _pray_targets(result, ui)
    if not targets:
        raise SpecError("_form", "tap the dice to reroll first (dice showing 1 cannot be rerolled)")
    return {"do": "pray", "dice": targets, "bonus": PRAYER_BONUS[bonus]}


def _advice_action(result: dict) -> dict:
    """The advised prayer, at the bonus the advice was made for (the roll's).

    >>> _advice_action({"can_pray": True, "dice": [{}, {}], "best_prayer": [1], "spec": {"prayer_bonus": 2}})
    {'do': 'pray', 'dice': [1], 'bonus': 2}
    """
    best = advice(result)
    if not best:
        raise SpecError("_form", "best play does not pray now: there are no advised dice")
    return {"do": "pray", "dice": best, "bonus": _roll_bonus(result)}


def _roll_bonus(result: dict) -> int:
    """The prayer bonus the roll was made with (the advice's)."""
    b = (result.get("spec") or {}).get("prayer_bonus")
    return b if b in (0, 1, 2) else 0


# --------------------------------------------------------------------------
# Odds.

def _pct(p) -> str:
    return views.esc(views.pct(p))


def _outcome_line(o: dict, opposed: bool) -> str:
    if not opposed:
        return (f'<p class="mirage-odds-line">Success {_pct(o["p_success"])} · '
                f'with a bonus (2+) {_pct(o["p_bonus"])} · failure {_pct(o["outcome"]["failure"])}</p>')
    line = (f'<p class="mirage-odds-line">Win {_pct(o["win"])} · tie {_pct(o["tie"])} (you fail) · '
            f'lose {_pct(o["lose"])} · win with a bonus {_pct(o["p_bonus"])}</p>')
    tb = o.get("with_tiebreaks")
    if tb:
        line += (f'<p class="mirage-odds-line mirage-tiebreak-odds">If the GM breaks ties by rolling '
                 f'again: win {_pct(tb["win"])}, lose {_pct(tb["lose"])} (win / (win + lose) = '
                 f'{_pct(tb["if_ties_repeat"])})</p>')
    return line


def questions(spec: dict, result, ui: dict) -> dict:
    """The roll in the form; after a roll that may still be prayed for,
    the prayer of the tapped dice at each bonus; after a tie that may be
    broken, the tie-break (both asked of the spec the roll was made with)."""
    out = {"roll": tab.before()}
    if not isinstance(result, dict):
        return out
    rolled = {"spec": result.get("spec") or spec}
    out.update(_prayer_questions(result, ui or {}, rolled))
    if result.get("can_tiebreak"):
        out["tiebreak"] = {**rolled, **tab.after(result, {"do": "tiebreak"})}
    return out


def _bonus_questions(result: dict, rolled: dict, targets: list) -> dict:
    """The prayer of ``targets`` at each bonus (none without targets)."""
    return {f"pray{b}": {**rolled, **tab.after(result, {"do": "pray", "dice": targets, "bonus": b})}
            for b in ((0, 1, 2) if targets else ())}


def _prayer_questions(result: dict, ui: dict, rolled: dict) -> dict:
    """The prayer of the tapped dice at each bonus, best play's prayer, and
    the player's own beside it once they tap (at the roll's bonus)."""
    targets = _pray_targets(result, ui) if _can_pray(result) else []
    out = _bonus_questions(result, rolled, targets)
    best, b = advice(result), _roll_bonus(result)
    if best:
        out["best"] = {**rolled, **tab.after(result, {"do": "pray", "dice": best, "bonus": b})}
    if best and targets and ui.get("selected"):
        out["choice"] = {**rolled, **tab.after(result, {"do": "pray", "dice": targets, "bonus": b})}
    return out


def _prayer_row(b: int, o: dict) -> str:
    win = _win(o)
    return (f"<tr><th scope=\"row\">{views.esc(BONUS_NAMES[b])}</th>"
            f"<td>{_pct(win)}</td><td>{_pct(o['p_bonus'])}</td><td>{_pct(o['condition'])}</td></tr>")


def _prayer_refusal(answers: dict) -> str:
    """The first of the prayer's answers the rules refused, shown as an
    error ("" when none was)."""
    errors = [answers[f"pray{b}"]["error"] for b in (0, 1, 2) if "error" in answers[f"pray{b}"]]
    return views.error_html(errors[0]) if errors else ""


def _prayer_table(answers: dict, opposed: bool) -> str:
    """The prayer's odds at each bonus, or the rules' refusal (a result from
    a link that does not hold up)."""
    refused = _prayer_refusal(answers)
    if refused:
        return refused
    rows = "".join(_prayer_row(b, answers[f"pray{b}"]) for b in (0, 1, 2))
    n = len(answers["pray0"]["dice"])  # no bonus: exactly the tapped dice are rerolled
    return (f'<h3 class="odds-title">If you pray, rerolling {_plural(n, "die", "dice")}</h3>'
            + views.scroll_box("Chances by prayer bonus")
            + '<table class="mirage-pray-odds"><thead><tr><th>Prayer</th>'
            f"<th>{'Win' if opposed else 'Success'}</th><th>2+</th>"
            "<th>Condition</th></tr></thead><tbody>" + rows + "</tbody></table></div>")


def _die_words(dice: list) -> str:
    words = [f"the d{d.get('sides')}'s {d.get('face')}" for d in dice]
    return ", ".join(words[:-1]) + " and " + words[-1] if len(words) > 1 else words[0]


def _counts(dice: list) -> str:
    return "counts, so it stays" if len(dice) == 1 else "count, so they stay"


def _sorted_for_why(dice: list, best: list) -> tuple[list, list, list, list]:
    """The dice a prayer with ``best`` leaves that already count, the
    counting ones it rerolls all the same, the others it leaves (1s
    aside), and the 1s."""
    rest = [d for i, d in enumerate(dice) if i not in best]
    return (_counting(rest), _counting([dice[i] for i in best if i < len(dice)]), _spare(rest),
            [d for d in dice if d.get("face") == 1])


def _spare(rest: list) -> list:
    """The dice left that neither count nor show 1: rerolling them too
    would add only the risk of a 1."""
    return [d for d in rest if not d.get("successes") and d.get("face") != 1]


def _counting(dice: list) -> list:
    """The dice that already count (a success or two)."""
    return [d for d in dice if d.get("successes")]


def _why(result: dict, best: list) -> str:
    """Why those dice, in a few words: what stays, what goes, what would
    not help."""
    dice = [d if isinstance(d, dict) else {} for d in result.get("dice") or []]
    kept, redone, spare, ones = _sorted_for_why(dice, best)
    parts = [
        (kept, lambda: f"{_die_words(kept)} already {_counts(kept)}"),
        (redone, lambda: f"{_die_words(redone)} rerolled all the same: only more successes can win now"),
        (spare, lambda: f"rerolling {_die_words(spare)} too would not raise the chance, only the risk of a 1"),
        (ones, lambda: "a 1 cannot be rerolled, and a 1 left after the prayer costs a Condition"),
    ]
    return "; ".join(words() for found, words in parts if found) or (
        "every die is rerolled: no set of them gives a better chance")


def _win(o: dict) -> float:
    return o["win"] if "win" in o else o["p_success"]


def _why_hint(result: dict) -> str:
    """Why best play prays with those dice, as a hint under its odds."""
    why = _why(result, advice(result) or [])
    return f'<br><span class="hint">Why these dice: {views.esc(why)}.</span>' if why else ""


def _advice_odds(answers: dict, result: dict) -> str:
    """The advised prayer's odds and why, and the player's own choice
    beside it once they tap ("your choice: 12 %, best: 31 %")."""
    best = answers["best"]
    if "error" in best:
        return views.error_html(best["error"])
    word = "Win" if (result.get("spec") or {}).get("opponent") else "Success"
    out = ('<h3 class="odds-title">Now: the advised prayer (the \u21bb dice) on its own</h3>'
           f'<p class="mirage-odds-line" data-odds="best">{word} <strong>{_pct(_win(best))}</strong> · '
           f'2+ {_pct(best["p_bonus"])} · Condition {_pct(best["condition"])}'
           '<br><span class="hint">The prayer\'s own roll, no tie-break after it (the choice above counts '
           "every step after it, played best).</span>"
           + _why_hint(result) + "</p>")
    return out + _compare_line(answers.get("choice"), best)


def _compare_line(choice: dict | None, best: dict) -> str:
    """The player's own prayer beside the advised one, once its odds come."""
    if not choice or "error" in choice:
        return ""
    return (f'<p class="mirage-odds-line mirage-compare" data-odds="choice">Your choice: '
            f'<strong>{_pct(_win(choice))}</strong> (Condition {_pct(choice["condition"])}), best: '
            f'<strong>{_pct(_win(best))}</strong> (Condition {_pct(best["condition"])})</p>')


def _sampled_words(o: dict) -> str:
    """The margin and the number of rolls, when the turn's odds were sampled."""
    if not o.get("prayer_sampled"):
        return ""
    return f" \u00b1{views.pct(o['prayer_margin'])}, from {o['prayer_sampled']} sampled rolls each way"


def _prayer_turn_line(spec: dict, o: dict) -> str:
    """Before the roll: the turn played best with a prayer on a failure."""
    if "success_with_prayer" not in o or not o.get("prayer_allowed", True):
        return ""
    when, word = ("a loss or a tie", "win") if spec.get("opponent") else ("a failure", "success")
    sampled = _sampled_words(o)
    return (f'<p class="mirage-odds-line" data-odds="with-prayer">Before the roll, with a prayer on {when} '
            f'where it is worth its risk (the advised dice{views.esc(_bonus_words({"spec": spec}))}, no '
            f'tie-break): {word} <strong>{_pct(o["success_with_prayer"])}'
            f'</strong>{views.esc(sampled)} (Condition {_pct(o["condition_with_prayer"])})</p>')


def _tiebreak_odds(o: dict) -> str:
    if "error" in o:
        return views.error_html(o["error"])
    tb = o["with_tiebreaks"]
    return ('<h3 class="odds-title">If the GM breaks the tie</h3>'
            f'<p class="mirage-odds-line">The tie-break with {views.esc(format_pool(o["dice"]))}: '
            f'win {_pct(o["win"])} · tie again {_pct(o["tie"])} · lose {_pct(o["lose"])}</p>'
            f'<p class="mirage-odds-line">Rolling again until the tie breaks: win {_pct(tb["win"])}, '
            f'lose {_pct(tb["lose"])}</p>')


def _roll_odds(spec: dict, o: dict) -> str:
    if "error" in o:
        return views.error_html(o["error"])
    opposed = spec.get("opponent") is not None
    title = ("Net successes (yours minus the opponent's)" if opposed else "Successes") + \
        f" with {format_pool(o['dice'])}"
    return ('<h3 class="odds-title">Before the roll: the odds of the roll in the form</h3>' + _outcome_line(o, opposed)
            + _prayer_turn_line(spec, o) + views.bar_chart(o["value"], title=title, highlight=(lambda v: v >= 1)))


def _broken_note(spec: dict) -> str:
    try:
        mirage.check_not_broken(spec)
    except SpecError as e:
        return (f'<p class="mirage-broken-note" role="status">{views.esc(e.detail)}. '
                "Untick Broken when a Condition heals.</p>")
    return ""


def render_odds(spec: dict, answers: dict, result) -> str:
    """Before a roll: the exact distribution of successes and P(success),
    P(2+) (or win/tie/lose, and with ties rolled again). After a roll that
    may still be prayed for: the prayer's odds for the tapped dice at each
    bonus, with P(Condition). After a tie: the tie-break's odds."""
    out = [_advice_odds(answers, result)] if "best" in answers else []
    if "pray0" in answers:
        out.append(_prayer_table(answers, bool((result.get("spec") or spec).get("opponent"))))
    if "tiebreak" in answers:
        out.append(_tiebreak_odds(answers["tiebreak"]))
    broken = _broken_note(spec)
    return "".join(out) + (broken or _roll_odds(spec, answers["roll"]))


# --------------------------------------------------------------------------
# Reference and history.

def _reference_tables() -> str:
    """The core skills with their attributes, the difficulties with their
    modifiers, and the level -> die legend."""
    skills = "".join(f"<tr><td>{views.esc(_title(s))}</td><td>{views.esc(_title(a))}</td></tr>"
                     for s, a in mirage.SKILLS.items())
    diff = "".join(f"<tr><td>{views.esc(_title(n))}</td><td>{views.esc(f'+{m}' if m > 0 else m)}</td></tr>"
                   for n, m in mirage.DIFFICULTY.items())
    legend = "".join(f"<tr><td>{lvl}</td><td>d{die}</td></tr>" for lvl, die in sorted(mirage.LEGEND.items()))
    return (views.scroll_box("Core skills")
            + '<table><caption>Core skills</caption><thead><tr><th>Skill</th>'
            f"<th>Attribute</th></tr></thead><tbody>{skills}</tbody></table></div>"
            + views.scroll_box("Difficulty")
            + '<table><caption>Difficulty</caption><thead><tr><th>Difficulty</th>'
            f"<th>Modifier</th></tr></thead><tbody>{diff}</tbody></table></div>"
            + views.scroll_box("Level \u2192 die")
            + '<table><caption>Level \u2192 die (default legend, not in the text)</caption>'
            f"<thead><tr><th>Level</th><th>Die</th></tr></thead><tbody>{legend}</tbody></table></div>")


def render_reference() -> str:
    """The tables the rules text gives (skills, difficulty), the step rules,
    and the level -> die legend it does not give (RULES-NOTES Mirage 1: a
    default, said so on the page)."""
    conds = " · ".join(f"{_title(k)}: " + ", ".join(_title(n) for n in v)
                       for k, v in mirage.CONDITION_NAMES.items())
    one, two, small, large = mirage.SUCCESS_ON, mirage.GREAT_ON, mirage.DIE_SIZES[0], mirage.DIE_SIZES[-1]
    face = mirage.CONDITION_FACE
    return (
        "<summary>Mirage reference: skills, difficulty, steps, prayer</summary>"
        '<div class="mirage-ref">'
        + _reference_tables()
        + "</div>"
        '<ul class="mirage-rules">'
        "<li>Roll the attribute die and the skill die (no skill: the attribute die alone), plus gear dice. "
        f"Each {one}\u2013{two - 1} is a success, each {two}+ two. 0 failure, 1 success, 2+ success with a "
        "bonus effect (in combat each extra success is +1 damage).</li>"
        f"<li>Modifiers (difficulty, +1 per helper up to {mirage.MAX_HELPERS}, \u22121 per Condition of the "
        f"attribute's type, others) add up to one net number of steps. Up: the lower die first, never above "
        f"2d{large}; a lone die gains a d{small}. Down: the higher die first; below 2d{small} a die goes; "
        f"never below one d{small}. "
        "Between equal dice the skill die moves first (our reading). Gear dice are not stepped.</li>"
        f"<li>Pray once, on an active roll: reroll any dice not showing {face} (preparatory prayer +1, temple "
        f"+{mirage.MAX_PRAYER_BONUS} as steps on the rerolled dice). If any die then shows {face}, gain one "
        "Condition: physical for Strength/Agility, mental for Wits/Empathy.</li>"
        f"<li>Conditions: {views.esc(conds)}. More than {mirage.MAX_CONDITIONS} of one type: Broken, "
        "no actions.</li>"
        "<li>Opposed: each opposing success cancels one of yours; a tie fails the active side unless the "
        "GM has it rolled again (Tie-break: both sides roll the opposed roll again, as often as it ties, "
        f"at most {mirage.MAX_TIEBREAKS} times). Only the active side prays, even after the opponent "
        "rolled, and once for the roll and its tie-breaks; a Condition the prayer cost counts on a "
        "tie-break.</li>"
        "</ul>")


def _summary_tail(result: dict) -> str:
    parts = [(isinstance(result.get("opponent"), dict),
              f" vs {(result.get('opponent') or {}).get('successes')}"),
             (result.get("prayed"), ", prayed"),
             (result.get("tiebreaks"), f", {_plural(result.get('tiebreaks'), 'tie-break')}"),
             (result.get("condition_gained"), f", +{result.get('condition_gained')} Condition")]
    return "".join(text for on, text in parts if on)


def _pool_of(dice: list) -> str:
    """The dice rolled as a pool ("d8 & d6"), any entry without a size left out."""
    return format_pool([d.get("sides") for d in dice if isinstance(d, dict) and isinstance(d.get("sides"), int)])


def summary(result: dict) -> str:
    """One line for the roll history.

    >>> r = rules.roll("mirage", {"attribute": 8, "skill": 6, "skill_name": "might"},
    ...                rules.ScriptedRng([6, 2]))
    >>> summary(r)
    'Might: d8 & d6 \u2192 1 success'
    """
    spec = result.get("spec") or {}
    who = _title(spec.get("skill_name")) or _title(spec.get("attribute_name")) or "Mirage"
    pool = _pool_of(result.get("dice") or [])
    n = _successes(result.get("successes", result.get("value")))
    return f"{who}: {pool} \u2192 {n}{_summary_tail(result)}"
