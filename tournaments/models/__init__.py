"""Models of the tournaments app, split by feature: ``core`` (the notice, events, units,
players and entries) and ``bracket`` (draws, stages, rounds and matches)."""

from tournaments.models.bracket import Draw, Match, Round, Stage
from tournaments.models.core import (
    Entry,
    EntryQuerySet,
    Event,
    Official,
    Pair,
    Player,
    Tournament,
    Unit,
    Venue,
    ruleset_choices,
)
from tournaments.models.links import LoginLink

__all__ = [
    "Draw",
    "Entry",
    "EntryQuerySet",
    "Event",
    "LoginLink",
    "Match",
    "Official",
    "Pair",
    "Player",
    "Round",
    "Stage",
    "Tournament",
    "Unit",
    "Venue",
    "ruleset_choices",
]
