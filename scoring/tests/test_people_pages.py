"""What people read on the referee pages: 我的台 (a referee's own tables in time order, the
next one highlighted, each with its QR code), a table's own referee overriding the tie's,
people by their names, every code in words, chess points with their halves, the desk
naming the tie and the hall table, and team leaders invited by a one-time link."""

import datetime as dt
import re

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone

from scoring.models import AuditEntry, TableMatch
from scoring.services.tables import confirm_table, record_event, submit_table
from scoring.tests.utils import fresh, page_data, tables
from tournaments.access import can_enter_table
from tournaments.models import Event, LoginLink, Match, Official, Round, Unit

User = get_user_model()
NANTONG = "nantong-2014"
ANHUI = "anhui-2021"
HTMX = {"HTTP_HX_REQUEST": "true"}


def guandan_rounds():
    event = Event.objects.get(tournament__slug=NANTONG, slug="guandan")
    return event, list(Round.objects.filter(stage__event=event).order_by("number"))


def playable(round_):
    return list(
        round_.matches.exclude(status=Match.Status.BYE)
        .filter(home__isnull=False, away__isnull=False)
        .order_by("index")
    )


@pytest.fixture
def crew(demo):
    """Nantong's first round: 钱立 referees the first tie, 周铃 the second; 周铃 also takes
    the first tie's table 2 on their own."""
    nantong = demo[NANTONG]
    event, rounds = guandan_rounds()
    qf = playable(rounds[0])
    start = timezone.now() + dt.timedelta(hours=1)
    Round.objects.filter(pk=rounds[0].pk).update(starts_at=start)
    Match.objects.filter(pk=qf[0].pk).update(first_table=7)
    for t in tables(qf[0]):
        TableMatch.objects.filter(pk=t.pk).update(table_number=6 + t.number)
    people = {}
    for username, name in (("qianli", "钱立"), ("zhouling", "周铃"), ("xiaohui", "肖慧")):
        role = Official.Role.CHIEF_REFEREE if username == "xiaohui" else Official.Role.REFEREE
        user = User.objects.create_user(username)
        people[username] = user
        people[name] = Official.objects.create(tournament=nantong, name=name, role=role, user=user)
    Match.objects.filter(pk=qf[0].pk).update(referee=people["钱立"])
    Match.objects.filter(pk=qf[1].pk).update(referee=people["周铃"])
    TableMatch.objects.filter(pk=tables(qf[0])[1].pk).update(referee=people["周铃"])
    people["event"], people["qf"] = event, qf
    return people


def my_tables(client, user):
    client.force_login(user)
    response = client.get(reverse("scoring:my-tables", args=[NANTONG]))
    assert response.status_code == 200
    return response.content.decode()


def table_links(html):
    return [
        int(n) for n in re.findall(r'class="my-table-link" href="/t/[^"]*/tables/(\d+)/"', html)
    ]


def test_my_tables_lists_only_the_referees_tables_in_order_with_a_qr(
    client, crew, django_assert_max_num_queries
):
    first, second = crew["qf"][0], crew["qf"][1]
    client.force_login(crew["qianli"])
    with django_assert_max_num_queries(8):
        client.get(reverse("scoring:my-tables", args=[NANTONG]))
    html = my_tables(client, crew["qianli"])
    # The tie's referee has tables 1 and 3 of the first tie: table 2 is 周铃's.
    t1, t2, t3 = tables(first)
    assert table_links(html) == [t1.pk, t3.pk]
    assert "我的台：钱立" in html
    assert f"1/4决赛 · {first.home.name}—{first.away.name} · 7号桌" in html
    assert html.count('class="qr-code"') == 2
    assert reverse("scoring:table-qr", args=[NANTONG, "guandan", t1.pk]) in html
    # The next table to play is the first, and only it is highlighted.
    assert html.count("is-next") == 1
    assert html.index("is-next") < html.index(f"/tables/{t1.pk}/")
    assert "未开始" in html
    # 周铃: table 2 of the first tie (their own), then the second tie's tables.
    html = my_tables(client, crew["zhouling"])
    assert table_links(html) == [t2.pk] + [t.pk for t in tables(second)]


def test_a_finished_table_is_no_longer_the_next(client, crew):
    t1 = tables(crew["qf"][0])[0]
    TableMatch.objects.filter(pk=t1.pk).update(status=TableMatch.Status.SUBMITTED)
    html = my_tables(client, crew["qianli"])
    assert "待确认" in html
    mark = html.index("is-next")
    assert html.index(f"/tables/{t1.pk}/") < mark  # the submitted one comes first, unmarked


def test_a_tables_own_referee_overrides_the_ties(crew):
    t1, t2, _t3 = tables(crew["qf"][0])
    t1, t2 = fresh(t1), fresh(t2)
    assert can_enter_table(crew["qianli"], t1) and not can_enter_table(crew["qianli"], t2)
    assert can_enter_table(crew["zhouling"], t2) and not can_enter_table(crew["zhouling"], t1)


def test_my_tables_is_for_officials_only(client, crew):
    client.force_login(User.objects.create_user("spectator"))
    assert client.get(reverse("scoring:my-tables", args=[NANTONG])).status_code == 403


def test_the_schedule_page_gives_a_single_table_its_own_referee(client, crew):
    organiser = User.objects.create_user("organiser")
    Official.objects.create(
        tournament=crew["event"].tournament, name="文体", role="organiser", user=organiser
    )
    client.force_login(organiser)
    url = reverse("draw:schedule", args=[NANTONG, "guandan"])
    html = client.get(url).content.decode()
    t1, t2, t3 = tables(crew["qf"][0])
    assert f'name="table-referee-{t3.pk}"' in html and "同本场" in html
    form = {f"table-referee-{t3.pk}": str(crew["周铃"].pk), f"table-referee-{t2.pk}": ""}
    for m in Match.objects.filter(round__stage__event=crew["event"]):
        form[f"table-{m.pk}"] = str(m.first_table or "")
        if m.referee_id:
            form[f"referee-{m.pk}"] = str(m.referee_id)
    response = client.post(url, form)
    assert response.status_code == 302
    assert fresh(t3).referee_id == crew["周铃"].pk
    assert fresh(t2).referee_id is None  # handed back to the tie's referee
    assert can_enter_table(crew["qianli"], fresh(t2))
    assert not can_enter_table(crew["qianli"], fresh(t3))


def test_the_schedule_is_saved_whole_or_not_at_all(client, crew):
    """One save: a round's start, a table's own referee, a venue taken away and a tie's first
    table go in one transaction — a refused table number keeps all of them as they were."""
    organiser = User.objects.create_user("organiser")
    tournament = crew["event"].tournament
    Official.objects.create(tournament=tournament, name="文体", role="organiser", user=organiser)
    venue = tournament.venues.get()
    venue.tables = 9
    venue.save()
    client.force_login(organiser)
    url = reverse("draw:schedule", args=[NANTONG, "guandan"])
    first, second = crew["qf"][0], crew["qf"][1]
    Match.objects.filter(pk__in=[first.pk, second.pk]).update(venue=venue)
    _event, rounds = guandan_rounds()
    t1, _t2, t3 = tables(first)
    form = {
        f"round-{rounds[1].pk}": "2014-05-24T16:00",
        f"table-referee-{t3.pk}": str(crew["周铃"].pk),
        f"table-{first.pk}": "7",
        f"table-{second.pk}": "8",  # 8–10 of nine tables
    }
    response = client.post(url, form)
    assert response.status_code == 422 and "只有9张桌" in response.content.decode()
    assert Round.objects.get(pk=rounds[1].pk).starts_at is None
    assert fresh(t3).referee_id is None
    assert Match.objects.get(pk=second.pk).venue_id == venue.pk
    # With its venue taken away (—) the eight is fine, and all of it is saved.
    form[f"venue-{second.pk}"] = ""
    response = client.post(url, form)
    assert response.status_code == 302
    assert timezone.localtime(Round.objects.get(pk=rounds[1].pk).starts_at).hour == 16
    assert fresh(t3).referee_id == crew["周铃"].pk
    second = Match.objects.get(pk=second.pk)
    assert second.venue_id is None and second.first_table == 8
    assert fresh(t1).table_number == 7


def test_a_table_of_another_event_is_not_given_a_referee_by_this_schedule(client, crew):
    from tournaments.draw.schedule import ScheduleEdit, save_schedule

    t1 = tables(crew["qf"][0])[0]
    chess = Event.objects.get(tournament__slug=ANHUI, slug="xiangqi")
    edit = ScheduleEdit(table_referees={t1.pk: crew["周铃"].pk})
    assert save_schedule(event=chess, edit=edit) == []
    assert fresh(t1).referee_id is None
    assert save_schedule(event=crew["event"], edit=edit) == []
    assert fresh(t1).referee_id == crew["周铃"].pk


def play_and_submit(table, referee):
    record_event(table=fresh(table), event={"order": list("AABB")}, user=referee, key="d1")
    record_event(table=fresh(table), event={"time_up": True}, user=referee, key="d2")
    submit_table(table=fresh(table), user=referee)


def test_the_desk_names_the_tie_the_hall_table_and_the_person(client, crew):
    t1 = tables(crew["qf"][0])[0]
    play_and_submit(t1, crew["qianli"])
    client.force_login(crew["xiaohui"])
    html = client.get(reverse("scoring:desk", args=[NANTONG])).content.decode()
    waiting = html[html.index("<h2>待确认") :].split("</section>")[0]
    home, away = crew["qf"][0].home.name, crew["qf"][0].away.name
    assert f"1/4决赛 · {home}—{away} · 7号桌" in waiting
    assert "钱立" in waiting and "qianli" not in waiting


# Every code an audit entry, a status or a forfeit may carry: none may reach a Chinese page.
CODE_WORDS = [*AuditEntry.Action.values, "withdrew", "withdrawn", "late_over_10_min", "open"]


def visible_text(html: str) -> str:
    body = html[html.index("<main") :]
    # The chief's correction box holds the events' JSON to edit: data, not words.
    body = re.sub(r"<(script|style|textarea)[^>]*>.*?</\1>", " ", body, flags=re.S)
    return re.sub(r"<[^>]+>", " ", body)


def test_the_audit_and_table_pages_read_in_chinese_only(client, crew):
    t1, _t2, t3 = tables(crew["qf"][0])
    play_and_submit(t1, crew["qianli"])
    confirm_table(table=fresh(t1), user=crew["xiaohui"])
    # An old page's forfeit code on table 3.
    record_event(
        table=fresh(t3),
        event={"forfeit": {"team": "A", "reason": "withdrew"}},
        user=crew["qianli"],
        key="f1",
    )
    client.force_login(crew["xiaohui"])
    for url in (
        reverse("scoring:audit", args=[NANTONG]),
        reverse("scoring:table", args=[NANTONG, "guandan", t3.pk]),
        reverse("scoring:table", args=[NANTONG, "guandan", t1.pk]),
        reverse("scoring:desk", args=[NANTONG]),
    ):
        text = visible_text(client.get(url).content.decode())
        for code in CODE_WORDS:
            found = re.search(rf"(?<![\w-]){code}(?![\w-])", text)
            assert not found, (url, code, text[max(0, found.start() - 150) : found.end() + 30])
        for login in ("qianli", "xiaohui"):
            assert login not in text, (url, login)
    audit = visible_text(client.get(reverse("scoring:audit", args=[NANTONG])).content.decode())
    for label in ("录入", "提交结果", "确认结果"):
        assert label in audit
    assert "钱立" in audit and "肖慧" in audit


def test_every_action_the_services_write_has_its_words():
    from pathlib import Path

    source = "\n".join(
        p.read_text() for p in Path(__file__).resolve().parents[1].glob("services/*.py")
    )
    written = set(re.findall(r'audit\(\s*[^,]+,\s*[^,]+,\s*"([a-z_]+)"', source))
    assert written and written <= set(AuditEntry.Action.values), written


def test_the_blank_choice_of_a_drop_down_is_in_the_users_language(client, crew):
    from tournaments.manage.forms import EventForm

    html = str(EventForm(tournament=crew["event"].tournament)["venue"])
    assert "— 请选择 —" in html and "Select an option" not in html
    from django.utils import translation

    with translation.override("en"):
        html = str(EventForm(tournament=crew["event"].tournament)["venue"])
    assert "Select an option" in html


# --------------------------------------------------------------------------- chess


@pytest.fixture
def chess(demo):
    event = Event.objects.get(tournament__slug=ANHUI, slug="xiangqi")
    match = (
        Match.objects.filter(round__stage__event=event, home__isnull=False, away__isnull=False)
        .exclude(status=Match.Status.BYE)
        .order_by("round__number", "index")
        .first()
    )
    [table] = TableMatch.objects.filter(match=match)
    ref, chief = User.objects.create_user("ref"), User.objects.create_user("chief")
    anhui = event.tournament
    for name, role, user in (("周铃", "referee", ref), ("肖慧", "chief_referee", chief)):
        Official.objects.update_or_create(
            tournament=anhui, name=name, role=role, defaults={"user": user}
        )
    TableMatch.objects.filter(pk=table.pk).update(
        referee=Official.objects.get(tournament=anhui, name="周铃", role="referee")
    )
    return event, match, table, ref, chief


def test_a_chess_result_keeps_its_halves_in_the_json_the_bracket_and_the_audit(client, chess):
    event, match, table, ref, chief = chess
    client.force_login(ref)
    for key, game in (
        ("g1", {"result": "home", "first_move": "home"}),
        ("g2", {"result": "draw", "first_move": "away"}),
    ):
        url = reverse("scoring:game", args=[ANHUI, "xiangqi", table.pk])
        client.post(url, page_data(url, {"key": key, **game}), **HTMX)
    assert fresh(table).is_over
    submit_table(table=fresh(table), user=ref)
    confirm_table(table=fresh(table), user=chief)
    assert fresh(match).is_decided
    data = client.get(reverse("live:match-json", args=[ANHUI, "xiangqi", match.pk])).json()
    assert data["points"] == {"home": 1.5, "away": 0.5}
    assert data["score"] == {"home": 1, "away": 0}  # unchanged: games won
    bracket = client.get(reverse("live:bracket-json", args=[ANHUI, "xiangqi"])).json()
    [shown] = [
        m
        for s in bracket["stages"]
        for r in s["rounds"]
        for m in r["matches"]
        if m["id"] == match.pk
    ]
    assert shown["points"] == {"home": 1.5, "away": 0.5}
    html = client.get(reverse("live:bracket", args=[ANHUI, "xiangqi"])).content.decode()
    assert '<span class="score">1½</span>' in html and '<span class="score">½</span>' in html
    tie = client.get(reverse("live:match", args=[ANHUI, "xiangqi", match.pk])).content.decode()
    assert '<span class="score">1½</span>' in tie
    # The printed bracket and the projector read the same halves.
    from tournaments.documents.build import bracket_context
    from tournaments.live.screen import screen_slides

    printed = bracket_context(event)["bracket"]
    [box] = [m for sv in printed.stages for rv in sv.rounds for m in rv.matches if m.pk == match.pk]
    assert (box.home_shown, box.away_shown) == ("1½", "½")
    projector = client.get(reverse("live:screen", args=[ANHUI, "xiangqi"])).content.decode()
    assert "1½ : ½" in projector or "<b>1½</b>" in projector
    slides, _now = screen_slides(event)
    assert slides
    decided = AuditEntry.objects.get(match=match, action="tie_decided")
    assert "1½" in decided.summary and "½" in decided.summary
    client.force_login(chief)
    audit = client.get(reverse("scoring:audit", args=[ANHUI])).content.decode()
    result = f"本场结果：{match.home.name} 1½–½ {match.away.name}"  # the tie with its two players
    assert "<td>本场结果</td>" in audit and result in audit and "<td>肖慧</td>" in audit
    # The other sports keep no points in the JSON.
    guandan = Match.objects.filter(
        round__stage__event__slug="guandan", round__stage__event__tournament__slug=ANHUI
    ).first()
    data = client.get(reverse("live:match-json", args=[ANHUI, "guandan", guandan.pk])).json()
    assert "points" not in data


# --------------------------------------------------------------------------- leader invitations


def test_an_organiser_invites_a_team_leader_by_a_one_time_link(client, make_tournament):
    cup = make_tournament(starts_on=timezone.now().date() + dt.timedelta(days=10))
    unit = Unit.objects.create(tournament=cup, name="体育", kind=Unit.Kind.UNION_GROUP)
    organiser = User.objects.create_user("wenti")
    Official.objects.create(tournament=cup, name="文体", role="organiser", user=organiser)
    client.force_login(organiser)
    units = client.get(reverse("manage:units", args=[cup.slug])).content.decode()
    assert reverse("links:leader-invite", args=[cup.slug, unit.pk]) in units
    page = client.post(reverse("links:leader-invite", args=[cup.slug, unit.pk]), {"name": "王强"})
    assert page.status_code == 200
    html = page.content.decode()
    assert "<svg" in html and "王强" in html
    token = re.search(r"/accounts/link/([A-Za-z0-9_\-]+)/", html).group(1)
    leader = unit.leaders.get()
    assert leader.get_full_name() == "王强" and not leader.has_usable_password()
    client.logout()
    landing = client.get(reverse("accounts-login-link", args=[token])).content.decode()
    assert "领队登录" in landing and "王强" in landing and "体育" in landing
    response = client.post(reverse("accounts-login-link", args=[token]))
    assert response["Location"] == reverse("registration:unit", args=[cup.slug, unit.pk])
    assert client.get(response["Location"]).status_code == 200
    # Once only.
    client.logout()
    assert client.post(reverse("accounts-login-link", args=[token])).status_code == 410
    # The units page names the leader.
    client.force_login(organiser)
    units = client.get(reverse("manage:units", args=[cup.slug])).content.decode()
    assert "王强" in units


def test_a_leader_link_never_opens_an_officials_account(client, make_tournament):
    from tournaments.links.services import LoginLinkError, leader_invite_create, login_link_check

    cup = make_tournament()
    unit = Unit.objects.create(tournament=cup, name="体育", kind=Unit.Kind.UNION_GROUP)
    chief = User.objects.create_user("chief")
    Official.objects.create(tournament=cup, name="肖慧", role="chief_referee", user=chief)
    unit.leaders.add(chief)
    with pytest.raises(LoginLinkError):
        leader_invite_create(unit=unit, leader=chief, created_by=None)
    link, _token = leader_invite_create(unit=unit, created_by=None, name="王强")
    # An account that later became an official is no longer opened by its link.
    Official.objects.create(tournament=cup, name="王强", role="referee", user=link.leader)
    assert login_link_check(LoginLink.objects.get(pk=link.pk)) == "not_allowed"
    with pytest.raises(LoginLinkError):
        leader_invite_create(unit=unit, created_by=None, name="王" * 51)
