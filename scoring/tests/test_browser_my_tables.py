"""A referee opens their one-time link on a 390-px phone, lands on 我的台 and taps into
their first table."""

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_referee_opens_their_link_lands_on_my_tables_and_taps_into_the_first(
    live_server, phone_page
):
    from scoring.models import TableMatch
    from tournaments.links.services import login_link_create
    from tournaments.models import Match, Official
    from tournaments.ops.demo import load_demo

    load_demo()
    match = (
        Match.objects.filter(
            round__stage__event__tournament__slug="nantong-2014",
            round__stage__event__slug="guandan",
            round__number=1,
            home__isnull=False,
            away__isnull=False,
        )
        .exclude(status="bye")
        .order_by("index")
        .first()
    )
    tournament = match.round.stage.event.tournament
    referee = Official.objects.create(tournament=tournament, name="钱立", role="referee")
    Match.objects.filter(pk=match.pk).update(referee=referee)
    first = TableMatch.objects.filter(match=match).order_by("number").first()
    _link, token = login_link_create(official=referee, created_by=None)

    page = phone_page
    page.goto(f"{live_server.url}/accounts/link/{token}/")
    expect(page.get_by_text("钱立")).to_be_visible()
    page.locator("main form button[type=submit]").click()
    expect(page.get_by_role("heading", name="我的台：钱立")).to_be_visible()
    assert page.url.endswith(f"/t/{tournament.slug}/referee/mine/")
    # The header names the referee, not their login (referee-…).
    expect(page.locator(".who")).to_have_text("钱立")
    cards = page.locator(".my-table")
    expect(cards).to_have_count(3)
    expect(cards.first).to_have_class("panel my-table state-waiting is-next")
    expect(cards.first.locator(".next-flag")).to_have_text("下一台")
    assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0
    cards.first.locator(".my-table-qr summary").click()
    expect(cards.first.locator("img.qr-code")).to_be_visible()
    cards.first.locator(".my-table-link").click()
    page.wait_for_url(f"**/tables/{first.pk}/")
    # The referee may enter this table: the deal buttons are there.
    expect(page.locator(".deal-col").first).to_be_visible()
