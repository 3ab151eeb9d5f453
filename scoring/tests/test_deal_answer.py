"""A referee's deal and its answer: the statements it takes (nothing read again between the
write and the answer), the answer in part — only what the deal changed, each part exactly as
the whole panel renders it — and when the panel is answered whole instead."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.db import connection
from django.test.html import Element, parse_html
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from scoring.models import Report, TableEvent, TableMatch
from scoring.selectors import record_read_with
from scoring.services.common import TableError
from scoring.services.players import call_referee
from scoring.services.reports import add_report
from scoring.services.tables import RECORD, record_event, undo_last
from scoring.table_page import load_table
from scoring.tests.test_services import _run_together, needs_postgresql
from scoring.tests.test_table_views import ANHUI, HTMX, NANTONG, table_url

# A deal in play, through the test client: the session and the user (2), the table with
# what the referee may do at it, the page's counts and its record, and its pairs (2), the
# transaction (2: BEGIN/COMMIT, or a savepoint inside a test's), the table's row, the event
# and the audit (3), and the event's version for the live pages (1): 8 queries.
DEAL_STATEMENTS = 10
# The bench's reading of an answer (bench/live_load.py, bench/deal.py).
VERSION_RE = re.compile(r'id="table-panel"[^>]*data-version="(\d+)" data-over="([01])"')
NOT_OVER = {"A": list("ABBA"), "B": list("BAAB")}  # partner 末游: never passes A


def _tables(cast):
    """A guandan team table (Nantong) and a pairs table (Anhui), each with its referee."""
    return {NANTONG: (cast.table, cast.referee), ANHUI: (cast.foreign_table, cast.foreign_referee)}


def _deal(client, table, slug, order="A2", key="k", version=None):
    url = table_url("scoring:deal", table, slug=slug)
    if version is None:
        version = TableMatch.objects.get(pk=table.pk).version
    return client.post(url, {"deal": order, "key": key, "version": str(version)}, **HTMX)


def _panel(client, table, slug) -> str:
    """The whole panel as the page loads it now (htmx GET of the table's page)."""
    response = client.get(table_url("scoring:table", table, slug=slug), **HTMX)
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.parametrize("slug", [NANTONG, ANHUI])
def test_a_deal_takes_ten_statements_and_reads_nothing_after_its_write(
    client, cast, slug, django_assert_max_num_queries
):
    table, referee = _tables(cast)[slug]
    client.force_login(referee)
    assert _deal(client, table, slug, key="first").status_code == 200
    with django_assert_max_num_queries(DEAL_STATEMENTS):
        response = _deal(client, table, slug, order="B3", key="second", version=1)
    assert response.status_code == 200
    with CaptureQueriesContext(connection) as ctx:
        response = _deal(client, table, slug, order="A3", key="third", version=2)
    assert response.status_code == 200 and "data-follows" in response.content.decode()
    sql = [q["sql"] for q in ctx.captured_queries]
    assert len(sql) <= DEAL_STATEMENTS, sql
    # Each row read once: the table, its record; and nothing read after the first write.
    reads = [s for s in sql if s.startswith("SELECT")]
    assert sum('FROM "scoring_tablematch"' in s for s in reads) == 1, reads
    assert sum('FROM "scoring_tableevent"' in s for s in reads) == 1, reads
    first_write = next(i for i, s in enumerate(sql) if s.startswith(("UPDATE", "INSERT")))
    assert not [s for s in sql[first_write:] if s.startswith("SELECT")]
    assert TableEvent.objects.filter(table=table, key="third").count() == 1


@pytest.mark.parametrize("slug", [NANTONG, ANHUI])
def test_a_deal_is_answered_with_the_parts_it_changed_as_the_whole_panel_has_them(
    client, cast, slug
):
    table, referee = _tables(cast)[slug]
    client.force_login(referee)
    first = _deal(client, table, slug, key="first")
    before = _panel(client, table, slug)
    response = _deal(client, table, slug, order="B4", key="second")
    answer = response.content.decode()
    after = _panel(client, table, slug)
    found = VERSION_RE.search(answer)
    version = TableMatch.objects.get(pk=table.pk).version
    assert found and found.groups() == (str(version), "0")
    assert f'data-follows="{version - 1}"' in answer
    # Far smaller than the whole panel, and made of the whole panel's own parts.
    assert len(answer) * 3 < len(after)
    parts = _parts(answer)
    assert {"table-flash", "table-calls", "table-board"} <= set(parts)
    whole = _parts(after)
    for name, part in parts.items():
        if name != "table-flash":  # the message of this answer (the page loaded has none)
            assert part == whole[name], name
    # The record's new line is the first of the whole record's; the message says it.
    added = _elements(parse_html(answer), lambda e: e.name == "ol" and _has(e, "data-added"))
    [line] = added[0].children
    assert line == _history(after)[0]
    assert line.children[0] in str(parts["table-flash"])
    assert _history(after)[1:] == _history(before)
    # The table's first lines come with the record, the start and the undo button whole.
    assert first.status_code == 200 and 'data-follows="0"' in first.content.decode()
    opening = _parts(first.content.decode())
    assert {"table-start", "table-actions", "table-history"} <= set(opening)
    assert "撤销上一条" in first.content.decode()


def test_a_deal_with_a_call_for_the_referee_open_is_answered_whole(client, cast):
    client.force_login(cast.referee)
    _deal(client, cast.table, NANTONG, key="first")
    call_referee(table=cast.table, side="A", kind="help", key="c1")
    answer = _deal(client, cast.table, NANTONG, order="B2", key="second").content.decode()
    assert "data-follows" not in answer and 'class="panel calls"' in answer
    assert answer.lstrip().startswith('<div id="table-panel"')


def test_the_chief_referees_deal_is_answered_whole(client, cast):
    client.force_login(cast.chief)
    _deal(client, cast.table, NANTONG, key="first")
    answer = _deal(client, cast.table, NANTONG, order="B2", key="second").content.decode()
    assert "data-follows" not in answer and "操作记录" in answer


def test_the_deal_that_ends_the_match_is_answered_whole_with_the_submit_button(client, cast):
    client.force_login(cast.referee)
    _deal(client, cast.table, NANTONG, key="first")
    url = table_url("scoring:time-up", cast.table)
    version = TableMatch.objects.get(pk=cast.table.pk).version
    over = client.post(url, {"key": "t", "version": str(version)}, **HTMX).content.decode()
    assert "data-follows" not in over and 'data-over="1"' in over and "提交结果" in over


def test_a_report_filed_elsewhere_is_counted_in_the_next_deals_answer(client, cast):
    client.force_login(cast.referee)
    _deal(client, cast.table, NANTONG, key="first")
    add_report(table=cast.table, team="B", description="暗号", user=cast.chief, key="r1")
    answer = _deal(client, cast.table, NANTONG, order="B2", key="second").content.decode()
    assert "data-follows" in answer
    assert (
        _parts(answer)["table-reports"]
        == _parts(_panel(client, cast.table, NANTONG))["table-reports"]
    )
    assert "举报（1）" in answer or "举报(1)" in answer
    assert Report.objects.filter(table=cast.table).count() == 1


def test_a_resend_and_a_refusal_are_answered_whole(client, cast):
    client.force_login(cast.referee)
    _deal(client, cast.table, NANTONG, key="first")
    again = _deal(client, cast.table, NANTONG, key="first", version=0).content.decode()
    assert "已记录过，未重复记录" in again and "data-follows" not in again
    stale = _deal(client, cast.table, NANTONG, order="B2", key="second", version=0)
    assert stale.status_code == 422 and "data-follows" not in stale.content.decode()
    assert TableEvent.objects.filter(table=cast.table).count() == 1


def test_a_deal_on_a_table_the_whistle_called_meanwhile_brings_time_up(client, cast):
    # The page was loaded before the whistle: the version is the same (the whistle does not
    # change it), the deal is saved on the table as it is now, with time up after it.
    client.force_login(cast.referee)
    _deal(client, cast.table, NANTONG, key="first")
    version = TableMatch.objects.get(pk=cast.table.pk).version
    TableMatch.objects.filter(pk=cast.table.pk).update(time_called_at=timezone.now())
    answer = _deal(client, cast.table, NANTONG, order="B4", key="second", version=version)
    assert answer.status_code == 200
    keys = list(TableEvent.objects.filter(table=cast.table).order_by("seq").values_list("key"))
    assert keys == [("first",), ("second",), ("second:time",)]
    table = TableMatch.objects.get(pk=cast.table.pk)
    assert table.is_over and table.version == version + 1


def test_a_deal_made_on_a_table_another_write_overtook_is_refused_as_stale(cast):
    # The table as the page's request loaded it, at the version the page shows; another
    # device's deal is saved before this one's: nothing of this one is saved.
    table = TableMatch.objects.get(pk=cast.table.pk)
    loaded = TableMatch.objects.with_people("match__round__stage__event__tournament").get(
        pk=table.pk
    )
    record_event(table=table, event={"order": NOT_OVER["A"]}, key="other", expected_version=0)
    with pytest.raises(TableError) as refused:
        record_event(table=loaded, event={"order": NOT_OVER["B"]}, key="mine", expected_version=0)
    assert refused.value.code == "stale"
    assert list(TableEvent.objects.filter(table=table).values_list("key", flat=True)) == ["other"]
    assert TableMatch.objects.get(pk=table.pk).version == 1


def _loaded_for_a_write(table) -> TableMatch:
    """The table as a referee's write loads it: with its record (selectors.with_record)."""
    event = table.match.round.stage.event
    return load_table(
        TableMatch.objects,
        counts=True,
        pk=table.pk,
        match__round__stage__event__tournament__slug=event.tournament.slug,
        match__round__stage__event__slug=event.slug,
    )


def test_the_record_read_with_the_table_is_the_record_a_write_reads_itself(cast):
    table = TableMatch.objects.get(pk=cast.table.pk)
    assert record_read_with(_loaded_for_a_write(table)) == []
    for n, order in enumerate(["A2", "B3", "A4"]):
        record_event(
            table=TableMatch.objects.get(pk=table.pk),
            event={"order": NOT_OVER[order[0]]},
            key=f"k{n}",
            expected_version=n,
        )
    undo_last(table=TableMatch.objects.get(pk=table.pk), expected_version=3)
    read = record_read_with(_loaded_for_a_write(table))
    own = [
        (seq, key, payload, None if undone is None else True)
        for seq, key, payload, undone in RECORD(table_id=table.pk)
    ]
    assert read == own
    assert [(seq, key, undone) for seq, key, _payload, undone in read] == [
        (1, "k0", None),
        (2, "k1", None),
        (3, "k2", True),
    ]
    # A table read without it (a service's caller) reads its record itself.
    assert record_read_with(TableMatch.objects.get(pk=table.pk)) is None


def test_a_deal_on_a_record_read_before_another_write_is_refused_as_stale(cast):
    loaded = _loaded_for_a_write(cast.table)
    record_event(table=cast.table, event={"order": NOT_OVER["A"]}, key="other", expected_version=0)
    with pytest.raises(TableError) as refused:
        record_event(table=loaded, event={"order": NOT_OVER["B"]}, key="mine", expected_version=0)
    assert refused.value.code == "stale"
    assert list(TableEvent.objects.filter(table=cast.table).values_list("key", flat=True)) == [
        "other"
    ]


def test_a_resend_whose_first_copy_was_saved_after_the_record_was_read_is_recorded_once(cast):
    # The phone's first copy is saved while its resend's request is already loading the
    # table: the resend's record does not have it, the row's version tells, and the resend
    # is answered as the write it repeats.
    loaded = _loaded_for_a_write(cast.table)
    record_event(table=cast.table, event={"order": NOT_OVER["A"]}, key="tap", expected_version=0)
    written, _text, created = record_event(
        table=loaded, event={"order": NOT_OVER["A"]}, key="tap", expected_version=0
    )
    assert created is False and written.version == 1
    assert TableEvent.objects.filter(table=cast.table, key="tap").count() == 1


# --------------------------------------------------------------------------- HTML


def _has(element: Element, name: str) -> bool:
    return any(key == name for key, _value in element.attributes)


def _attribute(element: Element, name: str):
    return next((value for key, value in element.attributes if key == name), None)


def _elements(root, match) -> list[Element]:
    found = []
    for child in getattr(root, "children", []):
        if isinstance(child, Element):
            if match(child):
                found.append(child)
            found += _elements(child, match)
    return found


CSRF = re.compile(r'(name="csrfmiddlewaretoken" value=")[^"]*"')


def _parts(html: str) -> dict[str, Element]:
    """The panel's parts by id (``data-part``), a form's CSRF token aside (each render
    masks it anew)."""
    root = parse_html(CSRF.sub(r'\1"', html))
    return {_attribute(e, "id"): e for e in _elements(root, lambda e: _has(e, "data-part"))}


def _history(html: str) -> list[Element]:
    [record] = _elements(
        parse_html(html),
        lambda e: e.name == "ol" and "history-list" in (_attribute(e, "class") or ""),
    )
    return [child for child in record.children if isinstance(child, Element)]


# --------------------------------------------------------------------------- who may


def test_what_the_table_read_says_a_user_may_do_is_what_access_says(cast):
    # with_roles (read with the table) and tournaments.access (asked one by one) agree: for
    # the table's referee, its tie's, another tie's, a chief, someone with no role, a
    # superuser, and an official on duty in the match's hall.
    from django.contrib.auth import get_user_model

    from scoring.selectors import table_roles
    from scoring.table_page import load_table
    from tournaments.access import can_enter_table, is_chief
    from tournaments.models import HallDuty, Match, Official, Venue

    on_duty = get_user_model().objects.create_user("on-duty")
    tournament = cast.other_table.match.round.stage.event.tournament
    venue = Venue.objects.filter(tournament=tournament).first()
    start = timezone.now()
    Match.objects.filter(pk=cast.other_table.match_id).update(venue=venue, scheduled_at=start)
    HallDuty.objects.create(
        official=Official.objects.create(
            tournament=tournament, name="值班", role=Official.Role.REFEREE, user=on_duty
        ),
        venue=venue,
        starts_at=start - dt.timedelta(hours=1),
        ends_at=start + dt.timedelta(hours=1),
    )
    root = get_user_model().objects.create_superuser("root")
    people = [
        cast.referee,
        cast.other_referee,
        cast.submitter,
        cast.chief,
        cast.foreign_chief,
        cast.nobody,
        on_duty,
        root,
    ]
    seen = set()
    for table in (cast.table, cast.other_table, cast.foreign_table):
        slug = table.match.round.stage.event.tournament.slug
        for user in people:
            loaded = load_table(TableMatch.objects, user=user, pk=table.pk)
            plain = TableMatch.objects.get(pk=table.pk)
            chief = is_chief(user, plain.match.round.stage.event.tournament)
            expected = (chief, can_enter_table(user, plain, chief=chief))
            assert table_roles(user, loaded) == expected, (slug, user.username)
            seen.add(expected)
    assert seen == {(False, False), (False, True), (True, True)}
    on_duty_there = load_table(TableMatch.objects, user=on_duty, pk=cast.other_table.pk)
    assert table_roles(on_duty, on_duty_there) == (False, True)


# --------------------------------------------------------------------------- at once


def _loaded(table):
    """The table as a referee's request loads it (the write then claims it)."""
    from scoring.table_page import load_table

    return load_table(TableMatch.objects, pk=table.pk)


@needs_postgresql
@pytest.mark.django_db(transaction=True)
def test_two_phones_dealing_on_one_version_at_once_save_one_deal(cast):
    for attempt in range(4):
        version = TableMatch.objects.get(pk=cast.table.pk).version
        results = []

        def phone(side, attempt=attempt, version=version, results=results):
            def work():
                _t, _text, created = record_event(
                    table=_loaded(cast.table),
                    event={"order": NOT_OVER[side]},
                    key=f"{side}-{attempt}",
                    expected_version=version,
                )
                results.append(created)

            return work

        errors = _run_together([phone("A"), phone("B")])
        assert results == [True], (results, errors)
        [refused] = errors
        assert isinstance(refused, TableError) and refused.code == "stale"
        assert TableMatch.objects.get(pk=cast.table.pk).version == version + 1
    assert TableEvent.objects.filter(table=cast.table).count() == 4


@needs_postgresql
@pytest.mark.django_db(transaction=True)
def test_one_tap_sent_twice_at_once_on_one_version_is_saved_once(cast):
    for attempt in range(4):
        version = TableMatch.objects.get(pk=cast.table.pk).version
        results = []

        def resend(attempt=attempt, version=version, results=results):
            _t, _text, created = record_event(
                table=_loaded(cast.table),
                event={"order": NOT_OVER["A"]},
                key=f"same-{attempt}",
                expected_version=version,
            )
            results.append(created)

        assert _run_together([resend, resend]) == []
        assert sorted(results) == [False, True]
        assert TableEvent.objects.filter(table=cast.table, key=f"same-{attempt}").count() == 1
    table = TableMatch.objects.get(pk=cast.table.pk)
    assert table.version == 4
    from scoring.services.common import replay_table

    state, _described = replay_table(table)
    assert table.state == table.match.round.stage.event.scorer().state_dict(state)
