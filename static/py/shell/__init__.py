"""The page's frame: the browser and the DOM helpers every feature shares
(``page``), and what a returning visit's memory snapshot holds
(``snapshot``).
"""
