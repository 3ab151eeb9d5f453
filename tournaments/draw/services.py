"""The draw (抽签) and everything that moves a bracket: the only code that writes stages,
rounds and matches. Rules live in the pure modules ``brackets`` and ``pairing``; this module
reads rows, asks them, and writes the answer in one transaction.

Formats (``DrawPlan.format``):
- ``knockout`` — one knockout stage, the 季军争夺战 on by default; with ``qualifiers=K`` a
  preliminary knockout (预赛) brings the field down to K and the main knockout (决赛阶段)
  continues with the survivors in their bracket places (Nantong: 第一阶段决出八强 …);
- ``groups`` — round-robin groups (小组循环赛); the top ``advance`` of each group go on to a
  knockout seeded so that group winners do not meet early;
- ``swiss`` — 积分编排: ``swiss_rounds`` rounds paired within score groups; with
  ``qualifiers=K`` the top K then play a knockout, otherwise the Swiss table is the result.
"""

from __future__ import annotations

import random
import secrets
from dataclasses import asdict, dataclass, field

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from tournaments.draw.rules import brackets
from tournaments.draw.rules.brackets import DrawError, Feeder
from tournaments.draw.rules.swiss import SwissPlayer, swiss_round
from tournaments.models import Draw, Entry, Event, Match, Round, Stage

HOME, AWAY = Match.Side.HOME, Match.Side.AWAY
OUT_STATUSES = (Entry.Status.WITHDRAWN, Entry.Status.ELIMINATED, Entry.Status.DISQUALIFIED)


class ResultError(Exception):
    """A result a user can correct (wrong side, match not ready, already decided …)."""

    def __init__(self, code: str, message: str):
        self.code, self.message = code, message
        super().__init__(message)


@dataclass(frozen=True)
class DrawPlan:
    format: str = "knockout"  # knockout | groups | swiss
    third_place: bool = True
    qualifiers: int | None = None  # K of a preliminary stage (决出K强)
    groups: int = 2
    advance: int = 2  # per group
    swiss_rounds: int = 5
    points: tuple[int, int, int] = (2, 1, 0)

    def __post_init__(self):
        if self.format not in ("knockout", "groups", "swiss"):
            raise DrawError("invalid_format", _("未知的赛制“%(f)s”。") % {"f": self.format})

    @classmethod
    def from_dict(cls, data: dict) -> DrawPlan:
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        if "points" in known:
            known["points"] = tuple(known["points"])
        return cls(**known)

    def to_dict(self) -> dict:
        return {**asdict(self), "points": list(self.points)}


@dataclass
class _Ctx:
    event: Event
    draw: Draw
    plan: DrawPlan
    rng: random.Random
    created: list[Match] = field(default_factory=list)


# --------------------------------------------------------------------------- drawing


def active_entries(event: Event) -> list[Entry]:
    return list(
        event.entries.filter(status=Entry.Status.REGISTERED).select_related("unit").order_by("pk")
    )


def current_draw(event: Event) -> Draw | None:
    return event.draws.filter(undone_at__isnull=True).first()


@transaction.atomic
def draw_event(
    *,
    event: Event,
    user=None,
    plan: DrawPlan | None = None,
    method: str = Draw.Method.RANDOM,
    seed: int | None = None,
    lots: dict[int, int] | None = None,
    seeds: dict[int, int] | None = None,
) -> Draw:
    """Make the draw: the first stage with all its matches, byes moved on at once.

    ``lots`` (physical draw): entry id → lot number as drawn at the meeting; lot k is slot k
    of the knockout, or the k-th place when groups are filled in lot order. ``seed`` makes
    a random draw repeatable; one is chosen and recorded when not given.
    """
    plan = plan or DrawPlan()
    if method not in Draw.Method.values:
        raise DrawError("invalid_method", _("未知的抽签方式。"))
    event = Event.objects.select_for_update().select_related("tournament").get(pk=event.pk)
    if current_draw(event) is not None:
        raise DrawError("already_drawn", _("本项目已经抽签；如需重抽请先撤销原抽签。"))
    entries = active_entries(event)
    if len(entries) < 2:
        raise DrawError("too_few_entries", _("至少需要2个有效报名才能抽签。"))
    ids = {e.pk for e in entries}
    seeds = {int(k): int(v) for k, v in (seeds or {}).items()}
    if set(seeds) - ids:
        raise DrawError("unknown_entry", _("种子中有不属于本项目的报名。"))
    if method == Draw.Method.PHYSICAL:
        lots = {int(k): v for k, v in (lots or {}).items()}
        if set(lots) != ids:
            missing = [e.name for e in entries if e.pk not in lots]
            raise DrawError(
                "missing_lots",
                _("每个报名都要有签号；缺少：%(names)s。") % {"names": "、".join(missing) or "—"},
            )
        seed = None
    else:
        seed = secrets.randbelow(2**53) if seed is None else int(seed)
    draw = Draw.objects.create(
        event=event,
        method=method,
        seed=seed,
        lots={str(k): v for k, v in (lots or {}).items()},
        seeds={str(k): v for k, v in seeds.items()},
        plan=plan.to_dict(),
        made_by=_user(user),
    )
    ctx = _Ctx(
        event=event, draw=draw, plan=plan, rng=random.Random(seed if seed is not None else 0)
    )
    # Units are kept apart in pairs and singles events; a team entry is its unit.
    units = None if event.entry_kind == Event.EntryKind.TEAM else {e.pk: e.unit_id for e in entries}
    order = [e.pk for e in entries]

    if plan.format == "knockout":
        if method == Draw.Method.PHYSICAL:
            slots = brackets.physical_draw(lots)
        else:
            slots = brackets.draw_knockout(order, seeds=seeds or None, units=units, rng=ctx.rng)
        name = _("预赛") if plan.qualifiers else _("淘汰赛")
        _create_knockout(ctx, slots, name=name, order=1, stop_at=plan.qualifiers)
    elif plan.format == "groups":
        if plan.groups < 1 or plan.groups * 2 > len(entries):
            raise DrawError(
                "invalid_groups",
                _("分组数不合适：%(n)s个报名分%(g)s组。") % {"n": len(entries), "g": plan.groups},
            )
        if method == Draw.Method.PHYSICAL:
            ordered = sorted(order, key=lambda pk: lots[pk])
            size = -(-len(ordered) // plan.groups)
            groups = [ordered[i * size : (i + 1) * size] for i in range(plan.groups)]
        else:
            groups = brackets.split_into_groups(
                order, plan.groups, seeds=seeds or None, units=units, rng=ctx.rng
            )
        _create_groups(ctx, groups)
    else:
        _create_swiss(ctx, order)
    draw.slots = _slots_of(ctx)
    draw.save(update_fields=["slots"])
    event.drawn_at = timezone.now()
    event.save(update_fields=["drawn_at"])
    # Only registered entries were drawn and byes are already placed: nothing to settle.
    _tables_for(Match.objects.filter(round__stage__draw=draw).select_related("round__stage__event"))
    event.bump_version()
    return draw


def _user(user):
    return user if getattr(user, "is_authenticated", False) else None


def _slots_of(ctx: _Ctx) -> list:
    first = [m for m in ctx.created if m.round.number == 1 and not m.is_third_place]
    return [pk for m in first for pk in (m.home_id, m.away_id)]


def _create_knockout(
    ctx: _Ctx, slots, *, name: str, order: int, stop_at=None, seeded=None
) -> Stage:
    plan = brackets.plan_knockout(slots, third_place=ctx.plan.third_place, stop_at=stop_at)
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
            match.result_note = _("轮空")
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


def _create_groups(ctx: _Ctx, groups: list[list[int]]) -> Stage:
    stage = Stage.objects.create(
        event=ctx.event,
        draw=ctx.draw,
        order=1,
        name=_("小组赛"),
        format=Stage.Format.GROUPS,
        settings={
            "groups": [[pk for pk in g] for g in groups],
            "advance": ctx.plan.advance,
            "points": list(ctx.plan.points),
        },
    )
    schedules = [brackets.round_robin(g) for g in groups]
    entries = {e.pk: e for e in Entry.objects.filter(pk__in=[pk for g in groups for pk in g])}
    for number in range(1, max(len(s) for s in schedules) + 1):
        rnd = Round.objects.create(stage=stage, number=number, name=_("第%(n)s轮") % {"n": number})
        for g, schedule in enumerate(schedules):
            if number > len(schedule):
                continue
            label = brackets.group_label(g)
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


def _create_swiss(ctx: _Ctx, order: list[int]) -> Stage:
    stage = Stage.objects.create(
        event=ctx.event,
        draw=ctx.draw,
        order=1,
        name=_("积分编排赛"),
        format=Stage.Format.SWISS,
        settings={
            "rounds": ctx.plan.swiss_rounds,
            "points": list(ctx.plan.points),
            "seed": ctx.draw.seed,
        },
    )
    ctx.created += _pair_swiss_round(stage, 1, order, rng=ctx.rng)
    return stage


def _pair_swiss_round(stage: Stage, number: int, order: list[int], *, rng=None) -> list[Match]:
    table = swiss_table(stage)
    players = [
        SwissPlayer(
            id=pk,
            score=table.get(pk, {}).get("match_points", 0),
            opponents=frozenset(table.get(pk, {}).get("opponents", ())),
            had_bye=table.get(pk, {}).get("byes", 0) > 0,
            tiebreak=(table.get(pk, {}).get("level_points", 0),),
        )
        for pk in order
    ]
    result = swiss_round(players, rng=rng)
    rnd = Round.objects.create(stage=stage, number=number, name=_("第%(n)s轮") % {"n": number})
    entries = {e.pk: e for e in Entry.objects.filter(pk__in=order)}
    made = []
    for index, (home, away) in enumerate(result.pairs):
        made.append(
            Match.objects.create(round=rnd, index=index, home=entries[home], away=entries[away])
        )
    if result.bye is not None:
        made.append(
            Match.objects.create(
                round=rnd,
                index=len(result.pairs),
                home=entries[result.bye],
                status=Match.Status.BYE,
                winner=HOME,
                home_score=0,
                result_note=_("轮空"),
            )
        )
    return made


@transaction.atomic
def undo_draw(*, event: Event, user=None) -> Draw:
    """Undo the draw while no result has been entered; the draw stays on record."""
    event = Event.objects.select_for_update().get(pk=event.pk)
    draw = current_draw(event)
    if draw is None:
        raise DrawError("not_drawn", _("本项目还没有抽签。"))
    played = Match.objects.filter(round__stage__draw=draw).filter(
        Q(status__in=[Match.Status.IN_PROGRESS, Match.Status.FINISHED])
        | Q(status=Match.Status.WALKOVER, result_note__startswith="manual:")
    )
    if played.exists():
        raise DrawError("results_entered", _("已有比赛结果，不能撤销抽签。"))
    Stage.objects.filter(draw=draw).delete()
    draw.undone_at, draw.undone_by = timezone.now(), _user(user)
    draw.save(update_fields=["undone_at", "undone_by"])
    event.drawn_at = None
    event.save(update_fields=["drawn_at"])
    event.bump_version()
    return draw


# --------------------------------------------------------------------------- results


@transaction.atomic
def record_result(
    *,
    match: Match,
    winner: str | None,
    home_score: int = 0,
    away_score: int = 0,
    home_level_points: float = 0,
    away_level_points: float = 0,
    note: str = "",
    user=None,
) -> Match:
    """Enter a confirmed result and move the bracket on (winners, losers, next stage)."""
    match = Match.objects.select_for_update().select_related("round__stage__event").get(pk=match.pk)
    stage = match.round.stage
    if match.is_decided:
        raise ResultError("already_decided", _("这场比赛已有结果；更正请由裁判长办理。"))
    if not (match.home_id and match.away_id):
        raise ResultError("not_ready", _("这场比赛的对阵还没有确定。"))
    if winner not in (HOME, AWAY, None):
        raise ResultError("invalid_winner", _("胜方只能是主队或客队。"))
    if winner is None and stage.format == Stage.Format.KNOCKOUT:
        raise ResultError("no_draw_in_knockout", _("淘汰赛必须决出胜负，不能平局。"))
    match.status, match.winner = Match.Status.FINISHED, winner or ""
    match.home_score, match.away_score = home_score, away_score
    match.home_level_points, match.away_level_points = home_level_points, away_level_points
    match.result_note, match.finished_at = note[:200], timezone.now()
    match.save()
    _settle([match])
    stage.event.bump_version()
    return match


@transaction.atomic
def correct_result(
    *, match: Match, winner: str, home_score: int, away_score: int, note: str = "", user=None
) -> Match:
    """A confirmed result corrected by the chief referee. The bracket is re-derived: the right
    entries move into the next matches; a next match that was already played keeps its
    record and is flagged for the chief referee (needs_review)."""
    match = Match.objects.select_for_update().select_related("round__stage__event").get(pk=match.pk)
    changed = match.winner != (winner or "")
    match.home_score, match.away_score = home_score, away_score
    match.winner = winner or ""
    match.status = Match.Status.FINISHED
    match.result_note = note[:200]
    match.save()
    if changed:
        _move_on_after_correction(match)
    match.round.stage.event.bump_version()
    return match


def _move_on_after_correction(match: Match) -> list[Match]:
    """Put the (new) winner and loser of a corrected match into the next matches. A next
    match already under way or decided keeps its record and is flagged for the chief
    referee instead (it is not rewritten)."""
    moved = []
    for target_id, side, entry in (
        (match.winner_to_id, match.winner_to_side, match.winner_entry),
        (match.loser_to_id, match.loser_to_side, match.loser_entry),
    ):
        if not target_id:
            continue
        target = Match.objects.select_for_update().get(pk=target_id)
        if target.is_decided or target.status == Match.Status.IN_PROGRESS:
            target.needs_review = True
            target.review_note = _(
                "上一场（%(m)s）的结果已更正，本场对阵应为%(e)s；请裁判长复核。"
            ) % {
                "m": str(match),
                "e": entry.name if entry else "—",
            }
            target.save(update_fields=["needs_review", "review_note"])
            continue
        setattr(target, side, entry)
        target.save(update_fields=[side])
        target.tables.filter(
            events__isnull=True
        ).delete()  # not started: rebuilt for the new pairing
        _tables_for([target])
        moved.append(target)
    _settle(moved)
    return moved


@transaction.atomic
def reopen_result(*, match: Match, home_score: int, away_score: int, note: str = "") -> Match:
    """A correction left a decided tie undecided: it is in progress again, and whoever it had
    sent on is taken back out of the next matches (or those are flagged if already played)."""
    match = Match.objects.select_for_update().select_related("round__stage__event").get(pk=match.pk)
    match.status, match.winner = Match.Status.IN_PROGRESS, ""
    match.home_score, match.away_score, match.result_note = home_score, away_score, note[:200]
    match.finished_at = None
    match.save()
    _move_on_after_correction(match)  # no winner or loser now: their places are emptied
    match.round.stage.event.bump_version()
    return match


@transaction.atomic
def entry_out(*, entry: Entry, status: str = Entry.Status.ELIMINATED, reason: str = "") -> None:
    """An entry leaves the event (弃权, withdrawal, disqualification): its open matches are
    walkovers for the opponents and it is not paired again."""
    entry = Entry.objects.select_for_update().get(pk=entry.pk)
    if entry.status == Entry.Status.REGISTERED:
        entry.status, entry.status_reason = status, reason[:200]
        entry.save(update_fields=["status", "status_reason"])
    open_matches = list(
        Match.objects.filter(Q(home=entry) | Q(away=entry))
        .exclude(status__in=[Match.Status.FINISHED, Match.Status.WALKOVER, Match.Status.BYE])
        .select_related("round__stage")
    )
    _settle(open_matches)
    entry.event.bump_version()


def _settle(matches: list[Match]) -> None:
    """Follow the consequences of decided matches until nothing more moves: winners and
    losers into their next matches, walkovers against entries that are out, the next stage
    or Swiss round when one is complete."""
    queue = list(matches)
    stages = set()
    while queue:
        match = queue.pop(0)
        match.refresh_from_db()
        if not match.is_decided:
            _walkover_if_out(match)
        if match.is_decided:
            for target, side, entry in (
                (match.winner_to_id, match.winner_to_side, match.winner_entry),
                (match.loser_to_id, match.loser_to_side, match.loser_entry),
            ):
                if target and entry is not None:
                    nxt = Match.objects.select_for_update().get(pk=target)
                    if getattr(nxt, f"{side}_id") != entry.pk:
                        setattr(nxt, side, entry)
                        nxt.save(update_fields=[side])
                        _tables_for([nxt])
                    queue.append(nxt)
        stages.add(match.round.stage_id)
    for stage in Stage.objects.filter(pk__in=stages):
        _advance_stage(stage)


def _tables_for(matches) -> None:
    """Table matches for every tie whose two entries are known (guandan events)."""
    from scoring.services import ensure_tables_for  # scoring builds on tournaments, not the reverse

    ensure_tables_for([m for m in matches if not m.is_decided])


def _walkover_if_out(match: Match) -> None:
    """A match whose entry is out of the event goes to the other entry (不战而胜)."""
    home, away = match.home, match.away
    home_out = home is not None and home.status in OUT_STATUSES
    away_out = away is not None and away.status in OUT_STATUSES
    if home_out and away_out:
        # Both gone: the home entry is carried on and gives a walkover in its next match.
        winner, note = HOME, _("双方均已退出")
    elif home_out and away is not None:
        winner, note = (
            AWAY,
            _("%(name)s%(status)s") % {"name": home.name, "status": home.get_status_display()},
        )
    elif away_out and home is not None:
        winner, note = (
            HOME,
            _("%(name)s%(status)s") % {"name": away.name, "status": away.get_status_display()},
        )
    else:
        return  # nobody out, or the other place is not known yet
    match.status, match.winner, match.result_note = Match.Status.WALKOVER, winner, note
    match.finished_at = timezone.now()
    match.save()


def _advance_stage(stage: Stage) -> None:
    """When a stage is complete, create what follows it."""
    matches = list(Match.objects.filter(round__stage=stage))
    if not matches or not all(m.is_decided for m in matches):
        return
    event, plan = stage.event, DrawPlan.from_dict(stage.draw.plan)
    if Stage.objects.filter(draw=stage.draw, order__gt=stage.order).exists():
        return
    ctx = _Ctx(
        event=event,
        draw=stage.draw,
        plan=plan,
        rng=random.Random((stage.draw.seed or 0) + stage.order),
    )
    if stage.format == Stage.Format.SWISS:
        played = stage.rounds.count()
        if played < stage.settings.get("rounds", plan.swiss_rounds):
            order = [e.pk for e in active_entries(event)]
            made = _pair_swiss_round(stage, played + 1, order, rng=None)
            _tables_for(made)
            _settle(made)
            return
        if not plan.qualifiers:
            return
        ranking = [row["entry"] for row in swiss_standings(stage)]
        qualified = [pk for pk in ranking if _is_active(pk)][: plan.qualifiers]
        slots = brackets.draw_knockout(
            qualified, seeds={pk: i + 1 for i, pk in enumerate(qualified)}, rng=ctx.rng
        )
    elif stage.format == Stage.Format.GROUPS:
        rankings = [[row.entry for row in table] for _label, table in group_tables(stage)]
        seeded = brackets.seed_from_groups(rankings, stage.settings.get("advance", plan.advance))
        slots = brackets.draw_knockout(
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
    _create_knockout(ctx, slots, name=_("决赛阶段"), order=stage.order + 1)
    _tables_for(ctx.created)
    _settle(ctx.created)


def _is_active(pk: int) -> bool:
    return Entry.objects.filter(pk=pk, status=Entry.Status.REGISTERED).exists()


# --------------------------------------------------------------------------- tables


def _results_of(matches) -> list[brackets.MatchResult]:
    results = []
    for m in matches:
        if m.status == Match.Status.BYE:
            results.append(brackets.MatchResult(m.home_id, None, m.home_id))
        elif m.is_decided and m.home_id and m.away_id:
            winner = m.home_id if m.winner == HOME else m.away_id if m.winner == AWAY else None
            results.append(
                brackets.MatchResult(
                    m.home_id, m.away_id, winner, m.home_level_points, m.away_level_points
                )
            )
    return results


def group_tables(stage: Stage, matches: list[Match] | None = None):
    """[(group label, [StandingRow …]) …] for a round-robin stage."""
    if matches is None:
        matches = list(Match.objects.filter(round__stage=stage))
    points = tuple(stage.settings.get("points", (2, 1, 0)))
    tables = []
    for g, members in enumerate(stage.settings.get("groups", [])):
        label = brackets.group_label(g)
        results = _results_of(m for m in matches if m.group == label)
        tables.append((label, brackets.standings(members, results, points=points)))
    return tables


def swiss_table(stage: Stage, matches: list[Match] | None = None) -> dict[int, dict]:
    if matches is None:
        matches = list(Match.objects.filter(round__stage=stage))
    points = stage.settings.get("points", (2, 1, 0))
    table: dict[int, dict] = {}

    def row(pk):
        return table.setdefault(
            pk, {"match_points": 0, "level_points": 0.0, "opponents": set(), "byes": 0}
        )

    for m in matches:
        if m.status == Match.Status.BYE:
            row(m.home_id)["match_points"] += points[0]
            row(m.home_id)["byes"] += 1
        elif m.is_decided and m.home_id and m.away_id:
            for pk, other, side in ((m.home_id, m.away_id, HOME), (m.away_id, m.home_id, AWAY)):
                r = row(pk)
                r["opponents"].add(other)
                r["match_points"] += (
                    points[1] if not m.winner else points[0] if m.winner == side else points[2]
                )
                r["level_points"] += m.home_level_points if side == HOME else m.away_level_points
        else:
            for pk, other in ((m.home_id, m.away_id), (m.away_id, m.home_id)):
                if pk:
                    row(pk)["opponents"].add(other)
    return table


def swiss_standings(stage: Stage, matches: list[Match] | None = None) -> list[dict]:
    """The Swiss table after the rounds played (section 10 tie-breaks)."""
    if matches is None:
        matches = list(Match.objects.filter(round__stage=stage))
    members = sorted({pk for m in matches for pk in (m.home_id, m.away_id) if pk})
    points = tuple(stage.settings.get("points", (2, 1, 0)))
    rows = brackets.standings(members, _results_of(matches), points=points)
    return [{"rank": r.rank, "entry": r.entry, "row": r} for r in rows]


# --------------------------------------------------------------------------- placings


def placings(event: Event, matches: list[Match] | None = None) -> list[tuple[int, Entry]]:
    """Final places 1–4 once known: from the final and the 季军争夺战 of the last knockout,
    or from the table of a groups/Swiss event without a knockout."""
    draw = current_draw(event)
    if draw is None:
        return []
    stages = list(draw.stages.order_by("order"))
    if not stages:
        return []
    last = stages[-1]
    if matches is None:
        matches = list(
            Match.objects.filter(round__stage=last).select_related("home", "away", "round")
        )
    else:
        matches = [m for m in matches if m.round.stage_id == last.pk]
    if last.format == Stage.Format.KNOCKOUT:
        if last.settings.get("stop_at"):
            return []
        final_round = max((m.round.number for m in matches), default=0)
        final = next(
            (m for m in matches if m.round.number == final_round and not m.is_third_place), None
        )
        third = next((m for m in matches if m.is_third_place), None)
        out = []
        if final and final.is_decided and final.winner_entry:
            out += [(1, final.winner_entry)]
            if final.loser_entry:
                out += [(2, final.loser_entry)]
        if third and third.is_decided and third.winner_entry:
            out += [(3, third.winner_entry)]
            if third.loser_entry:
                out += [(4, third.loser_entry)]
        elif final and final.is_decided and not third:
            semis = [m for m in matches if m.round.number == final_round - 1 and m.loser_entry]
            out += [(3, m.loser_entry) for m in semis]
        return out
    if (
        not all(m.is_decided for m in matches)
        or Stage.objects.filter(draw=draw, order__gt=last.order).exists()
    ):
        return []
    entries = {e.pk: e for e in event.entries.all()}
    if last.format == Stage.Format.SWISS:
        if last.rounds.count() < last.settings.get("rounds", 0):
            return []
        return [(row["rank"], entries[row["entry"]]) for row in swiss_standings(last, matches)[:4]]
    return []


# --------------------------------------------------------------------------- schedule


@transaction.atomic
def auto_schedule(*, event: Event, start, round_minutes: int, venue=None) -> None:
    """Give each round a start time and each match a venue and its first table.

    A guandan team tie takes ``pairs_per_team`` tables side by side (three tables: 1–3,
    4–6 …). When the venue has fewer tables than a round needs, the round is played in
    waves, one match length apart; the next round starts after the last wave.
    """
    import datetime as dt

    draw = current_draw(event)
    if draw is None:
        raise DrawError("not_drawn", _("本项目还没有抽签。"))
    per_match = event.pairs_per_team if event.entry_kind == Event.EntryKind.TEAM else 1
    capacity = (
        (venue.tables // per_match) if venue is not None and venue.tables >= per_match else None
    )
    at = start
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
        waves = -(-len(playable) // capacity) if capacity and playable else 1
        at += dt.timedelta(minutes=waves * round_minutes)
    event.bump_version()
