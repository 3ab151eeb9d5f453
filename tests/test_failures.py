"""Failures: the database going away between two writes of one request leaves nothing
half-written, a crashed app server loses nothing that was confirmed, and a resend after a
dropped connection records nothing twice.

The database "goes away" by patching a step of a service so that it raises the error psycopg
raises when the server closes the connection (``OperationalError``) after the first rows of
that request were written; every row of both apps is then compared with before.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import OperationalError
from django.urls import reverse

from scoring.models import AuditEntry, Report, TableEvent, TableMatch
from scoring.services.corrections import correct_table
from scoring.services.desk import call_time, check_in, forfeit_missing
from scoring.services.reports import add_report, rule_report
from scoring.services.tables import confirm_table, record_event, submit_table, undo_last
from scoring.table_page import load_table
from scoring.tests.utils import assign_referee
from tests.snapshots import changes, snapshot
from tournaments.draw import make as draw_make
from tournaments.models import Event, Match, Official, Round, Tournament, Unit
from tournaments.ops import backup
from tournaments.registration.services import (
    EntryForm,
    PersonForm,
    register_entries,
    withdraw_entry,
)
from tournaments.registration.spreadsheets.imports import import_workbook

User = get_user_model()
NANTONG, ANHUI = "nantong-2014", "anhui-2021"
ROOT = Path(settings.BASE_DIR)


class ConnectionLost(OperationalError):
    """What psycopg raises when the server goes away mid-request."""


def fail_on_call(target: str, n: int = 1, *, when: Callable[..., bool] | None = None):
    """Patch ``target`` so that its n-th call (counting only calls where ``when`` holds)
    raises ConnectionLost before doing anything."""
    module_name, attr = target.rsplit(".", 1)
    owner = _resolve(module_name)
    original = getattr(owner, attr)
    calls = []

    def wrapper(*args, **kwargs):
        if when is None or when(*args, **kwargs):
            calls.append(1)
            if len(calls) == n:
                raise ConnectionLost("server closed the connection unexpectedly")
        return original(*args, **kwargs)

    return mock.patch.object(owner, attr, wrapper)


def _resolve(dotted: str):
    import importlib

    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for name in parts[i:]:
            obj = getattr(obj, name)
        return obj
    raise ImportError(dotted)


# --------------------------------------------------------------------------- the world


@dataclass
class Cast:
    referee: object
    chief: object


@pytest.fixture
def cast(demo):
    referee = User.objects.create_user("referee")
    chief = User.objects.create_user("chief")
    for t in demo.values():
        Official.objects.create(tournament=t, name="裁判", role="referee", user=referee)
        Official.objects.create(tournament=t, name="裁判长", role="chief_referee", user=chief)
    return Cast(referee, chief)


def first_tie(slug: str = NANTONG) -> Match:
    return (
        Match.objects.filter(round__stage__event__tournament__slug=slug, round__number=1)
        .exclude(status=Match.Status.BYE)
        .order_by("index")
        .first()
    )


def tables_of(match: Match) -> list[TableMatch]:
    return list(match.tables.order_by("number"))


def play(table: TableMatch, side: str, user, *, key: str = "") -> TableMatch:
    """A nantong table won by ``side``: a 双上, then time up."""
    other = "B" if side == "A" else "A"
    record_event(table=table, event={"order": [side, side, other, other]}, user=user, key=key + "d")
    table, _t, _c = record_event(table=table, event={"time_up": True}, user=user, key=key + "t")
    return table


def submitted(table: TableMatch, side: str, cast: Cast) -> TableMatch:
    play(table, side, cast.referee, key=f"{table.pk}-")
    return submit_table(table=table, user=cast.referee)


def confirmed(table, side, cast) -> TableMatch:
    return confirm_table(table=submitted(table, side, cast), user=cast.chief)


def open_cup(make_tournament):
    cup = make_tournament(slug="fail-cup")
    for name in ("甲组", "乙组", "丙组"):
        Unit.objects.create(tournament=cup, name=name, kind=Unit.Kind.UNION_GROUP)
    team = Event.objects.create(
        tournament=cup,
        slug="team",
        name="掼蛋团体",
        discipline="guandan_team",
        pairs_per_team=3,
        ruleset="nantong2014",
    )
    return cup, team


def team_form(unit: str, tag: str = "") -> EntryForm:
    return EntryForm(
        unit=unit,
        pairs=[
            (PersonForm(f"{unit}{tag}{i}甲", "男"), PersonForm(f"{unit}{tag}{i}乙", "女"))
            for i in range(3)
        ],
    )


# --------------------------------------------------------------------------- scenarios


@dataclass(frozen=True)
class Scenario:
    """Make the state, then run ``act`` with ``target``'s n-th call failing."""

    prepare: Callable[[dict], dict]
    act: Callable[[dict], object]
    target: str
    n: int = 1
    when: Callable[..., bool] | None = None
    writes_before_failure: str = ""  # what was already written when the connection went


def _nothing(ctx):
    return ctx


def _ready_to_decide(ctx):
    """Two tables of the first nantong tie won by home, the second one still submitted."""
    cast = ctx["cast"]
    match = first_tie()
    first, second, _third = tables_of(match)
    confirmed(first, "A", cast)
    submitted(second, "A", cast)
    return {**ctx, "match": match, "table": second}


def _registration(ctx):
    cup, team = open_cup(ctx["make_tournament"])
    return {**ctx, "cup": cup, "event": team}


def _xlsx_of_two_teams(ctx):
    from openpyxl import load_workbook

    from tournaments.registration.spreadsheets.layout import columns_for
    from tournaments.registration.spreadsheets.template import template_workbook

    ctx = _registration(ctx)
    event = ctx["event"]
    book = load_workbook(io.BytesIO(template_workbook(event)))
    sheet = book.worksheets[0]
    headers = list(columns_for(event))
    header_row = next(r for r in range(1, 20) if sheet.cell(row=r, column=1).value == headers[0])
    row = header_row + 1
    while sheet.cell(row=row, column=1).value:
        row += 1  # past the example row
    for unit in ("甲组", "乙组"):
        for n in range(1, 4):
            values = {
                "单位": unit,
                "对序号": n,
                "选手一姓名": f"{unit}{n}甲",
                "选手一性别": "男",
                "选手二姓名": f"{unit}{n}乙",
                "选手二性别": "女",
            }
            for column, header in enumerate(headers, start=1):
                if header in values:
                    sheet.cell(row=row, column=column, value=values[header])
            row += 1
    out = io.BytesIO()
    book.save(out)
    return {**ctx, "xlsx": out.getvalue()}


def _undrawn_cup(ctx):
    ctx = _registration(ctx)
    register_entries(
        event=ctx["event"], forms=[team_form(u) for u in ("甲组", "乙组", "丙组")], organiser=True
    )
    return ctx


def _anhui_round(ctx):
    rnd = Round.objects.filter(
        stage__event__tournament__slug=ANHUI, stage__event__slug="guandan", number=1
    ).first()
    return {**ctx, "round": rnd}


def _nantong_round_all_but_two_present(ctx):
    match = first_tie()
    rnd = match.round
    tables = list(TableMatch.objects.filter(match__round=rnd).order_by("pk"))
    missing = {tables[0].home_pair_id, tables[1].away_pair_id}
    for t in tables:
        for pair in (t.home_pair, t.away_pair):
            if pair.pk not in missing:
                check_in(match=t.match, pair=pair, user=ctx["cast"].chief)
    return {**ctx, "round": rnd}


def _confirmed_tie(ctx):
    cast = ctx["cast"]
    match = first_tie()
    for table in tables_of(match)[:2]:
        confirmed(table, "A", cast)
    return {**ctx, "match": match, "table": tables_of(match)[0]}


def _drawn_entry(ctx):
    return {**ctx, "entry": first_tie().home}


SCENARIOS = {
    "register a team: after the entry and its first players": Scenario(
        _registration,
        lambda c: register_entries(event=c["event"], forms=[team_form("甲组")], organiser=True),
        "tournaments.registration.services._person",
        n=3,
    ),
    "register several teams: after the first team": Scenario(
        _registration,
        lambda c: register_entries(
            event=c["event"], forms=[team_form("甲组"), team_form("乙组")], organiser=True
        ),
        "tournaments.models.Entry.objects.create",
        n=2,
    ),
    "import an Excel form: after the first team": Scenario(
        _xlsx_of_two_teams,
        lambda c: import_workbook(event=c["event"], data=c["xlsx"]),
        "tournaments.models.Pair.objects.create",
        n=4,
    ),
    "the draw: after the draw, stages, rounds and matches": Scenario(
        _undrawn_cup,
        lambda c: draw_make.draw_event(event=c["event"], seed=1),
        "tournaments.draw.signals.announce",
    ),
    "undo the draw: after the stages are deleted": Scenario(
        _nothing,
        lambda c: draw_make.undo_draw(event=Event.objects.get(tournament__slug=NANTONG)),
        "tournaments.models.Event.bump_version",
    ),
    "record a deal: after the table's new state": Scenario(
        _nothing,
        lambda c: record_event(
            table=tables_of(first_tie())[0], event={"order": list("AABB")}, key="k"
        ),
        "scoring.services.tables.insert",
    ),
    "record a deal: after the event row": Scenario(
        _nothing,
        lambda c: record_event(
            table=tables_of(first_tie())[0], event={"order": list("AABB")}, key="k"
        ),
        "scoring.services.common.audit",
    ),
    # A page's deal on the version it loaded: its row saved if still at that version.
    "record a deal on the page's version: after the table's new state": Scenario(
        _nothing,
        lambda c: record_event(
            table=load_table(TableMatch.objects, pk=tables_of(first_tie())[0].pk),
            event={"order": list("AABB")},
            key="k",
            expected_version=0,
        ),
        "scoring.services.tables.insert",
    ),
    "undo: after the event is marked undone": Scenario(
        lambda c: {
            **c,
            "table": play(tables_of(first_tie())[0], "A", c["cast"].referee, key="u"),
        },
        lambda c: undo_last(table=c["table"], user=c["cast"].referee),
        "scoring.services.common.save_state",
    ),
    # (The event's live version grows after the transaction commits: not a write of the result.)
    "submit: after the table's status, before its audit entry": Scenario(
        lambda c: {**c, "table": play(tables_of(first_tie())[0], "A", c["cast"].referee)},
        lambda c: submit_table(table=c["table"], user=c["cast"].referee),
        "scoring.services.common.audit",
        when=lambda table, user, action, *a, **k: action == "submit",
    ),
    "confirm: after the table's status, before the tie": Scenario(
        _ready_to_decide,
        lambda c: confirm_table(table=c["table"], user=c["cast"].chief),
        "scoring.services.ties.update_tie",
    ),
    "confirm: the tie's result written, before the bracket moves on": Scenario(
        _ready_to_decide,
        lambda c: confirm_table(table=c["table"], user=c["cast"].chief),
        "tournaments.draw.progress.settle",
    ),
    "confirm: the winner moved on, before the next tie's tables": Scenario(
        _ready_to_decide,
        lambda c: confirm_table(table=c["table"], user=c["cast"].chief),
        "tournaments.draw.signals.announce",
    ),
    "confirm: everything moved, before the tie's audit entry": Scenario(
        _ready_to_decide,
        lambda c: confirm_table(table=c["table"], user=c["cast"].chief),
        "scoring.services.common.audit",
        when=lambda table, user, action, *a, **k: action == "tie_decided",
    ),
    "correct a confirmed result: after the new events, before the tie": Scenario(
        _confirmed_tie,
        lambda c: correct_table(
            table=c["table"],
            events=[{"order": list("BBAA")}, {"time_up": True}],
            reason="记分表核对",
            user=c["cast"].chief,
        ),
        "tournaments.draw.results._move_on_after_correction",
    ),
    "the whistle: after the first table's time up": Scenario(
        _anhui_round,
        lambda c: call_time(round=c["round"], user=c["cast"].chief),
        "scoring.services.tables.record_event",
        n=2,
    ),
    "forfeit the missing: after the first forfeit": Scenario(
        _nantong_round_all_but_two_present,
        lambda c: forfeit_missing(round=c["round"], user=c["cast"].chief),
        "scoring.services.tables.record_event",
        n=2,
    ),
    "check in: after the check-in row": Scenario(
        _nothing,
        lambda c: check_in(
            match=first_tie(), pair=tables_of(first_tie())[0].home_pair, user=c["cast"].referee
        ),
        "scoring.services.common.audit",
    ),
    "report: after the report row": Scenario(
        _nothing,
        lambda c: add_report(
            table=tables_of(first_tie())[0], team="A", description="偷看", key="r1"
        ),
        "scoring.services.common.audit",
    ),
    "rule on a report: after the ruling": Scenario(
        lambda c: {
            **c,
            "report": add_report(table=tables_of(first_tie())[0], team="A", description="偷看"),
        },
        lambda c: rule_report(report=c["report"], upheld=True, user=c["cast"].chief),
        "scoring.services.common.audit",
    ),
    "withdraw after the draw: after the entry's status, before the walkovers": Scenario(
        _drawn_entry,
        lambda c: withdraw_entry(entry=c["entry"], reason="伤病"),
        "tournaments.draw.progress.settle",
    ),
    "restore a backup: after the first models": Scenario(
        lambda c: {
            **c,
            "backup": backup.export_data(Tournament.objects.get(slug=NANTONG)),
        },
        lambda c: backup.import_data(c["backup"], replace=True),
        "scoring.models.TableEvent._base_manager.bulk_create",
    ),
}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_the_database_going_away_between_two_writes_leaves_nothing_half_written(
    name, demo, cast, make_tournament
):
    scenario = SCENARIOS[name]
    ctx = scenario.prepare({"cast": cast, "demo": demo, "make_tournament": make_tournament})
    before = snapshot()
    with (
        fail_on_call(scenario.target, scenario.n, when=scenario.when),
        pytest.raises(ConnectionLost),
    ):
        scenario.act(ctx)
    assert changes(before, snapshot()) == []
    # Nothing is stuck either: the same request, once the database is back, goes through.
    scenario.act(ctx)
    assert changes(before, snapshot()) != []


def test_every_multi_row_service_is_covered_by_a_scenario():
    """The writes of the issue: registration, Excel import, the draw, results and the bracket."""
    targets = " ".join(SCENARIOS)
    for words in ("register", "Excel", "draw", "confirm", "correct", "record a deal", "backup"):
        assert words in targets


@pytest.mark.skipif(
    settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql",
    reason="terminates its own PostgreSQL backend (the real thing, not a patched error)",
)
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "target",
    ["scoring.services.common.save_state", "tournaments.draw.progress.settle"],
    ids=["deal", "confirm"],
)
def test_a_postgresql_backend_killed_mid_request_leaves_nothing_half_written(demo, target):
    from django.db import InterfaceError, connection

    referee, chief = User.objects.create_user("referee"), User.objects.create_user("chief")
    match = first_tie()
    Official.objects.create(
        tournament=match.round.stage.event.tournament,
        name="裁判长",
        role=Official.Role.CHIEF_REFEREE,
        user=chief,
    )
    first, second, _third = tables_of(match)
    cast = Cast(referee, chief)
    confirmed(first, "A", cast)
    submitted(second, "A", cast)
    table = tables_of(match)[2]
    before = snapshot()

    def kill_the_backend(*args, **kwargs):
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(pg_backend_pid())")

    with (
        mock.patch(target, side_effect=kill_the_backend),
        pytest.raises((OperationalError, InterfaceError)),
    ):
        if target.endswith("save_state"):
            record_event(table=table, event={"order": list("AABB")}, key="k")
        else:
            confirm_table(table=second, user=chief)
    connection.close()  # a new connection, as the next request would get
    assert changes(before, snapshot()) == []


# --------------------------------------------------------------------------- resends


def test_the_same_deal_key_posted_twice_records_one_deal(client, cast):
    table = tables_of(first_tie())[0]
    assign_referee(TableMatch.objects.filter(pk=table.pk), cast.referee)
    client.force_login(cast.referee)
    url = reverse("scoring:deal", args=[NANTONG, "guandan", table.pk])
    data = {"deal": "A2", "key": "phone-7", "version": "0"}
    first = client.post(url, data, HTTP_HX_REQUEST="true")
    again = client.post(url, data, HTTP_HX_REQUEST="true")  # the resend after a dropped answer
    assert (first.status_code, again.status_code) == (200, 200)
    assert "已记录过，未重复记录" in again.content.decode()
    assert TableEvent.objects.filter(table=table).count() == 1
    assert TableMatch.objects.get(pk=table.pk).version == 1
    assert AuditEntry.objects.filter(table=table, action="event").count() == 1


def test_the_same_report_key_posted_twice_records_one_report(client, cast):
    table = tables_of(first_tie())[0]
    assign_referee(TableMatch.objects.filter(pk=table.pk), cast.referee)
    client.force_login(cast.referee)
    url = reverse("scoring:report", args=[NANTONG, "guandan", table.pk])
    data = {"team": "B", "description": "场外指导", "key": "phone-8j"}
    for _attempt in range(2):
        assert client.post(url, data, HTTP_HX_REQUEST="true").status_code == 200
    assert list(Report.objects.values_list("key", "description")) == [("phone-8j", "场外指导")]
    assert AuditEntry.objects.filter(table=table, action="report").count() == 1
    # A new report (a new page, a new key) is a new report.
    client.post(url, {**data, "key": "phone-9j"}, HTTP_HX_REQUEST="true")
    assert Report.objects.count() == 2


def test_the_report_form_carries_a_key_and_is_resent_by_the_page(client, cast):
    table = tables_of(first_tie())[0]
    assign_referee(TableMatch.objects.filter(pk=table.pk), cast.referee)
    client.force_login(cast.referee)
    html = client.get(reverse("scoring:table", args=[NANTONG, "guandan", table.pk])).content
    form = html.decode().split("/report/", 1)[1].split("</form>")[0]
    assert 'class="stack retry"' in form and 'name="key"' in form


# --------------------------------------------------------------------------- a crashed server


SCRIPT = textwrap.dedent(
    """
    import json, os, sys
    import django
    django.setup()
    from django.contrib.auth import get_user_model
    from scoring.models import TableMatch
    from scoring.services.tables import confirm_table, record_event, submit_table
    from tournaments.draw import make as draw_make
    from tournaments.draw import progress as draw_progress
    from tournaments.ops.demo import load_demo
    from tournaments.models import Match

    step = sys.argv[1]
    User = get_user_model()
    if step == "confirm-then-crash":
        load_demo()
        User.objects.create_user("referee")
        from tournaments.models import Official, Tournament
        Official.objects.create(
            tournament=Tournament.objects.get(slug="nantong-2014"), name="裁判长",
            role="chief_referee", user=User.objects.create_user("chief"),
        )
    match = (
        Match.objects.filter(round__stage__event__tournament__slug="nantong-2014", round__number=1)
        .exclude(status="bye").order_by("index").first()
    )

    def play(table, side, key):
        other = "B" if side == "A" else "A"
        record_event(table=table, event={"order": [side, side, other, other]}, key=key + "d")
        record_event(table=table, event={"time_up": True}, key=key + "t")
        return submit_table(table=table, user=User.objects.get(username="referee"))

    if step == "confirm-then-crash":
        first, second, third = match.tables.order_by("number")
        confirm_table(table=play(first, "A", "1"), user=User.objects.get(username="chief"))
        play(second, "A", "2")
        print(json.dumps({"confirmed": first.pk, "submitted": second.pk}), flush=True)
        os._exit(9)  # the app server dies: no cleanup, no clean shutdown
    if step == "crash-mid-confirm":
        second = match.tables.get(number=2)
        def die(*args, **kwargs):
            os._exit(9)  # killed with the confirmation's transaction still open
        draw_progress.settle = die
        confirm_table(table=second, user=User.objects.get(username="chief"))
    """
)


def _run(db_url: str, step: str) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "DATABASE_URL": db_url,
        "DEBUG": "1",
        "DJANGO_SETTINGS_MODULE": "guandan_cup.settings",
    }
    return subprocess.run(
        [sys.executable, "-c", SCRIPT, step],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_crashed_app_server_loses_nothing_confirmed_and_leaves_nothing_half_done(tmp_path):
    """The app keeps no state of its own: what a request confirmed is committed in the
    database before the answer goes out, so a server killed right after (or during the
    next request) loses nothing — a new process reads it all back."""
    folder = Path("/dev/shm") if Path("/dev/shm").is_dir() else tmp_path
    path = folder / f"gc-crash-{os.getpid()}.sqlite3"
    url = f"sqlite:///{path}"
    try:
        migrate = subprocess.run(
            [sys.executable, str(ROOT / "manage.py"), "migrate", "-v0"],
            env={**os.environ, "DATABASE_URL": url, "DEBUG": "1"},
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert migrate.returncode == 0, migrate.stderr
        done = _run(url, "confirm-then-crash")
        assert done.returncode == 9, done.stderr
        ids = json.loads(done.stdout.strip().splitlines()[-1])
        crashed = _run(url, "crash-mid-confirm")
        assert crashed.returncode == 9, crashed.stderr

        import sqlite3

        with sqlite3.connect(path) as db:
            status = dict(db.execute("SELECT id, status FROM scoring_tablematch"))
            confirms = db.execute(
                "SELECT table_id FROM scoring_auditentry WHERE action = 'confirm'"
            ).fetchall()
            match_status = db.execute(
                "SELECT m.status FROM tournaments_match m JOIN scoring_tablematch t "
                "ON t.match_id = m.id WHERE t.id = ?",
                (ids["confirmed"],),
            ).fetchone()[0]
        assert status[ids["confirmed"]] == "confirmed"  # confirmed before the crash: kept
        assert status[ids["submitted"]] == "submitted"  # crashed mid-confirmation: not half done
        assert confirms == [(ids["confirmed"],)]
        assert match_status == "in_progress"  # one table of three: the tie goes on
    finally:
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)


def test_the_app_keeps_no_state_outside_the_database():
    """Sessions live in the database and no code of the apps caches anything a request
    wrote: nothing waits in a process's memory to be lost with it. The live pages' cache
    (tournaments/live/, guandan_cup/cache.py) holds only copies rendered from the
    database, named by the event's version: losing it costs a render, never a result."""
    assert settings.SESSION_ENGINE == "django.contrib.sessions.backends.db"
    derived_only = {
        ROOT / "guandan_cup" / "cache.py",
        ROOT / "guandan_cup" / "settings.py",  # the cache backend named
        # The pictures made from the documents, named by their ETag (a state's version).
        ROOT / "tournaments" / "documents" / "picture.py",
    }
    for app in ("tournaments", "scoring", "guandan_cup"):
        for path in (ROOT / app).rglob("*.py"):
            live = ROOT / "tournaments" / "live"
            if "tests" not in path.parts and path not in derived_only and live not in path.parents:
                assert "django.core.cache" not in path.read_text(encoding="utf-8"), path
