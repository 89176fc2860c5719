"""What the page keeps: the stored records and their formats (``store``, pure),
the roll history drawer (``history``), saved setups (``setups``), and export
and import (``backup``).
"""
