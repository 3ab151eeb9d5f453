"""In a browser: the bracket polls with If-None-Match, a 304 leaves the page as it is, a
result shows up at the next poll; the projector moves from slide to slide by itself, and
its 团体总分 slide shows its table every time round."""

import re

import pytest
from playwright.sync_api import expect

from tournaments.draw import make as draw_make
from tournaments.draw import results as draw_results
from tournaments.live import screen as views_screen
from tournaments.live import views as views_bracket
from tournaments.models import Match, Tournament
from tournaments.ops import synthetic

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def event(db, monkeypatch):
    monkeypatch.setattr(views_bracket, "POLL_SECONDS", 1)
    monkeypatch.setattr(views_screen, "POLL_SECONDS", 1)
    monkeypatch.setattr(views_screen, "SLIDE_SECONDS", 1)
    made = synthetic.create_event(tournament_slug="live", event_slug="teams", entries=8)
    Tournament.objects.filter(slug="live").update(status=Tournament.Status.RUNNING)
    draw_make.draw_event(event=made, seed=1)
    return made


def test_the_bracket_polls_with_its_etag_and_shows_a_new_result(live_server, page, event):
    polls = []
    page.on(
        "response",
        lambda r: (
            polls.append((r.status, r.request.headers.get("if-none-match")))
            if r.request.headers.get("hx-request")
            else None
        ),
    )
    page.goto(f"{live_server.url}/t/live/teams/bracket/")
    page.wait_for_timeout(3500)
    assert any(status == 304 and etag for status, etag in polls), polls
    expect(page.locator("#bracket-body .match")).to_have_count(8)
    match = Match.objects.filter(round__stage__event=event, round__number=1).order_by("index")[0]
    draw_results.record_result(match=match, winner="away", home_score=1, away_score=2)
    card = page.locator(f"#match-{match.pk}")
    expect(card.locator(".side.won .name")).to_have_text(match.away.name, timeout=5000)
    expect(card.locator(".score").first).to_have_text("1")


def test_the_projector_moves_on_by_itself(live_server, page, event):
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.goto(f"{live_server.url}/t/live/teams/screen/")
    slides = page.locator("#screen-body .slide")
    assert slides.count() >= 2
    first = slides.nth(0)
    expect(first).to_have_class("slide slide-ties current")
    expect(slides.nth(1)).to_have_class("slide slide-tree current", timeout=4000)
    expect(page.locator(".screen-clock")).to_have_text(re.compile(r"^\d\d:\d\d$"))


def test_the_units_standings_slide_shows_its_rows_every_cycle(live_server, page, event):
    """The 团体总分 slide loads its table from the standings page. The projector's body is
    replaced by its polls, and the slide with it: loaded again, it must not be told "not
    modified" (an ETag of the table it no longer holds) and stay empty."""
    page.set_viewport_size({"width": 1920, "height": 1080})
    polls = []
    page.on(
        "response",
        lambda r: (
            polls.append(r.status)
            if "/screen/" in r.url and r.request.headers.get("hx-request")
            else None
        ),
    )
    page.goto(f"{live_server.url}/t/live/teams/screen/")
    units = page.locator("#screen-body .slide-units")
    rows = units.locator("tbody tr")
    for cycle in range(2):
        expect(page.locator("#screen-body .slide-units.current")).to_have_count(1, timeout=15000)
        expect(rows.first).to_be_visible()
        assert rows.count() >= 1
        box = rows.first.bounding_box()
        assert box and box["width"] > 0 and box["height"] > 0, cycle
        text = units.inner_text()
        assert "团体总分" in text and rows.first.inner_text().strip(), cycle
        # Wait for the slide to move on, then for it to come round again.
        expect(page.locator("#screen-body .slide-units.current")).to_have_count(0, timeout=5000)
    assert 200 in polls  # the body was replaced at least once meanwhile
