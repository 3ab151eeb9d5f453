"""The referee result-entry services (scoring.services) on the two demo tournaments.

Levels are hand-computed from the rules in docs/rules.md: nantong2014
promotes 3/2/1 (partner 二游/三游/末游), one game to past A; anhui2021 promotes 5/3/1, best
of three games, three failed A attempts back to 2, sudden death after the whistle.
"""

from __future__ import annotations

import itertools
import threading

import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from scoring.engines.guandan.play import state_to_full_dict
from scoring.models import AuditEntry, CheckIn, Report, TableEvent, TableMatch
from scoring.selectors import missing_pairs, pair_name, pending_upheld
from scoring.services.common import TableError, active_events, locked, replay_table
from scoring.services.corrections import correct_table
from scoring.services.desk import call_time, check_in, forfeit_missing
from scoring.services.reports import add_report, apply_report_deduction, rule_report
from scoring.services.tables import confirm_table, record_event, submit_table, undo_last
from scoring.tests.utils import first_round, fresh, guandan, tables
from tournaments.models import Entry, Match, Official

User = get_user_model()
_keys = itertools.count(1)


# --------------------------------------------------------------------------- helpers


def record(table, event, user=None, key=None, **kwargs):
    """record_event, with the description in Chinese (as ``str()`` words it)."""
    table, text, created = record_event(
        table=table, event=event, user=user, key=key or f"k{next(_keys)}", **kwargs
    )
    return table, str(text), created


def deal(table, order, user=None, **kwargs):
    return record(table, {"order": list(order)}, user, **kwargs)


def other(side: str) -> str:
    return "B" if side == "A" else "A"


def play_out(table, side, user) -> None:
    """The quickest whole record that ``side`` wins without a forfeit: nantong — one
    双上 then time up (higher level); anhui — the whistle, then two sudden-death games."""
    rules = table.match.round.stage.event.scorer().rules
    o = other(side)
    if rules.time_rule == "sudden_death":
        record(table, {"time_up": True}, user)
        deal(table, [side, side, o, o], user)
        deal(table, [side, side, o, o], user)
    else:
        deal(table, [side, side, o, o], user)
        record(table, {"time_up": True}, user)
    assert fresh(table).winner == side


def win_table(table, side, referee, chief) -> TableMatch:
    play_out(table, side, referee)
    submit_table(table=table, user=referee)
    return confirm_table(table=table, user=chief)


def play_every_table(match) -> None:
    """The event's rule set as a custom one that plays a decided tie's tables out."""
    event = match.round.stage.event
    event.ruleset_config = {
        **event.scorer().rules.to_dict(),
        "id": "played-out",
        "play_out_decided_ties": True,
    }
    event.save(update_fields=["ruleset_config"])


def win_tie(match, side, referee, chief) -> Match:
    for table in tables(match):
        if fresh(match).is_decided:
            break
        win_table(table, side, referee, chief)
    return fresh(match)


def snapshot():
    """Every row the services write, to show that a refused call changed nothing."""
    return (
        list(TableEvent.objects.order_by("pk").values_list("pk", "seq", "key", "undone_at")),
        list(
            TableMatch.objects.order_by("pk").values_list(
                "pk", "status", "version", "state", "winner", "time_called_at"
            )
        ),
        list(Report.objects.order_by("pk").values_list("pk", "upheld", "penalty_id")),
        CheckIn.objects.count(),
        AuditEntry.objects.count(),
        list(Match.objects.order_by("pk").values_list("pk", "status", "winner", "home", "away")),
    )


# --------------------------------------------------------------------------- recording


def test_nantong_deals_give_the_hand_computed_levels_and_the_engines_description(people):
    referee, _chief = people
    table = tables(first_round("nantong-2014")[0])[0]
    home, away = pair_name(table.home_pair), pair_name(table.away_pair)

    # A 双上: +3 (2→5); B 上游 with partner 三游: +2 (2→4); A 上游, partner 末游: +1 (5→6).
    table, text1, created = deal(table, "AABB", referee)
    assert created is True
    assert text1 == f"{home}双上（{away}双下），升3级：2→5"
    table, text2, _ = deal(table, "BABA", referee)
    assert text2 == f"{away}上游，对家三游，升2级：2→4"
    table, text3, _ = deal(table, "ABBA", referee)
    assert text3 == f"{home}上游，对家末游，升1级：5→6"

    table = fresh(table)
    assert table.state["levels"] == {"A": "6", "B": "4"}
    assert table.state["declarer"] == "A"
    assert table.state["playing_level"] == "6"
    assert table.state["match_over"] is False
    assert table.version == 3
    assert table.started_at is not None
    assert list(table.events.values_list("seq", flat=True)) == [1, 2, 3]
    assert table.events.first().created_by == referee
    assert fresh(table.match).status == Match.Status.IN_PROGRESS


def test_anhui_deals_count_a_failed_a_attempt_and_start_a_new_game_after_passing_a(people):
    referee, _chief = people
    table = tables(first_round("anhui-2021")[0])[0]
    home = pair_name(table.home_pair)

    deal(table, "AABB", referee)  # 双上 +5: 2→7
    deal(table, "ABAB", referee)  # partner 三游 +3: 7→10
    table, text, _ = deal(table, "AABB", referee)  # +5 capped: 10→A
    assert text.endswith("升5级（到A封顶）：10→A")
    assert fresh(table).state["levels"] == {"A": "A", "B": "2"}
    table, text, _ = deal(table, "ABBA", referee)  # own A, partner 末游: failed attempt 1
    assert text == f"{home}打A未过（第1次），仍打A"
    state = fresh(table).state
    assert state["a_failures"] == {"A": 1, "B": 0}
    assert state["levels"] == {"A": "A", "B": "2"}
    table, text, _ = deal(table, "AABB", referee)  # own A, partner 二游: passes A
    assert text == f"{home}打A成功（上游，对家二游），赢得第1局"
    state = fresh(table).state
    assert state["games_won"] == {"A": 1, "B": 0}
    assert state["levels"] == {"A": "2", "B": "2"}
    assert state["declarer"] is None
    assert state["a_failures"] == {"A": 0, "B": 0}
    assert state["match_over"] is False


def test_the_same_key_twice_records_once_and_says_it_was_not_created(people):
    referee, _chief = people
    table = tables(first_round("nantong-2014")[0])[0]
    table, text, created = deal(table, "AABB", referee, key="phone-1", expected_version=0)
    before = snapshot()
    # The phone resends after a dropped connection, with the version it had then.
    again, text_again, created_again = deal(
        table, "AABB", referee, key="phone-1", expected_version=0
    )
    assert created is True and created_again is False
    assert text_again == text
    assert TableEvent.objects.filter(table=table).count() == 1
    assert snapshot() == before
    assert again.state["levels"] == {"A": "5", "B": "2"}


def test_a_stale_version_is_refused_and_nothing_changes(people):
    referee, _chief = people
    table = tables(first_round("nantong-2014")[0])[0]
    deal(table, "AABB", referee, expected_version=0)
    before = snapshot()
    with pytest.raises(TableError) as err:
        deal(table, "BBAA", referee, expected_version=0)
    assert err.value.code == "stale"
    assert "刷新" in err.value.message
    assert snapshot() == before
    with pytest.raises(TableError) as err:
        undo_last(table=table, user=referee, expected_version=0)
    assert err.value.code == "stale"
    assert snapshot() == before


def test_an_invalid_deal_is_refused_and_nothing_is_saved(people):
    referee, _chief = people
    table = tables(first_round("nantong-2014")[0])[0]
    before = snapshot()
    with pytest.raises(TableError) as err:
        deal(table, "AAAB", referee)
    assert err.value.code == "invalid_order"
    assert err.value.message  # a sentence for the referee
    assert snapshot() == before
    assert fresh(table).version == 0


def test_an_event_without_a_key_is_refused(people):
    referee, _chief = people
    table = tables(first_round("nantong-2014")[0])[0]
    with pytest.raises(TableError) as err:
        record_event(table=table, event={"order": list("AABB")}, user=referee, key=" ")
    assert err.value.code == "no_key"
    assert not TableEvent.objects.exists()


def test_undo_marks_the_last_event_undone_keeps_it_and_replays_the_rest(people):
    referee, _chief = people
    table = tables(first_round("nantong-2014")[0])[0]
    deal(table, "AABB", referee)
    after_first = fresh(table).state
    deal(table, "BBAA", referee)
    table = undo_last(table=table, user=referee)
    assert table.state == after_first
    events = list(TableEvent.objects.filter(table=table).order_by("seq"))
    assert len(events) == 2
    assert events[0].undone_at is None
    assert events[1].undone_at is not None and events[1].undone_by == referee
    assert [e.payload for e in active_events(table)] == [{"order": list("AABB")}]

    undo_last(table=table, user=referee)
    assert fresh(table).state["levels"] == {"A": "2", "B": "2"}
    with pytest.raises(TableError) as err:
        undo_last(table=table, user=referee)
    assert err.value.code == "nothing_to_undo"
    assert TableEvent.objects.filter(table=table).count() == 2


def test_submit_is_refused_before_the_match_is_over(people):
    referee, _chief = people
    table = tables(first_round("nantong-2014")[0])[0]
    deal(table, "AABB", referee)
    before = snapshot()
    with pytest.raises(TableError) as err:
        submit_table(table=table, user=referee)
    assert err.value.code == "not_over"
    assert snapshot() == before


def test_after_submission_nothing_more_is_recorded_or_undone(people):
    referee, _chief = people
    table = tables(first_round("nantong-2014")[0])[0]
    play_out(table, "A", referee)
    table = submit_table(table=table, user=referee)
    assert table.status == TableMatch.Status.SUBMITTED
    assert table.submitted_by == referee and table.submitted_at is not None
    before = snapshot()
    for attempt in (
        lambda: deal(table, "AABB", referee),
        lambda: record(table, {"penalty": {"team": "A", "levels": 2}}, referee),
        lambda: undo_last(table=table, user=referee),
        lambda: submit_table(table=table, user=referee),
    ):
        with pytest.raises(TableError) as err:
            attempt()
        assert err.value.code == "closed"
    assert snapshot() == before


def test_the_submitter_cannot_confirm_but_another_official_can(people):
    referee, chief = people
    table = tables(first_round("nantong-2014")[0])[0]
    with pytest.raises(TableError) as err:
        confirm_table(table=table, user=chief)
    assert err.value.code == "not_submitted"
    play_out(table, "A", referee)
    submit_table(table=table, user=referee)
    before = snapshot()
    with pytest.raises(TableError) as err:
        confirm_table(table=table, user=referee)
    assert err.value.code == "same_person"
    assert snapshot() == before

    table = confirm_table(table=table, user=chief)
    assert table.status == TableMatch.Status.CONFIRMED
    assert table.confirmed_by == chief and table.confirmed_at is not None
    with pytest.raises(TableError) as err:
        confirm_table(table=table, user=chief)
    assert err.value.code == "not_submitted"


# --------------------------------------------------------------------------- ties


def test_a_nantong_tie_is_decided_by_two_confirmed_tables_and_the_third_updates_the_score(
    people,
):
    referee, chief = people
    match = first_round("nantong-2014")[0]
    t1, t2, t3 = tables(match)
    assert (t1.home_pair.entry_id, t1.away_pair.entry_id) == (match.home_id, match.away_id)
    assert [t.home_pair.number for t in (t1, t2, t3)] == [1, 2, 3]
    nxt, side = match.winner_to, match.winner_to_side

    win_table(t1, "A", referee, chief)
    match = fresh(match)
    assert not match.is_decided
    assert getattr(fresh(nxt), f"{side}_id") is None

    # A submitted but unconfirmed table does not count.
    play_out(t2, "A", referee)
    submit_table(table=t2, user=referee)
    assert not fresh(match).is_decided

    confirm_table(table=t2, user=chief)
    match = fresh(match)
    assert match.status == Match.Status.FINISHED
    assert match.winner == Match.Side.HOME
    assert (match.home_score, match.away_score) == (2, 0)
    assert getattr(fresh(nxt), f"{side}_id") == match.home_id
    assert AuditEntry.objects.filter(action="tie_decided", match=match).count() == 1

    # The third table stops where it was (不再进行): nothing more is recorded on it, and the
    # tie and its round are no longer in play.
    t3 = fresh(t3)
    assert t3.status == TableMatch.Status.NOT_PLAYED
    with pytest.raises(TableError) as err:
        deal(t3, "AABB", referee, expected_version=t3.version)
    assert err.value.code == "not_played" and "不再进行" in err.value.message
    assert AuditEntry.objects.filter(action="not_played", table=t3).count() == 1
    assert (fresh(match).home_score, fresh(match).away_score) == (2, 0)


def test_where_the_rules_play_every_table_out_the_third_updates_the_score(people):
    referee, chief = people
    match = first_round("nantong-2014")[0]
    play_every_table(match)
    t1, t2, t3 = tables(match)
    win_table(t1, "A", referee, chief)
    win_table(t2, "A", referee, chief)
    assert fresh(t3).status == TableMatch.Status.OPEN
    win_table(t3, "B", referee, chief)
    match = fresh(match)
    assert match.winner == Match.Side.HOME
    assert (match.home_score, match.away_score) == (2, 1)


def test_a_nantong_tie_won_on_all_three_tables_is_three_nil(people):
    referee, chief = people
    match = first_round("nantong-2014")[1]
    play_every_table(match)
    for table in tables(match):
        win_table(table, "B", referee, chief)
    match = fresh(match)
    assert match.winner == Match.Side.AWAY
    assert (match.home_score, match.away_score) == (0, 3)
    assert getattr(fresh(match.winner_to), f"{match.winner_to_side}_id") == match.away_id


def test_when_both_first_round_ties_are_decided_the_next_tie_gets_its_tables(people):
    referee, chief = people
    qf1, qf2 = first_round("nantong-2014")[:2]
    assert qf1.winner_to_id == qf2.winner_to_id
    semi = qf1.winner_to
    assert tables(semi) == []
    win_tie(qf1, "A", referee, chief)
    win_tie(qf2, "B", referee, chief)
    semi = fresh(semi)
    made = tables(semi)
    assert len(made) == 3
    assert {t.home_pair.entry_id for t in made} == {semi.home_id}
    assert {t.away_pair.entry_id for t in made} == {semi.away_id}
    assert all(t.status == TableMatch.Status.OPEN and t.version == 0 for t in made)


# --------------------------------------------------------------------------- penalties


@pytest.mark.parametrize(
    "penalty, levels_after, over",
    [
        ({"team": "A", "levels": 2}, {"A": "3", "B": "2"}, False),  # 5 - 2
        ({"team": "A", "levels": 10}, {"A": "2", "B": "2"}, False),  # never below 2
        ({"team": "A", "kind": "back_to_2"}, {"A": "2", "B": "2"}, False),
        ({"team": "A", "kind": "disqualify"}, {"A": "5", "B": "2"}, True),
    ],
    ids=["levels-2", "levels-10", "back_to_2", "disqualify"],
)
def test_every_penalty_kind_is_recorded_through_record_event(people, penalty, levels_after, over):
    referee, _chief = people
    table = tables(first_round("nantong-2014")[0])[0]
    deal(table, "AABB", referee)  # A 2→5, declarer A
    table, text, created = record(
        table, {"penalty": penalty}, referee, reason="拖延时间", reported_by="B队"
    )
    assert created
    assert text
    table = fresh(table)
    assert table.state["levels"] == levels_after
    event = table.events.order_by("seq").last()
    assert event.payload == {"penalty": penalty}
    assert (event.reason, event.reported_by) == ("拖延时间", "B队")
    if over:
        assert table.state["match_over"] is True
        assert (table.winner, table.state["decided_by"]) == ("B", "disqualification")
    else:
        # Spec 8: a penalty never changes the declarer.
        assert table.state["declarer"] == "A"
        assert table.state["match_over"] is False


def test_a_penalty_of_zero_levels_is_refused(people):
    referee, _chief = people
    table = tables(first_round("nantong-2014")[0])[0]
    with pytest.raises(TableError) as err:
        record(table, {"penalty": {"team": "A", "levels": 0}}, referee)
    assert err.value.code == "invalid_event"
    assert not TableEvent.objects.exists()


# --------------------------------------------------------------------------- forfeits


def _play_anhui_to_the_semi_finals(referee, chief) -> tuple[Match, Match, Match]:
    event = guandan("anhui-2021")
    for number in (1, 2):
        for match in Match.objects.filter(round__stage__event=event, round__number=number):
            match = fresh(match)
            if not match.is_decided:
                win_tie(match, "A", referee, chief)
    semis = list(Match.objects.filter(round__stage__event=event, round__number=3).order_by("index"))
    third = Match.objects.get(round__stage__event=event, is_third_place=True)
    return semis[0], semis[1], third


def test_an_anhui_forfeit_ends_the_pairs_event_and_its_next_opponent_gets_a_walkover(people):
    referee, chief = people
    semi1, semi2, third = _play_anhui_to_the_semi_finals(referee, chief)
    assert semi1.loser_to_id == third.pk == semi2.loser_to_id
    forfeiting = semi1.home
    table = tables(semi1)[0]
    record(table, {"forfeit": {"team": "A", "reason": "stoppage_over_5_min"}}, referee)
    submit_table(table=table, user=referee)
    # Not yet confirmed: the entry is still in the event.
    assert fresh(forfeiting).status == Entry.Status.REGISTERED
    confirm_table(table=table, user=chief)

    forfeiting = fresh(forfeiting)
    assert forfeiting.status == Entry.Status.ELIMINATED
    assert forfeiting.status_reason
    semi1 = fresh(semi1)
    assert semi1.winner == Match.Side.AWAY
    assert getattr(fresh(third), f"{semi1.loser_to_side}_id") == forfeiting.pk

    win_tie(semi2, "A", referee, chief)
    semi2 = fresh(semi2)
    third = fresh(third)
    # The other semi-final's loser is not paired with the forfeited pair: a walkover.
    assert third.status == Match.Status.WALKOVER
    assert third.entry(third.winner) == semi2.loser_entry
    assert third.loser_entry == forfeiting


def test_an_anhui_disqualification_ends_the_pairs_event_and_gets_it_no_place(people):
    from tournaments.draw.selectors import placings

    referee, chief = people
    semi1, semi2, third = _play_anhui_to_the_semi_finals(referee, chief)
    disqualified = semi1.home
    table = tables(semi1)[0]
    record(table, {"penalty": {"team": "A", "kind": "disqualify"}}, referee, reason="与裁判争吵")
    submit_table(table=table, user=referee)
    confirm_table(table=table, user=chief)
    disqualified = fresh(disqualified)
    assert disqualified.status == Entry.Status.DISQUALIFIED
    assert "与裁判争吵" in disqualified.status_reason
    semi1 = fresh(semi1)
    assert semi1.winner == Match.Side.AWAY
    win_tie(semi2, "A", referee, chief)
    third = fresh(third)
    # The 季军争夺战 is no match with a deal pad: a walkover for the other semi-final's loser.
    assert third.status == Match.Status.WALKOVER
    assert third.entry(third.winner) == fresh(semi2).loser_entry
    win_tie(fresh(semi1.winner_to), "A", referee, chief)
    event = semi1.round.stage.event
    places = placings(event)
    assert [rank for rank, _e in places] == [1, 2, 3]
    assert disqualified.pk not in {e.pk for _r, e in places}
    assert disqualified.pk not in {e.pk for _r, e in placings(event, all_places=True)}


def test_a_walkover_tie_lists_no_pairs_as_missing(people):
    referee, chief = people
    semi1, semi2, third = _play_anhui_to_the_semi_finals(referee, chief)
    table = tables(semi1)[0]
    record(table, {"forfeit": {"team": "A", "reason": "withdrew"}}, referee)
    submit_table(table=table, user=referee)
    confirm_table(table=table, user=chief)
    win_tie(semi2, "A", referee, chief)
    assert fresh(third).status == Match.Status.WALKOVER
    missing = missing_pairs(third.round)
    assert [t.pk for t, _team, _pair in missing if t.match_id == third.pk] == []


def test_a_nantong_forfeit_loses_the_table_but_keeps_the_team_in_the_event(people):
    referee, chief = people
    match = first_round("nantong-2014")[0]
    t1 = tables(match)[0]
    record(t1, {"forfeit": {"team": "A", "reason": "late_over_10_min"}}, referee)
    submit_table(table=t1, user=referee)
    confirm_table(table=t1, user=chief)
    assert fresh(t1).winner == "B"
    assert fresh(match.home).status == Entry.Status.REGISTERED
    assert not fresh(match).is_decided


# --------------------------------------------------------------------------- the whistle


def test_the_nantong_whistle_lets_the_deal_in_progress_finish_then_time_is_up(people):
    referee, chief = people
    match = first_round("nantong-2014")[0]
    t1, t2, _t3 = tables(match)
    deal(t1, "ABBA", referee)  # A 2→3
    called = call_time(round=match.round, user=chief)
    # Every unfinished table of the round (4 ties × 3 tables), at the same moment.
    assert len(called) == 12
    moments = set(
        TableMatch.objects.filter(match__round=match.round).values_list("time_called_at", flat=True)
    )
    assert len(moments) == 1 and None not in moments
    assert TableEvent.objects.count() == 1  # nothing recorded yet under nantong rules
    assert AuditEntry.objects.filter(action="whistle").count() == 12

    # t1: B 上游, partner 末游 → 3:3, equal levels: the final deal's 上游 wins.
    table, text, _ = deal(t1, "BAAB", referee)
    table = fresh(table)
    assert [e.payload for e in active_events(table)] == [
        {"order": list("ABBA")},
        {"order": list("BAAB")},
        {"time_up": True},
    ]
    assert table.state["match_over"] is True
    assert (table.winner, table.state["decided_by"]) == ("B", "time_last_deal_top")
    assert "时间到" in text

    # t2: A 双上 → 5:2, the higher level wins.
    deal(t2, "AABB", referee)
    t2 = fresh(t2)
    assert (t2.winner, t2.state["decided_by"]) == ("A", "time_levels")

    # Undoing the deal takes its automatic time_up with it.
    undo_last(table=t2, user=referee)
    t2 = fresh(t2)
    assert t2.state["match_over"] is False and t2.state["time_up"] is False
    assert TableEvent.objects.filter(table=t2).count() == 2
    assert TableEvent.objects.filter(table=t2, undone_at__isnull=True).count() == 0

    # A second whistle does not call the same tables again.
    assert call_time(round=match.round, user=chief) == []


def test_after_the_nantong_whistle_a_deal_that_passes_a_wins_normally(people):
    referee, chief = people
    table = tables(first_round("nantong-2014")[0])[0]
    for _ in range(4):
        deal(table, "AABB", referee)  # 2→5→8→J→A
    assert fresh(table).state["levels"]["A"] == "A"
    call_time(round=table.match.round, user=chief)
    deal(table, "AABB", referee)  # A as declarer at A, partner 二游: passes A
    table = fresh(table)
    assert (table.winner, table.state["decided_by"]) == ("A", "passed_A")


def test_a_long_key_after_the_whistle_still_fits_the_key_column(people):
    referee, chief = people
    table = tables(first_round("nantong-2014")[0])[0]
    call_time(round=table.match.round, user=chief)
    deal(table, "AABB", referee, key="k" * 58)
    keys = list(TableEvent.objects.filter(table=table).values_list("key", flat=True))
    assert keys == ["k" * 58, "k" * 58 + ":time"]


def test_keys_are_kept_whole_and_a_key_too_long_is_refused_not_cut(people):
    referee, _chief = people
    table = tables(first_round("nantong-2014")[0])[0]
    # Two long keys sharing a 57-character prefix are two submissions, not one.
    deal(table, "AABB", referee, key="p" * 57 + "1")
    deal(table, "BBAA", referee, key="p" * 57 + "2")
    assert TableEvent.objects.filter(table=table).count() == 2
    with pytest.raises(TableError) as err:
        deal(table, "AABB", referee, key="p" * 59)
    assert err.value.code == "key_too_long" and "提交标识太长" in err.value.message
    assert TableEvent.objects.filter(table=table).count() == 2


@pytest.mark.parametrize("version", [-1, True, "3", 1.5])
def test_an_invalid_version_is_refused_not_taken_as_no_check(people, version):
    referee, _chief = people
    table = tables(first_round("nantong-2014")[0])[0]
    with pytest.raises(TableError) as err:
        record_event(
            table=table,
            event={"order": list("AABB")},
            user=referee,
            key="k",
            expected_version=version,
        )
    assert err.value.code == "invalid_version"
    assert not TableEvent.objects.filter(table=table).exists()


def test_the_anhui_whistle_records_time_up_at_once_and_sudden_death_follows(people):
    referee, chief = people
    matches = first_round("anhui-2021")
    done, playing = tables(matches[0])[0], tables(matches[1])[0]
    play_out(done, "A", referee)  # already over: not called
    deal(playing, "AABB", referee)  # 2→7, then discarded by the whistle
    version = fresh(playing).version

    called = call_time(round=matches[0].round, user=chief)
    assert done.pk not in {t.pk for t in called}
    assert playing.pk in {t.pk for t in called}
    assert len(called) == len(matches) - 1
    assert fresh(done).time_called_at is None

    playing = fresh(playing)
    assert playing.version == version + 1
    assert [e.payload for e in active_events(playing)][-1] == {"time_up": True}
    assert playing.state["sudden_death"] is True
    assert playing.state["time_up"] is True
    assert playing.state["levels"] == {"A": "A", "B": "A"}
    assert playing.state["declarer"] is None

    # Each further deal is a whole game won by its 上游.
    deal(playing, "BAAB", referee)
    deal(playing, "BABA", referee)
    playing = fresh(playing)
    assert playing.state["games_won"] == {"A": 0, "B": 2}
    assert (playing.winner, playing.state["decided_by"]) == ("B", "games")

    # Calling again records nothing twice.
    count = TableEvent.objects.count()
    assert call_time(round=matches[0].round, user=chief) == []
    assert TableEvent.objects.count() == count


# --------------------------------------------------------------------------- check-in


def test_check_in_then_forfeit_missing_records_forfeits_for_absent_pairs_only(people):
    referee, chief = people
    matches = first_round("nantong-2014")
    rnd = matches[0].round
    all_tables = list(
        TableMatch.objects.filter(match__round=rnd).order_by("match__index", "number")
    )
    assert len(all_tables) == 12
    absent_one = (all_tables[0], "A")  # one pair missing: forfeit
    both_absent = all_tables[4]  # both pairs missing: left to the chief referee
    for table in all_tables:
        for team, pair in (("A", table.home_pair), ("B", table.away_pair)):
            if (table, team) == absent_one or table == both_absent:
                continue
            check_in(match=table.match, pair=pair, user=referee)
    # Checking in twice keeps one row.
    check_in(match=all_tables[1].match, pair=all_tables[1].home_pair, user=referee)
    assert CheckIn.objects.count() == 24 - 3

    missing = missing_pairs(rnd)
    assert {(t.pk, team) for t, team, _p in missing} == {
        (all_tables[0].pk, "A"),
        (both_absent.pk, "A"),
        (both_absent.pk, "B"),
    }

    assert forfeit_missing(round=rnd, user=chief) == 1
    late = fresh(all_tables[0])
    assert late.state["decided_by"] == "forfeit" and late.winner == "B"
    event = late.events.get()
    assert event.payload == {"forfeit": {"team": "A", "reason": "late_over_10_min"}}
    assert event.created_by == chief
    assert not TableEvent.objects.exclude(table=late).exists()

    # Done once: a second call records nothing more.
    assert forfeit_missing(round=rnd, user=chief) == 0
    assert TableEvent.objects.count() == 1


def test_a_pair_cannot_check_in_for_a_tie_it_does_not_play(people):
    referee, _chief = people
    m1, m2 = first_round("nantong-2014")[:2]
    stranger = tables(m2)[0].home_pair
    with pytest.raises(TableError) as err:
        check_in(match=m1, pair=stranger, user=referee)
    assert err.value.code == "not_in_match"
    assert not CheckIn.objects.exists()


# --------------------------------------------------------------------------- reports


def test_three_upheld_reports_lead_to_a_two_level_deduction_linked_to_them(people):
    referee, chief = people
    table = tables(first_round("nantong-2014")[0])[0]
    deal(table, "AABB", referee)  # A at 5
    reports = [
        add_report(table=table, team="A", description=f"违规{n}", reported_by="B队", user=referee)
        for n in range(4)
    ]
    assert rule_report(report=reports[0], upheld=True, user=chief) == 1
    assert rule_report(report=reports[1], upheld=False, user=chief) == 1
    assert rule_report(report=reports[2], upheld=True, user=chief) == 2
    with pytest.raises(TableError) as err:
        apply_report_deduction(table=table, team="A", user=chief, key="ded-early")
    assert err.value.code == "not_enough_reports"
    assert rule_report(report=reports[3], upheld=True, user=chief) == 3
    assert pending_upheld(table, "A") == 3
    assert pending_upheld(table, "B") == 0

    table = apply_report_deduction(table=table, team="A", user=chief, key="ded-1")
    assert table.state["levels"] == {"A": "3", "B": "2"}
    penalty = TableEvent.objects.get(table=table, key="ded-1")
    assert penalty.payload == {"penalty": {"team": "A", "levels": 2}}
    assert penalty.reason
    upheld = {r.pk for r in (reports[0], reports[2], reports[3])}
    assert set(Report.objects.filter(penalty=penalty).values_list("pk", flat=True)) == upheld
    assert fresh(reports[1]).penalty is None
    assert pending_upheld(table, "A") == 0


def test_fewer_than_three_upheld_reports_give_no_deduction(people):
    referee, chief = people
    table = tables(first_round("anhui-2021")[0])[0]
    for n in range(2):
        report = add_report(table=table, team="B", description=f"违规{n}", user=referee)
        rule_report(report=report, upheld=True, user=chief)
    before = snapshot()
    with pytest.raises(TableError) as err:
        apply_report_deduction(table=table, team="B", user=chief, key="ded")
    assert err.value.code == "not_enough_reports"
    assert snapshot() == before


def test_a_report_needs_a_side_and_a_description(people):
    referee, _chief = people
    table = tables(first_round("nantong-2014")[0])[0]
    with pytest.raises(TableError) as err:
        add_report(table=table, team="C", description="x", user=referee)
    assert err.value.code == "invalid_team"
    with pytest.raises(TableError) as err:
        add_report(table=table, team="A", description="   ", user=referee)
    assert err.value.code == "no_description"
    assert not Report.objects.exists()


def test_resending_a_report_deduction_with_the_same_key_is_answered_as_already_done(people):
    referee, chief = people
    table = tables(first_round("nantong-2014")[0])[0]
    deal(table, "AABB", referee)
    for n in range(3):
        report = add_report(table=table, team="A", description=f"违规{n}", user=referee)
        rule_report(report=report, upheld=True, user=chief)
    apply_report_deduction(table=table, team="A", user=chief, key="ded-1")
    apply_report_deduction(table=table, team="A", user=chief, key="ded-1")
    assert TableEvent.objects.filter(table=table, key="ded-1").count() == 1


# --------------------------------------------------------------------------- corrections


def test_a_correction_after_confirmation_re_derives_the_tie_and_the_next_tie(people):
    referee, chief = people
    qf1, qf2 = first_round("nantong-2014")[:2]
    play_every_table(qf1)
    t1, t2, t3 = tables(qf1)
    win_table(t1, "A", referee, chief)
    win_table(t2, "A", referee, chief)
    win_table(t3, "B", referee, chief)
    win_tie(qf2, "A", referee, chief)
    qf1 = fresh(qf1)
    semi = fresh(qf1.winner_to)
    side = qf1.winner_to_side
    assert getattr(semi, f"{side}_id") == qf1.home_id
    assert (qf1.home_score, qf1.away_score) == (2, 1)
    count = TableEvent.objects.count()

    table = correct_table(
        table=t1,
        events=[{"order": list("BBAA")}, {"time_up": True}],
        reason="记分表与录入不符",
        user=chief,
    )
    assert table.winner == "B"
    # The second person, always: the corrected result is the chief's, submitted in their
    # name; they may not confirm it themselves, another official does.
    assert table.status == TableMatch.Status.SUBMITTED and table.submitted_by == chief
    with pytest.raises(TableError):
        confirm_table(table=table, user=chief)
    table = confirm_table(table=table, user=referee)
    assert table.status == TableMatch.Status.CONFIRMED
    # The old record is kept, marked undone; the new one is appended.
    assert TableEvent.objects.count() == count + 2
    assert [e.payload for e in active_events(table)] == [
        {"order": list("BBAA")},
        {"time_up": True},
    ]
    assert table.events.filter(undone_at__isnull=False).count() == 2
    qf1 = fresh(qf1)
    assert qf1.winner == Match.Side.AWAY
    assert (qf1.home_score, qf1.away_score) == (1, 2)
    semi = fresh(semi)
    assert getattr(semi, f"{side}_id") == qf1.away_id
    assert semi.needs_review is False
    # The semi-final had not started: its tables now seat the new winner's pairs.
    assert {t.home_pair.entry_id for t in tables(semi)} == {qf1.away_id}
    assert len(tables(semi)) == 3
    audit = AuditEntry.objects.get(action="correct")
    assert (audit.actor, audit.reason, audit.table_id) == (chief, "记分表与录入不符", t1.pk)
    assert audit.before["winner"] == "A" and audit.after["winner"] == "B"
    # Reopened by the correction until a second official confirmed it, then decided again.
    assert AuditEntry.objects.filter(action="tie_reopened", match=qf1).exists()
    assert AuditEntry.objects.filter(action="tie_decided", match=qf1).count() == 2


def test_a_correction_that_undecides_a_two_nil_tie_reopens_its_stopped_table(people):
    referee, chief = people
    match = first_round("nantong-2014")[0]
    t1, t2, t3 = tables(match)
    win_table(t1, "A", referee, chief)
    win_table(t2, "A", referee, chief)
    assert fresh(t3).status == TableMatch.Status.NOT_PLAYED
    correct_table(
        table=t1,
        events=[{"order": list("BBAA")}, {"time_up": True}],
        reason="记分表与录入不符",
        user=chief,
    )
    confirm_table(table=t1, user=referee)  # a second official confirms the correction
    assert not fresh(match).is_decided
    t3 = fresh(t3)
    assert t3.status == TableMatch.Status.OPEN
    assert AuditEntry.objects.filter(action="resumed", table=t3).count() == 1
    # It is played on, and decides the tie.
    win_table(t3, "B", referee, chief)
    match = fresh(match)
    assert match.winner == Match.Side.AWAY and (match.home_score, match.away_score) == (1, 2)


def _decide_a_semi_final_then_correct_its_first_feeder(referee, chief):
    """QF1 2:1 (home, decided on its third table), QF2, the semi-final played; then QF1's
    first table is corrected to a forfeit by the home pair: QF1 becomes 1:2 (away)."""
    qf1, qf2 = first_round("nantong-2014")[:2]
    for table, side in zip(tables(qf1), "ABA", strict=True):
        win_table(table, side, referee, chief)
    win_tie(qf2, "A", referee, chief)
    qf1 = fresh(qf1)
    semi = win_tie(fresh(qf1.winner_to), "A", referee, chief)
    assert semi.is_decided
    final = fresh(semi.winner_to)
    before = {
        "semi": (semi.home_id, semi.away_id, semi.winner),
        "final": (final.home_id, final.away_id),
    }
    correct_table(
        table=tables(qf1)[0],
        events=[{"forfeit": {"team": "A", "reason": "late_over_10_min"}}],
        reason="迟到未按时判负",
        user=chief,
    )
    confirm_table(table=tables(qf1)[0], user=referee)
    return fresh(qf1), fresh(semi), fresh(final), before


def test_a_correction_flags_a_next_tie_already_decided_for_review(people):
    referee, chief = people
    qf1, semi, _final, _before = _decide_a_semi_final_then_correct_its_first_feeder(referee, chief)
    assert qf1.winner == Match.Side.AWAY
    assert (qf1.home_score, qf1.away_score) == (1, 2)
    assert semi.needs_review is True
    assert qf1.away.name in semi.review_note
    assert semi.is_decided


def test_a_flagged_tie_is_under_review_on_the_bracket_and_in_its_json(people, client):
    from django.urls import reverse

    referee, chief = people
    _qf1, semi, _final, _before = _decide_a_semi_final_then_correct_its_first_feeder(referee, chief)
    args = ["nantong-2014", "guandan"]
    data = client.get(reverse("live:bracket-json", args=args)).json()
    flags = {
        m["id"]: m["under_review"]
        for stage in data["stages"]
        for rnd in stage["rounds"]
        for m in rnd["matches"]
    }
    assert flags[semi.pk] is True and sum(flags.values()) == 1
    card = client.get(reverse("live:bracket", args=args)).content.decode()
    card = card[card.index(f'id="match-{semi.pk}"') :].split("</li>")[0]
    assert "待复核" in card


def test_the_chief_keeps_a_flagged_tie_with_a_ruling_that_results_pdf_prints(people):
    from scoring.services.desk import keep_with_ruling
    from tournaments.documents.build import results_context

    referee, chief = people
    _qf1, semi, _final, _before = _decide_a_semi_final_then_correct_its_first_feeder(referee, chief)
    assert semi.needs_review
    with pytest.raises(TableError) as err:
        keep_with_ruling(match=semi, reason=" ", user=chief)
    assert err.value.code == "no_reason" and fresh(semi).needs_review
    keep_with_ruling(match=semi, reason="半决赛已按原对阵赛完，维持原结果", user=chief)
    semi = fresh(semi)
    assert not semi.needs_review and semi.review_note == ""
    ruling = AuditEntry.objects.get(match=semi, action="ruling")
    assert ruling.actor == chief and ruling.reason == "半决赛已按原对阵赛完，维持原结果"
    event = semi.round.stage.event
    item = next(e for e in results_context(event.tournament)["events"] if e["event"] == event)
    assert [r.pk for r in item["rulings"]] == [ruling.pk]
    with pytest.raises(TableError) as err:
        keep_with_ruling(match=semi, reason="再次", user=chief)
    assert err.value.code == "not_flagged"


def test_a_correction_keeps_the_record_of_a_next_tie_already_played(people):
    referee, chief = people
    _qf1, semi, final, before = _decide_a_semi_final_then_correct_its_first_feeder(referee, chief)
    assert (semi.home_id, semi.away_id, semi.winner) == before["semi"]
    assert (final.home_id, final.away_id) == before["final"]


def test_a_correction_needs_a_reason_and_a_valid_record(people):
    referee, chief = people
    table = tables(first_round("nantong-2014")[0])[0]
    win_table(table, "A", referee, chief)
    before = snapshot()
    for reason in ("", "   "):
        with pytest.raises(TableError) as err:
            correct_table(
                table=table, events=[{"forfeit": {"team": "A"}}], reason=reason, user=chief
            )
        assert err.value.code == "no_reason"
    with pytest.raises(TableError) as err:
        correct_table(
            table=table,
            events=[{"order": list("AABB")}, {"order": list("AAAB")}],
            reason="r",
            user=chief,
        )
    assert err.value.code == "invalid_order"
    assert err.value.event_index == 1
    assert snapshot() == before


def test_a_correction_with_the_same_winner_leaves_the_tie_alone(people):
    referee, chief = people
    match = first_round("nantong-2014")[0]
    t1, t2, _t3 = tables(match)
    win_table(t1, "A", referee, chief)
    win_table(t2, "A", referee, chief)
    correct_table(
        table=t1, events=[{"order": list("ABBA")}, {"time_up": True}], reason="级数记错", user=chief
    )
    match = fresh(match)
    assert (match.winner, match.home_score, match.away_score) == (Match.Side.HOME, 2, 0)
    assert fresh(t1).state["levels"] == {"A": "3", "B": "2"}
    assert not AuditEntry.objects.filter(action="tie_corrected").exists()


def test_a_correction_to_one_all_reopens_the_tie_until_the_third_table_decides_it(people):
    referee, chief = people
    match = first_round("nantong-2014")[0]
    t1, t2, t3 = tables(match)
    win_table(t1, "A", referee, chief)
    win_table(t2, "A", referee, chief)
    correct_table(
        table=t1, events=[{"order": list("BBAA")}, {"time_up": True}], reason="记错", user=chief
    )
    confirm_table(table=t1, user=referee)
    win_table(t3, "B", referee, chief)
    match = fresh(match)
    assert match.winner == Match.Side.AWAY
    assert (match.home_score, match.away_score) == (1, 2)
    assert getattr(fresh(match.winner_to), f"{match.winner_to_side}_id") == match.away_id


def test_a_correction_in_an_undecided_tie_leaves_it_undecided(people):
    referee, chief = people
    match = first_round("nantong-2014")[0]
    t1 = tables(match)[0]
    win_table(t1, "A", referee, chief)
    assert not fresh(match).is_decided
    correct_table(
        table=t1, events=[{"order": list("BBAA")}, {"time_up": True}], reason="记错", user=chief
    )
    # Until a second official confirms the corrected table, it counts for neither side.
    assert (fresh(match).home_score, fresh(match).away_score) == (0, 0)
    confirm_table(table=t1, user=referee)
    match = fresh(match)
    assert not match.is_decided
    assert (match.home_score, match.away_score) == (0, 1)


def test_correcting_a_submitted_table_to_an_unfinished_record_reopens_it(people):
    referee, chief = people
    table = tables(first_round("anhui-2021")[0])[0]
    record(table, {"forfeit": {"team": "A", "reason": "withdrew"}}, referee)
    submit_table(table=table, user=referee)
    correct_table(table=table, events=[{"order": list("AABB")}], reason="误判弃权", user=chief)
    assert fresh(table).status == TableMatch.Status.OPEN
    with pytest.raises(TableError):
        confirm_table(table=table, user=chief)


def test_reopening_a_confirmed_table_by_correction_re_derives_the_tie(people):
    referee, chief = people
    match = first_round("nantong-2014")[0]
    t1, t2, t3 = tables(match)
    win_table(t1, "A", referee, chief)
    win_table(t2, "A", referee, chief)
    table = correct_table(table=t1, events=[{"order": list("BBAA")}], reason="还没打完", user=chief)
    assert table.status == TableMatch.Status.OPEN
    record(table, {"time_up": True}, referee)
    submit_table(table=table, user=referee)
    # The chief entered the corrected record: a second official confirms it.
    with pytest.raises(TableError) as err:
        confirm_table(table=table, user=chief)
    assert err.value.code == "same_person"
    second = get_user_model().objects.create_user("second-referee")
    Official.objects.create(
        tournament=match.round.stage.event.tournament,
        name="裁判乙",
        role=Official.Role.REFEREE,
        user=second,
    )
    confirm_table(table=table, user=second)
    win_table(t3, "B", referee, chief)
    match = fresh(match)
    assert (match.home_score, match.away_score) == (1, 2)
    assert match.winner == Match.Side.AWAY


# --------------------------------------------------------------------------- audit


def test_every_action_is_audited_and_no_table_event_is_ever_deleted(
    people, no_event_is_ever_deleted
):
    referee, chief = people
    match = first_round("nantong-2014")[0]
    t1, t2, t3 = tables(match)
    counts = []

    def step(action):
        action()
        counts.append(TableEvent.objects.count())

    step(lambda: win_table(t2, "A", referee, chief))
    step(lambda: win_table(t3, "B", referee, chief))
    step(lambda: check_in(match=match, pair=t1.home_pair, user=referee))
    step(lambda: deal(t1, "AABB", referee))
    step(lambda: deal(t1, "BBAA", referee))
    step(lambda: undo_last(table=t1, user=referee))
    step(lambda: record(t1, {"penalty": {"team": "A", "levels": 1}}, referee, reason="拖延"))
    step(lambda: add_report(table=t1, team="B", description="说话", user=referee))
    step(lambda: rule_report(report=Report.objects.get(table=t1), upheld=False, user=chief))
    step(lambda: call_time(round=match.round, user=chief))
    step(lambda: deal(t1, "AABB", referee))  # A 4→7 against 2, and time is up
    step(lambda: submit_table(table=t1, user=referee))
    step(lambda: confirm_table(table=t1, user=chief))  # the tie: 2:1
    step(
        lambda: correct_table(
            table=t1,
            events=[{"order": list("BBAA")}, {"time_up": True}],
            reason="更正胜方",
            user=chief,
        )
    )
    step(lambda: confirm_table(table=t1, user=referee))  # a second official: the tie 1:2
    assert counts == sorted(counts)
    assert fresh(match).winner == Match.Side.AWAY

    audit = list(AuditEntry.objects.filter(table=t1).order_by("created_at", "id"))
    assert [a.action for a in audit] == [
        "event",
        "event",
        "undo",
        "event",
        "report",
        "report_ruling",
        "whistle",
        "event",
        "submit",
        "confirm",
        "correct",
        "confirm",
    ]
    by_action = {a.action: a for a in audit if a.action != "confirm" or a.actor == chief}
    assert by_action["event"].actor == referee
    assert by_action["whistle"].actor == chief
    assert by_action["confirm"].actor == chief
    assert by_action["submit"].actor == referee
    assert by_action["submit"].after["winner"] == "A"
    first_event, undo = audit[0], audit[2]
    assert first_event.before["levels"] == {"A": "2", "B": "2"}
    assert first_event.after["levels"] == {"A": "5", "B": "2"}
    assert undo.before["levels"] == {"A": "5", "B": "5"}
    assert undo.after["levels"] == {"A": "5", "B": "2"}
    assert by_action["correct"].reason == "更正胜方"
    assert by_action["correct"].before["winner"] == "A"
    assert by_action["correct"].after["winner"] == "B"
    tournament_id = match.round.stage.event.tournament_id
    assert all(a.tournament_id == tournament_id for a in audit)
    match_actions = set(
        AuditEntry.objects.filter(match=match, table__isnull=True).values_list("action", flat=True)
    )
    # Decided 2:1, reopened by the correction, decided 1:2 once a second official confirmed.
    assert match_actions == {"check_in", "tie_decided", "tie_reopened"}
    # Nothing deleted: every event ever recorded on t1 is still there, undone or not.
    assert TableEvent.objects.filter(table=t1).count() == 7
    assert TableEvent.objects.filter(table=t1, undone_at__isnull=True).count() == 2


# --------------------------------------------------------------------------- PostgreSQL

needs_postgresql = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="row locks (SELECT … FOR UPDATE) need PostgreSQL"
)


@needs_postgresql
def test_a_table_row_can_be_locked_on_postgresql(demo):
    # The lock joins the pairs (nullable: outer joins); PostgreSQL refuses FOR UPDATE on
    # the nullable side of an outer join unless only the table row is locked.
    table = tables(first_round("nantong-2014")[0])[0]
    assert locked(table).pk == table.pk
    table, _text, created = deal(table, "AABB")
    assert created and table.state["levels"] == {"A": "5", "B": "2"}


def _run_together(workers) -> list[BaseException]:
    """Run the callables in threads started at the same moment; each closes its own DB
    connection when done. Returns the exceptions raised."""
    barrier = threading.Barrier(len(workers))
    errors: list[BaseException] = []

    def run(work):
        try:
            barrier.wait(timeout=30)
            work()
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(w,)) for w in workers]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads)
    return errors


@needs_postgresql
@pytest.mark.django_db(transaction=True)
def test_two_devices_recording_on_one_table_at_once_lose_nothing(demo):
    table = tables(first_round("nantong-2014")[0])[0]
    n = 15
    # Partner 末游 deals never pass A under nantong rules: no deal can end the match.
    orders = {"A": list("ABBA"), "B": list("BAAB")}

    def device(side):
        def work():
            for i in range(n):
                record_event(
                    table=TableMatch.objects.get(pk=table.pk),
                    event={"order": orders[side]},
                    key=f"device-{side}-{i}",
                    expected_version=None,
                )

        return work

    assert _run_together([device("A"), device("B")]) == []
    table = fresh(table)
    events = list(TableEvent.objects.filter(table=table).order_by("seq"))
    assert len(events) == 2 * n
    assert [e.seq for e in events] == list(range(1, 2 * n + 1))
    assert len({e.key for e in events}) == 2 * n
    assert sum(e.payload == {"order": orders["A"]} for e in events) == n
    assert table.version == 2 * n
    rules = guandan("nantong-2014").scorer().rules
    state, _described = replay_table(table)
    assert state_to_full_dict(state, rules) == table.state
    assert table.state["deals_total"] == 2 * n


@needs_postgresql
@pytest.mark.django_db(transaction=True)
def test_the_same_key_from_two_threads_at_once_records_one_row(demo):
    table = tables(first_round("nantong-2014")[0])[0]
    for attempt in range(5):
        results = []

        def resend(attempt=attempt, results=results):
            _t, _text, created = record_event(
                table=TableMatch.objects.get(pk=table.pk),
                event={"order": list("ABBA")},
                key=f"same-{attempt}",
                expected_version=None,
            )
            results.append(created)

        assert _run_together([resend, resend]) == []
        assert sorted(results) == [False, True]
        assert TableEvent.objects.filter(table=table, key=f"same-{attempt}").count() == 1
    table = fresh(table)
    assert TableEvent.objects.filter(table=table).count() == 5
    assert table.version == 5
