"""Live pages under a hall full of phones: conditional GET (ETag, Last-Modified, 304 without
the database), fragments cached per event version, versions that grow with every write,
the hall projector (大屏) and the chief referee's table board (各台状态)."""

from __future__ import annotations

import gzip

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.urls import reverse

from scoring.models import TableMatch
from scoring.services.corrections import correct_table
from scoring.services.desk import call_time, check_in
from scoring.services.reports import add_report, rule_report
from scoring.services.tables import confirm_table, record_event, submit_table, undo_last
from scoring.tests.utils import assign_referee
from tournaments.draw import make as draw_make
from tournaments.draw import results as draw_results
from tournaments.live import http as live
from tournaments.live import stamps
from tournaments.models import Event, Match, Official, Tournament
from tournaments.ops import synthetic

User = get_user_model()
HTMX = {"HTTP_HX_REQUEST": "true"}


def url(name, t="big", e="teams", *args):
    return reverse(name, args=[t, e, *args])


def make_event(entries: int, slug: str = "big", until: float = 0.5) -> Event:
    """A guandan team event drawn as a knockout and played ``until`` of the way."""
    event = synthetic.create_event(tournament_slug=slug, event_slug="teams", entries=entries)
    Tournament.objects.filter(slug=slug).update(status=Tournament.Status.RUNNING)
    draw_make.draw_event(event=event, seed=1)
    synthetic.play_event(event, seed=1, until=until)
    event.refresh_from_db()
    return event


def open_tables(event: Event) -> list[TableMatch]:
    return list(
        TableMatch.objects.filter(
            match__round__stage__event=event, match__status=Match.Status.PENDING
        )
        .exclude(home_pair=None)
        .order_by("match__round__number", "match__index", "number")
    )


def play_table(table: TableMatch, deals: int | None = None) -> TableMatch:
    """Record deals (home pair always 上游 with its partner second) until the table ends."""
    n = 0
    while not table.is_over and (deals is None or n < deals):
        table, _text, _created = record_event(
            table=table, event={"order": ["A", "A", "B", "B"]}, key=f"k{table.pk}-{n}"
        )
        n += 1
    return table


@pytest.fixture
def chief(db):
    return User.objects.create_user("chief")


def make_chief(user, event: Event):
    Official.objects.create(
        tournament=event.tournament, name="裁判长", role=Official.Role.CHIEF_REFEREE, user=user
    )


# --------------------------------------------------------------------------- conditional GET


def test_a_poll_with_the_last_etag_is_answered_304_without_the_database(
    client, db, django_assert_num_queries
):
    make_event(8)
    first = client.get(url("live:bracket"), **HTMX)
    assert first.status_code == 200
    etag = first.headers["ETag"]
    assert first.headers["Cache-Control"] == "no-cache" and first.headers["Last-Modified"]
    assert "HX-Request" in first.headers["Vary"]
    with django_assert_num_queries(0):
        again = client.get(url("live:bracket"), HTTP_IF_NONE_MATCH=etag, **HTMX)
    assert again.status_code == 304 and again.content == b""
    assert again.headers["ETag"] == etag


def test_a_result_makes_the_next_poll_a_200_with_a_new_etag(client, db):
    event = make_event(8)
    etag = client.get(url("live:bracket"), **HTMX).headers["ETag"]
    match = Match.objects.filter(round__stage__event=event, status=Match.Status.PENDING).exclude(
        home=None
    )[0]
    draw_results.record_result(match=match, winner="home", home_score=2, away_score=1)
    after = client.get(url("live:bracket"), HTTP_IF_NONE_MATCH=etag, **HTMX)
    assert after.status_code == 200 and after.headers["ETag"] != etag
    assert f'id="match-{match.pk}"' in after.content.decode()


def test_bracket_json_answers_etag_and_if_modified_since(client, db):
    event = make_event(8)
    first = client.get(url("live:bracket-json"))
    assert first.json()["version"] == event.version
    assert (
        client.get(url("live:bracket-json"), HTTP_IF_NONE_MATCH=first.headers["ETag"]).status_code
        == 304
    )
    assert (
        client.get(
            url("live:bracket-json"), HTTP_IF_MODIFIED_SINCE=first.headers["Last-Modified"]
        ).status_code
        == 304
    )
    # The fragment and the JSON are different representations: different ETags.
    assert first.headers["ETag"] != client.get(url("live:bracket"), **HTMX).headers["ETag"]


def test_the_etag_names_the_language(client, db):
    make_event(8)
    zh = client.get(url("live:bracket"), **HTMX)
    client.cookies["django_language"] = "en"
    en = client.get(url("live:bracket"), HTTP_IF_NONE_MATCH=zh.headers["ETag"], **HTMX)
    assert en.status_code == 200 and en.headers["ETag"] != zh.headers["ETag"]
    assert "Round" in en.content.decode() or "Final" in en.content.decode()


def test_a_phone_that_accepts_gzip_gets_the_cached_compressed_copy(client, db):
    make_event(64)
    plain = client.get(url("live:bracket"), **HTMX)
    packed = client.get(url("live:bracket"), HTTP_ACCEPT_ENCODING="gzip, br", **HTMX)
    assert packed.headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(packed.content) == plain.content
    assert len(packed.content) < len(plain.content) / 3


def test_the_full_page_embeds_the_cached_body_and_carries_no_etag(client, db):
    make_event(8)
    page = client.get(url("live:bracket"))
    html = page.content.decode()
    assert "<html" in html and 'id="bracket-body"' in html and "live.js" in html
    # A full page has its own CSP nonce: it must never be answered 304.
    assert "ETag" not in page.headers


def test_tie_and_match_json_are_conditional_too(client, db):
    event = make_event(8)
    match = Match.objects.filter(round__stage__event=event, round__number=1).first()
    for name in ["live:match", "live:match-json"]:
        extra = HTMX if name == "live:match" else {}
        first = client.get(url(name, "big", "teams", match.pk), **extra)
        assert first.status_code == 200
        again = client.get(
            url(name, "big", "teams", match.pk), HTTP_IF_NONE_MATCH=first.headers["ETag"], **extra
        )
        assert again.status_code == 304
    other = client.get(url("live:match-json", "big", "teams", 999999))
    assert other.status_code == 404


def test_a_draft_tournament_is_not_served_from_the_cache(client, db):
    make_event(8)
    client.get(url("live:bracket"), **HTMX)
    Tournament.objects.filter(slug="big").update(status=Tournament.Status.DRAFT)
    Tournament.objects.get(slug="big").bump_event_versions()
    assert client.get(url("live:bracket"), **HTMX).status_code == 404
    assert client.get(url("live:bracket-json")).status_code == 404


def test_while_one_request_renders_a_new_version_the_others_get_the_previous_one(client, db):
    event = make_event(8)
    old = client.get(url("live:bracket-json"))
    event.bump_version()
    # Another app server is rendering this version right now.
    cache.add(f"live-lock:{event.pk}:bracket-json-zh-hans", 1, 10)
    stale = client.get(url("live:bracket-json"))
    assert stale.status_code == 200 and stale.headers["ETag"] == old.headers["ETag"]
    assert stale.json()["version"] == old.json()["version"]
    cache.delete(f"live-lock:{event.pk}:bracket-json-zh-hans")
    fresh = client.get(url("live:bracket-json"))
    assert fresh.json()["version"] == event.version and fresh.headers["ETag"] != old.headers["ETag"]


def test_a_page_slow_to_render_is_rendered_again_only_at_its_pace(client, db, settings):
    # A bracket that takes seconds to render (2,048 pairs after six Swiss rounds) is not
    # rendered at every deal: the latest copy is served, with its own ETag, until the pace
    # (LIVE_RENDER_PACE × the render's time) has passed.
    settings.LIVE_RENDER_PACE, settings.LIVE_RENDER_PACE_FROM = 10_000, 0  # long enough
    event = make_event(8)
    old = client.get(url("live:bracket-json"))
    pace_key = f"live-pace:{event.pk}:bracket-json-zh-hans"
    assert cache.get(pace_key) == 1
    event.bump_version()
    paced = client.get(url("live:bracket-json"))
    assert paced.headers["ETag"] == old.headers["ETag"] and paced.json() == old.json()
    # A phone that has that copy is told so (not sent it again), and not from the fast path.
    kept = client.get(url("live:bracket-json"), HTTP_IF_NONE_MATCH=old.headers["ETag"])
    assert kept.status_code == 304 and kept.headers["ETag"] == old.headers["ETag"]
    assert not hasattr(kept, "live_copy")
    cache.delete(pace_key)  # the pace has passed
    fresh = client.get(url("live:bracket-json"))
    assert fresh.json()["version"] == event.version and fresh.headers["ETag"] != old.headers["ETag"]
    # A page quick to render is rendered at every version.
    settings.LIVE_RENDER_PACE_FROM = 60
    cache.delete(pace_key)
    client.get(url("live:bracket-json"))
    event.bump_version()
    assert client.get(url("live:bracket-json")).json()["version"] == event.version


def test_a_stamp_is_forgotten_as_soon_as_the_version_grows(client, db):
    event = make_event(8)
    before = live.get_stamp("big", "teams")
    assert before.version == event.version
    event.bump_version()
    assert live.get_stamp("big", "teams").version == before.version + 1


# --------------------------------------------------------------------------- versions


def version(event: Event) -> int:
    return Event.objects.get(pk=event.pk).version


def test_every_referee_write_grows_the_version(db, chief):
    event = make_event(8)
    make_chief(chief, event)
    table = open_tables(event)[0]
    v = version(event)
    table = play_table(table, deals=1)
    assert version(event) > v
    v = version(event)
    undo_last(table=table)
    assert version(event) > v
    table = play_table(table)
    v = version(event)
    submit_table(table=table, user=User.objects.create_user("ref"))
    assert version(event) > v
    v = version(event)
    # One table of three confirmed: the tie is not decided, the page still changes.
    confirm_table(table=TableMatch.objects.get(pk=table.pk), user=chief)
    assert version(event) > v
    other = open_tables(event)[-1]
    v = version(event)
    check_in(match=other.match, pair=other.home_pair)
    assert version(event) > v
    v = version(event)
    report = add_report(table=other, team="A", description="说话")
    assert version(event) > v
    v = version(event)
    rule_report(report=report, upheld=True, user=chief)
    assert version(event) > v
    v = version(event)
    call_time(round=other.match.round, user=chief)
    assert version(event) > v
    v = version(event)
    done = TableMatch.objects.get(pk=table.pk)
    correct_table(table=done, events=[{"order": ["B", "B", "A", "A"]}], reason="记错", user=chief)
    assert version(event) > v


def wide(event: Event) -> int:
    return Event.objects.get(pk=event.pk).wide_version


def test_a_tables_own_writes_leave_the_wide_version_and_every_other_write_grows_it(db, chief):
    """A deal, its undo and the start change one table's row and record only; whatever else
    changes (a submission, a confirmation, a check-in, a report, the whistle, a
    correction) is the whole event's (Event.wide_version, tournaments/live/http.py)."""
    event = make_event(8)
    make_chief(chief, event)
    table = open_tables(event)[0]
    w = wide(event)
    table = play_table(table, deals=2)
    table = undo_last(table=table)
    assert (wide(event), version(event) > w) == (w, True)
    table = play_table(table)
    for write in (
        lambda: submit_table(table=table, user=User.objects.create_user("ref")),
        lambda: confirm_table(table=TableMatch.objects.get(pk=table.pk), user=chief),
        lambda: check_in(match=open_tables(event)[-1].match, pair=open_tables(event)[-1].home_pair),
        lambda: add_report(table=open_tables(event)[-1], team="A", description="说话"),
        lambda: call_time(round=open_tables(event)[-1].match.round, user=chief),
    ):
        write()
        assert wide(event) == version(event)


def _tie_url(table: TableMatch) -> str:
    return url("live:match", "big", "teams", table.match_id)


def _table_url(table: TableMatch) -> str:
    return reverse("scoring:table", args=["big", "teams", table.pk])


def _counting(monkeypatch, module: str, name: str) -> list:
    """Count the calls of ``module.name`` (a page's render reads through it once)."""
    import importlib

    where = importlib.import_module(module)
    real, calls = getattr(where, name), []

    def counted(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(where, name, counted)
    return calls


@pytest.mark.parametrize(
    "page, render",
    [
        (_tie_url, ("tournaments.live.views", "tables_of_tie")),
        (_table_url, ("scoring.views.table", "_context")),
    ],
)
def test_a_ties_pages_are_not_rendered_again_while_only_other_ties_deal(
    client, db, monkeypatch, page, render, django_assert_max_num_queries
):
    event = make_event(8)
    tables = open_tables(event)
    mine = play_table(tables[0], deals=1)
    other = next(t for t in tables if t.match_id != mine.match_id)
    renders = _counting(monkeypatch, *render)
    first = client.get(page(mine), **HTMX)
    assert first.status_code == 200 and len(renders) == 1
    play_table(other, deals=1)
    # A new version of the event: the copy of this tie's page is found by the state of its
    # tables (the stamp and that state: two queries), not rendered again.
    with django_assert_max_num_queries(2):
        again = client.get(page(mine), **HTMX)
    assert again.status_code == 200 and again.content == first.content and len(renders) == 1
    assert again.headers["ETag"] != first.headers["ETag"]
    assert client.get(page(mine), **HTMX).content == first.content and len(renders) == 1
    # A deal on the tie itself: rendered again, as a page rendered afresh has it.
    play_table(TableMatch.objects.get(pk=mine.pk), deals=2)
    changed = client.get(page(mine), **HTMX)
    assert len(renders) == 2
    cache.clear()
    live.clear_local()
    assert client.get(page(mine), **HTMX).content == changed.content


def test_a_ties_page_slow_to_render_keeps_its_pace_too(client, db, monkeypatch, settings):
    settings.LIVE_RENDER_PACE, settings.LIVE_RENDER_PACE_FROM = 10_000, 0  # long enough
    event = make_event(8)
    tie = open_tables(event)[0]
    renders = _counting(monkeypatch, "tournaments.live.views", "tables_of_tie")
    first = client.get(_tie_url(tie), **HTMX)
    play_table(TableMatch.objects.get(pk=tie.pk), deals=1)  # a change of its own
    paced = client.get(_tie_url(tie), **HTMX)
    assert len(renders) == 1 and paced.headers["ETag"] == first.headers["ETag"]
    cache.delete(f"live-pace:{event.pk}:tie-match_id={tie.match_id}-hx-zh-hans")
    client.get(_tie_url(tie), **HTMX)
    assert len(renders) == 2


def test_a_ties_page_is_rendered_again_after_any_change_but_another_tables_own(
    client, db, monkeypatch
):
    event = make_event(8)
    tables = open_tables(event)
    tie = tables[0]
    other = next(t for t in tables if t.match_id != tie.match_id)
    renders = _counting(monkeypatch, "tournaments.live.views", "tables_of_tie")
    client.get(_tie_url(tie), **HTMX)
    play_table(other, deals=1)
    client.get(_tie_url(tie), **HTMX)
    assert len(renders) == 1
    event.refresh_from_db()
    event.bump_version()  # the event's own change (a result, the draw, a ruling …)
    client.get(_tie_url(tie), **HTMX)
    assert len(renders) == 2
    Tournament.objects.get(slug="big").bump_event_versions()  # the tournament's
    client.get(_tie_url(tie), **HTMX)
    assert len(renders) == 3
    # Each language and each encoding of the same state is its own copy.
    client.get(_tie_url(tie), HTTP_ACCEPT_ENCODING="gzip", **HTMX)
    assert len(renders) == 3
    client.cookies["django_language"] = "en"
    client.get(_tie_url(tie), **HTMX)
    assert len(renders) == 4


def test_organiser_edits_grow_the_version(client, db):
    event = make_event(8)
    Tournament.objects.filter(slug="big").update(status=Tournament.Status.REGISTRATION_CLOSED)
    client.force_login(User.objects.create_superuser("root"))
    v = version(event)
    # (never back to draft once drawn: reopening registration for other events)
    client.post(reverse("manage:status", args=["big"]), {"action": "open"})
    assert version(event) > v
    v = version(event)
    client.post(
        reverse("draw:schedule", args=["big", "teams"]),
        {"auto": "1", "start": "2026-05-01T09:00", "minutes": "60"},
    )
    assert version(event) > v


def test_a_withdrawal_after_the_draw_grows_the_version(db):
    from tournaments.registration.services import withdraw_entry

    event = make_event(8, until=0)
    v = version(event)
    withdraw_entry(entry=event.entries.first(), reason="生病")
    assert version(event) > v


# --------------------------------------------------------------------------- projector


def test_the_projector_shows_the_round_in_play_its_tables_the_tree_and_the_latest_results(
    client, db
):
    event = make_event(8)
    table = play_table(open_tables(event)[0], deals=2)
    html = client.get(url("live:screen")).content.decode()
    assert "site-header" not in html and "screen.css" in html and "screen.js" in html
    assert 'data-slide-seconds="12"' in html
    assert "slide-ties" in html and "半决赛" in html  # the round in play
    levels = table.state["levels"]
    assert f"{levels['A']}–{levels['B']}" in html and "打" in html
    assert "slide-tree" in html and "决赛" in html and "季军争夺战" in html
    assert "slide-results" in html and "最新结果" in html
    part = client.get(url("live:screen"), **HTMX)
    assert part.content.decode().lstrip().startswith('<div id="screen-body"')
    assert (
        client.get(url("live:screen"), HTTP_IF_NONE_MATCH=part.headers["ETag"], **HTMX).status_code
        == 304
    )


def test_the_projector_shows_placings_once_known(client, db):
    make_event(8, until=1.0)
    html = client.get(url("live:screen")).content.decode()
    assert "slide-placings" in html and "冠军" in html


@pytest.mark.parametrize("entries", [8, 256])
def test_the_projector_and_board_need_a_fixed_number_of_queries(
    client, db, chief, entries, django_assert_max_num_queries
):
    event = make_event(entries)
    for table in open_tables(event)[:3]:
        play_table(table, deals=2)
    # The stamp, the event, the bracket's queries (with the placings'), the round's tables.
    with django_assert_max_num_queries(10):
        assert client.get(url("live:screen")).status_code == 200
    cache.clear()
    with django_assert_max_num_queries(10):
        assert client.get(url("live:screen"), **HTMX).status_code == 200
    make_chief(chief, event)
    client.force_login(chief)
    cache.clear()
    with django_assert_max_num_queries(14):
        assert client.get(url("scoring:board")).status_code == 200
    match = Match.objects.filter(round__stage__event=event, round__number=2).first()
    cache.clear()
    with django_assert_max_num_queries(9):
        assert client.get(url("live:match", "big", "teams", match.pk)).status_code == 200
    client.logout()
    table = open_tables(event)[0]
    cache.clear()
    with django_assert_max_num_queries(8):
        page = client.get(reverse("scoring:table", args=["big", "teams", table.pk]), **HTMX)
    assert page.status_code == 200


# --------------------------------------------------------------------------- table board


def test_the_board_is_for_chief_referees_only(client, db):
    make_event(8)
    assert client.get(url("scoring:board")).status_code == 302
    client.force_login(User.objects.create_user("someone"))
    assert client.get(url("scoring:board")).status_code == 403


def test_the_board_lists_every_table_of_the_round_oldest_unconfirmed_first(client, db, chief):
    event = make_event(8)
    make_chief(chief, event)
    referee = User.objects.create_user("ref")
    tables = open_tables(event)  # the two semi-finals: six tables
    assert len(tables) == 6
    first_done = play_table(tables[0])
    submit_table(table=first_done, user=referee)
    second_done = play_table(tables[3])
    submit_table(table=second_done, user=referee)
    confirmed = play_table(tables[1])
    submit_table(table=confirmed, user=referee)
    confirm_table(table=TableMatch.objects.get(pk=confirmed.pk), user=chief)
    playing = play_table(tables[4], deals=3)
    client.force_login(chief)
    html = client.get(url("scoring:board")).content.decode()
    assert "半决赛" in html
    rows = html.split('class="board-row ')[1:]
    states = [row.split('"')[0] for row in rows]
    assert states == [
        "board-submitted",
        "board-submitted",
        "board-playing",
        "board-waiting",
        "board-waiting",
        "board-confirmed",
    ]
    # The first submitted is listed first.
    assert reverse("scoring:table", args=["big", "teams", first_done.pk]) in rows[0]
    assert reverse("scoring:table", args=["big", "teams", second_done.pk]) in rows[1]
    levels = playing.state["levels"]
    assert (
        f"{levels['A']} : {levels['B']}" in rows[2]
        and "打" + playing.state["playing_level"] in rows[2]
    )
    assert "待确认 2" in html and "进行中 1" in html and "未开始 2" in html and "已确认 1" in html
    part = client.get(url("scoring:board"), **HTMX)
    assert part.content.decode().lstrip().startswith('<div id="board-body"')
    assert (
        client.get(
            url("scoring:board"), HTTP_IF_NONE_MATCH=part.headers["ETag"], **HTMX
        ).status_code
        == 304
    )
    # An earlier round on request.
    first = Match.objects.filter(round__stage__event=event, round__number=1).first()
    html = client.get(url("scoring:board") + f"?round={first.round_id}").content.decode()
    assert "1/4决赛" in html


def test_staff_find_the_projector_and_the_board(client, db, chief):
    event = make_event(8)
    html = client.get(url("live:bracket")).content.decode()
    assert url("live:screen") in html and url("scoring:board") not in html
    make_chief(chief, event)
    client.force_login(chief)
    html = client.get(url("live:bracket")).content.decode()
    assert url("scoring:board") in html
    desk = client.get(reverse("scoring:desk", args=["big"])).content.decode()
    assert url("scoring:board") in desk and url("live:screen") in desk


# --------------------------------------------------------------------------- table page


def test_spectators_watch_a_table_update_itself_and_referees_get_their_own_page(client, db):
    event = make_event(8)
    table = play_table(open_tables(event)[0], deals=1)
    page_url = reverse("scoring:table", args=["big", "teams", table.pk])
    html = client.get(page_url).content.decode()
    assert f'hx-get="{page_url}"' in html
    part = client.get(page_url, **HTMX)
    assert client.get(page_url, HTTP_IF_NONE_MATCH=part.headers["ETag"], **HTMX).status_code == 304
    referee = User.objects.create_user("ref")
    assign_referee(Match.objects.filter(pk=table.match_id), referee)
    client.force_login(referee)
    mine = client.get(page_url, **HTMX)
    assert "ETag" not in mine.headers and "deal-button" in mine.content.decode()


def test_healthz_answers_without_the_database(client, db, django_assert_num_queries):
    with django_assert_num_queries(0):
        response = client.get("/healthz")
    assert response.status_code == 200 and response.content == b"ok"


def test_anonymous_full_pages_are_cached_with_a_fresh_csrf_token_and_nonce_each_time(
    client, db, django_assert_num_queries
):
    import re

    from django.test import Client

    make_event(8)
    first = client.get(url("live:bracket"))
    second_client = Client(enforce_csrf_checks=True)
    with django_assert_num_queries(0):
        second = second_client.get(url("live:bracket"))
    html = second.content.decode()
    assert "\x00" not in html and 'id="bracket-body"' in html
    nonce = re.search(r'nonce="([^"]+)"', html).group(1)
    assert f"'nonce-{nonce}'" in second.headers["Content-Security-Policy"]
    assert nonce not in first.content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)
    assert token not in first.content.decode() and f'"X-CSRFToken": "{token}"' in html
    assert "csrftoken" in second.cookies
    # A browser asks for gzip: the same page, from the cached compressed copy, with its own
    # token and nonce spliced in.
    packed = Client().get(url("live:bracket"), HTTP_ACCEPT_ENCODING="gzip, br")
    assert packed.headers["Content-Encoding"] == "gzip"
    unpacked = gzip.decompress(packed.content).decode()
    assert len(packed.content) < len(unpacked.encode()) / 2
    own = re.search(r'nonce="([^"]+)"', unpacked).group(1)
    assert f"'nonce-{own}'" in packed.headers["Content-Security-Policy"] and own != nonce
    assert re.sub(r'(nonce="|value="|X-CSRFToken": ")[^"]+', "", unpacked) == re.sub(
        r'(nonce="|value="|X-CSRFToken": ")[^"]+', "", html
    )
    # The language switch works with the token the cached page carries.
    switched = second_client.post(
        reverse("set_language"), {"language": "en", "next": "/", "csrfmiddlewaretoken": token}
    )
    assert switched.status_code == 302


def test_a_logged_in_visitor_never_gets_the_anonymous_copy(client, db):
    make_event(8)
    client.get(url("live:bracket"))
    client.force_login(User.objects.create_user("wang"))
    html = client.get(url("live:bracket")).content.decode()
    assert "wang" in html


def test_a_process_may_remember_a_stamp_for_a_moment_but_forgets_it_on_a_change(
    client, db, settings, monkeypatch, django_assert_num_queries
):
    settings.LIVE_STAMP_MEMO_SECONDS = 60
    event = make_event(8)
    etag = client.get(url("live:bracket"), **HTMX).headers["ETag"]

    class NoCache:
        def __getattr__(self, name):
            raise AssertionError("the shared cache was asked")

    real = live.cache
    monkeypatch.setattr(live, "cache", NoCache())
    with django_assert_num_queries(0):
        assert client.get(url("live:bracket"), HTTP_IF_NONE_MATCH=etag, **HTMX).status_code == 304
    monkeypatch.setattr(live, "cache", real)
    event.bump_version()  # in this process: the memo goes at once
    assert client.get(url("live:bracket"), HTTP_IF_NONE_MATCH=etag, **HTMX).status_code == 200
    stamps.clear_memo()
