"""The organiser's set-up through the pages, no /admin/: 新建比赛, venues, 复制往届比赛, the
dashboard that walks the day, and the status buttons that move back only where safe."""

import datetime as dt

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from scoring.models import TableMatch
from scoring.services.tables import ensure_tables
from tournaments.draw.make import draw_event
from tournaments.models import Draw, Entry, Event, Match, Official, Player, Tournament, Unit, Venue

User = get_user_model()
S = Tournament.Status

NEW = {
    "name": "第三届教工掼蛋比赛",
    "slug": "nantong-2016",
    "organiser_name": "江苏省南通中学工会",
    "starts_on": "2016-01-10",
    "start_time": "13:30",
    "registration_deadline": "2016-01-04T17:00",
    "leaders_meeting_at": "2016-01-06T16:00",
    "leaders_meeting_place": "三楼会议室",
    "confirmation": "official",
    "notice_title": "关于举行第三届教工掼蛋比赛的通知",
    "notice_addressee": "各工会小组：",
    "notice_text": "一、比赛时间\n2016年1月10日",
    "rules_title": "比赛规则",
    "rules_text": "一、计分",
}


@pytest.fixture
def boss(db):
    return User.objects.create_superuser("organiser", password="x")


def test_the_home_page_offers_a_new_tournament_and_no_longer_sends_anyone_to_admin(client, boss):
    text = client.get("/").content.decode()
    assert "新建比赛" not in text and "管理后台" not in text and "/admin/" not in text
    client.force_login(boss)
    text = client.get("/").content.decode()
    assert reverse("setup:new") in text and "新建比赛" in text
    assert "管理后台" not in text


def test_a_new_tournament_keeps_the_form_on_error_then_saves_a_draft(client, boss):
    client.force_login(boss)
    url = reverse("setup:new")
    bad = {**NEW, "slug": "第三届", "notice_title": "", "registration_deadline": "2016-01-11T09:00"}
    response = client.post(url, bad)
    assert response.status_code == 422
    text = response.content.decode()
    assert "标识只能由小写字母、数字、连字符和下划线组成" in text
    assert "这个字段是必填项。" in text  # the notice title
    assert "报名截止时间不能晚于比赛开始时间，请改在比赛开始之前。" in text
    assert "第三届教工掼蛋比赛" in text and "一、比赛时间" in text  # what was typed is kept
    assert not Tournament.objects.exists()
    response = client.post(url, NEW)
    t = Tournament.objects.get(slug="nantong-2016")
    assert response.status_code == 302 and response["Location"] == reverse(
        "setup:venues", args=[t.slug]
    )
    assert t.status == S.DRAFT and t.leaders_meeting_place == "三楼会议室"
    assert t.rules_text == "一、计分" and t.certificate_title == "荣誉证书"
    response = client.post(url, NEW)  # the same address twice
    assert response.status_code == 422
    assert "标识“nantong-2016”已被另一场比赛使用" in response.content.decode()


def test_an_organiser_who_is_not_staff_starts_a_tournament_and_organises_it(client, demo):
    wenti = User.objects.create_user("wenti", password="x")
    Official.objects.create(
        tournament=demo["nantong-2014"], name="文体委员", role="organiser", user=wenti
    )
    nobody = User.objects.create_user("nobody", password="x")
    client.force_login(nobody)
    assert client.get(reverse("setup:new")).status_code == 403
    client.force_login(wenti)
    assert client.post(reverse("setup:new"), NEW).status_code == 302
    t = Tournament.objects.get(slug="nantong-2016")
    assert t.officials.get(user=wenti).role == Official.Role.ORGANISER
    assert client.get(reverse("manage:dashboard", args=[t.slug])).status_code == 200
    assert "第三届教工掼蛋比赛" in client.get("/").content.decode()  # their draft is listed


def test_the_deadline_after_the_start_is_refused_on_the_settings_page(
    client, boss, make_tournament
):
    t = make_tournament(starts_on=dt.date(2026, 12, 1))
    client.force_login(boss)
    data = {
        "name": t.name,
        "organiser_name": t.organiser_name,
        "starts_on": "2026-12-01",
        "start_time": "08:30",
        "registration_deadline": "2026-12-01T09:00",
        "notice_title": t.notice_title,
        "notice_text": t.notice_text,
        "certificate_title": t.certificate_title,
        "certificate_text": t.certificate_text,
        "confirmation": "official",
    }
    response = client.post(reverse("manage:settings", args=[t.slug]), data)
    assert response.status_code == 422
    assert "报名截止时间不能晚于比赛开始时间" in response.content.decode()
    assert 'value="2026-12-01T09:00"' in response.content.decode()
    assert Tournament.objects.get(pk=t.pk).registration_deadline is None
    data["registration_deadline"] = "2026-12-01T08:00"
    assert client.post(reverse("manage:settings", args=[t.slug]), data).status_code == 302


def test_the_results_rules_are_set_on_the_settings_page_with_their_labels(
    client, boss, make_tournament
):
    t = make_tournament(starts_on=dt.date(2026, 12, 1))
    assert (t.team_disqualification, t.correction_signoff) == ("table", "second")
    client.force_login(boss)
    url = reverse("manage:settings", args=[t.slug])
    html = client.get(url).content.decode()
    for text in (
        "团体赛中一对被取消资格",
        "只判负该台",
        "全队取消比赛资格",
        "此后的比赛对手不战而胜，本队不排名次",
        "已确认结果的更正",
        "更正后由另一人再确认",
        "由两名仲裁组成员署名更正，即时生效",
        "另一名成员在更正页输入密码共同署名",
    ):
        assert text in html, text
    data = {
        "name": t.name,
        "organiser_name": t.organiser_name,
        "starts_on": "2026-12-01",
        "notice_title": t.notice_title,
        "notice_text": t.notice_text,
        "certificate_title": t.certificate_title,
        "certificate_text": t.certificate_text,
        "confirmation": "official",
        "team_disqualification": "whole",
        "correction_signoff": "panel",
    }
    response = client.post(url, data)
    assert response.status_code == 422
    assert "选择一个有效的选项" in response.content.decode()
    assert Tournament.objects.get(pk=t.pk).correction_signoff == "second"  # nothing saved
    data["team_disqualification"] = "team"
    assert client.post(url, data).status_code == 302
    t.refresh_from_db()
    assert (t.team_disqualification, t.correction_signoff) == ("team", "panel")
    html = client.get(url).content.decode()
    assert 'value="team" selected' in html and 'value="panel" selected' in html
    # A page posted without them (an older form) keeps what was set.
    del data["team_disqualification"], data["correction_signoff"]
    assert client.post(url, data).status_code == 302
    t.refresh_from_db()
    assert (t.team_disqualification, t.correction_signoff) == ("team", "panel")


def test_venues_are_added_changed_and_removed_with_their_table_counts(
    client, boss, make_tournament
):
    t = make_tournament()
    client.force_login(boss)
    url = reverse("setup:venues", args=[t.slug])
    for tables in ("0", "201", "三"):
        response = client.post(url, {"name": "活动中心", "tables": tables})
        assert response.status_code == 422
        assert "桌数须是1到200之间的整数。" in response.content.decode()
        assert 'value="活动中心"' in response.content.decode()
    assert client.post(url, {"name": "活动中心", "tables": "12"}).status_code == 302
    response = client.post(url, {"name": "活动中心", "tables": "3"})
    assert "已有名为“活动中心”的场地。" in response.content.decode()
    venue = Venue.objects.get(tournament=t)
    assert venue.tables == 12
    assert "活动中心" in client.get(url).content.decode()
    edit = reverse("setup:venue-edit", args=[t.slug, venue.pk])
    assert client.post(edit, {"name": "活动中心", "tables": "500"}).status_code == 422
    assert client.post(edit, {"name": "二楼活动中心", "tables": "16"}).status_code == 302
    venue.refresh_from_db()
    assert (venue.name, venue.tables) == ("二楼活动中心", 16)
    delete = reverse("setup:venue-delete", args=[t.slug, venue.pk])
    response = client.post(delete, {}, follow=True)
    assert "删除场地须先勾选“确认删除”。" in response.content.decode()
    assert Venue.objects.filter(pk=venue.pk).exists()
    client.post(delete, {"confirm": "1"})
    assert not Venue.objects.filter(pk=venue.pk).exists()


def test_a_venue_on_the_schedule_is_not_removed(client, boss, demo):
    nantong = demo["nantong-2014"]
    venue = nantong.venues.first()
    Match.objects.filter(round__stage__event__tournament=nantong).update(venue=venue)
    client.force_login(boss)
    delete = reverse("setup:venue-delete", args=[nantong.slug, venue.pk])
    response = client.post(delete, {"confirm": "1"}, follow=True)
    assert "已排入赛程，不能删除" in response.content.decode()
    assert Venue.objects.filter(pk=venue.pk).exists()


def test_copying_last_years_tournament_carries_the_set_up_and_nothing_of_the_day(
    client, boss, demo
):
    nantong = demo["nantong-2014"]
    referee = User.objects.create_user("zhouling", password="x")
    Official.objects.create(tournament=nantong, name="周铃", role="referee", user=referee)
    client.force_login(boss)
    url = reverse("setup:copy", args=[nantong.slug])
    page = client.get(url).content.decode()
    assert "教务物理联队" in page and "周铃" in page and "不带入" in page
    data = {
        "slug": "nantong-2015",
        "name": "江苏省南通中学工会第三届“轻松假日”教工扑克牌（掼蛋）比赛",
        "notice_title": "关于举行第三届“轻松假日”教工扑克牌（掼蛋）比赛的通知",
        "starts_on": "2015-01-10",
        "start_time": "13:30",
        "registration_deadline": "2015-01-12T12:00",
    }
    response = client.post(url, data)
    assert response.status_code == 422
    assert "报名截止时间不能晚于比赛开始时间" in response.content.decode()
    assert 'value="nantong-2015"' in response.content.decode()
    response = client.post(url, {**data, "slug": nantong.slug})
    assert response.status_code == 422 and "已被另一场比赛使用" in response.content.decode()
    data["registration_deadline"] = "2015-01-05T12:00"
    response = client.post(url, data)
    assert response.status_code == 302
    new = Tournament.objects.get(slug="nantong-2015")
    assert response["Location"] == reverse("manage:dashboard", args=[new.slug])
    assert new.status == S.DRAFT and new.starts_on == dt.date(2015, 1, 10)
    assert new.notice_text == nantong.notice_text and new.rules_text == nantong.rules_text
    assert new.organiser_name == nantong.organiser_name
    old_event, event = nantong.events.get(), new.events.get()
    assert (event.slug, event.discipline, event.ruleset, event.pairs_per_team) == (
        old_event.slug,
        old_event.discipline,
        old_event.ruleset,
        old_event.pairs_per_team,
    )
    assert event.drawn_at is None and event.venue.tournament_id == new.pk
    assert list(new.venues.values_list("name", "tables")) == list(
        nantong.venues.values_list("name", "tables")
    )
    assert sorted(new.units.values_list("name", flat=True)) == sorted(
        nantong.units.values_list("name", flat=True)
    )
    team = new.units.get(name="教务物理联队")
    assert sorted(m.name for m in team.members.all()) == ["教务", "物理"]
    assert all(m.tournament_id == new.pk for m in team.members.all())
    assert new.officials.get(name="周铃").user == referee
    assert new.officials.count() == nantong.officials.count()
    assert not Entry.objects.filter(event__tournament=new).exists()
    assert not Player.objects.filter(tournament=new).exists()
    assert not Draw.objects.filter(event__tournament=new).exists()
    assert not Unit.objects.filter(tournament=new, leaders__isnull=False).exists()
    # The old year is untouched.
    assert Entry.objects.filter(event__tournament=nantong).count() == 8


def test_the_dashboard_walks_the_day_and_links_every_events_pages(
    client, boss, demo, django_assert_max_num_queries
):
    nantong = demo["nantong-2014"]
    client.force_login(boss)
    url = reverse("manage:dashboard", args=[nantong.slug])
    match = Match.objects.filter(
        round__stage__event__tournament=nantong, round__number=1, status="pending"
    ).first()
    table = ensure_tables(match)[0]
    TableMatch.objects.filter(pk=table.pk).update(status=TableMatch.Status.SUBMITTED)
    with django_assert_max_num_queries(40):
        response = client.get(url)
    text = response.content.decode()
    for step in ("通知", "报名", "抽签", "赛程与裁判", "比赛", "成绩"):
        assert f"<strong>{step}</strong>" in text
    assert "1/1个项目已抽签" in text
    assert "8场未排时间或场地" in text  # drawn, not yet scheduled: the day plan's count
    assert "还没有裁判" in text
    assert "1张台的结果等待确认" in text
    for name, args in (
        ("draw:draw", [nantong.slug, "guandan"]),
        ("draw:schedule", [nantong.slug, "guandan"]),
        ("live:bracket", [nantong.slug, "guandan"]),
        ("scoring:board", [nantong.slug, "guandan"]),
        ("documents:draw-pdf", [nantong.slug, "guandan"]),
        ("documents:bracket-pdf", [nantong.slug, "guandan"]),
        ("documents:scoresheets-pdf", [nantong.slug, "guandan"]),
        ("documents:results-pdf", [nantong.slug]),
        ("scoring:desk", [nantong.slug]),
        ("manage:officials", [nantong.slug]),
        ("setup:venues", [nantong.slug]),
        ("setup:copy", [nantong.slug]),
        ("day:plan", [nantong.slug]),
    ):
        assert f'href="{reverse(name, args=args)}"' in text, name
    # Drawn: no registration buttons, no way back to draft.
    assert 'value="open"' not in text and 'value="draft"' not in text


def test_the_dashboard_names_the_units_without_entries(client, boss, make_tournament):
    t = make_tournament(status=S.REGISTRATION_OPEN)
    a = Unit.objects.create(tournament=t, name="教务", kind="union_group")
    b = Unit.objects.create(tournament=t, name="物理", kind="union_group")
    Unit.objects.create(tournament=t, name="历史", kind="union_group")
    team = Unit.objects.create(tournament=t, name="教务物理联队", kind="joint")
    team.members.set([a, b])
    event = Event.objects.create(
        tournament=t, slug="g", name="掼蛋", discipline="guandan_team", ruleset="nantong2014"
    )
    Entry.objects.create(event=event, unit=team, name=team.name)
    client.force_login(boss)
    text = client.get(reverse("manage:dashboard", args=[t.slug])).content.decode()
    assert "1个单位还没有报名：历史" in text  # 教务 and 物理 play in their joint team
    assert "还没有场地" in text and "还没有裁判" in text
    assert "未抽签：掼蛋" in text and "报名还在进行中" in text


def test_back_to_draft_asks_first_and_never_once_anything_is_drawn(client, boss, make_tournament):
    t = make_tournament(status=S.REGISTRATION_OPEN)
    client.force_login(boss)
    url = reverse("manage:status", args=[t.slug])
    page = client.get(reverse("manage:dashboard", args=[t.slug])).content.decode()
    assert "确认撤回为草稿" in page
    response = client.post(url, {"action": "draft"}, follow=True)
    assert "撤回为草稿须先勾选“确认撤回为草稿”。" in response.content.decode()
    assert Tournament.objects.get(pk=t.pk).status == S.REGISTRATION_OPEN
    client.post(url, {"action": "draft", "confirm": "1"})
    assert Tournament.objects.get(pk=t.pk).status == S.DRAFT

    client.post(url, {"action": "open"})
    client.post(url, {"action": "close"})
    event = Event.objects.create(
        tournament=t, slug="g", name="掼蛋", discipline="guandan_pairs", ruleset="nantong2014"
    )
    other = Event.objects.create(
        tournament=t, slug="h", name="象棋", discipline="xiangqi"
    )  # not drawn: the status stays 报名截止
    for i in range(2):
        unit = Unit.objects.create(tournament=t, name=f"队{i}", kind="union_group")
        Entry.objects.create(event=event, unit=unit, name=unit.name)
    draw_event(event=event, seed=1)
    assert Tournament.objects.get(pk=t.pk).status == S.REGISTRATION_CLOSED
    page = client.get(reverse("manage:dashboard", args=[t.slug])).content.decode()
    assert "确认撤回为草稿" not in page
    response = client.post(url, {"action": "draft", "confirm": "1"}, follow=True)
    assert "已有项目抽签，比赛不能再撤回为草稿。" in response.content.decode()
    assert Tournament.objects.get(pk=t.pk).status == S.REGISTRATION_CLOSED
    assert other.pk


def test_an_event_whose_custom_rule_set_is_refused_says_so_and_is_not_saved(
    client, boss, make_tournament
):
    # A custom rule set stored before the engine refused a preset's id for it: the event
    # page cannot edit 自定义规则参数 (that is /admin/), so the refusal is shown above the form.
    t = make_tournament()
    config = {"id": "nantong2014", "name": "南通规则，升级4/2/1", "promotion": [4, 2, 1]}
    event = Event.objects.create(
        tournament=t,
        slug="g",
        name="掼蛋",
        discipline="guandan_pairs",
        ruleset="nantong2014",
        ruleset_config=config,
    )
    client.force_login(boss)
    data = {"name": "掼蛋双人", "slug": "g", "discipline": "guandan_pairs"}
    data.update(ruleset="nantong2014", pairs_per_team="1", order="0", entry_kind="pair")
    response = client.post(reverse("manage:event-edit", args=[t.slug, event.slug]), data)
    assert response.status_code == 422
    text = response.content.decode()
    assert "请改正下面标出的问题。" in text
    assert (
        "自定义规则参数有误：invalid rule set &#x27;nantong2014&#x27;: id is a preset&#x27;s"
        in text
    )
    assert Event.objects.get(pk=event.pk).name == "掼蛋"
