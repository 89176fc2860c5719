"""The live table: its protocol (``livetable``, pure), the GM's secret
rolls' commitments and reveals (``secret``, pure), the phones' channels to
each other that bring the table back after a tablet reload (``relay``,
pure), and the Table dialog, channels and log (``table_ui``).
"""
