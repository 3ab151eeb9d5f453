"""The chief referee's desk (裁判长): the whistle for a round, check-in of the pairs, and the
forfeit of the pairs still missing ten minutes after the start."""

from __future__ import annotations

import math

from django.db import transaction
from django.db.models import Min
from django.utils import timezone
from django.utils.translation import gettext as _

from guandan_cup.inputs import plain_text
from scoring import selectors
from scoring.engines.board import Words, words
from scoring.engines.common import FORFEIT_REASONS
from scoring.models import AuditEntry, CheckIn, TableMatch
from scoring.selectors import pair_name
from scoring.services import common, tables
from scoring.services.common import TableError
from tournaments.draw import results as draw_results
from tournaments.models import Match, Pair


def minutes_left(round, now=None) -> int | None:
    """Whole minutes until the round's rule-set limit, counted as the rule set says
    (``time_from``: the round's scheduled start, its first 开始, or its first deal — each
    falling back on the later, and on the schedule when no table has begun); None when
    there is no clock or no start to count from; 0 or less once the limit is reached."""
    engine = round.stage.event.scorer()
    if not engine.time_limit_minutes:
        return None
    tables = TableMatch.objects.filter(match__round=round)
    first = tables.aggregate(start=Min("start_called_at"), first_deal=Min("started_at"))
    scheduled = (
        round.starts_at
        or (
            round.matches.filter(scheduled_at__isnull=False).aggregate(at=Min("scheduled_at"))["at"]
        )
    )
    began = (
        engine.clock_start(
            scheduled=scheduled, start=first["start"], first_deal=first["first_deal"]
        )
        or scheduled  # no table has begun: the schedule says when it should have
    )
    if began is None:
        return None
    elapsed = ((now or timezone.now()) - began).total_seconds() / 60
    return math.ceil(engine.time_limit_minutes - elapsed)


@transaction.atomic
def call_time(*, round, user) -> list[TableMatch]:
    """鸣哨: time for every unfinished table of a round at the same moment. Under sudden
    death (Anhui) time_up is recorded at once; otherwise (Nantong) the deal in progress is
    played out and the deal recorded next brings time_up with it."""
    now = timezone.now()
    called = []
    open_tables = (
        TableMatch.objects.select_for_update()
        .filter(
            match__round=round,
            status=TableMatch.Status.OPEN,
            time_called_at__isnull=True,
            match__status__in=selectors.OPEN_MATCH,
        )
        .select_related("match__round__stage__event")
    )
    for table in open_tables:
        engine = table.match.round.stage.event.scorer()
        if table.is_over or not engine.records("time_up"):
            continue  # chess and the ball games are not played to a clock here
        table.time_called_at = now
        table.save(update_fields=["time_called_at"])
        at_whistle = engine.after_whistle()  # sudden death: time is up at once
        if at_whistle:
            tables.record_event(
                table=table,
                event=at_whistle[0],
                user=user,
                key=f"whistle-{round.pk}-{table.pk}",
            )
        common.audit(table, user, "whistle", words("裁判长鸣哨"))
        called.append(table)
    if called:
        round.stage.event.bump_version()  # the tables show that time was called
    return called


@transaction.atomic
def check_in(*, match: Match, pair: Pair, user=None) -> CheckIn:
    """签到: the pair is present for its tie (marked once; a second tap records nothing)."""
    if pair.entry_id not in (match.home_id, match.away_id):
        raise TableError("not_in_match", _("这一对不在这场比赛中。"))
    checkin, created = CheckIn.objects.get_or_create(
        match=match, pair=pair, defaults={"checked_in_by": user}
    )
    if created:
        common.audit(None, user, "check_in", words("签到：%(p)s", p=pair_name(pair)), match=match)
        match.round.stage.event.bump_version()
    return checkin


@transaction.atomic
def forfeit_missing(*, round, user) -> int:
    """迟到十分钟以上者判负: the chief referee records the forfeit of every missing pair."""
    count = 0
    engine = round.stage.event.scorer()
    by_table: dict[int, list] = {}
    for table, team, _pair in selectors.missing_pairs(round):
        by_table.setdefault(table.pk, []).append((table, team))
    for items in by_table.values():
        if len(items) != 1:
            continue  # both pairs absent: the chief referee decides that table by hand
        table, team = items[0]
        late = "late_over_10_min"
        tables.record_event(
            table=table,
            event=engine.forfeit(team, late),
            user=user,
            key=f"late-{round.pk}-{table.pk}",
            reason=FORFEIT_REASONS[late],  # as the referee page records it
        )
        count += 1
    return count


def _flagged_for_ruling(match: Match, reason: str) -> tuple[Match, str]:
    """The flagged match, locked, and the ruling's reason — or TableError without a reason
    or a flag (a ruling made meanwhile by someone else), or while who plays it is not known
    (a match feeding it voided and not yet replayed)."""
    reason = plain_text(reason, limit=300)
    if not reason:
        raise TableError("no_reason", _("请写明裁决理由。"))
    match = Match.objects.select_for_update().select_related("round__stage__event").get(pk=match.pk)
    if not match.needs_review:
        raise TableError("not_flagged", _("这场比赛没有待复核的问题。"))
    common.check_pairing_known(match)
    return match, reason


@transaction.atomic
def keep_with_ruling(*, match: Match, reason: str, user) -> Match:
    """维持原结果: the chief referee keeps a flagged match's result as it was played (a next
    match played before a correction changed who should have been in it) with a ruling and
    its reason — in the audit, with the pairing it was made on, and in results.pdf's
    仲裁组说明 — and the flag goes."""
    match, reason = _flagged_for_ruling(match, reason)
    note = match.review_note
    match.needs_review, match.review_note = False, ""
    match.save(update_fields=["needs_review", "review_note"])
    common.audit(
        None,
        user,
        AuditEntry.Action.RULING,
        words("维持原结果：%(note)s", note=note),
        match=match,
        reason=reason,
        before=pairing_of(match),
        after=pairing_of(match),
    )
    match.round.stage.event.bump_version()
    return match


@transaction.atomic
def void_and_replay(*, match: Match, reason: str, user) -> Match:
    """作废重赛: the chief referee voids a flagged match (played, or under way, by another
    entry than a correction upstream now sends) and has it played again by the right
    entries on new tables. The voided tables keep their events as the record (nothing is
    deleted); the ruling and its reason go in the audit (with the pairing voided, and the
    one that plays again) and results.pdf's 仲裁组说明;
    whatever the match had decided is taken back out of the next matches (those already
    played are flagged in turn)."""
    match, reason = _flagged_for_ruling(match, reason)
    before = (
        words("原对阵%(tie)s，%(score)s", tie=tie_words(match), score=_result_text(match))
        if match.status != Match.Status.PENDING
        else words("原对阵%(tie)s", tie=tie_words(match))
    )
    voided = pairing_of(match)
    TableMatch.objects.filter(match=match).update(
        voided_at=timezone.now(), voided_by=common.known_user(user)
    )
    match = draw_results.replay_match(match=match)
    common.audit(
        None,
        user,
        AuditEntry.Action.REPLAY,
        words("作废重赛：%(before)s；改由%(tie)s重赛", before=before, tie=tie_words(match)),
        match=match,
        reason=reason,
        before=voided,
        after=pairing_of(match),
    )
    return match


def pairing_of(match: Match) -> dict:
    """The match's two entries as a ruling keeps them (``AuditEntry.pairing``): each side's
    entry id and name then, or None for a side not known."""
    return {
        "pairing": {
            side: {"id": entry.pk, "name": entry.name} if entry is not None else None
            for side, entry in (
                ("home", match.home if match.home_id else None),
                ("away", match.away if match.away_id else None),
            )
        }
    }


def _result_text(match: Match) -> Words | str:
    """The voided result as read out: 2:1，行政胜 (or 进行中 for one under way)."""
    if not match.is_decided:
        return words("比赛进行中")
    winner = match.winner_entry
    text = f"{match.home_score}:{match.away_score}"
    return words("%(score)s，%(name)s胜", score=text, name=winner.name) if winner else text


def tie_words(match: Match) -> Words:
    """A tie by its two entries, as the audit keeps it (体育——行政); a side not known yet
    is 待定 (轮空 in a bye)."""
    unknown = words("轮空") if match.status == Match.Status.BYE else words("待定")
    return words(
        "%(home)s——%(away)s",
        home=match.home.name if match.home_id else unknown,
        away=match.away.name if match.away_id else unknown,
    )
