"""Placeholder until this system's issue lands: every roll says so."""

from .dice import SpecError

OUTCOMES = None  # filled by the system's module
DEFAULT_SPEC: dict = {}


def normalize(spec):
    raise SpecError("system", "this system is coming soon")


def roll(spec, rng):
    raise SpecError("system", "this system is coming soon")


def act(spec, result, action, rng):
    raise SpecError("system", "this system is coming soon")


def odds(spec, result=None, action=None):
    raise SpecError("system", "this system is coming soon")
