"""The 全天赛程 page, the public timeline and schedule.json, through requests."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from tournaments.models import DayPlan, Event, EventHall, HallDuty, Match, Official, Tournament

ANHUI = "anhui-2021"


@pytest.fixture
def organiser(client, demo):
    user = get_user_model().objects.create_user("wenti")
    Official.objects.create(
        tournament=Tournament.objects.get(slug=ANHUI), name="文体", role="organiser", user=user
    )
    client.force_login(user)
    return user


def page_form(html: str) -> dict:
    """The settings form's fields as the page fills them."""
    form = html[html.index('class="day-settings"') :]
    data = {"action": "preview"}
    for name, value in re.findall(r'<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"', form):
        if name not in ("csrfmiddlewaretoken", "action"):
            data[name] = value
    for name in re.findall(r'<input type="checkbox" name="([^"]+)"[^>]*checked', form):
        data[name] = "on"
    return data


def test_the_organiser_previews_the_day_then_saves_it_in_one_tap(client, organiser):
    url = reverse("day:plan", args=[ANHUI])
    html = client.get(url).content.decode()
    assert "全天赛程" in html and "未排时间或场地" in html
    data = page_form(html)
    assert data["day-starts_at"] == "08:30" and data["day-breaks"] == "12:00-13:30"
    response = client.post(url, data)
    assert response.status_code == 200
    html = response.content.decode()
    assert "排法预览（尚未保存）" in html and "保存这个赛程" in html
    assert "<td>轻纺楼一楼 5号</td><td>08:30–08:50" in html  # table tennis on its own tables
    assert not Match.objects.filter(scheduled_at__isnull=False).exists()  # nothing yet
    fingerprint = re.search(r'name="fingerprint" value="([^"]+)"', html).group(1)
    response = client.post(url, {"action": "save", "fingerprint": fingerprint}, follow=True)
    assert "全天赛程已保存。" in response.content.decode()
    assert "没有冲突；每场都有时间、场地和裁判。" in response.content.decode()
    assert HallDuty.objects.exists()


def test_bad_settings_are_refused_with_their_message_and_nothing_is_saved(client, organiser):
    url = reverse("day:plan", args=[ANHUI])
    data = page_form(client.get(url).content.decode())
    badminton = Event.objects.get(tournament__slug=ANHUI, slug="badminton")
    venue = badminton.tournament.venues.get(name="轻纺楼一楼")
    data |= {
        "day-breaks": "午饭",
        f"event-{badminton.pk}-minutes": "3",
        f"event-{badminton.pk}-hall-{venue.pk}": "1-12",
        "day-ends_at": "07:00",
    }
    response = client.post(url, data)
    assert response.status_code == 422
    html = response.content.decode()
    assert "休息时段“午饭”无法识别" in html
    assert "每场时长须是5到600之间的整数" in html
    assert "“1-12”不是轻纺楼一楼的桌号（1到8" in html
    assert "当天结束须晚于开始。" in html
    assert DayPlan.objects.get(tournament__slug=ANHUI).breaks == "12:00-13:30"
    assert EventHall.objects.get(event=badminton).places == "1-4"
    assert Event.objects.get(pk=badminton.pk).match_minutes is None


def test_a_plan_changed_meanwhile_is_shown_again_not_saved(client, organiser):
    url = reverse("day:plan", args=[ANHUI])
    response = client.post(url, {"action": "save", "fingerprint": "stale"})
    assert response.status_code == 409
    assert "请查看新的排法后再保存" in response.content.decode()
    assert not Match.objects.filter(scheduled_at__isnull=False).exists()


def test_only_the_organiser_plans_the_day(client, demo):
    url = reverse("day:plan", args=[ANHUI])
    assert client.get(url).status_code in (302, 403)
    client.force_login(get_user_model().objects.create_user("someone"))
    assert client.get(url).status_code == 403


def test_everyone_sees_the_day_by_hall_and_time_and_its_json(
    client, demo, django_assert_max_num_queries
):
    from django.core.management import call_command

    call_command("schedule_day", ANHUI, stdout=StringIO())
    with django_assert_max_num_queries(20):
        response = client.get(reverse("day:timeline", args=[ANHUI]))
    html = response.content.decode()
    assert response.status_code == 200
    for hall in ("轻纺楼四楼会议室", "轻纺楼3A09", "轻纺楼一楼"):
        assert hall in html
    assert "羽毛球 · 1/8决赛" in html and "裁判 " in html
    assert 'hx-trigger="every' in html
    # Not the tournament page's indented list of times (.timeline): the halls take the width.
    assert 'class="day-timeline live"' in html and not re.search(r'class="timeline[ "]', html)
    partial = client.get(reverse("day:timeline", args=[ANHUI]), HTTP_HX_REQUEST="true")
    assert partial.content.decode().startswith('\n<div id="timeline-body"') or (
        'id="timeline-body"' in partial.content.decode()[:200]
    )
    data = client.get(reverse("day:json", args=[ANHUI])).json()
    assert data["tournament"] == ANHUI and isinstance(data["version"], int)
    first = data["matches"][0]
    assert set(first) >= {
        "id",
        "event",
        "round",
        "status",
        "starts_at",
        "ends_at",
        "venue",
        "tables",
        "referee",
        "after",
        "home",
        "away",
    }
    assert first["starts_at"].endswith("+08:00") and first["referee"]["name"]
    later = [m for m in data["matches"] if m["after"]]
    assert later and all(isinstance(a, int) for m in later for a in m["after"])
    by_id = {m["id"]: m for m in data["matches"]}
    for m in later:
        for a in m["after"]:
            assert by_id[a]["ends_at"] <= m["starts_at"]


def test_sides_not_yet_known_are_named_in_the_readers_language(client, organiser):
    """A final's sides before its semi-finals: 待定 in Chinese, "To be decided" in English, on
    the timeline and in the organiser's preview alike (not the model's Chinese __str__)."""
    from django.core.management import call_command

    call_command("schedule_day", ANHUI, stdout=StringIO())
    timeline = reverse("day:timeline", args=[ANHUI])
    assert "待定——待定" in client.get(timeline).content.decode()
    client.cookies["django_language"] = "en"
    html = client.get(timeline).content.decode()
    assert "To be decided – To be decided" in html and "待定" not in html
    plan = reverse("day:plan", args=[ANHUI])
    html = client.post(plan, page_form(client.get(plan).content.decode())).content.decode()
    preview = html[html.index('class="panel day-proposal"') : html.index('class="day-settings"')]
    assert "To be decided – To be decided" in preview and "待定" not in preview


def test_a_hand_edit_that_makes_a_clash_is_refused_naming_the_other_match_unless_accepted(
    client, organiser
):
    from django.core.management import call_command
    from django.utils import timezone

    call_command("schedule_day", ANHUI, stdout=StringIO())
    matches = Match.objects.filter(round__stage__event__tournament__slug=ANHUI).exclude(
        status=Match.Status.BYE
    )
    badminton = matches.filter(round__stage__event__slug="badminton").order_by(
        "scheduled_at", "first_table"
    )[0]
    tt = matches.filter(round__stage__event__slug="table-tennis").order_by("scheduled_at")[0]
    url = reverse("draw:schedule", args=[ANHUI, "table-tennis"])
    at = timezone.localtime(badminton.scheduled_at)
    form = {
        f"round-{tt.round_id}": at.strftime("%Y-%m-%dT%H:%M"),
        f"venue-{tt.pk}": str(badminton.venue_id),
        f"table-{tt.pk}": str(badminton.first_table),
    }
    response = client.post(url, form)
    assert response.status_code == 422
    html = response.content.decode()
    where = f"轻纺楼一楼 {badminton.first_table}号 {at:%H:%M} 已安排 羽毛球 · 1/8决赛 {badminton}"
    assert where in html
    tt.refresh_from_db()
    assert tt.first_table != badminton.first_table  # nothing saved
    response = client.post(url, form | {"accept-clashes": "1"})
    assert response.status_code == 302
    assert set(Match.objects.filter(clash_accepted=True).values_list("pk", flat=True)) >= {
        tt.pk,
        badminton.pk,
    }
    html = client.get(reverse("day:timeline", args=[ANHUI])).content.decode()
    assert "有冲突" in html
    dashboard = client.get(reverse("manage:dashboard", args=[ANHUI])).content.decode()
    assert "处赛程冲突" not in dashboard  # accepted: counted no more


def test_times_stay_editable_on_an_events_schedule_page(client, organiser):
    import datetime as dt

    from django.core.management import call_command
    from django.utils import timezone

    call_command("schedule_day", ANHUI, stdout=StringIO())
    chess = Match.objects.filter(
        round__stage__event__tournament__slug=ANHUI, round__stage__event__slug="xiangqi"
    ).exclude(status=Match.Status.BYE)
    final = chess.get(round__name="决赛", is_third_place=False)
    url = reverse("draw:schedule", args=[ANHUI, "xiangqi"])
    later = timezone.localtime(final.scheduled_at) + dt.timedelta(hours=2)
    response = client.post(url, {f"at-{final.pk}": later.strftime("%Y-%m-%dT%H:%M")})
    assert response.status_code == 302
    final.refresh_from_db()
    assert timezone.localtime(final.scheduled_at) == later
    # A round's start moved: its matches move with it.
    first = chess.filter(round__number=1).order_by("scheduled_at")
    times = [m.scheduled_at for m in first]
    rnd = first[0].round
    start = timezone.localtime(rnd.starts_at) - dt.timedelta(minutes=30)
    response = client.post(url, {f"round-{rnd.pk}": start.strftime("%Y-%m-%dT%H:%M")})
    # Earlier, in a hall only chess uses: nothing clashes, and the round's matches follow.
    assert response.status_code == 302
    again = chess.filter(round__number=1).order_by("scheduled_at")
    assert [m.scheduled_at for m in again] == [t - dt.timedelta(minutes=30) for t in times]
    response = client.post(url, {f"at-{final.pk}": "明天"})
    assert response.status_code == 422 and "开始时间“明天”无法识别" in response.content.decode()


def test_an_official_on_duty_in_a_hall_enters_any_match_there_and_sees_it_on_my_tables(
    client, demo
):
    from django.core.management import call_command

    from scoring.models import TableMatch
    from scoring.services.tables import ensure_tables
    from tournaments.access import can_enter_table

    call_command("schedule_day", ANHUI, stdout=StringIO())
    anhui = Tournament.objects.get(slug=ANHUI)
    duty = HallDuty.objects.filter(venue__name="轻纺楼一楼").order_by("starts_at").first()
    user = get_user_model().objects.create_user("hall-referee")
    Official.objects.filter(pk=duty.official_id).update(user=user)
    inside = (
        Match.objects.filter(
            venue=duty.venue,
            scheduled_at__gte=duty.starts_at,
            scheduled_at__lt=duty.ends_at,
            home__isnull=False,
            away__isnull=False,
        )
        .order_by("scheduled_at")
        .first()
    )
    elsewhere = (
        Match.objects.filter(
            round__stage__event__tournament=anhui, home__isnull=False, away__isnull=False
        )
        .exclude(venue=duty.venue)
        .exclude(referee__user=user)
        .first()
    )
    table = ensure_tables(inside)[0]
    other = ensure_tables(elsewhere)[0]
    assert inside.referee_id is None  # nobody named for the match itself
    assert can_enter_table(user, TableMatch.objects.get(pk=table.pk))
    covering_other = HallDuty.objects.filter(
        official=duty.official,
        venue=elsewhere.venue,
        starts_at__lte=elsewhere.scheduled_at,
        ends_at__gt=elsewhere.scheduled_at,
    ).exists()
    assert can_enter_table(user, TableMatch.objects.get(pk=other.pk)) == covering_other
    client.force_login(user)
    html = client.get(reverse("scoring:my-tables", args=[ANHUI])).content.decode()
    assert "场地执裁：轻纺楼一楼" in html
    assert f"/tables/{table.pk}/" in html


def test_an_events_automatic_schedule_that_would_clash_with_another_event_is_refused(
    client, organiser
):
    from django.core.management import call_command

    call_command("schedule_day", ANHUI, stdout=StringIO())
    hall = Tournament.objects.get(slug=ANHUI).venues.get(name="轻纺楼一楼")
    chess = Match.objects.filter(round__stage__event__slug="xiangqi")
    before = dict(chess.values_list("pk", "venue_id"))
    # Chess moved into the ball hall at 08:30: onto the badminton courts.
    response = client.post(
        reverse("draw:schedule", args=[ANHUI, "xiangqi"]),
        {"auto": "1", "start": "2021-01-27T08:30", "minutes": "50", "venue": hall.pk},
    )
    assert response.status_code == 422
    html = response.content.decode()
    assert "这样排会与其他项目冲突，未保存" in html and "羽毛球" in html
    assert dict(chess.values_list("pk", "venue_id")) == before


def test_when_the_day_runs_late_the_overrun_shows_what_it_holds_up_and_the_rest_is_replanned(
    client, organiser, monkeypatch
):
    import datetime as dt

    from django.core.management import call_command
    from django.utils import timezone

    from tournaments.day import selectors

    call_command("schedule_day", ANHUI, stdout=StringIO())
    chess = Match.objects.filter(round__stage__event__slug="xiangqi").exclude(
        status=Match.Status.BYE
    )
    first = chess.filter(round__number=1).order_by("scheduled_at", "first_table")[0]
    Match.objects.filter(pk=first.pk).update(status=Match.Status.IN_PROGRESS)
    # 09:40 in Hefei: the 08:30 chess match (45 minutes) is still going.
    now = timezone.make_aware(dt.datetime(2021, 1, 27, 9, 40))
    monkeypatch.setattr(selectors.timezone, "now", lambda: now)
    html = client.get(reverse("day:timeline", args=[ANHUI])).content.decode()
    assert "超时 · 顺延：" in html and "1/4决赛" in html[html.index("超时 · 顺延：") :]
    url = reverse("day:plan", args=[ANHUI])
    response = client.post(url, {"action": "replan"})
    html = response.content.decode()
    assert "从09:40起重排：已开始或已结束的比赛不动。" in html
    fingerprint = re.search(r'name="fingerprint" value="([^"]+)"', html).group(1)
    from_minute = re.search(r'name="from_minute" value="(\d+)"', html).group(1)
    assert from_minute == str(9 * 60 + 40)
    response = client.post(
        url, {"action": "save", "fingerprint": fingerprint, "from_minute": from_minute}
    )
    assert response.status_code == 302
    started = Match.objects.get(pk=first.pk)
    assert started.scheduled_at == first.scheduled_at  # left alone
    pending = chess.filter(status=Match.Status.PENDING)
    assert all(m.scheduled_at >= now for m in pending)


def test_the_day_plan_prints_one_page_per_hall_for_the_wall(client, demo):
    import io

    from django.core.management import call_command
    from pypdf import PdfReader

    call_command("schedule_day", ANHUI, stdout=StringIO())
    for size in ("", "A3"):
        response = client.get(reverse("documents:day-pdf", args=[ANHUI]), {"size": size})
        assert response["Content-Type"] == "application/pdf"
        reader = PdfReader(io.BytesIO(response.content))
        # Each hall from a page of its own (四楼会议室, 3A09, 一楼), its header on each.
        assert 3 <= len(reader.pages) <= 6
        first = reader.pages[0]
        assert first.mediabox.width > first.mediabox.height  # landscape
        text = "".join(page.extract_text() for page in reader.pages)
        for words in ("全天赛程 · 轻纺楼一楼", "羽毛球 · 1/8决赛", "场地执裁：", "掼蛋 · 决赛"):
            assert words in text
        for hall in ("轻纺楼四楼会议室", "轻纺楼3A09", "轻纺楼一楼"):
            assert sum(f"全天赛程 · {hall}" in page.extract_text() for page in reader.pages) == 1


def test_the_hall_projector_shows_each_court_now_and_next_across_events(client, demo, monkeypatch):
    import datetime as dt

    from django.core.management import call_command
    from django.utils import timezone

    from tournaments.day import selectors

    call_command("schedule_day", ANHUI, stdout=StringIO())
    hall = Tournament.objects.get(slug=ANHUI).venues.get(name="轻纺楼一楼")
    playing = Match.objects.filter(venue=hall, first_table=5).order_by("scheduled_at")[0]
    Match.objects.filter(pk=playing.pk).update(status=Match.Status.IN_PROGRESS)
    monkeypatch.setattr(
        selectors.timezone, "now", lambda: timezone.make_aware(dt.datetime(2021, 1, 27, 8, 40))
    )
    url = reverse("day:hall-screen", args=[ANHUI, hall.pk])
    html = client.get(url).content.decode()
    rows = re.findall(r"<tr>\s*<th scope=\"row\">(.*?)</tr>", html, re.S)
    assert len(rows) == 8  # courts 1–4 (badminton) and tables 5–8 (table tennis)
    assert "羽毛球 · 1/8决赛" in rows[0] and "乒乓球 · 1/8决赛" in rows[4]
    assert str(playing) in rows[4] and "进行中" in rows[4]
    assert client.get(reverse("day:hall-screen", args=[ANHUI, 999999])).status_code == 404
    timeline = client.get(reverse("day:timeline", args=[ANHUI])).content.decode()
    assert url in timeline


def test_the_organiser_places_an_official_on_a_hall_by_hand_never_in_two_halls_at_once(
    client, organiser
):
    anhui = Tournament.objects.get(slug=ANHUI)
    url = reverse("day:plan", args=[ANHUI])
    zhou = anhui.officials.get(name="周铃")
    ball = anhui.venues.get(name="轻纺楼一楼")
    chess = anhui.venues.get(name="轻纺楼3A09")
    add = {"action": "add-duty", "official": zhou.pk, "venue": ball.pk}
    response = client.post(url, add | {"from": "08:30", "until": "12:00"}, follow=True)
    assert "已安排场地执裁。" in response.content.decode()
    duty = HallDuty.objects.get(official=zhou)
    assert timezone_local(duty.starts_at) == "08:30" and timezone_local(duty.ends_at) == "12:00"
    response = client.post(url, add | {"venue": chess.pk, "from": "11:00", "until": "13:00"})
    assert response.status_code == 422
    assert "周铃此时已在轻纺楼一楼执裁（08:30–12:00）" in response.content.decode()
    response = client.post(url, add | {"from": "12:00", "until": "11:00"})
    assert response.status_code == 422 and "结束晚于开始" in response.content.decode()
    assert HallDuty.objects.count() == 1
    client.post(url, {"action": "remove-duty", "duty": duty.pk})
    assert not HallDuty.objects.exists()


def timezone_local(at) -> str:
    from django.utils import timezone

    return timezone.localtime(at).strftime("%H:%M")


def test_a_duty_is_placed_from_and_until_in_english(client, organiser):
    """Regression: the 场地执裁 form's two times read "Started" and "Ends" in English, the
    words of a table's start and of the day's end."""
    plan = reverse("day:plan", args=[ANHUI])

    def labels() -> list[str]:
        html = client.get(plan).content.decode()
        form = re.search(r'<form method="post" class="duty-add">.*?</form>', html, re.S)
        return re.findall(r'<span>([^<]*)</span><input type="time"', form.group(0))

    assert labels() == ["开始", "结束"]
    client.cookies["django_language"] = "en"
    assert labels() == ["From", "Until"]
