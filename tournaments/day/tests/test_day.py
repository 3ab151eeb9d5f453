"""The day as one plan on the demo days: planned and saved, checked, refused when it changed
meanwhile, re-planned from a time, and the command that does it."""

from __future__ import annotations

import datetime as dt
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from tournaments.day import services
from tournaments.day.read import parse_breaks, parse_places, read_day
from tournaments.models import DayPlan, HallDuty, Match, Official, Tournament

ANHUI = "anhui-2021"


@pytest.fixture
def anhui(demo):
    return Tournament.objects.get(slug=ANHUI)


def planned(tournament):
    proposal = services.propose(tournament)
    services.save_plan(tournament, fingerprint=proposal.fingerprint)
    return proposal


def test_places_and_breaks_are_read_as_people_write_them():
    assert parse_places("1-4, 7", 8) == (1, 2, 3, 4, 7)
    assert parse_places("５～６、8", 8) == (5, 6, 8)
    assert parse_places("", 3) == (1, 2, 3)
    for bad in ("0-2", "3-1", "9", "a"):
        with pytest.raises(ValueError):
            parse_places(bad, 8)
    assert parse_breaks("12:00-13:30，17：00-17:15") == (
        (dt.time(12), dt.time(13, 30)),
        (dt.time(17), dt.time(17, 15)),
    )
    with pytest.raises(ValueError):
        parse_breaks("13:30-12:00")


def test_the_anhui_day_is_planned_with_no_clash_and_every_match_has_its_place_and_official(anhui):
    before = services.check_day(anhui)
    assert before.unscheduled  # the demo is drawn, not scheduled
    proposal = planned(anhui)
    assert not proposal.plan.unplaced and not proposal.plan.unrefereed
    day = services.check_day(anhui)
    assert day.clashes == [] and day.unscheduled == [] and day.uncovered == []
    matches = Match.objects.filter(round__stage__event__tournament=anhui).exclude(
        status=Match.Status.BYE
    )
    assert all(m.scheduled_at and m.venue_id and m.first_table for m in matches)
    # Badminton stays on courts 1–4 of 一楼, table tennis on its tables 5–8.
    for m in matches.filter(round__stage__event__slug="badminton"):
        assert m.venue.name == "轻纺楼一楼" and 1 <= m.first_table <= 4
    for m in matches.filter(round__stage__event__slug="table-tennis"):
        assert m.venue.name == "轻纺楼一楼" and 5 <= m.first_table <= 8
    # Nothing during lunch; two referees and the chief cover three halls.
    local = [timezone.localtime(m.scheduled_at).time() for m in matches]
    assert not any(dt.time(12) <= t < dt.time(13, 30) for t in local)
    assert set(HallDuty.objects.values_list("official__name", flat=True)) <= {
        "肖慧",
        "周铃",
        "梁勇",
    }
    assert DayPlan.objects.get(tournament=anhui).planned_at is not None


def test_a_plan_shown_is_saved_only_if_the_day_did_not_change_meanwhile(anhui):
    proposal = services.propose(anhui)
    anhui.events.filter(slug="xiangqi").update(match_minutes=90)
    with pytest.raises(services.PlanError) as refused:
        services.save_plan(anhui, fingerprint=proposal.fingerprint)
    assert refused.value.code == "changed"
    assert not Match.objects.filter(
        round__stage__event__tournament=anhui, scheduled_at__isnull=False
    ).exists()


def test_what_has_started_stays_and_the_rest_is_planned_from_then(anhui):
    planned(anhui)
    first = (
        Match.objects.filter(
            round__stage__event__slug="badminton", round__stage__event__tournament=anhui
        )
        .exclude(status=Match.Status.BYE)
        .order_by("scheduled_at", "pk")
        .first()
    )
    at, table = first.scheduled_at, first.first_table
    Match.objects.filter(pk=first.pk).update(status=Match.Status.IN_PROGRESS)
    read = read_day(anhui)
    from_minute = read.minute_of(at) + 60
    proposal = services.propose(anhui, from_minute=from_minute)
    services.save_plan(anhui, fingerprint=proposal.fingerprint, from_minute=from_minute)
    first.refresh_from_db()
    assert (first.scheduled_at, first.first_table) == (at, table)
    pending = Match.objects.filter(
        round__stage__event__tournament=anhui, status=Match.Status.PENDING
    )
    assert all(m.scheduled_at >= read.at(from_minute) for m in pending)
    assert services.check_day(anhui).clashes == []


def test_the_command_plans_the_day_and_its_check_names_a_clash_made_by_hand(anhui):
    out = StringIO()
    call_command("schedule_day", ANHUI, stdout=out)
    assert out.getvalue().startswith("anhui-2021: 44 matches planned in 3 halls")
    out = StringIO()
    call_command("schedule_day", ANHUI, "--check", stdout=out)
    assert "0 clashes" in out.getvalue()
    # By hand: table tennis put on badminton's court at the same time.
    badminton = (
        Match.objects.filter(
            round__stage__event__slug="badminton", round__stage__event__tournament=anhui
        )
        .exclude(status=Match.Status.BYE)
        .order_by("scheduled_at", "first_table")
        .first()
    )
    tt = (
        Match.objects.filter(
            round__stage__event__slug="table-tennis", round__stage__event__tournament=anhui
        )
        .exclude(status=Match.Status.BYE)
        .order_by("scheduled_at", "first_table")
        .first()
    )
    Match.objects.filter(pk=tt.pk).update(
        scheduled_at=badminton.scheduled_at,
        venue=badminton.venue,
        first_table=badminton.first_table,
    )
    out = StringIO()
    with pytest.raises(SystemExit) as exit_code:
        call_command("schedule_day", ANHUI, "--check", stdout=out)
    assert exit_code.value.code == 1
    text = out.getvalue()
    line = next(line for line in text.splitlines() if line.startswith("place:"))
    assert "羽毛球" in line and "乒乓球" in line and str(badminton) in line and str(tt) in line
    assert f"轻纺楼一楼 {badminton.first_table}号" in line


def test_an_official_in_two_halls_at_once_is_named(anhui):
    planned(anhui)
    duties = list(HallDuty.objects.order_by("starts_at"))
    a = duties[0]
    b = next(d for d in duties if d.venue_id != a.venue_id and d.official_id != a.official_id)
    HallDuty.objects.filter(pk=b.pk).update(official=a.official, starts_at=a.starts_at)
    kinds = {c.kind for c in services.check_day(anhui).clashes}
    assert kinds == {"official"}


def test_the_command_refuses_an_unknown_tournament_and_a_bad_time(db):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError):
        call_command("schedule_day", "nowhere")
    Tournament.objects.create(
        slug="empty", name="空", notice_title="通知", starts_on=dt.date(2026, 5, 1)
    )
    with pytest.raises(CommandError, match="HH:MM"):
        call_command("schedule_day", "empty", "--from", "25:00")


def test_a_referee_off_duty_is_not_placed(anhui):
    Official.objects.filter(tournament=anhui, name="肖慧").update(on_duty=False)
    planned(anhui)
    assert not HallDuty.objects.filter(official__name="肖慧").exists()
    assert services.check_day(anhui).uncovered == []
    assert reverse("day:timeline", args=[ANHUI]) == "/t/anhui-2021/schedule/"


def test_a_day_not_set_yet_starts_when_the_notice_says(db):
    from tournaments.day.read import settings_of

    t = Tournament.objects.create(
        slug="notice",
        name="通知",
        notice_title="通知",
        starts_on=dt.date(2026, 5, 1),
        start_time=dt.time(14, 0),
    )
    assert settings_of(t).starts_at == dt.time(14, 0)
    t.start_time = None
    assert settings_of(t).starts_at == dt.time(8, 30)
