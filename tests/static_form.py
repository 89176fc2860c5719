"""The static form of a tab in index.html, read the way FormData reads it,
so the ui tests can check that every form opens with a valid roll and that
every spec field has a control and an error slot."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest

INDEX = Path(__file__).resolve().parents[1] / "index.html"


class StaticForm(HTMLParser):
    """Named controls of ``#form-<system>`` with their default values
    (checked boxes and radios, a select's selected or first option), the
    radio values per name, every ``data-error-for`` slot and every
    ``data-insert`` button."""

    def __init__(self, system: str):
        super().__init__()
        self.form_id = f"form-{system}"
        self.inside = False
        self.names: set[str] = set()
        self.fields: dict[str, list[str]] = {}
        self.radios: dict[str, list[str]] = {}
        self.slots: set[str] = set()
        self.inserts: list[tuple[str, str | None]] = []
        self._select = None
        self._first = self._chosen = None

    @property
    def errors(self) -> set[str]:
        return self.slots

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form" and a.get("id") == self.form_id:
            self.inside = True
        if not self.inside:
            return
        if "data-error-for" in a:
            self.slots.add(a["data-error-for"])
        if "data-insert" in a:
            self.inserts.append((a["data-insert"], a.get("data-target")))
        name = a.get("name")
        if tag == "input" and name:
            self.names.add(name)
            kind = a.get("type", "text")
            if kind == "radio":
                self.radios.setdefault(name, []).append(a.get("value"))
            if kind in ("checkbox", "radio"):
                if "checked" in a:
                    self.fields.setdefault(name, []).append(a.get("value", "on"))
            else:
                self.fields.setdefault(name, []).append(a.get("value", ""))
        elif tag == "select" and name:
            self.names.add(name)
            self._select, self._first, self._chosen = name, None, None
        elif tag == "option" and self._select:
            if self._first is None:
                self._first = a.get("value", "")
            if "selected" in a:
                self._chosen = a.get("value", "")

    def handle_endtag(self, tag):
        if tag == "select" and self._select:
            self.fields[self._select] = [self._chosen if self._chosen is not None else self._first]
            self._select = None
        if tag == "form" and self.inside:
            self.inside = False


def static_form(system: str) -> StaticForm:
    """Parse index.html's form for ``system`` (skips where index.html is not
    in the file system)."""
    if not INDEX.exists():
        pytest.skip("index.html is not in this file system")
    f = StaticForm(system)
    f.feed(INDEX.read_text(encoding="utf-8"))
    assert f.names, f"no #form-{system} in index.html"
    return f
