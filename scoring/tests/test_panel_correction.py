"""A correction of a confirmed result (更正), the two ways the tournament may set
(Tournament.correction_signoff): re-submitted in the corrector's name for a second person to
confirm (the default), or made by two members of the arbitration panel at once — the second
co-signing with their password on the same page — and standing confirmed at once."""

from __future__ import annotations

import datetime as dt

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from guandan_cup.passwords import reset_password
from scoring.models import AuditEntry, TableMatch
from scoring.services.common import TableError
from scoring.services.corrections import correct_table
from scoring.services.tables import confirm_table, record_event, submit_table
from scoring.tests.test_correction_page import _page_state, _played, _post
from scoring.tests.test_table_views import snapshot, table_url
from scoring.tests.utils import fresh, tables
from tournaments.models import Match, Official, Tournament

pytestmark = pytest.mark.django_db

User = get_user_model()
PASSWORD = "仲裁-Strong-2026"
PANEL_WAY = "须由两名仲裁组成员署名"
SECOND_WAY = "须由另一人确认后才生效"


@pytest.fixture
def panel(cast):
    """Two members of the Nantong arbitration panel with passwords, the panel way set."""
    tournament = cast.table.match.round.stage.event.tournament
    tournament.correction_signoff = Tournament.CorrectionSignoff.PANEL
    tournament.save(update_fields=["correction_signoff"])
    leader = User.objects.create_user("zhao", password=PASSWORD, first_name="赵组长")
    member = User.objects.create_user("qian", password=PASSWORD, first_name="钱委员")
    Official.objects.create(
        tournament=tournament, name="赵组长", role=Official.Role.ARBITRATION_LEADER, user=leader
    )
    Official.objects.create(
        tournament=tournament, name="钱委员", role=Official.Role.ARBITRATION, user=member
    )
    return leader, member


def _corrected_draft(client, cast):
    """The correction page with the first deal changed to B's 双上 (the winner changes)."""
    url = table_url("scoring:correction", cast.table)
    html = client.get(url).content.decode()
    html = _post(
        client, cast, html, action="change", mode="replace", index="0", entry="deal", deal="B2"
    ).content.decode()
    assert _page_state(html)[0] == [{"order": list("BBAA")}, {"time_up": True}]
    return html


def test_by_default_the_page_says_a_second_person_confirms_and_offers_no_cosigner(client, cast):
    _played(cast)
    client.force_login(cast.chief)
    html = _corrected_draft(client, cast)
    assert SECOND_WAY in html and PANEL_WAY not in html
    assert 'name="cosigner_password"' not in html
    response = _post(client, cast, html, action="save", reason="上游记错了一方")
    assert response.status_code == 302
    table = fresh(cast.table)
    assert (table.status, table.submitted_by, table.confirmed_by) == (
        TableMatch.Status.SUBMITTED,
        cast.chief,
        None,
    )


def test_two_panel_members_sign_a_correction_that_stands_at_once(client, cast, panel):
    leader, member = panel
    _played(cast)
    client.force_login(leader)
    html = _corrected_draft(client, cast)
    # Before the tap: which way applies, and whom to choose (the other member only).
    assert PANEL_WAY in html and "立即生效" in html and SECOND_WAY not in html
    assert "第二位仲裁组成员共同署名" in html and "共同署名人的登录密码" in html
    select = html[
        html.index('name="cosigner"') : html.index("</select>", html.index('name="cosigner"'))
    ]
    assert "钱委员" in select and "赵组长" not in select
    response = _post(
        client,
        cast,
        html,
        action="save",
        reason="核对记分表",
        cosigner=str(member.pk),
        cosigner_password=PASSWORD,
    )
    assert response.status_code == 302
    table = fresh(cast.table)
    assert (table.status, table.winner) == (TableMatch.Status.CONFIRMED, "B")
    assert (table.submitted_by, table.confirmed_by) == (leader, member)
    entry = AuditEntry.objects.get(table=table, action="correct")
    assert entry.actor == leader and "赵组长" in entry.summary and "钱委员" in entry.summary
    assert entry.reason == "核对记分表"
    # The tie moves as after a confirmation: the table now counts for the away team.
    match = Match.objects.get(pk=table.match_id)
    assert (match.home_score, match.away_score) == (0, 1)
    page = client.get(table_url("scoring:table", table)).content.decode()
    assert "确认结果</button>" not in page


@pytest.mark.parametrize(
    "who, data, message",
    [
        ("leader", {}, "请选择第二位仲裁组成员"),
        ("leader", {"cosigner": "member", "cosigner_password": ""}, "请由钱委员输入本人的登录密码"),
        ("leader", {"cosigner": "member", "cosigner_password": "wrong"}, "钱委员的密码不对"),
        ("leader", {"cosigner": "leader", "cosigner_password": PASSWORD}, "请选择第二位仲裁组成员"),
        ("leader", {"cosigner": "chief", "cosigner_password": "x"}, "请选择第二位仲裁组成员"),
        ("chief", {"cosigner": "member", "cosigner_password": PASSWORD}, "你不是仲裁组成员"),
    ],
    ids=["no-cosigner", "no-password", "wrong-password", "oneself", "not-panel", "chief"],
)
def test_without_a_valid_cosigner_the_correction_is_refused_and_the_draft_kept(
    client, cast, panel, who, data, message
):
    leader, member = panel
    people = {"leader": leader, "member": member, "chief": cast.chief}
    _played(cast)
    client.force_login(people[who])
    html = _corrected_draft(client, cast)
    # A chief referee off the panel is told before the tap that the panel corrects.
    assert ("请由仲裁组成员办理" in html) == (who == "chief")
    before = snapshot()
    if "cosigner" in data:
        data = {**data, "cosigner": str(people[data["cosigner"]].pk)}
    response = _post(client, cast, html, action="save", reason="核对记分表", **data)
    assert response.status_code == 422
    text = response.content.decode()
    assert message in text
    assert _page_state(text)[0] == [{"order": list("BBAA")}, {"time_up": True}]
    assert 'value="核对记分表"' in text  # the reason typed is kept too
    assert snapshot() == before
    assert fresh(cast.table).confirmed_by == cast.chief


def test_the_service_refuses_a_cosigner_off_the_panel_or_the_corrector_themselves(cast, panel):
    leader, member = panel
    table = _played(cast)
    events = [{"order": list("BBAA")}, {"time_up": True}]
    for user, cosigner, code in (
        (leader, None, "no_cosigner"),
        (leader, leader, "same_cosigner"),
        (leader, cast.referee, "cosigner_not_panel"),
        (cast.chief, member, "not_panel"),
    ):
        with pytest.raises(TableError) as err:
            correct_table(table=table, events=events, reason="核对", user=user, cosigner=cosigner)
        assert err.value.code == code
    assert fresh(table).winner == "A" and not AuditEntry.objects.filter(action="correct").exists()


def test_a_result_not_yet_confirmed_is_corrected_the_default_way_under_the_panel_rule(
    client, cast, panel
):
    leader, _member = panel
    for i, e in enumerate(({"order": list("AABB")}, {"time_up": True})):
        record_event(table=cast.table, event=e, user=cast.referee, key=f"p{i}")
    submit_table(table=cast.table, user=cast.referee)
    client.force_login(leader)
    html = _corrected_draft(client, cast)
    assert SECOND_WAY in html and 'name="cosigner_password"' not in html
    assert _post(client, cast, html, action="save", reason="核对").status_code == 302
    table = fresh(cast.table)
    assert (table.status, table.submitted_by, table.confirmed_by) == ("submitted", leader, None)


def test_a_panel_correction_that_turns_a_decided_tie_reopens_it(cast, panel):
    leader, member = panel
    match = cast.table.match
    t1, t2, t3 = tables(match)
    for table in (t1, t2):
        record_event(
            table=table, event={"order": list("AABB")}, user=cast.referee, key=f"a{table.pk}"
        )
        record_event(table=table, event={"time_up": True}, user=cast.referee, key=f"t{table.pk}")
        submit_table(table=table, user=cast.referee)
        confirm_table(table=table, user=cast.chief)
    assert fresh(match).winner == Match.Side.HOME
    assert fresh(t3).status == TableMatch.Status.NOT_PLAYED
    correct_table(
        table=fresh(t1),
        events=[{"order": list("BBAA")}, {"time_up": True}],
        reason="核对记分表",
        user=leader,
        cosigner=member,
    )
    t1, match = fresh(t1), fresh(match)
    assert (t1.status, t1.confirmed_by, t1.winner) == ("confirmed", member, "B")
    # 1:1 on confirmed tables: the tie plays on, its stopped table with it.
    assert not match.is_decided and (match.home_score, match.away_score) == (1, 1)
    assert fresh(t3).status == TableMatch.Status.OPEN


# --------------------------------------------------------------------------- the co-signing's
# lockout: each wrong co-signing password counts as one failed login, to the login's limit,
# and reaching it locks the co-signing only (the attack run: locked at the 3rd try once the
# co-signer had mistyped their own login twice, and then locked out of their own login).

LOCKED = "共同署名已暂时锁定"


def _cosign(client, cast, html, member, password):
    return _post(
        client,
        cast,
        html,
        action="save",
        reason="核对记分表",
        cosigner=str(member.pk),
        cosigner_password=password,
    )


def _lock_the_cosigning(client, cast, member, html):
    limit = settings.AXES_FAILURE_LIMIT
    for n in range(1, limit + 1):
        response = _cosign(client, cast, html, member, "wrong-password")
        text = response.content.decode()
        assert response.status_code == 422, n
        # Refused on the correction page, the draft and the reason kept, every time.
        assert _page_state(text)[0] == [{"order": list("BBAA")}, {"time_up": True}], n
        assert 'value="核对记分表"' in text, n
        if n < limit:
            assert "钱委员的密码不对" in text and LOCKED not in text, n
        else:
            assert LOCKED in text and "15分钟后再试" in text and "更正尚未保存" in text


def _log_in(username, password):
    client = Client()  # the same address as the correction page's (the test client's)
    response = client.post(reverse("login"), {"username": username, "password": password})
    return client, response


def test_the_login_limit_of_wrong_cosigning_passwords_locks_the_cosigning_not_the_login(
    client, cast, panel
):
    leader, member = panel
    _played(cast)
    client.force_login(leader)
    html = _corrected_draft(client, cast)
    before = snapshot()
    _lock_the_cosigning(client, cast, member, html)
    assert snapshot() == before and fresh(cast.table).confirmed_by == cast.chief
    # The co-signer logs in themselves from the same address all the same …
    own, response = _log_in("qian", PASSWORD)
    assert response.status_code == 302
    assert own.get(reverse("accounts-home")).context["user"] == member
    # … and co-signing stays locked for the cool-off, the right password too.
    response = _cosign(client, cast, html, member, PASSWORD)
    assert response.status_code == 422 and LOCKED in response.content.decode()
    assert snapshot() == before
    AccessAttempt.objects.update(
        attempt_time=timezone.now() - settings.AXES_COOLOFF_TIME - dt.timedelta(minutes=1)
    )
    assert _cosign(client, cast, html, member, PASSWORD).status_code == 302
    assert fresh(cast.table).confirmed_by == member


def test_wrong_cosigning_passwords_count_no_longer_after_a_right_one(client, cast, panel):
    """As a login's success clears its failures: a right co-signing password clears the
    co-signing's, and the co-signer's own mistyped logins never shorten the co-signing's."""
    leader, member = panel
    _played(cast)
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert _log_in("qian", "mistyped")[1].status_code == 200
    client.force_login(leader)
    html = _corrected_draft(client, cast)
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert "钱委员的密码不对" in _cosign(client, cast, html, member, "x").content.decode()
    assert _cosign(client, cast, html, member, PASSWORD).status_code == 302
    assert not AccessAttempt.objects.filter(username="qian (co-signing)").exists()


def test_a_cosigner_locked_out_of_their_login_here_cannot_cosign_from_here(client, cast, panel):
    leader, member = panel
    _played(cast)
    for _ in range(settings.AXES_FAILURE_LIMIT):
        _log_in("qian", "mistyped")
    client.force_login(leader)
    html = _corrected_draft(client, cast)
    before = snapshot()
    response = _cosign(client, cast, html, member, PASSWORD)
    assert response.status_code == 422 and LOCKED in response.content.decode()
    assert snapshot() == before


def test_a_password_reset_lifts_the_cosignings_lockout(client, cast, panel):
    leader, member = panel
    _played(cast)
    client.force_login(leader)
    html = _corrected_draft(client, cast)
    _lock_the_cosigning(client, cast, member, html)
    new = reset_password(user=member)
    assert new.lockouts_lifted == 1
    assert _cosign(client, cast, html, member, new.password).status_code == 302
