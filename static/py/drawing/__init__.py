"""Drawing, pure: the SVG dice and the one dice-row drawer (``draw``), and the
HTML pieces the tabs and the history share (``views``).
"""
