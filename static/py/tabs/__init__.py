"""One tab per game: the ``Tab`` Protocol and the odds questions (``tab``),
each game's tab (``ui_<game>``: form <-> spec, result -> HTML, pure), the
forms as stored (``formstate``), and on the page the roll forms (``forms``)
and each tab's tray and steps (``trayview``).
"""
