"""Stages as they are built and move on: the knockout, groups and Swiss rounds created, byes and walkovers settled, the next stage made when one is complete."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from tournaments.draw import signals
from tournaments.draw.plan import AWAY, HOME, OUT_STATUSES, DrawPlan
from tournaments.draw.rules import groups as group_rules
from tournaments.draw.rules import knockout
from tournaments.draw.rules.common import (
    FINAL_STAGE_NAME,
    GROUP_STAGE_NAME,
    SWISS_QUALIFYING_NAME,
    SWISS_STAGE_NAME,
    round_number_name,
)
from tournaments.draw.rules.knockout import Feeder
from tournaments.draw.rules.swiss import SwissPlayer, swiss_round
from tournaments.draw.selectors import group_tables, swiss_standings, swiss_table
from tournaments.models import Draw, Entry, Event, EventHall, Match, Round, Stage, Venue
from tournaments.models.bracket import BOTH_OUT_NOTE, BYE_NOTE, out_note

DECIDED = (Match.Status.FINISHED, Match.Status.WALKOVER, Match.Status.BYE)  # Match.is_decided


@dataclass
class BuildContext:
    event: Event
    draw: Draw
    plan: DrawPlan
    rng: random.Random
    created: list[Match] = field(default_factory=list)


def slots_of(ctx: BuildContext) -> list:
    first = [m for m in ctx.created if m.round.number == 1 and not m.is_third_place]
    return [pk for m in first for pk in (m.home_id, m.away_id)]


def create_knockout(
    ctx: BuildContext, slots, *, name: str, order: int, stop_at=None, seeded=None
) -> Stage:
    plan = knockout.plan_knockout(slots, third_place=ctx.plan.third_place, stop_at=stop_at)
    stage = Stage.objects.create(
        event=ctx.event,
        draw=ctx.draw,
        order=order,
        name=name,
        format=Stage.Format.KNOCKOUT,
        settings={
            "size": plan.size,
            "total_rounds": plan.total_rounds,
            "rounds": plan.rounds,
            "stop_at": stop_at,
            "third_place": ctx.plan.third_place,
        },
    )
    rounds = {}
    for number in range(1, plan.rounds + 1):
        round_name = plan.round_matches(number)[0].name
        rounds[number] = Round.objects.create(stage=stage, number=number, name=round_name)
    entries = {e.pk: e for e in Entry.objects.filter(pk__in=[s for s in slots if s is not None])}
    made: dict[tuple[int, int], Match] = {}
    for pm in plan.matches:
        match = Match(
            round=rounds[pm.round],
            index=pm.index,
            is_third_place=pm.third_place,
            home=entries.get(pm.home) if not isinstance(pm.home, Feeder) else None,
            away=entries.get(pm.away) if not isinstance(pm.away, Feeder) else None,
        )
        if pm.bye:
            match.status = Match.Status.BYE
            match.winner = HOME if pm.home is not None else AWAY
            match.result_note = BYE_NOTE
        made[(pm.round, pm.index)] = match
    # Wire each match to where its winner and loser go, then insert round by round from the
    # final backwards, so every target row exists before the rows that point to it: one
    # INSERT per round, however large the bracket.
    for pm in plan.matches:
        for side, source in ((HOME, pm.home), (AWAY, pm.away)):
            if isinstance(source, Feeder):
                feeder = made[(source.round, source.index)]
                target = made[(pm.round, pm.index)]
                if source.outcome == "winner":
                    feeder.winner_to, feeder.winner_to_side = target, side
                else:
                    feeder.loser_to, feeder.loser_to_side = target, side
    for number in range(plan.rounds, 0, -1):
        Match.objects.bulk_create(
            [m for (r, _i), m in made.items() if r == number], batch_size=1000
        )
    ctx.created += made.values()
    return stage


def create_groups(ctx: BuildContext, groups: list[list[int]]) -> Stage:
    stage = Stage.objects.create(
        event=ctx.event,
        draw=ctx.draw,
        order=1,
        name=GROUP_STAGE_NAME,
        format=Stage.Format.GROUPS,
        settings={
            "groups": [[pk for pk in g] for g in groups],
            "advance": ctx.plan.advance,
            "points": list(ctx.plan.points),
        },
    )
    schedules = [group_rules.round_robin(g) for g in groups]
    entries = {e.pk: e for e in Entry.objects.filter(pk__in=[pk for g in groups for pk in g])}
    for number in range(1, max(len(s) for s in schedules) + 1):
        rnd = Round.objects.create(stage=stage, number=number, name=round_number_name(number))
        for g, schedule in enumerate(schedules):
            if number > len(schedule):
                continue
            label = group_rules.group_label(g)
            index = 0
            for home, away in schedule[number - 1]:
                if home is None or away is None:
                    continue  # the group's bye this round: no row
                match = Match.objects.create(
                    round=rnd, index=index, group=label, home=entries[home], away=entries[away]
                )
                ctx.created.append(match)
                index += 1
    return stage


def create_swiss(ctx: BuildContext, entries: list[Entry]) -> Stage:
    stage = Stage.objects.create(
        event=ctx.event,
        draw=ctx.draw,
        order=1,
        name=SWISS_QUALIFYING_NAME if ctx.plan.qualifiers else SWISS_STAGE_NAME,
        format=Stage.Format.SWISS,
        settings={
            "rounds": ctx.plan.swiss_rounds,
            "points": list(ctx.plan.points),
            "seed": ctx.draw.seed,
            # The top K go on to a knockout seeded by Swiss rank (None: the table is the result).
            "qualifiers": ctx.plan.qualifiers,
        },
    )
    entrants = [(e.pk, e.unit_id) for e in entries]
    ctx.created += _pair_swiss_round(stage, 1, entrants, rng=ctx.rng, matches=[])
    return stage


def _pair_swiss_round(
    stage: Stage, number: int, entrants: list[tuple[int, int]], *, rng=None, matches=None
) -> list[Match]:
    """Pair round ``number`` of ``entrants`` (the active entries' (id, unit id), in id order)
    from the stage's ``matches`` so far and save it: the round, its matches in one INSERT,
    each at its venue table (:func:`_round_tables`). A fixed number of queries for any
    field (2,048 pairs: 1,024 matches)."""
    table = swiss_table(stage, matches)
    # Entries of one unit (pairs or players) are kept apart where the pairing allows: the
    # pairing treats them as having met, so it avoids them as it avoids rematches.
    units: dict[int, set[int]] = {}
    if stage.event.entry_kind != Event.EntryKind.TEAM:
        for pk, unit in entrants:
            units.setdefault(unit, set()).add(pk)
    nobody: frozenset = frozenset()
    players = []
    for pk, unit in entrants:
        row = table.get(pk, {})
        same_unit = units.get(unit, nobody)
        players.append(
            SwissPlayer(
                id=pk,
                score=row.get("match_points", 0),
                opponents=frozenset(row.get("opponents", ())).union(same_unit - {pk}),
                had_bye=row.get("byes", 0) > 0,
                tiebreak=(row.get("level_points", 0),),
            )
        )
    result = swiss_round(players, rng=rng)
    rnd = Round.objects.create(stage=stage, number=number, name=round_number_name(number))
    venue, per_match = _round_tables(stage.event, len(result.pairs))
    made = [
        Match(
            round=rnd,
            index=index,
            home_id=home,
            away_id=away,
            venue=venue,
            first_table=index * per_match + 1 if venue else None,
        )
        for index, (home, away) in enumerate(result.pairs)
    ]
    if result.bye is not None:
        made.append(
            Match(
                round=rnd,
                index=len(result.pairs),
                home_id=result.bye,
                status=Match.Status.BYE,
                winner=HOME,
                home_score=0,
                result_note=BYE_NOTE,
            )
        )
    return Match.objects.bulk_create(made, batch_size=1000)


def _round_tables(event: Event, ties: int) -> tuple[Venue | None, int]:
    """Where a Swiss round's ``ties`` are played: the event's venue when the event has it to
    itself (no other event of the tournament there, no halls set for the day plan) and it
    has the tables for all of them side by side (a team tie takes ``tables_per_match``),
    each tie in pairing order — the top of the table at table 1 — at the next free tables;
    else (None, n) and the schedule places them (waves, halls shared with other events)."""
    per_match = event.tables_per_match
    venue = event.venue
    if venue is None or not venue.tables or ties * per_match > venue.tables:
        return None, per_match
    shared = (
        Event.objects.filter(tournament_id=event.tournament_id)
        .exclude(pk=event.pk)
        .filter(Q(venue=venue) | Q(halls__venue=venue))
        .exists()
    )
    if shared or EventHall.objects.filter(event=event).exists():
        return None, per_match
    return venue, per_match


@dataclass(frozen=True, slots=True)
class _Played:
    """What the Swiss table reads of a match (``selectors.swiss_table``), without a model
    instance: a stage of 7,168 matches is read in a tenth of the time."""

    status: str
    winner: str
    home_id: int | None
    away_id: int | None
    home_level_points: float
    away_level_points: float

    FIELDS = ("status", "winner", "home_id", "away_id", "home_level_points", "away_level_points")

    @property
    def is_decided(self) -> bool:
        return self.status in DECIDED


# How settle reloads matches: with what its steps read (the entries, the round's stage id).
_SETTLE_RELATED = ("home", "away", "round")


def _refresh(matches: list[Match]) -> None:
    """``refresh_from_db`` for many matches in one query: each instance takes its row's
    values, its entries and round loaded afresh."""
    rows = Match.objects.select_related(*_SETTLE_RELATED).in_bulk([m.pk for m in matches])
    for match in matches:
        row = rows[match.pk]
        for f in Match._meta.concrete_fields:
            setattr(match, f.attname, getattr(row, f.attname))
            if f.is_relation:
                if f.is_cached(row):
                    f.set_cached_value(match, f.get_cached_value(row))
                elif f.is_cached(match):
                    f.delete_cached_value(match)


def settle(matches: list[Match]) -> None:
    """Follow the consequences of decided matches until nothing more moves: winners and
    losers into their next matches, walkovers against entries that are out, the next stage
    or Swiss round when one is complete.

    Breadth first, a wave at a time, each wave reloaded in one query (a new Swiss round of
    1,024 ties is one wave); a match written earlier in its own wave is reloaded before it
    is looked at, so every step reads what is saved."""
    queue = list(matches)
    stages = set()
    while queue:
        wave, queue = queue, []
        _refresh(wave)
        touched: set[int] = set()
        for match in wave:
            if match.pk in touched:
                _refresh([match])
            if not match.is_decided:
                _walkover_if_out(match)
            touched.add(match.pk)
            if match.is_decided:
                for target, side, entry in (
                    (match.winner_to_id, match.winner_to_side, match.winner_entry),
                    (match.loser_to_id, match.loser_to_side, match.loser_entry),
                ):
                    if target and entry is not None:
                        nxt = Match.objects.select_for_update().get(pk=target)
                        touched.add(nxt.pk)
                        if getattr(nxt, f"{side}_id") != entry.pk:
                            if getattr(nxt, f"{side}_id") and (
                                nxt.is_decided or nxt.status == Match.Status.IN_PROGRESS
                            ):
                                # Played (or under way) with someone else, as after a
                                # correction: its record is kept, the chief referee decides.
                                flag_for_review(nxt, match, entry)
                                continue
                            replaced = bool(getattr(nxt, f"{side}_id") or nxt.review_note)
                            setattr(nxt, side, entry)
                            if replaced:  # after a correction: the match's page says so
                                note_new_pairing(nxt, match, entry)
                            nxt.save(update_fields=[side, "review_note"])
                            signals.announce([nxt])
                        elif nxt.needs_review and feeders_agree(nxt):
                            nxt.needs_review, nxt.review_note = False, ""
                            nxt.save(update_fields=["needs_review", "review_note"])
                            nxt.round.stage.event.bump_version()
                        queue.append(nxt)
            stages.add(match.round.stage_id)
    for stage in Stage.objects.filter(pk__in=stages):
        _advance_stage(stage)


def note_new_pairing(target: Match, source: Match, entry) -> None:
    """The note a match not yet started carries when a correction of ``source`` changed who
    plays it — ``entry`` now, or nobody yet (saved by the caller)."""
    if entry is not None:
        target.review_note = _("上一场（%(m)s）的结果已更正，本场对阵改为：%(tie)s。") % {
            "m": str(source),
            "tie": str(target),
        }
    else:
        target.review_note = _("上一场（%(m)s）的结果已更正，本场对阵待定。") % {"m": str(source)}


def flag_for_review(target: Match, source: Match, entry) -> None:
    """``target`` was played (or is under way) with another entry than ``source``'s result now
    sends it: its record is kept and it is flagged for the chief referee (needs_review)."""
    target.needs_review = True
    if entry is None:
        target.review_note = _(
            "上一场（%(m)s）已无结果（更正后重新进行或作废重赛），本场对阵待定。"
        ) % {"m": str(source)}
    else:
        target.review_note = _("上一场（%(m)s）的结果已更正，本场对阵应为%(e)s。") % {
            "m": str(source),
            "e": entry.name,
        }
    target.save(update_fields=["needs_review", "review_note"])


def feeders_agree(target: Match) -> bool:
    """Whether every decided match feeding ``target`` sends the entry its slot holds: the
    contradiction a review flag was raised for is gone."""
    for feeder in Match.objects.filter(Q(winner_to=target) | Q(loser_to=target)).select_related(
        "home", "away"
    ):
        if not feeder.is_decided:
            return False
        for to_id, side, entry in (
            (feeder.winner_to_id, feeder.winner_to_side, feeder.winner_entry),
            (feeder.loser_to_id, feeder.loser_to_side, feeder.loser_entry),
        ):
            if to_id == target.pk and getattr(target, f"{side}_id") != (
                entry.pk if entry else None
            ):
                return False
    return True


def _walkover_if_out(match: Match) -> None:
    """A match whose entry is out of the event goes to the other entry (不战而胜)."""
    home, away = match.home, match.away
    home_out = home is not None and home.status in OUT_STATUSES
    away_out = away is not None and away.status in OUT_STATUSES
    if home_out and away_out:
        # Both gone: the home entry is carried on and gives a walkover in its next match.
        winner, note = HOME, BOTH_OUT_NOTE
    elif home_out and away is not None:
        winner, note = AWAY, out_note(home)
    elif away_out and home is not None:
        winner, note = HOME, out_note(away)
    else:
        return  # nobody out, or the other place is not known yet
    match.status, match.winner, match.result_note = Match.Status.WALKOVER, winner, note
    match.finished_at = timezone.now()
    match.save()


def _advance_stage(stage: Stage) -> None:
    """When a stage is complete, create what follows it."""
    in_stage = Match.objects.filter(round__stage=stage)
    # One small query after most results: the stage is complete only once nothing is open.
    if in_stage.exclude(status__in=DECIDED).exists():
        return
    if stage.format == Stage.Format.SWISS:  # what the Swiss table reads of them
        matches = [_Played(*row) for row in in_stage.values_list(*_Played.FIELDS)]
    else:
        matches = list(in_stage)
    if not matches:
        return
    event, plan = stage.event, DrawPlan.from_dict(stage.draw.plan)
    if Stage.objects.filter(draw=stage.draw, order__gt=stage.order).exists():
        return
    ctx = BuildContext(
        event=event,
        draw=stage.draw,
        plan=plan,
        rng=random.Random((stage.draw.seed or 0) + stage.order),
    )
    if stage.format == Stage.Format.SWISS:
        played = stage.rounds.count()
        if played < stage.settings.get("rounds", plan.swiss_rounds):
            entrants = list(
                event.entries.filter(status=Entry.Status.REGISTERED)
                .order_by("pk")
                .values_list("pk", "unit_id")
            )
            made = _pair_swiss_round(stage, played + 1, entrants, matches=matches)
            signals.announce(made)
            # Only the bye is decided: the new ties are between registered entries, open.
            settle([m for m in made if m.is_decided])
            return
        if not plan.qualifiers:
            return
        ranking = [row["entry"] for row in swiss_standings(stage)]
        active = set(
            Entry.objects.filter(pk__in=ranking, status=Entry.Status.REGISTERED).values_list(
                "pk", flat=True
            )
        )
        qualified = [pk for pk in ranking if pk in active][: plan.qualifiers]
        # Seeded by Swiss rank: 1–8, 4–5, 2–7, 3–6.
        slots = knockout.slots_by_rank(qualified)
    elif stage.format == Stage.Format.GROUPS:
        rankings = [[row.entry for row in table] for _label, table in group_tables(stage)]
        seeded = group_rules.seed_from_groups(rankings, stage.settings.get("advance", plan.advance))
        slots = knockout.draw_knockout(
            seeded, seeds={pk: i + 1 for i, pk in enumerate(seeded)}, rng=ctx.rng
        )
    elif stage.settings.get("stop_at"):
        # A preliminary knockout: the survivors keep their bracket order.
        last = max(m.round.number for m in matches)
        slots = [
            m.winner_entry.pk
            for m in sorted(matches, key=lambda m: m.index)
            if m.round.number == last
        ]
    else:
        return
    create_knockout(ctx, slots, name=FINAL_STAGE_NAME, order=stage.order + 1)
    signals.announce(ctx.created)
    settle(ctx.created)
