"""A rule's number lives once: each game names its rule numbers in its own
folder (Mirage's in ``rules/mirage/tables.py``), and the odds, the advice,
the explanation and the page derive from them.

The proof: the tracked files are copied to a temporary folder, Mirage's
success threshold is changed there from 6+ to 5+ by editing the one named
constant (``SUCCESS_ON``), the files whose bytes changed are counted (at
most three may need to change for a rule's number, tests included: here
one does), and then, in the copy, with this interpreter:

- the odds are the ones an independent count of the faces gives for 5+
  (two d6: a success unless both show less than 5; one d12: two on 10+),
  and the explanation and the page's reference say 5–9;
- the Mirage suites pass: the rules' doctests, ``test_mirage`` (every
  threshold on both sides of the named numbers, the odds against
  enumerating every face), the odds against seeded rolls, best play's
  advice against its own expectimax, and the tab's tests. Their
  expectations come from the named numbers or from enumerating what the
  rules do, never from a written 6+.

The suites that run in the copy are listed in ``SUITES``; each must have
run (the JUnit report counts its tests) and passed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from fractions import Fraction
from pathlib import Path

import pytest

from rules.mirage import tables

#: The copy is checked by a second interpreter run as a subprocess, which
#: Pyodide's (the Pyodide pass of the rules suites) cannot start.
pytestmark = pytest.mark.skipif(sys.platform == "emscripten", reason="needs a subprocess")

ROOT = Path(__file__).resolve().parents[2]
#: The file that names Mirage's numbers, and the edit: 6+ becomes 5+.
CONSTANTS = "rules/mirage/tables.py"
BEFORE, AFTER = "SUCCESS_ON = 6\n", "SUCCESS_ON = 5\n"
#: The most files a change of one rule number may touch, tests included.
MOST_TOUCHED = 3
#: What runs in the copy: the Mirage rules suites and the tab's.
SUITES = ["rules/mirage", "tests/rules/test_mirage.py", "tests/rules/test_advice_mirage.py",
          "tests/rules/test_mirage_best_prayer.py", "tests/rules/test_odds_match_rolls.py",
          "tests/ui/test_ui_mirage.py", "static/py/tabs/ui_mirage.py"]
#: The tests run in the copy: the odds-against-rolls file's Mirage cases,
#: and not the worked cases of "Mirage: what a Condition costs"
#: (docs/RULES-DECISIONS.md), whose dice and figures are the decision's own
#: at 6+ (at 5+ the same dice are another situation).
KEEP = "(not odds_match_rolls or mirage) and not sliver_of_win"
#: The probe run in the copy: the odds, an explanation and the page's words.
PROBE = """
import json, sys
sys.path[:0] = ["static/py", "tests"]
import rules
from tabs import ui_mirage
from rules.dice import ScriptedRng
two_d6 = rules.odds("mirage", {"attribute": 6, "skill": 6})
d12 = rules.odds("mirage", {"attribute": 12})
r = rules.roll("mirage", {"attribute": 12}, ScriptedRng([5]))
print(json.dumps({"two_d6": two_d6["outcome"], "d12": d12["value"], "explain": r["explain"],
                  "successes": r["dice"][0]["successes"], "reference": ui_mirage.render_reference()}))
"""


def tracked() -> list[str]:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    return [p for p in out.decode().split("\0") if p and (ROOT / p).is_file()]


@pytest.fixture(scope="module")
def copy(tmp_path_factory):
    """The tracked files as they are in the work tree, with the one edit."""
    dest = tmp_path_factory.mktemp("five-plus")
    for rel in tracked():
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / rel, dest / rel)
    path = dest / CONSTANTS
    text = path.read_text(encoding="utf-8")
    assert text.count(BEFORE) == 1, f"{CONSTANTS} names SUCCESS_ON once"
    path.write_text(text.replace(BEFORE, AFTER), encoding="utf-8")
    return dest


def test_the_threshold_is_named_once():
    """The number is a name in Mirage's folder, not a literal elsewhere."""
    assert tables.SUCCESS_ON == 6 and tables.GREAT_ON == 10
    assert (ROOT / CONSTANTS).read_text(encoding="utf-8").count(BEFORE) == 1


def test_the_change_touches_at_most_three_files(copy):
    changed = [rel for rel in tracked() if (copy / rel).read_bytes() != (ROOT / rel).read_bytes()]
    assert changed == [CONSTANTS] and len(changed) <= MOST_TOUCHED


def run_in(copy: Path, args: list[str], timeout: int = 1800) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([sys.executable, *args], cwd=copy, env=env, capture_output=True, text=True,
                          timeout=timeout)


def test_odds_explanation_and_page_follow_the_constant(copy):
    """In the copy: the exact odds are those of 5+, counted here from the
    faces (not from the rules' code); the explanation and the reference
    name 5–9."""
    done = run_in(copy, ["-c", PROBE], timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    got = json.loads(done.stdout)
    hit = Fraction(sum(1 for f in range(1, 7) if f >= 5), 6)  # a d6 showing 5 or 6
    assert got["two_d6"]["failure"] == pytest.approx(float((1 - hit) ** 2), abs=1e-12)
    assert got["two_d6"]["success_with_bonus"] == pytest.approx(float(hit ** 2), abs=1e-12)
    counts = {n: sum(1 for f in range(1, 13) if (f >= 5) + (f >= 10) == n) for n in (0, 1, 2)}
    assert {int(k): v for k, v in got["d12"].items()} == pytest.approx({n: c / 12 for n, c in counts.items()})
    assert got["successes"] == 1 and any("(5\u20139 is one, 10+ is two)" in line for line in got["explain"])
    assert "Each 5\u20139 is a success, each 10+ two." in got["reference"]


def test_the_mirage_suites_pass_in_the_copy(copy, tmp_path):
    """Every Mirage suite in the copy passes, each having run."""
    report = tmp_path / "junit.xml"
    done = run_in(copy, ["-m", "pytest", "-q", "-p", "no:randomly", "-m", "not browser and not pyodide",
                         "-k", KEEP, f"--junitxml={report}", *SUITES])
    assert done.returncode == 0, done.stdout[-4000:]
    ran = {case.get("classname", "") for case in ET.parse(report).getroot().iter("testcase")}
    for suite in SUITES:
        name = Path(suite).stem if suite.endswith(".py") else suite.replace("/", ".")
        assert any(name in classname for classname in ran), (suite, sorted(ran))
