"""Models of the tournaments app, split by feature: ``core`` (the notice, venues, officials,
events), ``entries`` (units, players, entries, pairs), ``bracket`` (draws, stages, rounds and
matches), ``day`` (the day plan: its hours, the events' halls, the officials' duties),
``links`` (one-time login links) and ``documents`` (score sheets built in the background)."""

from tournaments.models.bracket import Draw, Match, Round, Stage
from tournaments.models.core import Event, Official, Tournament, Venue, ruleset_choices
from tournaments.models.day import DayPlan, EventHall, HallDuty
from tournaments.models.documents import SheetBuild
from tournaments.models.entries import Entry, EntryQuerySet, Pair, Player, Unit
from tournaments.models.links import LoginLink

__all__ = [
    "DayPlan",
    "Draw",
    "Entry",
    "EntryQuerySet",
    "Event",
    "EventHall",
    "HallDuty",
    "LoginLink",
    "Match",
    "Official",
    "Pair",
    "Player",
    "Round",
    "SheetBuild",
    "Stage",
    "Tournament",
    "Unit",
    "Venue",
    "ruleset_choices",
]
