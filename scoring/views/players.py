"""The players' link (扫码录分): a table's entry page for the players at it, opened from the
table's QR code without an account (``scoring.services.players`` says what the link is and
when it enters nothing). It posts to its own addresses, under the link, and reaches no
other table and no staff page: whatever the phone's login, what it records is the players'.
"""

from __future__ import annotations

import uuid
from functools import wraps

import segno
from django.contrib.auth.models import AnonymousUser
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST, require_safe

from guandan_cup.throttle import link_failed, link_locked, lockout_minutes
from scoring import entries
from scoring.models import TableMatch
from scoring.services import confirmation, players, tables
from scoring.services.common import TableError, worded
from scoring.table_page import (
    ACTIONS,
    Done,
    action_urls,
    answer,
    load_table,
    page_version,
    table_page_data,
)
from tournaments.live.http import POLL_SECONDS

PLAYER_ACTIONS = (*ACTIONS, "confirm", "call")


def _no_table(request: HttpRequest, status: int, problem: str) -> HttpResponse:
    return render(request, "scoring/play_refused.html", {"problem": problem}, status=status)


def _open(request: HttpRequest, code: str):
    """(table, code) of the link, or the page that refuses it: too many wrong codes from
    this address (429), a code that is not a table's (404, counted as a failed login)."""
    if link_locked(request):
        return None, _no_table(
            request,
            429,
            _("这台设备输错二维码的次数过多，已暂时锁定，请%(minutes)s分钟后再试，或找裁判。")
            % {"minutes": lockout_minutes()},
        )
    found = players.read_code(code)
    table = _load(found.table_id) if found is not None else None
    if table is None or not table.match.round.stage.event.tournament.is_public:
        link_failed(request)
        return None, _no_table(
            request, 404, _("这个二维码无效：请扫描记分表或桌卡上的二维码，或找裁判。")
        )
    return (table, found), None


def _load(table_id: int) -> TableMatch | None:
    try:
        return load_table(TableMatch.kept, pk=table_id)
    except Http404:  # no such table, or its draw was undone
        return None


def _context(
    request, table: TableMatch, found, code: str, *, flash="", problem="", kept=None
) -> dict:
    refusal = players.refusal(table, found.day)
    data = table_page_data(table, AnonymousUser(), chief=False)
    calls = list(confirmation.open_calls(table))
    submitted_by_players = table.status == TableMatch.Status.SUBMITTED and table.submitted_side
    url = request.build_absolute_uri(reverse("scoring:play-table", args=[code]))
    confirm_side = (
        confirmation.other_side(table.submitted_side)
        if submitted_by_players and not calls and not refusal
        else ""
    )
    return {
        **data,
        "can_enter": not refusal,
        "players": {
            "refusal": refusal,
            "calls": calls,
            "confirm_side": confirm_side,
            "confirm_name": data["home_name"] if confirm_side == "A" else data["away_name"],
            "entry_words": players.entry_words(table),
            "qr": segno.make(url, error="m").svg_inline(scale=4, border=2, svgclass="qr-code"),
        },
        "urls": action_urls("scoring:play-", [code], PLAYER_ACTIONS),
        "key": uuid.uuid4().hex,
        "flash": flash,
        "problem": problem,
        "kept": kept or {},
        "places": entries.PLACES,
        "poll_seconds": POLL_SECONDS,
    }


@never_cache
@require_safe
def page(request: HttpRequest, code: str) -> HttpResponse:
    opened, refused = _open(request, code)
    if refused:
        return refused
    table, found = opened
    context = _context(request, table, found, code)
    template = "scoring/table.html#table_panel" if request.htmx else "scoring/table.html"
    response = render(request, template, context)
    response["X-Robots-Tag"] = "noindex"
    return response


def player_action(view):
    """The link (refused as :func:`page` refuses it), POST only, and nothing entered once
    the link enters nothing (:func:`players.refusal`); the view makes the write, the panel
    is answered as the referees' is."""

    @never_cache
    @require_POST
    @wraps(view)
    def wrapper(request, code):
        opened, refused = _open(request, code)
        if refused:
            return refused
        table, found = opened

        def write():
            refusal = players.refusal(table, found.day)
            if refusal:
                raise TableError("link_closed", refusal)
            return view(request, table)

        return answer(
            request,
            table,
            write,
            lambda shown, **words: _context(request, shown, found, code, **words),
            reverse("scoring:play-table", args=[code]),
        )

    return wrapper


def _recorded(request, table, entry: entries.Entry) -> Done:
    written, text, created = tables.record_event(
        table=table,
        event=entry.payload,
        key=request.POST.get("key", ""),
        expected_version=page_version(request),
        by_players=True,
    )
    said = worded(text)
    return Done(said if created else _("（已记录过，未重复记录）") + said, written)


def _engine(table):
    return table.match.round.stage.event.scorer()


@player_action
def record_deal(request, table):
    return _recorded(request, table, entries.deal(request.POST, _engine(table)))


@player_action
def record_game(request, table):
    return _recorded(request, table, entries.game(request.POST, _engine(table)))


@player_action
def record_point(request, table):
    return _recorded(request, table, entries.point(request.POST, _engine(table)))


@player_action
def record_first_server(request, table):
    return _recorded(request, table, entries.first_server(request.POST, _engine(table)))


@player_action
def record_time_up(request, table):
    return _recorded(request, table, entries.time_up(request.POST, _engine(table)))


@player_action
def undo(request, table):
    written = tables.undo_last(table=table, expected_version=page_version(request), by_players=True)
    return Done(_("已撤销上一条记录。"), written)


@player_action
def submit(request, table):
    side = request.POST.get("side", "")
    if side not in ("A", "B"):
        raise TableError("invalid_side", _("请选择是哪一方提交结果。"))
    written = tables.submit_table(table=table, expected_version=page_version(request), side=side)
    return Done(
        _("结果已提交：请交给对方（%(other)s方）核对并确认。")
        % {"other": confirmation.other_side(side)},
        written,
    )


@player_action
def confirm(request, table):
    written = tables.confirm_table(
        table=table,
        user=None,
        expected_version=page_version(request),
        side=request.POST.get("side", ""),
    )
    return Done(_("结果已确认。"), written)


@player_action
def call(request, table):
    called = players.call_referee(
        table=table,
        side=request.POST.get("side", ""),
        kind=request.POST.get("kind", ""),
        note=request.POST.get("note", ""),
        key=request.POST.get("key", ""),
    )
    if not called:
        return _("（已呼叫过，未重复呼叫）") + _("已呼叫裁判，请在本台等候。")
    return _("已呼叫裁判，请在本台等候。")
