"""Every number the organiser's event form accepts is bounded by what a real event needs,
refused with a clear Chinese message and nothing saved (issue 17)."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from tournaments.models import Event, Official

GOOD = {
    "name": "掼蛋团体赛",
    "slug": "guandan",
    "discipline": "guandan_team",
    "entry_kind": "",
    "pairs_per_team": "3",
    "ruleset": "nantong2014",
    "rules_summary": "",
    "order": "1",
}
PAIRS = "每队对数须是1到9之间的整数。"
ORDER = "顺序须是0到999之间的整数。"


@pytest.fixture
def event(make_tournament):
    tournament = make_tournament()
    return Event.objects.create(
        tournament=tournament,
        slug="guandan",
        name="掼蛋团体赛",
        discipline="guandan_team",
        ruleset="nantong2014",
        pairs_per_team=3,
        order=1,
    )


@pytest.fixture
def organiser(client, event):
    user = get_user_model().objects.create_user("bounds-organiser")
    Official.objects.create(
        tournament=event.tournament, name="组织者", role=Official.Role.ORGANISER, user=user
    )
    client.force_login(user)
    return user


def post(client, event, **changes):
    url = reverse("manage:event-edit", args=[event.tournament.slug, event.slug])
    return client.post(url, {**GOOD, **changes})


def saved(event):
    return Event.objects.filter(pk=event.pk).values_list("pairs_per_team", "order").get()


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("pairs_per_team", "0", PAIRS),
        ("pairs_per_team", "-1", PAIRS),
        ("pairs_per_team", "10", PAIRS),
        ("pairs_per_team", "11", PAIRS),
        ("pairs_per_team", "32768", PAIRS),
        ("pairs_per_team", "9" * 30, PAIRS),
        ("pairs_per_team", "3.5", PAIRS),
        ("pairs_per_team", "三", PAIRS),
        ("order", "-1", ORDER),
        ("order", "1000", ORDER),
        ("order", "2147483648", ORDER),
        ("order", "9" * 30, ORDER),
        ("order", "1.5", ORDER),
    ],
)
def test_a_number_out_of_its_bounds_is_refused_and_nothing_saved(
    client, event, organiser, field, value, message
):
    before = saved(event)
    response = post(client, event, **{field: value})
    assert response.status_code == 422
    assert message in response.content.decode()
    assert saved(event) == before


@pytest.mark.parametrize(
    ("field", "value", "stored"),
    [
        ("pairs_per_team", "1", (1, 1)),
        ("pairs_per_team", "9", (9, 1)),
        ("pairs_per_team", "５", (5, 1)),  # a full-width digit from a Chinese keyboard
        ("order", "0", (3, 0)),
        ("order", "999", (3, 999)),
    ],
)
def test_a_number_at_its_bounds_is_saved(client, event, organiser, field, value, stored):
    response = post(client, event, **{field: value})
    assert response.status_code == 302
    assert saved(event) == stored


def test_an_even_number_of_pairs_in_a_team_event_is_still_refused(client, event, organiser):
    response = post(client, event, pairs_per_team="4")
    assert response.status_code == 422
    assert "每队对数须为奇数" in response.content.decode()
    assert saved(event) == (3, 1)


def test_the_form_tells_the_browser_the_bounds(client, event, organiser):
    url = reverse("manage:event-edit", args=[event.tournament.slug, event.slug])
    html = client.get(url).content.decode()
    assert 'name="pairs_per_team"' in html and 'min="1"' in html and 'max="9"' in html
    assert 'max="999"' in html
