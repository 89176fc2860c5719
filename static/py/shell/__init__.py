"""The page's frame: the browser and the DOM helpers every feature shares
(``page``), what a returning visit's memory snapshot holds (``snapshot``),
this device's identity for the live table and fair rolls (``device``), and
people's names as the page shows and compares them (``names``).
"""
