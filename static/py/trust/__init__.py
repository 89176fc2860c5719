"""The dice-fairness check: a chi-square test of this device's dice
(``dicecheck``).
"""
