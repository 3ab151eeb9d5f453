"""The chief referee's rulings on a match flagged after a correction (维持原结果, 作废重赛) and
the corrections of its tables: refused while who plays the match is not known (a match
feeding it voided and not yet replayed: 本场对阵待定), nothing recorded; and results.pdf's
仲裁组说明 names each ruling by the pairing it was made on, whatever the match's pairing
became since."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from django.urls import reverse

from scoring.models import AuditEntry, TableMatch
from scoring.services.common import TableError
from scoring.services.corrections import correct_table
from scoring.services.desk import keep_with_ruling, void_and_replay
from scoring.tests.test_replay import _play_whole_knockout, _turn_round_quarter_final
from scoring.tests.test_table_views import snapshot
from scoring.tests.utils import fresh, tables
from tournaments.models import Match

pytestmark = pytest.mark.django_db

SLUG = "nantong-2014"
UNKNOWN = "本场对阵待定：上一场"


@pytest.fixture
def final_of_a_voided_semi(people):
    """The whole knockout played; QF1 corrected, so its semi-final is flagged and then
    voided and replayed (作废重赛), not yet played again: the final, played with the voided
    semi-final's winner, is flagged and its pairing is 待定."""
    referee, chief = people
    qfs, semis, final, third = _play_whole_knockout(referee, chief)
    _turn_round_quarter_final(qfs[0], referee, chief)
    semi = fresh(semis[0])
    void_and_replay(match=semi, reason="半决赛对阵有误，作废重赛", user=chief)
    final = fresh(final)
    assert fresh(semi).status == Match.Status.PENDING
    assert final.needs_review and "本场对阵待定" in final.review_note
    return final, fresh(semi), chief, referee


def _unchanged(final):
    """What a refused ruling on ``final`` leaves as it was, beside snapshot()."""
    return (
        fresh(final).needs_review,
        fresh(final).review_note,
        TableMatch.kept.filter(voided_at__isnull=False).count(),
        AuditEntry.objects.filter(match=final).count(),
    )


@pytest.mark.parametrize("ruling", [keep_with_ruling, void_and_replay], ids=["keep", "replay"])
def test_no_ruling_on_a_match_whose_entries_are_not_known(final_of_a_voided_semi, ruling):
    final, semi, chief, _referee = final_of_a_voided_semi
    before, kept = snapshot(), _unchanged(final)
    with pytest.raises(TableError) as err:
        ruling(match=final, reason="决赛已赛完，维持原结果", user=chief)
    assert err.value.code == "pairing_unknown"
    assert UNKNOWN in err.value.message and semi.round_label in err.value.message
    assert snapshot() == before and _unchanged(final) == kept
    assert not AuditEntry.objects.filter(
        action__in=[AuditEntry.Action.RULING, AuditEntry.Action.REPLAY], match=final
    ).exists()


def test_no_correction_of_a_table_of_a_match_whose_entries_are_not_known(
    final_of_a_voided_semi,
):
    final, _semi, chief, _referee = final_of_a_voided_semi
    table = tables(final)[0]
    before, kept = snapshot(), _unchanged(final)
    with pytest.raises(TableError) as err:
        correct_table(
            table=table,
            events=[{"forfeit": {"team": "A", "reason": "late_over_10_min"}}],
            reason="记分表与录入不符",
            user=chief,
        )
    assert err.value.code == "pairing_unknown"
    assert snapshot() == before and _unchanged(final) == kept


@pytest.mark.parametrize(
    "url, data",
    [
        ("scoring:ruling", {"reason": "决赛已赛完，维持原结果"}),
        ("scoring:replay", {"reason": "按更正后的对阵重赛", "confirm": "1"}),
    ],
    ids=["keep", "replay"],
)
def test_the_desk_refuses_the_ruling_and_says_why(final_of_a_voided_semi, client, url, data):
    final, semi, chief, _referee = final_of_a_voided_semi
    client.force_login(chief)
    before, kept = snapshot(), _unchanged(final)
    response = client.post(reverse(url, args=[SLUG, final.pk]), data, follow=True)
    assert response.redirect_chain[-1][0] == reverse("scoring:desk", args=[SLUG])
    page = response.content.decode()
    assert UNKNOWN in page and f"{semi.round_label} {semi}" in page
    assert "已维持原结果" not in page and "已作废原记录" not in page
    assert snapshot() == before and _unchanged(final) == kept
    # The final is still on the desk, to be ruled on once the semi-final is played again.
    assert f'id="review-{final.pk}"' in page


def test_the_correction_page_refuses_the_correction_and_keeps_the_draft(
    final_of_a_voided_semi, client
):
    from scoring.tests.test_correction_page import _page_state, _post
    from scoring.tests.test_table_views import table_url

    final, _semi, chief, _referee = final_of_a_voided_semi
    table = tables(final)[0]
    cast = SimpleNamespace(table=table)  # what the correction page's helpers read
    client.force_login(chief)
    html = client.get(table_url("scoring:correction", table)).content.decode()
    html = _post(client, cast, html, action="swap").content.decode()
    draft = _page_state(html)[0]
    before, kept = snapshot(), _unchanged(final)
    response = _post(client, cast, html, action="save", reason="记分表与录入不符")
    assert response.status_code == 422
    text = response.content.decode()
    assert UNKNOWN in text and _page_state(text)[0] == draft
    assert snapshot() == before and _unchanged(final) == kept


def test_once_the_semi_final_is_played_again_the_final_is_ruled_on(final_of_a_voided_semi):
    from scoring.tests.test_services import win_tie

    final, semi, chief, referee = final_of_a_voided_semi
    semi = win_tie(semi, "A", referee, chief)
    final = fresh(final)
    # The replayed semi-final sends another entry than the one who played the final.
    assert final.needs_review and f"本场对阵应为{semi.winner_entry.name}" in final.review_note
    keep_with_ruling(match=final, reason="决赛已赛完，维持原结果", user=chief)
    assert not fresh(final).needs_review
    assert AuditEntry.objects.filter(match=final, action=AuditEntry.Action.RULING).exists()
