"""The read behind the units' standings (团体总分): every event's draw, matches and entries of a tournament in a fixed number of queries, each event's places, and the standings the rules make of them."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from tournaments.draw.selectors import places_and_review
from tournaments.models import Draw, Entry, Event, Match, Round, Stage, Tournament, Unit
from tournaments.standings import rules


@dataclass
class EventDay:
    """One event as the day sees it: its places, whether it is over, its matches."""

    event: Event
    places: dict[int, int]  # entry id -> place (all places the brackets give)
    finished: bool
    matches: list[Match] = field(default_factory=list)
    drawn: bool = False


@dataclass
class Standings:
    tournament: Tournament
    version: int
    final: bool  # every event is finished
    options: rules.Options
    rows: list[rules.UnitRow]
    units: dict[int, Unit]
    entries: dict[int, Entry]
    days: dict[int, EventDay]  # event id -> EventDay
    events_by_slug: dict[str, Event]

    @property
    def top(self) -> list[rules.UnitRow]:
        """The units that receive a certificate: places 1–3 with points."""
        return [
            row for row in self.rows if row.rank is not None and row.rank <= 3 and row.points > 0
        ]


def options_of(tournament: Tournament) -> rules.Options:
    return rules.Options(
        points=tuple(tournament.points_table()),
        joint=tournament.standings_joint,
        award_only_scores=tournament.standings_award_only_score,
        disqualified_scores=tournament.standings_disqualified_score,
    )


def load_day(
    tournament: Tournament,
) -> tuple[dict[int, EventDay], dict[int, Entry], dict[int, Unit]]:
    """Every event's places and matches: seven queries whatever the number of events."""
    events = list(tournament.events.select_related("venue"))
    for event in events:
        event.tournament = tournament
    units = {u.pk: u for u in tournament.units.all()}
    members: dict[int, list[int]] = {}
    for joint_id, member_id in Unit.members.through.objects.filter(
        from_unit__tournament=tournament
    ).values_list("from_unit_id", "to_unit_id"):
        members.setdefault(joint_id, []).append(member_id)
    for unit in units.values():
        unit.member_ids = sorted(members.get(unit.pk, []))
    entries = {e.pk: e for e in Entry.objects.filter(event__tournament=tournament)}
    for entry in entries.values():
        entry.unit = units[entry.unit_id]
    draws = {
        d.event_id: d
        for d in Draw.objects.filter(event__tournament=tournament, undone_at__isnull=True)
    }
    stages = list(Stage.objects.filter(draw__in=draws.values()).order_by("order"))
    rounds = {r.pk: r for r in Round.objects.filter(stage__in=stages)}
    stage_by_id = {s.pk: s for s in stages}
    for r in rounds.values():
        r.stage = stage_by_id[r.stage_id]
    matches = list(
        Match.objects.filter(round__stage__in=stages)
        .select_related("venue")
        .order_by("round__stage__order", "round__number", "group", "index")
    )
    for m in matches:
        m.round = rounds[m.round_id]
        m.home, m.away = entries.get(m.home_id), entries.get(m.away_id)
    days = {}
    for event in events:
        draw = draws.get(event.pk)
        mine_stages = [s for s in stages if draw and s.draw_id == draw.pk]
        mine = [m for m in matches if m.round.stage.draw_id == (draw.pk if draw else None)]
        event_entries = {pk: e for pk, e in entries.items() if e.event_id == event.pk}
        placed, held = places_and_review(mine_stages, mine, event_entries, all_places=True)
        # A place under the chief referee's review keeps the standings provisional (暂定).
        finished = bool(placed) and not held and all(m.is_decided for m in mine)
        if not event_entries:
            finished = True  # nothing to play: it does not hold the standings back
        days[event.pk] = EventDay(
            event=event,
            places={entry.pk: rank for rank, entry in placed},
            finished=finished,
            matches=mine,
            drawn=bool(mine_stages),
        )
    return days, entries, units


def standings(tournament: Tournament) -> Standings:
    """The units' standings as the events' places give them now (eight queries)."""
    days, entries, units = load_day(tournament)
    options = options_of(tournament)
    placed = []
    for entry in entries.values():
        day = days[entry.event_id]
        if entry.status == Entry.Status.WITHDRAWN and entry.pk not in day.places:
            continue
        unit = units[entry.unit_id]
        placed.append(
            rules.Placed(
                event=day.event.slug,
                entry=entry.pk,
                unit=unit.pk,
                rank=day.places.get(entry.pk),
                members=tuple(unit.member_ids) if unit.kind == Unit.Kind.JOINT else (),
                weight=day.event.standings_weight,
                award_only=entry.participation_award_only,
                disqualified=entry.status == Entry.Status.DISQUALIFIED,
            )
        )
    # Listed: every unit that entered, and a joint team's members when they share its
    # points (the joint team itself only when it keeps them), with or without points.
    entered = {e.unit_id for e in entries.values()}
    shared = options.joint == rules.SHARED
    listed = [
        pk
        for pk, unit in units.items()
        if (pk in entered and not (shared and unit.kind == Unit.Kind.JOINT))
        or (shared and any(pk in units[j].member_ids for j in entered))
    ]
    rows = rules.unit_standings(placed, options, units=listed)
    return Standings(
        tournament=tournament,
        version=sum(d.event.version for d in days.values()),
        final=bool(days) and all(d.finished for d in days.values()),
        options=options,
        rows=rows,
        units=units,
        entries=entries,
        days=days,
        events_by_slug={d.event.slug: d.event for d in days.values()},
    )


def as_number(value: Fraction) -> int | float:
    """A points value for JSON and pages: whole numbers as such, else two decimals."""
    if value.denominator == 1:
        return int(value)
    return round(float(value), 2)
