"""The players' link (扫码录分): a table's code opens that table for its players without an
account, enters what a referee does but penalties, the other side confirms, 有异议 calls the
referee to the desk and 我的台, the chief referee locks a table, and the link enters nothing
anywhere else or once it is closed."""

from __future__ import annotations

import datetime as dt
import re
import shutil

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from scoring.models import AuditEntry, TableCall, TableEvent, TableMatch
from scoring.services import players
from scoring.tests.test_table_views import HTMX, snapshot
from scoring.tests.utils import assign_referee, first_round, fresh, tables
from tournaments.models import Match, Official, Tournament

User = get_user_model()
NANTONG = "nantong-2014"


@pytest.fixture
def world(demo):
    tournament = demo[NANTONG]
    tournament.result_entry = Tournament.ResultEntry.PLAYERS
    tournament.save(update_fields=["result_entry"])
    qf = first_round(NANTONG)
    referee = User.objects.create_user("referee")
    chief = User.objects.create_user("chief")
    other = User.objects.create_user("other-referee")
    Official.objects.create(tournament=tournament, name="裁判甲", role="referee", user=referee)
    Official.objects.create(tournament=tournament, name="裁判乙", role="referee", user=other)
    Official.objects.create(
        tournament=tournament, name="裁判长甲", role="chief_referee", user=chief
    )
    assign_referee(Match.objects.filter(pk=qf[0].pk), referee)
    table, second, third = tables(qf[0])
    return {
        "tournament": tournament,
        "table": table,
        "second": second,
        "third": third,
        "other_table": tables(qf[1])[0],
        "referee": referee,
        "other": other,
        "chief": chief,
    }


def link(table: TableMatch) -> str:
    return reverse("scoring:play-table", args=[players.make_code(fresh(table))])


def post(client, table, action: str, data: dict, *, code: str | None = None):
    code = code or players.make_code(fresh(table))
    data = {"version": str(fresh(table).version), **data}
    return client.post(reverse(f"scoring:play-{action}", args=[code]), data, **HTMX)


def play_out(client, table, side="A"):
    """Two 双上 deals of ``side`` the players enter, then time up: ``side`` wins."""
    for n in range(2):
        response = post(client, table, "deal", {"deal": f"{side}2", "key": f"deal-{table.pk}-{n}"})
        assert response.status_code == 200, response.content.decode()[:400]
    response = post(client, table, "time-up", {"key": f"time-{table.pk}"})
    assert response.status_code == 200
    assert fresh(table).is_over and fresh(table).winner == side


# --------------------------------------------------------------------------- the code


def test_a_code_names_its_table_and_day_and_nothing_else(world):
    table = world["table"]
    code = players.make_code(table)
    found = players.read_code(code)
    assert found.table_id == table.pk
    assert found.day == max(world["tournament"].starts_on, timezone.localdate())
    number, day, signature = code.split("-")
    other = world["other_table"].pk
    for forged in [
        f"{other}-{day}-{signature}",  # another table, this table's signature
        f"{number}-{int(day) + 1}-{signature}",  # a later day
        f"{number}-{day}-{signature[:-1]}{'0' if signature[-1] != '0' else '1'}",
        f"{number}-{day}-{signature.upper()}",
        f"{number}-{day}",
        "",
        "1-2-3",
        code + "0",
    ]:
        assert players.read_code(forged) is None, forged


def test_nothing_secret_is_stored_the_link_comes_from_the_servers_key(world, settings):
    code = players.make_code(world["table"])
    settings.SECRET_KEY = "another-" + settings.SECRET_KEY
    assert players.read_code(code) is None


# --------------------------------------------------------------------------- the page


def test_the_link_opens_its_tables_deal_buttons_without_a_login(client, world):
    response = client.get(link(world["table"]))
    html = response.content.decode()
    assert response.status_code == 200
    assert html.count('class="deal-button"') == 6
    assert "选手扫码录分" in html
    # No penalty, forfeit or report here: the players call the referee for those.
    for staff_only in ("记录处罚", "确认判负", "记录举报", "更正记录", "锁定本台"):
        assert staff_only not in html, staff_only
    assert "呼叫裁判" in html
    assert (
        response["Cache-Control"].startswith("max-age=0") or "no-cache" in response["Cache-Control"]
    )


def test_the_players_deals_are_recorded_as_the_players(client, world):
    table = world["table"]
    response = post(client, table, "deal", {"deal": "A2", "key": "k1"})
    assert response.status_code == 200
    event = TableEvent.objects.get(table=table)
    assert event.by_players and event.created_by is None
    assert event.payload["order"][:2] == ["A", "A"]  # A 上游, the partner second: 双上
    audit = AuditEntry.objects.filter(table=table, action="event").get()
    assert audit.by_players and audit.actor is None and "选手扫码录入" in audit.summary
    # The same tap again (a resend) is recorded once.
    again = post(client, table, "deal", {"deal": "A2", "key": "k1", "version": "0"})
    assert "已记录过" in again.content.decode()
    assert TableEvent.objects.filter(table=table).count() == 1
    # Undo by the players too.
    post(client, table, "undo", {})
    assert TableEvent.objects.get(table=table).undone_at is not None


def test_the_link_records_nothing_at_another_table(client, world):
    table, other = world["table"], world["other_table"]
    _number, day, signature = players.make_code(table).split("-")
    forged = f"{other.pk}-{day}-{signature}"
    before = snapshot()
    response = post(client, other, "deal", {"deal": "A2", "key": "k1"}, code=forged)
    assert response.status_code == 404
    assert client.get(reverse("scoring:play-table", args=[forged])).status_code == 404
    assert snapshot()[:2] == before[:2]


def test_the_link_cannot_record_a_penalty_or_a_forfeit(client, world):
    code = players.make_code(world["table"])
    # There is no such address under the link; the staff's refuse an anonymous phone.
    for name in ("penalty", "forfeit", "report", "correct", "lock"):
        url = reverse(f"scoring:{name}", args=[NANTONG, "guandan", world["table"].pk])
        response = client.post(url, {"team": "A", "kind": "levels", "levels": "1"})
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
        # …and the link has no such address.
        assert client.post(f"/play/{code}/{name}/", {"team": "A"}).status_code == 404
    assert TableEvent.objects.count() == 0


def test_with_referees_entry_the_link_shows_no_deal_buttons_and_records_nothing(client, world):
    tournament = world["tournament"]
    code = players.make_code(world["table"])
    tournament.result_entry = Tournament.ResultEntry.REFEREES
    tournament.save(update_fields=["result_entry"])
    html = client.get(reverse("scoring:play-table", args=[code])).content.decode()
    assert "deal-button" not in html
    assert "本比赛的结果由裁判录入" in html
    response = post(client, world["table"], "deal", {"deal": "A2", "key": "k1"}, code=code)
    assert response.status_code == 422
    assert response["X-Table-Error"] == "link_closed"
    assert TableEvent.objects.count() == 0


def test_the_link_is_for_its_day_only(client, world, monkeypatch):
    code = players.make_code(world["table"])
    found = players.read_code(code)
    later = timezone.now() + dt.timedelta(days=1)
    assert players.refusal(fresh(world["table"]), found.day, later).startswith("这个二维码已过期")
    assert players.refusal(fresh(world["table"]), found.day) == ""


def test_a_locked_table_enters_nothing_from_the_link(client, world):
    table = world["table"]
    client.force_login(world["chief"])
    url = reverse("scoring:lock", args=[NANTONG, "guandan", table.pk])
    assert client.post(url, {"locked": "1"}, **HTMX).status_code == 200
    assert fresh(table).players_locked_at is not None
    players_phone = Client()
    response = post(players_phone, table, "deal", {"deal": "A2", "key": "k1"})
    assert response.status_code == 422 and "裁判长已锁定" in response.content.decode()
    assert TableEvent.objects.count() == 0
    # Unlocked, the link enters again.
    client.post(url, {"locked": "0"}, **HTMX)
    assert post(players_phone, table, "deal", {"deal": "A2", "key": "k1"}).status_code == 200


def test_too_many_wrong_codes_lock_the_address_out_like_a_login(client, world, settings):
    settings.AXES_FAILURE_LIMIT = 3
    table = world["table"]
    bad = players.make_code(table)[:-1] + "x"
    for _ in range(3):
        assert client.get(reverse("scoring:play-table", args=[bad])).status_code == 404
    response = client.get(link(table))
    assert response.status_code == 429
    assert "次数过多" in response.content.decode()
    assert post(client, table, "deal", {"deal": "A2", "key": "k1"}).status_code == 429
    assert TableEvent.objects.count() == 0


# --------------------------------------------------------------------------- submit, confirm


def test_one_side_submits_and_the_other_confirms_and_the_bracket_moves(client, world):
    table = world["table"]
    play_out(client, table, "A")
    response = post(client, table, "submit", {"side": "A"})
    assert response.status_code == 200
    html = response.content.decode()
    assert "请交给对方（B方）核对并确认" in html
    assert 'name="side" value="B"' in html and "有异议，呼叫裁判" in html
    assert fresh(table).submitted_side == "A" and fresh(table).submitted_by is None
    # The side that submitted cannot confirm its own result.
    refused = post(client, table, "confirm", {"side": "A"})
    assert refused.status_code == 422 and "提交结果的一方不能自己确认" in refused.content.decode()
    assert fresh(table).status == TableMatch.Status.SUBMITTED
    # The other side, on its own phone from the same code.
    their_phone = Client()
    response = post(their_phone, table, "confirm", {"side": "B"})
    assert response.status_code == 200, response.content.decode()[:400]
    table = fresh(table)
    assert table.status == TableMatch.Status.CONFIRMED and table.confirmed_side == "B"
    assert players.entry_words(table) == "A方选手扫码录入，B方选手确认"
    audit = AuditEntry.objects.get(table=table, action="confirm")
    assert audit.by_players and "B方选手确认" in audit.summary
    # Once confirmed the link enters nothing.
    assert "结果已确认，二维码不能再录入" in their_phone.get(link(table)).content.decode()


def test_the_tie_is_decided_by_the_players_two_tables(client, world):
    for table in (world["table"], world["second"]):
        play_out(client, table, "A")
        post(client, table, "submit", {"side": "B"})
        assert post(Client(), table, "confirm", {"side": "A"}).status_code == 200
    match = Match.objects.get(pk=world["table"].match_id)
    assert match.status == Match.Status.FINISHED and match.winner == Match.Side.HOME
    assert (
        Match.objects.get(pk=match.winner_to_id).home_id == match.home_id
        or Match.objects.get(pk=match.winner_to_id).away_id == match.home_id
    )


def test_an_official_confirms_the_players_result_only_when_called_or_as_chief(client, world):
    table = world["table"]
    play_out(client, table, "A")
    post(client, table, "submit", {"side": "A"})
    staff = Client()
    staff.force_login(world["referee"])
    url = reverse("scoring:confirm", args=[NANTONG, "guandan", table.pk])
    response = staff.post(url, {"version": fresh(table).version}, **HTMX)
    assert response.status_code == 403  # the other side confirms
    world["tournament"].result_entry = Tournament.ResultEntry.BOTH
    world["tournament"].save(update_fields=["result_entry"])
    response = staff.post(url, {"version": fresh(table).version}, **HTMX)
    assert response.status_code == 200
    assert fresh(table).status == TableMatch.Status.CONFIRMED
    assert players.entry_words(fresh(table)) == "A方选手扫码录入，裁判确认"


# --------------------------------------------------------------------------- 有异议


def test_a_dispute_calls_the_referee_who_corrects_and_confirms(client, world):
    table = world["table"]
    play_out(client, table, "A")
    post(client, table, "submit", {"side": "A"})
    response = post(
        Client(),
        table,
        "call",
        {"kind": "dispute", "side": "B", "note": "第二副不是双上", "key": "call-1"},
    )
    assert response.status_code == 200
    assert "已呼叫裁判" in response.content.decode()
    call = TableCall.objects.get(table=table)
    assert call.kind == "dispute" and call.side == "B" and call.resolved_at is None
    # While the referee is called, nobody confirms from the link.
    refused = post(client, table, "confirm", {"side": "B"})
    assert refused.status_code == 422 and "已呼叫裁判" in refused.content.decode()
    # The call shows on the desk and on the referee's 我的台, with the table and the time.
    when = timezone.localtime(call.created_at).strftime("%H:%M")
    chief, referee = Client(), Client()
    chief.force_login(world["chief"])
    referee.force_login(world["referee"])
    desk = chief.get(reverse("scoring:desk", args=[NANTONG])).content.decode()
    mine = referee.get(reverse("scoring:my-tables", args=[NANTONG])).content.decode()
    for html in (desk, mine):
        assert "呼叫裁判" in html and "对结果有异议" in html and when in html
        assert "第二副不是双上" in html
        assert reverse("scoring:table", args=[NANTONG, "guandan", table.pk]) in html
    # Another referee's 我的台 does not list it.
    other = Client()
    other.force_login(world["other"])
    assert (
        "第二副不是双上"
        not in other.get(reverse("scoring:my-tables", args=[NANTONG])).content.decode()
    )
    # The referee sends it back, corrects the record and confirms it themselves.
    page = referee.get(reverse("scoring:table", args=[NANTONG, "guandan", table.pk]))
    assert "退回重录" in page.content.decode()
    base = [NANTONG, "guandan", table.pk]
    version = lambda: str(fresh(table).version)  # noqa: E731
    assert (
        referee.post(
            reverse("scoring:reopen", args=base), {"version": version()}, **HTMX
        ).status_code
        == 200
    )
    assert fresh(table).status == TableMatch.Status.OPEN
    referee.post(reverse("scoring:undo", args=base), {"version": version()}, **HTMX)
    referee.post(reverse("scoring:undo", args=base), {"version": version()}, **HTMX)
    assert not fresh(table).is_over
    response = referee.post(
        reverse("scoring:deal", args=base),
        {"deal": "A4", "key": "r1", "version": version()},
        **HTMX,
    )
    assert response.status_code == 200
    if not fresh(table).is_over:
        referee.post(
            reverse("scoring:time-up", args=base), {"key": "r2", "version": version()}, **HTMX
        )
    referee.post(reverse("scoring:submit", args=base), {"version": version()}, **HTMX)
    response = referee.post(reverse("scoring:confirm", args=base), {"version": version()}, **HTMX)
    assert response.status_code == 200, response.content.decode()[:300]
    table = fresh(table)
    assert table.status == TableMatch.Status.CONFIRMED and table.confirmed_by == world["referee"]
    assert TableCall.objects.get(pk=call.pk).resolved_at is not None
    assert "裁判处理呼叫后确认" in AuditEntry.objects.get(table=table, action="confirm").summary
    assert "呼叫裁判（" not in chief.get(reverse("scoring:desk", args=[NANTONG])).content.decode()


def test_the_players_call_the_referee_for_a_penalty_once_per_tap(client, world):
    table = world["table"]
    for _ in range(2):
        response = post(client, table, "call", {"kind": "help", "key": "help-1"})
        assert response.status_code == 200
    assert TableCall.objects.filter(table=table).count() == 1
    bad = post(client, table, "call", {"kind": "nonsense", "key": "help-2"})
    assert bad.status_code == 422 and "请选择呼叫裁判的原因" in bad.content.decode()


def test_a_bad_side_is_refused_with_a_message_and_nothing_changes(client, world):
    table = world["table"]
    play_out(client, table, "A")
    before = snapshot()
    for side in ("", "C", "AB"):
        response = post(client, table, "submit", {"side": side})
        assert response.status_code == 422 and "请选择是哪一方提交结果" in response.content.decode()
    assert snapshot() == before


# --------------------------------------------------------------------------- the codes printed


def test_the_officials_qr_codes_are_the_players_links_and_the_publics_are_not(client, world):
    table = world["table"]
    staff = Client()
    staff.force_login(world["referee"])
    qr = reverse("scoring:table-qr", args=[NANTONG, "guandan", table.pk])
    assert (
        "/play/"
        not in client.get(
            reverse("scoring:table", args=[NANTONG, "guandan", table.pk])
        ).content.decode()
    )
    svg_staff = staff.get(qr)
    assert svg_staff["Cache-Control"].find("no-store") >= 0
    assert svg_staff.content != client.get(qr).content
    # The table cards are the officials' only.
    cards = reverse("documents:tablecards-pdf", args=[NANTONG, "guandan"]) + "?round=1"
    assert client.get(cards)["Location"].startswith("/accounts/login/")
    response = staff.get(cards)
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    assert "no-store" in response["Cache-Control"]


@pytest.mark.skipif(
    not shutil.which("zbarimg") or not shutil.which("pdftoppm"),
    reason="zbar-tools or poppler-utils not installed (apt-get install zbar-tools poppler-utils)",
)
def test_the_qr_decoded_from_the_score_sheets_opens_the_tables_buttons(client, world, tmp_path):
    from tournaments.documents.tests.test_documents import fetch, qr_on_page

    organiser = User.objects.create_user("organiser")
    Official.objects.create(
        tournament=world["tournament"], name="组织者", role="organiser", user=organiser
    )
    client.force_login(organiser)
    url = reverse("documents:scoresheets-pdf", args=[NANTONG, "guandan"]) + "?round=1"
    decoded = qr_on_page(fetch(client, url), 1, tmp_path)
    assert re.fullmatch(r"http://testserver/play/\d+-\d{8}-[0-9a-f]{32}/", decoded), decoded
    phone = Client()  # no login
    path = decoded.removeprefix("http://testserver")
    html = phone.get(path).content.decode()
    assert html.count('class="deal-button"') == 6
    code = path.split("/")[2]
    table = TableMatch.objects.get(pk=players.read_code(code).table_id)
    assert table.match.round.number == 1 and table.number == 1
    response = phone.post(
        path + "deal/", {"deal": "B3", "key": "k", "version": table.version}, **HTMX
    )
    assert response.status_code == 200
    assert TableEvent.objects.get(table=table).by_players
    # The table cards (two a page) carry the same links.
    cards = reverse("documents:tablecards-pdf", args=[NANTONG, "guandan"]) + "?round=1"
    (tmp_path / "cards").mkdir()
    on_page = qr_on_page(fetch(client, cards), 1, tmp_path / "cards").splitlines()
    assert len(on_page) == 2 and all("/play/" in url for url in on_page), on_page
    assert decoded in on_page
    # The desk links each round's score sheets and table cards.
    chief = Client()
    chief.force_login(world["chief"])
    desk = chief.get(reverse("scoring:desk", args=[NANTONG])).content.decode()
    assert "tablecards.pdf?round=1" in desk
    # The public's copy has the tables' pages, no link.
    (tmp_path / "public").mkdir()
    public = qr_on_page(fetch(Client(), url), 1, tmp_path / "public")
    assert "/play/" not in public
