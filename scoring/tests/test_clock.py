"""Where a table's time limit counts from (the rule set's ``time_from``, docs/rules.md):
Nantong's hour from the referee's 开始 at the table (每场比赛时间为1小时), Anhui's two and a
half hours from the round's scheduled start (全场同时), the first deal where nobody tapped
开始; the table page shows the deadline (限时至) and the rule line says which; the desk's
whistle counts the minutes left the same way."""

from __future__ import annotations

import datetime as dt

from django.utils import timezone

from scoring.models import AuditEntry, TableMatch
from scoring.services.desk import minutes_left
from scoring.services.tables import record_event
from scoring.tests.test_table_views import ANHUI, HTMX, NANTONG, snapshot, table_url
from scoring.tests.utils import fresh, page_data
from tournaments.models import Event


def shown(html: str) -> str:
    """The deadline the scoreboard shows ("限时至 15:05"), or ""."""
    marker = "限时至 "
    return html.split(marker, 1)[1][:5] if marker in html else ""


def local(moment) -> str:
    return timezone.localtime(moment).strftime("%H:%M")


def test_nantong_counts_the_hour_from_the_referees_start_at_the_table(client, cast):
    client.force_login(cast.referee)
    page = client.get(table_url("scoring:table", cast.table)).content.decode()
    assert "限时60分钟（从裁判宣布开始起计）" in page  # the rule line
    assert "本场限时60分钟，从宣布开始起计" in page and ">开始</button>" in page
    assert shown(page) == ""  # not begun: no deadline yet

    url = table_url("scoring:start", cast.table)
    response = client.post(url, page_data(url), **HTMX)
    assert response.status_code == 200
    html = response.content.decode()
    assert "已宣布开始，开始计时。" in html and ">开始</button>" not in html
    started = fresh(cast.table).start_called_at
    assert shown(html) == local(started + dt.timedelta(minutes=60))
    assert AuditEntry.objects.filter(table=cast.table, action="start").exists()

    # The first deal, ten minutes later, does not move it.
    TableMatch.objects.filter(pk=cast.table.pk).update(
        start_called_at=started - dt.timedelta(minutes=10)
    )
    record_event(table=fresh(cast.table), event={"order": list("AABB")}, user=cast.referee, key="d")
    html = client.get(table_url("scoring:table", cast.table)).content.decode()
    assert shown(html) == local(started + dt.timedelta(minutes=50))

    # Once is enough: a second 开始 is refused and changes nothing.
    before = snapshot()
    response = client.post(url, page_data(url), **HTMX)
    assert response.status_code == 422 and "这一台已经开始计时" in response.content.decode()
    assert snapshot() == before


def test_without_a_start_the_first_deal_starts_the_clock(client, cast):
    record_event(table=cast.table, event={"order": list("AABB")}, user=cast.referee, key="d")
    table = fresh(cast.table)
    client.force_login(cast.referee)
    html = client.get(table_url("scoring:table", table)).content.decode()
    assert shown(html) == local(table.started_at + dt.timedelta(minutes=60))
    assert ">开始</button>" not in html  # too late to start the clock


def test_anhui_counts_from_the_rounds_scheduled_start_for_every_table(client, cast):
    table = cast.foreign_table
    start = timezone.now().replace(second=0, microsecond=0) - dt.timedelta(minutes=20)
    rnd = table.match.round
    rnd.starts_at = start
    rnd.save(update_fields=["starts_at"])
    client.force_login(cast.foreign_referee)
    html = client.get(table_url("scoring:table", table, slug=ANHUI)).content.decode()
    assert "限时150分钟（从规定开赛时间起计）" in html
    assert shown(html) == local(start + dt.timedelta(minutes=150))  # before any deal
    assert ">开始</button>" not in html
    record_event(table=table, event={"order": list("AABB")}, user=cast.foreign_referee, key="d")
    html = client.get(table_url("scoring:table", table, slug=ANHUI)).content.decode()
    assert shown(html) == local(start + dt.timedelta(minutes=150))  # the deal changes nothing
    # 开始 means nothing here: refused, and nothing changes.
    url = table_url("scoring:start", table, slug=ANHUI)
    before = snapshot()
    response = client.post(url, page_data(url), **HTMX)
    assert response.status_code == 422 and "无需宣布开始" in response.content.decode()
    assert snapshot() == before
    # The desk's whistle counts the same: 150 − 20 minutes left.
    assert minutes_left(rnd) == 130


def test_a_custom_rule_set_may_count_from_the_first_deal(client, cast):
    from scoring.engines.guandan.rules import NANTONG_2014

    event = Event.objects.get(tournament__slug=NANTONG, slug="guandan")
    config = {**NANTONG_2014.to_dict(), "id": "club", "time_from": "first_deal"}
    Event.objects.filter(pk=event.pk).update(ruleset_config=config)
    client.force_login(cast.referee)
    html = client.get(table_url("scoring:table", cast.table)).content.decode()
    assert "限时60分钟（从第一副牌起计）" in html and ">开始</button>" not in html


def test_the_whistle_counts_the_minutes_left_from_the_first_start_of_the_round(cast):
    rnd = cast.table.match.round
    rnd.starts_at = timezone.now() - dt.timedelta(minutes=40)  # not what Nantong counts from
    rnd.save(update_fields=["starts_at"])
    assert minutes_left(rnd) == 20  # nobody has begun: the schedule says when they should
    TableMatch.objects.filter(pk=cast.table.pk).update(
        start_called_at=timezone.now() - dt.timedelta(minutes=15)
    )
    assert minutes_left(rnd) == 45
