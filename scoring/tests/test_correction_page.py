"""The chief referee's correction by tap (更正): the record as a list, changed with the same
controls as entry, the replay shown before and after, nothing written until 保存更正, a
reason required, and the version the chief began from checked like every write."""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

from scoring.models import AuditEntry, TableMatch
from scoring.services.corrections import correct_table
from scoring.services.tables import confirm_table, record_event, submit_table
from scoring.tests.test_table_views import ANHUI, snapshot, table_url
from scoring.tests.utils import fresh
from tournaments.models import Match

pytestmark = pytest.mark.django_db


def _played(c, events=({"order": list("AABB")}, {"time_up": True})):
    """The table played (A 5, B 2 after one 双上, then time up), submitted and confirmed."""
    for i, e in enumerate(events):
        record_event(table=c.table, event=e, user=c.referee, key=f"p{i}")
    submit_table(table=c.table, user=c.referee)
    confirm_table(table=c.table, user=c.chief)
    return fresh(c.table)


def _page_state(html: str) -> tuple[list, int]:
    """The draft and the version the page carries in its forms."""
    events = re.search(r'name="events" value="([^"]*)"', html).group(1)
    version = int(re.search(r'name="version" value="(\d+)"', html).group(1))
    return json.loads(events.replace("&quot;", '"')), version


def _post(client, c, html, **data):
    draft, version = _page_state(html)
    payload = {"events": json.dumps(draft, ensure_ascii=False), "version": version, **data}
    return client.post(table_url("scoring:correction", c.table), payload)


def test_the_chief_corrects_a_deal_entered_for_the_wrong_side_in_a_few_taps(client, cast):
    table = _played(cast)
    assert table.winner == "A"
    client.force_login(cast.chief)
    # From the table page: one link, no JSON anywhere.
    page = client.get(table_url("scoring:table", table)).content.decode()
    assert table_url("scoring:correction", table) in page
    assert "JSON" not in page and "<textarea" not in page
    html = client.get(table_url("scoring:correction", table)).content.decode()
    assert "更正前" in html and "更正后" in html
    assert re.search(r"<button[^>]*disabled[^>]*>保存更正", html)
    before = snapshot()
    # Tap 改 on the first deal, then the right deal button: B took 上游 with its partner 二游.
    html = _post(client, cast, html, action="pick", index="0").content.decode()
    assert "第1条改为" in html and html.count('class="deal-button"') >= 6
    response = _post(
        client, cast, html, action="change", mode="replace", index="0", entry="deal", deal="B2"
    )
    html = response.content.decode()
    assert response.status_code == 200
    draft, _version = _page_state(html)
    assert draft == [{"order": list("BBAA")}, {"time_up": True}]
    # Before and after, and what it changes: the winner.
    outcome = html[html.index("更正前") : html.index("更正后") + 400]
    assert "5 : 2" in outcome and "2 : 5" in outcome
    assert "更正会改变这一台的胜负" in html
    assert snapshot() == before  # nothing written yet
    # A reason is required; the draft is kept.
    response = _post(client, cast, html, action="save", reason="")
    assert response.status_code == 422 and "更正必须写明原因" in response.content.decode()
    assert _page_state(response.content.decode())[0] == draft
    assert snapshot() == before
    response = _post(client, cast, html, action="save", reason="上游记错了一方")
    assert response.status_code == 302
    table = fresh(table)
    assert table.winner == "B"
    assert AuditEntry.objects.filter(
        table=table, action="correct", reason="上游记错了一方"
    ).exists()
    # The corrected result is the chief's: it waits for a second official, and the page
    # says so instead of offering the chief a button they may not press.
    assert table.status == TableMatch.Status.SUBMITTED
    page = client.get(table_url("scoring:table", table)).content.decode()
    assert "确认结果</button>" not in page and "更正结果的人不能确认" in page
    confirm_table(table=table, user=cast.referee)
    match = Match.objects.get(pk=table.match_id)
    assert (match.home_score, match.away_score) == (0, 1)


def test_insert_remove_and_add_at_the_end(client, cast):
    table = _played(cast)
    client.force_login(cast.chief)
    html = client.get(table_url("scoring:correction", table)).content.decode()
    # A deal forgotten before the time: inserted before entry 2 (time up).
    html = _post(
        client, cast, html, action="change", mode="insert", index="1", entry="deal", deal="A3"
    ).content.decode()
    assert _page_state(html)[0] == [
        {"order": list("AABB")},
        {"order": ["A", "B", "A", "B"]},
        {"time_up": True},
    ]
    html = _post(client, cast, html, action="change", mode="delete", index="1").content.decode()
    assert _page_state(html)[0] == [{"order": list("AABB")}, {"time_up": True}]
    # Removing the time up leaves the game unfinished: said before saving.
    html = _post(client, cast, html, action="change", mode="delete", index="1").content.decode()
    assert "未结束，保存后继续比赛" in html
    html = _post(
        client,
        cast,
        html,
        action="change",
        mode="append",
        entry="penalty",
        team="B",
        kind="levels",
        levels="1",
        reason="出错牌",
    ).content.decode()
    assert _page_state(html)[0][-1] == {"penalty": {"team": "B", "levels": 1}}


def test_a_change_the_rules_refuse_is_explained_and_the_draft_kept(client, cast):
    table = _played(cast)
    client.force_login(cast.chief)
    html = client.get(table_url("scoring:correction", table)).content.decode()
    before = _page_state(html)[0]
    # A deal after the time was up and the game decided cannot be.
    response = _post(client, cast, html, action="change", mode="append", entry="deal", deal="B2")
    assert response.status_code == 422
    assert _page_state(response.content.decode())[0] == before
    response = _post(
        client, cast, html, action="change", mode="replace", index="9", entry="deal", deal="B2"
    )
    assert response.status_code == 422 and "请选择要更正的那一条记录" in response.content.decode()
    response = client.post(
        table_url("scoring:correction", table), {"events": "[{", "version": table.version}
    )
    assert response.status_code == 422 and "更正草稿无法读取" in response.content.decode()


def test_a_correction_on_a_stale_view_is_refused_saying_who_changed_the_table(client, cast):
    table = _played(cast)
    client.force_login(cast.chief)
    html = client.get(table_url("scoring:correction", table)).content.decode()
    html = _post(
        client, cast, html, action="change", mode="replace", index="0", entry="deal", deal="B2"
    ).content.decode()
    # Meanwhile another official corrects the same table.
    correct_table(
        table=fresh(table),
        events=[{"order": list("AABB")}, {"order": list("AABB")}, {"time_up": True}],
        reason="核对",
        user=cast.referee,
    )
    state = snapshot()
    response = _post(client, cast, html, action="save", reason="上游记错了一方")
    assert response.status_code == 422
    text = response.content.decode()
    assert "已被" in text or "修改" in text
    assert _page_state(text)[0][0] == {"order": list("BBAA")}  # the chief's draft is kept
    assert snapshot() == state


def test_a_save_without_a_readable_version_is_refused_and_the_draft_kept(client, cast):
    # As every table write: a missing version is never taken as "no check".
    table = _played(cast)
    client.force_login(cast.chief)
    draft = json.dumps([{"order": list("BBAA")}, {"time_up": True}])
    state = snapshot()
    for version in (None, "", "七"):
        data = {"events": draft, "action": "save", "reason": "核对"}
        if version is not None:
            data["version"] = version
        response = client.post(table_url("scoring:correction", table), data)
        assert response.status_code == 422
        text = response.content.decode()
        assert "请求缺少有效的版本号" in text
        assert _page_state(text)[0] == [{"order": list("BBAA")}, {"time_up": True}]
    assert snapshot() == state and fresh(table).winner == "A"


def test_only_a_chief_referee_may_open_the_correction_page(client, cast):
    url = table_url("scoring:correction", cast.table)
    assert client.get(url).status_code == 302  # to the login
    client.force_login(cast.referee)
    assert client.get(url).status_code == 403
    client.force_login(cast.foreign_chief)  # a chief of another tournament
    assert client.get(url).status_code == 403


def test_a_chess_result_is_corrected_with_the_chess_controls(client, cast):
    table = TableMatch.objects.filter(
        match__round__stage__event__tournament__slug=ANHUI,
        match__round__stage__event__discipline="xiangqi",
    ).first()
    for i, game in enumerate(
        [{"result": "home", "first_move": "home"}, {"result": "home", "first_move": "away"}]
    ):
        record_event(table=table, event=game, user=cast.foreign_chief, key=f"x{i}")
    client.force_login(cast.foreign_chief)
    event = table.match.round.stage.event
    url = reverse("scoring:correction", args=[ANHUI, event.slug, table.pk])
    html = client.get(url).content.decode()
    assert 'name="result" value="draw"' in html and 'name="first_move"' in html
    draft, version = _page_state(html)
    response = client.post(
        url,
        {
            "events": json.dumps(draft),
            "version": version,
            "action": "change",
            "mode": "replace",
            "index": "1",
            "entry": "game",
            "result": "draw",
            "first_move": "away",
        },
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert _page_state(html)[0][1] == {"result": "draw", "first_move": "away"}
    assert "1½ : ½" in html  # the score after, with its half


def test_a_record_kept_for_the_wrong_side_throughout_is_turned_round_in_one_tap(client, cast):
    """主客双方对调: every entry of the draft the other way round (here the one deal and
    time up: 5:2 becomes 2:5), nothing written until 保存更正; then saved like any other."""
    table = _played(cast)
    client.force_login(cast.chief)
    html = client.get(table_url("scoring:correction", table)).content.decode()
    assert "主客双方对调" in html
    before = snapshot()
    response = _post(client, cast, html, action="swap")
    html = response.content.decode()
    assert response.status_code == 200
    assert _page_state(html)[0] == [{"order": list("BBAA")}, {"time_up": True}]
    outcome = html[html.index("更正前") : html.index("更正后") + 400]
    assert "5 : 2" in outcome and "2 : 5" in outcome
    assert "更正会改变这一台的胜负" in html
    assert snapshot() == before
    # Tapped twice, the draft is the record again, and there is nothing to save.
    again = _post(client, cast, html, action="swap").content.decode()
    assert _page_state(again)[0] == [{"order": list("AABB")}, {"time_up": True}]
    assert re.search(r"<button[^>]*disabled[^>]*>保存更正", again)
    response = _post(client, cast, html, action="save", reason="整份记录记反了")
    assert response.status_code == 302 and fresh(table).winner == "B"
