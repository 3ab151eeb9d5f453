"""Results that move a bracket: a match decided, corrected or reopened, an entry out of its event."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from tournaments.day import queue as day_queue
from tournaments.draw import progress, signals
from tournaments.draw import status as day_status
from tournaments.draw.plan import AWAY, HOME, ResultError
from tournaments.models import Entry, Match, Stage


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
    progress.settle([match])
    stage.event.bump_version()
    day_status.follow_status(stage.event.tournament)
    day_queue.after_result(match)  # a hall that calls by queue: its court is free
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
    day_status.follow_status(match.round.stage.event.tournament)
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
            if getattr(target, f"{side}_id") == (entry.pk if entry else None):
                continue  # already the right entry
            progress.flag_for_review(target, match, entry)
            continue
        setattr(target, side, entry)
        # Not started: the right entry takes the place at once, and the match's page says so.
        progress.note_new_pairing(target, match, entry)
        target.save(update_fields=[side, "review_note"])
        signals.announce([target], repaired=True)  # not started: its tables are rebuilt
        moved.append(target)
    progress.settle(moved)
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
    day_status.follow_status(match.round.stage.event.tournament)
    return match


@transaction.atomic
def replay_match(*, match: Match) -> Match:
    """作废重赛: the match is played again (its tables are voided by the caller, their record
    kept). Its places are filled again from the matches that feed it — the right entries
    after a correction — and whoever it had sent on is taken back out of the next matches
    (or those are flagged, if already played or under way)."""
    match = Match.objects.select_for_update().select_related("round__stage__event").get(pk=match.pk)
    for feeder in Match.objects.filter(Q(winner_to=match) | Q(loser_to=match)).select_related(
        "home", "away"
    ):
        for to_id, side, entry in (
            (feeder.winner_to_id, feeder.winner_to_side, feeder.winner_entry),
            (feeder.loser_to_id, feeder.loser_to_side, feeder.loser_entry),
        ):
            if to_id == match.pk:
                setattr(match, side, entry)
    match.status, match.winner = Match.Status.PENDING, ""
    match.home_score = match.away_score = 0
    match.home_level_points = match.away_level_points = 0
    match.result_note, match.finished_at = "", None
    match.needs_review = False
    match.review_note = _("本场原记录已作废，由%(tie)s重赛。") % {"tie": str(match)}
    match.save()
    _move_on_after_correction(match)  # no winner or loser now: their places are emptied
    signals.announce([match])  # its new tables, for the entries it has now
    progress.settle([match])  # a walkover if one of them is out of the event
    match.round.stage.event.bump_version()
    day_status.follow_status(match.round.stage.event.tournament)
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
    progress.settle(open_matches)
    entry.event.bump_version()
    day_status.follow_status(entry.event.tournament)
