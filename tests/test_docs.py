"""The repository's words stand on their own.

- README stays short enough for a newcomer to read to the end (under 300
  lines); the rest lives in ``docs/``, one file per subject.
- Every relative Markdown link in README and ``docs/`` reaches a file the
  repository holds, and every ``#anchor`` a heading of its target file
  (slugged as GitHub slugs headings).
- No file cites what a clone does not hold: an issue number of the
  project's tracker, or a rules text by the name of the file it was handed
  over in. A rules text is cited by its game and section heading ("Mirage,
  Prayer"; docs/SOURCES.md lists them), a decision by its place in
  ``docs/``.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Folders that are installed or generated, never written by us.
SKIP_DIRS = {".git", "node_modules", ".venv", "__pycache__", ".pytest_cache", ".hypothesis", ".bench",
             "test-results"}
SKIP_PATHS = ("static/vendor/",)

#: An issue of the project's tracker (the word, maybe plural, then its
#: number), and a rules text named by its hand-over file (the word "seed" and
#: the file's three digits, or the file's whole name).
CITATIONS = {
    "an issue number": re.compile(r"\bissues?[ _]?#?\d", re.I),
    "a rules text by its file": re.compile(r"seed[ _-]?0|\b00\d_[0-9a-f]{16}\b", re.I),
}

MAX_README_LINES = 300


def repo_files() -> list[str]:
    """The files a clone holds, with any new file not yet committed: from
    git where this is a checkout, else by walking the tree."""
    try:
        out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
                             cwd=ROOT, capture_output=True, check=True).stdout
        names = [n for n in out.decode("utf-8").split("\0") if n]
    except (OSError, subprocess.CalledProcessError):
        names = [p.relative_to(ROOT).as_posix() for p in ROOT.rglob("*")
                 if p.is_file() and not SKIP_DIRS.intersection(p.relative_to(ROOT).parts)]
    return sorted(n for n in names if not n.startswith(SKIP_PATHS) and (ROOT / n).is_file())


def text_of(name: str) -> str | None:
    """A file's text, or None for a binary file."""
    data = (ROOT / name).read_bytes()
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def markdown_files() -> list[str]:
    return [n for n in repo_files() if n.endswith(".md")]


# ---------------------------------------------------------------- links and anchors

FENCE = re.compile(r"^```.*?^```[^\n]*$", re.S | re.M)
CODE_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1", re.S)
LINK = re.compile(r"\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$", re.M)


def prose(text: str) -> str:
    """``text`` without fenced code blocks and code spans, which show links
    as text rather than make them."""
    text = FENCE.sub("", text)
    return CODE_SPAN.sub("code", text)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: the text as shown (a link's text, not
    its address), lower-cased, without anything but letters, digits,
    spaces, hyphens and underscores, spaces made hyphens.

    >>> slug("Odds beside the page and the first visit back within budget")
    'odds-beside-the-page-and-the-first-visit-back-within-budget'
    >>> slug("Milhamah RPG — twelve-sided Hebrew-letter dice")
    'milhamah-rpg--twelve-sided-hebrew-letter-dice'
    >>> slug("Milhamah's bounded odds")
    'milhamahs-bounded-odds'
    >>> slug("The [live](LIVE-TABLE.md) `table`")
    'the-live-table'
    """
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip())
    text = re.sub(r"[^\w\- ]", "", text.lower())
    return text.replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every heading's anchor in a Markdown text; a repeated one gets -1, -2, …
    as on GitHub."""
    seen: dict[str, int] = {}
    out = set()
    for m in HEADING.finditer(FENCE.sub("", text)):
        base = slug(m.group(2))
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def broken_links(name: str) -> list[str]:
    """The relative links of one Markdown file that reach no file, or no
    heading of the file they reach."""
    text = text_of(name) or ""
    here = (ROOT / name).parent
    bad = []
    for m in LINK.finditer(prose(text)):
        target = m.group(1)
        if re.match(r"[a-z][a-z0-9+.-]*:", target, re.I):  # https:, mailto: …
            continue
        path, _, anchor = target.partition("#")
        dest = (here / path).resolve() if path else ROOT / name
        if not dest.exists():
            bad.append(f"{name}: {target} (no such file)")
            continue
        if anchor and dest.suffix == ".md" and anchor not in anchors(dest.read_text(encoding="utf-8")):
            bad.append(f"{name}: {target} (no heading #{anchor} in {dest.relative_to(ROOT)})")
    return bad


def test_readme_is_short():
    """README holds what a newcomer needs and points to docs/ for the rest."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines < MAX_README_LINES, f"README.md has {lines} lines; move a subject into docs/"


@pytest.mark.parametrize("name", markdown_files())
def test_markdown_links_reach_a_file_and_a_heading(name):
    """A reader who follows a link lands where it says."""
    assert broken_links(name) == []


def test_the_link_check_sees_a_broken_link(tmp_path, monkeypatch):
    """The check fails on a missing file and a missing heading, and passes
    a good link, a same-file anchor and a link shown as code."""
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "A.md").write_text("# A\n\n## Two words\n", encoding="utf-8")
    (tmp_path / "README.md").write_text(
        "# Read me\n\n[ok](docs/A.md#two-words) [self](#read-me) `[code](nowhere.md)`\n"
        "[gone](docs/B.md) [no heading](docs/A.md#three-words) [web](https://example.org/x)\n",
        encoding="utf-8")
    assert broken_links("README.md") == ["README.md: docs/B.md (no such file)",
                                         "README.md: docs/A.md#three-words (no heading #three-words in docs/A.md)"]


# ---------------------------------------------------------------- citations a clone cannot open

def citations(name: str, text: str) -> list[str]:
    return [f"{name}:{text.count(chr(10), 0, m.start()) + 1}: {what}: {m.group(0)!r}"
            for what, pattern in CITATIONS.items() for m in pattern.finditer(text)]


def test_no_citation_a_clone_cannot_open():
    """No tracked file cites an issue number or a rules text's file name:
    say what and why in words, or point to a section of docs/."""
    found = []
    for name in repo_files():
        text = text_of(name)
        if text is not None:
            found += citations(name, text)
    assert found == []


SP = " "  # so that this file does not hold the words it looks for


@pytest.mark.parametrize("text, hits", [
    (f"as issue{SP}26 asked", 1), (f"Issues{SP}21 and 26", 1), ("def issue" "26(pw):", 1), (f"(issue{SP}#9)", 1),
    (f"(seed{SP}000, Opposed Rolls)", 1), (f"(Seed{SP}001, 3.2)", 1), ("ids=['seed" "001-3.2-x']", 1),
    ("read 002_" "4445bd2161667f0a.txt", 1),
    ("see https://github.com/pyodide/pyodide/issues/6254", 0), ("Mirage, Prayer", 0),
    ("the issue of trust", 0), ("seed 26", 0), ("random.Random(0)", 0),
])
def test_the_citation_check_sees_a_citation(text, hits):
    """The patterns catch the citations we replaced and leave plain words,
    an upstream project's link and the benchmark's own seeds alone."""
    assert len(citations("x", text)) == hits
