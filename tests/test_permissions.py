"""The permission matrix: every URL that writes × every role → the expected answer.

One table (``MATRIX``) drives the tests and docs/permissions.md. Every URL pattern of the
site is listed as read-only or writing; a new pattern in neither list fails, and so does a
writing one without a POST row. Each cell is a real request on a small world (the Nantong
demo, in play, and a tournament open for registration), run in a savepoint that is rolled
back, so every cell starts from the same data. For a writing row, ``done`` tells whether
the write happened: it must after every ✓ of a POST, and never after a GET or a refusal.

To rewrite the table in docs/permissions.md after changing the matrix:
    UPDATE_PERMISSIONS_DOC=1 .venv/bin/python -m pytest tests/test_permissions.py -k doc
"""

from __future__ import annotations

import datetime as dt
import io
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.test import Client, override_settings
from django.urls import URLResolver, get_resolver, resolve, reverse
from django.utils import timezone

from scoring.models import CheckIn, Report, TableCall, TableEvent, TableMatch
from scoring.services import players
from scoring.services.desk import check_in
from scoring.services.players import call_referee
from scoring.services.reports import add_report, rule_report
from scoring.services.tables import ensure_tables, record_event, submit_table
from scoring.tests.utils import assign_referee
from tournaments.draw.make import draw_event
from tournaments.links.services import SHANGHAI, leader_invite_create, login_link_create
from tournaments.models import (
    Draw,
    Entry,
    Event,
    LoginLink,
    Match,
    Official,
    Player,
    SheetBuild,
    Tournament,
    Unit,
    Venue,
)
from tournaments.registration.services import EntryForm, PersonForm, register_entries

User = get_user_model()
PASSWORD = "Matrix-Password-2026"
DOC = Path(settings.BASE_DIR) / "docs" / "permissions.md"

# Columns, in order. "Another" means: of the same tournament, but not the one the URL is
# about (another unit's leader, the referee of another tie of the same round).
ROLES = (
    "anonymous",
    "spectator",
    "other_leader",
    "leader",
    "other_referee",
    "referee",
    "chief",
    "organiser",
    "superuser",
)
ROLE_TITLES = {
    "anonymous": "anonymous",
    "spectator": "spectator account (no role)",
    "other_leader": "team leader of another unit",
    "leader": "team leader (of this unit)",
    "other_referee": "referee of another table",
    "referee": "referee (of this table)",
    "chief": "chief referee",
    "organiser": "organiser",
    "superuser": "superuser",
}
OUTCOMES = {"ok", "login", "403", "404", "405"}

# Expectations, one word per role in ROLES order.
EVERYONE = "ok ok ok ok ok ok ok ok ok"
LOGGED_IN = "login ok ok ok ok ok ok ok ok"
LEADER = "login 403 403 ok 403 403 403 ok ok"
ORGANISER = "login 403 403 403 403 403 403 ok ok"
REFEREE = "login 403 403 403 403 ok ok ok ok"
CHIEF = "login 403 403 403 403 403 ok ok ok"
STAFF = "login login login login login login login login ok"
# POST-only URLs asked with GET: refused before or after the role check, never run.
LOGGED_IN_405 = "login 405 405 405 405 405 405 405 405"
ORGANISER_405 = "login 403 403 403 403 403 403 405 405"
NOT_FOUND = "login 404 404 404 404 404 404 404 404"
# A draft's pages and documents: only its organisers and staff know it exists.
DRAFT_ONLY = "404 404 404 404 404 404 404 ok ok"


# --------------------------------------------------------------------------- the world


def fresh(obj):
    return type(obj).objects.get(pk=obj.pk)


def _world() -> SimpleNamespace:
    from tournaments.ops.demo import DEMOS, _load

    w = SimpleNamespace()
    w.nantong = _load(next(d for d in DEMOS if d.slug == "nantong-2014"))
    w.event = w.nantong.events.get(slug="guandan")
    first_round = list(
        Match.objects.filter(round__stage__event=w.event, round__number=1)
        .exclude(status=Match.Status.BYE)
        .order_by("index")
    )
    w.match, w.other_match = first_round[0], first_round[1]
    for match in (w.match, w.other_match):
        ensure_tables(match)
    w.table = TableMatch.objects.get(match=w.match, number=1)
    w.round = w.match.round

    w.reg = Tournament.objects.create(
        slug="reg-cup",
        name="报名杯",
        organiser_name="测试工会",
        notice_title="关于举行报名杯的通知",
        notice_text="一、比赛时间",
        starts_on=timezone.now().astimezone(SHANGHAI).date() + dt.timedelta(days=30),
        registration_deadline=timezone.now() + dt.timedelta(days=20),
        status=Tournament.Status.REGISTRATION_OPEN,
    )
    w.pairs = Event.objects.create(
        tournament=w.reg,
        slug="pairs",
        name="掼蛋双人赛",
        discipline=Event.Discipline.GUANDAN_PAIRS,
        ruleset="nantong2014",
    )
    w.unit = Unit.objects.create(tournament=w.reg, name="体育", kind=Unit.Kind.UNION_GROUP)
    w.other_unit = Unit.objects.create(tournament=w.reg, name="行政", kind=Unit.Kind.UNION_GROUP)
    register_entries(
        event=w.pairs,
        organiser=True,
        forms=[
            EntryForm(unit="体育", pairs=[(PersonForm("赵一", "男"), PersonForm("钱二", "女"))]),
            EntryForm(unit="行政", pairs=[(PersonForm("孙三", "男"), PersonForm("李四", "女"))]),
        ],
    )
    w.entry = Entry.objects.get(event=w.pairs, unit=w.unit)
    w.spare_unit = Unit.objects.create(tournament=w.reg, name="后勤", kind=Unit.Kind.UNION_GROUP)
    w.venue = Venue.objects.create(tournament=w.reg, name="大厅", tables=10)

    users = {role: User.objects.create_user(role, password=PASSWORD) for role in ROLES[1:]}
    users["anonymous"] = None
    User.objects.filter(pk=users["superuser"].pk).update(is_superuser=True, is_staff=True)
    users["superuser"].refresh_from_db()
    User.objects.create_user("login-test", password=PASSWORD)
    w.users = users
    for tournament, leads in ((w.nantong, ("体育", "行政")), (w.reg, ("体育", "行政"))):
        tournament.units.get(name=leads[0]).leaders.add(users["leader"])
        tournament.units.get(name=leads[1]).leaders.add(users["other_leader"])
    for tournament, name, role, who in (
        (w.nantong, "裁判甲", Official.Role.REFEREE, "referee"),
        (w.nantong, "裁判乙", Official.Role.REFEREE, "other_referee"),
        (w.nantong, "裁判长甲", Official.Role.CHIEF_REFEREE, "chief"),
        (w.nantong, "文体委员", Official.Role.ORGANISER, "organiser"),
        (w.reg, "文体委员", Official.Role.ORGANISER, "organiser"),
    ):
        Official.objects.create(tournament=tournament, name=name, role=role, user=users[who])
    # A referee without a login yet: one-time login links are made for them.
    w.new_referee = Official.objects.create(
        tournament=w.nantong, name="裁判丁", role=Official.Role.REFEREE
    )
    assign_referee(Match.objects.filter(pk=w.match.pk), users["referee"])
    assign_referee(Match.objects.filter(pk=w.other_match.pk), users["other_referee"])
    # A badminton match of the same day, refereed by the same referee: the chess and rally
    # entry URLs (a game, a rally, the first server).
    w.badminton = Event.objects.create(
        tournament=w.nantong, slug="badminton", name="羽毛球", discipline=Event.Discipline.BADMINTON
    )
    for name, unit in (("周羽", "体育"), ("吴球", "行政")):
        unit = w.nantong.units.get(name=unit)
        player = Player.objects.create(tournament=w.nantong, unit=unit, name=name)
        Entry.objects.create(event=w.badminton, unit=unit, name=name, player=player)
    draw_event(event=w.badminton, seed=1)
    w.sport_match = Match.objects.get(
        round__stage__event=w.badminton, home__isnull=False, away__isnull=False
    )
    assign_referee(Match.objects.filter(pk=w.sport_match.pk), users["referee"])
    w.sport_table = TableMatch.objects.get(match=w.sport_match)
    return w


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker):
    """Built once for the module inside a transaction that is rolled back at its end; each
    test (pytest-django's ``db``) and each cell (a savepoint) roll back to it."""
    hashers = override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"])
    hashers.enable()
    with django_db_blocker.unblock():
        outer = transaction.atomic()
        outer.__enter__()
        built = _world()
    yield built
    with django_db_blocker.unblock():
        transaction.set_rollback(True)
        outer.__exit__(None, None, None)
    hashers.disable()


# --------------------------------------------------------------------------- URL arguments


def _match_in_first_venue(w) -> dict:
    Match.objects.filter(pk=w.table.match_id).update(venue=w.nantong.venues.first())
    return {}


def _day_fingerprint(w) -> str:
    from tournaments.day.services import propose

    return propose(w.nantong).fingerprint


def _nantong(w):
    return {"slug": w.nantong.slug}


def _table(w):
    return {"slug": w.nantong.slug, "event_slug": w.event.slug, "table_id": w.table.pk}


def _sport_table(w):
    return {"slug": w.nantong.slug, "event_slug": w.badminton.slug, "table_id": w.sport_table.pk}


def _round(w):
    return {"slug": w.nantong.slug, "round_id": w.round.pk}


def _play(w):
    """The players' link of the table (扫码录分)."""
    return {"code": players.make_code(fresh(w.table))}


def _play_sport(w):
    return {"code": players.make_code(fresh(w.sport_table))}


def _flagged_match(w):
    return {"slug": w.nantong.slug, "match_id": w.match.pk}


def _flag(w):
    """The tie flagged for the chief referee after a correction (needs_review)."""
    Match.objects.filter(pk=w.match.pk).update(needs_review=True, review_note="本场对阵应为…")


def _reg(w):
    return {"slug": w.reg.slug}


def _reg_event(w):
    return {"slug": w.reg.slug, "event_slug": w.pairs.slug}


def _nantong_draft(w):
    """Nantong set back to a draft, as the organiser's status button does (its events'
    versions bumped: the live pages' stamps forget that it was public)."""
    w.nantong.status = Tournament.Status.DRAFT
    w.nantong.save(update_fields=["status"])
    w.nantong.bump_event_versions()


def _nantong_event(w):
    return {"slug": w.nantong.slug, "event_slug": w.event.slug}


# The URL arguments of every named pattern (admin URLs are given as paths in their rows).
ARGS: dict[str, Callable] = {
    "set_language": lambda w: {},
    "login": lambda w: {},
    "logout": lambda w: {},
    "accounts-home": lambda w: {},
    "accounts-logout-everywhere": lambda w: {},
    "accounts-login-link": lambda w: {"token": "unknown"},
    "password_change": lambda w: {},
    "password_change_done": lambda w: {},
    "tournaments:list": lambda w: {},
    "tournaments:detail": _nantong,
    "tournaments:notice-pdf": _nantong,
    "documents:results-pdf": _nantong,
    "documents:results-png": _nantong,
    "documents:standings-pdf": _nantong,
    "documents:standings-png": _nantong,
    "documents:day-pdf": _nantong,
    "standings:page": _nantong,
    "standings:json": _nantong,
    "documents:draw-pdf": _nantong_event,
    "documents:bracket-pdf": _nantong_event,
    "documents:bracket-png": _nantong_event,
    "documents:scoresheets-pdf": _nantong_event,
    "documents:scoresheets": _nantong_event,
    "documents:scoresheets-file": lambda w: {**_nantong_event(w), "build_id": 0},
    "live:bracket": _nantong_event,
    "live:screen": _nantong_event,
    "scoring:board": _nantong_event,
    "healthz": lambda w: {},
    "service-worker": lambda w: {},
    "readyz": lambda w: {},
    "live:bracket-json": _nantong_event,
    "live:match": lambda w: {**_nantong_event(w), "match_id": w.match.pk},
    "live:match-json": lambda w: {**_nantong_event(w), "match_id": w.match.pk},
    "scoring:table": _table,
    "scoring:table-qr": _table,
    "scoring:deal": _table,
    "scoring:game": _sport_table,
    "scoring:point": _sport_table,
    "scoring:first-server": _sport_table,
    "scoring:penalty": _table,
    "scoring:time-up": _table,
    "scoring:start": _table,
    "scoring:forfeit": _table,
    "scoring:undo": _table,
    "scoring:submit": _table,
    "scoring:report": _table,
    "scoring:confirm": _table,
    "scoring:rule-report": lambda w: {**_table(w), "report_id": 0},
    "scoring:report-deduction": _table,
    "scoring:correct": _table,
    "scoring:correction": _table,
    "scoring:ruling": _flagged_match,
    "scoring:replay": _flagged_match,
    "scoring:resolve-call": _table,
    "scoring:reopen": _table,
    "scoring:lock": _table,
    "scoring:play-table": _play,
    "scoring:play-deal": _play,
    "scoring:play-game": _play_sport,
    "scoring:play-point": _play_sport,
    "scoring:play-first-server": _play_sport,
    "scoring:play-time-up": _play,
    "scoring:play-undo": _play,
    "scoring:play-submit": _play,
    "scoring:play-confirm": _play,
    "scoring:play-call": _play,
    "documents:tablecards-pdf": _nantong_event,
    "scoring:desk": _nantong,
    "scoring:my-tables": _nantong,
    "scoring:whistle": _round,
    "scoring:checkin": _round,
    "scoring:audit": _nantong,
    "registration:home": _reg,
    "registration:unit": lambda w: {"slug": w.reg.slug, "unit_id": w.unit.pk},
    "registration:add-entry": lambda w: {
        "slug": w.reg.slug,
        "unit_id": w.unit.pk,
        "event_slug": w.pairs.slug,
    },
    "registration:unit-form": lambda w: {
        "slug": w.reg.slug,
        "unit_id": w.unit.pk,
        "event_slug": w.pairs.slug,
    },
    "registration:unit-import": lambda w: {
        "slug": w.reg.slug,
        "unit_id": w.unit.pk,
        "event_slug": w.pairs.slug,
    },
    "registration:entry-edit": lambda w: {"slug": w.reg.slug, "entry_id": w.entry.pk},
    "registration:withdraw": lambda w: {"slug": w.reg.slug, "entry_id": w.entry.pk},
    "manage:dashboard": _reg,
    "manage:status": _reg,
    "manage:settings": _reg,
    "manage:event-new": _reg,
    "manage:event-edit": _reg_event,
    "manage:units": _reg,
    "manage:unit-edit": lambda w: {"slug": w.reg.slug, "unit_id": w.spare_unit.pk},
    "manage:unit-delete": lambda w: {"slug": w.reg.slug, "unit_id": w.spare_unit.pk},
    "manage:add-leader": lambda w: {"slug": w.reg.slug, "unit_id": w.unit.pk},
    "links:leader-invite": lambda w: {"slug": w.reg.slug, "unit_id": w.unit.pk},
    "manage:entries": _reg,
    "manage:officials": _reg,
    "manage:reset-password": lambda w: {"slug": w.reg.slug, "user_id": w.users["other_leader"].pk},
    "manage:entries-template": _reg_event,
    "manage:entries-export": _reg_event,
    "manage:entries-import": _reg_event,
    "links:list": _nantong,
    "links:revoke": lambda w: {"slug": w.nantong.slug, "link_id": 0},
    "setup:new": lambda w: {},
    "setup:copy": _reg,
    "setup:venues": _reg,
    "setup:venue-edit": lambda w: {"slug": w.reg.slug, "venue_id": w.venue.pk},
    "setup:venue-delete": lambda w: {"slug": w.reg.slug, "venue_id": w.venue.pk},
    "draw:draw": _reg_event,
    "draw:undo": _nantong_event,
    "draw:schedule": _nantong_event,
    "day:plan": _nantong,
    "day:timeline": _nantong,
    "day:json": _nantong,
    "day:hall-screen": lambda w: {"slug": w.nantong.slug, "venue_id": w.nantong.venues.first().pk},
    "day:queue": lambda w: {"slug": w.nantong.slug, "venue_id": w.nantong.venues.first().pk},
}

# Every pattern of the site, by what it does. Read-only URLs answer 405 to a POST (checked
# below), so a view that starts writing cannot stay in this list unnoticed.
PUBLIC = {
    "healthz",
    "service-worker",
    "standings:page",
    "standings:json",
    # a unit's day: public read-only; its leader also gets the registration controls
    "registration:unit",
    "readyz",
    "live:screen",
    "tournaments:list",
    "tournaments:detail",
    "tournaments:notice-pdf",
    "documents:results-pdf",
    "documents:day-pdf",
    "documents:draw-pdf",
    "documents:bracket-pdf",
    "documents:scoresheets-pdf",
    # a round's score sheets built in the background: their page, the finished file (below)
    "documents:scoresheets",
    "documents:scoresheets-file",
    # the pictures to share: each its PDF's permission (the rows below)
    "documents:results-png",
    "documents:standings-pdf",
    "documents:standings-png",
    "documents:bracket-png",
    "live:bracket",
    "live:bracket-json",
    "live:match",
    "live:match-json",
    "scoring:table",
    "scoring:table-qr",
    # the players' link: anyone holding a table's code (the rows below)
    "scoring:play-table",
    "day:timeline",
    "day:json",
    "day:hall-screen",
}
READ_ONLY = PUBLIC | {
    # behind a login (their rows are in the matrix too)
    "accounts-home",
    "password_change_done",
    "registration:home",
    "manage:dashboard",
    "manage:entries",
    "manage:entries-template",
    "manage:entries-export",
    "registration:unit-form",
    "scoring:desk",
    "scoring:board",
    "scoring:audit",
    "scoring:my-tables",
    "documents:tablecards-pdf",
}
WRITING = {
    "admin",  # the whole Django admin (its own staff permissions)
    "set_language",
    "login",
    "logout",
    "accounts-logout-everywhere",
    "accounts-login-link",
    "password_change",
    "scoring:deal",
    "scoring:game",
    "scoring:point",
    "scoring:first-server",
    "scoring:penalty",
    "scoring:time-up",
    "scoring:start",
    "scoring:forfeit",
    "scoring:undo",
    "scoring:submit",
    "scoring:report",
    "scoring:confirm",
    "scoring:rule-report",
    "scoring:report-deduction",
    "scoring:correct",
    "scoring:correction",
    "scoring:ruling",
    "scoring:replay",
    "scoring:whistle",
    "scoring:checkin",
    "scoring:resolve-call",
    "scoring:reopen",
    "scoring:lock",
    "scoring:play-deal",
    "scoring:play-game",
    "scoring:play-point",
    "scoring:play-first-server",
    "scoring:play-time-up",
    "scoring:play-undo",
    "scoring:play-submit",
    "scoring:play-confirm",
    "scoring:play-call",
    "registration:add-entry",
    "registration:entry-edit",
    "registration:withdraw",
    "manage:status",
    "manage:settings",
    "manage:event-new",
    "manage:event-edit",
    "manage:units",
    "manage:unit-edit",
    "manage:unit-delete",
    "manage:add-leader",
    "manage:officials",
    "manage:reset-password",
    "manage:entries-import",
    "registration:unit-import",
    "setup:new",
    "setup:copy",
    "setup:venues",
    "setup:venue-edit",
    "setup:venue-delete",
    "links:list",
    "links:revoke",
    "links:leader-invite",
    "draw:draw",
    "draw:undo",
    "draw:schedule",
    "day:plan",
    "day:queue",
}


# --------------------------------------------------------------------------- preparing


def _deal(w):
    record_event(
        table=fresh(w.table), event={"order": list("AABB")}, user=w.users["referee"], key="p-1"
    )
    return {}


def _played(w):
    _deal(w)
    record_event(table=fresh(w.table), event={"time_up": True}, user=w.users["referee"], key="p-2")
    return {}


def _submitted(w):
    _played(w)
    submit_table(table=fresh(w.table), user=w.users["referee"])
    return {}


def _players_enter(w):
    Tournament.objects.filter(pk=w.nantong.pk).update(result_entry="players")
    return {}


def _players_dealt(w):
    _players_enter(w)
    record_event(table=fresh(w.table), event={"order": list("AABB")}, key="pl-1", by_players=True)
    return {}


def _players_played(w):
    _players_dealt(w)
    record_event(table=fresh(w.table), event={"time_up": True}, key="pl-2", by_players=True)
    return {}


def _players_submitted(w):
    _players_played(w)
    submit_table(table=fresh(w.table), side="A")
    return {}


def _forged_code(w):
    """The table's signature on another table's number: the link of no table."""
    _players_enter(w)
    _number, day, signature = players.make_code(fresh(w.table)).split("-")
    return {"code": f"{w.sport_table.pk}-{day}-{signature}"}


def _sheets(w, players_links: bool) -> dict:
    """A finished build of the event's score sheets (its file a stand-in)."""
    if players_links:
        _players_enter(w)
    build = SheetBuild.objects.create(
        event=w.event,
        players_links=players_links,
        language="zh-hans",
        base_url="http://testserver",
        made_on=timezone.localdate(),
        version=fresh(w.event).version,
        state=SheetBuild.State.DONE,
        pdf=b"%PDF-1.4 sheets",
    )
    return {"build_id": build.pk}


def _officials_sheets(w):
    return _sheets(w, players_links=True)


def _public_sheets(w):
    return _sheets(w, players_links=False)


def _called(w):
    call_referee(table=fresh(w.table), side="A", kind="help", key="m-call")
    return {}


def _report(w):
    report = add_report(table=fresh(w.table), team="A", description="偷看", user=w.users["referee"])
    return {"report_id": report.pk}


def _three_upheld(w):
    _deal(w)
    for n in range(3):
        report = add_report(
            table=fresh(w.table), team="A", description=f"违规{n}", user=w.users["referee"]
        )
        rule_report(report=report, upheld=True, user=w.users["chief"])
    return {}


def _home_pair_present(w):
    table = fresh(w.table)
    check_in(match=table.match, pair=table.home_pair, user=w.users["chief"])
    return {}


def _link(w):
    link, token = login_link_create(official=w.new_referee, created_by=w.users["chief"])
    w.prepared_link = link
    return {"link_id": link.pk, "token": token}


def _invite(w):
    link, token = leader_invite_create(unit=w.spare_unit, created_by=w.users["organiser"])
    w.prepared_link = link
    return {"slug": w.reg.slug, "link_id": link.pk, "token": token}


def _events(w):
    return list(
        TableEvent.objects.filter(table=w.table, undone_at__isnull=True).values_list(
            "payload", flat=True
        )
    )


def _sport_events(w):
    return list(
        TableEvent.objects.filter(table=w.sport_table, undone_at__isnull=True).values_list(
            "payload", flat=True
        )
    )


def _import_file(w) -> io.BytesIO:
    from openpyxl import load_workbook

    from tournaments.registration.spreadsheets.template import template_workbook

    book = load_workbook(io.BytesIO(template_workbook(w.pairs)))
    book.worksheets[0].append(["体育", "周五", "男", "吴六", "女", ""])
    out = io.BytesIO()
    book.save(out)
    out.seek(0)
    out.name = "报名表.xlsx"
    return out


def _close_registration(w):
    Tournament.objects.filter(pk=w.reg.pk).update(status=Tournament.Status.REGISTRATION_CLOSED)
    return {}


def _tomorrow():
    return (timezone.now().astimezone(SHANGHAI).date() + dt.timedelta(days=1)).isoformat()


# --------------------------------------------------------------------------- the matrix


@dataclass(frozen=True)
class Row:
    method: str
    name: str  # the URL pattern's name ("admin" for the admin site)
    expect: str  # one outcome per role, in ROLES order
    note: str = ""  # a variant of the same URL ("a unit of another tournament")
    data: Callable | dict = field(default_factory=dict)
    prepare: Callable | None = None  # sets the stage; returns extra URL arguments
    done: Callable | None = None  # did the write happen?
    path: Callable | None = None  # for URLs outside ARGS (the admin)
    htmx: bool = False

    @property
    def id(self) -> str:
        return f"{self.method} {self.name}" + (f" ({self.note})" if self.note else "")

    def outcomes(self) -> dict[str, str]:
        words = self.expect.split()
        assert len(words) == len(ROLES) and set(words) <= OUTCOMES, self.id
        return dict(zip(ROLES, words, strict=True))


MATRIX: list[Row] = [
    # ----------------------------------------------------------------- accounts
    Row(
        "POST",
        "login",
        EVERYONE,
        data={"username": "login-test", "password": PASSWORD},
        note="right password",
    ),
    Row("POST", "logout", EVERYONE),
    Row("GET", "logout", "405 405 405 405 405 405 405 405 405"),
    Row("POST", "set_language", EVERYONE, data={"language": "en", "next": "/"}),
    Row("GET", "accounts-home", LOGGED_IN),
    Row("POST", "accounts-logout-everywhere", LOGGED_IN),
    Row("GET", "accounts-logout-everywhere", LOGGED_IN_405),
    Row("GET", "password_change", LOGGED_IN),
    Row(
        "POST",
        "password_change",
        LOGGED_IN,
        data={
            "old_password": PASSWORD,
            "new_password1": "Another-Strong-2026",
            "new_password2": "Another-Strong-2026",
        },
    ),
    Row("GET", "password_change_done", LOGGED_IN),
    Row(
        "GET",
        "accounts-login-link",
        EVERYONE,
        prepare=_link,
        done=lambda w: fresh(w.prepared_link).used_at is not None,
        note="shows a button, uses nothing",
    ),
    Row(
        "POST",
        "accounts-login-link",
        EVERYONE,
        prepare=_link,
        done=lambda w: fresh(w.prepared_link).used_at is not None,
    ),
    Row("GET", "admin", STAFF, path=lambda w: reverse("admin:index"), note="admin:index"),
    Row(
        "POST",
        "admin",
        STAFF,
        path=lambda w: reverse("admin:tournaments_unit_delete", args=[w.spare_unit.pk]),
        data={"post": "yes"},
        done=lambda w: not Unit.objects.filter(pk=w.spare_unit.pk).exists(),
        note="delete a unit",
    ),
    # ----------------------------------------------------------------- registration
    Row("GET", "registration:home", "login 403 ok ok 403 403 403 ok ok"),
    # A unit's day is public (issue 18); only its leader and the organisers see the controls.
    Row("GET", "registration:unit", EVERYONE),
    Row("GET", "standings:page", EVERYONE),
    Row("GET", "standings:json", EVERYONE),
    # ----------------------------------------------------------------- pictures to share
    *(
        Row("GET", name, EVERYONE)
        for name in (
            "documents:bracket-png",
            "documents:results-png",
            "documents:standings-png",
            "documents:standings-pdf",
        )
    ),
    *(
        Row("GET", name, DRAFT_ONLY, note="a draft tournament", prepare=_nantong_draft)
        for name in (
            "documents:bracket-png",
            "documents:results-png",
            "documents:standings-png",
            "documents:standings-pdf",
        )
    ),
    Row(
        "POST",
        "registration:add-entry",
        LEADER,
        data={
            "pairs-p1_1_name": "周五",
            "pairs-p1_1_gender": "男",
            "pairs-p1_2_name": "吴六",
            "pairs-p1_2_gender": "女",
        },
        done=lambda w: Entry.objects.filter(event=w.pairs, unit=w.unit).count() == 2,
    ),
    Row(
        "POST",
        "registration:add-entry",
        NOT_FOUND,
        note="a unit of another tournament",
        prepare=lambda w: {"unit_id": w.nantong.units.get(name="体育").pk},
        data={"pairs-p1_1_name": "周五", "pairs-p1_2_name": "吴六"},
    ),
    Row("GET", "registration:add-entry", LOGGED_IN_405),
    Row("GET", "registration:unit-form", LEADER, note="the unit's own Excel form"),
    Row("GET", "registration:unit-import", LEADER),
    Row(
        "POST",
        "registration:unit-import",
        LEADER,
        data=lambda w: {"file": _import_file(w)},
        note="the unit's own form, for the preview",
    ),
    Row("GET", "registration:entry-edit", LEADER),
    Row(
        "POST",
        "registration:entry-edit",
        LEADER,
        data={
            "p1_1_name": "赵一",
            "p1_1_gender": "男",
            "p1_2_name": "王七",
            "p1_2_gender": "女",
        },
        done=lambda w: "王七" in fresh(w.entry).name,
    ),
    Row(
        "POST",
        "registration:entry-edit",
        NOT_FOUND,
        note="an entry of another tournament",
        prepare=lambda w: {"entry_id": Entry.objects.filter(event=w.event).first().pk},
        data={"p1_1_name": "赵一"},
    ),
    Row(
        "POST",
        "registration:withdraw",
        LEADER,
        data={"reason": "因病退赛"},
        done=lambda w: fresh(w.entry).status == Entry.Status.WITHDRAWN,
    ),
    Row("GET", "registration:withdraw", LOGGED_IN_405),
    # ----------------------------------------------------------------- organisers
    Row("GET", "manage:dashboard", ORGANISER),
    Row(
        "POST",
        "manage:status",
        ORGANISER,
        data={"action": "close"},
        done=lambda w: fresh(w.reg).status == Tournament.Status.REGISTRATION_CLOSED,
    ),
    Row("GET", "manage:status", ORGANISER_405),
    Row("GET", "manage:settings", ORGANISER),
    Row(
        "POST",
        "manage:settings",
        ORGANISER,
        data=lambda w: {
            "name": "改名杯",
            "organiser_name": w.reg.organiser_name,
            "starts_on": w.reg.starts_on.isoformat(),
            "notice_title": w.reg.notice_title,
            "notice_text": w.reg.notice_text,
            "certificate_title": w.reg.certificate_title,
            "certificate_text": w.reg.certificate_text,
            "confirmation": w.reg.confirmation,
        },
        done=lambda w: fresh(w.reg).name == "改名杯",
    ),
    Row("GET", "manage:event-new", ORGANISER),
    Row(
        "POST",
        "manage:event-new",
        ORGANISER,
        data={
            "name": "象棋",
            "slug": "xiangqi",
            "discipline": "xiangqi",
            "pairs_per_team": "1",
            "order": "1",
        },
        done=lambda w: w.reg.events.filter(slug="xiangqi").exists(),
    ),
    Row("GET", "manage:event-edit", ORGANISER),
    Row(
        "POST",
        "manage:event-edit",
        ORGANISER,
        data={
            "name": "双人赛",
            "slug": "pairs",
            "discipline": "guandan_pairs",
            "entry_kind": "pair",
            "pairs_per_team": "1",
            "ruleset": "nantong2014",
            "order": "0",
        },
        done=lambda w: fresh(w.pairs).name == "双人赛",
    ),
    Row("GET", "manage:units", ORGANISER),
    Row(
        "POST",
        "manage:units",
        ORGANISER,
        data={"name": "工会", "kind": "union_group"},
        done=lambda w: w.reg.units.filter(name="工会").exists(),
    ),
    Row("GET", "manage:unit-edit", ORGANISER),
    Row(
        "POST",
        "manage:unit-edit",
        ORGANISER,
        data={"name": "后勤处", "kind": "office"},
        done=lambda w: fresh(w.spare_unit).name == "后勤处",
    ),
    Row(
        "POST",
        "manage:unit-edit",
        "login 403 403 403 403 403 403 404 404",
        note="a unit of another tournament",
        prepare=lambda w: {"unit_id": w.nantong.units.get(name="后勤").pk},
        data={"name": "后勤处", "kind": "office"},
    ),
    Row(
        "POST",
        "manage:unit-delete",
        ORGANISER,
        data={"confirm": "1"},
        done=lambda w: not Unit.objects.filter(pk=w.spare_unit.pk).exists(),
    ),
    Row("GET", "manage:unit-delete", ORGANISER_405),
    Row(
        "POST",
        "manage:add-leader",
        ORGANISER,
        data={"username": "new-leader", "password": "Leader-Pass-2026"},
        done=lambda w: w.unit.leaders.filter(username="new-leader").exists(),
    ),
    Row("GET", "manage:add-leader", ORGANISER_405),
    Row(
        "POST",
        "links:leader-invite",
        ORGANISER,
        data={"name": "领队甲"},
        done=lambda w: w.unit.leaders.filter(first_name="领队甲").exists(),
    ),
    Row("GET", "links:leader-invite", ORGANISER_405),
    Row(
        "POST",
        "manage:reset-password",
        ORGANISER,
        data={"confirm": "1"},
        done=lambda w: not fresh(w.users["other_leader"]).check_password(PASSWORD),
    ),
    Row("GET", "manage:reset-password", ORGANISER_405),
    Row("GET", "manage:entries", ORGANISER),
    Row("GET", "manage:officials", ORGANISER),
    Row(
        "POST",
        "manage:officials",
        ORGANISER,
        data={"name": "新裁判", "role": "referee"},
        done=lambda w: w.reg.officials.filter(name="新裁判").exists(),
    ),
    Row("GET", "manage:entries-template", ORGANISER),
    Row("GET", "manage:entries-export", ORGANISER),
    Row("GET", "manage:entries-import", ORGANISER),
    Row(
        "POST",
        "manage:entries-import",
        ORGANISER,
        data=lambda w: {"file": _import_file(w)},
        note="upload for the preview",
    ),
    Row("GET", "setup:new", ORGANISER, note="who organises a tournament starts another"),
    Row(
        "POST",
        "setup:new",
        ORGANISER,
        data={
            "name": "新杯",
            "slug": "new-cup",
            "organiser_name": "测试工会",
            "starts_on": "2027-05-01",
            "notice_title": "关于举行新杯的通知",
            "notice_text": "一、比赛时间",
            "confirmation": "official",
        },
        done=lambda w: Tournament.objects.filter(slug="new-cup").exists(),
    ),
    Row("GET", "setup:copy", ORGANISER),
    Row(
        "POST",
        "setup:copy",
        ORGANISER,
        data={
            "slug": "reg-cup-next",
            "name": "报名杯（下一届）",
            "notice_title": "关于举行下一届报名杯的通知",
            "starts_on": "2027-05-01",
        },
        done=lambda w: Tournament.objects.filter(slug="reg-cup-next").exists(),
    ),
    Row("GET", "setup:venues", ORGANISER),
    Row(
        "POST",
        "setup:venues",
        ORGANISER,
        data={"name": "二楼", "tables": "12"},
        done=lambda w: w.reg.venues.filter(name="二楼", tables=12).exists(),
    ),
    Row("GET", "setup:venue-edit", ORGANISER),
    Row(
        "POST",
        "setup:venue-edit",
        ORGANISER,
        data={"name": "大厅", "tables": "24", "order": "0"},
        done=lambda w: fresh(w.venue).tables == 24,
    ),
    Row(
        "POST",
        "setup:venue-delete",
        ORGANISER,
        data={"confirm": "1"},
        done=lambda w: not Venue.objects.filter(pk=w.venue.pk).exists(),
    ),
    Row("GET", "setup:venue-delete", ORGANISER_405),
    Row("GET", "draw:draw", ORGANISER),
    Row(
        "POST",
        "draw:draw",
        ORGANISER,
        data={"method": "random", "format": "knockout", "seed": "7"},
        # The draw follows registration: closed first.
        prepare=lambda w: _close_registration(w),
        done=lambda w: Draw.objects.filter(event=w.pairs).exists(),
    ),
    Row(
        "POST",
        "draw:undo",
        ORGANISER,
        data={"confirm": "1"},
        done=lambda w: not Draw.objects.filter(event=w.event, undone_at__isnull=True).exists(),
    ),
    Row("GET", "draw:undo", ORGANISER_405),
    Row("GET", "draw:schedule", ORGANISER),
    Row(
        "POST",
        "draw:schedule",
        ORGANISER,
        data=lambda w: {f"table-{w.match.pk}": "7"},
        done=lambda w: fresh(w.match).first_table == 7,
    ),
    Row("GET", "day:plan", ORGANISER),
    Row(
        "POST",
        "day:plan",
        ORGANISER,
        data=lambda w: {"action": "save", "fingerprint": _day_fingerprint(w)},
        done=lambda w: fresh(w.match).scheduled_at is not None,
    ),
    # ----------------------------------------------------------------- referees at the table
    Row(
        "POST",
        "scoring:deal",
        REFEREE,
        data={"deal": "A2", "key": "m-deal", "version": "0"},
        done=lambda w: _events(w) == [{"order": list("AABB")}],
    ),
    Row(
        "POST",
        "scoring:deal",
        REFEREE,
        htmx=True,
        note="htmx",
        data={"deal": "A2", "key": "m-deal", "version": "0"},
        done=lambda w: _events(w) == [{"order": list("AABB")}],
    ),
    Row("GET", "scoring:deal", LOGGED_IN_405),
    Row(
        "POST",
        "scoring:game",
        REFEREE,
        data={"home": "21", "away": "18", "key": "m-game"},
        done=lambda w: _sport_events(w) == [{"home": 21, "away": 18}],
    ),
    Row("GET", "scoring:game", LOGGED_IN_405),
    Row(
        "POST",
        "scoring:point",
        REFEREE,
        data={"side": "away", "key": "m-point"},
        done=lambda w: _sport_events(w) == [{"point": "away"}],
    ),
    Row("GET", "scoring:point", LOGGED_IN_405),
    Row(
        "POST",
        "scoring:first-server",
        REFEREE,
        data={"side": "home", "key": "m-serve"},
        done=lambda w: _sport_events(w) == [{"first_server": "home"}],
    ),
    Row("GET", "scoring:first-server", LOGGED_IN_405),
    Row(
        "POST",
        "scoring:penalty",
        REFEREE,
        data={"team": "A", "kind": "levels", "levels": "1", "reason": "拖延", "key": "m-p"},
        done=lambda w: len(_events(w)) == 1,
    ),
    Row(
        "POST",
        "scoring:time-up",
        REFEREE,
        prepare=_deal,
        data={"key": "m-t"},
        done=lambda w: len(_events(w)) == 2,
    ),
    Row(
        "POST",
        "scoring:start",
        REFEREE,
        done=lambda w: fresh(w.table).start_called_at is not None,
    ),
    Row(
        "POST",
        "scoring:forfeit",
        REFEREE,
        data={"team": "B", "reason": "late_over_10_min", "key": "m-f", "confirm": "1"},
        done=lambda w: fresh(w.table).winner == "A",
    ),
    Row("POST", "scoring:undo", REFEREE, prepare=_deal, done=lambda w: _events(w) == []),
    Row(
        "POST",
        "scoring:submit",
        REFEREE,
        prepare=_played,
        done=lambda w: fresh(w.table).status == TableMatch.Status.SUBMITTED,
    ),
    Row(
        "POST",
        "scoring:report",
        REFEREE,
        data={"team": "B", "description": "场外指导", "reported_by": "A队"},
        done=lambda w: Report.objects.filter(table=w.table).exists(),
    ),
    Row(
        "POST",
        "scoring:checkin",
        "login 403 403 403 403 ok ok ok ok",
        data=lambda w: {"table": str(w.table.pk), "team": "A"},
        done=lambda w: CheckIn.objects.filter(match=w.match).exists(),
    ),
    Row("GET", "scoring:checkin", "login 403 403 403 ok ok ok ok ok"),
    # ----------------------------------------------------------------- chief referee
    Row("GET", "scoring:desk", CHIEF),
    # 我的台: every official of the tournament (their own tables), nobody else.
    Row("GET", "scoring:my-tables", "login 403 403 403 ok ok ok ok ok"),
    Row("GET", "scoring:board", CHIEF),
    Row("GET", "scoring:audit", CHIEF),
    Row(
        "POST",
        "scoring:confirm",
        # A second official: any referee but the one who entered and submitted the result.
        "login 403 403 403 ok 403 ok ok ok",
        prepare=_submitted,
        done=lambda w: fresh(w.table).status == TableMatch.Status.CONFIRMED,
    ),
    Row(
        "POST",
        "scoring:rule-report",
        CHIEF,
        prepare=_report,
        data={"upheld": "yes"},
        done=lambda w: Report.objects.filter(table=w.table, upheld=True).exists(),
    ),
    Row(
        "POST",
        "scoring:report-deduction",
        CHIEF,
        prepare=_three_upheld,
        data={"team": "A", "key": "m-ded"},
        done=lambda w: len(_events(w)) == 2,
    ),
    Row(
        "POST",
        "scoring:correct",
        CHIEF,
        prepare=_submitted,
        data={
            "events": '[{"order": ["B", "B", "A", "A"]}, {"time_up": true}]',
            "reason": "记分表核对后更正",
        },
        done=lambda w: fresh(w.table).winner == "B",
    ),
    Row("GET", "scoring:correction", CHIEF, prepare=_submitted),
    Row(
        "POST",
        "scoring:ruling",
        CHIEF,
        prepare=_flag,
        data={"reason": "已按原对阵赛完"},
        done=lambda w: not Match.objects.filter(needs_review=True).exists(),
    ),
    Row("GET", "scoring:ruling", LOGGED_IN_405),
    Row(
        "POST",
        "scoring:replay",
        CHIEF,
        prepare=_flag,
        data={"reason": "对阵有误，作废重赛", "confirm": "1"},
        done=lambda w: TableMatch.kept.filter(voided_at__isnull=False).exists(),
    ),
    Row("GET", "scoring:replay", LOGGED_IN_405),
    Row(
        "POST",
        "scoring:correction",
        CHIEF,
        note="correction by tap, saved",
        prepare=_submitted,
        data={
            "events": '[{"order": ["B", "B", "A", "A"]}, {"time_up": true}]',
            "reason": "记分表核对后更正",
            "action": "save",
        },
        done=lambda w: fresh(w.table).winner == "B",
    ),
    Row(
        "POST",
        "scoring:whistle",
        CHIEF,
        data={"confirm": "1", "early": "1"},
        done=lambda w: fresh(w.table).time_called_at is not None,
    ),
    Row("GET", "scoring:whistle", LOGGED_IN_405),
    Row("GET", "day:queue", CHIEF),
    Row(
        "POST",
        "day:queue",
        CHIEF,
        data=lambda w: {"action": "hold", "match": str(w.table.match_id)},
        prepare=lambda w: _match_in_first_venue(w),
        done=lambda w: fresh(w.table.match).queue_held,
    ),
    Row(
        "POST",
        "scoring:checkin",
        CHIEF,
        note="forfeit the missing pairs",
        data={"forfeit_missing": "1", "confirm": "1"},
        prepare=_home_pair_present,
        done=lambda w: fresh(w.table).winner == "A",
    ),
    Row("GET", "links:list", CHIEF),
    Row(
        "POST",
        "links:list",
        CHIEF,
        data=lambda w: {"official": str(w.new_referee.pk), "day": _tomorrow()},
        done=lambda w: LoginLink.objects.filter(official=w.new_referee).exists(),
    ),
    Row(
        "POST",
        "links:revoke",
        CHIEF,
        data={"confirm": "1"},
        prepare=_link,
        done=lambda w: fresh(w.prepared_link).revoked_at is not None,
    ),
    Row(
        "POST",
        "links:revoke",
        ORGANISER,
        note="a team leader's invitation",
        data={"confirm": "1"},
        prepare=_invite,
        done=lambda w: fresh(w.prepared_link).revoked_at is not None,
    ),
    Row("GET", "links:revoke", LOGGED_IN_405, prepare=_link),
    Row(
        "POST",
        "scoring:resolve-call",
        REFEREE,
        prepare=_called,
        done=lambda w: not TableCall.objects.filter(resolved_at__isnull=True).exists(),
    ),
    Row(
        "POST",
        "scoring:reopen",
        REFEREE,
        prepare=_submitted,
        done=lambda w: fresh(w.table).status == TableMatch.Status.OPEN,
    ),
    Row(
        "POST",
        "scoring:lock",
        CHIEF,
        data={"locked": "1"},
        done=lambda w: fresh(w.table).players_locked_at is not None,
    ),
    # 桌卡 carry the players' links: every official of the tournament, nobody else.
    Row("GET", "documents:tablecards-pdf", "login 403 403 403 ok ok ok ok ok"),
    # A round's score sheets: the page builds each reader's own copy; the officials' copy
    # (the players' links) is a file for them alone, unknown to everyone else.
    Row("GET", "documents:scoresheets", EVERYONE),
    Row(
        "GET",
        "documents:scoresheets-file",
        "404 404 404 404 ok ok ok ok ok",
        prepare=_officials_sheets,
        note="the officials' copy",
    ),
    Row("GET", "documents:scoresheets-file", EVERYONE, prepare=_public_sheets),
    # ----------------------------------------------------------------- the players' link
    # Anyone holding a table's code, with or without a login, enters that table (issue 25);
    # every staff URL refuses such a phone (test_the_players_link_opens_no_staff_url).
    Row("GET", "scoring:play-table", EVERYONE, prepare=_players_enter),
    Row(
        "POST",
        "scoring:play-deal",
        EVERYONE,
        prepare=_players_enter,
        data={"deal": "A2", "key": "m-pl"},
        done=lambda w: TableEvent.objects.filter(table=w.table, by_players=True).exists(),
    ),
    Row(
        "POST",
        "scoring:play-deal",
        NOT_FOUND.replace("login", "404"),
        note="the code of another table",
        prepare=_forged_code,
        data={"deal": "A2", "key": "m-pl"},
        done=lambda w: TableEvent.objects.exists(),
    ),
    Row(
        "POST",
        "scoring:play-game",
        EVERYONE,
        prepare=_players_enter,
        data={"home": "21", "away": "18", "key": "m-pl-game"},
        done=lambda w: _sport_events(w) == [{"home": 21, "away": 18}],
    ),
    Row(
        "POST",
        "scoring:play-point",
        EVERYONE,
        prepare=_players_enter,
        data={"side": "away", "key": "m-pl-point"},
        done=lambda w: _sport_events(w) == [{"point": "away"}],
    ),
    Row(
        "POST",
        "scoring:play-first-server",
        EVERYONE,
        prepare=_players_enter,
        data={"side": "home", "key": "m-pl-serve"},
        done=lambda w: _sport_events(w) == [{"first_server": "home"}],
    ),
    Row(
        "POST",
        "scoring:play-time-up",
        EVERYONE,
        prepare=_players_dealt,
        data={"key": "m-pl-t"},
        done=lambda w: len(_events(w)) == 2,
    ),
    Row(
        "POST",
        "scoring:play-undo",
        EVERYONE,
        prepare=_players_dealt,
        done=lambda w: _events(w) == [],
    ),
    Row(
        "POST",
        "scoring:play-submit",
        EVERYONE,
        prepare=_players_played,
        data={"side": "B"},
        done=lambda w: fresh(w.table).submitted_side == "B",
    ),
    Row(
        "POST",
        "scoring:play-confirm",
        EVERYONE,
        prepare=_players_submitted,
        data={"side": "B"},
        done=lambda w: fresh(w.table).status == TableMatch.Status.CONFIRMED,
    ),
    Row(
        "POST",
        "scoring:play-call",
        EVERYONE,
        prepare=_players_enter,
        data={"kind": "help", "key": "m-pl-call"},
        done=lambda w: TableCall.objects.filter(table=w.table).exists(),
    ),
    *(
        Row("GET", name, "405 405 405 405 405 405 405 405 405", prepare=_players_enter)
        for name in (
            "scoring:play-deal",
            "scoring:play-undo",
            "scoring:play-submit",
            "scoring:play-confirm",
            "scoring:play-call",
        )
    ),
]
ROWS_BY_NAME: dict[str, list[Row]] = {}
for _row in MATRIX:
    ROWS_BY_NAME.setdefault(_row.name, []).append(_row)


# --------------------------------------------------------------------------- requests


def outcome(response) -> str:
    if response.status_code in (301, 302):
        location = response["Location"]
        # Sent to log in first (with ?next=), not a success that lands on the login page.
        if location.startswith((reverse("login"), reverse("admin:login"))) and "next=" in location:
            return "login"
        return "ok"
    if response.status_code in (403, 404, 405):
        return str(response.status_code)
    if 200 <= response.status_code < 300:
        return "ok"
    return str(response.status_code)


def _url(row: Row, w, extra: dict) -> str:
    if row.path is not None:
        return row.path(w)
    kwargs = {**ARGS[row.name](w), **{k: v for k, v in extra.items() if k in ARGS[row.name](w)}}
    return reverse(row.name, kwargs=kwargs)


# The table writes whose pages send the table's version (every one that changes a result).
VERSIONED = {
    "scoring:deal",
    "scoring:game",
    "scoring:point",
    "scoring:first-server",
    "scoring:penalty",
    "scoring:time-up",
    "scoring:start",
    "scoring:forfeit",
    "scoring:undo",
    "scoring:submit",
    "scoring:confirm",
    "scoring:report-deduction",
    "scoring:correct",
    "scoring:correction",
    "scoring:reopen",
    "scoring:play-deal",
    "scoring:play-game",
    "scoring:play-point",
    "scoring:play-first-server",
    "scoring:play-time-up",
    "scoring:play-undo",
    "scoring:play-submit",
    "scoring:play-confirm",
}


def _data(row: Row, w, url: str = "") -> dict:
    """The row's form; a table write gets the version its page would show, as the page sends
    it (a write without one is refused)."""
    data = row.data(w) if callable(row.data) else dict(row.data)
    if row.name in VERSIONED and "version" not in data and url:
        kwargs = resolve(url).kwargs
        found = players.read_code(kwargs["code"]) if "code" in kwargs else None
        table_id = found.table_id if found else kwargs.get("table_id")
        table = TableMatch.objects.filter(pk=table_id).first()
        data["version"] = str(table.version if table else 0)
    return data


def request(row: Row, w, role: str, *, client: Client | None = None):
    """Run one cell in a savepoint; returns (outcome, done or None)."""
    sid = transaction.savepoint_create()
    try:
        client = client or Client()
        user = w.users[role]
        if user is not None:
            client.force_login(user)
        extra = (row.prepare(w) or {}) if row.prepare else {}
        if row.done is not None:
            assert not row.done(w), f"{row.id}: done() is already true before the request"
        url = _url(row, w, extra)
        headers = {"HTTP_HX_REQUEST": "true"} if row.htmx else {}
        if row.method == "POST":
            response = client.post(url, _data(row, w, url), **headers)
        else:
            response = client.get(url, **headers)
        return response, outcome(response), (row.done(w) if row.done is not None else None)
    finally:
        transaction.savepoint_rollback(sid)


# --------------------------------------------------------------------------- inventory


def site_patterns() -> set[str]:
    """Every named pattern of the site; the admin counts as one ("admin")."""
    names: set[str] = set()

    def walk(patterns, prefix=""):
        for p in patterns:
            if isinstance(p, URLResolver):
                if p.namespace == "admin":
                    names.add("admin")
                else:
                    walk(p.url_patterns, f"{prefix}{p.namespace}:" if p.namespace else prefix)
            else:
                assert p.name, f"URL pattern {p.pattern} has no name"
                names.add(prefix + p.name)

    walk(get_resolver().url_patterns)
    return names


def test_every_url_pattern_is_classified_as_read_only_or_writing():
    patterns = site_patterns()
    assert not READ_ONLY & WRITING
    unclassified = patterns - READ_ONLY - WRITING
    assert not unclassified, (
        f"classify these URL patterns in tests/test_permissions.py: {unclassified}"
    )
    assert not (READ_ONLY | WRITING) - patterns, "classified patterns that no longer exist"


def test_every_writing_url_has_a_post_row_in_the_matrix():
    missing = {n for n in WRITING if not any(r.method == "POST" for r in ROWS_BY_NAME.get(n, []))}
    assert not missing, f"add matrix rows for: {missing}"
    assert set(ROWS_BY_NAME) <= READ_ONLY | WRITING
    assert set(ARGS) | {"admin"} == READ_ONLY | WRITING
    for row in MATRIX:
        row.outcomes()  # one known outcome per role


# --------------------------------------------------------------------------- the matrix


@pytest.mark.django_db
@pytest.mark.parametrize("name", sorted(ROWS_BY_NAME))
def test_permission_matrix(world, name):
    wrong = []
    for row in ROWS_BY_NAME[name]:
        for role, expected in row.outcomes().items():
            response, got, done = request(row, world, role)
            if got != expected:
                wrong.append(f"{row.id} as {role}: expected {expected}, got {got}")
            elif done is not None and done != (expected == "ok" and row.method == "POST"):
                wrong.append(
                    f"{row.id} as {role}: answered {got} but the write "
                    + ("did not happen" if expected == "ok" else "happened")
                )
    assert not wrong, "\n".join(wrong)


@pytest.mark.django_db
@pytest.mark.parametrize("name", sorted(READ_ONLY))
def test_a_read_only_url_refuses_a_post(world, name):
    row = Row("POST", name, "")
    response, got, _done = request(row, world, "superuser")
    assert got == "405", f"POST {name}: {response.status_code}"


@pytest.mark.django_db
@pytest.mark.parametrize("name", sorted(WRITING))
def test_a_post_without_the_csrf_token_is_refused(world, name):
    """Every writing URL, posted by someone who may use it but without the token."""
    row = next(r for r in ROWS_BY_NAME[name] if r.method == "POST" and not r.htmx)
    role = next(role for role, o in row.outcomes().items() if o == "ok")
    response, got, done = request(row, world, role, client=Client(enforce_csrf_checks=True))
    assert response.status_code == 403, f"{row.id}: {response.status_code}"
    assert "CSRF" in response.content.decode()
    assert not done


@pytest.mark.django_db
def test_the_players_link_opens_no_staff_url(world):
    """A phone that opened a table's players' link (its cookies, the code in hand) is refused
    by every URL the matrix refuses an anonymous visitor — the staff's pages and writes."""
    phone = Client()
    sid = transaction.savepoint_create()
    try:
        _players_enter(world)
        page = phone.get(reverse("scoring:play-table", kwargs=_play(world)))
        assert page.status_code == 200 and "deal-button" in page.content.decode()
    finally:
        transaction.savepoint_rollback(sid)
    refused = [row for row in MATRIX if row.outcomes()["anonymous"] == "login"]
    assert len(refused) > 40
    wrong = []
    for row in refused:
        _response, got, done = request(row, world, "anonymous", client=phone)
        if got != "login" or done:
            wrong.append(f"{row.id}: {got}{' (written)' if done else ''}")
    assert not wrong, "\n".join(wrong)


# --------------------------------------------------------------------------- the document

DOC_START, DOC_END = "<!-- matrix:start -->", "<!-- matrix:end -->"
CELL = {"ok": "✓", "login": "login", "403": "403", "404": "404", "405": "405"}


def matrix_markdown() -> str:
    header = "| request | " + " | ".join(ROLE_TITLES[r] for r in ROLES) + " |"
    lines = [header, "|" + "---|" * (len(ROLES) + 1)]
    for row in MATRIX:
        label = f"`{row.method} {row.name}`" + (f" ({row.note})" if row.note else "")
        cells = [CELL[o] for o in row.outcomes().values()]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def test_the_doc_shows_the_same_matrix():
    text = DOC.read_text(encoding="utf-8")
    start, end = text.index(DOC_START) + len(DOC_START), text.index(DOC_END)
    expected = "\n" + matrix_markdown() + "\n"
    if os.environ.get("UPDATE_PERMISSIONS_DOC"):
        DOC.write_text(text[:start] + expected + text[end:], encoding="utf-8")
        return
    assert text[start:end] == expected, (
        "docs/permissions.md differs from MATRIX; rewrite it with "
        "UPDATE_PERMISSIONS_DOC=1 .venv/bin/python -m pytest tests/test_permissions.py -k doc"
    )
