"""A deal is answered with the parts of the table's panel it changed (scoring.table_page,
static/js/table.js): after every tap — tapped one by one or quickly, queued — the phone
shows exactly the panel that loading the page shows."""

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from scoring.tests.test_browser_referee import PASSWORD, log_in
from scoring.tests.utils import assign_referee

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The panel as the phone shows it, without what each render makes anew: the message of the
# last tap, the forms' CSRF tokens and idempotency keys.
PANEL = """() => {
  const panel = document.querySelector('#table-panel').cloneNode(true);
  panel.querySelector('#table-flash').replaceChildren();
  panel.querySelectorAll('input[name=csrfmiddlewaretoken], input[name=key]')
    .forEach(input => input.removeAttribute('value'));
  return panel.outerHTML.replace(/>\\s+</g, '><');
}"""


def _referee_at(live_server, browser, slug: str):
    from tournaments.models import Match
    from tournaments.ops.demo import load_demo

    load_demo()
    get_user_model().objects.create_user(username="ref", password=PASSWORD)
    match = (
        Match.objects.filter(
            round__stage__event__tournament__slug=slug,
            round__stage__event__slug="guandan",
            status="pending",
            home__isnull=False,
            away__isnull=False,
        )
        .order_by("round__number", "index")
        .first()
    )
    assign_referee(Match.objects.filter(pk=match.pk), get_user_model().objects.get(username="ref"))
    table = match.tables.order_by("number").first()
    page = browser.new_context(
        viewport={"width": 390, "height": 844}, service_workers="block"
    ).new_page()
    log_in(page, live_server.url, "ref")
    page.goto(f"{live_server.url}/t/{slug}/guandan/tables/{table.pk}/")
    return page, table


def _as_loaded(page) -> str:
    shown = page.evaluate(PANEL)
    page.reload()
    return shown, page.evaluate(PANEL)


@pytest.mark.parametrize("slug", ["nantong-2014", "anhui-2021"])
def test_after_each_deal_the_phone_shows_the_panel_the_page_loads(live_server, browser, slug):
    from scoring.models import TableEvent

    page, table = _referee_at(live_server, browser, slug)
    taps = ["对家末游", "对家三游", "对家末游"]  # never past A: the match goes on
    for count, (side, name) in enumerate(zip([0, 1, 0], taps, strict=True), start=1):
        page.locator(".deal-col").nth(side).get_by_role("button", name=name).click()
        expect(page.locator(".history-list li")).to_have_count(count)
        expect(page.locator("#table-flash .notice-ok")).to_be_visible()
        expect(page.locator("#table-panel")).to_have_attribute("data-version", str(count))
        shown, loaded = _as_loaded(page)
        assert shown == loaded
    # Three taps at once go through the phone's queue, each answered in part in turn.
    for side, name in ((1, "对家末游"), (0, "对家三游"), (1, "对家末游")):
        page.locator(".deal-col").nth(side).get_by_role("button", name=name).click()
    expect(page.locator(".history-list li")).to_have_count(6)
    expect(page.locator(".unsaved")).to_be_hidden()
    expect(page.locator("#table-panel")).to_have_attribute("data-version", "6")
    shown, loaded = _as_loaded(page)
    assert shown == loaded
    assert TableEvent.objects.filter(table=table).count() == 6
    page.context.close()


def test_an_answer_in_part_for_another_version_than_the_page_shows_loads_the_panel(
    live_server, browser
):
    # An answer in part follows the version before its deal only: a page showing another
    # (a change it has not seen) loads its panel whole instead of patching the wrong one.
    from scoring.models import TableMatch

    page, table = _referee_at(live_server, browser, "nantong-2014")
    page.locator(".deal-col").first.get_by_role("button", name="对家末游").click()
    expect(page.locator(".history-list li")).to_have_count(1)

    def elsewhere(route):
        answer = route.fetch()
        body = answer.text().replace('data-follows="1"', 'data-follows="0"')
        route.fulfill(response=answer, body=body)

    page.route("**/deal/", elsewhere)
    page.locator(".deal-col").nth(1).get_by_role("button", name="对家末游").click()
    expect(page.locator(".history-list li")).to_have_count(2)
    expect(page.locator("#table-panel")).to_have_attribute("data-version", "2")
    page.unroute("**/deal/")
    shown, loaded = _as_loaded(page)
    assert shown == loaded
    assert TableMatch.objects.get(pk=table.pk).version == 2
    page.context.close()


def test_a_deal_leaves_the_forms_and_folded_parts_as_the_panel_comes(live_server, browser):
    # A penalty's form opened and half typed, then a deal tapped instead: as when the whole
    # panel came, the form is shut and empty (nothing typed is sent later by mistake).
    page, _table = _referee_at(live_server, browser, "nantong-2014")
    page.locator(".deal-col").first.get_by_role("button", name="对家末游").click()
    expect(page.locator(".history-list li")).to_have_count(1)
    page.get_by_text("处罚（扣级、回到2、取消资格）").click()
    page.locator("input[name=reason]").fill("出错牌")
    page.locator(".deal-col").nth(1).get_by_role("button", name="对家末游").click()
    expect(page.locator(".history-list li")).to_have_count(2)
    expect(page.locator("input[name=reason]")).to_be_hidden()
    assert page.locator("input[name=reason]").input_value() == ""
    shown, loaded = _as_loaded(page)
    assert shown == loaded
    page.context.close()
