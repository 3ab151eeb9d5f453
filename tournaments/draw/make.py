"""The draw (抽签) made and undone, in one transaction each."""

from __future__ import annotations

import random
import secrets

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from guandan_cup.inputs import known_user
from guandan_cup.words import listing
from tournaments.draw import progress, signals
from tournaments.draw import status as day_status
from tournaments.draw.plan import DrawPlan
from tournaments.draw.rules import groups as group_rules
from tournaments.draw.rules import knockout
from tournaments.draw.rules.common import KNOCKOUT_STAGE_NAME, QUALIFYING_STAGE_NAME, DrawError
from tournaments.draw.selectors import active_entries, current_draw
from tournaments.models import Draw, Event, Match, Stage


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
                _("每个报名都要有签号；缺少：%(names)s。") % {"names": listing(missing) or "—"},
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
        made_by=known_user(user),
    )
    ctx = progress.BuildContext(
        event=event, draw=draw, plan=plan, rng=random.Random(seed if seed is not None else 0)
    )
    # Units are kept apart in pairs and singles events; a team entry is its unit.
    units = None if event.entry_kind == Event.EntryKind.TEAM else {e.pk: e.unit_id for e in entries}
    order = [e.pk for e in entries]

    if plan.format == "knockout":
        if method == Draw.Method.PHYSICAL:
            slots = knockout.physical_draw(lots)
        else:
            slots = knockout.draw_knockout(order, seeds=seeds or None, units=units, rng=ctx.rng)
        name = QUALIFYING_STAGE_NAME if plan.qualifiers else KNOCKOUT_STAGE_NAME
        progress.create_knockout(ctx, slots, name=name, order=1, stop_at=plan.qualifiers)
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
            groups = group_rules.split_into_groups(
                order, plan.groups, seeds=seeds or None, units=units, rng=ctx.rng
            )
        progress.create_groups(ctx, groups)
    else:
        progress.create_swiss(ctx, entries)
    draw.slots = progress.slots_of(ctx)
    draw.save(update_fields=["slots"])
    event.drawn_at = timezone.now()
    event.save(update_fields=["drawn_at"])
    # Only registered entries were drawn and byes are already placed: nothing to settle.
    signals.announce(
        Match.objects.filter(round__stage__draw=draw).select_related("round__stage__event")
    )
    event.bump_version()
    day_status.follow_status(event.tournament)
    return draw


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
    draw.undone_at, draw.undone_by = timezone.now(), known_user(user)
    draw.save(update_fields=["undone_at", "undone_by"])
    event.drawn_at = None
    event.save(update_fields=["drawn_at"])
    event.bump_version()
    day_status.follow_status(event.tournament)
    return draw
