"""The live table: its protocol (``livetable``, pure) and the Table dialog,
channels and log (``table_ui``).
"""
