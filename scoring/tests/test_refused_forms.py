"""A refused write keeps what was typed: a refused score, a disqualification without its
tick, a report or a forfeit the server turns down come back with their fields as they were
sent, through htmx (the panel) and through a plain post (the whole page, 422), on the
referees' page and on the players' link, and nothing is saved."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from scoring.models import TableMatch
from scoring.services import players
from scoring.tests.test_sport_tables import first_match, table_of
from scoring.tests.test_sport_tables import people as people  # noqa: F401 (a fixture)
from scoring.tests.test_table_views import HTMX, snapshot, table_url
from scoring.tests.utils import fresh, page_data
from tournaments.models import Tournament

ANHUI = "anhui-2021"


def form(html: str, action: str) -> str:
    """The form of the page that posts to ``action``."""
    found = re.search(rf'<form method="post" action="{re.escape(action)}".*?</form>', html, re.S)
    assert found, f"no form for {action}"
    return found.group(0)


def field(html: str, name: str) -> str:
    """The tag of the form field ``name`` (an input or a select with its options)."""
    found = re.search(rf'<select name="{name}">.*?</select>|<input[^>]*name="{name}"[^>]*>', html)
    assert found, f"no field {name}"
    return found.group(0)


def value(html: str, name: str) -> str:
    tag = field(html, name)
    if tag.startswith("<select"):
        chosen = re.search(r'<option value="([^"]*)" selected', tag)
        return chosen.group(1) if chosen else re.search(r'<option value="([^"]*)"', tag).group(1)
    found = re.search(r'value="([^"]*)"', tag)
    return found.group(1) if found else ""


DISQUALIFY = {
    "team": "B",
    "kind": "disqualify",
    "levels": "3",
    "reason": "争吵<不服从>",
    "reported_by": "王裁判",
    "key": "d1",
}


@pytest.mark.parametrize("htmx", [True, False], ids=["htmx", "plain-post"])
def test_a_disqualification_without_its_tick_keeps_every_field_and_saves_nothing(
    client, cast, htmx
):
    client.force_login(cast.referee)
    url = table_url("scoring:penalty", cast.table)
    before = snapshot()
    response = client.post(url, page_data(url, DISQUALIFY), **(HTMX if htmx else {}))
    assert response.status_code == 422
    html = response.content.decode()
    assert "请勾选“确认取消比赛资格”" in html
    if not htmx:
        assert "<html" in html and 'id="table-panel"' in html  # the whole page
    assert snapshot() == before
    page = html
    html = form(page, url)
    assert value(html, "team") == "B"
    assert value(html, "kind") == "disqualify"
    assert value(html, "levels") == "3"
    assert value(html, "reason") == "争吵&lt;不服从&gt;"  # kept, and escaped
    assert value(html, "reported_by") == "王裁判"
    assert "checked" not in field(html, "confirm")  # what was sent: not ticked
    # The panel the form is in is open, so the referee sees the kept fields at once.
    assert re.search(r'<details class="panel" open><summary>处罚', page)
    # Ticked and sent again: recorded, and the form is empty for the next penalty.
    response = client.post(url, page_data(url, {**DISQUALIFY, "confirm": "1", "key": "d2"}), **HTMX)
    assert response.status_code == 200
    assert fresh(cast.table).state["decided_by"] == "disqualification"


def test_a_refused_report_and_forfeit_keep_their_fields(client, cast):
    client.force_login(cast.referee)
    url = table_url("scoring:forfeit", cast.table)
    data = {"team": "B", "reason": "withdrawn", "key": "f1"}
    response = client.post(url, page_data(url, data), **HTMX)  # not ticked
    assert response.status_code == 422
    html = form(response.content.decode(), url)
    assert value(html, "team") == "B" and value(html, "reason") == "withdrawn"
    assert re.search(r'<details class="panel" open><summary>判负', response.content.decode())
    url = table_url("scoring:report", cast.table)
    data = {"team": "B", "description": "看牌", "reported_by": "对方", "key": "j1"}
    response = client.post(url, {**data, "team": "C"}, **HTMX)  # no such side
    assert response.status_code == 422
    html = form(response.content.decode(), url)
    assert value(html, "description") == "看牌" and value(html, "reported_by") == "对方"


def test_a_fresh_page_shows_the_penalty_form_with_its_defaults(client, cast):
    client.force_login(cast.referee)
    html = client.get(table_url("scoring:table", cast.table)).content.decode()
    assert value(html, "reason") == "" and value(html, "team") == "A"
    levels = cast.table.match.round.stage.event.scorer().rules.default_penalty_levels
    assert value(html, "levels") == str(levels)
    assert '<details class="panel" open>' not in html


@pytest.mark.parametrize("htmx", [True, False], ids=["htmx", "plain-post"])
def test_a_refused_score_keeps_the_two_numbers(client, people, htmx):  # noqa: F811
    table = table_of(first_match("badminton"))
    client.force_login(people["ref"])
    url = reverse("scoring:game", args=[ANHUI, "badminton", table.pk])
    response = client.post(
        url, page_data(url, {"home": "21", "away": "20", "key": "g"}), **(HTMX if htmx else {})
    )
    assert response.status_code == 422
    html = response.content.decode()
    assert "领先2分" in html
    assert value(html, "home") == "21" and value(html, "away") == "20"
    assert fresh(table).state.get("games", []) == []


def test_a_chess_game_refused_keeps_who_moved_first(client, people):  # noqa: F811
    table = table_of(first_match("xiangqi"))
    client.force_login(people["ref"])
    url = reverse("scoring:game", args=[ANHUI, "xiangqi", table.pk])
    response = client.post(url, page_data(url, {"first_move": "away", "key": "x"}), **HTMX)
    assert response.status_code == 422  # no result chosen
    assert 'value="away" required checked' in response.content.decode()


@pytest.mark.parametrize("htmx", [True, False], ids=["htmx", "plain-post"])
def test_the_players_link_keeps_a_refused_score(client, people, htmx):  # noqa: F811
    tournament = Tournament.objects.get(slug=ANHUI)
    tournament.result_entry = Tournament.ResultEntry.PLAYERS
    tournament.save(update_fields=["result_entry"])
    table = table_of(first_match("badminton"))
    code = players.make_code(fresh(table))
    url = reverse("scoring:play-game", args=[code])
    data = {"home": "22", "away": "18", "key": "g", "version": str(fresh(table).version)}
    response = client.post(url, data, **(HTMX if htmx else {}))
    assert response.status_code == 422
    html = response.content.decode()
    assert value(html, "home") == "22" and value(html, "away") == "18"
    assert fresh(table).status == TableMatch.Status.OPEN and not fresh(table).events.exists()


def test_a_refused_lock_from_the_desk_goes_back_to_the_desk(client, cast):
    """The desk's own buttons come back to the desk, refused or not."""
    client.force_login(cast.chief)
    url = table_url("scoring:lock", cast.table)
    response = client.post(url, {"locked": "1", "back": "desk"})
    assert response.status_code == 302
    assert response["Location"] == reverse("scoring:desk", args=["nantong-2014"])
