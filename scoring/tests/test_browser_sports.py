"""A referee enters a badminton match game by game on a phone (an impossible score is
refused and put right); the chief referee confirms; the winner moves on in the bracket."""

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from scoring.tests.test_browser_referee import PASSWORD, log_in
from scoring.tests.utils import assign_referee

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_referee_enters_a_badminton_match_and_the_confirmed_winner_moves_on(live_server, browser):
    from tournaments.models import Match, Official
    from tournaments.ops.demo import load_demo

    load_demo()
    User = get_user_model()
    referee = User.objects.create_user(username="liangyong", password=PASSWORD)
    chief = User.objects.create_user(username="xiaohui", password=PASSWORD)
    match = (
        Match.objects.filter(
            round__stage__event__tournament__slug="anhui-2021",
            round__stage__event__slug="badminton",
            status="pending",
            home__isnull=False,
            away__isnull=False,
        )
        .order_by("round__number", "index")
        .select_related("home", "away")
        .first()
    )
    Official.objects.filter(
        tournament=match.round.stage.event.tournament, role=Official.Role.CHIEF_REFEREE
    ).update(user=chief)
    assign_referee(Match.objects.filter(pk=match.pk), referee)
    table = match.tables.get()
    url = f"{live_server.url}/t/anhui-2021/badminton/tables/{table.pk}/"

    page = browser.new_context(
        service_workers="block", viewport={"width": 390, "height": 844}
    ).new_page()
    log_in(page, live_server.url, "liangyong")
    page.goto(url)
    expect(page.locator(".meta").first).to_contain_text("羽毛球三局两胜")

    def enter(home: str, away: str) -> None:
        page.get_by_role("spinbutton", name=match.home.name).fill(home)
        page.get_by_role("spinbutton", name=match.away.name).fill(away)
        page.locator(".game-form button[type=submit]").click()

    enter("21", "17")
    expect(page.locator(".game-list li")).to_have_count(1)
    expect(page.locator(".game-list li").first).to_contain_text("21 – 17")
    expect(page.locator(".playing")).to_contain_text("第2局")

    enter("21", "20")  # impossible: a game at 21 needs a two-point lead
    expect(page.locator(".problems")).to_contain_text("21–20")
    expect(page.locator(".game-list li")).to_have_count(1)

    enter("23", "21")
    expect(page.locator(".playing")).to_contain_text("比赛结束")
    expect(page.locator(".team.winner .team-name")).to_have_text(match.home.name)
    assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0
    page.get_by_role("button", name="提交结果").click()
    page.get_by_text("结果已提交，等待确认。").wait_for()

    desk = browser.new_context(
        service_workers="block", viewport={"width": 1280, "height": 900}
    ).new_page()
    log_in(desk, live_server.url, "xiaohui")
    desk.goto(url)
    desk.get_by_role("button", name="确认结果").click()
    desk.get_by_text("结果已确认。").wait_for()

    match.refresh_from_db()
    assert (match.status, match.winner, match.home_score, match.away_score) == (
        "finished",
        "home",
        2,
        0,
    )
    desk.goto(f"{live_server.url}/t/anhui-2021/badminton/bracket/")
    expect(desk.locator(f"#match-{match.winner_to_id}")).to_contain_text(match.home.name)
