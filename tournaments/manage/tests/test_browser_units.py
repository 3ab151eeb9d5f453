"""On a phone, the organiser corrects the units page: renames a unit, changes a joint
team's member units, removes an empty unit after ticking 确认删除 — and a unit with entries
says it stays."""

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from tournaments.models import Entry, Event, Tournament, Unit

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def cup(db):
    import datetime as dt

    t = Tournament.objects.create(
        slug="units-cup",
        name="单位杯",
        organiser_name="工会",
        notice_title="通知",
        notice_text="一、时间",
        starts_on=dt.date(2026, 12, 20),
        status=Tournament.Status.REGISTRATION_OPEN,
    )
    for name in ("教务", "物理", "生物", "历史", "后勤"):
        Unit.objects.create(tournament=t, name=name, kind="union_group")
    team = Unit.objects.create(tournament=t, name="教务物理联队", kind="joint")
    team.members.set(t.units.filter(name__in=["教务", "物理"]))
    event = Event.objects.create(tournament=t, slug="chess", name="象棋", discipline="xiangqi")
    Entry.objects.create(event=event, unit=t.units.get(name="历史"), name="历史")
    get_user_model().objects.create_superuser("boss", password="Boss-2026-pass")
    return t


def card(page, name):
    return page.locator("ul.unit-list > li").filter(
        has=page.locator(".entry-head strong", has_text=name)
    )


def test_the_organiser_corrects_the_units_on_a_phone(live_server, phone_page, cup):
    page = phone_page
    page.goto(f"{live_server.url}/accounts/login/?next=/t/units-cup/manage/units/")
    page.fill("#id_username", "boss")
    page.fill("#id_password", "Boss-2026-pass")
    page.locator("main form button[type=submit]").click()
    page.wait_for_url("**/t/units-cup/manage/units/")

    card(page, "后勤").get_by_role("link", name="修改").click()
    expect(page.locator("h1")).to_have_text("修改单位：后勤")
    page.fill("#id_name", "后勤处")
    page.get_by_role("button", name="保存").click()
    page.wait_for_url("**/t/units-cup/manage/units/")
    expect(page.locator(".messages")).to_contain_text("单位“后勤处”已保存。")

    card(page, "教务物理联队").get_by_role("link", name="修改名称与组成单位").click()
    page.get_by_label("物理").uncheck()
    page.get_by_label("生物").check()
    page.fill("#id_name", "教务生物联队")
    page.get_by_role("button", name="保存").click()
    page.wait_for_url("**/t/units-cup/manage/units/")
    expect(card(page, "教务生物联队").locator(".entry-head .meta")).to_contain_text("教务、生物")

    expect(card(page, "历史")).to_contain_text("已有报名，不能删除")
    expect(card(page, "历史").locator(".unit-delete")).to_have_count(0)

    removal = card(page, "后勤处").locator(".unit-delete")
    removal.locator("summary").click()
    button = removal.get_by_role("button", name="删除单位")
    button.click()  # not ticked: the browser asks for the box, nothing is sent
    expect(card(page, "后勤处")).to_have_count(1)
    removal.get_by_label("确认删除").check()
    button.click()
    page.wait_for_url("**/t/units-cup/manage/units/")
    expect(page.locator(".messages")).to_contain_text("已删除“后勤处”。")
    expect(card(page, "后勤处")).to_have_count(0)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert set(cup.units.values_list("name", flat=True)) == {
        "教务",
        "物理",
        "生物",
        "历史",
        "教务生物联队",
    }
