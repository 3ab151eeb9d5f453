"""The live bracket, bracket.json and matches/ID.json; the organiser's draw and schedule pages."""

from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.urls import reverse

from scoring.models import TableMatch
from tournaments.draw import make as draw_make
from tournaments.draw import results as draw_results
from tournaments.draw import selectors as draw_selectors
from tournaments.models import Draw, Entry, Event, Match, Tournament
from tournaments.ops import synthetic

User = get_user_model()


@pytest.fixture
def organiser(db):
    return User.objects.create_superuser(username="root", password="x")


def bracket_url(t="nantong-2014", e="guandan", name="live:bracket"):
    return reverse(name, args=[t, e])


def test_the_nantong_bracket_shows_the_notices_draw_and_the_third_place_match(client, demo):
    html = client.get(bracket_url()).content.decode()
    for name in [
        "1/4决赛",
        "半决赛",
        "决赛",
        "季军争夺战",
        "体育",
        "行政",
        "教务物理联队",
        "生物数学联队",
    ]:
        assert name in html
    assert 'hx-trigger="every 5s"' in html


def test_the_nantong_draw_is_shown_as_the_notice_publishes_it(client, demo):
    import re

    html = client.get(bracket_url()).content.decode()
    sheet = html.split('class="panel draw-sheet"')[1].split("</details>")[0]
    text = re.sub(r"<[^>]+>", "", sheet)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    expected = [
        "第一阶段：（8进4）",
        "A组：体育——行政",
        "B组：教务物理联队——生物数学联队",
        "C组：历史——实验技术",
        "D组：后勤——政治",
        "第二阶段：（4进2）",
        "A1——B1",
        "C1——D1",
        "第三阶段：（决赛）",
        "冠军争夺战：A1、B1胜出队——C1、D1胜出队",
        "季军争夺战：A1、B1负队——C1、D1负队",
    ]
    assert [line for line in lines if line in expected] == expected


def test_the_bracket_refreshes_itself_with_a_fragment(client, demo):
    response = client.get(bracket_url(), headers={"HX-Request": "true"})
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="bracket-body"')
    assert "<html" not in html


def test_bracket_json_has_the_stable_shape(client, demo):
    event = Event.objects.get(tournament__slug="nantong-2014", slug="guandan")
    first = (
        Match.objects.filter(round__stage__event=event, round__number=1).order_by("index").first()
    )
    draw_results.record_result(match=first, winner="away", home_score=1, away_score=2)
    data = client.get(bracket_url(name="live:bracket-json")).json()
    assert data["tournament"] == "nantong-2014" and data["event"] == "guandan"
    assert isinstance(data["version"], int) and data["version"] >= 2
    [stage] = data["stages"]
    assert stage["format"] == "knockout"
    assert [r["name"] for r in stage["rounds"]] == ["1/4决赛", "半决赛", "决赛"]
    match = stage["rounds"][0]["matches"][0]
    assert match["home"] == {"entry_id": first.home_id, "name": "体育"}
    assert match["away"]["name"] == "行政"
    assert match["status"] == "finished" and match["winner"] == "away"
    assert match["score"] == {"home": 1, "away": 2}
    assert match["url"] == f"/t/nantong-2014/guandan/matches/{first.pk}.json"
    semi = stage["rounds"][1]["matches"][0]
    assert semi["home"]["name"] == "行政" and semi["away"] is None and semi["status"] == "pending"
    assert data["placings"] == []
    detail = client.get(match["url"]).json()
    assert detail["id"] == first.pk and detail["round"]["name"] == "1/4决赛"
    # A tie decided without tables (entered directly by the service) still lists its
    # three table matches, pair n against pair n, with the engine's state of their record.
    assert [t["number"] for t in detail["tables"]] == [1, 2, 3]
    table = detail["tables"][0]
    assert table["ruleset"] == "nantong2014" and table["events"] == []
    assert table["state"]["levels"] == {"A": "2", "B": "2"} and table["winner"] is None
    assert set(table["home"]) == {"pair_id", "name"}
    # Each table names itself and its page, so a client can follow it.
    tables = TableMatch.objects.filter(match=first).order_by("number")
    assert [t["id"] for t in detail["tables"]] == [t.pk for t in tables]
    assert detail["tables"][1]["url"] == f"/t/nantong-2014/guandan/tables/{tables[1].pk}/"


def test_the_version_grows_with_every_change(client, demo):
    url = bracket_url(name="live:bracket-json")
    before = client.get(url).json()["version"]
    event = Event.objects.get(tournament__slug="nantong-2014", slug="guandan")
    match = Match.objects.filter(round__stage__event=event, round__number=1).first()
    draw_results.record_result(match=match, winner="home", home_score=2, away_score=0)
    assert client.get(url).json()["version"] > before


def test_placings_appear_once_the_final_and_third_place_are_played(client, demo):
    event = Event.objects.get(tournament__slug="nantong-2014", slug="guandan")
    synthetic.play_event(event, seed=4)
    data = client.get(bracket_url(name="live:bracket-json")).json()
    # The podium, and the four quarter-final losers sharing 5th (as the standings count them).
    assert [p["rank"] for p in data["placings"]] == [1, 2, 3, 4, 5, 5, 5, 5]
    html = client.get(bracket_url()).content.decode()
    assert "冠军" in html and "季军" in html and "第5名" in html


def test_an_event_not_drawn_yet_says_so(client, demo):
    event = Event.objects.get(tournament__slug="anhui-2021", slug="xiangqi")
    draw_make.undo_draw(event=event)
    html = client.get(bracket_url("anhui-2021", "xiangqi")).content.decode()
    assert "尚未抽签" in html
    assert (
        client.get(bracket_url("anhui-2021", "xiangqi", "live:bracket-json")).json()["stages"] == []
    )


def test_unknown_events_and_matches_are_404(client, demo):
    assert client.get(bracket_url("nantong-2014", "chess")).status_code == 404
    other = Match.objects.filter(round__stage__event__tournament__slug="anhui-2021").first()
    url = reverse("live:match-json", args=["nantong-2014", "guandan", other.pk])
    assert client.get(url).status_code == 404


@pytest.mark.parametrize("entries", [8, 256, 300])
def test_the_bracket_page_and_json_need_a_fixed_number_of_queries(
    client, db, entries, django_assert_max_num_queries
):
    event = synthetic.create_event(tournament_slug="big", event_slug="teams", entries=entries)
    Tournament.objects.filter(slug="big").update(status=Tournament.Status.DRAWN)
    draw_make.draw_event(event=event, seed=1)
    synthetic.play_event(event, seed=1, until=0.5)
    for name in ["live:bracket", "live:bracket-json"]:
        with django_assert_max_num_queries(12):
            response = client.get(bracket_url("big", "teams", name))
        assert response.status_code == 200


def test_group_and_swiss_standings_are_shown(client, db):
    for fmt in ["groups", "swiss"]:
        event = synthetic.create_event(tournament_slug=f"cup-{fmt}", event_slug="teams", entries=8)
        Tournament.objects.filter(slug=f"cup-{fmt}").update(status=Tournament.Status.DRAWN)
        draw_make.draw_event(event=event, seed=2, plan=synthetic.plan_for(fmt, 8))
        synthetic.play_event(event, seed=2, until=0.3)
        html = client.get(bracket_url(f"cup-{fmt}", "teams")).content.decode()
        assert "场分" in html
        data = client.get(bracket_url(f"cup-{fmt}", "teams", "live:bracket-json")).json()
        stage = data["stages"][0]
        assert ("groups" in stage) if fmt == "groups" else ("standings" in stage)


def test_only_organisers_draw(client, demo):
    url = reverse("draw:draw", args=["anhui-2021", "xiangqi"])
    assert client.get(url).status_code == 302
    client.force_login(User.objects.create_user(username="someone", password="x"))
    assert client.get(url).status_code == 403
    assert client.post(reverse("draw:undo", args=["anhui-2021", "xiangqi"])).status_code == 403
    assert Draw.objects.filter(event__slug="xiangqi", undone_at__isnull=True).count() == 1


def test_undoing_a_draw_asks_first_and_keeps_the_draw_until_confirmed(client, demo, organiser):
    client.force_login(organiser)
    draw_url = reverse("draw:draw", args=["anhui-2021", "badminton"])
    page = client.get(draw_url).content.decode()
    assert 'name="confirm" value="1" required' in page and "确认撤销本项目的抽签" in page
    response = client.post(reverse("draw:undo", args=["anhui-2021", "badminton"]), follow=True)
    assert "撤销抽签须先勾选" in response.content.decode()
    assert Draw.objects.filter(event__slug="badminton", undone_at__isnull=True).count() == 1


def test_the_organiser_undoes_and_redraws_with_a_seed_and_sees_it_recorded(client, demo, organiser):
    client.force_login(organiser)
    draw_url = reverse("draw:draw", args=["anhui-2021", "badminton"])
    client.post(reverse("draw:undo", args=["anhui-2021", "badminton"]), {"confirm": "1"})
    response = client.post(
        draw_url, {"format": "knockout", "third_place": "on", "method": "random", "seed": "42"}
    )
    assert response.status_code == 302
    draw = Draw.objects.get(event__slug="badminton", undone_at__isnull=True)
    assert draw.seed == 42 and draw.made_by == organiser
    html = client.get(draw_url).content.decode()
    assert "<code>42</code>" in html and "已撤销" in html


def test_a_physical_draw_with_a_missing_lot_is_refused_and_nothing_is_saved(
    client, demo, organiser
):
    client.force_login(organiser)
    event = Event.objects.get(tournament__slug="anhui-2021", slug="table-tennis")
    client.post(reverse("draw:undo", args=["anhui-2021", "table-tennis"]), {"confirm": "1"})
    entries = list(event.entries.order_by("pk"))
    data = {
        "format": "knockout",
        "method": "physical",
        **{f"lot-{e.pk}": i + 1 for i, e in enumerate(entries[:-1])},
    }
    response = client.post(reverse("draw:draw", args=["anhui-2021", "table-tennis"]), data)
    assert response.status_code == 422
    assert "每个报名都要有签号" in response.content.decode()
    assert draw_selectors.current_draw(event) is None
    data[f"lot-{entries[-1].pk}"] = "x"
    response = client.post(reverse("draw:draw", args=["anhui-2021", "table-tennis"]), data)
    assert response.status_code == 422 and "签号须是1到" in response.content.decode()


def test_the_organiser_schedules_rounds_and_tables(client, demo, organiser):
    client.force_login(organiser)
    url = reverse("draw:schedule", args=["nantong-2014", "guandan"])
    venue = Tournament.objects.get(slug="nantong-2014").venues.get()
    venue.tables = 6
    venue.save()
    response = client.post(
        url, {"auto": "1", "start": "2014-05-24T14:00", "minutes": "75", "venue": venue.pk}
    )
    assert response.status_code == 302
    event = Event.objects.get(tournament__slug="nantong-2014", slug="guandan")
    first = list(Match.objects.filter(round__stage__event=event, round__number=1).order_by("index"))
    # Six tables hold two team ties (three tables each) at once: two waves.
    assert [m.first_table for m in first] == [1, 4, 1, 4]
    from django.utils import timezone

    assert (
        timezone.localtime(first[0].scheduled_at).strftime("%Y-%m-%d %H:%M") == "2014-05-24 14:00"
    )
    times = sorted({m.scheduled_at for m in first})
    assert len(times) == 2 and (times[1] - times[0]).seconds == 75 * 60
    html = client.get(bracket_url()).content.decode()
    assert "1号桌起" in html
    # The first round's tables carry their hall numbers too (ties at tables 1–3 and 4–6).
    numbers = [
        list(m.tables.order_by("number").values_list("table_number", flat=True)) for m in first
    ]
    assert numbers == [[1, 2, 3], [4, 5, 6], [1, 2, 3], [4, 5, 6]]
    # Changed by hand, the tie's tables follow — within the hall's tables: a tie at 7号桌起
    # needs tables 7–9, more than the six the venue has; nothing is saved.
    form = {f"table-{m.pk}": m.first_table for m in first} | {f"table-{first[1].pk}": "7"}
    response = client.post(url, form)
    assert response.status_code == 422
    assert "桌号7起需要3张桌" in response.content.decode()
    assert "只有6张桌" in response.content.decode()
    first[1].refresh_from_db()
    assert first[1].first_table == 4
    venue.tables = 12
    venue.save()
    assert client.post(url, form).status_code == 302
    assert list(first[1].tables.order_by("number").values_list("table_number", flat=True)) == [
        7,
        8,
        9,
    ]
    response = client.post(url, {f"table-{first[0].pk}": "abc"})
    assert response.status_code == 422
    first[0].refresh_from_db()
    assert first[0].first_table == 1
    assert list(first[0].tables.values_list("table_number", flat=True).order_by("number")) == [
        1,
        2,
        3,
    ]


def test_generate_event_draws_and_plays_to_the_end(db):
    out = StringIO()
    call_command(
        "generate_event", "gen", "teams", "--entries", "6", "--play", "--seed", "3", stdout=out
    )
    event = Event.objects.get(tournament__slug="gen", slug="teams")
    assert event.entries.count() == 6
    assert all(e.pairs.count() == 3 for e in event.entries.all())
    assert len(draw_selectors.placings(event)) == 4
    assert "placings: 1." in out.getvalue()
    assert all(m.is_decided for m in Match.objects.filter(round__stage__event=event))
    assert Entry.objects.filter(event=event).count() == 6


def test_generate_event_makes_a_pairs_knockout_one_table_a_match(db):
    out = StringIO()
    call_command(
        "generate_event", "gen-p", "pairs", "--entries", "9", "--kind", "pairs", "--play",
        stdout=out,
    )  # fmt: skip
    event = Event.objects.get(tournament__slug="gen-p", slug="pairs")
    assert (event.discipline, event.entry_kind) == ("guandan_pairs", "pair")
    assert event.tables_per_match == 1
    entries = list(event.entries.with_people())
    assert len(entries) == 9 and all(len(e.pairs.all()) == 1 for e in entries)
    # Named as registration names a pair: its two players.
    pair = entries[0].pairs.all()[0]
    assert entries[0].name == f"{pair.first.name}/{pair.second.name}"
    # Units of a few pairs each (so the draw has entries of one unit to keep apart).
    assert len({e.unit_id for e in entries}) == 3
    matches = Match.objects.filter(round__stage__event=event).exclude(status=Match.Status.BYE)
    assert matches and all(m.is_decided for m in matches)
    assert {m.tables.count() for m in matches} == {1}
    assert "9 pairs drawn (knockout" in out.getvalue() and "placings: 1." in out.getvalue()


def test_generate_event_makes_a_pairs_swiss_of_the_rounds_asked(db):
    out = StringIO()
    call_command(
        "generate_event", "gen-ps", "pairs", "--entries", "8", "--kind", "pairs",
        "--format", "swiss", "--rounds", "4", "--play", stdout=out,
    )  # fmt: skip
    event = Event.objects.get(tournament__slug="gen-ps", slug="pairs")
    rounds = {}
    for match in Match.objects.filter(round__stage__event=event).select_related("round"):
        rounds.setdefault(match.round.number, []).append(match)
    # Four rounds of four one-table matches, every entry once a round, all played.
    assert sorted(rounds) == [1, 2, 3, 4]
    for matches in rounds.values():
        assert len(matches) == 4 and all(m.is_decided for m in matches)
        assert sorted(pk for m in matches for pk in (m.home_id, m.away_id)) == sorted(
            event.entries.values_list("pk", flat=True)
        )
    assert TableMatch.objects.filter(match__round__stage__event=event).count() == 16
    # The Swiss table is the result: the placings are its top four.
    stage = event.stages.get()
    top = [row["entry"] for row in draw_selectors.swiss_standings(stage)][:4]
    assert [entry.pk for _rank, entry in draw_selectors.placings(event)] == top


def test_generate_event_refuses_rounds_outside_a_swiss(db):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="--rounds goes with --format swiss"):
        call_command("generate_event", "gen-r", "p", "--entries", "8", "--rounds", "3")
    with pytest.raises(CommandError, match="fewer than --entries"):
        call_command(
            "generate_event", "gen-r", "p", "--entries", "8", "--format", "swiss", "--rounds", "8"
        )
    assert not Event.objects.filter(slug="p").exists()


def test_the_tournament_page_links_to_brackets_and_lists_round_times(client, demo, organiser):
    client.force_login(organiser)
    client.post(
        reverse("draw:schedule", args=["nantong-2014", "guandan"]),
        {"auto": "1", "start": "2014-05-24T14:00", "minutes": "75"},
    )
    client.logout()
    html = client.get(reverse("tournaments:detail", args=["nantong-2014"])).content.decode()
    assert reverse("live:bracket", args=["nantong-2014", "guandan"]) in html
    assert "掼蛋团体赛 · 1/4决赛" in html and "5月24日 14:00" in html
    assert "掼蛋团体赛 · 半决赛" in html


def test_the_organiser_adds_a_referee_login_and_assigns_a_tie(client, demo, organiser):
    from tournaments.models import Official

    client.force_login(organiser)
    url = reverse("manage:officials", args=["nantong-2014"])
    response = client.post(
        url, {"name": "王裁判", "role": "referee", "username": "wang", "password": "1"}
    )
    assert response.status_code == 422 and not User.objects.filter(username="wang").exists()
    client.post(
        url,
        {"name": "王裁判", "role": "referee", "username": "wang", "password": "Wang-referee-2014"},
    )
    official = Official.objects.get(name="王裁判")
    assert official.user.username == "wang"
    # The header names the person, not the login.
    official_phone = client.__class__()
    official_phone.force_login(official.user)
    header = official_phone.get(reverse("accounts-home")).content.decode()
    assert '<a class="who" href="/accounts/">王裁判</a>' in header
    match = Match.objects.filter(
        round__stage__event__tournament__slug="nantong-2014", round__number=1
    ).first()
    schedule = reverse("draw:schedule", args=["nantong-2014", "guandan"])
    # The schedule page offers the referee for every tie.
    page = client.get(schedule).content.decode()
    assert f'<option value="{official.pk}">王裁判（裁判）</option>' in page
    assert client.post(schedule, {f"referee-{match.pk}": official.pk}).status_code == 302
    match.refresh_from_db()
    assert match.referee == official
    assert "selected>王裁判（裁判）</option>" in client.get(schedule).content.decode()


def test_an_official_without_a_login_can_be_assigned_and_the_ties_get_referees_in_order(
    client, demo, organiser
):
    from tournaments.models import Official

    client.force_login(organiser)
    # Officials with no login yet (their one-time link comes later) are offered too.
    zhou = Official.objects.create(tournament=demo["nantong-2014"], name="周铃", role="referee")
    liang = Official.objects.create(tournament=demo["nantong-2014"], name="梁勇", role="referee")
    schedule = reverse("draw:schedule", args=["nantong-2014", "guandan"])
    page = client.get(schedule).content.decode()
    assert f'<option value="{zhou.pk}">周铃（裁判）</option>' in page
    assert "按顺序指派裁判" in page
    response = client.post(schedule, {"assign": "1"}, follow=True)
    ties = list(
        Match.objects.filter(round__stage__event__tournament__slug="nantong-2014", round__number=1)
        .exclude(status=Match.Status.BYE)
        .order_by("group", "index")
    )
    assert [m.referee for m in ties[:4]] == [zhou, liang, zhou, liang][: len(ties[:4])]
    assert "各指派一名裁判" in response.content.decode()


@pytest.mark.parametrize(
    "field, value, label",
    [
        ("qualifiers", "-3", "晋级数"),
        ("qualifiers", "1", "晋级数"),
        ("swiss_rounds", "1000000000", "积分编排轮数"),
        ("swiss_rounds", "0", "积分编排轮数"),
        ("win_points", "99999", "胜场得分"),
        ("draw_points", "3", "平局得分"),  # more than a win
        ("loss_points", "2", "负场得分"),  # more than a draw
        ("groups", "50", "分组数"),
        ("advance", "-1", "每组出线数"),
        ("seed-1", "999", "种子号"),
    ],
)
def test_a_draw_setting_out_of_bounds_is_refused_and_nothing_is_drawn(
    client, demo, organiser, field, value, label
):
    client.force_login(organiser)
    client.post(reverse("draw:undo", args=["anhui-2021", "badminton"]), {"confirm": "1"})
    # Each setting is checked under the format that uses it.
    fmt = "groups" if field in ("groups", "advance") else "swiss"
    data = {"format": fmt, "method": "random", "third_place": "on", field: value}
    response = client.post(reverse("draw:draw", args=["anhui-2021", "badminton"]), data)
    assert response.status_code == 422
    html = response.content.decode()
    assert label in html and "之间的整数" in html
    assert not Draw.objects.filter(event__slug="badminton", undone_at__isnull=True).exists()


@pytest.mark.parametrize("pairs", [3, 4])
def test_a_small_knockout_is_drawn_with_the_pages_defaults_for_the_other_formats(
    client, organiser, make_tournament, pairs
):
    """Regression: the draw page sends 5 Swiss rounds, 2 groups and 2 advancing whatever the
    format; a knockout of four pairs (Anhui's 掼蛋 with four entries) was refused with
    “积分编排轮数须是1到3之间的整数（填的是“5”）”, and one of three for the groups."""
    from tournaments.models import Entry, Pair, Player, Unit

    tournament = make_tournament(status="registration_closed")
    event = Event.objects.create(
        tournament=tournament,
        name="掼蛋",
        slug="guandan",
        discipline="guandan_pairs",
        entry_kind="pair",
        ruleset="anhui2021",
    )
    for n in range(pairs):
        unit = Unit.objects.create(tournament=tournament, name=f"第{n}系", kind="department")
        entry = Entry.objects.create(event=event, unit=unit, name=f"甲{n}、乙{n}")
        first = Player.objects.create(tournament=tournament, unit=unit, name=f"甲{n}")
        second = Player.objects.create(tournament=tournament, unit=unit, name=f"乙{n}")
        Pair.objects.create(entry=entry, number=1, first=first, second=second)
    client.force_login(organiser)
    data = {
        "format": "knockout",
        "method": "random",
        "seed": "7",
        "third_place": "on",
        "groups": "2",
        "advance": "2",
        "swiss_rounds": "5",
    }
    response = client.post(reverse("draw:draw", args=[tournament.slug, "guandan"]), data)
    assert response.status_code == 302, response.content.decode()[:2000]
    assert Draw.objects.filter(event=event, undone_at__isnull=True).exists()


def test_draw_settings_at_their_bounds_are_accepted(client, demo, organiser):
    client.force_login(organiser)
    client.post(reverse("draw:undo", args=["anhui-2021", "badminton"]), {"confirm": "1"})
    entries = Event.objects.get(tournament__slug="anhui-2021", slug="badminton").entries.count()
    data = {
        "format": "swiss",
        "method": "random",
        "swiss_rounds": str(min(15, entries - 1)),
        "win_points": "3",
        "draw_points": "3",
        "loss_points": "0",
    }
    response = client.post(reverse("draw:draw", args=["anhui-2021", "badminton"]), data)
    assert response.status_code == 302
    assert Draw.objects.filter(event__slug="badminton", undone_at__isnull=True).exists()
