"""The Mirage tab: form fields to spec, result to HTML. Pure; no DOM.

Form controls are named after the spec's fields (``attribute``,
``skill_name``, ``conditions``, ``opponent.helpers``...), so a ``SpecError``
from ``rules.normalize`` lands beside its control unchanged. The six
Condition checkboxes and Broken share the name ``conditions`` (values are the
Condition names), which the spec accepts as a list. ``prayer_bonus`` and
``opposed`` are form-only: the first goes into the ``pray`` action, the
second says whether the opponent's fields make an ``opponent`` spec.

>>> spec = spec_from_form({"attribute": ["10"], "skill": ["8"], "skill_name": ["grace"],
...                        "conditions": ["exhausted"]})
>>> rules.normalize("mirage", spec)["attribute_name"], spec["conditions"]
('agility', ['exhausted'])
"""

from __future__ import annotations

import draw
import rules
import tab
import views
from rules import mirage
from rules.dice import SpecError, format_pool

SYSTEM = "mirage"

#: Form-only controls (not spec fields).
PRAYER_BONUS = {"0": 0, "1": 1, "2": 2}
BONUS_NAMES = {0: "No bonus", 1: "Preparatory +1", 2: "Temple +2"}
OPPONENT_FIELDS = ("attribute", "skill", "gear", "helpers", "modifier")
KIND_NAMES = {"attribute": "Attribute", "skill": "Skill", "gear": "Gear"}


def _one(fields: dict, name: str, default: str = "") -> str:
    v = fields.get(name) or [default]
    return str(v[0]).strip()


def _title(name) -> str:
    return str(name or "").replace("_", " ").title()


# --------------------------------------------------------------------------
# Form <-> spec.

def spec_from_form(fields: dict) -> dict:
    """Every named control of ``#form-mirage`` to a spec. The attribute is
    the skill's own unless the player picks another ("Core Skills").

    >>> spec_from_form({"opposed": ["on"], "opponent.attribute": ["d8"]})["opponent"]["attribute"]
    'd8'
    """
    spec: dict = {
        "attribute": _one(fields, "attribute", "8"),
        "skill": _one(fields, "skill", "0") or "0",
        "skill_name": _one(fields, "skill_name") or None,
        "attribute_name": _one(fields, "attribute_name") or None,
        "gear": _one(fields, "gear"),
        "difficulty": _one(fields, "difficulty", "average") or "average",
        "helpers": _one(fields, "helpers", "0") or "0",
        "conditions": [str(v) for v in fields.get("conditions", [])],
        "modifier": _one(fields, "modifier", "0") or "0",
        "passive": bool(fields.get("passive")),
        "opponent": None,
    }
    if not spec["gear"] or spec["gear"].lower() in ("none", "-", "0"):
        spec["gear"] = []
    if fields.get("opposed"):
        opp = {}
        for k in OPPONENT_FIELDS:
            v = _one(fields, f"opponent.{k}")
            if v:
                opp[k] = v
        if opp.get("gear", "").lower() in ("none", "-", "0"):
            opp.pop("gear")
        if opp.get("skill") == "":
            opp.pop("skill")
        spec["opponent"] = opp
    return spec


def form_values(spec: dict) -> dict:
    """The inverse of ``spec_from_form``: control name -> value (share
    links, saved rolls).

    >>> v = form_values(rules.normalize("mirage", {"conditions": {"physical": 2, "mental": 1}}))
    >>> v["conditions"], v["opposed"]
    (['exhausted', 'battered', 'angry'], False)
    """
    spec = rules.normalize(SYSTEM, spec)
    conds = []
    for kind in ("physical", "mental"):
        conds += list(mirage.CONDITION_NAMES[kind][: spec["conditions"][kind]])
    if spec["conditions"].get("broken"):
        conds.append("broken")
    out: dict = {
        "attribute": str(spec["attribute"]),
        "skill": str(spec["skill"]),
        "skill_name": spec["skill_name"] or "",
        # "the skill's own" when it is, so a later change of skill brings its attribute along
        "attribute_name": "" if spec["skill_name"] and mirage.SKILLS[spec["skill_name"]] == spec["attribute_name"]
        else spec["attribute_name"],
        "gear": ", ".join(f"d{s}" for s in spec["gear"]),
        "difficulty": spec["difficulty"],
        "helpers": str(spec["helpers"]),
        "conditions": conds,
        "modifier": str(spec["modifier"]),
        "passive": spec["passive"],
        "opposed": spec["opponent"] is not None,
    }
    opp = spec["opponent"] or rules.normalize(SYSTEM, {"attribute": 8})
    if spec["opponent"] is None:
        opp = {**opp, "skill": 6}
    for k in OPPONENT_FIELDS:
        v = opp[k]
        out[f"opponent.{k}"] = ", ".join(f"d{s}" for s in v) if k == "gear" else str(v)
    return out


def fields_after(result: dict, fields: dict) -> dict | None:
    """After a prayer that gained a Condition, tick the next box of that
    type (the player may untick it and tick another: "a physical condition
    of your choice"); with all three ticked, tick Broken. The Conditions
    persist for the character between rolls.

    >>> fields_after({"condition_gained": "physical", "prayed": {"dice": [0]}},
    ...              {"conditions": ["exhausted", "angry"]})
    {'conditions': ['exhausted', 'angry', 'battered']}
    >>> fields_after({"condition_gained": None, "prayed": None}, {}) is None
    True
    """
    kind = result.get("condition_gained") if isinstance(result, dict) else None
    if kind not in mirage.CONDITION_NAMES or not result.get("prayed"):
        return None
    held = [str(v) for v in fields.get("conditions", [])]
    free = [n for n in mirage.CONDITION_NAMES[kind] if n not in held]
    if free:
        return {"conditions": held + [free[0]]}
    if "broken" not in held:
        return {"conditions": held + ["broken"]}
    return None


# --------------------------------------------------------------------------
# The tray.

def _label(die: dict) -> str:
    return f"{die.get('label') or KIND_NAMES.get(die.get('kind'), 'Die')}: {draw.describe(die)}" + (
        f", {die.get('successes')} successes" if die.get("successes") == 2 else "")


def dice_row(dice: list, *, keys: list | None = None, selected=(), caption: str = "",
             size: int = 64) -> str:
    """A row of dice like ``draw.tray``, each die named by its kind
    (attribute, skill, gear) for screen readers, with a kind tag under it."""
    if keys is not None:
        keys = [k for k, d in zip(keys, dice) if isinstance(d, dict)]
    dice = [d for d in dice if isinstance(d, dict)]
    kinds = [d.get("kind") if d.get("kind") in KIND_NAMES else "gear" for d in dice]
    tags = [("Added" if d.get("added") else KIND_NAMES[kind]) + (" \u00d72" if d.get("successes") == 2 else "")
            for d, kind in zip(dice, kinds)]
    return draw.tray(dice, keys, selected=selected, size=size, caption=caption or None,
                     labels=[_label(d) for d in dice], tags=tags,
                     classes=[f"mirage-die kind-{kind}" for kind in kinds])


def _pray_targets(result: dict, ui: dict) -> list[int]:
    """The dice a prayer would reroll: the tapped ones (a die showing 1
    cannot be rerolled, so a tap on one is ignored), or if none is tapped,
    every die without a success that does not show 1."""
    dice = result.get("dice") or []
    sel = []
    for k in ui.get("selected") or ():
        try:
            i = int(k)
        except (TypeError, ValueError):
            continue
        if 0 <= i < len(dice) and i not in sel and dice[i].get("face") != 1:
            sel.append(i)
    if sel:
        return sorted(sel)
    return [i for i, d in enumerate(dice) if not d.get("success") and d.get("face") != 1]


def _headline(result: dict) -> str:
    n = result.get("successes", result.get("value"))
    text = f"{n} success{'es' if n != 1 else ''}"
    opp = result.get("opponent")
    if isinstance(opp, dict):
        text += f" against {opp.get('successes')}: net {result.get('value')}"
    if result.get("prayed"):
        text += ", after a prayer"
    return text


def _steps_line(result: dict) -> str:
    """The base dice before and after stepping (issue 5: the result shows
    both), e.g. 'Base dice d10 & d6, steps +1: d10 & d8'.

    >>> _steps_line({"base": [["attribute", 10], ["skill", 6]], "stepped": [["attribute", 10], ["skill", 8]],
    ...              "steps": {"net": 1, "lost": 0}})
    'Base dice d10 & d6, steps +1: d10 & d8'
    """
    try:
        base = format_pool([int(s) for _, s in result["base"]])
        after = format_pool([int(s) for _, s in result["stepped"]])
        net = int(result["steps"]["net"])
        lost = int(result["steps"].get("lost", 0))
    except (KeyError, TypeError, ValueError, AttributeError):
        return ""
    if net == 0:
        return f"Base dice {base}, no steps"
    sign = "+" if net > 0 else "\u2212"
    text = f"Base dice {base}, steps {sign}{abs(net)}: {after}"
    if lost:
        text += f" ({lost} lost: {'never above 2d12' if net > 0 else 'never below one d6'})"
    return text


def render_result(result: dict, ui: dict) -> str:
    """The tray: outcome, the dice by kind (tappable while a prayer is
    allowed), the roll before the prayer, the opponent's dice, any Condition
    gained, the Pray button and the explanation."""
    dice = result.get("dice") or []
    can_pray = bool(result.get("can_pray")) and not result.get("prayed")
    keys = [str(i) for i in range(len(dice))] if can_pray else None
    parts = [views.outcome_banner(SYSTEM, result.get("outcome", ""), _headline(result))]
    extra = result.get("extra_successes") or 0
    if extra:
        parts.append(f'<p class="mirage-extra">{extra} extra success{"es" if extra > 1 else ""}: '
                     f'a bonus effect (in combat +{extra} damage).</p>')
    gained = result.get("condition_gained")
    if gained:
        if result.get("broken"):
            msg = (f"A die shows 1 after the prayer: a fourth {gained} Condition. "
                   "You are Broken: no actions until a Condition heals (Broken is ticked in the form).")
        else:
            msg = (f"A die shows 1 after the prayer: you gain a {gained} Condition of your choice. "
                   "The next box is ticked in the form; change it if you choose another.")
        parts.append(f'<p class="mirage-condition" role="status" data-condition-gained="{views.esc(gained)}">'
                     f"{views.esc(msg)}</p>")
    steps = _steps_line(result)
    if steps:
        parts.append(f'<p class="mirage-steps">{views.esc(steps)}</p>')
    parts.append(dice_row(dice, keys=keys, selected=ui.get("selected", ()),
                          caption="Your dice (tap the dice to pray with)" if can_pray else "Your dice"))
    before = result.get("before_prayer")
    if isinstance(before, dict) and isinstance(before.get("dice"), list):
        parts.append(dice_row(before["dice"], caption=(
            f"Before the prayer: {before.get('successes')} success{'' if before.get('successes') == 1 else 'es'}, "
            f"{views.outcome_name(before.get('outcome'))}"), size=40))
    opp = result.get("opponent")
    if isinstance(opp, dict) and isinstance(opp.get("dice"), list):
        n = opp.get("successes")
        parts.append(dice_row(opp["dice"], caption=f"Opponent's dice: {n} success{'' if n == 1 else 'es'} "
                              "(each cancels one of yours)"))
    if can_pray:
        targets = _pray_targets(result, ui)
        tapped = bool(ui.get("selected"))
        ones = [k for k in ui.get("selected") or () if str(k).isdigit() and int(k) < len(dice)
                and dice[int(k)].get("face") == 1]
        if ones:
            parts.append('<p class="hint">A die showing 1 cannot be rerolled: that tap is ignored.</p>')
        tapped = tapped and len(ones) < len(ui.get("selected"))
        if targets:
            which = "The tapped dice" if tapped else "Every die without a success"
            parts.append(f'<p class="mirage-pray"><button type="button" data-act="pray" class="pray">'
                         f"Pray: reroll {len(targets)} di{'c' if len(targets) > 1 else ''}e</button> "
                         f'<span class="hint">{views.esc(which)}; a 1 afterwards costs a Condition. '
                         "The bonus is the form's Prayer setting.</span></p>")
        else:
            parts.append('<p class="hint">Every die without a success shows 1: tap the dice to '
                         "reroll, or keep the roll.</p>")
    parts.append(views.explain_list(result.get("explain")))
    return "".join(parts)


def action_for(verb: str, result: dict, ui: dict, fields: dict) -> dict:
    """``pray``: the tapped dice (or every die without a success and not
    showing 1), with the bonus chosen in the form.

    >>> r = {"dice": [{"face": 3}, {"face": 7, "success": True}, {"face": 1}], "can_pray": True}
    >>> action_for("pray", r, {"selected": []}, {"prayer_bonus": ["1"]})
    {'do': 'pray', 'dice': [0], 'bonus': 1}
    """
    if verb != "pray":
        raise SpecError("_form", f"Mirage has no step called {verb!r}; only Pray")
    bonus = _one(fields, "prayer_bonus", "0")
    if bonus not in PRAYER_BONUS:
        raise SpecError("prayer_bonus", "must be none, preparatory prayer (+1) or temple (+2)")
    targets = _pray_targets(result, ui)
    if not targets:
        raise SpecError("_form", "tap the dice to reroll first (dice showing 1 cannot be rerolled)")
    return {"do": "pray", "dice": targets, "bonus": PRAYER_BONUS[bonus]}


# --------------------------------------------------------------------------
# Odds.

def _outcome_line(o: dict, opposed: bool) -> str:
    if opposed:
        return (f'<p class="mirage-odds-line">Win {views.esc(views.pct(o["win"]))} · '
                f'tie {views.esc(views.pct(o["tie"]))} (you fail) · lose {views.esc(views.pct(o["lose"]))} · '
                f'win with a bonus {views.esc(views.pct(o["p_bonus"]))}</p>')
    return (f'<p class="mirage-odds-line">Success {views.esc(views.pct(o["p_success"]))} · '
            f'with a bonus (2+) {views.esc(views.pct(o["p_bonus"]))} · '
            f'failure {views.esc(views.pct(o["outcome"]["failure"]))}</p>')


def questions(spec: dict, result, ui: dict) -> dict:
    """The roll in the form; after a roll that may still be prayed for,
    the prayer of the tapped dice at each bonus (asked of the spec the roll
    was made with)."""
    out = {"roll": tab.before()}
    if isinstance(result, dict) and result.get("can_pray") and not result.get("prayed"):
        targets = _pray_targets(result, ui or {})
        if targets:
            for b in (0, 1, 2):
                out[f"pray{b}"] = {"spec": result.get("spec") or spec,
                                   **tab.after(result, {"do": "pray", "dice": targets, "bonus": b})}
    return out


def _prayer_table(answers: dict, opposed: bool) -> str:
    """The prayer's odds at each bonus, or the rules' refusal (a result from
    a link that does not hold up)."""
    rows = []
    for b in (0, 1, 2):
        o = answers[f"pray{b}"]
        if "error" in o:
            return views.error_html(o["error"])
        win = o["win"] if "win" in o else o["p_success"]
        rows.append(f"<tr><th scope=\"row\">{views.esc(BONUS_NAMES[b])}</th>"
                    f"<td>{views.esc(views.pct(win))}</td><td>{views.esc(views.pct(o['p_bonus']))}</td>"
                    f"<td>{views.esc(views.pct(o['condition']))}</td></tr>")
    n = len(answers["pray0"]["dice"])  # no bonus: exactly the tapped dice are rerolled
    return (f'<h3 class="odds-title">If you pray, rerolling {n} di{"c" if n > 1 else ""}e</h3>'
            + views.scroll_box("Chances by prayer bonus")
            + '<table class="mirage-pray-odds"><thead><tr><th>Prayer</th>'
            f"<th>{'Win' if opposed else 'Success'}</th><th>2+</th>"
            "<th>Condition</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table></div>")


def render_odds(spec: dict, answers: dict, result) -> str:
    """Before a roll: the exact distribution of successes and P(success),
    P(2+) (or win/tie/lose). After a roll that may still be prayed for: the
    prayer's odds for the tapped dice at each bonus, with P(Condition)."""
    out = []
    if "pray0" in answers:
        out.append(_prayer_table(answers, bool((result.get("spec") or spec).get("opponent"))))
    try:
        mirage.check_not_broken(spec)
    except SpecError as e:
        out.append(f'<p class="mirage-broken-note" role="status">{views.esc(e.detail)}. '
                   "Untick Broken when a Condition heals.</p>")
        return "".join(out)
    o = answers["roll"]
    if "error" in o:
        return "".join(out) + views.error_html(o["error"])
    opposed = spec.get("opponent") is not None
    title = ("Net successes (yours minus the opponent's)" if opposed else "Successes") + \
        f" with {format_pool(o['dice'])}"
    out.append('<h3 class="odds-title">Odds of the roll in the form</h3>')
    out.append(_outcome_line(o, opposed))
    out.append(views.bar_chart(o["value"], title=title,
                               highlight=(lambda v: v >= 1)))
    return "".join(out)


# --------------------------------------------------------------------------
# Reference and history.

def render_reference() -> str:
    """The tables the rules text gives (skills, difficulty), the step rules,
    and the level -> die legend it does not give (RULES-NOTES Mirage 1)."""
    skills = "".join(f"<tr><td>{views.esc(_title(s))}</td><td>{views.esc(_title(a))}</td></tr>"
                     for s, a in mirage.SKILLS.items())
    diff = "".join(f"<tr><td>{views.esc(_title(n))}</td><td>{views.esc(f'+{m}' if m > 0 else m)}</td></tr>"
                   for n, m in mirage.DIFFICULTY.items())
    legend = "".join(f"<tr><td>{lvl}</td><td>d{die}</td></tr>" for lvl, die in sorted(mirage.LEGEND.items()))
    conds = " · ".join(f"{_title(k)}: " + ", ".join(_title(n) for n in v)
                       for k, v in mirage.CONDITION_NAMES.items())
    return (
        "<summary>Mirage reference: skills, difficulty, steps, prayer</summary>"
        '<div class="mirage-ref">'
        + views.scroll_box("Core skills")
        + '<table><caption>Core skills</caption><thead><tr><th>Skill</th>'
        f"<th>Attribute</th></tr></thead><tbody>{skills}</tbody></table></div>"
        + views.scroll_box("Difficulty")
        + '<table><caption>Difficulty</caption><thead><tr><th>Difficulty</th>'
        f"<th>Modifier</th></tr></thead><tbody>{diff}</tbody></table></div>"
        + views.scroll_box("Level \u2192 die")
        + '<table><caption>Level \u2192 die (default legend, not in the text)</caption>'
        f"<thead><tr><th>Level</th><th>Die</th></tr></thead><tbody>{legend}</tbody></table></div>"
        "</div>"
        '<ul class="mirage-rules">'
        "<li>Roll the attribute die and the skill die (no skill: the attribute die alone), plus gear dice. "
        "Each 6\u20139 is a success, each 10+ two. 0 failure, 1 success, 2+ success with a bonus effect "
        "(in combat each extra success is +1 damage).</li>"
        "<li>Modifiers (difficulty, +1 per helper up to 3, \u22121 per Condition of the attribute's type, "
        "others) add up to one net number of steps. Up: the lower die first, never above 2d12; a lone die "
        "gains a d6. Down: the higher die first; below 2d6 a die goes; never below one d6. "
        "Between equal dice the skill die moves first (our reading). Gear dice are not stepped.</li>"
        "<li>Pray once, on an active roll: reroll any dice not showing 1 (preparatory prayer +1, temple +2 "
        "as steps on the rerolled dice). If any die then shows 1, gain one Condition: physical for "
        "Strength/Agility, mental for Wits/Empathy.</li>"
        f"<li>Conditions: {views.esc(conds)}. A fourth of one type: Broken, no actions.</li>"
        "<li>Opposed: each opposing success cancels one of yours; a tie fails the active side unless the "
        "GM has it rolled again. Only the active side prays, even after the opponent rolled.</li>"
        "</ul>")


def summary(result: dict) -> str:
    """One line for the roll history.

    >>> r = rules.roll("mirage", {"attribute": 8, "skill": 6, "skill_name": "might"},
    ...                rules.ScriptedRng([6, 2]))
    >>> summary(r)
    'Might: d8 & d6 \u2192 1 success'
    """
    spec = result.get("spec") or {}
    who = _title(spec.get("skill_name")) or _title(spec.get("attribute_name")) or "Mirage"
    pool = format_pool([d.get("sides") for d in (result.get("dice") or []) if isinstance(d, dict)
                        and isinstance(d.get("sides"), int)])
    n = result.get("successes", result.get("value"))
    text = f"{who}: {pool} \u2192 {n} success{'es' if n != 1 else ''}"
    if isinstance(result.get("opponent"), dict):
        text += f" vs {result['opponent'].get('successes')}"
    if result.get("prayed"):
        text += ", prayed"
    if result.get("condition_gained"):
        text += f", +{result['condition_gained']} Condition"
    return text
