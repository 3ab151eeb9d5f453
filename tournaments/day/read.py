"""The day as the planner and the clash check read it: the tournament's settings, halls,
events, officials and every match of every current draw, turned into
:mod:`tournaments.day.planner`'s shapes (minutes from the day's midnight) — and back.

Who may play a match: its entrants' players once known; before that, "the winner (or loser)
of match n" for each side a knockout feeds — so a final and its third-place match, fed by
the same semi-finals, are still two different sets of people.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field

from django.utils import timezone
from django.utils.translation import gettext as _

from tournaments.day import planner
from tournaments.models import DayPlan, Event, HallDuty, Match, Official, Tournament

# A match's planned length when its rule set has no time limit, and the rest an entrant
# needs between two matches (the ball games'), in minutes; both editable per event.
DEFAULT_MINUTES = {
    Event.Discipline.XIANGQI: 45,
    Event.Discipline.BADMINTON: 30,
    Event.Discipline.TABLE_TENNIS: 20,
}
DEFAULT_REST = {Event.Discipline.BADMINTON: 10, Event.Discipline.TABLE_TENNIS: 10}
FALLBACK_MINUTES = 60
ON_DUTY_ROLES = (Official.Role.REFEREE, Official.Role.CHIEF_REFEREE)
_RANGE = re.compile(r"^\s*(\d{1,4})\s*(?:[-–~～至到]\s*(\d{1,4}))?\s*$")
_TIME_RANGE = re.compile(r"^\s*(\d{1,2})[:：](\d{2})\s*[-–~～至到]\s*(\d{1,2})[:：](\d{2})\s*$")


def match_minutes(event: Event) -> int:
    if event.match_minutes:
        return event.match_minutes
    rules = event.scorer().rules
    limit = getattr(rules, "time_limit_minutes", None)
    return limit or DEFAULT_MINUTES.get(event.discipline, FALLBACK_MINUTES)


def rest_minutes(event: Event) -> int:
    if event.rest_minutes is not None:
        return event.rest_minutes
    return DEFAULT_REST.get(event.discipline, 0)


def parse_places(text: str, tables: int) -> tuple[int, ...]:
    """``1-4, 7`` → (1, 2, 3, 4, 7); blank → all of the hall's ``tables``. ValueError for a
    part that is not a number or a range, or a number the hall does not have."""
    if not text.strip():
        return tuple(range(1, tables + 1))
    found: set[int] = set()
    for part in re.split(r"[,，、\s]+", text.strip()):
        if not part:
            continue
        match = _RANGE.match(part)
        if not match:
            raise ValueError(part)
        first = int(match.group(1))
        last = int(match.group(2) or first)
        if not 1 <= first <= last <= tables:
            raise ValueError(part)
        found |= set(range(first, last + 1))
    return tuple(sorted(found))


def parse_breaks(text: str) -> tuple[tuple[dt.time, dt.time], ...]:
    """``12:00-13:30, 17:00-17:15`` → the breaks; ValueError naming the part that is not."""
    out = []
    for part in re.split(r"[,，、;；]+", text.strip()):
        if not part.strip():
            continue
        match = _TIME_RANGE.match(part)
        if not match:
            raise ValueError(part)
        h1, m1, h2, m2 = map(int, match.groups())
        if not (h1 < 24 and h2 < 24 and m1 < 60 and m2 < 60) or (h1, m1) >= (h2, m2):
            raise ValueError(part)
        out.append((dt.time(h1, m1), dt.time(h2, m2)))
    return tuple(sorted(out))


def _minute(t: dt.time) -> int:
    return t.hour * 60 + t.minute


@dataclass
class DayRead:
    """What the planner and the check need, with the way back to the rows."""

    tournament: Tournament
    settings: DayPlan
    day: planner.Day
    halls: list[planner.Hall]
    events: list[planner.EventSpec]
    matches: list[planner.MatchSpec]
    officials: list[planner.OfficialSpec]
    rows: dict[int, Match] = field(default_factory=dict)  # every match read, by id
    event_rows: dict[int, Event] = field(default_factory=dict)
    booked: dict[int, planner.Booking] = field(default_factory=dict)  # as it stands
    duties: list[planner.Duty] = field(default_factory=list)  # as they stand
    problems: list[str] = field(default_factory=list)  # a hall without a count …

    def midnight(self) -> dt.datetime:
        day = self.tournament.starts_on
        return timezone.make_aware(dt.datetime.combine(day, dt.time(0)))

    def minute_of(self, at: dt.datetime) -> int:
        return int((at - self.midnight()).total_seconds() // 60)

    def at(self, minute: int) -> dt.datetime:
        return self.midnight() + dt.timedelta(minutes=minute)


def settings_of(tournament: Tournament) -> DayPlan:
    found = DayPlan.objects.filter(tournament=tournament).first()
    if found is not None:
        return found
    # Not set yet: the day starts when the notice says the tournament does.
    fresh = DayPlan(tournament=tournament)
    if tournament.start_time:
        fresh.starts_at = tournament.start_time
    return fresh


def read_day(tournament: Tournament) -> DayRead:
    """Everything of the day, in a fixed number of queries."""
    settings = settings_of(tournament)
    try:
        breaks = parse_breaks(settings.breaks)
    except ValueError:
        breaks = ()
    day = planner.Day(
        _minute(settings.starts_at),
        _minute(settings.ends_at),
        tuple((_minute(a), _minute(b)) for a, b in breaks),
        settings.changeover_minutes,
    )
    venues = list(tournament.venues.all())
    read = DayRead(tournament, settings, day, [], [], [], [])
    read.halls = [planner.Hall(v.pk, v.name, tuple(range(1, v.tables + 1))) for v in venues]
    _read_events(read, venues)
    for duty in HallDuty.objects.filter(official__tournament=tournament):
        read.duties.append(
            planner.Duty(
                duty.official_id,
                duty.venue_id,
                read.minute_of(duty.starts_at),
                read.minute_of(duty.ends_at),
            )
        )
    _read_matches(read)
    officials = Official.objects.filter(tournament=tournament, role__in=ON_DUTY_ROLES)
    for o in officials.filter(on_duty=True).order_by("role", "pk"):
        start = _minute(o.duty_from) if o.duty_from else 0
        end = _minute(o.duty_until) if o.duty_until else 48 * 60
        read.officials.append(planner.OfficialSpec(o.pk, ((start, end),) if start < end else ()))
    return read


def _read_events(read: DayRead, venues) -> None:
    by_pk = {v.pk: v for v in venues}
    events = list(read.tournament.events.prefetch_related("halls").order_by("order", "pk"))
    for order, event in enumerate(events):
        read.event_rows[event.pk] = event
        uses = list(event.halls.all())
        halls = []
        if not uses and event.venue_id in by_pk:
            venue = by_pk[event.venue_id]
            halls.append((venue.pk, tuple(range(1, venue.tables + 1))))
        for use in uses:
            venue = by_pk[use.venue_id]
            try:
                halls.append((venue.pk, parse_places(use.places, venue.tables)))
            except ValueError:
                read.problems.append(
                    _("%(event)s在%(venue)s的桌号“%(places)s”无法识别。")
                    % {"event": event.name, "venue": venue.name, "places": use.places}
                )
        for venue_pk, places in halls:
            if not places:
                read.problems.append(
                    _("%(venue)s没有填写桌数/场地数，%(event)s无法排入。")
                    % {"venue": by_pk[venue_pk].name, "event": event.name}
                )
        read.events.append(
            planner.EventSpec(
                event.pk,
                minutes=match_minutes(event),
                rest=rest_minutes(event),
                tables=event.tables_per_match,
                halls=tuple(halls),
                order=order,
            )
        )


def _people_of_entries(entry_ids) -> dict[int, frozenset]:
    from tournaments.models import Entry

    found: dict[int, set] = {pk: set() for pk in entry_ids}
    for entry in Entry.objects.filter(pk__in=entry_ids).prefetch_related("pairs"):
        if entry.player_id:
            found[entry.pk].add(f"player:{entry.player_id}")
        for pair in entry.pairs.all():
            found[entry.pk] |= {f"player:{pair.first_id}", f"player:{pair.second_id}"}
        if not found[entry.pk]:
            found[entry.pk].add(f"entry:{entry.pk}")
    return {pk: frozenset(v) for pk, v in found.items()}


def _read_matches(read: DayRead) -> None:
    rows = list(
        Match.objects.filter(
            round__stage__draw__event__tournament=read.tournament,
            round__stage__draw__undone_at__isnull=True,
        )
        .select_related("round__stage__draw", "home", "away", "venue")
        .order_by(
            "round__stage__draw__event_id", "round__stage__order", "round__number", "group", "index"
        )
    )
    people = _people_of_entries({pk for m in rows for pk in (m.home_id, m.away_id) if pk})
    fed: dict[int, list[tuple[Match, str, str]]] = {}  # match id: (feeder, side, W/L)
    for m in rows:
        if m.winner_to_id:
            fed.setdefault(m.winner_to_id, []).append((m, m.winner_to_side, "winner"))
        if m.loser_to_id:
            fed.setdefault(m.loser_to_id, []).append((m, m.loser_to_side, "loser"))
    rounds: dict[int, list[tuple]] = {}  # draw id: its rounds in order, each its match ids
    for m in rows:
        key = (m.round.stage.order, m.round.number)
        lst = rounds.setdefault(m.round.stage.draw_id, [])
        if not lst or lst[-1][0] != key:
            lst.append((key, []))
        lst[-1][1].append(m)
    events = {e.id: e for e in read.events}
    for draw_rounds in rounds.values():
        previous: list[Match] = []
        for _key, matches in draw_rounds:
            for m in matches:
                read.rows[m.pk] = m
                spec = _spec(m, fed.get(m.pk, []), previous, people, events, read)
                if spec is not None:
                    read.matches.append(spec)
            previous = [m for m in matches if _needs_a_slot(m)]


def _needs_a_slot(m: Match) -> bool:
    """A bye or a walkover is decided without being played."""
    return m.status not in (Match.Status.BYE, Match.Status.WALKOVER)


def _spec(m, feeders, previous, people, events, read) -> planner.MatchSpec | None:
    if not _needs_a_slot(m):
        return None
    event = events[m.round.stage.draw.event_id]
    explicit = [f for f, _side, _how in feeders if _needs_a_slot(f)]
    after = explicit if feeders else previous
    who: set = set()
    for side, entry_id in (("home", m.home_id), ("away", m.away_id)):
        if entry_id:
            who |= people.get(entry_id, frozenset())
        else:
            who |= {f"{how}:{f.pk}" for f, s, how in feeders if s == side}
    booked = None
    if m.scheduled_at and m.venue_id:
        start = read.minute_of(m.scheduled_at)
        places = tuple(range(m.first_table, m.first_table + event.tables)) if m.first_table else ()
        booked = planner.Booking(
            m.pk, start, start + event.minutes, m.venue_id, places, m.referee_id
        )
        read.booked[m.pk] = booked
    fixed = None
    if m.status in (Match.Status.IN_PROGRESS, Match.Status.FINISHED):
        if booked is None:
            return None  # played, and never on the plan: nothing to place or wait for
        end = read.minute_of(m.finished_at) if m.finished_at else booked.end
        official = m.referee_id or _on_duty(read, m.venue_id, booked.start)
        fixed = planner.Booking(
            m.pk, booked.start, max(end, booked.start + 1), m.venue_id, booked.places, official
        )
    return planner.MatchSpec(
        m.pk,
        event.id,
        (m.round.stage.order, m.round.number, m.group, m.index),
        tuple(f.pk for f in after),
        frozenset(who),
        m.referee_id,
        fixed,
    )


def _on_duty(read: DayRead, hall: int, minute: int) -> int | None:
    """The official on duty in ``hall`` at ``minute``, as saved."""
    return next(
        (d.official for d in read.duties if d.hall == hall and d.start <= minute < d.end), None
    )
