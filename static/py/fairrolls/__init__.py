"""Fair rolls at a distance: the exchange, its links and each side's state
(``fair``, pure), its panel as HTML (``fairview``), and the page's part
(``fairpanel``).
"""
