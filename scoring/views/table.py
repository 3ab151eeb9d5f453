"""The referee's table page (录入): a table's entry page on a phone, which spectators see
update itself, its QR code, and every action a referee or the chief referee takes on it."""

from __future__ import annotations

import io
import json
import uuid
from functools import wraps

import segno
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.cache import patch_cache_control
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST, require_safe

from scoring import entries
from scoring.engines.common import FORFEIT_REASONS
from scoring.models import Report, TableMatch
from scoring.selectors import table_roles
from scoring.services import confirmation, corrections, players, reports, tables
from scoring.services.common import TableError, worded
from scoring.table_page import (
    ACTIONS,
    STAFF_ACTIONS,
    Done,
    action_urls,
    answer,
    load_table,
    page_version,
    table_page_data,
)
from tournaments.access import can_enter_table, check_not_hidden
from tournaments.live.http import POLL_SECONDS, live_response
from tournaments.models import Tournament


def _table(
    slug: str, event_slug: str, table_id: int, request, *, write: bool = False
) -> TableMatch:
    """The table with everything its page shows, in two small queries (a referee's every
    tap reads it) — for a ``write``, with what the user may do at it and what the page
    shows beside the record; drafts only for staff."""
    table = load_table(
        TableMatch.objects,
        user=request.user if write else None,
        counts=write,
        pk=table_id,
        match__round__stage__event__tournament__slug=slug,
        match__round__stage__event__slug=event_slug,
    )
    check_not_hidden(request.user, table.match.round.stage.event.tournament)
    return table


def _context(
    request,
    table: TableMatch,
    *,
    chief: bool | None = None,
    can_enter: bool | None = None,
    flash: str = "",
    problem: str = "",
    kept: dict | None = None,
) -> dict:
    """The page's reads (``table_page_data``) and what belongs to this one answer: a fresh
    idempotency key for the next tap, the message of the tap just made, the words of the
    forfeit reasons in the reader's language, the poll and the QR code's address."""
    event = table.match.round.stage.event
    return {
        **table_page_data(table, request.user, chief=chief, can_enter=can_enter),
        "urls": _urls(table),
        "key": uuid.uuid4().hex,
        "flash": flash,
        "problem": problem,
        "kept": kept or {},
        "places": entries.PLACES,
        "forfeit_reasons": {code: _(label) for code, label in FORFEIT_REASONS.items()},
        "qr_url": reverse("scoring:table-qr", args=[event.tournament.slug, event.slug, table.pk]),
        "poll_seconds": POLL_SECONDS,
    }


def _urls(table: TableMatch) -> dict[str, str]:
    event = table.match.round.stage.event
    return action_urls(
        "scoring:", [event.tournament.slug, event.slug, table.pk], ACTIONS + STAFF_ACTIONS
    )


@require_safe
@live_response("table", htmx_only=True, spectators_only=True, tie_of="table_id")
def table_page(request: HttpRequest, slug: str, event_slug: str, table_id: int) -> HttpResponse:
    """The referee's entry page; spectators see the same table update itself."""
    try:
        table = _table(slug, event_slug, table_id, request)
    except Http404:
        moved = _replayed_at(slug, event_slug, table_id)
        if moved is None:
            raise
        messages.info(request, _("这一台的记录已作废（作废重赛），本场改在新台进行。"))
        return redirect(moved)
    template = "scoring/table.html#table_panel" if request.htmx else "scoring/table.html"
    return render(request, template, _context(request, table))


def _replayed_at(slug: str, event_slug: str, table_id: int) -> str | None:
    """Where a voided table's tie is played again (作废重赛): the new table of the same
    place in the tie, else the tie's page; None when the table was never voided."""
    voided = (
        TableMatch.kept.filter(
            pk=table_id,
            voided_at__isnull=False,
            match__round__stage__event__tournament__slug=slug,
            match__round__stage__event__slug=event_slug,
            match__round__stage__draw__undone_at__isnull=True,
        )
        .select_related("match__round__stage__event__tournament")
        .first()
    )
    if voided is None or not voided.match.round.stage.event.tournament.is_public:
        return None
    again = TableMatch.objects.filter(match=voided.match, number=voided.number).first()
    if again is not None:
        return reverse("scoring:table", args=[slug, event_slug, again.pk])
    return reverse("live:match", args=[slug, event_slug, voided.match_id])


@require_safe
def table_qr(request: HttpRequest, slug: str, event_slug: str, table_id: int) -> HttpResponse:
    table = _table(slug, event_slug, table_id, request)
    response = HttpResponse(table_qr_svg(request, table), content_type="image/svg+xml")
    # An official's code may be the table's players' link: kept by no cache.
    patch_cache_control(response, private=True, no_store=True)
    return response


def table_entry_url(request, table: TableMatch) -> str:
    """Where the table's QR code leads: for the officials of a tournament whose players enter
    results, the table's players' link (they show it at the table); else its page."""
    event = table.match.round.stage.event
    if event.tournament.result_entry != Tournament.ResultEntry.REFEREES and (
        can_enter_table(request.user, table)
    ):
        return request.build_absolute_uri(
            reverse("scoring:play-table", args=[players.make_code(table)])
        )
    return request.build_absolute_uri(
        reverse("scoring:table", args=[event.tournament.slug, event.slug, table.pk])
    )


def table_qr_svg(request, table: TableMatch) -> str:
    """The QR code that opens a table's entry page (printed on its score sheet)."""
    buffer = io.BytesIO()
    segno.make(table_entry_url(request, table), error="m").save(
        buffer, kind="svg", scale=4, border=2
    )
    return buffer.getvalue().decode("utf-8")


def may_press_confirm(user, table, chief: bool) -> bool:
    """Who may post a confirmation: of a submitted result only those the button is shown to
    (a second official, or the referee's phone for the opposing pair); before submission
    the officials and the table's referee, who are told it is not submitted yet."""
    if table.status == TableMatch.Status.SUBMITTED:
        return confirmation.may_confirm(user, table) or bool(
            confirmation.opponents_may_confirm(user, table)
        )
    tournament = table.match.round.stage.event.tournament
    return confirmation.is_official(user, tournament) or can_enter_table(user, table, chief=chief)


def referee_action(*, chief_only: bool = False, allow=None):
    """Login, the table (404 if not in this event), 403 unless the user may enter it (or
    ``allow(user, table, chief)`` says so), POST only; the view returns a flash message or
    what it wrote (``Done``), or raises TableError; the page is rendered again from what
    the write left (``answer``)."""

    def decorate(view):
        @login_required
        @require_POST
        @wraps(view)
        def wrapper(request, slug, event_slug, table_id, **kwargs):
            table = _table(slug, event_slug, table_id, request, write=True)
            chief, enters = table_roles(request.user, table)
            if allow is not None:
                allowed = allow(request.user, table, chief)
            else:
                allowed = chief if chief_only else enters
            if not allowed:
                raise PermissionDenied("Not your table.")
            from_desk = request.POST.get("back") == "desk"
            return answer(
                request,
                table,
                lambda: view(request, table, **kwargs),
                lambda shown, **words: _context(
                    request, shown, chief=chief, can_enter=enters, **words
                ),
                # The desk's own buttons (锁定) come back to the desk.
                reverse("scoring:desk", args=[slug])
                if from_desk
                else reverse("scoring:table", args=[slug, event_slug, table.pk]),
                again_here=not from_desk,
                # The chief's panel (its audit) changes with every write: answered whole.
                in_part=None if chief else lambda: _urls(table),
            )

        return wrapper

    return decorate


def _record(
    request, table, event: dict, *, reason: str = "", reported_by: str = "", part: bool = False
) -> Done:
    """Record ``event`` on the table with the phone's key and page version: the one way
    the referee pages record an event. The flash says so when it was a resend. ``part``:
    what it changes on the page is the board and the record (a deal from the deal pad), so
    it may be answered in part (``scoring.table_page.answered_in_part``); a game or a point
    changes its sport's own entry form and a penalty its form, answered whole."""
    written, text, created = tables.record_event(
        table=table,
        event=event,
        user=request.user,
        key=request.POST.get("key", ""),
        expected_version=page_version(request),
        reason=reason,
        reported_by=reported_by,
    )
    said = worded(text)
    if not created:
        return Done(_("（已记录过，未重复记录）") + said, written)
    return Done(said, written, part=part, same_counts=True)


def _recorded(request, table, entry: entries.Entry, *, part: bool = False) -> Done:
    return _record(
        request,
        table,
        entry.payload,
        reason=entry.reason,
        reported_by=entry.reported_by,
        part=part,
    )


def _engine(table):
    return table.match.round.stage.event.scorer()


@referee_action()
def record_deal(request, table):
    return _recorded(request, table, entries.deal(request.POST, _engine(table)), part=True)


@referee_action()
def record_game(request, table):
    """One whole game: a rally game's score or a chess game's result and first move."""
    return _recorded(request, table, entries.game(request.POST, _engine(table)))


@referee_action()
def record_point(request, table):
    """Point by point (羽毛球/乒乓球): the rally's winner."""
    return _recorded(request, table, entries.point(request.POST, _engine(table)))


@referee_action()
def record_first_server(request, table):
    """猜先: who serves first in the match."""
    return _recorded(request, table, entries.first_server(request.POST, _engine(table)))


@referee_action()
def record_penalty(request, table):
    entry = entries.penalty(request.POST, _engine(table))
    if entry.final and request.POST.get("confirm") != "1":
        raise TableError(
            "unconfirmed", _("取消比赛资格不可撤回：请勾选“确认取消比赛资格”后再提交。")
        )
    return _recorded(request, table, entry)


@referee_action()
def start(request, table):
    """开始: the table's clock starts now (rule sets whose time limit counts from it)."""
    written = tables.start_table(
        table=table, user=request.user, expected_version=page_version(request)
    )
    return Done(_("已宣布开始，开始计时。"), written)


@referee_action()
def record_time_up(request, table):
    return _recorded(request, table, entries.time_up(request.POST, _engine(table)))


@referee_action()
def record_forfeit(request, table):
    entry = entries.forfeit(request.POST, _engine(table))
    if request.POST.get("confirm") != "1":
        raise TableError("unconfirmed", _("判负不可撤回：请勾选“确认判负”后再提交。"))
    return _recorded(request, table, entry)


@referee_action()
def undo(request, table):
    written = tables.undo_last(
        table=table, user=request.user, expected_version=page_version(request)
    )
    return Done(_("已撤销上一条记录。"), written)


@referee_action()
def submit(request, table):
    written = tables.submit_table(
        table=table, user=request.user, expected_version=page_version(request)
    )
    return Done(_("结果已提交，等待确认。"), written)


@referee_action()
def report(request, table):
    entries.needs(_engine(table), "penalty")  # three upheld reports cost levels
    reports.add_report(
        table=table,
        team=request.POST.get("team", ""),
        description=request.POST.get("description", ""),
        reported_by=request.POST.get("reported_by", ""),
        user=request.user,
        key=request.POST.get("key", ""),
    )
    return _("举报已记录，等待仲裁组裁定。")


@referee_action(allow=may_press_confirm)
def confirm(request, table):
    side = request.POST.get("opponents", "")
    written = tables.confirm_table(
        table=table,
        user=request.user,
        expected_version=page_version(request),
        opponents=side if side in ("A", "B") else "",
    )
    return Done(_("结果已确认。"), written)


@referee_action(chief_only=True)
def rule_report(request, table, report_id: int):
    item = get_object_or_404(Report, pk=report_id, table=table)
    pending = reports.rule_report(
        report=item, upheld=request.POST.get("upheld") == "yes", user=request.user
    )
    if pending >= reports.UPHELD_REPORTS_FOR_A_DEDUCTION:
        return _("已有三次举报属实：建议扣级。")
    return _("已裁定。")


@referee_action(chief_only=True)
def report_deduction(request, table):
    entries.needs(_engine(table), "penalty")
    written = reports.apply_report_deduction(
        table=table,
        team=request.POST.get("team", ""),
        user=request.user,
        key=request.POST.get("key", ""),
        expected_version=page_version(request),
    )
    return Done(_("已按三次举报属实扣级。"), written)


@referee_action(chief_only=True)
def correct(request, table):
    version = page_version(request)
    try:
        events = json.loads(request.POST.get("events", ""))
    except (ValueError, RecursionError):  # not JSON, a 5,000-digit number, nesting too deep
        raise TableError("invalid_json", _("更正的记录格式不对（须为JSON列表）。")) from None
    if not isinstance(events, list):
        raise TableError("invalid_json", _("更正的记录格式不对（须为JSON列表）。"))
    written = corrections.correct_table(
        table=table,
        events=events,
        reason=request.POST.get("reason", ""),
        user=request.user,
        expected_version=version,
    )
    return Done(_("记录已更正。"), written)


@referee_action()
def resolve_call(request, table):
    """An official has come to the table: its calls for the referee are dealt with (a
    disputed result is then confirmed, or sent back to be entered again)."""
    calls = list(confirmation.open_calls(table))
    if not calls:
        raise TableError("no_call", _("这一台没有待处理的呼叫。"))
    for call in calls:
        players.resolve_call(call=call, user=request.user)
    return _("已处理呼叫。")


@referee_action()
def reopen(request, table):
    written = players.reopen(table=table, user=request.user, expected_version=page_version(request))
    return Done(_("已退回重录：请撤销或补录后重新提交，再确认结果。"), written)


@referee_action(chief_only=True)
def lock(request, table):
    locked = request.POST.get("locked") != "0"
    written = players.set_lock(table=table, user=request.user, locked=locked)
    return Done(_("已锁定：选手扫码不能再录入这一台。") if locked else _("已解除锁定。"), written)
