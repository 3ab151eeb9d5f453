import datetime as dt

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def tiyu_leader(db):
    from tournaments.draw.make import undo_draw
    from tournaments.models import Entry, Tournament
    from tournaments.ops.demo import load_demo

    load_demo()
    t = Tournament.objects.get(slug="nantong-2014")
    undo_draw(event=t.events.get(slug="guandan"))
    Entry.objects.filter(event__tournament=t, unit__name="体育").delete()
    Tournament.objects.filter(pk=t.pk).update(
        status=Tournament.Status.REGISTRATION_OPEN,
        registration_deadline=timezone.now() + dt.timedelta(days=2),
    )
    user = get_user_model().objects.create_user(username="tiyu", password="Tiyu-2014-pass")
    t.units.get(name="体育").leaders.add(user)
    return user


def test_a_team_leader_registers_three_pairs_on_a_phone(live_server, phone_page, tiyu_leader):
    page = phone_page
    page.goto(f"{live_server.url}/t/nantong-2014/register/")
    page.fill("#id_username", "tiyu")
    page.fill("#id_password", "Tiyu-2014-pass")
    page.locator("main form button[type=submit]").click()
    page.wait_for_url("**/t/nantong-2014/units/*/")
    assert page.locator("h1").inner_text() == "体育 · 报名"

    section = page.locator("#event-guandan")
    names = ["赵一", "钱二", "孙三", "李四", "周五", "吴六"]
    for i, name in enumerate(names):
        number, seat = i // 2 + 1, i % 2 + 1
        section.locator(f"[name='guandan-p{number}_{seat}_name']").fill(name)
        section.locator(f"[name='guandan-p{number}_{seat}_gender']").select_option(
            "女" if i % 3 else "男"
        )
    # First a mistake: the same person twice. The page says so and keeps what was typed.
    section.locator("[name='guandan-p3_2_name']").fill("赵一")
    section.get_by_role("button", name="提交报名").click()
    alert = page.locator("#event-guandan .problems")
    alert.wait_for()
    assert "请改正下面标出的问题" in alert.inner_text()
    # Both fields the name was typed in are marked, with the message under each.
    for seat in ("p1_1", "p3_2"):
        field = page.locator(f"#event-guandan [name='guandan-{seat}_name']")
        assert field.get_attribute("aria-invalid") == "true"
        said = page.locator(f"#event-guandan label:has([name='guandan-{seat}_name']) .error")
        assert "赵一（体育）在本次报名中出现了2次" in said.inner_text()
    assert page.locator("#event-guandan [name='guandan-p3_1_name']").input_value() == "周五"

    page.locator("#event-guandan [name='guandan-p3_2_name']").fill("吴六")
    page.locator("#event-guandan").get_by_role("button", name="提交报名").click()
    page.get_by_text("已为体育报名掼蛋团体赛。").wait_for()
    listed = page.locator("#event-guandan .entry").inner_text()
    for pair in ["赵一、钱二", "孙三、李四", "周五、吴六"]:
        assert pair in listed.replace("\n", "")
    assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0
