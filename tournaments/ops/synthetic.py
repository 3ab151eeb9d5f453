"""Synthetic events for tests, benchmarks and ``generate_event``: many guandan teams or pairs
fast (bulk inserts, not the registration form), drawn and optionally played to the end."""

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


KINDS = ("teams", "pairs")
# A pairs event's synthetic units each enter this many pairs (a union group's few pairs), so
# the draw and the Swiss pairing have entries of one unit to keep apart.
PAIRS_PER_UNIT = 4


@transaction.atomic
def create_event(
    *,
    tournament_slug: str,
    event_slug: str,
    entries: int,
    seed: int = 0,
    pairs_per_team: int = 3,
    kind: str = "teams",
) -> Event:
    """A guandan event of ``entries`` synthetic entries: ``teams`` (each a unit's team of
    ``pairs_per_team`` fixed pairs, a match one table per pair) or ``pairs`` (掼蛋双人: each
    entry one pair, a match one table; units of a few pairs each)."""
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}: one of {', '.join(KINDS)}")
    pairs_event = kind == "pairs"
    per_entry = 1 if pairs_event else pairs_per_team
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
        defaults={"tables": max(3, entries * per_entry // 2)},
    )
    if Event.objects.filter(tournament=tournament, slug=event_slug).exists():
        raise ValueError(f"event {event_slug!r} already exists in {tournament_slug!r}")
    if pairs_event:
        event = Event.objects.create(
            tournament=tournament,
            slug=event_slug,
            name=f"掼蛋双人赛（{entries}对）",
            discipline=Event.Discipline.GUANDAN_PAIRS,
            entry_kind=Event.EntryKind.PAIR,
            ruleset="nantong2014",
            venue=venue,
        )
    else:
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
    unit_count = -(-entries // PAIRS_PER_UNIT) if pairs_event else entries
    width = len(str(max(entries, unit_count)))
    taken = set(tournament.units.values_list("name", flat=True))
    units = []
    for i in range(unit_count):
        name = f"{event_slug}-单位{i + 1:0{width}d}"
        if name in taken:
            raise ValueError(f"unit {name} exists")
        units.append(Unit(tournament=tournament, name=name, kind=Unit.Kind.UNION_GROUP))
    Unit.objects.bulk_create(units)
    # Entry i's unit, and its players 2·per_entry·i … (two a pair).
    entry_units = [units[i // PAIRS_PER_UNIT] if pairs_event else units[i] for i in range(entries)]
    rng = random.Random(seed)
    players = [
        Player(
            tournament=tournament,
            unit=unit,
            name=f"{rng.choice(SURNAMES)}{i + 1:0{width}d}-{k + 1}",
            gender=rng.choice("MF"),
        )
        for i, unit in enumerate(entry_units)
        for k in range(2 * per_entry)
    ]
    Player.objects.bulk_create(players)

    def entry_name(i: int, unit: Unit) -> str:
        # As registration names them: a team by its unit, a pair by its two players.
        if not pairs_event:
            return unit.name
        return "/".join(p.name for p in players[2 * i : 2 * i + 2])

    made = Entry.objects.bulk_create(
        Entry(event=event, unit=unit, name=entry_name(i, unit))
        for i, unit in enumerate(entry_units)
    )
    pairs = [
        Pair(
            entry=entry,
            number=n + 1,
            first=players[i * 2 * per_entry + 2 * n],
            second=players[i * 2 * per_entry + 2 * n + 1],
        )
        for i, entry in enumerate(made)
        for n in range(per_entry)
    ]
    Pair.objects.bulk_create(pairs)
    return event


def plan_for(
    format: str, entries: int, qualifiers: int | None = None, rounds: int | None = None
) -> draw_plan.DrawPlan:
    """The plan ``generate_event`` draws: ``qualifiers`` K is the Swiss top K going on to a
    seeded knockout (or a preliminary knockout's K); ``rounds`` the Swiss rounds (by default
    enough to separate the field: ⌈log₂ N⌉ + 1, at least 3, at most N − 1)."""
    if format == "groups":
        groups = max(2, entries // 4)
        return draw_plan.DrawPlan(format="groups", groups=groups, advance=2)
    if format == "swiss":
        if rounds is None:
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
