"""Character sheets (docs/PARTY.md): each game's sheet built from its
rules text's own characters, a check's spec equal to the spec the form
gives for the same roll (so its odds and its forced roll are the form's),
what a sheet applies to a check and why, and the consequences a roll
carries back onto the sheet.

The equivalent form specs are written by hand here, as a player would fill
the form from the rules text's example; the check's spec comes from the
sheet through ``rules.check_spec``. Worked examples force the dice with
``ScriptedRng`` (the text's own faces where it gives them).
"""

from __future__ import annotations

import pytest

import cases
import rules
from rules import SpecError
from rules.dice import ScriptedRng
from rules.milhamah import model as milhamah

EXAMPLES = {system: rules.SHEETS[system].EXAMPLE_SHEETS for system in rules.SYSTEMS}


def versus(system: str, npc: str, check: str, **situation) -> dict:
    return {**situation, "opponent": {"sheet": EXAMPLES[system][npc], "check": check}}


#: (system, sheet, check, situation, the form's spec for the same roll,
#: forced draws, the outcome the text gives): each game's ``PARTY`` cases
#: (``tests/cases``), and more.
WORKED = [pytest.param(system, c["sheet"], c["check"], versus(system, *c["against"]), c["form"], c["draws"],
                       c["outcome"], id=f"{system}-{c['sheet']}-{c['check']}-against-{c['against'][0]}")
          for system, cs in cases.every("PARTY", []).items() for c in cs] + [
    pytest.param("jadeclaw", "mai_li", "Fast-Talk", {"bonuses": 1, "difficulty": "difficult"},
                 {"dice": "d10 & d6", "quality": "basic", "bonuses": 1, "difficulty": "difficult"}, None, None,
                 id="jadeclaw-mai-li-one-bonus-rolls-d12-d8"),
    pytest.param("alkemy", "tecumseh", "Spirit", {"difficulty": 15},
                 {"characteristic": 8, "difficulty": 15}, [3, 4], "success", id="alkemy-tecumseh-spirit-15"),
    pytest.param("milhamah", "rachel", "BLE", {"difficulty": "challenging"},
                 {"shoresh": "אשר", "pool": ["red", "green"], "rerolls": 3, "difficulty": "challenging"},
                 None, None, id="milhamah-rachel-ble-challenging"),
    pytest.param("open_tale", "swordsman", "Strength", {"modifier": "advantage"},
                 {"level": 5, "modifiers": ["advantage"]}, [7, 2, 5], "scored",
                 id="open-tale-long-sword-strength-5-with-advantage"),
]


@pytest.mark.parametrize("system, who, check, situation, form, draws, outcome", WORKED)
def test_a_check_rolls_the_forms_spec(system, who, check, situation, form, draws, outcome):
    """The check's spec is the spec the form gives for the same roll: the
    same odds, and with the same dice the same result."""
    spec = rules.check_spec(system, EXAMPLES[system][who], check, situation)
    assert spec == rules.normalize(system, form)
    assert rules.odds(system, spec) == rules.odds(system, form)
    if draws is not None:
        mine = rules.roll(system, spec, ScriptedRng(draws))
        assert mine == rules.roll(system, form, ScriptedRng(draws))
        assert mine["outcome"] == outcome


def test_wu_and_her_father_are_the_texts_numbers():
    """Jadeclaw, "Quality Makes a Difference": Wu's Will d10 and Fast-Talk
    d12 (Basic), her father's Mind d8 and Psychology d12, d4 (Expert): the
    Skill dice come from the Level, the Quality too."""
    wu = {c["name"]: c for c in rules.sheet_checks("jadeclaw", EXAMPLES["jadeclaw"]["wu"])}
    father = {c["name"]: c for c in rules.sheet_checks("jadeclaw", EXAMPLES["jadeclaw"]["father"])}
    assert (wu["Fast-Talk"]["dice"], wu["Fast-Talk"]["quality"]) == ([12, 10], "basic")
    assert (father["Psychology"]["dice"], father["Psychology"]["quality"]) == ([12, 8, 4], "expert")
    assert wu["Fast-Talk"]["label"] == "Fast-Talk (Will)" and wu["Will"]["dice"] == [10]


def test_the_situation_may_name_another_trait():
    """"The four basic Traits ... may or may not be included with a Skill;
    it depends on circumstance": the roll may take another or none."""
    wu = {**EXAMPLES["jadeclaw"]["wu"], "traits": {"will": "d10", "speed": "d6"}}
    assert rules.check_spec("jadeclaw", wu, "Fast-Talk", {"trait": "speed"})["dice"] == [12, 6]
    assert rules.check_spec("jadeclaw", wu, "Fast-Talk", {"trait": "none"})["dice"] == [12]


def test_an_npc_of_open_tale_sets_the_rule_of_thumb_target():
    """Open Tale, "3.4. Expected scores": level + 5 is the neutral expected
    minimum score, which our table (computed from the dice) gives too."""
    from rules.open_tale import model
    for level in range(1, 10):
        npc = {"name": "NPC", "attributes": [{"name": "Wits", "level": level}]}
        spec = rules.check_spec("open_tale", EXAMPLES["open_tale"]["swordsman"], "Strength",
                                {"opponent": {"sheet": npc, "check": "Wits"}})
        assert spec["target"] == level + 5 == model.round_half_up(model.expected_minimum(level, 0, False))


# --------------------------------------------------------------------------
# What a sheet applies, and why.

def _check(system, sheet, name):
    return next(c for c in rules.sheet_checks(system, sheet) if c["name"] == name)


def test_a_condition_is_minus_one_on_its_attributes_only():
    """Mirage, "Conditions": each physical Condition −1 on Strength and
    Agility rolls, each mental one on Wits and Empathy; the check says so."""
    scout = {**EXAMPLES["mirage"]["scout"], "conditions": ["battered", "angry", "frightened"]}
    might = _check("mirage", scout, "Might")
    assert {"what": "−1", "why": "1 physical Condition (Battered)"} in might["applied"]
    assert {"what": "−2", "why": "2 mental Conditions (Angry, Frightened)"} in _check("mirage", scout, "Observation")["applied"]
    spec = rules.check_spec("mirage", scout, "Might")
    assert spec["conditions"] == {"physical": 1, "mental": 2, "broken": False}
    # d6 Strength and d6 Might: −1 goes below 2d6, so one die is removed
    r = rules.roll("mirage", spec, ScriptedRng([6]))
    assert len(r["dice"]) == 1 and r["steps"]["conditions"] == -1


def test_gear_and_a_preparatory_prayer_apply_to_their_skills():
    """"Gear can give positive modifiers or even additional dice"; a
    preparatory prayer is +1 on a prayer's re-rolls for the session."""
    scout = {**EXAMPLES["mirage"]["scout"], "prayer_bonus": 1,
             "gear": [{"name": "Dark cloak", "dice": "d8", "modifier": 1, "skills": ["shadowcraft"]}]}
    applied = _check("mirage", scout, "Shadowcraft")["applied"]
    assert {"what": "+d8", "why": "Dark cloak (gear dice)"} in applied
    assert {"what": "+1", "why": "Dark cloak (gear)"} in applied
    spec = rules.check_spec("mirage", scout, "Shadowcraft")
    assert (spec["gear"], spec["modifier"], spec["prayer_bonus"]) == ([8], 1, 1)
    assert rules.check_spec("mirage", scout, "Shadowcraft", {"gear": False})["gear"] == []
    assert rules.check_spec("mirage", scout, "Might")["gear"] == []


def test_alkemy_health_sets_the_dice_colour():
    """ALKEMY, "Jet characteristic": the dice's colour follows the figure's
    health; with faces by health a red die shows 1-4 (RULES-NOTES ALKEMY 1)."""
    patrick = EXAMPLES["alkemy"]["patrick"]
    for colour in ("white", "yellow", "red"):
        sheet = {**patrick, "health": colour}
        assert _check("alkemy", sheet, "Reflex")["applied"] == [{"what": "+2", "why": "Reflex, added to the two dice"},
                                                                {"what": f"{colour} dice", "why": f"health: {colour}"}]
        r = rules.roll("alkemy", rules.check_spec("alkemy", sheet, "Reflex"), ScriptedRng([2, 3]))
        assert {d["colour"] for d in r["dice"]} == {colour}
    with pytest.raises(SpecError):
        rules.roll("alkemy", {**rules.check_spec("alkemy", {**patrick, "health": "red"}, "Reflex"), "faces": "by_health"},
                   ScriptedRng([5, 5]))


# --------------------------------------------------------------------------
# Consequences.

def _prayer_leaving_a_one(sheet, check="Might"):
    spec = rules.check_spec("mirage", sheet, check)
    r = rules.roll("mirage", spec, ScriptedRng([2, 3, 2, 3]))
    n = len(r["dice"])
    return rules.act("mirage", spec, r, {"do": "pray", "dice": list(range(n))}, ScriptedRng([1] + [4] * (n - 1)))


def test_a_prayer_that_leaves_a_one_records_the_condition_the_player_names():
    """Mirage, "The Cost of Unanswered Prayer": "a physical condition of
    your choice" after Strength; the next Strength roll shows and applies
    −1, a Wits roll does not; cleared, it is gone."""
    scout = EXAMPLES["mirage"]["scout"]
    r = _prayer_leaving_a_one(scout)
    assert r["condition_gained"] == "physical"
    ask = rules.pending_choice("mirage", scout, r)
    assert [c[0] for c in ask["choices"]] == ["exhausted", "battered", "wounded"]
    with pytest.raises(SpecError) as e:
        rules.consequences("mirage", scout, r)
    assert e.value.field == "choice"
    with pytest.raises(SpecError):
        rules.consequences("mirage", scout, r, "angry")  # a mental one after Strength
    after = rules.consequences("mirage", scout, r, "Battered")
    assert after["conditions"] == ["battered"]
    assert rules.check_spec("mirage", after, "Might")["conditions"]["physical"] == 1
    assert {"what": "−1", "why": "1 physical Condition (Battered)"} in _check("mirage", after, "Might")["applied"]
    assert not any("Condition" in a["why"] for a in _check("mirage", after, "Observation")["applied"])
    assert rules.pending_choice("mirage", after, r)["choices"] == [["exhausted", "Exhausted"], ["wounded", "Wounded"]]
    cleared = rules.normalize_sheet("mirage", {**after, "conditions": []})
    assert rules.check_spec("mirage", cleared, "Might")["conditions"]["physical"] == 0


def test_a_fourth_condition_of_a_type_is_broken():
    """Mirage, "Conditions": three of a type held, a fourth is Broken, and
    a Broken character's roll is refused."""
    worn = {**EXAMPLES["mirage"]["scout"], "conditions": ["exhausted", "battered", "wounded"]}
    r = _prayer_leaving_a_one(worn)
    assert rules.pending_choice("mirage", worn, r) is None
    broken = rules.consequences("mirage", worn, r)
    assert broken["broken"] is True
    assert any(a["what"] == "no roll" for a in _check("mirage", broken, "Might")["applied"])
    with pytest.raises(SpecError, match="Broken"):
        rules.roll("mirage", rules.check_spec("mirage", broken, "Might"), ScriptedRng([6, 6]))


def test_a_roll_without_a_one_changes_nothing():
    scout = EXAMPLES["mirage"]["scout"]
    spec = rules.check_spec("mirage", scout, "Might")
    r = rules.roll("mirage", spec, ScriptedRng([6, 6]))
    assert rules.consequences("mirage", scout, r) == rules.normalize_sheet("mirage", scout)
    assert rules.pending_choice("mirage", scout, r) is None


def test_a_tampered_result_is_replayed_before_it_lands():
    """A result claiming a Condition its draws do not give lands nothing;
    one of another game, or with draws off its dice, is refused."""
    scout = EXAMPLES["mirage"]["scout"]
    spec = rules.check_spec("mirage", scout, "Might")
    r = rules.roll("mirage", spec, ScriptedRng([6, 6]))
    assert rules.pending_choice("mirage", scout, {**r, "condition_gained": "physical"}) is None
    with pytest.raises(SpecError):
        rules.consequences("mirage", scout, {**r, "system": "alkemy"})
    with pytest.raises(SpecError):
        rules.consequences("mirage", scout, {**r, "stages": [{"do": "roll", "draws": [13, 6]}]})


def _natural_draws(spec: dict, letters: str) -> list:
    """Draws putting each letter of ``letters`` on the first die that
    carries it, and a face that spells nothing on every other die."""
    dice = [milhamah.die_faces(c, d) for c, d in milhamah.dice_of(spec)]
    want, out = list(letters), []
    for faces in dice:
        hit = next((x for x in want if x in faces), None)
        if hit:
            want.remove(hit)
            out.append(faces.index(hit) + 1)
        else:
            out.append(next(i + 1 for i, f in enumerate(faces) if f not in letters and f != milhamah.WILD))
    assert not want
    return out


def test_a_merit_point_taken_for_a_natural_lands_on_the_sheet():
    """Milhamah, "The Natural Shoresh": unopposed, "You gain a Merit Point"."""
    rachel = EXAMPLES["milhamah"]["rachel"]
    spec = rules.check_spec("milhamah", rachel, "BLE")
    r = rules.roll("milhamah", spec, ScriptedRng(_natural_draws(spec, "אשר")))
    assert r["natural"]
    assert rules.consequences("milhamah", rachel, r)["merit"] == 0  # the reward is not chosen yet
    merit = rules.act("milhamah", spec, r, {"do": "natural", "reward": "merit"}, ScriptedRng([]))
    assert rules.consequences("milhamah", rachel, merit)["merit"] == 1
    bonus = rules.act("milhamah", spec, r, {"do": "natural", "reward": "successes"}, ScriptedRng([]))
    assert rules.consequences("milhamah", rachel, bonus)["merit"] == 0


def test_the_heroic_d4_spends_the_badge():
    """Open Tale, "3.1. Heroism": one badge at most, spent for a turn's d4."""
    hero = EXAMPLES["open_tale"]["swordsman"]
    plain = rules.roll("open_tale", rules.check_spec("open_tale", hero, "Strength"), ScriptedRng([3, 3]))
    assert rules.consequences("open_tale", hero, plain)["heroic_badge"] is True
    spent = rules.roll("open_tale", rules.check_spec("open_tale", hero, "Strength", {"heroic": True}),
                       ScriptedRng([3, 3, 2]))
    after = rules.consequences("open_tale", hero, spent)
    assert after["heroic_badge"] is False
    assert rules.consequences("open_tale", after, spent) == after


# --------------------------------------------------------------------------
# Refusals name the field.

@pytest.mark.parametrize("system, sheet, field", [
    ("jadeclaw", {"name": ""}, "name"),
    ("jadeclaw", {"name": "Wu", "traits": {"will": "d7"}}, "traits.will"),
    ("jadeclaw", {"name": "Wu", "skills": [{"name": "Fast-Talk", "level": 61}]}, "skills.0.level"),
    ("jadeclaw", {"name": "Wu", "skills": [{"name": "A"}, {"name": " a "}]}, "skills.1.name"),
    ("jadeclaw", {"name": "Wu", "skils": []}, "skils"),
    ("mirage", {"name": "S", "conditions": ["sleepy"]}, "conditions"),
    ("mirage", {"name": "S", "attributes": {"wits": "d4"}}, "attributes.wits"),
    ("alkemy", {"name": "P", "health": "green"}, "health"),
    ("alkemy", {"name": "P", "characteristics": [{"name": "Reflex", "value": 31}]}, "characteristics.0.value"),
    ("milhamah", {"name": "E", "abilities": [{"name": "Gust", "shoresh": "rw", "attribute": "BLE"}]},
     "abilities.0.shoresh"),
    ("milhamah", {"name": "E", "attributes": [{"name": "BLE", "rating": 3}],
                  "abilities": [{"name": "Gust", "shoresh": "רוח", "attribute": "VIG"}]}, "abilities.0.attribute"),
    ("milhamah", {"name": "E", "attributes": [{"name": "BLE", "rating": 10}],
                  "abilities": [{"name": "Gust", "shoresh": "רוח", "attribute": "BLE", "skill": 3}]},
     "abilities.0.skill"),
    ("open_tale", {"name": "H", "attributes": [{"name": "Strength", "level": 5, "dice": "d12, d6"}]},
     "attributes.0.dice"),
    ("open_tale", {"name": "H", "name2": 1}, "name2"),
    ("open_tale", {"name": "x" * 41}, "name"),
    ("open_tale", {"name": "Wu\u202eevil"}, "name"),
    ("open_tale", ["not", "a", "sheet"], "sheet"),
], ids=lambda v: v if isinstance(v, str) and len(v) < 30 else None)
def test_a_bad_sheet_names_its_field(system, sheet, field):
    with pytest.raises(SpecError) as e:
        rules.normalize_sheet(system, sheet)
    assert e.value.field == field


@pytest.mark.parametrize("system, who, check, situation, field", [
    ("jadeclaw", "wu", "Psychology", None, "check"),
    ("jadeclaw", "wu", "Fast-Talk", {"bonuses": 21}, "bonuses"),
    ("jadeclaw", "wu", "Fast-Talk", {"luck": 1}, "luck"),
    ("jadeclaw", "wu", "Fast-Talk", {"opponent": {"sheet": {"name": ""}, "check": "x"}}, "opponent.name"),
    ("jadeclaw", "wu", "Fast-Talk", {"opponent": {"sheet": EXAMPLES["jadeclaw"]["father"], "check": "Nope"}}, "check"),
    ("jadeclaw", "wu", "Fast-Talk", {"opponent": "the father"}, "opponent"),
    ("milhamah", "etgar", "Spirit Gust", {"pair": "red+green"}, "pair"),
    ("milhamah", "etgar", "Spirit Gust", {"modifier": 8}, "modifier"),
    ("mirage", "scout", "Might", {"helpers": 4}, "helpers"),
    ("alkemy", "patrick", "Reflex", {"difficulty": -1}, "difficulty"),
    ("open_tale", "swordsman", "Strength", {"modifier": "luck"}, "modifier"),
    ("open_tale", "swordsman", "Strength", "easy", "situation"),
])
def test_a_bad_situation_names_its_field(system, who, check, situation, field):
    with pytest.raises(SpecError) as e:
        rules.check_spec(system, EXAMPLES[system][who], check, situation)
    assert e.value.field == field


def test_every_example_sheet_is_a_fixed_point_and_every_check_rolls():
    """Each game's examples normalize to themselves, and each of their
    checks gives a spec the game's own ``normalize`` keeps as it is."""
    for system in rules.SYSTEMS:
        assert EXAMPLES[system]
        for sheet in EXAMPLES[system].values():
            norm = rules.normalize_sheet(system, sheet)
            assert rules.normalize_sheet(system, norm) == norm
            for c in rules.sheet_checks(system, norm):
                assert c["name"] and c["label"] and isinstance(c["applied"], list)
                spec = rules.check_spec(system, norm, c["name"])
                assert rules.normalize(system, spec) == spec


def test_a_game_without_a_sheet_is_caught():
    """``rules.system.check_sheet``: a game whose folder has no sheet, or
    a sheet lacking a name, stops the import with the name of what lacks."""
    import types

    from rules.system import check_sheet
    game = types.SimpleNamespace(NAME="sixth")
    with pytest.raises(TypeError, match="no sheet"):
        check_sheet(game, None)
    partial = types.SimpleNamespace(**{n: getattr(rules.SHEETS["alkemy"], n) for n in
                                       ("FIELDS", "SITUATION", "EXAMPLE_SHEETS", "normalize_sheet", "checks")})
    with pytest.raises(TypeError, match="check_spec, consequences, pending"):
        check_sheet(game, partial)
    with pytest.raises(TypeError, match="rules/sixth/sheet.py"):  # what the registry does at import
        rules._Sheets({"sixth": types.SimpleNamespace(NAME="sixth", __name__="rules")})  # no rules/sheet.py
    broken = types.SimpleNamespace(**{n: getattr(rules.SHEETS["alkemy"], n) for n in dir(rules.SHEETS["alkemy"])
                                      if not n.startswith("_")})
    broken.EXAMPLE_SHEETS = {"bad": {"name": ""}}
    with pytest.raises(SpecError):
        check_sheet(game, broken)
