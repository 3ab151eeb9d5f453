"""A referee's phone loses the connection: the page resends, and the server records once."""

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from scoring.tests.utils import assign_referee

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "Referee-2021-pass"


@pytest.fixture
def table_page(live_server, browser):
    from tournaments.models import Match
    from tournaments.ops.demo import load_demo

    load_demo()
    referee = get_user_model().objects.create_user(username="liangyong", password=PASSWORD)
    match = (
        Match.objects.filter(
            round__stage__event__tournament__slug="anhui-2021",
            round__stage__event__slug="guandan",
            status="pending",
            home__isnull=False,
            away__isnull=False,
        )
        .order_by("round__number", "index")
        .first()
    )
    assign_referee(Match.objects.filter(pk=match.pk), referee)
    table = match.tables.get()
    page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("#id_username", "liangyong")
    page.fill("#id_password", PASSWORD)
    page.locator("main form button[type=submit]").click()
    page.wait_for_load_state()
    page.goto(f"{live_server.url}/t/anhui-2021/guandan/tables/{table.pk}/")
    return page, table


def test_a_deal_whose_request_never_left_the_phone_is_resent_and_recorded_once(table_page):
    from scoring.models import TableEvent

    page, table = table_page
    aborted = []

    def drop_the_first(route):
        if not aborted:
            aborted.append(route.request.url)
            route.abort("internetdisconnected")  # never reaches the server
        else:
            route.continue_()

    page.route("**/deal/", drop_the_first)
    page.locator(".deal-col").first.get_by_role("button", name="对家二游").click()
    expect(page.locator(".unsaved")).to_be_visible()
    expect(page.locator(".history-list li")).to_have_count(1, timeout=15000)
    expect(page.locator(".unsaved")).to_be_hidden()
    assert aborted
    assert TableEvent.objects.filter(table=table).count() == 1


def test_a_report_whose_answer_was_lost_is_resent_and_recorded_once(table_page):
    from scoring.models import Report

    page, table = table_page
    dropped = []

    def lose_the_answer(route):
        if not dropped:
            dropped.append(route.request.url)
            route.fetch()  # the server records the report …
            route.abort("connectionreset")  # … but the phone never hears back
        else:
            route.continue_()

    page.route("**/report/", lose_the_answer)
    page.locator("summary", has_text="举报").click()
    page.fill("input[name=description]", "场外指导")
    page.get_by_role("button", name="记录举报").click()
    expect(page.locator(".unsaved")).to_be_visible()
    expect(page.locator(".notice-ok")).to_contain_text("举报已记录", timeout=15000)
    expect(page.locator(".unsaved")).to_be_hidden()
    assert dropped
    assert list(Report.objects.filter(table=table).values_list("description", flat=True)) == [
        "场外指导"
    ]
