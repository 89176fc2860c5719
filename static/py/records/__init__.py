"""What the page keeps: the stored records and their formats (``store``, pure),
a stored key that every open tab writes, merged on each write (``synced``,
pure), the roll history drawer (``history``), saved setups (``setups``), and
export and import (``backup``), with the storage-full banner.
"""
