"""The organiser's dashboard on a 390-px phone: each event is a card that fits the screen
(its name, counts, progress and pages), nothing scrolls sideways; on a desktop it is a table."""

import pytest
from django.contrib.auth import get_user_model

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def organiser(db):
    from tournaments.ops.demo import load_demo

    load_demo()
    return get_user_model().objects.create_superuser("boss", password="Boss-2026-pass")


def _log_in(page, live_server):
    page.goto(f"{live_server.url}/accounts/login/?next=/t/anhui-2021/manage/")
    page.fill("#id_username", "boss")
    page.fill("#id_password", "Boss-2026-pass")
    page.locator("main form button[type=submit]").click()
    page.wait_for_url("**/t/anhui-2021/manage/")


def test_the_events_are_cards_that_fit_a_phone(live_server, phone_page, organiser):
    page = phone_page
    _log_in(page, live_server)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    rows = page.locator(".events-table tbody tr")
    assert rows.count() == 4
    for i in range(rows.count()):
        card = rows.nth(i).bounding_box()
        assert card["x"] >= 0 and card["x"] + card["width"] <= 390
        name = rows.nth(i).locator("td.event-name")
        assert name.bounding_box()["width"] > 250  # the name has the card's width
        for link in rows.nth(i).locator("td.actions a").all():
            box = link.bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= 390
    first = rows.first
    assert first.locator("td.event-name").inner_text().startswith("掼蛋")
    label = first.locator("td.count").first.evaluate(
        "td => getComputedStyle(td, '::before').content"
    )
    assert "报名" in label
    assert not page.locator(".events-table thead").is_visible() or (
        page.locator(".events-table thead").bounding_box()["height"] <= 1
    )


def test_the_events_are_a_table_on_a_desktop(live_server, page, organiser):
    page.set_viewport_size({"width": 1280, "height": 900})
    _log_in(page, live_server)
    head = page.locator(".events-table thead")
    assert head.bounding_box()["height"] > 10
    assert head.inner_text().split()[:5] == ["项目", "报名", "现场", "退赛", "进度"]
    row = page.locator(".events-table tbody tr").first.bounding_box()
    assert row["height"] < 150  # one line per event, not a card
