"""The party: characters and NPCs per game (docs/PARTY.md).

- ``roster``: the party as stored text, merged across tabs (pure);
- ``view``: the party as HTML, a sheet's editor read back (pure);
- ``panel``: the party on the page (the DOM).
"""
