"""The engines' and the audit's words on the pages, in the reader's language: a table's record,
its rule set, the flash after a deal, the audit (kept as words, worded for each reader; an
entry from before the words read as its Chinese summary), a tie's result with its two
entries, and the built-in rule sets' names in the organiser's forms."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import translation

from scoring.engines.board import Words
from scoring.models import AuditEntry
from scoring.selectors import pair_name
from scoring.services.tables import confirm_table, record_event, submit_table
from scoring.templatetags.boards import say
from scoring.tests.test_table_views import HTMX, NANTONG, play_out, table_url
from scoring.tests.utils import fresh, page_data, tables

pytestmark = pytest.mark.django_db
CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")


def _between(html: str, start: str, end: str) -> str:
    return html[html.index(start) : html.index(end, html.index(start))]


def _chinese_left(text: str, names: list[str]) -> list[str]:
    """The Chinese in ``text`` once the names people typed are taken out."""
    for name in sorted(names, key=len, reverse=True):
        text = text.replace(name, " ")
    return CJK.findall(text)


def _names(table) -> list[str]:
    """The names on the page, a pair's two as either language lists them."""
    names = ["裁判甲", "裁判长甲"]
    for language in ("zh-hans", "en"):
        with translation.override(language):
            names += [pair_name(table.home_pair), pair_name(table.away_pair)]
    return names


def _played(client, cast) -> None:
    """The referee records a 双上 and time up from the table page in English, submits; the
    chief referee confirms."""
    client.cookies["django_language"] = "en"
    client.force_login(cast.referee)
    url = table_url("scoring:deal", cast.table)
    flash = client.post(url, page_data(url, {"deal": "A2", "key": "k1"}), **HTMX)
    with translation.override("en"):
        home, away = pair_name(cast.table.home_pair), pair_name(cast.table.away_pair)
    assert f"{home} double win ({away} double loss), up 3: 2→5" in flash.content.decode()
    url = table_url("scoring:time-up", cast.table)
    client.post(url, page_data(url, {"key": "k2"}), **HTMX)
    url = table_url("scoring:submit", cast.table)
    client.post(url, page_data(url), **HTMX)
    client.force_login(cast.chief)
    url = table_url("scoring:confirm", cast.table)
    client.post(url, page_data(url), **HTMX)


def test_the_table_page_and_the_audit_read_in_english(client, cast):
    _played(client, cast)
    names = _names(cast.table)
    with translation.override("en"):
        home = pair_name(cast.table.home_pair)
    page = client.get(table_url("scoring:table", cast.table)).content.decode()
    history = _between(page, '<ol class="history-list"', "</ol>")
    assert f"Time up: {home} has the higher level (5 to 2), {home} wins" in history
    assert "up 3: 2→5" in history and _chinese_left(history, names) == []
    rules = _between(page, '<p class="meta">', "</p>")
    assert "Promotion 3/2/1; A must be played; a single game; 60-minute limit" in rules
    audit = _between(page, '<ul class="audit">', "</ul>")
    assert f"Result confirmed: {home} won" in audit and "Result submitted" in audit
    assert _chinese_left(audit, names) == []
    html = client.get(reverse("scoring:audit", args=[NANTONG])).content.decode()
    rows = _between(html, "<tbody>", "</tbody>")
    assert "up 3: 2→5" in rows and f"Result confirmed: {home} won" in rows
    # The tables' headings and the tie's names are other people's business (rounds, ties).
    summaries = [cells[4] for cells in re.findall(r"<tr>" + r"<td>(.*?)</td>" * 6, rows)]
    assert summaries and all(_chinese_left(s, names) == [] for s in summaries), summaries
    # The correction page reads the record and the rule set in English too.
    page = client.get(table_url("scoring:correction", cast.table)).content.decode()
    entries = _between(page, '<ol class="correction-list">', "</ol>")
    assert "double win" in entries and "Time up" in entries
    assert "Promotion 3/2/1" in page
    # The same pages in Chinese.
    client.cookies["django_language"] = "zh-hans"
    page = client.get(table_url("scoring:table", cast.table)).content.decode()
    assert "双上" in page and "升级3/2/1；A必打" in page and "确认结果：" in page
    html = client.get(reverse("scoring:audit", args=[NANTONG])).content.decode()
    assert "升3级：2→5" in html and "double win" not in html


def test_the_deal_buttons_name_the_partners_place_in_the_readers_language(client, cast):
    """Regression: the buttons read "partner2nd" in English, 对家 and 二游 run together."""
    for language, buttons in (
        ("zh-hans", ["对家二游", "对家三游", "对家末游"]),
        ("en", ["partner 2nd", "partner 3rd", "partner last"]),
    ):
        for view, who in (("scoring:table", cast.referee), ("scoring:correction", cast.chief)):
            client.force_login(who)
            client.cookies["django_language"] = language
            page = client.get(table_url(view, cast.table)).content.decode()
            shown = re.findall(r'class="deal-button">([^<]*)</button>', page)
            assert shown == buttons * 2, (view, shown)


def test_an_audit_entry_keeps_its_words_and_is_worded_for_each_reader(cast):
    record_event(table=cast.table, event={"order": list("AABB")}, user=cast.referee, key="k")
    entry = AuditEntry.objects.get(table=cast.table, action="event")
    home, away = pair_name(cast.table.home_pair), pair_name(cast.table.away_pair)
    assert entry.summary == f"{home}双上（{away}双下），升3级：2→5"
    assert entry.words == {
        "text": "%(what)s，升%(n)s级：%(old)s→%(new)s",
        "args": {
            "what": {
                "text": "%(name)s双上（%(other)s双下）",
                "args": {"name": home, "other": away},
            },
            "n": 3,
            "old": "2",
            "new": "5",
        },
    }
    assert isinstance(entry.said, Words) and str(entry.said) == entry.summary
    with translation.override("en"):
        assert say(entry.said) == f"{home} double win ({away} double loss), up 3: 2→5"
    with translation.override("zh-hans"):
        assert say(entry.said) == entry.summary


def test_an_entry_from_before_the_words_reads_as_its_summary(client, cast):
    AuditEntry.objects.create(
        tournament=cast.table.match.round.stage.event.tournament,
        table=cast.table,
        match=cast.table.match,
        action="tie_decided",
        summary="本场结果：0 3",
    )
    client.force_login(cast.chief)
    for language in ("en", "zh-hans"):
        client.cookies["django_language"] = language
        html = client.get(reverse("scoring:audit", args=[NANTONG])).content.decode()
        assert "<td>本场结果：0 3</td>" in html


def test_a_ties_result_names_its_two_entries(cast):
    match = cast.table.match
    for table in tables(match)[:2]:
        play_out(fresh(table), "A", cast.referee)
        submit_table(table=fresh(table), user=cast.referee)
        confirm_table(table=fresh(table), user=cast.chief)
    decided = AuditEntry.objects.get(match=match, action="tie_decided")
    home, away = match.home.name, match.away.name
    assert decided.summary == f"本场结果：{home} 2–0 {away}"
    with translation.override("en"):
        assert say(decided.said) == f"Tie result: {home} 2–0 {away}"
    stopped = AuditEntry.objects.get(table=tables(match)[2], action="not_played")
    with translation.override("en"):
        assert say(stopped.said) == "The tie is decided: this table is not played on"


def test_a_stale_page_is_told_who_changed_the_table_in_its_language(client, cast):
    record_event(table=cast.table, event={"order": list("AABB")}, user=cast.referee, key="k")
    client.force_login(cast.referee)
    client.cookies["django_language"] = "en"
    url = table_url("scoring:deal", cast.table)
    answer = client.post(url, {"deal": "B2", "key": "k2", "version": "0"}, **HTMX)
    assert answer.status_code == 422
    assert "double win" in answer.content.decode() and "双上" not in answer.content.decode()


def test_the_built_in_rule_sets_are_named_in_the_readers_language(client, demo):
    organiser = get_user_model().objects.create_superuser("organiser", password="x" * 20)
    client.force_login(organiser)
    client.cookies["django_language"] = "en"
    form = client.get(reverse("manage:event-edit", args=["anhui-2021", "guandan"]))
    html = form.content.decode()
    for name in (
        "Anhui Agricultural University staff guandan rules (2021)",
        "Nantong Middle School staff guandan rules (2014)",
        "Anhui Agricultural University staff xiangqi (2021)",
        "Badminton, best of three (21 points a game)",
        "Table tennis, best of five (11 points a game)",
    ):
        assert name in html
    assert "掼蛋规程（2021）" not in html and "每局11分" not in html
    dashboard = client.get(reverse("manage:dashboard", args=["anhui-2021"])).content.decode()
    assert "Anhui Agricultural University staff guandan rules (2021)" in dashboard
    copy = client.get(reverse("setup:copy", args=["anhui-2021"])).content.decode()
    assert "Anhui Agricultural University staff guandan rules (2021)" in copy
    client.cookies["django_language"] = "zh-hans"
    html = client.get(reverse("manage:event-edit", args=["anhui-2021", "guandan"])).content
    assert "安徽农业大学教职工掼蛋规程（2021）" in html.decode()


def test_a_refused_entry_is_explained_in_the_readers_language(demo):
    from scoring.models import TableMatch
    from scoring.services.common import TableError

    table = (
        TableMatch.objects.filter(
            match__round__stage__event__slug="badminton",
            match__home__isnull=False,
            match__away__isnull=False,
        )
        .order_by("pk")
        .first()
    )
    for language, message in (
        ("en", "21–20 is not a finished game: it needs a 2-point lead (or 30 points)"),
        ("zh-hans", "21–20不是完整的一局：须领先2分（或打到30分）"),
    ):
        with translation.override(language), pytest.raises(TableError) as refused:
            record_event(table=table, event={"home": 21, "away": 20}, key=f"k-{language}")
        assert refused.value.message == message


def test_an_undo_is_audited_as_what_it_took_back(cast):
    from scoring.services.tables import undo_last

    record_event(table=cast.table, event={"order": list("AABB")}, user=cast.referee, key="k")
    undo_last(table=fresh(cast.table), user=cast.referee)
    undone = AuditEntry.objects.get(table=cast.table, action="undo")
    home, away = pair_name(cast.table.home_pair), pair_name(cast.table.away_pair)
    assert undone.summary == f"撤销：{home}双上（{away}双下），升3级：2→5"
    with translation.override("en"):
        assert say(undone.said) == f"Undone: {home} double win ({away} double loss), up 3: 2→5"


def test_the_early_whistle_names_its_round_in_the_readers_language(client, cast):
    """Regression: the desk's warning named the round as stored, in Chinese on an English
    page (“掼蛋 · 1/8决赛 still has 120 minutes …”)."""
    import datetime as dt

    from django.utils import timezone

    from scoring.tests.test_table_views import ANHUI

    rnd = cast.foreign_table.match.round  # Anhui's 掼蛋 (150 minutes): its round of 16
    rnd.starts_at = timezone.now() - dt.timedelta(minutes=30)
    rnd.save(update_fields=["starts_at"])
    client.force_login(cast.foreign_chief)
    client.cookies["django_language"] = "en"
    whistle = reverse("scoring:whistle", args=[ANHUI, rnd.pk])
    html = client.post(whistle, {"confirm": "1"}, follow=True).content.decode()
    with translation.override("en"):
        label = rnd.label
    assert rnd.name != label == "Round of 16"
    assert f"{rnd.stage.event.name} · Round of 16 still has 120 minutes" in html
