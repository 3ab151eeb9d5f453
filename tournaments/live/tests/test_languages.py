"""Every live page and JSON answers in the reader's language: a phone that switches to
English after polling in Chinese sends the ETag of its Chinese copy, and must be answered
200 with the English one — never "not modified" — nor be given a Chinese copy cached for
someone else. Each URL is asked the way its readers ask it (the polled fragment with
HX-Request, the full page, the JSON; the chief referee's board logged in)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from scoring.models import TableMatch
from tournaments.draw import make as draw_make
from tournaments.models import Event, Match, Official, Tournament
from tournaments.ops import synthetic

HTMX = {"HTTP_HX_REQUEST": "true"}

# (name, how it is asked, whether it answers conditionally, an English word of its English
# body or None for JSON). The full pages of an event embed their cached fragments and carry
# no validators; the day's timeline is rendered for each poll.
LIVE = [
    ("bracket", "hx", True, "To be decided"),
    ("bracket", "page", False, "To be decided"),
    ("bracket.json", "json", True, None),
    ("screen", "hx", True, "Unit standings"),
    ("screen", "page", False, "Unit standings"),
    ("tie", "hx", True, "In progress"),
    ("tie", "page", False, "In progress"),
    ("tie.json", "json", True, None),
    ("table", "hx", True, "Table"),
    ("board", "hx", True, "Not started"),
    ("standings", "page", True, "Unit standings"),
    ("standings", "hx", True, "pts"),
    ("standings-screen", "hx", True, "Unit standings"),
    ("standings.json", "json", True, None),
    ("timeline", "page", False, "Schedule"),
    ("timeline.json", "json", False, None),
]


@pytest.fixture
def played(db):
    """A guandan team event half played: a tie in play, a table, a chief referee."""
    event = synthetic.create_event(tournament_slug="big", event_slug="teams", entries=8)
    Tournament.objects.filter(slug="big").update(status=Tournament.Status.RUNNING)
    draw_make.draw_event(event=event, seed=1)
    synthetic.play_event(event, seed=1, until=0.5)
    event = Event.objects.select_related("tournament").get(pk=event.pk)
    table = (
        TableMatch.objects.filter(match__round__stage__event=event)
        .exclude(home_pair=None)
        .order_by("match__round__number", "match__index", "number")
        .first()
    )
    match = Match.objects.get(pk=table.match_id)
    Match.objects.filter(pk=match.pk).update(status=Match.Status.IN_PROGRESS)
    event.bump_version()
    chief = get_user_model().objects.create_user("chief")
    Official.objects.create(
        tournament=event.tournament, name="裁判长", role=Official.Role.CHIEF_REFEREE, user=chief
    )
    return {"event": event, "match": match, "table": table, "chief": chief}


def _request(played, name: str, how: str):
    event, match, table = played["event"], played["match"], played["table"]
    t, e = event.tournament.slug, event.slug
    urls = {
        "bracket": reverse("live:bracket", args=[t, e]),
        "bracket.json": reverse("live:bracket-json", args=[t, e]),
        "screen": reverse("live:screen", args=[t, e]),
        "tie": reverse("live:match", args=[t, e, match.pk]),
        "tie.json": reverse("live:match-json", args=[t, e, match.pk]),
        "table": reverse("scoring:table", args=[t, e, table.pk]),
        "board": reverse("scoring:board", args=[t, e]),
        "standings": reverse("standings:page", args=[t]),
        "standings-screen": reverse("standings:page", args=[t]) + "?screen=1",
        "standings.json": reverse("standings:json", args=[t]),
        "timeline": reverse("day:timeline", args=[t]),
        "timeline.json": reverse("day:json", args=[t]),
    }
    client = Client()
    if name == "board":
        client.force_login(played["chief"])
    return client, urls[name], HTMX if how == "hx" else {}


@pytest.mark.parametrize(
    ("name", "how", "conditional", "english"), LIVE, ids=[f"{n}-{h}" for n, h, _c, _e in LIVE]
)
def test_a_phone_that_switches_to_english_is_answered_in_english(
    played, name, how, conditional, english
):
    client, url, headers = _request(played, name, how)
    zh = client.get(url, **headers)
    assert zh.status_code == 200, url
    etag = zh.headers.get("ETag")
    assert bool(etag) == conditional, f"{url} ({how}): ETag {etag}"
    again = {"HTTP_IF_NONE_MATCH": etag} if etag else {}
    assert client.get(url, **headers, **again).status_code == (304 if etag else 200)
    client.cookies["django_language"] = "en"
    conditional = {"HTTP_IF_NONE_MATCH": etag} if etag else {}
    if zh.headers.get("Last-Modified"):
        conditional["HTTP_IF_MODIFIED_SINCE"] = zh.headers["Last-Modified"]
    en = client.get(url, **headers, **conditional)
    assert en.status_code == 200, f"{url} ({how}): the Chinese copy's validators answered 304"
    if etag:
        assert en.headers["ETag"] != etag
        # And the English copy has validators of its own: asked again, it is not modified.
        assert client.get(url, **headers, HTTP_IF_NONE_MATCH=en.headers["ETag"]).status_code == 304
    if english is not None:
        body = en.content.decode()
        assert english in body, f"{url} ({how}) is not in English"
        assert body != zh.content.decode()
    # Back in Chinese: the Chinese copy, not the English one cached meanwhile.
    client.cookies["django_language"] = "zh-hans"
    back = client.get(url, **headers)
    assert back.status_code == 200
    if english is not None:
        assert english not in back.content.decode(), f"{url} ({how}) stayed in English"
