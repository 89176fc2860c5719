"""The odds Worker's questions and answers, without a browser (docs/SPEED.md):
a late answer never reaches the page once a newer question was asked, for
any order the answers come in; and the Worker's answer (``oddswork``) is
the one the rules give when asked directly, the advice included."""

from __future__ import annotations

import itertools
import random

import pytest

import rules
from odds import oddsclient, oddswork


def drive(asks):
    """Ask ``asks`` (system names) in turn while the Worker is busy, then
    let it answer everything it was sent, in order. Returns (asked serials,
    drawn serials, sent serials)."""
    sent, drawn = [], []
    qs = oddsclient.Questions(sent.append)
    qs.started(True)
    serials = [qs.ask(system, {}, lambda a: drawn.append(a["serial"])) for system in asks]
    answered = 0
    while answered < len(sent):
        qs.received({"serial": sent[answered]["serial"]})
        answered += 1
    return serials, drawn, [m["serial"] for m in sent]


@pytest.mark.parametrize("asks", [["a"] * 4, ["a", "b", "a", "b"], ["a", "a", "b", "b", "a"]],
                         ids=["one-tab", "two-tabs-alternating", "two-tabs-runs"])
def test_only_each_tabs_newest_answer_is_drawn(asks):
    """Whatever was asked while the Worker worked, every answer drawn is its
    tab's newest question's, the newest question of all is answered, and
    only one question waits at a time (the rest are never sent: a tab left
    without its answer asks again when it is opened)."""
    serials, drawn, sent = drive(asks)
    newest = {system: max(s for s, x in zip(serials, asks) if x == system) for system in set(asks)}
    assert set(drawn) <= set(newest.values()) and serials[-1] in drawn
    assert sent == [serials[0], serials[-1]]


def test_answers_out_of_order_and_repeated_are_dropped():
    """An answer for an old serial, however late or repeated, never reaches
    the page after a newer question; an unknown serial is ignored."""
    sent, drawn = [], []
    qs = oddsclient.Questions(sent.append)
    qs.started(True)
    s1 = qs.ask("mirage", {}, drawn.append)
    s2 = qs.ask("mirage", {}, drawn.append)
    qs.received({"serial": 999})
    assert drawn == [] and qs.pending("mirage")
    qs.received({"serial": s1})
    assert drawn == [] and [m["serial"] for m in sent] == [s1, s2]
    qs.received({"serial": s1})  # again: still dropped
    qs.received({"serial": s2})
    assert [a["serial"] for a in drawn] == [s2] and not qs.pending("mirage")


def test_a_failed_worker_hands_back_the_unanswered_tabs():
    """Given up, the Worker's unanswered tabs are returned for the page to
    answer itself, nothing more is sent, and a late answer is dropped."""
    sent, drawn = [], []
    qs = oddsclient.Questions(sent.append)
    qs.ask("alkemy", {}, drawn.append)
    qs.ask("jadeclaw", {}, drawn.append)
    assert sent == []  # not started yet: they wait
    assert sorted(qs.failed()) == ["alkemy", "jadeclaw"]  # both still lack their answer
    assert not qs.usable
    qs.started(True)  # too late: it stays failed
    qs.received({"serial": 2})
    assert sent == [] and drawn == []


def test_every_order_of_three_questions_draws_the_newest():
    """All orders in which the Worker's answers and the page's questions
    interleave (three questions for one tab): each answer drawn was the
    newest question when drawn, they come in order, and the last is drawn."""
    for cut in itertools.product([0, 1], repeat=3):
        sent, drawn = [], []
        qs = oddsclient.Questions(sent.append)
        qs.started(True)
        draw = lambda a: drawn.append((a["serial"], qs.latest["open_tale"]))  # noqa: E731
        last = None
        for answer_first in cut:
            if answer_first and qs.in_flight:
                qs.received({"serial": qs.in_flight[0]})
            last = qs.ask("open_tale", {}, draw)
        while qs.in_flight:
            qs.received({"serial": qs.in_flight[0]})
        assert all(s == newest for s, newest in drawn), cut
        assert [s for s, _ in drawn] == sorted({s for s, _ in drawn}) and drawn[-1][0] == last, cut


SEEDS = range(6)


@pytest.mark.parametrize("system", rules.SYSTEMS)
def test_the_workers_answer_is_the_rules_own(system):
    """A roll made with ``advise=False`` and given the Worker's advice is
    the roll ``rules.roll`` makes with advice for the same dice (the same
    keys, every value equal; ``advice``/``choices`` may be added for a
    system that advises nothing); its odds are ``rules.odds`` of the tab's
    questions, asked directly."""
    ui = oddswork.ui_of(system)
    spec = rules.default_spec(system)
    for seed in SEEDS:
        bare = rules.roll(system, spec, random.Random(seed), advise=False)
        full = rules.roll(system, spec, random.Random(seed))
        got = oddswork.unpack(oddswork.answer(oddswork.pack(
            {"serial": seed, "system": system, "spec": spec, "result": bare, "ui": {"selected": []},
             "advise": True})))
        merged = oddswork.merge_advice(bare, got["advice"])
        assert {k: merged[k] for k in full} == full
        assert set(merged) - set(full) <= {"advice", "choices"}
        for name, q in ui.questions(spec, merged, {"selected": []}).items():
            want = rules.odds(system, q.get("spec", spec), q.get("result"), q.get("action"))
            assert got["answers"][name] == want, name
