"""In a browser on a desktop: from an empty database and the README's organiser account
(``manage.py ensure_organiser``), the organiser sets up a tournament through the pages only —
the notice, a venue, an event, two units and their joint team, an official — then copies
it to the next year and finds everything carried over."""

import io
import os
import re

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from tournaments.models import Tournament

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = os.environ.get("SETUP_SHOTS")  # a folder: keep the screenshots of the journey


def shot(page, name):
    if SHOTS:
        page.screenshot(path=os.path.join(SHOTS, f"{name}.png"), full_page=True)


@pytest.fixture
def organiser_login(db, settings, tmp_path):
    settings.VAR_DIR = tmp_path
    out = io.StringIO()
    call_command("ensure_organiser", stdout=out)
    found = re.search(r"username: (\S+)\s+password: (\S+)", out.getvalue())
    return found.group(1), found.group(2)


def field(page, name, value):
    page.locator(f"[name='{name}']").fill(value)


def test_an_organiser_sets_up_a_tournament_in_the_pages_and_copies_it_to_next_year(
    live_server, page, organiser_login
):
    assert not Tournament.objects.exists()
    page.set_viewport_size({"width": 1280, "height": 900})
    username, password = organiser_login
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.locator("main form button[type=submit]").click()
    page.goto(f"{live_server.url}/")
    expect(page.locator("main")).not_to_contain_text("管理后台")
    page.get_by_role("link", name="新建比赛", exact=True).click()

    # The notice: first a mistake (the deadline after the start), the form kept.
    for name, value in {
        "name": "第二届“轻松假日”教工掼蛋比赛",
        "slug": "nantong-2014",
        "organiser_name": "江苏省南通中学工会",
        "starts_on": "2014-01-10",
        "start_time": "13:30",
        "registration_deadline": "2014-01-11T17:00",
        "leaders_meeting_at": "2014-01-06T16:00",
        "leaders_meeting_place": "三楼会议室",
        "notice_title": "关于举行第二届“轻松假日”教工扑克牌（掼蛋）比赛的通知",
        "notice_text": "一、比赛时间\n2014年1月10日下午",
        "rules_text": "一、每个工会小组报三组选手",
    }.items():
        field(page, name, value)
    page.get_by_role("button", name="创建比赛").click()
    expect(page.locator(".has-error")).to_contain_text("报名截止时间不能晚于比赛开始时间")
    expect(page.locator("[name='notice_text']")).to_have_value("一、比赛时间\n2014年1月10日下午")
    shot(page, "1-new-error")
    field(page, "registration_deadline", "2014-01-04T17:00")
    page.get_by_role("button", name="创建比赛").click()

    # Venues and their tables.
    expect(page.locator("h1")).to_have_text("场地与桌数")
    field(page, "name", "活动中心")
    field(page, "tables", "0")
    page.get_by_role("button", name="添加", exact=True).click()
    expect(page.locator(".has-error")).to_contain_text("桌数须是1到200之间的整数。")
    field(page, "tables", "12")
    page.get_by_role("button", name="添加", exact=True).click()
    expect(page.locator(".venues-table")).to_contain_text("活动中心")
    shot(page, "2-venues")

    # The event.
    page.get_by_role("link", name="下一步：新增项目").click()
    field(page, "name", "掼蛋团体赛")
    field(page, "slug", "guandan")
    page.select_option("[name='discipline']", "guandan_team")
    page.select_option("[name='ruleset']", "nantong2014")
    page.select_option("[name='venue']", label="活动中心")
    page.get_by_role("button", name="保存").click()
    expect(page.locator(".events-table")).to_contain_text("掼蛋团体赛")

    # Two units and their joint team.
    page.locator(".manage-nav").get_by_role("link", name="单位与领队").click()
    for name in ("教务", "物理"):
        page.get_by_label("单位名称").fill(name)
        page.select_option("[name='kind']", "union_group")
        page.get_by_role("button", name="添加", exact=True).click()
        expect(page.locator(".unit-list")).to_contain_text(name)
    page.get_by_label("单位名称").fill("教务物理联队")
    page.select_option("[name='kind']", "joint")
    page.get_by_role("checkbox", name="教务", exact=True).check()
    page.get_by_role("button", name="添加", exact=True).click()
    expect(page.locator(".has-error")).to_contain_text("联队至少由两个单位组成。")
    page.get_by_role("checkbox", name="物理", exact=True).check()
    page.get_by_role("button", name="添加", exact=True).click()
    expect(page.locator(".unit-list")).to_contain_text("教务物理联队")
    expect(page.locator(".unit-list")).to_contain_text("教务、物理")
    shot(page, "3-units")

    # An official.
    page.locator(".manage-nav").get_by_role("link", name="裁判与工作人员").click()
    field(page, "name", "周铃")
    page.select_option("[name='role']", "referee")
    page.get_by_role("button", name="添加", exact=True).click()
    expect(page.locator("table")).to_contain_text("周铃")

    # The dashboard walks the day.
    page.locator(".manage-nav").get_by_role("link", name="总览").click()
    expect(page.locator(".step-notice")).to_contain_text("草稿")
    expect(page.locator(".step-registration")).to_contain_text("还没有报名")
    shot(page, "4-dashboard")

    # Next year: 复制往届比赛.
    page.get_by_role("link", name="复制为新一届比赛").click()
    expect(page.locator("#carried")).to_contain_text("教务物理联队")
    expect(page.locator("#carried")).to_contain_text("周铃")
    field(page, "slug", "nantong-2015")
    field(page, "name", "第三届“轻松假日”教工掼蛋比赛")
    field(page, "notice_title", "关于举行第三届“轻松假日”教工扑克牌（掼蛋）比赛的通知")
    field(page, "starts_on", "2015-01-09")
    field(page, "registration_deadline", "2015-01-05T17:00")
    shot(page, "5-copy")
    page.get_by_role("button", name="复制并创建新比赛").click()
    expect(page.locator("h1")).to_have_text("第三届“轻松假日”教工掼蛋比赛")
    expect(page.locator(".events-table")).to_contain_text("掼蛋团体赛")
    shot(page, "6-copied-dashboard")
    page.locator(".manage-nav").get_by_role("link", name="场地").click()
    expect(page.locator(".venues-table")).to_contain_text("活动中心")
    expect(page.locator(".venues-table")).to_contain_text("12")
    page.locator(".manage-nav").get_by_role("link", name="单位与领队").click()
    expect(page.locator(".unit-list")).to_contain_text("教务物理联队")
    expect(page.locator(".unit-list")).to_contain_text("联队：教务、物理")
    expect(page.locator(".unit-list")).to_contain_text("0 个报名")
    page.locator(".manage-nav").get_by_role("link", name="裁判与工作人员").click()
    expect(page.locator("table")).to_contain_text("周铃")
    new = Tournament.objects.get(slug="nantong-2015")
    assert new.status == Tournament.Status.DRAFT
    assert new.events.get().ruleset == "nantong2014"
