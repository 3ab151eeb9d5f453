"""Chess, badminton and table tennis through the referee services and pages: one table per
match, games entered whole (or rally by rally), submitted, confirmed, and the bracket moved;
forfeits that end a player's event; matches/ID.json with games[]."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring.models import AuditEntry, TableEvent, TableMatch
from scoring.services.common import TableError
from scoring.services.tables import confirm_table, record_event, submit_table
from scoring.tests.utils import assign_referee, fresh, page_data
from tournaments.models import Entry, Event, Match, Official

User = get_user_model()
HTMX = {"HTTP_HX_REQUEST": "true"}
ANHUI = "anhui-2021"


def event(slug: str) -> Event:
    return Event.objects.get(tournament__slug=ANHUI, slug=slug)


def first_match(slug: str, index: int = 0) -> Match:
    matches = Match.objects.filter(
        round__stage__event=event(slug),
        round__number=1,
        home__isnull=False,
        away__isnull=False,
    ).exclude(status=Match.Status.BYE)
    return matches.order_by("index").select_related("home", "away")[index]


def table_of(match: Match) -> TableMatch:
    [table] = TableMatch.objects.filter(match=match)
    return table


@pytest.fixture
def people(demo):
    anhui = demo[ANHUI]
    cast = {name: User.objects.create_user(name) for name in ("ref", "other", "chief", "nobody")}
    Official.objects.update_or_create(
        tournament=anhui, name="周铃", role=Official.Role.REFEREE, defaults={"user": cast["ref"]}
    )
    Official.objects.update_or_create(
        tournament=anhui, name="梁勇", role=Official.Role.REFEREE, defaults={"user": cast["other"]}
    )
    Official.objects.update_or_create(
        tournament=anhui,
        name="肖慧",
        role=Official.Role.CHIEF_REFEREE,
        defaults={"user": cast["chief"]},
    )
    for slug in ("xiangqi", "badminton", "table-tennis"):
        assign_referee(TableMatch.objects.filter(pk=table_of(first_match(slug)).pk), cast["ref"])
    return cast


def url(name: str, table: TableMatch, slug: str) -> str:
    return reverse(name, args=[ANHUI, slug, table.pk])


def post(client, name, table, slug, data, key="k"):
    address = url(name, table, slug)
    return client.post(address, page_data(address, {"key": key, **data}), **HTMX)


def rows():
    return (
        list(TableEvent.objects.order_by("pk").values_list("pk", "payload", "undone_at")),
        list(TableMatch.objects.order_by("pk").values_list("pk", "status", "version", "winner")),
        list(Match.objects.order_by("pk").values_list("pk", "status", "winner", "home", "away")),
        AuditEntry.objects.count(),
    )


# --------------------------------------------------------------------------- tables


def test_every_playable_match_of_the_three_sports_has_one_table_without_pairs(demo):
    for slug in ("xiangqi", "badminton", "table-tennis"):
        matches = Match.objects.filter(
            round__stage__event=event(slug), home__isnull=False, away__isnull=False
        ).exclude(status=Match.Status.BYE)
        assert matches.exists()
        for match in matches:
            table = table_of(match)
            assert table.number == 1
            assert table.home_pair is None and table.away_pair is None
            assert table.state["match_over"] is False


def test_the_rule_set_defaults_to_the_sports_own(demo):
    assert event("xiangqi").scorer().id == "anhui2021-xiangqi"
    assert event("badminton").scorer().id == "badminton21"
    assert event("table-tennis").scorer().id == "table-tennis11"


def test_an_event_refuses_another_sports_rule_set(demo):
    from django.core.exceptions import ValidationError

    badminton = event("badminton")
    badminton.ruleset = "table-tennis11"
    with pytest.raises(ValidationError) as caught:
        badminton.full_clean()
    assert caught.value.message_dict["ruleset"] == [
        "所选规则“乒乓球五局三胜（每局11分）”不适用于羽毛球项目；请选该项目的规则，或留空。"
    ]


# --------------------------------------------------------------------------- badminton


def test_badminton_games_entered_on_the_page_decide_the_match_and_move_the_bracket(client, people):
    match = first_match("badminton")
    table = table_of(match)
    client.force_login(people["ref"])
    html = client.get(url("scoring:table", table, "badminton")).content.decode()
    assert "第1局比分" in html and 'name="home"' in html and 'name="away"' in html
    assert match.home.name in html and match.away.name in html

    response = post(client, "scoring:game", table, "badminton", {"home": "21", "away": "17"}, "g1")
    assert response.status_code == 200
    assert "第1局21–17" in response.content.decode()
    post(client, "scoring:game", table, "badminton", {"home": "28", "away": "30"}, "g2")
    response = post(client, "scoring:game", table, "badminton", {"home": "30", "away": "29"}, "g3")
    html = response.content.decode()
    assert "比赛结束" in html and "提交结果" in html
    table = fresh(table)
    assert table.winner == "A" and table.state["games_won"] == {"home": 2, "away": 1}

    address = url("scoring:submit", table, "badminton")
    response = client.post(address, page_data(address), **HTMX)
    assert fresh(table).status == TableMatch.Status.SUBMITTED
    client.force_login(people["chief"])
    address = url("scoring:confirm", table, "badminton")
    client.post(address, page_data(address), **HTMX)
    match = fresh(match)
    assert match.status == Match.Status.FINISHED
    assert (match.winner, match.home_score, match.away_score) == ("home", 2, 1)
    following = Match.objects.get(pk=match.winner_to_id)
    assert match.home_id in (following.home_id, following.away_id)


@pytest.mark.parametrize(
    "home, away, reason",
    [
        ("21", "20", "领先2分"),
        ("31", "29", "30"),
        ("22", "18", "22"),
        ("19", "17", ""),
        ("-1", "21", "整数"),
        ("abc", "21", "整数"),
        ("", "21", "整数"),
        ("9999999", "21", "整数"),
        ("²¹", "19", "整数"),  # digits to str.isdigit(), not to int()
        ("21\x00", "19", "整数"),
    ],
)
def test_an_impossible_badminton_score_is_refused_with_the_reason_and_nothing_saved(
    client, people, home, away, reason
):
    table = table_of(first_match("badminton"))
    post(client, "scoring:game", table, "badminton", {"home": "21", "away": "10"}, "ok")
    client.force_login(people["ref"])
    post(client, "scoring:game", table, "badminton", {"home": "21", "away": "10"}, "ok")
    before = rows()
    response = post(client, "scoring:game", table, "badminton", {"home": home, "away": away}, "bad")
    assert response.status_code == 422
    html = response.content.decode()
    assert 'class="problems" role="alert"' in html
    problem = html.split('class="problems" role="alert">')[1].split("</p>")[0]
    assert reason in problem
    assert rows() == before
    assert fresh(table).state["games"] == [{"home": 21, "away": 10}]


def test_a_finished_match_takes_no_more_games(client, people):
    table = table_of(first_match("badminton"))
    client.force_login(people["ref"])
    for n, score in enumerate([("21", "5"), ("21", "7")]):
        post(client, "scoring:game", table, "badminton", {"home": score[0], "away": score[1]}, n)
    before = rows()
    response = post(client, "scoring:game", table, "badminton", {"home": "21", "away": "3"}, "x")
    assert response.status_code == 422
    assert rows() == before


def test_point_by_point_shows_the_running_score_and_the_server(client, people):
    table = table_of(first_match("badminton"))
    client.force_login(people["ref"])
    response = post(client, "scoring:first-server", table, "badminton", {"side": "away"}, "s")
    assert "猜先" in response.content.decode()
    html = ""
    for n, side in enumerate(["home", "home", "away"]):
        html = post(client, "scoring:point", table, "badminton", {"side": side}, f"p{n}")
        html = html.content.decode()
    assert ">2 – 1</strong>" in html
    # Rally scoring: the winner of the last rally (away) serves.
    assert fresh(table).state["server"] == "away"
    assert 'class="serving"' in html
    # While a game is being entered point by point, no whole-game score form.
    assert 'name="home" min="0"' not in html


def test_a_resent_game_is_recorded_once(client, people):
    table = table_of(first_match("badminton"))
    client.force_login(people["ref"])
    for _ in range(2):
        response = post(
            client, "scoring:game", table, "badminton", {"home": "21", "away": "19"}, "same"
        )
        assert response.status_code == 200
    assert fresh(table).events.count() == 1
    assert "已记录过" in response.content.decode()


def test_guandan_only_records_are_refused_on_a_badminton_table(client, people):
    table = table_of(first_match("badminton"))
    client.force_login(people["ref"])
    before = rows()
    for name, data in (
        ("scoring:deal", {"deal": "A2"}),
        ("scoring:penalty", {"team": "A", "kind": "levels", "levels": "1", "reason": "x"}),
        ("scoring:time-up", {}),
        ("scoring:report", {"team": "A", "description": "x"}),
    ):
        response = post(client, name, table, "badminton", data)
        assert response.status_code == 422, name
    assert rows() == before


# --------------------------------------------------------------------------- table tennis


def test_table_tennis_is_best_of_five_to_eleven(client, people):
    match = first_match("table-tennis")
    table = table_of(match)
    client.force_login(people["ref"])
    refused = post(client, "scoring:game", table, "table-tennis", {"home": "11", "away": "10"})
    assert refused.status_code == 422
    for n, (h, a) in enumerate([(11, 9), (9, 11), (12, 10), (11, 13), (15, 13)]):
        response = post(client, "scoring:game", table, "table-tennis", {"home": h, "away": a}, n)
        assert response.status_code == 200
    table = fresh(table)
    assert table.winner == "A" and table.state["games_won"] == {"home": 3, "away": 2}


# --------------------------------------------------------------------------- xiangqi


def test_the_chess_page_says_who_moves_first_and_refuses_the_wrong_first_mover(client, people):
    table = table_of(first_match("xiangqi"))
    match = table.match
    client.force_login(people["ref"])
    html = client.get(url("scoring:table", table, "xiangqi")).content.decode()
    assert "请选择先手方" in html and 'name="first_move" value="home"' in html
    response = post(
        client, "scoring:game", table, "xiangqi", {"result": "draw", "first_move": "home"}, "1"
    )
    html = response.content.decode()
    # Game 2: the other player moves first, fixed by the rules.
    assert f'第2盘：<strong class="who">{match.away.name}先手</strong>' in html
    assert '<input type="hidden" name="first_move" value="away">' in html
    before = rows()
    response = post(
        client, "scoring:game", table, "xiangqi", {"result": "home", "first_move": "home"}, "2"
    )
    assert response.status_code == 422
    assert "第2盘应由客方先手" in response.content.decode() or "先手" in response.content.decode()
    assert rows() == before


def test_a_drawn_third_game_goes_to_the_player_who_moved_second(client, people):
    table = table_of(first_match("xiangqi"))
    client.force_login(people["ref"])
    games = [("home", "home"), ("away", "away")]
    for n, (result, first) in enumerate(games):
        post(client, "scoring:game", table, "xiangqi", {"result": result, "first_move": first}, n)
    html = client.get(url("scoring:table", table, "xiangqi")).content.decode()
    assert "猜先" in html
    response = post(
        client, "scoring:game", table, "xiangqi", {"result": "draw", "first_move": "away"}, "3"
    )
    assert "第三盘和棋，后手方获胜" in response.content.decode()
    table = fresh(table)
    assert table.winner == "A" and table.state["decided_by"] == "third_game_draw_second_mover"


@pytest.mark.parametrize(
    "data",
    [
        {"result": "win", "first_move": "home"},
        {"result": "home", "first_move": "red"},
        {"result": "home"},
        {"first_move": "home"},
    ],
)
def test_a_bad_chess_entry_is_refused_in_chinese(client, people, data):
    table = table_of(first_match("xiangqi"))
    client.force_login(people["ref"])
    before = rows()
    response = post(client, "scoring:game", table, "xiangqi", data)
    assert response.status_code == 422
    assert "请选择" in response.content.decode()
    assert rows() == before


# --------------------------------------------------------------------------- forfeits


def _play_home_wins(match, people) -> None:
    table = table_of(match)
    for n in range(2):
        record_event(table=table, event={"home": 21, "away": 3}, user=people["ref"], key=f"{n}")
    submit_table(table=table, user=people["ref"])
    confirm_table(table=table, user=people["chief"])


def test_a_forfeit_ends_the_players_event_and_gives_the_next_opponent_a_walkover(client, people):
    """弃权者…后面的比赛资格就此终止: the loser of a forfeit in a semi-final is out (资格终止),
    and the third-place match they would have played is a walkover."""
    badminton = event("badminton")
    semis = list(
        Match.objects.filter(round__stage__event=badminton, loser_to__isnull=False).order_by(
            "index"
        )
    )
    assert len(semis) == 2
    # Everything before the semi-finals: the home player wins.
    for match in Match.objects.filter(
        round__stage__event=badminton, round__number__lt=semis[0].round.number
    ).order_by("round__number", "index"):
        match = fresh(match)
        if match.status == Match.Status.PENDING and match.home_id and match.away_id:
            _play_home_wins(match, people)
    semi = fresh(semis[0])
    table = table_of(semi)
    assign_referee(TableMatch.objects.filter(pk=table.pk), people["ref"])
    client.force_login(people["ref"])
    response = post(
        client,
        "scoring:forfeit",
        table,
        "badminton",
        {"team": "B", "reason": "stoppage_over_5_min", "confirm": "1"},
        "ff",
    )
    assert response.status_code == 200
    assert "弃权" in response.content.decode()
    submit_table(table=fresh(table), user=people["ref"])
    confirm_table(table=fresh(table), user=people["chief"])
    loser = Entry.objects.get(pk=semi.away_id)
    assert loser.status == Entry.Status.ELIMINATED
    assert fresh(semi).winner == "home"

    other_semi = fresh(semis[1])
    _play_home_wins(other_semi, people)
    third = Match.objects.get(pk=semi.loser_to_id)
    assert third.is_third_place
    assert third.status == Match.Status.WALKOVER
    winner_id = third.home_id if third.winner == "home" else third.away_id
    assert winner_id == other_semi.away_id
    assert not TableMatch.objects.filter(match=third).exclude(status="open").exists()


# --------------------------------------------------------------------------- JSON


def test_matches_json_lists_the_games_in_play_order(client, people):
    bad = table_of(first_match("badminton"))
    chess = table_of(first_match("xiangqi"))
    record_event(table=bad, event={"home": 21, "away": 17}, user=people["ref"], key="a")
    record_event(table=bad, event={"home": 19, "away": 21}, user=people["ref"], key="b")
    record_event(
        table=chess, event={"result": "draw", "first_move": "away"}, user=people["ref"], key="c"
    )
    data = client.get(reverse("live:match-json", args=[ANHUI, "badminton", bad.match_id])).json()
    assert data["games"] == [{"home": 21, "away": 17}, {"home": 19, "away": 21}]
    assert data["status"] == "in_progress" and data["winner"] is None
    assert data["tables"][0]["ruleset"] == "badminton21"
    assert data["tables"][0]["home"]["name"] == bad.match.home.name
    data = client.get(reverse("live:match-json", args=[ANHUI, "xiangqi", chess.match_id])).json()
    assert data["games"] == [{"result": "draw", "first_move": "away"}]
    assert data["tables"][0]["state"]["points"] == {"home": 0.5, "away": 0.5}


def test_the_tie_page_shows_the_games(client, people):
    bad = table_of(first_match("badminton"))
    record_event(table=bad, event={"home": 21, "away": 17}, user=people["ref"], key="a")
    html = client.get(
        reverse("live:match", args=[ANHUI, "badminton", bad.match_id])
    ).content.decode()
    assert ">21 – 17</strong>" in html


# --------------------------------------------------------------------------- who may write


SPORT_URLS = {
    "scoring:game": ("badminton", {"home": "21", "away": "15"}),
    "scoring:point": ("badminton", {"side": "home"}),
    "scoring:first-server": ("badminton", {"side": "home"}),
}


@pytest.mark.parametrize("name", sorted(SPORT_URLS))
def test_the_sport_write_urls_refuse_whoever_may_not_write_and_change_nothing(client, people, name):
    slug, data = SPORT_URLS[name]
    table = table_of(first_match(slug))
    before = rows()
    response = post(client, name, table, slug, data)
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    for who in ("other", "nobody"):
        client.force_login(people[who])
        assert post(client, name, table, slug, data).status_code == 403
    client.force_login(people["ref"])
    assert client.get(url(name, table, slug)).status_code == 405
    assert rows() == before
    for who in ("ref", "chief"):
        client.force_login(people[who])
        response = post(client, name, table, slug, data, key=name)  # the chief resends
        assert response.status_code == 200, response.content.decode()[:300]
    assert rows() != before


def test_the_chief_referees_desk_names_the_players_of_a_submitted_singles_match(client, people):
    match = first_match("table-tennis")
    table = table_of(match)
    for n in range(3):
        record_event(table=table, event={"home": 5, "away": 11}, user=people["ref"], key=f"{n}")
    submit_table(table=fresh(table), user=people["ref"])
    client.force_login(people["chief"])
    html = client.get(reverse("scoring:desk", args=[ANHUI])).content.decode()
    assert f"{match.home.name} — {match.away.name}" in html
    assert f"胜方 {match.away.name}" in html


# --------------------------------------------------------------------------- properties

SPORT_SLUGS = {"xiangqi": "xiangqi", "badminton": "badminton", "table_tennis": "table-tennis"}


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    discipline=st.sampled_from(sorted(SPORT_SLUGS)),
    seed=st.integers(0, 2**32 - 1),
    strength=st.floats(0.05, 0.95),
)
def test_through_the_services_a_finished_match_takes_nothing_more_and_the_winner_has_the_majority(
    people, discipline, seed, strength
):
    import random

    from django.db import transaction

    from scoring.engines.simulate import random_rally, random_xiangqi

    table = table_of(first_match(SPORT_SLUGS[discipline]))
    engine = table.match.round.stage.event.scorer()
    rng = random.Random(seed)
    if discipline == "xiangqi":
        record = random_xiangqi(engine.rules, rng, strength=strength)[0]
    else:
        record = random_rally(engine.rules, rng, strength=strength, by_point=rng.random() < 0.3)[0]
    with transaction.atomic():
        for n, item in enumerate(record):
            record_event(table=table, event=item, user=people["ref"], key=f"e{n}")
        table = fresh(table)
        assert table.is_over and table.winner in ("A", "B")
        count = table.events.count()
        for extra in ({"home": 21, "away": 1}, {"result": "home", "first_move": "home"}):
            with pytest.raises(TableError):
                record_event(table=table, event=extra, user=people["ref"], key="more")
        assert fresh(table).events.count() == count
        home, away = engine.games_won(engine.replay(record))
        if discipline != "xiangqi":
            mine, theirs = (home, away) if table.winner == "A" else (away, home)
            assert mine == engine.rules.games_to_win > theirs
        else:
            points = table.state["points"]
            ours, others = (
                (points["home"], points["away"])
                if table.winner == "A"
                else (points["away"], points["home"])
            )
            assert ours >= others
        transaction.set_rollback(True)


def test_the_table_board_and_the_projector_show_games_won_for_a_singles_match(client, people):
    match = first_match("badminton")
    table = table_of(match)
    record_event(table=table, event={"home": 21, "away": 17}, user=people["ref"], key="a")
    record_event(table=table, event={"point": "away"}, user=people["ref"], key="b")
    client.force_login(people["chief"])
    html = client.get(reverse("scoring:board", args=[ANHUI, "badminton"])).content.decode()
    assert "比分" in html and "<strong>1 : 0</strong>" in html and "第2局 0–1" in html
    assert "、 — 、" not in html  # no pair line for players
    html = client.get(reverse("live:screen", args=[ANHUI, "badminton"])).content.decode()
    assert "1 : 0" in html and "第2局 0–1" in html and "比分：主方–客方" in html


def test_the_desk_offers_check_in_and_the_whistle_for_guandan_rounds_only(client, people):
    client.force_login(people["chief"])
    html = client.get(reverse("scoring:desk", args=[ANHUI])).content.decode()
    blocks = html.split('<div class="round-row"')[1:]
    seen = set()
    for block in blocks:
        title = block.split("</strong>")[0].split("<strong>")[1]
        sport = title.split(" · ")[0]
        seen.add(sport)
        offered = "鸣哨（时间到）" in block and "/checkin/" in block
        assert offered == (sport == "掼蛋"), title
    assert {"掼蛋", "象棋", "羽毛球", "乒乓球"} <= seen
