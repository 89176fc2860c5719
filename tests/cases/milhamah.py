"""Milhamah's test cases (see ``cases``)."""

from __future__ import annotations

from rules.milhamah import model as milhamah

from cases import verbs

#: Dice other than the sizes a draw may be: a letter die, the hit location letter.
DRAWS = {milhamah.SIDES, len(milhamah.LETTERS)}

ALL12 = {"red": 4, "green": 4, "blue": 4}

WORST = [
    {"shoresh": "אבגד", "pool": ALL12, "rerolls": 12, "bonus_rerolls": 12, "rounds": 4,
     "cipher": 12, "difficulty": 24, "pocketed": 12,
     "opponent": {"shoresh": "אבגד", "pool": ALL12, "bonus_rerolls": 12, "rounds": 4,
                  "cipher": 12, "shorashim": ["אבג", "דהו", "זחט", "יכל", "מנס", "עפצ", "קרש", "תאב"]}},
    {"shoresh": "אבג", "pool": {"red": 4, "green": 4}, "rerolls": 6, "rounds": 4},
    {"shoresh": "חנן", "pool": ALL12, "rerolls": 6, "rounds": 4},
    {"shoresh": "ממממ", "pool": ALL12, "rerolls": 12, "bonus_rerolls": 12, "rounds": 4,
     "reaction": True},
]

SPEC_FIELDS = ["shoresh", "pool", "dice_change", "forbid", "reaction", "rerolls", "bonus_rerolls",
               "rounds", "cipher", "difficulty", "combat", "combat_step", "first_bonus",
               "pocketed", "modifier_to_x", "opponent"]

#: Milhamah's hostile action arguments: see test_properties.py.
HOSTILE_ACTION = None

STORE_SPECS = [{"shoresh": "אשר", "rerolls": 3},
               {"shoresh": "אשר", "rerolls": 3, "opponent": {"shoresh": "שלם", "rerolls": 2}}]


def store_step(result: dict):
    """The advised reroll, where there is one."""
    return {"do": "reroll", "dice": result["best_reroll"]} if result.get("best_reroll") else None


#: Specs whose exact odds are checked against 3000 seeded rolls
#: (tests/rules/test_odds_match_rolls.py). Milhamah's odds are of the whole
#: turn under its default reroll policy: no reroll round here (``rounds``
#: 0), where the first roll is the whole turn.
ODDS_SPECS = [
    {"shoresh": "אשר", "pool": ["red", "green"], "rounds": 0, "difficulty": 2},
    {"shoresh": "חנן", "pool": {"red": 4, "blue": 2}, "rounds": 0, "reaction": True, "difficulty": 1},
]

#: Results drawn on the tray (tests/ui/test_draw_tray.py): ``(spec, draws)``,
#: here a seed.
TRAY_ROLLS = [({"shoresh": "אשר", "rerolls": 3, "opponent": {"shoresh": "חנן", "rerolls": 3}}, 7)]

#: The form's fields as a player edits them (tests/ui/test_formstate.py).
EDITED_FORM = {"shoresh": ["רוח"], "rerolls": ["5"], "pair": ["red+blue"]}


def strategies(h):
    """The property suite's strategies and checks for this game
    (tests/rules/test_properties.py builds ``h``: hypothesis's ``st`` and
    the suite's helpers)."""
    st, spec_of, names, some, sizes, json_values = h.st, h.spec_of, h.names, h.some, h.sizes, h.json_values
    _die_list, _side, check_die = h.die_list, h.side, h.check_die

    _MIL_SIDE = {
        "shoresh": st.sampled_from(["אשר", "חנן", "ש-ל-ם", "רוח", "אב", "אבגד", "שׁלום", "צדק"]),
        "pool": st.one_of(
            st.dictionaries(st.sampled_from(list(milhamah.COLOURS)), st.integers(0, 4), max_size=3),
            st.lists(st.sampled_from(list(milhamah.COLOURS)), min_size=1, max_size=3, unique=True)),
        "dice_change": st.integers(-4, 4),
        "forbid": some(st.sampled_from(list(milhamah.COLOURS)), 2),
        "rerolls": st.integers(0, 12),
        "bonus_rerolls": st.integers(0, 12),
        "rounds": st.integers(0, 4),
        "cipher": st.integers(0, 12),
    }
    MILHAMAH_SPECS = spec_of({
        **_MIL_SIDE,
        "reaction": st.booleans(),
        "difficulty": st.one_of(names(milhamah.DIFFICULTIES), st.integers(1, 24)),
        "combat": some(names(milhamah.COMBAT), 3),
        "combat_step": st.integers(0, 3),
        "first_bonus": st.integers(0, 4),
        "pocketed": st.integers(0, 12),
        "modifier_to_x": st.booleans(),
        "opponent": spec_of({**_MIL_SIDE,
                             "shorashim": some(st.sampled_from(["אשר", "שלם", "חנן"]), 3)}),
    })

    def _fit_milhamah(result: dict, data):
        side = data.draw(st.sampled_from(["initiator", "opponent"] if result.get("opponent")
                                         else ["initiator"]), label="side")
        allowed = verbs(result, side)
        if not allowed:
            return None
        verb = data.draw(st.sampled_from(allowed), label="verb")
        action = {"do": verb, "side": side}
        if verb in ("reroll", "cipher"):
            count = len(result["dice"] if side == "initiator" else result["opponent"]["dice"])
            limit = result["x"] if verb == "reroll" and side == "initiator" else 3
            action["dice"] = data.draw(st.lists(st.integers(0, count - 1), min_size=1,
                                                max_size=max(1, min(limit, count)), unique=True),
                                       label="dice")
        elif verb == "natural":
            action["reward"] = data.draw(st.sampled_from(
                milhamah.OPPOSED_REWARDS if result.get("opponent") else milhamah.NATURAL_REWARDS))
        return action

    def _counts_milhamah(result: dict, spec: dict, v: int) -> None:
        shoresh = spec["shoresh"]
        matches = sum(1 for d in result["dice"] if d["face"] in shoresh)
        wilds = sum(1 for d in result["dice"] if d["face"] == milhamah.WILD)
        assert result["matches"] == matches and result["wilds"] == wilds
        wc = not spec["reaction"]
        assert v == matches + (wilds if wc else 0)
        assert result["total"] == v + result["bonus"]
        if matches == 0:
            assert result["outcome"] == "botch"

    return {
        "specs": MILHAMAH_SPECS,
        # mostly valid actions (the game's verbs)
        "actions": st.one_of(
            st.fixed_dictionaries({"do": st.sampled_from(["reroll", "cipher"]), "dice": _die_list},
                                  optional={"side": _side}),
            st.fixed_dictionaries({"do": st.just("natural")},
                                  optional={"reward": st.sampled_from(list(milhamah.NATURAL_REWARDS
                                                                           + milhamah.OPPOSED_REWARDS)),
                                            "side": _side}),
            st.fixed_dictionaries({"do": st.just("hit_location")},
                                  optional={k: st.integers(-1, 100) for k in
                                            ("armour", "vig", "light", "serious", "critical")}),
            st.fixed_dictionaries({"do": st.just("stand")}, optional={"side": _side})),
        # spec keys that leave the roller a step to choose, mixed into some specs
        "with_a_choice": st.just({}),
        # an action chosen to fit a result, so that real steps happen; None: no step
        "fitting": _fit_milhamah,
        # the headline number counted again from the dice
        "counts": _counts_milhamah,
        # what the odds' "value" is of, read off a result; None: of more than this roll
        "odds_value": None,
    }


def _layout_step(page, h):
    """Tap the first die, Reroll."""
    page.click('#tray-milhamah [data-die="0"]')
    page.wait_for_selector('#tray-milhamah [data-die="0"][aria-pressed="true"]', timeout=h.slow)
    page.click('#tray-milhamah [data-act="reroll"]')
    page.wait_for_selector("#tray-milhamah svg.role-rerolled", timeout=h.slow)


LAYOUT_STEP = ({}, _layout_step)
#: No shoresh letter (a botch): the first die may be rerolled.
LAYOUT_FACES = [2, 3, 4, 5, 6, 7, 8, 9]


def _face(colour: str, design: str, letter: str) -> int:
    return milhamah.die_faces(colour, design).index(letter) + 1


#: Rolls from the party (docs/PARTY.md): Etgar's Spirit Gust (BLE 3 +
#: 2) against the Midwife Toad's Jump (GRA 2 + 1): +2 to Etgar's X, a
#: natural רוח on his first roll ("Opposed Rolls"). tests/rules/test_sheets.py,
#: tests/browser/test_party_flow.py.
PARTY = [{"sheet": "etgar", "check": "Spirit Gust", "against": ("toad", "Jump"),
          "form": {"shoresh": "רוח", "pool": ["red", "blue"], "rerolls": 5, "opponent": {"shoresh": "חננ", "rerolls": 3}},
          "draws": [_face("red", "A", "ר"), _face("red", "B", "ח"), _face("red", "A", "ו"), _face("red", "B", "ז"),
                    _face("blue", "A", "א"), _face("blue", "B", "ז"), _face("blue", "A", "א"), _face("blue", "B", "ז"),
                    _face("red", "A", "א"), _face("red", "B", milhamah.WILD), _face("red", "A", "א"),
                    _face("red", "B", "נ"), _face("green", "A", "א"), _face("green", "B", "נ"),
                    _face("green", "A", "א"), _face("green", "B", "מ")],
          "outcome": "natural_success"}]
