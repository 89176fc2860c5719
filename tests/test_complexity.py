"""The code stays small (issue 17): no function in ``rules/`` or
``static/py/`` above 20 in radon's cyclomatic complexity, and the average
under 4 — measured with radon, pinned as a test-only tool."""
from pathlib import Path

import pytest

radon_complexity = pytest.importorskip("radon.complexity")

ROOT = Path(__file__).resolve().parent.parent
LIMIT, AVERAGE = 20, 4.0


def _blocks():
    """Every function, method and class radon scores, with where it is."""
    for path in sorted([*ROOT.glob("rules/*.py"), *ROOT.glob("static/py/*.py")]):
        for block in radon_complexity.cc_visit(path.read_text(encoding="utf-8")):
            yield f"{path.relative_to(ROOT)}:{block.lineno} {block.fullname}", block.complexity


def test_no_function_above_the_limit():
    over = {where: cc for where, cc in _blocks() if cc > LIMIT}
    assert over == {}


def test_the_average_stays_low():
    scores = [cc for _, cc in _blocks()]
    assert len(scores) > 500  # both folders were read
    assert sum(scores) / len(scores) < AVERAGE
