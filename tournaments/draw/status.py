"""The tournament's status follows what happened: 已抽签 when every event is drawn, 比赛中 at
the first result, 已结束 when every event has its placings — and back only where that is
safe (an undone draw, a reopened tie). The organiser moves it only between 草稿, 报名中 and
报名截止, and never back to 草稿 once anything is drawn (:func:`move_by_hand`).

:func:`follow_status` is called after every write that can change it: the draw made or
undone, a result recorded, corrected or reopened, an entry out, and (from scoring) a tie's
first recorded deal or game.
"""

from __future__ import annotations

from django.db.models import Q
from django.utils.translation import gettext as _

from guandan_cup.errors import UserError
from tournaments.draw.selectors import current_draw, placings
from tournaments.models import Draw, Event, Match, Tournament

# The statuses the facts decide; the organiser's buttons never reach them.
FOLLOWED = (Tournament.Status.DRAWN, Tournament.Status.RUNNING, Tournament.Status.FINISHED)
# The organiser's buttons on the dashboard: each the status it sets and where it may start.
BY_HAND_MOVES = {
    "open": (
        Tournament.Status.REGISTRATION_OPEN,
        {Tournament.Status.DRAFT, Tournament.Status.REGISTRATION_CLOSED},
    ),
    "close": (Tournament.Status.REGISTRATION_CLOSED, {Tournament.Status.REGISTRATION_OPEN}),
    "draft": (
        Tournament.Status.DRAFT,
        {Tournament.Status.REGISTRATION_OPEN, Tournament.Status.REGISTRATION_CLOSED},
    ),
}


# Statuses the organiser sets by hand (草稿 → 报名中 → 报名截止 and back).
BY_HAND = tuple(target for target, _starts in BY_HAND_MOVES.values())


class StatusError(UserError):
    """A status change the organiser may not make now."""


def move_by_hand(tournament: Tournament, move: str, *, confirmed: bool = False) -> str:
    """The organiser opens registration (``open``), closes it (``close``) or takes the
    tournament back to a draft (``draft``, hidden from everyone: only ``confirmed``, and never
    once anything is drawn). Returns the status now; raises :class:`StatusError`."""
    target, starts = BY_HAND_MOVES.get(move, (None, ()))
    if target is None or tournament.status not in starts:
        raise StatusError(
            "not_now",
            _("当前状态（%(status)s）下不能这样操作。")
            % {"status": tournament.get_status_display()},
        )
    if move == "draft" and anything_drawn(tournament):
        raise StatusError("drawn", _("已有项目抽签，比赛不能再撤回为草稿。"))
    if move == "draft" and not confirmed:
        raise StatusError("unconfirmed", _("撤回为草稿须先勾选“确认撤回为草稿”。"))
    Tournament.objects.filter(pk=tournament.pk).update(status=target)
    tournament.status = target
    tournament.bump_event_versions()  # public or not, registration open or closed
    return target


def _current_matches(tournament: Tournament):
    return Match.objects.filter(
        round__stage__draw__event__tournament=tournament,
        round__stage__draw__undone_at__isnull=True,
    )


def played(matches):
    """Ties with a result or a result under way: not a bye, not a walkover the draw made."""
    return matches.filter(
        Q(status__in=[Match.Status.IN_PROGRESS, Match.Status.FINISHED])
        | Q(status=Match.Status.WALKOVER, result_note__startswith="manual:")
    )


def event_finished(event: Event, matches: list[Match] | None = None) -> bool:
    """Every tie of the event's draw is decided and its placings are known."""
    draw = current_draw(event)
    if draw is None:
        return False
    if matches is None:
        matches = list(
            Match.objects.filter(round__stage__draw=draw).select_related("home", "away", "round")
        )
    if not matches or not all(m.is_decided for m in matches):
        return False
    return bool(placings(event, matches))


def reached(tournament: Tournament) -> str | None:
    """The status the facts give (已结束, 比赛中, 已抽签), or None before every event is drawn."""
    events = list(tournament.events.all())
    if not events:
        return None
    drawn = set(
        Draw.objects.filter(event__tournament=tournament, undone_at__isnull=True).values_list(
            "event_id", flat=True
        )
    )
    matches = _current_matches(tournament)
    if not played(matches).exists():
        return Tournament.Status.DRAWN if len(drawn) == len(events) else None
    if (
        len(drawn) == len(events)
        and not matches.exclude(
            status__in=[Match.Status.FINISHED, Match.Status.WALKOVER, Match.Status.BYE]
        ).exists()
    ):
        by_event: dict[int, list[Match]] = {}
        for match in matches.select_related("home", "away", "round__stage"):
            by_event.setdefault(match.round.stage.event_id, []).append(match)
        if all(event_finished(e, by_event.get(e.pk, [])) for e in events):
            return Tournament.Status.FINISHED
    return Tournament.Status.RUNNING


def follow_status(tournament: Tournament) -> str:
    """Set the status the facts give; when they give none any more (a draw undone), a
    followed status goes back to 报名截止. Returns the status now."""
    tournament = Tournament.objects.get(pk=tournament.pk)
    status = reached(tournament)
    if status is None:
        status = (
            Tournament.Status.REGISTRATION_CLOSED
            if tournament.status in FOLLOWED
            else tournament.status
        )
    if status != tournament.status:
        Tournament.objects.filter(pk=tournament.pk).update(status=status)
        tournament.status = status
        tournament.bump_event_versions()  # every page shows the status
    return status


def anything_drawn(tournament: Tournament) -> bool:
    return Draw.objects.filter(event__tournament=tournament, undone_at__isnull=True).exists()


def draw_refusal(tournament: Tournament) -> str | None:
    """Why the organiser may not draw now, or None: the draw follows registration."""
    if tournament.status == Tournament.Status.DRAFT:
        return _("比赛还是草稿：请先开放报名，报名截止后再抽签。")
    if tournament.registration_is_open():
        return _("报名还在进行中：请先在总览中截止报名，再抽签。")
    return None


def started(tournament: Tournament) -> None:
    """A tie's first deal or game was recorded: the tournament is 比赛中 (one UPDATE, and
    nothing more when it already is)."""
    moved = (
        Tournament.objects.filter(pk=tournament.pk)
        .exclude(status__in=[Tournament.Status.RUNNING, Tournament.Status.FINISHED])
        .update(status=Tournament.Status.RUNNING)
    )
    if moved:
        tournament.status = Tournament.Status.RUNNING
        tournament.bump_event_versions()
