"""The players' link (扫码录分): where the tournament lets the players enter results
(``Tournament.result_entry``), every QR code that leads to a table opens that table's entry
for the players at it, on any phone, without an account.

The link carries the table, the day it is valid for and a keyed hash of both (HMAC with the
server's SECRET_KEY): nothing secret is stored, so a copy of the database opens no table,
and a link cannot be made for another table or day without the key. It opens exactly its
table and does there what a referee does, deal by deal, except penalties, forfeits and
disqualification (the players call the referee); once the table is confirmed, locked by the
chief referee, or the tournament goes back to referees' entry, it enters nothing.

The rest of the players' way is here too: the call for the referee (呼叫裁判, 有异议), its
resolution, a submitted result sent back for correction (退回重录), and the chief referee's
lock. Submitting and confirming are the tables' own writes (``tables.submit_table`` and
``tables.confirm_table`` with the side).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.crypto import constant_time_compare, salted_hmac
from django.utils.translation import gettext as _

from guandan_cup.inputs import plain_text
from scoring.engines.board import words
from scoring.models import TableCall, TableMatch
from scoring.services import common
from scoring.services.common import TableError
from tournaments.links.services import SHANGHAI, default_day
from tournaments.models import Tournament

# 128 bits of the keyed hash, in hex: short enough for a dense QR code on a score sheet.
SIGNATURE_LENGTH = 32
CODE = re.compile(r"^(?P<table>[1-9][0-9]{0,11})-(?P<day>[0-9]{8})-(?P<sig>[0-9a-f]{32})$")
_SALT = "guandan_cup.scoring.players-link"


def _signature(table_id: int, day: dt.date) -> str:
    return salted_hmac(_SALT, f"{table_id}:{day.isoformat()}", algorithm="sha256").hexdigest()[
        :SIGNATURE_LENGTH
    ]


def link_day(tournament: Tournament, now: dt.datetime | None = None) -> dt.date:
    """The day a link made now is valid for: the tournament's day, or today once that day
    has passed (a sheet printed on the day itself)."""
    return default_day(tournament, now)


def make_code(table: TableMatch, now: dt.datetime | None = None) -> str:
    """The table's link code for its players, valid to the end of its day."""
    day = link_day(table.match.round.stage.event.tournament, now)
    return f"{table.pk}-{day:%Y%m%d}-{_signature(table.pk, day)}"


@dataclass(frozen=True)
class Code:
    table_id: int
    day: dt.date


def read_code(code: str) -> Code | None:
    """The table and day a code names if its hash is right; None for anything else."""
    found = CODE.match(code or "")
    if found is None:
        return None
    try:
        day = dt.datetime.strptime(found["day"], "%Y%m%d").date()
    except ValueError:
        return None
    table_id = int(found["table"])
    if not constant_time_compare(found["sig"], _signature(table_id, day)):
        return None
    return Code(table_id, day)


def refusal(table: TableMatch, day: dt.date, now: dt.datetime | None = None) -> str:
    """Why the link enters nothing at this table now ("" when it may): what the page says
    instead of the buttons."""
    tournament = table.match.round.stage.event.tournament
    today = (now or timezone.now()).astimezone(SHANGHAI).date()
    if tournament.result_entry == Tournament.ResultEntry.REFEREES:
        return _("本比赛的结果由裁判录入：请把结果告诉本台裁判。")
    if today > day:
        return _("这个二维码已过期（只在比赛当天有效）；请找裁判。")
    if table.voided_at is not None:
        return _("这一台的记录已作废（作废重赛），本场改在新台进行；请找裁判。")
    if table.players_locked_at is not None:
        return _("裁判长已锁定这一台，选手不能再录入；请找裁判。")
    if table.status == TableMatch.Status.CONFIRMED:
        return _("这一台的结果已确认，二维码不能再录入；更正请找裁判长。")
    if table.status == TableMatch.Status.NOT_PLAYED:
        return _("本场胜负已由其他两台决出，这一台不再进行，无需录入。")
    if not (table.match.home_id and table.match.away_id):
        return _("本场对阵还没有确定，暂不能录入。")
    return ""


# --------------------------------------------------------------------------- calls


def call_referee(*, table: TableMatch, side: str, kind: str, note: str = "", key: str) -> bool:
    """The players call the referee to the table (有异议 about the submitted result, or a
    ruling the link cannot make). Returns False when this key had already called (a resend).
    """
    key = common.phone_key(key)
    if not key:
        raise TableError("no_key", _("缺少提交标识，请刷新页面后重试。"))
    if side not in ("", "A", "B"):
        raise TableError("invalid_side", _("请选择是哪一方呼叫裁判。"))
    if kind not in TableCall.Kind.values:
        raise TableError("invalid_call", _("请选择呼叫裁判的原因。"))
    note = plain_text(note, limit=200)
    try:
        with transaction.atomic():
            TableCall.objects.create(table=table, kind=kind, side=side, note=note, key=key)
    except IntegrityError:
        return False
    who = words("%(side)s方选手", side=side) if side else words("本台选手")
    what = words(
        "%(who)s呼叫裁判：%(why)s", who=who, why=common.label_words(TableCall.Kind(kind).label)
    )
    common.audit(
        table,
        None,
        "call",
        words("%(what)s（%(note)s）", what=what, note=note) if note else what,
        by_players=True,
    )
    common.announce(table.match.round.stage.event)
    return True


def resolve_call(*, call: TableCall, user) -> None:
    """An official has come to the table and dealt with the call."""
    with transaction.atomic():
        done = TableCall.objects.filter(pk=call.pk, resolved_at__isnull=True).update(
            resolved_at=timezone.now(), resolved_by=common.known_user(user)
        )
        if not done:
            raise TableError("resolved", _("这次呼叫已经处理过了。"))
        common.audit(
            call.table,
            user,
            "call_resolved",
            words("已处理呼叫：%(why)s", why=common.label_words(TableCall.Kind(call.kind).label)),
        )
    common.announce(call.table.match.round.stage.event)  # the table's page drops the call


@common.announce_after
def reopen(*, table: TableMatch, user, expected_version: int | None) -> TableMatch:
    """退回重录: an official sends a submitted result back to be entered again (the players
    disagree and the record is wrong). The record stays; the calls stay open until the
    result is confirmed, so the official who corrects it may confirm it."""
    table = common.locked(table)
    common.check_version(table, expected_version)
    if table.status != TableMatch.Status.SUBMITTED:
        raise TableError("not_submitted", _("只有已提交、尚未确认的结果才能退回重录。"))
    table.status = TableMatch.Status.OPEN
    table.submitted_by = table.submitted_at = None
    table.submitted_side = ""
    table.save_new_version("status", "submitted_by", "submitted_at", "submitted_side")
    common.audit(table, user, "reopen", words("退回重录：结果改回进行中，可撤销或补录后重新提交"))
    return table


# --------------------------------------------------------------------------- the lock


@common.announce_after
def set_lock(*, table: TableMatch, user, locked: bool) -> TableMatch:
    """The chief referee locks a table (its players' link then enters nothing) or lifts it."""
    table = common.locked(table)
    if locked == (table.players_locked_at is not None):
        return table
    table.players_locked_at = timezone.now() if locked else None
    table.players_locked_by = common.known_user(user) if locked else None
    table.save_new_version("players_locked_at", "players_locked_by")
    common.audit(
        table,
        user,
        "lock" if locked else "unlock",
        words("锁定：选手扫码不能再录入这一台") if locked else words("解除锁定：选手可以扫码录入"),
    )
    return table


def entry_words(table: TableMatch) -> str:
    """Who entered and who confirmed the table's result, for the score sheet and the page:
    "A方选手扫码录入，B方选手确认", "裁判录入，裁判确认" …; "" before it is submitted."""
    if table.status not in (TableMatch.Status.SUBMITTED, TableMatch.Status.CONFIRMED):
        return ""
    if table.submitted_side:
        entered = _("%(side)s方选手扫码录入") % {"side": table.submitted_side}
    else:
        entered = _("裁判录入")
    if table.status == TableMatch.Status.SUBMITTED:
        return entered + _("，待确认")
    if table.confirmed_side:
        confirmed = _("%(side)s方选手确认") % {"side": table.confirmed_side}
    else:
        confirmed = _("裁判确认")
    return entered + _("，") + confirmed
