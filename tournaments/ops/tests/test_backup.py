"""Backups: export_tournament / import_tournament round-trip a whole tournament losslessly,
on one database and between SQLite and PostgreSQL, and an import is all or nothing."""

from __future__ import annotations

import datetime as dt
import io
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from django.apps import apps
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from scoring.models import TableEvent, TableMatch
from scoring.services.common import active_events
from scoring.services.corrections import correct_table
from scoring.services.desk import check_in
from scoring.services.players import call_referee, set_lock
from scoring.services.reports import add_report, rule_report
from scoring.services.tables import record_event, undo_last
from tournaments.draw import make as draw_make
from tournaments.draw import plan as draw_plan
from tournaments.draw import selectors as draw_selectors
from tournaments.draw.read import bracket_json, load_bracket
from tournaments.links.services import login_link_create
from tournaments.models import Draw, Entry, Event, HallDuty, Official, Tournament, Unit
from tournaments.ops import backup
from tournaments.ops.demo import play_demo
from tournaments.ops.synthetic import create_event
from tournaments.registration.services import withdraw_entry

ROOT = Path(settings.BASE_DIR)
NANTONG, ANHUI = "nantong-2014", "anhui-2021"
User = get_user_model()


def all_models():
    return [
        m
        for app in backup.APPS
        for m in apps.get_app_config(app).get_models()
        if backup.label(m) not in backup.DERIVED
    ]


def counts() -> dict:
    out = {backup.label(m): m._base_manager.count() for m in all_models()}
    out["users"] = User.objects.count()
    return out


def export(slug: str, path: Path) -> bytes:
    call_command("export_tournament", slug, str(path))
    return path.read_bytes()


def enrich(demo) -> None:
    """Rows of every kind a tournament can hold, beyond what play_demo leaves: an undone
    event, a penalty, a report ruled on, a check-in, a correction, an undone draw, a team
    leader, a withdrawal, and a group stage drawn by lots with seeds (ids inside JSON)."""
    anhui = demo[ANHUI]
    referee = User.objects.create_user("backup-referee", first_name="周", email="r@example.org")
    chief = User.objects.create_user("backup-chief")
    Official.objects.create(tournament=anhui, name="备份裁判", role="referee", user=referee)
    Official.objects.create(tournament=anhui, name="备份裁判长", role="chief_referee", user=chief)
    leader = User.objects.create_user("backup-leader")
    anhui.units.order_by("pk").first().leaders.add(leader)

    # An undone draw stays on record; the event is drawn again. (On an event of its own:
    # the demo's events may be played already, and a played draw cannot be undone.)
    redrawn = create_event(tournament_slug=ANHUI, event_slug="backup-redraw", entries=4)
    draw_make.draw_event(event=redrawn, user=chief, seed=3)
    draw_make.undo_draw(event=redrawn, user=chief)
    draw_make.draw_event(event=redrawn, user=chief, seed=7)

    # The day plan: its settings, an event's halls, an official's hall duty.
    call_command("schedule_day", ANHUI, stdout=io.StringIO())
    duty_venue = anhui.venues.order_by("pk").first()
    HallDuty.objects.create(
        official=Official.objects.get(tournament=anhui, name="备份裁判"),
        venue=duty_venue,
        starts_at=dt.datetime(2021, 1, 27, 0, 30, tzinfo=dt.UTC),
        ends_at=dt.datetime(2021, 1, 27, 4, 0, tzinfo=dt.UTC),
    )

    # A referee's one-time login link (stored as a hash).
    link_referee = Official.objects.create(tournament=anhui, name="扫码裁判", role="referee")
    login_link_create(
        official=link_referee,
        created_by=chief,
        day=dt.date(2021, 1, 27),
        now=dt.datetime(2021, 1, 26, 9, 0, tzinfo=dt.UTC),
    )

    # A group stage drawn by lots, with seeds: entry ids inside the draw's JSON.
    groups = create_event(tournament_slug=ANHUI, event_slug="backup-groups", entries=6)
    ids = list(groups.entries.order_by("pk").values_list("pk", flat=True))
    draw_make.draw_event(
        event=groups,
        user=chief,
        plan=draw_plan.DrawPlan(format="groups", groups=2, advance=1),
        method=Draw.Method.PHYSICAL,
        lots={pk: n for n, pk in enumerate(reversed(ids), start=1)},
        seeds={ids[0]: 1, ids[1]: 2},
    )
    table = TableMatch.objects.filter(match__round__stage__event=groups).order_by("pk")[0]
    check_in(match=table.match, pair=table.home_pair, user=referee)
    record_event(table=table, event={"order": list("AABB")}, user=referee, key="b-1")
    record_event(
        table=table,
        event={"penalty": {"team": "B", "levels": 1}},
        user=referee,
        key="b-2",
        reason="场外指导",
    )
    record_event(table=table, event={"order": list("BABA")}, user=referee, key="b-3")
    undo_last(table=table, user=referee)
    report = add_report(table=table, team="A", description="偷看", user=referee)
    rule_report(report=report, upheld=True, user=chief)
    # The players enter results (扫码录分): their deal, a call for the referee, a lock.
    Tournament.objects.filter(pk=anhui.pk).update(result_entry="players")
    record_event(table=table, event={"order": list("ABAB")}, key="b-4", by_players=True)
    call_referee(table=table, side="B", kind="help", note="需要裁判", key="b-5")
    set_lock(table=table, user=chief, locked=True)

    # (From an event still in play: a finished event takes no more withdrawals.)
    single = Entry.objects.filter(event=redrawn).last()
    withdraw_entry(entry=single, reason="受伤", user=chief)

    # Nantong, played to the end: a chief referee's correction keeps the old events, undone.
    nantong_table = (
        TableMatch.objects.filter(match__round__stage__event__tournament=demo[NANTONG])
        .order_by("pk")
        .first()
    )
    played = [e.payload for e in active_events(nantong_table)]
    nantong_chief = User.objects.get(username=f"{NANTONG}-chief")
    correct_table(table=nantong_table, events=played, reason="核对记分表", user=nantong_chief)


@pytest.fixture
def played(demo):
    play_demo(only=NANTONG)
    enrich(demo)
    return demo


def _named(value, names: dict):
    if isinstance(value, dict):
        return {
            k: (names.get(v) if k == "entry_id" else _named(v, names))
            for k, v in value.items()
            if k not in ("id", "url", "match_id")
        }
    if isinstance(value, list):
        return [_named(v, names) for v in value]
    return value


def readable(slug: str) -> dict:
    """What the public pages show of each event, with entries named instead of numbered:
    equal before and after a round trip although every id changed."""
    out = {}
    for event in Event.objects.filter(tournament__slug=slug).order_by("order", "slug"):
        names = {e.pk: e.name for e in event.entries.all()}
        data = bracket_json(load_bracket(event))
        text = json.dumps(data, sort_keys=True, ensure_ascii=False)

        out[event.slug] = _named(json.loads(text), names)
        draw = draw_selectors.current_draw(event)
        if draw is not None:
            out[event.slug + ":slots"] = [names.get(pk) for pk in draw.slots]
            out[event.slug + ":lots"] = sorted((names[int(k)], v) for k, v in draw.lots.items())
            for stage in draw.stages.all():
                for group in stage.settings.get("groups", []):
                    out.setdefault(event.slug + ":groups", []).append([names[pk] for pk in group])
    return out


# --------------------------------------------------------------------------- same database


def test_export_import_export_gives_the_same_bytes_and_the_same_pages(played, tmp_path):
    for slug in (NANTONG, ANHUI):
        first = export(slug, tmp_path / f"{slug}-1.json")
        pages = readable(slug)
        before = counts()
        call_command("import_tournament", str(tmp_path / f"{slug}-1.json"), "--replace")
        assert counts() == before  # the same rows again, under new ids
        second = export(slug, tmp_path / f"{slug}-2.json")
        assert second == first
        assert readable(slug) == pages


def test_the_file_holds_every_model_and_field_of_both_apps(played, tmp_path):
    """So a model or field added later is backed up too: this fails until the fixture above
    gives it a row (and ID_BEARING_JSON knows it if it stores ids in JSON)."""
    files = [json.loads(export(slug, tmp_path / f"{slug}.json")) for slug in (NANTONG, ANHUI)]
    for model in all_models():
        records = [r for f in files for r in f["models"][backup.label(model)]]
        assert records, f"no {backup.label(model)} rows in the backups: enrich() should add one"
        fields = {f.name for f in model._meta.concrete_fields if not f.primary_key}
        fields |= {f.name for f in model._meta.many_to_many}
        assert fields <= set(records[0]) | {"id"}, backup.label(model)
    anhui = files[1]
    # Undone draws and undone events are kept.
    assert any(d["undone_at"] for d in anhui["models"]["tournaments.draw"])
    assert any(e["undone_at"] for e in anhui["models"]["scoring.tableevent"])
    assert any(e["undone_at"] for e in files[0]["models"]["scoring.tableevent"])
    assert {k: anhui[k] for k in ("format", "version")} == {
        "format": backup.FORMAT,
        "version": backup.VERSION,
    }


def test_who_enters_results_and_the_players_rows_survive_the_round_trip(played, tmp_path):
    export(ANHUI, tmp_path / "a.json")
    call_command("import_tournament", str(tmp_path / "a.json"), "--replace")
    anhui = Tournament.objects.get(slug=ANHUI)
    assert anhui.result_entry == "players"
    table = TableMatch.objects.get(
        match__round__stage__event__tournament=anhui, players_locked_at__isnull=False
    )
    assert table.events.filter(by_players=True, created_by__isnull=True).count() == 1
    assert table.calls.get().note == "需要裁判"


def test_the_file_names_users_by_username_and_carries_no_password(played, tmp_path):
    text = export(ANHUI, tmp_path / "a.json").decode()
    data = json.loads(text)
    assert "pbkdf2" not in text and "password" not in text
    usernames = [u["username"] for u in data["users"]]
    assert usernames == sorted(usernames)
    assert {"backup-referee", "backup-chief", "backup-leader"} <= set(usernames)
    assert data["models"]["tournaments.unit"][0]["leaders"] == ["backup-leader"]
    referee = next(u for u in data["users"] if u["username"] == "backup-referee")
    assert referee == {
        "username": "backup-referee",
        "first_name": "周",
        "last_name": "",
        "email": "r@example.org",
        "is_active": True,
    }
    # Restored where the accounts are missing: created, without a usable password.
    backup.delete_tournament(Tournament.objects.get(slug=ANHUI))
    User.objects.filter(username__startswith="backup-").delete()
    call_command("import_tournament", str(tmp_path / "a.json"))
    restored = User.objects.get(username="backup-referee")
    assert not restored.has_usable_password()
    assert (restored.first_name, restored.email) == ("周", "r@example.org")
    assert Official.objects.get(tournament__slug=ANHUI, name="备份裁判").user == restored


def test_an_existing_slug_is_refused_with_a_clear_message_and_nothing_changes(played, tmp_path):
    export(NANTONG, tmp_path / "n.json")
    before = counts()
    with pytest.raises(CommandError, match="nantong-2014.*--replace"):
        call_command("import_tournament", str(tmp_path / "n.json"))
    assert counts() == before


def test_a_broken_file_imports_nothing_at_all(played, tmp_path):
    data = json.loads(export(ANHUI, tmp_path / "a.json"))
    backup.delete_tournament(Tournament.objects.get(slug=ANHUI))
    User.objects.filter(username__startswith="backup-").delete()
    # The last rows written point nowhere: everything before them must go too.
    data["models"]["scoring.tableevent"][-1]["table"] = 999999
    (tmp_path / "broken.json").write_text(json.dumps(data), encoding="utf-8")
    before = counts()
    with pytest.raises(CommandError, match="999999"):
        call_command("import_tournament", str(tmp_path / "broken.json"))
    assert counts() == before
    assert not Tournament.objects.filter(slug=ANHUI).exists()


@pytest.mark.parametrize(
    "text, message",
    [
        ("not json", "JSON"),
        ('{"format": "something-else"}', "备份文件"),
        (json.dumps({"format": backup.FORMAT, "version": 99}), "99"),
    ],
)
def test_a_file_that_is_not_a_backup_of_this_version_is_refused(db, tmp_path, text, message):
    (tmp_path / "x.json").write_text(text, encoding="utf-8")
    with pytest.raises(CommandError, match=message):
        call_command("import_tournament", str(tmp_path / "x.json"))


def test_an_unknown_tournament_cannot_be_exported(db, tmp_path):
    with pytest.raises(CommandError, match="no-such"):
        call_command("export_tournament", "no-such", str(tmp_path / "x.json"))


def test_replace_deletes_only_the_tournament_of_the_file(played, tmp_path):
    export(NANTONG, tmp_path / "n.json")
    anhui = export(ANHUI, tmp_path / "a.json")
    unit = Unit.objects.get(tournament__slug=NANTONG, name="体育")
    Unit.objects.filter(pk=unit.pk).update(name="体育组")  # a change made after the backup
    call_command("import_tournament", str(tmp_path / "n.json"), "--replace")
    assert Unit.objects.filter(tournament__slug=NANTONG, name="体育").exists()
    assert not Unit.objects.filter(name="体育组").exists()
    assert export(ANHUI, tmp_path / "a2.json") == anhui


# --------------------------------------------------------------------------- SQLite <-> PostgreSQL


def _postgres_admin_url() -> str:
    return os.environ.get("BACKUP_TEST_POSTGRES", "postgres://postgres@127.0.0.1:5432")


def _other_database(tmp_path):
    """A DATABASE_URL on the backend the tests are not running on, and its cleanup."""
    if settings.DATABASES["default"]["ENGINE"].endswith("postgresql"):
        return f"sqlite:///{tmp_path / 'roundtrip.sqlite3'}", lambda: None
    import psycopg

    name = f"gc_roundtrip_{uuid.uuid4().hex[:10]}"
    try:
        admin = psycopg.connect(
            f"{_postgres_admin_url()}/postgres", autocommit=True, connect_timeout=3
        )
    except psycopg.OperationalError as exc:
        pytest.skip(f"PostgreSQL is unreachable at {_postgres_admin_url()} ({exc})")
    admin.execute(f'CREATE DATABASE "{name}"')

    def drop():
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()

    return f"{_postgres_admin_url()}/{name}", drop


def _manage(url: str, *args: str) -> str:
    env = {**os.environ, "DATABASE_URL": url, "DEBUG": "1"}
    done = subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), *args],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.django_db(transaction=True)
def test_a_played_demo_round_trips_between_sqlite_and_postgresql_byte_for_byte(tmp_path):
    from tournaments.ops.demo import load_demo

    load_demo()
    play_demo()
    enrich({t.slug: t for t in Tournament.objects.all()})
    files = {slug: export(slug, tmp_path / f"{slug}.json") for slug in (ANHUI, NANTONG)}
    url, drop = _other_database(tmp_path)
    try:
        _manage(url, "migrate", "--noinput", "-v0")
        for slug in files:
            _manage(url, "import_tournament", str(tmp_path / f"{slug}.json"))
        for slug, original in files.items():
            _manage(url, "export_tournament", slug, str(tmp_path / f"{slug}-back.json"))
            assert (tmp_path / f"{slug}-back.json").read_bytes() == original, slug
    finally:
        drop()
    for slug, original in files.items():
        rows = sum(len(r) for r in json.loads(original)["models"].values())
        print(f"{slug}: {len(original)} bytes, {rows} rows")  # noqa: T201 (figures for -s)


def test_match_results_survive_the_round_trip(played, tmp_path):
    """In plain terms: the nantong placings, its confirmed tables and recorded events."""
    event = Event.objects.get(tournament__slug=NANTONG, slug="guandan")
    winners = [(p, e.name) for p, e in draw_selectors.placings(event)]
    confirmed = TableMatch.objects.filter(
        match__round__stage__event=event, status="confirmed"
    ).count()
    events = TableEvent.objects.filter(table__match__round__stage__event=event).count()
    export(NANTONG, tmp_path / "n.json")
    call_command("import_tournament", str(tmp_path / "n.json"), "--replace")
    event = Event.objects.get(tournament__slug=NANTONG, slug="guandan")
    assert [(p, e.name) for p, e in draw_selectors.placings(event)] == winners
    assert len(winners) == 4
    assert (
        TableMatch.objects.filter(match__round__stage__event=event, status="confirmed").count()
        == confirmed
    )
    assert TableEvent.objects.filter(table__match__round__stage__event=event).count() == events


def test_score_sheets_built_are_derived_not_backed_up_and_go_with_their_tournament(
    played, tmp_path
):
    from django.utils import timezone

    from tournaments.models import SheetBuild

    event = Event.objects.get(tournament__slug=NANTONG, slug="guandan")
    SheetBuild.objects.create(
        event=event,
        language="zh-hans",
        base_url="http://testserver",
        made_on=timezone.localdate(),
        version=event.version,
        state=SheetBuild.State.DONE,
        pdf=b"%PDF-1.4 sheets",
    )
    data = json.loads(export(NANTONG, tmp_path / "n.json"))
    assert "tournaments.sheetbuild" not in data["models"]
    call_command("import_tournament", str(tmp_path / "n.json"), "--replace")
    assert not SheetBuild.objects.exists()  # the old event's copy went with it
