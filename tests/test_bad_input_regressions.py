"""One test for each 500 that tests/test_bad_input.py found: the request is now refused with
a message (or a 404 for an id that cannot exist) and nothing is saved."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from pypdf import PdfReader

from scoring.models import CheckIn, TableEvent, TableMatch
from scoring.tests.utils import assign_referee
from tournaments.models import Draw, Event, Match, Official, Round, Tournament, Unit

User = get_user_model()
NANTONG = "nantong-2014"
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def organiser(client, demo):
    user = User.objects.create_user("organiser")
    Official.objects.create(tournament=demo[NANTONG], name="组织者", role="organiser", user=user)
    client.force_login(user)
    return user


@pytest.fixture
def referee_table(client, demo):
    user = User.objects.create_user("referee")
    Official.objects.create(tournament=demo[NANTONG], name="裁判", role="referee", user=user)
    table = (
        TableMatch.objects.filter(match__round__stage__event__tournament=demo[NANTONG])
        .order_by("pk")
        .first()
    )
    assign_referee(TableMatch.objects.filter(pk=table.pk), user)
    client.force_login(user)
    return table


def table_url(name: str, table: TableMatch) -> str:
    return reverse(name, args=[NANTONG, "guandan", table.pk])


@pytest.mark.parametrize("version", ["²", "①", "9" * 5000])
def test_a_deal_with_a_version_that_is_not_a_number_is_not_a_server_error(
    client, referee_table, version
):
    response = client.post(
        table_url("scoring:deal", referee_table),
        {"deal": "A2", "key": "k1", "version": version},
        **HTMX,
    )
    # Not a version this page could have sent: refused (issue 16), never "no check".
    assert response.status_code == 422
    assert "请求缺少有效的版本号" in response.content.decode()
    assert TableEvent.objects.filter(table=referee_table).count() == 0


@pytest.mark.parametrize("levels", ["²", "9" * 5000, "-1", "0"])
def test_a_penalty_of_levels_that_are_not_a_whole_number_is_refused(client, referee_table, levels):
    response = client.post(
        table_url("scoring:penalty", referee_table),
        {"team": "A", "kind": "levels", "levels": levels, "reason": "拖延", "key": "p1"},
        **HTMX,
    )
    assert response.status_code == 422
    assert "扣级数必须是不小于1的整数" in response.content.decode()
    assert not TableEvent.objects.exists()


@pytest.mark.parametrize("table", ["", "abc", "²", "9" * 30])
def test_a_check_in_of_a_table_id_that_cannot_exist_is_not_found(client, referee_table, table):
    url = reverse("scoring:checkin", args=[NANTONG, referee_table.match.round_id])
    response = client.post(url, {"table": table, "team": "A"})
    assert response.status_code == 404
    assert not CheckIn.objects.exists()


@pytest.mark.parametrize("username", ["ｏｒｇａｎｉｓｅｒ", "organiser"])
def test_a_leader_login_equal_to_an_existing_one_after_normalising_is_refused(
    client, organiser, demo, username
):
    """create_user stores the NFKC form: a full-width twin used to pass the form's check
    and then break the database's unique constraint."""
    unit = Unit.objects.filter(tournament=demo[NANTONG]).first()
    url = reverse("manage:add-leader", args=[NANTONG, unit.pk])
    response = client.post(url, {"username": username, "password": "Leader-2026-pass"}, follow=True)
    assert "用户名“organiser”已被使用" in response.content.decode()
    assert User.objects.count() == 1
    assert not unit.leaders.exists()


@pytest.mark.parametrize("username", ["<script>", "名 字", "a\u202eb"])
def test_a_login_name_the_user_model_does_not_allow_is_refused(client, organiser, username):
    url = reverse("manage:officials", args=[NANTONG])
    response = client.post(
        url,
        {"name": "王裁判", "role": "referee", "username": username, "password": "Ref-2026-pass!"},
    )
    assert response.status_code == 422
    assert User.objects.count() == 1
    assert not Official.objects.filter(name="王裁判").exists()


def test_the_official_form_stores_the_normalised_login_name(client, organiser):
    url = reverse("manage:officials", args=[NANTONG])
    client.post(
        url,
        {"name": "王裁判", "role": "referee", "username": "ｗａｎｇ", "password": "Ref-2026-pass!"},
    )
    assert Official.objects.get(name="王裁判").user.username == "wang"


@pytest.mark.parametrize("member", ["9" * 30, "-1", "²"])
def test_a_joint_team_member_id_that_cannot_exist_is_an_invalid_choice(client, organiser, member):
    url = reverse("manage:units", args=[NANTONG])
    before = Unit.objects.count()
    response = client.post(url, {"name": "新联队", "kind": "joint", "members": [member, "1"]})
    assert response.status_code == 422
    assert Unit.objects.count() == before


@pytest.mark.parametrize("field", ["registration_deadline", "leaders_meeting_at", "starts_on"])
def test_a_tournament_date_off_the_calendar_is_refused(client, organiser, field):
    data = {
        "name": "杯",
        "organiser_name": "工会",
        "starts_on": "2026-12-01",
        "notice_title": "通知",
        "notice_text": "正文",
        "certificate_title": "荣誉证书",
        "certificate_text": "{name}",
    }
    data[field] = "0001-01-01T00:00" if field != "starts_on" else "0001-01-01"
    response = client.post(reverse("manage:settings", args=[NANTONG]), data)
    assert response.status_code == 422
    assert "日期须在1900年到2999年之间" in response.content.decode()
    assert Tournament.objects.get(slug=NANTONG).name != "杯"


@pytest.mark.parametrize(
    "data, message",
    [
        ({"auto": "1", "start": "2026-12-01T08:00", "minutes": "9" * 30}, "每轮时长至少10分钟"),
        ({"auto": "1", "start": "9999-12-31T23:00", "minutes": "60"}, "每轮时长至少10分钟"),
    ],
)
def test_an_automatic_schedule_off_the_calendar_is_refused(client, organiser, data, message):
    before = list(Round.objects.values_list("pk", "starts_at"))
    response = client.post(reverse("draw:schedule", args=[NANTONG, "guandan"]), data)
    assert response.status_code == 422
    assert message in response.content.decode()
    assert list(Round.objects.values_list("pk", "starts_at")) == before


@pytest.mark.parametrize("value", ["0001-01-01T00:00", "²"])
def test_a_schedule_edit_off_the_calendar_or_with_a_bad_table_saves_nothing(
    client, organiser, value
):
    rnd = Round.objects.filter(stage__event__tournament__slug=NANTONG).first()
    match = Match.objects.filter(round=rnd).first()
    before = list(Match.objects.values_list("pk", "first_table"))
    response = client.post(
        reverse("draw:schedule", args=[NANTONG, "guandan"]),
        {f"round-{rnd.pk}": value, f"table-{match.pk}": value},
    )
    assert response.status_code == 422
    assert list(Match.objects.values_list("pk", "first_table")) == before
    assert Round.objects.get(pk=rnd.pk).starts_at is None


@pytest.mark.parametrize("seed", ["²", "9" * 30])
def test_a_random_draw_seed_that_no_column_holds_is_refused(client, organiser, demo, seed):
    event = Event.objects.get(tournament=demo[NANTONG], slug="guandan")
    client.post(reverse("draw:undo", args=[NANTONG, "guandan"]), {"confirm": "1"})
    draws_before = Draw.objects.filter(event=event).count()
    response = client.post(
        reverse("draw:draw", args=[NANTONG, "guandan"]),
        {"method": "random", "seed": seed, "format": "knockout"},
    )
    assert response.status_code == 422
    assert "随机种子必须是非负整数" in response.content.decode()
    assert Draw.objects.filter(event=event).count() == draws_before


def test_a_score_sheet_round_that_is_not_a_number_is_ignored(client, demo):
    url = reverse("documents:scoresheets-pdf", args=[NANTONG, "guandan"])
    every_round = client.get(url)
    response = client.get(url + "?round=²")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    # Ignored, not read as some round: the same sheets as with no round asked for.
    pages = len(PdfReader(io.BytesIO(response.content)).pages)
    assert pages == len(PdfReader(io.BytesIO(every_round.content)).pages)
    assert pages > 0


@pytest.mark.parametrize("events", ["[" + "9" * 5000 + "]", "[" * 100000 + "]" * 100000])
def test_a_correction_that_json_cannot_read_into_python_is_refused(client, demo, events):
    chief = User.objects.create_user("chief")
    Official.objects.create(
        tournament=demo[NANTONG], name="裁判长", role="chief_referee", user=chief
    )
    client.force_login(chief)
    table = TableMatch.objects.filter(match__round__stage__event__tournament=demo[NANTONG]).first()
    response = client.post(
        table_url("scoring:correct", table),
        {"events": events, "reason": "核对", "version": str(table.version)},
        **HTMX,
    )
    assert response.status_code == 422
    assert "须为JSON列表" in response.content.decode()
    assert not TableEvent.objects.exists()


@pytest.mark.parametrize(
    "name, data",
    [
        (
            "scoring:penalty",
            {
                "team": "A",
                "kind": "levels",
                "levels": "1",
                "reason": "拖\x00延",
                "reported_by": "\x00",
                "key": "p\x001",
                "version": "0",
            },
        ),
        (
            "scoring:report",
            {"team": "A", "description": "偷\x00看", "reported_by": "乙\x00", "key": "r\x001"},
        ),
        ("scoring:deal", {"deal": "A2", "key": "\x00d1", "version": "0"}),
    ],
)
def test_nul_characters_in_free_text_are_dropped_not_a_server_error(
    client, referee_table, name, data
):
    """PostgreSQL refuses NUL in text columns (a 500 there before); the text is kept without it."""
    response = client.post(table_url(name, referee_table), data, **HTMX)
    assert response.status_code == 200
    stored = [
        *TableEvent.objects.values_list("key", "reason", "reported_by"),
        *referee_table.reports.values_list("key", "description", "reported_by"),
    ]
    assert stored and not any("\x00" in text for row in stored for text in row)


def test_a_penalty_whose_reason_is_only_a_nul_character_has_no_reason(client, referee_table):
    response = client.post(
        table_url("scoring:penalty", referee_table),
        {"team": "A", "kind": "levels", "levels": "1", "reason": "\x00", "key": "p1"},
        **HTMX,
    )
    assert response.status_code == 422
    assert "请写明处罚原因" in response.content.decode()


def test_a_draw_method_that_does_not_exist_is_refused(client, organiser, demo):
    client.post(reverse("draw:undo", args=[NANTONG, "guandan"]), {"confirm": "1"})
    event = Event.objects.get(tournament=demo[NANTONG], slug="guandan")
    before = Draw.objects.filter(event=event).count()
    response = client.post(
        reverse("draw:draw", args=[NANTONG, "guandan"]),
        {"method": "<script>", "format": "knockout"},
    )
    assert response.status_code == 422
    assert "未知的抽签方式" in response.content.decode()
    assert Draw.objects.filter(event=event).count() == before
