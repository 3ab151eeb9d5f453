"""Registration pages: team leaders for their own unit, organisers for everything."""

import datetime as dt

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone

from tournaments.draw.make import undo_draw
from tournaments.models import Entry, Event, Official, Player, Tournament, Unit

User = get_user_model()


@pytest.fixture
def nantong(demo):
    """The Nantong cup reopened for registration, with no teams yet and leaders for 体育 and 行政."""
    t = demo["nantong-2014"]
    undo_draw(event=t.events.get(slug="guandan"))
    Entry.objects.filter(event__tournament=t).delete()
    Tournament.objects.filter(pk=t.pk).update(
        status=Tournament.Status.REGISTRATION_OPEN,
        registration_deadline=timezone.now() + dt.timedelta(days=3),
    )
    t.refresh_from_db()
    for name in ["体育", "行政"]:
        user = User.objects.create_user(username=f"leader-{name}", password="x")
        t.units.get(name=name).leaders.add(user)
    return t


@pytest.fixture
def organiser(nantong):
    user = User.objects.create_user(username="wenti", password="x")
    Official.objects.create(
        tournament=nantong, name="文体委员", role=Official.Role.ORGANISER, user=user
    )
    return user


def nantong_entries():
    return Entry.objects.filter(event__tournament__slug="nantong-2014")


def leader(name):
    return User.objects.get(username=f"leader-{name}")


def unit(t, name) -> Unit:
    return t.units.get(name=name)


def team_post(prefix="guandan", names=None, gender="男"):
    names = names or ["赵一", "钱二", "孙三", "李四", "周五", "吴六"]
    data = {}
    for i, name in enumerate(names):
        number, seat = i // 2 + 1, i % 2 + 1
        data[f"{prefix}-p{number}_{seat}_name"] = name
        data[f"{prefix}-p{number}_{seat}_gender"] = gender
    return data


def add_url(t, unit_name, event="guandan"):
    return reverse("registration:add-entry", args=[t.slug, unit(t, unit_name).pk, event])


def test_anonymous_visitors_read_the_unit_page_and_are_sent_to_log_in_to_register(client, nantong):
    url = reverse("registration:unit", args=[nantong.slug, unit(nantong, "体育").pk])
    response = client.get(url)
    # The unit's day is public, read-only: no registration form.
    assert response.status_code == 200
    assert "提交报名" not in response.content.decode()
    assert client.post(add_url(nantong, "体育"), team_post()).status_code == 302
    assert not nantong_entries().exists()


def test_a_team_leader_goes_straight_to_their_unit(client, nantong):
    client.force_login(leader("体育"))
    response = client.get(reverse("registration:home", args=[nantong.slug]))
    assert response.status_code == 302
    assert response["Location"] == reverse(
        "registration:unit", args=[nantong.slug, unit(nantong, "体育").pk]
    )


def test_a_team_leader_registers_three_pairs(client, nantong):
    client.force_login(leader("体育"))
    response = client.post(add_url(nantong, "体育"), team_post())
    assert response.status_code == 302
    entry = Entry.objects.get(event__tournament=nantong)
    assert entry.name == "体育"
    assert entry.registered_by == leader("体育")
    page = client.get(response["Location"]).content.decode()
    assert "已为体育报名掼蛋团体赛。" in page
    assert "赵一" in page and "吴六" in page


def test_an_htmx_registration_returns_only_the_event_section(client, nantong):
    client.force_login(leader("体育"))
    response = client.post(add_url(nantong, "体育"), team_post(), headers={"HX-Request": "true"})
    assert response.status_code == 200
    html = response.content.decode()
    assert html.lstrip().startswith('<section class="reg-event" id="event-guandan">')
    assert "<html" not in html
    assert "已为体育报名掼蛋团体赛。" in html


def test_bad_input_gets_the_rule_and_keeps_what_was_typed(client, nantong):
    client.force_login(leader("体育"))
    names = ["赵一", "钱二", "孙三", "赵一", "周五", ""]
    response = client.post(
        add_url(nantong, "体育"), team_post(names=names), headers={"HX-Request": "true"}
    )
    assert response.status_code == 422
    html = response.content.decode()
    assert "第3对选手2的姓名为空。" in html  # the form's words: 第3对 · 选手2
    # One problem hides no other: 赵一 twice is said at once too.
    assert "赵一（体育）在本次报名中出现了2次" in html
    assert 'value="周五"' in html  # nothing typed is lost
    assert not nantong_entries().exists()
    twice = ["赵一", "钱二", "孙三", "李四", "周五", "赵一"]
    response = client.post(add_url(nantong, "体育"), team_post(names=twice))
    assert response.status_code == 422
    assert "赵一（体育）在本次报名中出现了2次" in response.content.decode()
    assert not nantong_entries().exists()
    assert not Player.objects.filter(name="周五").exists()


def test_a_team_leader_cannot_change_another_units_entries(client, nantong):
    client.force_login(leader("体育"))
    other = unit(nantong, "行政")
    # Another unit's page is public (its day, read-only), without its registration controls.
    page = client.get(reverse("registration:unit", args=[nantong.slug, other.pk]))
    assert page.status_code == 200
    assert "新增报名" not in page.content.decode() and "提交报名" not in page.content.decode()
    assert client.post(add_url(nantong, "行政"), team_post()).status_code == 403
    client.force_login(leader("行政"))
    client.post(add_url(nantong, "行政"), team_post())
    entry = Entry.objects.get(unit=other)
    client.force_login(leader("体育"))
    assert (
        client.get(reverse("registration:entry-edit", args=[nantong.slug, entry.pk])).status_code
        == 403
    )
    response = client.post(
        reverse("registration:withdraw", args=[nantong.slug, entry.pk]), {"reason": "恶作剧"}
    )
    assert response.status_code == 403
    entry.refresh_from_db()
    assert entry.status == Entry.Status.REGISTERED


def test_a_unit_of_another_tournament_is_not_found(client, nantong, demo):
    client.force_login(leader("体育"))
    foreign = demo["anhui-2021"].units.first()
    assert (
        client.get(reverse("registration:unit", args=[nantong.slug, foreign.pk])).status_code == 404
    )


def test_writes_refuse_get(client, nantong):
    client.force_login(leader("体育"))
    assert client.get(add_url(nantong, "体育")).status_code == 405


def test_after_the_deadline_leaders_are_told_and_the_organiser_registers_on_site(
    client, nantong, organiser
):
    Tournament.objects.filter(pk=nantong.pk).update(
        registration_deadline=timezone.now() - dt.timedelta(hours=1)
    )
    client.force_login(leader("体育"))
    page = client.get(
        reverse("registration:unit", args=[nantong.slug, unit(nantong, "体育").pk])
    ).content.decode()
    assert "报名已截止；如需现场报名请联系组织者。" in page
    response = client.post(add_url(nantong, "体育"), team_post())
    assert response.status_code == 422
    assert "截止后只能由组织者现场报名" in response.content.decode()
    client.force_login(organiser)
    response = client.post(add_url(nantong, "体育"), {**team_post(), "guandan-on_site": "on"})
    assert response.status_code == 302
    assert nantong_entries().get(unit__name="体育").on_site


def test_leaders_edit_before_the_draw_and_only_withdraw_after_it(client, nantong):
    client.force_login(leader("体育"))
    client.post(add_url(nantong, "体育"), team_post())
    entry = nantong_entries().get()
    edit = reverse("registration:entry-edit", args=[nantong.slug, entry.pk])
    data = {
        k.removeprefix("guandan-"): v
        for k, v in team_post(names=["赵一", "钱二", "孙三", "李四", "周五", "郑七"]).items()
    }
    assert client.post(edit, data).status_code == 302
    assert [str(p) for p in entry.pairs.order_by("number")][-1] == "周五、郑七"
    Event.objects.filter(pk=entry.event_id).update(drawn_at=timezone.now())
    page = client.get(edit).content.decode()
    assert "配对选手不得重组，只能退赛" in page
    response = client.post(edit, {**data, "p3_2_name": "冯八"})
    assert response.status_code == 422
    assert [str(p) for p in entry.pairs.order_by("number")][-1] == "周五、郑七"
    response = client.post(
        reverse("registration:withdraw", args=[nantong.slug, entry.pk]), {"reason": "三人出差"}
    )
    assert response.status_code == 302
    entry.refresh_from_db()
    assert entry.status == Entry.Status.WITHDRAWN and entry.status_reason == "三人出差"


def test_organiser_pages_are_for_organisers_only(client, nantong, organiser):
    urls = [
        reverse("manage:dashboard", args=[nantong.slug]),
        reverse("manage:entries", args=[nantong.slug]),
        reverse("manage:units", args=[nantong.slug]),
        reverse("manage:settings", args=[nantong.slug]),
        reverse("manage:entries-import", args=[nantong.slug, "guandan"]),
    ]
    for url in urls:
        assert client.get(url).status_code == 302  # to the login page
    client.force_login(leader("体育"))
    for url in urls:
        assert client.get(url).status_code == 403, url
    client.force_login(organiser)
    for url in urls:
        assert client.get(url).status_code == 200, url
    assert client.get(reverse("manage:dashboard", args=["no-such-cup"])).status_code == 404


def test_the_organiser_opens_and_closes_registration(client, nantong, organiser):
    client.force_login(organiser)
    url = reverse("manage:status", args=[nantong.slug])
    client.post(url, {"action": "close"})
    nantong.refresh_from_db()
    assert nantong.status == Tournament.Status.REGISTRATION_CLOSED
    response = client.post(url, {"action": "close"}, follow=True)
    assert "当前状态（报名截止）下不能这样操作。" in response.content.decode()
    client.post(url, {"action": "open"})
    nantong.refresh_from_db()
    assert nantong.status == Tournament.Status.REGISTRATION_OPEN


def test_the_organiser_adds_a_joint_team_and_a_leader_login(client, nantong, organiser):
    client.force_login(organiser)
    url = reverse("manage:units", args=[nantong.slug])
    members = [unit(nantong, "历史").pk, unit(nantong, "政治").pk]
    response = client.post(url, {"name": "历史政治联队", "kind": "joint", "members": members})
    assert response.status_code == 302
    joint = unit(nantong, "历史政治联队")
    assert sorted(joint.members.values_list("name", flat=True)) == ["历史", "政治"]
    response = client.post(url, {"name": "孤单联队", "kind": "joint", "members": members[:1]})
    assert response.status_code == 422
    assert "联队至少由两个单位组成。" in response.content.decode()
    leader_url = reverse("manage:add-leader", args=[nantong.slug, joint.pk])
    client.post(leader_url, {"username": "lishi", "password": "123"})
    assert not User.objects.filter(username="lishi").exists()
    client.post(leader_url, {"username": "lishi", "password": "Guandan-2014-lishi"})
    assert joint.leaders.filter(username="lishi").exists()


def test_the_organiser_edits_the_notice_and_sees_field_errors(client, nantong, organiser):
    client.force_login(organiser)
    url = reverse("manage:settings", args=[nantong.slug])
    response = client.post(url, {"name": ""})
    assert response.status_code == 422
    assert "这个字段是必填项" in response.content.decode()
    nantong.refresh_from_db()
    assert nantong.name == "第二届“轻松假日”教工扑克牌（掼蛋）比赛"


def test_an_event_slug_that_would_shadow_a_page_is_refused(client, nantong, organiser):
    client.force_login(organiser)
    response = client.post(
        reverse("manage:event-new", args=[nantong.slug]),
        {
            "name": "管理",
            "slug": "manage",
            "discipline": "xiangqi",
            "pairs_per_team": 3,
            "order": 1,
        },
    )
    assert response.status_code == 422
    assert "系统保留的标识" in response.content.decode()


def test_the_entries_overview_lists_missing_units_and_flags(client, nantong, organiser):
    client.force_login(organiser)
    client.post(add_url(nantong, "体育"), team_post())
    html = client.get(reverse("manage:entries", args=[nantong.slug])).content.decode()
    assert "尚未报名" in html
    missing = html.split('id="missing-h"')[1].split("</section>")[0]
    assert "行政" in missing and "体育" not in missing
    assert "教务" in missing  # its joint team has not registered yet


def test_the_entries_overview_needs_a_fixed_number_of_queries(
    client, demo, django_assert_max_num_queries
):
    superuser = User.objects.create_superuser(username="root", password="x")
    client.force_login(superuser)
    with django_assert_max_num_queries(14):
        response = client.get(reverse("manage:entries", args=["anhui-2021"]))
    assert response.status_code == 200


def test_the_notice_page_links_leaders_to_registration_and_organisers_to_management(
    client, nantong, organiser
):
    url = reverse("tournaments:detail", args=[nantong.slug])
    register = reverse("registration:home", args=[nantong.slug])
    manage = reverse("manage:dashboard", args=[nantong.slug])
    html = client.get(url).content.decode()
    assert register not in html and manage not in html
    client.force_login(leader("体育"))
    html = client.get(url).content.decode()
    assert register in html and manage not in html
    client.force_login(organiser)
    html = client.get(url).content.decode()
    assert register in html and manage in html


def _nantong_workbook(rows):
    import io

    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.append(
        [
            "单位",
            "对序号",
            "选手一姓名",
            "选手一性别",
            "选手一所属单位",
            "选手二姓名",
            "选手二性别",
            "选手二所属单位",
            "现场报名",
        ]
    )
    for row in rows:
        sheet.append(row)
    out = io.BytesIO()
    book.save(out)
    out.seek(0)
    out.name = "报名表.xlsx"
    return out


def test_the_organiser_imports_an_excel_form_after_a_preview(client, nantong, organiser):
    client.force_login(organiser)
    url = reverse("manage:entries-import", args=[nantong.slug, "guandan"])
    bad = _nantong_workbook(
        [
            ["体育", 1, "赵一", "男", "", "钱二", "男", ""],
            ["体育", 2, "孙三", "女", "", "", "男", ""],
            ["无此单位", 1, "甲", "男", "", "乙", "男", ""],
        ]
    )
    response = client.post(url, {"file": bad})
    assert response.status_code == 422
    html = response.content.decode()
    assert "未导入任何报名" in html
    assert "第2–3行：每队须报3对选手，这里有2对。" in html
    assert "第4行 A列：单位“无此单位”不在本比赛的单位名单中。" in html
    assert not nantong_entries().exists()

    rows = [["行政", n, f"行{n}甲", "男", "", f"行{n}乙", "女", ""] for n in (1, 2, 3)]
    response = client.post(url, {"file": _nantong_workbook(rows)})
    assert response.status_code == 200
    assert "检查通过：将导入 1 个报名" in response.content.decode()
    assert not nantong_entries().exists()  # the preview saves nothing
    response = client.post(url, {"confirm": "1"})
    assert response.status_code == 302
    entry = nantong_entries().get()
    assert entry.name == "行政"
    assert [str(p) for p in entry.pairs.order_by("number")] == [
        "行1甲、行1乙",
        "行2甲、行2乙",
        "行3甲、行3乙",
    ]
    # The stored file is gone: confirming twice imports nothing twice.
    response = client.post(url, {"confirm": "1"}, follow=True)
    assert "请先上传并检查报名表。" in response.content.decode()
    assert nantong_entries().count() == 1


def test_the_organisers_export_lists_a_withdrawn_team_and_its_import_says_it_is_left_out(
    client, nantong, organiser
):
    import io

    from tournaments.registration.services import withdraw_entry

    client.force_login(organiser)
    for unit_name, prefix in (("体育", "体"), ("行政", "行")):
        names = [f"{prefix}{n}{seat}" for n in (1, 2, 3) for seat in "甲乙"]
        assert client.post(add_url(nantong, unit_name), team_post(names=names)).status_code == 302
    withdraw_entry(entry=nantong_entries().get(unit__name="行政"), reason="人员调整")
    export = client.get(reverse("manage:entries-export", args=[nantong.slug, "guandan"]))
    nantong_entries().delete()
    upload = io.BytesIO(export.content)
    upload.name = "报名.xlsx"
    url = reverse("manage:entries-import", args=[nantong.slug, "guandan"])
    html = client.post(url, {"file": upload}).content.decode()
    assert "检查通过：将导入 1 个报名" in html
    assert "以下报名不是“已报名”状态，不导入：" in html
    assert "<li>第6–8行：行政的报名为“已退赛”（人员调整），不导入。</li>" in html
    response = client.post(url, {"confirm": "1"}, follow=True)
    assert "已导入1个报名。" in response.content.decode()
    assert "另有1个报名不是“已报名”状态，未导入" in response.content.decode()
    assert [e.unit.name for e in nantong_entries()] == ["体育"]


def test_the_organiser_downloads_the_template_and_the_export(client, nantong, organiser):
    client.force_login(organiser)
    for name in ["manage:entries-template", "manage:entries-export"]:
        response = client.get(reverse(name, args=[nantong.slug, "guandan"]))
        assert response.status_code == 200
        assert (
            response["Content-Type"]
            == "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
        )
        assert response.content.startswith(b"PK")
    client.force_login(leader("体育"))
    assert (
        client.get(reverse("manage:entries-export", args=[nantong.slug, "guandan"])).status_code
        == 403
    )


def test_a_leader_who_chose_english_gets_english_messages(client, nantong):
    client.force_login(leader("体育"))
    client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    names = ["赵一", "钱二", "孙三", "李四", "周五", ""]
    response = client.post(
        add_url(nantong, "体育"), team_post(names=names), headers={"HX-Request": "true"}
    )
    html = response.content.decode()
    assert "Pair 3, Player 2: the name is empty." in html  # as the form names the seat
    assert ">Register</button>" in html


def test_withdrawal_is_not_offered_once_the_event_is_over(client, demo):
    from tournaments.ops.demo import play_demo

    t = demo["nantong-2014"]
    play_demo(only="nantong-2014")
    sport = unit(t, "体育")
    user = User.objects.create_user("sport-leader-after")
    sport.leaders.add(user)
    client.force_login(user)
    page = client.get(reverse("registration:unit", args=[t.slug, sport.pk])).content.decode()
    entry = Entry.objects.get(event__tournament=t, unit=sport)
    edit = reverse("registration:entry-edit", args=[t.slug, entry.pk])
    assert edit not in page
    html = client.get(edit).content.decode()
    assert "本项目已结束，名次已定，不能再退赛。" in html
    assert "确认退赛" not in html


def _field_tag(html: str, name: str) -> str:
    import re

    found = re.search(rf'<(?:input|select)[^>]*name="{name}"[^>]*>', html)
    assert found, name
    return found.group(0)


@pytest.mark.parametrize("htmx", [True, False], ids=["htmx", "plain-post"])
def test_a_joint_teams_problems_use_the_forms_words_and_mark_their_fields(
    client, nantong, organiser, htmx
):
    """The form says 第1对 · 选手1: so do its messages, and each one marks its field."""
    client.force_login(organiser)
    data = team_post(names=["赵一", "钱二", "孙三", "李四", "周五", "赵一"])
    for n in (1, 2, 3):
        for seat in (1, 2):
            data[f"guandan-p{n}_{seat}_unit"] = "教务"
    del data["guandan-p1_2_unit"]  # no 所属单位 for 第1对选手2
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    response = client.post(add_url(nantong, "教务物理联队"), data, **headers)
    assert response.status_code == 422
    html = response.content.decode()
    assert "第1对选手一" not in html and "第1对选手二" not in html
    missing = "第1对选手2须写明所属单位（联队教务物理联队由教务、物理组成）。"
    twice = "赵一（教务）在本次报名中出现了2次，同一项目每人只能报一次。"
    assert f'<span class="error" role="alert">{missing}</span>' in html
    assert html.count(f'<span class="error" role="alert">{twice}</span>') == 2
    assert "请改正下面标出的问题。" in html
    # The fields at fault, and only they, are marked.
    assert 'aria-invalid="true"' in _field_tag(html, "guandan-p1_2_unit")
    assert 'aria-invalid="true"' in _field_tag(html, "guandan-p1_1_name")
    assert 'aria-invalid="true"' in _field_tag(html, "guandan-p3_2_name")
    assert 'aria-invalid="true"' not in _field_tag(html, "guandan-p2_1_name")
    assert html.count('aria-invalid="true"') == 3
    assert "field-1 has-error" in html
    # What was typed stays.
    assert 'value="周五"' in _field_tag(html, "guandan-p3_1_name")
    assert not nantong_entries().exists()
