"""A referee records a whole table match on a phone; the chief referee confirms it; the
bracket moves on."""

import os

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from scoring.tests.utils import assign_referee

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "Referee-2021-pass"


def log_in(page, base, username):
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.locator("main form button[type=submit]").click()
    page.wait_for_load_state()


def test_a_referee_records_a_table_from_2_past_a_and_the_confirmed_winner_moves_on(
    live_server, browser, db
):
    from tournaments.models import Match, Official
    from tournaments.ops.demo import load_demo

    load_demo()
    User = get_user_model()
    referee = User.objects.create_user(username="zhouling", password=PASSWORD)
    chief = User.objects.create_user(username="xiaohui", password=PASSWORD)
    match = (
        Match.objects.filter(
            round__stage__event__tournament__slug="anhui-2021",
            round__stage__event__slug="guandan",
            status="pending",
            home__isnull=False,
            away__isnull=False,
            round__number=1,
        )
        .order_by("index")
        .first()
    )
    tournament = match.round.stage.event.tournament
    # The notice's chief referee gets a login.
    Official.objects.filter(
        tournament=tournament, name="肖慧", role=Official.Role.CHIEF_REFEREE
    ).update(user=chief)
    assign_referee(Match.objects.filter(pk=match.pk), referee)
    table = match.tables.get()
    url = f"{live_server.url}/t/anhui-2021/guandan/tables/{table.pk}/"

    phone = browser.new_context(service_workers="block", viewport={"width": 390, "height": 844})
    page = phone.new_page()
    log_in(page, live_server.url, "zhouling")
    page.goto(url)
    home_first = page.locator(".deal-col").first.get_by_role("button", name="对家二游")
    # Anhui rules, best of three games: 双上 promotes 5 levels, 2 -> 7 -> Q -> A, and a
    # fourth 双上 played at A passes A. Two games win the match.
    for deal in range(1, 9):
        home_first.click()
        expect(page.locator(".history-list li")).to_have_count(deal)
        if deal < 8:
            home_first = page.locator(".deal-col").first.get_by_role("button", name="对家二游")
    assert "赢得第2局" in page.locator(".history-list li").first.inner_text()
    assert "比赛结束" in page.locator(".playing").inner_text()
    page.get_by_role("button", name="提交结果").click()
    page.get_by_text("结果已提交，等待确认。").wait_for()
    assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0

    desk = browser.new_context(
        service_workers="block", viewport={"width": 1280, "height": 900}
    ).new_page()
    log_in(desk, live_server.url, "xiaohui")
    desk.goto(url)
    desk.get_by_role("button", name="确认结果").click()
    desk.get_by_text("结果已确认。").wait_for()

    match.refresh_from_db()
    assert match.status == "finished" and match.winner == "home"
    desk.goto(f"{live_server.url}/t/anhui-2021/guandan/bracket/")
    next_card = desk.locator(f"#match-{match.winner_to_id}")
    assert match.home.name in next_card.inner_text()


def _referee_at_first_guandan_table(browser, live_server):
    """The demo loaded; a referee assigned to Anhui's first guandan match to play, logged in
    on a 390-px phone at its table. (page, match, table)."""
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
    # No service worker: page.route does not reliably see the requests of a page the worker
    # took over mid-test (static/js/sw.js is tested in test_browser_resend.py).
    page = browser.new_context(
        viewport={"width": 390, "height": 844}, service_workers="block"
    ).new_page()
    log_in(page, live_server.url, "liangyong")
    page.goto(f"{live_server.url}/t/anhui-2021/guandan/tables/{table.pk}/")
    return page, match, table


def test_a_deal_sent_on_a_dropped_connection_is_shown_unsaved_resent_and_recorded_once(
    live_server, browser, db
):
    from scoring.models import TableEvent

    page, match, table = _referee_at_first_guandan_table(browser, live_server)

    # The first attempt reaches the server but its answer is lost (the Wi-Fi drops on the
    # way back); the page must say so, resend, and the deal must be recorded once.
    dropped = []

    def lose_the_answer(route):
        if not dropped:
            dropped.append(route.request.url)
            route.fetch()
            route.abort("connectionreset")
        else:
            route.continue_()

    page.route("**/deal/", lose_the_answer)
    page.locator(".deal-col").first.get_by_role("button", name="对家三游").click()
    expect(page.locator(".unsaved")).to_be_visible()
    expect(page.locator(".history-list li")).to_have_count(1, timeout=15000)
    expect(page.locator(".unsaved")).to_be_hidden()
    assert dropped
    assert TableEvent.objects.filter(table=table, undone_at__isnull=True).count() == 1


def test_a_disqualification_sent_without_its_tick_comes_back_with_what_was_typed(
    live_server, browser, db
):
    """Through htmx and the page's tap queue: the refusal shows why, the penalty form stays
    open with the side, the kind, the reason and the reporter as typed; ticked, it goes in."""
    from scoring.models import TableEvent

    page, match, table = _referee_at_first_guandan_table(browser, live_server)
    page.get_by_text("处罚（扣级、回到2、取消资格）").click()
    form = page.locator("form[action$='/penalty/']")
    form.locator("select[name=team]").select_option("B")
    form.locator("select[name=kind]").select_option("disqualify")
    form.locator("input[name=reason]").fill("多次争吵，不服从裁判")
    form.locator("input[name=reported_by]").fill("王裁判")
    form.get_by_role("button", name="记录处罚").click()

    expect(page.locator(".problems")).to_contain_text("请勾选“确认取消比赛资格”")
    form = page.locator("form[action$='/penalty/']")
    expect(form).to_be_visible()  # its panel is open
    expect(form.locator("select[name=team]")).to_have_value("B")
    expect(form.locator("select[name=kind]")).to_have_value("disqualify")
    expect(form.locator("input[name=reason]")).to_have_value("多次争吵，不服从裁判")
    expect(form.locator("input[name=reported_by]")).to_have_value("王裁判")
    assert not TableEvent.objects.filter(table=table).exists()
    if os.environ.get("SHOTS"):
        page.screenshot(path=f"{os.environ['SHOTS']}/refused-penalty.png", full_page=True)

    form.locator("input[name=confirm]").check()
    form.get_by_role("button", name="记录处罚").click()
    expect(page.locator(".history-list li")).to_have_count(1)
    [event] = TableEvent.objects.filter(table=table)
    assert event.payload == {"penalty": {"team": "B", "kind": "disqualify"}}
    assert event.reason == "多次争吵，不服从裁判"
