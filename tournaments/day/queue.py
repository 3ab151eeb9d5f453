"""Halls that call matches by queue (按空场叫号) instead of by the clock: ball-game halls
often run so. When a court or table of such a hall is free, the next ready match — both
entrants known and rested, the matches it waits for decided, not held by the chief referee,
in the plan's order (or the order the chief set) — is called to it: its court and start
become that court and now, and the desk, 我的台, the hall projector, the timeline and the
entrants' unit pages show it.

:func:`call_free_courts` runs after every result in such a hall (``tournaments.draw.results``)
and when the chief referee presses 叫号; :func:`hold` and :func:`move_to_front` are the chief's
hands on the queue.
"""

from __future__ import annotations

import datetime as dt

from django.db import transaction
from django.db.models import F, Max, Min, Q
from django.utils import timezone

from tournaments.day.read import parse_places, rest_minutes
from tournaments.models import Match, Venue

PLAYING = (Match.Status.IN_PROGRESS,)


def _hall_matches(venue: Venue):
    return Match.objects.filter(
        venue=venue, round__stage__draw__undone_at__isnull=True
    ).select_related("round__stage__event", "home", "away")


def queue_of(venue: Venue) -> list[Match]:
    """The hall's matches still to be called, in the queue's order."""
    return list(
        _hall_matches(venue)
        .filter(status=Match.Status.PENDING, called_at__isnull=True)
        .order_by(
            F("queue_position").asc(nulls_last=True),
            F("scheduled_at").asc(nulls_last=True),
            "first_table",
            "pk",
        )
    )


def busy_places(venue: Venue) -> set[int]:
    """Courts or tables holding a match under way or called and not yet decided."""
    busy: set[int] = set()
    rows = _hall_matches(venue).filter(
        Q(status__in=PLAYING) | Q(status=Match.Status.PENDING, called_at__isnull=False)
    )
    for m in rows:
        if m.first_table:
            busy |= set(range(m.first_table, m.first_table + m.round.stage.event.tables_per_match))
    return busy


def _event_places(match: Match, venue: Venue) -> tuple[int, ...]:
    event = match.round.stage.event
    use = event.halls.filter(venue=venue).first()
    try:
        return parse_places(use.places if use else "", venue.tables)
    except ValueError:
        return tuple(range(1, venue.tables + 1))


def not_ready_because(match: Match, now: dt.datetime) -> str | None:
    """Why a queued match cannot be called now (None when it can)."""
    if match.queue_held:
        return "held"
    if not (match.home_id and match.away_id):
        return "entrants"
    feeders = Match.objects.filter(Q(winner_to=match) | Q(loser_to=match))
    if any(not f.is_decided for f in feeders):
        return "feeders"
    rest = dt.timedelta(minutes=rest_minutes(match.round.stage.event))
    last = (
        Match.objects.filter(
            Q(home_id__in=[match.home_id, match.away_id])
            | Q(away_id__in=[match.home_id, match.away_id]),
            finished_at__isnull=False,
        )
        .exclude(pk=match.pk)
        .aggregate(last=Max("finished_at"))["last"]
    )
    if last is not None and last + rest > now:
        return "resting"
    return None


@transaction.atomic
def call_free_courts(venue: Venue, *, now: dt.datetime | None = None) -> list[Match]:
    """Call the next ready match to each free court of a queue hall; answers those called."""
    venue = Venue.objects.select_for_update().get(pk=venue.pk)
    if not venue.by_queue:
        return []
    now = now or timezone.now()
    busy = busy_places(venue)
    called = []
    for match in queue_of(venue):
        if not_ready_because(match, now) is not None:
            continue
        width = match.round.stage.event.tables_per_match
        places = [p for p in _event_places(match, venue) if p not in busy]
        start = next((p for p in places if all(q in places for q in range(p, p + width))), None)
        if start is None:
            continue
        match.first_table, match.scheduled_at, match.called_at = start, now, now
        match.save(update_fields=["first_table", "scheduled_at", "called_at"])
        busy |= set(range(start, start + width))
        called.append(match)
    if called:
        from tournaments.draw import signals

        signals.tables_placed.send(sender=None, matches=called)
        for event in {m.round.stage.event for m in called}:
            event.bump_version()
    return called


def after_result(match: Match) -> None:
    """A match in a queue hall was decided: its court is free."""
    if match.venue_id and Venue.objects.filter(pk=match.venue_id, by_queue=True).exists():
        call_free_courts(match.venue)


@transaction.atomic
def hold(match: Match, *, held: bool) -> None:
    Match.objects.filter(pk=match.pk).update(queue_held=held)
    match.round.stage.event.bump_version()


@transaction.atomic
def move_to_front(match: Match) -> None:
    """The chief referee calls this match next in its hall."""
    low = Match.objects.filter(venue_id=match.venue_id).aggregate(low=Min("queue_position"))["low"]
    position = low - 1 if low is not None else -1
    Match.objects.filter(pk=match.pk).update(queue_position=position)
    match.round.stage.event.bump_version()
