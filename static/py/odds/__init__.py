"""Odds beside the page: the work both routes share (``oddswork``), the page's
questions to the odds Worker (``oddsclient``), and the odds panel
(``oddspanel``).
"""
