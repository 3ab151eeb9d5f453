"""The units' standings against the database: the demo tournaments played to the end, the page, the projector slide, standings.json and results.pdf; and a unit's day page."""

from fractions import Fraction

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tournaments.documents.unit_results import unit_results_context
from tournaments.draw.make import draw_event
from tournaments.draw.results import record_result
from tournaments.draw.selectors import placings
from tournaments.models import Entry, Event, Match, Unit
from tournaments.standings.selectors import standings


def _expected(tournament) -> dict[str, Fraction]:
    """Each unit's points worked out here from every event's own placings."""
    table = tournament.points_table()
    got: dict[str, Fraction] = {}
    for event in tournament.events.all():
        for rank, entry in placings(event, all_places=True):
            if rank > len(table) or entry.participation_award_only:
                continue
            if entry.status == Entry.Status.DISQUALIFIED:
                continue
            unit = entry.unit
            members = list(unit.members.all()) if unit.kind == Unit.Kind.JOINT else [unit]
            for member in members:
                got[member.name] = got.get(member.name, 0) + Fraction(
                    table[rank - 1] * event.standings_weight, len(members)
                )
    return got


def test_the_played_demo_standings_agree_with_every_events_placings(client, demo):
    from tournaments.ops.demo import play_demo

    play_demo()
    for slug, tournament in demo.items():
        st = standings(tournament)
        assert st.final, slug
        got = {st.units[r.unit].name: r.points for r in st.rows if r.points}
        assert got == _expected(tournament), slug
        data = client.get(reverse("standings:json", args=[slug])).json()
        assert data["final"] is True and data["tournament"] == slug
        assert data["points"] == {str(i + 1): p for i, p in enumerate([9, 7, 6, 5, 4, 3, 2, 1])}
        ranks = [u["rank"] for u in data["units"]]
        assert ranks == sorted(ranks)
        for unit in data["units"]:
            assert set(unit) == {"unit_id", "name", "rank", "points", "events"}
            assert unit["points"] == pytest.approx(float(got.get(unit["name"], 0)))
            for line in unit["events"]:
                assert {"event", "entry_id", "rank", "share", "points"} <= set(line)
            assert sum(line["points"] for line in unit["events"]) == pytest.approx(unit["points"])
        page = client.get(reverse("standings:page", args=[slug])).content.decode()
        assert "团体总分" in page and "暂定" not in page
        best = data["units"][0]["name"]
        assert best in page
        slide = client.get(reverse("standings:page", args=[slug]) + "?screen=1").content.decode()
        assert best in slide and "<html" not in slide
        event = tournament.events.first()
        screen = client.get(reverse("live:screen", args=[slug, event.slug])).content.decode()
        assert "slide-units" in screen and "?screen=1" in screen
        pdf = unit_results_context(tournament)
        assert [r["row"].unit.name for r in pdf["unit_standings"]["rows"]][0] == best
        assert pdf["unit_certificates"][0]["unit"].name == best
        assert "团体第一名" in "".join(pdf["unit_certificates"][0]["text"])
    # Nantong's joint teams: their points are shared by the member units, half each.
    nantong = client.get(reverse("standings:json", args=["nantong-2014"])).json()
    shares = {u["name"]: u["events"] for u in nantong["units"]}
    assert shares["教务"][0]["share"] == 0.5 and shares["物理"][0]["share"] == 0.5
    assert "教务物理联队" not in shares
    results = client.get(reverse("documents:results-pdf", args=["anhui-2021"]))
    assert results.status_code == 200 and results["Content-Type"] == "application/pdf"


def test_before_the_end_the_standings_are_provisional(client, demo):
    response = client.get(reverse("standings:page", args=["anhui-2021"]))
    assert "暂定" in response.content.decode()
    data = client.get(reverse("standings:json", args=["anhui-2021"])).json()
    assert data["final"] is False
    assert all(u["points"] == 0 for u in data["units"])
    assert unit_results_context(demo["anhui-2021"])["unit_certificates"] == []


def test_standings_json_answers_304_until_something_changes(client, demo):
    url = reverse("standings:json", args=["nantong-2014"])
    first = client.get(url)
    etag = first["ETag"]
    assert client.get(url, HTTP_IF_NONE_MATCH=etag).status_code == 304
    match = (
        Match.objects.filter(
            round__stage__event__tournament=demo["nantong-2014"], status=Match.Status.PENDING
        )
        .exclude(home=None)
        .exclude(away=None)
        .first()
    )
    record_result(match=match, winner="home", home_score=2, away_score=1)
    again = client.get(url, HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 200 and again.json()["version"] > first.json()["version"]


def test_the_organisers_table_weights_and_joint_choice(client, demo):
    from tournaments.ops.demo import play_demo

    play_demo(only="nantong-2014")
    nantong = demo["nantong-2014"]
    nantong.standings_points = [10, 5]
    nantong.standings_joint = "own"
    nantong.save()
    Event.objects.filter(tournament=nantong).update(standings_weight=2)
    data = client.get(reverse("standings:json", args=["nantong-2014"])).json()
    assert data["points"] == {"1": 10, "2": 5} and data["joint"] == "own"
    assert [u["points"] for u in data["units"][:2]] == [20, 10]
    names = {u["name"] for u in data["units"]}
    assert {"教务物理联队", "生物数学联队"} <= names and "教务" not in names


def test_an_entry_that_earns_nothing_by_rule_says_why(client, demo):
    from tournaments.ops.demo import play_demo

    play_demo(only="nantong-2014")
    winner = placings(demo["nantong-2014"].events.get())[0][1]
    Entry.objects.filter(pk=winner.pk).update(participation_award_only=True)
    data = client.get(reverse("standings:json", args=["nantong-2014"])).json()
    line = next(ln for u in data["units"] for ln in u["events"] if ln["entry_id"] == winner.pk)
    assert (line["rank"], line["points"], line["reason"]) == (1, 0, "participation_award_only")
    page = client.get(reverse("standings:page", args=["nantong-2014"])).content.decode()
    assert "只获参与奖，不计团体分" in page


# --------------------------------------------------------------------------- a unit's day


def _events(tournament, n: int, units: list[Unit]) -> None:
    for i in range(n):
        event = Event.objects.create(
            tournament=tournament,
            slug=f"e{i}",
            name=f"项目{i}",
            discipline=Event.Discipline.GUANDAN_TEAM,
            ruleset="nantong2014",
        )
        for unit in units:
            Entry.objects.create(event=event, unit=unit, name=unit.name)
        draw_event(event=event, seed=i)
        first = (
            Match.objects.filter(round__stage__event=event, status=Match.Status.PENDING)
            .exclude(home=None)
            .exclude(away=None)
            .order_by("index")
            .first()
        )
        record_result(match=first, winner="home", home_score=2, away_score=1)


def test_a_units_day_lists_every_entry_and_its_queries_do_not_grow(client, make_tournament):
    counts = {}
    for events in (1, 3):
        tournament = make_tournament(slug=f"day-{events}")
        units = [
            Unit.objects.create(tournament=tournament, name=f"单位{i}", kind=Unit.Kind.DEPARTMENT)
            for i in range(6)
        ]
        _events(tournament, events, units)
        url = reverse("registration:unit", args=[tournament.slug, units[0].pk])
        client.get(url)  # warm: sessions, content types
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url)
        assert response.status_code == 200
        html = response.content.decode()
        assert html.count("本项目对阵") == events
        assert "团体总分" in html and "新增报名" not in html
        assert "下一场" in html or "胜" in html
        counts[events] = len(queries)
    assert counts[1] == counts[3], counts


def test_a_units_day_shows_the_next_match_and_the_leaders_controls(client, demo):
    from django.contrib.auth import get_user_model

    nantong = demo["nantong-2014"]
    unit = nantong.units.get(name="体育")
    url = reverse("registration:unit", args=[nantong.slug, unit.pk])
    html = client.get(url).content.decode()
    assert "下一场" in html and "行政" in html  # the notice's draw: 体育—行政
    assert "修改或退赛" not in html and "退赛</a>" not in html
    leader = get_user_model().objects.create_user("leader-ty", password="x-Strong-2026")
    unit.leaders.add(leader)
    client.force_login(leader)
    html = client.get(url).content.decode()
    assert "退赛" in html and "下一场" in html


def test_the_organiser_sets_the_points_table_on_the_settings_page(client, demo):
    from django.contrib.auth import get_user_model
    from django.forms.models import model_to_dict

    from tournaments.manage.forms import EventForm, TournamentForm

    nantong = demo["nantong-2014"]
    client.force_login(get_user_model().objects.create_superuser("boss", password="x-Strong-2026"))
    url = reverse("manage:settings", args=[nantong.slug])
    assert "9/7/6/5/4/3/2/1" in client.get(url).content.decode()
    data = {
        k: v
        for k, v in TournamentForm(instance=nantong).initial.items()
        if v is not None and not isinstance(v, list)
    }
    for name in ("starts_on", "notice_date"):
        if data.get(name):
            data[name] = data[name].isoformat()
    for name in ("registration_deadline", "leaders_meeting_at"):
        if data.get(name):
            data[name] = data[name].strftime("%Y-%m-%dT%H:%M")
    data.pop("start_time", None)
    for flag in ("one_event_per_person", "standings_award_only_score"):
        data.pop(flag, None)
    data.update(standings_points="12/9/x", standings_joint="own")
    response = client.post(url, data)
    assert response.status_code == 422
    assert "名次分须是0到999之间的整数" in response.content.decode()
    nantong.refresh_from_db()
    assert nantong.points_table() == [9, 7, 6, 5, 4, 3, 2, 1]
    data.update(standings_points="12/9/7", standings_disqualified_score="on")
    assert client.post(url, data).status_code == 302
    nantong.refresh_from_db()
    assert nantong.points_table() == [12, 9, 7]
    assert nantong.standings_joint == "own" and nantong.standings_disqualified_score
    event = nantong.events.get()
    fields = model_to_dict(event, fields=EventForm.Meta.fields)
    fields = {k: v for k, v in fields.items() if v is not None}
    form = EventForm({**fields, "standings_weight": "5"}, instance=event, tournament=nantong)
    assert not form.is_valid() and "团体总分倍数须是0到3之间的整数" in str(form.errors)
    form = EventForm({**fields, "standings_weight": "2"}, instance=event, tournament=nantong)
    assert form.is_valid(), form.errors
    assert form.save().standings_weight == 2


def test_a_draft_tournaments_unit_page_is_for_its_leader_and_organisers_only(
    client, make_tournament
):
    from django.contrib.auth import get_user_model

    draft = make_tournament(slug="draft-cup", status="draft")
    unit = Unit.objects.create(tournament=draft, name="体育", kind=Unit.Kind.UNION_GROUP)
    url = reverse("registration:unit", args=[draft.slug, unit.pk])
    assert client.get(url).status_code == 404
    assert client.get(reverse("standings:page", args=[draft.slug])).status_code == 404
    assert client.get(reverse("standings:json", args=[draft.slug])).status_code == 404
    leader = get_user_model().objects.create_user("draft-leader", password="x-Strong-2026")
    unit.leaders.add(leader)
    client.force_login(leader)
    assert client.get(url).status_code == 200


def test_the_page_polls_its_list_and_is_answered_304_while_nothing_changed(client, demo):
    url = reverse("standings:page", args=["anhui-2021"])
    page = client.get(url)
    assert 'id="standings-body"' in page.content.decode()
    part = client.get(url, HTTP_HX_REQUEST="true")
    html = part.content.decode()
    assert html.lstrip().startswith('<div id="standings-body"') and "<html" not in html
    assert part["ETag"] != page["ETag"]
    assert (
        client.get(url, HTTP_HX_REQUEST="true", HTTP_IF_NONE_MATCH=part["ETag"]).status_code == 304
    )


def test_a_phone_that_switches_language_is_not_told_not_modified(client, demo):
    """The page, its polled list and standings.json each answer an ETag of their language:
    the Chinese one sent by a phone now in English gets the English page, not a 304."""
    from django.test import Client

    english = Client()
    english.cookies["django_language"] = "en"
    url = reverse("standings:page", args=["anhui-2021"])
    for path, headers in [
        (url, {}),
        (url, {"HTTP_HX_REQUEST": "true"}),
        (reverse("standings:json", args=["anhui-2021"]), {}),
    ]:
        chinese = client.get(path, **headers)
        switched = english.get(path, HTTP_IF_NONE_MATCH=chinese["ETag"], **headers)
        assert switched.status_code == 200, (path, headers)
        assert switched["ETag"] != chinese["ETag"]
        assert english.get(path, HTTP_IF_NONE_MATCH=switched["ETag"], **headers).status_code == 304
    assert "Unit standings" in english.get(url).content.decode()


def test_before_any_result_no_unit_is_ranked_and_nobody_has_a_prize(client, demo, tmp_path):
    import subprocess

    from django.urls import reverse

    nantong = demo["nantong-2014"]
    data = client.get(reverse("standings:json", args=[nantong.slug])).json()
    assert data["units"] and all(u["rank"] is None for u in data["units"])
    page = client.get(reverse("standings:page", args=[nantong.slug])).content.decode()
    assert '<span class="rank">暂无名次</span>' in page
    assert '<span class="rank">第1名</span>' not in page
    unit = nantong.units.get(name="体育")
    day = client.get(reverse("registration:unit", args=[nantong.slug, unit.pk])).content.decode()
    assert "第1名，0分" not in day
    pdf = client.get(reverse("documents:results-pdf", args=[nantong.slug])).content
    (tmp_path / "r.pdf").write_bytes(pdf)
    text = subprocess.run(
        ["pdftotext", str(tmp_path / "r.pdf"), "-"], capture_output=True, text=True, check=True
    ).stdout
    assert "纪念奖" not in text and "一等奖" not in text


def test_the_page_says_why_equal_points_rank_apart_and_what_each_event_gave(client, demo):
    """Units with equal points are told apart by their places (more firsts first): the page
    says so, shows each unit's places beside its points, and a table gives each event's
    points to each unit, summing to its total."""
    from tournaments.ops.demo import play_demo

    play_demo(only="anhui-2021")
    tournament = demo["anhui-2021"]
    st = standings(tournament)
    page = client.get(reverse("standings:page", args=["anhui-2021"])).content.decode()
    assert "第1名多者列前" in page
    events = sorted(st.events_by_slug.values(), key=lambda e: (e.order, e.pk))
    table = page[page.index('class="table points-by-event"') :]
    for event in events:
        assert event.name in table
    winner = st.rows[0]
    firsts = sum(1 for line in winner.lines if line.rank == 1)
    assert f"第1名×{firsts}" in page
    data = client.get(reverse("standings:json", args=["anhui-2021"])).json()
    for unit in data["units"][:3]:
        row = table[table.index(f'<th scope="row">{unit["name"]}</th>') :].split("</tr>")[0]
        cells = [c.split("</td>")[0] for c in row.split("<td>")[1:]]
        given = [float(c) for c in cells[:-1] if c != "—"]
        assert sum(given) == pytest.approx(unit["points"])
    tied = [r for r in st.rows if sum(1 for o in st.rows if o.points == r.points) > 1 and r.rank]
    if tied:
        assert "tie-break" in page
    english = client.get(
        reverse("standings:page", args=["anhui-2021"]), HTTP_COOKIE="django_language=en"
    ).content.decode()
    assert "ranked by the number of first places" in english and "Points by event" in english
    assert "place 1: 9" in english
