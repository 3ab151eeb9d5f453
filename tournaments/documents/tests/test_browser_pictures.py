"""On a phone: the bracket page's picture button opens the bracket as a picture that the
browser shows (decoded, as wide as the screen when fitted), and so do the results and the
units' standings."""

import os

import pytest

from tournaments.draw import make as draw_make
from tournaments.draw import results as draw_results
from tournaments.models import Match, Tournament
from tournaments.ops import synthetic

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Where the screenshots go when someone wants to look at them (PICTURES_SHOTS=/some/dir).
SHOTS = os.environ.get("PICTURES_SHOTS")


@pytest.fixture
def event(db):
    made = synthetic.create_event(tournament_slug="share", event_slug="teams", entries=32)
    Tournament.objects.filter(slug="share").update(status=Tournament.Status.RUNNING)
    draw_make.draw_event(event=made, seed=1)
    first = Match.objects.filter(round__stage__event=made, round__number=1).order_by("index")[0]
    draw_results.record_result(match=first, winner="home", home_score=2, away_score=1)
    return made


def _shown(page) -> dict:
    return page.evaluate(
        """() => { const img = document.images[0];
        return img ? {w: img.naturalWidth, h: img.naturalHeight, complete: img.complete,
                      shown: img.getBoundingClientRect().width} : null; }"""
    )


def test_a_phone_opens_the_bracket_picture_from_the_bracket_page(
    live_server, phone_page, event, tmp_path
):
    page = phone_page
    page.goto(f"{live_server.url}/t/share/teams/bracket/")
    with page.expect_navigation():
        page.get_by_role("link", name="对阵图（图片）").click()
    assert page.url.endswith("/t/share/teams/bracket.png")
    page.wait_for_function("() => document.images.length && document.images[0].complete")
    shown = _shown(page)
    assert shown["w"] == 1080 and shown["h"] > shown["w"], shown
    assert 0 < shown["shown"] <= 390  # fitted to the screen, as a phone opens a picture
    shot = page.screenshot(path=str(tmp_path / "bracket-390.png"))
    assert len(shot) > 5000  # not a blank page
    if SHOTS:
        page.screenshot(path=os.path.join(SHOTS, "bracket-390.png"))


def test_a_phone_opens_the_results_and_standings_pictures(live_server, phone_page, event):
    page = phone_page
    page.goto(f"{live_server.url}/t/share/standings/")
    for name, path in [("团体总分（图片）", "standings.png"), ("成绩公告（图片）", "results.png")]:
        with page.expect_navigation():
            page.get_by_role("link", name=name).click()
        assert page.url.endswith(f"/t/share/{path}")
        page.wait_for_function("() => document.images.length && document.images[0].complete")
        shown = _shown(page)
        assert shown["w"] == 1080 and shown["h"] > 0, (name, shown)
        if SHOTS:
            page.screenshot(path=os.path.join(SHOTS, path.replace(".png", "-390.png")))
        page.go_back()
