"""Open Tale's test cases (see ``cases``)."""

from __future__ import annotations

from rules.open_tale import model as open_tale

WORST = [
    {"level": 9, "heroic": True, "modifiers": ["superiority"], "tie_break": "best", "target": 100},
    {"level": 8, "dice": [12, 10], "heroic": True, "modifiers": ["disadvantage"] * 8},
    {"level": 5, "dice": "d12 + d4", "heroic": True, "modifiers": ["inferiority", "advantage"],
     "tie_break": "smaller"},
]

SPEC_FIELDS = list(open_tale.KEYS)

HOSTILE_ACTION = ({}, "reroll")

STORE_SPECS = [{"level": 4, "heroic": True, "target": 9}, {"level": 9, "modifiers": ["advantage"]}]


def store_step(result: dict):
    """Open Tale has no step after a roll."""
    return None


#: Specs whose exact odds are checked against 3000 seeded rolls
#: (tests/rules/test_odds_match_rolls.py).
ODDS_SPECS = [
    {"level": 2},
    {"level": 5, "dice": [10, 6], "modifiers": ["advantage"], "target": 14},
    {"level": 4, "heroic": True, "modifiers": ["inferiority"], "tie_break": "smaller"},
]

#: Results drawn on the tray, their dice forced (tests/ui/test_draw_tray.py):
#: ``(spec, draws)``, the draws a list of faces or a seed. A die that explodes twice.
TRAY_ROLLS = [({"level": 5, "dice": [10, 6], "heroic": True, "modifiers": ["advantage"]},
               [10, 6, 4, 2, 10, 3, 6, 2])]

#: The form's fields as a player edits them (tests/ui/test_formstate.py).
EDITED_FORM = {"level": ["7"], "pair_7": ["12-8"], "heroic": ["on"], "modifiers": ["advantage", "advantage"]}


def strategies(h):
    """The property suite's strategies and checks for this game
    (tests/rules/test_properties.py builds ``h``: hypothesis's ``st`` and
    the suite's helpers)."""
    st, spec_of, names, some, sizes, json_values = h.st, h.spec_of, h.names, h.some, h.sizes, h.json_values
    _die_list, _side, check_die = h.die_list, h.side, h.check_die

    _OPEN_TALE_COHERENT = st.integers(1, 9).flatmap(lambda level: st.fixed_dictionaries(
        {"level": st.just(level)},
        optional={"dice": st.sampled_from([list(p) for p in open_tale.valid_pairs(level)]),
                  "heroic": st.booleans(),
                  "modifiers": some(st.sampled_from(list(open_tale.MODIFIERS)), 3),
                  "tie_break": st.sampled_from(open_tale.TIE_BREAKS),
                  "target": st.integers(1, 40)}))
    OPEN_TALE_SPECS = _OPEN_TALE_COHERENT | spec_of({
        "level": st.integers(1, 9),
        "dice": st.one_of(st.lists(sizes, min_size=2, max_size=2),
                          st.sampled_from(["d10 + d6", "d12, d4", "2d8", "d12 & d12", "d8"])),
        "heroic": st.booleans(),
        "modifiers": some(names(open_tale.MODIFIERS), 4),
        "tie_break": names(open_tale.TIE_BREAKS),
        "target": st.one_of(st.none(), st.integers(1, 100)),
    })

    def _counts_open_tale(result: dict, spec: dict, v: int) -> None:
        for d in result["dice"]:
            assert d["total"] == d["face"] + sum(d["explosions"])
            assert all(1 <= e <= d["sides"] for e in d["explosions"])
            assert all(e == d["sides"] for e in d["explosions"][:-1])
            if not d.get("capped"):  # a die ends on a face below its maximum
                assert (d["explosions"] or [d["face"]])[-1] != d["sides"], d
            assert len(d["explosions"]) <= open_tale.EXPLOSION_CAP
        assert v == sum(d["total"] for d in result["dice"])
        if spec["target"] is None:
            assert result["outcome"] == "scored"
        else:
            assert result["outcome"] == ("success" if v >= spec["target"] else "failure")

    return {
        "specs": OPEN_TALE_SPECS,
        # mostly valid actions (the game's verbs)
        "actions": st.fixed_dictionaries({"do": st.sampled_from(["reroll", "keep", "pray"])}),
        # spec keys that leave the roller a step to choose, mixed into some specs
        "with_a_choice": st.just({}),
        # an action chosen to fit a result, so that real steps happen; None: no step
        "fitting": lambda result, data: None,
        # the headline number counted again from the dice
        "counts": _counts_open_tale,
        # what the odds' "value" is of, read off a result; None: of more than this roll
        "odds_value": lambda r: r["value"],
    }


#: Rolls from the party (docs/PARTY.md): the long sword's Strength 5
#: (2d8) against a level-4 bandit, whose expected minimum score 9 is the
#: target ("3.4. Expected scores"); 7 + 2 reaches it. tests/rules/test_sheets.py,
#: tests/browser/test_party_flow.py.
PARTY = [{"sheet": "swordsman", "check": "Strength", "against": ("bandit", "Strength"),
          "form": {"level": 5, "target": 9, "tie_break": "target"}, "draws": [7, 2], "outcome": "success"}]
