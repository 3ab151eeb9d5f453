"""Synthetic events for tests, benchmarks and ``generate_event``: many guandan teams fast
(bulk inserts, not the registration form), drawn and optionally played to the end."""

from __future__ import annotations

import datetime as dt
import math
import random

from django.db import transaction

from scoring.engines.guandan.play import decide_tie
from scoring.engines.simulate import random_table
from tournaments.draw import plan as draw_plan
from tournaments.draw import results as draw_results
from tournaments.models import Entry, Event, Match, Pair, Player, Tournament, Unit, Venue

SURNAMES = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁"


@transaction.atomic
def create_event(
    *, tournament_slug: str, event_slug: str, entries: int, seed: int = 0, pairs_per_team: int = 3
) -> Event:
    tournament, _ = Tournament.objects.get_or_create(
        slug=tournament_slug,
        defaults=dict(
            name=f"生成的比赛 {tournament_slug}",
            organiser_name="测试工会",
            notice_title=f"关于举行{tournament_slug}的通知",
            notice_text="（自动生成）",
            starts_on=dt.date.today(),
            status=Tournament.Status.REGISTRATION_CLOSED,
        ),
    )
    venue, _ = Venue.objects.get_or_create(
        tournament=tournament,
        name="活动中心",
        defaults={"tables": max(3, entries * pairs_per_team // 2)},
    )
    if Event.objects.filter(tournament=tournament, slug=event_slug).exists():
        raise ValueError(f"event {event_slug!r} already exists in {tournament_slug!r}")
    event = Event.objects.create(
        tournament=tournament,
        slug=event_slug,
        name=f"掼蛋团体赛（{entries}队）",
        discipline=Event.Discipline.GUANDAN_TEAM,
        entry_kind=Event.EntryKind.TEAM,
        pairs_per_team=pairs_per_team,
        ruleset="nantong2014",
        venue=venue,
    )
    width = len(str(entries))
    taken = set(tournament.units.values_list("name", flat=True))
    units = []
    for i in range(entries):
        name = f"{event_slug}-单位{i + 1:0{width}d}"
        if name in taken:
            raise ValueError(f"unit {name} exists")
        units.append(Unit(tournament=tournament, name=name, kind=Unit.Kind.UNION_GROUP))
    Unit.objects.bulk_create(units)
    rng = random.Random(seed)
    players = [
        Player(
            tournament=tournament,
            unit=unit,
            name=f"{rng.choice(SURNAMES)}{unit.name[-width:]}-{k + 1}",
            gender=rng.choice("MF"),
        )
        for unit in units
        for k in range(2 * pairs_per_team)
    ]
    Player.objects.bulk_create(players)
    made = Entry.objects.bulk_create(
        Entry(event=event, unit=unit, name=unit.name) for unit in units
    )
    pairs = [
        Pair(
            entry=entry,
            number=n + 1,
            first=players[i * 2 * pairs_per_team + 2 * n],
            second=players[i * 2 * pairs_per_team + 2 * n + 1],
        )
        for i, entry in enumerate(made)
        for n in range(pairs_per_team)
    ]
    Pair.objects.bulk_create(pairs)
    return event


def plan_for(format: str, entries: int, qualifiers: int | None = None) -> draw_plan.DrawPlan:
    """The plan ``generate_event`` draws: ``qualifiers`` K is the Swiss top K going on to a
    seeded knockout (or a preliminary knockout's K)."""
    if format == "groups":
        groups = max(2, entries // 4)
        return draw_plan.DrawPlan(format="groups", groups=groups, advance=2)
    if format == "swiss":
        rounds = min(max(3, math.ceil(math.log2(entries)) + 1), max(entries - 1, 1))
        return draw_plan.DrawPlan(format="swiss", swiss_rounds=rounds, qualifiers=qualifiers)
    return draw_plan.DrawPlan(format="knockout", qualifiers=qualifiers)


def play_match(match: Match, event: Event, rng: random.Random) -> Match:
    """Play one tie table by table with the level engine and confirm the result."""
    rules = event.scorer().rules
    tables = event.tables_per_match
    strength = rng.uniform(0.35, 0.65)
    winners, level_diff = [], 0
    for _ in range(tables):
        _events, state = random_table(rules, rng, strength=strength)
        winners.append(state.winner)
        level_diff += state.levels["A"] - state.levels["B"]
    knockout = match.round.stage.format == "knockout"
    tie = decide_tie(winners, tables=tables) if tables > 1 else None
    if tie is not None:
        winner = tie.winner
        home_score, away_score = tie.wins["A"], tie.wins["B"]
    else:
        winner = winners[0]
        home_score, away_score = int(winner == "A"), int(winner == "B")
    side = None if winner is None and not knockout else ("home" if winner == "A" else "away")
    return draw_results.record_result(
        match=match,
        winner=side,
        home_score=home_score,
        away_score=away_score,
        home_level_points=level_diff,
        away_level_points=-level_diff,
    )


def play_event(event: Event, *, seed: int = 0, until: float = 1.0) -> int:
    """Play ready matches round by round until the event stands still (or, with ``until``
    below 1, until that share of the matches created so far is decided). Returns how many."""
    rng = random.Random(seed)
    played = 0
    while True:
        ready = list(
            Match.objects.filter(
                round__stage__event=event,
                round__stage__draw__undone_at__isnull=True,
                status=Match.Status.PENDING,
                home__isnull=False,
                away__isnull=False,
            )
            .select_related("round__stage")
            .order_by("round__stage__order", "round__number", "group", "index")
        )
        if not ready:
            return played
        total = Match.objects.filter(round__stage__event=event).count()
        for match in ready:
            if until < 1 and played >= until * total:
                return played
            play_match(match, event, rng)
            played += 1
