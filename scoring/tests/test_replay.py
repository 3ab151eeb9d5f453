"""作废重赛 and what rests on a match under review: a semi-final corrected after the final
was played, on the Nantong demo knockout (eight teams, a 季军争夺战)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from scoring.models import AuditEntry, TableEvent, TableMatch
from scoring.services.common import TableError
from scoring.services.corrections import correct_table
from scoring.services.desk import keep_with_ruling, void_and_replay
from scoring.services.tables import confirm_table
from scoring.tests.test_services import win_tie
from scoring.tests.utils import first_round, fresh, guandan, tables
from tournaments.documents.build import results_context
from tournaments.draw.read import bracket_json, load_bracket
from tournaments.models import Match

SLUG = "nantong-2014"


def _play_whole_knockout(referee, chief):
    """Every home team wins: QFs, semis, the final and the 季军争夺战, each 2:0."""
    qfs = first_round(SLUG)
    for qf in qfs:
        win_tie(qf, "A", referee, chief)
    semis = sorted({fresh(qf).winner_to_id for qf in qfs})
    for pk in semis:
        win_tie(Match.objects.get(pk=pk), "A", referee, chief)
    semi = Match.objects.get(pk=semis[0])
    final, third = fresh(semi.winner_to), fresh(semi.loser_to)
    win_tie(final, "A", referee, chief)
    win_tie(third, "A", referee, chief)
    return [fresh(m) for m in qfs], [Match.objects.get(pk=pk) for pk in semis], final, third


def _turn_round_quarter_final(qf, referee, chief):
    """QF1's two won tables corrected to the away pairs' wins (a correction confirmed by a
    second official): QF1 now goes to the away team."""
    for table in tables(qf)[:2]:
        correct_table(
            table=table,
            events=[{"forfeit": {"team": "A", "reason": "late_over_10_min"}}],
            reason="记分表与录入不符",
            user=chief,
        )
        confirm_table(table=table, user=referee)
    return fresh(qf)


def _event_json():
    return bracket_json(load_bracket(guandan(SLUG)))


def _flags(data) -> dict[int, bool]:
    return {
        m["id"]: m["under_review"]
        for stage in data["stages"]
        for rnd in stage["rounds"]
        for m in rnd["matches"]
    }


def _podium(data) -> list[int]:
    """The places of bracket.json's placings the final and the 季军争夺战 decide (1st–4th);
    the quarter-finals' losers share 5th beside them."""
    assert all(p["rank"] == 5 for p in data["placings"] if p["rank"] > 4)
    return [p["rank"] for p in data["placings"] if p["rank"] <= 4]


def test_everything_resting_on_a_flagged_match_is_under_review_and_no_one_holds_its_places(
    people, client
):
    referee, chief = people
    qfs, semis, final, third = _play_whole_knockout(referee, chief)
    data = _event_json()
    assert _podium(data) == [1, 2, 3, 4]
    assert data["placings_under_review"] == []

    qf1 = _turn_round_quarter_final(qfs[0], referee, chief)
    assert qf1.winner == Match.Side.AWAY
    semi = fresh(semis[0])
    assert semi.needs_review and not fresh(final).needs_review
    data = _event_json()
    flags = _flags(data)
    # The flagged semi-final and the two matches played with its entries since.
    assert {pk for pk, flag in flags.items() if flag} == {semi.pk, final.pk, third.pk}
    assert _podium(data) == []  # the quarter-finals' 5th places stand
    assert data["placings_under_review"] == [1, 2, 3, 4]
    event = guandan(SLUG)
    item = next(e for e in results_context(event.tournament)["events"] if e["event"] == event)
    held = [row for row in item["rows"] if row["entry"] is None]
    assert [row["rank"] for row in held] == [1, 2, 3, 4]
    assert {row["prize"] for row in held} == {"待复核"}
    # The entries of the matches under review get no 纪念奖 meanwhile; no certificate either.
    named = {row["entry"].pk for row in item["rows"] if row["entry"] is not None}
    assert not named & {final.home_id, final.away_id, third.home_id, third.away_id}
    assert not [c for c in results_context(event.tournament)["certificates"] if c["event"] == event]
    # The places not resting on it stand (the other quarter-final losers share 5th), and the
    # entry the correction sends into the semi-final, which a review may still place, gets
    # no 纪念奖 meanwhile; the units' standings stay provisional.
    fifth = {row["entry"].pk for row in item["rows"] if row["rank"] == 5}
    assert fifth == {fresh(qf).loser_entry.pk for qf in qfs[1:]}
    assert qf1.winner_entry.pk not in {
        row["entry"].pk for row in item["rows"] if row["entry"] is not None
    }
    # The hall projector: the tree's three matches and the four places read 待复核.
    screen = client.get(reverse("live:screen", args=[SLUG, "guandan"])).content.decode()
    assert (
        screen.count('class="tree-match under-review')
        + screen.count('class="tree-match third under-review')
        == 3
    )
    placings = screen[screen.index('class="screen-placings"') :].split("</ol>")[0]
    assert placings.count("待复核") == 4
    # The bracket page's 名次 too.
    page = client.get(reverse("live:bracket", args=[SLUG, "guandan"])).content.decode()
    assert page[page.index('class="placing-list"') :].split("</ol>")[0].count("待复核") == 4
    from tournaments.standings.selectors import standings

    assert standings(event.tournament).final is False


def test_void_and_replay_puts_the_right_entries_in_keeps_the_record_and_flags_what_followed(
    people, no_event_is_ever_deleted
):
    referee, chief = people
    qfs, semis, final, third = _play_whole_knockout(referee, chief)
    qf1 = _turn_round_quarter_final(qfs[0], referee, chief)
    semi = fresh(semis[0])
    old_tables = [t.pk for t in tables(semi)]
    old_events = TableEvent.objects.filter(table__in=old_tables).count()
    assert old_events

    with pytest.raises(TableError) as err:
        void_and_replay(match=semi, reason="  ", user=chief)
    assert err.value.code == "no_reason" and fresh(semi).needs_review

    void_and_replay(match=semi, reason="半决赛对阵有误，作废重赛", user=chief)
    semi = fresh(semi)
    # The right entries: QF1's winner now, and QF2's.
    assert semi.status == Match.Status.PENDING and not semi.needs_review
    assert "重赛" in semi.review_note
    assert semi.home_id == qf1.winner_entry.pk and semi.away_id == fresh(qfs[1]).winner_entry.pk
    # New tables for them; the voided ones are kept with every event, out of the tie.
    new = tables(semi)
    assert len(new) == 3 and not {t.pk for t in new} & set(old_tables)
    assert {t.home_pair.entry_id for t in new} == {semi.home_id}
    assert all(t.status == TableMatch.Status.OPEN and not t.state.get("deals_total") for t in new)
    assert TableMatch.kept.filter(pk__in=old_tables, voided_at__isnull=False).count() == 3
    assert TableEvent.objects.filter(table__in=old_tables).count() == old_events
    replay = AuditEntry.objects.get(match=semi, action=AuditEntry.Action.REPLAY)
    assert replay.actor == chief and replay.reason == "半决赛对阵有误，作废重赛"
    assert "作废重赛" in replay.summary and qf1.winner_entry.name in replay.summary
    # What the voided semi-final had decided is taken back: the final and the 季军争夺战
    # were played with its entries, so they are flagged in turn (their records kept).
    assert fresh(final).needs_review and fresh(third).needs_review
    assert fresh(final).is_decided
    data = _event_json()
    assert _podium(data) == [] and data["placings_under_review"] == [1, 2, 3, 4]
    event = guandan(SLUG)
    item = next(e for e in results_context(event.tournament)["events"] if e["event"] == event)
    assert replay.pk in [r.pk for r in item["rulings"]]
    with pytest.raises(TableError) as err:
        void_and_replay(match=semi, reason="再次", user=chief)
    assert err.value.code == "not_flagged"

    # The replayed semi-final is played; the final and the third-place match are voided
    # and replayed by the right entries; the placings come back, each entry once.
    semi = win_tie(semi, "A", referee, chief)
    for match in (fresh(final), fresh(third)):
        if match.needs_review:
            void_and_replay(match=match, reason="按更正后的对阵重赛", user=chief)
    final, third = fresh(final), fresh(third)
    assert {final.home_id, final.away_id} == {
        semi.winner_entry.pk,
        fresh(semis[1]).winner_entry.pk,
    }
    assert semi.loser_entry.pk in (third.home_id, third.away_id)
    win_tie(final, "B", referee, chief)
    win_tie(third, "A", referee, chief)
    data = _event_json()
    assert data["placings_under_review"] == []
    ranks = [(p["rank"], p["entry_id"]) for p in data["placings"] if p["rank"] <= 4]
    assert [r for r, _e in ranks] == [1, 2, 3, 4]
    assert len({e for _r, e in ranks}) == 4
    final, third = fresh(final), fresh(third)
    assert ranks[0][1] == final.winner_entry.pk and ranks[2][1] == third.winner_entry.pk
    # 仲裁组说明 lists the rulings in the order they were made: the semi-final's first.
    item = next(e for e in results_context(event.tournament)["events"] if e["event"] == event)
    made = list(
        AuditEntry.objects.filter(action=AuditEntry.Action.REPLAY).order_by("created_at", "pk")
    )
    assert [r.pk for r in item["rulings"]] == [r.pk for r in made] and made[0].pk == replay.pk
    assert len(made) >= 2  # the semi-final's, then the final's (and the third's, if flagged)


def test_keeping_the_result_with_a_ruling_clears_what_rested_on_it(people):
    referee, chief = people
    qfs, semis, final, third = _play_whole_knockout(referee, chief)
    _turn_round_quarter_final(qfs[0], referee, chief)
    keep_with_ruling(match=fresh(semis[0]), reason="半决赛已赛完，维持原结果", user=chief)
    data = _event_json()
    assert not any(_flags(data).values())
    assert _podium(data) == [1, 2, 3, 4]


def test_an_old_table_page_leads_to_the_new_table_after_a_replay(people, client):
    referee, chief = people
    qfs, semis, _final, _third = _play_whole_knockout(referee, chief)
    _turn_round_quarter_final(qfs[0], referee, chief)
    semi = fresh(semis[0])
    old = tables(semi)[1]
    void_and_replay(match=semi, reason="作废重赛", user=chief)
    new = tables(semi)[1]
    url = reverse("scoring:table", args=[SLUG, "guandan", old.pk])
    response = client.get(url, follow=True)
    assert response.redirect_chain[-1][0] == reverse(
        "scoring:table", args=[SLUG, "guandan", new.pk]
    )
    assert "作废重赛" in response.content.decode()


def test_the_desk_offers_both_choices_and_refuses_a_replay_without_the_ticked_box(people, client):
    referee, chief = people
    qfs, semis, final, _third = _play_whole_knockout(referee, chief)
    _turn_round_quarter_final(qfs[0], referee, chief)
    semi = fresh(semis[0])
    client.force_login(chief)
    page = client.get(reverse("scoring:desk", args=[SLUG])).content.decode()
    block = page[page.index(f'id="review-{semi.pk}"') :].split("</li>")[0]
    assert "维持原结果" in block and "作废重赛" in block
    assert "决赛" in block  # what rests on it: the final played since
    url = reverse("scoring:replay", args=[SLUG, semi.pk])
    response = client.post(url, {"reason": "作废重赛"}, follow=True)
    assert "请先勾选" in response.content.decode()
    assert fresh(semi).needs_review and len(tables(semi)) == 3
    assert not TableMatch.kept.filter(voided_at__isnull=False).exists()
    response = client.post(url, {"reason": "", "confirm": "1"}, follow=True)
    assert "请写明裁决理由" in response.content.decode() and fresh(semi).needs_review
    response = client.post(url, {"reason": "对阵有误", "confirm": "1"}, follow=True)
    assert response.redirect_chain[-1][0] == reverse("live:match", args=[SLUG, "guandan", semi.pk])
    assert "重赛" in response.content.decode()
    assert fresh(semi).status == Match.Status.PENDING
    # The final played with the voided semi-final's winner now reads 待复核 on its page.
    page = client.get(reverse("live:match", args=[SLUG, "guandan", final.pk])).content.decode()
    assert "待复核" in page


def test_a_next_match_not_started_takes_the_right_entry_and_its_page_says_so(people, client):
    referee, chief = people
    qfs = first_round(SLUG)
    for qf in qfs[:2]:
        win_tie(qf, "A", referee, chief)
    semi = fresh(fresh(qfs[0]).winner_to)
    assert semi.status == Match.Status.PENDING and semi.home_id == fresh(qfs[0]).home_id
    qf1 = _turn_round_quarter_final(qfs[0], referee, chief)
    semi = fresh(semi)
    assert semi.home_id == qf1.away_id and not semi.needs_review
    page = client.get(reverse("live:match", args=[SLUG, "guandan", semi.pk])).content.decode()
    assert "的结果已更正，本场对阵改为" in page and qf1.away.name in page
    # Its tables are the right team's pairs.
    assert {t.home_pair.entry_id for t in tables(semi)} == {qf1.away_id}
