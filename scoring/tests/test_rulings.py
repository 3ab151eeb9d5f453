"""The chief referee's rulings on a match flagged after a correction (维持原结果, 作废重赛) and
the corrections of its tables: refused while who plays the match is not known (a match
feeding it voided and not yet replayed: 本场对阵待定), nothing recorded; and results.pdf's
仲裁组说明 names each ruling by the pairing it was made on, whatever the match's pairing
became since."""

from __future__ import annotations

import shutil
import subprocess
from types import SimpleNamespace

import pytest
from django.urls import reverse

from scoring.models import AuditEntry, TableMatch
from scoring.services.common import TableError
from scoring.services.corrections import correct_table
from scoring.services.desk import keep_with_ruling, void_and_replay
from scoring.tests.test_replay import _play_whole_knockout, _turn_round_quarter_final
from scoring.tests.test_table_views import snapshot
from scoring.tests.utils import fresh, guandan, tables
from tournaments.documents.build import results_context
from tournaments.models import Match

pytestmark = pytest.mark.django_db

SLUG = "nantong-2014"
UNKNOWN = "本场对阵待定：上一场"
needs_pdftotext = pytest.mark.skipif(
    not shutil.which("pdftotext"),
    reason="poppler-utils not installed (apt-get install poppler-utils)",
)


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


# --------------------------------------------------------------------------- 仲裁组说明


def _notes(client, tmp_path) -> str:
    """results.pdf's 仲裁组说明 of the guandan event, as text without whitespace."""
    response = client.get(reverse("documents:results-pdf", args=[SLUG]))
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    path = tmp_path / "results.pdf"
    path.write_bytes(response.content)
    text = subprocess.run(
        ["pdftotext", str(path), "-"], capture_output=True, text=True, check=True
    ).stdout
    text = "".join(text.split())
    return text[text.index("仲裁组说明") :]


def _rulings():
    event = guandan(SLUG)
    item = next(e for e in results_context(event.tournament)["events"] if e["event"] == event)
    return [(r.action, r.tie) for r in item["rulings"]]


def _tie(home, away) -> str:
    return f"{home.name}—{away.name}"


@needs_pdftotext
def test_a_replay_is_named_by_the_pairing_it_voided(people, client, tmp_path):
    referee, chief = people
    qfs, semis, _final, _third = _play_whole_knockout(referee, chief)
    semi = fresh(semis[0])
    voided = _tie(semi.home, semi.away)
    _turn_round_quarter_final(qfs[0], referee, chief)
    void_and_replay(match=semi, reason="半决赛对阵有误，作废重赛", user=chief)
    semi = fresh(semi)
    replayed = _tie(semi.home, semi.away)
    assert replayed != voided
    assert _rulings() == [(AuditEntry.Action.REPLAY, voided)]
    notes = _notes(client, tmp_path)
    assert f"{semi.round_label}{voided}：作废重赛" in notes
    assert f"{replayed}：" not in notes  # the pairing that plays again is not the ruling's
    entry = AuditEntry.objects.get(action=AuditEntry.Action.REPLAY)
    assert entry.pairing["home"]["id"] != fresh(semi).home_id  # by id too, not only names
    assert entry.after["pairing"]["home"]["id"] == fresh(semi).home_id


@needs_pdftotext
def test_a_ruling_keeps_naming_its_pairing_after_the_match_is_played_by_others(
    people, client, tmp_path
):
    """维持原结果 on a semi-final; a later correction upstream (the other quarter-final)
    has it voided and replayed by other entries: the first ruling still names the pairing
    it kept, in results.pdf and on the audit page."""
    referee, chief = people
    qfs, semis, _final, _third = _play_whole_knockout(referee, chief)
    semi = fresh(semis[0])
    _turn_round_quarter_final(qfs[0], referee, chief)  # its home side should be another
    semi = fresh(semi)
    kept = _tie(semi.home, semi.away)
    keep_with_ruling(match=semi, reason="半决赛已赛完，维持原结果", user=chief)
    _turn_round_quarter_final(qfs[1], referee, chief)  # now its away side should be another
    semi = fresh(semi)
    assert semi.needs_review
    void_and_replay(match=semi, reason="按更正后的对阵重赛", user=chief)
    semi = fresh(semi)
    now = _tie(semi.home, semi.away)
    assert now != kept
    assert _rulings() == [(AuditEntry.Action.RULING, kept), (AuditEntry.Action.REPLAY, kept)]
    notes = _notes(client, tmp_path)
    assert f"{semi.round_label}{kept}：维持原结果" in notes
    assert f"{semi.round_label}{kept}：作废重赛" in notes
    assert f"{now}：" not in notes
    client.force_login(chief)
    audit = client.get(reverse("scoring:audit", args=[SLUG])).content.decode()
    rows = [
        row
        for row in audit.split("<tr>")
        if "半决赛已赛完，维持原结果" in row or "按更正后的对阵重赛" in row
    ]
    assert len(rows) == 2
    assert all(f"<td>{semi.round_label} · {kept}</td>" in row for row in rows)


def test_an_older_ruling_without_its_pairing_is_named_by_the_matchs_entries_now(people):
    referee, chief = people
    qfs, semis, _final, _third = _play_whole_knockout(referee, chief)
    semi = fresh(semis[0])
    _turn_round_quarter_final(qfs[0], referee, chief)
    keep_with_ruling(match=semi, reason="半决赛已赛完，维持原结果", user=chief)
    AuditEntry.objects.filter(action=AuditEntry.Action.RULING).update(before=None, after=None)
    semi = fresh(semi)
    assert _rulings() == [(AuditEntry.Action.RULING, _tie(semi.home, semi.away))]
