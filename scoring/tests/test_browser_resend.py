"""A referee's phone loses the connection: the page resends, and the server records once."""

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from scoring.tests.utils import assign_referee

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "Referee-2021-pass"


def _open_table(live_server, browser, service_workers):
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
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, service_workers=service_workers
    )
    page = context.new_page()
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("#id_username", "liangyong")
    page.fill("#id_password", PASSWORD)
    page.locator("main form button[type=submit]").click()
    page.wait_for_load_state()
    page.goto(f"{live_server.url}/t/anhui-2021/guandan/tables/{table.pk}/")
    return context, page, table


@pytest.fixture
def table_page(live_server, browser):
    """The referee's table page, without the service worker: these tests are about the page's
    own queue, and with a worker Playwright's routes and offline switch do not reliably reach
    a page it took over mid-test, nor stop a closed page that it keeps alive (its queue then
    goes out unseen)."""
    context, page, table = _open_table(live_server, browser, "block")
    yield page, table
    context.close()  # no page left polling or resending into the next test


@pytest.fixture
def table_page_with_worker(live_server, browser):
    """The referee's table page with its service worker (static/js/sw.js)."""
    _context, page, table = _open_table(live_server, browser, "allow")
    yield page, table
    close_with_worker(page)


# A page a service worker keeps goes on after its context closes (its worker keeps the
# browser's process for it): unregistered and with its queue emptied first, nothing of it
# polls or resends into the next test's server.
FORGET_WORKER = """() => {
  localStorage.clear();
  return navigator.serviceWorker.getRegistrations()
    .then(rs => Promise.all(rs.map(r => r.unregister())));
}"""


def close_with_worker(page) -> None:
    try:
        page.goto(page.url.split("/t/")[0].split("/play/")[0] + "/healthz")
        page.evaluate(FORGET_WORKER)
    finally:
        page.context.close()


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


def test_three_deals_tapped_offline_survive_a_reload_and_are_recorded_once_each_in_order(
    table_page,
):
    from scoring.models import TableEvent

    page, table = table_page
    context = page.context
    context.set_offline(True)
    for side, place in (("A", "二游"), ("B", "三游"), ("A", "末游")):
        column = page.locator(".deal-col").nth(0 if side == "A" else 1)
        column.get_by_role("button", name=f"对家{place}").click()
    banner = page.locator(".tap-queue")
    expect(banner).to_be_visible()
    expect(banner).to_contain_text("本机还有3条记录没有保存")
    assert TableEvent.objects.filter(table=table).count() == 0
    # The page is gone (a locked screen, a closed tab); back online, the table's page opened
    # again finds the queue still on the phone, and it goes in whole, in the order tapped.
    url = page.url
    page.close()
    context.set_offline(False)
    again = context.new_page()
    again.goto(url)
    expect(again.locator(".history-list li")).to_have_count(3, timeout=20000)
    expect(again.locator(".tap-queue")).to_be_hidden()
    orders = [e.payload["order"] for e in TableEvent.objects.filter(table=table).order_by("seq")]
    assert orders == [list("AABB"), list("BABA"), list("ABBA")]


def test_a_queue_refused_because_the_table_changed_elsewhere_stops_and_waits_for_people(
    table_page,
):
    from scoring.models import TableEvent, TableMatch
    from scoring.services.tables import record_event

    page, table = table_page
    context = page.context
    context.set_offline(True)
    page.locator(".deal-col").nth(0).get_by_role("button", name="对家二游").click()
    expect(page.locator(".tap-queue")).to_contain_text("本机还有1条记录没有保存")
    # Meanwhile the chief referee records a deal on another phone.
    record_event(
        table=TableMatch.objects.get(pk=table.pk), event={"order": list("BBAA")}, key="chief-1"
    )
    context.set_offline(False)
    page.evaluate("window.dispatchEvent(new Event('online'))")
    expect(page.locator(".tap-queue")).to_contain_text("在别处有了改动", timeout=20000)
    assert TableEvent.objects.filter(table=table).count() == 1  # nothing doubled or lost
    page.get_by_role("button", name="重新发送").click()
    expect(page.locator(".history-list li")).to_have_count(2, timeout=20000)
    expect(page.locator(".tap-queue")).to_be_hidden()


def test_the_table_page_opens_offline_with_its_waiting_taps_and_sends_them_once_back_online(
    table_page_with_worker,
):
    from scoring.models import TableEvent

    page, table = table_page_with_worker
    # The service worker (static/js/sw.js) controls the page and has kept it and its files.
    page.wait_for_function("() => !!navigator.serviceWorker.controller")
    expect(page.locator("body")).to_have_attribute("data-offline-ready", "")
    context = page.context
    context.set_offline(True)
    page.locator(".deal-col").nth(1).get_by_role("button", name="对家三游").click()
    expect(page.locator(".tap-queue")).to_contain_text("本机还有1条记录没有保存")
    # The table's page opened again with no connection: the kept copy, with the waiting tap.
    response = page.goto(page.url)
    assert response.ok and response.from_service_worker
    expect(page.locator(".deal-col").first).to_be_visible()
    expect(page.locator(".tap-queue")).to_contain_text("本机还有1条记录没有保存")
    # (Not asserted: that nothing reached the server meanwhile. Under load Chromium now and
    # then lets a worker-controlled page's request past Playwright's offline switch; the
    # server then has the tap early, and the resend below must still record it once.)
    context.set_offline(False)
    page.evaluate("() => window.dispatchEvent(new Event('online'))")
    expect(page.locator(".history-list li")).to_have_count(1, timeout=20000)
    expect(page.locator(".tap-queue")).to_be_hidden()
    assert [e.payload["order"] for e in TableEvent.objects.filter(table=table)] == [list("BABA")]
