"""A chief referee on a phone puts right a deal entered for the wrong side after the result
was confirmed: four taps and a reason, no JSON; the tie follows."""

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "Chief-2014-passw0rd"
SHOTS = __import__("os").environ.get("SHOTS")  # a folder: keep each step's screenshot


def test_the_chief_corrects_a_wrong_side_deal_by_tap_on_a_phone(live_server, browser):
    from scoring.services.tables import confirm_table, record_event, submit_table
    from scoring.tests.utils import first_round, tables
    from tournaments.models import Official
    from tournaments.ops.demo import load_demo

    load_demo()
    User = get_user_model()
    referee = User.objects.create_user("referee-n")
    chief = User.objects.create_user("chief-n", password=PASSWORD)
    match = first_round("nantong-2014")[0]
    tournament = match.round.stage.event.tournament
    Official.objects.create(
        tournament=tournament, name="裁判长甲", role=Official.Role.CHIEF_REFEREE, user=chief
    )
    table = tables(match)[0]
    # The referee entered 体育's pair as 上游 in the first deal, but it was 行政's.
    for i, event in enumerate([{"order": list("AABB")}, {"time_up": True}]):
        record_event(table=table, event=event, user=referee, key=f"k{i}")
    submit_table(table=table, user=referee)
    confirm_table(table=table, user=chief, opponents="")

    page = browser.new_context(
        service_workers="block", viewport={"width": 390, "height": 844}
    ).new_page()
    page.goto(f"{live_server.url}/accounts/login/?next=/t/nantong-2014/guandan/tables/{table.pk}/")
    page.fill("#id_username", "chief-n")
    page.fill("#id_password", PASSWORD)
    page.locator("main form button[type=submit]").click()
    page.wait_for_load_state()
    # Tap 1: 更正记录.
    page.get_by_role("link", name="更正记录（须写明原因）").click()
    expect(page.get_by_role("heading", name="更正记录")).to_be_visible()
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/correction-1.png", full_page=True)
    # Tap 2: 改 on the first deal.
    page.locator("#entry-0").get_by_role("button", name="改").click()
    # Tap 3: the right deal — 行政's pair 上游, partner 二游.
    editor = page.locator("#entry-0 .entry-editor")
    editor.locator(".deal-form").first.locator(".deal-col").nth(1).get_by_role(
        "button", name="对家二游"
    ).click()
    expect(page.get_by_text("更正会改变这一台的胜负")).to_be_visible()
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/correction-2.png", full_page=True)
    # The reason, and tap 4: 保存更正.
    page.get_by_label("更正原因").fill("上游记错了一方")
    page.get_by_role("button", name="保存更正").click()
    expect(page.get_by_text("记录已更正。")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0
    table.refresh_from_db()
    assert table.winner == "B"
    # Corrected by the chief, confirmed by someone else: the referee at the table.
    expect(page.get_by_text("更正结果的人不能确认")).to_be_visible()
    Official.objects.create(
        tournament=tournament, name="裁判甲", role=Official.Role.REFEREE, user=referee
    )
    confirm_table(table=table, user=referee)
    match.refresh_from_db()
    assert (match.home_score, match.away_score) == (0, 1)
