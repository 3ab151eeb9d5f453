"""A team leader's own Excel form (本单位报名表): downloaded from the unit page, filled in,
uploaded there, checked row by row and imported once confirmed — the leader's rules, the
unit's rows only."""

import datetime as dt
import io
import re

from django.urls import reverse
from django.utils import timezone
from openpyxl import load_workbook

from tournaments.models import Tournament
from tournaments.registration.tests.test_pages import _nantong_workbook, leader, nantong_entries


def _rows(unit, prefix):
    return [[unit, n, f"{prefix}{n}甲", "男", "", f"{prefix}{n}乙", "女", ""] for n in (1, 2, 3)]


def test_the_unit_page_offers_the_units_form_and_its_upload(client, nantong):
    client.force_login(leader("体育"))
    unit = nantong.units.get(name="体育")
    page = client.get(reverse("registration:unit", args=[nantong.slug, unit.pk])).content.decode()
    form_url = reverse("registration:unit-form", args=[nantong.slug, unit.pk, "guandan"])
    assert form_url in page
    assert reverse("registration:unit-import", args=[nantong.slug, unit.pk, "guandan"]) in page
    response = client.get(form_url)
    assert response.status_code == 200
    assert (
        "体育" in response["Content-Disposition"]
        or "%E4%BD%93%E8%82%B2" in response["Content-Disposition"]
    )
    sheet = load_workbook(io.BytesIO(response.content)).worksheets[0]
    values = [c for row in sheet.iter_rows(values_only=True) for c in row if c]
    assert any(isinstance(v, str) and v.endswith("体育") and "示例" in v for v in values)


def test_a_leader_imports_their_teams_form_after_a_preview(client, nantong):
    client.force_login(leader("体育"))
    unit = nantong.units.get(name="体育")
    url = reverse("registration:unit-import", args=[nantong.slug, unit.pk, "guandan"])
    page = client.get(url).content.decode()
    assert "只导入本单位的报名" in page
    response = client.post(url, {"file": _nantong_workbook(_rows("体育", "体"))})
    assert response.status_code == 200
    assert "检查通过：将导入 1 个报名" in response.content.decode()
    assert not nantong_entries().exists()  # the preview saves nothing
    response = client.post(url, {"confirm": "1"})
    assert response.status_code == 302
    assert response["Location"] == reverse("registration:unit", args=[nantong.slug, unit.pk])
    entry = nantong_entries().get()
    assert entry.unit == unit and not entry.on_site
    assert [str(p) for p in entry.pairs.order_by("number")] == [
        "体1甲、体1乙",
        "体2甲、体2乙",
        "体3甲、体3乙",
    ]


def test_another_units_rows_are_refused_by_row_and_nothing_is_saved(client, nantong):
    client.force_login(leader("体育"))
    unit = nantong.units.get(name="体育")
    url = reverse("registration:unit-import", args=[nantong.slug, unit.pk, "guandan"])
    rows = _rows("体育", "体") + _rows("行政", "行")
    response = client.post(url, {"file": _nantong_workbook(rows)})
    assert response.status_code == 422
    html = response.content.decode()
    assert "未导入任何报名" in html
    assert "第5–7行 A列：这份报名表只能填写体育的报名（这里是“行政”）。" in html
    assert client.post(url, {"confirm": "1"}).status_code == 302  # nothing waiting
    assert not nantong_entries().exists()


def test_every_problem_of_a_units_form_is_given_by_its_cell_at_once(client, nantong):
    """A pair number given twice (the team's rows cannot be read as its pairs) hides
    neither a player entered twice nor a gender nobody writes: each is listed with the
    cell to correct."""
    client.force_login(leader("体育"))
    unit = nantong.units.get(name="体育")
    url = reverse("registration:unit-import", args=[nantong.slug, unit.pk, "guandan"])
    rows = _rows("体育", "体")  # rows 2–4
    rows[1][1] = 1  # row 3, 对序号 (B): 1 again
    rows[2][5] = "体1甲"  # row 4, 选手二姓名 (F): row 2's 选手一 again
    rows[2][3] = "未知"  # row 4, 选手一性别 (D)
    response = client.post(url, {"file": _nantong_workbook(rows)})
    assert response.status_code == 422
    html = response.content.decode()
    problems = re.findall(r"<li>(第[^<]*)</li>", html)
    assert problems == [
        "第2行 C列、第4行 F列：体1甲（体育）在本次报名中出现了2次，同一项目每人只能报一次。",
        "第3行 B列：体育的对序号1与第2行重复。",
        "第4行 D列：第3对选手一的性别“未知”无法识别，请填“男”或“女”。",
    ]
    assert not nantong_entries().exists()


def test_a_leader_is_held_to_the_deadline_and_on_site_entries_are_the_organisers(client, nantong):
    client.force_login(leader("体育"))
    unit = nantong.units.get(name="体育")
    url = reverse("registration:unit-import", args=[nantong.slug, unit.pk, "guandan"])
    on_site = [row[:8] + ["是"] for row in _rows("体育", "体")]
    response = client.post(url, {"file": _nantong_workbook(on_site)})
    assert response.status_code == 422 and "现场报名只能由组织者办理" in response.content.decode()
    Tournament.objects.filter(pk=nantong.pk).update(
        registration_deadline=timezone.now() - dt.timedelta(hours=1)
    )
    page = client.get(url).content.decode()
    assert "报名已截止" in page
    response = client.post(url, {"file": _nantong_workbook(_rows("体育", "体"))})
    assert response.status_code == 422 and "截止" in response.content.decode()
    assert not nantong_entries().exists()


def test_a_leader_cannot_use_another_units_form_pages(client, nantong):
    client.force_login(leader("体育"))
    other = nantong.units.get(name="行政")
    for name in ("registration:unit-form", "registration:unit-import"):
        url = reverse(name, args=[nantong.slug, other.pk, "guandan"])
        assert client.get(url).status_code == 403


def test_the_organiser_imports_one_units_form_from_its_page_on_the_organisers_rules(
    client, nantong, organiser
):
    client.force_login(organiser)
    unit = nantong.units.get(name="行政")
    Tournament.objects.filter(pk=nantong.pk).update(
        registration_deadline=timezone.now() - dt.timedelta(hours=1)
    )
    url = reverse("registration:unit-import", args=[nantong.slug, unit.pk, "guandan"])
    on_site = [row[:8] + ["是"] for row in _rows("行政", "行")]
    assert client.post(url, {"file": _nantong_workbook(on_site)}).status_code == 200
    assert client.post(url, {"confirm": "1"}).status_code == 302
    assert nantong_entries().get().on_site
