import pytest
from django.contrib.auth import get_user_model

from scoring import services
from tournaments.demo import load_demo
from tournaments.models import Entry, Match


@pytest.fixture
def demo(db):
    return {t.slug: t for t in load_demo()}


def win(t, side, u, c, forfeit=False):
    o = "B" if side == "A" else "A"
    if forfeit:
        services.record_event(
            table=t, event={"forfeit": {"team": o, "reason": "withdrew"}}, key="f", user=u
        )
    else:
        services.record_event(table=t, event={"time_up": True}, key="t", user=u)
        for i in range(2):
            services.record_event(table=t, event={"order": [side, side, o, o]}, key=f"d{i}", user=u)
    services.submit_table(table=t, user=u)
    services.confirm_table(table=t, user=c)


def test_submitted_correct_unfinished(demo):
    u = get_user_model().objects.create_user("u")
    c = get_user_model().objects.create_user("c")
    t = Match.objects.get(pk=18).tables.get()
    services.record_event(table=t, event={"forfeit": {"team": "A"}}, key="f", user=u)
    services.submit_table(table=t, user=u)
    services.correct_table(table=t, events=[{"order": ["A", "A", "B", "B"]}], reason="r", user=c)
    t.refresh_from_db()
    print(t.status, t.state["match_over"], t.winner)
    try:
        services.confirm_table(table=t, user=c)
        print("confirmed", Match.objects.get(pk=18).status)
    except Exception as e:
        print("EXC", type(e), e)


def test_anhui_forfeit(demo):
    u = get_user_model().objects.create_user("u")
    c = get_user_model().objects.create_user("c")
    for pk in (18, 19, 22, 23):
        win(Match.objects.get(pk=pk).tables.get(), "A", u, c)
    for pk in (13, 14, 15, 16):
        m = Match.objects.get(pk=pk)
        print(pk, m.status, m.home_id, m.away_id, m.tables.count())
        win(m.tables.get(), "A", u, c)
    for pk in (11, 12, 9, 10):
        m = Match.objects.get(pk=pk)
        print(pk, m.status, m.home_id, m.away_id, m.tables.count())
    win(Match.objects.get(pk=11).tables.get(), "B", u, c, forfeit=True)
    for pk in (11, 12, 9, 10):
        m = Match.objects.get(pk=pk)
        print(pk, m.status, m.home_id, m.away_id, m.winner, m.tables.count())
    print(Entry.objects.get(pk=Match.objects.get(pk=11).home_id).status)
    win(Match.objects.get(pk=12).tables.get(), "A", u, c)
    for pk in (11, 12, 9, 10):
        m = Match.objects.get(pk=pk)
        print(pk, m.status, m.home_id, m.away_id, m.winner, m.tables.count())
