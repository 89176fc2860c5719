"""Jadeclaw's test cases (see ``cases``)."""

from __future__ import annotations

from rules.jadeclaw import model as jadeclaw

WORST = [
    {"dice": "40d12", "penalties": 20, "favored": True, "opponent": "40d12",
     "quality": 200, "opponent_quality": "mythic"},
    {"level": 60, "include": "8d12", "limit": 12, "bonuses": 20, "remove": 16},
    {"kind": "damage", "dice": "40d12", "soak": "40d12", "favored": True},
    {"kind": "damage", "dice": "5d12 & 5d4", "damage_type": "normal"},
    {"kind": "damage", "dice": "10d12 & 10d10 & 10d8 & 10d6", "damage_type": "slaying"},
    {"kind": "damage", "dice": "3d12 & 3d10", "soak": "2d12", "favored": True,
     "damage_type": "enervated"},
    {"kind": "damage", "dice": "40d12", "soak": {"faces": [12] * 40}, "favored": True},
    {"kind": "damage", "dice": "40d12", "soak": "40d12", "penalties": 20},
    {"dice": "40d12", "penalties": 20, "favored": True, "opponent": "40d12", "opponent_penalties": 20,
     "opponent_favored": True, "opponent_limit": 12},
    {"dice": "d4", "difficulty": "for_legends_only", "opponent_bonuses": 20, "opponent_penalties": 0,
     "opponent_favored": True},
    {"kind": "damage", "dice": "40d12", "favored": True, "soak": "30d12", "soak_favored": True,
     "soak_bonuses": 1, "soak_limit": 12},
    {"kind": "damage", "dice": "3d12 & 3d10", "favored": True, "soak": "3d12 & 3d10", "soak_favored": True,
     "soak_penalties": 1},
]

SPEC_FIELDS = list(jadeclaw.KEYS)

HOSTILE_ACTION = ({}, "reroll")

STORE_SPECS = [{"dice": "2d12 & d4", "difficulty": "routine", "penalties": 1},
               {"kind": "damage", "dice": [12, 10, 8], "soak": [8, 6]}]


def store_step(result: dict):
    """No step taken in the stored history."""
    return None


#: Specs whose exact odds are checked against 3000 seeded rolls
#: (tests/rules/test_odds_match_rolls.py).
ODDS_SPECS = [
    {"dice": "d12 & d8", "difficulty": "difficult"},
    {"dice": "d10, d6", "penalties": 2, "favored": True, "opponent": "d8 & d8"},
    {"kind": "damage", "dice": "d12 & d8 & d4", "soak": "d10 & d6", "favored": True},
    {"kind": "damage", "dice": "2d8", "soak": "d8", "damage_type": "slaying"},
    {"dice": "d10 & d6", "opponent": "d12 & d8", "opponent_penalties": 2, "opponent_favored": True,
     "opponent_limit": 10},
    {"dice": "d8", "penalties": 1, "difficulty": "difficult", "opponent_bonuses": 1,
     "opponent_penalties": 2},
    {"kind": "damage", "dice": "d12 & d10", "soak": "d10 & d8 & d4", "soak_penalties": 1,
     "soak_favored": True},
    {"kind": "damage", "dice": "2d10", "favored": True, "soak": "d6 & d4", "soak_favored": True,
     "soak_limit": 4, "soak_bonuses": 1, "damage_type": "enervated"},
]

#: Results drawn on the tray, their dice forced (tests/ui/test_draw_tray.py):
#: a Damage Roll with a soak die left over, a Penalty roll against a Difficulty.
TRAY_ROLLS = [({"kind": "damage", "dice": "d8, d6", "soak": "d8 & d6 & d4"}, [7, 6, 3, 2, 1]),
              ({"dice": "d10 & d6", "penalties": 1, "difficulty": "routine"}, [7, 2, 5, 4, 3, 3])]

#: The form's fields as a player edits them (tests/ui/test_formstate.py).
EDITED_FORM = {"dice": ["2d12 & d4"], "favored": ["on"], "against": ["dice"], "opponent": ["3d6"]}


def strategies(h):
    """The property suite's strategies and checks for this game
    (tests/rules/test_properties.py builds ``h``: hypothesis's ``st`` and
    the suite's helpers)."""
    st, spec_of, names, some, sizes, json_values = h.st, h.spec_of, h.names, h.some, h.sizes, h.json_values
    _die_list, _side, check_die = h.die_list, h.side, h.check_die

    _JADE_DICE = st.one_of(
        some(sizes, 6),
        st.sampled_from(["2d12 & d4", "d8", "d10, d6", "3d6", "d12 and d4"]),
        st.fixed_dictionaries({"faces": st.lists(st.integers(1, 12), min_size=1, max_size=4)}),
    )
    _JADECLAW_KEYS = {
        "kind": names(("simple", "damage")),
        "dice": _JADE_DICE,
        "level": st.integers(0, 60),
        "include": some(sizes, 3),
        "remove": st.integers(0, 4),
        "limit": st.sampled_from([None, 4, 6, 8, 10, 12, "d8", 0]),
        "bonuses": st.integers(0, 20),
        "penalties": st.integers(0, 20),
        "favored": st.booleans(),
        "opponent": _JADE_DICE,
        "difficulty": names(jadeclaw.DIFFICULTIES),
        "quality": st.one_of(names(jadeclaw.QUALITIES), st.integers(0, 200)),
        "opponent_quality": st.one_of(names(jadeclaw.QUALITIES), st.integers(0, 200)),
        "soak": _JADE_DICE,
        "damage_type": names(jadeclaw.DAMAGE_TYPES),
        "double_botch": names(("botch", "tie")),
        # the other side's own modifiers (opposing dice or a Difficulty; soak dice)
        **{f"{who}_{mod}": strategy for who in ("opponent", "soak") for mod, strategy in (
            ("bonuses", st.integers(0, 20)), ("penalties", st.integers(0, 20)), ("favored", st.booleans()),
            ("limit", st.sampled_from([None, 4, 6, 8, 10, 12, "d8", 0])))},
    }
    # dice or a level (rarely both: refused unless they agree)
    JADECLAW_SPECS = st.one_of(spec_of({k: v for k, v in _JADECLAW_KEYS.items() if k != "level"}),
                               spec_of({k: v for k, v in _JADECLAW_KEYS.items() if k != "dice"}),
                               spec_of(_JADECLAW_KEYS))

    def _counts_jadeclaw(result: dict, spec: dict, v: int) -> None:
        if result["kind"] == "simple":
            assert v == max(d["face"] for d in result["dice"])
            for r in result["rolls"] + (result.get("opponent_rolls") or []):
                assert r["score"] == max(d["face"] for d in r["dice"])
                for d in r["dice"]:
                    check_die(d)
            if not isinstance(spec["dice"], dict):
                assert len(result["rolls"]) == result["penalties"] + 1
                assert v == min(r["score"] for r in result["rolls"])
            if result["opponent"] is not None:
                # the opposing side keeps its worst Score, one roll and one more per net Penalty
                net = spec["opponent_penalties"] - spec["opponent_bonuses"]
                rolled = result["opponent_pool"] is not None
                assert len(result["opponent_rolls"]) == (max(net, 0) + 1 if rolled else 1)
                assert result["opponent_score"] == min(r["score"] for r in result["opponent_rolls"])
            if result["outcome"] == "botch":
                assert v == 1
        else:
            hits = sum(p["hits"] for p in result["pairs"]) + (1 if result["soak_botch"] else 0)
            assert v == hits
            if result["soak_pool"] is not None:
                assert sorted(d["sides"] for d in result["opponent"]) == sorted(result["soak_pool"])
            assert result["outcome"] == ("hits" if v else "no_hits")

    return {
        "specs": JADECLAW_SPECS,
        # mostly valid actions (the game's verbs)
        "actions": st.fixed_dictionaries({"do": st.sampled_from(["reroll", "keep"])}),
        # spec keys that leave the roller a step to choose, mixed into some specs
        "with_a_choice": st.just({}),
        # an action chosen to fit a result, so that real steps happen; None: no step
        "fitting": lambda result, data: None,
        # the headline number counted again from the dice
        "counts": _counts_jadeclaw,
        # what the odds' "value" is of, read off a result; None: of more than this roll
        "odds_value": lambda r: r["value"],
    }


#: Rolls from the party (docs/PARTY.md): a rules-text character's check
#: against an NPC's, the form's spec for the same roll, forced draws and the
#: outcome they give ("Quality Makes a Difference": Wu's Basic loses the Tie
#: to her father's Expert). tests/rules/test_sheets.py, tests/browser/test_party_flow.py.
PARTY = [{"sheet": "wu", "check": "Fast-Talk", "against": ("father", "Psychology"),
          "form": {"dice": "d12 & d10", "quality": "basic", "opponent": "d12, d8, d4", "opponent_quality": "expert"},
          "draws": [9, 4, 9, 3, 2], "outcome": "failure"}]
