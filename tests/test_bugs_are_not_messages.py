"""A bug is never shown to a user as a message: the pages turn only the errors people can act
on (``guandan_cup.errors.UserError``, the engines' ``EngineError`` and ``RuleSetError``) into
words on the page, and anything else a service raises reaches the server's error handling
(a 500 and the log), where it is seen and fixed.

Each case makes the service behind a page fail as a bug would — a ValueError, a KeyError, a
TypeError — and expects it to come out of the page rather than be worded."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from openpyxl import Workbook

from scoring.models import TableMatch
from tournaments.models import Event, Tournament


def bug(*args, **kwargs):
    raise KeyError("a bug, not a message")


@pytest.fixture
def staff(client, demo):
    user = get_user_model().objects.create_superuser("root", password="x")
    client.force_login(user)
    return client


def test_the_automatic_schedule(staff, monkeypatch):
    monkeypatch.setattr("tournaments.draw.schedule.auto_schedule", bug)
    url = reverse("draw:schedule", args=["nantong-2014", "guandan"])
    with pytest.raises(KeyError):
        staff.post(url, {"auto": "1", "start": "2014-05-24T14:00", "minutes": "75"})


def test_the_schedule_save(staff, monkeypatch):
    monkeypatch.setattr("tournaments.draw.schedule.save_schedule", bug)
    with pytest.raises(KeyError):
        staff.post(reverse("draw:schedule", args=["nantong-2014", "guandan"]), {})


def test_a_status_change(staff, monkeypatch):
    monkeypatch.setattr("tournaments.draw.status.move_by_hand", bug)
    with pytest.raises(KeyError):
        staff.post(reverse("manage:status", args=["anhui-2021"]), {"action": "open"})


def test_a_table_entry(staff, monkeypatch):
    table = TableMatch.objects.filter(
        match__round__stage__event__tournament__slug="nantong-2014",
        match__round__stage__draw__undone_at__isnull=True,
    ).first()
    event = table.match.round.stage.event
    monkeypatch.setattr("scoring.services.tables.record_event", bug)
    url = reverse("scoring:deal", args=["nantong-2014", event.slug, table.pk])
    with pytest.raises(KeyError):
        staff.post(url, {"deal": "A2", "version": table.version, "key": "k1"})


def test_an_excel_form_read_by_faulty_code_is_not_called_damaged(staff, monkeypatch):
    # A file openpyxl cannot read is the user's to fix (另存为.xlsx); our reader failing on a
    # good file is not.
    monkeypatch.setattr("tournaments.registration.spreadsheets.imports._read_rows", bug)
    book = Workbook()
    book.active.append(["单位", "选手姓名"])
    data = io.BytesIO()
    book.save(data)
    from tournaments.registration.spreadsheets.imports import parse_workbook

    event = Event.objects.get(tournament__slug="anhui-2021", slug="xiangqi")
    with pytest.raises(KeyError):
        parse_workbook(event, data.getvalue())


def test_a_rule_set_that_fails_as_a_bug_is_not_the_organisers_mistake(demo, monkeypatch):
    def broken(*args, **kwargs):
        raise ValueError("a bug in an engine")

    monkeypatch.setattr("scoring.engines.scorer.scorer_for", broken)
    event = Event.objects.get(tournament__slug="anhui-2021", slug="xiangqi")
    with pytest.raises(ValueError, match="a bug in an engine"):
        event.full_clean()


def test_what_people_can_fix_is_still_worded(staff):
    # The other side of the line: a status change refused is a message, not a 500.
    Tournament.objects.filter(slug="anhui-2021").update(status=Tournament.Status.DRAWN)
    response = staff.post(
        reverse("manage:status", args=["anhui-2021"]), {"action": "open"}, follow=True
    )
    assert response.status_code == 200
    assert "当前状态（已抽签）下不能这样操作。" in response.content.decode()
