"""The status follows what happened (drawn, running, finished, back when a draw is undone),
and the guard rails: no draw while registration is open, no withdrawal after an event is
finished, a joint team (联队) and its member units never both in one event."""

import datetime as dt

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone

from scoring.services.tables import ensure_tables, record_event
from tournaments.draw.make import draw_event, undo_draw
from tournaments.draw.results import record_result
from tournaments.draw.status import (
    StatusError,
    draw_refusal,
    event_finished,
    follow_status,
    move_by_hand,
)
from tournaments.models import Draw, Entry, Event, Match, Tournament, Unit
from tournaments.registration.services import (
    EntryForm,
    PersonForm,
    RegistrationError,
    register_entries,
    withdraw_entry,
)

User = get_user_model()
S = Tournament.Status


@pytest.fixture
def cup(make_tournament):
    """Two events of four teams each, registration closed."""
    t = make_tournament(status=S.REGISTRATION_CLOSED)
    for slug in ("a", "b"):
        event = Event.objects.create(
            tournament=t,
            slug=slug,
            name=f"项目{slug}",
            discipline="guandan_team",
            ruleset="nantong2014",
        )
        for i in range(4):
            unit, _ = Unit.objects.get_or_create(tournament=t, name=f"队{i}", kind="union_group")
            Entry.objects.create(event=event, unit=unit, name=unit.name)
    return t


def play(event):
    while True:
        ready = [
            m
            for m in Match.objects.filter(round__stage__event=event).order_by("pk")
            if not m.is_decided and m.home_id and m.away_id
        ]
        if not ready:
            return
        for m in ready:
            record_result(match=m, winner="home", home_score=2, away_score=1)


def status(t):
    return Tournament.objects.get(pk=t.pk).status


def test_drawn_when_every_event_is_drawn_running_at_the_first_result_finished_with_placings(cup):
    a, b = cup.events.order_by("slug")
    draw_event(event=a, seed=1)
    assert status(cup) == S.REGISTRATION_CLOSED  # one of two events drawn
    draw_event(event=b, seed=1)
    assert status(cup) == S.DRAWN
    first = Match.objects.filter(round__stage__event=a, round__number=1).first()
    record_result(match=first, winner="home", home_score=2, away_score=0)
    assert status(cup) == S.RUNNING
    play(a)
    assert event_finished(a) and not event_finished(b)
    assert status(cup) == S.RUNNING
    play(b)
    assert status(cup) == S.FINISHED


def test_the_organiser_moves_the_status_only_between_draft_open_and_closed(cup):
    assert move_by_hand(cup, "open") == S.REGISTRATION_OPEN == status(cup)
    with pytest.raises(StatusError) as refused:
        move_by_hand(cup, "open")
    assert refused.value.code == "not_now" and "报名中" in refused.value.message
    with pytest.raises(StatusError) as refused:
        move_by_hand(cup, "draft")
    assert refused.value.code == "unconfirmed" and status(cup) == S.REGISTRATION_OPEN
    assert move_by_hand(cup, "draft", confirmed=True) == S.DRAFT
    with pytest.raises(StatusError):
        move_by_hand(cup, "finished")
    move_by_hand(cup, "open")
    move_by_hand(cup, "close")
    draw_event(event=cup.events.first(), seed=1)
    with pytest.raises(StatusError) as refused:
        move_by_hand(Tournament.objects.get(pk=cup.pk), "draft", confirmed=True)
    assert refused.value.code == "drawn" and status(cup) == S.REGISTRATION_CLOSED


def test_an_undone_draw_takes_the_status_back_to_closed_never_to_draft(cup):
    a, b = cup.events.order_by("slug")
    draw_event(event=a, seed=1)
    draw_event(event=b, seed=1)
    assert status(cup) == S.DRAWN
    undo_draw(event=b)
    assert status(cup) == S.REGISTRATION_CLOSED
    assert follow_status(cup) == S.REGISTRATION_CLOSED  # nothing moves by itself


def test_the_first_deal_at_a_table_makes_the_tournament_running(demo):
    nantong = demo["nantong-2014"]
    assert status(nantong) == S.DRAWN
    match = Match.objects.filter(
        round__stage__event__tournament=nantong, round__number=1, status="pending"
    ).first()
    table = ensure_tables(match)[0]
    record_event(table=table, event={"order": list("AABB")}, key="first-deal")
    assert status(nantong) == S.RUNNING


def test_no_draw_while_registration_is_open(client, cup):
    Tournament.objects.filter(pk=cup.pk).update(status=S.REGISTRATION_OPEN)
    cup.refresh_from_db()
    assert draw_refusal(cup) == "报名还在进行中：请先在总览中截止报名，再抽签。"
    admin = User.objects.create_superuser("boss", password="x")
    client.force_login(admin)
    url = reverse("draw:draw", args=[cup.slug, "a"])
    assert "报名还在进行中" in client.get(url).content.decode()
    response = client.post(url, {"method": "random", "format": "knockout", "seed": "1"})
    assert response.status_code == 422
    assert "报名还在进行中：请先在总览中截止报名，再抽签。" in response.content.decode()
    assert not Draw.objects.filter(event__tournament=cup).exists()
    # Past its deadline registration is over for leaders: the draw may go ahead.
    Tournament.objects.filter(pk=cup.pk).update(
        registration_deadline=timezone.now() - dt.timedelta(hours=1)
    )
    response = client.post(url, {"method": "random", "format": "knockout", "seed": "1"})
    assert response.status_code == 302
    assert Draw.objects.filter(event__slug="a", event__tournament=cup).exists()


def test_a_draft_is_not_drawn(cup):
    Tournament.objects.filter(pk=cup.pk).update(status=S.DRAFT)
    cup.refresh_from_db()
    assert draw_refusal(cup) == "比赛还是草稿：请先开放报名，报名截止后再抽签。"


def test_no_withdrawal_once_the_event_is_finished(cup):
    a = cup.events.get(slug="a")
    draw_event(event=a, seed=1)
    play(a)
    entry = a.entries.first()
    with pytest.raises(RegistrationError) as err:
        withdraw_entry(entry=entry, reason="因病")
    assert str(err.value) == "项目a已经结束，名次已定，不能再退赛。"
    assert Entry.objects.get(pk=entry.pk).status == Entry.Status.REGISTERED


def test_a_withdrawal_before_the_end_is_still_a_walkover(cup):
    a = cup.events.get(slug="a")
    draw_event(event=a, seed=1)
    entry = a.entries.first()
    withdraw_entry(entry=entry, reason="因病")
    assert Entry.objects.get(pk=entry.pk).status == Entry.Status.WITHDRAWN


@pytest.fixture
def joint(make_tournament):
    t = make_tournament()
    a = Unit.objects.create(tournament=t, name="教务", kind="union_group")
    b = Unit.objects.create(tournament=t, name="物理", kind="union_group")
    team = Unit.objects.create(tournament=t, name="教务物理联队", kind="joint")
    team.members.set([a, b])
    Unit.objects.create(tournament=t, name="体育", kind="union_group")
    for slug in ("pairs", "more"):
        Event.objects.create(
            tournament=t,
            slug=slug,
            name=f"双人{slug}",
            discipline="guandan_pairs",
            ruleset="nantong2014",
        )
    return t


def pair_of(unit, *names, member=""):
    return EntryForm(
        unit=unit, pairs=[(PersonForm(names[0], "男", member), PersonForm(names[1], "女", member))]
    )


def test_a_member_unit_cannot_field_its_own_entry_beside_its_joint_team(joint):
    pairs = joint.events.get(slug="pairs")
    register_entries(
        event=pairs, organiser=True, forms=[pair_of("教务物理联队", "甲", "乙", member="教务")]
    )
    with pytest.raises(RegistrationError) as err:
        register_entries(event=pairs, organiser=True, forms=[pair_of("教务", "丙", "丁")])
    assert str(err.value) == (
        "教务是联队教务物理联队的组成单位，教务物理联队已在本项目报名，教务不能再单独报名。"
    )
    register_entries(event=pairs, organiser=True, forms=[pair_of("体育", "丙", "丁")])  # others may


def test_a_joint_team_cannot_enter_where_a_member_has_its_own_entry(joint):
    more = joint.events.get(slug="more")
    register_entries(event=more, organiser=True, forms=[pair_of("物理", "甲", "乙")])
    with pytest.raises(RegistrationError) as err:
        register_entries(
            event=more, organiser=True, forms=[pair_of("教务物理联队", "丙", "丁", member="教务")]
        )
    assert str(err.value) == (
        "联队教务物理联队的组成单位物理已在本项目单独报名，教务物理联队不能再报名本项目。"
    )
    # Both in one submission: both named, nothing saved.
    pairs = joint.events.get(slug="pairs")
    with pytest.raises(RegistrationError) as err:
        register_entries(
            event=pairs,
            organiser=True,
            forms=[pair_of("教务", "戊", "己"), pair_of("教务物理联队", "庚", "辛", member="物理")],
        )
    assert len(err.value.problems) == 2
    assert not pairs.entries.exists()


def test_an_event_added_after_every_draw_takes_the_status_back_to_closed(client, cup):
    for event in cup.events.all():
        draw_event(event=event, seed=1)
    assert status(cup) == S.DRAWN
    client.force_login(User.objects.create_superuser("boss", password="x"))
    data = {"name": "象棋", "slug": "xiangqi", "discipline": "xiangqi", "pairs_per_team": "1"}
    data["order"] = "3"
    assert client.post(reverse("manage:event-new", args=[cup.slug]), data).status_code == 302
    assert status(cup) == S.REGISTRATION_CLOSED  # its entries may still come


def test_a_leader_is_told_the_event_is_over_when_withdrawing_after_it(client, cup):
    a = cup.events.get(slug="a")
    draw_event(event=a, seed=1)
    play(a)
    entry = a.entries.first()
    leader = User.objects.create_user("leader", password="x")
    entry.unit.leaders.add(leader)
    client.force_login(leader)
    url = reverse("registration:withdraw", args=[cup.slug, entry.pk])
    response = client.post(url, {"reason": "因病"}, follow=True)
    assert "项目a已经结束，名次已定，不能再退赛。" in response.content.decode()
    assert Entry.objects.get(pk=entry.pk).status == Entry.Status.REGISTERED
