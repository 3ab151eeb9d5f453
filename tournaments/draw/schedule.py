"""The schedule (赛程与桌号): each round's start, each match's venue, first table and referee."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from guandan_cup.inputs import sensible_year
from tournaments.day import services as day_services
from tournaments.draw import signals
from tournaments.draw.rules.common import DrawError
from tournaments.draw.selectors import current_draw
from tournaments.models import Event, Match, Official, Round


@transaction.atomic
def auto_schedule(*, event: Event, start, round_minutes: int, venue=None) -> None:
    """Give each round a start time and each match a venue and its first table.

    A guandan team tie takes ``pairs_per_team`` tables side by side (three tables: 1–3,
    4–6 …). When the venue has fewer tables than a round needs, the round is played in
    waves, one match length apart; the next round starts after the last wave.
    """
    draw = current_draw(event)
    if draw is None:
        raise DrawError("not_drawn", _("本项目还没有抽签。"))
    per_match = event.tables_per_match
    capacity = (
        (venue.tables // per_match) if venue is not None and venue.tables >= per_match else None
    )
    before = day_services.clash_keys(day_services.check_day(event.tournament))
    try:
        placed = _place_rounds(draw, start, round_minutes, venue, per_match, capacity)
    except OverflowError:  # a start near the calendar's end, run past it by the rounds
        raise DrawError(
            "calendar_overflow", _("排出的时间超出了日历范围，请检查第一轮开始时间。")
        ) from None
    clashes = day_services.refuse_new_clashes(
        event.tournament, before, accept=False, across_events=True
    )
    if clashes:
        raise DrawError(
            "clashes",
            _("这样排会与其他项目冲突，未保存（请用“全天赛程”统一安排）：%(clashes)s")
            % {"clashes": "；".join(clashes[:3]) + ("……" if len(clashes) > 3 else "")},
        )
    signals.tables_placed.send(sender=None, matches=placed)
    event.bump_version()


def _place_rounds(draw, start, round_minutes, venue, per_match, capacity) -> list[Match]:
    at = start
    placed = []
    for rnd in Round.objects.filter(stage__draw=draw).order_by("stage__order", "number"):
        playable = [
            m for m in rnd.matches.order_by("group", "index") if m.status != Match.Status.BYE
        ]
        rnd.starts_at = at
        rnd.save(update_fields=["starts_at"])
        for i, match in enumerate(playable):
            wave, place = divmod(i, capacity) if capacity else (0, i)
            match.scheduled_at = at + dt.timedelta(minutes=wave * round_minutes)
            match.venue = venue
            match.first_table = place * per_match + 1
            match.save(update_fields=["scheduled_at", "venue", "first_table"])
            placed.append(match)
        waves = -(-len(playable) // capacity) if capacity and playable else 1
        at += dt.timedelta(minutes=waves * round_minutes)
    return placed


def parse_local(text: str) -> dt.datetime:
    value = dt.datetime.fromisoformat(text.strip())
    if not sensible_year(value):
        raise ValueError("year out of range")  # 0001-01-01 in Beijing is not storable in UTC
    return timezone.make_aware(value) if timezone.is_naive(value) else value


def assignable_officials(tournament) -> list:
    """Every official of the tournament, login or not: the referees (裁判) first, then the
    chief referee, the arbitration panel and the organisers, each in the order added."""
    rank = {Official.Role.REFEREE: 0, Official.Role.CHIEF_REFEREE: 1}
    officials = list(tournament.officials.all())
    return sorted(officials, key=lambda o: (rank.get(o.role, 2), o.pk))


@transaction.atomic
def assign_referees_in_order(*, matches, referees) -> int:
    """一场一名裁判，按顺序: in each round the ties still to be played (byes left out) get
    the referees (裁判) in order, starting again with the first in the next round. Only the
    referees are used — the chief referee and the panel stay free. Answers how many ties."""
    pool = [o for o in referees if o.role == Official.Role.REFEREE]
    if not pool:
        return 0
    tournament = pool[0].tournament
    before = day_services.clash_keys(day_services.check_day(tournament))
    count = 0
    by_round: dict[int, int] = {}
    for m in matches:
        if m.status == Match.Status.BYE:
            continue
        n = by_round.get(m.round_id, 0)
        by_round[m.round_id] = n + 1
        m.referee = pool[n % len(pool)]
        m.save(update_fields=["referee"])
        count += 1
    clashes = day_services.refuse_new_clashes(tournament, before, accept=False)
    if clashes:
        raise DrawError(
            "clashes",
            _("按顺序指派会让裁判同时在两处，未保存：%(clashes)s")
            % {"clashes": "；".join(clashes[:3]) + ("……" if len(clashes) > 3 else "")},
        )
    return count


@dataclass(frozen=True)
class MatchPlace:
    """Where, when and by whom one match is played, as the organiser set it: its venue (None:
    none), its first table (None: not yet), and — when ``set_referee`` and ``set_start`` — its
    referee and its start (None: none)."""

    venue_id: int | None
    first_table: int | None
    referee_id: int | None = None
    set_referee: bool = False
    starts_at: dt.datetime | None = None  # when ``set_start``: its own start (None: none)
    set_start: bool = False


@dataclass
class ScheduleEdit:
    """The schedule page's form, read: each round's start (None: not yet), each match's
    place, and each team table's own referee (None: the tie's referee covers it), all keyed
    by id. What is not named stays as it is."""

    starts: dict[int, dt.datetime | None] = field(default_factory=dict)
    places: dict[int, MatchPlace] = field(default_factory=dict)
    table_referees: dict[int, int | None] = field(default_factory=dict)
    # Keep a clash with another match (of any event) the edit makes, marked on the plan.
    accept_clashes: bool = False


@transaction.atomic
def save_schedule(*, event: Event, edit: ScheduleEdit) -> list[str]:
    """Save an event's schedule in one transaction: the rounds' starts, the matches' venues,
    first tables and referees, and the team tables' own referees (``signals.table_referees_set``,
    which ``scoring`` applies). Answers the problems found, and then nothing is saved: a
    match's tables (``Event.tables_per_match`` of them from its first) must exist in its venue
    when the venue gives its table count; venues and officials are the tournament's."""
    draw = current_draw(event)
    if draw is None:
        raise DrawError("not_drawn", _("本项目还没有抽签。"))
    tournament = event.tournament
    before = day_services.clash_keys(day_services.check_day(tournament))
    venues = {v.pk: v for v in tournament.venues.all()}
    officials = {o.pk: o for o in tournament.officials.all()}
    moved: dict[int, dt.timedelta] = {}  # a round's start moved: its matches move with it
    for rnd in Round.objects.filter(stage__draw=draw, pk__in=edit.starts):
        new = edit.starts[rnd.pk]
        if rnd.starts_at and new and new != rnd.starts_at:
            moved[rnd.pk] = new - rnd.starts_at
        rnd.starts_at = new
        rnd.save(update_fields=["starts_at"])
    problems, placed = [], []
    matches = Match.objects.filter(
        Q(pk__in=edit.places) | Q(round_id__in=moved), round__stage__draw=draw
    ).select_related("home", "away", "round")
    for m in matches.order_by("round__stage__order", "round__number", "group", "index"):
        place = edit.places.get(m.pk)
        if place is not None:
            m.venue = venues.get(place.venue_id)
            m.first_table = place.first_table
            if place.set_referee:
                m.referee = officials.get(place.referee_id)
        m.scheduled_at = _start(m, place, moved, edit.starts)
        problem = _tables_problem(m, event.tables_per_match)
        if problem:
            problems.append(problem)
            continue
        m.save(update_fields=["first_table", "venue", "referee", "scheduled_at"])
        placed.append(m)
    if not problems:
        problems = day_services.refuse_new_clashes(tournament, before, accept=edit.accept_clashes)
    if problems:
        transaction.set_rollback(True)
        return problems
    signals.tables_placed.send(sender=None, matches=placed)
    table_referees = {pk: officials.get(official) for pk, official in edit.table_referees.items()}
    signals.table_referees_set.send(sender=None, event=event, referees=table_referees)
    event.bump_version()
    return []


def _start(m: Match, place: MatchPlace | None, moved, starts):
    """A match's start after the edit: its own, as typed; else moved with its round; else,
    if it had none, its round's."""
    if place is not None and place.set_start and place.starts_at != m.scheduled_at:
        return place.starts_at
    if m.round_id in moved and m.scheduled_at:
        return m.scheduled_at + moved[m.round_id]
    if m.scheduled_at is None and starts.get(m.round_id):
        return starts[m.round_id]
    return m.scheduled_at


def _tables_problem(match: Match, tables_per_match: int) -> str | None:
    first, venue = match.first_table, match.venue
    if not first or venue is None or not venue.tables:
        return None
    if first + tables_per_match - 1 <= venue.tables:
        return None
    return _("%(match)s的桌号%(first)d起需要%(count)d张桌，%(venue)s只有%(tables)d张桌。") % {
        "match": str(match),
        "first": first,
        "count": tables_per_match,
        "venue": venue.name,
        "tables": venue.tables,
    }
